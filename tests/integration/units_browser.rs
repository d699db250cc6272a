//! Several eSIMs in one order, in a real browser (headless Chromium, under the shop's CSP): a
//! parent on a phone buys three eSIMs through the plan page and the demo payment, two of them
//! for travellers with their own addresses. The buyer's page lists all three, each folded to
//! one line; each traveller's emailed link opens their own eSIM and no other. axe-core checks
//! both pages; screenshots at phone and laptop size go to the screenshot folder for a person to
//! look at.

use std::time::{Duration, Instant};

use crate::helpers::{Backend, spawn_shop};
use crate::journeys::sellable_plan;
use crate::journeys_browser::{ShotOnFailure, axe_source, screenshot_dir, serious_violations};
use crate::travellers::link_in;
use crate::webdriver::{Browser, LAPTOP, PHONE};

/// axe-core finds nothing serious, and the page scrolls sideways at neither size; shots of
/// both sizes as `{name}-phone.png` and `{name}-laptop.png`. The browser is left at phone size.
async fn check_and_shoot(browser: &Browser, axe: Option<&str>, name: &str) {
    if let Some(axe) = axe {
        let violations = serious_violations(browser, axe).await;
        assert!(violations.is_empty(), "axe-core on {name}: {violations:#?}");
    }
    let dir = screenshot_dir();
    for (size, device) in [(PHONE, "phone"), (LAPTOP, "laptop")] {
        browser.set_size(size).await;
        let wide = browser.overflowing().await;
        assert!(
            wide.is_empty(),
            "{name} scrolls sideways ({device}): {wide:?}"
        );
        browser
            .screenshot(&dir.join(format!("{name}-{device}.png")))
            .await;
    }
    browser.set_size(PHONE).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_parent_buys_three_esims_on_a_phone_and_each_traveller_opens_only_their_own() {
    let Some(browser) = Browser::start(PHONE).await else {
        return;
    };
    let Some((app, upstream)) = spawn_shop(Backend::Sqlite, 40).await else {
        return;
    };
    let plan = sellable_plan(&app);
    upstream
        .sandbox
        .set_balance(plan.cost.get() * 100)
        .expect("balance");
    crate::checkout::age_wallet(&app.db).await;
    let axe = axe_source();
    let _shot = ShotOnFailure {
        browser: &browser,
        name: "units",
    };

    // The plan page: three eSIMs, Ben's and Cleo's addresses, one payment.
    browser.goto(&app.url(&format!("/plans/{}", plan.id))).await;
    browser.wait_for("id=\"accept_terms\"").await;
    browser.type_into("#email", "parent@example.com").await;
    browser.click("details.travellers summary").await;
    browser
        .execute(
            "const q = document.querySelector('#quantity');\
             q.value = '3';\
             q.dispatchEvent(new Event('input', {bubbles: true}));\
             q.dispatchEvent(new Event('change', {bubbles: true}));",
        )
        .await;
    for (field, value) in [
        ("#traveller_name_1", "Anna"),
        ("#traveller_name_2", "Ben"),
        ("#traveller_email_2", "ben@example.com"),
        ("#traveller_name_3", "Cleo"),
        ("#traveller_email_3", "cleo@example.com"),
    ] {
        browser.type_into(field, value).await;
    }
    browser.click("#confirm_device").await;
    browser.click("#accept_terms").await;
    browser.click("form.checkout button[type=submit]").await;
    browser.wait_for("TEST MODE").await;
    browser.click("form[action$='/pay'] button").await;
    browser.wait_for("data-order-number").await;
    let order = browser.current_url().await;

    // The buyer's page lists all three, each folded to one line with its name and state.
    let started = Instant::now();
    let page = loop {
        let page = browser.source().await;
        if page.matches("data-unit-status=\"fulfilled\"").count() == 3 {
            break page;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the three eSIMs were never ready: {page}"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
        browser.goto(&order).await;
    };
    assert_eq!(page.matches("<details class=\"unit\"").count(), 3, "{page}");
    let folded = browser
        .execute("return document.querySelectorAll('details.unit[open]').length;")
        .await;
    assert_eq!(folded, 0, "every eSIM starts folded");
    for (n, name) in [(1, "Anna"), (2, "Ben"), (3, "Cleo")] {
        let line = browser
            .text(&format!("details.unit[data-unit='{n}'] summary"))
            .await;
        assert!(
            line.contains(&format!("eSIM {n} of 3 · {name}"))
                && line.contains("Your eSIM is ready"),
            "{line}"
        );
    }
    // Unfolding Ben's shows his QR code and activation code.
    browser.click("details.unit[data-unit='2'] summary").await;
    let shown = browser
        .execute(
            "const code = document.querySelector('#u2-activation-code');\
             return code.getBoundingClientRect().height > 0\
                 && document.querySelector(\"details.unit[data-unit='2'] figure.qr\") !== null;",
        )
        .await;
    assert_eq!(
        shown, true,
        "Ben's fold holds his QR code and activation code"
    );
    check_and_shoot(&browser, axe.as_deref(), "units-buyer").await;

    // Each traveller's emailed link opens their own eSIM, and their token no other.
    let units: Vec<String> =
        crate::quantity::units(&app.db, order.rsplit('/').next().unwrap_or_default())
            .await
            .iter()
            .map(|u| u.id.to_string())
            .collect();
    assert_eq!(units.len(), 3);
    for (to, n, name) in [
        ("ben@example.com", 2, "Ben"),
        ("cleo@example.com", 3, "Cleo"),
    ] {
        let link = link_in(&app.wait_for_email(to).await);
        browser.delete_cookies().await;
        browser.goto(&app.url(&link)).await;
        let page = browser.wait_for("data-order-number").await;
        assert!(page.contains(&format!("eSIM {n} of 3 · {name}")), "{page}");
        assert!(!page.contains("data-unit-status"), "no other eSIM: {page}");
        for other in ["Anna", "Ben", "Cleo"].iter().filter(|o| **o != name) {
            assert!(
                !page.contains(&format!("· {other}")),
                "{other}'s eSIM: {page}"
            );
        }
        assert!(
            page.contains("figure class=\"qr\""),
            "their QR code: {page}"
        );
        check_and_shoot(&browser, axe.as_deref(), &format!("units-traveller-{n}")).await;
        let token = link.split("token=").nth(1).unwrap_or_default();
        for other in units.iter().filter(|id| **id != units[n - 1]) {
            browser.delete_cookies().await;
            browser
                .goto(&app.url(&format!("/orders/{other}?token={token}")))
                .await;
            let page = browser.wait_for("Open your order from your email").await;
            assert!(!page.contains("data-order-number"), "{page}");
        }
    }
}
