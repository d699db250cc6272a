//! A Spanish-speaking traveller in headless Chromium on a phone: searches "alemania", lands on
//! Germany's page named "Alemania", sees results named in Spanish, buys, and on the order page
//! finds Copy buttons that say "Copiar" and, once pressed, "…: copiado.". With
//! `STOREFRONT_SCREENSHOTS` set, the country page and the search results are shot at phone and
//! laptop sizes for a person to look at.

use std::time::{Duration, Instant};

use storefront::catalog::PlanKind;
use storefront::i18n::Lang;

use crate::helpers::{Backend, spawn_shop};
use crate::journeys_browser::{ShotOnFailure, shoot_if_asked};
use crate::webdriver::{Browser, PHONE};

const ENTER: &str = "\u{E007}";

/// Screenshots of the current page at both sizes, when asked for.
async fn shoot(browser: &Browser, name: &str) {
    shoot_if_asked(browser, &format!("es-{name}")).await;
}

async fn path(browser: &Browser, base: &str) -> String {
    let url = browser.current_url().await;
    url.strip_prefix(base).unwrap_or(&url).to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spanish_traveller_searches_buys_and_copies_in_spanish() {
    let (app, _upstream) = spawn_shop(Backend::Sqlite, 300).await.expect("sqlite");
    let Some(browser) = Browser::start(PHONE).await else {
        return;
    };
    let _shot = ShotOnFailure {
        browser: &browser,
        name: "spanish-traveller",
    };
    browser.goto(&app.url("/?lang=es")).await;
    browser.type_into("#q", &format!("alemania{ENTER}")).await;
    let started = Instant::now();
    while path(&browser, &app.address).await != "/countries/DE" {
        assert!(started.elapsed() < Duration::from_secs(10), "no redirect");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        browser.text("h1").await,
        "Planes de datos eSIM para Alemania"
    );
    shoot(&browser, "country").await;

    browser.goto(&app.url("/search?q=uni")).await;
    let results = browser.text("main").await;
    assert!(
        results.contains("Reino Unido") && results.contains("Estados Unidos"),
        "{results}"
    );
    assert!(!results.contains("United"), "{results}");
    shoot(&browser, "search").await;

    // Buy a local plan and open its order page.
    let plan = app
        .catalog
        .snapshot()
        .plans()
        .iter()
        .find(|p| {
            p.kind == PlanKind::Local
                && p.is_sellable()
                && p.price.is_some_and(|c| c.get() >= 100)
                && p.cost.get() < 20_000
        })
        .expect("a local plan on sale")
        .clone();
    browser.goto(&app.url(&plan.labels.href)).await;
    browser.wait_for(&plan.title(Lang::Es)).await;
    browser.type_into("#email", "viajera@example.com").await;
    browser.click("#confirm_device").await;
    browser.click("#accept_terms").await;
    browser.click("form.checkout button[type=submit]").await;
    browser.wait_for("action=\"/demo-pay/").await;
    browser.click("form[action$='/pay'] button").await;
    let started = Instant::now();
    loop {
        if browser.source().await.contains("data-status=\"fulfilled\"") {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(40),
            "never fulfilled"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    browser.wait_for("copy-button").await;
    assert_eq!(browser.text(".copy-button").await, "Copiar");
    let label = browser
        .execute("return document.querySelector('.copy-button').getAttribute('aria-label');")
        .await;
    assert_eq!(label, "Copiar Código de activación");
    browser.click(".copy-button").await;
    let started = Instant::now();
    loop {
        let status = browser
            .execute("return document.getElementById('copy-status').textContent;")
            .await;
        if status == "Código de activación: copiado." {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "copy status: {status}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
