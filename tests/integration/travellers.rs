//! Delivery per traveller: the buyer's link opens every eSIM of the checkout, each with its
//! own section and status; a traveller the buyer gave an address gets one email of their own,
//! in the language of the purchase, whose link opens only their eSIM; revoking one eSIM's
//! links leaves the buyer's page alone, and revoking the buyer's leaves the travellers'.

use storefront::db::now_ms;
use storefront::db::order_links;

use crate::both_backends;
use crate::fixtures::as_id;
use crate::helpers::{Backend, Browser, Email, TestApp, spawn_shop_with};
use crate::journeys::{pay, purchase_id};
use crate::quantity::{buy_many, units};

both_backends!(each_traveller_s_link_opens_only_their_esim_and_the_buyer_s_opens_all,);

/// The private link in `email` (`/orders/…?token=…`), as a path.
fn link_in(email: &Email) -> String {
    let start = email
        .text
        .find("/orders/")
        .expect("a link to an order page");
    email.text[start..]
        .split(|c: char| c.is_whitespace() || c == '"' || c == '<' || c == ')')
        .next()
        .expect("the link")
        .to_string()
}

/// Opens `link` in a fresh browser; returns the order page it leads to, or the status.
async fn open_link(app: &TestApp, link: &str) -> Result<String, u16> {
    let browser = Browser::default();
    let first = browser.get(app, link).await;
    if first.status != 303 {
        return Err(first.status);
    }
    let page = browser.get(app, &first.location()).await;
    if page.status == 200 {
        Ok(page.body)
    } else {
        Err(page.status)
    }
}

async fn each_traveller_s_link_opens_only_their_esim_and_the_buyer_s_opens_all(backend: Backend) {
    let Some((app, upstream)) = spawn_shop_with(backend, 30, &[]).await else {
        return;
    };
    let plan = crate::journeys::sellable_plan(&app);
    upstream
        .sandbox
        .set_balance(plan.cost.get() * 100)
        .expect("balance");
    crate::checkout::age_wallet(&app.db).await;

    let buyer = Browser::default();
    let pay_page = buy_many(
        &app,
        &buyer,
        &plan,
        "parent@example.com",
        "3",
        &[
            ("lang", "de"),
            ("traveller_name_1", "Anna"),
            ("traveller_name_2", "Ben"),
            ("traveller_email_2", "ben@example.com"),
            ("traveller_name_3", "Cleo"),
            ("traveller_email_3", "cleo@example.com"),
        ],
    )
    .await
    .assert_status(303)
    .location();
    let order = pay(&app, &buyer, &pay_page)
        .await
        .assert_status(303)
        .location();
    let checkout = purchase_id(&order);
    let ids: Vec<String> = units(&app.db, &checkout)
        .await
        .iter()
        .map(|u| u.id.to_string())
        .collect();
    assert_eq!(ids.len(), 3);

    // Ben and Cleo each get their own email, in the purchase's language, linking to their
    // own eSIM only.
    let ben = app.wait_for_email("ben@example.com").await;
    let cleo = app.wait_for_email("cleo@example.com").await;
    app.drain_outbox().await;
    for (email, id, place) in [
        (&ben, &ids[1], "eSIM 2 von 3"),
        (&cleo, &ids[2], "eSIM 3 von 3"),
    ] {
        assert!(email.text.contains(place), "{}", email.text);
        let link = link_in(email);
        assert!(link.starts_with(&format!("/orders/{id}?token=")), "{link}");
        let page = open_link(&app, &link).await.expect("the traveller's page");
        // The page reads in the visitor's language (this browser's is English).
        let english = place.replace(" von ", " of ");
        assert!(page.contains(&english), "their eSIM is named: {page}");
        assert!(
            !page.contains("data-unit-status"),
            "no other eSIM is listed"
        );
        // Their token opens no other eSIM of the checkout.
        let token = link.split("token=").nth(1).expect("token");
        for other in ids.iter().filter(|other| *other != id) {
            assert_eq!(
                open_link(&app, &format!("/orders/{other}?token={token}")).await,
                Err(404)
            );
        }
    }
    let sent_to = |to: &str| {
        app.emails()
            .iter()
            .filter(|raw| raw.to_lowercase().contains(&format!("to: {to}")))
            .count()
    };
    assert_eq!(
        (sent_to("ben@example.com"), sent_to("cleo@example.com")),
        (1, 1),
        "one email each"
    );
    assert!(
        !ben.text.contains("parent@example.com") && !ben.text.contains("SF-"),
        "nothing of the buyer's order: {}",
        ben.text
    );

    // The buyer's page lists all three, each with its own status.
    let page = buyer.get(&app, &order).await.assert_status(200).body;
    assert_eq!(page.matches("data-unit-status=\"").count(), 3, "{page}");
    for label in [
        "eSIM 1 von 3 · Anna",
        "eSIM 2 von 3 · Ben",
        "eSIM 3 von 3 · Cleo",
    ] {
        // The buyer's browser is English; the page reads in the browser's language.
        let english = label.replace(" von ", " of ");
        assert!(page.contains(&english), "{english}: {page}");
    }

    // Revoking Ben's eSIM's links ends his link, not the buyer's; revoking the buyer's ends
    // the buyer's, not Cleo's.
    let (ben_id, checkout_id) = (as_id(&ids[1]), as_id(&checkout));
    app.db
        .run(move |conn| order_links::revoke_all(conn, &ben_id, now_ms()))
        .await
        .expect("revoke");
    assert_eq!(open_link(&app, &link_in(&ben)).await, Err(404));
    // The buyer's link, as the checkout's cookie holds it, checked afresh (a page kept in
    // memory answers a revoked link for a few seconds; see `web::order_cache`).
    let buyers_link = format!(
        "/orders/{checkout}?token={}",
        buyer
            .cookie(&format!("order_{checkout}"))
            .expect("the buyer's cookie")
    );
    assert!(
        open_link(&app, &buyers_link).await.is_ok(),
        "the buyer's link still opens"
    );
    app.db
        .run(move |conn| order_links::revoke_checkout(conn, &checkout_id, now_ms()))
        .await
        .expect("revoke");
    assert_eq!(open_link(&app, &buyers_link).await, Err(404));
    assert!(
        open_link(&app, &link_in(&cleo)).await.is_ok(),
        "Cleo's link still opens"
    );
}
