//! The outbox against a spawned sandbox, on SQLite and PostgreSQL: every paid purchase becomes
//! exactly ONE upstream order whatever the upstream does (failures after commit, timeouts,
//! dropped connections, 503 and 429 bursts, price changes, an empty wallet), orders are
//! tracked to their end as the spec says, and installations are stored encrypted.
//!
//! Purchases are created exactly as payment confirmation does: insert, move to `paid` and
//! enqueue `place_order` in one write transaction. Delays, backoff and timeouts are shrunk so
//! the file runs in seconds.

use std::sync::Arc;
use std::time::{Duration, Instant};

use diesel::prelude::*;
use storefront::config::{Secret, SecretKey};
use storefront::db::alerts::{self, Alert};
use storefront::db::installations;
use storefront::db::refunds;

use storefront::db::outbox::{self as jobs, Attempt, Job, Next};
use storefront::db::purchases::{self, Purchase};
use storefront::db::schema::{leases, purchases as purchases_t, refunds as refunds_t};
use storefront::db::{Db, DbConn, DbError, now_ms};
use storefront::domain::Cents;
use storefront::domain::purchase::{PurchaseEvent, PurchaseStatus};
use storefront::orders::installation::{self, InstallationError, InstallationKey};
use storefront::orders::outbox::{JobKind, Outbox, OutboxConfig, enqueue, wake_tracking};
use storefront::payments::Provider;
use storefront::payments::demo::DemoProvider;
use storefront::sandbox::{Fault, Outcome, SandboxHandle};
use storefront::upstream::{Backoff, IdempotencyKey, PartnerClient, PathId, UpstreamClientConfig};
use tokio::sync::watch;
use url::Url;

use crate::both_backends;
use crate::fixtures::as_id;
use crate::helpers::{Backend, TestDb, random_suffix, spawn_sandbox};

pub(crate) struct Env {
    pub(crate) db: Db,
    pub(crate) outbox: Outbox,
    pub(crate) upstream: SandboxHandle,
    pub(crate) client: PartnerClient,
    /// The demo provider the outbox refunds through (and checkouts pay through).
    pub(crate) payments: Arc<Provider>,
    key: InstallationKey,
    _test_db: TestDb,
}

fn client_config(base_url: &str, key: &str) -> UpstreamClientConfig {
    let mut config = UpstreamClientConfig::new(
        Url::parse(base_url).expect("sandbox url"),
        Secret::new(key.to_string()),
    );
    config.connect_timeout = Duration::from_secs(1);
    config.request_timeout = Duration::from_secs(1);
    config.backoff = Backoff {
        base: Duration::from_millis(5),
        cap: Duration::from_millis(20),
    };
    config.max_gate_wait = Duration::from_millis(100);
    config
}

fn fast_config() -> OutboxConfig {
    let mut config = OutboxConfig::new(Cents::new(100), false);
    config.lease = Duration::from_secs(10);
    config.poll_interval = Duration::from_millis(50);
    config.retry = Backoff {
        base: Duration::from_millis(10),
        cap: Duration::from_millis(50),
    };
    config.max_unknown_attempts = 10;
    config.max_attempts = 10;
    config.insufficient_balance_wait = Duration::from_millis(150);
    config.tracking = Backoff {
        base: Duration::from_millis(200),
        cap: Duration::from_millis(200),
    };
    config.review_poll_interval = Duration::from_millis(150);
    config
}

pub(crate) async fn env(backend: Backend, adjust: impl FnOnce(&mut OutboxConfig)) -> Option<Env> {
    let test_db = TestDb::new(backend)?;
    let db = Db::open(&test_db.url, 12).expect("open database");
    db.migrate().await.expect("migrations apply");
    let (upstream, api_key) = spawn_sandbox(120).await;
    let client = PartnerClient::new(client_config(&upstream.base_url, &api_key)).expect("client");
    let mut config = fast_config();
    adjust(&mut config);
    let key = InstallationKey::derive(&SecretKey::from_bytes([3; 32]));
    let payments = Arc::new(Provider::Demo(DemoProvider::new(
        &SecretKey::from_bytes([9; 32]),
        Url::parse("http://127.0.0.1:1").expect("url"),
    )));
    let outbox = Outbox::new(
        db.clone(),
        client.clone(),
        Arc::clone(&payments),
        key.clone(),
        config,
    );
    Some(Env {
        db,
        outbox,
        upstream,
        client,
        payments,
        key,
        _test_db: test_db,
    })
}

impl Env {
    /// Distinct cheap plans (price 100..=900 cents), so 50 orders fit the $500 sandbox wallet.
    pub(crate) fn cheap_plans(&self) -> Vec<(String, i64)> {
        self.upstream
            .sandbox
            .plans()
            .into_iter()
            .filter(|p| (100..=900).contains(&p.price_cents))
            .map(|p| (p.id, p.price_cents))
            .collect()
    }

    pub(crate) fn plan(&self, n: usize) -> (String, i64) {
        self.cheap_plans()
            .into_iter()
            .nth(n)
            .expect("enough cheap plans")
    }

    pub(crate) async fn q<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut DbConn) -> Result<T, DbError> + Send + 'static,
    ) -> T {
        self.db.run(f).await.expect("query")
    }

    /// Exactly what payment confirmation does: a purchase, `paid`, and its `place_order` job,
    /// in one write transaction.
    pub(crate) async fn paid_purchase(&self, plan_id: &str, cost: i64, price: i64) -> String {
        let id = format!("pur_{}", random_suffix());
        let now = now_ms();
        let new = crate::fixtures::purchase(&id)
            .plan(plan_id)
            .price(price)
            .cost(cost)
            .idempotency_key(IdempotencyKey::generate().as_str())
            .created(now)
            .build();
        let pid = id.clone();
        self.q(move |c| {
            c.write_tx(|c| {
                purchases::insert(c, &new, "checkout")?;
                purchases::apply(
                    c,
                    &as_id(&pid),
                    &PurchaseEvent::PaymentConfirmed,
                    "payment confirmed",
                    now,
                )
                .map_err(|e| DbError::Task(e.to_string()))?;
                diesel::update(purchases_t::table.find(&pid))
                    .set((
                        purchases_t::payment_reference.eq(format!("demo_pay_{pid}")),
                        purchases_t::paid_at_ms.eq(now),
                    ))
                    .execute(c)?;
                enqueue(c, &as_id(&pid), JobKind::PlaceOrder, now, now)?;
                Ok(())
            })
        })
        .await;
        self.outbox.waker().wake();
        id
    }

    pub(crate) async fn purchase(&self, id: &str) -> Purchase {
        let id = id.to_string();
        self.q(move |c| purchases::find(c, &as_id(&id)))
            .await
            .expect("purchase exists")
    }

    pub(crate) async fn jobs(&self, id: &str) -> Vec<Job> {
        let id = id.to_string();
        self.q(move |c| jobs::jobs_for_purchase(c, &as_id(&id)))
            .await
    }

    pub(crate) async fn job(&self, id: &str, kind: JobKind) -> Job {
        self.jobs(id)
            .await
            .into_iter()
            .find(|j| j.kind == kind.as_str())
            .unwrap_or_else(|| panic!("a {kind} job for {id}"))
    }

    pub(crate) async fn attempts(&self, job_id: i64) -> Vec<Attempt> {
        self.q(move |c| jobs::attempts(c, job_id)).await
    }

    /// How each attempt of job `job_id` ended, oldest first.
    pub(crate) async fn outcomes(&self, job_id: i64) -> Vec<String> {
        self.attempts(job_id)
            .await
            .into_iter()
            .map(|a| a.outcome)
            .collect()
    }

    /// The first open alert about purchase `id`, if any.
    pub(crate) async fn alert_for(&self, id: &str) -> Option<Alert> {
        self.alerts()
            .await
            .into_iter()
            .find(|a| a.purchase_id.as_ref().is_some_and(|p| p == id))
    }

    pub(crate) async fn alerts(&self) -> Vec<Alert> {
        self.q(alerts::open_alerts).await
    }

    /// Starts `n` workers; the returned guard stops them.
    pub(crate) fn workers(&self, n: usize) -> Workers {
        let (tx, rx) = watch::channel(false);
        Workers {
            handles: self.outbox.spawn(n, rx),
            stop: tx,
        }
    }

    pub(crate) async fn wait_status(
        &self,
        id: &str,
        status: PurchaseStatus,
        within: Duration,
    ) -> Purchase {
        let started = Instant::now();
        loop {
            let purchase = self.purchase(id).await;
            if purchase.status == status {
                return purchase;
            }
            assert!(
                started.elapsed() < within,
                "purchase {id} is {} (upstream {:?}), not {status}, after {within:?}; jobs: {:#?}",
                purchase.status,
                purchase.upstream_status,
                self.jobs(id).await
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    pub(crate) fn assert_one_order_per_reference(&self, expected_orders: usize) {
        let stats = self.upstream.sandbox.stats();
        assert!(
            stats.duplicate_purchases.is_empty(),
            "double purchases: {:?}",
            stats.duplicate_purchases
        );
        assert_eq!(stats.orders, expected_orders, "orders upstream");
        assert!(stats.ledger_invariant_holds);
    }
}

pub(crate) struct Workers {
    handles: Vec<tokio::task::JoinHandle<()>>,
    stop: watch::Sender<bool>,
}

impl Workers {
    pub(crate) async fn stop(self) {
        let _ = self.stop.send(true);
        for handle in self.handles {
            tokio::time::timeout(Duration::from_secs(10), handle)
                .await
                .expect("worker stops after its job")
                .expect("worker did not panic");
        }
    }
}

pub(crate) const WITHIN: Duration = Duration::from_secs(15);

both_backends!(
    paid_purchase_is_fulfilled_with_installation_encrypted,
    failures_after_commit_never_buy_twice,
    retry_after_holds_every_request_until_the_gate_opens,
    price_change_within_margin_reorders_under_a_new_key,
    price_change_beyond_margin_needs_attention,
    insufficient_balance_waits_pauses_sales_and_alerts_once,
    upstream_outcomes_end_as_specified_without_reorder,
    eight_workers_place_fifty_purchases_once_each,
    stale_lease_is_reclaimed_and_the_late_worker_refused,
    a_stopping_replica_releases_its_leases_to_the_others,
    webhook_hint_wakes_tracking,
    a_storm_of_hints_never_delays_delivery,
);

async fn paid_purchase_is_fulfilled_with_installation_encrypted(backend: Backend) {
    let Some(env) = env(backend, |_| {}).await else {
        return;
    };
    let (plan, cost) = env.plan(0);
    let id = env.paid_purchase(&plan, cost, cost + 500).await;
    let workers = env.workers(2);
    let purchase = env
        .wait_status(&id, PurchaseStatus::Fulfilled, WITHIN)
        .await;
    workers.stop().await;

    env.assert_one_order_per_reference(1);
    let order_id = purchase.upstream_order_id.clone().expect("order id stored");
    let esim_id = purchase.esim_id.clone().expect("esim id stored");
    assert_eq!(purchase.upstream_status.as_deref(), Some("fulfilled"));
    let timeline: Vec<String> = {
        let id = id.clone();
        env.q(move |c| purchases::events(c, &as_id(&id)))
            .await
            .into_iter()
            .map(|e| e.to_status)
            .collect()
    };
    assert_eq!(
        timeline.first().map(String::as_str),
        Some("awaiting_payment")
    );
    assert!(timeline.contains(&"ordered".to_string()), "{timeline:?}");
    assert_eq!(timeline.last().map(String::as_str), Some("fulfilled"));
    for kind in JobKind::ALL.into_iter().take(3) {
        assert_eq!(env.job(&id, kind).await.state, "done", "{kind}");
    }

    // Stored encrypted: neither the code nor its hex appears in the row; decrypting gives it.
    let truth = env
        .client
        .installation(&PathId::parse(esim_id.as_str()).expect("esim id"))
        .await
        .expect("installation readable");
    let code = truth.activation_code.expose().clone();
    let row = {
        let id = id.clone();
        env.q(move |c| installations::installation(c, &as_id(&id)))
            .await
            .expect("installation row")
    };
    assert_eq!(row.key_id, env.key.id());
    assert!(!row.ciphertext.contains(&code));
    assert!(!row.ciphertext.contains(&hex::encode(&code)));
    assert_eq!(
        row.iccid_last4,
        truth.iccid.expose()[truth.iccid.expose().len() - 4..]
    );
    let key = env.key.clone();
    let details = {
        let id = id.clone();
        env.db
            .run(move |c| installation::load_installation(c, &key, &as_id(&id)))
            .await
            .expect("decrypts")
            .expect("stored")
    };
    assert_eq!(details.activation_code.expose(), &code);
    assert_eq!(details.esim_id, esim_id);
    assert!(!format!("{details:?}").contains(&code), "Debug redacts");

    // Rotation re-encrypts under the new key; the old key no longer opens the row.
    let new_key = InstallationKey::derive(&SecretKey::from_bytes([4; 32]));
    let (old, new) = (env.key.clone(), new_key.clone());
    let rotated = env
        .db
        .run(move |c| installation::rotate(c, &old, &new))
        .await
        .expect("rotates");
    assert_eq!(rotated.reencrypted, 1);
    assert!(rotated.unreadable.is_empty());
    let (old, new, pid) = (env.key.clone(), new_key.clone(), id.clone());
    let (with_new, with_old) = env
        .db
        .run(move |c| {
            Ok::<_, InstallationError>((
                installation::load_installation(c, &new, &as_id(&pid))?,
                installation::load_installation(c, &old, &as_id(&pid)),
            ))
        })
        .await
        .expect("loads");
    assert_eq!(with_new.expect("stored").activation_code.expose(), &code);
    assert!(matches!(with_old, Err(InstallationError::WrongKey { .. })));

    // The wallet row was refreshed after the accepted order.
    let wallet = env
        .q(storefront::db::wallet::get)
        .await
        .expect("wallet refreshed");
    assert!(!wallet.sales_paused);
    assert!(wallet.refreshed_at_ms > 0);
    assert!(order_id.len() > 1);
}

async fn failures_after_commit_never_buy_twice(backend: Backend) {
    let Some(env) = env(backend, |_| {}).await else {
        return;
    };
    let faults = [
        Fault::FailAfterCommit(1),
        // Beyond the client's 1 s timeout: the worker sees a timeout, the order exists.
        Fault::DelayAfterCommit {
            count: 1,
            delay: Duration::from_millis(1_600),
        },
        Fault::DropAfterCommit(1),
        Fault::UnavailableBurst(3),
    ];
    let workers = env.workers(2);
    for (n, fault) in faults.into_iter().enumerate() {
        let (plan, cost) = env.plan(n);
        env.upstream.sandbox.inject(fault);
        let id = env.paid_purchase(&plan, cost, cost + 500).await;
        let purchase = env
            .wait_status(&id, PurchaseStatus::Fulfilled, WITHIN)
            .await;
        let stats = env.upstream.sandbox.stats();
        assert_eq!(
            stats.orders_by_reference.get(&purchase.reference),
            Some(&1),
            "{fault:?}"
        );
        let place = env.job(&id, JobKind::PlaceOrder).await;
        let outcomes: Vec<String> = env.outcomes(place.id).await;
        assert_eq!(
            outcomes.last().map(String::as_str),
            Some("accepted"),
            "{fault:?}"
        );
        if !matches!(fault, Fault::UnavailableBurst(_)) {
            assert_eq!(
                outcomes.first().map(String::as_str),
                Some("unknown"),
                "{fault:?}"
            );
        }
        assert_eq!(
            purchase.key_generation, 0,
            "never a new key after {fault:?}"
        );
    }
    workers.stop().await;
    env.assert_one_order_per_reference(4);
}

async fn retry_after_holds_every_request_until_the_gate_opens(backend: Backend) {
    let Some(env) = env(backend, |_| {}).await else {
        return;
    };
    let (plan, cost) = env.plan(0);
    env.upstream.sandbox.inject(Fault::RateLimitBurst {
        count: 1,
        retry_after_secs: 1,
    });
    let id = env.paid_purchase(&plan, cost, cost + 500).await;
    let workers = env.workers(2);
    env.wait_status(&id, PurchaseStatus::Fulfilled, WITHIN)
        .await;
    workers.stop().await;
    env.assert_one_order_per_reference(1);

    let place = env.job(&id, JobKind::PlaceOrder).await;
    let attempts = env.attempts(place.id).await;
    assert_eq!(attempts[0].outcome, "rate_limited");
    assert_eq!(
        attempts.last().map(|a| a.outcome.as_str()),
        Some("accepted")
    );
    // The gate was persisted for every replica, about a second after the 429.
    let gate: i64 = env
        .q(|c| {
            Ok(leases::table
                .filter(leases::name.eq(jobs::UPSTREAM_GATE))
                .select(leases::expires_at_ms)
                .first(c)?)
        })
        .await;
    assert!(gate >= attempts[0].finished_at_ms + 900, "gate {gate}");
    // No attempt of any job started inside the window.
    let mut all = Vec::new();
    for job in env.jobs(&id).await {
        all.extend(env.attempts(job.id).await);
    }
    for attempt in all.iter().filter(|a| a.id != attempts[0].id) {
        assert!(
            attempt.started_at_ms >= gate,
            "attempt {attempt:?} started before the gate opened at {gate}"
        );
    }
}

async fn price_change_within_margin_reorders_under_a_new_key(backend: Backend) {
    let Some(env) = env(backend, |c| c.min_margin = Cents::new(100)).await else {
        return;
    };
    let (plan, cost) = env.plan(0);
    let id = env.paid_purchase(&plan, cost, cost + 500).await;
    let original_key = env.purchase(&id).await.idempotency_key;
    env.upstream
        .sandbox
        .set_plan_price(&plan, cost + 50)
        .expect("price set");
    let workers = env.workers(2);
    let purchase = env
        .wait_status(&id, PurchaseStatus::Fulfilled, WITHIN)
        .await;
    workers.stop().await;

    env.assert_one_order_per_reference(1);
    assert_eq!(purchase.key_generation, 1);
    assert_eq!(purchase.cost_cents.get(), cost + 50);
    assert_ne!(purchase.idempotency_key, original_key);
    let order = env
        .upstream
        .sandbox
        .order(purchase.upstream_order_id.as_deref().expect("ordered"))
        .expect("order upstream");
    assert_eq!(order.price_cents, cost + 50);
    let events = {
        let id = id.clone();
        env.q(move |c| purchases::events(c, &as_id(&id))).await
    };
    assert!(
        events.iter().any(|e| e.note.contains(&original_key)
            && e.note.contains(&purchase.idempotency_key)
            && e.note.contains("new order key")),
        "the key change is on the timeline: {events:#?}"
    );
}

async fn price_change_beyond_margin_needs_attention(backend: Backend) {
    let Some(env) = env(backend, |c| c.min_margin = Cents::new(100)).await else {
        return;
    };
    let (plan, cost) = env.plan(0);
    let id = env.paid_purchase(&plan, cost, cost + 500).await;
    env.upstream
        .sandbox
        .set_plan_price(&plan, cost + 450)
        .expect("price set");
    env.outbox
        .drain(Duration::from_secs(5))
        .await
        .expect("drains");
    let purchase = env.purchase(&id).await;
    assert_eq!(purchase.status, PurchaseStatus::NeedsAttention);
    assert_eq!(purchase.key_generation, 0);
    env.assert_one_order_per_reference(0);
    let place = env.job(&id, JobKind::PlaceOrder).await;
    assert_eq!(place.state, "done");
    assert_eq!(place.outcome.as_deref(), Some("price_changed_below_margin"));
    assert!(
        env.alerts().await.iter().any(
            |a| a.kind == "needs_attention" && a.purchase_id.as_ref().is_some_and(|p| p == &id)
        )
    );
    let refund_rows: i64 = env.q(|c| Ok(refunds_t::table.count().get_result(c)?)).await;
    assert_eq!(refund_rows, 0, "no automatic refund");
}

async fn insufficient_balance_waits_pauses_sales_and_alerts_once(backend: Backend) {
    let Some(env) = env(backend, |_| {}).await else {
        return;
    };
    let (plan, cost) = env.plan(0);
    env.upstream.sandbox.set_balance(0).expect("balance set");
    let id = env.paid_purchase(&plan, cost, cost + 500).await;
    let workers = env.workers(2);
    let place = env.job(&id, JobKind::PlaceOrder).await;
    let started = Instant::now();
    loop {
        let waits = env
            .attempts(place.id)
            .await
            .iter()
            .filter(|a| a.outcome == "insufficient_balance")
            .count();
        if waits >= 3 {
            break;
        }
        assert!(started.elapsed() < WITHIN, "job did not retry");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(env.purchase(&id).await.status, PurchaseStatus::Paid);
    let wallet = env
        .q(storefront::db::wallet::get)
        .await
        .expect("wallet row");
    assert!(wallet.sales_paused, "new sales are paused");
    let balance_alerts = env
        .alerts()
        .await
        .into_iter()
        .filter(|a| a.kind == "insufficient_balance")
        .count();
    assert_eq!(balance_alerts, 1, "alerted once");
    env.assert_one_order_per_reference(0);

    // After a top-up the waiting job goes through.
    env.upstream.sandbox.set_balance(50_000).expect("top up");
    env.wait_status(&id, PurchaseStatus::Fulfilled, WITHIN)
        .await;
    workers.stop().await;
    env.assert_one_order_per_reference(1);
}

async fn upstream_outcomes_end_as_specified_without_reorder(backend: Backend) {
    let Some(env) = env(backend, |_| {}).await else {
        return;
    };
    // Short upstream timers so `refunded` (after `fulfilled`) is what the first poll sees.
    env.upstream
        .sandbox
        .set_provisioning_delays(Duration::from_millis(5), Duration::from_millis(10));
    let outcomes = [
        Outcome::Failed,
        Outcome::PendingReview,
        Outcome::Refunded,
        Outcome::Other("on_hold".into()),
    ];
    let mut ids = Vec::new();
    for (n, outcome) in outcomes.iter().enumerate() {
        let (plan, cost) = env.plan(n);
        env.upstream
            .sandbox
            .set_plan_outcome(&plan, outcome.clone())
            .expect("outcome set");
        ids.push(env.paid_purchase(&plan, cost, cost + 500).await);
    }
    let workers = env.workers(2);
    let failed = env
        .wait_status(&ids[0], PurchaseStatus::Refunded, WITHIN)
        .await;
    let review = env
        .wait_status(&ids[1], PurchaseStatus::NeedsAttention, WITHIN)
        .await;
    let refunded = env
        .wait_status(&ids[2], PurchaseStatus::NeedsAttention, WITHIN)
        .await;
    let on_hold = env
        .wait_status(&ids[3], PurchaseStatus::NeedsAttention, WITHIN)
        .await;
    // Let tracking poll a few more times: nothing may be reordered or alerted twice.
    tokio::time::sleep(Duration::from_millis(600)).await;
    workers.stop().await;
    env.assert_one_order_per_reference(4);

    // failed → the consumer was refunded through the provider, under the stored key.
    assert_eq!(failed.upstream_status.as_deref(), Some("failed"));
    let refund = {
        let id = ids[0].clone();
        env.q(move |c| refunds::refund_for(c, &as_id(&id)))
            .await
            .expect("refund row")
    };
    assert_eq!(refund.status, "succeeded");
    assert_eq!(refund.amount_cents, failed.price_cents.get());
    assert!(refund.provider_refund_id.is_some());
    let failed_timeline: Vec<String> = {
        let id = ids[0].clone();
        env.q(move |c| purchases::events(c, &as_id(&id)))
            .await
            .into_iter()
            .map(|e| e.to_status)
            .collect()
    };
    assert!(failed_timeline.ends_with(&["failed".to_string(), "refunded".to_string()]));

    // pending_review → needs attention, alerted once, still tracked (slowly).
    assert_eq!(review.upstream_status.as_deref(), Some("pending_review"));
    assert_eq!(env.job(&ids[1], JobKind::TrackOrder).await.state, "queued");
    // refunded upstream → needs attention for reconciliation, tracking done.
    assert_eq!(refunded.upstream_status.as_deref(), Some("refunded"));
    assert_eq!(env.job(&ids[2], JobKind::TrackOrder).await.state, "done");
    // unfamiliar → kept verbatim, alerted, still tracked.
    assert_eq!(on_hold.upstream_status.as_deref(), Some("on_hold"));
    assert_eq!(env.job(&ids[3], JobKind::TrackOrder).await.state, "queued");

    let alerts = env.alerts().await;
    let count = |kind: &str, id: &str| {
        alerts
            .iter()
            .filter(|a| a.kind == kind && a.purchase_id.as_ref().is_some_and(|p| p == id))
            .count()
    };
    assert_eq!(count("pending_review", &ids[1]), 1);
    assert_eq!(count("needs_attention", &ids[2]), 1);
    assert_eq!(count("unfamiliar_status", &ids[3]), 1);
    for id in &ids {
        assert_eq!(
            env.jobs(id)
                .await
                .iter()
                .filter(|j| j.kind == JobKind::PlaceOrder.as_str())
                .count(),
            1,
            "never reordered"
        );
    }
}

async fn eight_workers_place_fifty_purchases_once_each(backend: Backend) {
    let Some(env) = env(backend, |_| {}).await else {
        return;
    };
    let plans = env.cheap_plans();
    let mut ids = Vec::new();
    for n in 0..50 {
        let (plan, cost) = plans[n % plans.len()].clone();
        ids.push(env.paid_purchase(&plan, cost, cost + 500).await);
    }
    let workers = env.workers(8);
    for id in &ids {
        env.wait_status(id, PurchaseStatus::Fulfilled, Duration::from_secs(40))
            .await;
    }
    workers.stop().await;
    env.assert_one_order_per_reference(50);
    for id in &ids {
        let place = env.job(id, JobKind::PlaceOrder).await;
        assert_eq!(place.attempts, 1, "claimed once");
        let attempts = env.attempts(place.id).await;
        assert_eq!(attempts.len(), 1);
        assert_eq!(attempts[0].outcome, "accepted");
    }
}

async fn stale_lease_is_reclaimed_and_the_late_worker_refused(backend: Backend) {
    let Some(env) = env(backend, |_| {}).await else {
        return;
    };
    let (plan, cost) = env.plan(0);
    let id = env.paid_purchase(&plan, cost, cost + 500).await;
    // A worker claims the job with a short lease, sends the order, and dies before recording.
    let crashed = env
        .q(|c| jobs::claim(c, "crashed-worker", now_ms(), 200, jobs::Lane::Any))
        .await
        .expect("claims the job");
    let purchase = env.purchase(&id).await;
    let sent = env
        .client
        .create_order(
            &IdempotencyKey::parse(purchase.idempotency_key.as_str()).expect("key"),
            &storefront::upstream::OrderRequest {
                plan_id: storefront::upstream::PlanId::parse(plan.as_str()).expect("plan"),
                expected_price_cents: storefront::upstream::ApiAmount::try_from(cost)
                    .expect("amount"),
                reference: storefront::upstream::OrderReference::parse(purchase.reference.as_str())
                    .expect("reference"),
            },
        )
        .await
        .expect("the crashed worker's order was accepted");
    // While the lease holds, nobody else takes the job.
    assert_eq!(env.outbox.run_due_once().await.expect("runs"), 0);
    tokio::time::sleep(Duration::from_millis(250)).await;

    let workers = env.workers(2);
    let purchase = env
        .wait_status(&id, PurchaseStatus::Fulfilled, WITHIN)
        .await;
    workers.stop().await;
    env.assert_one_order_per_reference(1);
    assert_eq!(purchase.upstream_order_id, Some(sent.order_id));
    let place = env.job(&id, JobKind::PlaceOrder).await;
    let outcomes: Vec<String> = env.outcomes(place.id).await;
    assert_eq!(outcomes, ["lease_expired", "accepted"]);

    // The crashed worker wakes up late: its outcome is refused.
    let late = env
        .q(move |c| {
            c.write_tx(|c| {
                jobs::settle(
                    c,
                    &crashed,
                    &Next::Done {
                        outcome: "late".into(),
                    },
                    &jobs::AttemptRecord {
                        started_at_ms: 0,
                        outcome: "accepted".into(),
                        detail: "late".into(),
                    },
                    now_ms(),
                )
            })
        })
        .await;
    assert!(!late, "a lost lease cannot settle the job");
    assert_eq!(
        env.job(&id, JobKind::PlaceOrder).await.outcome.as_deref(),
        Some("accepted")
    );
}

async fn a_stopping_replica_releases_its_leases_to_the_others(backend: Backend) {
    let Some(env) = env(backend, |_| {}).await else {
        return;
    };
    let (plan, cost) = env.plan(0);
    let id = env.paid_purchase(&plan, cost, cost + 500).await;
    // Replica `stopA` holds the job under a long lease; its workers did not finish in time.
    env.q(|c| jobs::claim(c, "stopA-p0", now_ms(), 60_000, jobs::Lane::Any))
        .await
        .expect("claims the job");
    assert!(
        env.q(|c| jobs::claim(c, "other-p0", now_ms(), 60_000, jobs::Lane::Any))
            .await
            .is_none(),
        "the lease holds the job"
    );
    // Another replica whose name is a prefix of this one's releases nothing of it.
    let none = env
        .q(|c| c.write_tx(|c| jobs::expire_leases_of(c, "stop", now_ms())))
        .await;
    assert_eq!(none, 0);
    let released = env
        .q(|c| c.write_tx(|c| jobs::expire_leases_of(c, "stopA", now_ms())))
        .await;
    assert_eq!(released, 1);
    let taken = env
        .q(|c| jobs::claim(c, "other-p0", now_ms(), 60_000, jobs::Lane::Any))
        .await
        .expect("another replica takes the job over at once");
    assert_eq!(taken.job.purchase_id, id);
    let outcomes = env.outcomes(taken.job.id).await;
    assert_eq!(outcomes, ["lease_expired"], "the lost attempt is on record");
}

async fn webhook_hint_wakes_tracking(backend: Backend) {
    let Some(env) = env(backend, |c| {
        // Without a hint, the first poll would come after a minute.
        c.tracking = Backoff {
            base: Duration::from_secs(120),
            cap: Duration::from_secs(120),
        };
    })
    .await
    else {
        return;
    };
    let (plan, cost) = env.plan(0);
    let id = env.paid_purchase(&plan, cost, cost + 500).await;
    let workers = env.workers(1);
    let purchase = env.wait_status(&id, PurchaseStatus::Ordered, WITHIN).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let order_id = purchase.upstream_order_id.expect("ordered");
    let waker = env.outbox.waker();
    assert!(
        wake_tracking(&env.db, Some(&waker), &order_id)
            .await
            .expect("wakes")
    );
    env.wait_status(&id, PurchaseStatus::Fulfilled, WITHIN)
        .await;
    workers.stop().await;
    assert!(
        !wake_tracking(&env.db, None, "ord_unknown")
            .await
            .expect("no such order")
    );
}

/// Upstream webhooks are hints, and anyone who learns the webhook address can send them. A
/// storm of them for a live order (genuine, duplicated or forged) must not push its status
/// reads later: the order is delivered within seconds of the supplier fulfilling it, and the
/// storm costs a bounded number of status reads.
async fn a_storm_of_hints_never_delays_delivery(backend: Backend) {
    let Some(env) = env(backend, |c| {
        // Regular polls about 1, 3, 7, 15… s after the order was accepted, then every minute.
        c.tracking = Backoff {
            base: Duration::from_secs(1),
            cap: Duration::from_secs(60),
        };
    })
    .await
    else {
        return;
    };
    // Upstream fulfils the order 4 s after accepting it.
    env.upstream
        .sandbox
        .set_provisioning_delays(Duration::from_secs(1), Duration::from_secs(3));
    let (plan, cost) = env.plan(0);
    let id = env.paid_purchase(&plan, cost, cost + 500).await;
    let workers = env.workers(1);
    let purchase = env.wait_status(&id, PurchaseStatus::Ordered, WITHIN).await;
    let accepted = Instant::now();
    let before = env.upstream.sandbox.stats().api_requests;
    let order_id = purchase.upstream_order_id.expect("ordered");

    // Twenty hints a second for the first 3 s, while the order is paid and provisioning.
    let waker = env.outbox.waker();
    while accepted.elapsed() < Duration::from_secs(3) {
        wake_tracking(&env.db, Some(&waker), &order_id)
            .await
            .expect("hint");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // Fulfilled upstream about 4 s after acceptance; delivered a few seconds later at most.
    env.wait_status(&id, PurchaseStatus::Fulfilled, Duration::from_secs(6))
        .await;
    assert!(
        accepted.elapsed() < Duration::from_secs(9),
        "delivered {:?} after acceptance",
        accepted.elapsed()
    );
    let reads = env.upstream.sandbox.stats().api_requests - before;
    assert!(
        reads <= 10,
        "{reads} upstream requests for one order's tracking and delivery"
    );
    workers.stop().await;
}
