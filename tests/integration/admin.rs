//! The admin console over HTTP and through the binary: accounts, login throttling, sessions
//! and their timeouts, CSRF, roles, the orders pages and their audited actions, and the demo's
//! owner account.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use std::time::{Duration, Instant};

use diesel::prelude::*;
use storefront::accounts::{self, NewPassword, Role};
use storefront::db::schema::{admin_audit, admin_sessions, alerts, outbox_jobs, purchase_events};
use storefront::db::{Db, DbError, now_ms, purchases};

use crate::both_backends;
use crate::helpers::{
    Answer, Backend, TestApp, TestDb, client_builder, spawn_app, spawn_app_on, spawn_app_with,
    spawn_shop,
};
pub(crate) use crate::helpers::{Browser, hidden, location};

pub(crate) const OWNER: &str = "owner@example.com";
pub(crate) const SUPPORT: &str = "support@example.com";
pub(crate) const PASSWORD: &str = "a long admin passphrase";

impl Browser {
    /// A CSRF token for this browser, from the login page (or, once signed in, the
    /// dashboard's logout form).
    pub(crate) async fn csrf(&self, app: &TestApp) -> String {
        let (status, page, _) = self.get(app, "/admin/login").await;
        if status == 303 {
            let (_, page, _) = self.get(app, "/admin").await;
            return hidden(&page, "csrf_token");
        }
        hidden(&page, "csrf_token")
    }

    pub(crate) async fn login(&self, app: &TestApp, email: &str, password: &str) -> Answer {
        let token = self.csrf(app).await;
        self.post(
            app,
            "/admin/login",
            &[
                ("email", email),
                ("password", password),
                ("csrf_token", &token),
            ],
        )
        .await
    }

    /// Posts an order action with this browser's CSRF token and a reason.
    pub(crate) async fn act(
        &self,
        app: &TestApp,
        purchase_id: &str,
        action: &str,
        reason: &str,
    ) -> Answer {
        let token = self.csrf(app).await;
        self.post(
            app,
            &format!("/admin/orders/{purchase_id}/{action}"),
            &[("csrf_token", &token), ("reason", reason)],
        )
        .await
    }
}

pub(crate) async fn create(db: &Db, email: &str, role: Role) {
    let email = accounts::admin_email(email).expect("email");
    let password = NewPassword::parse(PASSWORD).expect("password");
    accounts::create_user(db, &email, role, password, "test")
        .await
        .expect("create user");
}

/// `(actor, action, target, details)` of every audit row, oldest first.
pub(crate) async fn audit_rows(db: &Db) -> Vec<(String, String, Option<String>, String)> {
    db.run(|conn| {
        Ok::<_, DbError>(
            admin_audit::table
                .order(admin_audit::id)
                .select((
                    admin_audit::actor,
                    admin_audit::action,
                    admin_audit::target,
                    admin_audit::details,
                ))
                .load(conn)?,
        )
    })
    .await
    .expect("audit")
}

fn actions(rows: &[(String, String, Option<String>, String)]) -> Vec<&str> {
    rows.iter().map(|r| r.1.as_str()).collect()
}

async fn session_count(db: &Db) -> i64 {
    db.run(|conn| Ok::<_, DbError>(admin_sessions::table.count().get_result(conn)?))
        .await
        .expect("count")
}

/// A purchase row as checkout would write it, without going through payment.
pub(crate) async fn insert_purchase(db: &Db, id: &str, email: &str, status: &str, created_ms: i64) {
    let new = purchases::NewPurchase {
        id: id.to_string(),
        status: status.to_string(),
        email: email.to_string(),
        plan_id: "plan-x".to_string(),
        price_cents: 123_456,
        cost_cents: 100_000,
        reference: format!("sf-{id}"),
        idempotency_key: format!("key-{id}"),
        access_token_hash: format!("hash-{id}"),
        payment_provider: "demo".to_string(),
        expires_at_ms: created_ms + 3_600_000,
        created_at_ms: created_ms,
        updated_at_ms: created_ms,
    };
    db.run(move |conn| purchases::insert(conn, &new, "created"))
        .await
        .expect("insert purchase");
}

both_backends!(
    anonymous_admin_requests_go_to_the_login_page,
    login_issues_new_sessions_and_logout_kills_them,
    sixth_wrong_password_in_a_minute_is_throttled_but_not_for_good,
    owner_kept_out_from_one_address_still_signs_in_from_another,
    an_address_spraying_accounts_is_throttled_on_the_21st_attempt,
    failures_from_many_addresses_throttle_the_account_everywhere_for_a_minute,
    idle_and_absolute_timeouts_end_sessions,
    support_gets_403_on_owner_actions_and_forms_need_csrf,
    orders_are_searched_and_paged,
    orders_are_found_by_utc_date_range_and_pages_keep_the_filters,
    a_real_order_is_shown_without_installation_values_and_actions_are_audited,
    create_user_through_the_binary,
    a_markup_rule_is_previewed_saved_shown_on_the_shop_and_audited,
);

/// A markup typed into the "Markup (%)" field is explained in percent, not basis points.
#[tokio::test]
async fn an_out_of_range_markup_is_explained_in_the_form_s_units() {
    let app = spawn_app(Backend::Sqlite).await.expect("sqlite");
    create(&app.db, OWNER, Role::Owner).await;
    let owner = Browser::default();
    assert_eq!(owner.login(&app, OWNER, PASSWORD).await.0, 303);
    let (_, page, _) = owner.get(&app, "/admin/pricing").await;
    let token = hidden(&page, "csrf_token");
    for (markup, fixed) in [("1000000", ""), ("1000.01", ""), ("25", "20000")] {
        for action in ["preview", "save"] {
            let (status, page, _) = owner
                .post(
                    &app,
                    &format!("/admin/pricing/{action}"),
                    &[
                        ("csrf_token", &token),
                        ("scope_kind", "default"),
                        ("scope_value", ""),
                        ("markup_percent", markup),
                        ("fixed", fixed),
                        ("min_margin", ""),
                        ("ending", ""),
                    ],
                )
                .await;
            assert_eq!(status, 400, "{action} {markup}");
            let expected = if fixed.is_empty() {
                "Markup must be from 0 to 1000 (%)."
            } else {
                "The fixed amount must be from 0.00 to 10000.00 dollars."
            };
            assert!(page.contains(expected), "{action} {markup}: {page}");
            assert!(!page.contains("basis points"), "{page}");
            assert!(!page.contains("100000000"), "{page}");
        }
    }
    // 1000 % is the top of the range, and is accepted.
    let (status, _, _) = owner
        .post(
            &app,
            "/admin/pricing/preview",
            &[
                ("csrf_token", &token),
                ("scope_kind", "default"),
                ("scope_value", ""),
                ("markup_percent", "1000"),
                ("fixed", ""),
                ("min_margin", ""),
                ("ending", ""),
            ],
        )
        .await;
    assert_eq!(status, 200);
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
        let (status, _, headers) = anon.get(&app, path).await;
        assert_eq!(status, 303, "{path}");
        assert_eq!(location(&headers), "/admin/login", "{path}");
    }
    let token = anon.csrf(&app).await;
    for path in ["/admin/logout", "/admin/orders/p1/refund"] {
        let (status, _, headers) = anon
            .post(&app, path, &[("csrf_token", &token), ("reason", "x")])
            .await;
        assert_eq!(status, 303, "{path}");
        assert_eq!(location(&headers), "/admin/login");
    }
    // A made-up session cookie is no session.
    anon.set_cookie("admin", &"ab".repeat(32));
    assert_eq!(anon.get(&app, "/admin").await.0, 303);
    let (status, page, headers) = anon.get(&app, "/admin/login").await;
    assert_eq!(status, 200);
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
    let (status, unknown, _) = browser.login(&app, "nobody@example.com", PASSWORD).await;
    assert_eq!(status, 401);
    assert!(unknown.contains("Wrong email or password."));
    let (status, wrong, _) = browser.login(&app, OWNER, "not the passphrase").await;
    assert_eq!(status, 401);
    assert!(wrong.contains("Wrong email or password."));
    assert!(browser.cookie("admin").is_none());

    // The email is matched however it is typed.
    let (status, _, headers) = browser.login(&app, " Owner@Example.COM ", PASSWORD).await;
    assert_eq!(status, 303);
    assert_eq!(location(&headers), "/admin");
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
    let (status, dashboard, _) = browser.get(&app, "/admin").await;
    assert_eq!(status, 200);
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
    let (status, _, _) = browser.login(&app, OWNER, PASSWORD).await;
    assert_eq!(status, 303);
    let second = browser.cookie("admin").expect("cookie");
    assert_ne!(first, second);
    assert_eq!(session_count(&app.db).await, 1);
    let old = Browser::default();
    old.set_cookie("admin", &first);
    assert_eq!(old.get(&app, "/admin").await.0, 303, "the old id is dead");

    // A second browser has its own session; logging out ends only this one, server-side.
    let other = Browser::default();
    assert_eq!(other.login(&app, OWNER, PASSWORD).await.0, 303);
    let (_, page, _) = browser.get(&app, "/admin").await;
    let token = hidden(&page, "csrf_token");
    let (status, _, headers) = browser
        .post(&app, "/admin/logout", &[("csrf_token", &token)])
        .await;
    assert_eq!(status, 303);
    assert_eq!(location(&headers), "/admin/login");
    let replay = Browser::default();
    replay.set_cookie("admin", &second);
    assert_eq!(
        replay.get(&app, "/admin").await.0,
        303,
        "the cookie is dead after logout"
    );
    assert_eq!(other.get(&app, "/admin").await.0, 200);

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

async fn sixth_wrong_password_in_a_minute_is_throttled_but_not_for_good(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    let browser = Browser::default();
    for attempt in 1..=5 {
        let (status, _, _) = browser
            .login(&app, OWNER, &format!("wrong guess number {attempt}"))
            .await;
        assert_eq!(status, 401, "attempt {attempt}");
    }
    let (status, page, headers) = browser.login(&app, OWNER, "wrong guess number 6").await;
    assert_eq!(status, 429);
    assert!(page.contains("Too many failed attempts"));
    assert_eq!(headers["retry-after"], "60");
    // Even the right password waits: the throttle is checked before the password.
    assert_eq!(browser.login(&app, OWNER, PASSWORD).await.0, 429);
    assert!(browser.cookie("admin").is_none());
    // Hammering a throttled login adds nothing to the audit log past its first refusal.
    for _ in 0..10 {
        assert_eq!(browser.login(&app, OWNER, "still guessing").await.0, 429);
    }
    let rows = audit_rows(&app.db).await;
    assert_eq!(
        rows.iter().filter(|r| r.1 == "login_throttled").count(),
        1,
        "one throttled entry for this account and address in the window"
    );

    // A minute later (the failures moved back in time) the account works again.
    app.db
        .run(|conn| {
            diesel::update(admin_audit::table)
                .set(admin_audit::at_ms.eq(admin_audit::at_ms - 61_000))
                .execute(conn)?;
            Ok::<_, DbError>(())
        })
        .await
        .expect("age failures");
    assert_eq!(browser.login(&app, OWNER, PASSWORD).await.0, 303);
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

/// Moves every audit entry a minute and a second into the past.
async fn age_audit(db: &Db) {
    db.run(|conn| {
        diesel::update(admin_audit::table)
            .set(admin_audit::at_ms.eq(admin_audit::at_ms - 61_000))
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
        let (status, _, _) = attacker
            .login(&app, OWNER, &format!("guess {attempt}"))
            .await;
        assert_eq!(status, 401, "attempt {attempt}");
    }
    let (status, page, _) = attacker.login(&app, OWNER, "guess 6").await;
    assert_eq!(status, 429);
    assert!(page.contains("Too many failed attempts"), "{page}");
    // The attacker stays throttled even with the right password...
    assert_eq!(attacker.login(&app, OWNER, PASSWORD).await.0, 429);

    // ...while the owner, from another address, signs in at once.
    let owner = Browser::from_address("127.0.0.1");
    let (status, _, headers) = owner.login(&app, OWNER, PASSWORD).await;
    assert_eq!(status, 303);
    assert_eq!(location(&headers), "/admin");
    assert_eq!(owner.get(&app, "/admin").await.0, 200);
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
            let (status, page, _) = sprayer.login(&app, email, &format!("guess {round}")).await;
            let expected = if attempt <= 20 { 401 } else { 429 };
            assert_eq!(
                status, expected,
                "attempt {attempt} ({email}, round {round})"
            );
            if expected == 429 {
                // The same words as any throttled login: nothing says which limit was hit.
                assert!(page.contains("Too many failed attempts"), "{page}");
            }
        }
    }
    // Even a right password from the spraying address waits out the minute...
    assert_eq!(sprayer.login(&app, &accounts[0], PASSWORD).await.0, 429);
    // ...but the accounts' owners, elsewhere, are not affected.
    for email in &accounts {
        let person = Browser::from_address("127.0.0.3");
        assert_eq!(person.login(&app, email, PASSWORD).await.0, 303, "{email}");
    }
    // A minute later the sprayer gets its budget back, no more.
    age_audit(&app.db).await;
    assert_eq!(
        sprayer.login(&app, &accounts[0], "guess again").await.0,
        401
    );
}

/// Only an attack from many addresses at once (100 failures a minute) throttles an account
/// everywhere, and only for the minute.
async fn failures_from_many_addresses_throttle_the_account_everywhere_for_a_minute(
    backend: Backend,
) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    let record_failures = |count: u32| {
        app.db.run(move |conn| {
            let now = now_ms();
            for i in 0..count {
                let addr = format!("198.51.100.{i}");
                storefront::db::accounts::append_audit(
                    conn,
                    &storefront::db::accounts::NewAudit {
                        at_ms: now,
                        user_id: None,
                        actor: OWNER,
                        action: accounts::action::LOGIN_FAILED,
                        target: None,
                        client_addr: &addr,
                        details: "wrong email or password",
                    },
                )?;
            }
            Ok::<_, DbError>(())
        })
    };
    // 99 failures spread over addresses: below the ceiling, the owner signs in.
    record_failures(99).await.expect("failures");
    let owner = Browser::default();
    assert_eq!(owner.login(&app, OWNER, PASSWORD).await.0, 303);
    // The 100th: now every address waits, the owner's too.
    record_failures(1).await.expect("failures");
    assert_eq!(Browser::default().login(&app, OWNER, PASSWORD).await.0, 429);
    age_audit(&app.db).await;
    assert_eq!(Browser::default().login(&app, OWNER, PASSWORD).await.0, 303);
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
        assert_eq!(browser.login(&app, OWNER, "guess").await.0, 401);
    }
    let forged = Browser::with_client(
        client_builder(&[("x-forwarded-for", "203.0.113.99")])
            .build()
            .expect("client"),
    );
    assert_eq!(forged.login(&app, OWNER, PASSWORD).await.0, 429);
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
            via_proxy(&chain).login(&proxied, OWNER, "guess").await.0,
            401
        );
    }
    assert_eq!(
        via_proxy("10.9.9.9, 203.0.113.7")
            .login(&proxied, OWNER, PASSWORD)
            .await
            .0,
        429
    );
    assert_eq!(
        via_proxy("203.0.113.8")
            .login(&proxied, OWNER, PASSWORD)
            .await
            .0,
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
    let browser = Browser::default();
    assert_eq!(browser.login(&app, OWNER, PASSWORD).await.0, 303);
    assert_eq!(browser.get(&app, "/admin").await.0, 200);

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
    assert_eq!(browser.get(&app, "/admin").await.0, 303);
    assert_eq!(
        session_count(&app.db).await,
        0,
        "the dead session is deleted"
    );

    // Active all along, but logged in over 12 hours ago.
    assert_eq!(browser.login(&app, OWNER, PASSWORD).await.0, 303);
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
    assert_eq!(browser.get(&app, "/admin").await.0, 303);

    // A session in use stays alive: a recent last_seen keeps it.
    assert_eq!(browser.login(&app, OWNER, PASSWORD).await.0, 303);
    app.db
        .run(|conn| {
            diesel::update(admin_sessions::table)
                .set(admin_sessions::last_seen_ms.eq(now_ms() - 29 * 60_000))
                .execute(conn)?;
            Ok::<_, DbError>(())
        })
        .await
        .expect("recent");
    assert_eq!(browser.get(&app, "/admin").await.0, 200);
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

async fn support_gets_403_on_owner_actions_and_forms_need_csrf(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    create(&app.db, SUPPORT, Role::Support).await;
    insert_purchase(
        &app.db,
        "p1",
        "ana@example.com",
        "awaiting_payment",
        now_ms(),
    )
    .await;
    app.db
        .run(|conn| {
            storefront::db::fulfilment::raise_alert(
                conn,
                storefront::domain::AlertKind::NeedsAttention,
                Some("p1"),
                "look",
                1,
            )
        })
        .await
        .expect("alert");

    let support = Browser::default();
    assert_eq!(support.login(&app, SUPPORT, PASSWORD).await.0, 303);
    let (status, page, _) = support.get(&app, "/admin/orders/p1").await;
    assert_eq!(status, 200);
    assert!(page.contains("Add note"));
    assert!(
        !page.contains("Mark resolved"),
        "support sees no owner forms"
    );
    assert!(
        !page.contains("href=\"/admin/audit\""),
        "nor the audit link"
    );
    assert_eq!(support.get(&app, "/admin/audit").await.0, 403);
    for action in ["retry", "refund", "resolve"] {
        let (status, _, _) = support.act(&app, "p1", action, "because").await;
        assert_eq!(status, 403, "{action}");
    }
    let (status, _, headers) = support.act(&app, "p1", "note", "customer called").await;
    assert_eq!(status, 303);
    assert_eq!(location(&headers), "/admin/orders/p1?done=note");

    // The owner's forms without a valid token change nothing.
    let owner = Browser::default();
    assert_eq!(owner.login(&app, OWNER, PASSWORD).await.0, 303);
    let before = audit_rows(&app.db).await.len();
    for token in ["", "00", &"ab".repeat(32)] {
        for action in ["note", "resolve", "refund"] {
            let (status, _, _) = owner
                .post(
                    &app,
                    &format!("/admin/orders/p1/{action}"),
                    &[("csrf_token", token), ("reason", "forged")],
                )
                .await;
            assert_eq!(status, 403, "{action} with {token:?}");
        }
        assert_eq!(
            owner
                .post(&app, "/admin/logout", &[("csrf_token", token)])
                .await
                .0,
            403
        );
    }
    // A token from another browser does not fit this one's cookie either.
    let stranger_token = Browser::default().csrf(&app).await;
    assert_eq!(
        owner
            .post(
                &app,
                "/admin/orders/p1/resolve",
                &[("csrf_token", &stranger_token), ("reason", "forged")]
            )
            .await
            .0,
        403
    );
    assert_eq!(audit_rows(&app.db).await.len(), before);
    let (events, open_alerts) = app
        .db
        .run(|conn| {
            let events: i64 = purchase_events::table.count().get_result(conn)?;
            let open: i64 = alerts::table
                .filter(alerts::resolved_at_ms.is_null())
                .count()
                .get_result(conn)?;
            Ok::<_, DbError>((events, open))
        })
        .await
        .expect("counts");
    assert_eq!((events, open_alerts), (2, 1), "created + the support note");
    assert_eq!(owner.get(&app, "/admin").await.0, 200, "still logged in");

    // With the token, the owner resolves; a reason is required. Without one, the order page
    // comes back with the problem beside the reason field, not the shop's error page.
    let (status, page, _) = owner.act(&app, "p1", "resolve", "  ").await;
    assert_eq!(status, 400);
    assert!(page.contains("<h1>Order <code>p1</code></h1>"), "{page}");
    assert!(!page.contains("Go to the home page"), "{page}");
    let field = page
        .split("<input id=\"resolve-reason\"")
        .nth(1)
        .and_then(|rest| rest.split('>').next())
        .expect("the reason field is on the page");
    assert!(
        field.contains("aria-invalid=\"true\"")
            && field.contains("aria-describedby=\"resolve-error\""),
        "{field}"
    );
    assert!(
        page.contains(
            "<p id=\"resolve-error\" class=\"error\">Give a reason: it goes into the audit log.</p>"
        ),
        "{page}"
    );
    // A reason that is too long is kept as typed, to be shortened rather than retyped.
    let long = format!("called back {}", "x".repeat(1000));
    let (status, page, _) = owner.act(&app, "p1", "resolve", &long).await;
    assert_eq!(status, 400);
    assert!(page.contains(&format!("value=\"{long}\"")), "{page}");
    assert!(page.contains("1000 characters or fewer"), "{page}");
    let (status, _, _) = owner.act(&app, "p1", "resolve", "handled by phone").await;
    assert_eq!(status, 303);
    let (_, page, _) = owner.get(&app, "/admin/orders/p1?done=resolve").await;
    assert!(page.contains("Alerts resolved."));
    assert!(
        page.contains("customer called"),
        "the note is on the timeline"
    );
    // Nothing to refund or retry on an unpaid order: the order page says why.
    let (status, page, _) = owner.act(&app, "p1", "refund", "why not").await;
    assert_eq!(status, 409);
    assert!(page.contains("<h1>Order <code>p1</code></h1>"), "{page}");
    assert!(page.contains("It was never paid"), "{page}");
    assert_eq!(owner.act(&app, "p1", "retry", "why not").await.0, 409);
    assert_eq!(owner.act(&app, "nope", "note", "x").await.0, 404);

    let rows = audit_rows(&app.db).await;
    let tail: Vec<_> = rows
        .iter()
        .filter(|r| r.1.starts_with("order_"))
        .map(|r| (r.0.as_str(), r.1.as_str(), r.2.as_deref()))
        .collect();
    assert_eq!(
        tail,
        [
            (SUPPORT, "order_note", Some("purchase:p1")),
            (OWNER, "order_resolve", Some("purchase:p1")),
        ]
    );
    let (status, audit, _) = owner.get(&app, "/admin/audit").await;
    assert_eq!(status, 200);
    assert!(audit.contains("order_resolve") && audit.contains("handled by phone"));
}

async fn orders_are_searched_and_paged(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    create(&app.db, SUPPORT, Role::Support).await;
    let start = now_ms() - 1_000_000;
    for i in 0..27 {
        let email = if i == 3 {
            "Zoe.Smith@Example.com".to_string()
        } else {
            format!("buyer{i}@example.com")
        };
        let status = if i == 5 { "needs_attention" } else { "paid" };
        insert_purchase(
            &app.db,
            &format!("p{i:02}"),
            &email,
            status,
            start + i * 1000,
        )
        .await;
    }
    let browser = Browser::default();
    assert_eq!(browser.login(&app, SUPPORT, PASSWORD).await.0, 303);
    let (status, first, _) = browser.get(&app, "/admin/orders").await;
    assert_eq!(status, 200);
    assert_eq!(first.matches("href=\"/admin/orders/p").count(), 25);
    assert!(first.contains("/admin/orders/p26\""), "newest first");
    assert!(!first.contains("/admin/orders/p01\""));
    assert!(first.contains("$1,234.56"), "money is formatted");
    assert!(first.contains("Page 1"));
    assert!(first.contains("href=\"/admin/orders?page=2\""));
    let (_, second, _) = browser.get(&app, "/admin/orders?page=2").await;
    assert!(second.contains("Page 2"), "the address and the page agree");
    assert!(second.contains("href=\"/admin/orders\">← Newer"));
    assert_eq!(second.matches("href=\"/admin/orders/p").count(), 2);
    assert!(second.contains("/admin/orders/p00\""));

    let find = |query: &'static str| {
        let browser = browser.clone();
        let app = &app;
        async move {
            let (status, page, _) = browser.get(app, &format!("/admin/orders?{query}")).await;
            assert_eq!(status, 200, "{query}");
            page.matches("href=\"/admin/orders/p").count()
        }
    };
    assert_eq!(find("q=zoe.smith").await, 1, "part of the email, any case");
    assert_eq!(find("q=sf-p07").await, 1, "the reference");
    assert_eq!(find("q=p08").await, 1, "the order id");
    assert_eq!(find("q=100%25").await, 0, "LIKE wildcards are literal");
    assert_eq!(find("status=needs_attention").await, 1);
    assert_eq!(find("q=example.com&status=needs_attention").await, 1);
    assert_eq!(browser.get(&app, "/admin/orders?status=bogus").await.0, 400);

    // An upstream order id finds its purchase.
    app.db
        .run(|conn| {
            storefront::db::fulfilment::set_upstream_order(conn, "p09", "ord_upstream_42", 1)
        })
        .await
        .expect("set order");
    assert_eq!(find("q=ord_upstream_42").await, 1);

    // The dashboard lists the order that needs attention.
    let (_, dashboard, _) = browser.get(&app, "/admin").await;
    assert!(
        dashboard.contains("href=\"/admin/orders/p05\""),
        "{dashboard}"
    );
}

/// The order links on an orders page, in order.
fn listed_orders(page: &str) -> Vec<String> {
    page.split("href=\"/admin/orders/")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .map(str::to_string)
        .collect()
}

/// The `href` of the pager link labelled `label`, unescaped.
fn pager_href(page: &str, label: &str) -> Option<String> {
    let before = page.split(&format!("\">{label}</a>")).next()?;
    (before.len() < page.len()).then(|| {
        before
            .rsplit("href=\"")
            .next()
            .unwrap_or_default()
            .replace("&#38;", "&")
            .replace("&amp;", "&")
    })
}

async fn orders_are_found_by_utc_date_range_and_pages_keep_the_filters(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    create(&app.db, SUPPORT, Role::Support).await;
    // 2026-03-10T00:00:00Z, and the edges of that UTC day.
    let march_10 = 1_773_100_800_000_i64;
    let day = 86_400_000_i64;
    for (id, at) in [
        ("d-before", march_10 - 1),
        ("d-first", march_10),
        ("d-last", march_10 + day - 1),
        ("d-after", march_10 + day),
    ] {
        insert_purchase(&app.db, id, &format!("{id}@example.com"), "paid", at).await;
    }
    // A busy day: more than a page of orders on 2026-03-05.
    for i in 0..27 {
        insert_purchase(
            &app.db,
            &format!("busy{i:02}"),
            "busy@example.com",
            if i % 2 == 0 { "paid" } else { "fulfilled" },
            march_10 - 5 * day + i * 60_000,
        )
        .await;
    }
    let browser = Browser::default();
    assert_eq!(browser.login(&app, SUPPORT, PASSWORD).await.0, 303);
    let (status, page, _) = browser.get(&app, "/admin/orders").await;
    assert_eq!(status, 200);
    assert!(page.contains("type=\"date\""), "date pickers: {page}");
    assert!(page.contains("UTC"), "the page says which days");

    let find = |query: &'static str| {
        let browser = browser.clone();
        let app = &app;
        async move {
            let (status, page, _) = browser.get(app, &format!("/admin/orders?{query}")).await;
            assert_eq!(status, 200, "{query}: {page}");
            let mut ids = listed_orders(&page);
            ids.retain(|id| id.starts_with("d-"));
            ids
        }
    };
    assert_eq!(
        find("from=2026-03-10&to=2026-03-10").await,
        ["d-last", "d-first"],
        "the whole UTC day, its last millisecond included"
    );
    assert_eq!(
        find("from=2026-03-10").await,
        ["d-after", "d-last", "d-first"]
    );
    assert_eq!(
        find("to=2026-03-10").await,
        ["d-last", "d-first", "d-before"]
    );
    assert_eq!(find("from=2026-03-11&to=2026-03-11").await, ["d-after"]);
    assert_eq!(
        find("q=d-first&from=2026-03-10&to=2026-03-10").await,
        ["d-first"],
        "combined with the text search"
    );
    assert_eq!(find("from=2026-03-09&to=2026-03-09").await, ["d-before"]);
    assert!(find("from=2026-03-12").await.is_empty());

    // Bad dates and a reversed range: the orders page with a message, the filters kept.
    for (query, message, kept) in [
        ("from=2026-02-30", "“2026-02-30” is not a date", ""),
        (
            "to=31%2F12%2F2026&q=busy",
            "“31/12/2026” is not a date",
            "value=\"busy\"",
        ),
        (
            "from=2026-03-11&to=2026-03-10",
            "is after the “to” date",
            "value=\"2026-03-11\"",
        ),
    ] {
        let (status, page, _) = browser.get(&app, &format!("/admin/orders?{query}")).await;
        assert_eq!(status, 400, "{query}");
        assert!(page.contains("<h1>Orders</h1>"), "the orders page: {page}");
        assert!(page.contains("role=\"alert\""), "{page}");
        assert!(page.contains(message), "{query}: {page}");
        assert!(page.contains("aria-invalid=\"true\""), "{page}");
        assert!(page.contains(kept), "{query}: {page}");
        assert!(listed_orders(&page).is_empty(), "nothing listed: {page}");
    }

    // Paging through the busy day keeps every filter in the links.
    let (_, first, _) = browser
        .get(
            &app,
            "/admin/orders?q=busy&status=paid&from=2026-03-05&to=2026-03-05",
        )
        .await;
    assert_eq!(listed_orders(&first).len(), 14, "the paid half: {first}");
    assert!(pager_href(&first, "Older →").is_none(), "one page");
    let (_, first, _) = browser
        .get(&app, "/admin/orders?from=2026-03-05&to=2026-03-05")
        .await;
    assert_eq!(listed_orders(&first).len(), 25);
    let older = pager_href(&first, "Older →").expect("an older page");
    assert_eq!(older, "/admin/orders?from=2026-03-05&to=2026-03-05&page=2");
    let (_, second, _) = browser.get(&app, &older).await;
    assert_eq!(listed_orders(&second), ["busy01", "busy00"]);
    assert!(
        second.contains("value=\"2026-03-05\""),
        "the form keeps the dates"
    );
    assert_eq!(
        pager_href(&second, "← Newer").as_deref(),
        Some("/admin/orders?from=2026-03-05&to=2026-03-05")
    );
}

async fn a_real_order_is_shown_without_installation_values_and_actions_are_audited(
    backend: Backend,
) {
    let Some((app, _upstream)) = spawn_shop(backend, 150).await else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    let purchase_id = buy_and_wait_fulfilled(&app).await;
    let key = storefront::orders::installation::InstallationKey::derive(
        &storefront::config::SecretKey::parse(&"ab".repeat(32)).expect("key"),
    );
    let lookup = purchase_id.clone();
    let install = app
        .db
        .run(move |conn| {
            storefront::orders::installation::load_installation(conn, &key, &lookup)
                .map_err(|e| DbError::Task(e.to_string()))
        })
        .await
        .expect("load")
        .expect("installed");
    let iccid = install.iccid.expose().clone();
    let code = install.activation_code.expose().clone();
    assert!(iccid.len() > 8);

    let owner = Browser::default();
    assert_eq!(owner.login(&app, OWNER, PASSWORD).await.0, 303);
    let (status, page, _) = owner
        .get(&app, &format!("/admin/orders/{purchase_id}"))
        .await;
    assert_eq!(status, 200);
    assert!(page.contains("data-status=\"fulfilled\""), "{page}");
    assert!(page.contains(&format!("…{}", &iccid[iccid.len() - 4..])));
    assert!(!page.contains(&iccid), "the full ICCID is never shown");
    assert!(!page.contains(&code), "the activation code is never shown");
    let matching = code.rsplit('$').next().unwrap_or_default();
    assert!(!page.contains(matching));
    assert!(!page.contains("<svg"), "no QR");
    assert!(page.contains("place_order"), "outbox jobs are listed");
    assert!(page.contains("Refund"));

    let (_, dashboard, _) = owner.get(&app, "/admin").await;
    assert!(dashboard.contains("Last 7 days"));
    assert!(
        !dashboard.contains("<td class=\"num\">0</td><td class=\"num\">$0.00</td>"),
        "today's sale is counted: {dashboard}"
    );

    // Actions: note, retry (nothing queued: 409), refund, resolve.
    let (status, _, _) = owner
        .act(&app, &purchase_id, "note", "checked by owner")
        .await;
    assert_eq!(status, 303);
    assert_eq!(owner.act(&app, &purchase_id, "retry", "nudge").await.0, 409);
    // The eSIM was bought from the wallet: a plain refund is refused and says why; the
    // explicit "refund and keep the cost" goes through.
    let (status, refused, _) = owner
        .act(&app, &purchase_id, "refund", "customer cancelled the trip")
        .await;
    assert_eq!(status, 409);
    assert!(refused.contains("Refund and keep the cost"), "{refused}");
    let (status, _, headers) = owner
        .act(
            &app,
            &purchase_id,
            "refund-keep-cost",
            "customer cancelled the trip",
        )
        .await;
    assert_eq!(status, 303);
    assert_eq!(
        location(&headers),
        format!("/admin/orders/{purchase_id}?done=refund-keep-cost")
    );
    assert_eq!(
        owner
            .act(&app, &purchase_id, "refund-keep-cost", "again")
            .await
            .0,
        409,
        "one refund at a time"
    );
    let (status, _, _) = owner.act(&app, &purchase_id, "resolve", "refunded").await;
    assert_eq!(status, 303);

    // The demo provider refunds: the purchase ends refunded.
    let started = Instant::now();
    loop {
        let lookup = purchase_id.clone();
        let status = app
            .db
            .run(move |conn| purchases::find(conn, &lookup))
            .await
            .expect("find")
            .expect("purchase")
            .status;
        if status == "refunded" {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "not refunded: {status}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let refund_jobs: i64 = app
        .db
        .run(|conn| {
            Ok::<_, DbError>(
                outbox_jobs::table
                    .filter(outbox_jobs::kind.eq("refund"))
                    .count()
                    .get_result(conn)?,
            )
        })
        .await
        .expect("jobs");
    assert_eq!(refund_jobs, 1);
    let (_, page, _) = owner
        .get(&app, &format!("/admin/orders/{purchase_id}"))
        .await;
    assert!(page.contains("checked by owner"));
    assert!(
        page.contains("customer cancelled the trip"),
        "the refund reason"
    );
    assert!(!page.contains(&code) && !page.contains(&iccid));

    let rows = audit_rows(&app.db).await;
    let target = format!("purchase:{purchase_id}");
    let order_actions: Vec<&str> = rows
        .iter()
        .filter(|r| r.2.as_deref() == Some(target.as_str()))
        .map(|r| r.1.as_str())
        .collect();
    assert_eq!(
        order_actions,
        ["order_note", "order_refund", "order_resolve"]
    );
    assert!(
        rows.iter()
            .any(|r| r.1 == "order_refund" && r.3.contains("customer cancelled the trip"))
    );
}

async fn a_markup_rule_is_previewed_saved_shown_on_the_shop_and_audited(backend: Backend) {
    let Some((app, _upstream)) = spawn_shop(backend, 120).await else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    create(&app.db, SUPPORT, Role::Support).await;
    let plan = app
        .catalog
        .snapshot()
        .plans()
        .iter()
        .find(|p| p.is_sellable() && p.cost.get() >= 100)
        .expect("a plan")
        .clone();
    let doubled = storefront::domain::Cents::new(plan.cost.get() * 2).to_string();
    let form = |token: &str| -> Vec<(String, String)> {
        vec![
            ("csrf_token".into(), token.to_string()),
            ("scope_kind".into(), "plan".into()),
            ("scope_value".into(), plan.id.clone()),
            ("markup_percent".into(), "100".into()),
            ("fixed".into(), "".into()),
            ("min_margin".into(), "".into()),
            ("ending".into(), "".into()),
        ]
    };
    let as_pairs = |v: &[(String, String)]| -> Vec<(String, String)> { v.to_vec() };

    // Support may not see or change pricing; the nav does not offer it.
    let support = Browser::default();
    assert_eq!(support.login(&app, SUPPORT, PASSWORD).await.0, 303);
    let (_, dashboard, _) = support.get(&app, "/admin").await;
    assert!(!dashboard.contains("href=\"/admin/pricing\""));
    assert_eq!(support.get(&app, "/admin/pricing").await.0, 403);
    let token = support.csrf(&app).await;
    let fields = as_pairs(&form(&token));
    let pairs: Vec<(&str, &str)> = fields
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(
        support.post(&app, "/admin/pricing/save", &pairs).await.0,
        403
    );

    let owner = Browser::default();
    assert_eq!(owner.login(&app, OWNER, PASSWORD).await.0, 303);
    // Without a valid token nothing is saved.
    let fields = as_pairs(&form("bad"));
    let pairs: Vec<(&str, &str)> = fields
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(owner.post(&app, "/admin/pricing/save", &pairs).await.0, 403);

    let (status, page, _) = owner.get(&app, "/admin/pricing").await;
    assert_eq!(status, 200);
    assert!(page.contains("Price-ladder inversions"));
    let token = hidden(&page, "csrf_token");
    let fields = as_pairs(&form(&token));
    let pairs: Vec<(&str, &str)> = fields
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let (status, preview, _) = owner.post(&app, "/admin/pricing/preview", &pairs).await;
    assert_eq!(status, 200);
    assert!(
        preview.contains("1 plan would be priced by this rule"),
        "{preview}"
    );
    assert!(
        preview.contains(&plan.cost.to_string()),
        "the cost is shown"
    );
    assert!(preview.contains(&doubled), "the new price is shown");
    let (_, shop_page, _) = owner.get(&app, &format!("/plans/{}", plan.id)).await;
    assert!(!shop_page.contains(&doubled), "a preview changes nothing");
    // The list page showing the plan is rendered once per catalog snapshot and kept.
    let list_path = match plan.kind {
        storefront::catalog::PlanKind::Local => format!("/countries/{}", plan.country_code),
        _ => format!("/regions/{}", plan.region.clone().expect("a region")),
    };
    let card_price = |html: &str, price: &str| {
        html.split(&format!("href=\"/plans/{}\"", plan.id))
            .nth(1)
            .and_then(|card| card.split("</li>").next())
            .is_some_and(|card| card.contains(price))
    };
    let (status, list_before, _) = Browser::default().get(&app, &list_path).await;
    assert_eq!(status, 200);
    let old_price = plan.price.expect("price").to_string();
    assert!(
        card_price(&list_before, &old_price),
        "{list_path}: {list_before}"
    );

    let (status, _, headers) = owner.post(&app, "/admin/pricing/save", &pairs).await;
    assert_eq!(status, 303);
    assert_eq!(location(&headers), "/admin/pricing?saved=1");
    let (_, shop_page, _) = Browser::default()
        .get(&app, &format!("/plans/{}", plan.id))
        .await;
    assert!(shop_page.contains(&doubled), "the shop shows the new price");
    let (_, list_after, _) = Browser::default().get(&app, &list_path).await;
    assert!(
        card_price(&list_after, &doubled),
        "{list_path} shows the new price at once"
    );

    // A scope that does not exist is refused with a reason.
    let mut bad = as_pairs(&form(&token));
    bad[2].1 = "no-such-plan".into();
    let pairs: Vec<(&str, &str)> = bad.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let (status, page, _) = owner.post(&app, "/admin/pricing/preview", &pairs).await;
    assert_eq!(status, 400);
    assert!(page.contains("There is no plan"));

    // Removing the rule restores the old price.
    let (status, _, _) = owner
        .post(
            &app,
            "/admin/pricing/delete",
            &[
                ("csrf_token", &token),
                ("scope_kind", "plan"),
                ("scope_value", &plan.id),
            ],
        )
        .await;
    assert_eq!(status, 303);
    let (_, shop_page, _) = Browser::default()
        .get(&app, &format!("/plans/{}", plan.id))
        .await;
    assert!(!shop_page.contains(&doubled));
    assert!(shop_page.contains(&plan.price.expect("price").to_string()));
    let (_, list_restored, _) = Browser::default().get(&app, &list_path).await;
    assert!(card_price(&list_restored, &old_price), "{list_path}");
    assert!(!card_price(&list_restored, &doubled), "{list_path}");

    let rows = audit_rows(&app.db).await;
    let pricing: Vec<_> = rows
        .iter()
        .filter(|r| r.1.starts_with("pricing_"))
        .collect();
    assert_eq!(pricing.len(), 2);
    assert_eq!(pricing[0].1, "pricing_rule_saved");
    assert!(
        pricing[0].3.starts_with("before: none; after: plan "),
        "{:?}",
        pricing[0]
    );
    assert!(pricing[0].3.contains("100.00%"));
    assert_eq!(pricing[1].1, "pricing_rule_deleted");
    let (_, audit, _) = owner.get(&app, "/admin/audit").await;
    assert!(audit.contains("pricing_rule_saved"));
}

/// Buys a plan through the demo provider and waits until the order is fulfilled.
pub(crate) async fn buy_and_wait_fulfilled(app: &TestApp) -> String {
    let shopper = Browser::default();
    let pay_path = checkout_cheap_plan(app, &shopper).await;
    let (_, page, _) = shopper.get(app, &pay_path).await;
    let token = hidden(&page, "csrf_token");
    let (status, _, headers) = shopper
        .post(app, &format!("{pay_path}/pay"), &[("csrf_token", &token)])
        .await;
    assert_eq!(status, 303);
    let order_path = location(&headers);
    let started = Instant::now();
    loop {
        let (_, order, _) = shopper.get(app, &order_path).await;
        if order.contains("data-status=\"fulfilled\"") {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "not fulfilled in time"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    order_path.trim_start_matches("/orders/").to_string()
}

/// Checks out a cheap sellable plan as `shopper`; returns the demo payment page's path.
pub(crate) async fn checkout_cheap_plan(app: &TestApp, shopper: &Browser) -> String {
    let plan = app
        .catalog
        .snapshot()
        .plans()
        .iter()
        .find(|p| {
            p.is_sellable() && p.price.is_some_and(|c| c.get() >= 100) && p.cost.get() < 20_000
        })
        .expect("a sellable plan")
        .clone();
    let (status, page, _) = shopper.get(app, &format!("/plans/{}", plan.id)).await;
    assert_eq!(status, 200);
    let token = hidden(&page, "csrf_token");
    let price = hidden(&page, "expected_price_cents");
    let (status, _, headers) = shopper
        .post(
            app,
            "/checkout",
            &[
                ("csrf_token", &token),
                ("plan_id", &plan.id),
                ("email", "traveller@example.com"),
                ("confirm_device", "yes"),
                ("expected_price_cents", &price),
            ],
        )
        .await;
    assert_eq!(status, 303);
    let pay_page = location(&headers);
    pay_page
        .strip_prefix(&app.address)
        .unwrap_or(&pay_page)
        .to_string()
}

fn storefront_binary() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_storefront"));
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default());
    cmd
}

/// Runs `storefront admin create-user` with `password` on stdin.
fn create_user_cli(url: &str, email: &str, role: &str, password: &str) -> std::process::Output {
    let mut child = storefront_binary()
        .args(["admin", "create-user", "--email", email, "--role", role])
        .env("STOREFRONT_DATABASE_URL", url)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(format!("{password}\n").as_bytes())
        .expect("write password");
    child.wait_with_output().expect("wait")
}

async fn create_user_through_the_binary(backend: Backend) {
    let Some(test_db) = TestDb::new(backend) else {
        return;
    };
    let url = test_db.url_text.clone();
    let out = create_user_cli(&url, OWNER, "owner", "too short");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("at least 12 characters"), "{stderr}");
    assert!(!stderr.contains("too short"), "the password is not echoed");

    let out = create_user_cli(&url, OWNER, "owner", "Password1234");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("commonly used"));

    let out = create_user_cli(&url, "not-an-email", "owner", PASSWORD);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--email"));

    // Migrations are applied first, on a database that has none yet.
    let out = create_user_cli(&url, OWNER, "owner", PASSWORD);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("created owner account"));
    let out = create_user_cli(&url, "OWNER@example.com", "support", PASSWORD);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("already exists"));

    let db = test_db.migrated().await;
    let app = spawn_app_on(test_db, db).await;
    let browser = Browser::default();
    assert_eq!(browser.login(&app, OWNER, PASSWORD).await.0, 303);
    let hash: String = app
        .db
        .run(|conn| {
            Ok::<_, DbError>(
                storefront::db::schema::admin_users::table
                    .select(storefront::db::schema::admin_users::password_hash)
                    .first(conn)?,
            )
        })
        .await
        .expect("hash");
    assert!(
        hash.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
        "{hash}"
    );
}

/// Starts the demo on `data`, waits until it serves, stops it; returns its `admin:` line.
async fn demo_admin_line(data: &std::path::Path) -> String {
    let mut child = storefront_binary()
        .args(["demo", "--data"])
        .arg(data)
        .env("STOREFRONT_BIND", "127.0.0.1:0")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn demo");
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = BufReader::new(stdout).lines();
    let mut shop = String::new();
    let mut admin = String::new();
    for line in lines.by_ref() {
        let line = line.expect("utf-8");
        if let Some(url) = line.trim().strip_prefix("shop:") {
            shop = url.trim().to_string();
        }
        if line.starts_with("admin: ") {
            admin = line.clone();
        }
        if line.starts_with("Press Ctrl-C") {
            break;
        }
    }
    // Serving, and so handling SIGTERM, before it is stopped.
    let status = reqwest::get(format!("{shop}/healthz"))
        .await
        .expect("healthz")
        .status();
    assert_eq!(status, 200);
    // The demo gives customers an address to write to, on every shop page.
    let home = reqwest::get(format!("{shop}/"))
        .await
        .expect("home")
        .text()
        .await
        .expect("body");
    assert!(home.contains("mailto:support@demo.invalid"), "{home}");
    Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill");
    assert_eq!(child.wait().expect("wait").code(), Some(0));
    admin
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn demo_prints_the_admin_password_only_on_first_start() {
    let dir = tempfile::tempdir().expect("dir");
    let data = dir.path().join("data");
    let first = demo_admin_line(&data).await;
    let rest = first.strip_prefix("admin: ").expect("admin line");
    let (email, password) = rest.split_once(" password: ").expect("password shown");
    assert_eq!(email, "owner@demo.invalid");
    assert!(
        NewPassword::parse(password).is_ok(),
        "a policy-valid password"
    );

    let second = demo_admin_line(&data).await;
    assert_eq!(
        second,
        format!("admin: {email} (password printed on first start)")
    );
    assert!(!second.contains(password));
}
