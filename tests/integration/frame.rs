//! What every shop page's frame gives a visitor: a way to contact the shop when it has one,
//! and no promise of one when it has not.

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
