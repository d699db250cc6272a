//! The local copy of the supplier's history: after many orders placed with the supplier (more
//! than a page of each listing) and a sale through the shop, one refresh stores exactly the
//! supplier's orders and transactions; a second refresh after a few more orders reads no more
//! than the new pages (neither is held back by the client's page cap); and the reconciliation from the copy equals the one that walks the
//! supplier's listings whole, before and after the owner explains a mismatch.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use storefront::books::history::{self, Pass};
use storefront::books::{Books, Period};
use storefront::config::Secret;
use storefront::sandbox::{self, SandboxConfig, SandboxHandle};
use storefront::upstream::{PageLimit, PartnerClient, UpstreamClientConfig};

use crate::both_backends;
use crate::helpers::{Backend, TestApp, random_suffix, spawn_app_with};
use crate::journeys::buy_and_wait_fulfilled;

both_backends!(the_copy_holds_the_supplier_history_and_reconciles_like_the_walk);

/// The shop on a sandbox of its own with $500 of opening credit; with its key.
pub(crate) async fn shop(backend: Backend) -> Option<(TestApp, SandboxHandle, String)> {
    let key = format!("sk_test_{}", random_suffix());
    let mut config = SandboxConfig::new(key.clone());
    config.plans = 30;
    config.opening_balance_cents = 50_000;
    config.paid_delay = Duration::from_millis(10);
    config.provisioning_delay = Duration::from_millis(10);
    let upstream = sandbox::spawn(config).await.expect("sandbox starts");
    let app = spawn_app_with(
        backend,
        &[
            ("STOREFRONT_UPSTREAM_BASE_URL", upstream.base_url.as_str()),
            ("STOREFRONT_UPSTREAM_API_KEY", key.as_str()),
        ],
    )
    .await?;
    let started = Instant::now();
    while app.catalog.snapshot().plans().is_empty() {
        assert!(started.elapsed() < Duration::from_secs(20), "no catalog");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Some((app, upstream, key))
}

/// Places `n` orders with the supplier directly (not through the shop), then waits until the
/// supplier has fulfilled every order, so nothing changes while the copy is compared.
async fn place_orders(upstream: &SandboxHandle, key: &str, n: usize) {
    let plan = upstream
        .sandbox
        .plans()
        .into_iter()
        .min_by_key(|p| p.price_cents)
        .expect("a plan");
    let http = reqwest::Client::new();
    for _ in 0..n {
        let answer = http
            .post(format!("{}/orders", upstream.base_url))
            .bearer_auth(key)
            .header("Idempotency-Key", format!("direct-{}", random_suffix()))
            .json(&serde_json::json!({
                "planId": plan.id,
                "expectedPriceCents": plan.price_cents,
                "reference": format!("direct-{}", random_suffix()),
            }))
            .send()
            .await
            .expect("sandbox answers");
        assert_eq!(answer.status().as_u16(), 202);
    }
    let started = Instant::now();
    while upstream
        .sandbox
        .orders()
        .iter()
        .any(|o| o.status.as_str() != "fulfilled")
    {
        assert!(started.elapsed() < Duration::from_secs(30), "orders settle");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The ids in the supplier's listings, read whole.
async fn listed(client: &PartnerClient) -> (BTreeSet<String>, BTreeSet<i64>) {
    let limit = PageLimit::new(100).expect("limit");
    let orders = client
        .orders_pager(limit)
        .collect_all()
        .await
        .expect("orders");
    let transactions = client
        .balance_transactions_pager(limit)
        .collect_all()
        .await
        .expect("transactions");
    (
        orders.into_iter().map(|o| o.id).collect(),
        transactions.into_iter().map(|t| t.id).collect(),
    )
}

/// The ids the copy holds.
async fn copied(app: &TestApp) -> (BTreeSet<String>, BTreeSet<i64>) {
    use diesel::prelude::*;
    use storefront::db::schema::{supplier_orders, supplier_transactions};
    app.db
        .run(|conn| {
            let orders: Vec<String> = supplier_orders::table
                .select(supplier_orders::id)
                .load(conn)?;
            let transactions: Vec<i64> = supplier_transactions::table
                .select(supplier_transactions::id)
                .load(conn)?;
            Ok::<_, storefront::db::DbError>((
                orders.into_iter().collect(),
                transactions.into_iter().collect(),
            ))
        })
        .await
        .expect("the copy")
}

/// Waits until the wall clock's second has turned, so orders placed next have a later upstream
/// time than every order before.
async fn next_second() {
    tokio::time::sleep(std::time::Duration::from_millis(1_100)).await;
}

async fn the_copy_holds_the_supplier_history_and_reconciles_like_the_walk(backend: Backend) {
    let Some((app, upstream, key)) = shop(backend).await else {
        return;
    };
    upstream
        .sandbox
        .set_balance(10_000_000)
        .expect("a large balance");
    buy_and_wait_fulfilled(&app).await;
    // Upstream times are whole seconds and the refresh's anchor is every stored item with the
    // newest time, so the last few orders get a second of their own: a real shop's newest
    // second holds a handful of orders, not the whole test's history.
    place_orders(&upstream, &key, 225).await;
    next_second().await;
    place_orders(&upstream, &key, 5).await;
    let config = UpstreamClientConfig::new(
        reqwest::Url::parse(&upstream.base_url).expect("base"),
        Secret::new(key.clone()),
    );
    let client = PartnerClient::new(config.clone()).expect("client");
    // A client whose page cap the history is longer than: the copy's refresh reads past it.
    let capped = PartnerClient::new(UpstreamClientConfig {
        max_pages: 2,
        ..config
    })
    .expect("client");

    // The first refresh reads everything, and the copy is exactly the supplier's history.
    let first = history::refresh(&app.db, &capped, Pass::Incremental)
        .await
        .expect("refresh");
    assert!(first.orders.full && first.transactions.full, "{first:?}");
    assert!(first.orders.pages >= 3, "{first:?}");
    let supplier = listed(&client).await;
    assert_eq!(copied(&app).await, supplier);
    assert_eq!(first.orders.new, supplier.0.len());
    assert_eq!(first.transactions.new, supplier.1.len());

    // A few more orders: the next refresh reads only the pages that bring them.
    next_second().await;
    place_orders(&upstream, &key, 5).await;
    let second = history::refresh(&app.db, &client, Pass::Incremental)
        .await
        .expect("refresh");
    assert_eq!(second.orders.new, 5, "{second:?}");
    assert!(
        !second.orders.full && second.orders.pages <= 2,
        "only the new pages: {second:?} (first: {first:?})"
    );
    assert!(
        !second.transactions.full && second.transactions.pages <= 2,
        "only the new pages: {second:?} (first: {first:?})"
    );
    assert_eq!(copied(&app).await, listed(&client).await);

    // The reconciliation of today from the copy is the walk's, line for line.
    let books = Books {
        db: &app.db,
        upstream: &client,
    };
    let today = time::OffsetDateTime::now_utc().date().to_string();
    let period = Period::parse(&today, &today).expect("period");
    let walked = books
        .reconcile_walking_upstream(period)
        .await
        .expect("walk");
    let from_copy = books.reconcile_from_copy(period).await.expect("copy");
    assert_eq!(
        walked.lines.len(),
        1 + 235 + 1 + 1,
        "sale, orders, opening credit, adjustment"
    );
    assert_eq!(from_copy, walked);
    assert_eq!(
        from_copy.totals.mismatches, 236,
        "every direct order and the adjustment"
    );

    // The same for yesterday (nothing) and for a period the copy names only by time.
    let day_before = time::OffsetDateTime::now_utc()
        .date()
        .previous_day()
        .expect("day")
        .to_string();
    let earlier = Period::parse(&day_before, &day_before).expect("period");
    assert_eq!(
        books.reconcile_from_copy(earlier).await.expect("copy"),
        books
            .reconcile_walking_upstream(earlier)
            .await
            .expect("walk")
    );
}
