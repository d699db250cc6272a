//! The consumer pages against a 600-plan sandbox catalog with every awkward case of the spec:
//! every plan and country is reachable, every link leads somewhere, labels are honest,
//! upstream text is escaped, only plans a card can pay for are offered, and no price is below
//! cost.

use std::collections::{HashMap, HashSet};

use storefront::catalog::PlanKind;
use storefront::domain::plan::describe_allowance;
use storefront::i18n::Lang;

use crate::helpers::{Backend, Browser, TestApp, hidden, location, spawn_shop};

/// The `href="…"` targets in `html` that start with `prefix`.
fn links(html: &str, prefix: &str) -> Vec<String> {
    html.split("href=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .filter(|href| href.starts_with(prefix))
        .map(str::to_string)
        .collect()
}

async fn page(app: &TestApp, path: &str) -> (u16, String) {
    let res = app.get(path).await;
    let status = res.status().as_u16();
    (status, res.text().await.expect("body"))
}

fn assert_no_raw_upstream_markup(path: &str, html: &str) {
    for raw in ["<script>alert", "<b>may</b>", "Trinidad & Tobago"] {
        assert!(
            !html.contains(raw),
            "{path} carries raw upstream text {raw:?}"
        );
    }
}

/// Catalog pages are rendered once per snapshot: gzipped for clients that take gzip, plain
/// for the others, the same page either way, and `304` for a browser that has it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn catalog_pages_are_served_gzipped_plain_or_not_modified() {
    use std::io::Read;

    let (app, _upstream) = spawn_shop(Backend::Sqlite, 120).await.expect("sqlite");
    let code = app.catalog.snapshot().destinations()[0].code.clone();
    for path in [
        "/".to_string(),
        "/countries".to_string(),
        format!("/countries/{code}?sort=data"),
    ] {
        let plain = app.get(&path).await;
        assert_eq!(plain.status().as_u16(), 200, "{path}");
        assert!(plain.headers().get("content-encoding").is_none(), "{path}");
        let etag = plain.headers()["etag"].to_str().expect("etag").to_string();
        assert_eq!(plain.headers()["cache-control"], "public, max-age=60");
        assert!(plain.headers().get("x-request-id").is_some(), "{path}");
        let html = plain.text().await.expect("body");
        assert!(html.contains("</html>"), "{path}");

        let zipped = app
            .client
            .get(app.url(&path))
            .header("accept-encoding", "gzip")
            .send()
            .await
            .expect("request");
        assert_eq!(zipped.headers()["content-encoding"], "gzip", "{path}");
        assert_eq!(zipped.headers()["etag"].to_str().expect("etag"), etag);
        let bytes = zipped.bytes().await.expect("body");
        assert!(bytes.len() < html.len() / 2, "{path}: compressed");
        let mut unzipped = String::new();
        flate2::read::GzDecoder::new(&bytes[..])
            .read_to_string(&mut unzipped)
            .expect("gzip");
        assert_eq!(unzipped, html, "{path}");

        let again = app
            .client
            .get(app.url(&path))
            .header("if-none-match", &etag)
            .send()
            .await
            .expect("request");
        assert_eq!(again.status().as_u16(), 304, "{path}");
        assert!(again.bytes().await.expect("body").is_empty());
    }
    // Another ordering is another page.
    let by_price = app.get(&format!("/countries/{code}")).await;
    let by_data = app.get(&format!("/countries/{code}?sort=data")).await;
    assert_ne!(by_price.headers()["etag"], by_data.headers()["etag"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_plan_and_country_of_a_600_plan_catalog_has_an_honest_page() {
    let (app, upstream) = spawn_shop(Backend::Sqlite, 600).await.expect("sqlite");
    let snap = app.catalog.snapshot();
    let plans = upstream.sandbox.plans();
    assert_eq!(plans.len(), 600);

    let (mut saw_markup, mut saw_1500_mb) = (false, false);
    for plan in &plans {
        let path = format!("/plans/{}", plan.id);
        let (status, html) = page(&app, &path).await;
        assert_eq!(status, 200, "{path}");
        assert_no_raw_upstream_markup(&path, &html);
        let allowance = describe_allowance(
            Lang::En,
            plan.data_amount_mb,
            plan.validity_days,
            plan.is_daily_plan,
        );
        assert!(html.contains(&allowance), "{path} lacks {allowance:?}");
        if plan.is_daily_plan {
            assert!(
                html.contains(" per day for "),
                "{path}: a daily plan says per day"
            );
        }
        // What upstream did not give is left out, not shown as a placeholder; no internal
        // plan id is shown.
        for placeholder in [
            "No fair-use details",
            "none listed",
            "not reported",
            "Plan id",
        ] {
            assert!(!html.contains(placeholder), "{path} shows {placeholder:?}");
        }
        if plan.fup_policy.is_empty() {
            assert!(!html.contains("<dt>Fair use</dt>"), "{path}");
            assert!(!html.to_lowercase().contains("unlimited"), "{path}");
        }
        if plan.fup_policy.contains("<b>") {
            assert!(
                html.contains(
                    "<dd>Speeds may drop to 1 Mbps after 3 GB &#38; video is limited to 480p</dd>"
                ),
                "{path}: markup read as words"
            );
            assert!(!html.contains("&#60;b&#62;"), "{path}: no tags shown");
            saw_markup = true;
        }
        if plan.data_amount_mb == 1500 {
            assert!(html.contains("1,500 MB"), "{path}");
            saw_1500_mb = true;
        }
        match &plan.networks {
            Some(list) if !list.is_empty() => assert!(
                html.contains(&format!(
                    "<dt>Networks</dt><dd>{}</dd>",
                    escaped(&list.join(", "))
                )),
                "{path}"
            ),
            _ => assert!(!html.contains("<dt>Networks</dt>"), "{path}"),
        }
        match &plan.network_type {
            Some(kind) => assert!(
                html.contains(&format!("<dt>Network type</dt><dd>{kind}</dd>")),
                "{path}"
            ),
            None => assert!(!html.contains("<dt>Network type</dt>"), "{path}"),
        }
        let activation = match plan.activation_type.as_str() {
            "first_install" => "when you install the eSIM",
            _ => "first connects to a network in the destination",
        };
        assert!(html.contains(activation), "{path}");
        let shop = snap.plan(&plan.id).expect("in snapshot");
        if !shop.is_sellable() {
            assert!(html.contains("This plan is not on sale."), "{path}");
            assert!(!html.contains("Continue to payment"), "{path}");
            assert!(!html.contains("class=\"amount\""), "{path} shows no price");
            continue;
        }
        let price = shop.price.expect("a plan on sale is priced");
        assert!(html.contains("Prices can change until you pay"), "{path}");
        assert!(price.get() >= plan.price_cents, "{path}: price below cost");
        assert!(
            html.contains(&format!("Continue to payment · {price}")),
            "{path} sells at its price"
        );
        if price.get() != plan.price_cents {
            let cost = storefront::domain::Cents::new(plan.price_cents).to_string();
            assert!(
                !html.contains(&format!(">{cost}<")),
                "{path} shows the partner's cost"
            );
        }
    }
    assert!(saw_markup, "the catalog had a fair-use text with markup");
    assert!(saw_1500_mb, "the catalog had a 1500 MB plan");

    // The free plan and the one at upstream's maximum price are not offered, only explained.
    for cost in [0, 9_007_199_254_740_991] {
        let plan = plans
            .iter()
            .find(|p| p.price_cents == cost)
            .expect("the sandbox has it");
        let (status, html) = page(&app, &format!("/plans/{}", plan.id)).await;
        assert_eq!(
            status, 200,
            "{}: its page stays for purchases naming it",
            plan.id
        );
        assert!(html.contains("This plan is not on sale."), "{}", plan.id);
        assert!(!html.contains("$112,589,990,684,262"), "{}", plan.id);
    }

    let (status, html) = page(&app, "/countries").await;
    assert_eq!(status, 200);
    let countries: HashSet<String> = links(&html, "/countries/").into_iter().collect();
    assert!(countries.len() >= 20, "{countries:?}");
    assert!(
        html.contains("Trinidad &#38; Tobago") && html.contains("台灣 Taiwan"),
        "escaped and CJK names"
    );
    for href in &countries {
        let (status, html) = page(&app, href).await;
        assert_eq!(status, 200, "{href}");
        assert_no_raw_upstream_markup(href, &html);
        for plan_link in links(&html, "/plans/") {
            let id = plan_link
                .trim_start_matches("/plans/")
                .split('?')
                .next()
                .unwrap_or_default();
            assert!(
                snap.plan(id).is_some_and(|p| p.is_sellable()),
                "{href} links {id}"
            );
        }
    }
    assert!(
        !html.contains("$0.00"),
        "no from-price of a plan not on sale"
    );
    let (status, html) = page(&app, "/regions").await;
    assert_eq!(status, 200);
    for href in links(&html, "/regions/") {
        let (status, html) = page(&app, &href).await;
        assert_eq!(status, 200, "{href}");
        assert!(!links(&html, "/plans/").is_empty(), "{href} lists plans");
    }

    // Every plan on sale is listed on some page: its country's, its region's, or (a global
    // plan) the page of each country it covers; its card shows what tells it apart from a
    // plan of the same size, and a daily plan's card that its price is the trip's.
    let mut cards: HashMap<String, String> = HashMap::new();
    for path in countries.iter().chain(links(&html, "/regions/").iter()) {
        let (_, html) = page(&app, path).await;
        for card in html.split("<li class=\"card plan").skip(1) {
            let card = card.split("</li>").next().unwrap_or_default();
            for id in plan_ids(card) {
                cards.insert(format!("/plans/{id}"), card.to_string());
            }
        }
    }
    let (mut saw_daily, mut saw_networks) = (false, false);
    for plan in snap.plans().iter().filter(|p| p.is_sellable()) {
        let card = cards
            .get(&plan.labels.href)
            .unwrap_or_else(|| panic!("{} is listed", plan.id));
        let upstream = plans.iter().find(|p| p.id == plan.id).expect("upstream");
        for placeholder in ["none listed", "not reported", "No fair-use"] {
            assert!(!card.contains(placeholder), "{card}");
        }
        if let Some(names) = upstream.networks.as_ref().filter(|n| !n.is_empty()) {
            assert!(card.contains(&escaped(&names.join(", "))), "{card}");
            saw_networks = true;
        }
        match upstream.activation_type.as_str() {
            "first_install" => assert!(card.contains("Starts when installed"), "{card}"),
            _ => assert!(card.contains("Starts on first connection"), "{card}"),
        }
        if card.contains("data-day-picker") {
            // A daily plan's card: a radio button per duration, each with its price.
            let days = plan.validity_days;
            let label = if days == 1 {
                "1 day".to_string()
            } else {
                format!("{days} days")
            };
            assert!(
                card.contains(&format!("{label} · {}", plan.labels.price)),
                "{card}"
            );
            saw_daily = true;
        } else if plan.is_daily && plan.validity_days > 1 {
            let price = plan.price.expect("priced").get();
            let days = plan.validity_days;
            // The price is the trip's: the card says so, with the price of a day.
            assert!(card.contains(&format!("total for {days} days")), "{card}");
            let day = storefront::domain::Cents::new((price + days / 2) / days);
            assert!(card.contains(&format!("{day}/day")), "{card}");
            assert!(card.contains(" in total"), "{card}");
            saw_daily = true;
        } else {
            assert!(!card.contains("total for"), "{card}");
        }
    }
    assert!(saw_daily && saw_networks, "the catalog had both kinds");
}

/// `text` as a page writes it (askama's escaping).
fn escaped(text: &str) -> String {
    text.replace('&', "&#38;")
        .replace('\'', "&#39;")
        .replace('"', "&#34;")
}

/// Follows a same-origin link through permanent redirects; the status it ends on and where.
async fn follow(app: &TestApp, href: &str) -> (u16, String) {
    let mut at = href.to_string();
    for _ in 0..3 {
        let res = app.get(&at).await;
        let status = res.status().as_u16();
        if status != 301 && status != 308 {
            return (status, at);
        }
        let next = location(res.headers());
        assert!(
            next.starts_with('/'),
            "{at} redirects to {next}, off the shop"
        );
        at = next;
    }
    panic!("{href} redirects too often");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_link_on_every_plan_country_and_region_page_leads_to_a_page() {
    let (app, _upstream) = spawn_shop(Backend::Sqlite, 600).await.expect("sqlite");
    let snap = app.catalog.snapshot();
    let mut pages: Vec<String> = vec!["/".into(), "/countries".into(), "/regions".into()];
    pages.extend(snap.plans().iter().map(|p| p.labels.href.clone()));
    pages.extend(
        snap.destinations()
            .iter()
            .map(|d| format!("/countries/{}", d.code)),
    );
    pages.extend(
        snap.regions()
            .iter()
            .map(|r| format!("/regions/{}", r.slug)),
    );

    let mut checked: HashMap<String, String> = HashMap::new();
    for path in &pages {
        let (status, html) = page(&app, path).await;
        assert_eq!(status, 200, "{path}");
        for href in links(&html, "/") {
            // `//host/…` is another origin; `&#38;` is how a page writes `&` in an address.
            if href.starts_with("//") || checked.contains_key(&href) {
                continue;
            }
            let (status, landed) = follow(&app, &href.replace("&#38;", "&")).await;
            assert_eq!(status, 200, "{path} links {href}, which ends at {landed}");
            checked.insert(href, landed);
        }
    }
    assert!(checked.len() > 100, "{} links checked", checked.len());

    // A breadcrumb leads to where the plan is listed: a regional plan to its region's page,
    // a global plan to the page of global plans.
    let crumb = |html: &str| {
        let crumbs = html
            .split("<p class=\"crumbs\">")
            .nth(1)
            .and_then(|c| c.split("</p>").next())
            .unwrap_or_default()
            .to_string();
        links(&crumbs, "/").pop().expect("a breadcrumb link")
    };
    for plan in snap.plans().iter().filter(|p| p.kind != PlanKind::Local) {
        let (_, html) = page(&app, &plan.labels.href).await;
        // Straight to the listing, not through a redirect.
        let landed = crumb(&html);
        let expected = match (plan.kind, plan.region.as_deref()) {
            (PlanKind::Regional, Some(slug)) if snap.region(slug).is_some() => {
                format!("/regions/{slug}")
            }
            (PlanKind::Regional, _) => "/regions".to_string(),
            _ => "/global".to_string(),
        };
        assert_eq!(landed, expected, "{}", plan.id);
        let covers = if plan.coverage.len() == 1 {
            "Covers 1 country.".to_string()
        } else {
            format!("Covers {} countries.", plan.coverage.len())
        };
        assert!(html.contains(&covers), "{}: {covers}", plan.id);
        assert!(!html.contains("more countries"), "{}", plan.id);
    }
}

/// The plan ids a page links to, in order.
/// Every plan `html` offers: linked cards and each duration of a day picker, in page order.
fn plan_ids(html: &str) -> Vec<String> {
    plans_in(html, "name=\"plan\" value=\"")
}

/// The plan each card of `html` shows first: its link, or its day picker's checked duration.
fn card_leads(html: &str) -> Vec<String> {
    plans_in(html, "name=\"plan\" value=\"CHECKED")
}

/// Plan links (the origin left off) and day-picker values, in page order; with `CHECKED` in
/// `radio`, only the checked value of each picker (whose link to that value is not counted
/// again).
fn plans_in(html: &str, radio: &str) -> Vec<String> {
    let checked_only = radio.ends_with("CHECKED");
    let radio = radio.trim_end_matches("CHECKED");
    let mut found = Vec::new();
    let mut rest = html;
    loop {
        let link = rest.find("href=\"/plans/");
        let pick = rest.find(radio);
        let (at, skip, is_radio) = match (link, pick) {
            (Some(l), Some(r)) if r < l => (r, radio.len(), true),
            (Some(l), _) => (l, "href=\"/plans/".len(), false),
            (None, Some(r)) => (r, radio.len(), true),
            (None, None) => break,
        };
        let tail = &rest[at + skip..];
        let end = tail.find('"').unwrap_or(tail.len());
        let id = tail[..end].split('?').next().unwrap_or("").to_string();
        let after = &tail[end..];
        let checked = after.split('>').next().unwrap_or("").contains(" checked");
        // A day picker's own link to its checked duration: its radio buttons count instead.
        let pickers_link = !is_radio && rest[..at].ends_with("class=\"plan-data\" ");
        if id != "choose" && !pickers_link && (!is_radio || !checked_only || checked) {
            found.push(id);
        }
        rest = after;
    }
    found
}

/// The regional and global sections of a country page.
fn covering_sections(html: &str) -> String {
    format!("{}{}", section(html, "regional"), section(html, "global"))
}

/// The part of `html` between the element with `id` and the next `<section`.
fn section<'a>(html: &'a str, id: &str) -> &'a str {
    html.split(&format!("id=\"{id}\""))
        .nth(1)
        .and_then(|rest| rest.split("<section").next())
        .unwrap_or("")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_region_page_lists_its_regional_plans_and_prices_the_region_by_them() {
    let (app, _upstream) = spawn_shop(Backend::Sqlite, 600).await.expect("sqlite");
    let snap = app.catalog.snapshot();
    let (_, home) = page(&app, "/").await;
    let mut regions_seen = 0;
    for region in snap.regions() {
        let path = format!("/regions/{}", region.slug);
        let (status, html) = page(&app, &path).await;
        assert_eq!(status, 200, "{path}");
        let listed = plan_ids(section(&html, "regional"));
        let plans: Vec<_> = listed.iter().filter_map(|id| snap.plan(id)).collect();
        assert_eq!(plans.len(), listed.len(), "{path}");
        for plan in &plans {
            assert_eq!(plan.kind, PlanKind::Regional, "{path} lists {}", plan.id);
            assert_eq!(
                plan.region.as_deref(),
                Some(region.slug.as_str()),
                "{}",
                plan.id
            );
            assert!(plan.is_sellable(), "{}", plan.id);
        }
        let mut expected: Vec<&str> = snap
            .plans()
            .iter()
            .filter(|p| {
                p.is_sellable()
                    && p.kind == PlanKind::Regional
                    && p.region.as_deref() == Some(region.slug.as_str())
            })
            .map(|p| p.id.as_str())
            .collect();
        let mut shown: Vec<&str> = listed.iter().map(String::as_str).collect();
        expected.sort_unstable();
        shown.sort_unstable();
        assert_eq!(shown, expected, "{path}");
        let covers = match region.coverage.len() {
            1 => "Covers 1 country.".to_string(),
            n => format!("Covers {n} countries."),
        };
        assert!(html.contains(&covers), "{path}: {covers}");
        // The region's countries, by name, each linked to its own plans.
        let countries = section(&html, "countries");
        for code in &region.coverage {
            let name = escaped(snap.any_country_name(code));
            assert!(countries.contains(&name), "{path} names {code}");
            if snap.destination(code).is_some() {
                assert!(
                    links(countries, "/countries/").contains(&format!("/countries/{code}")),
                    "{path} links {code}"
                );
            }
        }

        // Its tile: the lowest price of its regional plans, or no tile without any.
        let from = plans.iter().filter_map(|p| p.price).min();
        let tile = home
            .split(&format!("href=\"/regions/{}\"", region.slug))
            .nth(1)
            .and_then(|t| t.split("</li>").next());
        match from {
            Some(price) => {
                let tile = tile.expect("a tile on the home page");
                assert!(tile.contains(&format!("from {price}")), "{path}: {tile}");
                regions_seen += 1;
            }
            None => assert!(tile.is_none(), "{path} has no regional plan yet a tile"),
        }
    }
    assert!(regions_seen >= 3, "{regions_seen} regions with plans");
    for text in ["1 countries", "(1 countries)"] {
        assert!(!home.contains(text), "home: {text}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_country_covered_only_by_regional_or_global_plans_has_a_named_page() {
    let (app, _upstream) = spawn_shop(Backend::Sqlite, 600).await.expect("sqlite");
    let snap = app.catalog.snapshot();
    for (code, name) in [("AD", "Andorra"), ("MO", "Macao"), ("LI", "Liechtenstein")] {
        let covering = snap.covering_plans(code);
        assert!(!covering.is_empty(), "{code} is covered");
        let path = format!("/countries/{code}");
        let (status, html) = page(&app, &path).await;
        assert_eq!(status, 200, "{path}");
        assert!(
            html.contains(&format!("<h1>eSIM data plans for {name}</h1>")),
            "{path}"
        );
        assert!(
            html.contains(&format!("There are no local plans for {name}")),
            "{path}"
        );
        let mut shown = plan_ids(&covering_sections(&html));
        let mut expected: Vec<String> = covering.iter().map(|p| p.id.clone()).collect();
        shown.sort();
        expected.sort();
        assert_eq!(shown, expected, "{path}");

        let (_, countries) = page(&app, "/countries").await;
        assert!(
            links(&countries, "/countries/").contains(&path),
            "{path} listed"
        );
    }
    // A plan page names every country it covers.
    let global = snap
        .plans()
        .iter()
        .find(|p| p.kind == PlanKind::Global)
        .expect("a global plan");
    let (_, html) = page(&app, &global.labels.href).await;
    for name in [
        "Andorra",
        "Caribbean Netherlands",
        "Indonesia",
        "Macao",
        "Comoros",
        "Liechtenstein",
    ] {
        assert!(html.contains(name), "{}: {name}", global.id);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn country_addresses_are_canonical() {
    let (app, _upstream) = spawn_shop(Backend::Sqlite, 200).await.expect("sqlite");
    let snap = app.catalog.snapshot();
    for (path, to) in [
        ("/countries/jp", "/countries/JP"),
        (
            "/countries/Jp?sort=data&days=7",
            "/countries/JP?sort=data&days=7",
        ),
    ] {
        let res = app.get(path).await;
        assert_eq!(res.status().as_u16(), 301, "{path}");
        assert_eq!(location(res.headers()), to, "{path}");
    }
    // Upstream's destination code of a regional or global plan leads to its listing.
    for plan in snap.plans().iter().filter(|p| p.kind != PlanKind::Local) {
        let (status, landed) = follow(&app, &format!("/countries/{}", plan.country_code)).await;
        assert_eq!(status, 200, "{}", plan.country_code);
        assert_eq!(landed, snap.listing_href(plan), "{}", plan.country_code);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_country_page_separates_local_and_covering_plans_and_sorts_them() {
    let (app, _upstream) = spawn_shop(Backend::Sqlite, 300).await.expect("sqlite");
    let snap = app.catalog.snapshot();
    let code = "FR";
    let local = snap.local_plans(code);
    let covering = snap.covering_plans(code);
    assert!(!covering.is_empty(), "regional plans cover France");
    let (status, html) = page(&app, &format!("/countries/{code}")).await;
    assert_eq!(status, 200);
    let local_html = plan_ids(&format!(
        "{}{}",
        section(&html, "daily"),
        section(&html, "total")
    ));
    let covering_html = plan_ids(&covering_sections(&html));
    for plan in &local {
        assert!(local_html.contains(&plan.id), "{} in local", plan.id);
    }
    for plan in &covering {
        assert!(covering_html.contains(&plan.id), "{} covering", plan.id);
    }

    // Lowest price first by default, most data first on request; a duration filter.
    let us = snap.local_plans("US");
    assert!(us.len() >= 50);
    let order = card_leads;
    // Within each section (daily, total data, regional and global plans in their own).
    let local_section = |html: &str| section(html, "total").to_string();
    let (_, by_price) = page(&app, "/countries/US").await;
    let prices: Vec<i64> = order(&local_section(&by_price))
        .iter()
        .filter_map(|id| snap.plan(id).and_then(|p| p.price).map(|p| p.get()))
        .collect();
    assert!(
        prices.windows(2).all(|w| w[0] <= w[1]),
        "sorted by price: {prices:?}"
    );
    // Most data: the total over the validity, so a daily allowance counts every day.
    let (_, by_data) = page(&app, "/countries/US?sort=data").await;
    for html in ["daily", "total", "regional", "global"].map(|id| section(&by_data, id)) {
        let data: Vec<(i64, i64)> = order(html)
            .iter()
            .filter_map(|id| snap.plan(id))
            .map(|p| (p.total_data_mb(), p.price.map_or(i64::MAX, |c| c.get())))
            .collect();
        assert!(data.len() > 1);
        assert!(
            data.windows(2)
                .all(|w| w[0].0 > w[1].0 || (w[0].0 == w[1].0 && w[0].1 <= w[1].1)),
            "most data first, the cheaper first among equals: {data:?}"
        );
    }
    let shown = order(&local_section(&by_data));
    let rank = |pick: &dyn Fn(&storefront::catalog::ShopPlan) -> bool| {
        shown
            .iter()
            .position(|id| snap.plan(id).is_some_and(pick))
            .expect("such a plan is listed")
    };
    // Daily plans have a section of their own; total data plans start with the largest.
    assert!(
        shown
            .iter()
            .all(|id| snap.plan(id).is_some_and(|p| !p.is_daily))
    );
    assert_eq!(rank(&|p| p.data_mb == 51_200), 0, "{shown:?}");
    let days = us[0].validity_days;
    let (_, filtered) = page(&app, &format!("/countries/US?days={days}")).await;
    let shown = order(&filtered);
    assert!(!shown.is_empty());
    assert!(
        shown
            .iter()
            .all(|id| snap.plan(id).is_some_and(|p| p.validity_days == days))
    );
    assert!(filtered.contains(&format!("<option value=\"{days}\" selected>")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_ignores_case_and_accents_and_matches_codes() {
    let (app, _upstream) = spawn_shop(Backend::Sqlite, 200).await.expect("sqlite");
    for (query, expected) in [
        ("curacao", "/countries/CW"),
        ("CURAÇAO", "/countries/CW"),
        ("cote d", "/countries/CI"),
        ("jp", "/countries/JP"),
        ("taiwan", "/countries/TW"),
        ("台灣", "/countries/TW"),
        // Covered only by regional or global plans.
        ("indonesia", "/countries/ID"),
        ("andorra", "/countries/AD"),
        ("macao", "/countries/MO"),
        // An exact code first, though "ad" is inside "Canada" and "Trinidad".
        ("AD", "/countries/AD"),
        ("de", "/countries/DE"),
        // A region by name.
        ("europe", "/regions/europe"),
        ("Middle", "/regions/middle-east"),
        // Other names people type for a country.
        ("usa", "/countries/US"),
        ("United States", "/countries/US"),
        ("uk", "/countries/GB"),
        ("England", "/countries/GB"),
        ("turkey", "/countries/TR"),
        ("vietnam", "/countries/VN"),
        ("ivory coast", "/countries/CI"),
    ] {
        let url = format!(
            "/search?q={}",
            url::form_urlencoded::byte_serialize(query.as_bytes()).collect::<String>()
        );
        let res = app.get(&url).await;
        let status = res.status().as_u16();
        // One match goes straight to its page; several are listed, the best first.
        let first = if status == 303 {
            res.headers()
                .get("location")
                .and_then(|l| l.to_str().ok())
                .map(str::to_string)
        } else {
            assert_eq!(status, 200, "{query}");
            let html = res.text().await.expect("body");
            html.split("<ul class=\"grid destinations\">")
                .nth(1)
                .and_then(|results| links(results, "/").into_iter().next())
        };
        assert_eq!(
            first.as_deref(),
            Some(expected),
            "{query} → {expected} first"
        );
    }
    let res = app.get("/search?q=japan").await;
    assert_eq!(res.status().as_u16(), 303, "one match: straight to it");
    let (_, html) = page(&app, "/search?q=%3Cscript%3E").await;
    assert!(
        html.contains("No destination matches “&#60;script&#62;”"),
        "{html}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_plans_countries_and_regions_are_404_pages() {
    let (app, _upstream) = spawn_shop(Backend::Sqlite, 120).await.expect("sqlite");
    let ready: serde_json::Value = app.get("/readyz").await.json().await.expect("json");
    assert_eq!(ready["upstream"], "ok", "the catalog synced: {ready}");
    for path in [
        "/plans/p999999-base",
        "/plans/%3Cx%3E",
        "/countries/ZZ",
        "/regions/atlantis",
        "/help/nope",
    ] {
        let (status, html) = page(&app, path).await;
        assert_eq!(status, 404, "{path}");
        assert!(html.contains("Page not found"), "{path}");
    }
}

/// The plan page is the same for every visitor but for the form's CSRF token: gzipped for
/// clients that take gzip, each answer carries a token for its own browser's cookie (a first
/// visit gets a cookie and the token for it), masked afresh, and the page is never stored.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_plan_page_carries_each_browsers_own_token_gzipped_or_plain() {
    use std::io::Read;

    let (app, _upstream) = spawn_shop(Backend::Sqlite, 120).await.expect("sqlite");
    let plan = app.catalog.snapshot().plans()[0].id.clone();
    let path = format!("/plans/{plan}");
    let mut tokens = HashSet::new();
    let mut pages = HashSet::new();
    for encoding in ["gzip", "identity", "gzip", "br"] {
        let res = app
            .client
            .get(app.url(&path))
            .header("accept-encoding", encoding)
            .send()
            .await
            .expect("request");
        assert_eq!(res.status(), 200, "{encoding}");
        assert_eq!(res.headers()["cache-control"], "private, no-store");
        let sent = res
            .headers()
            .get("content-encoding")
            .map(|v| v.to_str().expect("ascii").to_string());
        let cookie = res.headers()["set-cookie"]
            .to_str()
            .expect("ascii")
            .split(';')
            .next()
            .expect("pair")
            .to_string();
        let bytes = res.bytes().await.expect("body");
        let html = if sent.as_deref() == Some("gzip") {
            assert_eq!(encoding, "gzip");
            let mut unzipped = String::new();
            flate2::read::GzDecoder::new(&bytes[..])
                .read_to_string(&mut unzipped)
                .expect("valid gzip");
            // The token is stored as it is (BREACH); the page around it is compressed.
            let token = hidden(&unzipped, "csrf_token");
            assert!(
                bytes.len() - token.len() < (unzipped.len() - token.len()) / 2,
                "compressed: {} bytes of {}",
                bytes.len(),
                unzipped.len()
            );
            unzipped
        } else {
            assert_ne!(encoding, "gzip", "a browser taking gzip gets gzip");
            String::from_utf8(bytes.to_vec()).expect("utf-8")
        };
        assert!(html.contains("</html>"));
        let token = hidden(&html, "csrf_token");
        assert_eq!(token.len(), 128, "a mask and the masked HMAC: {token}");
        assert!(tokens.insert(token.clone()), "a new browser, a new token");
        pages.insert(html.replace(&token, "TOKEN"));

        // The same browser keeps its cookie and gets the token masked afresh (BREACH): the
        // bytes differ from one answer to the next (each one verifies: see the checkout tests).
        let again = app
            .client
            .get(app.url(&path))
            .header("cookie", &cookie)
            .send()
            .await
            .expect("request");
        assert!(again.headers().get("set-cookie").is_none());
        let html = again.text().await.expect("body");
        let again_token = hidden(&html, "csrf_token");
        assert_eq!(again_token.len(), 128);
        assert_ne!(again_token, token);
    }
    assert_eq!(pages.len(), 1, "the same page around each token");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_are_compressed_small_and_cacheable() {
    let (app, _upstream) = spawn_shop(Backend::Sqlite, 600).await.expect("sqlite");
    let plans_on_us = app.catalog.snapshot().local_plans("US").len();
    assert!(plans_on_us >= 100, "US has {plans_on_us} plans");
    let res = app
        .client
        .get(app.url("/countries/US"))
        .header("accept-encoding", "gzip")
        .send()
        .await
        .expect("request");
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["content-encoding"], "gzip");
    assert!(
        res.headers()["cache-control"]
            .to_str()
            .expect("ascii")
            .contains("public")
    );
    let compressed = res.bytes().await.expect("body").len();
    assert!(
        compressed < 30 * 1024,
        "country page with {plans_on_us} plans is {compressed} bytes gzipped"
    );

    let (_, home) = page(&app, "/").await;
    let css = links(&home, "/static/style.")
        .pop()
        .expect("stylesheet link");
    assert!(
        css.len() > "/static/style.css".len(),
        "fingerprinted: {css}"
    );
    let res = app.get(&css).await;
    assert_eq!(res.status(), 200);
    assert!(
        res.headers()["cache-control"]
            .to_str()
            .expect("ascii")
            .contains("immutable")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_page_has_a_language_a_title_and_one_main_heading() {
    let (app, _upstream) = spawn_shop(Backend::Sqlite, 120).await.expect("sqlite");
    let plan = app.catalog.snapshot().plans()[0].id.clone();
    for path in [
        "/".to_string(),
        "/countries".to_string(),
        "/regions".to_string(),
        "/countries/US".to_string(),
        format!("/plans/{plan}"),
        "/help/compatibility".to_string(),
        "/help/installation".to_string(),
        "/help/refunds".to_string(),
        "/search?q=fr".to_string(),
    ] {
        let (status, html) = page(&app, &path).await;
        assert_eq!(status, 200, "{path}");
        assert!(html.contains("<html lang=\"en\">"), "{path}");
        assert!(html.contains("name=\"viewport\""), "{path}");
        assert_eq!(html.matches("<h1").count(), 1, "{path} has one h1");
        assert!(html.contains("<main id=\"main\""), "{path}");
        let title = html
            .split("<title>")
            .nth(1)
            .and_then(|t| t.split("</title>").next())
            .unwrap_or("");
        assert!(
            title.ends_with(" · eSIM shop") || title.starts_with("eSIM shop · "),
            "{path}: the shop's name in {title:?}"
        );
        for id in html
            .split("<select id=\"")
            .skip(1)
            .filter_map(|s| s.split('"').next())
        {
            assert!(
                html.contains(&format!("<label for=\"{id}\">")),
                "{path}: select {id} has a label"
            );
        }
        for id in html
            .split("<input id=\"")
            .skip(1)
            .filter_map(|s| s.split('"').next())
        {
            assert!(
                html.contains(&format!("<label for=\"{id}\"")),
                "{path}: input {id} has a label"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn popular_destinations_are_the_most_visited_countries_on_sale() {
    let (app, _upstream) = spawn_shop(Backend::Sqlite, 200).await.expect("sqlite");
    let (_, home) = page(&app, "/").await;
    let popular = section(&home, "popular");
    let shown = links(popular, "/countries/");
    // In the order of the world's most visited countries, not by how many plans they have.
    assert_eq!(
        shown[..4],
        [
            "/countries/FR",
            "/countries/ES",
            "/countries/US",
            "/countries/IT"
        ],
        "{shown:?}"
    );
    assert!(!shown.contains(&"/countries/CI".to_string()), "{shown:?}");
    assert!(shown.len() <= 8);
}

/// A plan that is not on sale cannot be bought by posting its id either.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_not_on_sale_cannot_be_bought() {
    let (app, upstream) = spawn_shop(Backend::Sqlite, 120).await.expect("sqlite");
    let snap = app.catalog.snapshot();
    let on_sale = snap
        .plans()
        .iter()
        .find(|p| p.is_sellable())
        .expect("a plan on sale");
    let browser = Browser::default();
    let html = browser.get(&app, &on_sale.labels.href).await.body;
    let token = hidden(&html, "csrf_token");
    for cost in [0, 9_007_199_254_740_991] {
        let plan = upstream
            .sandbox
            .plans()
            .into_iter()
            .find(|p| p.price_cents == cost)
            .expect("the sandbox has it");
        let price = snap.plan(&plan.id).and_then(|p| p.price).expect("priced");
        let html = browser
            .post(
                &app,
                "/checkout",
                &[
                    ("csrf_token", &token),
                    ("plan_id", &plan.id),
                    ("email", "traveller@example.com"),
                    ("confirm_device", "yes"),
                    ("accept_terms", "yes"),
                    ("expected_price_cents", &price.get().to_string()),
                ],
            )
            .await
            .assert_status(409)
            .body;
        assert!(html.contains("Nothing was charged"), "{}", plan.id);
    }
}
