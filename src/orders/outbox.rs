//! The outbox: durable jobs in the database, inserted in the same transaction as the business
//! change that requires them, so paid work is never lost, and run by workers so that each
//! paid purchase becomes exactly one upstream order whatever crashes, timeouts or retries
//! happen.
//!
//! A job's life (`outbox_jobs.state`):
//!
//! ```text
//! queued ──claim (lease)──▶ running ──settle──▶ done   (an outcome, never runs again)
//!   ▲                          │   │
//!   └──── retry at run_at ─────┘   └──────────▶ dead   (retries exhausted; kept for the admin)
//!   running with an expired lease (crashed worker) is claimable again
//! ```
//!
//! One attempt = claim in a short transaction, execute with NO transaction or connection held
//! (HTTP calls take seconds), record the outcome and an `outbox_attempts` row in a second short
//! transaction that first re-checks the lease. A crash anywhere in between leaves the job
//! `running` until its lease expires; the next claim records the lost attempt as
//! `lease_expired` and runs the job again. Every handler is therefore idempotent: a retried
//! `POST /orders` reuses the stored key and body, so upstream answers with the same order.
//!
//! Workers wake at once on [`OutboxWaker::wake`] (called by enqueue paths of this process after
//! they commit) and otherwise sleep until the next job is due, at most `poll_interval`. On
//! PostgreSQL other replicas' work wakes them too: every write that makes a job due also
//! sends `NOTIFY` on `db::outbox::WAKE_CHANNEL`, which PostgreSQL delivers at commit, and each
//! `serve` process keeps one connection of its own that `LISTEN`s there
//! ([`Outbox::listen_for_other_replicas`], `db::listen`) and wakes a worker per notification.
//! The enqueuing process hears its own notifications too (an extra claim query, harmless).
//! The listener is only an accelerator: while its connection is down, and on SQLite (one
//! host, nothing to listen to), other processes' jobs are found by the poll within
//! `poll_interval`.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rand::Rng;
use tokio::sync::{Notify, watch};
use tokio::task::JoinHandle;
use tracing::Instrument;

use crate::config::DatabaseUrl;
use crate::db::outbox::{self as jobs, AttemptRecord, LeasedJob, Next};
use crate::db::purchases::TransitionError;
use crate::db::{Db, DbConn, DbError, fulfilment, now_ms, purchases};
use crate::domain::purchase::PurchaseEvent;
use crate::domain::{AlertKind, Cents};
use crate::orders::installation::{self, InstallationKey};
use crate::orders::{notify, placement, refund, tracking};
use crate::payments::Provider;
use crate::upstream::{Backoff, PartnerClient, UpstreamError};

/// What a job does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JobKind {
    /// Send `POST /orders` for a paid purchase (same key and body on every retry).
    PlaceOrder,
    /// Poll `GET /orders/{id}` until the order reaches a terminal status.
    TrackOrder,
    /// `GET /esims/{id}/installation` once, store it encrypted, purchase → `fulfilled`.
    FetchInstallation,
    /// Refund the consumer through the payment provider (stored idempotency key).
    Refund,
    /// Tell the consumer the payment arrived (with the private link).
    EmailPaymentReceived,
    /// Tell the consumer the eSIM is ready (the private link only, never the eSIM itself).
    EmailEsimReady,
    /// Tell the consumer the order could not be completed and was refunded.
    EmailRefunded,
}

impl JobKind {
    pub const ALL: [Self; 7] = [
        Self::PlaceOrder,
        Self::TrackOrder,
        Self::FetchInstallation,
        Self::Refund,
        Self::EmailPaymentReceived,
        Self::EmailEsimReady,
        Self::EmailRefunded,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::PlaceOrder => "place_order",
            Self::TrackOrder => "track_order",
            Self::FetchInstallation => "fetch_installation",
            Self::Refund => "refund",
            Self::EmailPaymentReceived => "email_payment_received",
            Self::EmailEsimReady => "email_esim_ready",
            Self::EmailRefunded => "email_refunded",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == raw)
    }
}

impl fmt::Display for JobKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Queues `kind` for `purchase_id`, due at `run_at_ms`. A job of that kind already open for the
/// purchase makes this a no-op (a duplicate event queues nothing new); returns whether a job
/// was inserted. Other replicas on PostgreSQL are told when the transaction commits; call
/// [`OutboxWaker::wake`] after the commit to start this process's workers.
pub fn enqueue(
    conn: &mut DbConn,
    purchase_id: &str,
    kind: JobKind,
    run_at_ms: i64,
    now_ms: i64,
) -> Result<bool, DbError> {
    jobs::insert_job(conn, kind.as_str(), purchase_id, run_at_ms, now_ms)
}

/// Timing and policy of the outbox. [`OutboxConfig::new`] gives production values.
#[derive(Debug, Clone)]
pub struct OutboxConfig {
    /// How long a claimed job belongs to its worker without a sign of life. The worker renews
    /// it every third of this while the job runs (however long the HTTP calls take), so this
    /// bounds how long a crashed worker's job waits before another worker takes it over. A
    /// lease that lapses while its worker still runs (a stalled database) lets a second worker
    /// start the same job: safe (same key and body; the first worker's late outcome is
    /// refused), only wasteful.
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
            lease: Duration::from_secs(30),
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
    Installation(#[from] installation::InstallationError),
    #[error(transparent)]
    Transition(#[from] TransitionError),
}

impl From<diesel::result::Error> for OutboxError {
    fn from(e: diesel::result::Error) -> Self {
        Self::Db(DbError::Query(e))
    }
}

/// Wakes idle workers of this process: call it after committing a transaction that enqueued.
#[derive(Debug, Clone, Default)]
pub struct OutboxWaker(Arc<Notify>);

impl OutboxWaker {
    pub fn wake(&self) {
        // `notify_one` keeps a permit when no worker is waiting, so a wake-up that arrives
        // while every worker is busy is not lost.
        self.0.notify_one();
    }
}

/// What one executed job ended as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobReport {
    pub job_id: i64,
    pub kind: String,
    pub purchase_id: String,
    pub outcome: String,
    /// False when the lease was lost before recording (another worker owns the job now).
    pub recorded: bool,
}

/// How recording an outcome ended.
enum Recorded {
    Yes,
    /// Another worker holds the job now: nothing was written.
    LeaseLost,
    /// The effects were refused by the transition table and the refusal was recorded instead.
    Refused,
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
    /// the admin is alerted (see [`Outbox::record`]).
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

/// The outbox and its workers. Cheap to clone.
#[derive(Clone)]
pub struct Outbox {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub db: Db,
    pub upstream: PartnerClient,
    pub payments: Arc<Provider>,
    pub key: InstallationKey,
    pub config: OutboxConfig,
    /// Sends consumer emails; without one, email jobs wait (and say why).
    pub notifier: Option<notify::Notifier>,
    waker: OutboxWaker,
    /// Distinguishes this process's workers in lease tokens.
    replica: String,
}

impl fmt::Debug for Outbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Outbox")
            .field("replica", &self.inner.replica)
            .field("config", &self.inner.config)
            .finish_non_exhaustive()
    }
}

impl Outbox {
    pub fn new(
        db: Db,
        upstream: PartnerClient,
        payments: Arc<Provider>,
        key: InstallationKey,
        config: OutboxConfig,
    ) -> Self {
        let replica: String = {
            let mut rng = rand::rng();
            (0..8)
                .map(|_| char::from(rng.sample(rand::distr::Alphanumeric)))
                .collect()
        };
        Self {
            inner: Arc::new(Inner {
                db,
                upstream,
                payments,
                key,
                notifier: None,
                config,
                waker: OutboxWaker::default(),
                replica,
            }),
        }
    }

    /// Sends consumer emails through `notifier`. Call before [`Outbox::spawn`].
    pub fn with_notifier(self, notifier: notify::Notifier) -> Self {
        let mut inner = Arc::try_unwrap(self.inner).unwrap_or_else(|shared| Inner {
            db: shared.db.clone(),
            upstream: shared.upstream.clone(),
            payments: Arc::clone(&shared.payments),
            key: shared.key.clone(),
            config: shared.config.clone(),
            notifier: shared.notifier.clone(),
            waker: shared.waker.clone(),
            replica: shared.replica.clone(),
        });
        inner.notifier = Some(notifier);
        Self {
            inner: Arc::new(inner),
        }
    }

    /// [`wake_tracking`] with this process's workers woken at once.
    pub async fn wake_tracking(&self, upstream_order_id: &str) -> Result<bool, DbError> {
        wake_tracking(&self.inner.db, Some(&self.inner.waker), upstream_order_id).await
    }

    /// The handle enqueue paths of this process use to wake the workers.
    pub fn waker(&self) -> OutboxWaker {
        self.inner.waker.clone()
    }

    /// On PostgreSQL, starts the listener that wakes this process's workers when any replica
    /// commits due work (see the module notes); it stops when `shutdown` turns true. `None` on
    /// SQLite, where there is nothing to listen to.
    pub fn listen_for_other_replicas(
        &self,
        url: &DatabaseUrl,
        shutdown: watch::Receiver<bool>,
    ) -> Option<JoinHandle<()>> {
        let DatabaseUrl::Postgres(url) = url else {
            return None;
        };
        let waker = self.waker();
        Some(crate::db::listen::spawn(
            url.clone(),
            &[jobs::WAKE_CHANNEL],
            move |_| waker.wake(),
            shutdown,
        ))
    }

    /// Starts `workers` workers. Each claims and runs due jobs one at a time, sleeps when none
    /// is due (until woken, until the next job is due, or at most `poll_interval`), and stops
    /// when `shutdown` turns true, after finishing the job in hand.
    pub fn spawn(&self, workers: usize, shutdown: watch::Receiver<bool>) -> Vec<JoinHandle<()>> {
        (0..workers.max(1))
            .map(|n| {
                let outbox = self.clone();
                let shutdown = shutdown.clone();
                let name = format!("{}-w{n}", self.inner.replica);
                tokio::spawn(async move { outbox.work(name, shutdown).await })
            })
            .collect()
    }

    async fn work(self, name: String, mut shutdown: watch::Receiver<bool>) {
        tracing::debug!(worker = %name, "outbox worker started");
        loop {
            if *shutdown.borrow() {
                break;
            }
            let idle = match self.run_one(&name).await {
                Ok(Some(_)) => continue,
                Ok(None) => self.idle_wait().await,
                Err(error) => {
                    tracing::error!(worker = %name, error = %error, "outbox worker failed; backing off");
                    self.inner.config.poll_interval
                }
            };
            tokio::select! {
                () = self.inner.waker.0.notified() => {}
                () = tokio::time::sleep(idle) => {}
                changed = shutdown.changed() => {
                    if changed.is_err() {
                        break;
                    }
                }
            }
        }
        tracing::debug!(worker = %name, "outbox worker stopped");
    }

    /// How long to sleep with nothing due: until the next job is due, at most `poll_interval`.
    async fn idle_wait(&self) -> Duration {
        let poll = self.inner.config.poll_interval;
        match self.inner.db.run(jobs::next_due_at).await {
            Ok(Some(at)) => {
                let wait = at.saturating_sub(now_ms()).max(1);
                Duration::from_millis(u64::try_from(wait).unwrap_or(0)).min(poll)
            }
            Ok(None) | Err(_) => poll,
        }
    }

    /// Claims one due job for `worker`, runs it and records the outcome. `None` when no job
    /// is due.
    pub async fn run_one(&self, worker: &str) -> Result<Option<JobReport>, OutboxError> {
        let lease_ms = duration_ms(self.inner.config.lease);
        let worker_name = worker.to_string();
        let claimed = self
            .inner
            .db
            .run(move |conn| jobs::claim(conn, &worker_name, now_ms(), lease_ms))
            .await?;
        let Some(leased) = claimed else {
            return Ok(None);
        };
        crate::failpoints::failpoint!(crate::failpoints::AFTER_CLAIM);
        let started_at_ms = now_ms();
        let span = tracing::info_span!(
            "outbox_job",
            job.id = leased.job.id,
            job.kind = %leased.job.kind,
            job.attempt = leased.job.attempts,
            purchase.id = %leased.job.purchase_id,
        );
        // An error here (the database went away mid-job) leaves the job `running`: its lease
        // expires and the next claim records the attempt as `lease_expired` and retries it.
        let heartbeat = self.renew_while_running(&leased);
        let verdict = self.execute(&leased).instrument(span).await;
        heartbeat.abort();
        let verdict = verdict?;
        crate::failpoints::failpoint!(crate::failpoints::AFTER_SEND_BEFORE_COMMIT);
        let report = self.record(leased, started_at_ms, verdict).await?;
        crate::failpoints::failpoint!(crate::failpoints::AFTER_RESULT_COMMIT);
        tracing::info!(
            job.id = report.job_id,
            job.kind = %report.kind,
            purchase.id = %report.purchase_id,
            outcome = %report.outcome,
            recorded = report.recorded,
            "outbox job ran"
        );
        Ok(Some(report))
    }

    /// Keeps `leased` alive while it runs: renews the lease every third of its length.
    fn renew_while_running(&self, leased: &LeasedJob) -> JoinHandle<()> {
        let db = self.inner.db.clone();
        let (id, lease) = (leased.job.id, leased.lease.clone());
        let lease_ms = duration_ms(self.inner.config.lease);
        let every = self.inner.config.lease / 3;
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(every).await;
                let lease = lease.clone();
                let renewed = db
                    .run(move |conn| {
                        conn.write_tx(|conn| {
                            jobs::renew(conn, id, &lease, now_ms().saturating_add(lease_ms))
                        })
                    })
                    .await;
                match renewed {
                    Ok(true) => {}
                    Ok(false) => return,
                    Err(err) => {
                        tracing::warn!(job.id = id, error = %err, "could not renew a job lease")
                    }
                }
            }
        })
    }

    async fn execute(&self, leased: &LeasedJob) -> Result<Verdict, OutboxError> {
        Ok(match JobKind::parse(&leased.job.kind) {
            Some(JobKind::PlaceOrder) => placement::place_order(&self.inner, leased).await?,
            Some(JobKind::TrackOrder) => tracking::track_order(&self.inner, leased).await?,
            Some(JobKind::FetchInstallation) => {
                installation::fetch_installation(&self.inner, leased).await?
            }
            Some(JobKind::Refund) => refund::refund(&self.inner, leased).await?,
            Some(
                kind @ (JobKind::EmailPaymentReceived
                | JobKind::EmailEsimReady
                | JobKind::EmailRefunded),
            ) => notify::send(&self.inner, leased, kind).await?,
            // A kind from a newer version of the shop (a rolling deploy): leave it for a
            // replica that knows it.
            None => Verdict::retry(
                "unknown_kind",
                "this version does not know the job kind",
                now_ms().saturating_add(60_000),
            ),
        })
    }

    async fn record(
        &self,
        leased: LeasedJob,
        started_at_ms: i64,
        verdict: Verdict,
    ) -> Result<JobReport, OutboxError> {
        let Verdict {
            next,
            label,
            detail,
            effects,
            refresh_wallet,
            gate_until_ms,
        } = verdict;
        let report = JobReport {
            job_id: leased.job.id,
            kind: leased.job.kind.clone(),
            purchase_id: leased.job.purchase_id.clone(),
            outcome: label.to_string(),
            recorded: false,
        };
        let replica = self.inner.replica.clone();
        let job_kind = leased.job.kind.clone();
        let recorded = self
            .inner
            .db
            .run(move |conn| {
                let first = conn.write_tx(|conn| {
                    let now = now_ms();
                    if let Some(until) = gate_until_ms {
                        // The gate is a fact about upstream, true whoever holds the lease.
                        jobs::close_upstream_gate(conn, until, &replica)?;
                    }
                    let attempt = AttemptRecord {
                        started_at_ms,
                        outcome: label.to_string(),
                        detail: detail.clone(),
                    };
                    if !jobs::settle(conn, &leased, &next, &attempt, now)? {
                        return Ok::<_, TransitionError>(Recorded::LeaseLost);
                    }
                    if let Some(effects) = effects {
                        effects(conn, now)?;
                    }
                    Ok(Recorded::Yes)
                });
                let refusal = match first {
                    Err(TransitionError::Refused(refusal)) => refusal,
                    other => return other,
                };
                // The purchase is not where this outcome expected it (an admin acted, or
                // another event got there first). Nothing of the outcome is applied; the job
                // ends and a person is told, so the refusal is never silent and never loops.
                conn.write_tx(|conn| {
                    let now = now_ms();
                    if let Some(until) = gate_until_ms {
                        jobs::close_upstream_gate(conn, until, &replica)?;
                    }
                    let message = format!("{job_kind} ({label}) not applied: {refusal}");
                    let attempt = AttemptRecord {
                        started_at_ms,
                        outcome: "refused".to_string(),
                        detail: format!("{message}. {detail}"),
                    };
                    let end = jobs::Next::Done {
                        outcome: "refused".to_string(),
                    };
                    if !jobs::settle(conn, &leased, &end, &attempt, now)? {
                        return Ok(Recorded::LeaseLost);
                    }
                    let status = refusal.status.as_str();
                    let purchase_id = leased.job.purchase_id.as_str();
                    purchases::add_event(conn, purchase_id, Some(status), status, &message, now)?;
                    fulfilment::raise_alert(
                        conn,
                        AlertKind::NeedsAttention,
                        Some(purchase_id),
                        &message,
                        now,
                    )?;
                    Ok(Recorded::Refused)
                })
            })
            .await?;
        let (recorded, report) = match recorded {
            Recorded::Yes => (true, report),
            Recorded::LeaseLost => (false, report),
            Recorded::Refused => (
                true,
                JobReport {
                    outcome: "refused".to_string(),
                    ..report
                },
            ),
        };
        if recorded && refresh_wallet {
            self.inner.refresh_wallet().await;
        }
        // A recorded outcome may have queued follow-up work that is due now.
        self.inner.waker.wake();
        Ok(JobReport { recorded, ..report })
    }

    /// Runs every job that is due now, one after another, and returns how many ran. For tests
    /// and the CLI; the workers do the same in a loop.
    pub async fn run_due_once(&self) -> Result<usize, OutboxError> {
        let name = format!("{}-once", self.inner.replica);
        let mut ran = 0;
        while self.run_one(&name).await?.is_some() {
            ran += 1;
        }
        Ok(ran)
    }

    /// Runs jobs as they become due until none is open (queued or running) or `max` has
    /// passed; returns how many ran. Jobs that wait long (a slow tracking poll) keep it going
    /// until `max`.
    pub async fn drain(&self, max: Duration) -> Result<usize, OutboxError> {
        let deadline = tokio::time::Instant::now() + max;
        let mut ran = 0;
        loop {
            ran += self.run_due_once().await?;
            let next = self.inner.db.run(jobs::next_due_at).await?;
            let Some(next) = next else {
                return Ok(ran);
            };
            let wait = Duration::from_millis(
                u64::try_from(next.saturating_sub(now_ms()).max(1)).unwrap_or(1),
            )
            .min(Duration::from_millis(50));
            if tokio::time::Instant::now() + wait > deadline {
                return Ok(ran);
            }
            tokio::time::sleep(wait).await;
        }
    }
}

impl Inner {
    /// The verdict for a `RetryAfter`: nothing goes upstream, from any replica, before the
    /// gate opens; the job itself runs again exactly then.
    pub(crate) fn rate_limited(&self, error: &UpstreamError, wait: Duration) -> Verdict {
        let now = now_ms();
        let from_error = now.saturating_add(duration_ms(wait));
        let from_client = self.upstream.gate_opens_at().map(system_ms).unwrap_or(0);
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

    /// Best effort: a failed balance read only leaves the wallet row older.
    pub(crate) async fn refresh_wallet(&self) {
        crate::orders::wallet::refresh(&self.db, &self.upstream).await;
    }

    pub(crate) async fn purchase(
        &self,
        id: &str,
    ) -> Result<Option<purchases::Purchase>, OutboxError> {
        let id = id.to_string();
        Ok(self.db.run(move |conn| purchases::find(conn, &id)).await?)
    }
}

/// A person must look: the purchase moves to `needs_attention` through the transition table
/// ([`PurchaseEvent::NeedsInvestigation`]) and an alert is raised, in the caller's transaction.
pub(crate) fn needs_attention(
    conn: &mut DbConn,
    purchase_id: &str,
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
    purchase_id: &str,
    event: &PurchaseEvent,
    alert_kind: AlertKind,
    message: &str,
    now: i64,
) -> Result<(), TransitionError> {
    purchases::apply(conn, purchase_id, event, message, now)?;
    fulfilment::raise_alert(conn, alert_kind, Some(purchase_id), message, now)?;
    Ok(())
}

pub(crate) fn duration_ms(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

fn system_ms(t: SystemTime) -> i64 {
    t.duration_since(UNIX_EPOCH)
        .map(duration_ms)
        .unwrap_or_default()
}

/// Makes the tracking job of `upstream_order_id` due now: the upstream webhook is only a
/// hint that something changed, so it wakes the poller, which reads `GET /orders/{id}` for the
/// truth. Returns whether a job was woken.
pub async fn wake_tracking(
    db: &Db,
    waker: Option<&OutboxWaker>,
    upstream_order_id: &str,
) -> Result<bool, DbError> {
    let order_id = upstream_order_id.to_string();
    let woken = db
        .run(move |conn| {
            conn.write_tx(|conn| {
                jobs::wake_by_order(conn, &order_id, JobKind::TrackOrder.as_str(), now_ms())
            })
        })
        .await?;
    if woken > 0
        && let Some(waker) = waker
    {
        waker.wake();
    }
    Ok(woken > 0)
}
