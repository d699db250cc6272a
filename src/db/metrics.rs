//! The shop-wide gauges `GET /metrics` reports, read in one connection so every replica
//! reports the same numbers.

use diesel::dsl::{count_star, min};
use diesel::prelude::*;

use crate::db::schema::{alerts, outbox_jobs, purchases};
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
    let purchases = purchases::table
        .group_by(purchases::status)
        .select((purchases::status, count_star()))
        .load(conn)?;
    let jobs = outbox_jobs::table
        .group_by(outbox_jobs::state)
        .select((outbox_jobs::state, count_star()))
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
