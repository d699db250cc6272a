//! The catalog in the traveller's language: on Spanish and German pages countries and regions
//! carry their CLDR names (no English name of the catalog left where the language has its own),
//! search understands those names, and the emails of an order name its destination the same
//! way. The owner may give a region its own name in a language, which then replaces CLDR's
//! there.

use std::collections::BTreeSet;

use storefront::catalog::{PlanKind, ShopPlan, Snapshot};
use storefront::i18n::Lang;
use storefront::staff::Role;

use crate::admin::{OWNER, SUPPORT, audit_rows, create, login_as};
use crate::helpers::{Backend, Browser, TestApp, spawn_shop};
use crate::journeys::{buy, pay};
use crate::mail::{parse_eml, part};

/// A browser that picked `lang` with the switcher.
fn browser_in(lang: Lang) -> Browser {
    let browser = Browser::default();
    browser.set_cookie("lang", lang.code());
    browser
}

/// The catalog's English names of countries and regions that `lang` names otherwise: what
/// must not be read on a page in `lang`.
fn english_names(snap: &Snapshot, lang: Lang) -> BTreeSet<String> {
    let countries = snap
        .destinations()
        .iter()
        .filter(|d| d.name_in(lang) != d.name)
        .map(|d| d.name.clone());
    let regions = snap
        .regions()
        .iter()
        .filter(|r| r.name_in(lang) != r.name)
        .map(|r| r.name.clone());
    countries.chain(regions).collect()
}

/// `name` as a whole word of `html` ("Japan" in "Japan ·", not in "Japanisch").
fn contains_word(html: &str, name: &str) -> bool {
    html.match_indices(name).any(|(at, _)| {
        let before = html[..at].chars().next_back();
        let after = html[at + name.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

/// The text part of the payment email (the one that names the plan as "Destination · …").
fn payment_email_text(app: &TestApp) -> String {
    std::fs::read_dir(app.mail_dir.path())
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .map(|e| part(&parse_eml(&e.path()), "text/plain").to_string())
        .find(|text| text.contains("·"))
        .expect("the payment email's text part")
}

async fn page(app: &TestApp, browser: &Browser, path: &str) -> String {
    let html = browser.get(app, path).await.assert_status(200).body;
    html.replace("&#39;", "'")
        .replace("&amp;", "&")
        .replace("&#38;", "&")
}

/// A sellable plan of `kind` whose destination `lang` names otherwise than English.
fn plan_of(snap: &Snapshot, kind: PlanKind, lang: Lang) -> ShopPlan {
    snap.plans()
        .iter()
        .filter(|p| p.is_sellable() && p.kind == kind)
        .filter(|p| p.price.is_some_and(|c| c.get() >= 100) && p.cost.get() < 20_000)
        .find(|p| p.labels_in(lang).name != p.country_name)
        .unwrap_or_else(|| panic!("a {kind:?} plan named otherwise in {lang:?}"))
        .clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spanish_and_german_pages_name_no_country_or_region_in_english() {
    let (app, _upstream) = spawn_shop(Backend::Sqlite, 300).await.expect("sqlite");
    let snap = app.catalog.snapshot();
    for lang in [Lang::Es, Lang::De] {
        let english = english_names(&snap, lang);
        assert!(
            english.contains("Germany") && english.contains("Europe"),
            "{english:?}"
        );
        let local = plan_of(&snap, PlanKind::Local, lang);
        let regional = plan_of(&snap, PlanKind::Regional, lang);
        let browser = browser_in(lang);
        let pages = [
            "/".to_string(),
            "/countries".to_string(),
            "/countries/DE".to_string(),
            format!("/countries/{}", local.country_code),
            "/regions".to_string(),
            "/regions/europe".to_string(),
            format!("/plans/{}", local.id),
            format!("/plans/{}", regional.id),
            "/search?q=an".to_string(),
        ];
        for path in pages {
            let html = page(&app, &browser, &path).await;
            let left: Vec<&String> = english.iter().filter(|n| contains_word(&html, n)).collect();
            // The supplier's own fair-use text stays English, marked as such.
            for (at, _) in html.match_indices("Fair use:") {
                assert!(
                    html[..at].ends_with("lang=\"en\">"),
                    "{path}: {}",
                    &html[at.saturating_sub(80)..at]
                );
            }
            assert!(
                left.is_empty(),
                "{path} ({lang:?}) names in English: {left:?}"
            );
        }
        // The names the page uses instead, in its title and breadcrumb too.
        let germany = page(&app, &browser, "/countries/DE").await;
        let name = if lang == Lang::Es {
            "Alemania"
        } else {
            "Deutschland"
        };
        let title = germany
            .split("<title>")
            .nth(1)
            .and_then(|t| t.split("</title>").next())
            .unwrap_or_default();
        assert!(title.contains(name), "{title}");
        let plan = page(&app, &browser, &format!("/plans/{}", local.id)).await;
        let crumb = format!(">{}</a>", local.labels_in(lang).name);
        assert!(plan.contains(&crumb), "breadcrumb {crumb}: {plan}");
        let title = format!(
            "<title>{}",
            storefront::web::seo::plan_search_title(&local, lang)
        );
        assert!(plan.contains(&title), "{title}: {plan}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_in_spanish_or_german_goes_straight_to_the_country() {
    let (app, _upstream) = spawn_shop(Backend::Sqlite, 300).await.expect("sqlite");
    for (lang, query, to) in [
        (Lang::De, "Deutschland", "/countries/DE"),
        (Lang::De, "T%C3%BCrkei", "/countries/TR"),
        (Lang::De, "Japna", "/countries/JP"),
        (Lang::Es, "Jap%C3%B3n", "/countries/JP"),
        (Lang::Es, "alemania", "/countries/DE"),
        (Lang::Es, "Espa%C3%B1a", "/countries/ES"),
        (Lang::Es, "Tailandia", "/countries/TH"),
        (Lang::En, "German", "/countries/DE"),
        (Lang::En, "Estados%20Unidos", "/countries/US"),
    ] {
        browser_in(lang)
            .get(&app, &format!("/search?q={query}"))
            .await
            .assert_redirect_to(to);
    }
    // Several matches: a results page in the page's language, the best match first.
    let html = page(&app, &browser_in(Lang::Es), "/search?q=unido").await;
    assert!(
        html.contains("Reino Unido") && html.contains("Estados Unidos") && !html.contains("United"),
        "{html}"
    );
    let html = page(&app, &browser_in(Lang::De), "/search?q=a").await;
    assert!(
        html.contains("Deutschland") && !html.contains(">Germany<"),
        "{html}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_order_bought_in_spanish_names_its_country_in_spanish_in_its_email() {
    let (app, _upstream) = spawn_shop(Backend::Sqlite, 300).await.expect("sqlite");
    let snap = app.catalog.snapshot();
    let plan = plan_of(&snap, PlanKind::Local, Lang::Es);
    let spanish = plan.labels_in(Lang::Es).name.clone();
    let shopper = browser_in(Lang::Es);
    let checkout = buy(&app, &shopper, &plan, "viajera@example.com")
        .await
        .assert_status(303);
    pay(&app, &shopper, &checkout.location())
        .await
        .assert_status(303);
    app.wait_for_email("viajera@example.com").await;
    let text = payment_email_text(&app);
    assert!(text.contains(&format!("{spanish} ·")), "{spanish}: {text}");
    assert!(!contains_word(&text, &plan.country_name), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_owners_own_region_name_replaces_cldrs_in_its_language_only() {
    let (app, _upstream) = spawn_shop(Backend::Sqlite, 300).await.expect("sqlite");
    create(&app.db, OWNER, Role::Owner).await;
    create(&app.db, SUPPORT, Role::Support).await;
    let owner = login_as(&app, OWNER).await;
    let plan = plan_of(&app.catalog.snapshot(), PlanKind::Regional, Lang::De);
    let slug = plan.region.clone().expect("a regional plan's region");
    let german = browser_in(Lang::De);
    let before = page(&app, &german, &format!("/regions/{slug}")).await;
    let cldr = plan.labels_in(Lang::De).name.clone();
    assert!(before.contains(&cldr), "{cldr}: {before}");

    // Support may not rename; a name too long or with a line break is refused, saving nothing.
    let support = login_as(&app, SUPPORT).await;
    let token = support.csrf(&app).await;
    let path = format!("/admin/catalog/regions/{slug}");
    support
        .post(&app, &path, &[("csrf_token", &token), ("de", "Nope")])
        .await
        .assert_status(403);
    let token = owner.csrf(&app).await;
    let long = "x".repeat(61);
    let refused = owner
        .post(&app, &path, &[("csrf_token", &token), ("de", &long)])
        .await
        .assert_status(400);
    assert!(
        refused.body.contains("at most 60 characters"),
        "{}",
        refused.body
    );

    let answer = owner
        .post(
            &app,
            &path,
            &[
                ("csrf_token", &token),
                ("en", ""),
                ("es", ""),
                ("de", "  Europa  & Balkan "),
            ],
        )
        .await
        .assert_status(303);
    assert!(
        answer
            .location()
            .starts_with("/admin/catalog/regions?saved=")
    );
    let console = owner
        .get(&app, "/admin/catalog/regions")
        .await
        .assert_status(200);
    assert!(
        console.body.contains("value=\"Europa &#38; Balkan\""),
        "{}",
        console.body
    );

    // The German pages (cached ones too) and search use the owner's name; Spanish keeps CLDR's.
    for path in [
        format!("/regions/{slug}"),
        "/regions".to_string(),
        format!("/plans/{}", plan.id),
    ] {
        let html = page(&app, &german, &path).await;
        assert!(html.contains("Europa & Balkan"), "{path}: {html}");
    }
    german
        .get(&app, "/search?q=balkan")
        .await
        .assert_redirect_to(format!("/regions/{slug}"));
    let spanish = page(&app, &browser_in(Lang::Es), &format!("/regions/{slug}")).await;
    assert!(
        !spanish.contains("Balkan") && spanish.contains(&plan.labels_in(Lang::Es).name),
        "{spanish}"
    );
    let rows = audit_rows(&app.db).await;
    let (_, _, target, details) = rows
        .iter()
        .find(|(_, action, _, _)| action == "region_names_saved")
        .expect("audited");
    assert_eq!(target.as_deref(), Some(format!("region:{slug}").as_str()));
    assert!(details.contains("→ “Europa & Balkan”"), "{details}");

    // An order bought in German names the owner's region in its email.
    let checkout = buy(&app, &german, &plan, "reisende@example.com")
        .await
        .assert_status(303);
    pay(&app, &german, &checkout.location())
        .await
        .assert_status(303);
    app.wait_for_email("reisende@example.com").await;
    let text = payment_email_text(&app);
    assert!(text.contains("Europa & Balkan ·"), "{text}");

    // Emptied again: back to CLDR's name.
    let token = owner.csrf(&app).await;
    owner
        .post(&app, &path, &[("csrf_token", &token), ("de", "")])
        .await
        .assert_status(303);
    let html = page(&app, &german, &format!("/regions/{slug}")).await;
    assert!(!html.contains("Balkan") && html.contains(&cldr), "{html}");
}
