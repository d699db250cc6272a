//! Rotating the secret key with the real binary, as docs/architecture.md tells an operator to:
//! a purchase fulfilled under key A keeps its install page and its emailed link through a
//! restart on key B (A listed as previous), `storefront keys rotate`, and a restart on B alone;
//! an email sent after the change carries a link that works too.

use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use storefront::config::{Secret, SecretKey};
use storefront::db::purchases;
use storefront::db::{Db, DbError, installations, now_ms};
use storefront::orders::installation::{self, InstallationKey};
use storefront::orders::outbox::{JobKind, enqueue};
use storefront::upstream::Installation;

use crate::both_backends;
use crate::cli::{stderr_lines, storefront};
use crate::consumer::{buy_and_pay, hidden};
use crate::fixtures::as_id;
use crate::fixtures::purchase;
use crate::helpers::{Backend, TestDb, csrf_cookie, free_port, spawn_sandbox, wait_for_emails_in};

const KEY_A: &str = "a1a2a3a4a5a6a7a8a9aaabacadaeafa0b1b2b3b4b5b6b7b8b9babbbcbdbebfb0";
const KEY_B: &str = "b1b2b3b4b5b6b7b8b9babbbcbdbebfb0c1c2c3c4c5c6c7c8c9cacbcccdcecfc0";

fn key_id(hex: &str) -> String {
    InstallationKey::derive(&SecretKey::parse(hex).expect("key"))
        .id()
        .to_string()
}

/// `storefront serve`, SIGTERMed (and waited for) when dropped.
struct Serve(Child);

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.0.id().to_string()])
            .status();
        let _ = self.0.wait();
    }
}

struct Shop {
    database_url: String,
    upstream: String,
    api_key: String,
    dir: PathBuf,
    port: u16,
    client: reqwest::Client,
}

impl Shop {
    fn command(&self, secret: &str, previous: Option<&str>) -> Command {
        let mut cmd = storefront();
        cmd.env("STOREFRONT_DATABASE_URL", &self.database_url)
            .env("STOREFRONT_BIND", format!("127.0.0.1:{}", self.port))
            .env(
                "STOREFRONT_PUBLIC_URL",
                format!("http://127.0.0.1:{}", self.port),
            )
            .env("STOREFRONT_UPSTREAM_BASE_URL", &self.upstream)
            .env("STOREFRONT_UPSTREAM_API_KEY", &self.api_key)
            .env("STOREFRONT_SECRET_KEY", secret)
            .env("STOREFRONT_PAYMENTS", "demo")
            .env("STOREFRONT_MAIL_DIR", self.dir.join("mail"))
            .env("STOREFRONT_MAIL_FROM", "shop@example.com")
            .env("STOREFRONT_CHECKOUT_RATE_LIMIT", "1000");
        if let Some(previous) = previous {
            cmd.env("STOREFRONT_PREVIOUS_SECRET_KEYS", previous);
        }
        cmd
    }

    /// Starts `serve` and waits until it sells plans; returns it and a plan id.
    async fn serve(&self, secret: &str, previous: Option<&str>, run: &str) -> (Serve, String) {
        let log = std::fs::File::create(self.dir.join(format!("serve-{run}.log"))).expect("log");
        let child = self
            .command(secret, previous)
            .arg("serve")
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("start serve");
        let serve = Serve(child);
        let started = Instant::now();
        loop {
            if let Ok(res) = self.client.get(self.url("/countries/US")).send().await
                && let Ok(html) = res.text().await
                && let Some(href) = html.split("href=\"/plans/").nth(1)
            {
                let plan = href.split(['"', '?']).next().expect("plan id").to_string();
                return (serve, plan);
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "serve ({run}) never sold a plan:\n{}",
                std::fs::read_to_string(self.dir.join(format!("serve-{run}.log")))
                    .unwrap_or_default()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// `storefront keys rotate` with `secret` current and `previous` listed.
    async fn rotate(&self, secret: &str, previous: &str) -> Output {
        let mut cmd = self.command(secret, Some(previous));
        cmd.args(["keys", "rotate"]);
        tokio::task::spawn_blocking(move || cmd.output().expect("run keys rotate"))
            .await
            .expect("join")
    }

    /// The order page for a browser holding `cookie` (`order_ID=TOKEN`).
    async fn page(&self, id: &str, cookie: &str) -> (u16, String) {
        let res = self
            .client
            .get(self.url(&format!("/orders/{id}")))
            .header("cookie", cookie)
            .send()
            .await
            .expect("order page");
        (res.status().as_u16(), res.text().await.expect("body"))
    }

    /// Opens the emailed link in a fresh browser: the token becomes a cookie, then the page.
    async fn open_link(&self, id: &str, token: &str) -> String {
        let res = self
            .client
            .get(self.url(&format!("/orders/{id}?token={token}")))
            .send()
            .await
            .expect("emailed link");
        assert_eq!(res.status(), 303, "the emailed link for {id} is refused");
        let cookie = res
            .headers()
            .get_all("set-cookie")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .find(|v| v.starts_with("order_"))
            .and_then(|v| v.split(';').next())
            .expect("order cookie")
            .to_string();
        let (status, html) = self.page(id, &cookie).await;
        assert_eq!(status, 200, "{html}");
        html
    }

    /// Waits for `count` emails linking to the order page of `id`; returns the links'
    /// tokens, oldest first.
    async fn wait_for_emails(&self, id: &str, count: usize) -> Vec<String> {
        let marker = format!("/orders/{id}?token=");
        wait_for_emails_in(&self.dir.join("mail"), count, &format!("about {id}"), |m| {
            m.text.contains(&marker)
        })
        .await
        .iter()
        .filter_map(|m| m.text.split(&marker).nth(1))
        .map(|rest| rest.chars().take_while(char::is_ascii_hexdigit).collect())
        .collect()
    }
}

fn activation_code(html: &str) -> String {
    hidden(
        &html.replace("readonly value=", "name=\"code\" value="),
        "code",
    )
    .unwrap_or_else(|| panic!("no activation code on the page:\n{html}"))
}

async fn row_key_id(db: &Db, id: &str) -> String {
    let id = id.to_string();
    db.run(move |c| installations::installation(c, &as_id(&id)))
        .await
        .expect("query")
        .expect("installation stored")
        .key_id
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

both_backends!(a_rotated_key_keeps_every_install_page_and_link_working);

async fn a_rotated_key_keeps_every_install_page_and_link_working(backend: Backend) {
    let Some(test_db) = TestDb::new(backend) else {
        return;
    };
    let db = test_db.migrated().await;
    let (upstream, api_key) = spawn_sandbox(150).await;
    let dir = tempfile::tempdir().expect("dir");
    let shop = Shop {
        database_url: test_db.url_text.clone(),
        upstream: upstream.base_url.clone(),
        api_key,
        dir: dir.path().to_path_buf(),
        port: free_port(),
        client: reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(Duration::from_secs(10))
            .build()
            .expect("client"),
    };

    // Under key A: a purchase bought, paid and fulfilled, its links emailed.
    let (serve, plan) = shop.serve(KEY_A, None, "a").await;
    let (id, cookie) = buy_and_pay(&shop.client, &shop.url(""), &plan, 0).await;
    let started = Instant::now();
    let code = loop {
        let (_, html) = shop.page(&id, &cookie).await;
        if html.contains("data-status=\"fulfilled\"") {
            break activation_code(&html);
        }
        assert!(started.elapsed() < Duration::from_secs(40), "{html}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let sent = shop.wait_for_emails(&id, 2).await;
    // Each email carries a link of its own.
    assert!(sent.iter().all(|t| t.len() == 64), "{sent:?}");
    assert_ne!(sent[0], sent[1]);
    let old_token = sent[0].clone();
    assert_eq!(row_key_id(&db, &id).await, key_id(KEY_A));
    // A checkout form a consumer opened before the key change (signed with A).
    let form_page = shop
        .client
        .get(shop.url(&format!("/plans/{plan}")))
        .send()
        .await
        .expect("plan page");
    let csrf_cookie = csrf_cookie(form_page.headers());
    let form_html = form_page.text().await.expect("plan page body");
    let form = [
        (
            "csrf_token",
            hidden(&form_html, "csrf_token").expect("token"),
        ),
        ("plan_id", plan.clone()),
        ("email", "later@example.com".to_string()),
        ("confirm_device", "yes".to_string()),
        ("accept_terms", "yes".to_string()),
        (
            "expected_price_cents",
            hidden(&form_html, "expected_price_cents").expect("price"),
        ),
    ];
    let form: String = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(&form)
        .finish();
    let post_form = || {
        shop.client
            .post(shop.url("/checkout"))
            .header("cookie", format!("csrf={csrf_cookie}"))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(form.clone())
            .send()
    };
    drop(serve);

    // On key B with A as previous: the page, the old link and the old form still work.
    let (serve, _) = shop.serve(KEY_B, Some(KEY_A), "b-with-a").await;
    let html = shop.open_link(&id, &old_token).await;
    assert_eq!(
        activation_code(&html),
        code,
        "opened under the previous key"
    );
    assert_eq!(post_form().await.expect("checkout").status(), 303);

    // An email composed now carries a new link, which works at once.
    let pool = db.clone();
    let pid = id.clone();
    pool.run(move |c| {
        c.write_tx(|c| {
            let now = now_ms();
            enqueue(c, &as_id(&pid), JobKind::EmailEsimReady, now, now)
        })
    })
    .await
    .expect("queue a resend");
    let sent = shop.wait_for_emails(&id, 3).await;
    let new_token = sent.last().expect("resent").clone();
    assert!(!sent[..2].contains(&new_token), "{sent:?}");
    assert_eq!(
        activation_code(&shop.open_link(&id, &new_token).await),
        code
    );

    // The rotation, while B serves: A's row moves to B; a second run has nothing to do.
    let rotated = shop.rotate(KEY_B, KEY_A).await;
    assert!(rotated.status.success(), "{:?}", stderr_lines(&rotated));
    let out = stdout(&rotated);
    assert!(
        out.contains(&format!(
            "{} (previous key 1 of 1): 1 installations re-encrypted",
            key_id(KEY_A)
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!("{} (current key): 1 installations", key_id(KEY_B))),
        "{out}"
    );
    assert_eq!(row_key_id(&db, &id).await, key_id(KEY_B));
    let again = shop.rotate(KEY_B, KEY_A).await;
    assert!(again.status.success(), "{:?}", stderr_lines(&again));
    assert!(
        stdout(&again).contains("(previous key 1 of 1): 0 installations re-encrypted"),
        "{}",
        stdout(&again)
    );
    let html = shop.open_link(&id, &new_token).await;
    assert_eq!(activation_code(&html), code, "the rotated row opens");
    drop(serve);

    // On B alone: both links and the page still work; a form signed with A is now stale.
    let (_serve, _) = shop.serve(KEY_B, None, "b").await;
    assert_eq!(
        activation_code(&shop.open_link(&id, &old_token).await),
        code
    );
    assert_eq!(
        activation_code(&shop.open_link(&id, &new_token).await),
        code
    );
    assert_eq!(activation_code(&shop.page(&id, &cookie).await.1), code);
    assert_eq!(post_form().await.expect("checkout").status(), 403);
    let wrong = shop
        .client
        .get(shop.url(&format!("/orders/{id}?token={}", "0".repeat(64))))
        .send()
        .await
        .expect("wrong token");
    assert_eq!(wrong.status(), 404, "only registered tokens open the page");
}

both_backends!(rotation_pages_through_every_row_and_reports_one_that_does_not_decrypt);

/// 230 installations under A (more than two pages), one of them damaged: `keys rotate` moves
/// the 229 others to B, names the damaged one and exits 1; a second run moves nothing.
async fn rotation_pages_through_every_row_and_reports_one_that_does_not_decrypt(backend: Backend) {
    const ROWS: usize = 230;
    let Some(test_db) = TestDb::new(backend) else {
        return;
    };
    let db = test_db.migrated().await;
    let key_a = InstallationKey::derive(&SecretKey::parse(KEY_A).expect("key"));
    let ids: Vec<String> = (0..ROWS).map(|n| format!("pur_{n:04}")).collect();
    let damaged = ids[117].clone();
    let now = now_ms();
    let sealed: Vec<_> = ids
        .iter()
        .map(|id| {
            let installation = Installation {
                esim_id: format!("esim-{id}"),
                iccid: Secret::new("8901234567890123456".into()),
                activation_code: Secret::new(format!("LPA:1$smdp.example${id}")),
                qr_code_svg: Secret::new("<svg/>".into()),
                universal_link: None,
            };
            let mut row =
                installation::encrypt(&key_a, &as_id(id), &installation, now).expect("seals");
            if *id == damaged {
                let flipped = if row.ciphertext.starts_with("00") {
                    "ff"
                } else {
                    "00"
                };
                row.ciphertext = format!("{flipped}{}", &row.ciphertext[2..]);
            }
            row
        })
        .collect();
    db.run(move |c| {
        c.write_tx(|c| {
            for row in &sealed {
                let id = &row.purchase_id;
                purchases::insert(
                    c,
                    &purchase(id.as_str())
                        .status("fulfilled")
                        .created(now)
                        .expires_in(0)
                        .build(),
                    "test",
                )?;
                installations::insert_installation(c, row)?;
            }
            Ok::<_, DbError>(())
        })
    })
    .await
    .expect("installations stored");

    let dir = tempfile::tempdir().expect("dir");
    let shop = Shop {
        database_url: test_db.url_text.clone(),
        upstream: "http://127.0.0.1:9/api/v1".into(),
        api_key: "sk_test_keys".into(),
        dir: dir.path().to_path_buf(),
        port: free_port(),
        client: reqwest::Client::new(),
    };
    let first = shop.rotate(KEY_B, KEY_A).await;
    assert_eq!(first.status.code(), Some(1), "{:?}", stderr_lines(&first));
    assert!(
        stdout(&first).contains(&format!(
            "{} (previous key 1 of 1): {} installations re-encrypted",
            key_id(KEY_A),
            ROWS - 1
        )),
        "{}",
        stdout(&first)
    );
    let errors = stderr_lines(&first);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains(&format!(
            "1 installations under {} do not decrypt with it and were left as they are \
             (purchases {damaged})",
            key_id(KEY_A)
        )),
        "{errors:?}"
    );
    for id in &ids {
        let expected = if *id == damaged { KEY_A } else { KEY_B };
        assert_eq!(row_key_id(&db, id).await, key_id(expected), "{id}");
    }
    let second = shop.rotate(KEY_B, KEY_A).await;
    assert_eq!(second.status.code(), Some(1));
    assert!(
        stdout(&second).contains("(previous key 1 of 1): 0 installations re-encrypted"),
        "{}",
        stdout(&second)
    );
    assert!(
        stdout(&second).contains(&format!(
            "{} (current key): {} installations",
            key_id(KEY_B),
            ROWS - 1
        )),
        "{}",
        stdout(&second)
    );
}

#[test]
fn keys_generate_prints_a_fresh_key_in_the_accepted_format() {
    let run = || {
        storefront()
            .args(["keys", "generate"])
            .output()
            .expect("run")
    };
    let (first, second) = (run(), run());
    assert!(first.status.success(), "{:?}", stderr_lines(&first));
    let key = stdout(&first).trim().to_string();
    assert_eq!(key.len(), 64, "{key}");
    SecretKey::parse(&key).expect("accepted as STOREFRONT_SECRET_KEY");
    assert_ne!(key, stdout(&second).trim(), "random each time");
}

#[test]
fn keys_rotate_without_previous_keys_exits_2_naming_the_variable() {
    let dir = tempfile::tempdir().expect("dir");
    let db = format!("sqlite://{}/shop.db", dir.path().display());
    let out = storefront()
        .args(["keys", "rotate"])
        .env("STOREFRONT_DATABASE_URL", &db)
        .env("STOREFRONT_SECRET_KEY", KEY_B)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let lines = stderr_lines(&out);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with("STOREFRONT_PREVIOUS_SECRET_KEYS: is required by `keys rotate`"),
        "{lines:?}"
    );
    assert!(
        !dir.path().join("shop.db").exists(),
        "refused before touching the database"
    );
}

#[test]
fn a_malformed_previous_key_stops_serve_with_exit_2_without_echoing_it() {
    let dir = tempfile::tempdir().expect("dir");
    let shop = Shop {
        database_url: format!("sqlite://{}/shop.db", dir.path().display()),
        upstream: "http://127.0.0.1:9/api/v1".into(),
        api_key: "sk_test_keys".into(),
        dir: dir.path().to_path_buf(),
        port: free_port(),
        client: reqwest::Client::new(),
    };
    let bad = format!("{KEY_A},zz-not-a-key");
    let out = shop
        .command(KEY_B, Some(&bad))
        .arg("serve")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let lines = stderr_lines(&out);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with("STOREFRONT_PREVIOUS_SECRET_KEYS: key 2 of 2: "),
        "{lines:?}"
    );
    assert!(!lines[0].contains("zz-not") && !lines[0].contains("a1a2a3"));
}
