//! Keeping the shared wallet row fresh from `GET /balance`.

use crate::db::{self, Db};
use crate::upstream::PartnerClient;

/// Reads `GET /balance` into the shared wallet row. Best effort: a failure is logged and only
/// leaves the row older (checkout then decides on what is known, or refuses when nothing is).
pub async fn refresh(db: &Db, upstream: &PartnerClient) {
    match upstream.balance().await {
        Ok(balance) => {
            let available = balance.available_cents.get();
            let reserved = balance.reserved_cents.cents().get();
            let low = balance.low_balance;
            if let Err(err) = db
                .run(move |conn| db::wallet::store(conn, available, reserved, low, db::now_ms()))
                .await
            {
                tracing::warn!(error = %err, "could not store the wallet balance");
            }
        }
        Err(err) => tracing::warn!(error = %err, "could not refresh the wallet balance"),
    }
}
