//! The console's order search over `purchases`: the filter the orders list and its CSV export
//! share, a page of matches in their order, and the count of abandoned checkouts.
//!
//! Every filter and the order are served by an index (`tests/integration/query_plans.rs`
//! checks the plans): text is matched against columns stored in a searchable form with each
//! purchase (the address in lower case, its domain, the order number's key), never by a
//! pattern that would read every row.

use diesel::dsl::not;
use diesel::prelude::*;
use diesel::sql_types::{Bool, Nullable, Text};

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

/// One way a search's text can match a purchase, as a condition.
type Term = Box<dyn BoxableExpression<purchases::table, DbBackend, SqlType = Nullable<Bool>>>;

/// A [`Term`], and whether its index holds its matches in the list's order (one domain's
/// purchases are in `purchases_email_domain` by creation time), so that its newest matches
/// can be read without reading them all.
struct Way {
    term: Term,
    in_list_order: bool,
}

/// The ways `text` can match, each served by an index of its own: the start of the address,
/// the whole domain (not for text with an `@`, which no domain holds), an order number, or
/// exactly an id, reference or upstream order id.
fn text_terms(text: &str) -> Vec<Way> {
    let lower = text.to_lowercase();
    // The addresses that start with `lower` are one range of the index: from `lower` up to
    // (not including) the first text after every such address.
    let end = after_prefix(&lower);
    let mut terms: Vec<Term> = vec![
        Box::new(
            purchases::email_lower
                .ge(lower.clone())
                .and(purchases::email_lower.lt(end))
                .nullable(),
        ),
        Box::new(purchases::id.eq(text.to_string()).nullable()),
        Box::new(purchases::reference.eq(text.to_string()).nullable()),
        Box::new(purchases::upstream_order_id.eq(text.to_string())),
    ];
    if let Some(key) = order_number_prefix(text) {
        terms.push(Box::new(purchases::order_key.eq(key).nullable()));
    }
    let mut ways: Vec<Way> = terms
        .into_iter()
        .map(|term| Way {
            term,
            in_list_order: false,
        })
        .collect();
    if !lower.contains('@') {
        ways.push(Way {
            term: Box::new(purchases::email_domain.eq(lower).nullable()),
            in_list_order: true,
        });
    }
    ways
}

/// Any of `text`'s terms.
fn any_term(text: &str) -> Term {
    text_terms(text)
        .into_iter()
        .map(|way| way.term)
        .reduce(|any, term| Box::new(any.or(term)))
        .unwrap_or_else(|| Box::new(diesel::dsl::sql::<Nullable<Bool>>("1 = 1")))
}

/// The purchases `filter` lets through, in no particular order, with `text` in place of the
/// filter's text (`None`: any text).
fn filtered(filter: &OrderFilter, text: Option<Term>) -> purchases::BoxedQuery<'static, DbBackend> {
    let mut query = purchases::table.into_boxed();
    if let Some(text) = text {
        query = query.filter(text);
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

/// [`filtered`] with the filter's own text.
fn filtered_by_text(filter: &OrderFilter) -> purchases::BoxedQuery<'static, DbBackend> {
    filtered(filter, filter.query.as_deref().map(any_term))
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

/// How many matches of one way of matching a search's text are read through its own index.
/// When none of the ways matches more, the matches are few: they are read by their indexes and
/// sorted. When one does (a common domain, the start of many addresses), the list is read in
/// its order instead and the matches are picked out, which finds a page of common matches
/// soon. A single query cannot choose between the two: with the text bound as a parameter the
/// planner knows only the average, and an old shop's average domain is common enough for it
/// to read the whole list in order even for one customer's address.
pub const PROBE: i64 = 500;

/// Up to `limit` purchases of `page`, newest first.
pub fn search_orders(
    conn: &mut DbConn,
    filter: &OrderFilter,
    page: &Page,
    limit: i64,
) -> Result<Vec<Purchase>, DbError> {
    let mut found = match few_matches(conn, filter, page, limit)? {
        Some(ids) if ids.is_empty() => Vec::new(),
        Some(ids) => chosen_query(ids, page, limit).load(conn)?,
        None => search_query(filter, page, limit).load(conn)?,
    };
    if let Page::Newer(_) = page {
        found.reverse();
    }
    Ok(found)
}

/// The ids of the purchases of `page` that `filter` finds, when it has text: every match of
/// each way of matching the text, or the newest [`PROBE`] of a way whose index is in the
/// list's order (the first `limit` are among them). `None` without text, when a way read in no
/// order finds [`PROBE`] or more, or when `limit` is above [`PROBE`].
fn few_matches(
    conn: &mut DbConn,
    filter: &OrderFilter,
    page: &Page,
    limit: i64,
) -> Result<Option<Vec<String>>, DbError> {
    if filter.query.is_none() || limit > PROBE {
        return Ok(None);
    }
    let mut ids = Vec::new();
    for (probe, in_list_order) in probes(filter, page) {
        let matched: Vec<String> = probe.load(conn)?;
        if !in_list_order && i64::try_from(matched.len()).unwrap_or(i64::MAX) >= PROBE {
            return Ok(None);
        }
        ids.extend(matched);
    }
    ids.sort_unstable();
    ids.dedup();
    Ok(Some(ids))
}

/// Keeps the rows of `page` (before or after its cursor).
fn on_page(
    query: purchases::BoxedQuery<'static, DbBackend>,
    page: &Page,
) -> purchases::BoxedQuery<'static, DbBackend> {
    match page {
        Page::First => query,
        // `created_at_ms <= t` is the index range; the rest only breaks the tie at `t`.
        Page::Older(at) => query
            .filter(purchases::created_at_ms.le(at.created_at_ms))
            .filter(
                purchases::created_at_ms
                    .lt(at.created_at_ms)
                    .or(purchases::id.lt(at.id.clone())),
            ),
        Page::Newer(at) => query
            .filter(purchases::created_at_ms.ge(at.created_at_ms))
            .filter(
                purchases::created_at_ms
                    .gt(at.created_at_ms)
                    .or(purchases::id.gt(at.id.clone())),
            ),
    }
}

/// Puts `query` in the order `page` is read in: newest first, or from the cursor upwards for a
/// newer page.
fn in_order<ST>(
    query: purchases::BoxedQuery<'static, DbBackend, ST>,
    page: &Page,
) -> purchases::BoxedQuery<'static, DbBackend, ST> {
    match page {
        Page::First | Page::Older(_) => {
            query.order((purchases::created_at_ms.desc(), purchases::id.desc()))
        }
        Page::Newer(_) => query.order((purchases::created_at_ms.asc(), purchases::id.asc())),
    }
}

/// [`search_orders`]'s query when the list is read in its order (no text, or text with many
/// matches; its plan is checked by a test). A newer page is read from the cursor upwards, so
/// its rows come oldest first.
pub fn search_query(
    filter: &OrderFilter,
    page: &Page,
    limit: i64,
) -> purchases::BoxedQuery<'static, DbBackend, SelectOf<Purchase>> {
    in_order(
        on_page(filtered_by_text(filter), page)
            .select(Purchase::as_select())
            .limit(limit),
        page,
    )
}

/// The queries that read the ids of the matches of each way of matching the filter's text on
/// `page`, at most [`PROBE`] each, by that way's index (none without text; their plans are
/// checked by a test).
pub fn probe_queries(
    filter: &OrderFilter,
    page: &Page,
) -> Vec<purchases::BoxedQuery<'static, DbBackend, Text>> {
    probes(filter, page)
        .into_iter()
        .map(|(query, _)| query)
        .collect()
}

/// [`probe_queries`], each with whether it reads its way's newest matches first.
fn probes(
    filter: &OrderFilter,
    page: &Page,
) -> Vec<(purchases::BoxedQuery<'static, DbBackend, Text>, bool)> {
    let Some(text) = filter.query.as_deref() else {
        return Vec::new();
    };
    text_terms(text)
        .into_iter()
        .map(|way| {
            let query = on_page(filtered(filter, Some(way.term)), page)
                .select(purchases::id)
                .limit(PROBE);
            if way.in_list_order {
                (in_order(query, page), true)
            } else {
                (query, false)
            }
        })
        .collect()
}

/// The purchases `ids`, up to `limit` of them in `page`'s order (its plan is checked by a
/// test).
pub fn chosen_query(
    ids: Vec<String>,
    page: &Page,
    limit: i64,
) -> purchases::BoxedQuery<'static, DbBackend, SelectOf<Purchase>> {
    in_order(
        purchases::table
            .filter(purchases::id.eq_any(ids))
            .select(Purchase::as_select())
            .limit(limit)
            .into_boxed(),
        page,
    )
}

/// How many abandoned checkouts `filter` would list if it did not hide them: checkouts, not
/// their units (a checkout of three eSIMs is one). Exact, and read in time proportional to
/// the matches, so `filter` should bound them (the dashboard counts one month).
pub fn count_abandoned(conn: &mut DbConn, filter: &OrderFilter) -> Result<i64, DbError> {
    Ok(count_abandoned_query(filter).get_result(conn)?)
}

/// [`count_abandoned`]'s query (its plan is checked by a test).
pub fn count_abandoned_query(
    filter: &OrderFilter,
) -> purchases::BoxedQuery<'static, DbBackend, diesel::sql_types::BigInt> {
    filtered_by_text(&only_abandoned(filter))
        .select(diesel::dsl::count(purchases::checkout_id).aggregate_distinct())
}

fn only_abandoned(filter: &OrderFilter) -> OrderFilter {
    OrderFilter {
        abandoned: Abandoned::Only,
        ..filter.clone()
    }
}

/// How many abandoned checkouts a list that hides them leaves out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NotListed {
    /// Checkouts left out: all of them, or the first found when `at_least`.
    pub checkouts: i64,
    /// There may be more: only the first [`NOT_LISTED_ROWS`] units were read.
    pub at_least: bool,
}

/// How many abandoned units the orders list reads to count the checkouts it leaves out. An
/// old shop has abandoned checkouts by the hundred thousand; the list says "at least" rather
/// than count them all on every page.
pub const NOT_LISTED_ROWS: i64 = 1000;

/// The abandoned checkouts the list of `filter` leaves out ([`NotListed`]).
pub fn not_listed(conn: &mut DbConn, filter: &OrderFilter) -> Result<NotListed, DbError> {
    let mut checkouts = std::collections::HashSet::new();
    let mut at_least = false;
    for query in not_listed_queries(filter) {
        let found: Vec<String> = query.load(conn)?;
        at_least |= i64::try_from(found.len()).unwrap_or(i64::MAX) >= NOT_LISTED_ROWS;
        checkouts.extend(found);
    }
    Ok(NotListed {
        checkouts: i64::try_from(checkouts.len()).unwrap_or(i64::MAX),
        at_least,
    })
}

/// [`not_listed`]'s queries: the abandoned units' checkouts, one query per way of matching the
/// filter's text, each by its own index as in [`probe_queries`], a domain's newest first (their
/// plans are checked by a test).
pub fn not_listed_queries(
    filter: &OrderFilter,
) -> Vec<purchases::BoxedQuery<'static, DbBackend, Text>> {
    let only = only_abandoned(filter);
    let ways: Vec<Option<Way>> = match filter.query.as_deref() {
        Some(text) => text_terms(text).into_iter().map(Some).collect(),
        None => vec![None],
    };
    ways.into_iter()
        .map(|way| {
            let in_list_order = way.as_ref().is_some_and(|way| way.in_list_order);
            let query = filtered(&only, way.map(|way| way.term))
                .select(purchases::checkout_id)
                .limit(NOT_LISTED_ROWS);
            if in_list_order {
                in_order(query, &Page::First)
            } else {
                query
            }
        })
        .collect()
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
    /// Abandoned checkouts that matched but are not listed (none unless `filter` hides them).
    pub hidden_abandoned: NotListed,
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
        Abandoned::Hide => not_listed(conn, filter)?,
        Abandoned::Include | Abandoned::Only => NotListed::default(),
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
