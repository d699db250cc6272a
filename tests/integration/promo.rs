//! Promotion codes and display currencies, on both backends: a code's last use goes to one
//! checkout however many race for it, and is counted once when its payment is verified; a
//! payment that arrives after its hold ended is still honoured and counted honestly; the
//! console refuses a code that would sell below cost plus the minimum margin and names the
//! plans; a display currency is shown beside the USD price and never changes what is charged.

use std::sync::Arc;

use diesel::prelude::*;
use storefront::catalog::ShopPlan;
use storefront::db::promo::CodeRow;
use storefront::db::schema::{admin_audit, promo_codes, promo_redemptions, purchase_events};
use storefront::db::{DbError, now_ms};
use storefront::domain::Cents;
use storefront::staff::Role;

use crate::admin::{OWNER, create, login_as};
use crate::both_backends;
use crate::checkout::age_wallet;
use crate::fixtures::as_id;
use crate::helpers::{
    Answer, Backend, Browser, TestApp, client_builder, hidden, spawn_shop_with, wait_for_emails_in,
};
use crate::journeys::{answer, open_pay_page, purchase_id};

both_backends!(
    the_last_use_goes_to_one_of_20_concurrent_checkouts_and_counts_once,
    a_payment_after_its_hold_ended_is_honoured_and_counted_beyond_the_cap,
    the_console_refuses_a_code_below_the_margin_floor_and_names_the_plans,
    a_display_currency_is_shown_but_never_changes_the_amount_charged,
    a_code_keeps_to_its_plans_its_dates_and_its_cap_per_email,
    a_code_s_last_day_and_caps_change_and_a_disabled_code_comes_back,
    unpaid_checkouts_from_one_client_cannot_squat_a_code_s_last_uses,
);

/// A sellable plan with room between cost and price.
pub(crate) fn roomy_plan(app: &TestApp) -> ShopPlan {
    app.catalog
        .snapshot()
        .plans()
        .iter()
        .find(|p| {
            p.is_sellable()
                && p.price
                    .is_some_and(|price| price.get() - p.cost.get() >= 300)
                && p.cost.get() < 20_000
        })
        .expect("a plan with a margin of $3 or more")
        .clone()
}

/// A code taking `percent_bps` hundredths of a per cent off every plan, valid from 1970 on.
pub(crate) fn code_row(code: &str, percent_bps: i64, max_uses: Option<i64>) -> CodeRow {
    CodeRow {
        code: code.to_string(),
        kind: "percent".into(),
        value: percent_bps,
        starts_at_ms: 0,
        ends_at_ms: None,
        max_uses,
        max_uses_per_email: None,
        scope_kind: "all".into(),
        scope_value: String::new(),
        used_count: 0,
        disabled_at_ms: None,
        created_at_ms: now_ms(),
        created_by: "test".into(),
    }
}

pub(crate) async fn insert_code(app: &TestApp, row: CodeRow) {
    let inserted = app
        .db
        .run(move |conn| storefront::db::promo::insert(conn, &row))
        .await
        .expect("insert code");
    assert!(inserted);
}

pub(crate) async fn add_code(app: &TestApp, code: &str, percent_bps: i64, max_uses: Option<i64>) {
    insert_code(app, code_row(code, percent_bps, max_uses)).await;
}

async fn purchase_row(db: &storefront::db::Db, id: &str) -> storefront::db::purchases::Purchase {
    let id = id.to_string();
    db.run(move |conn| storefront::db::purchases::find(conn, &as_id(&id)))
        .await
        .expect("read purchase")
        .expect("purchase exists")
}

async fn used_count(app: &TestApp, code: &str) -> i64 {
    let code = code.to_string();
    app.db
        .run(move |conn| {
            promo_codes::table
                .find(code)
                .select(promo_codes::used_count)
                .first::<i64>(conn)
                .map_err(DbError::from)
        })
        .await
        .expect("used count")
}

/// Opens the plan page and submits its form with a promotion code.
pub(crate) async fn buy_with_code(
    app: &TestApp,
    browser: &Browser,
    plan: &ShopPlan,
    email: &str,
    code: &str,
) -> Answer {
    let page = browser
        .get(app, &format!("/plans/{}", plan.id))
        .await
        .assert_status(200)
        .body;
    assert!(
        page.contains("name=\"promo_code\""),
        "the form has a code field"
    );
    browser
        .post(
            app,
            "/checkout",
            &[
                ("csrf_token", &hidden(&page, "csrf_token")),
                ("plan_id", &plan.id),
                ("email", email),
                ("confirm_device", "yes"),
                ("accept_terms", "yes"),
                (
                    "expected_price_cents",
                    &hidden(&page, "expected_price_cents"),
                ),
                ("promo_code", code),
            ],
        )
        .await
}

/// Pays `checkout` (its answer, a redirect to the demo page); returns the purchase id and
/// the payment page as shown.
async fn pay(app: &TestApp, browser: &Browser, checkout: &Answer) -> (String, String) {
    let demo = open_pay_page(app, browser, &checkout.location()).await;
    assert_eq!(demo.status, 200);
    let back = answer(app, browser, &demo.session, &demo.token, "pay")
        .await
        .assert_status(303)
        .location();
    (purchase_id(&back), demo.html)
}

async fn shop(backend: Backend) -> Option<(TestApp, storefront::sandbox::SandboxHandle, ShopPlan)> {
    shop_with(backend, &[]).await
}

async fn shop_with(
    backend: Backend,
    extra: &[(&str, &str)],
) -> Option<(TestApp, storefront::sandbox::SandboxHandle, ShopPlan)> {
    let mut settings = vec![("STOREFRONT_MIN_MARGIN_CENTS", "50")];
    settings.extend_from_slice(extra);
    let (app, upstream) = spawn_shop_with(backend, 30, &settings).await?;
    let plan = roomy_plan(&app);
    upstream
        .sandbox
        .set_balance(plan.cost.get() * 100)
        .expect("balance");
    age_wallet(&app.db).await;
    Some((app, upstream, plan))
}

async fn the_last_use_goes_to_one_of_20_concurrent_checkouts_and_counts_once(backend: Backend) {
    let Some((app, _upstream, plan)) = shop(backend).await else {
        return;
    };
    let list = plan.price.expect("priced");
    // 10% off, two uses in all.
    add_code(&app, "LAST-ONE", 1_000, Some(2)).await;

    // The first use: typed in lower case, shown on the payment page, charged and counted.
    let first = Browser::default();
    let checkout = buy_with_code(&app, &first, &plan, "first@example.com", " last-one ")
        .await
        .assert_status(303);
    assert_eq!(
        used_count(&app, "LAST-ONE").await,
        0,
        "not counted before payment"
    );
    let (id, pay_page) = pay(&app, &first, &checkout).await;
    let discount = list.get() / 10;
    let charged = Cents::new(list.get() - discount);
    assert!(pay_page.contains(&format!("Pay {charged}")), "{pay_page}");
    assert!(pay_page.contains("data-promo=\"LAST-ONE\""), "{pay_page}");
    assert!(pay_page.contains(&format!("{} off {list}", Cents::new(discount))));
    let row = purchase_row(&app.db, &id).await;
    assert_eq!(row.price_cents, charged, "the discounted price is charged");
    assert_eq!(row.list_price_cents, Some(list.get()));
    assert_eq!(row.discount_cents, Some(discount));
    assert_eq!(row.promo_code.as_deref(), Some("LAST-ONE"));
    assert_eq!(used_count(&app, "LAST-ONE").await, 1);

    // The last use: 20 checkouts at once, each its own browser and email. One gets it.
    let app = Arc::new(app);
    let tasks: Vec<_> = (0..20)
        .map(|i| {
            let (app, plan) = (Arc::clone(&app), plan.clone());
            tokio::spawn(async move {
                let browser = Browser::default();
                let email = format!("racer-{i}@example.com");
                let answer = buy_with_code(&app, &browser, &plan, &email, "LAST-ONE").await;
                (answer, browser)
            })
        })
        .collect();
    let mut winners = Vec::new();
    let mut refused = 0;
    for task in tasks {
        let (answer, browser) = task.await.expect("task");
        let page = &answer.body;
        match answer.status {
            303 => winners.push((answer.clone(), browser)),
            409 => {
                assert!(page.contains("used up"), "the refusal says why: {page}");
                refused += 1;
            }
            other => panic!("unexpected answer {other}: {page}"),
        }
    }
    assert_eq!(winners.len(), 1, "exactly one checkout gets the last use");
    assert_eq!(refused, 19);
    assert_eq!(used_count(&app, "LAST-ONE").await, 1, "a hold is not a use");

    let (checkout, browser) = winners.pop().expect("winner");
    let (id, _) = pay(&app, &browser, &checkout).await;
    assert_eq!(purchase_row(&app.db, &id).await.price_cents, charged);
    assert_eq!(
        used_count(&app, "LAST-ONE").await,
        2,
        "the last use, counted once"
    );

    // A repeated delivery of the same payment changes nothing, and the code is spent.
    let _page = buy_with_code(
        &app,
        &Browser::default(),
        &plan,
        "late@example.com",
        "LAST-ONE",
    )
    .await
    .assert_status(409)
    .body;
    assert_eq!(used_count(&app, "LAST-ONE").await, 2);
}

async fn a_payment_after_its_hold_ended_is_honoured_and_counted_beyond_the_cap(backend: Backend) {
    let Some((app, _upstream, plan)) = shop(backend).await else {
        return;
    };
    add_code(&app, "ONCE", 500, Some(1)).await;
    let (a, b) = (Browser::default(), Browser::default());
    let a_checkout = buy_with_code(&app, &a, &plan, "a@example.com", "ONCE")
        .await
        .assert_status(303);
    // A's hold on the code ends (its buyer wandered off); B takes the use.
    app.db
        .run(|conn| {
            diesel::update(promo_redemptions::table)
                .set(promo_redemptions::reserved_until_ms.eq(0_i64))
                .execute(conn)
                .map_err(DbError::from)
        })
        .await
        .expect("end hold");
    let b_checkout = buy_with_code(&app, &b, &plan, "b@example.com", "ONCE")
        .await
        .assert_status(303);

    // Both pay at once. Both were charged the discounted price: both are sold.
    let app = Arc::new(app);
    let pay_a = {
        let app = Arc::clone(&app);
        tokio::spawn(async move { pay(&app, &a, &a_checkout).await.0 })
    };
    let pay_b = {
        let app = Arc::clone(&app);
        tokio::spawn(async move { pay(&app, &b, &b_checkout).await.0 })
    };
    let ids = [pay_a.await.expect("a"), pay_b.await.expect("b")];
    for id in &ids {
        let row = purchase_row(&app.db, id).await;
        assert_ne!(row.status.as_str(), "awaiting_payment", "{id} was paid");
        assert_eq!(
            row.discount_cents,
            Some(plan.price.expect("priced").get() / 20)
        );
    }
    assert_eq!(
        used_count(&app, "ONCE").await,
        2,
        "every verified use is counted"
    );
    let notes: Vec<String> = app
        .db
        .run(move |conn| {
            purchase_events::table
                .filter(purchase_events::purchase_id.eq_any(ids))
                .select(purchase_events::note)
                .load(conn)
                .map_err(DbError::from)
        })
        .await
        .expect("events");
    assert_eq!(
        notes
            .iter()
            .filter(|n| n.contains("beyond its cap of 1"))
            .count(),
        1,
        "the use beyond the cap is on the record: {notes:?}"
    );
}

async fn the_console_refuses_a_code_below_the_margin_floor_and_names_the_plans(backend: Backend) {
    let Some((app, _upstream, plan)) = shop(backend).await else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    let owner = login_as(&app, OWNER).await;
    let room = plan.price.expect("priced").get() - plan.cost.get();
    let dollars = |cents: i64| format!("{}.{:02}", cents / 100, cents % 100);
    let submit = |code: &'static str, off: i64| {
        let (owner, app, plan_id) = (&owner, &app, plan.id.clone());
        async move {
            let token = owner.csrf(app).await;
            owner
                .post(
                    app,
                    "/admin/promo-codes",
                    &[
                        ("csrf_token", token.as_str()),
                        ("code", code),
                        ("kind", "amount"),
                        ("value", &dollars(off)),
                        ("scope_kind", "plan"),
                        ("scope_value", &plan_id),
                    ],
                )
                .await
        }
    };

    // One cent past the floor (cost + $0.50): refused, and the plan is named.
    let page = submit("TOO-DEEP", room - 49).await.assert_status(409).body;
    assert!(
        page.contains("below cost plus the minimum margin"),
        "{page}"
    );
    assert!(page.contains(&plan.id), "the plan is named: {page}");
    // Every plan at 100% off: refused too.
    let token = owner.csrf(&app).await;
    owner
        .post(
            &app,
            "/admin/promo-codes",
            &[
                ("csrf_token", token.as_str()),
                ("code", "FREE"),
                ("kind", "percent"),
                ("value", "100"),
                ("scope_kind", "all"),
            ],
        )
        .await
        .assert_status(409);
    let saved: i64 = app
        .db
        .run(|conn| {
            promo_codes::table
                .count()
                .get_result(conn)
                .map_err(DbError::from)
        })
        .await
        .expect("count");
    assert_eq!(saved, 0, "nothing was saved");

    // Exactly at the floor: saved, listed, and buying with it charges cost + margin.
    submit("AT-FLOOR", room - 50)
        .await
        .assert_redirect_to("/admin/promo-codes?saved=1");
    let page = owner.get(&app, "/admin/promo-codes").await.body;
    assert!(page.contains("data-code=\"AT-FLOOR\""), "{page}");
    let shopper = Browser::default();
    let checkout = buy_with_code(&app, &shopper, &plan, "floor@example.com", "AT-FLOOR")
        .await
        .assert_status(303);
    let (id, _) = pay(&app, &shopper, &checkout).await;
    assert_eq!(
        purchase_row(&app.db, &id).await.price_cents.get(),
        plan.cost.get() + 50
    );
    let page = owner.get(&app, "/admin/promo-codes").await.body;
    assert!(page.contains("data-uses=\"1\""), "the use is shown: {page}");

    // Disabled: checkouts are refused with a reason, and both actions are audited.
    let token = owner.csrf(&app).await;
    owner
        .post(
            &app,
            "/admin/promo-codes/AT-FLOOR/disable",
            &[("csrf_token", token.as_str()), ("confirmed", "yes")],
        )
        .await
        .assert_status(303);
    let page = buy_with_code(
        &app,
        &Browser::default(),
        &plan,
        "x@example.com",
        "AT-FLOOR",
    )
    .await
    .assert_status(409)
    .body;
    assert!(page.contains("no longer offered"), "{page}");
    let actions: Vec<String> = app
        .db
        .run(|conn| {
            admin_audit::table
                .filter(admin_audit::action.like("promo_code_%"))
                .select(admin_audit::action)
                .load(conn)
                .map_err(DbError::from)
        })
        .await
        .expect("audit");
    assert!(
        actions.contains(&"promo_code_created".to_string()),
        "{actions:?}"
    );
    assert!(
        actions.contains(&"promo_code_disabled".to_string()),
        "{actions:?}"
    );
}

async fn a_display_currency_is_shown_but_never_changes_the_amount_charged(backend: Backend) {
    let Some((app, _upstream, plan)) = shop(backend).await else {
        return;
    };
    let list = plan.price.expect("priced");
    let listing = app.catalog.snapshot().listing_href(&plan);
    create(&app.db, OWNER, Role::Owner).await;
    let owner = login_as(&app, OWNER).await;
    let shopper = Browser::default();
    // Cached before any rate is set.
    let before = shopper.get(&app, &listing).await.body;
    assert!(!before.contains("≈ €"));

    let token = owner.csrf(&app).await;
    owner
        .post(
            &app,
            "/admin/currencies",
            &[
                ("csrf_token", token.as_str()),
                ("currency", "EUR"),
                ("rate", "0.9245"),
                ("date", "2026-11-20"),
            ],
        )
        .await
        .assert_status(303);
    // Half up on the converted cents: list × 0.9245.
    let eur = (list.get() * 924_500 + 500_000) / 1_000_000;
    let shown = format!("≈ €{}.{:02}", eur / 100, eur % 100);

    let listing_page = shopper.get(&app, &listing).await.body;
    assert!(
        listing_page.contains(&shown),
        "the cached listing was rebuilt: {shown}"
    );
    let plan_page = shopper.get(&app, &format!("/plans/{}", plan.id)).await.body;
    assert!(plan_page.contains(&shown), "{plan_page}");
    assert!(plan_page.contains("rate of 20 Nov 2026"));
    // A German page writes the same price and day the German way.
    let german = Browser::default()
        .get(&app, &format!("/plans/{}?lang=de", plan.id))
        .await
        .body;
    let shown_de = format!("≈ {},{:02}\u{a0}€", eur / 100, eur % 100);
    assert!(german.contains(&shown_de), "{shown_de}: {german}");
    assert!(german.contains("Kurs vom 20. Nov. 2026"), "{german}");
    assert_eq!(
        hidden(&plan_page, "expected_price_cents"),
        list.get().to_string()
    );

    let checkout = shopper
        .post(
            &app,
            "/checkout",
            &[
                ("csrf_token", &hidden(&plan_page, "csrf_token")),
                ("plan_id", &plan.id),
                ("email", "fx@example.com"),
                ("confirm_device", "yes"),
                ("accept_terms", "yes"),
                ("expected_price_cents", &list.get().to_string()),
            ],
        )
        .await
        .assert_status(303);
    let (id, pay_page) = pay(&app, &shopper, &checkout).await;
    assert!(pay_page.contains(&format!("Pay {list}")), "{pay_page}");
    assert!(pay_page.contains(&shown), "{pay_page}");
    let row = purchase_row(&app.db, &id).await;
    assert_eq!(row.price_cents, list, "charged in USD, as listed");
    assert_eq!(row.discount_cents, None);

    // Cleared: the pages stop showing it.
    let token = owner.csrf(&app).await;
    owner
        .post(
            &app,
            "/admin/currencies/EUR/clear",
            &[("csrf_token", token.as_str()), ("confirmed", "yes")],
        )
        .await
        .assert_status(303);
    let plan_page = shopper.get(&app, &format!("/plans/{}", plan.id)).await.body;
    assert!(!plan_page.contains("≈ €"));
}

async fn a_code_keeps_to_its_plans_its_dates_and_its_cap_per_email(backend: Backend) {
    let Some((app, _upstream, plan)) = shop(backend).await else {
        return;
    };
    let elsewhere = app
        .catalog
        .snapshot()
        .plans()
        .iter()
        .find(|p| p.is_sellable() && p.country_code != plan.country_code)
        .expect("a plan for another country")
        .clone();
    let local = CodeRow {
        code: "LOCAL".into(),
        kind: "amount".into(),
        value: 25,
        starts_at_ms: 0,
        ends_at_ms: None,
        max_uses: None,
        max_uses_per_email: Some(1),
        scope_kind: "country".into(),
        scope_value: plan.country_code.clone(),
        used_count: 0,
        disabled_at_ms: None,
        created_at_ms: now_ms(),
        created_by: "test".into(),
    };
    let over = CodeRow {
        code: "OVER".into(),
        max_uses_per_email: None,
        scope_kind: "all".into(),
        scope_value: String::new(),
        ends_at_ms: Some(now_ms() - 1),
        ..local.clone()
    };
    app.db
        .run(move |conn| {
            storefront::db::promo::insert(conn, &local)?;
            storefront::db::promo::insert(conn, &over)
        })
        .await
        .expect("codes");

    let refused = |answer: Answer, why: &str| {
        let page = answer.assert_status(409).body;
        assert!(page.contains(why), "{why}: {page}");
        assert!(page.contains("aria-invalid=\"true\""), "beside its field");
    };
    let browser = Browser::default();
    refused(
        buy_with_code(&app, &browser, &elsewhere, "ana@example.com", "LOCAL").await,
        "does not apply to this plan",
    );
    refused(
        buy_with_code(&app, &browser, &plan, "ana@example.com", "OVER").await,
        "has expired",
    );
    refused(
        buy_with_code(&app, &browser, &plan, "ana@example.com", "NOPE").await,
        "does not exist",
    );
    let checkout = buy_with_code(&app, &browser, &plan, "ana@example.com", "LOCAL")
        .await
        .assert_status(303);
    let (id, _) = pay(&app, &browser, &checkout).await;
    // The order page names the code and what it took off, like the payment page.
    let order_page = browser.get(&app, &format!("/orders/{id}")).await.body;
    assert!(order_page.contains("data-promo=\"LOCAL\""), "{order_page}");
    // The same mailbox with a tag is the same buyer.
    refused(
        buy_with_code(
            &app,
            &Browser::default(),
            &plan,
            "Ana+2@Example.com",
            "LOCAL",
        )
        .await,
        "cannot be used for this order",
    );
    let page = buy_with_code(&app, &Browser::default(), &plan, "ana@example.com", "LOCAL")
        .await
        .body;
    assert!(
        !page.contains("already been used") && !page.contains("with this email"),
        "the refusal does not say that this address used the code: {page}"
    );
    assert_eq!(
        buy_with_code(&app, &Browser::default(), &plan, "bea@example.com", "LOCAL")
            .await
            .status,
        303,
        "another buyer may use it"
    );

    // The receipt names the code and what it took off.
    let list = plan.price.expect("priced");
    let line = format!("LOCAL, $0.25 off {list}");
    let number = as_id(&id).order_number();
    wait_for_emails_in(
        app.mail_dir.path(),
        1,
        &format!("about order {number} with {line:?}"),
        |m| m.text.contains(&number) && m.text.contains(&line),
    )
    .await;
}

/// A rate written by another replica (here: straight into the shared PostgreSQL, as that
/// replica's console would) reaches this replica's cached pages without a restart: the rate
/// shares the pricing version and its `NOTIFY`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rate_set_on_another_replica_reaches_this_one_s_cached_pages() {
    let Some((app, _upstream, plan)) = shop(Backend::Postgres).await else {
        return;
    };
    let path = format!("/plans/{}", plan.id);
    let shopper = Browser::default();
    let page = shopper.get(&app, &path).await.body;
    assert!(!page.contains("≈ £"), "no rate yet");
    app.db
        .run(|conn| {
            conn.write_tx(|conn| {
                storefront::db::display_rates::set(conn, "GBP", 790_000, "2026-11-21", now_ms())
            })
        })
        .await
        .expect("rate set elsewhere");
    let started = std::time::Instant::now();
    loop {
        let page = shopper.get(&app, &path).await.body;
        if page.contains("≈ £") && page.contains("rate of 21 Nov 2026") {
            break;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(5),
            "the cached plan page never showed the new rate"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// The owner raises a used-up code's cap, which sells again; a cap below the verified uses
/// and a bad day are refused with what to fix; a disabled code is enabled again. Each change
/// is audited.
async fn a_code_s_last_day_and_caps_change_and_a_disabled_code_comes_back(backend: Backend) {
    let Some((app, _upstream, plan)) = shop(backend).await else {
        return;
    };
    // 10 % off this plan alone, which its margin allows (enabling again checks the floor).
    let row = CodeRow {
        scope_kind: "plan".into(),
        scope_value: plan.id.clone(),
        ..code_row("EDIT", 1_000, Some(2))
    };
    insert_code(&app, row).await;
    for n in 0..2 {
        let browser = Browser::default();
        let checkout = buy_with_code(&app, &browser, &plan, &format!("e{n}@example.com"), "EDIT")
            .await
            .assert_status(303);
        pay(&app, &browser, &checkout).await;
    }
    assert_eq!(used_count(&app, "EDIT").await, 2);
    let answer = buy_with_code(&app, &Browser::default(), &plan, "e9@example.com", "EDIT").await;
    assert_eq!(answer.status, 409, "used up: {}", answer.body);
    let _page = answer.body;

    create(&app.db, OWNER, Role::Owner).await;
    let owner = login_as(&app, OWNER).await;
    let page = owner
        .get(&app, "/admin/promo-codes/EDIT")
        .await
        .assert_status(200)
        .body;
    assert!(
        page.contains("name=\"max_uses\" type=\"text\" inputmode=\"numeric\" value=\"2\""),
        "{page}"
    );
    let change = |ends: &'static str, max_uses: &'static str| {
        let (owner, app) = (&owner, &app);
        async move {
            let token = owner.csrf(app).await;
            owner
                .post(
                    app,
                    "/admin/promo-codes/EDIT",
                    &[
                        ("csrf_token", token.as_str()),
                        ("ends", ends),
                        ("max_uses", max_uses),
                        ("max_uses_per_email", ""),
                    ],
                )
                .await
        }
    };
    let page = change("", "1").await.assert_status(400).body;
    assert!(page.contains("used 2 times already"), "{page}");
    let page = change("2026-02-30", "5").await.assert_status(400).body;
    assert!(page.contains("a date like 2026-12-31"), "{page}");
    assert!(
        page.contains("value=\"2026-02-30\""),
        "the form keeps what was typed"
    );
    assert_eq!(used_count(&app, "EDIT").await, 2, "nothing changed");

    change("2099-12-31", "4")
        .await
        .assert_redirect_to("/admin/promo-codes?saved=1");
    let page = owner.get(&app, "/admin/promo-codes/EDIT").await.body;
    assert!(page.contains("value=\"2099-12-31\""), "{page}");
    assert_eq!(
        buy_with_code(&app, &Browser::default(), &plan, "e9@example.com", "EDIT")
            .await
            .status,
        303,
        "the raised cap sells again"
    );

    let token = owner.csrf(&app).await;
    owner
        .post(
            &app,
            "/admin/promo-codes/EDIT/disable",
            &[("csrf_token", token.as_str()), ("confirmed", "yes")],
        )
        .await
        .assert_status(303);
    let list = owner.get(&app, "/admin/promo-codes").await.body;
    assert!(list.contains("/admin/promo-codes/EDIT/enable"), "{list}");
    let enable = || {
        let (owner, app) = (&owner, &app);
        async move {
            let token = owner.csrf(app).await;
            owner
                .post(
                    app,
                    "/admin/promo-codes/EDIT/enable",
                    &[("csrf_token", token.as_str())],
                )
                .await
        }
    };
    let _page = enable().await.assert_status(303).body;
    let answer = enable().await;
    assert_eq!(answer.status, 409, "enabled already: {}", answer.body);
    let _page = answer.body;
    assert_eq!(
        buy_with_code(&app, &Browser::default(), &plan, "e8@example.com", "EDIT")
            .await
            .status,
        303,
        "enabled again"
    );

    let actions: Vec<String> = app
        .db
        .run(|conn| {
            admin_audit::table
                .filter(admin_audit::target.eq("promo:EDIT"))
                .order(admin_audit::id)
                .select(admin_audit::action)
                .load(conn)
                .map_err(DbError::from)
        })
        .await
        .expect("audit");
    assert_eq!(
        actions,
        [
            "promo_code_changed",
            "promo_code_disabled",
            "promo_code_enabled"
        ]
    );
}

/// A browser behind the shop's trusted proxy, which reports it as `addr`.
fn via(addr: &str) -> Browser {
    Browser::with_client(
        client_builder(&[("x-forwarded-for", addr)])
            .build()
            .expect("client"),
    )
}

/// A stranger starts checkouts with a code and never pays, each under a new invented email,
/// to hold every remaining use: one address holds at most 3 of them, and a buyer elsewhere
/// still gets the code and pays.
async fn unpaid_checkouts_from_one_client_cannot_squat_a_code_s_last_uses(backend: Backend) {
    let Some((app, _upstream, plan)) =
        shop_with(backend, &[("STOREFRONT_TRUSTED_PROXIES", "127.0.0.1")]).await
    else {
        return;
    };
    add_code(&app, "FIVE", 1_000, Some(5)).await;
    let mut answers = Vec::new();
    for i in 0..5 {
        let squatter = via("203.0.113.7");
        let email = format!("invented-{i}@example.com");
        let answer = buy_with_code(&app, &squatter, &plan, &email, "FIVE").await;
        answers.push((answer.status, answer.body));
    }
    let statuses: Vec<u16> = answers.iter().map(|a| a.0).collect();
    assert_eq!(
        statuses,
        [303, 303, 303, 409, 409],
        "one address holds 3 uses"
    );
    assert!(
        answers[3].1.contains(
            "Other unpaid checkouts from your connection already hold this promotion code"
        ),
        "{}",
        answers[3].1
    );
    assert!(!answers[3].1.contains("used up"), "{}", answers[3].1);

    // A buyer at another address gets the code, pays, and the use is counted.
    let buyer = via("198.51.100.20");
    let checkout = buy_with_code(&app, &buyer, &plan, "buyer@example.com", "FIVE")
        .await
        .assert_status(303);
    let (id, _) = pay(&app, &buyer, &checkout).await;
    assert_eq!(
        purchase_row(&app.db, &id).await.promo_code.as_deref(),
        Some("FIVE")
    );
    assert_eq!(used_count(&app, "FIVE").await, 1);
}
