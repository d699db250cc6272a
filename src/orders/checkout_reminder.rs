//! Reminders of unfinished checkouts, with the buyer's consent: the consent given at checkout
//! queues the reminder (`orders::jobs::checkout_reminder`) an hour after the payment page
//! closes, in the checkout's own transaction; the unsubscribe link every such reminder carries
//! ends them for the mailbox for good.

use url::Url;

use crate::db::outbox as jobs;
use crate::db::{DbConn, DbError, now_ms, reminder_addresses as q};
use crate::domain::PurchaseId;
use crate::domain::job::JobKind;
use crate::orders::Orders;
use crate::orders::links::hash_token;

/// How long after an unpaid checkout's payment page closed its reminder goes out.
pub const AFTER_EXPIRY_MS: i64 = 60 * 60 * 1000;

/// Records the consent of checkout `checkout_id`, whose payment page closes at
/// `expires_at_ms`, and queues its reminder, in the caller's transaction.
pub fn consent_in(
    conn: &mut DbConn,
    checkout_id: &PurchaseId,
    expires_at_ms: i64,
    now_ms: i64,
) -> Result<(), DbError> {
    q::consent(conn, checkout_id)?;
    jobs::insert_job(
        conn,
        JobKind::EmailCheckoutReminder.as_str(),
        checkout_id,
        expires_at_ms.saturating_add(AFTER_EXPIRY_MS),
        now_ms,
    )?;
    Ok(())
}

/// `{public_url}/unsubscribe/{token}`: the link a reminder carries.
pub fn unsubscribe_url(public_url: &Url, token: &str) -> Url {
    let mut url = public_url.clone();
    url.set_path(&format!("/unsubscribe/{token}"));
    url
}

/// Whether `token` is an unsubscribe link the shop sent.
pub async fn link_exists(orders: &Orders, token: &str) -> Result<bool, DbError> {
    let hash = hash_token(token);
    Ok(orders
        .db()
        .run(move |c| q::mailbox_of(c, &hash))
        .await?
        .is_some())
}

/// Unsubscribes the mailbox of link `token` from these reminders; false for a link the shop
/// never sent.
pub async fn unsubscribe(orders: &Orders, token: &str) -> Result<bool, DbError> {
    let hash = hash_token(token);
    orders
        .db()
        .run(move |c| {
            c.write_tx(|c| {
                let Some(mailbox) = q::mailbox_of(c, &hash)? else {
                    return Ok(false);
                };
                q::unsubscribe(c, &mailbox, now_ms())?;
                Ok(true)
            })
        })
        .await
}
