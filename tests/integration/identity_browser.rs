//! A new owner makes the shop theirs in a real browser (headless Chromium, under the shop's
//! CSP): name, colour, company details and a logo set on the identity page (the logo sent
//! through the browser's own file upload), the terms edited; then a traveller on a phone sees
//! them in the header, the footer, the terms page, the checkout's consent and the order email.
//! Screenshots of the identity page and the branded shop at both sizes go to the screenshot
//! folder for a person to look at.

use storefront::catalog::ShopPlan;
use storefront::staff::Role;

use crate::admin::{OWNER, PASSWORD, create};
use crate::helpers::{Backend, TestApp, spawn_shop};
use crate::journeys::sellable_plan;
use crate::journeys_browser::{ShotOnFailure, axe_source, screenshot_dir, serious_violations};
use crate::shop_identity::PNG;
use crate::webdriver::{Browser, LAPTOP, PHONE};

/// A sentence only the owner's edit puts in the terms.
const OWN_TERMS: &str = "Globe Data answers every question within two working days.";

/// axe-core on the current page (when it is installed): no critical or serious violation.
async fn accessible(browser: &Browser, axe: Option<&str>, page: &str) {
    let Some(axe) = axe else {
        return;
    };
    let violations = serious_violations(browser, axe).await;
    assert!(violations.is_empty(), "axe-core on {page}: {violations:#?}");
}

/// The current page at phone and laptop size, as `identity-{name}-….png`; it must not
/// scroll sideways on a phone. The browser is left at `end` size.
async fn shoot(browser: &Browser, name: &str, end: (u32, u32)) {
    let dir = screenshot_dir();
    browser.set_size(PHONE).await;
    browser
        .screenshot(&dir.join(format!("identity-{name}-phone.png")))
        .await;
    let wide = browser.overflowing().await;
    assert!(
        wide.is_empty(),
        "{name} scrolls sideways on a phone: {wide:?}"
    );
    browser.set_size(LAPTOP).await;
    browser
        .screenshot(&dir.join(format!("identity-{name}-laptop.png")))
        .await;
    browser.set_size(end).await;
}

/// Replaces a field's value the way a person who selected all and typed would.
async fn set_value(browser: &Browser, css: &str, value: &str) {
    browser
        .execute_with(
            "const field = document.querySelector(arguments[0]);\
             field.value = arguments[1];\
             field.dispatchEvent(new Event('input', { bubbles: true }));\
             field.dispatchEvent(new Event('change', { bubbles: true }));",
            serde_json::json!([css, value]),
        )
        .await;
}

async fn owner_sets_the_identity_and_edits_the_terms(
    app: &TestApp,
    browser: &Browser,
    axe: Option<&str>,
) {
    browser.wait_for("id=\"password\"").await;
    browser.type_into("#email", OWNER).await;
    browser.type_into("#password", PASSWORD).await;
    browser.click("form button[type=submit]").await;
    browser.wait_for("Log out").await;

    // Name, colour and company details.
    browser.goto(&app.url("/admin/identity")).await;
    browser.wait_for("value=\"eSIM shop\"").await;
    accessible(browser, axe, "the identity page").await;
    set_value(browser, "#name", "Globe Data").await;
    set_value(browser, "#accent", "#7a1f5c").await;
    set_value(browser, "#support_email", "help@globedata.example").await;
    set_value(browser, "#support_phone", "+353 1 555 0100").await;
    set_value(browser, "#legal_name", "Globe Data Travel Ltd").await;
    set_value(browser, "#address", "1 Harbour Road\nDublin D02 X285").await;
    set_value(browser, "#registration", "VAT IE1234567T").await;
    browser
        .click("form[action='/admin/identity'] button[type=submit]")
        .await;
    browser
        .wait_for("Every page and new email shows the new details now.")
        .await;

    // The logo, chosen in the browser's file field.
    let folder = tempfile::tempdir().expect("a folder for the logo");
    let file = folder.path().join("globe-data-logo.png");
    std::fs::write(&file, PNG).expect("logo file");
    browser
        .type_into("#file", &file.display().to_string())
        .await;
    browser
        .click("form[action='/admin/identity/logo'] button[type=submit]")
        .await;
    let page = browser
        .wait_for("Logo saved. The header shows it now.")
        .await;
    assert!(page.contains("src=\"/brand/logo."), "{page}");
    shoot(browser, "console", LAPTOP).await;

    // The terms in the owner's own words.
    browser.goto(&app.url("/admin/legal/terms/en")).await;
    browser.wait_for("id=\"body\"").await;
    browser
        .execute_with(
            "const body = document.getElementById('body');\
             body.value = body.value + '\\n\\n' + arguments[0] + '\\n';",
            serde_json::json!([OWN_TERMS]),
        )
        .await;
    browser.click("button[name=action][value=save]").await;
    browser
        .wait_for("Customers see the new text now; it counts as reviewed.")
        .await;
}

async fn traveller_sees_it_on_a_phone(
    app: &TestApp,
    browser: &Browser,
    axe: Option<&str>,
    plan: &ShopPlan,
) -> String {
    browser.delete_cookies().await;
    browser.set_size(PHONE).await;
    browser.goto(&app.url("/")).await;
    let home = browser.wait_for("<span>Globe Data</span>").await;
    assert!(home.contains("<title>Globe Data · "), "{home}");
    assert!(
        home.contains("<img class=\"logo\" src=\"/brand/logo."),
        "{home}"
    );
    assert!(!home.contains("eSIM shop<"), "{home}");
    assert_eq!(
        browser.text("footer.site .company").await,
        "Globe Data Travel Ltd · 1 Harbour Road, Dublin D02 X285 · VAT IE1234567T"
    );
    assert!(
        browser
            .text("footer.site")
            .await
            .contains("help@globedata.example")
    );
    // The page is drawn in the owner's colour.
    let accent = browser
        .execute(
            "return getComputedStyle(document.documentElement)\
             .getPropertyValue('--accent').trim();",
        )
        .await;
    assert_eq!(accent, "#7a1f5c");
    accessible(browser, axe, "the branded home page").await;
    shoot(browser, "home", PHONE).await;

    // The footer leads to the terms as the owner wrote them, without the draft banner.
    browser
        .click("footer.site nav.legal a[href='/terms']")
        .await;
    let terms = browser.wait_for(OWN_TERMS).await;
    assert!(terms.contains("Globe Data Travel Ltd"), "{terms}");
    accessible(browser, axe, "the terms").await;

    // Checkout: the consent links the terms and the withdrawal notice is read before paying.
    browser.goto(&app.url(&format!("/plans/{}", plan.id))).await;
    browser.wait_for("id=\"accept_terms\"").await;
    assert!(
        browser
            .text("#withdrawal-notice")
            .await
            .contains("you lose your right of withdrawal once it has been delivered"),
    );
    let consent_link = browser
        .execute("return document.querySelector('label[for=accept_terms] a').getAttribute('href');")
        .await;
    assert_eq!(consent_link, "/terms");
    shoot(browser, "plan", PHONE).await;
    browser
        .type_into("#email", "branded.traveller@example.com")
        .await;
    browser.click("#confirm_device").await;
    browser.click("#accept_terms").await;
    browser.click("form.checkout button[type=submit]").await;
    browser.wait_for("TEST MODE").await;
    browser.click("form[action$='/pay'] button").await;
    let order = browser.wait_for("data-order-number").await;
    assert!(order.contains("<span>Globe Data</span>"), "{order}");
    order
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_owner_brands_the_shop_and_a_traveller_on_a_phone_sees_it_everywhere() {
    let Some(browser) = Browser::start(LAPTOP).await else {
        return;
    };
    let Some((app, _upstream)) = spawn_shop(Backend::Sqlite, 40).await else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    let axe = axe_source();
    let axe = axe.as_deref();
    let plan = sellable_plan(&app);
    let _shot = ShotOnFailure {
        browser: &browser,
        name: "identity",
    };

    browser.goto(&app.url("/admin/login")).await;
    owner_sets_the_identity_and_edits_the_terms(&app, &browser, axe).await;
    traveller_sees_it_on_a_phone(&app, &browser, axe, &plan).await;

    // The order email comes in the shop's name with its details and colour.
    let email = app.wait_for_email("branded.traveller@example.com").await;
    assert!(
        email
            .header("from")
            .is_some_and(|f| f.starts_with("\"Globe Data\" <")),
        "{}",
        email.raw
    );
    assert!(
        email.text.contains("Globe Data Travel Ltd"),
        "{}",
        email.text
    );
    assert!(
        email.text.contains("background-color:#7a1f5c"),
        "{}",
        email.text
    );
    drop(_shot);
    browser.quit().await;
}
