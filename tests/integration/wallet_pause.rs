//! The owner's choice to pause sales below the low-balance threshold: the shop's plan pages
//! say "temporarily unavailable" instead of offering a checkout that would fail, checkout
//! refuses, a released reservation that leaves the balance short resumes nothing, and a
//! top-up that lifts the balance back over the threshold resumes sales.

use std::time::{Duration, Instant};

use diesel::prelude::*;
use storefront::catalog::ShopPlan;
use storefront::db::schema::purchases;
use storefront::db::{Db, DbError};
use storefront::domain::Cents;
use storefront::sandbox::{KeySpec, Outcome, Scope};
use storefront::staff::Role;

use crate::admin::{Browser, OWNER, PASSWORD, audit_rows, create, hidden};
use crate::both_backends;
use crate::helpers::{Backend, TestApp, spawn_shop};

both_backends!(below_the_threshold_the_shop_pauses_until_a_top_up_lifts_the_balance);

fn sellable_plan(app: &TestApp) -> ShopPlan {
    app.catalog
        .snapshot()
        .plans()
        .iter()
        .find(|p| {
            p.is_sellable() && p.price.is_some_and(|c| c.get() >= 100) && p.cost.get() < 5_000
        })
        .expect("a sellable plan")
        .clone()
}

async fn purchase_count(db: &Db) -> i64 {
    db.run(|conn| Ok::<_, DbError>(purchases::table.count().get_result(conn)?))
        .await
        .expect("count")
}

/// The plan page as a consumer sees it, once this replica's copy of the pause (at most a
/// couple of seconds old) shows `paused`.
async fn plan_page_when(app: &TestApp, plan: &ShopPlan, paused: bool) -> String {
    let started = Instant::now();
    loop {
        let page = app
            .get(&format!("/plans/{}", plan.id))
            .await
            .text()
            .await
            .expect("plan page");
        if page.contains("temporarily unavailable") == paused {
            return page;
        }
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "the plan page never showed paused={paused}: {page}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

async fn sales_paused(db: &Db) -> bool {
    db.run(storefront::db::wallet::get)
        .await
        .expect("wallet")
        .is_some_and(|w| w.sales_paused)
}

async fn below_the_threshold_the_shop_pauses_until_a_top_up_lifts_the_balance(backend: Backend) {
    let Some((app, upstream)) = spawn_shop(backend, 40).await else {
        return;
    };
    let sandbox = &upstream.sandbox;
    let plan = sellable_plan(&app);
    create(&app.db, OWNER, Role::Owner).await;
    let owner = Browser::default();
    assert_eq!(owner.login(&app, OWNER, PASSWORD).await.status, 303);

    // Off by default: below the threshold, the owners are alerted and the shop still sells.
    sandbox.set_balance(12_000).expect("balance");
    let page = owner.get(&app, "/admin/wallet").await.body;
    assert!(
        page.contains("Sales go on below the threshold (alert only)"),
        "{page}"
    );
    assert!(!page.contains("New sales are paused"));
    let shop = plan_page_when(&app, &plan, false).await;
    assert!(shop.contains("action=\"/checkout\""), "{shop}");
    // A consumer opens the plan page now and submits its form after the pause below.
    let browser = Browser::default();
    let early = browser.get(&app, &format!("/plans/{}", plan.id)).await.body;
    let early_token = hidden(&early, "csrf_token");

    // The owner raises the threshold to $150 and chooses to pause below it.
    let token = hidden(&page, "csrf_token");
    owner
        .post(
            &app,
            "/admin/wallet/threshold",
            &[
                ("csrf_token", &token),
                ("threshold", "150"),
                ("pause_below", "yes"),
            ],
        )
        .await
        .assert_redirect_to("/admin/wallet?done=threshold");
    assert!(audit_rows(&app.db).await.iter().any(|r| {
        r.1 == "wallet_threshold_set"
            && r.3 == "before: $100.00, alert only; after: $150.00, sales pause below it"
    }));
    let page = owner.get(&app, "/admin/wallet?done=threshold").await.body;
    assert!(
        page.contains("New sales pause below the threshold."),
        "{page}"
    );
    assert!(
        page.contains("below your threshold of $150.00"),
        "the console says why sales are paused: {page}"
    );
    assert!(page.contains(" checked>"), "the box stays ticked");

    // The shop shows an honest message instead of a checkout form.
    let shop = plan_page_when(&app, &plan, true).await;
    assert!(!shop.contains("action=\"/checkout\""), "{shop}");
    assert!(shop.contains(&plan.price.expect("price").to_string()));

    // A checkout form rendered before the pause is refused; nothing is created.
    let token = early_token;
    let price = plan.price.expect("price").get().to_string();
    browser
        .post(
            &app,
            "/checkout",
            &[
                ("csrf_token", &token),
                ("plan_id", &plan.id),
                ("email", "ana@example.com"),
                ("confirm_device", "yes"),
                ("accept_terms", "yes"),
                ("expected_price_cents", &price),
            ],
        )
        .await
        .assert_status(409);
    assert_eq!(purchase_count(&app.db).await, 0);

    // An order placed with another key of the account reserves credit; it then fails
    // upstream and the reservation is released: available goes back up to $120, still below
    // $150.
    let other_key = sandbox.create_key(KeySpec {
        scopes: vec![Scope::OrdersWrite, Scope::CatalogRead],
        expired: false,
        environment: "sandbox".into(),
    });
    let (upstream_plan, cost) = sandbox
        .plans()
        .into_iter()
        .find(|p| (1_000..=6_000).contains(&p.price_cents))
        .map(|p| (p.id, p.price_cents))
        .expect("a plan for $10 to $60");
    sandbox
        .set_plan_outcome(&upstream_plan, Outcome::Failed)
        .expect("outcome");
    let placed = app
        .client
        .post(format!("{}/orders", upstream.base_url))
        .bearer_auth(&other_key)
        .header("Idempotency-Key", "release-test-1")
        .json(&serde_json::json!({
            "planId": upstream_plan,
            "expectedPriceCents": cost,
            "reference": "elsewhere-1",
        }))
        .send()
        .await
        .expect("order");
    assert_eq!(placed.status().as_u16(), 202);
    let page = owner.get(&app, "/admin/wallet").await.body;
    let reserved = Cents::new(12_000 - cost).to_string();
    assert!(page.contains(&reserved), "the reservation shows: {page}");
    let started = Instant::now();
    while sandbox.balance().available_cents != 12_000 {
        assert!(started.elapsed() < Duration::from_secs(5), "never released");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let page = owner.get(&app, "/admin/wallet").await.body;
    assert!(
        page.contains("$120.00") && page.contains("release"),
        "{page}"
    );
    assert!(
        sales_paused(&app.db).await,
        "a release that leaves the balance short resumes nothing"
    );
    plan_page_when(&app, &plan, true).await;

    // A $50 top-up brings the balance to $170: the balance read resumes sales.
    let page = owner.get(&app, "/admin/wallet").await.body;
    let progress = owner
        .post(
            &app,
            "/admin/wallet/topup",
            &[
                ("csrf_token", &hidden(&page, "csrf_token")),
                ("nonce", &hidden(&page, "nonce")),
                ("amount", "50"),
            ],
        )
        .await
        .assert_status(303)
        .location();
    let page = owner.get(&app, &progress).await.body;
    assert!(page.contains("data-topup-status=\"pending\""), "{page}");
    assert!(
        sales_paused(&app.db).await,
        "asking for a top-up is not paying it"
    );
    let session = page
        .split("/_sandbox/checkout/")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("checkout link")
        .to_string();
    sandbox.complete_topup(&session).expect("pay");
    let page = owner.get(&app, &progress).await.body;
    assert!(page.contains("data-topup-status=\"paid\""), "{page}");
    assert!(page.contains("$170.00"), "{page}");
    assert!(!sales_paused(&app.db).await, "the top-up resumed sales");
    let shop = plan_page_when(&app, &plan, false).await;
    assert!(shop.contains("action=\"/checkout\""), "{shop}");
}
