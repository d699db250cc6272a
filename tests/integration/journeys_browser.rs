//! A traveller's journeys in headless Chromium (see [`crate::webdriver`]), on a phone-sized
//! window, against one shop: search, choose a daily plan, buy, pay on the demo page, wait and
//! install; the same with JavaScript off; a declined payment and a retry; checkout errors
//! sent from the keyboard; the order's 404 on another device, "Lost your link?" and the emailed
//! sign-in to "My eSIMs". axe-core runs in every page type on the way (with scripts on; it
//! needs timers), and in the customer emails' HTML, and must find no critical or serious
//! violation.
//!
//! axe-core comes from the npm registry into `$CARGO_TARGET_DIR/axe` (or `target/axe`;
//! `.ci/run` installs it: `npm install --prefix <dir> axe-core@4`). Without it the journeys
//! fail, unless the run opted out of browser tests (`STOREFRONT_TEST_SKIP=browser`).
//!
//! A failing journey leaves a screenshot of the page it failed on in the screenshot folder
//! (`$STOREFRONT_SCREENSHOTS`, else `$CARGO_TARGET_DIR/screenshots` or `target/screenshots`);
//! with `STOREFRONT_SCREENSHOTS` set, every page the journeys check is also shot at phone and
//! laptop sizes, for a person to look at.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use storefront::catalog::ShopPlan;
use storefront::mail::{MailBrand, OutgoingEmail, Receipt};

use crate::fixtures::as_id;
use crate::helpers::{Backend, TestApp, spawn_shop, wait_for_emails_in};
use crate::webdriver::{Browser, LAPTOP, PHONE};

const ENTER: &str = "\u{E007}";
const SPACE: &str = "\u{E00D}";

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target"),
        PathBuf::from,
    )
}

pub(crate) fn screenshot_dir() -> PathBuf {
    let dir = std::env::var_os("STOREFRONT_SCREENSHOTS")
        .map_or_else(|| target_dir().join("screenshots"), PathBuf::from);
    std::fs::create_dir_all(&dir).expect("screenshot folder");
    dir
}

/// When screenshots are asked for (`STOREFRONT_SCREENSHOTS`), the current page at phone and
/// laptop size as `{name}-phone.png` and `{name}-laptop.png`; the browser is left at phone size.
pub(crate) async fn shoot_if_asked(browser: &Browser, name: &str) {
    if std::env::var_os("STOREFRONT_SCREENSHOTS").is_none() {
        return;
    }
    let dir = screenshot_dir();
    browser.set_size(PHONE).await;
    browser
        .screenshot(&dir.join(format!("{name}-phone.png")))
        .await;
    browser.set_size(LAPTOP).await;
    browser
        .screenshot(&dir.join(format!("{name}-laptop.png")))
        .await;
    browser.set_size(PHONE).await;
}

/// axe-core's script, from the npm install under the target folder.
pub(crate) fn axe_source() -> Option<String> {
    let path = std::env::var_os("STOREFRONT_AXE_DIR")
        .map_or_else(|| target_dir().join("axe"), PathBuf::from)
        .join("node_modules/axe-core/axe.min.js");
    match std::fs::read_to_string(&path) {
        Ok(source) => Some(source),
        Err(err) => {
            crate::skips::missing(
                crate::skips::Needed::Browser,
                &format!(
                    "axe-core is missing at {} ({err}); install it with `npm install --prefix \
                     {} axe-core@4`",
                    path.display(),
                    target_dir().join("axe").display()
                ),
            );
            None
        }
    }
}

/// The critical and serious violations axe-core finds on the current page.
pub(crate) async fn serious_violations(browser: &Browser, axe: &str) -> Vec<String> {
    let loaded = browser
        .execute(&format!("{axe}\n;return typeof window.axe;"))
        .await;
    assert_eq!(loaded, "object", "axe-core did not load");
    let found = browser
        .execute_async(
            "const done = arguments[arguments.length - 1];\
             axe.run(document, {resultTypes: ['violations']})\
               .then(r => done(r.violations\
                 .filter(v => v.impact === 'critical' || v.impact === 'serious')\
                 .map(v => v.impact + ' ' + v.id + ': ' + v.nodes.slice(0, 3)\
                   .map(n => n.target.join(' ')).join(', '))))\
               .catch(e => done(['axe failed: ' + e]));",
        )
        .await;
    found
        .as_array()
        .map(|v| {
            v.iter()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The browser, the page checks and the failure screenshot of one journey.
struct Journey<'a> {
    browser: &'a Browser,
    app: &'a TestApp,
    name: &'static str,
    axe: Option<&'a str>,
}

impl Journey<'_> {
    async fn goto(&self, path: &str) {
        self.browser.goto(&self.app.url(path)).await;
    }

    async fn path(&self) -> String {
        let url = self.browser.current_url().await;
        url.strip_prefix(&self.app.address)
            .unwrap_or(&url)
            .to_string()
    }

    /// axe-core on the current page: no critical or serious violation; and the page does not
    /// scroll sideways. `page` names it in messages and screenshots.
    async fn check(&self, page: &str) {
        let wide = self.browser.overflowing().await;
        assert!(wide.is_empty(), "{page} scrolls sideways: {wide:?}");
        if let Some(axe) = self.axe {
            let violations = serious_violations(self.browser, axe).await;
            assert!(
                violations.is_empty(),
                "axe-core on {page} ({}): {violations:#?}",
                self.path().await
            );
        }
        shoot_if_asked(self.browser, &format!("{}-{page}", self.name)).await;
    }

    /// Waits until the browser is at `path` (at most 10 s).
    async fn wait_for_path(&self, path: &str) {
        let started = Instant::now();
        loop {
            let now = self.path().await;
            if now == path {
                return;
            }
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "at {now}, never at {path}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Waits until the page source contains `needle` (at most `secs` seconds); `refresh`
    /// clicks the page's Refresh link between looks, as a person without JavaScript would.
    async fn wait_for(&self, needle: &str, secs: u64, refresh: bool) -> String {
        let started = Instant::now();
        loop {
            let source = self.browser.source().await;
            if source.contains(needle) {
                return source;
            }
            assert!(
                started.elapsed() < Duration::from_secs(secs),
                "{} never showed {needle:?}: {source}",
                self.path().await
            );
            tokio::time::sleep(Duration::from_millis(250)).await;
            if refresh && source.contains("Refresh status") {
                self.browser.click("p.refresh a").await;
            }
        }
    }

    /// The plan page of `plan` to the demo payment page: email, the device box, then Enter.
    async fn check_out(&self, plan: &ShopPlan, email: &str) {
        self.goto(&format!("/plans/{}", plan.id)).await;
        // On a phone the price, the email field and the button are on the first screen.
        let fold = self
            .browser
            .execute(
                "const bottom = s => document.querySelector(s).getBoundingClientRect().bottom;\
                 return [bottom('.buy .price'), bottom('#email'),\
                   bottom('form.checkout button[type=submit]')]\
                   .every(b => b <= window.innerHeight);",
            )
            .await;
        assert_eq!(fold, true, "the buy box is above the fold");
        self.browser.type_into("#email", email).await;
        self.browser.click("#confirm_device").await;
        self.browser.click("#accept_terms").await;
        self.browser
            .click("form.checkout button[type=submit]")
            .await;
        self.wait_for("TEST MODE", 10, false).await;
    }
}

/// Takes a screenshot of the page a journey was on when it failed.
pub(crate) struct ShotOnFailure<'a> {
    pub(crate) browser: &'a Browser,
    pub(crate) name: &'static str,
}

impl Drop for ShotOnFailure<'_> {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            return;
        }
        let path = screenshot_dir().join(format!("{}-failure.png", self.name));
        let shot = tokio::task::block_in_place(|| {
            tokio::runtime::Handle::current().block_on(self.browser.try_screenshot(&path))
        });
        match shot {
            Ok(()) => eprintln!("screenshot of the failure: {}", path.display()),
            Err(err) => eprintln!("no screenshot of the failure: {err}"),
        }
    }
}

/// A daily plan the demo provider can sell, in Japan or the United States if there is one.
fn daily_plan(app: &TestApp) -> ShopPlan {
    let snap = app.catalog.snapshot();
    let sellable = |p: &&ShopPlan| {
        p.is_daily
            && p.is_sellable()
            && p.price.is_some_and(|c| c.get() >= 100)
            && p.cost.get() < 20_000
    };
    let plans = snap.plans();
    plans
        .iter()
        .filter(sellable)
        .find(|p| p.country_code == "JP" || p.country_code == "US")
        .or_else(|| plans.iter().find(sellable))
        .expect("a sellable daily plan")
        .clone()
}

/// On a phone, with JavaScript: search "japan" and "usa" (one match each goes straight to the
/// country), open a daily plan, buy, pay, wait on the order page and install.
async fn with_javascript(j: &Journey<'_>, plan: &ShopPlan) {
    j.goto("/").await;
    j.check("home").await;
    // One match each: straight to the country's page.
    j.browser.type_into("#q", &format!("japan{ENTER}")).await;
    j.wait_for_path("/countries/JP").await;
    j.check("country").await;
    j.goto("/").await;
    j.browser.type_into("#q", &format!("usa{ENTER}")).await;
    j.wait_for_path("/countries/US").await;
    j.goto("/search?q=an").await;
    j.wait_for("destinations for", 10, false).await;
    j.check("search").await;

    // The plan from its country's list.
    j.goto(&format!("/countries/{}", plan.country_code)).await;
    let card = format!("a[href='/plans/{}']", plan.id);
    if j.browser
        .execute(&format!(
            "return document.querySelector(\"{card}\") !== null;"
        ))
        .await
        == true
    {
        j.browser.click(&card).await;
        j.wait_for("Buy this eSIM", 10, false).await;
        j.check("plan").await;
    }
    j.check_out(plan, "phone.traveller@example.com").await;
    j.check("pay").await;
    j.browser.click("form[action$='/pay'] button").await;
    let page = j.wait_for("data-order-number", 10, false).await;
    assert!(!page.contains("http-equiv=\"refresh\""), "{page}");
    if page.contains("data-refresh-seconds") {
        j.check("order-waiting").await;
    }
    // order.js reloads the waiting page by itself.
    let page = j.wait_for("data-status=\"fulfilled\"", 40, false).await;
    installed(j, &page).await;
    assert!(
        page.contains("copy-button"),
        "with JavaScript, Copy buttons"
    );
    j.check("order-fulfilled").await;

    // Another device without the link: the order page's 404 leads to "Lost your link?".
    let order_path = j.path().await;
    j.browser.delete_cookies().await;
    j.goto(&order_path).await;
    j.wait_for("Lost your link? Get it by email", 10, false)
        .await;
    j.check("order-not-found").await;
    j.browser.click("a[href='/lost-link']").await;
    j.wait_for_path("/lost-link").await;
    j.check("lost-link").await;
    j.browser
        .type_into("#email", &format!("phone.traveller@example.com{ENTER}"))
        .await;
    j.wait_for("If orders were paid for with that email address", 10, false)
        .await;
    j.check("lost-link-sent").await;

    // The email's sign-in link opens "My eSIMs", with the eSIM just bought, on the phone and
    // on a laptop.
    let mail = wait_for_emails_in(j.app.mail_dir.path(), 1, "with a sign-in link", |email| {
        email.is_to("phone.traveller@example.com") && email.text.contains(SIGN_IN)
    })
    .await
    .remove(0);
    let token: String = mail
        .text
        .split(SIGN_IN)
        .nth(1)
        .map(|rest| rest.chars().take_while(char::is_ascii_hexdigit).collect())
        .unwrap_or_default();
    j.goto(&format!("{SIGN_IN}{token}")).await;
    j.wait_for("Sign in to My eSIMs", 10, false).await;
    j.check("my-esims-sign-in").await;
    j.browser
        .screenshot(&screenshot_dir().join("my-esims-sign-in-phone.png"))
        .await;
    j.browser
        .click("form[action='/my-esims/sign-in'] button")
        .await;
    j.wait_for_path("/my-esims").await;
    j.wait_for("Sign out everywhere", 10, false).await;
    assert_eq!(
        j.browser.text("[data-status] .status").await,
        "Your eSIM is ready"
    );
    j.check("my-esims").await;
    j.browser.set_size(LAPTOP).await;
    let wide = j.browser.overflowing().await;
    assert!(
        wide.is_empty(),
        "my-esims scrolls sideways on a laptop: {wide:?}"
    );
    j.browser.set_size(PHONE).await;
}

/// Where the "Lost your link?" email's sign-in link leads, up to its token.
const SIGN_IN: &str = "/my-esims/sign-in?token=";

/// What the fulfilled order page must show a traveller on a phone.
async fn installed(j: &Journey<'_>, page: &str) {
    let number = j.browser.text("[data-order-number]").await;
    assert!(
        number.starts_with("SF-") && number.len() == 12,
        "order number {number:?}"
    );
    assert_eq!(page.matches("Do not delete this eSIM").count(), 1);
    // On the phone, installing on it comes before the QR code for another screen.
    let order = j
        .browser
        .execute(
            "const top = s => document.querySelector(s).getBoundingClientRect().top;\
             return top('[data-one-tap]') < top('#activation-code') \
                 && top('#activation-code') < top('figure.qr');",
        )
        .await;
    assert_eq!(
        order, true,
        "on the iPhone: the one-tap button, then the code by hand, then the QR code"
    );
}

/// The same purchase with JavaScript off: the Refresh link instead of automatic reloads.
async fn without_javascript(j: &Journey<'_>, plan: &ShopPlan) {
    j.goto("/").await;
    j.browser.type_into("#q", &format!("usa{ENTER}")).await;
    j.wait_for_path("/countries/US").await;
    j.check_out(plan, "no.script@example.com").await;
    j.browser.click("form[action$='/pay'] button").await;
    let page = j.wait_for("data-order-number", 10, false).await;
    if page.contains("data-refresh-seconds") {
        j.check("order-waiting-nojs").await;
    }
    let page = j.wait_for("data-status=\"fulfilled\"", 40, true).await;
    installed(j, &page).await;
    assert!(!page.contains("copy-button"), "no script ran");
    j.check("order-fulfilled-nojs").await;
}

/// Declined on the demo page: the order page says nothing was charged, promises no email,
/// and Try again leads back to the plan, where the purchase goes through.
async fn decline_and_retry(j: &Journey<'_>, plan: &ShopPlan) {
    j.check_out(plan, "declined@example.com").await;
    j.browser.click("form[action$='/decline'] button").await;
    let page = j
        .wait_for("data-status=\"payment_failed\"", 10, false)
        .await;
    assert!(page.contains("Nothing was charged"), "{page}");
    assert!(!page.contains("your email"), "no email was sent: {page}");
    j.check("order-declined").await;
    j.browser.click("a[data-try-again]").await;
    j.wait_for_path(&format!("/plans/{}", plan.id)).await;
    j.browser.type_into("#email", "declined@example.com").await;
    j.browser.click("#confirm_device").await;
    j.browser.click("#accept_terms").await;
    j.browser.click("form.checkout button[type=submit]").await;
    j.wait_for("TEST MODE", 10, false).await;
    j.browser.click("form[action$='/pay'] button").await;
    j.wait_for("data-order-number", 10, false).await;
    // Another device (no cookie) gets the page that says how to open one's order.
    let order = j.path().await;
    j.browser.delete_cookies().await;
    j.goto(&order).await;
    let page = j
        .wait_for("Open your order from your email", 10, false)
        .await;
    assert!(page.contains("private link"), "{page}");
    j.check("order-404").await;
}

/// Checkout errors from the keyboard: Enter in the email field sends the form; all three
/// problems are listed at once above the form, which has the focus; then the keyboard fixes
/// them and pays.
async fn checkout_errors_by_keyboard(j: &Journey<'_>, plan: &ShopPlan) {
    j.goto(&format!("/plans/{}", plan.id)).await;
    j.browser
        .type_into("#email", &format!("not-an-address{ENTER}"))
        .await;
    let page = j.wait_for("error-summary", 10, false).await;
    assert!(page.contains("There are 3 problems"), "{page}");
    let focused = j.browser.execute("return document.activeElement.id;").await;
    assert_eq!(focused, "error-summary-title", "the summary has the focus");
    let invalid = j
        .browser
        .execute("return document.querySelectorAll('[aria-invalid=true]').length;")
        .await;
    assert_eq!(invalid, 3);
    j.check("checkout-errors").await;
    // Tab from the summary heading reaches its first link, to the email field.
    j.browser.keys_to_focused("\u{E004}").await;
    let focused = j
        .browser
        .execute("return document.activeElement.getAttribute('href');")
        .await;
    assert_eq!(focused, "#email");
    j.browser
        .execute("document.getElementById('email').value = '';")
        .await;
    j.browser.type_into("#email", "keys@example.com").await;
    j.browser.keys_to_focused("\u{E004}").await;
    j.browser.keys_to_focused(SPACE).await;
    // On past the help link and the folded promotion code to "I agree to the terms".
    let mut tabs = 0;
    while j.browser.execute("return document.activeElement.id;").await != "accept_terms" {
        tabs += 1;
        assert!(tabs <= 4, "Tab reaches the terms box within a few steps");
        j.browser.keys_to_focused("\u{E004}").await;
    }
    j.browser.keys_to_focused(SPACE).await;
    j.browser.type_into("#email", ENTER).await;
    j.wait_for("TEST MODE", 10, false).await;
}

/// The customer emails' HTML, written into a blank page: axe-core finds nothing critical or
/// serious (contrast included), and nothing makes the phone scroll sideways.
async fn emails_pass_axe(browser: &Browser, axe: &str) {
    let url = url::Url::parse(
        "https://shop.example.com/orders/3fa29c1e0b7d44aa1234?token=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MDEyMzQ1Njc4OTA",
    )
    .expect("url");
    let to = || storefront::domain::Email::parse("jane@example.com").expect("email");
    let receipt = Receipt::new(
        &as_id("3fa29c1e0b7d44aa1234"),
        "Japan · 1 GB per day for 7 days",
        storefront::domain::Cents::new(3_669),
        1_795_334_400_000,
    );
    let mails = [
        (
            "payment-received",
            OutgoingEmail::payment_received(to(), &MailBrand::named("eSIM shop"), &url, &receipt),
        ),
        (
            "esim-ready",
            OutgoingEmail::esim_ready(to(), &MailBrand::named("eSIM shop"), &url, &receipt),
        ),
        (
            "refunded",
            OutgoingEmail::order_refunded(
                to(),
                &MailBrand::named("eSIM shop"),
                &url,
                &receipt,
                "Sold out",
            ),
        ),
        (
            "order-links",
            OutgoingEmail::lost_link(
                to(),
                &MailBrand::named("eSIM shop"),
                &[storefront::mail::OrderLink {
                    receipt: receipt.clone(),
                    url: url.clone(),
                }],
                &url::Url::parse(
                    "https://shop.example.com/my-esims/sign-in?token=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5",
                )
                .expect("url"),
            )
            .expect("an order"),
        ),
    ];
    for (name, mail) in mails {
        let mail = mail.expect("render");
        browser.goto("about:blank").await;
        browser
            .execute_with(
                "document.open(); document.write(arguments[0]); document.close();",
                serde_json::json!([mail.html]),
            )
            .await;
        let found = serious_violations(browser, axe).await;
        assert!(found.is_empty(), "axe-core on the {name} email: {found:#?}");
        let wide = browser.overflowing().await;
        assert!(
            wide.is_empty(),
            "the {name} email scrolls sideways: {wide:?}"
        );
        if std::env::var_os("STOREFRONT_SCREENSHOTS").is_some() {
            browser
                .screenshot(&screenshot_dir().join(format!("email-{name}-phone.png")))
                .await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_traveller_on_a_phone_searches_buys_pays_and_installs_with_and_without_javascript() {
    let Some(browser) = Browser::start(PHONE).await else {
        return;
    };
    let Some(no_js) = Browser::start_without_javascript(PHONE).await else {
        return;
    };
    let Some((app, _upstream)) = spawn_shop(Backend::Sqlite, 120).await else {
        return;
    };
    let axe = axe_source();
    if let Some(axe) = axe.as_deref() {
        // The checker itself finds what it must: a page refreshing itself, an unnamed image.
        browser
            .goto(
                "data:text/html,<!doctype html><html lang=en><head><title>t</title>\
                 <meta http-equiv=refresh content=60></head><body><main>\
                 <img src=data:,></main></body></html>",
            )
            .await;
        let found = serious_violations(&browser, axe).await;
        assert!(
            found.iter().any(|v| v.contains("meta-refresh"))
                && found.iter().any(|v| v.contains("image-alt")),
            "{found:?}"
        );
    }
    if let Some(axe) = axe.as_deref() {
        emails_pass_axe(&browser, axe).await;
    }
    let plan = daily_plan(&app);
    {
        let _shot = ShotOnFailure {
            browser: &browser,
            name: "journey",
        };
        let journey = Journey {
            browser: &browser,
            app: &app,
            name: "journey",
            axe: axe.as_deref(),
        };
        with_javascript(&journey, &plan).await;
        checkout_errors_by_keyboard(&journey, &plan).await;
        decline_and_retry(&journey, &plan).await;
    }
    {
        let _shot = ShotOnFailure {
            browser: &no_js,
            name: "journey-nojs",
        };
        let journey = Journey {
            browser: &no_js,
            app: &app,
            name: "journey-nojs",
            // axe-core needs timers, which do not run with scripts off; the same page types
            // were checked with scripts on.
            axe: None,
        };
        without_javascript(&journey, &plan).await;
    }
    no_js.quit().await;
    browser.quit().await;
}
