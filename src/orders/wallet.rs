//! Keeping the shared wallet row fresh from `GET /balance`, and the shop's own low-balance
//! alert.
//!
//! The alert fires once per crossing: an open `low_balance` alert (which `raise_alert` never
//! duplicates) stands for "we are below"; it is resolved when the balance is back at or above
//! the threshold, so the next drop raises it again. Raising it queues the owners' emails in the
//! same transaction, and they are retried until sent ([`super::alert_mail`]).

use crate::db::{self, Db, DbError, admin, fulfilment};
use crate::domain::Cents;
use crate::orders::alert_mail;
use crate::orders::notify::Notifier;
use crate::upstream::PartnerClient;

/// `shop_settings` name of the low-balance threshold, in cents.
pub const THRESHOLD_SETTING: &str = "low_balance_threshold_cents";
/// Until the owner sets one.
pub const DEFAULT_THRESHOLD_CENTS: i64 = 10_000;
/// `alerts.kind` of the shop's own low-balance alert.
pub const LOW_BALANCE_ALERT: &str = "low_balance";

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
