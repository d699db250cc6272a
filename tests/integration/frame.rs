//! What every shop page's frame and the shared stylesheet give a visitor: a way to contact the
//! shop when it has one (and no promise of one when it has not), error pages that read as
//! text, and tables and boxes that keep words whole.

use crate::helpers::{Backend, spawn_shop, spawn_shop_with};

async fn page(app: &crate::helpers::TestApp, path: &str) -> (u16, String) {
    let res = app.get(path).await;
    let status = res.status().as_u16();
    (status, res.text().await.expect("body"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_support_address_is_on_every_shop_page_and_in_the_help() {
    let (app, _upstream) = spawn_shop_with(
        Backend::Sqlite,
        20,
        &[("STOREFRONT_SUPPORT_EMAIL", "help@shop.example")],
    )
    .await
    .expect("sqlite");
    let link = "<a href=\"mailto:help@shop.example\">help@shop.example</a>";
    for path in ["/", "/countries", "/help/installation", "/no-such-page"] {
        let (_, html) = page(&app, path).await;
        let footer = html.split("<footer").nth(1).expect("a footer");
        assert!(footer.contains(link), "{path}: {footer}");
    }
    let (_, refunds) = page(&app, "/help/refunds").await;
    let main = refunds.split("<footer").next().expect("page");
    assert!(main.contains(link), "{main}");
    let (_, compatibility) = page(&app, "/help/compatibility").await;
    let main = compatibility.split("<footer").next().expect("page");
    assert!(main.contains(link), "{main}");
    assert!(!main.contains("Ask the shop"), "{main}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_support_address_no_page_promises_a_contact() {
    let (app, _upstream) = spawn_shop(Backend::Sqlite, 20).await.expect("sqlite");
    for path in [
        "/",
        "/help/refunds",
        "/help/compatibility",
        "/help/installation",
    ] {
        let (status, html) = page(&app, path).await;
        assert_eq!(status, 200, "{path}");
        for promise in [
            "mailto:",
            "contact us",
            "Ask the shop",
            "reply to",
            "write to us",
        ] {
            assert!(
                !html.to_lowercase().contains(&promise.to_lowercase()),
                "{path} promises {promise:?}"
            );
        }
    }
    let (_, refunds) = page(&app, "/help/refunds").await;
    assert!(refunds.contains("do not delete it"), "{refunds}");
}

/// Not every eSIM comes with an install button: the help says so instead of promising one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_installation_help_does_not_promise_an_install_button() {
    let (app, _upstream) = spawn_shop(Backend::Sqlite, 20).await.expect("sqlite");
    let (_, html) = page(&app, "/help/installation").await;
    assert!(!html.contains("or tap the install button"), "{html}");
    assert!(html.contains("if your page shows one"), "{html}");
}

/// An error page is a heading and ordinary text: the class that paints inline form errors red
/// and bold is not on its main element.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn error_pages_read_as_ordinary_text() {
    let (app, _upstream) = spawn_shop(Backend::Sqlite, 20).await.expect("sqlite");
    let (status, html) = page(&app, "/no-such-page").await;
    assert_eq!(status, 404);
    let main = html
        .split("<main ")
        .nth(1)
        .and_then(|m| m.split('>').next())
        .expect("main element");
    let classes: Vec<&str> = main
        .split("class=\"")
        .nth(1)
        .and_then(|c| c.split('"').next())
        .expect("classes")
        .split_whitespace()
        .collect();
    assert!(!classes.contains(&"error"), "{main}");
    assert!(classes.contains(&"error-page"), "{main}");
    let css = stylesheet(&app).await;
    assert!(
        !css.contains(".error-page {"),
        "nothing paints the whole page"
    );
}

/// Table cells never break inside a word (a long word wraps only where a cell is a line of its
/// own, as in the console's tables on a phone), and
/// the console's box style stays in the console, away from the shop's cards.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_stylesheet_keeps_words_whole_and_console_boxes_in_the_console() {
    let (app, _upstream) = spawn_shop(Backend::Sqlite, 20).await.expect("sqlite");
    let css = without_comments(&stylesheet(&app).await);
    for rule in css.split('}') {
        let Some((selectors, body)) = rule.split_once('{') else {
            continue;
        };
        for selector in selectors.split(',').map(str::trim) {
            if selector.ends_with(" td") || selector.ends_with(" th") || selector.ends_with(" dd") {
                assert!(!body.contains("anywhere"), "breaks words: {rule}");
                assert!(!body.contains("break-all"), "breaks words: {rule}");
            }
            assert_ne!(
                selector, ".card",
                "a box around every `.card`, the shop's cards included: {rule}"
            );
        }
    }
    assert!(css.contains("body.admin .card {"), "{css}");
    assert!(
        css.contains(".table-wrap th, .table-wrap time, .table-wrap .num, .table-wrap .status"),
        "headers, dates, amounts and statuses stay on one line"
    );
}

fn without_comments(css: &str) -> String {
    let mut out = String::new();
    let mut rest = css;
    while let Some(start) = rest.find("/*") {
        out.push_str(&rest[..start]);
        rest = rest[start..]
            .find("*/")
            .map_or("", |end| &rest[start + end + 2..]);
    }
    out.push_str(rest);
    out
}

async fn stylesheet(app: &crate::helpers::TestApp) -> String {
    let (status, css) = page(app, "/static/style.css").await;
    assert_eq!(status, 200);
    css
}
