//! The upstream client's circuit gate shared by every replica through the database: when one
//! process learns that the supplier is rate limiting or down, the others wait too. The gate
//! row lives in `db::outbox` beside the job claims that honour it.

use crate::db::{self, Db, outbox};
use crate::upstream::{GateFuture, SharedGate};

/// The upstream client's [`SharedGate`]: the gate row every replica's claims already honour.
/// A read or write that fails is logged and the client goes on with its own process's gate.
#[derive(Debug, Clone)]
pub struct SharedUpstreamGate {
    db: Db,
    holder: String,
}

impl SharedUpstreamGate {
    /// `holder` names this process in the row (for the console and logs).
    pub fn new(db: Db, holder: &str) -> Self {
        Self {
            db,
            holder: holder.to_string(),
        }
    }
}

impl SharedGate for SharedUpstreamGate {
    fn opens_at(&self) -> GateFuture<'_, Option<std::time::SystemTime>> {
        Box::pin(async move {
            let now = db::now_ms();
            match self
                .db
                .run(move |conn| outbox::upstream_gate_opens_at(conn, now))
                .await
            {
                Ok(at) => at.and_then(|ms| {
                    let ms = u64::try_from(ms).ok()?;
                    std::time::UNIX_EPOCH.checked_add(std::time::Duration::from_millis(ms))
                }),
                Err(err) => {
                    tracing::warn!(error = %err, "could not read the shared upstream gate");
                    None
                }
            }
        })
    }

    fn close_until(&self, until: std::time::SystemTime) -> GateFuture<'_, ()> {
        Box::pin(async move {
            let until_ms = db::ms_of(until);
            let holder = self.holder.clone();
            let closed = self
                .db
                .run(move |conn| {
                    conn.write_tx(|conn| outbox::close_upstream_gate(conn, until_ms, &holder))
                })
                .await;
            if let Err(err) = closed {
                tracing::warn!(error = %err, "could not share the upstream gate");
            }
        })
    }
}
