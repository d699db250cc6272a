//! How long the audit log keeps its entries: `STOREFRONT_AUDIT_RETENTION_DAYS` (30 … 3650,
//! default 400: a year and a bit, so last year's same month is still there), except the money
//! actions ([`super::action::MONEY`]), which stay at least [`MONEY_KEPT_DAYS`] whatever the
//! setting says: a refund or a price change may be asked about for a year.
//!
//! [`prune`] deletes what is older, a batch per short write transaction so checkouts and
//! payment confirmations never queue behind it for long. [`run_daily`] runs it once a day for
//! the whole shop: every replica checks hourly, and the one that takes the day's lease
//! (`leases`, held for a day and never renewed) prunes.

use crate::staff::Staff;
use std::time::Duration;

use tokio::sync::watch;

use crate::db::staff::AuditRow;
use crate::db::{Db, DbError, lease, now_ms};

use super::action;

/// Money actions are never deleted younger than this, whatever the retention.
pub const MONEY_KEPT_DAYS: u32 = 365;

const DAY_MS: i64 = 24 * 60 * 60 * 1000;
/// Entries deleted per transaction.
const BATCH: i64 = 500;
/// The lease whose holder prunes today.
const LEASE: &str = "audit_prune";
/// How often each replica asks whether today's prune has run.
const CHECK_EVERY: Duration = Duration::from_secs(60 * 60);

/// Deletes the entries older than `retention_days` at `now_ms`, keeping money actions younger
/// than [`MONEY_KEPT_DAYS`] (or the retention, if longer). Returns how many were deleted.
pub async fn prune(db: &Db, retention_days: u32, now_ms: i64) -> Result<usize, DbError> {
    let before = now_ms - i64::from(retention_days) * DAY_MS;
    let money_before = now_ms - i64::from(retention_days.max(MONEY_KEPT_DAYS)) * DAY_MS;
    let mut deleted = 0;
    loop {
        let n = db
            .run(move |conn| {
                crate::db::staff::prune_audit(conn, before, action::MONEY, money_before, BATCH)
            })
            .await?;
        deleted += n;
        if i64::try_from(n).unwrap_or(i64::MAX) < BATCH {
            return Ok(deleted);
        }
    }
}

/// Prunes once a day across all replicas until `shutdown` turns true.
pub async fn run_daily(db: Db, retention_days: u32, mut shutdown: watch::Receiver<bool>) {
    loop {
        // A holder of its own per check: the lease is taken only once it has expired, a day
        // after the last prune, by whichever replica asks first.
        let holder = format!("{}:{}", std::process::id(), rand::random::<u64>());
        let now = now_ms();
        let due = db
            .run(move |conn| lease::try_acquire(conn, LEASE, &holder, now, DAY_MS))
            .await;
        match due {
            Ok(true) => match prune(&db, retention_days, now).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(entries = n, "old audit entries deleted"),
                Err(err) => tracing::warn!(error = %err, "could not prune the audit log"),
            },
            Ok(false) => {}
            Err(err) => tracing::warn!(error = %err, "could not check the audit prune lease"),
        }
        tokio::select! {
            _ = tokio::time::sleep(CHECK_EVERY) => {}
            _ = shutdown.changed() => return,
        }
    }
}

/// An audit entry as the console shows it.
#[derive(Debug)]
pub struct Entry {
    pub id: i64,
    pub at_ms: i64,
    pub actor: String,
    /// The stored action (`wallet_topup_created`).
    pub action: String,
    /// The action in words (`Wallet top-up created`).
    pub action_label: String,
    /// What the entry is about, as the console names it (`Order SF-3FA2-9C1E`).
    pub target: String,
    /// The purchase the target is, if it is one.
    pub purchase: Option<String>,
    /// The console account the target is, if it is one.
    pub user: Option<i64>,
    pub client_addr: String,
    /// The details, with how often a refusal repeated within its entry.
    pub details: String,
}

impl From<AuditRow> for Entry {
    fn from(row: AuditRow) -> Self {
        let target = row.target.unwrap_or_default();
        let purchase = target.strip_prefix("purchase:").map(str::to_string);
        Self {
            id: row.id,
            at_ms: row.at_ms,
            actor: row.actor,
            action_label: action::label(&row.action),
            action: row.action,
            user: target.strip_prefix("user:").and_then(|id| id.parse().ok()),
            target: match &purchase {
                Some(id) => format!("Order {}", crate::domain::purchase::order_number(id)),
                None => target_in_words(&target),
            },
            purchase,
            client_addr: row.client_addr,
            details: if row.repeats > 1 {
                // Refusals of one client in one window share an entry; the actor is the first
                // address typed.
                format!(
                    "{} ({} times from this client in this window)",
                    row.details, row.repeats
                )
            } else {
                row.details
            },
        }
    }
}

/// A stored target as the console names it (`promo:WINTER` is `Promotion code WINTER`); one of
/// a kind this version does not write is shown as stored.
fn target_in_words(stored: &str) -> String {
    let Some((kind, name)) = stored.split_once(':') else {
        return match stored {
            "shop" => "The shop".to_string(),
            other => other.to_string(),
        };
    };
    let kind = match kind {
        "promo" => "Promotion code",
        "topup" => "Wallet top-up",
        "pricing" => "Pricing rule",
        "user" => "Account",
        "currency" => "Display currency",
        "region" => "Region",
        _ => return stored.to_string(),
    };
    format!("{kind} {name}")
}

/// A page of the audit log, newest first: up to `limit` entries older than the entry
/// `before_id`, and whether there are more.
pub async fn page(
    staff: &Staff,
    before_id: Option<i64>,
    limit: usize,
) -> Result<(Vec<Entry>, bool), DbError> {
    let db = staff.db();
    let asked = i64::try_from(limit).unwrap_or(i64::MAX).saturating_add(1);
    let mut rows = db
        .run(move |conn| crate::db::staff::audit_page(conn, before_id, asked))
        .await?;
    let more = rows.len() > limit;
    rows.truncate(limit);
    Ok((rows.into_iter().map(Entry::from).collect(), more))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_read_as_words() {
        assert_eq!(target_in_words("promo:WINTER"), "Promotion code WINTER");
        assert_eq!(target_in_words("topup:3"), "Wallet top-up 3");
        assert_eq!(
            target_in_words("pricing:country JP"),
            "Pricing rule country JP"
        );
        assert_eq!(target_in_words("shop"), "The shop");
        assert_eq!(
            target_in_words("support@example.com"),
            "support@example.com"
        );
        assert_eq!(target_in_words("later:thing"), "later:thing");
    }

    #[test]
    fn money_actions_are_named_once_and_include_refunds_top_ups_and_prices() {
        let mut names = action::MONEY.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), action::MONEY.len(), "no name twice");
        for money in [
            action::ORDER_REFUND,
            action::WALLET_TOPUP_CREATED,
            action::PRICING_RULE_SAVED,
            action::PROMO_CODE_CHANGED,
        ] {
            assert!(action::MONEY.contains(&money), "{money}");
        }
        for other in [action::LOGIN_THROTTLED, action::LOGIN, action::ORDER_NOTE] {
            assert!(!action::MONEY.contains(&other), "{other}");
        }
    }
}
