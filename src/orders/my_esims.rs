//! "My eSIMs": a customer signs in with a link emailed to the address they bought with, then
//! sees every eSIM bought with it and opens each one's order page without its emailed link.
//!
//! # Signing in
//!
//! "Lost your link?" is the way in: its email (sent only to an address with paid orders, see
//! `orders::lost_link`) carries a sign-in link beside the order links. The link's token is 256
//! random bits; only its SHA-256 is stored, with the address. It works once
//! ([`SIGN_IN_LINK_MS`] at most): exchanging it is one conditional update, so two requests
//! with the same link, on any replicas, cannot both sign in. The exchange starts a session,
//! a second 256-bit token that the browser keeps in a cookie and the database keeps by its
//! SHA-256, so any replica serves it and a copy of the database signs no one in.
//!
//! A session ends [`SESSION_IDLE_MS`] after its last use or [`SESSION_ABSOLUTE_MS`] after it
//! began, whichever comes first, or when the customer signs out (this browser) or signs out
//! everywhere (every session of the address).
//!
//! # What a session opens
//!
//! The address's paid purchases ([`may_open`]): the list, and each one's order page for as
//! long as the purchase's links work (`orders::links`, `STOREFRONT_ORDER_LINK_DAYS`). Any other
//! purchase is the same "not found" as an unknown one.

use std::fmt;

use url::Url;

use crate::catalog::snapshot::{destination_name_in, region_names};
use crate::db::customer_orders::{self, After};
use crate::db::customer_sessions as q;
use crate::db::lost_links::PAID_STATUSES;
use crate::db::purchases::{self, Purchase, PurchaseEvent};
use crate::db::{Db, DbConn, DbError, now_ms};
use crate::domain::PurchaseId;
use crate::domain::plan::describe_allowance;
use crate::domain::purchase::PurchaseStatus;
use crate::i18n::Lang;
use crate::orders::Orders;
use crate::orders::links::{self, LinkPolicy};

const MINUTE_MS: i64 = 60_000;
const DAY_MS: i64 = 24 * 60 * MINUTE_MS;

/// How long an emailed sign-in link works (once).
pub const SIGN_IN_LINK_MS: i64 = 30 * MINUTE_MS;
/// A session ends after this long without a request…
pub const SESSION_IDLE_MS: i64 = 7 * DAY_MS;
/// …and this long after it began, however active.
pub const SESSION_ABSOLUTE_MS: i64 = 30 * DAY_MS;
/// A session's last use is written at most this often, so page views are not all writes.
const TOUCH_EVERY_MS: i64 = MINUTE_MS;
/// Purchases on one page of the list.
pub const PAGE_SIZE: i64 = 20;

/// The cookie's name: `__Host-` (Secure, no Domain, Path=/) when the shop runs on HTTPS.
pub fn cookie_name(secure: bool) -> &'static str {
    if secure {
        "__Host-my_esims"
    } else {
        "my_esims"
    }
}

/// A secret the customer holds (a sign-in link's token or a session's cookie): 64 hex digits.
/// `Debug` never shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    fn generate() -> Self {
        Self(links::new_token())
    }

    /// A value of the right shape; anything else is no secret of ours at all.
    pub fn parse(value: &str) -> Option<Self> {
        (value.len() == 64 && value.bytes().all(|b| b.is_ascii_hexdigit()))
            .then(|| Self(value.to_ascii_lowercase()))
    }

    pub fn expose(&self) -> &str {
        &self.0
    }

    fn hash(&self) -> String {
        links::hash_token(&self.0)
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

/// A signed-in customer: the address (in lower case) their session stands for.
#[derive(Clone)]
pub struct Customer {
    email_lower: String,
}

impl Customer {
    pub fn email(&self) -> &str {
        &self.email_lower
    }
}

impl fmt::Debug for Customer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Customer(<address>)")
    }
}

/// Whether a session of `customer` may open `purchase`: one of the address's paid purchases,
/// the ones its list shows.
pub fn may_open(purchase: &Purchase, customer: &Customer) -> bool {
    PAID_STATUSES.contains(&purchase.status)
        && purchase.email.as_str().to_lowercase() == customer.email_lower
}

/// Whether a session begun at `created_ms` and last used at `last_seen_ms` is alive at `now`.
pub fn is_alive(created_ms: i64, last_seen_ms: i64, now: i64) -> bool {
    now - last_seen_ms < SESSION_IDLE_MS && now - created_ms < SESSION_ABSOLUTE_MS
}

/// Makes a sign-in link's token for `email_lower` and records its hash, in the caller's
/// transaction (before the email that carries it can leave).
pub fn issue_sign_in(conn: &mut DbConn, email_lower: &str, now: i64) -> Result<Secret, DbError> {
    let token = Secret::generate();
    q::insert_sign_in(
        conn,
        &token.hash(),
        email_lower,
        now,
        now.saturating_add(SIGN_IN_LINK_MS),
    )?;
    Ok(token)
}

/// `{public_url}/my-esims/sign-in?token=…`: the link the email carries.
pub fn sign_in_url(public_url: &Url, token: &Secret) -> Url {
    let mut url = public_url.clone();
    url.set_path("/my-esims/sign-in");
    url.set_query(None);
    url.query_pairs_mut().append_pair("token", token.expose());
    url
}

/// Whether a sign-in link's token would still sign in, leaving it unused: the emailed link
/// only shows a button, and the session is made when it is pressed ([`sign_in`]). Mail
/// scanners and link previews fetch links in emails; a fetch that spent the token would
/// leave the customer a link that no longer works.
pub async fn sign_in_is_open(orders: &Orders, token: &Secret) -> Result<bool, DbError> {
    let token_hash = token.hash();
    orders
        .db()
        .run(move |c| q::sign_in_is_open(c, &token_hash, now_ms()))
        .await
}

/// Exchanges a sign-in link's token for a new session; `None` when the token is unknown,
/// used or expired (one answer for all three).
pub async fn sign_in(orders: &Orders, token: &Secret) -> Result<Option<Secret>, DbError> {
    let token_hash = token.hash();
    orders
        .db()
        .run(move |c| {
            c.write_tx(|c| {
                let now = now_ms();
                let Some(email_lower) = q::use_sign_in(c, &token_hash, now)? else {
                    return Ok(None);
                };
                let session = Secret::generate();
                q::insert_session(c, &session.hash(), &email_lower, now)?;
                Ok(Some(session))
            })
        })
        .await
}

/// The customer whose live session `cookie` is, noting its use; `None` for no session, an
/// ended one or an unknown one.
pub async fn session(orders: &Orders, cookie: &Secret) -> Result<Option<Customer>, DbError> {
    let id_hash = cookie.hash();
    orders
        .db()
        .run(move |c| {
            let now = now_ms();
            let Some(row) = q::find_session(c, &id_hash)? else {
                return Ok(None);
            };
            if !is_alive(row.created_at_ms, row.last_seen_ms, now) {
                return Ok(None);
            }
            if now - row.last_seen_ms >= TOUCH_EVERY_MS {
                q::touch_session(c, &id_hash, now)?;
            }
            Ok(Some(Customer {
                email_lower: row.email_lower,
            }))
        })
        .await
}

/// Ends the session `cookie` is (nothing when there is none).
pub async fn sign_out(orders: &Orders, cookie: &Secret) -> Result<(), DbError> {
    let id_hash = cookie.hash();
    orders
        .db()
        .run(move |c| c.write_tx(|c| q::delete_session(c, &id_hash).map(|_| ())))
        .await
}

/// Ends every session of the address whose session `cookie` is, this one included; returns
/// how many ended (none when `cookie` is no session).
pub async fn sign_out_everywhere(orders: &Orders, cookie: &Secret) -> Result<usize, DbError> {
    let id_hash = cookie.hash();
    orders
        .db()
        .run(move |c| {
            c.write_tx(|c| match q::delete_session(c, &id_hash)? {
                Some(email_lower) => Ok(q::delete_sessions_of(c, &email_lower)? + 1),
                None => Ok(0),
            })
        })
        .await
}

/// Removes the sessions that have ended and the sign-in tokens that have expired, at `now`.
pub async fn forget_ended(db: &Db, now: i64) -> Result<usize, DbError> {
    db.run(move |c| {
        c.write_tx(|c| {
            q::delete_ended(
                c,
                now.saturating_sub(SESSION_IDLE_MS),
                now.saturating_sub(SESSION_ABSOLUTE_MS),
                now,
            )
        })
    })
    .await
}

/// One eSIM in the list.
#[derive(Debug, Clone)]
pub struct MyEsim {
    pub id: PurchaseId,
    pub status: PurchaseStatus,
    pub created_at_ms: i64,
    /// The destination as the shop names it, in the list's language ("France", "Europe").
    pub destination: String,
    /// "5 GB for 30 days", in the list's language.
    pub allowance: String,
    /// Its checkout has a receipt.
    pub receipt: bool,
}

/// One page of the list: newest first, and where the next page starts when there is one.
#[derive(Debug, Clone)]
pub struct MyEsims {
    pub esims: Vec<MyEsim>,
    pub next: Option<After>,
}

/// The page of `customer`'s eSIMs after `after` (the first page without), described in `lang`.
pub async fn list(
    orders: &Orders,
    customer: &Customer,
    after: Option<After>,
    lang: Lang,
) -> Result<MyEsims, DbError> {
    let email_lower = customer.email_lower.clone();
    orders
        .db()
        .run(move |c| {
            let mut found =
                customer_orders::purchases_of(c, &email_lower, after.as_ref(), PAGE_SIZE + 1)?;
            let more = found.len() > usize::try_from(PAGE_SIZE).unwrap_or(usize::MAX);
            found.truncate(usize::try_from(PAGE_SIZE).unwrap_or(usize::MAX));
            let next = more.then(|| found.last()).flatten().map(|last| After {
                created_at_ms: last.created_at_ms,
                id: last.id.clone(),
            });
            let esims = found
                .into_iter()
                .map(|p| {
                    let (destination, allowance) = describe_plan(c, &p.plan_id, lang)?;
                    let receipt = crate::orders::receipts::has_receipt(c, &p.checkout_id)?;
                    Ok(MyEsim {
                        receipt,
                        id: p.id,
                        status: p.status,
                        created_at_ms: p.created_at_ms,
                        destination,
                        allowance,
                    })
                })
                .collect::<Result<Vec<_>, DbError>>()?;
            Ok(MyEsims { esims, next })
        })
        .await
}

/// The plan's destination and allowance in `lang`, from the stored catalog (the plan may have
/// left the live one); the plan's id when the catalog never had it.
fn describe_plan(
    conn: &mut DbConn,
    plan_id: &str,
    lang: Lang,
) -> Result<(String, String), DbError> {
    let Some((row, region)) = crate::db::catalog::stored_plan(conn, plan_id)? else {
        return Ok((plan_id.to_string(), String::new()));
    };
    Ok((
        destination_name_in(
            &row,
            region.map(|r| region_names(&r.english, &r.own)).as_ref(),
            lang,
        ),
        describe_allowance(lang, row.data_mb, row.validity_days, row.is_daily),
    ))
}

/// Purchase `id` and its timeline (oldest first) when `customer` may open it and its links
/// still work under `policy` at `now`; `None` otherwise, alike for an unknown id.
pub fn open(
    conn: &mut DbConn,
    id: &PurchaseId,
    customer: &Customer,
    policy: LinkPolicy,
    now: i64,
) -> Result<Option<(Purchase, Vec<PurchaseEvent>)>, DbError> {
    let Some(purchase) = purchases::find(conn, id)? else {
        return Ok(None);
    };
    if !may_open(&purchase, customer) {
        return Ok(None);
    }
    let events = purchases::events(conn, &purchase.id)?;
    if links::expires_at(purchase.status, &events, policy).is_some_and(|at| now >= at) {
        return Ok(None);
    }
    Ok(Some((purchase, events)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_ends_when_idle_or_old() {
        assert!(is_alive(0, 0, SESSION_IDLE_MS - 1));
        assert!(!is_alive(0, 0, SESSION_IDLE_MS));
        let late = SESSION_ABSOLUTE_MS - 1;
        assert!(is_alive(0, late - 1, late));
        assert!(!is_alive(0, SESSION_ABSOLUTE_MS - 1, SESSION_ABSOLUTE_MS));
    }

    #[test]
    fn secrets_have_one_shape_and_hide_in_debug() {
        let secret = Secret::generate();
        assert_eq!(Secret::parse(secret.expose()), Some(secret.clone()));
        assert_eq!(Secret::parse("abc"), None);
        assert_eq!(Secret::parse(&"g".repeat(64)), None);
        assert_eq!(format!("{secret:?}"), "Secret(<redacted>)");
        let url = sign_in_url(
            &Url::parse("https://shop.example/x?y=1").expect("url"),
            &secret,
        );
        assert_eq!(
            url.as_str(),
            format!(
                "https://shop.example/my-esims/sign-in?token={}",
                secret.expose()
            )
        );
    }
}
