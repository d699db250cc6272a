//! What the consumer's order page reads: a purchase by its id and private-link token, its
//! timeline and, once fulfilled, its decrypted installation, in one trip to the pool.

use crate::db::purchases::{self, Purchase, PurchaseEvent};
use crate::db::{Db, DbError};
use crate::domain::purchase::PurchaseStatus;
use crate::orders::installation::{
    InstallationDetails, InstallationError, InstallationKeys, load_installation_with,
};
use crate::orders::links::hash_token;

#[derive(Debug, thiserror::Error)]
pub enum OrderPageError {
    #[error(transparent)]
    Db(#[from] DbError),
    #[error(transparent)]
    Installation(#[from] InstallationError),
}

/// A purchase as its order page shows it.
pub struct OrderRecord {
    pub purchase: Purchase,
    /// Oldest first.
    pub events: Vec<PurchaseEvent>,
    /// Read only when fulfilled and asked for.
    pub installation: Option<InstallationDetails>,
}

/// The purchase `id` when `token` is one of its link tokens; `None` for any other pair, so an
/// unknown id and a wrong token look the same.
pub async fn purchase_for_link(
    db: &Db,
    id: &str,
    token: &str,
) -> Result<Option<Purchase>, DbError> {
    let (id, hash) = (id.to_string(), hash_token(token));
    db.run(move |conn| purchases::find_with_token(conn, &id, &hash))
        .await
}

/// The order page's data for `id` and `token` (`None` as for [`purchase_for_link`]). The
/// installation is read and opened only when the purchase is fulfilled and `with_installation`
/// (the caller may hold what it derived from it already).
pub async fn read_order(
    db: &Db,
    keys: &InstallationKeys,
    id: &str,
    token: &str,
    with_installation: bool,
) -> Result<Option<OrderRecord>, OrderPageError> {
    let (id, hash, keys) = (id.to_string(), hash_token(token), keys.clone());
    db.run(move |conn| {
        let Some(purchase) = purchases::find_with_token(conn, &id, &hash)? else {
            return Ok(None);
        };
        let events = purchases::events(conn, &purchase.id)?;
        let installation = if with_installation && purchase.status() == PurchaseStatus::Fulfilled {
            load_installation_with(conn, &keys, &purchase.id)?
        } else {
            None
        };
        Ok(Some(OrderRecord {
            purchase,
            events,
            installation,
        }))
    })
    .await
}
