//! The real binaries, killed at random moments: `storefront sandbox` as the upstream in its own
//! process, `storefront serve` SIGKILLed five times while 15 orders of one, two or three eSIMs
//! (30 eSIMs, some for travellers with addresses of their own) are bought and paid, then
//! restarted. Upstream fails four of the eSIMs: one order's only eSIM, one eSIM of a pair and
//! one of two trios. Afterwards every eSIM has exactly one upstream order; each failed one is
//! refunded its share once and every other is delivered, its traveller emailed once (see
//! [`crate::per_unit`]); and no log line or email of the whole run carries an activation code,
//! an ICCID or the API key.

use std::fs::File;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use tokio::sync::Mutex;

use storefront::config::DatabaseUrl;
use storefront::db::Db;

use crate::consumer::buy_order_and_pay;
use crate::helpers::{binary, free_port, random_suffix};
use crate::per_unit::{self, Wanted};

/// Orders of one, three and two eSIMs in turn: 30 eSIMs.
const ORDERS: usize = 15;
const KILLS: usize = 5;

/// The eSIMs (1-based) upstream fails, by order: a whole order of one, one of a pair, and the
/// middle one (the traveller's with an address) of two trios.
fn failing(n: usize) -> Vec<usize> {
    match n {
        1 | 7 => vec![2],
        5 | 9 => vec![1],
        _ => Vec::new(),
    }
}

struct Shop {
    dir: tempfile::TempDir,
    port: u16,
    upstream: String,
    key: String,
    runs: usize,
}

impl Shop {
    fn start(&mut self) -> Child {
        self.runs += 1;
        let log =
            File::create(self.dir.path().join(format!("serve-{}.log", self.runs))).expect("log");
        binary()
            .arg("serve")
            .env(
                "STOREFRONT_DATABASE_URL",
                format!("sqlite://{}/shop.db", self.dir.path().display()),
            )
            .env("STOREFRONT_BIND", format!("127.0.0.1:{}", self.port))
            .env(
                "STOREFRONT_PUBLIC_URL",
                format!("http://127.0.0.1:{}", self.port),
            )
            .env("STOREFRONT_UPSTREAM_BASE_URL", &self.upstream)
            .env("STOREFRONT_UPSTREAM_API_KEY", &self.key)
            .env("STOREFRONT_SECRET_KEY", "ef".repeat(32))
            .env("STOREFRONT_PAYMENTS", "demo")
            .env("STOREFRONT_MAIL_DIR", self.dir.path().join("mail"))
            .env("STOREFRONT_MAIL_FROM", "shop@example.com")
            .env("STOREFRONT_CHECKOUT_RATE_LIMIT", "10000")
            .env("STOREFRONT_LOG_FORMAT", "json")
            .env("RUST_LOG", "debug")
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("start serve")
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }
}

fn kill9(child: &mut Child) {
    let _ = Command::new("kill")
        .args(["-KILL", &child.id().to_string()])
        .status();
    let _ = child.wait();
}

fn read_dir_text(dir: &Path) -> String {
    let mut all = String::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.filter_map(Result::ok) {
            if let Ok(text) = std::fs::read_to_string(entry.path()) {
                all.push_str(&text);
            }
        }
    }
    all
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn random_kills_never_buy_twice_or_lose_a_paid_purchase_and_nothing_secret_is_logged() {
    crate::helpers::init_logs();
    let run_started = Instant::now();
    let dir = tempfile::tempdir().expect("dir");
    let key = format!("sk_crash_{}", random_suffix());
    let upstream_port = free_port();
    let mut sandbox = binary()
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
        .stderr(File::create(dir.path().join("sandbox.log")).expect("log"))
        .spawn()
        .expect("start sandbox");
    let upstream = format!("http://127.0.0.1:{upstream_port}/api/v1");
    let mut shop = Shop {
        dir,
        port: free_port(),
        upstream: upstream.clone(),
        key: key.clone(),
        runs: 0,
    };
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(10))
        .build()
        .expect("client");
    let serve = Arc::new(Mutex::new(shop.start()));

    // Wait for the shop and its first catalog sync, then pick a plan it sells.
    let started = Instant::now();
    let plan = loop {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the shop never stocked its catalog"
        );
        if let Ok(res) = client.get(shop.url("/countries/US")).send().await
            && let Ok(html) = res.text().await
            && let Some(href) = html.split("href=\"/plans/").nth(1)
        {
            break href.split(['"', '?']).next().expect("plan id").to_string();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };

    // The shop's database, read as it runs: the units' references, and the books at the end.
    let db = Db::open(
        &DatabaseUrl::parse(&format!("sqlite://{}/shop.db", shop.dir.path().display()))
            .expect("url"),
        2,
    )
    .expect("the shop's database");

    // Buyers and a killer run at once.
    let shop_url = shop.url("");
    let sandbox_url = format!("http://127.0.0.1:{upstream_port}");
    let run = random_suffix();
    let mut buyers = Vec::new();
    for n in 0..ORDERS {
        let (client, shop_url, plan) = (client.clone(), shop_url.clone(), plan.clone());
        let wanted = Wanted::mix(n, &run);
        let doomed = failing(n);
        // Upstream is told to fail the doomed eSIMs once their references exist.
        let before_pay = per_unit::fail_before_pay(&client, &db, (&sandbox_url, &key), &doomed);
        buyers.push(tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(u64::try_from(n).unwrap_or(0) * 120)).await;
            let (checkout, cookie) =
                buy_order_and_pay(&client, &shop_url, &plan, n, &wanted, Some(&before_pay)).await;
            (wanted.bought(&checkout, &doomed), cookie)
        }));
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x5eed);
    for _ in 0..KILLS {
        tokio::time::sleep(Duration::from_millis(rng.random_range(150..700))).await;
        let mut child = serve.lock().await;
        kill9(&mut child);
        tokio::time::sleep(Duration::from_millis(rng.random_range(50..300))).await;
        *child = shop.start();
    }
    let mut purchases = Vec::new();
    for buyer in buyers {
        purchases.push(buyer.await.expect("buyer"));
    }

    // Quiescence: every eSIM of every paid order delivered or refunded, as its buyer's page
    // shows.
    let started = Instant::now();
    for (order, order_cookie) in &purchases {
        let id = &order.checkout;
        loop {
            if started.elapsed() > Duration::from_secs(120) {
                let db = shop.dir.path().join("shop.db");
                let state = Command::new("sqlite3")
                    .arg(&db)
                    .arg("SELECT p.id, p.status, j.kind, j.state, j.attempts, j.last_error, j.run_at_ms FROM purchases p LEFT JOIN outbox_jobs j ON j.purchase_id = p.id WHERE p.status NOT IN ('fulfilled', 'refunded')")
                    .output()
                    .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
                    .unwrap_or_default();
                panic!("order {id} not settled:\n{state}");
            }
            let page = client
                .get(shop.url(&format!("/orders/{id}")))
                .header("cookie", order_cookie)
                .send()
                .await;
            if let Ok(res) = page
                && let Ok(html) = res.text().await
                && per_unit::page_settled(&html, order)
            {
                break;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    // And the emails that follow a delivery are out.
    per_unit::wait_quiet(&db, Duration::from_secs(30)).await;

    let stats: serde_json::Value = client
        .get(format!("http://127.0.0.1:{upstream_port}/_sandbox/stats"))
        .bearer_auth(&key)
        .send()
        .await
        .expect("stats")
        .json()
        .await
        .expect("json");
    assert_eq!(
        stats["duplicatePurchases"],
        serde_json::json!([]),
        "{stats}"
    );
    let units: usize = purchases.iter().map(|(order, _)| order.quantity).sum();
    assert_eq!(stats["orders"], serde_json::json!(units), "{stats}");
    assert_eq!(stats["ledgerInvariantHolds"], true);

    // Installation values, from the upstream itself.
    let mut secrets = Vec::new();
    let orders: serde_json::Value = client
        .get(format!("{upstream}/orders?limit=100"))
        .bearer_auth(&key)
        .send()
        .await
        .expect("orders")
        .json()
        .await
        .expect("json");
    for order in orders["data"].as_array().expect("orders") {
        let Some(esim) = order["esimId"].as_str() else {
            assert_eq!(order["status"], "failed", "only failed orders have no eSIM");
            continue;
        };
        let install: serde_json::Value = client
            .get(format!("{upstream}/esims/{esim}/installation"))
            .bearer_auth(&key)
            .send()
            .await
            .expect("installation")
            .json()
            .await
            .expect("json");
        for value in ["iccid", "activationCode"] {
            secrets.push(install[value].as_str().expect(value).to_string());
        }
    }
    let failed: usize = purchases.iter().map(|(o, _)| o.failing.len()).sum();
    assert_eq!(secrets.len(), 2 * (units - failed));

    // Unit by unit: one upstream order each, the failed ones refunded their share once, the
    // others delivered and their travellers emailed once.
    let bought: Vec<per_unit::Bought> = purchases.iter().map(|(o, _)| o.clone()).collect();
    let upstream_orders = per_unit::upstream_orders(&client, &upstream, &key).await;
    let mail_dir = shop.dir.path().join("mail");
    let tally = per_unit::judge(
        &db,
        &bought,
        &upstream_orders,
        Some(&per_unit::read_mail(&mail_dir)),
    )
    .await
    .unwrap_or_else(|wrong| panic!("{wrong}"));
    assert_eq!((tally.units, tally.refunded), (units, failed), "{tally:?}");
    assert!(tally.traveller_emails > 0, "{tally:?}");
    eprintln!(
        "crash: {} orders, {} eSIMs through {KILLS} kills: {} delivered, {} refunded their \
         share, {} travellers' emails; run {:.1} s",
        tally.orders,
        tally.units,
        tally.delivered,
        tally.refunded,
        tally.traveller_emails,
        run_started.elapsed().as_secs_f64()
    );

    let mut child = serve.lock().await;
    kill9(&mut child);
    kill9(&mut sandbox);
    let logs = read_dir_text(shop.dir.path());
    let mail = read_dir_text(&mail_dir);
    assert!(logs.contains("outbox job ran"), "the logs were captured");
    assert!(mail.contains("/orders/"), "emails were written");
    let shop_logs: String = logs
        .lines()
        .filter(|l| !l.contains("sandbox"))
        .collect::<Vec<_>>()
        .join("\n");
    assert!(!shop_logs.contains(&key), "the API key reached a log");
    for secret in &secrets {
        assert!(
            !logs.contains(secret.as_str()),
            "an installation value reached a log"
        );
        assert!(
            !mail.contains(secret.as_str()),
            "an installation value reached an email"
        );
    }
}
