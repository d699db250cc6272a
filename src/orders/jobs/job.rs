//! What every job is and gets: the [`Job`] trait, the [`JobContext`] it runs with, the
//! [`Verdict`] it returns, the names of the job kinds ([`JobKind`]), how work is queued
//! ([`enqueue`]) and the helpers jobs share (backoff, the `Retry-After` verdict, alerting a
//! person). The runner (`orders::outbox`) and the jobs both depend on this file; it depends on
//! neither.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use crate::db::outbox::{self as jobs, LeasedJob, Next};
use crate::db::purchases::TransitionError;
use crate::db::{Db, DbConn, DbError, alerts, now_ms, purchases};
use crate::domain::PurchaseId;
pub use crate::domain::job::JobKind;
use crate::domain::purchase::PurchaseEvent;
use crate::domain::{AlertKind, Cents};
use crate::orders::installation::{InstallationError, InstallationKey};
use crate::orders::notify::Notifier;
use crate::payments::Provider;
use crate::upstream::{Backoff, PartnerClient, UpstreamError};

/// One kind of job. A job knows nothing of the runner: it reads what it needs through the
/// [`JobContext`], does its work with no transaction or connection held, and returns a
/// [`Verdict`] that the runner records (with the verdict's effects) only while the job's lease
/// is still held. Every job must be idempotent: a crash after its work and before the record
/// runs it again.
pub(crate) trait Job: Sync {
    /// The kind this job runs (`outbox_jobs.kind`).
    fn kind(&self) -> JobKind;

    /// One attempt at `leased`.
    fn run<'a>(&'a self, ctx: &'a JobContext, leased: &'a LeasedJob) -> JobFuture<'a>;

    /// How long after it was due this job still makes sense: a queued one due longer ago
    /// (a backlog after an outage) is ended by the runner as `too_late` without running,
    /// many in one transaction. `None`: it always runs.
    fn too_late_after(&self) -> Option<std::time::Duration> {
        None
    }
}

/// What [`Job::run`] returns.
pub(crate) type JobFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Verdict, OutboxError>> + Send + 'a>>;

/// What jobs run with. Cheap to share: the runner holds it in an `Arc`.
#[derive(Clone)]
pub(crate) struct JobContext {
    pub db: Db,
    pub upstream: PartnerClient,
    pub payments: Arc<Provider>,
    pub key: InstallationKey,
    pub config: OutboxConfig,
    /// Sends consumer emails; without one, email jobs wait (and say why).
    pub notifier: Option<Notifier>,
}

/// Queues `kind` for `purchase_id`, due at `run_at_ms`. A job of that kind already open for the
/// purchase makes this a no-op (a duplicate event queues nothing new); returns whether a job
/// was inserted. Other replicas on PostgreSQL are told when the transaction commits; call
/// `OutboxWaker::wake` (`orders::outbox`) after the commit to start this process's workers.
pub fn enqueue(
    conn: &mut DbConn,
    purchase_id: &PurchaseId,
    kind: JobKind,
    run_at_ms: i64,
    now_ms: i64,
) -> Result<bool, DbError> {
    jobs::insert_job(conn, kind.as_str(), purchase_id, run_at_ms, now_ms)
}

/// A running job's lease: renewed every third of it (under 3 s) while its worker lives, so a
/// SIGKILLed replica's jobs are claimable by the others at most 8 s after its death, leaving
/// room under the 10 s promise for a busy worker to get to them.
pub const LEASE: Duration = Duration::from_secs(8);

/// Timing and policy of the outbox. [`OutboxConfig::new`] gives production values.
#[derive(Debug, Clone)]
pub struct OutboxConfig {
    /// How long a claimed job belongs to its worker without a sign of life. The worker renews
    /// it every third of this while the job runs (however long the HTTP calls take), so this
    /// bounds how long a crashed replica's job waits before another worker takes it over
    /// ([`LEASE`]: within 10 s). A lease that lapses while its worker still runs (two renewals
    /// in a row failed: a stalled database) lets a second worker start the same job: safe (same
    /// idempotency key and body, so upstream answers with the same order; the first worker's
    /// late outcome is refused), only wasteful.
    pub lease: Duration,
    /// Longest idle sleep: the bound for noticing jobs enqueued by other replicas.
    pub poll_interval: Duration,
    /// Backoff between retries after an unknown outcome or a failed call.
    pub retry: Backoff,
    /// `POST /orders` attempts in a row with an unknown outcome before the order is looked up
    /// by its reference (never refunded automatically: the order may exist).
    pub max_unknown_attempts: u32,
    /// How often a placement whose outcome could not be reconciled (upstream's order list
    /// unreadable) is looked up again.
    pub reconcile_wait: Duration,
    /// How long placements wait after an account problem (401, 403, a suspension) before
    /// they are tried again without the owner.
    pub account_problem_wait: Duration,
    /// Attempts of `fetch_installation` and `refund` before they go `dead`.
    pub max_attempts: u32,
    /// How long a `place_order` waits after `insufficient_balance` before trying again.
    pub insufficient_balance_wait: Duration,
    /// Tracking poll schedule: seconds at first, then minutes.
    pub tracking: Backoff,
    /// Polls before tracking gives up (with the defaults, about five days).
    pub max_tracking_polls: u32,
    /// Poll interval while an order is `pending_review` or in an unfamiliar status.
    pub review_poll_interval: Duration,
    /// Margin guard after `price_changed`: consumer price − new cost must be at least this.
    pub min_margin: Cents,
    /// Refund on definitive upstream errors without waiting for the admin.
    pub auto_refund: bool,
}

impl OutboxConfig {
    pub fn new(min_margin: Cents, auto_refund: bool) -> Self {
        Self {
            lease: LEASE,
            poll_interval: Duration::from_secs(2),
            retry: Backoff {
                base: Duration::from_secs(2),
                cap: Duration::from_secs(10 * 60),
            },
            max_unknown_attempts: 25,
            reconcile_wait: Duration::from_secs(30 * 60),
            account_problem_wait: Duration::from_secs(15 * 60),
            max_attempts: 25,
            insufficient_balance_wait: Duration::from_secs(5 * 60),
            tracking: Backoff {
                base: Duration::from_secs(2),
                cap: Duration::from_secs(15 * 60),
            },
            max_tracking_polls: 500,
            review_poll_interval: Duration::from_secs(60 * 60),
            min_margin,
            auto_refund,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum OutboxError {
    #[error(transparent)]
    Db(#[from] DbError),
    #[error("installation storage failed: {0}")]
    Installation(#[from] InstallationError),
    #[error(transparent)]
    Transition(#[from] TransitionError),
}

impl From<diesel::result::Error> for OutboxError {
    fn from(e: diesel::result::Error) -> Self {
        Self::Db(DbError::Query(e))
    }
}

type Effects = Box<dyn FnOnce(&mut DbConn, i64) -> Result<(), TransitionError> + Send>;

/// A handler's verdict, recorded by the worker in one short transaction.
pub(crate) struct Verdict {
    pub next: Next,
    /// Short label for `outbox_attempts.outcome` (`accepted`, `unknown`, `rate_limited`…).
    pub label: &'static str,
    /// Safe to show an admin: never installation values, never keys of upstream.
    pub detail: String,
    /// Business changes applied in the same transaction, only if the lease is still held.
    pub effects: Option<Effects>,
    /// Read `GET /balance` into the wallet row after recording (best effort).
    pub refresh_wallet: bool,
    /// The upstream gate to persist for every replica, if a 429 closed it.
    pub gate_until_ms: Option<i64>,
}

impl Verdict {
    pub fn done(label: &'static str, detail: impl Into<String>) -> Self {
        Self {
            next: Next::Done {
                outcome: label.to_string(),
            },
            label,
            detail: detail.into(),
            effects: None,
            refresh_wallet: false,
            gate_until_ms: None,
        }
    }

    pub fn retry(label: &'static str, detail: impl Into<String>, run_at_ms: i64) -> Self {
        let detail = detail.into();
        Self {
            next: Next::Retry {
                run_at_ms,
                error: format!("{label}: {detail}"),
            },
            label,
            detail,
            effects: None,
            refresh_wallet: false,
            gate_until_ms: None,
        }
    }

    pub fn dead(label: &'static str, detail: impl Into<String>) -> Self {
        Self {
            next: Next::Dead {
                outcome: label.to_string(),
            },
            label,
            detail: detail.into(),
            effects: None,
            refresh_wallet: false,
            gate_until_ms: None,
        }
    }

    /// Business changes to apply with the outcome. A purchase change the transition table
    /// refuses rolls them back; the attempt is then recorded as `refused`, the job ends and
    /// the admin is alerted (see the runner, `orders::outbox`).
    pub fn with_effects(
        mut self,
        effects: impl FnOnce(&mut DbConn, i64) -> Result<(), TransitionError> + Send + 'static,
    ) -> Self {
        self.effects = Some(Box::new(effects));
        self
    }

    pub fn refreshing_wallet(mut self) -> Self {
        self.refresh_wallet = true;
        self
    }
}

impl JobContext {
    /// The mail transport, or the verdict of an email job in a process that has none: it
    /// waits a minute and says why (a replica with a transport may send it meanwhile).
    pub(crate) fn mailer(&self) -> Result<&Notifier, Verdict> {
        self.notifier.as_ref().ok_or_else(|| {
            Verdict::retry(
                "no_mailer",
                "this process has no mail transport configured",
                now_ms().saturating_add(60_000),
            )
        })
    }

    /// The verdict for a `RetryAfter`: nothing goes upstream, from any replica, before the
    /// gate opens; the job itself runs again exactly then.
    pub(crate) fn rate_limited(&self, error: &UpstreamError, wait: Duration) -> Verdict {
        let now = now_ms();
        let from_error = now.saturating_add(duration_ms(wait));
        let from_client = self
            .upstream
            .gate_opens_at()
            .map(crate::db::ms_of)
            .unwrap_or(0);
        let until = from_error.max(from_client);
        let mut verdict = Verdict::retry("rate_limited", error.to_string(), until);
        verdict.gate_until_ms = Some(until);
        verdict
    }

    /// `now` + the backoff before retry number `attempt` (1 = the first attempt just failed).
    pub(crate) fn backoff_at(&self, backoff: &Backoff, attempt: i32) -> i64 {
        let n = u32::try_from(attempt.saturating_sub(1)).unwrap_or(0);
        let delay = backoff.delay(n, &mut rand::rng());
        now_ms().saturating_add(duration_ms(delay))
    }

    pub(crate) async fn purchase(
        &self,
        id: &PurchaseId,
    ) -> Result<Option<purchases::Purchase>, OutboxError> {
        let id = id.clone();
        Ok(self.db.run(move |conn| purchases::find(conn, &id)).await?)
    }
}

/// A person must look: the purchase moves to `needs_attention` through the transition table
/// ([`PurchaseEvent::NeedsInvestigation`]) and an alert is raised, in the caller's transaction.
pub(crate) fn needs_attention(
    conn: &mut DbConn,
    purchase_id: &PurchaseId,
    alert_kind: AlertKind,
    message: &str,
    now: i64,
) -> Result<(), TransitionError> {
    attention(
        conn,
        purchase_id,
        &PurchaseEvent::NeedsInvestigation,
        alert_kind,
        message,
        now,
    )
}

/// Moves the purchase by `event` and raises an alert, in the caller's transaction.
pub(crate) fn attention(
    conn: &mut DbConn,
    purchase_id: &PurchaseId,
    event: &PurchaseEvent,
    alert_kind: AlertKind,
    message: &str,
    now: i64,
) -> Result<(), TransitionError> {
    purchases::apply(conn, purchase_id, event, message, now)?;
    alerts::raise_alert(conn, alert_kind, Some(purchase_id), message, now)?;
    Ok(())
}

pub(crate) fn duration_ms(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod label_tests {
    use super::*;

    #[test]
    fn every_kind_and_state_has_words_for_the_owner() {
        for kind in JobKind::ALL {
            assert_eq!(JobKind::label_of(kind.as_str()), kind.label());
            assert!(!kind.label().contains('_'), "{kind}");
        }
        for state in ["queued", "running", "done", "dead"] {
            assert_ne!(crate::domain::job::state_label(state), "Unknown state");
        }
    }
}
