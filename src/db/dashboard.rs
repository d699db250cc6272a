//! The console dashboard's read model across tables: the sales figures since a time, the
//! outbox's health, and the purchases a person must look at. Read-only; nothing here reads an
//! installation's encrypted values.

use diesel::dsl::{exists, not};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Nullable};

use crate::db::purchases::Purchase;
use crate::db::schema::{alerts, outbox_jobs, purchases, refunds};
use crate::db::{DbConn, DbError, outbox};
use crate::domain::job::JobKind;

/// Statuses that count as a sale: paid and not given back.
const SOLD: &[&str] = &[
    "paid",
    "ordered",
    "provisioning",
    "fulfilled",
    "needs_attention",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Sales {
    pub count: i64,
    pub revenue_cents: i64,
    pub cost_cents: i64,
    /// Wholesale cost of orders refunded with "refund and keep the cost": paid from the
    /// wallet, given back to the consumer, a loss.
    pub kept_cost_cents: i64,
}

impl Sales {
    /// Revenue minus the cost of what was sold minus the losses.
    pub fn margin_cents(&self) -> i64 {
        self.revenue_cents
            .saturating_sub(self.cost_cents)
            .saturating_sub(self.kept_cost_cents)
    }
}

/// Sales paid at or after `since_ms`.
pub fn sales_since(conn: &mut DbConn, since_ms: i64) -> Result<Sales, DbError> {
    let rows: Vec<(i64, Option<i64>, Option<i64>)> = purchases::table
        .filter(purchases::paid_at_ms.ge(since_ms))
        .filter(purchases::status.eq_any(SOLD))
        .select((
            diesel::dsl::count_star(),
            diesel::dsl::sql::<Nullable<BigInt>>("CAST(SUM(price_cents) AS BIGINT)"),
            diesel::dsl::sql::<Nullable<BigInt>>("CAST(SUM(cost_cents) AS BIGINT)"),
        ))
        .load(conn)?;
    let kept: Option<i64> = purchases::table
        .inner_join(refunds::table)
        .filter(purchases::paid_at_ms.ge(since_ms))
        .filter(refunds::keeps_cost.eq(true))
        .filter(refunds::status.ne("failed"))
        .select(diesel::dsl::sql::<Nullable<BigInt>>(
            "CAST(SUM(purchases.cost_cents) AS BIGINT)",
        ))
        .first(conn)?;
    Ok(rows
        .first()
        .map(|(count, revenue, cost)| Sales {
            count: *count,
            revenue_cents: revenue.unwrap_or(0),
            cost_cents: cost.unwrap_or(0),
            kept_cost_cents: kept.unwrap_or(0),
        })
        .unwrap_or_default())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OutboxHealth {
    /// Queued or running jobs.
    pub pending: i64,
    /// When the most overdue queued job became due, if one is due.
    pub oldest_due_ms: Option<i64>,
    pub dead: i64,
    /// Placements queued for later (held back by a wallet or account problem, or backing off).
    pub waiting_placements: i64,
    /// Placements queued (whenever due) or running.
    pub open_placements: i64,
}

pub fn outbox_health(conn: &mut DbConn, now_ms: i64) -> Result<OutboxHealth, DbError> {
    let pending = outbox_jobs::table
        .filter(outbox_jobs::state.eq_any([outbox::QUEUED, outbox::RUNNING]))
        .count()
        .get_result(conn)?;
    let oldest_due_ms = outbox_jobs::table
        .filter(outbox_jobs::state.eq(outbox::QUEUED))
        .filter(outbox_jobs::run_at_ms.le(now_ms))
        .select(diesel::dsl::min(outbox_jobs::run_at_ms))
        .first::<Option<i64>>(conn)?;
    let dead = outbox_jobs::table
        .filter(outbox_jobs::state.eq(outbox::DEAD))
        .count()
        .get_result(conn)?;
    let waiting_placements = outbox_jobs::table
        .filter(outbox_jobs::kind.eq(JobKind::PlaceOrder.as_str()))
        .filter(outbox_jobs::state.eq(outbox::QUEUED))
        .filter(outbox_jobs::run_at_ms.gt(now_ms))
        .count()
        .get_result(conn)?;
    let open_placements = outbox::open_of_kind(conn, JobKind::PlaceOrder.as_str())?;
    Ok(OutboxHealth {
        pending,
        oldest_due_ms,
        dead,
        waiting_placements,
        open_placements,
    })
}

/// Purchases a person must look at: those with an open alert, and those in `needs_attention`
/// unless an admin resolved their alerts after the purchase last changed. Newest first.
pub fn needing_attention(conn: &mut DbConn, limit: i64) -> Result<Vec<Purchase>, DbError> {
    let open_alert = alerts::table
        .filter(alerts::purchase_id.eq(purchases::id.nullable()))
        .filter(alerts::resolved_at_ms.is_null());
    let resolved_since_change = alerts::table
        .filter(alerts::purchase_id.eq(purchases::id.nullable()))
        .filter(alerts::resolved_at_ms.ge(purchases::updated_at_ms.nullable()));
    Ok(purchases::table
        .filter(
            exists(open_alert).or(purchases::status
                .eq("needs_attention")
                .and(not(exists(resolved_since_change)))),
        )
        .order((purchases::updated_at_ms.desc(), purchases::id.desc()))
        .limit(limit)
        .select(Purchase::as_select())
        .load(conn)?)
}
