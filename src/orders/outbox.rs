//! The outbox: durable jobs in the database, inserted in the same transaction as the business
//! change that requires them, so paid work is never lost.

use diesel::prelude::*;

use crate::db::schema::outbox_jobs;
use crate::db::{DbConn, DbError};

/// What a job does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JobKind {
    /// Send `POST /orders` for a paid purchase (same key and body on every retry).
    PlaceOrder,
}

impl JobKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::PlaceOrder => "place_order",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        match raw {
            "place_order" => Some(Self::PlaceOrder),
            _ => None,
        }
    }
}

/// Queues `kind` for `purchase_id`, due at `run_at_ms`. A job of that kind already open for the
/// purchase makes this a no-op (a duplicate event queues nothing new); returns whether a job
/// was inserted.
pub fn enqueue(
    conn: &mut DbConn,
    purchase_id: &str,
    kind: JobKind,
    run_at_ms: i64,
    now_ms: i64,
) -> Result<bool, DbError> {
    let inserted = crate::with_inner!(&mut *conn, |c| {
        diesel::insert_into(outbox_jobs::table)
            .values((
                outbox_jobs::kind.eq(kind.as_str()),
                outbox_jobs::purchase_id.eq(purchase_id),
                outbox_jobs::state.eq("queued"),
                outbox_jobs::run_at_ms.eq(run_at_ms),
                outbox_jobs::created_at_ms.eq(now_ms),
                outbox_jobs::updated_at_ms.eq(now_ms),
            ))
            .on_conflict_do_nothing()
            .execute(c)
    })?;
    Ok(inserted == 1)
}
