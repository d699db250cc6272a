//! A shared link shows a preview: every page on sale names its Open Graph and Twitter card
//! tags, and its picture (`og:image`) is a 1200×630 PNG the shop draws for that page, at an
//! address that changes when what it shows changes.

use storefront::catalog::PlanKind;
use storefront::i18n::Lang;
use storefront::staff::Role;

use crate::admin::{OWNER, create, login_as};
use crate::helpers::{Backend, Browser, TestApp, spawn_shop, spawn_shop_with};

/// The `content` of every `<meta property|name="{key}" …>` in `html`'s head.
fn meta(html: &str, key: &str) -> Vec<String> {
    let head = html.split("</head>").next().unwrap_or_default();
    head.split("<meta ")
        .skip(1)
        .filter_map(|tag| {
            let tag = tag.split('>').next()?;
            let attr = |name: &str| {
                tag.split(&format!("{name}=\""))
                    .nth(1)
                    .and_then(|v| v.split('"').next())
                    .map(unescape)
            };
            let named = attr("property").or_else(|| attr("name"))?;
            (named == key).then(|| attr("content").unwrap_or_default())
        })
        .collect()
}

/// The one value of `key`; fails when the page names it not exactly once.
fn one(html: &str, key: &str, page: &str) -> String {
    let values = meta(html, key);
    assert_eq!(values.len(), 1, "{page}: {key} {values:?}");
    values[0].clone()
}

fn canonical(html: &str) -> String {
    html.split("<link rel=\"canonical\" href=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_default()
        .replace("&amp;", "&")
}

fn title(html: &str) -> String {
    html.split("<title>")
        .nth(1)
        .and_then(|rest| rest.split("</title>").next())
        .map(unescape)
        .unwrap_or_default()
}

/// Text of an HTML attribute or element as a reader sees it.
fn unescape(text: &str) -> String {
    [
        ("&#60;", "<"),
        ("&lt;", "<"),
        ("&#62;", ">"),
        ("&gt;", ">"),
        ("&#34;", "\""),
        ("&quot;", "\""),
        ("&#39;", "'"),
        ("&#38;", "&"),
        ("&amp;", "&"),
    ]
    .iter()
    .fold(text.to_string(), |text, (from, to)| text.replace(from, to))
}

/// Fetches the picture at `url` (this shop's) and checks what a link preview needs: a PNG of
/// 1200×630, kept for long. Returns its bytes.
async fn card(app: &TestApp, url: &str) -> Vec<u8> {
    let path = url
        .strip_prefix(&app.url(""))
        .unwrap_or_else(|| panic!("{url} is not this shop's"));
    let response = app.get(path).await;
    assert_eq!(response.status(), 200, "{path}");
    let headers = response.headers().clone();
    assert_eq!(headers["content-type"], "image/png", "{path}");
    let cache = headers["cache-control"].to_str().unwrap_or_default();
    assert!(cache.contains("max-age=31536000"), "{path}: {cache}");
    let png = response.bytes().await.expect("body").to_vec();
    assert!(
        png.starts_with(b"\x89PNG\r\n\x1a\n"),
        "{path}: not a PNG signature"
    );
    // The first chunk is IHDR: width and height, big-endian, after its length and type.
    assert_eq!(&png[12..16], b"IHDR", "{path}");
    let width = u32::from_be_bytes([png[16], png[17], png[18], png[19]]);
    let height = u32::from_be_bytes([png[20], png[21], png[22], png[23]]);
    assert_eq!((width, height), (1200, 630), "{path}");
    png
}

/// Checks the link-preview tags of the page at `path` and returns its `og:image`.
async fn preview_of(app: &TestApp, browser: &Browser, path: &str, shop: &str) -> String {
    let html = browser.get(app, path).await.assert_status(200).body;
    assert_eq!(one(&html, "og:url", path), canonical(&html), "{path}");
    assert_eq!(one(&html, "og:title", path), title(&html), "{path}");
    assert!(!one(&html, "og:description", path).is_empty(), "{path}");
    assert_eq!(one(&html, "og:site_name", path), shop, "{path}");
    assert_eq!(one(&html, "og:type", path), "website", "{path}");
    assert_eq!(
        one(&html, "twitter:card", path),
        "summary_large_image",
        "{path}"
    );
    let locale = one(&html, "og:locale", path);
    let alternates = meta(&html, "og:locale:alternate");
    let mut all: Vec<&str> = alternates.iter().map(String::as_str).collect();
    all.push(&locale);
    all.sort_unstable();
    assert_eq!(all, ["de_DE", "en_US", "es_ES"], "{path}");
    one(&html, "og:image", path)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_page_on_sale_has_one_share_card_of_1200_by_630() {
    let (app, _upstream) = spawn_shop(Backend::Sqlite, 60).await.expect("sqlite");
    let browser = Browser::default();
    let snap = app.catalog.snapshot();
    let country = snap.destinations()[0].code.clone();
    let region = snap.listed_regions().next().expect("a region").slug.clone();
    let plan = snap
        .plans()
        .iter()
        .find(|p| p.is_sellable() && p.kind == PlanKind::Local)
        .expect("a plan")
        .id
        .clone();
    let pages = [
        "/".to_string(),
        "/countries".to_string(),
        "/regions".to_string(),
        "/global".to_string(),
        format!("/countries/{country}"),
        format!("/regions/{region}"),
        format!("/plans/{plan}"),
        "/help/refunds".to_string(),
        storefront::shop::legal::Document::ALL[0].href(),
    ];
    let mut images = std::collections::BTreeSet::new();
    for path in &pages {
        for lang in ["?lang=en", "?lang=de"] {
            let path = format!("{path}{lang}");
            let image = preview_of(&app, &browser, &path, "eSIM shop").await;
            card(&app, &image).await;
            images.insert(image);
        }
    }
    // A card per country, region and plan, in each language; the shop's own pages share one.
    assert_eq!(images.len(), 2 * 4, "{images:#?}");

    // A page that is not on sale names no card; an address of no card is not found.
    let order = browser.get(&app, "/lost-link").await.body;
    assert!(meta(&order, "og:image").is_empty());
    for path in [
        "/share/en/0123456789ab/plan-no-such-plan.png",
        "/share/en/0123456789ab/country-XX.png",
        "/share/fr/0123456789ab/shop.png",
        "/share/en/0123456789ab/thing-1.png",
        "/share/en/0123456789ab/shop.gif",
    ] {
        assert_eq!(app.get(path).await.status(), 404, "{path}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_price_gives_the_plan_a_new_picture() {
    let (app, _upstream) = spawn_shop(Backend::Sqlite, 30).await.expect("sqlite");
    create(&app.db, OWNER, Role::Owner).await;
    let owner = login_as(&app, OWNER).await;
    let browser = Browser::default();
    let plan = app
        .catalog
        .snapshot()
        .plans()
        .iter()
        .find(|p| p.is_sellable())
        .expect("a plan")
        .id
        .clone();
    let path = format!("/plans/{plan}");
    let before = preview_of(&app, &browser, &path, "eSIM shop").await;
    let old_png = card(&app, &before).await;

    let token = owner.csrf(&app).await;
    owner
        .post(
            &app,
            "/admin/pricing/save",
            &[
                ("csrf_token", &token),
                ("scope_kind", "default"),
                ("scope_value", ""),
                ("markup_percent", "80"),
                ("fixed", ""),
                ("min_margin", ""),
                ("ending", ""),
            ],
        )
        .await
        .assert_status(303);

    let after = preview_of(&app, &browser, &path, "eSIM shop").await;
    assert_ne!(
        before, after,
        "the price changed, so does the picture's address"
    );
    let new_png = card(&app, &after).await;
    assert_ne!(old_png, new_png, "the picture shows the new price");
    // A preview that kept the old address is sent to the current picture.
    let old_path = before.strip_prefix(&app.url("")).unwrap_or(&before);
    let stale = Browser::default()
        .get(&app, old_path)
        .await
        .assert_status(302);
    assert_eq!(app.url(&stale.location()), after);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn names_with_ampersands_and_angle_brackets_are_drawn() {
    let shop = "Bits & <Bytes>";
    let (app, _upstream) = spawn_shop_with(Backend::Sqlite, 30, &[("STOREFRONT_SHOP_NAME", shop)])
        .await
        .expect("sqlite");
    create(&app.db, OWNER, Role::Owner).await;
    let owner = login_as(&app, OWNER).await;
    let slug = app
        .catalog
        .snapshot()
        .listed_regions()
        .next()
        .expect("a region")
        .slug
        .clone();
    let token = owner.csrf(&app).await;
    owner
        .post(
            &app,
            &format!("/admin/catalog/regions/{slug}"),
            &[
                ("csrf_token", &token),
                ("en", "Europe & <Balkans>"),
                ("es", ""),
                ("de", ""),
            ],
        )
        .await
        .assert_status(303);

    let browser = Browser::default();
    browser.set_cookie("lang", Lang::En.code());
    let path = format!("/regions/{slug}");
    let html = browser.get(&app, &path).await.assert_status(200).body;
    assert!(html.contains("Europe &#38; &#60;Balkans&#62;"), "{html}");
    for page in [path.as_str(), "/"] {
        let image = preview_of(&app, &browser, page, shop).await;
        let png = card(&app, &image).await;
        assert!(png.len() > 10_000, "{page}: a drawn card, not an empty one");
    }
}
