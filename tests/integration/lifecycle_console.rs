//! The owner's bad day through the console: a paid order waits because the wallet is short,
//! the owner refunds it, tops up and retries everything waiting. The consumer gets one refund
//! and one honest email, and no eSIM is bought for that order. And a suspension whose only
//! waiting order was refunded: nothing can prove the account fixed, so the owner resumes sales.

use std::time::Duration;

use diesel::prelude::*;
use storefront::db::schema::{alerts, refunds};
use storefront::db::{DbError, purchases};
use storefront::orders::confirm::{self, Applied};
use storefront::payments::{EventKind, PaymentEvent};
use storefront::staff::Role;

use crate::admin::{OWNER, create, login_as};
use crate::both_backends;
use crate::fixtures::as_id;
use crate::helpers::{Backend, Browser, hidden, spawn_shop, wait_until};
use crate::journeys::{buy_and_wait_fulfilled, checkout_cheap_plan, pay, sellable_plan};

both_backends!(
    a_refund_while_the_wallet_is_short_buys_nothing_and_says_why,
    sales_paused_for_the_account_resume_by_hand_once_nothing_waits,
    a_refund_settles_the_alert_that_asked_for_it_and_its_report_raises_none,
);

/// Undoes quoted-printable soft breaks and `=3D`, enough to read a sentence of an `.eml`.
fn unfolded(raw: &str) -> String {
    raw.replace("=\r\n", "")
        .replace("=\n", "")
        .replace("=3D", "=")
}

async fn a_refund_while_the_wallet_is_short_buys_nothing_and_says_why(backend: Backend) {
    let Some((app, upstream)) = spawn_shop(backend, 60).await else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    let owner = login_as(&app, OWNER).await;

    // The sale is made while the wallet covers it; it is empty by the time the money lands.
    let shopper = Browser::default();
    let pay_path = checkout_cheap_plan(&app, &shopper).await;
    upstream.sandbox.set_balance(0).expect("balance");
    let order_path = pay(&app, &shopper, &pay_path)
        .await
        .assert_status(303)
        .location();
    let purchase_id = order_path
        .trim_start_matches("/orders/")
        .split('?')
        .next()
        .unwrap_or_default()
        .to_string();
    let db = app.db.clone();
    wait_until("the placement meets insufficient_balance", async || {
        db.run(|c| {
            Ok::<_, DbError>(
                alerts::table
                    .filter(alerts::kind.eq("insufficient_balance"))
                    .count()
                    .get_result::<i64>(c)?,
            )
        })
        .await
        .expect("alerts")
            > 0
    })
    .await;

    // The order page offers a refund that cancels the waiting placement.
    let page = owner
        .get(&app, &format!("/admin/orders/{purchase_id}"))
        .await
        .body;
    assert!(
        page.contains("The queued placement is cancelled with it"),
        "{page}"
    );
    assert!(
        !page.contains("refund-keep-cost"),
        "no order exists: {page}"
    );
    let answer = owner
        .act(&app, &purchase_id, "refund", "customer no longer travels")
        .await;
    assert_eq!(answer.status, 303, "refund accepted");
    answer.assert_redirect_to(format!("/admin/orders/{purchase_id}?done=refund"));

    // The owner tops up and presses every retry the console offers.
    upstream.sandbox.set_balance(100_000).expect("top-up");
    let dashboard = owner.get(&app, "/admin").await.body;
    let status = owner
        .post(
            &app,
            "/admin/placements/retry",
            &[("csrf_token", &hidden(&dashboard, "csrf_token"))],
        )
        .await
        .status;
    assert_eq!(status, 303);
    let _ = owner
        .act(&app, &purchase_id, "retry", "after the top-up")
        .await;

    let db = app.db.clone();
    let id = purchase_id.clone();
    wait_until("the purchase is refunded", async || {
        let id = id.clone();
        db.run(move |c| purchases::find(c, &as_id(&id)))
            .await
            .expect("find")
            .is_some_and(|p| p.status.as_str() == "refunded")
    })
    .await;
    // Give any wrongly queued placement the time to run.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let stats = upstream.sandbox.stats();
    assert_eq!(stats.orders, 0, "no eSIM bought for a refunded order");
    let refunds: Vec<(String, String)> = app
        .db
        .run(|c| {
            Ok::<_, DbError>(
                refunds::table
                    .select((refunds::status, refunds::cause))
                    .load(c)?,
            )
        })
        .await
        .expect("refunds");
    assert_eq!(
        refunds,
        [("succeeded".to_string(), "on_request".to_string())],
        "one provider refund"
    );
    let app_ref = &app;
    wait_until("the refund email is written", async || {
        app_ref
            .emails()
            .iter()
            .any(|m| unfolded(m).contains("We refunded"))
    })
    .await;
    let refund_emails: Vec<String> = app
        .emails()
        .iter()
        .map(|m| unfolded(m))
        .filter(|m| m.contains("We refunded"))
        .collect();
    assert_eq!(refund_emails.len(), 1, "one refund email");
    assert!(
        refund_emails[0].contains("the shop refunded this order on request"),
        "{}",
        refund_emails[0]
    );
    assert!(!refund_emails[0].contains("supplier could not"));
    let order_page = shopper.get(&app, &order_path).await.body;
    assert!(
        order_page.contains("data-status=\"refunded\""),
        "{order_page}"
    );
}

/// Open alerts of `kind`, of one purchase or of any.
async fn open_alerts(
    app: &crate::helpers::TestApp,
    purchase_id: Option<&str>,
    kind: &'static str,
) -> i64 {
    let id = purchase_id.map(str::to_string);
    app.db
        .run(move |c| {
            let mut open = alerts::table
                .filter(alerts::kind.eq(kind))
                .filter(alerts::resolved_at_ms.is_null())
                .into_boxed();
            if let Some(id) = id {
                open = open.filter(alerts::purchase_id.eq(id));
            }
            Ok::<_, DbError>(open.count().get_result::<i64>(c)?)
        })
        .await
        .expect("alerts")
}

async fn open_alerts_of(app: &crate::helpers::TestApp, kind: &'static str) -> i64 {
    open_alerts(app, None, kind).await
}

async fn sales_paused_for_the_account_resume_by_hand_once_nothing_waits(backend: Backend) {
    let Some((app, upstream)) = spawn_shop(backend, 60).await else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    let owner = login_as(&app, OWNER).await;

    // The supplier suspends purchasing between the sale and its payment.
    let shopper = Browser::default();
    let pay_path = checkout_cheap_plan(&app, &shopper).await;
    upstream.sandbox.set_purchasing_suspended(true);
    let purchase_id = pay(&app, &shopper, &pay_path)
        .await
        .assert_status(303)
        .location()
        .trim_start_matches("/orders/")
        .split('?')
        .next()
        .unwrap_or_default()
        .to_string();
    let app_ref = &app;
    wait_until("the placement meets the suspension", async || {
        open_alerts_of(app_ref, "account_problem").await > 0
    })
    .await;

    // The owner refunds the waiting order; the supplier lifts the suspension.
    assert_eq!(
        owner
            .act(
                &app,
                &purchase_id,
                "refund",
                "the supplier cannot deliver today",
            )
            .await
            .status,
        303,
        "refund accepted"
    );
    let db = app.db.clone();
    let id = purchase_id.clone();
    wait_until("the purchase is refunded", async || {
        let id = id.clone();
        db.run(move |c| purchases::find(c, &as_id(&id)))
            .await
            .expect("find")
            .is_some_and(|p| p.status.as_str() == "refunded")
    })
    .await;
    upstream.sandbox.set_purchasing_suspended(false);

    // No order waits to prove the account fixed: the dashboard offers to resume by hand.
    let dashboard = owner.get(&app, "/admin").await.body;
    assert!(dashboard.contains("Sales are paused"), "{dashboard}");
    assert!(
        !dashboard.contains(">Retry waiting placements</button>"),
        "nothing waits: {dashboard}"
    );
    assert!(dashboard.contains(">Resume sales</button>"), "{dashboard}");
    owner
        .post(
            &app,
            "/admin/placements/retry",
            &[("csrf_token", &hidden(&dashboard, "csrf_token"))],
        )
        .await
        .assert_status(303);
    let dashboard = owner.get(&app, "/admin").await.body;
    assert!(!dashboard.contains("Sales are paused"), "{dashboard}");
    assert!(!dashboard.contains(">Resume sales</button>"), "{dashboard}");
    assert_eq!(open_alerts_of(&app, "account_problem").await, 0);

    // Shoppers can buy again (each process re-reads the pause within two seconds).
    tokio::time::sleep(Duration::from_millis(2_100)).await;
    let next = Browser::default();
    let pay_path = checkout_cheap_plan(&app, &next).await;
    crate::journeys::wait_fulfilled(
        &app,
        &next,
        &pay(&app, &next, &pay_path)
            .await
            .assert_status(303)
            .location(),
    )
    .await;
    assert_eq!(
        upstream.sandbox.stats().orders,
        1,
        "only the new sale is bought"
    );
}

/// Open alerts of `kind` for one purchase.
async fn open_alerts_for(
    app: &crate::helpers::TestApp,
    purchase_id: &str,
    kind: &'static str,
) -> i64 {
    open_alerts(app, Some(purchase_id), kind).await
}

/// The provider's report of a refund of the purchase's full price, as its webhook delivers it.
async fn provider_reports_refund(app: &crate::helpers::TestApp, purchase_id: &str, event_id: &str) {
    let id = purchase_id.to_string();
    let purchase = app
        .db
        .run(move |c| purchases::find(c, &as_id(&id)))
        .await
        .expect("find")
        .expect("purchase");
    let event = PaymentEvent {
        id: event_id.to_string(),
        kind: EventKind::Refunded {
            payment_reference: purchase.payment_reference.clone().expect("paid"),
            amount: purchase.price_cents,
        },
    };
    let applied = app
        .db
        .run(move |c| confirm::apply(c, "demo", &event))
        .await
        .expect("applied");
    assert_eq!(applied, Applied::Recorded);
}

/// The supplier withdraws a plan after it was sold: the order needs a decision. The owner
/// refunds; once the refund succeeds the alert that asked for the decision is resolved, and
/// the provider's later report of that same refund is noted, not raised as a refund the shop
/// did not make. A refund made at the provider behind the shop's back still is.
async fn a_refund_settles_the_alert_that_asked_for_it_and_its_report_raises_none(backend: Backend) {
    let Some((app, upstream)) = spawn_shop(backend, 60).await else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    let owner = login_as(&app, OWNER).await;

    let plan = sellable_plan(&app);
    let shopper = Browser::default();
    let pay_path = checkout_cheap_plan(&app, &shopper).await;
    upstream
        .sandbox
        .set_plan_available(&plan.id, false)
        .expect("plan");
    let purchase_id = pay(&app, &shopper, &pay_path)
        .await
        .assert_status(303)
        .location()
        .trim_start_matches("/orders/")
        .split('?')
        .next()
        .unwrap_or_default()
        .to_string();
    let app_ref = &app;
    let id = purchase_id.as_str();
    wait_until("the refused order needs attention", async || {
        open_alerts_for(app_ref, id, "needs_attention").await > 0
    })
    .await;
    upstream
        .sandbox
        .set_plan_available(&plan.id, true)
        .expect("plan");

    assert_eq!(
        owner
            .act(
                &app,
                &purchase_id,
                "refund",
                "the supplier withdrew the plan",
            )
            .await
            .status,
        303,
        "refund accepted"
    );
    let db = app.db.clone();
    wait_until("the purchase is refunded", async || {
        let id = purchase_id.clone();
        db.run(move |c| purchases::find(c, &as_id(&id)))
            .await
            .expect("find")
            .is_some_and(|p| p.status.as_str() == "refunded")
    })
    .await;
    assert_eq!(
        open_alerts_for(&app, &purchase_id, "needs_attention").await,
        0,
        "the refund was the decision the alert asked for"
    );
    let listed = app
        .db
        .run(|c| storefront::db::dashboard::needing_attention(c, 50))
        .await
        .expect("needing attention");
    assert!(
        listed.iter().all(|p| p.id != purchase_id),
        "no longer on the dashboard"
    );

    provider_reports_refund(&app, &purchase_id, "evt_our_refund").await;
    assert_eq!(
        open_alerts_for(&app, &purchase_id, "payment_refunded").await,
        0,
        "the shop's own refund"
    );

    let fulfilled = buy_and_wait_fulfilled(&app).await;
    provider_reports_refund(&app, &fulfilled, "evt_not_ours").await;
    assert_eq!(
        open_alerts_for(&app, &fulfilled, "payment_refunded").await,
        1,
        "a refund the shop did not make"
    );
}
