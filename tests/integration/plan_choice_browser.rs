//! Choosing a plan on a phone in headless Chromium: the largest country page of a 10,000-plan
//! sandbox catalog fits in four phone screens, and picking a day count on a daily plan's card
//! shows that duration's price at once and opens its plan page. With `STOREFRONT_SCREENSHOTS`
//! set, that country page, a plan page and the global plans are shot at phone and laptop sizes.

use storefront::catalog::{PlanKind, Snapshot};

use crate::helpers::{Backend, spawn_shop};
use crate::journeys_browser::{ShotOnFailure, shoot_if_asked};
use crate::webdriver::{Browser, PHONE};

/// Screenshots of the current page at both sizes, when asked for.
async fn shoot(browser: &Browser, name: &str) {
    shoot_if_asked(browser, &format!("choice-{name}")).await;
}

/// The country with the most plans listed on its page.
fn largest_country(snap: &Snapshot) -> String {
    snap.destinations()
        .iter()
        .max_by_key(|d| d.local_plans + d.covering_plans)
        .map(|d| d.code.clone())
        .expect("a country")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_largest_country_fits_four_phone_screens_and_days_are_picked_on_the_card() {
    let (app, _upstream) = spawn_shop(Backend::Sqlite, 10_000).await.expect("sqlite");
    let Some(browser) = Browser::start(PHONE).await else {
        return;
    };
    let _shot = ShotOnFailure {
        browser: &browser,
        name: "plan-choice",
    };
    let snap = app.catalog.snapshot();
    let code = largest_country(&snap);
    let listed = snap.local_plans(&code).len() + snap.covering_plans(&code).len();
    assert!(listed > 1_000, "{code} lists {listed} plans");

    browser.goto(&app.url(&format!("/countries/{code}"))).await;
    let height = browser
        .execute("return document.documentElement.scrollHeight;")
        .await
        .as_u64()
        .expect("a height");
    assert!(
        height <= 4 * u64::from(PHONE.1),
        "/countries/{code} is {height} px tall on a phone"
    );
    assert!(
        browser.overflowing().await.is_empty(),
        "no sideways scrolling"
    );
    shoot(&browser, "country").await;

    // The first daily plan's card: pick its longest duration.
    let picked = browser
        .execute(
            "const card = document.querySelector('form[data-day-picker]');
             const radios = card.querySelectorAll('input[type=radio]');
             const last = radios[radios.length - 1];
             last.click();
             return [last.value, last.dataset.price,
                     card.querySelector('[data-chosen-price]').textContent];",
        )
        .await;
    let id = picked[0].as_str().expect("an id").to_string();
    let plan = snap.plan(&id).expect("the radio names a plan");
    assert!(plan.is_daily && plan.kind == PlanKind::Local);
    assert_eq!(picked[1].as_str(), Some(plan.labels.price.as_str()));
    assert_eq!(
        picked[2].as_str(),
        Some(plan.labels.price.as_str()),
        "the card shows the picked duration's price"
    );
    browser
        .execute("document.querySelector('form[data-day-picker] button').click();")
        .await;
    let want = format!("/plans/{id}?from=country-{code}");
    browser.wait_for(&format!("value=\"{id}\"")).await;
    let url = browser.current_url().await;
    assert!(url.ends_with(&want), "{url}");
    shoot(&browser, "plan").await;

    browser.goto(&app.url("/global")).await;
    assert!(
        browser.overflowing().await.is_empty(),
        "no sideways scrolling"
    );
    shoot(&browser, "global").await;
}
