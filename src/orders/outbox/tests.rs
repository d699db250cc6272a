//! The runner on its own, with toy jobs (it knows no real job), on a fresh SQLite database
//! each: two runners never run one job, a long job keeps its lease, a stopping runner hands
//! its job to another, a panic costs one failed attempt and not a worker, a job that keeps
//! failing ends `dead` with an alert, and a kind the runner does not know waits.
//!
//! The toy jobs borrow real kinds (the kind column is a `JobKind`); each test registers only
//! its own toys, so a kind means that test's toy. The same mechanics with the real jobs, on
//! both backends, are in `tests/integration/outbox.rs`.

use std::sync::Mutex;

use super::*;
use crate::config::{Secret, SecretKey};
use crate::db::outbox::{DEAD, DONE, QUEUED, RUNNING};
use crate::domain::Cents;
use crate::domain::PurchaseId;
use crate::orders::jobs::job::JobKind;
use crate::payments::demo::DemoProvider;
use crate::upstream::{Backoff, UpstreamClientConfig};

/// How long a test waits for the runner before it fails.
const WAIT: Duration = Duration::from_secs(20);

/// A fresh migrated SQLite database, gone with the value.
struct Rig {
    db: Db,
    _dir: tempfile::TempDir,
}

impl Rig {
    async fn new() -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let url =
            DatabaseUrl::parse(&format!("sqlite://{}/shop.db", dir.path().display())).expect("url");
        let db = Db::open(&url, 8).expect("open");
        db.migrate().await.expect("migrate");
        Self { db, _dir: dir }
    }

    /// A runner of `toys` with short timings (changed by `tweak`). Upstream is unreachable:
    /// toy jobs never call it.
    fn runner(
        &self,
        toys: &'static [&'static dyn Job],
        tweak: impl FnOnce(&mut OutboxConfig),
    ) -> Outbox {
        let upstream = PartnerClient::new(UpstreamClientConfig::new(
            url::Url::parse("http://127.0.0.1:1/api/v1").expect("url"),
            Secret::new("key".to_string()),
        ))
        .expect("client");
        let payments = Arc::new(Provider::Demo(DemoProvider::new(
            &SecretKey::from_bytes([9; 32]),
            url::Url::parse("http://127.0.0.1:1").expect("url"),
        )));
        let mut config = OutboxConfig::new(Cents::new(0), false);
        config.lease = Duration::from_millis(600);
        config.poll_interval = Duration::from_millis(50);
        config.retry = Backoff {
            base: Duration::from_millis(400),
            cap: Duration::from_millis(400),
        };
        tweak(&mut config);
        let key =
            crate::orders::installation::InstallationKey::derive(&SecretKey::from_bytes([3; 32]));
        Outbox::with_jobs(toys, self.db.clone(), upstream, payments, key, config)
    }

    /// A paid purchase `id` with one queued `kind` job, due now; returns the job's id.
    async fn job(&self, id: &str, kind: JobKind) -> i64 {
        let id = PurchaseId::parse(id).expect("a purchase id");
        self.db
            .run(move |conn| {
                conn.write_tx(|conn| {
                    let now = now_ms();
                    let new = purchases::NewPurchase {
                        id: id.clone(),
                        status: "paid".into(),
                        email: "buyer@example.com".into(),
                        plan_id: "plan_1".into(),
                        price_cents: 500,
                        cost_cents: 400,
                        reference: format!("ref-{id}"),
                        idempotency_key: format!("key-{id}"),
                        access_token_hash: format!("hash-{id}"),
                        payment_provider: "demo".into(),
                        expires_at_ms: now + 3_600_000,
                        created_at_ms: now,
                        updated_at_ms: now,
                        language: None,
                        checkout_id: id.clone(),
                        unit_index: 1,
                    };
                    purchases::insert(conn, &new, "test")?;
                    enqueue(conn, &id, kind, now, now)?;
                    Ok::<_, DbError>(jobs::jobs_for_purchase(conn, &id)?[0].id)
                })
            })
            .await
            .expect("purchase and job")
    }

    /// The (only) job of the purchase.
    async fn job_of(&self, id: &str) -> jobs::Job {
        let id = PurchaseId::parse(id).expect("a purchase id");
        self.db
            .run(move |conn| jobs::jobs_for_purchase(conn, &id))
            .await
            .expect("jobs")
            .remove(0)
    }

    /// The outcomes of the job's attempts, oldest first.
    async fn outcomes(&self, job_id: i64) -> Vec<String> {
        self.db
            .run(move |conn| jobs::attempts(conn, job_id))
            .await
            .expect("attempts")
            .into_iter()
            .map(|a| a.outcome)
            .collect()
    }

    /// Waits until the purchase's job is as `wanted` says; returns it.
    async fn wait_for(&self, purchase_id: &str, wanted: impl Fn(&jobs::Job) -> bool) -> jobs::Job {
        let deadline = Instant::now() + WAIT;
        loop {
            let job = self.job_of(purchase_id).await;
            if wanted(&job) {
                return job;
            }
            assert!(Instant::now() < deadline, "timed out; the job is {job:?}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// Stops `workers` the way the app does: asks them to stop, and abandons those still busy
/// after `grace`.
async fn stop(stop: &watch::Sender<bool>, workers: Vec<JoinHandle<()>>, grace: Duration) {
    stop.send(true).expect("stop");
    for mut worker in workers {
        if tokio::time::timeout(grace, &mut worker).await.is_err() {
            worker.abort();
        }
    }
}

/// Records which job each of its runs was, and takes a moment.
struct Counts {
    runs: Mutex<Vec<i64>>,
}

impl Job for Counts {
    fn kind(&self) -> JobKind {
        JobKind::EmailEsimReady
    }

    fn run<'a>(&'a self, _: &'a JobContext, leased: &'a LeasedJob) -> JobFuture<'a> {
        Box::pin(async move {
            self.runs.lock().expect("runs").push(leased.job.id);
            tokio::time::sleep(Duration::from_millis(5)).await;
            Ok(Verdict::done("sent", "counted"))
        })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_runners_never_run_the_same_job() {
    static COUNTS: Counts = Counts {
        runs: Mutex::new(Vec::new()),
    };
    static TOYS: &[&dyn Job] = &[&COUNTS];
    let rig = Rig::new().await;
    let mut ids = Vec::new();
    for n in 0..40 {
        ids.push(
            rig.job(&format!("pur_{n:02}"), JobKind::EmailEsimReady)
                .await,
        );
    }
    // Two replicas with three workers per lane each, all after the same 40 due jobs.
    let (a, b) = (rig.runner(TOYS, |_| {}), rig.runner(TOYS, |_| {}));
    let (halt, shutdown) = watch::channel(false);
    let mut workers = a.spawn(3, shutdown.clone());
    workers.extend(b.spawn(3, shutdown));
    a.waker().wake();
    b.waker().wake();
    for n in 0..40 {
        rig.wait_for(&format!("pur_{n:02}"), |job| job.state == DONE)
            .await;
    }
    stop(&halt, workers, WAIT).await;

    let mut runs = COUNTS.runs.lock().expect("runs").clone();
    runs.sort_unstable();
    assert_eq!(runs, ids, "every job ran, and only once");
    for n in 0..40 {
        let job = rig.job_of(&format!("pur_{n:02}")).await;
        assert_eq!(job.attempts, 1, "{job:?}");
        assert_eq!(rig.outcomes(job.id).await, ["sent"]);
    }
}

/// Runs for about four of the test's leases, once.
struct Slow {
    runs: Mutex<u32>,
}

impl Job for Slow {
    fn kind(&self) -> JobKind {
        JobKind::EmailRefunded
    }

    fn run<'a>(&'a self, _: &'a JobContext, _: &'a LeasedJob) -> JobFuture<'a> {
        Box::pin(async move {
            *self.runs.lock().expect("runs") += 1;
            tokio::time::sleep(Duration::from_millis(1_200)).await;
            Ok(Verdict::done("sent", "slowly"))
        })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_job_keeps_its_lease_while_it_runs() {
    static SLOW: Slow = Slow {
        runs: Mutex::new(0),
    };
    static TOYS: &[&dyn Job] = &[&SLOW];
    let rig = Rig::new().await;
    let lease = Duration::from_millis(300);
    let runner = rig.runner(TOYS, |c| c.lease = lease);
    let other = rig.runner(TOYS, |c| c.lease = lease);
    let id = rig.job("pur_slow", JobKind::EmailRefunded).await;
    let (halt, shutdown) = watch::channel(false);
    let workers = runner.spawn(1, shutdown);
    runner.waker().wake();

    let claimed = rig.wait_for("pur_slow", |job| job.state == RUNNING).await;
    let first_expiry = claimed.lease_expires_at_ms.expect("leased");
    // For the whole run (four leases), another runner finds nothing to claim, and the lease
    // keeps moving ahead of the clock.
    let mut latest_expiry = first_expiry;
    loop {
        let job = rig.job_of("pur_slow").await;
        if job.state != RUNNING {
            break;
        }
        let expiry = job.lease_expires_at_ms.expect("leased");
        latest_expiry = latest_expiry.max(expiry);
        assert!(
            other.run_one("other").await.expect("runs").is_none(),
            "a renewed lease is not claimable"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    stop(&halt, workers, WAIT).await;

    assert!(
        latest_expiry > first_expiry + 300,
        "the lease was renewed: {first_expiry} → {latest_expiry}"
    );
    let job = rig.job_of("pur_slow").await;
    assert_eq!((job.state.as_str(), job.attempts), (DONE, 1), "{job:?}");
    assert_eq!(rig.outcomes(id).await, ["sent"], "no lease expired");
    assert_eq!(*SLOW.runs.lock().expect("runs"), 1);
}

/// Hangs on its first attempt (longer than any grace), finishes on the next.
struct HangsFirst;

impl Job for HangsFirst {
    fn kind(&self) -> JobKind {
        JobKind::EmailPaymentReceived
    }

    fn run<'a>(&'a self, _: &'a JobContext, leased: &'a LeasedJob) -> JobFuture<'a> {
        Box::pin(async move {
            if leased.job.attempts == 1 {
                tokio::time::sleep(Duration::from_secs(3_600)).await;
            }
            Ok(Verdict::done("sent", "second attempt"))
        })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopping_runner_hands_its_job_to_another_at_once() {
    static TOYS: &[&dyn Job] = &[&HangsFirst];
    let rig = Rig::new().await;
    // A lease far longer than the test: only the release can free the job in time.
    let long = |c: &mut OutboxConfig| c.lease = Duration::from_secs(600);
    let stopping = rig.runner(TOYS, long);
    let other = rig.runner(TOYS, long);
    let id = rig.job("pur_hangs", JobKind::EmailPaymentReceived).await;
    let (halt, shutdown) = watch::channel(false);
    let workers = stopping.spawn(1, shutdown);
    stopping.waker().wake();
    rig.wait_for("pur_hangs", |job| job.state == RUNNING).await;
    assert!(
        other.run_one("other").await.expect("runs").is_none(),
        "the lease holds the job"
    );

    // The stopping runner's worker does not finish its job within the grace.
    stop(&halt, workers, Duration::from_millis(200)).await;
    assert_eq!(stopping.release_leases().await.expect("release"), 1);

    let report = other
        .run_one("other")
        .await
        .expect("runs")
        .expect("the job is claimable at once");
    assert_eq!((report.job_id, report.outcome.as_str()), (id, "sent"));
    assert!(report.recorded);
    assert_eq!(
        rig.outcomes(id).await,
        ["lease_expired", "sent"],
        "the abandoned attempt is on record"
    );
    assert_eq!(rig.job_of("pur_hangs").await.state, DONE);
}

/// Panics on its first attempt, succeeds on the next.
struct PanicsOnce;

impl Job for PanicsOnce {
    fn kind(&self) -> JobKind {
        JobKind::EmailPaymentReceived
    }

    fn run<'a>(&'a self, _: &'a JobContext, leased: &'a LeasedJob) -> JobFuture<'a> {
        Box::pin(async move {
            tokio::time::sleep(Duration::from_millis(20)).await;
            assert!(
                leased.job.attempts > 1,
                "toy job panics on its first attempt"
            );
            Ok(Verdict::done("sent", "second attempt"))
        })
    }
}

/// Always succeeds.
struct Succeeds;

impl Job for Succeeds {
    fn kind(&self) -> JobKind {
        JobKind::EmailEsimReady
    }

    fn run<'a>(&'a self, _: &'a JobContext, _: &'a LeasedJob) -> JobFuture<'a> {
        Box::pin(async { Ok(Verdict::done("sent", "fine")) })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_job_is_a_failed_attempt_and_the_worker_goes_on() {
    static TOYS: &[&dyn Job] = &[&PanicsOnce, &Succeeds];
    let rig = Rig::new().await;
    let outbox = rig.runner(TOYS, |_| {});
    let (halt, shutdown) = watch::channel(false);
    // One worker per lane: if the panic took it down, nothing else in its lane would run.
    let workers = outbox.spawn(1, shutdown);

    let panicking = rig.job("pur_panics", JobKind::EmailPaymentReceived).await;
    outbox.waker().wake();
    let failed = rig
        .wait_for("pur_panics", |job| {
            job.attempts == 1 && job.state != RUNNING
        })
        .await;
    let failed_at = now_ms();
    // The attempt is recorded as failed, the lease is released and the retry waits.
    assert_eq!(failed.state, QUEUED, "{failed:?}");
    assert_eq!(failed.lease_owner, None);
    assert!(
        failed.run_at_ms > failed_at,
        "retried later, with backoff: {failed:?}"
    );
    let attempts = rig
        .db
        .run(move |conn| jobs::attempts(conn, panicking))
        .await
        .expect("attempts");
    assert_eq!(attempts.len(), 1, "{attempts:?}");
    assert_eq!(attempts[0].outcome, "panicked");
    assert!(
        attempts[0].detail.contains("toy job panics"),
        "{attempts:?}"
    );

    // The same worker runs the next job…
    rig.job("pur_fine", JobKind::EmailEsimReady).await;
    outbox.waker().wake();
    rig.wait_for("pur_fine", |job| job.state == DONE).await;
    // …and the panicked one succeeds on its retry.
    let retried = rig.wait_for("pur_panics", |job| job.state == DONE).await;
    assert_eq!(retried.attempts, 2);

    halt.send(true).expect("stop");
    for worker in workers {
        worker.await.expect("no worker died");
    }
}

/// Panics on every attempt.
struct AlwaysPanics;

impl Job for AlwaysPanics {
    fn kind(&self) -> JobKind {
        JobKind::FetchInstallation
    }

    fn run<'a>(&'a self, _: &'a JobContext, _: &'a LeasedJob) -> JobFuture<'a> {
        Box::pin(async { panic!("toy job always panics") })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_that_keeps_failing_backs_off_then_dies_with_an_alert() {
    static TOYS: &[&dyn Job] = &[&AlwaysPanics];
    let rig = Rig::new().await;
    let outbox = rig.runner(TOYS, |c| {
        c.max_attempts = 2;
        c.retry = Backoff {
            base: Duration::from_millis(300),
            cap: Duration::from_secs(60),
        };
    });
    let id = rig.job("pur_doomed", JobKind::FetchInstallation).await;

    let before = now_ms();
    let first = outbox.run_one("w").await.expect("runs").expect("due");
    let after = now_ms();
    assert_eq!(first.outcome, "panicked");
    let waiting = rig.job_of("pur_doomed").await;
    assert_eq!(waiting.state, QUEUED, "{waiting:?}");
    // The first retry waits between half and all of the base delay (jittered).
    assert!(
        (before + 150..=after + 300).contains(&waiting.run_at_ms),
        "retry at {} for an attempt at {before}..{after}",
        waiting.run_at_ms
    );
    assert!(
        outbox.run_one("w").await.expect("runs").is_none(),
        "not due before its backoff"
    );

    tokio::time::sleep(Duration::from_millis(
        u64::try_from(waiting.run_at_ms - now_ms() + 20).unwrap_or(0),
    ))
    .await;
    let last = outbox.run_one("w").await.expect("runs").expect("due again");
    assert_eq!(last.outcome, "panicked");
    let dead = rig.job_of("pur_doomed").await;
    assert_eq!(
        (dead.state.as_str(), dead.attempts, dead.outcome.as_deref()),
        (DEAD, 2, Some("panicked")),
        "{dead:?}"
    );
    assert_eq!(rig.outcomes(id).await, ["panicked", "panicked"]);
    let alerts = rig
        .db
        .run(|conn| {
            alerts::alerts_for_purchase(conn, &PurchaseId::parse("pur_doomed").expect("id"))
        })
        .await
        .expect("alerts");
    assert_eq!(alerts.len(), 1, "{alerts:?}");
    assert!(
        alerts[0].message.contains("gave up after 2 attempts"),
        "{alerts:?}"
    );
    assert!(
        outbox.run_one("w").await.expect("runs").is_none(),
        "a dead job never runs again"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kind_this_runner_does_not_know_waits_for_one_that_does() {
    static TOYS: &[&dyn Job] = &[&Succeeds];
    let rig = Rig::new().await;
    let outbox = rig.runner(TOYS, |_| {});
    let id = rig.job("pur_newer", JobKind::EmailRefunded).await;

    let before = now_ms();
    let report = outbox.run_one("w").await.expect("runs").expect("due");
    assert_eq!(report.outcome, "unknown_kind");
    let job = rig.job_of("pur_newer").await;
    assert_eq!(job.state, QUEUED, "{job:?}");
    assert!(
        job.run_at_ms >= before + 60_000,
        "tried again in a minute: {job:?}"
    );
    assert_eq!(rig.outcomes(id).await, ["unknown_kind"]);
}
