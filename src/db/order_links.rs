//! The private order links' tokens, by their SHA-256 only: which purchase each opens, when it
//! was made and, once revoked, when.

use diesel::prelude::*;

use crate::db::purchases::Purchase;
use crate::db::schema::{order_link_tokens, purchases};
use crate::db::{DbBackend, DbConn, DbError};
use crate::domain::purchase::PurchaseId;

/// Records a new link token of `purchase_id` by its hash, in the caller's transaction.
/// `opens_checkout`: the buyer's link, which opens every unit of the checkout whose first
/// unit is `purchase_id`; otherwise it opens that one unit.
pub fn insert(
    conn: &mut DbConn,
    purchase_id: &PurchaseId,
    token_hash: &str,
    opens_checkout: bool,
    now_ms: i64,
) -> Result<(), DbError> {
    diesel::insert_into(order_link_tokens::table)
        .values((
            order_link_tokens::purchase_id.eq(purchase_id),
            order_link_tokens::token_hash.eq(token_hash),
            order_link_tokens::created_at_ms.eq(now_ms),
            order_link_tokens::opens_checkout.eq(opens_checkout),
        ))
        .execute(conn)?;
    Ok(())
}

/// Purchase `id` and whether the token opens its whole checkout, if `token_hash` is the hash
/// of one of its link tokens that is not revoked; `None` for any other pair (expiry is the
/// caller's to judge).
pub fn find_purchase(
    conn: &mut DbConn,
    id: &PurchaseId,
    token_hash: &str,
) -> Result<Option<(Purchase, bool)>, DbError> {
    let Some(opens_checkout) = order_link_tokens::table
        .filter(order_link_tokens::purchase_id.eq(id))
        .filter(order_link_tokens::token_hash.eq(token_hash))
        .filter(order_link_tokens::revoked_at_ms.is_null())
        .select(order_link_tokens::opens_checkout)
        .first::<bool>(conn)
        .optional()?
    else {
        return Ok(None);
    };
    Ok(purchases::table
        .filter(purchases::id.eq(id))
        .select(Purchase::as_select())
        .first(conn)
        .optional()?
        .map(|purchase| (purchase, opens_checkout)))
}

/// Revokes every link token of unit `purchase_id` not revoked yet; returns how many. The
/// buyer's links (rows of a checkout's first unit that open the whole checkout) go with them
/// only when the checkout is this one unit, whose page they are: one traveller's eSIM losing
/// its links leaves the buyer's page of the others alone ([`revoke_checkout`] is the reverse).
pub fn revoke_all(
    conn: &mut DbConn,
    purchase_id: &PurchaseId,
    now_ms: i64,
) -> Result<usize, DbError> {
    let checkout: Option<PurchaseId> = purchases::table
        .find(purchase_id)
        .select(purchases::checkout_id)
        .first(conn)
        .optional()?;
    let units: i64 = match &checkout {
        Some(checkout) => purchases::table
            .filter(purchases::checkout_id.eq(checkout))
            .count()
            .get_result(conn)?,
        None => 0,
    };
    let rows = order_link_tokens::table
        .filter(order_link_tokens::purchase_id.eq(purchase_id))
        .filter(order_link_tokens::revoked_at_ms.is_null());
    let revoked = if units > 1 {
        diesel::update(rows.filter(order_link_tokens::opens_checkout.eq(false)))
            .set(order_link_tokens::revoked_at_ms.eq(now_ms))
            .execute(conn)?
    } else {
        diesel::update(rows)
            .set(order_link_tokens::revoked_at_ms.eq(now_ms))
            .execute(conn)?
    };
    Ok(revoked)
}

/// Revokes the buyer's links of checkout `checkout_id` (they open every unit) not revoked
/// yet; each unit's own links keep working. Returns how many.
pub fn revoke_checkout(
    conn: &mut DbConn,
    checkout_id: &PurchaseId,
    now_ms: i64,
) -> Result<usize, DbError> {
    Ok(diesel::update(
        order_link_tokens::table
            .filter(order_link_tokens::purchase_id.eq(checkout_id))
            .filter(order_link_tokens::opens_checkout.eq(true))
            .filter(order_link_tokens::revoked_at_ms.is_null()),
    )
    .set(order_link_tokens::revoked_at_ms.eq(now_ms))
    .execute(conn)?)
}

/// A purchase's link tokens, by whether they were revoked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LinkCounts {
    /// Not revoked (they open the page until the purchase's links expire).
    pub live: usize,
    pub revoked: usize,
}

/// [`counts`]'s query (its plan is checked by a test).
pub fn counts_query(
    purchase_id: &PurchaseId,
) -> order_link_tokens::BoxedQuery<
    'static,
    DbBackend,
    diesel::sql_types::Nullable<diesel::sql_types::BigInt>,
> {
    order_link_tokens::table
        .filter(order_link_tokens::purchase_id.eq(purchase_id.clone()))
        .select(order_link_tokens::revoked_at_ms)
        .into_boxed()
}

pub fn counts(conn: &mut DbConn, purchase_id: &PurchaseId) -> Result<LinkCounts, DbError> {
    let revoked: Vec<Option<i64>> = counts_query(purchase_id).load(conn)?;
    let gone = revoked.iter().filter(|r| r.is_some()).count();
    Ok(LinkCounts {
        live: revoked.len() - gone,
        revoked: gone,
    })
}
