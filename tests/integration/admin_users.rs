//! User management in the console over HTTP: owners add accounts, change roles, disable and
//! re-enable them and reset passwords; support is kept out; the last active owner stays; every
//! admin changes their own password. Each change is audited without the password.

use diesel::prelude::*;
use storefront::db::schema::{admin_audit, admin_sessions, admin_users};
use storefront::db::{Db, DbError};
use storefront::staff::Role;

use crate::admin::{Browser, OWNER, PASSWORD, SUPPORT, create, hidden, login_as};
use crate::both_backends;
use crate::helpers::{Answer, Backend, TestApp, spawn_app};

both_backends!(
    support_gets_403_on_every_user_page_and_action,
    an_owner_adds_a_user_who_can_log_in,
    disabling_or_resetting_ends_sessions_at_once,
    the_last_active_owner_cannot_disable_or_demote_themselves,
    anyone_changes_their_own_password_with_the_current_one,
    parallel_guesses_of_the_current_password_get_five_checks_at_most,
);

const NEW_PASSWORD: &str = "fresh pass phrase for ana";
const OTHER_PASSWORD: &str = "another fine pass phrase";

pub(crate) async fn user_id(db: &Db, email: &str) -> i64 {
    let email = email.to_string();
    db.run(move |conn| {
        Ok::<_, DbError>(
            admin_users::table
                .filter(admin_users::email.eq(&email))
                .select(admin_users::id)
                .first(conn)?,
        )
    })
    .await
    .expect("user id")
}

/// `(role, disabled)` of the account.
async fn account(db: &Db, email: &str) -> Option<(String, bool)> {
    let email = email.to_string();
    db.run(move |conn| {
        Ok::<_, DbError>(
            admin_users::table
                .filter(admin_users::email.eq(&email))
                .select((admin_users::role, admin_users::disabled_at_ms))
                .first::<(String, Option<i64>)>(conn)
                .optional()?
                .map(|(role, disabled)| (role, disabled.is_some())),
        )
    })
    .await
    .expect("account")
}

async fn user_count(db: &Db) -> i64 {
    db.run(|conn| Ok::<_, DbError>(admin_users::table.count().get_result(conn)?))
        .await
        .expect("count")
}

async fn sessions_of(db: &Db, user_id: i64) -> i64 {
    db.run(move |conn| {
        Ok::<_, DbError>(
            admin_sessions::table
                .filter(admin_sessions::user_id.eq(user_id))
                .count()
                .get_result(conn)?,
        )
    })
    .await
    .expect("sessions")
}

/// Every audit row as `(actor, action, target, client, details)`, oldest first.
async fn audit(db: &Db) -> Vec<(String, String, Option<String>, String, String)> {
    db.run(|conn| {
        Ok::<_, DbError>(
            admin_audit::table
                .order(admin_audit::id)
                .select((
                    admin_audit::actor,
                    admin_audit::action,
                    admin_audit::target,
                    admin_audit::client_addr,
                    admin_audit::details,
                ))
                .load(conn)?,
        )
    })
    .await
    .expect("audit")
}

/// No password typed in this test shows up in the audit log, stored or on its page.
async fn audit_holds_no_password(app: &TestApp, owner: &Browser, passwords: &[&str]) {
    let rows = audit(&app.db).await;
    let page = owner.get(app, "/admin/audit").await.assert_status(200).body;
    for password in passwords {
        for row in &rows {
            let text = format!("{row:?}");
            assert!(!text.contains(password), "{password:?} in {text}");
        }
        assert!(!page.contains(password), "{password:?} on the audit page");
    }
}

/// A fresh browser signed in as `email` with a password of the test's own.
async fn signed_in(app: &TestApp, email: &str, password: &str) -> Browser {
    let browser = Browser::default();
    let answer = browser.login(app, email, password).await;
    assert_eq!(answer.status, 303, "{email} logs in: {}", answer.body);
    browser
}

/// Posts `form` (with this browser's CSRF token) to `path`.
async fn post(browser: &Browser, app: &TestApp, path: &str, form: &[(&str, &str)]) -> Answer {
    let token = browser.csrf(app).await;
    let mut fields = vec![("csrf_token", token.as_str())];
    fields.extend_from_slice(form);
    browser.post(app, path, &fields).await
}

async fn support_gets_403_on_every_user_page_and_action(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    create(&app.db, SUPPORT, Role::Support).await;
    let owner_id = user_id(&app.db, OWNER).await;
    let owner = login_as(&app, OWNER).await;
    let support = login_as(&app, SUPPORT).await;

    let dashboard = support.get(&app, "/admin").await.body;
    assert!(
        !dashboard.contains("href=\"/admin/users\""),
        "no Users link"
    );
    assert!(
        dashboard.contains("href=\"/admin/account\""),
        "Your account"
    );
    let dashboard = owner.get(&app, "/admin").await.body;
    assert!(
        dashboard.contains("href=\"/admin/users\""),
        "owners see Users"
    );

    for path in [
        "/admin/users".to_string(),
        format!("/admin/users/{owner_id}"),
    ] {
        assert_eq!(support.get(&app, &path).await.status, 403, "{path}");
    }
    let password_fields = [
        ("password", OTHER_PASSWORD),
        ("password_again", OTHER_PASSWORD),
    ];
    let attempts: Vec<(String, Vec<(&str, &str)>)> = vec![
        (
            "/admin/users".into(),
            vec![
                ("email", "mallory@example.com"),
                ("role", "owner"),
                ("password", OTHER_PASSWORD),
                ("password_again", OTHER_PASSWORD),
            ],
        ),
        (
            format!("/admin/users/{owner_id}/role"),
            vec![("role", "support")],
        ),
        (format!("/admin/users/{owner_id}/disable"), vec![]),
        (format!("/admin/users/{owner_id}/enable"), vec![]),
        (
            format!("/admin/users/{owner_id}/password"),
            password_fields.to_vec(),
        ),
    ];
    for (path, form) in &attempts {
        post(&support, &app, path, form).await.assert_status(403);
    }
    assert_eq!(user_count(&app.db).await, 2);
    assert_eq!(account(&app.db, OWNER).await, Some(("owner".into(), false)));
    assert!(
        audit(&app.db)
            .await
            .iter()
            .all(|r| !r.1.starts_with("user_") || r.0 == "test"),
        "nothing was done"
    );
    assert_eq!(
        owner.get(&app, "/admin").await.status,
        200,
        "the owner is untouched"
    );
    // Anonymous: the login page, as everywhere in the console.
    Browser::default()
        .get(&app, "/admin/users")
        .await
        .assert_redirect_to("/admin/login");
}

async fn an_owner_adds_a_user_who_can_log_in(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    let owner = login_as(&app, OWNER).await;
    let page = owner
        .get(&app, "/admin/users")
        .await
        .assert_status(200)
        .body;
    assert!(page.contains("aria-current=\"page\">Users"), "{page}");
    let row = page
        .split(&format!("<tr data-user=\"{OWNER}\">"))
        .nth(1)
        .and_then(|r| r.split("</tr>").next())
        .expect("the owner's row");
    assert!(row.contains("(you)") && row.contains("owner") && row.contains("active"));
    assert!(
        !row.contains("never"),
        "the owner logged in just now: {row}"
    );
    assert!(
        page.contains("<label for=\"new-password\">"),
        "labelled fields"
    );

    let ana = "Ana@Example.com";
    let form = |password: &'static str, again: &'static str| {
        vec![
            ("email", ana),
            ("role", "support"),
            ("password", password),
            ("password_again", again),
        ]
    };
    // Without a valid CSRF token nothing is created.
    let token = hidden(&page, "csrf_token");
    for bad in ["", "forged", &"ab".repeat(32)] {
        let mut fields = vec![("csrf_token", bad)];
        fields.extend(form(NEW_PASSWORD, NEW_PASSWORD));
        assert_eq!(owner.post(&app, "/admin/users", &fields).await.status, 403);
    }
    assert_ne!(token, "");
    // Refusals come back on the page with the email kept, never the password.
    for (fields, message) in [
        (form("short pass", "short pass"), "at least 12 characters"),
        (form("password1234", "password1234"), "commonly used"),
        (form(NEW_PASSWORD, OTHER_PASSWORD), "differ"),
        (
            vec![
                ("email", "not an email"),
                ("role", "support"),
                ("password", NEW_PASSWORD),
                ("password_again", NEW_PASSWORD),
            ],
            "That email cannot be used",
        ),
        (
            vec![
                ("email", ana),
                ("role", "admin"),
                ("password", NEW_PASSWORD),
                ("password_again", NEW_PASSWORD),
            ],
            "Choose a role",
        ),
    ] {
        let answer = post(&owner, &app, "/admin/users", &fields).await;
        assert_eq!(answer.status, 400, "{message}");
        let page = answer.body;
        assert!(page.contains(message), "{message}: {page}");
        assert!(page.contains("role=\"alert\""));
        assert!(!page.contains("short pass") && !page.contains(NEW_PASSWORD));
    }
    let page = post(&owner, &app, "/admin/users", &form("short pass", "x"))
        .await
        .body;
    assert!(
        page.contains("value=\"Ana@Example.com\""),
        "the email is kept"
    );
    assert_eq!(user_count(&app.db).await, 1);

    let created = post(
        &owner,
        &app,
        "/admin/users",
        &form(NEW_PASSWORD, NEW_PASSWORD),
    )
    .await;
    let ana_id = user_id(&app.db, "ana@example.com").await;
    let to = format!("/admin/users/{ana_id}?done=created");
    created.assert_redirect_to(&to);
    let page = owner.get(&app, &to).await.body;
    assert!(page.contains("Account created."), "{page}");
    assert!(page.contains("<h1>ana@example.com"), "{page}");
    // The same person again, however the email is typed.
    let page = post(
        &owner,
        &app,
        "/admin/users",
        &[
            ("email", " ANA@example.com "),
            ("role", "owner"),
            ("password", OTHER_PASSWORD),
            ("password_again", OTHER_PASSWORD),
        ],
    )
    .await
    .assert_status(409)
    .body;
    assert!(page.contains("already exists"), "{page}");
    assert_eq!(user_count(&app.db).await, 2);

    let list = owner.get(&app, "/admin/users").await.body;
    let row = list
        .split("<tr data-user=\"ana@example.com\">")
        .nth(1)
        .and_then(|r| r.split("</tr>").next())
        .expect("ana's row");
    assert!(row.contains("support") && row.contains("never"), "{row}");

    // Ana logs in with the password the owner gave her, as support.
    let ana_browser = signed_in(&app, "ana@example.com", NEW_PASSWORD).await;
    let dashboard = ana_browser
        .get(&app, "/admin")
        .await
        .assert_status(200)
        .body;
    assert!(dashboard.contains("(support)"));
    assert_eq!(ana_browser.get(&app, "/admin/users").await.status, 403);
    let list = owner.get(&app, "/admin/users").await.body;
    let row = list
        .split("<tr data-user=\"ana@example.com\">")
        .nth(1)
        .and_then(|r| r.split("</tr>").next())
        .expect("ana's row");
    assert!(!row.contains("never"), "last login shown: {row}");

    let rows = audit(&app.db).await;
    let created: Vec<_> = rows.iter().filter(|r| r.1 == "user_created").collect();
    assert_eq!(created.len(), 2, "the test's owner and ana: {rows:?}");
    let ana_row = created[1];
    assert_eq!(ana_row.0, OWNER, "who");
    assert_eq!(
        ana_row.2.as_deref(),
        Some(format!("user:{ana_id}").as_str())
    );
    assert_eq!(ana_row.3, "127.0.0.1", "from where");
    assert_eq!(ana_row.4, "ana@example.com, role support");
    let audit_page = owner.get(&app, "/admin/audit").await.body;
    assert!(
        audit_page.contains(&format!(
            "<a href=\"/admin/users/{ana_id}\">Account {ana_id}</a>"
        )),
        "the audit log links the account: {audit_page}"
    );
    audit_holds_no_password(&app, &owner, &[NEW_PASSWORD, OTHER_PASSWORD, "short pass"]).await;
}

async fn disabling_or_resetting_ends_sessions_at_once(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    create(&app.db, SUPPORT, Role::Support).await;
    let support_id = user_id(&app.db, SUPPORT).await;
    let owner = login_as(&app, OWNER).await;
    let phone = login_as(&app, SUPPORT).await;
    let laptop = login_as(&app, SUPPORT).await;
    assert_eq!(sessions_of(&app.db, support_id).await, 2);
    let user_page = format!("/admin/users/{support_id}");

    // A forged form changes nothing.
    owner
        .post(
            &app,
            &format!("{user_page}/disable"),
            &[("csrf_token", "forged")],
        )
        .await
        .assert_status(403);
    assert_eq!(phone.get(&app, "/admin").await.status, 200);

    let to = post(
        &owner,
        &app,
        &format!("{user_page}/disable"),
        &[("confirmed", "yes")],
    )
    .await
    .assert_redirect_to(format!("{user_page}?done=disable"))
    .location();
    // Both browsers are out at once, server-side.
    for browser in [&phone, &laptop] {
        browser
            .get(&app, "/admin/orders")
            .await
            .assert_redirect_to("/admin/login");
    }
    assert_eq!(sessions_of(&app.db, support_id).await, 0);
    // The right password gets the same answer as a wrong one.
    let page = Browser::default()
        .login(&app, SUPPORT, PASSWORD)
        .await
        .assert_status(401)
        .body;
    assert!(page.contains("Wrong email or password."));
    let page = owner.get(&app, &to).await.body;
    assert!(page.contains("Account disabled"), "{page}");
    assert!(page.contains("disabled since"));
    assert!(page.contains("Enable account"));
    post(
        &owner,
        &app,
        &format!("{user_page}/disable"),
        &[("confirmed", "yes")],
    )
    .await
    .assert_redirect_to(format!("{user_page}?done=unchanged"));

    post(&owner, &app, &format!("{user_page}/enable"), &[])
        .await
        .assert_status(303);
    let support = login_as(&app, SUPPORT).await;

    // A password reset: typed twice, then every session of the account ends.
    let page = post(
        &owner,
        &app,
        &format!("{user_page}/password"),
        &[
            ("password", NEW_PASSWORD),
            ("password_again", OTHER_PASSWORD),
        ],
    )
    .await
    .assert_status(400)
    .body;
    assert!(page.contains("differ"));
    assert_eq!(
        support.get(&app, "/admin").await.status,
        200,
        "nothing changed"
    );
    post(
        &owner,
        &app,
        &format!("{user_page}/password"),
        &[("password", NEW_PASSWORD), ("password_again", NEW_PASSWORD)],
    )
    .await
    .assert_redirect_to(format!("{user_page}?done=password"));
    assert_eq!(
        support.get(&app, "/admin").await.status,
        303,
        "the session is gone"
    );
    assert_eq!(
        Browser::default()
            .login(&app, SUPPORT, PASSWORD)
            .await
            .status,
        401
    );
    signed_in(&app, SUPPORT, NEW_PASSWORD).await;

    // An owner's own password is changed with the current one, not reset.
    let owner_id = user_id(&app.db, OWNER).await;
    let page = post(
        &owner,
        &app,
        &format!("/admin/users/{owner_id}/password"),
        &[
            ("password", OTHER_PASSWORD),
            ("password_again", OTHER_PASSWORD),
        ],
    )
    .await
    .assert_status(400)
    .body;
    assert!(page.contains("Your account"), "{page}");
    login_as(&app, OWNER).await;

    let rows = audit(&app.db).await;
    let target = format!("user:{support_id}");
    let changes: Vec<(&str, &str)> = rows
        .iter()
        .filter(|r| r.2.as_deref() == Some(target.as_str()))
        .map(|r| (r.1.as_str(), r.4.as_str()))
        .collect();
    assert_eq!(
        changes,
        [
            (
                "user_disabled",
                "support@example.com: disabled; 2 session(s) ended"
            ),
            ("user_enabled", "support@example.com: enabled"),
            (
                "user_password_reset",
                "support@example.com: password reset; 1 session(s) ended"
            ),
        ]
    );
    assert!(
        rows.iter()
            .filter(|r| r.2.as_deref() == Some(target.as_str()))
            .all(|r| r.0 == OWNER && r.3 == "127.0.0.1")
    );
    assert!(
        rows.iter().any(|r| r.1 == "login_failed"
            && r.0 == SUPPORT
            && r.4 == "right password, but the account is disabled"),
        "{rows:?}"
    );
    audit_holds_no_password(&app, &owner, &[PASSWORD, NEW_PASSWORD, OTHER_PASSWORD]).await;
}

async fn the_last_active_owner_cannot_disable_or_demote_themselves(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    create(&app.db, SUPPORT, Role::Support).await;
    let owner_id = user_id(&app.db, OWNER).await;
    let support_id = user_id(&app.db, SUPPORT).await;
    let owner = login_as(&app, OWNER).await;
    let own_page = format!("/admin/users/{owner_id}");

    for (action, form) in [
        ("role", vec![("role", "support")]),
        ("disable", vec![("confirmed", "yes")]),
    ] {
        let page = post(&owner, &app, &format!("{own_page}/{action}"), &form)
            .await
            .assert_status(409)
            .body;
        assert!(page.contains("last active owner"), "{action}: {page}");
        assert!(page.contains("<h1>owner@example.com"), "the user page");
    }
    assert_eq!(account(&app.db, OWNER).await, Some(("owner".into(), false)));
    assert_eq!(
        owner.get(&app, "/admin/audit").await.status,
        200,
        "still an owner"
    );

    // A second owner, then disabled: a disabled owner does not count.
    let second = format!("/admin/users/{support_id}");
    post(
        &owner,
        &app,
        &format!("{second}/role"),
        &[("role", "owner")],
    )
    .await
    .assert_redirect_to(format!("{second}?done=role"));
    assert_eq!(
        post(
            &owner,
            &app,
            &format!("{second}/disable"),
            &[("confirmed", "yes")]
        )
        .await
        .status,
        303
    );
    post(
        &owner,
        &app,
        &format!("{own_page}/role"),
        &[("role", "support")],
    )
    .await
    .assert_status(409);

    // With another active owner, an owner may step down, and is then support.
    assert_eq!(
        post(&owner, &app, &format!("{second}/enable"), &[])
            .await
            .status,
        303
    );
    post(
        &owner,
        &app,
        &format!("{own_page}/role"),
        &[("role", "support")],
    )
    .await
    .assert_redirect_to("/admin");
    assert_eq!(owner.get(&app, "/admin/users").await.status, 403);
    assert_eq!(
        account(&app.db, OWNER).await,
        Some(("support".into(), false))
    );

    // The promoted account is now the last active owner, with the same guard.
    let promoted = login_as(&app, SUPPORT).await;
    let page = post(
        &promoted,
        &app,
        &format!("{second}/disable"),
        &[("confirmed", "yes")],
    )
    .await
    .assert_status(409)
    .body;
    assert!(page.contains("last active owner"));
    assert_eq!(promoted.get(&app, "/admin/users").await.status, 200);

    let rows = audit(&app.db).await;
    let roles: Vec<(&str, &str)> = rows
        .iter()
        .filter(|r| r.1 == "user_role_changed")
        .map(|r| (r.0.as_str(), r.4.as_str()))
        .collect();
    assert_eq!(
        roles,
        [
            (OWNER, "support@example.com: before support; after owner"),
            (OWNER, "owner@example.com: before owner; after support"),
        ]
    );
}

async fn anyone_changes_their_own_password_with_the_current_one(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    create(&app.db, SUPPORT, Role::Support).await;
    let laptop = login_as(&app, SUPPORT).await;
    let phone = login_as(&app, SUPPORT).await;
    let page = laptop
        .get(&app, "/admin/account")
        .await
        .assert_status(200)
        .body;
    assert!(page.contains("<h1>Your account</h1>"));
    assert!(page.contains("<label for=\"current-password\">"));
    assert!(page.contains("aria-current=\"page\">Your account"));

    let change = |current: &'static str, new: &'static str, again: &'static str| {
        vec![
            ("current_password", current),
            ("password", new),
            ("password_again", again),
        ]
    };
    laptop
        .post(
            &app,
            "/admin/account/password",
            &[
                ("csrf_token", "forged"),
                ("current_password", PASSWORD),
                ("password", NEW_PASSWORD),
                ("password_again", NEW_PASSWORD),
            ],
        )
        .await
        .assert_status(403);
    for (fields, message) in [
        (
            change("not my password", NEW_PASSWORD, NEW_PASSWORD),
            "current password is not right",
        ),
        (change(PASSWORD, NEW_PASSWORD, OTHER_PASSWORD), "differ"),
        (
            change(PASSWORD, "short pass", "short pass"),
            "at least 12 characters",
        ),
        (
            change("", NEW_PASSWORD, NEW_PASSWORD),
            "Enter your current password",
        ),
    ] {
        let answer = post(&laptop, &app, "/admin/account/password", &fields).await;
        assert_eq!(answer.status, 400, "{message}");
        let page = answer.body;
        assert!(page.contains(message), "{message}: {page}");
        assert!(!page.contains(NEW_PASSWORD));
    }
    // Nothing changed: both browsers are in, the old password works.
    assert_eq!(phone.get(&app, "/admin").await.status, 200);
    let other = login_as(&app, SUPPORT).await;

    let before = laptop.cookie("admin").expect("session cookie");
    let to = post(
        &laptop,
        &app,
        "/admin/account/password",
        &change(PASSWORD, NEW_PASSWORD, NEW_PASSWORD),
    )
    .await
    .assert_redirect_to("/admin/account?done=password")
    .location();
    let after = laptop.cookie("admin").expect("a new session cookie");
    assert_ne!(before, after, "the session id rotated");
    let answer = laptop.get(&app, &to).await;
    assert_eq!(answer.status, 200, "this browser stays signed in");
    let page = answer.body;
    assert!(page.contains("Password changed."));
    let stale = Browser::default();
    stale.set_cookie("admin", &before);
    assert_eq!(
        stale.get(&app, "/admin").await.status,
        303,
        "the old id is dead"
    );
    assert_eq!(
        phone.get(&app, "/admin").await.status,
        303,
        "other sessions end"
    );
    assert_eq!(other.get(&app, "/admin").await.status, 303);
    assert_eq!(
        Browser::default()
            .login(&app, SUPPORT, PASSWORD)
            .await
            .status,
        401
    );
    signed_in(&app, SUPPORT, NEW_PASSWORD).await;

    // Guessing the current password is throttled like a login.
    let mut statuses = Vec::new();
    let mut retry_after = None;
    for _ in 0..6 {
        let token = laptop.csrf(&app).await;
        let answer = laptop
            .post(
                &app,
                "/admin/account/password",
                &[
                    ("csrf_token", token.as_str()),
                    ("current_password", "a wrong guess here"),
                    ("password", OTHER_PASSWORD),
                    ("password_again", OTHER_PASSWORD),
                ],
            )
            .await;
        statuses.push(answer.status);
        retry_after = answer.headers.get("retry-after").cloned();
    }
    // One failure was recorded earlier in this minute.
    assert_eq!(statuses, [400, 400, 400, 400, 429, 429]);
    assert_eq!(
        retry_after.as_ref().and_then(|v| v.to_str().ok()),
        Some("60")
    );

    let rows = audit(&app.db).await;
    let own: Vec<&str> = rows
        .iter()
        .filter(|r| r.1.starts_with("password_"))
        .map(|r| r.1.as_str())
        .collect();
    assert_eq!(own[..2], ["password_change_failed", "password_changed"]);
    assert!(rows.iter().any(|r| r.1 == "password_changed"
        && r.0 == SUPPORT
        && r.4 == "3 session(s) ended; this browser signed in again"));
    let owner = login_as(&app, OWNER).await;
    audit_holds_no_password(
        &app,
        &owner,
        &[
            PASSWORD,
            NEW_PASSWORD,
            OTHER_PASSWORD,
            "not my password",
            "a wrong guess here",
        ],
    )
    .await;
}

/// 20 wrong current passwords sent at once from a signed-in session (a stolen cookie guessing
/// the password to take the account over): each is counted before it is hashed, so no more
/// than the documented 5 are checked; the rest are refused unchecked (429) or asked to retry
/// (503, every hashing slot busy), and the real password still changes nothing meanwhile.
async fn parallel_guesses_of_the_current_password_get_five_checks_at_most(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    create(&app.db, SUPPORT, Role::Support).await;
    let thief = login_as(&app, SUPPORT).await;
    let token = thief.csrf(&app).await;
    let app = std::sync::Arc::new(app);
    let guesses: Vec<_> = (0..20)
        .map(|i| {
            let (app, thief, token) = (std::sync::Arc::clone(&app), thief.clone(), token.clone());
            tokio::spawn(async move {
                let guess = format!("guess number {i} of twenty");
                thief
                    .post(
                        &app,
                        "/admin/account/password",
                        &[
                            ("csrf_token", token.as_str()),
                            ("current_password", guess.as_str()),
                            ("password", OTHER_PASSWORD),
                            ("password_again", OTHER_PASSWORD),
                        ],
                    )
                    .await
                    .status
            })
        })
        .collect();
    let mut statuses = Vec::new();
    for guess in guesses {
        statuses.push(guess.await.expect("task"));
    }
    let checked = statuses.iter().filter(|s| **s == 400).count();
    assert!(
        statuses.iter().all(|s| [400, 429, 503].contains(s)),
        "{statuses:?}"
    );
    assert!(checked <= 5, "{checked} guesses were checked: {statuses:?}");
    assert!(statuses.contains(&429), "{statuses:?}");
    let failures = audit(&app.db)
        .await
        .into_iter()
        .filter(|r| r.1 == "password_change_failed" && r.4 == "wrong current password")
        .count();
    assert_eq!(failures, checked, "each checked guess is on the record");
    assert_eq!(
        Browser::default()
            .login(&app, SUPPORT, OTHER_PASSWORD)
            .await
            .status,
        401,
        "no guess changed the password"
    );
}
