//! Keeping the shared wallet row fresh from `GET /balance`, the shop's own low-balance alert,
//! the owner's choice to pause sales below it, and following a top-up to its credit.
//!
//! The alert fires once per crossing: an open `low_balance` alert (which `raise_alert` never
//! duplicates) stands for "we are below"; it is resolved when the balance is back at or above
//! the threshold, so the next drop raises it again. Raising it queues the owners' emails in the
//! same transaction, and they are retried until sent ([`super::alert_mail`]).
//!
//! Sales pause for a reason stored in the wallet row ([`db::wallet::PauseReason`]) and resume
//! only when a balance read shows enough credit ([`db::wallet::paused_after_read`]); the shop's
//! plan pages read the pause through [`SalesState`], a short-lived copy of the row.
//!
//! A top-up is paid on upstream's hosted page, reached by a link the console shows once the
//! top-up is recorded ([`checkout_link`] decides which links it shows). Its credit is
//! recognised by a balance transaction whose reference is the checkout session
//! ([`confirm_topups`]).

use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::db::{self, Db, DbError, admin, fulfilment};
use crate::domain::{AlertKind, Cents};
use crate::orders::alert_mail;
use crate::orders::notify::Notifier;
use crate::upstream::{BalanceTransaction, PartnerClient};

pub use crate::db::wallet::{
    DEFAULT_THRESHOLD_CENTS, PAUSE_BELOW_THRESHOLD_SETTING, PauseReason, THRESHOLD_SETTING,
};
/// `alerts.kind` of the shop's own low-balance alert.
pub const LOW_BALANCE_ALERT: AlertKind = AlertKind::LowBalance;

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

/// Raises the low-balance alert (queueing the owners' emails) when `available_cents` is below
/// the threshold and no such alert is open; resolves it when the balance is back up. Then sends
/// the alert emails that are due, new or retried. Returns whether the balance is below.
pub async fn check_low_balance(
    db: &Db,
    notifier: Option<&Notifier>,
    available_cents: i64,
) -> Result<bool, DbError> {
    let (below, raised, threshold) = db
        .run(move |conn| {
            let now = db::now_ms();
            conn.write_tx(|conn| {
                let threshold =
                    admin::setting(conn, THRESHOLD_SETTING)?.unwrap_or(DEFAULT_THRESHOLD_CENTS);
                if available_cents >= threshold {
                    admin::resolve_shop_alerts(conn, LOW_BALANCE_ALERT, now)?;
                    return Ok::<_, DbError>((false, false, threshold));
                }
                let message = format!(
                    "The wallet balance {} is below the shop's threshold of {}.",
                    Cents::new(available_cents),
                    Cents::new(threshold)
                );
                let raised = fulfilment::raise_alert(conn, LOW_BALANCE_ALERT, None, &message, now)?;
                if raised && let Some(alert_id) = admin::open_shop_alert(conn, LOW_BALANCE_ALERT)? {
                    alert_mail::queue_for_owners(conn, alert_id, now)?;
                }
                Ok((true, raised, threshold))
            })
        })
        .await?;
    if raised {
        tracing::warn!(
            wallet.available_cents = available_cents,
            wallet.threshold_cents = threshold,
            "wallet balance fell below the low-balance threshold"
        );
    }
    // The crossing is recorded whatever happens to the mail: a failure here is retried later.
    if let Err(err) = alert_mail::deliver_due(db, notifier).await {
        tracing::warn!(error = %err, "could not deliver the alert emails");
    }
    Ok(below)
}

/// `audit_log.action` of a change to the threshold settings.
pub const THRESHOLD_SET_ACTION: &str = "wallet_threshold_set";

/// Saves the owner's threshold and pause choice with its audit entry, and applies the choice
/// to the pause at once ([`db::wallet::apply_threshold_policy`]), in one transaction.
pub async fn save_threshold_policy(
    db: &Db,
    by: crate::accounts::Admin,
    client_addr: String,
    policy: db::wallet::ThresholdPolicy,
) -> Result<(), DbError> {
    db.run(move |conn| {
        let now = db::now_ms();
        conn.write_tx(|conn| {
            let before = db::wallet::threshold_policy(conn)?;
            admin::set_setting(conn, THRESHOLD_SETTING, policy.threshold_cents, now)?;
            admin::set_setting(
                conn,
                PAUSE_BELOW_THRESHOLD_SETTING,
                i64::from(policy.pause_below),
                now,
            )?;
            db::wallet::apply_threshold_policy(conn)?;
            let describe = |p: db::wallet::ThresholdPolicy| {
                format!(
                    "{}{}",
                    Cents::new(p.threshold_cents),
                    if p.pause_below {
                        ", sales pause below it"
                    } else {
                        ", alert only"
                    }
                )
            };
            by.audit(
                conn,
                THRESHOLD_SET_ACTION,
                Some("setting:low_balance_threshold"),
                &client_addr,
                &format!("before: {}; after: {}", describe(before), describe(policy)),
                now,
            )
        })
    })
    .await
}

/// How long a plan page trusts the last read of the pause. Checkout itself reads the row in
/// its own transaction, so a page a moment late can only show a form that is then refused.
const SALES_STATE_MAX_AGE: Duration = Duration::from_secs(2);

/// This process's copy of "are new sales paused?", re-read from the shared wallet row when
/// older than a couple of seconds, so plan pages show the pause on every replica without a
/// database read per view.
#[derive(Debug, Default)]
pub struct SalesState {
    last: Mutex<Option<(Instant, bool)>>,
}

impl SalesState {
    /// The pause as last read (`false` before the first read).
    pub fn paused(&self) -> bool {
        self.last
            .lock()
            .map(|last| last.is_some_and(|(_, paused)| paused))
            .unwrap_or(false)
    }

    /// Re-reads the wallet row when the copy is stale. A failed read keeps the last value: the
    /// checkout's own check still refuses a sale the wallet cannot take.
    pub async fn refresh_if_stale(&self, db: &Db) {
        let fresh = self
            .last
            .lock()
            .map(|last| last.is_some_and(|(at, _)| at.elapsed() < SALES_STATE_MAX_AGE))
            .unwrap_or(false);
        if fresh {
            return;
        }
        match db.run(db::wallet::get).await {
            Ok(row) => {
                let paused = row.is_some_and(|w| w.sales_paused);
                if let Ok(mut last) = self.last.lock() {
                    *last = Some((Instant::now(), paused));
                }
            }
            Err(err) => tracing::warn!(error = %err, "could not read whether sales are paused"),
        }
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
        for topup in db::wallet::unconfirmed_topups(conn)? {
            if topup
                .session_id
                .as_ref()
                .is_some_and(|s| credited.contains(s))
                && db::wallet::confirm_topup(conn, topup.id, now)?
            {
                tracing::info!(topup.id = topup.id, "top-up credit seen upstream");
                confirmed += 1;
            }
        }
        Ok(confirmed)
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

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
