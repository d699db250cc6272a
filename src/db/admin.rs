//! Read models and small writes for the admin console: the dashboard's figures, order search,
//! and the admin's order actions (make a job due now, resolve alerts). Nothing here reads an
//! installation's encrypted values: the console only ever sees `iccid_last4`.
//!
//! Also the shop's numeric settings (the wallet's threshold lives there) and the figures the
//! wallet page reads beside the wallet row.

use diesel::dsl::{exists, not};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Nullable};

use crate::db::purchases::Purchase;
use crate::db::schema::{admin_users, alerts, outbox_jobs, purchases, refunds};
use crate::db::{DbConn, DbError, outbox};

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
        .filter(outbox_jobs::kind.eq("place_order"))
        .filter(outbox_jobs::state.eq(outbox::QUEUED))
        .filter(outbox_jobs::run_at_ms.gt(now_ms))
        .count()
        .get_result(conn)?;
    let open_placements = outbox::open_of_kind(conn, "place_order")?;
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

/// What the orders list filters on. `query` matches part of the email, or exactly a purchase
/// id, reference or upstream order id; the creation time is at or after `created_from_ms` and
/// before `created_before_ms`; `abandoned` says what happens to abandoned checkouts
/// ([`crate::domain::purchase::is_abandoned`] at `now_ms`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct OrderFilter {
    pub query: Option<String>,
    pub status: Option<String>,
    pub created_from_ms: Option<i64>,
    pub created_before_ms: Option<i64>,
    pub abandoned: Abandoned,
    pub now_ms: i64,
}

/// Abandoned checkouts in the orders list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Abandoned {
    /// Listed with the rest.
    #[default]
    Include,
    /// Left out.
    Hide,
    /// Only they are listed.
    Only,
}

diesel::define_sql_function!(fn lower(x: diesel::sql_types::Text) -> diesel::sql_types::Text);

type Backend = <DbConn as diesel::Connection>::Backend;

/// The purchases `filter` lets through, in no particular order.
fn filtered(filter: &OrderFilter) -> purchases::BoxedQuery<'static, Backend> {
    let mut query = purchases::table.into_boxed();
    if let Some(text) = &filter.query {
        let pattern = format!("%{}%", escape_like(&text.to_lowercase()));
        // The customer's order number (`SF-3FA2-9C1E`) is the start of the purchase id. Text
        // that is no order number gets the empty pattern, which no (non-empty) id matches.
        let by_number = crate::domain::purchase::order_number_prefix(text)
            .map_or_else(String::new, |prefix| format!("{prefix}%"));
        query = query.filter(
            lower(purchases::email)
                .like(pattern)
                .escape('\\')
                .or(purchases::id.eq(text.clone()))
                .or(purchases::id.like(by_number))
                .or(purchases::reference.eq(text.clone()))
                .or(purchases::upstream_order_id.eq(text.clone())),
        );
    }
    if let Some(status) = &filter.status {
        query = query.filter(purchases::status.eq(status.clone()));
    }
    if let Some(from) = filter.created_from_ms {
        query = query.filter(purchases::created_at_ms.ge(from));
    }
    if let Some(before) = filter.created_before_ms {
        query = query.filter(purchases::created_at_ms.lt(before));
    }
    let unpaid = crate::domain::purchase::PurchaseStatus::UNPAID.map(|s| s.as_str());
    let abandoned = purchases::status
        .eq_any(unpaid)
        .and(purchases::paid_at_ms.is_null())
        .and(purchases::expires_at_ms.le(filter.now_ms));
    match filter.abandoned {
        Abandoned::Include => query,
        Abandoned::Hide => query.filter(not(abandoned)),
        Abandoned::Only => query.filter(abandoned),
    }
}

/// One page of purchases, newest first; `limit + 1` rows are asked for so the caller knows
/// whether another page follows.
pub fn search_orders(
    conn: &mut DbConn,
    filter: &OrderFilter,
    offset: i64,
    limit: i64,
) -> Result<Vec<Purchase>, DbError> {
    Ok(filtered(filter)
        .select(Purchase::as_select())
        .order((purchases::created_at_ms.desc(), purchases::id.desc()))
        .offset(offset)
        .limit(limit)
        .load(conn)?)
}

/// How many abandoned checkouts `filter` would list if it did not hide them.
pub fn count_abandoned(conn: &mut DbConn, filter: &OrderFilter) -> Result<i64, DbError> {
    let only = OrderFilter {
        abandoned: Abandoned::Only,
        ..filter.clone()
    };
    Ok(filtered(&only).count().get_result(conn)?)
}

/// [`search_orders`], and how many abandoned checkouts matched but were hidden (0 unless
/// `filter` hides them).
pub fn orders_page(
    conn: &mut DbConn,
    filter: &OrderFilter,
    offset: i64,
    limit: i64,
) -> Result<(Vec<Purchase>, i64), DbError> {
    let found = search_orders(conn, filter, offset, limit)?;
    let hidden = match filter.abandoned {
        Abandoned::Hide => count_abandoned(conn, filter)?,
        Abandoned::Include | Abandoned::Only => 0,
    };
    Ok((found, hidden))
}

fn escape_like(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

// ---- wallet ---------------------------------------------------------------------------------

/// Upstream cost of purchases placed upstream (they have an order id) and paid at or after
/// `since_ms`: what the wallet paid out, for the runway estimate.
pub fn placed_cost_since(conn: &mut DbConn, since_ms: i64) -> Result<i64, DbError> {
    let total: Option<i64> = purchases::table
        .filter(purchases::paid_at_ms.ge(since_ms))
        .filter(purchases::upstream_order_id.is_not_null())
        .select(diesel::dsl::sql::<Nullable<BigInt>>(
            "CAST(SUM(cost_cents) AS BIGINT)",
        ))
        .first(conn)?;
    Ok(total.unwrap_or(0))
}

/// Emails of the active owner accounts (who get the wallet alerts).
pub fn owner_emails(conn: &mut DbConn) -> Result<Vec<String>, DbError> {
    Ok(admin_users::table
        .filter(admin_users::role.eq("owner"))
        .filter(admin_users::disabled_at_ms.is_null())
        .order(admin_users::id)
        .select(admin_users::email)
        .load(conn)?)
}
