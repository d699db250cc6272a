//! The owner's books against the sandbox upstream: a day with a top-up, a sale, a sale that
//! upstream failed (released and refunded to the buyer) reconciles to the cent, in the
//! console and from `storefront reconcile`; an order placed upstream behind the shop's back
//! is then the one and only mismatch. The CSV exports read back through a CSV parser.

use std::time::{Duration, Instant};

use storefront::catalog::ShopPlan;
use storefront::sandbox::{self, Outcome, SandboxConfig, SandboxHandle};
use storefront::staff::Role;

use crate::admin::{Browser, OWNER, PASSWORD, create, hidden};
use crate::both_backends;
use crate::helpers::{Answer, Backend, TestApp, binary, random_suffix, spawn_app_with, wait_for};
use crate::journeys::{buy, buy_and_wait_fulfilled, pay, sellable_plan};

both_backends!(
    a_period_reconciles_and_the_injected_order_is_the_one_mismatch,
    the_orders_csv_pages_through_every_order_the_search_finds,
    the_opening_credit_is_from_outside_and_an_explained_mismatch_closes_the_books,
    the_books_page_reads_the_copy_and_sends_the_supplier_nothing,
);

/// The shop on a sandbox whose wallet starts empty (so every credit is a top-up).
async fn shop_with_empty_wallet(backend: Backend) -> Option<(TestApp, SandboxHandle, String)> {
    shop_with_opening_credit(backend, 0).await
}

/// The shop on a sandbox whose account opened with `opening_cents` of credit.
async fn shop_with_opening_credit(
    backend: Backend,
    opening_cents: i64,
) -> Option<(TestApp, SandboxHandle, String)> {
    let key = format!("sk_test_{}", random_suffix());
    let mut config = SandboxConfig::new(key.clone());
    config.plans = 30;
    config.opening_balance_cents = opening_cents;
    config.paid_delay = Duration::from_millis(20);
    config.provisioning_delay = Duration::from_millis(20);
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

/// Tops the wallet up by $500 through the console and upstream's hosted checkout, then opens
/// the wallet page, which confirms the top-up and reads the balance.
async fn top_up(app: &TestApp, owner: &Browser) {
    let page = owner.get(app, "/admin/wallet").await.body;
    let form = [
        ("csrf_token", hidden(&page, "csrf_token")),
        ("nonce", hidden(&page, "nonce")),
        ("amount", "500.00".to_string()),
    ];
    let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let progress = owner
        .get(
            app,
            &owner
                .post(app, "/admin/wallet/topup", &form)
                .await
                .assert_status(303)
                .location(),
        )
        .await
        .body;
    let checkout = progress
        .split("href=\"")
        .filter_map(|rest| rest.split('"').next())
        .find(|href| href.contains("/_sandbox/checkout/"))
        .expect("a link to the hosted checkout")
        .to_string();
    let paid = app
        .client
        .post(format!("{checkout}/pay"))
        .send()
        .await
        .expect("pay");
    assert_eq!(paid.status().as_u16(), 303);
    let wallet = owner.get(app, "/admin/wallet").await.body;
    assert!(wallet.contains("$500.00"), "{wallet}");
}

/// Buys `plan`, which upstream fails, and waits until the buyer is refunded.
async fn buy_and_wait_refunded(app: &TestApp, plan: &ShopPlan) {
    let shopper = Browser::default();
    let pay_path = buy(app, &shopper, plan, "unlucky@example.com")
        .await
        .assert_status(303)
        .location();
    let pay_path = pay_path.strip_prefix(&app.address).unwrap_or(&pay_path);
    let order_path = pay(app, &shopper, pay_path)
        .await
        .assert_status(303)
        .location();
    wait_for("the order page to say refunded", async || {
        let page = shopper.get(app, &order_path).await.body;
        if page.contains("data-status=\"refunded\"") {
            Ok(())
        } else {
            Err(page)
        }
    })
    .await;
}

/// `storefront reconcile` for today against the app's database and upstream.
fn reconcile_command(
    app_db: &str,
    upstream: &SandboxHandle,
    key: &str,
    args: &[&str],
) -> (i32, String, String) {
    let out = binary()
        .arg("reconcile")
        .args(args)
        .env("STOREFRONT_DATABASE_URL", app_db)
        .env("STOREFRONT_UPSTREAM_BASE_URL", &upstream.base_url)
        .env("STOREFRONT_UPSTREAM_API_KEY", key)
        .output()
        .expect("the binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn today() -> String {
    time::OffsetDateTime::now_utc().date().to_string()
}

/// The books of `day` after the owner pressed "Refresh now" and the background refresh of the
/// supplier's history has run: the page reads the copy as it stands, so what happened upstream
/// shows once the copy is newer than the press.
pub(crate) async fn books_after_refresh(app: &TestApp, owner: &Browser, day: &str) -> Answer {
    let asked = storefront::db::now_ms();
    let token = owner.csrf(app).await;
    let back = owner
        .post(
            app,
            "/admin/books/refresh",
            &[("csrf_token", token.as_str()), ("from", day), ("to", day)],
        )
        .await
        .assert_redirect_to(format!("/admin/books?from={day}&to={day}&refreshing=1"))
        .location();
    wait_for("a refresh of the supplier's history", async || {
        match storefront::books::history::as_of(&app.db)
            .await
            .expect("the copy's time")
        {
            Some(at) if at >= asked => Ok(()),
            other => Err(format!("as of {other:?}")),
        }
    })
    .await;
    owner.get(app, &back).await.assert_status(200)
}

/// A CSV download read back with a real CSV parser: its header and rows by column name.
async fn csv_rows(
    app: &TestApp,
    owner: &Browser,
    path: &str,
) -> Vec<std::collections::HashMap<String, String>> {
    let Answer { body, headers, .. } = owner.get(app, path).await.assert_status(200);
    assert_eq!(headers["content-type"], "text/csv; charset=utf-8");
    assert!(
        headers["content-disposition"]
            .to_str()
            .expect("ascii")
            .starts_with("attachment")
    );
    let mut reader = csv::Reader::from_reader(body.as_bytes());
    let header: Vec<String> = reader
        .headers()
        .expect("header")
        .iter()
        .map(str::to_string)
        .collect();
    reader
        .records()
        .map(|r| {
            let r = r.expect("a well-formed row");
            assert_eq!(r.len(), header.len(), "every row has every column");
            header
                .iter()
                .cloned()
                .zip(r.iter().map(str::to_string))
                .collect()
        })
        .collect()
}

fn cents_as_dollars(cents: &str) -> String {
    let c: i64 = cents.parse().expect("cents");
    let sign = if c < 0 { "-" } else { "" };
    format!(
        "{sign}{}.{:02}",
        c.unsigned_abs() / 100,
        c.unsigned_abs() % 100
    )
}

async fn a_period_reconciles_and_the_injected_order_is_the_one_mismatch(backend: Backend) {
    let Some((app, upstream, key)) = shop_with_empty_wallet(backend).await else {
        return;
    };
    let db_url = app.database_url();
    create(&app.db, OWNER, Role::Owner).await;
    let owner = Browser::default();
    assert_eq!(owner.login(&app, OWNER, PASSWORD).await.status, 303);
    top_up(&app, &owner).await;
    let sold = buy_and_wait_fulfilled(&app).await;
    let good = sellable_plan(&app);
    let failing = app
        .catalog
        .snapshot()
        .plans()
        .iter()
        .find(|p| {
            p.id != good.id
                && p.is_sellable()
                && p.price.is_some_and(|c| c.get() >= 100)
                && p.cost.get() < 20_000
        })
        .expect("a second plan")
        .clone();
    upstream
        .sandbox
        .set_plan_outcome(&failing.id, Outcome::Failed)
        .expect("outcome");
    buy_and_wait_refunded(&app, &failing).await;

    // The dashboard's 30 days: today's sale in the chart, both checkouts paid.
    let dashboard = owner.get(&app, "/admin").await.body;
    assert!(
        dashboard.contains("role=\"img\" aria-labelledby=\"chart-title chart-desc\""),
        "{dashboard}"
    );
    let price = good.price.expect("a price");
    assert!(
        dashboard.contains(&format!(": sales {price}</title>")),
        "today's bar: {dashboard}"
    );
    assert!(
        dashboard.contains("data-conversion=\"100.0%\""),
        "{dashboard}"
    );
    assert!(dashboard.contains("data-abandoned=\"0\""), "{dashboard}");
    assert!(
        dashboard.contains("1 order, "),
        "one destination sold: {dashboard}"
    );

    // The day reconciles to the cent, in the console and on the command line.
    let day = today();
    let page = books_after_refresh(&app, &owner, &day).await.body;
    assert!(page.contains("data-books=\"match\""), "{page}");
    assert!(
        page.contains(&format!("/admin/orders/{sold}")),
        "the sale is listed"
    );
    let (code, stdout, stderr) =
        reconcile_command(&db_url, &upstream, &key, &["--from", &day, "--to", &day]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.starts_with("books match: "), "{stdout}");

    // An order placed upstream without the shop: the books no longer match, and say why.
    let cost = upstream
        .sandbox
        .plans()
        .iter()
        .find(|p| p.id == good.id)
        .expect("the plan upstream")
        .price_cents;
    let injected = reqwest::Client::new()
        .post(format!("{}/orders", upstream.base_url))
        .bearer_auth(&key)
        .header("Idempotency-Key", format!("manual-{}", random_suffix()))
        .json(&serde_json::json!({
            "planId": good.id,
            "expectedPriceCents": cost,
            "reference": "placed-by-hand",
        }))
        .send()
        .await
        .expect("sandbox answers");
    assert_eq!(injected.status().as_u16(), 202);
    let order_id = injected.json::<serde_json::Value>().await.expect("json")["orderId"]
        .as_str()
        .expect("order id")
        .to_string();

    let page = books_after_refresh(&app, &owner, &day).await.body;
    assert!(page.contains("data-mismatches=\"1\""), "{page}");
    assert!(
        page.contains(&format!("data-reference=\"{order_id}\"")),
        "{page}"
    );
    assert!(page.contains("has no purchase in the shop"), "{page}");

    let (code, stdout, stderr) =
        reconcile_command(&db_url, &upstream, &key, &["--from", &day, "--to", &day]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 1, "one mismatch, one line: {stdout}");
    assert!(
        lines[0].contains(&order_id) && lines[0].contains("has no purchase"),
        "{stdout}"
    );
    assert!(stderr.contains("1 mismatches"), "{stderr}");

    // Bad arguments: exit 2, nothing read.
    for args in [
        vec!["--from", "2026-13-01", "--to", "2026-11-30"],
        vec!["--from", "2026-11-30", "--to", "2026-11-01"],
        vec!["--from", "2026-11-01"],
    ] {
        let (code, _, stderr) = reconcile_command(&db_url, &upstream, &key, &args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
    }

    // The reconciliation as CSV: the same lines, the one mismatch with its amount.
    let rows = csv_rows(
        &app,
        &owner,
        &format!("/admin/books/reconciliation.csv?from={day}&to={day}"),
    )
    .await;
    let mismatched: Vec<_> = rows.iter().filter(|r| r["matches"] == "no").collect();
    assert_eq!(mismatched.len(), 1, "{rows:#?}");
    assert_eq!(mismatched[0]["upstream_reference"], order_id);
    assert_eq!(mismatched[0]["difference_cents"], format!("-{cost}"));
    assert!(mismatched[0]["problems"].contains("has no purchase"));
    for r in &rows {
        for column in ["paid", "cost", "margin", "difference"] {
            assert_eq!(
                r[&format!("{column}_dollars")],
                cents_as_dollars(&r[&format!("{column}_cents")])
            );
        }
    }
    assert_eq!(rows.iter().filter(|r| r["kind"] == "purchase").count(), 3);
    assert_eq!(rows.iter().filter(|r| r["kind"] == "top-up").count(), 1);
    // Made a day at a time: days with no line (here the two before) send nothing and do not
    // end the download early.
    let before = time::Date::parse(
        &day,
        &time::macros::format_description!("[year]-[month]-[day]"),
    )
    .expect("day")
        - time::Duration::days(2);
    assert_eq!(
        csv_rows(
            &app,
            &owner,
            &format!("/admin/books/reconciliation.csv?from={before}&to={day}"),
        )
        .await,
        rows
    );

    // The orders as CSV, with the order search's filters.
    let orders = csv_rows(&app, &owner, "/admin/books/orders.csv").await;
    assert_eq!(orders.len(), 2, "{orders:#?}");
    let refunded = orders
        .iter()
        .find(|r| r["status"] == "refunded")
        .expect("the refunded sale");
    assert_eq!(refunded["email"], "unlucky@example.com");
    assert_eq!(refunded["refunded_cents"], refunded["price_cents"]);
    assert_eq!(
        (
            refunded["cost_cents"].as_str(),
            refunded["margin_cents"].as_str()
        ),
        ("0", "0"),
        "upstream released the cost and the buyer got everything back"
    );
    assert!(
        orders.iter().all(|r| r["created_at"].ends_with('Z')),
        "ISO times"
    );
    let only_refunded = csv_rows(&app, &owner, "/admin/books/orders.csv?status=refunded").await;
    assert_eq!(only_refunded.len(), 1);
    assert_eq!(
        owner
            .get(&app, "/admin/books/orders.csv?from=tomorrow")
            .await
            .status,
        400,
        "the search's date rule holds"
    );
    let list = owner.get(&app, "/admin/orders?status=refunded").await.body;
    assert!(
        list.contains("/admin/books/orders.csv?status=refunded"),
        "the list links its CSV"
    );

    // The wallet's transactions: oldest first, the running balance ends at upstream's balance.
    let wallet = csv_rows(&app, &owner, "/admin/books/wallet.csv").await;
    let last = wallet.last().expect("transactions");
    let balance = upstream.sandbox.balance();
    assert_eq!(
        last["available_after_cents"],
        balance.available_cents.to_string()
    );
    assert_eq!(
        last["reserved_after_cents"],
        balance.reserved_cents.to_string()
    );
    assert_eq!(wallet[0]["type"], "credit");
    assert_eq!(wallet[0]["available_after_dollars"], "500.00");
}

/// The dashboard's chart and the books page in a real browser, on a phone and a laptop: the
/// chart is in the served HTML (the console has no script of its own), nothing scrolls
/// sideways, axe-core finds nothing serious.
/// With `STOREFRONT_SCREENSHOTS` set, both pages are shot at both sizes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboard_chart_and_the_books_read_on_a_phone_and_a_laptop() {
    use crate::fixtures::purchase;
    use crate::journeys_browser::{ShotOnFailure, axe_source, screenshot_dir, serious_violations};
    use crate::webdriver::{Browser as Chrome, LAPTOP, PHONE};
    use diesel::prelude::*;
    use storefront::db::schema::purchases;

    // An opening credit (listed under credits from outside the shop) and a funding reversal
    // (an open difference with its explanation form) besides the month of sales.
    let Some((app, upstream, _key)) = shop_with_opening_credit(Backend::Sqlite, 50_000).await
    else {
        return;
    };
    upstream.sandbox.apply_reversal(1_234).expect("a reversal");
    let Some(browser) = Chrome::start(PHONE).await else {
        return;
    };
    let axe = axe_source();
    create(&app.db, OWNER, Role::Owner).await;
    // A month of sales: one or two a day, a loss on one day (refunded, cost kept is not
    // modelled here: a sale below cost).
    let plans: Vec<ShopPlan> = app
        .catalog
        .snapshot()
        .plans()
        .iter()
        .filter(|p| p.is_sellable())
        .take(4)
        .cloned()
        .collect();
    let now = storefront::db::now_ms();
    for day in 0..30_i64 {
        for n in 0..(1 + day % 3) {
            let id = format!("fig-{day}-{n}");
            let plan = &plans[usize::try_from(day + n).expect("small") % plans.len()];
            let at = now - day * 86_400_000 - n * 60_000;
            let price = 400 + (day * 137 + n * 59) % 2_600;
            let cost = if day == 11 {
                price + 300
            } else {
                price * 3 / 4
            };
            let new = purchase(&id)
                .status("fulfilled")
                .email("fig@example.com")
                .plan(&plan.id)
                .price(price)
                .cost(cost)
                .reference(format!("ref-{id}"))
                .created(at)
                .expires_in(3_600_000)
                .build();
            app.db
                .run(move |conn| {
                    storefront::db::purchases::insert(conn, &new, "created")?;
                    diesel::update(purchases::table.find(&id))
                        .set(purchases::paid_at_ms.eq(Some(at + 30_000)))
                        .execute(conn)?;
                    Ok::<_, storefront::db::DbError>(())
                })
                .await
                .expect("a sale");
        }
    }
    let _shot = ShotOnFailure {
        browser: &browser,
        name: "books",
    };
    // The books read the copy of the supplier's history: refreshed once before browsing.
    let owner = crate::admin::login_as(&app, OWNER).await;
    books_after_refresh(&app, &owner, &today()).await;
    // More orders nobody bought than the page lists: it shows the first 100 and says so.
    let at = storefront::db::now_ms() - 60_000;
    let stray: Vec<storefront::db::supplier_history::OrderRow> = (0..105)
        .map(|i| storefront::db::supplier_history::OrderRow {
            id: format!("ord_stray_{i:03}"),
            reference: format!("stray-{i:03}"),
            status: "completed".into(),
            price_cents: 100,
            currency: "USD".into(),
            created_at: crate::book_days::rfc3339(at),
            created_at_ms: Some(at / 1000 * 1000),
            esim_id: None,
        })
        .collect();
    app.db
        .run(move |conn| {
            conn.write_tx(|conn| storefront::db::supplier_history::upsert_orders(conn, &stray))
        })
        .await
        .expect("stray orders");
    browser.goto(&app.url("/admin/login")).await;
    browser.wait_for("id=\"password\"").await;
    browser.type_into("#email", OWNER).await;
    browser.type_into("#password", PASSWORD).await;
    browser.click("form button[type=submit]").await;
    browser.wait_for("Log out").await;
    for (path, name) in [("/admin", "dashboard"), ("/admin/books", "books")] {
        browser.goto(&app.url(path)).await;
        let page = browser.wait_for("</main>").await;
        if name == "dashboard" {
            assert!(
                page.contains("class=\"bar-sales\""),
                "the chart is in the page"
            );
            assert!(page.contains("<desc id=\"chart-desc\">"));
        }
        if name == "books" {
            assert!(page.contains("Credits from outside the shop"), "{page}");
            assert!(page.contains("Explain this difference"), "{page}");
            assert!(page.contains("data-open-not-shown="), "{page}");
            assert_eq!(
                page.matches("<summary>Explain this difference").count(),
                100
            );
        }
        for size in [PHONE, LAPTOP] {
            browser.set_size(size).await;
            let wide = browser.overflowing().await;
            assert!(
                wide.is_empty(),
                "{name} at {size:?} scrolls sideways: {wide:?}"
            );
            if let Some(axe) = &axe {
                let violations = serious_violations(&browser, axe).await;
                assert!(violations.is_empty(), "axe-core on {name}: {violations:#?}");
            }
            if std::env::var_os("STOREFRONT_SCREENSHOTS").is_some() {
                // The part this test is about, at the top of the shot.
                let anchor = if name == "dashboard" {
                    "figures"
                } else {
                    "mismatches"
                };
                browser
                    .execute(&format!(
                        "document.getElementById('{anchor}').scrollIntoView();"
                    ))
                    .await;
                let label = if size == PHONE { "phone" } else { "laptop" };
                browser
                    .screenshot(&screenshot_dir().join(format!("books-{name}-{label}.png")))
                    .await;
            }
        }
        browser.set_size(PHONE).await;
    }
    drop(_shot);
    browser.quit().await;
}

/// More orders than one page of the export: every one comes out once, newest first, and the
/// search's text filter applies; email text a spreadsheet would run is neutralised.
async fn the_orders_csv_pages_through_every_order_the_search_finds(backend: Backend) {
    use crate::fixtures::purchase;

    let Some(app) = crate::helpers::spawn_app(backend).await else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    let owner = crate::admin::login_as(&app, OWNER).await;
    let now = storefront::db::now_ms();
    let news: Vec<_> = (0..450_i64)
        .map(|i| {
            let email = if i == 7 {
                "=HYPERLINK(\"http://evil.example\")@example.com".to_string()
            } else if i % 2 == 0 {
                format!("even{i}@example.com")
            } else {
                format!("odd{i}@example.com")
            };
            purchase(&format!("bulk-{i:03}"))
                .status("awaiting_payment")
                .email(&email)
                .plan("p1-base")
                .price(1000 + i)
                .cost(900)
                .reference(format!("ref-bulk-{i}"))
                .created(now - 1000 + i)
                .expires_in(3_600_000)
                .build()
        })
        .collect();
    app.db
        .run(move |conn| {
            for new in &news {
                storefront::db::purchases::insert(conn, new, "created")?;
            }
            Ok::<_, storefront::db::DbError>(())
        })
        .await
        .expect("orders");

    let rows = csv_rows(&app, &owner, "/admin/books/orders.csv").await;
    assert_eq!(rows.len(), 450, "every order once, across pages");
    let ids: Vec<&str> = rows.iter().map(|r| r["purchase_id"].as_str()).collect();
    let mut expected: Vec<String> = (0..450).rev().map(|i| format!("bulk-{i:03}")).collect();
    assert_eq!(
        ids,
        expected.iter().map(String::as_str).collect::<Vec<_>>(),
        "newest first"
    );
    let guarded = rows
        .iter()
        .find(|r| r["purchase_id"] == "bulk-007")
        .expect("row");
    assert_eq!(
        guarded["email"], "'=HYPERLINK(\"http://evil.example\")@example.com",
        "a formula is kept as text"
    );
    assert_eq!(guarded["price_dollars"], "10.07");

    let odd = csv_rows(&app, &owner, "/admin/books/orders.csv?q=odd").await;
    expected.retain(|id| id[5..].parse::<i64>().expect("n") % 2 == 1 && id != "bulk-007");
    assert_eq!(odd.len(), expected.len(), "the search's filter applies");
    assert!(odd.iter().all(|r| r["email"].starts_with("odd")));
}

/// Places an order upstream behind the shop's back (as if by hand in the supplier's portal)
/// and returns its id.
async fn order_placed_by_hand(upstream: &SandboxHandle, key: &str, plan_id: &str) -> String {
    let cost = upstream
        .sandbox
        .plans()
        .iter()
        .find(|p| p.id == plan_id)
        .expect("the plan upstream")
        .price_cents;
    let injected = reqwest::Client::new()
        .post(format!("{}/orders", upstream.base_url))
        .bearer_auth(key)
        .header("Idempotency-Key", format!("manual-{}", random_suffix()))
        .json(&serde_json::json!({
            "planId": plan_id,
            "expectedPriceCents": cost,
            "reference": "placed-by-hand",
        }))
        .send()
        .await
        .expect("sandbox answers");
    assert_eq!(injected.status().as_u16(), 202);
    injected.json::<serde_json::Value>().await.expect("json")["orderId"]
        .as_str()
        .expect("order id")
        .to_string()
}

/// A new shop whose supplier account opened with $500 of credit: that credit is listed under
/// "Credits from outside the shop" and the day's books match. An order then placed by hand in
/// the supplier's portal is an open mismatch until the owner explains it with a note: support
/// cannot, a form without its CSRF token or without a note saves nothing, and the owner's
/// explanation is shown beside the line, audited, and lets `storefront reconcile` exit 0.
async fn the_opening_credit_is_from_outside_and_an_explained_mismatch_closes_the_books(
    backend: Backend,
) {
    let Some((app, upstream, key)) = shop_with_opening_credit(backend, 50_000).await else {
        return;
    };
    let db_url = app.database_url();
    create(&app.db, OWNER, Role::Owner).await;
    create(&app.db, crate::admin::SUPPORT, Role::Support).await;
    let owner = crate::admin::login_as(&app, OWNER).await;
    let sold = buy_and_wait_fulfilled(&app).await;

    let day = today();
    let page = books_after_refresh(&app, &owner, &day).await.body;
    assert!(page.contains("data-books=\"match\""), "{page}");
    assert!(page.contains("Credits from outside the shop"), "{page}");
    assert!(
        page.contains("data-outside-cents=\"50000\""),
        "the opening credit is counted as the owner's: {page}"
    );
    assert!(page.contains(&format!("/admin/orders/{sold}")), "{page}");
    let (code, stdout, stderr) =
        reconcile_command(&db_url, &upstream, &key, &["--from", &day, "--to", &day]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.starts_with("books match: "), "{stdout}");

    let plan = sellable_plan(&app);
    let order_id = order_placed_by_hand(&upstream, &key, &plan.id).await;
    let line_key = format!("order:{order_id}");
    let page = books_after_refresh(&app, &owner, &day).await.body;
    assert!(page.contains("data-mismatches=\"1\""), "{page}");
    assert!(page.contains(&format!("data-key=\"{line_key}\"")), "{page}");
    let (code, stdout, stderr) =
        reconcile_command(&db_url, &upstream, &key, &["--from", &day, "--to", &day]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(stderr.contains("1 mismatches not explained"), "{stderr}");

    let note = "Test order placed by hand in the supplier portal";
    let form = |token: &str| -> Vec<(&'static str, String)> {
        vec![
            ("csrf_token", token.to_string()),
            ("key", line_key.clone()),
            ("note", note.to_string()),
            ("from", day.clone()),
            ("to", day.clone()),
        ]
    };
    let as_pairs = |f: &[(&'static str, String)]| -> Vec<(&'static str, String)> { f.to_vec() };

    // Support may not explain the books.
    let support = crate::admin::login_as(&app, crate::admin::SUPPORT).await;
    let token = support.csrf(&app).await;
    let fields = as_pairs(&form(&token));
    let fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
    support
        .post(&app, "/admin/books/explain", &fields)
        .await
        .assert_status(403);
    // Nor may a form without its CSRF token.
    let fields: Vec<(&str, &str)> = fields
        .iter()
        .filter(|(k, _)| *k != "csrf_token")
        .copied()
        .collect();
    owner
        .post(&app, "/admin/books/explain", &fields)
        .await
        .assert_status(403);
    // A note is required.
    let token = owner.csrf(&app).await;
    let refused = owner
        .post(
            &app,
            "/admin/books/explain",
            &[
                ("csrf_token", token.as_str()),
                ("key", line_key.as_str()),
                ("note", "   "),
                ("from", day.as_str()),
                ("to", day.as_str()),
            ],
        )
        .await
        .assert_status(400)
        .body;
    assert!(refused.contains("Write a note"), "{refused}");
    assert!(refused.contains("data-mismatches=\"1\""), "{refused}");
    let rows = crate::admin::audit_rows(&app.db).await;
    assert!(
        rows.iter()
            .all(|(_, action, _, _)| action != "books_mismatch_explained"),
        "nothing saved yet: {rows:?}"
    );

    // The owner explains it.
    let token = owner.csrf(&app).await;
    let fields = form(&token);
    let fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let back = owner
        .post(&app, "/admin/books/explain", &fields)
        .await
        .assert_status(303)
        .location();
    assert!(
        back.starts_with(&format!("/admin/books?from={day}&to={day}")),
        "{back}"
    );
    let page = owner.get(&app, &back).await.assert_status(200).body;
    assert!(page.contains("data-books=\"closed\""), "{page}");
    assert!(page.contains("Explained differences"), "{page}");
    assert!(page.contains(note), "the note beside the line: {page}");
    assert!(!page.contains("data-mismatches="), "{page}");

    let rows = crate::admin::audit_rows(&app.db).await;
    let entry = rows
        .iter()
        .find(|(_, action, _, _)| action == "books_mismatch_explained")
        .expect("the explanation is audited");
    assert_eq!(entry.0, OWNER);
    assert_eq!(
        entry.2.as_deref(),
        Some(format!("books:{line_key}").as_str())
    );
    assert!(entry.3.contains(note), "{entry:?}");
    let audit = owner
        .get(&app, "/admin/audit")
        .await
        .assert_status(200)
        .body;
    assert!(audit.contains("Books difference explained"), "{audit}");
    assert!(!audit.contains(">books_mismatch_explained<"), "{audit}");

    let (code, stdout, stderr) =
        reconcile_command(&db_url, &upstream, &key, &["--from", &day, "--to", &day]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains("books close: every difference left is explained"),
        "{stdout}"
    );
    assert!(stdout.contains(note), "{stdout}");
}

/// The books page reads the shop's copy of the supplier's history as it stands: opening it (and
/// its reconciliation CSV) sends the supplier nothing, whatever the period, and the page says
/// how fresh the copy is. "Refresh now" asks the background refresh, which brings in what
/// happened upstream since; until then the page shows the copy's time, not a live answer.
async fn the_books_page_reads_the_copy_and_sends_the_supplier_nothing(backend: Backend) {
    let Some((app, upstream, key)) = shop_with_opening_credit(backend, 50_000).await else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    let owner = crate::admin::login_as(&app, OWNER).await;
    let sold = buy_and_wait_fulfilled(&app).await;
    let sent = || upstream.sandbox.stats().api_requests;
    let day = today();
    let period = format!("/admin/books?from={day}&to={day}");

    // Before the first copy: the page says so and offers the refresh; nothing is asked upstream.
    let before = sent();
    let page = owner.get(&app, &period).await.assert_status(200).body;
    assert!(page.contains("data-as-of=\"never\""), "{page}");
    assert!(page.contains(">Refresh now</button>"), "{page}");
    assert!(
        !page.contains("data-books="),
        "no verdict without a copy: {page}"
    );
    owner
        .get(&app, "/admin/books?from=2025-01-01&to=2026-12-31")
        .await
        .assert_status(200);
    assert_eq!(sent(), before, "the books page asked the supplier");

    // After "Refresh now": the sale matches, as of the refresh's time.
    let page = books_after_refresh(&app, &owner, &day).await.body;
    assert!(page.contains("data-books=\"match\""), "{page}");
    assert!(page.contains(&format!("/admin/orders/{sold}")), "{page}");
    let as_of = storefront::books::history::as_of(&app.db)
        .await
        .expect("the copy's time")
        .expect("a refreshed copy");
    let stamp = page
        .split("data-as-of>")
        .nth(1)
        .and_then(|rest| rest.split("</p>").next())
        .expect("the copy's time on the page");
    assert!(
        stamp.contains(&format!(
            "<time datetime=\"{}\"",
            storefront::domain::clock::rfc3339(as_of)
        )),
        "{stamp}"
    );
    assert!(
        !stamp.contains(&as_of.to_string()),
        "no raw milliseconds: {stamp}"
    );

    // An order placed upstream behind the shop's back: the page and the CSV keep showing the
    // copy, without a request, until the next refresh brings the order in.
    let plan = sellable_plan(&app);
    let order_id = order_placed_by_hand(&upstream, &key, &plan.id).await;
    let before = sent();
    let page = owner.get(&app, &period).await.assert_status(200).body;
    assert!(page.contains("data-books=\"match\""), "{page}");
    let rows = csv_rows(
        &app,
        &owner,
        &format!("/admin/books/reconciliation.csv?from={day}&to={day}"),
    )
    .await;
    assert!(rows.iter().all(|r| r["matches"] != "no"), "{rows:#?}");
    assert_eq!(sent(), before, "the books page asked the supplier");
    let page = books_after_refresh(&app, &owner, &day).await.body;
    assert!(page.contains("data-mismatches=\"1\""), "{page}");
    assert!(
        page.contains(&format!("data-reference=\"{order_id}\"")),
        "{page}"
    );
}
