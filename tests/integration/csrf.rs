//! CSRF and BREACH from outside: console forms take only their own session's token (a CSRF
//! cookie planted with a matching token, or another session's token, is refused), a POST the
//! browser marks as coming from another origin is refused, console pages are never compressed,
//! and tokens are masked afresh for every answer.

use storefront::db::now_ms;
use storefront::staff::Role;

use crate::admin::{Browser, OWNER, audit_rows, create, hidden, insert_purchase, login_as};
use crate::both_backends;
use crate::helpers::{Backend, TestApp, client_builder, spawn_app, spawn_shop};
use crate::journeys;

both_backends!(
    console_forms_take_only_their_own_sessions_token,
    console_pages_are_never_compressed_and_tokens_change_per_answer,
);

/// The number of staff notes the audit log holds.
async fn notes(app: &TestApp) -> usize {
    audit_rows(&app.db)
        .await
        .iter()
        .filter(|(_, action, _, _)| action == "order_note")
        .count()
}

async fn note(app: &TestApp, browser: &Browser, token: &str) -> u16 {
    browser
        .post(
            app,
            "/admin/orders/p1/note",
            &[("csrf_token", token), ("reason", "customer called")],
        )
        .await
        .status
}

async fn console_forms_take_only_their_own_sessions_token(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    insert_purchase(
        &app.db,
        "p1",
        "ana@example.com",
        "awaiting_payment",
        now_ms(),
    )
    .await;
    let owner = login_as(&app, OWNER).await;

    // An attacker on a sibling subdomain visits the login page for a CSRF cookie and its
    // token, then plants that cookie in the owner's browser and posts the token from there.
    let attacker = Browser::default();
    let attacker_token = attacker.csrf(&app).await;
    let attacker_cookie = attacker
        .cookie("csrf")
        .expect("the login page sets a CSRF cookie");
    let planted = Browser::default();
    planted.set_cookie("admin", &owner.cookie("admin").expect("session cookie"));
    planted.set_cookie("csrf", &attacker_cookie);
    assert_eq!(note(&app, &planted, &attacker_token).await, 403);
    assert_eq!(
        planted
            .post(&app, "/admin/logout", &[("csrf_token", &attacker_token)])
            .await
            .status,
        403,
        "nor can it sign the owner out"
    );

    // A token from another session of the same account does not fit this one either.
    let elsewhere = login_as(&app, OWNER).await;
    let elsewhere_token = elsewhere.csrf(&app).await;
    assert_eq!(note(&app, &owner, &elsewhere_token).await, 403);
    // Nor does the token of the login form this browser signed in with.
    let fresh = Browser::default();
    let pre_login_token = fresh.csrf(&app).await;
    let status = fresh
        .post(
            &app,
            "/admin/login",
            &[
                ("email", OWNER),
                ("password", crate::admin::PASSWORD),
                ("csrf_token", &pre_login_token),
            ],
        )
        .await
        .status;
    assert_eq!(status, 303, "the login form's own token signs in");
    assert_eq!(note(&app, &fresh, &pre_login_token).await, 403);
    assert_eq!(notes(&app).await, 0, "no forged form changed anything");

    // The session's own token works, and keeps working after the session is used elsewhere.
    let own = owner.csrf(&app).await;
    assert_eq!(note(&app, &owner, &elsewhere_token).await, 403);
    assert_eq!(note(&app, &owner, &own).await, 303);
    assert_eq!(note(&app, &elsewhere, &elsewhere_token).await, 303);
    assert_eq!(notes(&app).await, 2);

    // The right token from a page of another origin (as a browser marks it) is refused too.
    for (site, status) in [
        ("same-site", 403),
        ("cross-site", 403),
        ("same-origin", 303),
    ] {
        let marked = Browser::with_client(
            client_builder(&[("sec-fetch-site", site)])
                .build()
                .expect("client"),
        );
        marked.set_cookie("admin", &owner.cookie("admin").expect("session cookie"));
        assert_eq!(note(&app, &marked, &own).await, status, "{site}");
    }
    assert_eq!(notes(&app).await, 3);
}

async fn console_pages_are_never_compressed_and_tokens_change_per_answer(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    insert_purchase(
        &app.db,
        "p1",
        "ana@example.com",
        "awaiting_payment",
        now_ms(),
    )
    .await;
    let owner = login_as(&app, OWNER).await;

    // The search box is reflected beside the token: with gzip offered, the page is still sent
    // as it is.
    let mut tokens = Vec::new();
    for path in [
        "/admin",
        "/admin/orders?q=csrf_token%3D%22a",
        "/admin/orders/p1",
        "/admin/account",
        "/admin/login",
    ] {
        let browser_cookies = if path == "/admin/login" {
            String::new()
        } else {
            owner.cookie_header()
        };
        let res = app
            .client
            .get(app.url(path))
            .header("accept-encoding", "gzip, deflate, br, zstd")
            .header("cookie", browser_cookies)
            .send()
            .await
            .expect("request");
        assert_eq!(res.status(), 200, "{path}");
        let encoding = res
            .headers()
            .get("content-encoding")
            .map(|v| v.to_str().expect("ascii").to_string());
        assert!(
            encoding.is_none() || encoding.as_deref() == Some("identity"),
            "{path} is sent uncompressed, not {encoding:?}"
        );
        let html = res.text().await.expect("utf-8: not compressed");
        assert!(html.contains("</html>"), "{path}");
        if path != "/admin/login" {
            tokens.push(hidden(&html, "csrf_token"));
        }
    }

    // Every answer masks the session's token afresh, and every one of them is accepted.
    let distinct: std::collections::HashSet<_> = tokens.iter().collect();
    assert_eq!(distinct.len(), tokens.len(), "{tokens:?}");
    for token in &tokens {
        assert_eq!(note(&app, &owner, token).await, 303);
    }
    assert_eq!(notes(&app).await, tokens.len());
}

/// The shop keeps its signed double-submit cookie (nobody is signed in), and a checkout the
/// browser marks as sent from another origin is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_checkout_posted_from_another_origin_is_refused() {
    let (app, _upstream) = spawn_shop(Backend::Sqlite, 4).await.expect("sqlite");
    let plan = app.catalog.snapshot().plans()[0].clone();
    for site in ["same-site", "cross-site"] {
        let marked = Browser::with_client(
            client_builder(&[("sec-fetch-site", site)])
                .build()
                .expect("client"),
        );
        assert_eq!(
            journeys::buy(&app, &marked, &plan, "ana@example.com")
                .await
                .status,
            403,
            "{site}"
        );
    }
    let same_origin = Browser::with_client(
        client_builder(&[("sec-fetch-site", "same-origin")])
            .build()
            .expect("client"),
    );
    journeys::buy(&app, &same_origin, &plan, "ana@example.com")
        .await
        .assert_status(303);
}
