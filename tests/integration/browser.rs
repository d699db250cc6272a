//! The console in a real browser (headless Chromium through ChromeDriver, see
//! [`crate::webdriver`]): an owner tops up the wallet, pays on the sandbox's hosted checkout
//! page, comes back and sees the credit. A browser applies the shop's CSP, which a plain HTTP
//! client does not: this is the test that catches a form whose answer the browser refuses to
//! follow.
//!
//! Screenshots of the wallet page and the top-up page at phone and laptop sizes are written to
//! `$STOREFRONT_SCREENSHOTS` (or a folder under the system temp directory), for a person to
//! look at.

use std::path::PathBuf;

use storefront::accounts::Role;

use crate::admin::{OWNER, PASSWORD, create};
use crate::helpers::{Backend, spawn_shop};
use crate::webdriver::{Browser, LAPTOP, PHONE};

fn screenshot_dir() -> PathBuf {
    let dir = std::env::var_os("STOREFRONT_SCREENSHOTS").map_or_else(
        || std::env::temp_dir().join("storefront-screenshots"),
        PathBuf::from,
    );
    std::fs::create_dir_all(&dir).expect("screenshot folder");
    dir
}

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
        .screenshot(&dir.join(format!("{name}-phone.png")))
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
        .screenshot(&dir.join(format!("{name}-laptop.png")))
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_owner_tops_up_in_a_browser_pays_on_the_hosted_page_and_sees_the_credit() {
    let Some(browser) = Browser::start(LAPTOP).await else {
        return;
    };
    let Some((app, upstream)) = spawn_shop(Backend::Sqlite, 20).await else {
        return;
    };
    upstream.sandbox.set_balance(45_678).expect("balance");
    create(&app.db, OWNER, Role::Owner).await;

    browser.goto(&app.url("/admin/login")).await;
    browser.type_into("#email", OWNER).await;
    browser.type_into("#password", PASSWORD).await;
    browser.click("form button[type=submit]").await;
    browser.wait_for("Log out").await;

    browser.goto(&app.url("/admin/wallet")).await;
    browser.wait_for("$456.78").await;
    shoot(&browser, "wallet", None).await;
    shoot(&browser, "wallet-threshold", Some("threshold")).await;

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
    let host = upstream.origin.trim_start_matches("http://");
    assert!(
        page.contains(&format!("Continue to payment at {host}")),
        "{page}"
    );
    shoot(&browser, "topup-pending", None).await;

    // The link opens the hosted checkout in a new tab; the console's tab stays.
    let console = browser.window_handle().await;
    browser.click("a[target=_blank]").await;
    let started = std::time::Instant::now();
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
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    browser.switch_to(&checkout).await;
    browser.wait_for("SANDBOX checkout").await;
    assert!(browser.source().await.contains("Wallet top-up of $25.50"));
    browser.click("form[action$='/pay'] button").await;
    browser.wait_for("data-status=\"paid\"").await;
    assert_eq!(upstream.sandbox.balance().available_cents, 45_678 + 2_550);

    // Back in the console's tab, a check shows the top-up paid and the credit.
    browser.switch_to(&console).await;
    browser.click("a.button.secondary").await;
    let page = browser.wait_for("data-topup-status=\"paid\"").await;
    assert!(page.contains("$482.28"), "{page}");
    assert_eq!(browser.text("[data-available]").await, "$482.28");
    shoot(&browser, "topup-paid", None).await;

    browser.goto(&app.url("/admin/wallet")).await;
    let page = browser.wait_for("$482.28").await;
    assert!(
        page.contains(">paid<"),
        "the top-up is listed as paid: {page}"
    );
    browser.quit().await;
}
