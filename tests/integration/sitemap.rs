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

/// The `href` of every `<link rel="{rel}" …>` in `html`'s head, with its `hreflang` if any.
fn head_links(html: &str, rel: &str) -> Vec<(Option<String>, String)> {
    let head = html.split("</head>").next().unwrap_or_default();
    head.split("<link ")
        .skip(1)
        .filter_map(|tag| {
            let tag = tag.split('>').next()?;
            let attr = |name: &str| {
                tag.split(&format!("{name}=\""))
                    .nth(1)
                    .and_then(|v| v.split('"').next())
                    .map(|v| v.replace("&amp;", "&"))
            };
            (attr("rel")? == rel).then(|| (attr("hreflang"), attr("href").unwrap_or_default()))
        })
        .collect()
}

/// Every same-site page address a page links to, as a path with its `?lang=` if it has one
/// (other parameters, like a plan's `?from=`, name no other page).
fn linked_pages(html: &str, at: &str) -> Vec<String> {
    html.split("href=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .map(|href| href.replace("&amp;", "&"))
        .filter_map(|href| {
            let (path, query) = match href.split_once('?') {
                Some((path, query)) => (path.to_string(), query.to_string()),
                None => (href.clone(), String::new()),
            };
            let path = if path.is_empty() {
                at.to_string()
            } else {
                path
            };
            if !path.starts_with('/') || path.starts_with("//") || path.starts_with("/static/") {
                return None;
            }
            let path = path.split('#').next().unwrap_or_default().to_string();
            let lang = query.split('&').find(|p| p.starts_with("lang="));
            Some(match lang {
                Some(lang) => format!("{path}?{lang}"),
                None => path,
            })
        })
        .collect()
}

/// The page's structured data: every `application/ld+json` block, parsed.
fn json_ld(html: &str) -> Vec<serde_json::Value> {
    html.split("<script type=\"application/ld+json\">")
        .skip(1)
        .map(|rest| {
            let text = rest.split("</script>").next().unwrap_or_default();
            serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
        })
        .collect()
}

/// Checks `item` against the schema.org shape of its type, as search engines read it, and
/// returns its type.
fn check_shape(item: &serde_json::Value, origin: &str, listed: &BTreeSet<String>) -> String {
    let kind = item["@type"].as_str().expect("@type").to_string();
    let text = |key: &str| {
        item[key]
            .as_str()
            .filter(|s| !s.trim().is_empty())
            .unwrap_or_else(|| panic!("{kind}.{key}: {item}"))
            .to_string()
    };
    let ours = |url: &str| {
        assert!(url.starts_with(origin), "{kind}: {url} is not this shop's");
    };
    match kind.as_str() {
        "Product" => {
            text("name");
            text("description");
            text("sku");
            ours(&text("url"));
            if !item["offers"].is_null() {
                let offer = &item["offers"];
                assert_eq!(offer["@type"], "Offer");
                assert_eq!(offer["priceCurrency"], "USD");
                let price = offer["price"].as_str().expect("price as text");
                let (whole, cents) = price.split_once('.').expect("a decimal price");
                assert!(
                    whole.bytes().all(|b| b.is_ascii_digit()) && cents.len() == 2,
                    "{price}"
                );
                assert!(
                    [
                        "https://schema.org/InStock",
                        "https://schema.org/OutOfStock"
                    ]
                    .contains(&offer["availability"].as_str().unwrap_or_default())
                );
            }
        }
        "BreadcrumbList" | "ItemList" => {
            let items = item["itemListElement"].as_array().expect("itemListElement");
            assert!(!items.is_empty(), "{item}");
            for (i, element) in items.iter().enumerate() {
                assert_eq!(element["@type"], "ListItem");
                assert_eq!(element["position"], i + 1, "{item}");
                let url = element[if kind == "ItemList" { "url" } else { "item" }]
                    .as_str()
                    .expect("url");
                ours(url);
                if kind == "ItemList" {
                    let path = url.strip_prefix(origin).unwrap_or(url);
                    assert!(
                        listed.iter().any(|l| l.starts_with(&format!("{path}?"))),
                        "{path} is listed but in no sitemap"
                    );
                }
            }
            if kind == "ItemList" {
                assert_eq!(item["numberOfItems"], items.len());
            }
        }
        "Organization" | "WebSite" => {
            text("name");
            ours(&text("url"));
        }
        other => panic!("unexpected type {other}"),
    }
    kind
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crawl_finds_every_page_once_with_one_canonical_address_and_its_alternates() {
    let (app, _upstream) = spawn_shop(Backend::Sqlite, 120).await.expect("sqlite");
    let browser = Browser::default();
    let origin = app.url("");
    let index = browser
        .get(&app, "/sitemap.xml")
        .await
        .assert_status(200)
        .body;

    // Every address of the sitemap: one canonical link, itself, and the same alternates as
    // the sitemap names for it; a title no other page in its language has; structured data
    // of the page's kind.
    let mut listed: BTreeSet<String> = BTreeSet::new();
    let mut pages: Vec<(String, String)> = Vec::new();
    for part in values(&index, "loc") {
        let xml = browser.get(&app, part).await.assert_status(200).body;
        for entry in xml.split("<url>").skip(1) {
            let loc = values(entry, "loc")[0].replace("&amp;", "&");
            listed.insert(loc.strip_prefix(&origin).unwrap_or(&loc).to_string());
        }
    }
    let mut titles: BTreeSet<String> = BTreeSet::new();
    for part in values(&index, "loc") {
        let xml = browser.get(&app, part).await.assert_status(200).body;
        for entry in xml.split("<url>").skip(1) {
            let loc = values(entry, "loc")[0].replace("&amp;", "&");
            let page = browser.get(&app, &loc).await.assert_status(200).body;
            let title = values(&page, "title")[0].to_string();
            let lang = loc.rsplit("lang=").next().unwrap_or_default();
            assert!(
                titles.insert(format!("{lang} {title}")),
                "{loc}: {title} twice"
            );
            let path = loc.strip_prefix(&origin).unwrap_or(&loc).to_string();
            let kinds: Vec<String> = json_ld(&page)
                .iter()
                .flat_map(|doc| {
                    assert_eq!(doc["@context"], "https://schema.org");
                    doc["@graph"].as_array().cloned().unwrap_or_default()
                })
                .map(|item| check_shape(&item, &origin, &listed))
                .collect();
            let expected: &[&str] = if path.starts_with("/plans/") {
                &["Product", "BreadcrumbList"]
            } else if path.starts_with("/countries/") || path.starts_with("/regions/") {
                &["ItemList", "BreadcrumbList"]
            } else if path.starts_with("/?") {
                &["Organization", "WebSite"]
            } else {
                &[]
            };
            assert_eq!(kinds, expected, "{loc}");
            pages.push((loc.clone(), page.clone()));
            let canonical = head_links(&page, "canonical");
            assert_eq!(canonical, [(None, loc.clone())], "{loc}");
            let on_page: Vec<(String, String)> = head_links(&page, "alternate")
                .into_iter()
                .map(|(lang, href)| (lang.unwrap_or_default(), href))
                .collect();
            let in_sitemap: Vec<(String, String)> = alternates(entry)
                .into_iter()
                .map(|(lang, href)| (lang, href.replace("&amp;", "&")))
                .collect();
            assert_eq!(on_page, in_sitemap, "{loc}");
        }
    }
    assert!(pages.len() > 100, "{} pages", pages.len());

    // A crawl from the home page in each language, by links only, finds them all.
    let mut queue: Vec<String> = Lang::ALL
        .iter()
        .map(|l| format!("/?lang={}", l.code()))
        .collect();
    let mut crawled: BTreeSet<String> = BTreeSet::new();
    while let Some(address) = queue.pop() {
        if !crawled.insert(address.clone()) {
            continue;
        }
        let path = address.split('?').next().unwrap_or_default().to_string();
        if !storefront::web::seo::indexable(&path) {
            continue;
        }
        let answer = browser.get(&app, &address).await;
        if answer.status != 200 {
            continue;
        }
        for next in linked_pages(&answer.body, &path) {
            let in_lang = if next.contains("?lang=") {
                next
            } else {
                // A link without a language keeps the page's (the cookie the switcher set).
                format!("{next}?{}", address.split_once('?').map_or("", |(_, q)| q))
            };
            if !crawled.contains(&in_lang) {
                queue.push(in_lang);
            }
        }
    }
    let snap = app.catalog.snapshot();
    let missing: Vec<String> = listed
        .difference(&crawled)
        .map(|address| {
            let id = address
                .strip_prefix("/plans/")
                .and_then(|rest| rest.split('?').next());
            match id.and_then(|id| snap.plan(id)) {
                Some(p) => format!("{address} ({:?} {} {:?})", p.kind, p.country_code, p.region),
                None => address.clone(),
            }
        })
        .collect();
    assert!(missing.is_empty(), "no link leads to {missing:?}");

    // The bare address is its own canonical (the x-default, in the visitor's language); a
    // variant of an address is sent to it.
    let bare = browser
        .get(&app, "/countries/JP")
        .await
        .assert_status(200)
        .body;
    assert_eq!(
        head_links(&bare, "canonical"),
        [(None, format!("{origin}/countries/JP"))]
    );
    let sorted = browser
        .get(&app, "/countries/JP?lang=de&sort=price")
        .await
        .assert_status(200)
        .body;
    assert_eq!(
        head_links(&sorted, "canonical"),
        [(None, format!("{origin}/countries/JP?lang=de"))]
    );
    for (variant, to) in [
        ("/countries/jp", "/countries/JP"),
        ("/countries/JP/", "/countries/JP"),
        ("/regions/", "/regions"),
        ("/countries/JP/?lang=es", "/countries/JP?lang=es"),
    ] {
        let answer = browser.get(&app, variant).await.assert_status(301);
        assert_eq!(answer.location(), to, "{variant}");
    }
    let region = &app
        .catalog
        .snapshot()
        .listed_regions()
        .next()
        .expect("a region")
        .slug
        .clone();
    let answer = browser
        .get(&app, &format!("/regions/{}", region.to_uppercase()))
        .await
        .assert_status(301);
    assert_eq!(answer.location(), format!("/regions/{region}"));
    // Pages that are not for search engines name no canonical address.
    let lost = browser
        .get(&app, "/lost-link")
        .await
        .assert_status(200)
        .body;
    assert!(head_links(&lost, "canonical").is_empty());
}
