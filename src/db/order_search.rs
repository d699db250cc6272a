//! The console's order search over `purchases`: the filter the orders list and its CSV export
//! share, a page of matches in their order, and the count of abandoned checkouts.

use diesel::dsl::not;
use diesel::prelude::*;

use crate::db::purchases::Purchase;
use crate::db::schema::purchases;
use crate::db::{DbConn, DbError};

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
