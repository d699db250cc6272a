//! What a traveller finds on every shop page and keeps on the checkout form: the checkout form
//! comes back after an error with every field as it was sent (the "My phone supports eSIM"
//! tick, the email, the promotion code) and the error summary taking the focus; every page's
//! footer and the home page's help area lead to "Lost your link?"; the order page's Copy
//! buttons take their words from the page, in its language.

use storefront::i18n::Lang;

use crate::helpers::{Backend, Browser, hidden, spawn_shop};
use crate::journeys::{buy, pay, sellable_plan, wait_fulfilled};

fn browser_in(lang: Lang) -> Browser {
    let browser = Browser::default();
    browser.set_cookie("lang", lang.code());
    browser
}

/// The `<input>` tag with id `id` in `html`.
fn input<'a>(html: &'a str, id: &str) -> &'a str {
    let start = html
        .find(&format!("<input id=\"{id}\""))
        .unwrap_or_else(|| panic!("no #{id}: {html}"));
    let rest = &html[start..];
    &rest[..rest.find('>').map_or(rest.len(), |end| end + 1)]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn checkout_errors_keep_every_field_and_focus_the_summary() {
    let (app, _upstream) = spawn_shop(Backend::Sqlite, 40).await.expect("sqlite");
    let plan = sellable_plan(&app);
    let shopper = Browser::default();
    let page = shopper.get(&app, &plan.labels.href).await.body;
    let token = hidden(&page, "csrf_token");
    let price = hidden(&page, "expected_price_cents");
    let send = |email: &'static str, code: &'static str, ticked: bool| {
        let mut form = vec![
            ("csrf_token", token.clone()),
            ("plan_id", plan.id.clone()),
            ("email", email.to_string()),
            ("expected_price_cents", price.clone()),
            ("promo_code", code.to_string()),
        ];
        if ticked {
            form.push(("confirm_device", "yes".to_string()));
            form.push(("accept_terms", "yes".to_string()));
        }
        let shopper = shopper.clone();
        let app = &app;
        async move {
            let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
            shopper.post(app, "/checkout", &form).await
        }
    };

    // A promotion code the shop does not know: the form again, ticked, filled in.
    let page = send("traveller@example.com", "NOSUCHCODE", true)
        .await
        .assert_status(409)
        .body;
    let device = input(&page, "confirm_device");
    assert!(device.contains(" checked"), "the tick stays: {device}");
    let terms = input(&page, "accept_terms");
    assert!(terms.contains(" checked"), "the tick stays: {terms}");
    assert!(
        input(&page, "email").contains("value=\"traveller@example.com\""),
        "{page}"
    );
    assert!(
        input(&page, "promo_code").contains("value=\"NOSUCHCODE\""),
        "{page}"
    );
    // The summary takes the focus as the page loads, with or without scripts.
    let summary = page
        .split("class=\"error-summary\"")
        .nth(1)
        .expect("an error summary");
    let heading = &summary[summary.find("<h3").unwrap_or(0)..];
    let heading = &heading[..heading.find('>').unwrap_or(heading.len())];
    assert!(
        heading.contains("tabindex=\"-1\"") && heading.contains("autofocus"),
        "{heading}"
    );

    // A mistyped email: the tick and the code stay as well.
    let page = send("not-an-address", "SUMMER", true)
        .await
        .assert_status(400)
        .body;
    assert!(
        input(&page, "confirm_device").contains(" checked"),
        "{page}"
    );
    assert!(input(&page, "email").contains("value=\"not-an-address\""));
    assert!(input(&page, "promo_code").contains("value=\"SUMMER\""));
    // And a box left unticked stays unticked: the page shows what was sent.
    let page = send("traveller@example.com", "", false)
        .await
        .assert_status(400)
        .body;
    assert!(
        !input(&page, "confirm_device").contains(" checked"),
        "{page}"
    );
    assert!(!input(&page, "accept_terms").contains(" checked"), "{page}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_shop_page_leads_to_lost_your_link_in_its_language() {
    let (app, _upstream) = spawn_shop(Backend::Sqlite, 40).await.expect("sqlite");
    let plan = sellable_plan(&app);
    let country = format!(
        "/countries/{}",
        app.catalog
            .snapshot()
            .destinations()
            .first()
            .map(|d| d.code.clone())
            .expect("a destination")
    );
    for (lang, link) in [
        (Lang::En, "Lost your link?"),
        (Lang::Es, "¿Has perdido tu enlace?"),
        (Lang::De, "Link verloren?"),
    ] {
        let browser = browser_in(lang);
        for path in [
            "/",
            "/countries",
            country.as_str(),
            "/regions",
            "/search?q=a",
            plan.labels.href.as_str(),
            "/help/compatibility",
            "/orders/no-such-order",
        ] {
            let html = browser.get(&app, path).await.body;
            let footer = html
                .split("<footer")
                .nth(1)
                .unwrap_or_else(|| panic!("{path} has no footer: {html}"));
            assert!(
                footer.contains(&format!("<a href=\"/lost-link\">{link}</a>")),
                "{path} ({lang:?}): {footer}"
            );
        }
        // The home page's help area ("How it works") says it too, before the footer.
        let home = browser.get(&app, "/").await.body;
        let main = home.split("<footer").next().unwrap_or_default();
        assert!(main.contains("href=\"/lost-link\""), "{lang:?}: {main}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copy_buttons_speak_the_language_of_the_order_page() {
    let (app, _upstream) = spawn_shop(Backend::Sqlite, 40).await.expect("sqlite");
    let plan = sellable_plan(&app);
    let shopper = browser_in(Lang::Es);
    let checkout = buy(&app, &shopper, &plan, "copia@example.com")
        .await
        .assert_status(303);
    let paid = pay(&app, &shopper, &checkout.location()).await.location();
    let order = wait_fulfilled(&app, &shopper, &paid).await;
    assert!(order.contains("data-copy=\"Copiar\""), "{order}");
    assert!(
        order.contains("data-copy-label-activation-code=\"Copiar Código de activación\"")
            && order.contains("data-copied-activation-code=\"Código de activación: copiado.\""),
        "{order}"
    );
    // The same order page in German.
    shopper.set_cookie("lang", "de");
    let order = shopper.get(&app, &paid).await.body;
    assert!(order.contains("data-copy=\"Kopieren\""), "{order}");
    // The script carries no words of its own.
    let script = include_str!("../../static/order.js");
    assert!(!script.contains("\"Copy\"") && !script.contains("copied."));
}
