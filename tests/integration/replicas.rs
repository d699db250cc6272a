//! Two replicas on one PostgreSQL database, the real binaries: one `storefront sandbox` process
//! as the upstream, two `storefront serve` processes started at once on a fresh database (so
//! their migrations race), and purchases checked out on one replica and paid on the other
//! while one replica is SIGKILLed and restarted and the upstream answers a 429 burst. While it
//! is down the stored catalog is aged past the one-minute freshness, so checkouts after the
//! restart re-read live prices, into the 429 window the other replica's workers meet.
//!
//! The buyers order one, three or two eSIMs in turn, some for travellers with addresses of
//! their own, and upstream fails a few of the eSIMs.
//!
//! Afterwards: every eSIM has exactly one upstream order; each failed one is refunded its share
//! once and every other is delivered, its traveller emailed once (see [`crate::per_unit`]); the
//! jobs the
//! killed replica held were taken over within 10 s of the kill; the private order page's
//! cookie opens the order on either replica; a console session made on one replica works on
//! the other; a markup change saved on one replica is the price on the other within 2 s;
//! catalog syncs never overlapped; nothing reached the upstream inside a `Retry-After` window;
//! and no step of any purchase answered 5xx.
//!
//! `STOREFRONT_REPLICAS_PURCHASES` sets the number of orders (30 by default, 60 eSIMs; the long
//! form, `scripts/reliability`, runs 150, 300 eSIMs). The figures of the run are printed on
//! stderr.

use std::fs::File;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use diesel::prelude::*;
use storefront::db::schema::{catalog_syncs, leases, outbox_attempts, outbox_jobs};
use storefront::db::{Db, DbError, now_ms};
use storefront::domain::job::JobKind;
use storefront::staff::Role;

use crate::admin::{OWNER, PASSWORD};
use crate::consumer::{BeforePay, hidden};
use crate::helpers::{Backend, Browser, TestDb, binary, free_port, random_suffix};
use crate::per_unit::{self, Wanted};

/// Orders of one, three and two eSIMs in turn: twice as many eSIMs.
const DEFAULT_PURCHASES: usize = 30;
/// Between two buyers starting.
const PACE: Duration = Duration::from_millis(300);
/// Every upstream request takes this long, so that workers hold their jobs when one dies.
const UPSTREAM_LATENCY_MS: u64 = 300;
/// The promise: a killed replica's jobs are claimed by another worker within this.
const TAKEOVER: Duration = Duration::from_secs(10);
/// The promise: a markup change is the price on every replica within this.
const PRICE_EVERYWHERE: Duration = Duration::from_secs(2);

/// The tests of this file start four `serve` processes and a sandbox each: one at a time, so
/// that neither starves the other's processes of CPU (their timings are what they measure).
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

fn purchases_wanted() -> usize {
    std::env::var("STOREFRONT_REPLICAS_PURCHASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|n| *n > 0)
        .unwrap_or(DEFAULT_PURCHASES)
}

/// A child process that is SIGKILLed when dropped, so a failed assertion leaves none behind.
struct Proc(Child);

impl Proc {
    fn kill9(&mut self) {
        let _ = Command::new("kill")
            .args(["-KILL", &self.0.id().to_string()])
            .status();
        let _ = self.0.wait();
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// One `storefront serve` replica: its port, and how to start it again.
struct Replica {
    name: &'static str,
    port: u16,
    runs: usize,
}

struct Setup<'a> {
    dir: &'a Path,
    database_url: &'a str,
    upstream: &'a str,
    key: &'a str,
}

impl Replica {
    fn start(&mut self, setup: &Setup<'_>) -> Proc {
        self.runs += 1;
        let log = File::create(
            setup
                .dir
                .join(format!("serve-{}-{}.log", self.name, self.runs)),
        )
        .expect("log");
        let child = binary()
            .arg("serve")
            .env("STOREFRONT_DATABASE_URL", setup.database_url)
            .env("STOREFRONT_BIND", format!("127.0.0.1:{}", self.port))
            .env("STOREFRONT_PUBLIC_URL", self.url(""))
            .env("STOREFRONT_UPSTREAM_BASE_URL", setup.upstream)
            .env("STOREFRONT_UPSTREAM_API_KEY", setup.key)
            // Both replicas must read each other's cookies and form tokens.
            .env("STOREFRONT_SECRET_KEY", "5a".repeat(32))
            .env("STOREFRONT_PAYMENTS", "demo")
            .env(
                "STOREFRONT_MAIL_DIR",
                setup.dir.join(format!("mail-{}", self.name)),
            )
            .env("STOREFRONT_MAIL_FROM", "shop@example.com")
            .env("STOREFRONT_CHECKOUT_RATE_LIMIT", "100000")
            .env("STOREFRONT_LOG_FORMAT", "json")
            // Debug for the outbox (its workers' names tell which process holds a lease) and
            // the upstream client (every request, for the run's figures).
            .env(
                "RUST_LOG",
                "info,storefront::orders::outbox=debug,storefront::upstream=debug",
            )
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("start serve");
        Proc(child)
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }
}

/// What one buyer saw: the order and its cookie, and every 5xx met on the way.
struct Bought {
    order: per_unit::Bought,
    cookie: String,
    server_errors: Vec<String>,
}

/// The eSIMs (1-based) upstream fails of buyer `n`'s order of `quantity`.
fn failing(n: usize, quantity: usize) -> Vec<usize> {
    match n % 10 {
        4 => vec![quantity.min(2)],
        8 => vec![1],
        _ => Vec::new(),
    }
}

fn encode(form: &[(&str, &str)]) -> String {
    url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(form)
        .finish()
}

fn set_cookie(res: &reqwest::Response, prefix: &str) -> Option<String> {
    res.headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with(prefix))
        .and_then(|v| v.split(';').next())
        .map(str::to_string)
}

/// Checkout of `wanted` on `shop`, `before_pay`, then payment on `pay_shop`; each step retried
/// while its replica is down (a person pressing reload), every 5xx noted. Bounded in time.
async fn buy_and_pay(
    client: &reqwest::Client,
    (shop, pay_shop): (&str, &str),
    plan: &str,
    n: usize,
    (wanted, failing): (&Wanted, &[usize]),
    before_pay: Option<&BeforePay>,
) -> Bought {
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut server_errors = Vec::new();
    let note = |step: &str, status: reqwest::StatusCode, errors: &mut Vec<String>| {
        if status.is_server_error() {
            errors.push(format!("buyer {n}: {step} answered {status}"));
        }
    };
    loop {
        assert!(Instant::now() < deadline, "purchase {n} never completed");
        tokio::time::sleep(Duration::from_millis(100)).await;
        let Ok(page) = client.get(format!("{shop}/plans/{plan}")).send().await else {
            continue;
        };
        note("the plan page", page.status(), &mut server_errors);
        let Some(csrf) = set_cookie(&page, "csrf=") else {
            continue;
        };
        let Ok(html) = page.text().await else {
            continue;
        };
        let (Some(token), Some(price)) = (
            hidden(&html, "csrf_token"),
            hidden(&html, "expected_price_cents"),
        ) else {
            continue;
        };
        let email = format!("buyer{n}@example.com");
        let mut form = vec![
            ("csrf_token", token.as_str()),
            ("plan_id", plan),
            ("email", email.as_str()),
            ("confirm_device", "yes"),
            ("accept_terms", "yes"),
            ("expected_price_cents", price.as_str()),
        ];
        let fields = wanted.form();
        form.extend(fields.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        let Ok(res) = client
            .post(format!("{shop}/checkout"))
            .header("cookie", &csrf)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(encode(&form))
            .send()
            .await
        else {
            continue;
        };
        note("checkout", res.status(), &mut server_errors);
        if res.status() != 303 {
            continue;
        }
        let (Some(cookie), Some(session)) = (
            set_cookie(&res, "order_"),
            res.headers()
                .get("location")
                .and_then(|l| l.to_str().ok())
                .and_then(|l| l.rsplit('/').next())
                .map(str::to_string),
        ) else {
            continue;
        };
        let id = cookie
            .split('=')
            .next()
            .unwrap_or_default()
            .trim_start_matches("order_")
            .to_string();
        if let Some(before_pay) = before_pay {
            before_pay(id.clone()).await;
        }
        // Pay on the other replica. A repeated Pay after a lost answer changes nothing: the
        // page says 409 and the buyer moves on.
        loop {
            assert!(Instant::now() < deadline, "purchase {n} was never paid");
            let paid = client
                .post(format!("{pay_shop}/demo-pay/{session}/pay"))
                .header("cookie", &csrf)
                .header("content-type", "application/x-www-form-urlencoded")
                .body(encode(&[("csrf_token", token.as_str())]))
                .send()
                .await;
            if let Ok(res) = paid {
                note("payment", res.status(), &mut server_errors);
                if res.status() == 303 || res.status() == 409 {
                    return Bought {
                        order: wanted.bought(&id, failing),
                        cookie,
                        server_errors,
                    };
                }
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// GET `url` with the browser's cookies (which it then keeps).
async fn get(client: &reqwest::Client, browser: &Browser, url: &str) -> (u16, String) {
    let res = client
        .get(url)
        .header("cookie", browser.cookie_header())
        .send()
        .await
        .expect("get");
    browser.remember(&res);
    let status = res.status().as_u16();
    (status, res.text().await.expect("body"))
}

async fn post(
    client: &reqwest::Client,
    browser: &Browser,
    url: &str,
    form: &[(&str, &str)],
) -> (u16, String) {
    let res = client
        .post(url)
        .header("cookie", browser.cookie_header())
        .header("content-type", "application/x-www-form-urlencoded")
        .body(encode(form))
        .send()
        .await
        .expect("post");
    browser.remember(&res);
    let status = res.status().as_u16();
    (status, res.text().await.expect("body"))
}

/// Waits until `url` lists plans; returns the plan ids in page order.
async fn wait_stocked(client: &reqwest::Client, url: &str) -> Vec<String> {
    let started = Instant::now();
    loop {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{url} never listed plans"
        );
        if let Ok(res) = client.get(url).send().await
            && let Ok(html) = res.text().await
        {
            let ids: Vec<String> = html
                .split("href=\"/plans/")
                .skip(1)
                .filter_map(|rest| rest.split(['"', '?']).next())
                .map(str::to_string)
                .collect();
            if !ids.is_empty() {
                return ids;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Presses the console's "sync now" (`form`: its URL and token); returns where it leads.
async fn sync_now(client: &reqwest::Client, owner: &Browser, form: &(String, String)) -> String {
    let (url, token) = form;
    let res = client
        .post(url)
        .header("cookie", owner.cookie_header())
        .header("content-type", "application/x-www-form-urlencoded")
        .body(encode(&[("csrf_token", token.as_str())]))
        .send()
        .await
        .expect("sync now");
    res.headers()
        .get("location")
        .and_then(|l| l.to_str().ok())
        .unwrap_or_default()
        .to_string()
}

async fn plan_price(client: &reqwest::Client, url: &str) -> Option<String> {
    let html = client.get(url).send().await.ok()?.text().await.ok()?;
    hidden(&html, "expected_price_cents")
}

async fn sandbox_post(client: &reqwest::Client, base: &str, key: &str, path: &str, body: &str) {
    let res = client
        .post(format!("{base}/_sandbox/{path}"))
        .bearer_auth(key)
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .expect("sandbox control");
    assert!(res.status().is_success(), "{path}: {}", res.status());
}

/// The run's folder (logs, mail): removed afterwards, kept (and named on stderr) when the test
/// fails.
struct RunDir(Option<tempfile::TempDir>);

impl RunDir {
    fn new() -> Self {
        Self(Some(tempfile::tempdir().expect("dir")))
    }

    fn path(&self) -> &Path {
        self.0.as_ref().map_or(Path::new("."), |d| d.path())
    }
}

impl Drop for RunDir {
    fn drop(&mut self) {
        if std::thread::panicking()
            && let Some(dir) = self.0.take()
        {
            eprintln!("the run's logs are kept in {}", dir.keep().display());
        }
    }
}

/// Every log the shop processes of the run wrote.
fn read_logs(dir: &Path) -> String {
    let mut all = String::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.filter_map(Result::ok) {
            if entry.file_name().to_string_lossy().starts_with("serve-")
                && let Ok(text) = std::fs::read_to_string(entry.path())
            {
                all.push_str(&text);
            }
        }
    }
    all
}

/// The upstream in a process of its own; returns it, its base URL and its key.
async fn start_sandbox(client: &reqwest::Client, dir: &Path) -> (Proc, String, String) {
    let key = format!("sk_replicas_{}", random_suffix());
    let upstream_port = free_port();
    let sandbox_base = format!("http://127.0.0.1:{upstream_port}");
    let sandbox = Proc(
        binary()
            .args([
                "sandbox",
                "--bind",
                &format!("127.0.0.1:{upstream_port}"),
                "--key",
                &key,
                "--plans",
                "150",
            ])
            .stdout(Stdio::null())
            .stderr(File::create(dir.join("sandbox.log")).expect("log"))
            .spawn()
            .expect("start sandbox"),
    );
    let started = Instant::now();
    while client
        .get(format!("{sandbox_base}/_sandbox/stats"))
        .bearer_auth(&key)
        .send()
        .await
        .is_err()
    {
        assert!(started.elapsed() < Duration::from_secs(20), "no sandbox");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    (sandbox, sandbox_base, key)
}

/// The upstream's stats (`GET /_sandbox/stats`).
async fn sandbox_stats(client: &reqwest::Client, base: &str, key: &str) -> serde_json::Value {
    client
        .get(format!("{base}/_sandbox/stats"))
        .bearer_auth(key)
        .send()
        .await
        .expect("stats")
        .json()
        .await
        .expect("json")
}

/// `(finished_at_ms, detail)` of every attempt recorded as `lease_expired`.
async fn lease_expired_attempts(db: &Db) -> Vec<(i64, String)> {
    db.run(|conn| {
        Ok::<_, DbError>(
            outbox_attempts::table
                .filter(outbox_attempts::outcome.eq("lease_expired"))
                .select((outbox_attempts::finished_at_ms, outbox_attempts::detail))
                .load(conn)?,
        )
    })
    .await
    .expect("attempts")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_replicas_one_killed_buy_each_purchase_once_and_share_sessions_prices_and_the_gate() {
    let _one_at_a_time = ONE_AT_A_TIME.lock().await;
    let Some(test_db) = TestDb::new(Backend::Postgres) else {
        return;
    };
    let purchases = purchases_wanted();
    let run_started = Instant::now();
    let dir = RunDir::new();
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(20))
        .build()
        .expect("client");
    let (_sandbox, sandbox_base, key) = start_sandbox(&client, dir.path()).await;
    // Credit for every purchase of the long form.
    sandbox_post(
        &client,
        &sandbox_base,
        &key,
        "balance",
        r#"{"availableCents": 100000000}"#,
    )
    .await;

    let upstream = format!("{sandbox_base}/api/v1");
    let setup = Setup {
        dir: dir.path(),
        database_url: &test_db.url_text,
        upstream: &upstream,
        key: &key,
    };
    let mut a = Replica {
        name: "a",
        port: free_port(),
        runs: 0,
    };
    let mut b = Replica {
        name: "b",
        port: free_port(),
        runs: 0,
    };
    // Both at once on an empty database: migrations run on one replica at a time.
    let _serve_a = a.start(&setup);
    let mut serve_b = b.start(&setup);
    let plans = wait_stocked(&client, &a.url("/countries/US")).await;
    wait_stocked(&client, &b.url("/countries/US")).await;
    let plan = plans[0].clone();
    let repriced = plans
        .iter()
        .find(|p| **p != plan)
        .expect("a second plan")
        .clone();
    let db = test_db.open();

    // A console session made on A works on B.
    crate::admin::create(&db, OWNER, Role::Owner).await;
    let owner = Browser::default();
    let (_, login_page) = get(&client, &owner, &a.url("/admin/login")).await;
    let token = hidden(&login_page, "csrf_token").expect("login form token");
    let (status, page) = post(
        &client,
        &owner,
        &a.url("/admin/login"),
        &[
            ("email", OWNER),
            ("password", PASSWORD),
            ("csrf_token", &token),
        ],
    )
    .await;
    assert_eq!(status, 303, "the owner signs in on A: {page}");
    let (status, page) = get(&client, &owner, &b.url("/admin")).await;
    assert_eq!(status, 200, "A's console session opens B's console: {page}");

    sandbox_post(
        &client,
        &sandbox_base,
        &key,
        "faults",
        &format!(r#"{{"kind": "latency", "ms": {UPSTREAM_LATENCY_MS}}}"#),
    )
    .await;

    // "Sync now" pressed on both replicas at once: one syncs, the other finds the lease held.
    // (Both skip only when a periodic sync holds it just then: pressed again.)
    let mut sync_outcomes = Vec::new();
    for _ in 0..3 {
        let mut sync_forms = Vec::new();
        for replica in [&a, &b] {
            let (status, page) = get(&client, &owner, &replica.url("/admin/catalog")).await;
            assert_eq!(status, 200, "{page}");
            let token = hidden(&page, "csrf_token").expect("sync form token");
            sync_forms.push((replica.url("/admin/catalog/sync"), token));
        }
        let (on_a, on_b) = tokio::join!(
            sync_now(&client, &owner, &sync_forms[0]),
            sync_now(&client, &owner, &sync_forms[1])
        );
        sync_outcomes = vec![on_a, on_b];
        sync_outcomes.sort();
        if sync_outcomes.iter().any(|o| o.ends_with("=synced")) {
            break;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    assert_eq!(
        sync_outcomes,
        ["/admin/catalog?sync=skipped", "/admin/catalog?sync=synced"],
        "two syncs at once"
    );

    // Buyers: checkout on one replica, payment on the other, alternating; upstream is told
    // to fail the doomed eSIMs once their references exist.
    let run = random_suffix();
    let paid = Arc::new(AtomicUsize::new(0));
    let last_paid_ms = Arc::new(std::sync::atomic::AtomicI64::new(0));
    let mut buyers = Vec::new();
    for n in 0..purchases {
        let (shop, pay_shop) = if n % 2 == 0 {
            (a.url(""), b.url(""))
        } else {
            (b.url(""), a.url(""))
        };
        let (client, plan) = (client.clone(), plan.clone());
        let (paid, last_paid_ms) = (Arc::clone(&paid), Arc::clone(&last_paid_ms));
        let wanted = Wanted::mix(n, &run);
        let doomed = failing(n, wanted.quantity);
        let arm = per_unit::fail_before_pay(&client, &db, (&sandbox_base, &key), &doomed);
        buyers.push(tokio::spawn(async move {
            tokio::time::sleep(PACE * u32::try_from(n).unwrap_or(u32::MAX)).await;
            let bought = buy_and_pay(
                &client,
                (&shop, &pay_shop),
                &plan,
                n,
                (&wanted, &doomed),
                Some(&arm),
            )
            .await;
            paid.fetch_add(1, Ordering::SeqCst);
            last_paid_ms.fetch_max(now_ms(), Ordering::SeqCst);
            bought
        }));
    }

    // Mid-run: B is SIGKILLed while its workers hold jobs, and restarted a second later.
    let waiting = Instant::now();
    while paid.load(Ordering::SeqCst) < purchases / 2 {
        assert!(
            waiting.elapsed() < Duration::from_secs(120),
            "half the purchases were never paid"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let killed_at_ms = now_ms();
    serve_b.kill9();
    // The catalog is now five minutes old: the restarted B (and A once it reloads) must re-read
    // the live price at checkout, which is where a 429 window used to turn into a 503.
    db.run(|conn| {
        diesel::update(catalog_syncs::table)
            .set((
                catalog_syncs::started_at_ms.eq(catalog_syncs::started_at_ms - 300_000),
                catalog_syncs::finished_at_ms.eq(catalog_syncs::finished_at_ms - 300_000),
            ))
            .execute(conn)
            .map_err(DbError::from)
    })
    .await
    .expect("age the catalog");
    tokio::time::sleep(Duration::from_secs(1)).await;
    serve_b = b.start(&setup);
    wait_stocked(&client, &b.url("/countries/US")).await;
    // Once it is back, the upstream rate-limits the key (whichever replica's request meets
    // it): every path of every replica must hold back, and checkouts must still sell.
    sandbox_post(
        &client,
        &sandbox_base,
        &key,
        "faults",
        r#"{"kind": "rateLimitBurst", "count": 2, "retryAfterSecs": 1}"#,
    )
    .await;

    // The session made on A still works on the restarted B; a markup change saved on B is
    // the price on A within 2 s.
    let old_price = plan_price(&client, &a.url(&format!("/plans/{repriced}")))
        .await
        .expect("a price");
    let (status, page) = get(&client, &owner, &b.url("/admin/pricing")).await;
    assert_eq!(status, 200, "the session works on the restarted B: {page}");
    let token = hidden(&page, "csrf_token").expect("pricing form token");
    let (status, page) = post(
        &client,
        &owner,
        &b.url("/admin/pricing/save"),
        &[
            ("csrf_token", token.as_str()),
            ("scope_kind", "plan"),
            ("scope_value", repriced.as_str()),
            ("markup_percent", "100"),
            ("fixed", ""),
            ("min_margin", ""),
            ("ending", ""),
        ],
    )
    .await;
    assert_eq!(status, 303, "the markup is saved on B: {page}");
    let saved = Instant::now();
    let new_price = plan_price(&client, &b.url(&format!("/plans/{repriced}")))
        .await
        .expect("a price");
    assert_ne!(new_price, old_price, "the markup changed the price");
    let price_on_a = loop {
        if plan_price(&client, &a.url(&format!("/plans/{repriced}"))).await
            == Some(new_price.clone())
        {
            break saved.elapsed();
        }
        assert!(
            saved.elapsed() < PRICE_EVERYWHERE,
            "A still shows {old_price} after B saved {new_price}"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    };

    let mut bought = Vec::new();
    for buyer in buyers {
        bought.push(buyer.await.expect("buyer"));
    }
    let server_errors: Vec<&String> = bought.iter().flat_map(|b| &b.server_errors).collect();
    assert!(server_errors.is_empty(), "5xx answers: {server_errors:?}");

    // Every eSIM delivered or refunded, read on alternating replicas.
    let last_paid = last_paid_ms.load(Ordering::SeqCst);
    let replicas = [&a, &b];
    for (n, purchase) in bought.iter().enumerate() {
        let replica = replicas[n % 2];
        loop {
            if now_ms() - last_paid > 120_000 {
                panic!(
                    "order {} not settled 120 s after the last payment",
                    purchase.order.checkout
                );
            }
            let page = client
                .get(replica.url(&format!("/orders/{}", purchase.order.checkout)))
                .header("cookie", &purchase.cookie)
                .send()
                .await;
            if let Ok(res) = page
                && let Ok(html) = res.text().await
                && per_unit::page_settled(&html, &purchase.order)
            {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    let fulfilled_after_last_payment = now_ms() - last_paid;

    // The private page's cookie opens the order on either replica.
    for purchase in &bought {
        for replica in replicas {
            let html = client
                .get(replica.url(&format!("/orders/{}", purchase.order.checkout)))
                .header("cookie", &purchase.cookie)
                .send()
                .await
                .expect("order page")
                .text()
                .await
                .expect("html");
            assert!(
                per_unit::page_settled(&html, &purchase.order),
                "{} on {}: {html}",
                purchase.order.checkout,
                replica.name
            );
        }
    }

    // Exactly one upstream order per eSIM, the failed ones refunded their share once, the
    // others delivered and their travellers emailed once; nothing sent inside a Retry-After
    // window.
    per_unit::wait_quiet(&db, Duration::from_secs(30)).await;
    let stats = sandbox_stats(&client, &sandbox_base, &key).await;
    assert_eq!(
        stats["duplicatePurchases"],
        serde_json::json!([]),
        "{stats}"
    );
    let units: usize = bought.iter().map(|b| b.order.quantity).sum();
    assert_eq!(stats["orders"], serde_json::json!(units), "{stats}");
    let orders: Vec<per_unit::Bought> = bought.iter().map(|b| b.order.clone()).collect();
    let mut mail = per_unit::read_mail(&dir.path().join("mail-a"));
    mail.extend(per_unit::read_mail(&dir.path().join("mail-b")));
    let tally = per_unit::judge(
        &db,
        &orders,
        &per_unit::upstream_orders(&client, &upstream, &key).await,
        Some(&mail),
    )
    .await
    .unwrap_or_else(|wrong| panic!("{wrong}"));
    let failed: usize = orders.iter().map(|o| o.failing.len()).sum();
    assert_eq!((tally.units, tally.refunded), (units, failed), "{tally:?}");
    let sandbox_log = std::fs::read_to_string(dir.path().join("sandbox.log")).unwrap_or_default();
    let inside: Vec<&str> = sandbox_log
        .lines()
        .filter(|l| l.contains("inside a Retry-After window"))
        .collect();
    assert_eq!(
        stats["requestsInsideRetryAfter"], 0,
        "requests reached the upstream inside a Retry-After window: {inside:#?}"
    );
    assert_eq!(stats["ledgerInvariantHolds"], true, "{stats}");
    // The burst was met (and shared through the database), so the check above meant something.
    let gate: Option<(String, i64)> = db
        .run(|conn| {
            Ok::<_, DbError>(
                leases::table
                    .filter(leases::name.eq(storefront::db::outbox::UPSTREAM_GATE))
                    .select((leases::holder, leases::expires_at_ms))
                    .first(conn)
                    .optional()?,
            )
        })
        .await
        .expect("gate row");
    assert!(
        gate.as_ref()
            .is_some_and(|(_, until)| *until > killed_at_ms),
        "no replica met the 429 burst: {gate:?}"
    );

    // The killed replica's jobs were taken over within 10 s of the kill.
    let taken_over = lease_expired_attempts(&db).await;
    assert!(
        !taken_over.is_empty(),
        "the killed replica held no job: the takeover was not exercised"
    );
    let takeover_ms = taken_over
        .iter()
        .map(|(at, _)| at - killed_at_ms)
        .max()
        .unwrap_or_default();
    assert!(
        takeover_ms <= i64::try_from(TAKEOVER.as_millis()).unwrap_or(i64::MAX),
        "a job of the killed replica waited {takeover_ms} ms: {taken_over:?}"
    );

    // Catalog syncs ran on one replica at a time.
    let syncs: Vec<(i64, i64)> = db
        .run(|conn| {
            Ok::<_, DbError>(
                catalog_syncs::table
                    .order(catalog_syncs::started_at_ms)
                    .select((catalog_syncs::started_at_ms, catalog_syncs::finished_at_ms))
                    .load(conn)?,
            )
        })
        .await
        .expect("syncs");
    assert!(
        syncs.len() >= 2,
        "the first sync and one sync now: {syncs:?}"
    );
    for pair in syncs.windows(2) {
        assert!(
            pair[0].1 <= pair[1].0,
            "two catalog syncs overlapped: {pair:?}"
        );
    }

    let logs = read_logs(dir.path());
    let live_reads = logs.matches("\"upstream.path\":\"/plans/{id}\"").count();
    let met_429 = logs.matches("\"http.status\":429").count();
    let held_back = logs.matches("\"upstream.error\":\"GateClosed\"").count();
    eprintln!(
        "replicas: {live_reads} live price re-reads at checkout; {met_429} 429s met by the \
         shop, {held_back} requests held back by the gate"
    );
    eprintln!(
        "replicas: {purchases} orders of {units} eSIMs across 2 replicas, one SIGKILLed: {} \
         upstream orders, 0 duplicates; {} delivered, {} refunded their share, {} travellers' \
         emails; {} jobs taken over, the last {takeover_ms} ms after the kill; all settled \
         {fulfilled_after_last_payment} ms after the last payment; markup on the other replica \
         after {} ms; {} catalog syncs, none overlapping; run {:.1} s",
        stats["orders"],
        tally.delivered,
        tally.refunded,
        tally.traveller_emails,
        taken_over.len(),
        price_on_a.as_millis(),
        syncs.len(),
        run_started.elapsed().as_secs_f64()
    );
    drop(serve_b);
}

/// A replica stopped with SIGTERM while its worker waits on a slow `POST /orders` does not keep
/// the job for the rest of its lease: it releases the lease on the way out and the other
/// replica takes the job over at once, under the same key, so the order is placed once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_stopped_mid_job_hands_it_to_the_other_at_once() {
    let _one_at_a_time = ONE_AT_A_TIME.lock().await;
    let Some(test_db) = TestDb::new(Backend::Postgres) else {
        return;
    };
    let dir = RunDir::new();
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(20))
        .build()
        .expect("client");
    let (_sandbox, sandbox_base, key) = start_sandbox(&client, dir.path()).await;
    let upstream = format!("{sandbox_base}/api/v1");
    let setup = Setup {
        dir: dir.path(),
        database_url: &test_db.url_text,
        upstream: &upstream,
        key: &key,
    };
    let mut replicas = [
        Replica {
            name: "a",
            port: free_port(),
            runs: 0,
        },
        Replica {
            name: "b",
            port: free_port(),
            runs: 0,
        },
    ];
    let mut serves: Vec<Proc> = replicas.iter_mut().map(|r| r.start(&setup)).collect();
    let plan = wait_stocked(&client, &replicas[0].url("/countries/US")).await[0].clone();
    wait_stocked(&client, &replicas[1].url("/countries/US")).await;
    let db = test_db.open();

    // Every upstream request now takes 8 s: a worker is inside POST /orders well past the
    // 4 s its replica gives jobs in hand to finish when stopped.
    sandbox_post(
        &client,
        &sandbox_base,
        &key,
        "faults",
        r#"{"kind": "latency", "ms": 8000}"#,
    )
    .await;
    let shop = replicas[0].url("");
    let bought = buy_and_pay(
        &client,
        (&shop, &shop),
        &plan,
        0,
        (&Wanted::one(), &[]),
        None,
    )
    .await;
    assert!(
        bought.server_errors.is_empty(),
        "{:?}",
        bought.server_errors
    );
    let started = Instant::now();
    let holder = loop {
        let owner: Option<Option<String>> = db
            .run(|conn| {
                Ok::<_, DbError>(
                    outbox_jobs::table
                        .filter(outbox_jobs::kind.eq(JobKind::PlaceOrder.as_str()))
                        .filter(outbox_jobs::state.eq("running"))
                        .select(outbox_jobs::lease_owner)
                        .first(conn)
                        .optional()?,
                )
            })
            .await
            .expect("jobs");
        if let Some(Some(owner)) = owner {
            // `{replica}-p0/{job}/{attempt}`: the worker's name, as the process logged it.
            break owner.split('/').next().unwrap_or_default().to_string();
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "nobody started the placement"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let logs: Vec<String> = replicas
        .iter()
        .map(|r| {
            std::fs::read_to_string(dir.path().join(format!("serve-{}-1.log", r.name)))
                .unwrap_or_default()
        })
        .collect();
    let stopped = logs
        .iter()
        .position(|log| log.contains(&format!("\"{holder}\"")))
        .unwrap_or_else(|| panic!("no process logged the worker {holder}"));
    let other = &replicas[1 - stopped];

    // SIGTERM: the worker is cut off after the grace and its lease released as it exits.
    let serve = &mut serves[stopped];
    let _ = Command::new("kill")
        .args(["-TERM", &serve.0.id().to_string()])
        .status();
    let stopping = Instant::now();
    let status = loop {
        if let Some(status) = serve.0.try_wait().expect("wait") {
            break status;
        }
        assert!(
            stopping.elapsed() < Duration::from_secs(30),
            "the replica did not stop"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let exited_at_ms = now_ms();
    assert!(status.success(), "the replica exits cleanly: {status}");
    let log = std::fs::read_to_string(
        dir.path()
            .join(format!("serve-{}-1.log", replicas[stopped].name)),
    )
    .unwrap_or_default();
    assert!(
        log.contains("released the leases of unfinished jobs"),
        "the stopped replica said nothing of its leases"
    );

    // The other takes the job over at once, not when the lease would have lapsed (up to 8 s
    // later).
    let started = Instant::now();
    let taken_over = loop {
        let taken = lease_expired_attempts(&db).await;
        if let Some((at, _)) = taken.first() {
            break at - exited_at_ms;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "nobody took the job over"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(
        taken_over < 2_000,
        "the job waited {taken_over} ms after its replica exited"
    );
    let cleared = client
        .delete(format!("{sandbox_base}/_sandbox/faults"))
        .bearer_auth(&key)
        .send()
        .await
        .expect("clear faults");
    assert!(cleared.status().is_success());
    // Fulfilled through the other replica, with one upstream order: the cut-off request and
    // the resend carry the same key.
    let started = Instant::now();
    loop {
        let page = client
            .get(other.url(&format!("/orders/{}", bought.order.checkout)))
            .header("cookie", &bought.cookie)
            .send()
            .await;
        if let Ok(res) = page
            && let Ok(html) = res.text().await
            && html.contains("data-status=\"fulfilled\"")
        {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(90),
            "never fulfilled after the handover"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let stats = sandbox_stats(&client, &sandbox_base, &key).await;
    assert_eq!(stats["orders"], 1, "{stats}");
    assert_eq!(
        stats["duplicatePurchases"],
        serde_json::json!([]),
        "{stats}"
    );
    eprintln!("replicas: a job released at SIGTERM was taken over {taken_over} ms after the exit");
}
