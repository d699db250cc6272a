//! Buying through the demo provider: CSRF, validation, the live re-read at checkout, the wallet
//! guard under concurrency, exactly-once payment confirmation and the private order page.

use std::sync::Arc;

use diesel::prelude::*;
use storefront::catalog::ShopPlan;
use storefront::db::schema::{
    catalog_syncs, checkout_holds, outbox_attempts, outbox_jobs, purchases,
};
use storefront::db::{Db, DbError};
use storefront::domain::Cents;
use storefront::domain::job::JobKind;
use storefront::orders::confirm::{self, Applied};
use storefront::payments::{EventKind, PaymentEvent};
use storefront::sandbox::Fault;

use crate::both_backends;
use crate::fixtures::as_id;
use crate::helpers::{
    Answer, Backend, Browser, TestApp, hidden, location, spawn_shop, spawn_shop_with, wait_for,
};
use crate::journeys::{
    answer, buy, decline, open_pay_page, pay, purchase_id, sellable_plan, wait_fulfilled,
};

/// How many purchases the shop holds.
async fn purchase_count(db: &Db) -> i64 {
    db.run(|conn| {
        purchases::table
            .count()
            .get_result::<i64>(conn)
            .map_err(DbError::from)
    })
    .await
    .expect("count purchases")
}

/// How many upstream orders the shop has queued to place: its `place_order` jobs, whatever
/// their state.
async fn place_order_jobs(db: &Db) -> i64 {
    db.run(|conn| {
        outbox_jobs::table
            .filter(outbox_jobs::kind.eq(JobKind::PlaceOrder.as_str()))
            .count()
            .get_result::<i64>(conn)
            .map_err(DbError::from)
    })
    .await
    .expect("count place_order jobs")
}

/// Makes the shop's copy of the wallet a minute old, so the next checkout re-reads it.
pub(crate) async fn age_wallet(db: &Db) {
    db.run(|conn| {
        diesel::update(storefront::db::schema::wallet::table)
            .set(storefront::db::schema::wallet::refreshed_at_ms.eq(0_i64))
            .execute(conn)
            .map_err(DbError::from)
    })
    .await
    .expect("age wallet");
}

/// Moves the catalog's last sync `by` into the past and reloads the snapshot: a checkout then
/// re-reads the plan live.
pub(crate) async fn age_catalog(app: &TestApp, by: std::time::Duration) {
    let by = i64::try_from(by.as_millis()).expect("ms");
    app.db
        .run(move |conn| {
            diesel::update(catalog_syncs::table)
                .set((
                    catalog_syncs::started_at_ms.eq(catalog_syncs::started_at_ms - by),
                    catalog_syncs::finished_at_ms.eq(catalog_syncs::finished_at_ms - by),
                ))
                .execute(conn)
                .map_err(DbError::from)
        })
        .await
        .expect("age catalog");
    app.catalog.reload().await.expect("reload");
}

both_backends!(
    a_demo_purchase_is_paid_once_and_queued_once,
    fifty_checkouts_at_once_hold_no_more_than_their_share,
    the_order_page_is_never_compressed_and_never_stored
);

async fn a_demo_purchase_is_paid_once_and_queued_once(backend: Backend) {
    let Some((app, upstream)) = spawn_shop(backend, 150).await else {
        return;
    };
    let plan = sellable_plan(&app);
    let browser = Browser::default();
    let pay_page = buy(&app, &browser, &plan, "ana@example.com")
        .await
        .assert_status(303)
        .location();
    assert!(pay_page.contains("/demo-pay/demo_cs_"), "{pay_page}");
    assert_eq!(purchase_count(&app.db).await, 1);
    assert_eq!(
        place_order_jobs(&app.db).await,
        0,
        "nothing is queued before payment"
    );

    let demo = open_pay_page(&app, &browser, &pay_page).await;
    assert_eq!(demo.status, 200);
    assert!(demo.html.contains("TEST MODE"));
    assert!(demo.html.contains(&plan.price.expect("price").to_string()));
    let order_path = answer(&app, &browser, &demo.session, &demo.token, "pay")
        .await
        .assert_status(303)
        .location();
    assert!(order_path.starts_with("/orders/"));

    let opened = browser.get(&app, &order_path).await;
    assert_eq!(
        opened.status, 200,
        "the checkout cookie opens the order page"
    );
    let Answer {
        body: order,
        headers,
        ..
    } = opened;
    assert!(
        !order.contains("data-status=\"awaiting_payment\""),
        "{order}"
    );
    // The short order number to quote; no meta refresh while it waits (a button instead).
    let number = as_id(&purchase_id(&order_path)).order_number();
    assert!(
        order.contains(&format!(
            "Order <strong data-order-number>{number}</strong>"
        )),
        "{order}"
    );
    assert!(!order.contains("http-equiv"), "{order}");
    assert!(order.contains(">Refresh status</a>"), "{order}");
    assert_eq!(headers["cache-control"], "no-store");
    assert_eq!(headers["referrer-policy"], "no-referrer");
    assert_eq!(headers["x-robots-tag"], "noindex");
    assert_eq!(place_order_jobs(&app.db).await, 1, "one place_order job");

    // The outbox places the order, tracks it and stores the installation.
    let order = wait_fulfilled(&app, &browser, &order_path).await;
    assert!(order.contains("<svg"), "the QR code is on the page");
    assert_eq!(
        order.matches("Do not delete this eSIM").count(),
        1,
        "{order}"
    );
    // When to install follows the plan's activation policy; on a phone, installing on the
    // phone itself comes before the QR code, which is for another screen (a browser that does
    // not say what it is sees the QR code first: see `each_device_sees_its_own_way_to_install_first`).
    assert!(
        order.contains(&storefront::i18n::Lang::En.t(plan.activation.install_advice())),
        "{order}"
    );
    assert!(!order.contains("before you travel"), "{order}");
    let on_phone = browser.as_device(IPHONE).get(&app, &order_path).await.body;
    assert!(
        on_phone.find("id=\"activation-code\"") < on_phone.find("<svg"),
        "on-device installation first"
    );
    assert!(order.contains(&number), "{order}");
    let code = order
        .split("id=\"activation-code\" class=\"copy\" type=\"text\" readonly value=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("activation code field")
        .to_string();
    assert!(code.starts_with("LPA:1$"), "{code}");
    let stats = upstream.sandbox.stats();
    assert!(stats.duplicate_purchases.is_empty(), "{stats:?}");
    let purchase_id = purchase_id(&order_path);
    assert_eq!(
        stats
            .orders_by_reference
            .get(&format!("sf-{purchase_id}"))
            .copied(),
        Some(1),
        "exactly one upstream order"
    );
    // Two emails: payment received, then eSIM ready; both carry the private link, neither
    // the activation code.
    app.wait_for_emails_about(&purchase_id, 2).await;
    let emails = app.emails();
    assert_eq!(emails.len(), 2, "{emails:?}");
    for email in &emails {
        assert!(
            email.contains(&format!("/orders/{purchase_id}?token=")),
            "{email}"
        );
        let matching = code.rsplit('$').next().unwrap_or_default();
        assert!(
            !email.contains(matching),
            "an email carries the activation code"
        );
    }

    // Paying again (a double click) changes nothing: the session is no longer open.
    let page = browser.get(&app, &pay_page).await.body;
    assert!(page.contains("no longer open"));
    let page = answer(&app, &browser, &demo.session, &demo.token, "pay")
        .await
        .assert_status(409)
        .body;
    assert!(page.contains("already made"), "{page}");
    assert_eq!(place_order_jobs(&app.db).await, 1);

    // A stranger without the cookie or token sees the same 404 as for an unknown order.
    let stranger = Browser::default();
    assert_eq!(stranger.get(&app, &order_path).await.status, 404);
    assert_eq!(
        stranger
            .get(&app, &format!("{order_path}?token=wrong"))
            .await
            .status,
        404
    );
    assert_eq!(stranger.get(&app, "/orders/nope").await.status, 404);
    // On another device the page says how to open one's order, and the same for an order
    // that does not exist (only the request id differs).
    let before_request_id = |page: &str| {
        page.split("request id")
            .next()
            .unwrap_or_default()
            .to_string()
    };
    let known = stranger.get(&app, &order_path).await.body;
    let unknown = stranger
        .get(&app, "/orders/0123456789abcdef0123")
        .await
        .body;
    assert!(known.contains("private link in the emails"), "{known}");
    assert_eq!(before_request_id(&known), before_request_id(&unknown));
    let other = stranger
        .get(&app, "/orders/a/b")
        .await
        .assert_status(404)
        .body;
    assert_eq!(before_request_id(&other), before_request_id(&unknown));
}

/// Fifty checkouts at once from fifty clients: each is checked against the wallet under its
/// lock, and together their holds stay within the share unpaid checkouts may take (a quarter
/// of 10.5 plans: two holds), on every backend.
async fn fifty_checkouts_at_once_hold_no_more_than_their_share(backend: Backend) {
    let Some((app, upstream)) = spawn_shop(backend, 150).await else {
        return;
    };
    let plan = sellable_plan(&app);
    upstream
        .sandbox
        .set_balance(plan.cost.get() * 10 + plan.cost.get() / 2)
        .expect("balance");
    // The shop re-reads the wallet when its copy is a minute old: make it so now.
    age_wallet(&app.db).await;
    let app = Arc::new(app);
    let mut tasks = Vec::new();
    for i in 0..50 {
        let (app, plan) = (Arc::clone(&app), plan.clone());
        tasks.push(tokio::spawn(async move {
            let browser = Browser::from_address(&format!("127.0.1.{}", i + 1));
            buy(&app, &browser, &plan, &format!("buyer{i}@example.com"))
                .await
                .status
        }));
    }
    for task in tasks {
        assert_eq!(
            task.await.expect("task"),
            303,
            "an unpaid checkout is no sale yet"
        );
    }
    assert_eq!(purchase_count(&app.db).await, 50);
    let holds: Vec<i64> = app
        .db
        .run(|conn| {
            checkout_holds::table
                .filter(checkout_holds::expires_at_ms.gt(storefront::db::now_ms()))
                .select(checkout_holds::cost_cents)
                .load(conn)
                .map_err(DbError::from)
        })
        .await
        .expect("holds");
    assert_eq!(holds.len(), 2, "a quarter of 10.5 plans holds two");

    // A wallet that cannot cover one more plan refuses the sale, holds or not.
    upstream
        .sandbox
        .set_balance(plan.cost.get() / 2)
        .expect("balance");
    age_wallet(&app.db).await;
    let page = buy(&app, &Browser::default(), &plan, "late@example.com")
        .await
        .assert_status(409)
        .body;
    assert!(page.contains("Temporarily unavailable"), "{page}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn checkout_refuses_forged_and_incomplete_forms_without_writing() {
    let (app, _upstream) = spawn_shop(Backend::Sqlite, 120).await.expect("sqlite");
    let plan = sellable_plan(&app);
    let browser = Browser::default();
    let page = browser.get(&app, &format!("/plans/{}", plan.id)).await.body;
    let token = hidden(&page, "csrf_token");
    // No token, a wrong token, a token without its cookie: 403 and nothing written.
    let fields = |t: &'static str| {
        vec![
            ("csrf_token", t),
            ("email", "a@example.com"),
            ("confirm_device", "yes"),
            ("accept_terms", "yes"),
        ]
    };
    let mut missing = fields("");
    missing.push(("plan_id", &plan.id));
    assert_eq!(browser.post(&app, "/checkout", &missing).await.status, 403);
    let mut wrong = fields("00ff");
    wrong.push(("plan_id", &plan.id));
    assert_eq!(browser.post(&app, "/checkout", &wrong).await.status, 403);
    let cookieless = Browser::default();
    let with_token = [
        ("csrf_token", token.as_str()),
        ("plan_id", plan.id.as_str()),
        ("email", "a@example.com"),
        ("confirm_device", "yes"),
        ("accept_terms", "yes"),
    ];
    assert_eq!(
        cookieless.post(&app, "/checkout", &with_token).await.status,
        403
    );
    assert_eq!(purchase_count(&app.db).await, 0);

    let page = browser
        .post(
            &app,
            "/checkout",
            &[
                ("csrf_token", &token),
                ("plan_id", &plan.id),
                ("email", "not-an-email"),
                ("confirm_device", "yes"),
                ("accept_terms", "yes"),
            ],
        )
        .await
        .assert_status(400)
        .body;
    assert!(page.contains("Enter the email address"), "{page}");
    assert!(
        page.contains("value=\"not-an-email\""),
        "the form keeps what was typed"
    );
    let page = browser
        .post(
            &app,
            "/checkout",
            &[
                ("csrf_token", &token),
                ("plan_id", &plan.id),
                ("email", "a@example.com"),
            ],
        )
        .await
        .assert_status(400)
        .body;
    assert!(
        page.contains("supports eSIM and is not carrier-locked"),
        "{page}"
    );
    // Both problems at once: a summary above the fields linking to each, which takes the
    // focus, and each field marked invalid and described by its message.
    let page = browser
        .post(
            &app,
            "/checkout",
            &[
                ("csrf_token", &token),
                ("plan_id", &plan.id),
                ("email", "nobody"),
                ("accept_terms", "yes"),
            ],
        )
        .await
        .assert_status(400)
        .body;
    let summary = page
        .split("class=\"error-summary\"")
        .nth(1)
        .and_then(|rest| rest.split("</div>").next())
        .expect("an error summary");
    assert!(summary.contains("There are 2 problems"), "{summary}");
    assert!(summary.contains("href=\"#email\""), "{summary}");
    assert!(summary.contains("href=\"#confirm_device\""), "{summary}");
    assert!(summary.contains("autofocus"), "{summary}");
    assert_eq!(page.matches("aria-invalid=\"true\"").count(), 2, "{page}");
    assert!(
        page.contains("aria-describedby=\"email-error email-hint\""),
        "{page}"
    );
    assert!(
        page.contains("aria-describedby=\"confirm_device-error\""),
        "{page}"
    );
    assert!(
        page.find("error-summary") < page.find("id=\"email\""),
        "the summary comes before the fields"
    );
    assert_eq!(purchase_count(&app.db).await, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn checkout_rereads_the_plan_and_refuses_gone_repriced_and_uncovered_sales() {
    let (app, upstream) = spawn_shop(Backend::Sqlite, 150).await.expect("sqlite");
    let plan = sellable_plan(&app);
    let browser = Browser::default();
    // A catalog synced in the last minute is the live price; this one is older.
    age_catalog(&app, std::time::Duration::from_secs(5 * 60)).await;

    upstream
        .sandbox
        .set_plan_available(&plan.id, false)
        .expect("hide");
    let page = buy(&app, &browser, &plan, "a@example.com")
        .await
        .assert_status(409)
        .body;
    assert!(page.contains("no longer available"), "{page}");
    upstream
        .sandbox
        .set_plan_available(&plan.id, true)
        .expect("show");

    let new_cost = plan.cost.get() + 500;
    upstream
        .sandbox
        .set_plan_price(&plan.id, new_cost)
        .expect("price");
    let page = buy(&app, &browser, &plan, "a@example.com")
        .await
        .assert_status(409)
        .body;
    let new_price = app
        .catalog
        .snapshot()
        .price_for(&plan, Cents::new(new_cost))
        .expect("priced");
    assert!(page.contains(&format!("now {new_price}")), "{page}");
    assert_eq!(
        purchase_count(&app.db).await,
        0,
        "nothing sold at the old price"
    );
    let token = hidden(&page, "csrf_token");
    assert_eq!(
        browser
            .post(
                &app,
                "/checkout",
                &[
                    ("csrf_token", &token),
                    ("plan_id", &plan.id),
                    ("email", "a@example.com"),
                    ("confirm_device", "yes"),
                    ("accept_terms", "yes"),
                    ("expected_price_cents", &new_price.get().to_string()),
                ],
            )
            .await
            .status,
        303,
        "confirming the new price proceeds"
    );
    let locked: (i64, i64) = app
        .db
        .run(|conn| {
            purchases::table
                .select((purchases::price_cents, purchases::cost_cents))
                .first(conn)
                .map_err(DbError::from)
        })
        .await
        .expect("purchase");
    assert_eq!(
        locked,
        (new_price.get(), new_cost),
        "price and cost are locked"
    );

    let other = app
        .catalog
        .snapshot()
        .plans()
        .iter()
        .find(|p| p.is_sellable() && p.id != plan.id && p.price.is_some_and(|c| c.get() >= 100))
        .expect("another plan")
        .clone();
    upstream.sandbox.set_balance(0).expect("balance");
    // The wallet is re-read at most once a minute: make the stored one stale.
    age_wallet(&app.db).await;
    let page = buy(&app, &browser, &other, "b@example.com")
        .await
        .assert_status(409)
        .body;
    assert!(page.contains("Temporarily unavailable"), "{page}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_declined_payment_queues_nothing_and_says_so() {
    let (app, _upstream) = spawn_shop(Backend::Sqlite, 120).await.expect("sqlite");
    let plan = sellable_plan(&app);
    let browser = Browser::default();
    let order = browser
        .get(
            &app,
            &decline(
                &app,
                &browser,
                &buy(&app, &browser, &plan, "a@example.com").await.location(),
            )
            .await
            .location(),
        )
        .await
        .body;
    assert!(order.contains("data-status=\"payment_failed\""), "{order}");
    assert!(order.contains("Nothing was charged"));
    // A way to try again, and no word of an email: none is sent for a declined payment.
    assert!(
        order.contains(&format!("href=\"/plans/{}\" data-try-again", plan.id)),
        "{order}"
    );
    assert!(!order.contains("your email"), "{order}");
    assert!(!order.contains("http-equiv"), "{order}");
    assert_eq!(place_order_jobs(&app.db).await, 0);
    assert!(app.emails().is_empty());
}

/// The reviewer's path: Decline, then the old form's Pay. The decline is final: 409, no
/// payment event, the purchase stays `payment_failed` and no eSIM is bought.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_declined_demo_payment_cannot_be_paid_afterwards() {
    let (app, upstream) = spawn_shop(Backend::Sqlite, 120).await.expect("sqlite");
    let plan = sellable_plan(&app);
    let browser = Browser::default();
    let pay_page = buy(&app, &browser, &plan, "a@example.com").await.location();
    let demo = open_pay_page(&app, &browser, &pay_page).await;
    let order_path = answer(&app, &browser, &demo.session, &demo.token, "decline")
        .await
        .assert_status(303)
        .location();
    let events_after_decline = count_payment_events(&app.db).await;

    for choice in ["pay", "decline"] {
        let page = answer(&app, &browser, &demo.session, &demo.token, choice)
            .await
            .assert_status(409)
            .body;
        assert!(page.contains("was declined"), "{page}");
        assert!(page.contains("Nothing was charged"), "{page}");
    }
    assert_eq!(
        count_payment_events(&app.db).await,
        events_after_decline,
        "a refused answer records no payment event"
    );
    let page = browser.get(&app, &pay_page).await.body;
    assert!(page.contains("no longer open"), "{page}");
    assert!(!page.contains("/pay\""), "no Pay form is offered: {page}");

    // Give a wrongly queued order every chance to reach the sandbox before looking.
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    let order = browser.get(&app, &order_path).await.body;
    assert!(order.contains("data-status=\"payment_failed\""), "{order}");
    assert_eq!(place_order_jobs(&app.db).await, 0);
    let purchase_id = purchase_id(&order_path);
    assert_eq!(
        upstream
            .sandbox
            .stats()
            .orders_by_reference
            .get(&format!("sf-{purchase_id}")),
        None,
        "no eSIM was bought"
    );
}

/// Buys `plan`, pays on the demo page and returns the order page once it is fulfilled.
async fn fulfilled_order_page(app: &TestApp, plan: &ShopPlan, email: &str) -> String {
    let browser = Browser::default();
    let pay_page = buy(app, &browser, plan, email).await.location();
    let order_path = pay(app, &browser, &pay_page).await.location();
    wait_fulfilled(app, &browser, &order_path).await
}

/// The install page on a phone: the QR code is one named image, each installation value is
/// a whole read-only field under its label, times are machine-readable, the timeline (newest
/// first) is not numbered, and the install button installs the code the page shows, whether
/// the supplier gave a link (the sandbox gives one to every other eSIM) or not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_install_page_names_its_parts_and_offers_one_tap_install() {
    let (app, _upstream) = spawn_shop(Backend::Sqlite, 120).await.expect("sqlite");
    let plan = sellable_plan(&app);
    let first = fulfilled_order_page(&app, &plan, "first@example.com").await;
    let second = fulfilled_order_page(&app, &plan, "second@example.com").await;

    for page in [&first, &second] {
        assert!(
            page.contains("<div role=\"img\" aria-label=\"QR code of your eSIM\"><svg"),
            "{page}"
        );
        let code = page
            .split("id=\"activation-code\" class=\"copy\" type=\"text\" readonly value=\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .expect("activation code field");
        let (smdp, matching_id) = code
            .strip_prefix("LPA:1$")
            .and_then(|rest| rest.split_once('$'))
            .expect("an LPA code");
        assert!(
            page.contains("<label for=\"smdp-address\">SM-DP+ address</label>")
                && page.contains(&format!(
                    "<input id=\"smdp-address\" class=\"copy\" type=\"text\" readonly value=\"{smdp}\">"
                )),
            "{page}"
        );
        assert!(
            page.contains(&format!(
                "<input id=\"matching-id\" class=\"copy\" type=\"text\" readonly value=\"{matching_id}\">"
            )),
            "{page}"
        );
        assert!(page.contains("<ul class=\"timeline\">"), "{page}");
        assert!(!page.contains("<ol class=\"timeline\">"), "{page}");
        let times: Vec<&str> = page
            .split("<time datetime=\"")
            .skip(1)
            .filter_map(|rest| rest.split('"').next())
            .collect();
        assert!(times.len() >= 3, "{page}");
        for time in times {
            // `2026-11-22 06:00Z`: a valid global date and time string.
            let bytes = time.as_bytes();
            assert!(
                time.len() == 17 && bytes[4] == b'-' && bytes[10] == b' ' && time.ends_with('Z'),
                "{time}"
            );
        }
        assert!(!page.contains("<time>"), "every time has its datetime");
    }
    // Both have the one-tap button: the supplier's link for one, the link built from the
    // activation code for the other (a browser that does not say what it is gets it too).
    for page in [&first, &second] {
        let link = one_tap_link(page).expect("an install button");
        assert_eq!(
            carddata(&link),
            activation_code(page),
            "the link installs the code on the page"
        );
        assert!(page.contains("Tap it on the iPhone you are installing the eSIM on"));
    }
}

const IPHONE: &str = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1";
const ANDROID: &str = "Mozilla/5.0 (Linux; Android 15; Pixel 9) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36";
const LAPTOP: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

fn activation_code(page: &str) -> String {
    page.split("id=\"activation-code\" class=\"copy\" type=\"text\" readonly value=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("activation code field")
        .to_string()
}

/// The one-tap install button's link, as a browser reads the `href`.
fn one_tap_link(page: &str) -> Option<String> {
    let at = page.find("data-one-tap>")?;
    let href = page[..at].rsplit("href=\"").next()?.split('"').next()?;
    Some(href.replace("&amp;", "&"))
}

/// The activation code Apple's installer reads from a setup link.
fn carddata(link: &str) -> String {
    let url = url::Url::parse(link).expect("a link");
    assert_eq!(url.host_str(), Some("esimsetup.apple.com"), "{link}");
    url.query_pairs()
        .find(|(k, _)| k == "carddata")
        .map(|(_, v)| v.into_owned())
        .expect("carddata")
}

/// Where `needle` first appears on `page`.
fn at(page: &str, needle: &str) -> usize {
    page.find(needle)
        .unwrap_or_else(|| panic!("{needle} missing from {page}"))
}

/// One-tap install: on an iPhone the button that opens Apple's installer comes before
/// everything else; an Android phone is not offered Apple's link and reads its own steps
/// first; a laptop shows the QR code first, for the phone beside it. The same order holds when
/// the ended order's page comes from the page cache.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_device_sees_its_own_way_to_install_first() {
    let (app, _upstream) = spawn_shop(Backend::Sqlite, 120).await.expect("sqlite");
    let plan = sellable_plan(&app);
    // Two eSIMs: the sandbox gives the supplier's link to one of them only.
    for email in ["first@example.com", "second@example.com"] {
        let browser = Browser::default();
        let pay_page = buy(&app, &browser, &plan, email).await.location();
        let order_path = pay(&app, &browser, &pay_page).await.location();
        wait_fulfilled(&app, &browser, &order_path).await;
        for _ in 0..2 {
            let iphone = browser.as_device(IPHONE).get(&app, &order_path).await.body;
            let link = one_tap_link(&iphone).expect("the iPhone gets the button");
            assert_eq!(carddata(&link), activation_code(&iphone));
            assert!(at(&iphone, "data-one-tap") < at(&iphone, "id=\"activation-code\""));
            assert!(at(&iphone, "<h4>iPhone</h4>") < at(&iphone, "<h4>Android</h4>"));
            assert!(at(&iphone, "id=\"activation-code\"") < at(&iphone, "id=\"other-screen\""));

            let android = browser.as_device(ANDROID).get(&app, &order_path).await.body;
            assert_eq!(
                one_tap_link(&android),
                None,
                "Apple's link is no use on Android"
            );
            assert!(!android.contains("esimsetup.apple.com"));
            assert!(at(&android, "<h4>Android</h4>") < at(&android, "<h4>iPhone</h4>"));
            assert!(at(&android, "id=\"activation-code\"") < at(&android, "id=\"other-screen\""));

            let laptop = browser.as_device(LAPTOP).get(&app, &order_path).await.body;
            assert!(at(&laptop, "id=\"other-screen\"") < at(&laptop, "id=\"on-device\""));
            assert!(
                one_tap_link(&laptop).is_some(),
                "for an iPhone that opens the page later"
            );
        }
    }
}

async fn count_payment_events(db: &Db) -> i64 {
    db.run(|conn| {
        storefront::db::schema::payment_events::table
            .count()
            .get_result::<i64>(conn)
            .map_err(DbError::from)
    })
    .await
    .expect("count")
}

both_backends!(the_same_event_five_times_at_once_pays_once);

async fn the_same_event_five_times_at_once_pays_once(backend: Backend) {
    let Some((app, _upstream)) = spawn_shop(backend, 120).await else {
        return;
    };
    let plan = sellable_plan(&app);
    let browser = Browser::default();
    let session = buy(&app, &browser, &plan, "a@example.com")
        .await
        .location()
        .rsplit('/')
        .next()
        .expect("session")
        .to_string();
    let price = plan.price.expect("price");
    let event = PaymentEvent {
        id: "evt_same".into(),
        kind: EventKind::Paid {
            session_id: session,
            purchase_id: None,
            amount: price,
            payment_reference: Some("pi_1".into()),
            tax: Default::default(),
        },
    };
    let mut tasks = Vec::new();
    for _ in 0..5 {
        let (db, event) = (app.db.clone(), event.clone());
        tasks.push(tokio::spawn(async move {
            db.run(move |conn| confirm::apply(conn, "demo", &event))
                .await
        }));
    }
    let mut paid = 0;
    for task in tasks {
        match task.await.expect("task").expect("applied") {
            Applied::Paid { .. } => paid += 1,
            Applied::Duplicate => {}
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(paid, 1);
    assert_eq!(place_order_jobs(&app.db).await, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_emailed_link_becomes_a_cookie_and_leaves_the_address_bar() {
    let (app, _upstream) = spawn_shop(Backend::Sqlite, 120).await.expect("sqlite");
    let plan = sellable_plan(&app);
    let buyer = Browser::default();
    let pay_page = buy(&app, &buyer, &plan, "a@example.com").await.location();
    // The provider is told to return to the private link (the demo keeps it in the purchase).
    let order_id = {
        let db = app.db.clone();
        db.run(|conn| {
            purchases::table
                .select(purchases::id)
                .first::<String>(conn)
                .map_err(DbError::from)
        })
        .await
        .expect("id")
    };
    assert!(pay_page.contains("demo-pay"));
    // A second device has only the emailed link, which we rebuild from the stored cookie.
    let token = buyer
        .cookie(&format!("order_{order_id}"))
        .expect("order cookie set at checkout");
    let phone = Browser::default();
    let res = app
        .client
        .get(app.url(&format!("/orders/{order_id}?token={token}")))
        .send()
        .await
        .expect("get");
    assert_eq!(res.status(), 303);
    assert_eq!(location(res.headers()), format!("/orders/{order_id}"));
    phone.remember(&res);
    let set_cookie = res.headers()["set-cookie"]
        .to_str()
        .expect("ascii")
        .to_string();
    assert!(
        set_cookie.contains("HttpOnly") && set_cookie.contains("SameSite=Lax"),
        "{set_cookie}"
    );
    let page = phone
        .get(&app, &format!("/orders/{order_id}"))
        .await
        .assert_status(200)
        .body;
    assert!(page.contains("data-status=\"awaiting_payment\""));
    assert!(
        !page.contains(&token),
        "the token is not echoed into the page"
    );
}

#[tokio::test]
async fn the_stripe_webhook_is_off_with_demo_payments() {
    let (app, _upstream) = spawn_shop(Backend::Sqlite, 120).await.expect("sqlite");
    let res = app
        .client
        .post(app.url("/webhooks/stripe"))
        .body("{}")
        .send()
        .await
        .expect("post");
    assert_eq!(res.status(), 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_checkout_fails_and_a_late_payment_is_still_honoured() {
    let (app, _upstream) = spawn_shop(Backend::Sqlite, 120).await.expect("sqlite");
    let plan = sellable_plan(&app);
    let browser = Browser::default();
    let session = buy(&app, &browser, &plan, "late@example.com")
        .await
        .location()
        .rsplit('/')
        .next()
        .expect("session")
        .to_string();
    let expired = app
        .db
        .run(|conn| {
            diesel::update(purchases::table)
                .set(purchases::expires_at_ms.eq(0_i64))
                .execute(conn)?;
            storefront::orders::checkout::expire_unpaid(conn, storefront::db::now_ms())
        })
        .await
        .expect("sweep");
    assert_eq!(expired, 1);
    let status: String = app
        .db
        .run(|conn| {
            purchases::table
                .select(purchases::status)
                .first(conn)
                .map_err(DbError::from)
        })
        .await
        .expect("status");
    assert_eq!(status, "payment_failed");
    // Money that still arrives is not lost: the purchase becomes paid and is ordered.
    let event = PaymentEvent {
        id: "evt_late".into(),
        kind: EventKind::Paid {
            session_id: session,
            purchase_id: None,
            amount: plan.price.expect("price"),
            payment_reference: Some("pi_late".into()),
            tax: Default::default(),
        },
    };
    let applied = app
        .db
        .run(move |conn| confirm::apply(conn, "demo", &event))
        .await
        .expect("apply");
    assert!(matches!(applied, Applied::Paid { .. }), "{applied:?}");
    assert_eq!(place_order_jobs(&app.db).await, 1);
}

/// The fulfilled order page holds the activation code: however the browser asks, it is sent
/// uncompressed (a compressed length would leak it, BREACH) and never stored; a second view
/// (from the in-memory cache of the opened installation) shows the same values.
async fn the_order_page_is_never_compressed_and_never_stored(backend: Backend) {
    let Some((app, _upstream)) = spawn_shop(backend, 120).await else {
        return;
    };
    let plan = sellable_plan(&app);
    let browser = Browser::default();
    let pay_page = buy(&app, &browser, &plan, "gzip@example.com")
        .await
        .location();
    let order_path = pay(&app, &browser, &pay_page).await.location();
    let first = wait_fulfilled(&app, &browser, &order_path).await;
    let code = first
        .split("id=\"activation-code\" class=\"copy\" type=\"text\" readonly value=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("activation code field")
        .to_string();
    for encoding in ["gzip", "gzip, deflate, br, zstd", "br", "*"] {
        let res = app
            .client
            .get(app.url(&order_path))
            .header("cookie", browser.cookie_header())
            .header("accept-encoding", encoding)
            .send()
            .await
            .expect("get");
        assert_eq!(res.status(), 200, "{encoding}");
        let headers = res.headers().clone();
        let sent = headers
            .get("content-encoding")
            .map(|v| v.to_str().expect("ascii").to_string());
        assert!(
            sent.is_none() || sent.as_deref() == Some("identity"),
            "{encoding}: sent as {sent:?}"
        );
        assert_eq!(headers["cache-control"], "no-store", "{encoding}");
        let body = res.text().await.expect("plain text body");
        assert!(
            body.contains(&code),
            "{encoding}: the code is readable as sent"
        );
        assert!(body.contains("<svg"), "{encoding}");
    }
    // Another browser without the order cookie sees nothing, cached view or not.
    let page = Browser::default()
        .get(&app, &order_path)
        .await
        .assert_status(404)
        .body;
    assert!(!page.contains(&code));
}

both_backends!(a_burst_of_payments_waits_for_the_orders_already_paid);

/// With one placement worker, at most two purchases of this shop wait for their upstream
/// order (`orders::backlog`): of eight payments made at once, the ones beyond those two are
/// confirmed only as orders are placed, instead of all before the first order. Each is still
/// paid and placed exactly once.
async fn a_burst_of_payments_waits_for_the_orders_already_paid(backend: Backend) {
    let Some((app, upstream)) = spawn_shop_with(backend, 120, &[("STOREFRONT_WORKERS", "1")]).await
    else {
        return;
    };
    let plan = sellable_plan(&app);
    let mut payers = Vec::new();
    for n in 0..8 {
        let browser = Browser::default();
        let page = open_pay_page(
            &app,
            &browser,
            &buy(&app, &browser, &plan, &format!("b{n}@example.com"))
                .await
                .assert_status(303)
                .location(),
        )
        .await;
        payers.push((browser, page));
    }
    // Each order takes a moment upstream, well under the backlog's patience for a stall.
    upstream
        .sandbox
        .inject(Fault::Latency(std::time::Duration::from_millis(20)));
    let app = Arc::new(app);
    let tasks: Vec<_> = payers
        .into_iter()
        .map(|(browser, page)| {
            let app = Arc::clone(&app);
            tokio::spawn(async move {
                answer(&app, &browser, &page.session, &page.token, "pay")
                    .await
                    .status
            })
        })
        .collect();
    for task in tasks {
        assert_eq!(task.await.expect("payment"), 303);
    }
    // (paid at, accepted at) of each purchase, once every order is placed.
    let times = wait_for("the 8 orders to be placed", async || {
        let times = app
            .db
            .run(|conn| {
                purchases::table
                    .inner_join(outbox_jobs::table.on(outbox_jobs::purchase_id.eq(purchases::id)))
                    .inner_join(
                        outbox_attempts::table.on(outbox_attempts::job_id.eq(outbox_jobs::id)),
                    )
                    .filter(outbox_jobs::kind.eq(JobKind::PlaceOrder.as_str()))
                    .filter(outbox_attempts::outcome.eq("accepted"))
                    .select((purchases::paid_at_ms, outbox_attempts::finished_at_ms))
                    .load::<(Option<i64>, i64)>(conn)
                    .map_err(DbError::from)
            })
            .await
            .expect("times");
        if times.len() == 8 {
            Ok(times)
        } else {
            Err(format!("{} placed", times.len()))
        }
    })
    .await;
    assert_eq!(place_order_jobs(&app.db).await, 8, "one order each");
    let first_accepted = times.iter().map(|(_, at)| *at).min().expect("accepted");
    let first_paid = times
        .iter()
        .map(|(paid, _)| paid.expect("paid"))
        .min()
        .expect("paid");
    // Payments that went through at once, before any order was placed: the backlog's places.
    // A waiting payment also goes on when no placement finished for `STALL` (a loaded machine
    // can be that slow), which is never within half of it after the burst's first payment.
    let stall_ms = i64::try_from(storefront::orders::backlog::STALL.as_millis()).expect("ms");
    let at_once = times
        .iter()
        .map(|(paid, _)| paid.expect("paid"))
        .filter(|paid| *paid < first_accepted && *paid < first_paid + stall_ms / 2)
        .count();
    assert_eq!(
        at_once,
        storefront::orders::backlog::PER_WORKER,
        "paid at once, before the first order was placed: {times:?}"
    );
}
