//! Delivery per traveller: the buyer's link opens every eSIM of the checkout, each with its
//! own section and status; a traveller the buyer gave an address gets one email of their own,
//! in the language of the purchase, whose link opens only their eSIM; revoking one eSIM's
//! links leaves the buyer's page alone, and revoking the buyer's leaves the travellers'.

use storefront::db::now_ms;
use storefront::db::order_links;

use crate::both_backends;
use crate::fixtures::as_id;
use crate::helpers::{Backend, Browser, Email, TestApp, hidden, spawn_shop_with, wait_for};
use crate::journeys::{pay, purchase_id};
use crate::quantity::{buy_many, units};

both_backends!(each_traveller_s_link_opens_only_their_esim_and_the_buyer_s_opens_all,);

/// A shop, its upstream, and the buyer's browser after paying for three eSIMs of one plan for
/// Anna, Ben (ben@example.com) and Cleo (cleo@example.com), in English; with the buyer's order
/// page and the three units' ids, in unit order.
pub(crate) struct Family {
    pub app: TestApp,
    pub _upstream: storefront::sandbox::SandboxHandle,
    pub buyer: Browser,
    pub order: String,
    pub ids: Vec<String>,
    pub plan: storefront::catalog::ShopPlan,
}

pub(crate) async fn family_of_three(backend: Backend) -> Option<Family> {
    let (app, upstream) = spawn_shop_with(backend, 30, &[]).await?;
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
    let ids = units(&app.db, &purchase_id(&order))
        .await
        .iter()
        .map(|u| u.id.to_string())
        .collect();
    Some(Family {
        app,
        _upstream: upstream,
        buyer,
        order,
        ids,
        plan,
    })
}

/// The buyer's page once every eSIM of the family is ready.
async fn all_ready(family: &Family) -> String {
    wait_for("every eSIM ready on the buyer's page", async || {
        let page = family.buyer.get(&family.app, &family.order).await.body;
        if page.matches("data-unit-status=\"fulfilled\"").count() == 3 {
            Ok(page)
        } else {
            Err(page)
        }
    })
    .await
}

/// The buyer's page of three eSIMs on a phone: each eSIM is one folded line naming it and its
/// state, with its own QR code and values inside; the iPhone and Android steps show once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_buyer_s_page_folds_each_esim_and_shows_the_steps_once() {
    let Some(family) = family_of_three(Backend::Sqlite).await else {
        return;
    };
    let page = all_ready(&family).await;
    let folds: Vec<&str> = page
        .split("<details class=\"unit\"")
        .skip(1)
        .map(|rest| rest.split("</details>").next().unwrap_or_default())
        .collect();
    assert_eq!(folds.len(), 3, "one fold per eSIM: {page}");
    for (n, (fold, name)) in folds.iter().zip(["Anna", "Ben", "Cleo"]).enumerate() {
        let n = n + 1;
        assert!(!fold.starts_with(" open"), "folded: {fold}");
        let summary = fold
            .split("<summary>")
            .nth(1)
            .and_then(|s| s.split("</summary>").next())
            .expect("a summary line");
        assert!(
            summary.contains(&format!("eSIM {n} of 3 · {name}"))
                && summary.contains("Your eSIM is ready"),
            "{summary}"
        );
        assert!(
            fold.contains(&format!("id=\"u{n}-activation-code\"")) && fold.contains("role=\"img\""),
            "its own QR code and values: {fold}"
        );
        assert!(!fold.contains("<h4>iPhone</h4>"), "no steps in the fold");
    }
    assert_eq!(page.matches("<h4>iPhone</h4>").count(), 1, "{page}");
    assert_eq!(page.matches("<h4>Android</h4>").count(), 1, "{page}");
}

/// A traveller's page names the order by the number the buyer has (on the buyer's page, the
/// receipt and the console), not by their eSIM's own id.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_traveller_s_page_shows_the_buyer_s_order_number() {
    let Some(family) = family_of_three(Backend::Sqlite).await else {
        return;
    };
    let buyers = storefront::domain::purchase::order_number(&purchase_id(&family.order));
    let buyer_page = family.buyer.get(&family.app, &family.order).await.body;
    assert!(buyer_page.contains(&buyers), "{buyer_page}");
    let ben = family.app.wait_for_email("ben@example.com").await;
    let page = open_link(&family.app, &link_in(&ben))
        .await
        .expect("Ben's page");
    let own = storefront::domain::purchase::order_number(&family.ids[1]);
    assert_ne!(own, buyers);
    assert!(
        page.contains(&format!("<strong data-order-number>{buyers}</strong>")),
        "the buyer's number {buyers}: {page}"
    );
    assert!(!page.contains(&own), "not the eSIM's own {own}: {page}");
}

/// The private link in `email` (`/orders/…?token=…`), as a path.
pub(crate) fn link_in(email: &Email) -> String {
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
    // A traveller's email names the order as their page does, by the buyer's order number
    // (what the shop finds it by when they ask for help), never by their eSIM's own; nothing
    // else of the buyer's order is in it.
    let number = storefront::domain::purchase::order_number(&checkout);
    for (email, id) in [(&ben, &ids[1]), (&cleo, &ids[2])] {
        assert!(
            email
                .text
                .contains(&format!("Nenn die Bestellnummer {number},")),
            "the buyer's order number {number}: {}",
            email.text
        );
        let own = storefront::domain::purchase::order_number(id);
        assert!(!email.text.contains(&own), "not its own {own}");
        assert!(
            !email.text.contains("parent@example.com"),
            "nothing of the buyer's: {}",
            email.text
        );
    }

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

/// The buyer's emails of an order of three eSIMs name how many and what they cost together;
/// the buyer's "ready" email also says which of them it is about.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_buyer_s_emails_name_how_many_esims() {
    let Some(family) = family_of_three(Backend::Sqlite).await else {
        return;
    };
    let price = family.plan.price.expect("priced").get();
    let total = storefront::i18n::Lang::En.money(storefront::domain::Cents::new(price * 3));
    // Anna has no address: her eSIM's ready email goes to the buyer.
    let emails = family.app.wait_for_emails("parent@example.com", 2).await;
    let paid = emails
        .iter()
        .find(|e| e.text.contains("payment of"))
        .expect("the payment email");
    let ready = emails
        .iter()
        .find(|e| e.text.contains("is ready"))
        .expect("the ready email");
    // (The text is read as sent: "·" stays quoted-printable.)
    assert!(
        paid.text
            .contains(&format!("payment of {total} for 3 eSIMs ")),
        "{}",
        paid.text
    );
    assert!(paid.text.contains("Plan: 3 eSIMs "), "{}", paid.text);
    assert!(
        paid.text.contains(&format!("Amount: {total}")),
        "{}",
        paid.text
    );
    assert!(
        ready.text.contains("(eSIM 1 of 3 ") && ready.text.contains(" Anna) is ready."),
        "{}",
        ready.text
    );
    assert!(ready.text.contains("Plan: 3 eSIMs "), "{}", ready.text);
}

/// The buyer's timeline tells what happened to each eSIM, named, and the payment they share
/// once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_buyer_s_timeline_tells_what_happened_to_each_esim() {
    let Some(family) = family_of_three(Backend::Sqlite).await else {
        return;
    };
    let page = all_ready(&family).await;
    let timeline = page
        .split("<ul class=\"timeline\">")
        .nth(1)
        .and_then(|rest| rest.split("</ul>").next())
        .expect("the timeline");
    for name in [
        "eSIM 1 of 3 · Anna",
        "eSIM 2 of 3 · Ben",
        "eSIM 3 of 3 · Cleo",
    ] {
        assert!(
            timeline.contains(&format!("{name}:</span> Your eSIM is ready")),
            "{name}: {timeline}"
        );
    }
    assert_eq!(
        timeline.matches("Payment received").count(),
        1,
        "{timeline}"
    );
}

/// "Send this eSIM to someone": the buyer sends Anna's eSIM to her address from its fold; she
/// gets her own link, which opens only her eSIM. A bad address is named on the page and sends
/// nothing; a traveller's link cannot send; a form without its token is refused; and a client
/// sending too many gets told to wait.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_buyer_sends_one_esim_to_someone_and_no_traveller_can() {
    let Some(family) = family_of_three(Backend::Sqlite).await else {
        return;
    };
    let app = &family.app;
    let page = all_ready(&family).await;
    app.drain_outbox().await;
    let csrf = hidden(&page, "csrf_token");
    let checkout = purchase_id(&family.order);
    let send = format!("/orders/{checkout}/units/1/send");

    let bad = family
        .buyer
        .post(app, &send, &[("csrf_token", &csrf), ("email", "anna@")])
        .await
        .assert_status(400)
        .body;
    assert!(
        bad.contains("Enter an email address like name@example.com.")
            && bad.contains("value=\"anna@\""),
        "{bad}"
    );

    let sent = family
        .buyer
        .post(
            app,
            &send,
            &[("csrf_token", &csrf), ("email", "anna@example.com")],
        )
        .await
        .assert_status(200)
        .body;
    assert!(
        sent.contains("The link to this eSIM is on its way to anna@example.com."),
        "{sent}"
    );
    let anna = app.wait_for_email("anna@example.com").await;
    app.drain_outbox().await;
    assert!(anna.text.contains("eSIM 1 of 3"), "{}", anna.text);
    let link = link_in(&anna);
    assert!(
        link.starts_with(&format!("/orders/{}?token=", family.ids[0])),
        "{link}"
    );
    let hers = open_link(app, &link).await.expect("Anna's page");
    assert!(!hers.contains("data-unit-status"), "only her eSIM: {hers}");
    assert!(!hers.contains("units/1/send"), "no send form: {hers}");

    // Without the form's token: refused.
    family
        .buyer
        .post(app, &send, &[("email", "mallory@example.com")])
        .await
        .assert_status(403);

    // Ben's link opens his eSIM and sends nothing, neither his own nor another.
    let ben = Browser::default();
    let ben_link = link_in(&app.wait_for_email("ben@example.com").await);
    ben.get(app, &ben_link).await.assert_status(303);
    let ben_csrf = hidden(&ben.get(app, "/lost-link").await.body, "csrf_token");
    for path in [
        format!("/orders/{}/units/2/send", family.ids[1]),
        format!("/orders/{checkout}/units/2/send"),
    ] {
        ben.post(
            app,
            &path,
            &[("csrf_token", &ben_csrf), ("email", "mallory@example.com")],
        )
        .await
        .assert_status(404);
    }
    app.drain_outbox().await;
    assert_eq!(
        app.emails()
            .iter()
            .filter(|raw| raw.to_lowercase().contains("to: mallory@example.com"))
            .count(),
        0
    );

    // One client sends a few links, then is told to wait.
    let mut statuses = Vec::new();
    for _ in 0..6 {
        let answer = family
            .buyer
            .post(
                app,
                &send,
                &[("csrf_token", &csrf), ("email", "anna@example.com")],
            )
            .await;
        statuses.push(answer.status);
        if answer.status == 429 {
            assert!(answer.body.contains("Too many links"), "{}", answer.body);
            break;
        }
    }
    assert_eq!(statuses.last(), Some(&429), "{statuses:?}");
}

/// Every email about an order names it by the buyer's number, as the buyer's page does: the
/// buyer's "ready" email about their second eSIM (no traveller address) quotes the order's
/// number, never that eSIM's own id's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_buyer_s_email_about_a_second_esim_names_the_buyer_s_order_number() {
    let Some((app, upstream)) = spawn_shop_with(Backend::Sqlite, 30, &[]).await else {
        return;
    };
    let plan = crate::journeys::sellable_plan(&app);
    upstream
        .sandbox
        .set_balance(plan.cost.get() * 100)
        .expect("balance");
    crate::checkout::age_wallet(&app.db).await;
    let buyer = Browser::default();
    let pay_page = buy_many(&app, &buyer, &plan, "pair@example.com", "2", &[])
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
    let number = storefront::domain::purchase::order_number(&checkout);
    let second = storefront::domain::purchase::order_number(&ids[1]);
    // The payment email and one "ready" email per eSIM.
    let emails = app.wait_for_emails("pair@example.com", 3).await;
    let ready: Vec<&Email> = emails
        .iter()
        .filter(|e| e.text.contains("is ready"))
        .collect();
    assert_eq!(ready.len(), 2);
    for email in ready {
        assert!(email.text.contains(&number), "{number}: {}", email.text);
        assert!(
            !email.text.contains(&second),
            "not {second}: {}",
            email.text
        );
    }
}
