//! The purchases one customer made, as "My eSIMs" lists them: every paid purchase (one eSIM
//! each) of one address, newest first, a page at a time by keyset on (creation time, id),
//! read through `purchases_email_created`.

use diesel::prelude::*;

use crate::db::lost_links::PAID_STATUSES;
use crate::db::purchases::Purchase;
use crate::db::schema::purchases;
use crate::db::{DbBackend, DbConn, DbError, SelectOf};
use crate::domain::PurchaseId;

/// Where a page starts: after the purchase made at `created_at_ms` with `id`, in the list's
/// order (so older, or as old with a smaller id).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct After {
    pub created_at_ms: i64,
    pub id: PurchaseId,
}

/// [`purchases_of`]'s query (its plan is checked by a test).
pub fn purchases_of_query(
    email_lower: &str,
    after: Option<&After>,
    limit: i64,
) -> purchases::BoxedQuery<'static, DbBackend, SelectOf<Purchase>> {
    let statuses: Vec<&'static str> = PAID_STATUSES.iter().map(|s| s.as_str()).collect();
    let mut query = purchases::table
        .filter(purchases::email_lower.eq(email_lower.to_string()))
        .filter(purchases::status.eq_any(statuses))
        .order((purchases::created_at_ms.desc(), purchases::id.desc()))
        .limit(limit)
        .select(Purchase::as_select())
        .into_boxed();
    if let Some(after) = after {
        query = query.filter(
            purchases::created_at_ms
                .lt(after.created_at_ms)
                .or(purchases::created_at_ms
                    .eq(after.created_at_ms)
                    .and(purchases::id.lt(after.id.clone()))),
        );
    }
    query
}

/// The paid purchases of `email_lower` (an address in lower case, as `purchases.email_lower`
/// holds it), newest first, after `after`, at most `limit`.
pub fn purchases_of(
    conn: &mut DbConn,
    email_lower: &str,
    after: Option<&After>,
    limit: i64,
) -> Result<Vec<Purchase>, DbError> {
    Ok(purchases_of_query(email_lower, after, limit).load(conn)?)
}
