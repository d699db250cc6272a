//! Provider events by id: storing one first is what makes a duplicate change nothing.

use diesel::prelude::*;

use crate::db::schema::payment_events;
use crate::db::{DbConn, DbError};
use crate::domain::purchase::PurchaseId;

/// Stores a verified provider event's id (`provider:event id`), its kind and purchase; returns
/// false when that event was stored before (a duplicate delivery).
pub fn store(
    conn: &mut DbConn,
    id: &str,
    provider: &str,
    kind: &str,
    purchase_id: Option<&PurchaseId>,
    now_ms: i64,
) -> Result<bool, DbError> {
    let stored = crate::with_inner!(&mut *conn, |c| {
        diesel::insert_into(payment_events::table)
            .values((
                payment_events::id.eq(id),
                payment_events::provider.eq(provider),
                payment_events::kind.eq(kind),
                payment_events::purchase_id.eq(purchase_id),
                payment_events::received_at_ms.eq(now_ms),
            ))
            .on_conflict_do_nothing()
            .execute(c)
    })?;
    Ok(stored == 1)
}
