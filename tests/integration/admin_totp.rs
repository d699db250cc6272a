//! Two-factor sign-in for the console (TOTP) and the login throttle that counts a guess before
//! it is verified: enrolment from the account page with our QR code, the code as a second step
//! after the password, replayed and wrong codes, recovery codes that work once, an owner
//! requiring TOTP for everyone and resetting another account's, and a burst of parallel wrong
//! passwords of which only the limit is verified.
//!
//! Codes are computed here from the secret the enrolment page shows, as an authenticator app
//! would.

use std::sync::Arc;

use diesel::prelude::*;
use storefront::db::schema::{admin_sessions, admin_totp, admin_users};
use storefront::db::{Db, DbError, now_ms};
use storefront::staff::Role;
use storefront::staff::totp::{STEP_SECS, code_at_step};

use crate::admin::{Browser, OWNER, PASSWORD, SUPPORT, audit_rows, create, hidden, login_as};
use crate::both_backends;
use crate::helpers::{Answer, Backend, TestApp, spawn_app};

both_backends!(
    keys_rotate_reseals_totp_secrets,
    login_with_totp_wants_the_right_fresh_code,
    a_recovery_code_signs_in_once_and_only_once,
    an_owner_requiring_totp_sends_accounts_without_it_to_enrolment,
    fifty_parallel_wrong_passwords_verify_no_more_than_the_limit,
);

/// The text between `marker` and the next `<` in `html`.
fn marked(html: &str, marker: &str) -> Vec<String> {
    html.split(marker)
        .skip(1)
        .filter_map(|rest| rest.split('<').next())
        .map(str::to_string)
        .collect()
}

fn secret_of(page: &str) -> Vec<u8> {
    let text = marked(page, "data-totp-secret>")
        .pop()
        .unwrap_or_else(|| panic!("no secret on {page}"));
    totp_rs::Secret::Encoded(text)
        .to_bytes()
        .expect("the page shows base32")
}

fn step_now() -> u64 {
    u64::try_from(now_ms() / 1000).expect("time") / STEP_SECS
}

/// A six-digit code that is none of the codes valid around now.
fn wrong_code(secret: &[u8]) -> String {
    let now = step_now();
    let valid: Vec<String> = (now - 2..=now + 3)
        .map(|s| code_at_step(secret, s))
        .collect();
    (0..10)
        .map(|d| d.to_string().repeat(6))
        .find(|c| !valid.contains(c))
        .expect("a wrong code")
}

/// Enters `code` on the second step of a login.
async fn post_code(
    browser: &Browser,
    app: &TestApp,
    path: &str,
    code: &str,
) -> crate::helpers::Answer {
    let page = browser.get(app, path).await.body;
    let token = hidden(&page, "csrf_token");
    browser
        .post(app, path, &[("csrf_token", &token), ("code", code)])
        .await
}

/// Confirms enrolment with `code`, with the CSRF token of the enrolment `page` on screen
/// (loading the page again would show a new secret).
async fn confirm(
    browser: &Browser,
    app: &TestApp,
    page: &str,
    code: &str,
) -> crate::helpers::Answer {
    let token = hidden(page, "csrf_token");
    browser
        .post(
            app,
            "/admin/account/totp",
            &[("csrf_token", &token), ("code", code)],
        )
        .await
}

/// Starts (or starts over) enrolment from the enrolment `page` on screen; returns the page that
/// shows the new secret.
async fn start_enrolment(browser: &Browser, app: &TestApp, page: &str) -> String {
    let token = hidden(page, "csrf_token");
    browser
        .post(app, "/admin/account/totp/start", &[("csrf_token", &token)])
        .await
        .assert_redirect_to("/admin/account/totp");
    let Answer {
        body: page,
        headers,
        ..
    } = browser
        .get(app, "/admin/account/totp")
        .await
        .assert_status(200);
    assert_eq!(headers["cache-control"], "no-store");
    page
}

/// Enrols the signed-in `browser` (a wrong code and a restart on the way), and returns the
/// secret, the code that confirmed it (of the current step) and the recovery codes.
pub(crate) async fn enrol(browser: &Browser, app: &TestApp) -> (Vec<u8>, String, Vec<String>) {
    let page = browser
        .get(app, "/admin/account/totp")
        .await
        .assert_status(200)
        .body;
    assert!(page.contains("Set up two-factor sign-in"), "{page}");
    assert!(
        !page.contains("data-totp-secret"),
        "looking creates no secret"
    );

    let page = start_enrolment(browser, app, &page).await;
    assert!(page.contains("<svg"), "our QR code is on the page");
    let first = secret_of(&page);
    assert_eq!(first.len(), 20, "160-bit secret");
    let reloaded = browser.get(app, "/admin/account/totp").await.body;
    assert_eq!(
        secret_of(&reloaded),
        first,
        "a reload shows the same secret"
    );

    let page = confirm(browser, app, &page, &wrong_code(&first))
        .await
        .assert_status(400)
        .body;
    assert!(page.contains("did not match"), "{page}");
    assert_eq!(
        secret_of(&page),
        first,
        "a mistyped code keeps the secret already scanned"
    );

    // Starting over replaces the secret: the first one's code no longer confirms anything.
    let page = start_enrolment(browser, app, &page).await;
    let secret = secret_of(&page);
    assert_ne!(secret, first);
    let stale = code_at_step(&first, step_now());
    let page = confirm(browser, app, &page, &stale)
        .await
        .assert_status(400)
        .body;

    let code = code_at_step(&secret, step_now());
    let page = confirm(browser, app, &page, &code)
        .await
        .assert_status(200)
        .body;
    assert!(page.contains("Two-factor sign-in is on"), "{page}");
    let codes = marked(&page, "data-recovery-code>");
    assert_eq!(codes.len(), 10, "{page}");
    // Shown once: the account page now only counts them.
    let page = browser.get(app, "/admin/account/totp").await.body;
    assert!(!page.contains(&codes[0]));
    assert!(
        !page.contains("data-totp-secret"),
        "the secret is not shown again"
    );
    assert!(page.contains("Recovery codes left</dt><dd>10"), "{page}");
    (secret, code, codes)
}

/// Password first; returns where the login sent the browser.
async fn password_step(browser: &Browser, app: &TestApp, email: &str) -> String {
    browser
        .login(app, email, PASSWORD)
        .await
        .assert_status(303)
        .location()
}

async fn login_with_totp_wants_the_right_fresh_code(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    let owner = login_as(&app, OWNER).await;
    let (secret, enrol_code, _) = enrol(&owner, &app).await;
    // Enrolling replaced the session (a new id) and the console works.
    assert_eq!(owner.get(&app, "/admin").await.status, 200);

    // The secret is sealed: the stored row does not contain it.
    let stored: (String, String) = app
        .db
        .run(|conn| {
            Ok::<_, DbError>(
                admin_totp::table
                    .select((admin_totp::key_id, admin_totp::ciphertext))
                    .first(conn)?,
            )
        })
        .await
        .expect("row");
    assert!(!stored.1.contains(&hex::encode(&secret)));
    assert!(stored.0.starts_with("v1:"));

    // A new login: the password alone opens nothing.
    let browser = Browser::default();
    assert_eq!(
        password_step(&browser, &app, OWNER).await,
        "/admin/login/totp"
    );
    for path in ["/admin", "/admin/orders", "/admin/users", "/admin/account"] {
        browser
            .get(&app, path)
            .await
            .assert_redirect_to("/admin/login/totp");
    }
    let page = browser
        .get(&app, "/admin/login/totp")
        .await
        .assert_status(200)
        .body;
    assert!(page.contains("autocomplete=\"one-time-code\""), "{page}");
    assert!(!page.contains("data-totp-secret"));

    // Wrong code: refused.
    let page = post_code(&browser, &app, "/admin/login/totp", &wrong_code(&secret))
        .await
        .assert_status(401)
        .body;
    assert!(page.contains("wrong or was already used"), "{page}");
    // The code that confirmed enrolment: already used in its window, refused.
    assert_eq!(
        post_code(&browser, &app, "/admin/login/totp", &enrol_code)
            .await
            .status,
        401,
        "a replayed code is refused"
    );
    assert_eq!(browser.get(&app, "/admin").await.status, 303);

    // The next step's code (one step of skew is accepted): in.
    let next = code_at_step(&secret, step_now() + 1);
    let pending = browser.cookie("admin").expect("pending session");
    post_code(&browser, &app, "/admin/login/totp", &next)
        .await
        .assert_redirect_to("/admin");
    assert_ne!(
        browser.cookie("admin").expect("cookie"),
        pending,
        "a new session id"
    );
    assert_eq!(browser.get(&app, "/admin").await.status, 200);
    let stale = Browser::default();
    stale.set_cookie("admin", &pending);
    assert_eq!(
        stale.get(&app, "/admin").await.status,
        303,
        "the pending id is dead"
    );

    // The same code once more, on another login: replay, refused.
    let again = Browser::default();
    assert_eq!(
        password_step(&again, &app, OWNER).await,
        "/admin/login/totp"
    );
    assert_eq!(
        post_code(&again, &app, "/admin/login/totp", &next)
            .await
            .status,
        401,
        "a code is accepted once"
    );

    // Wrong codes are throttled per account: five so far (two while enrolling, three here), so
    // even a right code waits now.
    let Answer {
        body: page,
        headers,
        ..
    } = post_code(
        &again,
        &app,
        "/admin/login/totp",
        &code_at_step(&secret, step_now() + 2),
    )
    .await
    .assert_status(429);
    assert!(page.contains("Too many wrong codes"), "{page}");
    assert_eq!(headers["retry-after"], "900");

    let rows = audit_rows(&app.db).await;
    let actions: Vec<&str> = rows.iter().map(|r| r.1.as_str()).collect();
    for expected in [
        "totp_enrolment_started",
        "totp_enabled",
        "login_password_ok",
        "totp_failed",
        "totp_throttled",
    ] {
        assert!(actions.contains(&expected), "{expected} in {actions:?}");
    }
    assert!(
        rows.iter()
            .any(|r| r.1 == "login" && r.3 == "signed in with password and TOTP code"),
        "{rows:?}"
    );
    let secret_text = storefront::staff::totp::base32(&secret);
    assert!(
        rows.iter().all(|r| !r.3.contains(&secret_text)),
        "the secret is never audited"
    );
}

async fn a_recovery_code_signs_in_once_and_only_once(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    let owner = login_as(&app, OWNER).await;
    let (_, _, codes) = enrol(&owner, &app).await;

    // A login waits ten minutes for its second factor, no longer.
    let late = Browser::default();
    assert_eq!(password_step(&late, &app, OWNER).await, "/admin/login/totp");
    app.db
        .run(|conn| {
            diesel::update(admin_sessions::table.filter(admin_sessions::stage.eq("totp")))
                .set(admin_sessions::created_at_ms.eq(now_ms() - 11 * 60_000))
                .execute(conn)?;
            Ok::<_, DbError>(())
        })
        .await
        .expect("age");
    late.get(&app, "/admin/login/totp")
        .await
        .assert_redirect_to("/admin/login");

    let browser = Browser::default();
    assert_eq!(
        password_step(&browser, &app, OWNER).await,
        "/admin/login/totp"
    );
    // Typed loosely: upper case, spaces instead of dashes.
    let typed = codes[3].to_uppercase().replace('-', " ");
    post_code(&browser, &app, "/admin/login/totp", &typed)
        .await
        .assert_redirect_to("/admin/account/totp?recovery_left=9");
    let page = browser
        .get(&app, "/admin/account/totp?recovery_left=9")
        .await
        .assert_status(200)
        .body;
    assert!(page.contains("9 recovery code(s) left"), "{page}");
    assert_eq!(browser.get(&app, "/admin").await.status, 200);

    // The same recovery code again: refused.
    let other = Browser::default();
    assert_eq!(
        password_step(&other, &app, OWNER).await,
        "/admin/login/totp"
    );
    assert_eq!(
        post_code(&other, &app, "/admin/login/totp", &codes[3])
            .await
            .status,
        401,
        "a recovery code works once"
    );
    // Another one works.
    post_code(&other, &app, "/admin/login/totp", &codes[4])
        .await
        .assert_status(303);

    // New codes replace the old ones, shown once.
    let page = other.get(&app, "/admin/account/totp").await.body;
    let token = hidden(&page, "csrf_token");
    let page = other
        .post(
            &app,
            "/admin/account/totp/recovery-codes",
            &[("csrf_token", &token)],
        )
        .await
        .assert_status(200)
        .body;
    let renewed = marked(&page, "data-recovery-code>");
    assert_eq!(renewed.len(), 10);
    let third = Browser::default();
    assert_eq!(
        password_step(&third, &app, OWNER).await,
        "/admin/login/totp"
    );
    assert_eq!(
        post_code(&third, &app, "/admin/login/totp", &codes[5])
            .await
            .status,
        401,
        "the old codes stopped working"
    );
    post_code(&third, &app, "/admin/login/totp", &renewed[0])
        .await
        .assert_status(303);

    let stored: Vec<String> = app
        .db
        .run(|conn| {
            use storefront::db::schema::admin_recovery_codes as r;
            Ok::<_, DbError>(r::table.select(r::code_hash).load(conn)?)
        })
        .await
        .expect("codes");
    assert_eq!(stored.len(), 10);
    assert!(
        stored
            .iter()
            .all(|h| !renewed.iter().any(|c| h.contains(c.as_str()))),
        "only hashes are stored"
    );
    let rows = audit_rows(&app.db).await;
    assert!(
        rows.iter().any(
            |r| r.1 == "login" && r.3 == "signed in with password and a recovery code (9 left)"
        ),
        "{rows:?}"
    );
    assert!(rows.iter().any(|r| r.1 == "totp_recovery_codes_renewed"));
}

async fn user_id(db: &Db, email: &str) -> i64 {
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

async fn set_required(browser: &Browser, app: &TestApp, value: &str) -> crate::helpers::Answer {
    let page = browser.get(app, "/admin/users").await.body;
    let token = hidden(&page, "csrf_token");
    browser
        .post(
            app,
            "/admin/users/totp-required",
            &[("csrf_token", &token), ("required", value)],
        )
        .await
}

async fn an_owner_requiring_totp_sends_accounts_without_it_to_enrolment(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    create(&app.db, SUPPORT, Role::Support).await;
    let owner = login_as(&app, OWNER).await;
    let support_before = login_as(&app, SUPPORT).await;

    // Not before the owner has it: requiring it would sign the owner out too.
    let page = set_required(&owner, &app, "on")
        .await
        .assert_status(409)
        .body;
    assert!(
        page.contains("Turn TOTP on for your own account first"),
        "{page}"
    );
    // Support cannot require it.
    let token = support_before.csrf(&app).await;
    support_before
        .post(
            &app,
            "/admin/users/totp-required",
            &[("csrf_token", &token), ("required", "on")],
        )
        .await
        .assert_status(403);

    enrol(&owner, &app).await;
    set_required(&owner, &app, "on")
        .await
        .assert_redirect_to("/admin/users?done=totp-required");
    let users = owner.get(&app, "/admin/users").await.body;
    assert!(users.contains("data-totp-required=\"on\""), "{users}");
    assert!(users.contains(&format!("data-user=\"{SUPPORT}\"")));
    // The support account's session without TOTP ended.
    assert_eq!(support_before.get(&app, "/admin").await.status, 303);

    // Its next login may only enrol.
    let support = Browser::default();
    assert_eq!(
        password_step(&support, &app, SUPPORT).await,
        "/admin/account/totp"
    );
    for path in ["/admin", "/admin/orders", "/admin/account"] {
        support
            .get(&app, path)
            .await
            .assert_redirect_to("/admin/account/totp");
    }
    let page = support.get(&app, "/admin/account/totp").await.body;
    assert!(
        page.contains("requires two-factor sign-in for every console account"),
        "{page}"
    );
    let (_, _, codes) = enrol(&support, &app).await;
    assert_eq!(codes.len(), 10);
    assert_eq!(
        support.get(&app, "/admin/orders").await.status,
        200,
        "enrolled: in"
    );
    let users = owner.get(&app, "/admin/users").await.body;
    assert!(!users.contains("<td data-totp>off</td>"), "{users}");

    // Resetting another account's TOTP is an owner's action, and ends its sessions.
    let support_id = user_id(&app.db, SUPPORT).await;
    let owner_id = user_id(&app.db, OWNER).await;
    let token = support.csrf(&app).await;
    assert_eq!(
        support
            .post(
                &app,
                &format!("/admin/users/{owner_id}/reset-totp"),
                &[("csrf_token", &token)],
            )
            .await
            .status,
        403,
        "support cannot reset anyone's TOTP"
    );
    let page = owner
        .get(&app, &format!("/admin/users/{support_id}"))
        .await
        .body;
    assert!(page.contains("<dd data-totp>on</dd>"), "{page}");
    let token = hidden(&page, "csrf_token");
    // The first click asks; nothing changes until the owner confirms.
    let ask = owner
        .post(
            &app,
            &format!("/admin/users/{support_id}/reset-totp"),
            &[("csrf_token", &token)],
        )
        .await;
    assert_eq!(ask.status, 200, "{}", ask.body);
    assert!(
        ask.body
            .contains("Reset two-factor sign-in for this account?"),
        "{}",
        ask.body
    );
    assert_eq!(
        support.get(&app, "/admin").await.status,
        200,
        "asking ends nothing"
    );
    owner
        .post(
            &app,
            &format!("/admin/users/{support_id}/reset-totp"),
            &[("csrf_token", &token), ("confirmed", "yes")],
        )
        .await
        .assert_redirect_to(format!("/admin/users/{support_id}?done=totp-reset"));
    assert_eq!(
        support.get(&app, "/admin").await.status,
        303,
        "its session ended"
    );
    let page = owner
        .get(&app, &format!("/admin/users/{support_id}"))
        .await
        .body;
    assert!(page.contains("<dd data-totp>off</dd>"), "{page}");
    // Still required: the next login goes to enrolment again.
    let support = Browser::default();
    assert_eq!(
        password_step(&support, &app, SUPPORT).await,
        "/admin/account/totp"
    );

    let rows = audit_rows(&app.db).await;
    let actions: Vec<&str> = rows.iter().map(|r| r.1.as_str()).collect();
    for expected in ["totp_required", "totp_reset"] {
        assert!(actions.contains(&expected), "{expected} in {actions:?}");
    }
    assert!(
        rows.iter().any(|r| r.1 == "login_password_ok"
            && r.0 == SUPPORT
            && r.3.contains("sent to enrolment")),
        "{rows:?}"
    );

    // Turned off again, an account without TOTP signs in with its password alone.
    set_required(&owner, &app, "off").await.assert_status(303);
    let support = Browser::default();
    assert_eq!(password_step(&support, &app, SUPPORT).await, "/admin");
}

/// Sends `count` wrong passwords for the owner at once, from `browsers`; returns the statuses.
async fn burst(app: &Arc<TestApp>, browsers: Vec<Browser>) -> Vec<u16> {
    let mut prepared = Vec::new();
    for browser in browsers {
        let token = browser.csrf(app).await;
        prepared.push((browser, token));
    }
    let tasks: Vec<_> = prepared
        .into_iter()
        .enumerate()
        .map(|(i, (browser, token))| {
            let app = Arc::clone(app);
            tokio::spawn(async move {
                let guess = format!("wrong guess number {i}");
                browser
                    .post(
                        &app,
                        "/admin/login",
                        &[
                            ("email", OWNER),
                            ("password", &guess),
                            ("csrf_token", &token),
                        ],
                    )
                    .await
                    .status
            })
        })
        .collect();
    let mut statuses = Vec::new();
    for task in tasks {
        statuses.push(task.await.expect("task"));
    }
    statuses
}

fn tally(statuses: &[u16]) -> (usize, usize, usize) {
    let count = |s: u16| statuses.iter().filter(|&&x| x == s).count();
    let (wrong, throttled, busy) = (count(401), count(429), count(503));
    assert_eq!(
        wrong + throttled + busy,
        statuses.len(),
        "only wrong, throttled or busy: {statuses:?}"
    );
    (wrong, throttled, busy)
}

async fn fifty_parallel_wrong_passwords_verify_no_more_than_the_limit(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    let app = Arc::new(app);

    // From one address: five guesses are verified, the other 45 are throttled unverified.
    let statuses = burst(
        &app,
        (0..50)
            .map(|_| Browser::from_address("127.0.0.2"))
            .collect(),
    )
    .await;
    let (wrong, throttled, _) = tally(&statuses);
    assert!(
        wrong <= 5,
        "{wrong} verified from one address: {statuses:?}"
    );
    assert!(throttled >= 45, "{statuses:?}");
    let failed_in_audit = audit_rows(&app.db)
        .await
        .iter()
        .filter(|r| r.1 == "login_failed")
        .count();
    assert_eq!(failed_in_audit, wrong, "every verified guess is audited");

    // From fifty addresses at once: the account's own ceiling (10 in 15 minutes) holds.
    let statuses = burst(
        &app,
        (10..60)
            .map(|i| Browser::from_address(&format!("127.0.1.{i}")))
            .collect(),
    )
    .await;
    let (more_wrong, throttled, _) = tally(&statuses);
    assert!(
        wrong + more_wrong <= 10,
        "{} verified for one account: {statuses:?}",
        wrong + more_wrong
    );
    assert!(throttled >= 40, "{statuses:?}");

    // The owner, too, waits now: the answer is the throttle's, the password is not checked.
    let owner = Browser::from_address("127.0.0.3");
    let Answer {
        body: page,
        headers,
        ..
    } = owner.login(&app, OWNER, PASSWORD).await.assert_status(429);
    assert!(page.contains("Wait 15 minutes"), "{page}");
    assert_eq!(headers["retry-after"], "900");
}

/// `storefront keys rotate` moves TOTP secrets to the current key too, so dropping the previous
/// key does not lock anyone out; a secret no key given opens is reported, not lost.
async fn keys_rotate_reseals_totp_secrets(backend: Backend) {
    use storefront::config::SecretKey;
    use storefront::staff::totp::{self, TotpKeys};
    use storefront::staff::{Admin, Stage};

    let Some(app) = spawn_app(backend).await else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    let (a, b, c) = (
        SecretKey::generate(),
        SecretKey::generate(),
        SecretKey::generate(),
    );
    let admin = Admin {
        user_id: user_id(&app.db, OWNER).await,
        email: OWNER.into(),
        role: Role::Owner,
        session_hash: "0".repeat(64),
        stage: Stage::Full,
    };
    let under_a = TotpKeys::derive(&a, &[]);
    let enrolment = totp::start_enrolment(&app.db, &under_a, &admin, "local")
        .await
        .expect("enrol");
    assert!(!format!("{enrolment:?}").contains(enrolment.secret_base32.expose().as_str()));
    let secret = totp_rs::Secret::Encoded(enrolment.secret_base32.expose().clone())
        .to_bytes()
        .expect("base32");
    totp::confirm_enrolment(
        &app.db,
        &under_a,
        &admin,
        "local",
        &code_at_step(&secret, step_now()),
    )
    .await
    .expect("confirm");

    let rotation = totp::rotate(&app.db, &TotpKeys::derive(&b, std::slice::from_ref(&a)))
        .await
        .expect("rotate");
    assert_eq!((rotation.resealed, rotation.unreadable.len()), (1, 0));
    let again = totp::rotate(&app.db, &TotpKeys::derive(&b, &[]))
        .await
        .expect("rotate");
    assert_eq!(
        (again.resealed, again.unreadable.len()),
        (0, 0),
        "all under B now"
    );
    let lost = totp::rotate(&app.db, &TotpKeys::derive(&c, &[]))
        .await
        .expect("rotate");
    assert_eq!(lost.unreadable, vec![admin.user_id]);
}
