//! Reconciliation by `reference`: when placement cannot tell whether upstream holds an order
//! (an outcome that stayed unknown through a long outage, or `idempotency_key_reused`), the
//! purchase's own reference is looked up, first in the local copy of the supplier's orders
//! (`books::history`, by index), then, when the copy has no such order, in the first
//! [`LOOKUP_PAGES`] pages of `GET /orders`.
//!
//! A row missing from the copy proves nothing: the copy is refreshed every few minutes and the
//! placement attempt that has just ended was sent after its last refresh, so an order that
//! attempt made cannot be in it yet. An order made by an earlier attempt usually is, so the
//! copy answers the common case of a long outage without a request. Only the listing can prove
//! an absence, and a long history cannot be walked in one job run, so "absent" is claimed only
//! when the listing ended within the pages read, without an error; a longer listing that does
//! not show the reference there is [`Lookup::NotListed`]: the order may be on a later page (the
//! listing order is not specified), so the caller waits and looks again, when the copy has
//! caught up with everything sent before.

use crate::db::{Db, DbError};
use crate::upstream::{Order, PageLimit, PartnerClient, UpstreamError};

/// Pages of `GET /orders` a look-up reads at most when the copy has no match: the orders of
/// a day or two of a busy shop, a few seconds of the shared rate-limit budget.
pub const LOOKUP_PAGES: u32 = 10;

/// What the copy and the listing say about a reference.
#[derive(Debug, Clone, PartialEq)]
pub enum Lookup {
    /// The order with this reference (the first one found, if upstream holds several).
    Found(Box<Order>),
    /// The listing ended within the pages read and no order carries the reference.
    Absent,
    /// Neither the copy nor the first `pages` pages of a longer listing show the reference.
    NotListed { pages: u32 },
}

#[derive(Debug, thiserror::Error)]
pub enum LookupError {
    #[error(transparent)]
    Db(#[from] DbError),
    #[error(transparent)]
    Upstream(#[from] UpstreamError),
}

/// Looks `reference` up in the copy, then in the first [`LOOKUP_PAGES`] pages of the listing.
pub async fn find_by_reference(
    db: &Db,
    upstream: &PartnerClient,
    reference: &str,
) -> Result<Lookup, LookupError> {
    if let Some(order) = crate::books::history::copied_order(db, reference).await? {
        return Ok(Lookup::Found(Box::new(order)));
    }
    let limit = PageLimit::new(u32::from(PageLimit::MAX)).unwrap_or_default();
    let mut pager = upstream.orders_pager(limit).with_page_cap(LOOKUP_PAGES);
    for _ in 0..LOOKUP_PAGES {
        let Some(page) = pager.next_page().await? else {
            return Ok(Lookup::Absent);
        };
        if let Some(order) = page.into_iter().find(|o| o.reference == reference) {
            return Ok(Lookup::Found(Box::new(order)));
        }
    }
    Ok(if pager.finished() {
        Lookup::Absent
    } else {
        Lookup::NotListed {
            pages: LOOKUP_PAGES,
        }
    })
}
