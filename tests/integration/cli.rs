//! The binary as an operator runs it: configuration errors, `migrate`, and `serve` from start
//! to a graceful SIGTERM.

use std::io::{BufRead, BufReader};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::both_backends;
use crate::helpers::{Backend, TestDb};

pub(crate) fn storefront() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_storefront"));
    for (key, _) in std::env::vars() {
        if key.starts_with("STOREFRONT_") {
            cmd.env_remove(key);
        }
    }
    cmd.env("RUST_LOG", "warn");
    cmd
}

fn valid_env(cmd: &mut Command, database_url: &str) {
    cmd.env("STOREFRONT_DATABASE_URL", database_url)
        .env("STOREFRONT_BIND", "127.0.0.1:0")
        .env("STOREFRONT_PUBLIC_URL", "http://127.0.0.1:8080")
        .env("STOREFRONT_UPSTREAM_BASE_URL", "http://127.0.0.1:9/api/v1")
        .env("STOREFRONT_UPSTREAM_API_KEY", "sk_test_cli")
        .env("STOREFRONT_SECRET_KEY", "cd".repeat(32))
        .env("STOREFRONT_PAYMENTS", "demo")
        .env("STOREFRONT_MAIL_DIR", "/tmp/storefront-test-mail")
        .env("STOREFRONT_MAIL_FROM", "shop@example.com");
}

pub(crate) fn stderr_lines(out: &Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn unsupported_database_scheme_exits_2_with_one_line() {
    let out = storefront()
        .arg("serve")
        .env("STOREFRONT_DATABASE_URL", "mysql://x")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr_lines(&out),
        vec![
            "STOREFRONT_DATABASE_URL: unsupported scheme \"mysql\" (use sqlite:// or postgres://)"
                .to_string()
        ]
    );
}

#[test]
fn malformed_secret_key_exits_2_naming_it_without_echoing_it() {
    let dir = tempfile::tempdir().expect("dir");
    let mut cmd = storefront();
    valid_env(&mut cmd, &format!("sqlite://{}/x.db", dir.path().display()));
    let out = cmd
        .arg("serve")
        .env("STOREFRONT_SECRET_KEY", "not-a-key-1234")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let lines = stderr_lines(&out);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].starts_with("STOREFRONT_SECRET_KEY: "), "{lines:?}");
    assert!(!lines[0].contains("not-a-key-1234"));
}

#[test]
fn missing_setting_exits_2() {
    let dir = tempfile::tempdir().expect("dir");
    let mut cmd = storefront();
    valid_env(&mut cmd, &format!("sqlite://{}/x.db", dir.path().display()));
    let out = cmd
        .arg("serve")
        .env_remove("STOREFRONT_PUBLIC_URL")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr_lines(&out),
        vec!["STOREFRONT_PUBLIC_URL: is required but not set".to_string()]
    );
}

#[test]
fn config_file_values_are_used_and_the_environment_wins() {
    let dir = tempfile::tempdir().expect("dir");
    let file = dir.path().join("storefront.toml");
    std::fs::write(&file, "database_url = \"mysql://nope\"\n").expect("write");
    let out = storefront()
        .args(["migrate", "--config"])
        .arg(&file)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2), "{:?}", stderr_lines(&out));
    let db = format!("sqlite://{}/from-env.db", dir.path().display());
    let out = storefront()
        .args(["migrate", "--config"])
        .arg(&file)
        .env("STOREFRONT_DATABASE_URL", &db)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0), "{:?}", stderr_lines(&out));
    assert!(dir.path().join("from-env.db").exists());
}

both_backends!(
    migrate_applies_then_reports_up_to_date,
    serve_starts_and_stops_on_sigterm
);

async fn migrate_applies_then_reports_up_to_date(backend: Backend) {
    let Some(test_db) = TestDb::new(backend) else {
        return;
    };
    let run = || {
        storefront()
            .arg("migrate")
            .env("STOREFRONT_DATABASE_URL", &test_db.url_text)
            .output()
            .expect("run")
    };
    let first = run();
    assert!(first.status.success(), "{:?}", stderr_lines(&first));
    let stdout = String::from_utf8_lossy(&first.stdout);
    assert!(stdout.contains("applied"), "{stdout}");
    assert!(
        !stdout.contains("postgres@"),
        "no credentials in output: {stdout}"
    );
    let second = run();
    assert!(second.status.success());
    assert!(String::from_utf8_lossy(&second.stdout).contains("up to date"));
    test_db
        .open()
        .check_ready()
        .await
        .expect("migrated by the CLI");
}

async fn serve_starts_and_stops_on_sigterm(backend: Backend) {
    let Some(test_db) = TestDb::new(backend) else {
        return;
    };
    let mut cmd = storefront();
    valid_env(&mut cmd, &test_db.url_text);
    let mut child = cmd
        .arg("serve")
        .env("RUST_LOG", "info")
        .env("STOREFRONT_LOG_FORMAT", "json")
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn serve");
    let stderr = child.stderr.take().expect("stderr");
    let mut lines = BufReader::new(stderr).lines();
    let port = loop {
        let line = lines
            .next()
            .expect("serve logs before exiting")
            .expect("utf-8 log line");
        let event: serde_json::Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("json log line expected ({e}): {line}"));
        if event["message"] == "storefront is serving" {
            break event["port"].as_u64().expect("port field");
        }
    };
    let health = reqwest::get(format!("http://127.0.0.1:{port}/healthz"))
        .await
        .expect("healthz");
    assert_eq!(health.status(), 200);
    let ready = reqwest::get(format!("http://127.0.0.1:{port}/readyz"))
        .await
        .expect("readyz");
    assert_eq!(ready.status(), 200, "serve applied the migrations itself");

    let sent = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(sent.success());
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "serve did not exit within 30 s of SIGTERM"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(status.code(), Some(0));
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    assert!(
        rest.iter().any(|l| l.contains("storefront stopped")),
        "{rest:?}"
    );
    for line in &rest {
        assert!(!line.contains("sk_test_cli"), "the API key leaked: {line}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn demo_serves_a_stocked_shop_and_keeps_its_secret_key() {
    let dir = tempfile::tempdir().expect("dir");
    let run_demo = || {
        let mut child = storefront()
            .args(["demo", "--data"])
            .arg(dir.path().join("data"))
            .env("STOREFRONT_BIND", "127.0.0.1:0")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn demo");
        let stdout = child.stdout.take().expect("stdout");
        let mut lines = BufReader::new(stdout).lines();
        let shop = loop {
            let line = lines
                .next()
                .expect("demo prints its addresses")
                .expect("utf-8");
            if let Some(url) = line.trim().strip_prefix("shop:") {
                break url.trim().to_string();
            }
        };
        (child, shop)
    };
    let stop = |child: &mut std::process::Child| {
        Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .expect("kill");
        let status = child.wait().expect("wait");
        assert_eq!(status.code(), Some(0), "demo exits cleanly on SIGTERM");
    };

    let (mut child, shop) = run_demo();
    let home = reqwest::get(format!("{shop}/"))
        .await
        .expect("home")
        .text()
        .await
        .expect("body");
    assert!(
        home.contains("Popular destinations"),
        "the demo catalog is stocked: {home}"
    );
    let key_path = dir.path().join("data/secret.key");
    let key = std::fs::read_to_string(&key_path).expect("secret key kept in the data folder");
    assert_eq!(key.trim().len(), 64);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&key_path)
            .expect("meta")
            .permissions()
            .mode();
        assert_eq!(mode & 0o077, 0, "the key file is private to its owner");
    }
    assert!(dir.path().join("data/storefront.db").exists());
    stop(&mut child);

    let (mut child, shop) = run_demo();
    assert_eq!(
        reqwest::get(format!("{shop}/readyz"))
            .await
            .expect("readyz")
            .status(),
        200
    );
    assert_eq!(
        std::fs::read_to_string(&key_path).expect("key"),
        key,
        "same key after restart"
    );
    stop(&mut child);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn catalog_sync_fills_the_database_and_reports_failures_in_one_line() {
    let Some(test_db) = TestDb::new(Backend::Sqlite) else {
        return;
    };
    let (upstream, key) = crate::helpers::spawn_sandbox(130).await;
    let run = |key: String| {
        let url = test_db.url_text.clone();
        let base = upstream.base_url.clone();
        tokio::task::spawn_blocking(move || {
            storefront()
                .args(["catalog", "sync"])
                .env("STOREFRONT_DATABASE_URL", url)
                .env("STOREFRONT_UPSTREAM_BASE_URL", base)
                .env("STOREFRONT_UPSTREAM_API_KEY", key)
                .output()
                .expect("run")
        })
    };
    let ok = run(key.clone()).await.expect("join");
    assert!(ok.status.success(), "{:?}", stderr_lines(&ok));
    let stdout = String::from_utf8_lossy(&ok.stdout);
    assert!(stdout.starts_with("synced 130 plans"), "{stdout}");

    let catalog = storefront::catalog::Catalog::new(test_db.open(), 2500);
    assert_eq!(catalog.reload().await.expect("reload").plans().len(), 130);

    let wrong = run("sk_wrong_key".to_string()).await.expect("join");
    assert_eq!(wrong.status.code(), Some(1));
    let lines = stderr_lines(&wrong);
    let errors: Vec<&String> = lines.iter().filter(|l| !l.contains(" WARN ")).collect();
    assert_eq!(errors.len(), 1, "{lines:?}");
    assert!(errors[0].contains("401"), "{lines:?}");
    assert!(
        !lines.iter().any(|l| l.contains("sk_wrong_key")),
        "the key never reaches output"
    );
    assert_eq!(
        catalog.reload().await.expect("reload").plans().len(),
        130,
        "a failed sync leaves the catalog"
    );
}
