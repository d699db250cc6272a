//! The consumer pages against a 600-plan sandbox catalog with every awkward case of the spec:
//! every plan and country is reachable, labels are honest, upstream text is escaped, and no
//! price is below cost.

use std::collections::HashSet;

use storefront::domain::plan::describe_allowance;

use crate::helpers::{Backend, Browser, TestApp, hidden, spawn_shop};

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
        let allowance =
            describe_allowance(plan.data_amount_mb, plan.validity_days, plan.is_daily_plan);
        assert!(html.contains(&allowance), "{path} lacks {allowance:?}");
        if plan.is_daily_plan {
            assert!(
                html.contains(" per day for "),
                "{path}: a daily plan says per day"
            );
        }
        if plan.fup_policy.is_empty() {
            assert!(html.contains("No fair-use details provided."), "{path}");
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
            None => assert!(
                html.contains("<dt>Networks</dt><dd>not reported</dd>"),
                "{path}"
            ),
            Some(list) if list.is_empty() => {
                assert!(
                    html.contains("<dt>Networks</dt><dd>none listed</dd>"),
                    "{path}"
                )
            }
            Some(_) => {}
        }
        if plan.network_type.is_none() {
            assert!(
                html.contains("<dt>Network type</dt><dd>not reported</dd>"),
                "{path}"
            );
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
            let id = plan_link.trim_start_matches("/plans/");
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
    let (local_html, covering_html) = html
        .split_once("id=\"covering\"")
        .expect("a separate section for regional and global plans");
    for plan in &local {
        assert!(
            local_html.contains(&format!("/plans/{}\"", plan.id)),
            "{} in local",
            plan.id
        );
    }
    for plan in &covering {
        assert!(
            covering_html.contains(&format!("/plans/{}\"", plan.id)),
            "{} covering",
            plan.id
        );
    }

    // Lowest price first by default, most data first on request; a duration filter.
    let us = snap.local_plans("US");
    assert!(us.len() >= 50);
    let order = |html: &str| -> Vec<String> {
        links(html, "/plans/")
            .into_iter()
            .map(|l| l.trim_start_matches("/plans/").to_string())
            .collect()
    };
    // Within the local section (regional and global plans follow in their own).
    let local_section = |html: &str| {
        html.split("id=\"covering\"")
            .next()
            .unwrap_or("")
            .to_string()
    };
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
    let covering_section = |html: &str| {
        html.split("id=\"covering\"")
            .nth(1)
            .unwrap_or("")
            .to_string()
    };
    for html in [local_section(&by_data), covering_section(&by_data)] {
        let data: Vec<(i64, i64)> = order(&html)
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
    // A 1-day daily plan (one day's allowance) comes after a 50 GB plan.
    assert!(
        rank(&|p| p.data_mb == 51_200 && !p.is_daily)
            < rank(&|p| p.is_daily && p.validity_days == 1),
        "{shown:?}"
    );
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
    ] {
        let url = format!(
            "/search?q={}",
            url::form_urlencoded::byte_serialize(query.as_bytes()).collect::<String>()
        );
        let (status, html) = page(&app, &url).await;
        assert_eq!(status, 200, "{query}");
        assert!(
            links(&html, "/countries/").contains(&expected.to_string()),
            "{query} → {expected}"
        );
    }
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
        assert!(!title.trim().is_empty(), "{path} has a title");
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
                html.contains(&format!("<label for=\"{id}\">")),
                "{path}: input {id} has a label"
            );
        }
    }
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
    let (_, html, _) = browser.get(&app, &on_sale.labels.href).await;
    let token = hidden(&html, "csrf_token");
    for cost in [0, 9_007_199_254_740_991] {
        let plan = upstream
            .sandbox
            .plans()
            .into_iter()
            .find(|p| p.price_cents == cost)
            .expect("the sandbox has it");
        let price = snap.plan(&plan.id).and_then(|p| p.price).expect("priced");
        let (status, html, _) = browser
            .post(
                &app,
                "/checkout",
                &[
                    ("csrf_token", &token),
                    ("plan_id", &plan.id),
                    ("email", "traveller@example.com"),
                    ("confirm_device", "yes"),
                    ("expected_price_cents", &price.get().to_string()),
                ],
            )
            .await;
        assert_eq!(status, 409, "{}", plan.id);
        assert!(html.contains("Nothing was charged"), "{}", plan.id);
    }
}
