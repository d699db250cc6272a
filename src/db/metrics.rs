//! The shop-wide gauges `GET /metrics` reports, read in one connection so every replica
//! reports the same numbers. Purchases per status and jobs per state come from counts the
//! database keeps in the transaction of every change (`purchase_status_counts`,
//! `outbox_state_counts`, kept by triggers), never from a count of every row per scrape.

use diesel::dsl::min;
use diesel::prelude::*;

use crate::db::schema::{alerts, outbox_jobs, outbox_state_counts, purchase_status_counts};
use crate::db::{DbConn, DbError, wallet};

pub struct Gauges {
    /// Purchases by status.
    pub purchases: Vec<(String, i64)>,
    /// Outbox jobs by state.
    pub jobs: Vec<(String, i64)>,
    /// When the most overdue queued job became due.
    pub oldest_due_ms: Option<i64>,
    pub open_alerts: i64,
    pub wallet: Option<wallet::WalletRow>,
}

pub fn read_gauges(conn: &mut DbConn) -> Result<Gauges, DbError> {
    let purchases = purchase_status_counts::table
        .filter(purchase_status_counts::n.gt(0))
        .order(purchase_status_counts::status)
        .select((purchase_status_counts::status, purchase_status_counts::n))
        .load(conn)?;
    let jobs = outbox_state_counts::table
        .filter(outbox_state_counts::n.gt(0))
        .order(outbox_state_counts::state)
        .select((outbox_state_counts::state, outbox_state_counts::n))
        .load(conn)?;
    let oldest_due_ms = outbox_jobs::table
        .filter(outbox_jobs::state.eq("queued"))
        .select(min(outbox_jobs::run_at_ms))
        .first::<Option<i64>>(conn)?;
    let open_alerts = alerts::table
        .filter(alerts::resolved_at_ms.is_null())
        .count()
        .get_result(conn)?;
    Ok(Gauges {
        purchases,
        jobs,
        oldest_due_ms,
        open_alerts,
        wallet: wallet::get(conn)?,
    })
}
