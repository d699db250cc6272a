//! Staff accounts made through the binary: `storefront admin create-user` and its password
//! policy, `admin reset-totp`, and the demo's owner account, whose password is printed on first
//! start only.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use diesel::prelude::*;
use storefront::db::DbError;
use storefront::staff::NewPassword;

use crate::admin::{OWNER, PASSWORD, login_as};
use crate::both_backends;
use crate::helpers::{Backend, TestDb, spawn_app_on};

both_backends!(create_user_through_the_binary,);

fn storefront_binary() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_storefront"));
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default());
    cmd
}

/// Runs `storefront admin create-user` with `password` on stdin.
pub(crate) fn create_user_cli(
    url: &str,
    email: &str,
    role: &str,
    password: &str,
) -> std::process::Output {
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

fn reset_totp_cli(url: &str, email: &str) -> std::process::Output {
    storefront_binary()
        .args(["admin", "reset-totp", "--email", email])
        .env("STOREFRONT_DATABASE_URL", url)
        .output()
        .expect("run")
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
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("created owner account"), "{stdout}");
    assert!(
        stdout.contains("two-factor sign-in (TOTP): not set up; set it up in the console"),
        "{stdout}"
    );
    let out = create_user_cli(&url, "OWNER@example.com", "support", PASSWORD);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("already exists"));

    let db = test_db.migrated().await;
    let app = spawn_app_on(test_db, db).await;
    let owner = login_as(&app, OWNER).await;

    // The last owner lost their phone and recovery codes: the command line resets TOTP.
    crate::admin_totp::enrol(&owner, &app).await;
    let browser = crate::admin::Browser::default();
    assert_eq!(
        browser.login(&app, OWNER, PASSWORD).await.location(),
        "/admin/login/totp"
    );
    let out = reset_totp_cli(&url, "nobody@example.com");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no account"));
    let out = reset_totp_cli(&url, OWNER);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .contains("two-factor sign-in of owner@example.com removed")
    );
    assert_eq!(
        owner.get(&app, "/admin").await.status,
        303,
        "its sessions ended"
    );
    assert_eq!(
        browser.login(&app, OWNER, PASSWORD).await.location(),
        "/admin",
        "the password alone again"
    );
    let rows = crate::admin::audit_rows(&app.db).await;
    assert!(
        rows.iter().any(|r| r.0 == "cli" && r.1 == "totp_reset"),
        "{rows:?}"
    );
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
