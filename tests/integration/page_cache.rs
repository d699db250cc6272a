//! The catalog page cache under junk: query values a crawler (or an attacker) invents name the
//! page they really show, so they neither fill the cache nor push out the pages people ask
//! for. The evidence is the render and hit counters `/metrics` exposes, not timing.

use std::collections::BTreeSet;

use crate::helpers::{Backend, TestApp, spawn_shop_with};

const TOKEN: &str = "metrics-token-0123456789abcdef-0123456789";

/// `(renders, hits, bytes)` of the catalog page cache.
async fn catalog_cache(app: &TestApp) -> (u64, u64, u64) {
    let value = async |name: &str| {
        app.metric(TOKEN, &format!("{name}{{cache=\"catalog\"}}"))
            .await
    };
    (
        value("storefront_page_cache_renders_total").await,
        value("storefront_page_cache_hits_total").await,
        value("storefront_page_cache_bytes").await,
    )
}

async fn etag(app: &TestApp, path: &str) -> String {
    let res = app.get(path).await;
    assert_eq!(res.status(), 200, "{path}");
    res.headers()
        .get("etag")
        .and_then(|v| v.to_str().ok())
        .expect("etag")
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn junk_query_values_neither_fill_the_cache_nor_evict_the_common_pages() {
    let (app, _upstream) =
        spawn_shop_with(Backend::Sqlite, 600, &[("STOREFRONT_METRICS_TOKEN", TOKEN)])
            .await
            .expect("sqlite");
    let snap = app.catalog.snapshot();
    let mut durations: BTreeSet<i64> = snap
        .local_plans("US")
        .iter()
        .chain(snap.covering_plans("US").iter())
        .map(|p| p.validity_days)
        .collect();
    durations.retain(|d| *d <= 1_500);
    let common = ["/", "/countries/US", "/countries/US?sort=data"];
    let mut tags = Vec::new();
    for path in common {
        tags.push(etag(&app, path).await);
    }
    let (renders, hits, _) = catalog_cache(&app).await;

    // Every duration from 1 to 1500 days, each with a sort nobody offers.
    for days in 1..=1_500 {
        let res = app
            .get(&format!("/countries/US?days={days}&sort=junk{days}"))
            .await;
        assert_eq!(res.status(), 200, "days={days}");
    }
    // A duration no plan has shows the whole list: the very same page.
    assert_eq!(etag(&app, "/countries/US?days=999999").await, tags[1]);
    assert_eq!(etag(&app, "/countries/US?days=-3&sort=").await, tags[1]);

    let (after_junk, _, bytes) = catalog_cache(&app).await;
    assert!(
        after_junk - renders <= u64::try_from(durations.len()).unwrap_or(u64::MAX),
        "only the durations US really has were rendered: {} renders for {} durations",
        after_junk - renders,
        durations.len()
    );
    assert!(bytes < 16 * 1024 * 1024, "{bytes} bytes kept");

    // The common pages are still answered from the cache, unchanged.
    for (path, tag) in common.iter().zip(&tags) {
        assert_eq!(&etag(&app, path).await, tag, "{path}");
    }
    let (renders_now, hits_now, _) = catalog_cache(&app).await;
    assert_eq!(renders_now, after_junk, "no common page was rendered again");
    let junk_hits = 1_500 - u64::try_from(durations.len()).unwrap_or(0) + 2;
    assert!(
        hits_now >= hits + junk_hits + 3,
        "every junk value and common page answered from the cache: {hits} → {hits_now}"
    );
}
