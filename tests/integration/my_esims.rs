//! "My eSIMs": a customer signs in with the link in the "Lost your link?" email and sees every
//! eSIM bought with that address (and no one else's), opens each one's order page without its
//! emailed link, and signs out here or everywhere. A sign-in link works once and not for
//! long; an unknown address gets the same answer and no email.

use storefront::db::now_ms;
use storefront::orders::my_esims::{SIGN_IN_LINK_MS, issue_sign_in, sign_in_url};

use crate::admin::insert_purchase;
use crate::both_backends;
use crate::fixtures::as_id;
use crate::helpers::{Answer, Backend, Browser, TestApp, emails_in, hidden, spawn_app};

const BUYER: &str = "Mia@Example.com";
const OTHER: &str = "otto@example.com";
const UNKNOWN: &str = "nobody@example.com";

/// Sends the sign-in form ("Lost your link?") for `email` from `browser`.
async fn ask_for_link(app: &TestApp, browser: &Browser, email: &str) -> Answer {
    let form = browser.get(app, "/lost-link").await.assert_status(200).body;
    let token = hidden(&form, "csrf_token");
    browser
        .post(
            app,
            "/lost-link",
            &[("csrf_token", token.as_str()), ("email", email)],
        )
        .await
}

/// The sign-in link's path and query in an email's text.
fn sign_in_path(text: &str) -> String {
    let marker = "/my-esims/sign-in?token=";
    let rest = text
        .split(marker)
        .nth(1)
        .unwrap_or_else(|| panic!("no sign-in link in {text}"));
    let token: String = rest.chars().take_while(char::is_ascii_hexdigit).collect();
    assert!(token.len() >= 32, "a token of at least 128 bits: {token}");
    format!("{marker}{token}")
}

/// A sign-in link for `email` made at `made_at_ms`, as the email would carry it.
async fn link_made_at(app: &TestApp, email: &str, made_at_ms: i64) -> String {
    let email = email.to_lowercase();
    let token = app
        .db
        .run(move |c| c.write_tx(|c| issue_sign_in(c, &email, made_at_ms)))
        .await
        .expect("sign-in token");
    let base = url::Url::parse("http://shop.invalid").expect("url");
    let url = sign_in_url(&base, &token);
    format!("{}?{}", url.path(), url.query().unwrap_or_default())
}

/// Opens the emailed `link` in `browser` and presses its one button, as a customer does.
pub(crate) async fn press_sign_in(app: &TestApp, browser: &Browser, link: &str) -> Answer {
    let page = browser.get(app, link).await.assert_status(200);
    assert_eq!(page.header("cache-control"), Some("private, no-store"));
    assert_eq!(page.header("referrer-policy"), Some("no-referrer"));
    assert!(
        page.body.contains("action=\"/my-esims/sign-in\""),
        "{}",
        page.body
    );
    browser
        .post(
            app,
            "/my-esims/sign-in",
            &[
                ("csrf_token", hidden(&page.body, "csrf_token").as_str()),
                ("token", hidden(&page.body, "token").as_str()),
            ],
        )
        .await
}

/// A browser signed in with `link`.
async fn signed_in(app: &TestApp, link: &str) -> Browser {
    let phone = Browser::default();
    press_sign_in(app, &phone, link)
        .await
        .assert_redirect_to("/my-esims");
    phone.get(app, "/my-esims").await.assert_status(200);
    phone
}

/// The order numbers on a "My eSIMs" page, top to bottom.
fn listed(page: &str) -> Vec<String> {
    page.split("<dd>SF-")
        .skip(1)
        .map(|rest| format!("SF-{}", rest.split('<').next().unwrap_or_default()))
        .collect()
}

both_backends!(
    a_customer_signs_in_by_email_and_sees_exactly_their_esims,
    sign_out_ends_this_session_and_sign_out_everywhere_every_one,
    an_expired_sign_in_link_signs_no_one_in,
    a_long_list_comes_in_pages_newest_first
);

async fn a_customer_signs_in_by_email_and_sees_exactly_their_esims(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let day_ago = now_ms() - 86_400_000;
    // Stored as typed at checkout, in another case than asked for below.
    insert_purchase(&app.db, "me-old", "mia@example.COM", "refunded", day_ago).await;
    insert_purchase(
        &app.db,
        "me-new",
        "MIA@example.com",
        "paid",
        day_ago + 60_000,
    )
    .await;
    insert_purchase(
        &app.db,
        "me-unpaid",
        BUYER,
        "awaiting_payment",
        day_ago + 120_000,
    )
    .await;
    insert_purchase(&app.db, "otto-1", OTHER, "paid", day_ago + 30_000).await;

    // Not signed in: the list sends the visitor to the sign-in form.
    let phone = Browser::from_address("127.0.0.21");
    signed_out(phone.get(&app, "/my-esims").await);

    // An unknown address gets the same page as a known one, and no email.
    let unknown = ask_for_link(&app, &Browser::from_address("127.0.0.22"), UNKNOWN)
        .await
        .assert_status(200);
    let known = ask_for_link(&app, &phone, BUYER).await.assert_status(200);
    assert_eq!(
        known
            .body
            .replace(known.header("x-request-id").unwrap_or_default(), ""),
        unknown
            .body
            .replace(unknown.header("x-request-id").unwrap_or_default(), "")
    );
    let mail = app.wait_for_email(BUYER).await.text;
    let link = sign_in_path(&mail);

    // A mail scanner or a link preview fetching the link (without pressing anything) spends
    // nothing.
    let scanner = Browser::from_address("127.0.0.23");
    for _ in 0..2 {
        scanner.get(&app, &link).await.assert_status(200);
    }
    signed_out(scanner.get(&app, "/my-esims").await);

    // The link's button signs in: a cookie the page script cannot read, and the token leaves
    // the address bar.
    let answer = press_sign_in(&app, &phone, &link)
        .await
        .assert_redirect_to("/my-esims");
    let cookie = answer.header("set-cookie").expect("a session cookie");
    assert!(cookie.contains("HttpOnly"), "{cookie}");
    assert!(cookie.contains("SameSite=Lax"), "{cookie}");
    assert!(cookie.contains("Path=/"), "{cookie}");

    let page = phone.get(&app, "/my-esims").await.assert_status(200);
    assert_eq!(page.header("cache-control"), Some("no-store"));
    assert_eq!(page.header("x-robots-tag"), Some("noindex"));
    assert!(
        page.body
            .contains(r#"<meta name="robots" content="noindex">"#)
    );
    assert_eq!(
        listed(&page.body),
        [
            as_id("me-new").order_number(),
            as_id("me-old").order_number()
        ],
        "both of Mia's paid eSIMs, newest first, nobody else's: {}",
        page.body
    );
    assert!(page.body.contains("Payment received"), "{}", page.body);
    assert!(page.body.contains("Refunded"), "{}", page.body);

    // Each eSIM opens its order page without the emailed link; Otto's does not open, the
    // same answer as an order that does not exist.
    for id in ["me-new", "me-old"] {
        assert!(
            page.body.contains(&format!("href=\"/orders/{id}\"")),
            "{id}"
        );
        let order = phone
            .get(&app, &format!("/orders/{id}"))
            .await
            .assert_status(200);
        assert!(order.body.contains(&as_id(id).order_number()), "{id}");
    }
    let theirs = phone.get(&app, "/orders/otto-1").await.assert_status(404);
    let nothing = phone
        .get(&app, "/orders/no-such-order")
        .await
        .assert_status(404);
    assert_eq!(
        theirs
            .body
            .replace(theirs.header("x-request-id").unwrap_or_default(), ""),
        nothing
            .body
            .replace(nothing.header("x-request-id").unwrap_or_default(), "")
    );
    phone
        .get(&app, "/orders/me-unpaid")
        .await
        .assert_status(404);

    // The link works once: a second use (here, from another browser) signs no one in, and
    // neither does its button pressed again from a page opened before.
    let laptop = Browser::default();
    let stale_page = scanner.get(&app, "/lost-link").await.assert_status(200);
    let replay = scanner
        .post(
            &app,
            "/my-esims/sign-in",
            &[
                (
                    "csrf_token",
                    hidden(&stale_page.body, "csrf_token").as_str(),
                ),
                ("token", link.rsplit('=').next().unwrap_or_default()),
            ],
        )
        .await
        .assert_status(410);
    assert!(replay.body.contains("no longer works"), "{}", replay.body);
    let again = laptop.get(&app, &link).await.assert_status(410);
    assert!(
        again
            .header("set-cookie")
            .is_none_or(|c| !c.contains("my_esims="))
    );
    assert!(again.body.contains("no longer works"), "{}", again.body);
    signed_out(laptop.get(&app, "/my-esims").await);

    let handled = emails_in(app.mail_dir.path());
    assert!(
        handled.iter().all(|email| !email.is_to(UNKNOWN)),
        "no email to an unknown address"
    );
}

async fn sign_out_ends_this_session_and_sign_out_everywhere_every_one(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    insert_purchase(&app.db, "me-1", BUYER, "paid", now_ms() - 60_000).await;
    insert_purchase(&app.db, "otto-1", OTHER, "paid", now_ms() - 60_000).await;
    let now = now_ms();
    let phone = signed_in(&app, &link_made_at(&app, BUYER, now).await).await;
    let laptop = signed_in(&app, &link_made_at(&app, BUYER, now).await).await;
    let tablet = signed_in(&app, &link_made_at(&app, BUYER, now).await).await;
    let otto = signed_in(&app, &link_made_at(&app, OTHER, now).await).await;

    // Without the form's token nothing ends.
    phone
        .post(
            &app,
            "/my-esims/sign-out-everywhere",
            &[("csrf_token", "x")],
        )
        .await
        .assert_status(403);
    phone.get(&app, "/my-esims").await.assert_status(200);

    // "Sign out" ends this browser's session only.
    let page = tablet.get(&app, "/my-esims").await.assert_status(200);
    tablet
        .post(
            &app,
            "/my-esims/sign-out",
            &[("csrf_token", page.hidden("csrf_token").as_str())],
        )
        .await
        .assert_redirect_to("/");
    signed_out(tablet.get(&app, "/my-esims").await);
    tablet.get(&app, "/orders/me-1").await.assert_status(404);
    laptop.get(&app, "/my-esims").await.assert_status(200);

    // "Sign out everywhere" ends the laptop's session too, and no other address's.
    let page = phone.get(&app, "/my-esims").await.assert_status(200);
    phone
        .post(
            &app,
            "/my-esims/sign-out-everywhere",
            &[("csrf_token", page.hidden("csrf_token").as_str())],
        )
        .await
        .assert_redirect_to("/");
    for browser in [&phone, &laptop] {
        signed_out(browser.get(&app, "/my-esims").await);
        browser.get(&app, "/orders/me-1").await.assert_status(404);
    }
    otto.get(&app, "/my-esims").await.assert_status(200);
    otto.get(&app, "/orders/otto-1").await.assert_status(200);
}

async fn an_expired_sign_in_link_signs_no_one_in(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    insert_purchase(&app.db, "me-1", BUYER, "paid", now_ms() - 60_000).await;
    let stale = link_made_at(&app, BUYER, now_ms() - SIGN_IN_LINK_MS - 1_000).await;
    let phone = Browser::default();
    let answer = phone.get(&app, &stale).await.assert_status(410);
    assert!(answer.body.contains("no longer works"), "{}", answer.body);
    // The answer offers the form for a new link.
    assert!(
        answer.body.contains("action=\"/lost-link\""),
        "{}",
        answer.body
    );
    signed_out(phone.get(&app, "/my-esims").await);
    phone.get(&app, "/orders/me-1").await.assert_status(404);
    // A fresh one works.
    signed_in(&app, &link_made_at(&app, BUYER, now_ms()).await).await;
}

async fn a_long_list_comes_in_pages_newest_first(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let start = now_ms() - 86_400_000;
    // 25 eSIMs, the last three bought in the same millisecond.
    let mut ids = Vec::new();
    for i in 0..25_i64 {
        let id = format!("me-{i:02}");
        insert_purchase(&app.db, &id, BUYER, "fulfilled", start + i.min(22) * 1_000).await;
        ids.push(id);
    }
    let phone = signed_in(&app, &link_made_at(&app, BUYER, now_ms()).await).await;
    let first = phone.get(&app, "/my-esims").await.assert_status(200);
    let older = first
        .body
        .split("href=\"/my-esims?after=")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .map(|cursor| format!("/my-esims?after={cursor}"))
        .expect("a link to older eSIMs");
    let second = phone.get(&app, &older).await.assert_status(200);
    assert!(!second.body.contains("/my-esims?after="), "the last page");
    let mut shown = listed(&first.body);
    assert_eq!(shown.len(), 20);
    shown.extend(listed(&second.body));
    let mut expected: Vec<String> = ids.iter().map(|id| as_id(id).order_number()).collect();
    expected.reverse();
    assert_eq!(shown, expected, "every eSIM once, newest first");
    phone
        .get(&app, "/my-esims?after=not-a-cursor")
        .await
        .assert_status(400);
}

/// `/my-esims` without a session answers with the sign-in form itself (the "Lost your link?"
/// form, which emails the sign-in link), so the footer's link always leads to a page.
fn signed_out(answer: Answer) {
    let body = answer.assert_status(200).body;
    assert!(body.contains("action=\"/lost-link\""), "{body}");
    assert!(!body.contains("Sign out everywhere"), "{body}");
}
