//! The owner's books: the shop's side of the reconciliation (paid purchases with what was
//! refunded to each buyer, top-ups), the rows the CSV exports page through, and the raw rows
//! behind the dashboard's 30-day figures. Read-only; sums and per-day buckets are made by
//! `crate::books` so that SQLite and PostgreSQL need no date functions of their own.

use std::collections::HashMap;

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text};

use crate::db::order_search::{Cursor, OrderFilter, Page, search_orders};
use crate::db::purchases::Purchase;
use crate::db::schema::{catalog_plans, purchases, refunds, topups};
use crate::db::{DbBackend, DbConn, DbError};
use crate::domain::PurchaseId;

/// A purchase as the books see it: what the buyer paid, what the shop expects upstream to
/// have charged, and what the buyer got back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BookPurchase {
    pub id: String,
    pub status: String,
    pub plan_id: String,
    pub reference: String,
    pub upstream_order_id: Option<String>,
    pub upstream_status: Option<String>,
    pub price_cents: i64,
    pub cost_cents: i64,
    pub paid_at_ms: Option<i64>,
    pub created_at_ms: i64,
    /// Refunded to the buyer (refunds not failed).
    pub refunded_cents: i64,
}

impl BookPurchase {
    fn of(p: Purchase, refunded: &HashMap<PurchaseId, i64>) -> Self {
        Self {
            refunded_cents: refunded.get(&p.id).copied().unwrap_or(0),
            id: p.id.to_string(),
            status: p.status.as_str().to_string(),
            plan_id: p.plan_id,
            reference: p.reference,
            upstream_order_id: p.upstream_order_id,
            upstream_status: p.upstream_status,
            price_cents: p.price_cents.get(),
            cost_cents: p.cost_cents.get(),
            paid_at_ms: p.paid_at_ms,
            created_at_ms: p.created_at_ms,
        }
    }
}

/// Every purchase that was paid or placed upstream: the reconciliation matches upstream
/// orders against all of them (an order in the period may belong to an older purchase).
pub fn paid_or_placed(conn: &mut DbConn) -> Result<Vec<BookPurchase>, DbError> {
    let rows: Vec<Purchase> = purchases::table
        .filter(
            purchases::paid_at_ms
                .is_not_null()
                .or(purchases::upstream_order_id.is_not_null()),
        )
        .order((purchases::created_at_ms.asc(), purchases::id.asc()))
        .select(Purchase::as_select())
        .load(conn)?;
    let refunded = refunded(conn, None)?;
    Ok(rows
        .into_iter()
        .map(|p| BookPurchase::of(p, &refunded))
        .collect())
}

/// Refunded to buyers, per purchase (every refund that did not fail): for the purchases
/// `ids`, or for all with `None`.
fn refunded(
    conn: &mut DbConn,
    ids: Option<&[PurchaseId]>,
) -> Result<HashMap<PurchaseId, i64>, DbError> {
    if ids.is_some_and(<[PurchaseId]>::is_empty) {
        return Ok(HashMap::new());
    }
    let rows: Vec<(PurchaseId, i64)> = refunded_query(ids).load(conn)?;
    let mut sums = HashMap::new();
    for (id, amount) in rows {
        let sum = sums.entry(id).or_insert(0_i64);
        *sum = sum.saturating_add(amount);
    }
    Ok(sums)
}

/// [`refunded`]'s query: the refunds that did not fail, of the purchases `ids` or of all with
/// `None` (its plan is checked by a test).
pub fn refunded_query(
    ids: Option<&[PurchaseId]>,
) -> refunds::BoxedQuery<'static, DbBackend, (Text, BigInt)> {
    let query = refunds::table
        .filter(refunds::status.ne("failed"))
        .select((refunds::purchase_id, refunds::amount_cents))
        .into_boxed();
    match ids {
        Some(ids) => query.filter(refunds::purchase_id.eq_any(ids.to_vec())),
        None => query,
    }
}

/// One page of the console's order search (the same filter, the same order), with what each
/// purchase had refunded: a page of the orders CSV, the first or the one after `after`.
pub fn orders_export_page(
    conn: &mut DbConn,
    filter: &OrderFilter,
    after: Option<Cursor>,
    limit: i64,
) -> Result<Vec<(Purchase, i64)>, DbError> {
    let page = after.map_or(Page::First, Page::Older);
    let found = search_orders(conn, filter, &page, limit)?;
    let ids: Vec<PurchaseId> = found.iter().map(|p| p.id.clone()).collect();
    let refunded = refunded(conn, Some(&ids))?;
    Ok(found
        .into_iter()
        .map(|p| {
            let r = refunded.get(&p.id).copied().unwrap_or(0);
            (p, r)
        })
        .collect())
}

/// A wallet top-up the shop started, as the books see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BookTopup {
    pub id: i64,
    /// Upstream's checkout session: the reference of the credit it becomes.
    pub session_id: String,
    pub amount_cents: i64,
    pub created_at_ms: i64,
    /// When the shop saw the credit (a verified top-up).
    pub confirmed_at_ms: Option<i64>,
}

/// id, session, amount, created, confirmed.
type TopupRow = (i64, Option<String>, i64, i64, Option<i64>);

/// Every top-up that reached upstream (it has a checkout session).
pub fn topups(conn: &mut DbConn) -> Result<Vec<BookTopup>, DbError> {
    let rows: Vec<TopupRow> = topups::table
        .filter(topups::session_id.is_not_null())
        .order(topups::id.asc())
        .select((
            topups::id,
            topups::session_id,
            topups::amount_cents,
            topups::created_at_ms,
            topups::confirmed_at_ms,
        ))
        .load(conn)?;
    Ok(rows
        .into_iter()
        .filter_map(|(id, session, amount, created, confirmed)| {
            session.map(|session_id| BookTopup {
                id,
                session_id,
                amount_cents: amount,
                created_at_ms: created,
                confirmed_at_ms: confirmed,
            })
        })
        .collect())
}

/// What the dashboard's figures are made of: every checkout started at or after `since_ms`
/// and every purchase paid since then (with its refunds and whether the cost was kept), and
/// the destination of each plan among them.
#[derive(Debug, Clone, Default)]
pub struct FigureRows {
    pub purchases: Vec<BookPurchase>,
    /// Purchases refunded with "refund and keep the cost".
    pub kept_cost: Vec<String>,
    /// Plan id → destination name, for the plans of `purchases` still in the catalog table.
    pub destinations: HashMap<String, String>,
}

pub fn figure_rows(conn: &mut DbConn, since_ms: i64) -> Result<FigureRows, DbError> {
    let rows: Vec<Purchase> = purchases::table
        .filter(
            purchases::created_at_ms
                .ge(since_ms)
                .or(purchases::paid_at_ms.ge(since_ms)),
        )
        .select(Purchase::as_select())
        .load(conn)?;
    let ids: Vec<PurchaseId> = rows.iter().map(|p| p.id.clone()).collect();
    let mut refunded_cents = HashMap::new();
    let mut kept_cost = Vec::new();
    for chunk in ids.chunks(500) {
        refunded_cents.extend(refunded(conn, Some(chunk))?);
        kept_cost.extend(
            refunds::table
                .filter(refunds::purchase_id.eq_any(chunk))
                .filter(refunds::keeps_cost.eq(true))
                .filter(refunds::status.ne("failed"))
                .select(refunds::purchase_id)
                .load::<String>(conn)?,
        );
    }
    let plan_ids: Vec<String> = rows
        .iter()
        .map(|p| p.plan_id.clone())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut destinations = HashMap::new();
    for chunk in plan_ids.chunks(500) {
        destinations.extend(
            catalog_plans::table
                .filter(catalog_plans::id.eq_any(chunk))
                .select((catalog_plans::id, catalog_plans::country_name))
                .load::<(String, String)>(conn)?,
        );
    }
    Ok(FigureRows {
        purchases: rows
            .into_iter()
            .map(|p| BookPurchase::of(p, &refunded_cents))
            .collect(),
        kept_cost,
        destinations,
    })
}
