//! The console's order search over `purchases`: the filter the orders list and its CSV export
//! share, a page of matches in their order, and the count of abandoned checkouts.
//!
//! Every filter and the order are served by an index (`tests/integration/query_plans.rs`
//! checks the plans): text is matched against columns stored in a searchable form with each
//! purchase (the address in lower case, its domain, the order number's key), never by a
//! pattern that would read every row.

use diesel::dsl::not;
use diesel::prelude::*;

use crate::db::purchases::Purchase;
use crate::db::schema::purchases;
use crate::db::{DbBackend, DbConn, DbError, SelectOf};
use crate::domain::PurchaseId;
use crate::domain::purchase::order_number_prefix;

/// What the orders list filters on. `query` matches the start of the email or its whole
/// domain (any case), an order number however typed ([`order_number_prefix`]), or exactly a
/// purchase id, reference or upstream order id; the creation time is at or after `created_from_ms` and
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

/// The purchases `filter` lets through, in no particular order.
fn filtered(filter: &OrderFilter) -> purchases::BoxedQuery<'static, DbBackend> {
    let mut query = purchases::table.into_boxed();
    if let Some(text) = &filter.query {
        let lower = text.to_lowercase();
        // The addresses that start with `lower` are one range of the index: from `lower` up
        // to (not including) the first text after every such address.
        let end = after_prefix(&lower);
        let found = purchases::email_lower
            .ge(lower.clone())
            .and(purchases::email_lower.lt(end))
            .or(purchases::email_domain.eq(lower))
            .or(purchases::id.eq(text.clone()))
            .or(purchases::reference.eq(text.clone()))
            .or(purchases::upstream_order_id.eq(text.clone()));
        query = match order_number_prefix(text) {
            Some(key) => query.filter(found.or(purchases::order_key.eq(key))),
            None => query.filter(found),
        };
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

/// A place in the list: the creation time and id of a purchase. The list is ordered by both
/// (newest first), so a page is the rows on one side of a cursor, read from the index in
/// order whatever page it is: there is no offset to count past.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cursor {
    pub created_at_ms: i64,
    pub id: PurchaseId,
}

impl Cursor {
    /// Where `purchase` is in the list.
    pub fn of(purchase: &Purchase) -> Self {
        Self {
            created_at_ms: purchase.created_at_ms,
            id: purchase.id.clone(),
        }
    }

    /// A cursor as a link carries it (`1767225600000.3fa29c1e0b7d4411aa02`); `None` for text
    /// that is not one.
    pub fn parse(text: &str) -> Option<Self> {
        let (at, id) = text.split_once('.')?;
        Some(Self {
            created_at_ms: at.parse().ok()?,
            id: PurchaseId::parse(id).ok()?,
        })
    }
}

impl std::fmt::Display for Cursor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.created_at_ms, self.id)
    }
}

/// Which rows of the list a page holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Page {
    /// The newest.
    First,
    /// Those after the cursor in the list (older).
    Older(Cursor),
    /// Those before the cursor in the list (newer), the nearest to it.
    Newer(Cursor),
}

/// Up to `limit` purchases of `page`, newest first.
pub fn search_orders(
    conn: &mut DbConn,
    filter: &OrderFilter,
    page: &Page,
    limit: i64,
) -> Result<Vec<Purchase>, DbError> {
    let mut found = search_query(filter, page, limit).load(conn)?;
    if let Page::Newer(_) = page {
        found.reverse();
    }
    Ok(found)
}

/// [`search_orders`]'s query (its plan is checked by a test). A newer page is read from the
/// cursor upwards, so its rows come oldest first.
pub fn search_query(
    filter: &OrderFilter,
    page: &Page,
    limit: i64,
) -> purchases::BoxedQuery<'static, DbBackend, SelectOf<Purchase>> {
    let query = filtered(filter).select(Purchase::as_select()).limit(limit);
    let newest_first = (purchases::created_at_ms.desc(), purchases::id.desc());
    match page {
        Page::First => query.order(newest_first),
        // `created_at_ms <= t` is the index range; the rest only breaks the tie at `t`.
        Page::Older(at) => query
            .filter(purchases::created_at_ms.le(at.created_at_ms))
            .filter(
                purchases::created_at_ms
                    .lt(at.created_at_ms)
                    .or(purchases::id.lt(at.id.clone())),
            )
            .order(newest_first),
        Page::Newer(at) => query
            .filter(purchases::created_at_ms.ge(at.created_at_ms))
            .filter(
                purchases::created_at_ms
                    .gt(at.created_at_ms)
                    .or(purchases::id.gt(at.id.clone())),
            )
            .order((purchases::created_at_ms.asc(), purchases::id.asc())),
    }
}

/// How many abandoned checkouts `filter` would list if it did not hide them: checkouts, not
/// their units (a checkout of three eSIMs is one).
pub fn count_abandoned(conn: &mut DbConn, filter: &OrderFilter) -> Result<i64, DbError> {
    Ok(count_abandoned_query(filter).get_result(conn)?)
}

/// [`count_abandoned`]'s query (its plan is checked by a test).
pub fn count_abandoned_query(
    filter: &OrderFilter,
) -> purchases::BoxedQuery<'static, DbBackend, diesel::sql_types::BigInt> {
    let only = OrderFilter {
        abandoned: Abandoned::Only,
        ..filter.clone()
    };
    filtered(&only).select(diesel::dsl::count(purchases::checkout_id).aggregate_distinct())
}

/// A page of the orders list.
#[derive(Debug, Clone, Default)]
pub struct OrdersPage {
    /// Newest first.
    pub rows: Vec<Purchase>,
    /// Newer rows come before these (this is not the first page).
    pub has_newer: bool,
    /// Older rows follow these.
    pub has_older: bool,
    /// Abandoned checkouts that matched but are not listed (0 unless `filter` hides them).
    pub hidden_abandoned: i64,
}

/// The page `page` of `size` rows: a newer page that would not be full is the first page.
pub fn orders_page(
    conn: &mut DbConn,
    filter: &OrderFilter,
    page: &Page,
    size: i64,
) -> Result<OrdersPage, DbError> {
    let ask = size.saturating_add(1);
    let keep = usize::try_from(size).unwrap_or(0);
    let mut found = search_orders(conn, filter, page, ask)?;
    let (has_newer, has_older) = match page {
        Page::First => (false, found.len() > keep),
        Page::Older(_) => (true, found.len() > keep),
        Page::Newer(_) if found.len() > keep => {
            // Newest first: the extra row is the newest, beyond this page.
            found.remove(0);
            (true, true)
        }
        Page::Newer(_) => {
            found = search_orders(conn, filter, &Page::First, ask)?;
            (false, found.len() > keep)
        }
    };
    found.truncate(keep);
    let hidden_abandoned = match filter.abandoned {
        Abandoned::Hide => count_abandoned(conn, filter)?,
        Abandoned::Include | Abandoned::Only => 0,
    };
    Ok(OrdersPage {
        rows: found,
        has_newer,
        has_older,
        hidden_abandoned,
    })
}

/// An address as the search stores it (`purchases.email_lower`, `email_domain`): in lower
/// case, whole and the part after its `@`. The typed text is lowered the same way.
pub fn email_search_columns(email: &str) -> (String, String) {
    let lower = email.to_lowercase();
    let domain = lower
        .split_once('@')
        .map(|(_, domain)| domain.to_string())
        .unwrap_or_default();
    (lower, domain)
}

/// The least text greater than every text that starts with `prefix` (compared code point by
/// code point, which is byte order in UTF-8): `prefix` with its last character raised by one.
/// A prefix of nothing but the highest code point has no such text; it gets itself, and then
/// no address is found by its start.
fn after_prefix(prefix: &str) -> String {
    let mut chars: Vec<char> = prefix.chars().collect();
    while let Some(last) = chars.pop() {
        if let Some(next) = (u32::from(last) + 1..=u32::from(char::MAX)).find_map(char::from_u32) {
            chars.push(next);
            return chars.into_iter().collect();
        }
    }
    prefix.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_end_of_a_prefix_range_follows_every_text_with_that_start() {
        assert_eq!(after_prefix("zoe.smith"), "zoe.smiti");
        assert_eq!(
            after_prefix("a\u{d7ff}"),
            "a\u{e000}",
            "surrogates are skipped"
        );
        assert_eq!(after_prefix("b\u{10ffff}"), "c");
        let end = after_prefix("odd");
        for address in ["odd", "odd1@example.com", "odd\u{10ffff}"] {
            assert!(address >= "odd" && address < end.as_str(), "{address}");
        }
        assert!("ode" >= end.as_str());
    }

    #[test]
    fn an_address_is_searched_in_lower_case_with_its_domain() {
        assert_eq!(
            email_search_columns("Zoe.Smith@Example.COM"),
            (
                "zoe.smith@example.com".to_string(),
                "example.com".to_string()
            )
        );
    }
}
