//! The owner's journey through the console in headless Chromium (see [`crate::webdriver`]), on
//! a laptop-sized window, against one shop: log in; change a country's markup with the picker
//! (the country typed by its name) and see the plan page's price change; top up the wallet, pay
//! on the sandbox's hosted checkout page and see the credit; refund a customer's order from its
//! page and see it refunded, in the console and on the customer's own order page; and find an
//! abandoned checkout left out of the orders list until asked for. A browser
//! applies the shop's CSP, which a plain HTTP client does not: this is the test that catches a
//! form whose answer the browser refuses to follow.
//!
//! axe-core runs on every console page type on the way and must find no critical or serious
//! violation (see [`crate::journeys_browser`] for where it comes from). A failure leaves a
//! screenshot of the page in the screenshot folder; the wallet, top-up and abandoned-checkout
//! pages are always shot at phone and laptop sizes there (and must not scroll sideways on a
//! phone), for a person to look at.

use std::time::{Duration, Instant};

use diesel::prelude::*;
use storefront::catalog::{PlanKind, ShopPlan};
use storefront::db::DbError;
use storefront::db::schema::purchases;
use storefront::staff::Role;

use crate::admin::{OWNER, PASSWORD, create};
use crate::helpers::{Backend, TestApp, spawn_shop};
use crate::journeys::{pay, purchase_id, wait_fulfilled};
use crate::journeys_browser::{ShotOnFailure, axe_source, screenshot_dir, serious_violations};
use crate::webdriver::{Browser, LAPTOP, PHONE};

/// Screenshots of the current page at both sizes (scrolled to the element with id `at`, if
/// given), back at laptop size afterwards.
async fn shoot(browser: &Browser, name: &str, at: Option<&str>) {
    let dir = screenshot_dir();
    let scroll = at.map(|id| format!("document.getElementById('{id}').scrollIntoView();"));
    browser.set_size(PHONE).await;
    if let Some(script) = &scroll {
        browser.execute(script).await;
    }
    browser
        .screenshot(&dir.join(format!("owner-{name}-phone.png")))
        .await;
    let wide = browser.overflowing().await;
    assert!(
        wide.is_empty(),
        "{name} scrolls sideways on a phone: {wide:?}"
    );
    browser.set_size(LAPTOP).await;
    if let Some(script) = &scroll {
        browser.execute(script).await;
    }
    browser
        .screenshot(&dir.join(format!("owner-{name}-laptop.png")))
        .await;
}

/// axe-core on the current page (when it is installed): no critical or serious violation.
async fn check(browser: &Browser, axe: Option<&str>, page: &str) {
    let Some(axe) = axe else {
        return;
    };
    let violations = serious_violations(browser, axe).await;
    assert!(
        violations.is_empty(),
        "axe-core on the console's {page} page ({}): {violations:#?}",
        browser.current_url().await
    );
}

/// A local plan on sale that the demo provider can sell, in a country with a plain English
/// name (the owner types it into the picker).
fn local_plan(app: &TestApp) -> ShopPlan {
    let snap = app.catalog.snapshot();
    let fits = |p: &&ShopPlan| {
        p.kind == PlanKind::Local
            && p.is_sellable()
            && p.price.is_some_and(|c| c.get() >= 100)
            && p.cost.get() < 20_000
            && p.country_name
                .chars()
                .all(|c| c.is_ascii_alphabetic() || c == ' ')
    };
    snap.plans()
        .iter()
        .find(fits)
        .expect("a local plan on sale")
        .clone()
}

/// The plan page's price as the browser shows it.
async fn shown_price(browser: &Browser, app: &TestApp, plan: &ShopPlan) -> String {
    browser.goto(&app.url(&plan.labels.href)).await;
    browser.wait_for("class=\"amount\"").await;
    browser.text(".buy .price .amount").await
}

/// The owner changes the markup of `plan`'s country, choosing the country by its name, and
/// sees the plan page's price follow.
async fn reprice(browser: &Browser, app: &TestApp, axe: Option<&str>, plan: &ShopPlan) {
    let before = plan.price.expect("priced");
    assert_eq!(shown_price(browser, app, plan).await, before.to_string());

    browser.goto(&app.url("/admin/pricing")).await;
    browser.wait_for("Add or change a rule").await;
    check(browser, axe, "pricing").await;
    browser.click("#scope_kind option[value='country']").await;
    browser.type_into("#scope_value", &plan.country_name).await;
    browser.type_into("#markup_percent", "150").await;
    browser
        .click("form[action^='/admin/pricing/preview'] button[type=submit]")
        .await;
    let page = browser.wait_for("Save this rule").await;
    assert!(
        page.contains(&format!("href=\"{}\"", plan.labels.href)),
        "the preview lists the plan: {page}"
    );
    check(browser, axe, "pricing preview").await;
    browser
        .click("form[action^='/admin/pricing/save'] button[type=submit]")
        .await;
    browser
        .wait_for("Saved. The shop shows the new prices now.")
        .await;

    let after = app
        .catalog
        .snapshot()
        .plan(&plan.id)
        .and_then(|p| p.price)
        .expect("still priced");
    assert!(
        after.get() * 100 >= plan.cost.get() * 250,
        "150% on top of the cost: {after} for a cost of {}",
        plan.cost
    );
    assert_ne!(after, before);
    assert_eq!(
        shown_price(browser, app, plan).await,
        after.to_string(),
        "the shop shows the new price"
    );
    assert!(
        browser
            .text("form.checkout button[type=submit]")
            .await
            .ends_with(&after.to_string()),
        "and charges it"
    );
}

/// The owner tops up $25.50, pays on the sandbox's hosted page in a new tab, comes back and
/// sees the credit on the top-up and wallet pages.
async fn top_up(browser: &Browser, app: &TestApp, axe: Option<&str>, upstream_balance: i64) {
    let before = storefront::domain::Cents::new(upstream_balance);
    let after = storefront::domain::Cents::new(upstream_balance + 2_550);
    browser.goto(&app.url("/admin/wallet")).await;
    browser.wait_for(&before.to_string()).await;
    assert_eq!(browser.text("[data-available]").await, before.to_string());
    check(browser, axe, "wallet").await;
    shoot(browser, "wallet", None).await;
    shoot(browser, "wallet-threshold", Some("threshold")).await;

    browser.type_into("#amount", "25.50").await;
    browser
        .click("form[action='/admin/wallet/topup'] button[type=submit]")
        .await;
    // The form's answer is the console's own page: the browser follows it under the CSP.
    let page = browser.wait_for("data-topup-status=\"pending\"").await;
    assert!(
        browser
            .current_url()
            .await
            .contains("/admin/wallet/topups/"),
        "{page}"
    );
    check(browser, axe, "top-up").await;
    shoot(browser, "topup-pending", None).await;

    // The link opens the hosted checkout in a new tab; the console's tab stays.
    let console = browser.window_handle().await;
    browser.click("a[target=_blank]").await;
    let started = Instant::now();
    let checkout = loop {
        if let Some(h) = browser
            .window_handles()
            .await
            .into_iter()
            .find(|h| *h != console)
        {
            break h;
        }
        assert!(started.elapsed().as_secs() < 10, "no new tab");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    browser.switch_to(&checkout).await;
    browser.wait_for("SANDBOX checkout").await;
    assert!(browser.source().await.contains("Wallet top-up of $25.50"));
    browser.click("form[action$='/pay'] button").await;
    browser.wait_for("data-status=\"paid\"").await;

    // Back in the console's tab, a check shows the top-up paid and the credit.
    browser.switch_to(&console).await;
    browser.click("a.button.secondary").await;
    browser.wait_for("data-topup-status=\"paid\"").await;
    assert_eq!(browser.text("[data-available]").await, after.to_string());
    shoot(browser, "topup-paid", None).await;

    browser.goto(&app.url("/admin/wallet")).await;
    let page = browser.wait_for(&after.to_string()).await;
    assert_eq!(browser.text("[data-available]").await, after.to_string());
    assert!(
        page.contains(">paid<"),
        "the top-up is listed as paid: {page}"
    );
}

/// The orders list leaves the abandoned checkout out, says so, and shows it when asked.
async fn abandoned(browser: &Browser, app: &TestApp, axe: Option<&str>, id: &str) {
    browser.goto(&app.url("/admin/orders")).await;
    let page = browser.wait_for("<h1>Orders</h1>").await;
    assert!(
        !page.contains(&format!("href=\"/admin/orders/{id}\"")),
        "the abandoned checkout is not listed: {page}"
    );
    assert!(
        browser
            .text("[data-hidden-abandoned]")
            .await
            .starts_with("1 abandoned checkout "),
        "{page}"
    );
    browser.click("[data-hidden-abandoned] a").await;
    let page = browser.wait_for(">Abandoned checkout</span>").await;
    assert!(
        page.contains(&format!("href=\"/admin/orders/{id}\"")),
        "{page}"
    );
    check(browser, axe, "abandoned checkouts").await;
    shoot(browser, "orders-abandoned", None).await;
}

/// The owner finds the customer's order in the list, refunds it from its page (the eSIM was
/// bought from the wallet: "refund and keep the cost") and sees it refunded.
async fn refund(browser: &Browser, app: &TestApp, axe: Option<&str>, id: &str) {
    browser.goto(&app.url("/admin/orders")).await;
    browser.wait_for("<h1>Orders</h1>").await;
    check(browser, axe, "orders").await;
    browser
        .click(&format!("a[href='/admin/orders/{id}']"))
        .await;
    let page = browser.wait_for("data-status=\"fulfilled\"").await;
    assert!(page.contains("Refund"), "{page}");
    check(browser, axe, "order").await;
    browser
        .type_into(
            "#refund-keep-cost-reason",
            "the customer cancelled the trip",
        )
        .await;
    browser
        .click("form[action$='/refund-keep-cost'] button[type=submit]")
        .await;
    // It asks first, then refunds.
    browser.wait_for("and keep the cost?").await;
    check(browser, axe, "confirmation").await;
    browser.click(".confirm-actions button[type=submit]").await;
    browser.wait_for("class=\"banner ok\"").await;
    assert!(
        browser
            .current_url()
            .await
            .ends_with(&format!("/admin/orders/{id}?done=refund-keep-cost")),
        "back on the order"
    );
    // The demo provider refunds in the background: the page shows it on a reload.
    let started = Instant::now();
    loop {
        let page = browser.source().await;
        if page.contains("<span class=\"status\" data-status=\"refunded\">Refunded</span>") {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "never refunded: {page}"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
        browser.goto(&app.url(&format!("/admin/orders/{id}"))).await;
    }
    check(browser, axe, "refunded order").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_owner_reprices_tops_up_and_refunds_in_a_browser() {
    let Some(browser) = Browser::start(LAPTOP).await else {
        return;
    };
    let Some((app, upstream)) = spawn_shop(Backend::Sqlite, 40).await else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    let axe = axe_source();
    let axe = axe.as_deref();
    let plan = local_plan(&app);

    // A customer's order, bought and delivered before the owner starts.
    let shopper = crate::helpers::Browser::default();
    let pay_page = crate::journeys::buy(&app, &shopper, &plan, "traveller@example.com")
        .await
        .assert_status(303)
        .location();
    let pay_page = pay_page.strip_prefix(&app.address).unwrap_or(&pay_page);
    let order_path = pay(&app, &shopper, pay_page)
        .await
        .assert_status(303)
        .location();
    wait_fulfilled(&app, &shopper, &order_path).await;
    let id = purchase_id(&order_path);
    // And a checkout someone left on the payment page until it closed.
    crate::journeys::buy(&app, &shopper, &plan, "changed.mind@example.com")
        .await
        .assert_status(303);
    let left = app
        .db
        .run(|conn| {
            diesel::update(
                purchases::table.filter(purchases::email.eq("changed.mind@example.com")),
            )
            .set(purchases::expires_at_ms.eq(0_i64))
            .execute(conn)?;
            purchases::table
                .filter(purchases::email.eq("changed.mind@example.com"))
                .select(purchases::id)
                .first::<String>(conn)
                .map_err(DbError::from)
        })
        .await
        .expect("an abandoned checkout");
    upstream.sandbox.set_balance(45_678).expect("balance");

    let _shot = ShotOnFailure {
        browser: &browser,
        name: "owner",
    };
    browser.goto(&app.url("/admin/login")).await;
    browser.wait_for("id=\"password\"").await;
    check(&browser, axe, "login").await;
    browser.type_into("#email", OWNER).await;
    browser.type_into("#password", PASSWORD).await;
    browser.click("form button[type=submit]").await;
    browser.wait_for("Log out").await;
    check(&browser, axe, "dashboard").await;

    reprice(&browser, &app, axe, &plan).await;
    top_up(&browser, &app, axe, 45_678).await;
    assert_eq!(upstream.sandbox.balance().available_cents, 45_678 + 2_550);
    abandoned(&browser, &app, axe, &left).await;
    refund(&browser, &app, axe, &id).await;

    // The customer's own order page says so.
    let page = shopper.get(&app, &order_path).await.assert_status(200).body;
    assert!(page.contains("data-status=\"refunded\""), "{page}");
    drop(_shot);
    browser.quit().await;
}
