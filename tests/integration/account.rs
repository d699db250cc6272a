//! The supplier account (`GET /account`): unsafe pairs of payment settings and upstream
//! environment refused at start, the account stored for every replica and shown to the owner
//! with its warnings, and checkout held while the account is unknown or forms an unsafe pair.

use std::io::{BufRead, BufReader};
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use diesel::prelude::*;
use storefront::db::schema::{alerts, purchases};
use storefront::db::{Db, DbError};
use storefront::sandbox::{AccountChange, SandboxHandle, Scope};
use storefront::staff::Role;

use crate::admin::{OWNER, PASSWORD, create, login_as};
use crate::both_backends;
use crate::cli::{stderr_lines, storefront};
use crate::helpers::{Backend, Browser, TestApp, spawn_app_with, spawn_sandbox};
use crate::journeys;

/// `storefront serve` against `upstream`, on a fresh SQLite file in the returned folder, with
/// `extra` settings.
fn serve_command(
    upstream: &SandboxHandle,
    key: &str,
    extra: &[(&str, &str)],
) -> (std::process::Command, tempfile::TempDir) {
    let folder = tempfile::tempdir().expect("temp dir");
    let dir = folder.path();
    let mut cmd = storefront();
    cmd.arg("serve")
        .env(
            "STOREFRONT_DATABASE_URL",
            format!("sqlite://{}/shop.db", dir.display()),
        )
        .env("STOREFRONT_BIND", "127.0.0.1:0")
        .env("STOREFRONT_PUBLIC_URL", "http://127.0.0.1:8080")
        .env("STOREFRONT_UPSTREAM_BASE_URL", &upstream.base_url)
        .env("STOREFRONT_UPSTREAM_API_KEY", key)
        .env("STOREFRONT_SECRET_KEY", "cd".repeat(32))
        .env("STOREFRONT_PAYMENTS", "demo")
        .env("STOREFRONT_MAIL_DIR", dir.join("mail"))
        .env("STOREFRONT_MAIL_FROM", "shop@example.com");
    for (k, v) in extra {
        cmd.env(k, v);
    }
    (cmd, folder)
}

/// Asserts that the command stopped at start with exit 2 and one line beginning `start`, and
/// returns that line.
fn refused_at_start(out: &Output, start: &str) -> String {
    let lines = stderr_lines(out);
    assert_eq!(out.status.code(), Some(2), "{lines:?}");
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].starts_with(start), "{lines:?}");
    lines[0].clone()
}

/// Runs the command to its end off the runtime (the sandbox keeps serving meanwhile). A shop
/// that starts serving instead of refusing is stopped after 30 s and the test fails.
async fn run_to_end((mut cmd, _dir): (std::process::Command, tempfile::TempDir)) -> Output {
    let child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run storefront");
    let pid = child.id().to_string();
    let waiting = tokio::task::spawn_blocking(move || child.wait_with_output().expect("wait"));
    match tokio::time::timeout(Duration::from_secs(30), waiting).await {
        Ok(out) => out.expect("join"),
        Err(_) => {
            let _ = std::process::Command::new("kill")
                .args(["-KILL", &pid])
                .status();
            panic!("storefront kept running: the pair was not refused at start");
        }
    }
}

const LIVE_STRIPE: [(&str, &str); 3] = [
    ("STOREFRONT_PAYMENTS", "stripe"),
    ("STOREFRONT_STRIPE_WEBHOOK_SECRET", "whsec_account_test"),
    ("STOREFRONT_STRIPE_API_BASE", "http://127.0.0.1:9"),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn demo_payments_with_a_production_account_stop_the_start_with_one_line() {
    let (upstream, key) = spawn_sandbox(5).await;
    upstream.sandbox.set_account(AccountChange {
        environment: Some("production".into()),
        ..AccountChange::default()
    });
    let out = run_to_end(serve_command(&upstream, &key, &[])).await;
    let line = refused_at_start(
        &out,
        "STOREFRONT_PAYMENTS: demo payments cannot be used with a production upstream account",
    );
    assert!(line.contains("STOREFRONT_UPSTREAM_API_KEY"), "{line}");
    assert!(!line.contains(&key), "the key is never printed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_stripe_keys_with_a_sandbox_account_stop_the_start_unless_staging() {
    let (upstream, key) = spawn_sandbox(5).await;
    for live_key in ["sk_live_account_test_1", "rk_live_account_test_2"] {
        let mut settings = LIVE_STRIPE.to_vec();
        settings.push(("STOREFRONT_STRIPE_SECRET_KEY", live_key));
        let out = run_to_end(serve_command(&upstream, &key, &settings)).await;
        let line = refused_at_start(
            &out,
            "STOREFRONT_STRIPE_SECRET_KEY: a live Stripe key cannot be used with a sandbox \
             upstream account",
        );
        assert!(
            line.contains("STOREFRONT_ALLOW_LIVE_PAYMENTS_WITH_SANDBOX=true"),
            "the override is named: {line}"
        );
        assert!(!line.contains(live_key), "the key is never printed");
    }

    // A test key with the same sandbox starts (and is stopped here at once).
    let mut test_key = LIVE_STRIPE.to_vec();
    test_key.push(("STOREFRONT_STRIPE_SECRET_KEY", "sk_test_account"));
    serves_then_stops(serve_command(&upstream, &key, &test_key)).await;

    // The staging override lets the live key start against the sandbox.
    let mut staging = LIVE_STRIPE.to_vec();
    staging.push(("STOREFRONT_STRIPE_SECRET_KEY", "sk_live_account_test_1"));
    staging.push(("STOREFRONT_ALLOW_LIVE_PAYMENTS_WITH_SANDBOX", "true"));
    serves_then_stops(serve_command(&upstream, &key, &staging)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stripe_test_keys_with_a_production_account_stop_the_start_unless_overridden() {
    let (upstream, key) = spawn_sandbox(5).await;
    upstream.sandbox.set_account(AccountChange {
        environment: Some("production".into()),
        ..AccountChange::default()
    });
    for test_key in ["sk_test_account_1", "rk_test_account_2"] {
        let mut settings = LIVE_STRIPE.to_vec();
        settings.push(("STOREFRONT_STRIPE_SECRET_KEY", test_key));
        let out = run_to_end(serve_command(&upstream, &key, &settings)).await;
        let line = refused_at_start(
            &out,
            "STOREFRONT_STRIPE_SECRET_KEY: a Stripe test key (sk_test_…, rk_test_…) cannot be \
             used with a production upstream account",
        );
        assert!(
            line.contains("STOREFRONT_ALLOW_STRIPE_TEST_KEYS_WITH_PRODUCTION=true"),
            "the override is named: {line}"
        );
        assert!(!line.contains(test_key), "the key is never printed");
    }

    let mut checked = LIVE_STRIPE.to_vec();
    checked.push(("STOREFRONT_STRIPE_SECRET_KEY", "sk_test_account_1"));
    checked.push(("STOREFRONT_ALLOW_STRIPE_TEST_KEYS_WITH_PRODUCTION", "true"));
    serves_then_stops(serve_command(&upstream, &key, &checked)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn demo_payments_with_an_unfamiliar_environment_stop_the_start_unless_it_is_named() {
    let (upstream, key) = spawn_sandbox(5).await;
    upstream.sandbox.set_account(AccountChange {
        environment: Some("live".into()),
        ..AccountChange::default()
    });
    let out = run_to_end(serve_command(&upstream, &key, &[])).await;
    let line = refused_at_start(
        &out,
        "STOREFRONT_PAYMENTS: demo payments cannot be used with an upstream account whose \
         environment is neither sandbox nor production",
    );
    assert!(
        line.contains("STOREFRONT_ALLOW_TEST_PAYMENTS_WITH_ENVIRONMENT"),
        "the override is named: {line}"
    );

    // Naming another environment vouches for that one only.
    let out = run_to_end(serve_command(
        &upstream,
        &key,
        &[("STOREFRONT_ALLOW_TEST_PAYMENTS_WITH_ENVIRONMENT", "staging")],
    ))
    .await;
    assert_eq!(out.status.code(), Some(2), "{:?}", stderr_lines(&out));

    upstream.sandbox.set_account(AccountChange {
        environment: Some("staging".into()),
        ..AccountChange::default()
    });
    serves_then_stops(serve_command(
        &upstream,
        &key,
        &[("STOREFRONT_ALLOW_TEST_PAYMENTS_WITH_ENVIRONMENT", "staging")],
    ))
    .await;
}

/// Waits for the "storefront is serving" log line, then SIGTERM and a clean exit.
async fn serves_then_stops((mut cmd, _dir): (std::process::Command, tempfile::TempDir)) {
    let mut child = cmd
        .env("RUST_LOG", "info")
        .env("STOREFRONT_LOG_FORMAT", "json")
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn serve");
    let stderr = child.stderr.take().expect("stderr");
    // The log is read to its end: a closed pipe would make the shop's last lines fail.
    let (port_tx, port_rx) = tokio::sync::oneshot::channel();
    let log = std::thread::spawn(move || {
        let mut port_tx = Some(port_tx);
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let event: serde_json::Value = serde_json::from_str(&line).unwrap_or_default();
            if event["message"] == "storefront is serving"
                && let Some(tx) = port_tx.take()
            {
                let _ = tx.send(event["port"].as_u64());
            }
        }
    });
    let port = tokio::time::timeout(Duration::from_secs(30), port_rx)
        .await
        .expect("serve logs within 30 s")
        .ok()
        .flatten();
    // It answers before it is stopped (a signal before the server runs is not graceful).
    let serving = match port {
        Some(port) => reqwest::get(format!("http://127.0.0.1:{port}/healthz"))
            .await
            .is_ok_and(|r| r.status() == 200),
        None => false,
    };
    let status = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill");
    let code = tokio::task::spawn_blocking(move || {
        let code = child.wait().expect("wait").code();
        let _ = log.join();
        code
    })
    .await
    .expect("join");
    assert!(serving, "serve started (exit {code:?})");
    assert!(status.success());
    assert_eq!(code, Some(0));
}

/// The shop on `backend` with `upstream` as its Partner API (read at start as it is now).
async fn shop_on(backend: Backend, upstream: &SandboxHandle, key: &str) -> Option<TestApp> {
    spawn_app_with(
        backend,
        &[
            ("STOREFRONT_UPSTREAM_BASE_URL", upstream.base_url.as_str()),
            ("STOREFRONT_UPSTREAM_API_KEY", key),
            (
                "STOREFRONT_UPSTREAM_WEBHOOK_TOKEN",
                "account-test-webhook-token-0123456789",
            ),
            ("STOREFRONT_METRICS_TOKEN", OPERATOR_TOKEN),
        ],
    )
    .await
}

/// The operator's credential (`STOREFRONT_METRICS_TOKEN`) that opens `/readyz`'s detail.
const OPERATOR_TOKEN: &str = "account-test-operator-token-0123456789";

/// `/readyz` as the operator sees it, with the account's detail.
async fn readyz(app: &TestApp) -> serde_json::Value {
    let res = app
        .client
        .get(app.url("/readyz"))
        .bearer_auth(OPERATOR_TOKEN)
        .send()
        .await
        .expect("readyz");
    assert_eq!(res.status(), 200, "account facts never fail readiness");
    res.json().await.expect("json")
}

/// `/readyz` as anyone sees it (a wrong token is anyone): ready, and whether checkout is open,
/// but nothing about the supplier account or the settings.
async fn public_readyz(app: &TestApp, token: Option<&str>) -> serde_json::Value {
    let mut req = app.client.get(app.url("/readyz"));
    if let Some(token) = token {
        req = req.bearer_auth(token);
    }
    let res = req.send().await.expect("readyz");
    assert_eq!(res.status(), 200);
    let body: serde_json::Value = res.json().await.expect("json");
    let text = body.to_string();
    for secret in [
        "environment",
        "sandbox",
        "production",
        "keyExpiresAt",
        "missingScopes",
        "esims:install",
        "STOREFRONT_",
        "lastChecked",
    ] {
        assert!(
            !text.contains(secret),
            "{secret} in the public /readyz: {text}"
        );
    }
    assert_eq!(body["ready"], true, "{text}");
    body
}

both_backends!(
    the_account_is_stored_and_its_warnings_reach_the_owner,
    checkout_waits_for_the_account_when_upstream_fails_at_start,
    an_unsafe_account_found_later_keeps_checkout_refused_and_alerts_the_owner
);

async fn the_account_is_stored_and_its_warnings_reach_the_owner(backend: Backend) {
    let (upstream, key) = spawn_sandbox(5).await;
    let scopes: Vec<Scope> = Scope::ALL
        .into_iter()
        .filter(|s| !matches!(s.as_str(), "esims:install" | "balance:write"))
        .collect();
    upstream.sandbox.set_account(AccountChange {
        scopes: Some(scopes),
        key_expires_in: Some(time::Duration::days(5) + time::Duration::hours(1)),
        ..AccountChange::default()
    });
    let Some(app) = shop_on(backend, &upstream, &key).await else {
        return;
    };

    // Stored in the one shared row.
    let row = app
        .db
        .run(storefront::db::supplier_account::get)
        .await
        .expect("read")
        .expect("the account was stored at start");
    assert_eq!(row.environment, "sandbox");
    assert!(row.scopes.contains("orders:write"), "{}", row.scopes);
    assert!(!row.scopes.contains("esims:install"), "{}", row.scopes);
    assert!(!row.webhook_enabled);
    let expires = row
        .key_expires_at_ms
        .expect("the sandbox's RFC 3339 expiry was read");
    let in_days = (expires - storefront::db::now_ms()) / 86_400_000;
    assert_eq!(in_days, 5, "{}", row.key_expires_at);
    assert!(row.last_error.is_none());

    // The public /readyz says nothing about the account; the operator's names the facts
    // without failing on them.
    let public = public_readyz(&app, None).await;
    assert_eq!(public["account"]["checkout"], "open", "{public}");
    public_readyz(&app, Some("account-test-operator-token-012345678X")).await;
    let ready = readyz(&app).await;
    assert_eq!(ready["account"]["environment"], "sandbox");
    assert_eq!(
        ready["account"]["missingScopes"],
        serde_json::json!(["esims:install"])
    );
    assert_eq!(
        ready["account"]["keyExpiresAt"],
        row.key_expires_at.as_str()
    );
    assert!(ready["account"]["lastChecked"].is_string(), "{ready}");
    assert_eq!(ready["account"]["checkout"], "open");

    // The owner sees the account and each warning on the dashboard.
    create(&app.db, OWNER, Role::Owner).await;
    let owner = login_as(&app, OWNER).await;
    let page = owner.get(&app, "/admin").await.assert_status(200).body;
    assert!(page.contains("Supplier account"), "{page}");
    assert!(page.contains("data-environment=\"sandbox\""), "{page}");
    assert!(
        page.contains("The upstream API key expires on") && page.contains("in 5 days"),
        "expiry warning: {page}"
    );
    assert!(
        page.contains("lacks the scope esims:install that the shop needs to sell"),
        "missing scope: {page}"
    );
    assert!(
        page.contains("lacks the scope balance:write: wallet top-ups"),
        "softer top-up warning: {page}"
    );
    assert!(
        page.contains("STOREFRONT_UPSTREAM_WEBHOOK_TOKEN is set, but the upstream account has webhooks turned off"),
        "webhook warning: {page}"
    );
    assert!(!page.contains("Checkout is refused"), "{page}");
}

/// A plan the demo provider can sell, once the catalog has loaded.
async fn sellable(app: &TestApp) -> storefront::catalog::ShopPlan {
    let started = Instant::now();
    loop {
        if let Some(plan) = app.catalog.snapshot().plans().iter().find(|p| {
            p.is_sellable() && p.price.is_some_and(|c| c.get() >= 100) && p.cost.get() < 20_000
        }) {
            return plan.clone();
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "catalog did not load"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Submits the plan page's form as a consumer would.
async fn buy(app: &TestApp, plan: &storefront::catalog::ShopPlan) -> (u16, String) {
    let answer = journeys::buy(app, &Browser::default(), plan, "buyer@example.com").await;
    (answer.status, answer.body)
}

async fn purchase_count(db: &Db) -> i64 {
    db.run(|conn| {
        purchases::table
            .count()
            .get_result::<i64>(conn)
            .map_err(DbError::from)
    })
    .await
    .expect("count")
}

/// Polls `/readyz` until this process's checkout verdict is `want` (a prefix).
async fn wait_for_checkout(app: &TestApp, want: &str) -> serde_json::Value {
    let started = Instant::now();
    loop {
        let ready = readyz(app).await;
        if ready["account"]["checkout"]
            .as_str()
            .is_some_and(|c| c.starts_with(want))
        {
            return ready;
        }
        assert!(
            started.elapsed() < Duration::from_secs(45),
            "checkout never became {want:?}: {ready}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

async fn checkout_waits_for_the_account_when_upstream_fails_at_start(backend: Backend) {
    let (upstream, key) = spawn_sandbox(20).await;
    upstream.sandbox.set_account(AccountChange {
        failing: Some(true),
        ..AccountChange::default()
    });
    let Some(app) = shop_on(backend, &upstream, &key).await else {
        return;
    };
    let plan = sellable(&app).await;

    // The shop serves its pages, but no sale starts while the account is unknown.
    let ready = readyz(&app).await;
    assert!(ready["account"]["environment"].is_null(), "{ready}");
    assert!(
        ready["account"]["checkout"]
            .as_str()
            .is_some_and(|c| c.starts_with("refused: the supplier account has not been read")),
        "{ready}"
    );
    let (status, page) = buy(&app, &plan).await;
    assert_eq!(status, 409, "{page}");
    assert!(page.contains("Temporarily unavailable"), "{page}");
    assert!(page.contains("confirm our supplier account"), "{page}");
    assert!(page.contains("Nothing was charged"), "{page}");
    assert_eq!(purchase_count(&app.db).await, 0, "nothing was written");

    // The owner is told why.
    create(&app.db, OWNER, Role::Owner).await;
    let owner = Browser::default();
    owner.login(&app, OWNER, PASSWORD).await;
    let dashboard = owner.get(&app, "/admin").await.body;
    assert!(
        dashboard.contains("Checkout is refused until the supplier account has been read"),
        "{dashboard}"
    );

    // Once upstream answers, the background re-check reads the account and sales open.
    upstream.sandbox.set_account(AccountChange {
        failing: Some(false),
        ..AccountChange::default()
    });
    let ready = wait_for_checkout(&app, "open").await;
    assert_eq!(ready["account"]["environment"], "sandbox");
    let (status, page) = buy(&app, &plan).await;
    assert_eq!(status, 303, "{page}");
    assert_eq!(purchase_count(&app.db).await, 1);
}

async fn an_unsafe_account_found_later_keeps_checkout_refused_and_alerts_the_owner(
    backend: Backend,
) {
    let (upstream, key) = spawn_sandbox(20).await;
    upstream.sandbox.set_account(AccountChange {
        failing: Some(true),
        ..AccountChange::default()
    });
    let Some(app) = shop_on(backend, &upstream, &key).await else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    let plan = sellable(&app).await;

    // Demo payments, and the account turns out to be a production one.
    upstream.sandbox.set_account(AccountChange {
        failing: Some(false),
        environment: Some("production".into()),
        ..AccountChange::default()
    });
    let ready = wait_for_checkout(&app, "refused: the supplier account does not match").await;
    assert_eq!(ready["account"]["environment"], "production");
    let public = public_readyz(&app, None).await;
    assert_eq!(
        public["account"]["checkout"], "refused",
        "and no reason: {public}"
    );
    let (status, page) = buy(&app, &plan).await;
    assert_eq!(status, 409, "{page}");
    assert!(page.contains("Temporarily unavailable"), "{page}");
    assert_eq!(purchase_count(&app.db).await, 0);

    let kinds: Vec<String> = app
        .db
        .run(|conn| {
            alerts::table
                .filter(alerts::resolved_at_ms.is_null())
                .select(alerts::kind)
                .load(conn)
                .map_err(DbError::from)
        })
        .await
        .expect("alerts");
    assert_eq!(kinds, vec!["unsafe_account".to_string()]);

    let owner = Browser::default();
    owner.login(&app, OWNER, PASSWORD).await;
    let dashboard = owner.get(&app, "/admin").await.body;
    assert!(
        dashboard.contains("Checkout is refused: the supplier account does not match the payment settings. STOREFRONT_PAYMENTS: demo payments"),
        "{dashboard}"
    );
    assert!(
        dashboard.contains("data-environment=\"production\""),
        "{dashboard}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sandbox_control_api_changes_what_get_account_reports() {
    let (upstream, key) = spawn_sandbox(5).await;
    let http = reqwest::Client::new();
    let control = |body: serde_json::Value| {
        http.post(format!("{}/_sandbox/account", upstream.origin))
            .bearer_auth(&key)
            .json(&body)
            .send()
    };
    let account = || {
        http.get(format!("{}/account", upstream.base_url))
            .bearer_auth(&key)
            .send()
    };

    let res = control(serde_json::json!({
        "environment": "production",
        "scopes": ["catalog:read", "balance:read"],
        "keyExpiresInSecs": 86_400
    }))
    .await
    .expect("control");
    assert_eq!(res.status(), 200);
    let body: serde_json::Value = account()
        .await
        .expect("account")
        .json()
        .await
        .expect("json");
    assert_eq!(body["environment"], "production");
    assert_eq!(
        body["scopes"],
        serde_json::json!(["catalog:read", "balance:read"])
    );
    let expires = storefront::wallet::supplier_account::parse_timestamp_ms(
        body["keyExpiresAt"].as_str().expect("text"),
    )
    .expect("RFC 3339");
    let hours = (expires - storefront::db::now_ms()) / 3_600_000;
    assert!((23..=24).contains(&hours), "{body}");
    // The scopes are the key's own: an endpoint outside them is refused.
    let orders = http
        .get(format!("{}/orders", upstream.base_url))
        .bearer_auth(&key)
        .send()
        .await
        .expect("orders");
    assert_eq!(orders.status(), 403);

    let res = control(serde_json::json!({"failing": true}))
        .await
        .expect("control");
    assert_eq!(res.status(), 200);
    assert_eq!(account().await.expect("account").status(), 503);
    control(serde_json::json!({"failing": false}))
        .await
        .expect("control");
    assert_eq!(account().await.expect("account").status(), 200);

    let refused = control(serde_json::json!({"environment": "Prod!"}))
        .await
        .expect("control");
    assert_eq!(refused.status(), 400);
    let refused = control(serde_json::json!({"colour": "red"}))
        .await
        .expect("control");
    assert_eq!(refused.status(), 400, "unknown fields are refused");
}
