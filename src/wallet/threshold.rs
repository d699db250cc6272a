//! The owner's low-balance threshold, the choice to pause new sales below it, and the shop's
//! own low-balance alert.
//!
//! The alert fires once per crossing: an open `low_balance` alert (which `raise_alert` never
//! duplicates) stands for "we are below"; it is resolved when the balance is back at or above
//! the threshold, so the next drop raises it again. Raising it queues the owners' emails in the
//! same transaction, and they are retried until sent ([`super::alert_mail`]).

use crate::db::{self, Db, DbError, alerts};
use crate::domain::{AlertKind, Cents};
use crate::orders::notify::Notifier;
use crate::wallet::alert_mail;
use crate::wallet::{Wallet, WalletError};

pub use crate::db::wallet::{
    DEFAULT_THRESHOLD_CENTS, PAUSE_BELOW_THRESHOLD_SETTING, THRESHOLD_SETTING, ThresholdPolicy,
};
/// `alerts.kind` of the shop's own low-balance alert.
pub const LOW_BALANCE_ALERT: AlertKind = AlertKind::LowBalance;
/// The highest threshold the owner may set ($1,000,000).
pub const MAX_THRESHOLD_CENTS: i64 = 100_000_000;

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
                let threshold = crate::db::settings::setting(conn, THRESHOLD_SETTING)?
                    .unwrap_or(DEFAULT_THRESHOLD_CENTS);
                if available_cents >= threshold {
                    crate::db::alerts::resolve_shop_alerts(conn, LOW_BALANCE_ALERT, now)?;
                    return Ok::<_, DbError>((false, false, threshold));
                }
                let message = format!(
                    "The wallet balance {} is below the shop's threshold of {}.",
                    Cents::new(available_cents),
                    Cents::new(threshold)
                );
                let raised = alerts::raise_alert(conn, LOW_BALANCE_ALERT, None, &message, now)?;
                if raised
                    && let Some(alert_id) =
                        crate::db::alerts::open_shop_alert(conn, LOW_BALANCE_ALERT)?
                {
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

impl Wallet<'_> {
    /// Saves the owner's threshold and pause choice with its audit entry, and applies the
    /// choice to the pause at once ([`db::wallet::apply_threshold_policy`]), in one
    /// transaction. A threshold above [`MAX_THRESHOLD_CENTS`] is refused.
    pub async fn save_threshold_policy(
        &self,
        by: crate::staff::Admin,
        client_addr: String,
        policy: ThresholdPolicy,
    ) -> Result<(), WalletError> {
        if policy.threshold_cents > MAX_THRESHOLD_CENTS {
            return Err(WalletError::ThresholdNotValid);
        }
        self.db
            .run(move |conn| {
                let now = db::now_ms();
                conn.write_tx(|conn| {
                    let before = db::wallet::threshold_policy(conn)?;
                    crate::db::settings::set_setting(
                        conn,
                        THRESHOLD_SETTING,
                        policy.threshold_cents,
                        now,
                    )?;
                    crate::db::settings::set_setting(
                        conn,
                        PAUSE_BELOW_THRESHOLD_SETTING,
                        i64::from(policy.pause_below),
                        now,
                    )?;
                    db::wallet::apply_threshold_policy(conn)?;
                    let describe = |p: ThresholdPolicy| {
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
            .await?;
        Ok(())
    }
}
