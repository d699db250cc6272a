//! Reconciliation by `reference`: when placement cannot tell whether upstream holds an order
//! (an outcome that stayed unknown through a long outage, or `idempotency_key_reused`), the
//! purchase's own reference is looked up in `GET /orders`, walking every page. Found means
//! the order exists and is adopted; "absent" is only claimed after the whole listing was read
//! without an error, so a partial walk never passes for proof.

use crate::upstream::{Order, PageLimit, PartnerClient, UpstreamError};

/// What the listing says about a reference.
#[derive(Debug, Clone, PartialEq)]
pub enum Lookup {
    /// The order with this reference (the first one listed, if upstream holds several).
    Found(Box<Order>),
    /// Every page was read and no order carries the reference.
    Absent,
}

/// Walks `GET /orders` until an order with `reference` shows up or the listing ends.
pub async fn find_by_reference(
    upstream: &PartnerClient,
    reference: &str,
) -> Result<Lookup, UpstreamError> {
    let limit = PageLimit::new(u32::from(PageLimit::MAX)).unwrap_or_default();
    let mut pager = upstream.orders_pager(limit);
    while let Some(page) = pager.next_page().await? {
        if let Some(order) = page.into_iter().find(|o| o.reference == reference) {
            return Ok(Lookup::Found(Box::new(order)));
        }
    }
    Ok(Lookup::Absent)
}
