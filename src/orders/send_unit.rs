//! "Send this eSIM to someone": from the buyer's page of several eSIMs, the buyer sends one
//! eSIM's own private link to an address. Only the buyer's link may do it (a traveller's link
//! opens one eSIM and sends nothing). The address becomes the eSIM's traveller's, and the
//! eSIM's "ready" email is queued again through the outbox: it goes to that address, in the
//! purchase's language, with a fresh link that opens only that eSIM (`orders::jobs::email`).

use crate::db::purchases::units_of;
use crate::db::{DbError, now_ms, travellers};
use crate::domain::job::JobKind;
use crate::domain::purchase::PurchaseStatus;
use crate::domain::{Email, PurchaseId};
use crate::orders::Orders;
use crate::orders::jobs::job::enqueue;
use crate::orders::links::{self, LinkPolicy};

#[derive(Debug, thiserror::Error)]
pub enum SendUnitError {
    /// No buyer's link of that checkout (unknown, wrong, revoked, expired, or a traveller's):
    /// the same as an unknown order.
    #[error("no such order")]
    NotFound,
    /// The eSIM cannot be installed yet (or never will): there is no link worth sending.
    #[error("this eSIM is not ready")]
    NotReady,
    #[error(transparent)]
    Db(#[from] DbError),
}

impl From<diesel::result::Error> for SendUnitError {
    fn from(err: diesel::result::Error) -> Self {
        Self::Db(err.into())
    }
}

/// Sends unit `index` of checkout `checkout_id` to `to`, when `token` is the buyer's live link
/// to the checkout under `policy`; the eSIM must be ready. The caller wakes the outbox.
pub async fn send_unit(
    orders: &Orders,
    checkout_id: &PurchaseId,
    token: &str,
    index: i32,
    to: &Email,
    policy: LinkPolicy,
) -> Result<(), SendUnitError> {
    let (checkout_id, token, to) = (checkout_id.clone(), token.to_string(), to.clone());
    orders
        .db()
        .run(move |conn| {
            conn.write_tx(|conn| {
                let now = now_ms();
                let buyer = links::open(conn, &checkout_id, &token, policy, now)?
                    .filter(|opened| opened.opens_checkout)
                    .ok_or(SendUnitError::NotFound)?;
                let unit = units_of(conn, &buyer.purchase.checkout_id)?
                    .into_iter()
                    .find(|unit| unit.unit_index == index)
                    .ok_or(SendUnitError::NotFound)?;
                if unit.status != PurchaseStatus::Fulfilled {
                    return Err(SendUnitError::NotReady);
                }
                travellers::set_email(conn, &unit.id, &to)?;
                // A ready email still waiting goes to the new address; a sent one is sent again.
                enqueue(conn, &unit.id, JobKind::EmailEsimReady, now, now)?;
                Ok(())
            })
        })
        .await
}
