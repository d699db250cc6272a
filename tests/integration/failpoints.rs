//! The real binaries killed at each named fail point (docs/failpoints.md): for every point,
//! `storefront serve` starts with that point armed to SIGKILL the process the first time it is
//! hit, three orders (of one, three and two eSIMs, some for travellers with addresses of their
//! own) are bought and paid, the process dies there, restarts without fail points, and once
//! quiet the sandbox (its own process) has exactly one order per eSIM and every eSIM is
//! delivered, its traveller emailed once (see [`crate::per_unit`]). The six cases run at once, each with its own sandbox, port
//! and directory, so the run takes about one lease (8 s) plus a purchase, not six.
//!
//! Built only with `--features failpoints`:
//! `cargo test --features failpoints --test integration failpoints`.
#![cfg(feature = "failpoints")]

use std::fs::File;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use storefront::config::DatabaseUrl;
use storefront::db::Db;

use crate::consumer::buy_order_and_pay;
use crate::helpers::{free_port, random_suffix};
use crate::per_unit::{self, Wanted};

/// Orders of one, three and two eSIMs.
const ORDERS: usize = 3;

/// Each fail point, and how many orders the upstream holds when the shop dies there, where
/// that is certain (one worker while armed, and `place_order` is claimed first, the first
/// order's, of one eSIM, paid first): that proves
/// the process died at the boundary named, not somewhere near it.
const CASES: [(&str, Option<u64>); 6] = [
    ("after-payment-commit", Some(0)),
    ("after-claim", Some(0)),
    ("before-send", Some(0)),
    ("after-send-before-commit", Some(1)),
    ("after-result-commit", Some(1)),
    // The first purchase is fulfilled upstream; the others may or may not be ordered yet.
    ("after-installation-fetch", None),
];

/// From the first payment to every purchase fulfilled, including the 8 s lease of a job
/// whose worker died and the restart.
const QUIESCENCE: Duration = Duration::from_secs(100);

/// The binary with no `STOREFRONT_*` variable of the test's own environment.
fn binary(dir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_storefront"));
    for (key, _) in std::env::vars() {
        if key.starts_with("STOREFRONT_") {
            cmd.env_remove(key);
        }
    }
    cmd.current_dir(dir);
    cmd
}

/// A child process that is SIGKILLed when dropped, so a failed assertion leaves none behind.
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

struct Case {
    name: &'static str,
    dir: PathBuf,
    port: u16,
    upstream_port: u16,
    key: String,
    runs: usize,
}

impl Case {
    fn start_sandbox(&self) -> Proc {
        Proc(
            binary(&self.dir)
                .args([
                    "sandbox",
                    "--bind",
                    &format!("127.0.0.1:{}", self.upstream_port),
                    "--key",
                    &self.key,
                    "--plans",
                    "150",
                ])
                .stdout(Stdio::null())
                .stderr(File::create(self.dir.join("sandbox.log")).expect("log"))
                .spawn()
                .expect("start sandbox"),
        )
    }

    /// Starts `serve`; `armed` arms this case's fail point to kill at its first hit, with one
    /// worker so the first job claimed is the first purchase's `place_order`.
    fn start_shop(&mut self, armed: bool) -> Proc {
        self.runs += 1;
        let mut cmd = binary(&self.dir);
        cmd.arg("serve")
            .env(
                "STOREFRONT_DATABASE_URL",
                format!("sqlite://{}/shop.db", self.dir.display()),
            )
            .env("STOREFRONT_BIND", format!("127.0.0.1:{}", self.port))
            .env(
                "STOREFRONT_PUBLIC_URL",
                format!("http://127.0.0.1:{}", self.port),
            )
            .env(
                "STOREFRONT_UPSTREAM_BASE_URL",
                format!("http://127.0.0.1:{}/api/v1", self.upstream_port),
            )
            .env("STOREFRONT_UPSTREAM_API_KEY", &self.key)
            .env("STOREFRONT_SECRET_KEY", "ef".repeat(32))
            .env("STOREFRONT_PAYMENTS", "demo")
            .env("STOREFRONT_MAIL_DIR", self.dir.join("mail"))
            .env("STOREFRONT_MAIL_FROM", "shop@example.com")
            .env("STOREFRONT_CHECKOUT_RATE_LIMIT", "10000")
            .env("STOREFRONT_LOG_FORMAT", "json")
            .env("RUST_LOG", "debug");
        if armed {
            cmd.env("STOREFRONT_FAILPOINTS", format!("{}=1*return", self.name))
                .env("STOREFRONT_WORKERS", "1");
        }
        Proc(
            cmd.stdout(Stdio::null())
                .stderr(File::create(self.log(self.runs)).expect("log"))
                .spawn()
                .expect("start serve"),
        )
    }

    fn log(&self, run: usize) -> PathBuf {
        self.dir.join(format!("serve-{run}.log"))
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    async fn stats(&self, client: &reqwest::Client) -> serde_json::Value {
        client
            .get(format!(
                "http://127.0.0.1:{}/_sandbox/stats",
                self.upstream_port
            ))
            .bearer_auth(&self.key)
            .send()
            .await
            .expect("stats")
            .json()
            .await
            .expect("stats json")
    }
}

async fn crash_at(name: &'static str) {
    let dir = tempfile::tempdir().expect("dir");
    let mut case = Case {
        name,
        dir: dir.path().to_path_buf(),
        port: free_port(),
        upstream_port: free_port(),
        key: format!("sk_fail_{}", random_suffix()),
        runs: 0,
    };
    let _sandbox = case.start_sandbox();
    let mut serve = case.start_shop(true);
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(10))
        .build()
        .expect("client");

    // Wait for the shop and its first catalog sync, then pick a plan it sells.
    let started = Instant::now();
    let plan = loop {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{name}: the shop never stocked its catalog"
        );
        if let Ok(res) = client.get(case.url("/countries/US")).send().await
            && let Ok(html) = res.text().await
            && let Some(href) = html.split("href=\"/plans/").nth(1)
        {
            break href.split(['"', '?']).next().expect("plan id").to_string();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };

    let run = random_suffix();
    let mut buyers = Vec::new();
    for n in 0..ORDERS {
        let (client, shop, plan) = (client.clone(), case.url(""), plan.clone());
        let wanted = Wanted::mix(n, &run);
        buyers.push(tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(u64::try_from(n).unwrap_or(0) * 60)).await;
            let (checkout, cookie) =
                buy_order_and_pay(&client, &shop, &plan, n, &wanted, None).await;
            (wanted.bought(&checkout, &[]), cookie)
        }));
    }

    // The armed shop dies at its fail point, by SIGKILL, and says where.
    let started = Instant::now();
    let status = loop {
        if let Some(status) = serve.0.try_wait().expect("wait for serve") {
            break status;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{name}: the shop never reached its fail point"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let log = std::fs::read_to_string(case.log(1)).unwrap_or_default();
    assert_eq!(
        status.signal(),
        Some(9),
        "{name}: the shop should die by SIGKILL, not {status}:\n{log}"
    );
    assert!(
        log.contains(&format!("failpoint {name}: reached, killing the process")),
        "{name}: died elsewhere:\n{log}"
    );
    let at_death = case.stats(&client).await;
    if let Some(expected) = CASES.iter().find(|(n, _)| *n == name).and_then(|c| c.1) {
        assert_eq!(
            at_death["orders"],
            serde_json::json!(expected),
            "{name}: upstream orders when the shop died: {at_death}"
        );
    }

    // Restarted without fail points, it finishes every purchase, ordering each once.
    let _serve = case.start_shop(false);
    let mut purchases = Vec::new();
    for buyer in buyers {
        purchases.push(buyer.await.expect("buyer"));
    }
    let started = Instant::now();
    for (order, order_cookie) in &purchases {
        let id = &order.checkout;
        loop {
            if started.elapsed() > QUIESCENCE {
                let state = Command::new("sqlite3")
                    .arg(case.dir.join("shop.db"))
                    .arg("SELECT p.id, p.status, j.kind, j.state, j.attempts, j.last_error, j.run_at_ms FROM purchases p LEFT JOIN outbox_jobs j ON j.purchase_id = p.id WHERE p.status <> 'fulfilled'")
                    .output()
                    .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
                    .unwrap_or_default();
                panic!("{name}: purchase {id} not fulfilled:\n{state}");
            }
            if let Ok(res) = client
                .get(case.url(&format!("/orders/{id}")))
                .header("cookie", order_cookie)
                .send()
                .await
                && let Ok(html) = res.text().await
                && per_unit::page_settled(&html, order)
            {
                break;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    // And the emails that follow a delivery are out.
    let db = Db::open(
        &DatabaseUrl::parse(&format!("sqlite://{}/shop.db", case.dir.display())).expect("url"),
        1,
    )
    .expect("the shop's database");
    per_unit::wait_quiet(&db, Duration::from_secs(30)).await;

    let stats = case.stats(&client).await;
    assert_eq!(
        stats["duplicatePurchases"],
        serde_json::json!([]),
        "{name}: {stats}"
    );
    let units: usize = purchases.iter().map(|(order, _)| order.quantity).sum();
    assert_eq!(stats["orders"], serde_json::json!(units), "{name}: {stats}");
    assert_eq!(stats["ledgerInvariantHolds"], true, "{name}: {stats}");

    // Unit by unit: one upstream order each, each delivered, its traveller emailed once.
    let bought: Vec<per_unit::Bought> = purchases.iter().map(|(o, _)| o.clone()).collect();
    let upstream = format!("http://127.0.0.1:{}/api/v1", case.upstream_port);
    let orders = per_unit::upstream_orders(&client, &upstream, &case.key).await;
    let mail = per_unit::read_mail(&case.dir.join("mail"));
    let tally = per_unit::judge(&db, &bought, &orders, Some(&mail))
        .await
        .unwrap_or_else(|wrong| panic!("{name}: {wrong}"));
    assert_eq!(tally.delivered, units, "{name}: {tally:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn killed_at_each_fail_point_the_shop_orders_each_paid_purchase_once_and_fulfils_it() {
    crate::helpers::init_logs();
    let cases: Vec<_> = CASES
        .iter()
        .map(|(name, _)| (*name, tokio::spawn(crash_at(name))))
        .collect();
    let mut failed = Vec::new();
    for (name, case) in cases {
        if let Err(err) = case.await {
            // The case's own assertion message was printed when it panicked.
            failed.push(format!("{name} ({err})"));
        }
    }
    assert!(failed.is_empty(), "failed at: {}", failed.join(", "));
}
