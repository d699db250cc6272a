//! Choosing a plan: the durations of one daily plan are one card with a day picker that works
//! without script, country pages are grouped into sections, a plan page's breadcrumb leads
//! back to the listing it was opened from, and global plans have a page of their own.

use storefront::catalog::{PlanKind, ShopPlan, Snapshot};

use crate::helpers::{Backend, TestApp, location, spawn_shop, spawn_shop_with};

async fn page(app: &TestApp, path: &str) -> String {
    let res = app.get(path).await;
    assert_eq!(res.status().as_u16(), 200, "{path}");
    res.text().await.expect("body")
}

/// The `<li>` cards of `html`, each as its own text.
fn cards(html: &str) -> Vec<&str> {
    html.split("<li class=\"card plan")
        .skip(1)
        .map(|rest| rest.split("</li>").next().unwrap_or(rest))
        .collect()
}

/// A local daily plan on sale in several durations, and its family.
fn daily_family(snap: &Snapshot) -> (&ShopPlan, Vec<&ShopPlan>) {
    snap.plans()
        .iter()
        .filter(|p| p.kind == PlanKind::Local && p.is_sellable() && p.is_daily)
        .map(|p| (p, snap.family(p)))
        .find(|(_, family)| family.len() >= 3)
        .expect("the sandbox has daily plans in several durations")
}

/// The breadcrumb of a plan page: the text of its `p.crumbs`.
fn crumbs(html: &str) -> &str {
    let start = html.find("<p class=\"crumbs\">").expect("a breadcrumb");
    let rest = &html[start..];
    &rest[..rest.find("</p>").expect("end of breadcrumb")]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_daily_plans_durations_are_one_card_and_each_radio_opens_its_plan() {
    let (app, _upstream) = spawn_shop(Backend::Sqlite, 600).await.expect("sqlite");
    let snap = app.catalog.snapshot();
    let (plan, family) = daily_family(&snap);
    let code = plan.country_code.trim().to_ascii_uppercase();
    let html = page(&app, &format!("/countries/{code}")).await;

    // One card holds a radio button per duration, each with its own price.
    let radio = |id: &str| format!("name=\"plan\" value=\"{id}\"");
    let holding: Vec<&str> = cards(&html)
        .into_iter()
        .filter(|card| family.iter().any(|p| card.contains(&radio(&p.id))))
        .collect();
    assert_eq!(holding.len(), 1, "the family is on one card");
    let card = holding[0];
    for p in &family {
        assert!(card.contains(&radio(&p.id)), "{} on the card", p.id);
        assert!(
            card.contains(&p.labels.price),
            "{}'s price on the card",
            p.id
        );
        assert_eq!(html.matches(&radio(&p.id)).count(), 1, "{} once", p.id);
    }
    assert!(card.contains("action=\"/plans/choose\""), "{card}");

    // Without script: each radio submits to its own plan's page, which offers the others.
    for p in &family {
        let res = app
            .get(&format!("/plans/choose?from=country-{code}&plan={}", p.id))
            .await;
        assert_eq!(res.status().as_u16(), 303);
        let to = location(res.headers());
        assert_eq!(to, format!("/plans/{}?from=country-{code}", p.id));
        let plan_page = page(&app, &to).await;
        assert!(
            plan_page.contains(&format!("name=\"plan_id\" value=\"{}\"", p.id)),
            "{to} sells {}",
            p.id
        );
        for other in family.iter().filter(|o| o.id != p.id) {
            assert!(
                plan_page.contains(&format!("href=\"/plans/{}?from=country-{code}\"", other.id)),
                "{to} offers {}",
                other.id
            );
        }
    }
    let res = app.get("/plans/choose?plan=p999999-7").await;
    assert_eq!(res.status().as_u16(), 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_country_page_groups_its_plans_into_sections_with_counts() {
    let (app, _upstream) = spawn_shop(Backend::Sqlite, 600).await.expect("sqlite");
    let snap = app.catalog.snapshot();
    let (plan, _) = daily_family(&snap);
    let code = plan.country_code.trim().to_ascii_uppercase();
    let html = page(&app, &format!("/countries/{code}")).await;
    let daily = snap.choices(
        snap.local_plans(&code)
            .into_iter()
            .filter(|p| p.is_daily)
            .collect(),
    );
    assert!(
        html.contains(&format!("Daily plans ({})", daily.len())),
        "{html}"
    );
    assert!(html.contains("Global plans ("), "global section");
    let de = page(&app, &format!("/countries/{code}?lang=de")).await;
    assert!(de.contains("Tagespläne ("), "German sections");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plans_breadcrumb_follows_where_the_visitor_came_from() {
    let (app, _upstream) = spawn_shop(Backend::Sqlite, 600).await.expect("sqlite");
    let snap = app.catalog.snapshot();
    let regional = snap
        .plans()
        .iter()
        .find(|p| {
            p.kind == PlanKind::Regional
                && p.is_sellable()
                && p.region
                    .as_deref()
                    .is_some_and(|r| snap.region(r).is_some())
                && p.coverage.iter().any(|c| snap.destination(c).is_some())
        })
        .expect("a regional plan");
    let slug = regional.region.clone().unwrap_or_default();
    let region_name = snap
        .region(&slug)
        .map(|r| r.name.clone())
        .unwrap_or_default();
    let country = regional
        .coverage
        .iter()
        .find(|c| snap.destination(c).is_some())
        .cloned()
        .unwrap_or_default();
    let country_name = snap.country_name(&country).unwrap_or_default().to_string();

    // The country page links the plan with its origin, and the plan page leads back there.
    let listing = page(&app, &format!("/countries/{country}")).await;
    let href = format!("/plans/{}?from=country-{country}", regional.id);
    assert!(
        listing.contains(&format!("\"{href}\"")),
        "country page links {href}"
    );
    let html = page(&app, &href).await;
    let crumb = crumbs(&html);
    assert!(crumb.contains("href=\"/\""), "{crumb}");
    assert!(crumb.contains("href=\"/countries\""), "{crumb}");
    assert!(
        crumb.contains(&format!(
            "<a href=\"/countries/{country}\">{country_name}</a>"
        )),
        "{crumb}"
    );

    // The same plan from its region's page.
    let listing = page(&app, &format!("/regions/{slug}")).await;
    let href = format!("/plans/{}?from=region-{slug}", regional.id);
    assert!(
        listing.contains(&format!("\"{href}\"")),
        "region page links {href}"
    );
    let crumb_html = page(&app, &href).await;
    let crumb = crumbs(&crumb_html);
    assert!(crumb.contains("href=\"/regions\""), "{crumb}");
    assert!(
        crumb.contains(&format!("<a href=\"/regions/{slug}\">{region_name}</a>")),
        "{crumb}"
    );

    // An origin that does not list the plan, or none at all, is the plan's own region.
    for from in ["country-ZZ", "region-nowhere", "global", "../../admin", ""] {
        let html = page(&app, &format!("/plans/{}?from={from}", regional.id)).await;
        assert!(
            crumbs(&html).contains(&format!("href=\"/regions/{slug}\"")),
            "from={from}"
        );
    }
    // A local plan opened "from" another country is under its own country.
    let (local, _) = daily_family(&snap);
    let own = local.country_code.trim().to_ascii_uppercase();
    let other = if own == country {
        "FR"
    } else {
        country.as_str()
    };
    let html = page(&app, &format!("/plans/{}?from=country-{other}", local.id)).await;
    assert!(crumbs(&html).contains(&format!("href=\"/countries/{own}\"")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn global_plans_have_their_own_page_linked_from_regions() {
    let (app, _upstream) = spawn_shop(Backend::Sqlite, 600).await.expect("sqlite");
    let snap = app.catalog.snapshot();
    let global = snap.global_plans();
    assert!(!global.is_empty(), "the sandbox sells global plans");
    let regions = page(&app, "/regions?lang=es").await;
    assert!(
        regions.contains("href=\"/global\""),
        "Regions links the page"
    );
    assert!(regions.contains("Planes globales"), "in Spanish");

    let html = page(&app, "/global").await;
    assert!(html.contains("<h1>Global plans</h1>"));
    for plan in &global {
        assert!(
            html.contains(&format!("/plans/{}?from=global\"", plan.id))
                || html.contains(&format!("value=\"{}\"", plan.id)),
            "{} on the global page",
            plan.id
        );
    }
    let plan = global[0];
    let plan_page = page(&app, &format!("/plans/{}?from=global", plan.id)).await;
    let crumb = crumbs(&plan_page);
    assert!(crumb.contains("href=\"/regions\""), "{crumb}");
    assert!(
        crumb.contains("<a href=\"/global\">Global plans</a>"),
        "{crumb}"
    );
}

const TOKEN: &str = "metrics-token-0123456789abcdef-0123456789";

/// Renders of the plan page cache.
async fn plan_renders(app: &TestApp) -> u64 {
    app.metric(TOKEN, "storefront_page_cache_renders_total{cache=\"plan\"}")
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn junk_origins_name_the_plans_own_page_in_the_cache() {
    let (app, _upstream) =
        spawn_shop_with(Backend::Sqlite, 120, &[("STOREFRONT_METRICS_TOKEN", TOKEN)])
            .await
            .expect("sqlite");
    let snap = app.catalog.snapshot();
    let plan = snap
        .plans()
        .iter()
        .find(|p| p.kind == PlanKind::Local && p.is_sellable())
        .expect("a local plan");
    let code = plan.country_code.trim().to_ascii_uppercase();
    page(&app, &format!("/plans/{}", plan.id)).await;
    page(&app, &format!("/plans/{}?from=country-{code}", plan.id)).await;
    let before = plan_renders(&app).await;
    for i in 0..200 {
        for from in [
            format!("country-X{i}"),
            format!("region-r{i}"),
            format!("junk{i}"),
        ] {
            page(&app, &format!("/plans/{}?from={from}", plan.id)).await;
        }
    }
    assert_eq!(
        plan_renders(&app).await,
        before,
        "unknown origins are the plan's own page, already rendered"
    );
}
