//! Top-ups of the supplier wallet, asked for from the console.
//!
//! A top-up must never pay twice. The console hands out a random form nonce; the first
//! submission stores a `topups` row under that nonce with a fresh Idempotency-Key, and every
//! submission of the same form (a double click, a retry after a timeout) finds that row and asks
//! upstream with the same key, so upstream answers with the same checkout session. Nothing is
//! credited here: the credit shows up in the balance once upstream has verified the payment.
//!
//! A top-up is paid on upstream's hosted page, reached by a link the console shows once the
//! top-up is recorded ([`checkout_link`] decides which links it shows). Its credit is
//! recognised by a balance transaction whose reference is the checkout session
//! ([`confirm_topups`]).

use std::net::IpAddr;

use rand::RngCore;

use crate::db::topups::{self, NewTopup, TopupProgressRow};
use crate::db::{self, Db, DbError};
use crate::domain::Cents;
use crate::staff::Admin;
use crate::upstream::types::{IdempotencyKey, PageLimit, TopUpAmount};
use crate::upstream::{Balance, BalanceTransaction, UpstreamError};
use crate::wallet::threshold::check_low_balance;
use crate::wallet::{TRANSACTIONS_PER_PAGE, Wallet, WalletError};

/// The audit actions of top-ups (money actions, kept at least a year).
pub use crate::staff::action::{
    WALLET_TOPUP_CREATED as TOPUP_CREATED, WALLET_TOPUP_FAILED as TOPUP_FAILED,
    WALLET_TOPUP_RESUBMITTED as TOPUP_RESUBMITTED,
};

/// Why a top-up form did not lead to a payment page.
#[derive(Debug, thiserror::Error)]
pub enum TopupRefusal {
    #[error(transparent)]
    Upstream(UpstreamError),
    #[error("unsafe payment link: {0}")]
    Link(UnsafeCheckoutLink),
}

impl TopupRefusal {
    /// What the owner is told about top-up `id`, refused this way.
    pub fn explain(&self, id: i64) -> String {
        match self {
            Self::Upstream(err) => format!(
                "{} Submit the same form again: it reuses the same key, so it cannot pay twice.",
                super::upstream_trouble(err)
            ),
            Self::Link(err) => format!(
                "The provider answered with a payment link the console will not open: {err} \
                 (it must be https). Nothing was paid. Ask the provider's support about top-up #{id}."
            ),
        }
    }
}

/// What became of a submitted top-up form.
#[derive(Debug)]
pub enum TopupAnswer {
    /// Upstream has a checkout session for top-up `id`: its page links to the payment.
    Created { id: i64 },
    /// This form was already sent for another amount (`sent_cents`); nothing was asked.
    OtherAmount { sent_cents: i64 },
    /// Recorded and audited, but no payment page: submitting the same form again reuses the
    /// same key.
    Refused {
        id: i64,
        amount_cents: i64,
        refusal: TopupRefusal,
    },
}

/// Where to pay a pending top-up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PayLink {
    pub url: url::Url,
    /// The host (and port when not the default), as the owner should read it.
    pub host: String,
}

/// One top-up as its console page shows it.
#[derive(Debug)]
pub struct TopupProgress {
    pub topup: TopupProgressRow,
    /// The checkout link, while the top-up is not confirmed and the link passes the rule.
    pub link: Option<PayLink>,
    /// The live balance, already stored into the wallet row.
    pub live: Result<Balance, UpstreamError>,
}

impl Wallet<'_> {
    /// Handles a submission of the top-up form `nonce` for `amount` by `by`: finds or records
    /// the top-up of this nonce (one Idempotency-Key per form), asks upstream for a checkout
    /// session with that key, checks the link it answers with, and records the outcome with its
    /// audit entry in one transaction.
    #[tracing::instrument(skip_all, fields(admin.id = by.user_id))]
    pub async fn request_topup(
        &self,
        by: Admin,
        client_addr: String,
        nonce: String,
        amount: TopUpAmount,
    ) -> Result<TopupAnswer, WalletError> {
        let user_id = by.user_id;
        let (row, inserted) = self
            .db
            .run(move |conn| {
                let key = IdempotencyKey::generate();
                conn.write_tx(|conn| {
                    topups::topup_for_nonce(
                        conn,
                        &NewTopup {
                            nonce: &nonce,
                            idempotency_key: key.as_str(),
                            amount_cents: amount.cents().get(),
                            created_by: user_id,
                        },
                        db::now_ms(),
                    )
                })
            })
            .await?;
        if row.amount_cents != amount.cents().get() {
            return Ok(TopupAnswer::OtherAmount {
                sent_cents: row.amount_cents,
            });
        }
        let key = IdempotencyKey::parse(row.idempotency_key.clone())
            .map_err(|e| WalletError::StoredKey(e.to_string()))?;
        let answer = self
            .upstream
            .create_topup(&key, amount)
            .await
            .map_err(TopupRefusal::Upstream)
            .and_then(|session| {
                checkout_link(&session.checkout_url, self.upstream_base)
                    .map(|link| (session.id, link))
                    .map_err(TopupRefusal::Link)
            });
        let target = format!("topup:{}", row.id);
        let amount_text = Cents::new(row.amount_cents).to_string();
        let id = row.id;
        let recorded = match &answer {
            Ok((session, link)) => (
                Ok((session.clone(), link.to_string())),
                if inserted {
                    TOPUP_CREATED
                } else {
                    TOPUP_RESUBMITTED
                },
            ),
            Err(refusal) => (Err(refusal.to_string()), TOPUP_FAILED),
        };
        self.db
            .run(move |conn| {
                let now = db::now_ms();
                let (outcome, act) = recorded;
                conn.write_tx(|conn| {
                    let details = match &outcome {
                        Ok((session, url)) => {
                            topups::record_topup_outcome(conn, id, Ok((session, url)), now)?;
                            format!("{amount_text}, checkout session {session}")
                        }
                        Err(error) => {
                            topups::record_topup_outcome(conn, id, Err(error), now)?;
                            format!("{amount_text}, not created: {error}")
                        }
                    };
                    by.audit(conn, act, Some(&target), &client_addr, &details, now)
                })
            })
            .await?;
        match answer {
            Ok(_) => Ok(TopupAnswer::Created { id }),
            Err(refusal) => {
                match &refusal {
                    TopupRefusal::Upstream(err) => {
                        tracing::warn!(topup.id = id, error = %err, "upstream top-up not created");
                    }
                    TopupRefusal::Link(err) => {
                        tracing::warn!(topup.id = id, error = %err, "upstream top-up link refused");
                    }
                }
                Ok(TopupAnswer::Refused {
                    id,
                    amount_cents: row.amount_cents,
                    refusal,
                })
            }
        }
    }

    /// Top-up `id` as its page shows it. Each view reads the balance live (which may resume
    /// sales, and is checked against the threshold) and the newest balance transactions, where
    /// the top-up's credit shows up.
    #[tracing::instrument(skip_all, fields(topup.id = id))]
    pub async fn topup_progress(&self, id: i64) -> Result<TopupProgress, WalletError> {
        let live = self.live_balance().await;
        let limit = PageLimit::new(TRANSACTIONS_PER_PAGE).unwrap_or_default();
        match self.upstream.balance_transactions(None, limit).await {
            Ok(page) => {
                if let Err(err) = confirm_topups(self.db, &page.data).await {
                    tracing::warn!(error = %err, "could not record top-up credits");
                }
            }
            Err(err) => tracing::warn!(error = %err, "could not read the balance transactions"),
        }
        if let Ok(balance) = &live {
            check_low_balance(self.db, self.notifier, balance.available_cents.get()).await?;
        }
        let topup = self
            .db
            .run(move |conn| topups::topup(conn, id))
            .await?
            .ok_or(WalletError::TopupNotFound)?;
        let link = topup
            .checkout_url
            .as_deref()
            .filter(|_| topup.confirmed_at_ms.is_none())
            .and_then(|raw| url::Url::parse(raw).ok())
            .and_then(|url| checkout_link(&url, self.upstream_base).ok())
            .map(|url| PayLink {
                host: link_host(&url),
                url,
            });
        Ok(TopupProgress { topup, link, live })
    }
}

/// Why the console will not send the owner to a checkout link upstream answered with.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum UnsafeCheckoutLink {
    #[error("the payment link is not https")]
    NotHttps,
    #[error("the payment link names no host")]
    NoHost,
    #[error("the payment link carries a user name or password")]
    Credentials,
}

/// The checkout link to show the owner: https with a host, or plain http to a loopback
/// address when the configured upstream is itself on loopback (the built-in sandbox, a local
/// test). Anything else is refused: the link leads the owner to a page that takes money.
pub fn checkout_link(
    link: &url::Url,
    upstream_base: &url::Url,
) -> Result<url::Url, UnsafeCheckoutLink> {
    let host = link.host().ok_or(UnsafeCheckoutLink::NoHost)?;
    if !link.username().is_empty() || link.password().is_some() {
        return Err(UnsafeCheckoutLink::Credentials);
    }
    match link.scheme() {
        "https" => Ok(link.clone()),
        "http" if is_loopback(&host) && upstream_base.host().is_some_and(|h| is_loopback(&h)) => {
            Ok(link.clone())
        }
        _ => Err(UnsafeCheckoutLink::NotHttps),
    }
}

fn is_loopback(host: &url::Host<&str>) -> bool {
    match host {
        url::Host::Domain(name) => name.eq_ignore_ascii_case("localhost"),
        url::Host::Ipv4(ip) => IpAddr::V4(*ip).is_loopback(),
        url::Host::Ipv6(ip) => IpAddr::V6(*ip).is_loopback(),
    }
}

/// Where a checkout link leads, as the owner should read it: the host, and the port when it
/// is not the scheme's default.
pub fn link_host(link: &url::Url) -> String {
    match (link.host_str(), link.port()) {
        (Some(host), Some(port)) => format!("{host}:{port}"),
        (Some(host), None) => host.to_string(),
        (None, _) => String::new(),
    }
}

/// Marks the top-ups whose credit appears in `transactions` (a transaction crediting available
/// credit whose reference is the top-up's checkout session) as confirmed. Returns how many
/// were newly confirmed.
pub async fn confirm_topups(
    db: &Db,
    transactions: &[BalanceTransaction],
) -> Result<usize, DbError> {
    let credited: Vec<String> = transactions
        .iter()
        .filter(|t| t.available_delta_cents.get() > 0)
        .map(|t| t.reference.clone())
        .collect();
    if credited.is_empty() {
        return Ok(0);
    }
    db.run(move |conn| {
        let now = db::now_ms();
        let mut confirmed = 0;
        for topup in topups::unconfirmed_topups(conn)? {
            if topup
                .session_id
                .as_ref()
                .is_some_and(|s| credited.contains(s))
                && topups::confirm_topup(conn, topup.id, now)?
            {
                tracing::info!(topup.id = topup.id, "top-up credit seen upstream");
                confirmed += 1;
            }
        }
        Ok(confirmed)
    })
    .await
}

/// The amount typed into the top-up form (dollars, like `25.50`); the refusal says what a
/// top-up may be.
pub fn parse_amount(raw: &str) -> Result<TopUpAmount, String> {
    let cents = raw.parse::<Cents>().map_err(|_| {
        "Enter the amount in dollars, like 25 or 25.50 (at most two decimals).".to_string()
    })?;
    TopUpAmount::new(cents).map_err(|_| {
        format!(
            "A top-up is between {} and {}; {cents} is not.",
            Cents::new(TopUpAmount::MIN),
            Cents::new(TopUpAmount::MAX),
        )
    })
}

/// A form nonce: 128 random bits as 32 hex characters.
pub fn new_nonce() -> String {
    let mut bytes = [0u8; 16];
    rand::rng().fill_bytes(&mut bytes);
    hex::encode(bytes)
}

/// Whether `nonce` has the shape [`new_nonce`] gives (a form sent back as it was handed out).
pub fn valid_nonce(nonce: &str) -> bool {
    nonce.len() == 32 && nonce.bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_ups_are_ten_to_a_thousand_dollars() {
        assert!(parse_amount("10").is_ok());
        assert!(parse_amount("1,000.00").is_ok());
        assert!(
            parse_amount("9.99")
                .unwrap_err()
                .contains("between $10.00 and $1,000.00; $9.99 is not")
        );
        assert!(parse_amount("1000.01").is_err());
        assert!(
            parse_amount("abc")
                .unwrap_err()
                .contains("like 25 or 25.50")
        );
    }

    fn url(text: &str) -> url::Url {
        url::Url::parse(text).expect("test url")
    }

    #[test]
    fn checkout_links_must_be_https_except_on_a_loopback_sandbox() {
        let remote = url("https://partner.example/api/v1");
        let local = url("http://127.0.0.1:8787/api/v1");
        let pay = url("https://pay.example.com/c/cs_1");
        assert_eq!(checkout_link(&pay, &remote), Ok(pay.clone()));
        assert_eq!(checkout_link(&pay, &local), Ok(pay.clone()));
        let sandbox = url("http://127.0.0.1:8787/_sandbox/checkout/cs_1");
        assert_eq!(checkout_link(&sandbox, &local), Ok(sandbox.clone()));
        assert_eq!(
            checkout_link(&url("http://localhost:9/x"), &url("http://[::1]:1/api/v1")),
            Ok(url("http://localhost:9/x"))
        );
        // A loopback link from a remote upstream, or plain http elsewhere, is refused.
        assert_eq!(
            checkout_link(&sandbox, &remote),
            Err(UnsafeCheckoutLink::NotHttps)
        );
        assert_eq!(
            checkout_link(&url("http://pay.example.com/c"), &local),
            Err(UnsafeCheckoutLink::NotHttps)
        );
        for bad in [
            "javascript:alert(1)",
            "data:text/html,hi",
            "ftp://pay.example.com/",
        ] {
            assert!(checkout_link(&url(bad), &local).is_err(), "{bad}");
        }
        assert_eq!(
            checkout_link(&url("https://user:pw@pay.example.com/"), &remote),
            Err(UnsafeCheckoutLink::Credentials)
        );
    }

    #[test]
    fn the_link_host_names_a_port_only_when_it_is_not_the_default() {
        assert_eq!(
            link_host(&url("https://pay.example.com/c")),
            "pay.example.com"
        );
        assert_eq!(link_host(&url("http://127.0.0.1:8787/c")), "127.0.0.1:8787");
    }
}
