//! The console dashboard's read model across tables: top destinations and checkouts of a
//! window (its money is in `daily_sales`), the outbox's health, and the purchases a person
//! must look at. Read-only; nothing here reads an
//! installation's encrypted values.

use diesel::dsl::{exists, not};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Nullable};

use crate::db::purchases::Purchase;
use crate::db::schema::{alerts, catalog_plans, outbox_jobs, purchases};
use crate::db::{DbConn, DbError, outbox};
use crate::domain::job::JobKind;

/// Statuses of a sale that was not given back: what the top destinations count.
const SOLD: &[&str] = &[
    "paid",
    "ordered",
    "provisioning",
    "fulfilled",
    "needs_attention",
];

/// A plan's sales in a window: plan id, its destination's name (when the catalog table still
/// has the plan), orders and what they charged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanSales {
    pub plan_id: String,
    pub destination: Option<String>,
    pub orders: i64,
    pub sales_cents: i64,
}

/// Sales per plan of the purchases paid in `[from_ms, until_ms)` and not given back, read
/// by the `paid_at_ms` index.
pub fn plan_sales(
    conn: &mut DbConn,
    from_ms: i64,
    until_ms: i64,
) -> Result<Vec<PlanSales>, DbError> {
    let rows: Vec<(String, i64, Option<i64>)> = purchases::table
        .filter(purchases::paid_at_ms.ge(from_ms))
        .filter(purchases::paid_at_ms.lt(until_ms))
        .filter(purchases::status.eq_any(SOLD))
        .group_by(purchases::plan_id)
        .select((
            purchases::plan_id,
            diesel::dsl::count_star(),
            diesel::dsl::sql::<Nullable<BigInt>>("CAST(SUM(price_cents) AS BIGINT)"),
        ))
        .load(conn)?;
    let ids: Vec<&str> = rows.iter().map(|(id, _, _)| id.as_str()).collect();
    let mut names = std::collections::HashMap::new();
    for chunk in ids.chunks(500) {
        names.extend(
            catalog_plans::table
                .filter(catalog_plans::id.eq_any(chunk))
                .select((catalog_plans::id, catalog_plans::country_name))
                .load::<(String, String)>(conn)?,
        );
    }
    Ok(rows
        .into_iter()
        .map(|(plan_id, orders, sales)| PlanSales {
            destination: names.get(&plan_id).cloned(),
            plan_id,
            orders,
            sales_cents: sales.unwrap_or(0),
        })
        .collect())
}

/// Checkouts started in `[from_ms, until_ms)`, and how many of them were paid, read by the
/// `created_at_ms` index.
pub fn checkouts(conn: &mut DbConn, from_ms: i64, until_ms: i64) -> Result<(i64, i64), DbError> {
    let (started, paid): (i64, i64) = purchases::table
        .filter(purchases::created_at_ms.ge(from_ms))
        .filter(purchases::created_at_ms.lt(until_ms))
        .select((
            diesel::dsl::count_star(),
            diesel::dsl::count(purchases::paid_at_ms),
        ))
        .first(conn)?;
    Ok((started, paid))
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
