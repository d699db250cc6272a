//! Catalog sync against the sandbox: complete, all-or-nothing, never deleting a plan, one
//! replica at a time, and what it stores is what the snapshot serves.

use std::time::Duration;

use storefront::catalog::{Catalog, Snapshot, SyncError, SyncOutcome};
use storefront::config::Secret;
use storefront::db::Db;
use storefront::domain::pricing::{MAX_CARD_CHARGE, MIN_CARD_CHARGE};
use storefront::sandbox::{Fault, SandboxHandle};
use storefront::upstream::{Backoff, PartnerClient, UpstreamClientConfig};

use crate::both_backends;
use crate::helpers::{Backend, TestDb, spawn_sandbox};

fn client_for(upstream: &SandboxHandle, key: &str) -> PartnerClient {
    let mut config = UpstreamClientConfig::new(
        upstream.base_url.parse().expect("base url"),
        Secret::new(key.to_string()),
    );
    config.max_get_attempts = 2;
    config.backoff = Backoff {
        base: Duration::from_millis(5),
        cap: Duration::from_millis(20),
    };
    config.max_gate_wait = Duration::from_millis(50);
    PartnerClient::new(config).expect("client")
}

async fn synced(outcome: Result<SyncOutcome, SyncError>) -> storefront::catalog::SyncReport {
    match outcome.expect("sync succeeds") {
        SyncOutcome::Synced(report) => report,
        SyncOutcome::Skipped => panic!("sync was skipped"),
    }
}

both_backends!(
    a_sync_stores_every_plan_country_and_region,
    a_failed_sync_keeps_the_previous_catalog,
    plans_that_disappear_keep_their_rows_and_stop_selling,
    price_changes_reach_the_snapshot_and_prices_never_drop_below_cost,
    plans_no_card_can_pay_for_are_kept_but_listed_nowhere,
    only_one_sync_runs_at_a_time,
);

async fn setup(
    backend: Backend,
    plans: usize,
) -> Option<(TestDb, Db, SandboxHandle, PartnerClient)> {
    let test_db = TestDb::new(backend)?;
    let db = test_db.migrated().await;
    let (upstream, key) = spawn_sandbox(plans).await;
    let client = client_for(&upstream, &key);
    Some((test_db, db, upstream, client))
}

async fn a_sync_stores_every_plan_country_and_region(backend: Backend) {
    let Some((_t, db, upstream, client)) = setup(backend, 250).await else {
        return;
    };
    let catalog = Catalog::new(db.clone(), 2500);
    let report = synced(catalog.sync(&client, "test").await).await;
    let expected = upstream.sandbox.plans();
    assert_eq!(report.plans, expected.len());
    assert_eq!(report.skipped_plans, 0);
    assert!(report.countries > 10 && report.regions > 3, "{report:?}");

    let snap = catalog.snapshot();
    assert_eq!(snap.plans().len(), expected.len());
    for plan in &expected {
        let shop = snap
            .plan(&plan.id)
            .unwrap_or_else(|| panic!("plan {} missing", plan.id));
        assert_eq!(shop.cost.get(), plan.price_cents, "{}", plan.id);
        assert_eq!(shop.data_mb, plan.data_amount_mb);
        assert_eq!(shop.validity_days, plan.validity_days);
        assert_eq!(shop.is_daily, plan.is_daily_plan);
        assert_eq!(shop.networks, plan.networks, "null and [] stay distinct");
        assert_eq!(shop.network_type, plan.network_type);
        assert_eq!(shop.period_num, plan.period_num);
        assert_eq!(shop.fup_policy, plan.fup_policy);
        assert!(shop.available);
    }
    let last = snap.last_sync.as_ref().expect("sync recorded");
    assert!(last.ok && last.error.is_none());
    assert_eq!(
        usize::try_from(last.plan_count).expect("count"),
        expected.len()
    );
    assert!(last.finished_at_ms >= last.started_at_ms);

    // A second replica reading the same database serves the same catalog.
    let replica = Catalog::new(db.clone(), 2500);
    let replica_snap = replica.reload().await.expect("reload");
    assert_eq!(replica_snap.plans().len(), expected.len());

    // A markup rule saved through the first replica reaches the second at its next check,
    // and nothing is reloaded while nothing changed.
    let plan = replica_snap
        .plans()
        .iter()
        .find(|p| p.is_sellable())
        .expect("a plan")
        .clone();
    let unchanged = replica.snapshot().generation();
    replica.reload_if_changed().await.expect("check");
    assert_eq!(replica.snapshot().generation(), unchanged);
    let id = plan.id.clone();
    db.run(move |conn| {
        conn.write_tx(|conn| {
            storefront::db::pricing::save(
                conn,
                storefront::db::pricing::RuleValues {
                    scope_kind: "plan",
                    scope_value: &id,
                    markup_bps: 10_000,
                    fixed_cents: 0,
                    price_ending: None,
                    min_margin_cents: 0,
                },
                storefront::db::now_ms(),
            )
        })
    })
    .await
    .expect("save");
    replica.reload_if_changed().await.expect("check");
    let repriced = replica.snapshot();
    assert_eq!(
        repriced.plan(&plan.id).and_then(|p| p.price),
        Some(storefront::domain::Cents::new(plan.cost.get() * 2)),
        "the other replica sells at the new price"
    );
}

async fn a_failed_sync_keeps_the_previous_catalog(backend: Backend) {
    let Some((_t, db, upstream, client)) = setup(backend, 150).await else {
        return;
    };
    let catalog = Catalog::new(db, 2500);
    synced(catalog.sync(&client, "test").await).await;
    let before = catalog.snapshot().plans().len();

    // Every request fails for a while: the fetch gives up part-way.
    upstream.sandbox.inject(Fault::UnavailableBurst(1000));
    let failed = catalog.sync(&client, "test").await;
    assert!(matches!(failed, Err(SyncError::Upstream(_))), "{failed:?}");
    let snap = catalog.snapshot();
    assert_eq!(snap.plans().len(), before, "the good catalog stays");
    assert!(snap.plans().iter().all(|p| p.available));
    let last = snap.last_sync.as_ref().expect("failure recorded");
    assert!(!last.ok);
    assert!(last.error.as_deref().is_some_and(|e| !e.is_empty()));
    let good = snap
        .last_good_sync
        .as_ref()
        .expect("the good sync is still known");
    assert!(good.ok && good.id < last.id);

    // Recovery replaces the catalog again.
    upstream.sandbox.clear_faults();
    synced(catalog.sync(&client, "test").await).await;
    assert!(catalog.snapshot().last_sync.as_ref().is_some_and(|s| s.ok));
}

async fn plans_that_disappear_keep_their_rows_and_stop_selling(backend: Backend) {
    let Some((_t, db, upstream, client)) = setup(backend, 120).await else {
        return;
    };
    let catalog = Catalog::new(db, 2500);
    synced(catalog.sync(&client, "test").await).await;
    let gone = upstream.sandbox.plans()[3].id.clone();
    let country = catalog
        .snapshot()
        .plan(&gone)
        .expect("plan")
        .country_code
        .clone();
    upstream
        .sandbox
        .set_plan_available(&gone, false)
        .expect("hide plan");
    synced(catalog.sync(&client, "test").await).await;
    let snap = catalog.snapshot();
    let plan = snap
        .plan(&gone)
        .expect("the row is kept for purchases that refer to it");
    assert!(!plan.available && !plan.is_sellable());
    assert!(
        !snap.local_plans(&country).iter().any(|p| p.id == gone)
            && !snap.covering_plans(&country).iter().any(|p| p.id == gone),
        "an unavailable plan is not listed"
    );
    upstream
        .sandbox
        .set_plan_available(&gone, true)
        .expect("show plan");
    synced(catalog.sync(&client, "test").await).await;
    assert!(catalog.snapshot().plan(&gone).expect("plan").is_sellable());
}

async fn price_changes_reach_the_snapshot_and_prices_never_drop_below_cost(backend: Backend) {
    let Some((_t, db, upstream, client)) = setup(backend, 200).await else {
        return;
    };
    let catalog = Catalog::new(db, 2500);
    synced(catalog.sync(&client, "test").await).await;
    let id = upstream.sandbox.plans()[0].id.clone();
    upstream.sandbox.set_plan_price(&id, 4321).expect("price");
    synced(catalog.sync(&client, "test").await).await;
    let snap = catalog.snapshot();
    let plan = snap.plan(&id).expect("plan");
    assert_eq!(plan.cost.get(), 4321);
    assert_eq!(
        plan.price.map(|p| p.get()),
        Some(4321 + 1081),
        "25% markup, rounded up"
    );
    for plan in snap.plans() {
        if let Some(price) = plan.price {
            assert!(price >= plan.cost, "{} sells below cost", plan.id);
        }
    }
}

async fn plans_no_card_can_pay_for_are_kept_but_listed_nowhere(backend: Backend) {
    let Some((_t, db, upstream, client)) = setup(backend, 120).await else {
        return;
    };
    let catalog = Catalog::new(db, 2500);
    synced(catalog.sync(&client, "test").await).await;
    let plans = upstream.sandbox.plans();
    let free = plans
        .iter()
        .find(|p| p.price_cents == 0)
        .expect("a free plan");
    let absurd = plans
        .iter()
        .find(|p| p.price_cents == 9_007_199_254_740_991)
        .expect("a plan at the spec's maximum");
    // Whether any list (country, covered country, region) shows the plan.
    let listed = |snap: &Snapshot, id: &str| {
        let plan = snap.plan(id).expect("kept for purchases that refer to it");
        let mut lists = vec![snap.local_plans(&plan.country_code)];
        lists.extend(plan.coverage.iter().map(|c| snap.covering_plans(c)));
        if let Some(region) = &plan.region {
            lists.push(snap.region_plans(region));
        }
        lists.iter().flatten().any(|p| p.id == id)
    };
    let snap = catalog.snapshot();
    for id in [&free.id, &absurd.id] {
        let plan = snap.plan(id).expect("kept");
        assert!(plan.available && !plan.is_sellable(), "{id}");
        assert!(!listed(&snap, id), "{id} is listed");
    }
    // Every count and from-price is of plans on sale.
    for d in snap.destinations() {
        let local = snap.local_plans(&d.code);
        assert_eq!(d.local_plans, local.len(), "{}", d.code);
        assert!(local.iter().all(|p| p.is_sellable()), "{}", d.code);
        for from in [d.from_price, d.covering_from].into_iter().flatten() {
            assert!(
                from >= MIN_CARD_CHARGE && from <= MAX_CARD_CHARGE,
                "{}: {from}",
                d.code
            );
        }
    }
    for r in snap.regions() {
        assert!(snap.region_plans(&r.slug).iter().all(|p| p.is_sellable()));
        assert_eq!(r.plans, snap.region_plans(&r.slug).len());
    }

    // Priced within reach at the next sync, the plan is on sale and listed.
    upstream
        .sandbox
        .set_plan_price(&free.id, 1000)
        .expect("price");
    synced(catalog.sync(&client, "test").await).await;
    let snap = catalog.snapshot();
    assert!(snap.plan(&free.id).is_some_and(|p| p.is_sellable()));
    assert!(listed(&snap, &free.id));
}

async fn only_one_sync_runs_at_a_time(backend: Backend) {
    let Some((_t, db, upstream, client)) = setup(backend, 120).await else {
        return;
    };
    let a = Catalog::new(db.clone(), 2500);
    let b = Catalog::new(db, 2500);
    // Slow the upstream down so the two syncs overlap.
    upstream
        .sandbox
        .inject(Fault::Latency(Duration::from_millis(150)));
    let (first, second) = tokio::join!(a.sync(&client, "replica-a"), b.sync(&client, "replica-b"));
    let outcomes = [first.expect("a"), second.expect("b")];
    let skipped = outcomes
        .iter()
        .filter(|o| matches!(o, SyncOutcome::Skipped))
        .count();
    assert_eq!(skipped, 1, "exactly one replica syncs: {outcomes:?}");
    // The lease is released afterwards: the next sync runs.
    upstream.sandbox.inject(Fault::Latency(Duration::ZERO));
    synced(b.sync(&client, "replica-b").await).await;
}
