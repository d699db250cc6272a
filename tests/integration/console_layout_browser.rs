//! Every console page fits the owner's screen, on a phone (390 px) and on a laptop (1366 px):
//! in headless Chromium, on a shop with orders (one refunded, one taxed), a promotion code, a
//! pricing rule, tax rates, a top-up, a second account and the audit entries all of that
//! wrote, no page scrolls sideways and no table hides columns behind its own scroll bar. The
//! pages are the console's GET routes as `src/web/admin/mod.rs` declares them (the role
//! matrix's reader), so a new page is checked without being listed here. Each whole page is
//! shot at both sizes into the screenshot folder for a person to look at.

use storefront::staff::Role;

use crate::admin::{OWNER, PASSWORD, SUPPORT, create, login_as};
use crate::admin_roles::console_pages;
use crate::helpers::{Backend, hidden, spawn_shop};
use crate::journeys::buy_and_wait_fulfilled;
use crate::journeys_browser::{ShotOnFailure, screenshot_dir};
use crate::webdriver::{Browser, LAPTOP, PHONE};

/// What sticks out of the current page: the document wider than the window, or a table
/// wider than its box (its last columns behind a scroll bar).
async fn too_wide(browser: &Browser) -> Vec<String> {
    let value = browser
        .execute(
            "const doc = document.scrollingElement; \
             const out = []; \
             if (doc.scrollWidth > doc.clientWidth) \
               out.push('the page is ' + doc.scrollWidth + ' px wide in ' + doc.clientWidth); \
             document.querySelectorAll('.table-wrap').forEach(w => { \
               if (w.scrollWidth > w.clientWidth + 1) \
                 out.push('table \"' + (w.getAttribute('aria-label') || '') + '\" is ' + \
                          w.scrollWidth + ' px wide in ' + w.clientWidth); \
             }); \
             return out;",
        )
        .await;
    value
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_console_page_fits_a_phone_and_a_laptop() {
    let Some(browser) = Browser::start(LAPTOP).await else {
        return;
    };
    let Some((app, _upstream)) = spawn_shop(Backend::Sqlite, 40).await else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    create(&app.db, SUPPORT, Role::Support).await;

    // A shop that has been trading: orders, one refunded, a code, a rule, a top-up.
    let kept = buy_and_wait_fulfilled(&app).await;
    let refunded = buy_and_wait_fulfilled(&app).await;
    let owner = login_as(&app, OWNER).await;
    owner
        .act(
            &app,
            &kept,
            "note",
            "customer asked about roaming in the mountains",
        )
        .await
        .assert_status(303);
    owner
        .act(
            &app,
            &refunded,
            "refund-keep-cost",
            "customer changed plans",
        )
        .await
        .assert_status(303);
    app.drain_outbox().await;
    let token = owner.csrf(&app).await;
    owner
        .post(
            &app,
            "/admin/promo-codes",
            &[
                ("csrf_token", &token),
                ("code", "WINTER-HOLIDAYS-2026"),
                ("kind", "percent"),
                ("value", "5"),
                ("ends", "2099-12-31"),
                ("max_uses", "50"),
                ("scope_kind", "all"),
            ],
        )
        .await
        .assert_status(303);
    owner
        .post(
            &app,
            "/admin/promo-codes",
            &[
                ("csrf_token", &token),
                ("code", "WINTER"),
                ("kind", "percent"),
                ("value", "2"),
                ("scope_kind", "all"),
            ],
        )
        .await
        .assert_status(303);
    owner
        .post(
            &app,
            "/admin/pricing/save",
            &[
                ("csrf_token", &token),
                ("scope_kind", "default"),
                ("scope_value", ""),
                ("markup_percent", "30"),
                ("fixed", "0.50"),
                ("min_margin", "1.00"),
                ("ending", "99"),
            ],
        )
        .await
        .assert_status(303);
    let wallet = owner.get(&app, "/admin/wallet").await.body;
    let topup = owner
        .post(
            &app,
            "/admin/wallet/topup",
            &[
                ("csrf_token", &hidden(&wallet, "csrf_token")),
                ("nonce", &hidden(&wallet, "nonce")),
                ("amount", "25.50"),
            ],
        )
        .await
        .assert_status(303)
        .location();
    // Tax added on top with a few rates, and one order paid with German tax.
    crate::tax::set_mode(&app, &owner, "exclusive").await;
    for (country, rate) in [("DE", "19"), ("AT", "20"), ("BA", "17"), ("FR", "20")] {
        crate::tax::set_rate(&app, &owner, country, rate).await;
    }
    let taxed = crate::tax::delivered_in_germany(
        &app,
        &crate::helpers::Browser::default(),
        &crate::journeys::sellable_plan(&app),
        "greta@example.com",
    )
    .await;
    let users = owner.get(&app, "/admin/users").await.body;
    let user = users
        .split("href=\"/admin/users/")
        .filter_map(|rest| rest.split('"').next())
        .find(|id| id.chars().all(|c| c.is_ascii_digit()) && !id.is_empty())
        .map(|id| format!("/admin/users/{id}"))
        .expect("an account's page");
    let topup = topup
        .strip_prefix(&app.address)
        .unwrap_or(&topup)
        .to_string();

    let _shot = ShotOnFailure {
        browser: &browser,
        name: "console-layout",
    };
    browser.goto(&app.url("/admin/login")).await;
    browser.wait_for("id=\"password\"").await;
    browser.type_into("#email", OWNER).await;
    browser.type_into("#password", PASSWORD).await;
    browser.click("form button[type=submit]").await;
    browser.wait_for("Log out").await;

    let pages = console_pages(&[
        ("/admin/orders/{id}", format!("/admin/orders/{kept}")),
        ("/admin/orders/{id}", format!("/admin/orders/{refunded}")),
        ("/admin/orders/{id}", format!("/admin/orders/{taxed}")),
        (
            "/admin/promo-codes/{code}",
            "/admin/promo-codes/WINTER".into(),
        ),
        ("/admin/wallet/topups/{id}", topup),
        ("/admin/users/{id}", user),
        (
            "/admin/legal/{document}/{lang}",
            "/admin/legal/terms/de".into(),
        ),
    ]);
    assert!(pages.len() >= 18, "the console's pages: {pages:?}");

    let dir = screenshot_dir();
    let mut problems = Vec::new();
    for (size, label) in [(PHONE, "phone"), (LAPTOP, "laptop")] {
        browser.set_size(size).await;
        for path in &pages {
            browser.goto(&app.url(path)).await;
            browser.wait_for("Log out").await;
            let name = path.trim_start_matches('/').replace(['/', '?', '='], "-");
            browser
                .screenshot_page(&dir.join(format!("console-{name}-{label}.png")))
                .await;
            for problem in too_wide(&browser).await {
                problems.push(format!("{path} at {} px: {problem}", size.0));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "console pages too wide for the screen: {problems:#?}"
    );
    drop(_shot);
    browser.quit().await;
}

/// After Preview the answer is in view: on a phone the preview sits far below the form's
/// button, and a page that opened at its top would leave the owner wondering what happened.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pricing_preview_opens_in_view() {
    let Some(browser) = Browser::start(PHONE).await else {
        return;
    };
    let Some((app, _upstream)) = spawn_shop(Backend::Sqlite, 10).await else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    let _shot = ShotOnFailure {
        browser: &browser,
        name: "pricing-preview",
    };
    browser.goto(&app.url("/admin/login")).await;
    browser.wait_for("id=\"password\"").await;
    browser.type_into("#email", OWNER).await;
    browser.type_into("#password", PASSWORD).await;
    browser.click("form button[type=submit]").await;
    browser.wait_for("Log out").await;
    browser.goto(&app.url("/admin/pricing")).await;
    browser.type_into("#markup_percent", "40").await;
    browser
        .click("form[action^=\"/admin/pricing/preview\"] button[type=submit]")
        .await;
    browser.wait_for("Save this rule").await;
    let top = browser
        .execute(
            "const e = document.getElementById('result') || document.getElementById('preview'); \
             const r = e.getBoundingClientRect(); \
             return [r.top, window.innerHeight, window.scrollY];",
        )
        .await;
    let (top, height, scrolled) = (
        top[0].as_f64().unwrap_or(-1.0),
        top[1].as_f64().unwrap_or(0.0),
        top[2].as_f64().unwrap_or(0.0),
    );
    assert!(
        scrolled > 0.0 && (0.0..height / 2.0).contains(&top),
        "the preview starts {top} px down a {height} px window (scrolled {scrolled} px)"
    );
    drop(_shot);
    browser.quit().await;
}
