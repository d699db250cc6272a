//! The real binaries, killed at random moments: `storefront sandbox` as the upstream in its own
//! process, `storefront serve` SIGKILLed five times while 30 purchases are bought and paid,
//! then restarted. Afterwards every paid purchase has exactly one upstream order and is
//! fulfilled, and no log line or email of the whole run carries an activation code, an ICCID or
//! the API key.

use std::fs::File;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use tokio::sync::Mutex;

use crate::consumer::{buy_and_pay, hidden};
use crate::helpers::{binary, free_port, random_suffix};

const PURCHASES: usize = 30;
const KILLS: usize = 5;

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

    // Buyers and a killer run at once.
    let shop_url = shop.url("");
    let mut buyers = Vec::new();
    for n in 0..PURCHASES {
        let (client, shop_url, plan) = (client.clone(), shop_url.clone(), plan.clone());
        buyers.push(tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(u64::try_from(n).unwrap_or(0) * 60)).await;
            buy_and_pay(&client, &shop_url, &plan, n).await
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

    // Quiescence: every paid purchase fulfilled.
    let started = Instant::now();
    let mut codes = Vec::new();
    for (id, order_cookie) in &purchases {
        let code = loop {
            if started.elapsed() > Duration::from_secs(120) {
                let db = shop.dir.path().join("shop.db");
                let state = Command::new("sqlite3")
                    .arg(&db)
                    .arg("SELECT p.id, p.status, j.kind, j.state, j.attempts, j.last_error, j.run_at_ms FROM purchases p LEFT JOIN outbox_jobs j ON j.purchase_id = p.id WHERE p.status <> 'fulfilled'")
                    .output()
                    .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
                    .unwrap_or_default();
                panic!("purchase {id} not fulfilled:\n{state}");
            }
            let page = client
                .get(shop.url(&format!("/orders/{id}")))
                .header("cookie", order_cookie)
                .send()
                .await;
            if let Ok(res) = page
                && let Ok(html) = res.text().await
                && html.contains("data-status=\"fulfilled\"")
            {
                break hidden(
                    &html.replace("readonly value=", "name=\"code\" value="),
                    "code",
                )
                .expect("activation code on the page");
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        };
        codes.push(code);
    }

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
    assert_eq!(stats["orders"], serde_json::json!(PURCHASES), "{stats}");
    for (id, _) in &purchases {
        assert_eq!(stats["ordersByReference"][format!("sf-{id}")], 1, "{stats}");
    }
    assert_eq!(stats["ledgerInvariantHolds"], true);

    // ICCIDs, from the upstream itself.
    let mut iccids = Vec::new();
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
        let esim = order["esimId"]
            .as_str()
            .expect("fulfilled orders have an eSIM");
        let install: serde_json::Value = client
            .get(format!("{upstream}/esims/{esim}/installation"))
            .bearer_auth(&key)
            .send()
            .await
            .expect("installation")
            .json()
            .await
            .expect("json");
        iccids.push(install["iccid"].as_str().expect("iccid").to_string());
    }
    assert_eq!(iccids.len(), PURCHASES);

    let mut child = serve.lock().await;
    kill9(&mut child);
    kill9(&mut sandbox);
    let logs = read_dir_text(shop.dir.path());
    let mail = read_dir_text(&shop.dir.path().join("mail"));
    assert!(logs.contains("outbox job ran"), "the logs were captured");
    assert!(mail.contains("/orders/"), "emails were written");
    let shop_logs: String = logs
        .lines()
        .filter(|l| !l.contains("sandbox"))
        .collect::<Vec<_>>()
        .join("\n");
    assert!(!shop_logs.contains(&key), "the API key reached a log");
    for secret in codes.iter().chain(&iccids) {
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
