//! Search engines find every page on sale: `/robots.txt` names `/sitemap.xml`, an index of one
//! part per language; each address there opens, in its language, and names its alternates in
//! every shop language and the `x-default`.

use std::collections::BTreeSet;

use storefront::i18n::Lang;

use crate::helpers::{Backend, Browser, spawn_shop};

/// Every value of `<tag>…</tag>` in `xml`.
fn values<'a>(xml: &'a str, tag: &str) -> Vec<&'a str> {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    xml.split(&open)
        .skip(1)
        .filter_map(|rest| rest.split(&close).next())
        .collect()
}

/// The `href`s of the `<xhtml:link>` alternates of one `<url>` entry, by `hreflang`.
fn alternates(entry: &str) -> Vec<(String, String)> {
    entry
        .split("<xhtml:link rel=\"alternate\" hreflang=\"")
        .skip(1)
        .filter_map(|rest| {
            let (lang, rest) = rest.split_once('"')?;
            let href = rest.split("href=\"").nth(1)?.split('"').next()?;
            Some((lang.to_string(), href.to_string()))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_page_on_sale_is_in_the_sitemap_in_every_language() {
    let (app, _upstream) = spawn_shop(Backend::Sqlite, 120).await.expect("sqlite");
    let browser = Browser::default();
    let origin = app.url("");

    let robots = browser.get(&app, "/robots.txt").await.assert_status(200);
    assert!(
        robots
            .body
            .lines()
            .any(|l| l == format!("Sitemap: {origin}/sitemap.xml")),
        "{}",
        robots.body
    );

    let index = browser.get(&app, "/sitemap.xml").await.assert_status(200);
    assert_eq!(
        index.headers["content-type"],
        "application/xml; charset=utf-8"
    );
    assert!(
        index
            .body
            .starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>")
    );
    let parts = values(&index.body, "loc");
    assert_eq!(parts.len(), 3, "one part per language: {}", index.body);
    assert_eq!(values(&index.body, "lastmod").len(), 3, "the catalog's day");

    let snap = app.catalog.snapshot();
    // What the shop itself links: every country and region on sale, every plan on those pages.
    let mut expected: BTreeSet<String> = ["/", "/countries", "/regions"]
        .into_iter()
        .map(str::to_string)
        .collect();
    for d in snap.destinations() {
        expected.insert(format!("/countries/{}", d.code));
    }
    for r in snap.listed_regions() {
        expected.insert(format!("/regions/{}", r.slug));
    }
    let country = &snap.destinations()[0].code;
    let page = browser
        .get(&app, &format!("/countries/{country}"))
        .await
        .assert_status(200)
        .body;
    let linked_plans: BTreeSet<String> = page
        .split("href=\"/plans/")
        .skip(1)
        .filter_map(|rest| rest.split(['"', '?', '#']).next())
        .map(|id| format!("/plans/{id}"))
        .collect();
    assert!(!linked_plans.is_empty());
    expected.extend(linked_plans);

    for (part, lang) in parts.iter().zip(Lang::ALL) {
        assert_eq!(*part, format!("{origin}/sitemaps/{}-1.xml", lang.code()));
        let xml = browser.get(&app, part).await.assert_status(200).body;
        let entries: Vec<&str> = xml.split("<url>").skip(1).collect();
        let mut seen = BTreeSet::new();
        for entry in &entries {
            let loc = values(entry, "loc")[0];
            let path = loc
                .strip_prefix(&origin)
                .and_then(|p| p.strip_suffix(&format!("?lang={}", lang.code())))
                .unwrap_or_else(|| panic!("{loc} is not this shop's page in {lang:?}"));
            assert!(seen.insert(path.to_string()), "{path} twice");
            // Every language and the negotiated default, each pointing back at the same page.
            let links = alternates(entry);
            let langs: Vec<&str> = links.iter().map(|(l, _)| l.as_str()).collect();
            assert_eq!(langs, ["en", "es", "de", "x-default"], "{entry}");
            for (l, href) in &links {
                let want = if l == "x-default" {
                    format!("{origin}{path}")
                } else {
                    format!("{origin}{path}?lang={l}")
                };
                assert_eq!(href, &want);
            }
        }
        let missing: Vec<_> = expected.difference(&seen).collect();
        assert!(missing.is_empty(), "not in {part}: {missing:?}");
        // Every address opens, in its language.
        for path in seen.iter().filter(|p| !p.starts_with("/plans/")).take(12) {
            let page = browser
                .get(&app, &format!("{path}?lang={}", lang.code()))
                .await
                .assert_status(200)
                .body;
            assert!(
                page.contains(&format!("<html lang=\"{}\"", lang.code())),
                "{path}"
            );
        }
        if lang == Lang::De {
            let plan = seen
                .iter()
                .find(|p| p.starts_with("/plans/"))
                .expect("a plan");
            browser
                .get(&app, &format!("{plan}?lang=de"))
                .await
                .assert_status(200);
        }
    }

    browser
        .get(&app, "/sitemaps/en-2.xml")
        .await
        .assert_status(404);
    browser
        .get(&app, "/sitemaps/fr-1.xml")
        .await
        .assert_status(404);
    browser
        .get(&app, "/sitemaps/en-1.txt")
        .await
        .assert_status(404);
}
