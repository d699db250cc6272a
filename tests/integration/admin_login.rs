//! Signing in to the admin console: the login page, new sessions and logout, the throttles
//! on wrong passwords (per account and address, per address, per account everywhere over 15
//! minutes and an hour), the client address behind a trusted proxy, and the idle and absolute
//! session timeouts. Parallel guesses and the second factor are in `admin_totp`.

use diesel::prelude::*;
use storefront::db::schema::{admin_audit, admin_login_attempts, admin_sessions};
use storefront::db::{Db, DbError, now_ms};
use storefront::staff::Role;

use crate::admin::{Browser, OWNER, PASSWORD, audit_rows, create, hidden, login_as};
use crate::both_backends;
use crate::helpers::{Answer, Backend, client_builder, spawn_app, spawn_app_with};

both_backends!(
    anonymous_admin_requests_go_to_the_login_page,
    login_issues_new_sessions_and_logout_kills_them,
    sixth_wrong_password_from_one_address_is_throttled_but_not_for_good,
    owner_kept_out_from_one_address_still_signs_in_from_another,
    an_address_spraying_accounts_is_throttled_on_the_21st_attempt,
    failures_from_many_addresses_throttle_the_account_everywhere_for_a_while,
    idle_and_absolute_timeouts_end_sessions,
    a_storm_of_logins_is_answered_or_told_to_retry_never_failed,
);

fn actions(rows: &[(String, String, Option<String>, String)]) -> Vec<&str> {
    rows.iter().map(|r| r.1.as_str()).collect()
}

async fn session_count(db: &Db) -> i64 {
    db.run(|conn| Ok::<_, DbError>(admin_sessions::table.count().get_result(conn)?))
        .await
        .expect("count")
}

async fn anonymous_admin_requests_go_to_the_login_page(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let anon = Browser::default();
    for path in [
        "/admin",
        "/admin/orders",
        "/admin/orders/p1",
        "/admin/audit",
    ] {
        anon.get(&app, path)
            .await
            .assert_redirect_to("/admin/login");
    }
    let token = anon.csrf(&app).await;
    for path in ["/admin/logout", "/admin/orders/p1/refund"] {
        anon.post(&app, path, &[("csrf_token", &token), ("reason", "x")])
            .await
            .assert_redirect_to("/admin/login");
    }
    // A made-up session cookie is no session.
    anon.set_cookie("admin", &"ab".repeat(32));
    assert_eq!(anon.get(&app, "/admin").await.status, 303);
    let Answer {
        body: page,
        headers,
        ..
    } = anon.get(&app, "/admin/login").await.assert_status(200);
    assert!(page.contains("name=\"password\""));
    assert_eq!(headers["cache-control"], "no-store");
}

async fn login_issues_new_sessions_and_logout_kills_them(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    let browser = Browser::default();

    // Unknown account and wrong password: the same generic answer.
    let unknown = browser
        .login(&app, "nobody@example.com", PASSWORD)
        .await
        .assert_status(401)
        .body;
    assert!(unknown.contains("Wrong email or password."));
    let wrong = browser
        .login(&app, OWNER, "not the passphrase")
        .await
        .assert_status(401)
        .body;
    assert!(wrong.contains("Wrong email or password."));
    assert!(browser.cookie("admin").is_none());

    // The email is matched however it is typed.
    let headers = browser
        .login(&app, " Owner@Example.COM ", PASSWORD)
        .await
        .assert_redirect_to("/admin")
        .headers;
    let set_cookie = headers
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().expect("ascii").to_string())
        .find(|c| c.starts_with("admin="))
        .expect("session cookie");
    assert!(set_cookie.contains("HttpOnly"), "{set_cookie}");
    assert!(set_cookie.contains("SameSite=Lax"), "{set_cookie}");
    assert!(set_cookie.contains("Path=/"), "{set_cookie}");
    assert!(
        !set_cookie.contains("Secure"),
        "plain http demo: {set_cookie}"
    );
    let first = browser.cookie("admin").expect("cookie");
    assert_eq!(first.len(), 64);
    let dashboard = browser.get(&app, "/admin").await.assert_status(200).body;
    assert!(dashboard.contains("Dashboard"));
    assert!(dashboard.contains("Audit log"), "owners see the audit link");

    // Only the hash is stored.
    let stored: Vec<String> = app
        .db
        .run(|conn| {
            Ok::<_, DbError>(
                admin_sessions::table
                    .select(admin_sessions::id_hash)
                    .load(conn)?,
            )
        })
        .await
        .expect("sessions");
    assert_eq!(stored.len(), 1);
    assert_ne!(stored[0], first);

    // A second login gets a new id, and the one the browser had is ended.
    browser
        .login(&app, OWNER, PASSWORD)
        .await
        .assert_status(303);
    let second = browser.cookie("admin").expect("cookie");
    assert_ne!(first, second);
    assert_eq!(session_count(&app.db).await, 1);
    let old = Browser::default();
    old.set_cookie("admin", &first);
    assert_eq!(
        old.get(&app, "/admin").await.status,
        303,
        "the old id is dead"
    );

    // A second browser has its own session; logging out ends only this one, server-side.
    let other = login_as(&app, OWNER).await;
    let page = browser.get(&app, "/admin").await.body;
    let token = hidden(&page, "csrf_token");
    browser
        .post(&app, "/admin/logout", &[("csrf_token", &token)])
        .await
        .assert_redirect_to("/admin/login");
    let replay = Browser::default();
    replay.set_cookie("admin", &second);
    assert_eq!(
        replay.get(&app, "/admin").await.status,
        303,
        "the cookie is dead after logout"
    );
    assert_eq!(other.get(&app, "/admin").await.status, 200);

    let rows = audit_rows(&app.db).await;
    assert_eq!(
        actions(&rows),
        [
            "user_created",
            "login_failed",
            "login_failed",
            "login",
            "login",
            "login",
            "logout"
        ]
    );
    assert_eq!(rows[1].0, "nobody@example.com");
    assert_eq!(rows[2].0, OWNER);
    assert_eq!(rows[3].0, OWNER);
    let client: Vec<String> = app
        .db
        .run(|conn| {
            Ok::<_, DbError>(
                admin_audit::table
                    .order(admin_audit::id)
                    .select(admin_audit::client_addr)
                    .load(conn)?,
            )
        })
        .await
        .expect("clients");
    assert!(client[1..].iter().all(|c| c == "127.0.0.1"), "{client:?}");
}

async fn sixth_wrong_password_from_one_address_is_throttled_but_not_for_good(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    let browser = Browser::default();
    for attempt in 1..=5 {
        assert_eq!(
            browser
                .login(&app, OWNER, &format!("wrong guess number {attempt}"))
                .await
                .status,
            401,
            "attempt {attempt}"
        );
    }
    let Answer {
        body: page,
        headers,
        ..
    } = browser
        .login(&app, OWNER, "wrong guess number 6")
        .await
        .assert_status(429);
    assert!(page.contains("Too many failed attempts"));
    assert_eq!(headers["retry-after"], "900");
    // Even the right password waits: the throttle is checked before the password.
    assert_eq!(browser.login(&app, OWNER, PASSWORD).await.status, 429);
    assert!(browser.cookie("admin").is_none());
    // Hammering a throttled login adds nothing to the audit log past its first refusal.
    for _ in 0..10 {
        assert_eq!(
            browser.login(&app, OWNER, "still guessing").await.status,
            429
        );
    }
    let rows = audit_rows(&app.db).await;
    assert_eq!(
        rows.iter().filter(|r| r.1 == "login_throttled").count(),
        1,
        "one throttled entry for this account and address in the window"
    );

    // Fifteen minutes later (the failures moved back in time) the account works again.
    age_attempts(&app.db).await;
    assert_eq!(browser.login(&app, OWNER, PASSWORD).await.status, 303);
    let rows = audit_rows(&app.db).await;
    let failed = rows.iter().filter(|r| r.1 == "login_failed").count();
    let throttled = rows.iter().filter(|r| r.1 == "login_throttled").count();
    assert_eq!((failed, throttled), (5, 1));
}

/// `(action, client_addr)` of every login entry (signed in, failed, throttled), oldest first.
async fn login_clients(db: &Db) -> Vec<(String, String)> {
    db.run(|conn| {
        Ok::<_, DbError>(
            admin_audit::table
                .filter(admin_audit::action.like("login%"))
                .order(admin_audit::id)
                .select((admin_audit::action, admin_audit::client_addr))
                .load(conn)?,
        )
    })
    .await
    .expect("audit")
}

/// Moves every login attempt and audit entry 15 minutes and a second into the past: out of the
/// short window, still inside the hour.
async fn age_attempts(db: &Db) {
    db.run(|conn| {
        diesel::update(admin_login_attempts::table)
            .set(admin_login_attempts::at_ms.eq(admin_login_attempts::at_ms - 901_000))
            .execute(conn)?;
        diesel::update(admin_audit::table)
            .set(admin_audit::at_ms.eq(admin_audit::at_ms - 901_000))
            .execute(conn)?;
        Ok::<_, DbError>(())
    })
    .await
    .expect("age failures");
}

/// Someone guessing the owner's password from their own address cannot keep the owner out.
async fn owner_kept_out_from_one_address_still_signs_in_from_another(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    let attacker = Browser::from_address("127.0.0.2");
    for attempt in 1..=5 {
        assert_eq!(
            attacker
                .login(&app, OWNER, &format!("guess {attempt}"))
                .await
                .status,
            401,
            "attempt {attempt}"
        );
    }
    let page = attacker
        .login(&app, OWNER, "guess 6")
        .await
        .assert_status(429)
        .body;
    assert!(page.contains("Too many failed attempts"), "{page}");
    // The attacker stays throttled even with the right password...
    assert_eq!(attacker.login(&app, OWNER, PASSWORD).await.status, 429);

    // ...while the owner, from another address, signs in at once.
    let owner = Browser::from_address("127.0.0.1");
    owner
        .login(&app, OWNER, PASSWORD)
        .await
        .assert_redirect_to("/admin");
    assert_eq!(owner.get(&app, "/admin").await.status, 200);
    let clients = login_clients(&app.db).await;
    assert!(
        clients
            .iter()
            .filter(|(action, _)| action != "login")
            .inspect(|(action, _)| assert!(action.starts_with("login_"), "{action}"))
            .all(|(_, client)| client == "127.0.0.2"),
        "{clients:?}"
    );
    assert_eq!(
        clients.last().map(|(a, c)| (a.as_str(), c.as_str())),
        Some(("login", "127.0.0.1"))
    );
}

/// One address trying a few passwords on each of many accounts is throttled as a whole,
/// without locking any of those accounts for their owners.
async fn an_address_spraying_accounts_is_throttled_on_the_21st_attempt(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let accounts: Vec<String> = (1..=5).map(|i| format!("user{i}@example.com")).collect();
    for email in &accounts {
        create(&app.db, email, Role::Support).await;
    }
    let sprayer = Browser::from_address("127.0.0.2");
    let mut attempt = 0;
    for round in 1..=5 {
        for email in &accounts {
            attempt += 1;
            let answer = sprayer.login(&app, email, &format!("guess {round}")).await;
            let expected = if attempt <= 20 { 401 } else { 429 };
            assert_eq!(
                answer.status, expected,
                "attempt {attempt} ({email}, round {round})"
            );
            if expected == 429 {
                // The same words as any throttled login: nothing says which limit was hit.
                assert!(
                    answer.body.contains("Too many failed attempts"),
                    "{}",
                    answer.body
                );
            }
        }
    }
    // Even a right password from the spraying address waits out the minute...
    assert_eq!(
        sprayer.login(&app, &accounts[0], PASSWORD).await.status,
        429
    );
    // ...but the accounts' owners, elsewhere, are not affected.
    for email in &accounts {
        let person = Browser::from_address("127.0.0.3");
        assert_eq!(
            person.login(&app, email, PASSWORD).await.status,
            303,
            "{email}"
        );
    }
    // Fifteen minutes later the sprayer gets its budget back, no more.
    age_attempts(&app.db).await;
    assert_eq!(
        sprayer
            .login(&app, &accounts[0], "guess again")
            .await
            .status,
        401
    );
}

/// Only an attack from many addresses at once (10 failures in 15 minutes, or 20 in an hour)
/// throttles an account everywhere, and only until the failures leave the window.
async fn failures_from_many_addresses_throttle_the_account_everywhere_for_a_while(
    backend: Backend,
) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    let record_failures = |from: u32, count: u32| {
        app.db.run(move |conn| {
            let now = now_ms();
            for i in from..from + count {
                diesel::insert_into(admin_login_attempts::table)
                    .values((
                        admin_login_attempts::kind.eq("password"),
                        admin_login_attempts::actor.eq(OWNER),
                        admin_login_attempts::client_key.eq(format!("198.51.100.{i}")),
                        admin_login_attempts::at_ms.eq(now),
                        admin_login_attempts::state.eq("failed"),
                    ))
                    .execute(conn)?;
            }
            Ok::<_, DbError>(())
        })
    };
    // Nine failures spread over addresses: below the ceiling, the owner signs in.
    record_failures(0, 9).await.expect("failures");
    login_as(&app, OWNER).await;
    // The tenth: now every address waits, the owner's too.
    record_failures(9, 1).await.expect("failures");
    assert_eq!(
        Browser::default().login(&app, OWNER, PASSWORD).await.status,
        429
    );
    age_attempts(&app.db).await;
    assert_eq!(
        Browser::default().login(&app, OWNER, PASSWORD).await.status,
        303
    );

    // Within the hour the ten older failures still count: nine more are let through, the
    // twentieth closes the account everywhere again.
    record_failures(20, 9).await.expect("failures");
    assert_eq!(
        Browser::default().login(&app, OWNER, PASSWORD).await.status,
        303
    );
    record_failures(29, 1).await.expect("failures");
    assert_eq!(
        Browser::from_address("127.0.0.5")
            .login(&app, OWNER, PASSWORD)
            .await
            .status,
        429,
        "the hourly ceiling"
    );
}

/// `X-Forwarded-For` names the client only when the peer is a configured proxy; otherwise a
/// throttled client cannot step around the throttle by writing the header.
#[tokio::test]
async fn forwarded_for_counts_only_from_a_trusted_proxy() {
    let app = spawn_app(Backend::Sqlite).await.expect("sqlite");
    create(&app.db, OWNER, Role::Owner).await;
    for attempt in 1..=5 {
        let forged = format!("203.0.113.{attempt}");
        let browser = Browser::with_client(
            client_builder(&[("x-forwarded-for", &forged)])
                .build()
                .expect("client"),
        );
        assert_eq!(browser.login(&app, OWNER, "guess").await.status, 401);
    }
    let forged = Browser::with_client(
        client_builder(&[("x-forwarded-for", "203.0.113.99")])
            .build()
            .expect("client"),
    );
    assert_eq!(forged.login(&app, OWNER, PASSWORD).await.status, 429);
    let clients = login_clients(&app.db).await;
    assert_eq!(clients.len(), 6, "{clients:?}");
    assert!(clients.iter().all(|(_, c)| c == "127.0.0.1"), "{clients:?}");

    // Behind a trusted proxy (here: the test's own address) the header decides.
    let proxied = spawn_app_with(
        Backend::Sqlite,
        &[("STOREFRONT_TRUSTED_PROXIES", "127.0.0.1")],
    )
    .await
    .expect("sqlite");
    create(&proxied.db, OWNER, Role::Owner).await;
    let via_proxy = |chain: &str| {
        Browser::with_client(
            client_builder(&[("x-forwarded-for", chain)])
                .build()
                .expect("client"),
        )
    };
    // The client forges a leftmost entry each time; the proxy appends the real address.
    for attempt in 1..=5 {
        let chain = format!("10.9.9.{attempt}, 203.0.113.7");
        assert_eq!(
            via_proxy(&chain)
                .login(&proxied, OWNER, "guess")
                .await
                .status,
            401
        );
    }
    assert_eq!(
        via_proxy("10.9.9.9, 203.0.113.7")
            .login(&proxied, OWNER, PASSWORD)
            .await
            .status,
        429
    );
    assert_eq!(
        via_proxy("203.0.113.8")
            .login(&proxied, OWNER, PASSWORD)
            .await
            .status,
        303,
        "another client behind the same proxy is not throttled"
    );
    let clients = login_clients(&proxied.db).await;
    let (last, earlier) = clients.split_last().expect("entries");
    assert_eq!(last, &("login".to_string(), "203.0.113.8".to_string()));
    assert_eq!(earlier.len(), 6, "{clients:?}");
    assert!(
        earlier.iter().all(|(_, c)| c == "203.0.113.7"),
        "{clients:?}"
    );
}

async fn idle_and_absolute_timeouts_end_sessions(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    let browser = login_as(&app, OWNER).await;
    assert_eq!(browser.get(&app, "/admin").await.status, 200);

    // 31 minutes without a request.
    app.db
        .run(|conn| {
            diesel::update(admin_sessions::table)
                .set(admin_sessions::last_seen_ms.eq(now_ms() - 31 * 60_000))
                .execute(conn)?;
            Ok::<_, DbError>(())
        })
        .await
        .expect("idle");
    assert_eq!(browser.get(&app, "/admin").await.status, 303);
    assert_eq!(
        session_count(&app.db).await,
        0,
        "the dead session is deleted"
    );

    // Active all along, but logged in over 12 hours ago.
    assert_eq!(browser.login(&app, OWNER, PASSWORD).await.status, 303);
    app.db
        .run(|conn| {
            diesel::update(admin_sessions::table)
                .set((
                    admin_sessions::created_at_ms.eq(now_ms() - 12 * 3_600_000 - 1_000),
                    admin_sessions::last_seen_ms.eq(now_ms() - 60_000),
                ))
                .execute(conn)?;
            Ok::<_, DbError>(())
        })
        .await
        .expect("old");
    assert_eq!(browser.get(&app, "/admin").await.status, 303);

    // A session in use stays alive: a recent last_seen keeps it.
    assert_eq!(browser.login(&app, OWNER, PASSWORD).await.status, 303);
    app.db
        .run(|conn| {
            diesel::update(admin_sessions::table)
                .set(admin_sessions::last_seen_ms.eq(now_ms() - 29 * 60_000))
                .execute(conn)?;
            Ok::<_, DbError>(())
        })
        .await
        .expect("recent");
    assert_eq!(browser.get(&app, "/admin").await.status, 200);
    let seen: i64 = app
        .db
        .run(|conn| {
            Ok::<_, DbError>(
                admin_sessions::table
                    .select(admin_sessions::last_seen_ms)
                    .first(conn)?,
            )
        })
        .await
        .expect("seen");
    assert!(now_ms() - seen < 60_000, "the request refreshed last_seen");
}

/// Forty sign-ins at once: each is counted before its password is hashed, so past the
/// per-address limit they are throttled (429); password hashing runs one per core, so the rest
/// either wait their turn briefly or are told to try again (503). Every refusal says when to
/// try again; none fails with a 500.
async fn a_storm_of_logins_is_answered_or_told_to_retry_never_failed(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    let mut browsers = Vec::new();
    for _ in 0..40 {
        let browser = Browser::default();
        let token = browser.csrf(&app).await;
        browsers.push((browser, token));
    }
    let app = std::sync::Arc::new(app);
    let attempts: Vec<_> = browsers
        .into_iter()
        .map(|(browser, token)| {
            let app = std::sync::Arc::clone(&app);
            tokio::spawn(async move {
                let answer = browser
                    .post(
                        &app,
                        "/admin/login",
                        &[
                            ("email", OWNER),
                            ("password", PASSWORD),
                            ("csrf_token", &token),
                        ],
                    )
                    .await;
                (answer.status, answer.header("retry-after").is_some())
            })
        })
        .collect();
    let mut signed_in = 0;
    for attempt in attempts {
        let (status, retry_after) = attempt.await.expect("task");
        match status {
            303 => signed_in += 1,
            429 | 503 => assert!(retry_after, "a {status} says when to try again"),
            other => panic!("a login in the storm answered {other}"),
        }
    }
    assert!(signed_in >= 1, "the storm does not lock everyone out");
}
