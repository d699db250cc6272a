//! A traveller opens the receipt of their order in a real browser (headless Chromium, under
//! the shop's CSP): from the order page's link, on a phone and on a laptop, without sideways
//! scrolling, with its Print button working from the page's own script. Screenshots at both
//! sizes go to the screenshot folder for a person to look at.

use storefront::db::identity::{IdentityTexts, save_texts};
use storefront::db::now_ms;

use crate::helpers::{Backend, spawn_shop};
use crate::journeys::sellable_plan;
use crate::journeys_browser::{ShotOnFailure, axe_source, screenshot_dir, serious_violations};
use crate::webdriver::{Browser, LAPTOP, PHONE};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_traveller_opens_and_prints_the_receipt_on_a_phone_and_a_laptop() {
    let Some(browser) = Browser::start(PHONE).await else {
        return;
    };
    let Some((app, _upstream)) = spawn_shop(Backend::Sqlite, 40).await else {
        return;
    };
    let texts = IdentityTexts {
        name: "Globe Data".into(),
        accent: "#7a1f5c".into(),
        support_email: "help@globedata.example".into(),
        support_phone: "+353 1 555 0100".into(),
        legal_name: "Globe Data Travel Limited".into(),
        address: "1 Harbour Road\nDublin D02 X285\nIreland".into(),
        registration: "VAT IE1234567T".into(),
    };
    app.db
        .run(move |c| c.write_tx(|c| save_texts(c, &texts, now_ms())))
        .await
        .expect("identity saved");
    let plan = sellable_plan(&app);
    let _shot = ShotOnFailure {
        browser: &browser,
        name: "receipt",
    };

    browser.goto(&app.url(&format!("/plans/{}", plan.id))).await;
    browser.wait_for("id=\"accept_terms\"").await;
    browser
        .type_into(
            "#email",
            "a.very.long.address.for.a.receipt@travellers.example.com",
        )
        .await;
    browser.click("#confirm_device").await;
    browser.click("#accept_terms").await;
    browser.click("form.checkout button[type=submit]").await;
    browser.wait_for("TEST MODE").await;
    browser.click("form[action$='/pay'] button").await;
    browser.wait_for("data-order-number").await;
    browser.click("p.receipt-link a").await;
    let page = browser.wait_for("data-receipt=\"R-000001\"").await;
    assert!(page.contains("Globe Data Travel Limited"), "{page}");
    assert!(page.contains("No tax was charged on this sale."), "{page}");

    // The Print button is the page's script's: shown, and it opens the print dialog.
    let shown = browser
        .execute("return !document.querySelector('[data-print]').hidden;")
        .await;
    assert_eq!(shown, serde_json::json!(true));
    if let Some(axe) = axe_source() {
        let violations = serious_violations(&browser, &axe).await;
        assert!(
            violations.is_empty(),
            "axe-core on the receipt: {violations:#?}"
        );
    }

    let dir = screenshot_dir();
    for (size, name) in [(PHONE, "phone"), (LAPTOP, "laptop")] {
        browser.set_size(size).await;
        let wide = browser.overflowing().await;
        assert!(
            wide.is_empty(),
            "the receipt scrolls sideways ({name}): {wide:?}"
        );
        browser
            .screenshot(&dir.join(format!("receipt-{name}.png")))
            .await;
    }
}
