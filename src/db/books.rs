//! The owner's books: the shop's side of the reconciliation (paid purchases with what was
//! refunded to each buyer, top-ups) and the rows the CSV exports page through. Read-only;
//! sums are made by `crate::books` so that SQLite and PostgreSQL need no date functions of
//! their own.

use std::collections::{HashMap, HashSet};

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text};

use crate::db::order_search::{Cursor, OrderFilter, Page, search_orders};
use crate::db::purchases::Purchase;
use crate::db::schema::{catalog_plans, purchases, refunds, topups};
use crate::db::{DbBackend, DbConn, DbError};
use crate::domain::takings::Takings;
use crate::domain::tax::UnitTax;
use crate::domain::{Cents, PurchaseId};

/// A purchase as the books see it: what the buyer paid, what the shop expects upstream to
/// have charged, and what the buyer got back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BookPurchase {
    pub id: String,
    /// Its checkout (its own id for a single eSIM): the order number the buyer quotes.
    pub checkout_id: String,
    pub status: String,
    pub plan_id: String,
    pub reference: String,
    pub upstream_order_id: Option<String>,
    pub upstream_status: Option<String>,
    pub price_cents: i64,
    /// What the buyer was charged ([`Purchase::charged`]) and the tax in it.
    pub charged_cents: i64,
    pub tax_cents: i64,
    pub cost_cents: i64,
    pub paid_at_ms: Option<i64>,
    pub created_at_ms: i64,
    /// Refunded to the buyer (refunds not failed).
    pub refunded_cents: i64,
}

impl BookPurchase {
    /// Its money; the margin is [`Takings::margin`].
    pub fn takings(&self) -> Takings {
        Takings::of_purchase(
            self.paid_at_ms.is_some(),
            Cents::new(self.charged_cents),
            Cents::new(self.tax_cents),
            Cents::new(self.refunded_cents),
            self.upstream_order_id.is_some(),
            self.upstream_status.as_deref(),
            Cents::new(self.cost_cents),
        )
    }

    fn of(
        p: Purchase,
        refunded: &HashMap<PurchaseId, i64>,
        taxes: &HashMap<PurchaseId, UnitTax>,
    ) -> Self {
        let tax = taxes.get(&p.id).copied().unwrap_or_default();
        Self {
            charged_cents: tax.charged(p.price_cents).get(),
            tax_cents: tax.tax.get(),
            refunded_cents: refunded.get(&p.id).copied().unwrap_or(0),
            id: p.id.to_string(),
            checkout_id: p.checkout_id.to_string(),
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

/// The purchases the reconciliation of `[from_ms, until_ms)` needs, oldest first: those paid
/// in it, those placed upstream but never paid and created in it, and those `named` (by
/// reference or upstream order id) by upstream orders of the period, which may be older. Read
/// by the `paid_at_ms` and `created_at_ms` indexes and the unique keys, never every purchase.
pub fn paid_or_placed_in(
    conn: &mut DbConn,
    from_ms: i64,
    until_ms: i64,
    named: &[String],
) -> Result<Vec<BookPurchase>, DbError> {
    let mut rows: Vec<Purchase> = purchases::table
        .filter(purchases::paid_at_ms.ge(from_ms))
        .filter(purchases::paid_at_ms.lt(until_ms))
        .select(Purchase::as_select())
        .load(conn)?;
    rows.extend(
        purchases::table
            .filter(purchases::created_at_ms.ge(from_ms))
            .filter(purchases::created_at_ms.lt(until_ms))
            .filter(purchases::paid_at_ms.is_null())
            .filter(purchases::upstream_order_id.is_not_null())
            .select(Purchase::as_select())
            .load::<Purchase>(conn)?,
    );
    // References and upstream order ids are unique: a name that a purchase read above
    // carries in that column needs no read.
    let (references, order_ids): (HashSet<&str>, HashSet<&str>) = (
        rows.iter().map(|p| p.reference.as_str()).collect(),
        rows.iter()
            .filter_map(|p| p.upstream_order_id.as_deref())
            .collect(),
    );
    let by_reference: Vec<&String> = named
        .iter()
        .filter(|n| !references.contains(n.as_str()))
        .collect();
    let by_order_id: Vec<&String> = named
        .iter()
        .filter(|n| !order_ids.contains(n.as_str()))
        .collect();
    let mut more = Vec::new();
    for chunk in by_reference.chunks(500) {
        more.extend(
            purchases::table
                .filter(purchases::reference.eq_any(chunk))
                .select(Purchase::as_select())
                .load::<Purchase>(conn)?,
        );
    }
    for chunk in by_order_id.chunks(500) {
        more.extend(
            purchases::table
                .filter(purchases::upstream_order_id.eq_any(chunk))
                .select(Purchase::as_select())
                .load::<Purchase>(conn)?,
        );
    }
    rows.extend(more);
    rows.retain(|p| p.paid_at_ms.is_some() || p.upstream_order_id.is_some());
    rows.sort_by(|a, b| (a.created_at_ms, &a.id).cmp(&(b.created_at_ms, &b.id)));
    rows.dedup_by(|a, b| a.id == b.id);
    let ids: Vec<PurchaseId> = rows.iter().map(|p| p.id.clone()).collect();
    let mut refunded_cents = HashMap::new();
    for chunk in ids.chunks(500) {
        refunded_cents.extend(refunded(conn, Some(chunk))?);
    }
    let taxes = crate::db::tax::unit_taxes_of(conn, &ids)?;
    Ok(rows
        .into_iter()
        .map(|p| BookPurchase::of(p, &refunded_cents, &taxes))
        .collect())
}

/// Refunded to buyers, per purchase (every refund that did not fail): for the purchases
/// `ids`, or for all with `None`.
pub fn refunded(
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
/// purchase had refunded and its plan: a page of the orders CSV, the first or the one after
/// `after`.
pub fn orders_export_page(
    conn: &mut DbConn,
    filter: &OrderFilter,
    after: Option<Cursor>,
    limit: i64,
) -> Result<Vec<ExportedOrder>, DbError> {
    let page = after.map_or(Page::First, Page::Older);
    let found = search_orders(conn, filter, &page, limit)?;
    exported(conn, found)
}

/// A plan as the orders CSV names it, from the catalog table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanFacts {
    pub country_code: String,
    pub country_name: String,
    pub data_mb: i64,
    pub validity_days: i64,
    pub is_daily: bool,
}

/// A row of the orders CSV: the purchase, what was refunded of it (refunds not failed) and
/// its plan while the catalog table still has it.
#[derive(Debug, Clone, PartialEq)]
pub struct ExportedOrder {
    pub purchase: Purchase,
    pub refunded_cents: i64,
    /// Its share of its order's tax.
    pub tax: UnitTax,
    pub plan: Option<PlanFacts>,
}

impl ExportedOrder {
    /// Its money; the margin is [`Takings::margin`].
    pub fn takings(&self) -> Takings {
        self.purchase
            .takings(self.tax, Cents::new(self.refunded_cents))
    }
}

/// `found` with their refunds, tax shares and plans, in the same order (three lookups by
/// key).
fn exported(conn: &mut DbConn, found: Vec<Purchase>) -> Result<Vec<ExportedOrder>, DbError> {
    let ids: Vec<PurchaseId> = found.iter().map(|p| p.id.clone()).collect();
    let refunded = refunded(conn, Some(&ids))?;
    let taxes = crate::db::tax::unit_taxes_of(conn, &ids)?;
    let plan_ids: Vec<&str> = found
        .iter()
        .map(|p| p.plan_id.as_str())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let plans: HashMap<String, PlanFacts> = catalog_plans::table
        .filter(catalog_plans::id.eq_any(&plan_ids))
        .select((
            catalog_plans::id,
            catalog_plans::country_code,
            catalog_plans::country_name,
            catalog_plans::data_mb,
            catalog_plans::validity_days,
            catalog_plans::is_daily,
        ))
        .load::<(String, String, String, i64, i64, bool)>(conn)?
        .into_iter()
        .map(
            |(id, country_code, country_name, data_mb, validity_days, is_daily)| {
                (
                    id,
                    PlanFacts {
                        country_code,
                        country_name,
                        data_mb,
                        validity_days,
                        is_daily,
                    },
                )
            },
        )
        .collect();
    Ok(found
        .into_iter()
        .map(|p| ExportedOrder {
            refunded_cents: refunded.get(&p.id).copied().unwrap_or(0),
            tax: taxes.get(&p.id).copied().unwrap_or_default(),
            plan: plans.get(&p.plan_id).cloned(),
            purchase: p,
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
