//! The outbox runner: durable jobs in the database, inserted in the same transaction as the
//! business change that requires them, so paid work is never lost, and run by workers so that
//! each paid purchase becomes exactly one upstream order whatever crashes, timeouts or retries
//! happen.
//!
//! The runner claims, renews, executes and records; it knows no job. What a job does lives in
//! `orders::jobs`, one file per job behind the `Job` trait; the runner looks the claimed row's
//! kind up in the registry it was built with (`Outbox::new` takes `orders::jobs::registry`)
//! and records the `Verdict` the job returns. Jobs never see the runner.
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
//! `lease_expired` and runs the job again. Every job is therefore idempotent: a retried
//! `POST /orders` reuses the stored key and body, so upstream answers with the same order.
//! A job that panics is caught like crates.io's worker does it (`catch_unwind` around the
//! attempt): the attempt is recorded as `panicked` and retried with backoff, the lease
//! renewals stop, and the worker goes on with the next job.
//!
//! A busy worker claims its next job in the transaction that records the last one, so a run of
//! due jobs costs one commit per job rather than two; a crash right after that commit leaves
//! the claimed job to its lease like any other.
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

use std::any::Any;
use std::fmt;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use rand::Rng;
use tokio::sync::{Notify, watch};
use tokio::task::JoinHandle;
use tracing::Instrument;

use crate::config::DatabaseUrl;
use crate::db::outbox::{self as jobs, AttemptRecord, Lane, LeasedJob};
use crate::db::purchases::TransitionError;
use crate::db::write_gate::Class as WriteClass;
use crate::db::{Db, DbError, alerts, now_ms, purchases};
use crate::domain::{AlertKind, PurchaseId};
use crate::orders::backlog::PlacementBacklog;
use crate::orders::installation::InstallationKey;
use crate::orders::jobs::job::{Job, JobContext, JobFuture, Verdict, duration_ms};
use crate::orders::notify::Notifier;
use crate::payments::Provider;
use crate::upstream::PartnerClient;

pub use crate::domain::job::state_label;
pub use crate::orders::jobs::job::{JobKind, OutboxConfig, OutboxError, enqueue};

/// Wakes idle workers of this process: call it after committing a transaction that enqueued.
/// Also carries the bound on paid purchases waiting for their placement
/// ([`crate::orders::backlog`]), which payment confirmations pass through.
#[derive(Debug, Clone, Default)]
pub struct OutboxWaker {
    lanes: Arc<[Notify; 3]>,
    backlog: PlacementBacklog,
}

impl OutboxWaker {
    pub fn wake(&self) {
        // One worker of each lane: the new work may be a placement or anything else.
        // `notify_one` keeps a permit when no worker is waiting, so a wake-up that arrives
        // while every worker is busy is not lost.
        for lane in self.lanes.iter() {
            lane.notify_one();
        }
    }

    fn notified(&self, lane: Lane) -> tokio::sync::futures::Notified<'_> {
        let at = match lane {
            Lane::Placement => 0,
            Lane::Other | Lane::Any => 1,
            Lane::Reminders => 2,
        };
        self.lanes[at].notified()
    }

    /// The bound confirmations wait on while this process's placements catch up.
    pub fn backlog(&self) -> &PlacementBacklog {
        &self.backlog
    }
}

/// How often late work is looked for ([`Outbox::sweep_late_work`]).
const SWEEP_EVERY: Duration = Duration::from_secs(60);

/// Late jobs ended in one transaction: a few milliseconds of the write lock.
const SWEEP_BATCH: i64 = 100;

/// The pause after a full batch of late jobs, before the next ([`Outbox::sweep_late_work`]):
/// at most about 20,000 a minute, each batch a few tens of milliseconds of the database.
const SWEEP_PAUSE: Duration = Duration::from_millis(250);

/// Workers of the reminders' lane (one: reminders are never urgent).
const REMINDER_WORKERS: usize = 1;

/// How often a failure that goes on is summed up in the log.
const FAILURE_SUMMARY_EVERY: Duration = Duration::from_secs(60);

/// The workers' failures to run a job at all (the database unreachable), logged once per
/// outage instead of once per worker and attempt: the first at ERROR, a WARN summary every
/// [`FAILURE_SUMMARY_EVERY`] while it lasts, the recovery at INFO.
#[derive(Debug, Default)]
struct WorkerFailures {
    /// Whether an outage is under way: read on every success without taking the lock.
    failing: AtomicBool,
    outage: std::sync::Mutex<Option<Outage>>,
}

#[derive(Debug)]
struct Outage {
    since: Instant,
    attempts: u64,
    summed_up: Instant,
}

impl WorkerFailures {
    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Outage>> {
        self.outage
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn failed(&self, worker: &str, error: &OutboxError) {
        let now = Instant::now();
        let mut outage = self.lock();
        match outage.as_mut() {
            None => {
                tracing::error!(
                    worker = %worker,
                    error = %error,
                    "outbox workers failed; backing off and retrying (summed up once a minute while it lasts)"
                );
                *outage = Some(Outage {
                    since: now,
                    attempts: 1,
                    summed_up: now,
                });
                self.failing.store(true, Ordering::Relaxed);
            }
            Some(outage) => {
                outage.attempts += 1;
                if now.duration_since(outage.summed_up) >= FAILURE_SUMMARY_EVERY {
                    outage.summed_up = now;
                    tracing::warn!(
                        error = %error,
                        attempts = outage.attempts,
                        for_secs = now.duration_since(outage.since).as_secs(),
                        "outbox workers still failing"
                    );
                }
            }
        }
    }

    fn succeeded(&self) {
        if !self.failing.load(Ordering::Relaxed) {
            return;
        }
        if let Some(outage) = self.lock().take() {
            tracing::info!(
                attempts = outage.attempts,
                for_secs = outage.since.elapsed().as_secs(),
                "outbox workers recovered"
            );
        }
        self.failing.store(false, Ordering::Relaxed);
    }
}

/// A placement attempt under way: dropped, its purchase's place in the backlog is free.
struct Placing<'a>(&'a PlacementBacklog, PurchaseId);

impl Drop for Placing<'_> {
    fn drop(&mut self) {
        self.0.placed(&self.1);
    }
}

/// A running job's lease renewals: dropped, they stop (the attempt ended however it ended).
struct Heartbeat(JoinHandle<()>);

impl Drop for Heartbeat {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// How much of a panic's message an attempt row keeps.
const PANIC_DETAIL_CHARS: usize = 300;

/// A job's attempt with its panics caught: `Err` carries the panic's payload. The job future
/// is dropped after a panic and never polled again.
struct CatchPanic<'a>(JobFuture<'a>);

impl Future for CatchPanic<'_> {
    type Output = Result<Result<Verdict, OutboxError>, Box<dyn Any + Send>>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let attempt = &mut self.0;
        match std::panic::catch_unwind(AssertUnwindSafe(|| attempt.as_mut().poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(verdict)) => Poll::Ready(Ok(verdict)),
            Err(payload) => Poll::Ready(Err(payload)),
        }
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

/// Whether recording a job also claims the worker's next one.
#[derive(Debug, Clone, Copy)]
enum Chain {
    /// Claim the next due job of `lane` in the recording transaction.
    Next { lane: Lane },
    /// Claim nothing (one-off runs, and a worker that is stopping).
    Stop,
}

impl Chain {
    fn unless(self, stopping: bool) -> Self {
        if stopping { Self::Stop } else { self }
    }

    fn for_worker(self, worker: &str) -> Option<(String, Lane)> {
        match self {
            Self::Next { lane } => Some((worker.to_string(), lane)),
            Self::Stop => None,
        }
    }
}

/// How recording an outcome ended.
enum Recorded {
    /// Recorded; with the worker's next job when the same transaction claimed one.
    Yes(Option<Box<LeasedJob>>),
    /// Another worker holds the job now: nothing was written.
    LeaseLost,
    /// The effects were refused by the transition table and the refusal was recorded instead.
    Refused,
}

/// The outbox and its workers. Cheap to clone.
#[derive(Clone)]
pub struct Outbox {
    /// What the jobs run with.
    pub(crate) inner: Arc<JobContext>,
    /// The jobs this runner executes, found by the kind stored on each row.
    jobs: &'static [&'static dyn Job],
    waker: OutboxWaker,
    /// Distinguishes this process's workers in lease tokens.
    replica: Arc<str>,
    /// Reads the balance after accepted orders, coalesced, off the workers' path.
    balance: crate::wallet::BalanceRefresher,
    /// The workers' failures (the database gone), logged once per outage.
    failures: Arc<WorkerFailures>,
}

impl fmt::Debug for Outbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Outbox")
            .field("replica", &self.replica)
            .field("config", &self.inner.config)
            .finish_non_exhaustive()
    }
}

impl Outbox {
    /// The outbox running every job of this version (`orders::jobs::registry`).
    pub fn new(
        db: Db,
        upstream: PartnerClient,
        payments: Arc<Provider>,
        key: InstallationKey,
        config: OutboxConfig,
    ) -> Self {
        Self::with_jobs(
            crate::orders::jobs::registry(),
            db,
            upstream,
            payments,
            key,
            config,
        )
    }

    /// The outbox running `jobs`; a stored kind none of them runs waits for a replica that
    /// knows it.
    pub(crate) fn with_jobs(
        jobs: &'static [&'static dyn Job],
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
            inner: Arc::new(JobContext {
                db,
                upstream,
                payments,
                key,
                notifier: None,
                config,
            }),
            jobs,
            waker: OutboxWaker::default(),
            replica: replica.into(),
            balance: crate::wallet::BalanceRefresher::default(),
            failures: Arc::default(),
        }
    }

    /// Sends consumer emails through `notifier`. Call before [`Outbox::spawn`].
    pub fn with_notifier(self, notifier: Notifier) -> Self {
        let mut inner = Arc::try_unwrap(self.inner).unwrap_or_else(|shared| (*shared).clone());
        inner.notifier = Some(notifier);
        Self {
            inner: Arc::new(inner),
            ..self
        }
    }

    /// [`wake_tracking`] with this process's workers woken at once.
    pub async fn wake_tracking(&self, upstream_order_id: &str) -> Result<bool, DbError> {
        wake_tracking(&self.inner.db, Some(&self.waker), upstream_order_id).await
    }

    /// Makes the jobs this process's workers still hold claimable by other replicas at once
    /// (see `db::outbox::expire_leases_of`). Call after the workers stopped or were aborted
    /// (a graceful shutdown whose jobs outlived the grace): their leases would otherwise keep
    /// the jobs waiting until they lapse. Returns how many were released.
    pub async fn release_leases(&self) -> Result<usize, DbError> {
        let replica = self.replica.to_string();
        self.inner
            .db
            .run(move |conn| conn.write_tx(|conn| jobs::expire_leases_of(conn, &replica, now_ms())))
            .await
    }

    /// This process's coalescing reader of `GET /balance` (checkouts read through it too).
    pub fn balance_reader(&self) -> &crate::wallet::BalanceRefresher {
        &self.balance
    }

    /// The handle enqueue paths of this process use to wake the workers.
    pub fn waker(&self) -> OutboxWaker {
        self.waker.clone()
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

    /// Starts `workers` workers for placements and as many for the rest of orders' work, and
    /// one for reminders ([`Lane`]). Each claims and runs
    /// due jobs one at a time, sleeps when none is due (until woken, until the next job is due,
    /// or at most `poll_interval`), and stops when `shutdown` turns true, after finishing the
    /// job in hand.
    ///
    /// The balance reads that accepted orders ask for run on a task of their own, coalesced
    /// (`wallet::BalanceRefresher`), so a placement worker goes on to the next job at once.
    pub fn spawn(&self, workers: usize, shutdown: watch::Receiver<bool>) -> Vec<JoinHandle<()>> {
        self.waker.backlog.limit_for(workers);
        let refresher = self.balance.spawn(
            self.inner.db.clone(),
            self.inner.upstream.clone(),
            shutdown.clone(),
        );
        let sweeper = tokio::spawn(
            self.with_write_class(WriteClass::Background)
                .sweep_late_work(shutdown.clone()),
        );
        // Reminders have one worker of their own, paced behind everything else at SQLite's
        // write gate: a backlog of them drains without holding up an order or a request.
        let lanes = [
            (Lane::Placement, "p", workers.max(1)),
            (Lane::Other, "o", workers.max(1)),
            (Lane::Reminders, "r", REMINDER_WORKERS),
        ];
        [refresher, sweeper]
            .into_iter()
            .chain(
                lanes
                    .into_iter()
                    .flat_map(|(lane, tag, count)| (0..count).map(move |n| (lane, tag, n)))
                    .map(|(lane, tag, n)| {
                        let outbox = match lane {
                            // A paid purchase's placement goes before web requests at SQLite's
                            // write gate, so a burst of payments does not hold up the orders
                            // already paid for.
                            Lane::Placement => self.with_write_class(WriteClass::Urgent),
                            Lane::Reminders => self.with_write_class(WriteClass::Background),
                            Lane::Other | Lane::Any => self.clone(),
                        };
                        let shutdown = shutdown.clone();
                        let name = format!("{}-{tag}{n}", self.replica);
                        tokio::spawn(async move { outbox.work(name, lane, shutdown).await })
                    }),
            )
            .collect()
    }

    /// Ends late work that no longer makes sense ([`Job::too_late_after`]) in batches, until
    /// `shutdown` turns true: at start, then every [`SWEEP_EVERY`], a batch after another
    /// ([`SWEEP_PAUSE`] apart) while batches come back full. Its writes are background writes
    /// (paced behind requests).
    async fn sweep_late_work(self, mut shutdown: watch::Receiver<bool>) {
        loop {
            let mut full = false;
            for job in self.jobs {
                let Some(after) = job.too_late_after() else {
                    continue;
                };
                let kind = job.kind();
                let after_ms = duration_ms(after);
                let dropped = self
                    .inner
                    .db
                    .run(move |conn| {
                        let now = now_ms();
                        jobs::drop_late(
                            conn,
                            kind,
                            now.saturating_sub(after_ms),
                            SWEEP_BATCH,
                            (
                                "too_late",
                                "due long ago, when it no longer made sense; ended without running",
                            ),
                            now,
                        )
                    })
                    .await;
                match dropped {
                    Ok(batch) => {
                        if batch.ended > 0 {
                            tracing::debug!(job.kind = %kind, jobs = batch.ended, "late jobs ended without running");
                        }
                        full |= i64::try_from(batch.found).unwrap_or(i64::MAX) >= SWEEP_BATCH;
                    }
                    Err(err) => tracing::warn!(error = %err, "could not end late jobs"),
                }
            }
            if *shutdown.borrow() {
                return;
            }
            // A full batch is followed by another after a pause: a backlog of a million late
            // jobs drains in about an hour without taking a core from the shop's requests.
            let pause = if full { SWEEP_PAUSE } else { SWEEP_EVERY };
            tokio::select! {
                () = tokio::time::sleep(pause) => {}
                _ = shutdown.changed() => return,
            }
        }
    }

    /// This outbox, its database handle queued in `class` at SQLite's write gate
    /// ([`crate::db::Db::with_write_class`]).
    fn with_write_class(&self, class: WriteClass) -> Self {
        let mut inner = (*self.inner).clone();
        inner.db = inner.db.with_write_class(class);
        Self {
            inner: Arc::new(inner),
            ..self.clone()
        }
    }

    async fn work(self, name: String, lane: Lane, mut shutdown: watch::Receiver<bool>) {
        tracing::debug!(worker = %name, "outbox worker started");
        // The job claimed in the transaction that recorded the last one, if any.
        let mut held: Option<LeasedJob> = None;
        loop {
            let stopping = *shutdown.borrow();
            if stopping && held.is_none() {
                break;
            }
            // A job already claimed is run even when stopping (it is the job in hand), but no
            // further one is claimed with its record.
            let next = Chain::Next { lane }.unless(stopping);
            let idle = match self.run_one_in(&name, lane, held.take(), next).await {
                Ok(Some((_, claimed))) => {
                    self.failures.succeeded();
                    held = claimed;
                    continue;
                }
                Ok(None) => {
                    self.failures.succeeded();
                    self.idle_wait().await
                }
                Err(error) => {
                    self.failures.failed(&name, &error);
                    self.inner.config.poll_interval
                }
            };
            tokio::select! {
                () = self.waker.notified(lane) => {}
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
        Ok(self
            .run_one_in(worker, Lane::Any, None, Chain::Stop)
            .await?
            .map(|(report, _)| report))
    }

    /// [`Outbox::run_one`] for the jobs of `lane` only, starting with `held` when the last
    /// record already claimed it. With [`Chain::Next`] the transaction that records this job
    /// also claims the lane's next due job, returned beside the report.
    async fn run_one_in(
        &self,
        worker: &str,
        lane: Lane,
        held: Option<LeasedJob>,
        chain: Chain,
    ) -> Result<Option<(JobReport, Option<LeasedJob>)>, OutboxError> {
        let leased = match held {
            Some(leased) => leased,
            None => {
                let lease_ms = duration_ms(self.inner.config.lease);
                let worker_name = worker.to_string();
                let claimed = self
                    .inner
                    .db
                    .run(move |conn| jobs::claim(conn, &worker_name, now_ms(), lease_ms, lane))
                    .await?;
                let Some(leased) = claimed else {
                    return Ok(None);
                };
                leased
            }
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
        // However the attempt ends (an outcome, an error, a panic) the renewals stop.
        let heartbeat = Heartbeat(self.renew_while_running(&leased));
        // However this attempt ends, the purchase gives back its place in the backlog.
        let _placing = (leased.job.kind == JobKind::PlaceOrder.as_str())
            .then(|| Placing(&self.waker.backlog, leased.job.purchase_id.clone()));
        let attempt = CatchPanic(self.execute(&leased)).instrument(span).await;
        drop(heartbeat);
        let verdict = match attempt {
            Ok(verdict) => verdict?,
            // A job that panics is a failed attempt like any other: recorded, retried with
            // backoff, and the worker lives on to run the next job.
            Err(panic) => self.panicked(&leased, panic.as_ref()),
        };
        crate::failpoints::failpoint!(crate::failpoints::AFTER_SEND_BEFORE_COMMIT);
        let (report, next) = self
            .record(leased, started_at_ms, verdict, chain.for_worker(worker))
            .await?;
        crate::failpoints::failpoint!(crate::failpoints::AFTER_RESULT_COMMIT);
        tracing::info!(
            job.id = report.job_id,
            job.kind = %report.kind,
            purchase.id = %report.purchase_id,
            outcome = %report.outcome,
            recorded = report.recorded,
            "outbox job ran"
        );
        Ok(Some((report, next)))
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

    fn execute<'a>(&'a self, leased: &'a LeasedJob) -> JobFuture<'a> {
        let job = self
            .jobs
            .iter()
            .find(|job| job.kind().as_str() == leased.job.kind);
        match job {
            Some(job) => job.run(&self.inner, leased),
            // A kind from a newer version of the shop (a rolling deploy): leave it for a
            // replica that knows it.
            None => Box::pin(std::future::ready(Ok(Verdict::retry(
                "unknown_kind",
                "this version does not know the job kind",
                now_ms().saturating_add(60_000),
            )))),
        }
    }

    /// The verdict on an attempt that panicked: retried with the backoff of failed calls
    /// until `max_attempts`, then `dead` with an alert, like any job that keeps failing. The
    /// job is idempotent, so running it again is safe whatever it did before the panic.
    fn panicked(&self, leased: &LeasedJob, payload: &(dyn Any + Send)) -> Verdict {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no message".to_string());
        let message: String = message.chars().take(PANIC_DETAIL_CHARS).collect();
        let attempts = leased.job.attempts;
        tracing::error!(
            job.id = leased.job.id,
            job.kind = %leased.job.kind,
            job.attempt = attempts,
            purchase.id = %leased.job.purchase_id,
            panic = %message,
            "outbox job panicked; recorded as a failed attempt"
        );
        let detail = format!("the job panicked: {message}");
        let ctx = &self.inner;
        let max = i32::try_from(ctx.config.max_attempts).unwrap_or(i32::MAX);
        if attempts < max {
            return Verdict::retry(
                "panicked",
                detail,
                ctx.backoff_at(&ctx.config.retry, attempts),
            );
        }
        let alert = format!(
            "{} gave up after {attempts} attempts; the last one panicked: {message}",
            leased.job.kind
        );
        let purchase_id = leased.job.purchase_id.clone();
        Verdict::dead("panicked", detail).with_effects(move |conn, now| {
            alerts::raise_alert(
                conn,
                AlertKind::NeedsAttention,
                Some(&purchase_id),
                &alert,
                now,
            )?;
            Ok(())
        })
    }

    async fn record(
        &self,
        leased: LeasedJob,
        started_at_ms: i64,
        verdict: Verdict,
        next: Option<(String, Lane)>,
    ) -> Result<(JobReport, Option<LeasedJob>), OutboxError> {
        let Verdict {
            next: outcome,
            label,
            detail,
            effects,
            refresh_wallet,
            gate_until_ms,
        } = verdict;
        let report = JobReport {
            job_id: leased.job.id,
            kind: leased.job.kind.clone(),
            purchase_id: leased.job.purchase_id.to_string(),
            outcome: label.to_string(),
            recorded: false,
        };
        let replica = self.replica.clone();
        let job_kind = leased.job.kind.clone();
        let lease_ms = duration_ms(self.inner.config.lease);
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
                    if !jobs::settle(conn, &leased, &outcome, &attempt, now)? {
                        return Ok::<_, TransitionError>(Recorded::LeaseLost);
                    }
                    if let Some(effects) = effects {
                        effects(conn, now)?;
                    }
                    let claimed = match &next {
                        Some((worker, lane)) => {
                            jobs::claim_in(conn, worker, now_ms(), lease_ms, *lane)?.map(Box::new)
                        }
                        None => None,
                    };
                    Ok(Recorded::Yes(claimed))
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
                    let purchase_id = &leased.job.purchase_id;
                    purchases::add_event(conn, purchase_id, Some(status), status, &message, now)?;
                    alerts::raise_alert(
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
        let (recorded, report, claimed) = match recorded {
            Recorded::Yes(claimed) => (true, report, claimed.map(|job| *job)),
            Recorded::LeaseLost => (false, report, None),
            Recorded::Refused => (
                true,
                JobReport {
                    outcome: "refused".to_string(),
                    ..report
                },
                None,
            ),
        };
        if recorded && refresh_wallet && !self.balance.request() {
            // No background reader (a one-off run): read now. Best effort: a failed balance
            // read only leaves the wallet row older.
            let _ = crate::wallet::refresh(&self.inner.db, &self.inner.upstream).await;
        }
        // A recorded outcome may have queued follow-up work that is due now.
        self.waker.wake();
        Ok((JobReport { recorded, ..report }, claimed))
    }

    /// Runs every job that is due now, one after another, and returns how many ran. For tests
    /// and the CLI; the workers do the same in a loop.
    pub async fn run_due_once(&self) -> Result<usize, OutboxError> {
        let name = format!("{}-once", self.replica);
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

/// The least time between two status reads of one order that webhook hints cause.
pub const HINT_SPACING: Duration = Duration::from_secs(2);

/// Brings the tracking job of `upstream_order_id` earlier: the upstream webhook is only a
/// hint that something changed, so it wakes the poller, which reads `GET /orders/{id}` for the
/// truth. A hint never delays a read (the job is due now, or [`HINT_SPACING`] after its last
/// run when that is sooner than its next regular poll; a job that never ran is due now) and hints for one order between two
/// reads are one read, so a storm of hints, genuine or forged, costs at most one status
/// read per order every [`HINT_SPACING`]. Returns whether a job was brought earlier.
pub async fn wake_tracking(
    db: &Db,
    waker: Option<&OutboxWaker>,
    upstream_order_id: &str,
) -> Result<bool, DbError> {
    let order_id = upstream_order_id.to_string();
    let woken = db
        .run(move |conn| {
            conn.write_tx(|conn| {
                jobs::wake_by_order(
                    conn,
                    &order_id,
                    JobKind::TrackOrder.as_str(),
                    now_ms(),
                    duration_ms(HINT_SPACING),
                )
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

#[cfg(test)]
mod tests;
