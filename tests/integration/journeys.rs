//! A shopper's steps through the shop in a [`Browser`]: open a plan and check out, answer the
//! demo payment page, wait for the eSIM. The steps return the shop's answers, so a test can
//! assert on each; the longer journeys assert the steps they pass through.

use storefront::catalog::ShopPlan;

use crate::helpers::{Answer, Browser, TestApp, hidden, wait_for};

/// A local plan the demo provider can sell.
pub(crate) fn sellable_plan(app: &TestApp) -> ShopPlan {
    app.catalog
        .snapshot()
        .plans()
        .iter()
        .find(|p| {
            p.is_sellable() && p.price.is_some_and(|c| c.get() >= 100) && p.cost.get() < 20_000
        })
        .expect("a sellable plan")
        .clone()
}

/// Opens the plan page and submits its form; returns the checkout answer.
pub(crate) async fn buy(app: &TestApp, browser: &Browser, plan: &ShopPlan, email: &str) -> Answer {
    let page = browser
        .get(app, &format!("/plans/{}", plan.id))
        .await
        .assert_status(200)
        .body;
    let token = hidden(&page, "csrf_token");
    let price = hidden(&page, "expected_price_cents");
    browser
        .post(
            app,
            "/checkout",
            &[
                ("csrf_token", &token),
                ("plan_id", &plan.id),
                ("email", email),
                ("confirm_device", "yes"),
                ("accept_terms", "yes"),
                ("expected_price_cents", &price),
            ],
        )
        .await
}

/// Checks out a cheap sellable plan as `shopper`; returns the demo payment page's path.
pub(crate) async fn checkout_cheap_plan(app: &TestApp, shopper: &Browser) -> String {
    let plan = sellable_plan(app);
    let pay_page = buy(app, shopper, &plan, "traveller@example.com")
        .await
        .assert_status(303)
        .location();
    pay_page
        .strip_prefix(&app.address)
        .unwrap_or(&pay_page)
        .to_string()
}

/// The demo payment page as the shopper sees it.
pub(crate) struct PayPage {
    pub(crate) status: u16,
    pub(crate) html: String,
    /// The checkout session, the last segment of the page's address.
    pub(crate) session: String,
    /// The page's CSRF token, which its Pay and Decline forms send.
    pub(crate) token: String,
}

/// Opens the demo payment page at `pay_page` (a path or a full URL).
pub(crate) async fn open_pay_page(app: &TestApp, browser: &Browser, pay_page: &str) -> PayPage {
    let page = browser.get(app, pay_page).await;
    let session = pay_page.rsplit('/').next().expect("session").to_string();
    let token = page.hidden("csrf_token");
    PayPage {
        status: page.status,
        html: page.body,
        session,
        token,
    }
}

/// Presses `choice` ("pay" or "decline") on the demo payment page of `session`.
pub(crate) async fn answer(
    app: &TestApp,
    browser: &Browser,
    session: &str,
    token: &str,
    choice: &str,
) -> Answer {
    browser
        .post(
            app,
            &format!("/demo-pay/{session}/{choice}"),
            &[("csrf_token", token)],
        )
        .await
}

/// Opens the demo payment page and pays; returns the payment's answer (a redirect to the
/// order page once accepted).
pub(crate) async fn pay(app: &TestApp, browser: &Browser, pay_page: &str) -> Answer {
    let page = open_pay_page(app, browser, pay_page).await;
    answer(app, browser, &page.session, &page.token, "pay").await
}

/// Opens the demo payment page and declines; returns the answer.
pub(crate) async fn decline(app: &TestApp, browser: &Browser, pay_page: &str) -> Answer {
    let page = open_pay_page(app, browser, pay_page).await;
    answer(app, browser, &page.session, &page.token, "decline").await
}

/// The purchase id in an order page's path.
pub(crate) fn purchase_id(order_path: &str) -> String {
    order_path.trim_start_matches("/orders/").to_string()
}

/// Reloads the order page until it shows a fulfilled order; returns it.
pub(crate) async fn wait_fulfilled(app: &TestApp, browser: &Browser, order_path: &str) -> String {
    wait_for(format!("{order_path} to be fulfilled"), async || {
        let order = browser.get(app, order_path).await.body;
        if order.contains("data-status=\"fulfilled\"") {
            Ok(order)
        } else {
            Err(order)
        }
    })
    .await
}

/// Buys a plan through the demo provider and waits until the order is fulfilled; returns
/// the purchase id.
pub(crate) async fn buy_and_wait_fulfilled(app: &TestApp) -> String {
    let shopper = Browser::default();
    let pay_path = checkout_cheap_plan(app, &shopper).await;
    let order_path = pay(app, &shopper, &pay_path)
        .await
        .assert_status(303)
        .location();
    wait_fulfilled(app, &shopper, &order_path).await;
    purchase_id(&order_path)
}
