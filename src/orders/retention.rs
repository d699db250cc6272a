//! What the shop keeps, and for how long (docs/operations.md has the table). Kept for good:
//! purchases that were paid, their timeline, refunds, installations, jobs and alerts. Pruned
//! once their purpose is served:
//!
//! - attempts of a finished job (`done`) of an order that ended after payment (fulfilled,
//!   refunded, failed), `STOREFRONT_JOB_HISTORY_DAYS` after the attempt; the job row stays, with
//!   its outcome and last error, and a dead job keeps its attempts for the owner;
//! - checkout holds a day after they expired (they count for nothing once expired);
//! - link tokens of an order that ended after payment, once the order has not changed for
//!   `STOREFRONT_ORDER_LINK_DAYS`: by then no link of it opens (`orders::links::expires_at`);
//! - abandoned checkouts (`domain::purchase::is_abandoned`), `STOREFRONT_ABANDONED_CHECKOUT_DAYS`
//!   after their payment page closed, with their timeline, holds, tokens and reservations.
//!
//! [`prune`] deletes a batch per short write transaction, so checkouts and payments never
//! queue behind it for long. [`run_daily`] runs it once a day for the whole shop: every replica
//! checks hourly, and the one that takes the day's lease prunes.

use std::time::Duration;

use tokio::sync::watch;

use crate::db::retention::{self, ENDED_AFTER_PAYMENT, Mark};
use crate::db::{Db, DbError, lease, now_ms};

const DAY_MS: i64 = 24 * 60 * 60 * 1000;
/// Rows looked at per transaction.
const BATCH: i64 = 500;
/// The lease whose holder prunes today.
const LEASE: &str = "retention_prune";
/// How often each replica asks whether today's prune has run.
const CHECK_EVERY: Duration = Duration::from_secs(60 * 60);
/// How long an expired checkout hold is kept (for the log of a checkout that just closed).
const HOLD_KEPT_MS: i64 = DAY_MS;

/// How long each kind of row is kept, in days.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention {
    /// Attempts of finished jobs of ended orders (`STOREFRONT_JOB_HISTORY_DAYS`).
    pub job_history_days: u32,
    /// Abandoned checkouts, after their payment page closed
    /// (`STOREFRONT_ABANDONED_CHECKOUT_DAYS`).
    pub abandoned_checkout_days: u32,
    /// Order links keep working this long after their order ended (`STOREFRONT_ORDER_LINK_DAYS`).
    pub order_link_days: u32,
}

/// What one prune deleted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Pruned {
    pub job_attempts: usize,
    pub holds: usize,
    pub link_tokens: usize,
    pub abandoned_checkouts: usize,
}

impl Pruned {
    pub fn total(&self) -> usize {
        self.job_attempts + self.holds + self.link_tokens + self.abandoned_checkouts
    }
}

fn days(n: u32) -> i64 {
    i64::from(n) * DAY_MS
}

fn full(n: usize) -> bool {
    i64::try_from(n).unwrap_or(i64::MAX) >= BATCH
}

/// Deletes, at `now_ms`, everything `policy` no longer keeps.
pub async fn prune(db: &Db, policy: Retention, now_ms: i64) -> Result<Pruned, DbError> {
    let mut pruned = Pruned::default();

    let before = now_ms - days(policy.job_history_days);
    let mut after: Option<Mark<i64>> = None;
    loop {
        let from = after.take();
        let step = db
            .run(move |conn| retention::job_attempts(conn, before, from.as_ref(), BATCH))
            .await?;
        pruned.job_attempts += step.deleted;
        match step.next {
            Some(mark) => after = Some(mark),
            None => break,
        }
    }

    let before = now_ms - HOLD_KEPT_MS;
    loop {
        let n = db
            .run(move |conn| retention::expired_holds(conn, before, BATCH))
            .await?;
        pruned.holds += n;
        if !full(n) {
            break;
        }
    }

    let before = now_ms - days(policy.order_link_days);
    for status in ENDED_AFTER_PAYMENT {
        let mut after: Option<Mark<String>> = None;
        loop {
            let from = after.take();
            let step = db
                .run(move |conn| {
                    retention::spent_link_tokens(conn, status, before, from.as_ref(), BATCH)
                })
                .await?;
            pruned.link_tokens += step.deleted;
            match step.next {
                Some(mark) => after = Some(mark),
                None => break,
            }
        }
    }

    let before = now_ms - days(policy.abandoned_checkout_days);
    loop {
        let n = db
            .run(move |conn| retention::abandoned_checkouts(conn, before, BATCH))
            .await?;
        pruned.abandoned_checkouts += n;
        if !full(n) {
            break;
        }
    }
    Ok(pruned)
}

/// Prunes once a day across all replicas until `shutdown` turns true.
pub async fn run_daily(db: Db, policy: Retention, mut shutdown: watch::Receiver<bool>) {
    loop {
        // A holder of its own per check: the lease is taken only once it has expired, a day
        // after the last prune, by whichever replica asks first.
        let holder = format!("{}:{}", std::process::id(), rand::random::<u64>());
        let now = now_ms();
        let due = db
            .run(move |conn| lease::try_acquire(conn, LEASE, &holder, now, DAY_MS))
            .await;
        match due {
            Ok(true) => match prune(&db, policy, now).await {
                Ok(p) if p.total() == 0 => {}
                Ok(p) => tracing::info!(
                    job_attempts = p.job_attempts,
                    holds = p.holds,
                    link_tokens = p.link_tokens,
                    abandoned_checkouts = p.abandoned_checkouts,
                    "rows past their retention deleted"
                ),
                Err(err) => {
                    tracing::warn!(error = %err, "could not prune rows past their retention")
                }
            },
            Ok(false) => {}
            Err(err) => tracing::warn!(error = %err, "could not check the retention prune lease"),
        }
        tokio::select! {
            _ = tokio::time::sleep(CHECK_EVERY) => {}
            _ = shutdown.changed() => return,
        }
    }
}
