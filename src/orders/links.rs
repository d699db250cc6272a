//! The private links to a purchase's order page, and what they are worth.
//!
//! # Tokens
//!
//! A link's token is 256 random bits from the operating system, written as hex. Only its
//! SHA-256 is stored (`order_link_tokens`, with its purchase, when it was made and, once
//! revoked, when), so a copy of the database opens no order page.
//!
//! Every link handed out gets a token of its own: the checkout's (kept in the buyer's cookie,
//! never shown) and one per email ([`issue`], recorded before the email can leave). A token
//! that is stored only as a hash cannot be put into a later email, and a token derived from
//! the purchase (an HMAC under the shop's key) could not be revoked without a generation
//! counter beside it; a fresh token per email needs neither, and revoking is one update of
//! the purchase's rows. The secret key plays no part, so rotating it leaves every link alone.
//! Tokens made by an email that was then not sent (a retry makes its own) are never known to
//! anyone and end with the others.
//!
//! # What a token opens, and for how long
//!
//! A token opens its purchase's page while its row is not revoked and the purchase's links
//! have not expired: [`LinkPolicy::valid_for_ms`] after the purchase was fulfilled, or after
//! it ended otherwise (refunded, failed, never paid). Until then (waiting for payment, being
//! prepared, being looked into) links do not expire. The order page's cookie holds the token
//! itself, so revocation and expiry end the cookie too. Revoking ends every token made so
//! far; an email sent afterwards (the console's resend, or the shop's own notices) carries a
//! fresh one, which is how a customer whose link was revoked gets back in.
//!
//! The token is never given to the payment provider: its return addresses are the plain
//! order page ([`return_url`]), which the buyer's cookie from checkout opens.

use rand::TryRngCore;
use rand::rngs::OsRng;
use sha2::{Digest, Sha256};
use url::Url;

use crate::db::purchases::{self, Purchase, PurchaseEvent};
use crate::db::{DbConn, DbError, order_links};
use crate::domain::PurchaseId;
use crate::domain::purchase::PurchaseStatus;

/// Days a purchase's links keep working after it was fulfilled or ended, unless configured.
pub use crate::config::DEFAULT_ORDER_LINK_DAYS as DEFAULT_VALID_DAYS;

const DAY_MS: i64 = 86_400_000;

/// How long links work once their purchase is done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkPolicy {
    pub valid_for_ms: i64,
}

impl LinkPolicy {
    pub fn days(days: u32) -> Self {
        Self {
            valid_for_ms: i64::from(days).saturating_mul(DAY_MS),
        }
    }
}

impl Default for LinkPolicy {
    fn default() -> Self {
        Self::days(DEFAULT_VALID_DAYS)
    }
}

/// A new token: 256 bits from the operating system's generator, as 64 hex digits.
///
/// # Panics
///
/// When the operating system cannot give random bytes: no secret can be made without them.
pub fn new_token() -> String {
    let mut bytes = [0u8; 32];
    OsRng
        .try_fill_bytes(&mut bytes)
        .expect("the operating system's random number generator works");
    hex::encode(bytes)
}

/// What is stored to find a purchase by its token.
pub fn hash_token(token: &str) -> String {
    hex::encode(token_digest(token))
}

/// The SHA-256 of `token`, as [`hash_token`] stores it before hex encoding.
pub fn token_digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// Makes a new token for `purchase_id` and records its hash, in the caller's transaction.
/// `opens_checkout`: the buyer's link (`purchase_id` is then the checkout's id), which opens
/// every unit; otherwise the token opens that one unit (a traveller's link).
pub fn issue(
    conn: &mut DbConn,
    purchase_id: &PurchaseId,
    opens_checkout: bool,
    now_ms: i64,
) -> Result<String, DbError> {
    let token = new_token();
    order_links::insert(
        conn,
        purchase_id,
        &hash_token(&token),
        opens_checkout,
        now_ms,
    )?;
    Ok(token)
}

/// When a purchase with `status` and `events` (oldest first) stops opening through its
/// links: `valid_for` after it was first fulfilled, or after it entered the state that
/// ended it; `None` while it is not done.
pub fn expires_at(
    status: PurchaseStatus,
    events: &[PurchaseEvent],
    policy: LinkPolicy,
) -> Option<i64> {
    // When the purchase moved into `to` (staff notes repeat the status and do not count).
    let entered = |to: &'static str| {
        events
            .iter()
            .filter(move |e| e.to_status == to && e.from_status.as_deref() != Some(to))
            .map(|e| e.at_ms)
    };
    let done_at = entered(PurchaseStatus::Fulfilled.as_str())
        .min()
        .or_else(|| {
            status
                .has_ended()
                .then(|| entered(status.as_str()).max())
                .flatten()
        })?;
    Some(done_at.saturating_add(policy.valid_for_ms))
}

/// What a live link opened.
#[derive(Debug, Clone)]
pub struct Opened {
    /// The purchase the link names (the checkout's first unit for a buyer's link).
    pub purchase: Purchase,
    /// Its timeline, oldest first.
    pub events: Vec<PurchaseEvent>,
    /// The buyer's link: it opens every unit of the checkout.
    pub opens_checkout: bool,
}

/// The purchase `id` and its timeline (oldest first) when `token` is one of its live links at
/// `now_ms`; `None` for an unknown id, a wrong, revoked or expired token alike.
pub fn open(
    conn: &mut DbConn,
    id: &PurchaseId,
    token: &str,
    policy: LinkPolicy,
    now_ms: i64,
) -> Result<Option<Opened>, DbError> {
    let Some((purchase, opens_checkout)) =
        order_links::find_purchase(conn, id, &hash_token(token))?
    else {
        return Ok(None);
    };
    let events = purchases::events(conn, &purchase.id)?;
    if expires_at(purchase.status, &events, policy).is_some_and(|at| now_ms >= at) {
        return Ok(None);
    }
    Ok(Some(Opened {
        purchase,
        events,
        opens_checkout,
    }))
}

/// `{public_url}/orders/{id}?token=…`: the link emails carry.
pub fn order_url(public_url: &Url, purchase_id: &PurchaseId, token: &str) -> Url {
    let mut url = return_url(public_url, purchase_id);
    url.query_pairs_mut().append_pair("token", token);
    url
}

/// `{public_url}/orders/{id}`: where the payment provider sends the buyer back. It carries
/// no token: the cookie set at checkout opens it in the buyer's browser, and elsewhere it is
/// the page that points to the emailed link.
pub fn return_url(public_url: &Url, purchase_id: &PurchaseId) -> Url {
    let mut url = public_url.clone();
    url.set_path(&format!("/orders/{purchase_id}"));
    url.set_query(None);
    url
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pid(raw: &str) -> PurchaseId {
        PurchaseId::parse(raw).expect("a purchase id")
    }

    fn event(to: &str, from: Option<&str>, at_ms: i64) -> PurchaseEvent {
        PurchaseEvent {
            id: at_ms,
            purchase_id: pid("p1"),
            at_ms,
            from_status: from.map(str::to_string),
            to_status: to.into(),
            note: String::new(),
        }
    }

    #[test]
    fn tokens_are_random_256_bit_hex() {
        let (a, b) = (new_token(), new_token());
        assert_ne!(a, b);
        assert_eq!(a.len(), 64);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(hash_token(&a), a);
        assert_eq!(hash_token(&a), hash_token(&a));
    }

    #[test]
    fn links_carry_the_token_and_return_addresses_do_not() {
        let base = Url::parse("https://shop.example").expect("url");
        assert_eq!(
            order_url(&base, &pid("p1"), "t0k").as_str(),
            "https://shop.example/orders/p1?token=t0k"
        );
        assert_eq!(
            return_url(&base, &pid("p1")).as_str(),
            "https://shop.example/orders/p1"
        );
    }

    #[test]
    fn links_expire_after_fulfilment_or_the_end_and_not_before() {
        let policy = LinkPolicy::days(1);
        let paid = [
            event("awaiting_payment", None, 10),
            event("paid", Some("awaiting_payment"), 20),
        ];
        assert_eq!(expires_at(PurchaseStatus::Paid, &paid, policy), None);
        let mut fulfilled = paid.to_vec();
        fulfilled.push(event("fulfilled", Some("provisioning"), 30));
        // A staff note on the fulfilled order does not move the clock.
        fulfilled.push(event("fulfilled", Some("fulfilled"), 40));
        assert_eq!(
            expires_at(PurchaseStatus::Fulfilled, &fulfilled, policy),
            Some(30 + DAY_MS)
        );
        // Refunded later: still counted from the fulfilment.
        fulfilled.push(event("refunded", Some("fulfilled"), 50));
        assert_eq!(
            expires_at(PurchaseStatus::Refunded, &fulfilled, policy),
            Some(30 + DAY_MS)
        );
        let unpaid = [
            event("awaiting_payment", None, 10),
            event("payment_failed", Some("awaiting_payment"), 60),
        ];
        assert_eq!(
            expires_at(PurchaseStatus::PaymentFailed, &unpaid, policy),
            Some(60 + DAY_MS)
        );
        let looked_into = [
            event("awaiting_payment", None, 10),
            event("needs_attention", Some("paid"), 70),
        ];
        assert_eq!(
            expires_at(PurchaseStatus::NeedsAttention, &looked_into, policy),
            None
        );
    }
}
