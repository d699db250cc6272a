//! The sandbox upstream over real HTTP: a spawned sandbox and plain reqwest calls (never the
//! upstream client), asserting what an integrating partner would notice.

use std::collections::HashSet;
use std::time::Duration;

use reqwest::{Client, Method, StatusCode};
use serde_json::{Value, json};
use storefront::sandbox::{self, Fault, KeySpec, Outcome, SandboxConfig, SandboxHandle, Scope};

const KEY: &str = "sbx_test_key_0001";

fn fast_config() -> SandboxConfig {
    let mut config = SandboxConfig::new(KEY);
    config.paid_delay = Duration::from_millis(20);
    config.provisioning_delay = Duration::from_millis(30);
    config
}

async fn start() -> (SandboxHandle, Client) {
    start_with(fast_config()).await
}

async fn start_with(config: SandboxConfig) -> (SandboxHandle, Client) {
    let handle = sandbox::spawn(config).await.expect("sandbox binds");
    let client = Client::builder()
        .timeout(Duration::from_secs(10))
        .build()
        .expect("client builds");
    (handle, client)
}

struct Api<'a> {
    h: &'a SandboxHandle,
    c: &'a Client,
    key: String,
}

impl<'a> Api<'a> {
    fn new(h: &'a SandboxHandle, c: &'a Client) -> Self {
        Self {
            h,
            c,
            key: KEY.to_string(),
        }
    }

    fn with_key(h: &'a SandboxHandle, c: &'a Client, key: &str) -> Self {
        Self {
            h,
            c,
            key: key.to_string(),
        }
    }

    async fn get(&self, path: &str) -> (StatusCode, Value) {
        let r = self
            .c
            .get(format!("{}{path}", self.h.base_url))
            .bearer_auth(&self.key)
            .send()
            .await
            .expect("request sent");
        assert_eq!(
            r.headers()
                .get("cache-control")
                .and_then(|v| v.to_str().ok()),
            Some("private, no-store"),
            "{path}"
        );
        let status = r.status();
        (status, r.json().await.expect("JSON answer"))
    }

    async fn post(&self, path: &str, idem: &str, body: Value) -> (StatusCode, Value) {
        self.post_raw(path, Some(idem), body.to_string(), "application/json")
            .await
    }

    async fn post_raw(
        &self,
        path: &str,
        idem: Option<&str>,
        body: String,
        content_type: &str,
    ) -> (StatusCode, Value) {
        let mut req = self
            .c
            .post(format!("{}{path}", self.h.base_url))
            .bearer_auth(&self.key)
            .header("content-type", content_type)
            .body(body);
        if let Some(idem) = idem {
            req = req.header("idempotency-key", idem);
        }
        let r = req.send().await.expect("request sent");
        assert_eq!(
            r.headers()
                .get("cache-control")
                .and_then(|v| v.to_str().ok()),
            Some("private, no-store")
        );
        let status = r.status();
        (status, r.json().await.expect("JSON answer"))
    }

    async fn control(
        &self,
        method: Method,
        path: &str,
        body: Option<Value>,
    ) -> (StatusCode, Value) {
        let mut req = self
            .c
            .request(method, format!("{}/_sandbox{path}", self.h.origin))
            .bearer_auth(KEY);
        if let Some(body) = body {
            req = req.json(&body);
        }
        let r = req.send().await.expect("request sent");
        let status = r.status();
        (status, r.json().await.expect("JSON answer"))
    }

    async fn price(&self, plan: &str) -> i64 {
        let (s, p) = self.get(&format!("/plans/{plan}")).await;
        assert_eq!(s, StatusCode::OK);
        p["priceCents"].as_i64().expect("integer price")
    }

    async fn order(&self, plan: &str, reference: &str, idem: &str) -> (StatusCode, Value) {
        let price = self.price(plan).await;
        self.post(
            "/orders",
            idem,
            json!({"planId": plan, "expectedPriceCents": price, "reference": reference}),
        )
        .await
    }

    async fn balance(&self) -> (i64, i64) {
        let (_, b) = self.get("/balance").await;
        (
            b["availableCents"].as_i64().expect("int"),
            b["reservedCents"].as_i64().expect("int"),
        )
    }

    async fn wait_status(&self, order_id: &str, status: &str) -> Value {
        for _ in 0..200 {
            let (s, o) = self.get(&format!("/orders/{order_id}")).await;
            assert_eq!(s, StatusCode::OK);
            if o["status"] == status {
                return o;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("order {order_id} never reached {status}");
    }
}

fn code(body: &Value) -> &str {
    body["error"]["code"].as_str().unwrap_or("<no code>")
}

/// A cheap, non-zero-priced plan so balances move visibly.
fn cheap_plan(h: &SandboxHandle) -> String {
    h.sandbox
        .plans()
        .into_iter()
        .find(|p| (100..=2_000).contains(&p.price_cents))
        .map(|p| p.id)
        .expect("the catalog has a cheap plan")
}

#[tokio::test]
async fn validation_errors_name_each_bad_field() {
    let (h, c) = start().await;
    let api = Api::new(&h, &c);
    let plan = cheap_plan(&h);
    let good = json!({"planId": plan, "expectedPriceCents": 100, "reference": "r"});
    let cases: Vec<(&str, String, &str)> = vec![
        ("decimal price", json!({"planId": plan, "expectedPriceCents": 1.5, "reference": "r"}).to_string(), "application/json"),
        ("string price", json!({"planId": plan, "expectedPriceCents": "100", "reference": "r"}).to_string(), "application/json"),
        ("negative price", json!({"planId": plan, "expectedPriceCents": -1, "reference": "r"}).to_string(), "application/json"),
        ("price above max", json!({"planId": plan, "expectedPriceCents": 9_007_199_254_740_992_i64, "reference": "r"}).to_string(), "application/json"),
        ("unknown property", json!({"planId": plan, "expectedPriceCents": 100, "reference": "r", "x": 1}).to_string(), "application/json"),
        ("missing reference", json!({"planId": plan, "expectedPriceCents": 100}).to_string(), "application/json"),
        ("empty reference", json!({"planId": plan, "expectedPriceCents": 100, "reference": ""}).to_string(), "application/json"),
        ("long reference", json!({"planId": plan, "expectedPriceCents": 100, "reference": "r".repeat(101)}).to_string(), "application/json"),
        ("bad plan id", json!({"planId": "p0-base", "expectedPriceCents": 100, "reference": "r"}).to_string(), "application/json"),
        ("plan id variant", json!({"planId": "p1-07", "expectedPriceCents": 100, "reference": "r"}).to_string(), "application/json"),
        ("not JSON", "planId=p1-base".to_string(), "application/json"),
        ("wrong content type", good.to_string(), "text/plain"),
        ("array body", "[]".to_string(), "application/json"),
    ];
    for (name, body, ct) in cases {
        let (s, b) = api.post_raw("/orders", Some("idem-key-1"), body, ct).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{name}: {b}");
        assert_eq!(code(&b), "invalid_request", "{name}");
        assert!(
            b["error"]["requestId"]
                .as_str()
                .is_some_and(|r| !r.is_empty())
        );
    }
    for (name, idem) in [
        ("missing", None),
        ("short", Some("short")),
        ("bad char", Some("has space 123")),
    ] {
        let (s, b) = api
            .post_raw("/orders", idem, good.to_string(), "application/json")
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "idempotency key {name}");
        assert_eq!(code(&b), "invalid_request");
    }
    // 100 characters of reference are fine (and non-ASCII counts characters, not bytes).
    let price = api.price(&plan).await;
    let (s, _) = api
        .post(
            "/orders",
            "idem-key-ok",
            json!({"planId": plan, "expectedPriceCents": price, "reference": "é".repeat(100)}),
        )
        .await;
    assert_eq!(s, StatusCode::ACCEPTED);

    for (name, body) in [
        ("topup too small", json!({"amountCents": 999})),
        ("topup too large", json!({"amountCents": 100_001})),
        ("topup decimal", json!({"amountCents": 1000.0})),
        (
            "topup extra",
            json!({"amountCents": 1000, "currency": "USD"}),
        ),
    ] {
        let (s, b) = api.post("/balance/topups", "idem-topup-1", body).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{name}");
        assert_eq!(code(&b), "invalid_request");
    }
    let (s, _) = api
        .post("/checkout-sessions", "idem-cs-0001", json!({"planId": plan, "expectedPriceCents": price, "reference": "c", "email": "not-an-email"}))
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);

    for query in [
        "/plans?limit=0",
        "/plans?limit=101",
        "/plans?limit=abc",
        "/plans?limit=1.5",
        "/plans?country=us",
        "/plans?country=USA",
        "/plans?region=",
        &format!("/plans?region={}", "r".repeat(81)),
        &format!("/plans?cursor={}", "c".repeat(101)),
        "/plans?cursor=nonsense",
        "/plans?page=2",
        "/plans?limit=5&limit=6",
        "/orders?country=US",
        "/balance/transactions?limit=0",
    ] {
        let (s, b) = api.get(query).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{query}: {b}");
        assert_eq!(code(&b), "invalid_request");
    }
    let (s, b) = api.get(&format!("/orders/{}", "x".repeat(101))).await;
    assert_eq!((s, code(&b)), (StatusCode::BAD_REQUEST, "invalid_request"));
    let (s, b) = api.get("/plans/p99999-base").await;
    assert_eq!((s, code(&b)), (StatusCode::NOT_FOUND, "not_found"));
    let (s, b) = api.get("/no-such-endpoint").await;
    assert_eq!((s, code(&b)), (StatusCode::NOT_FOUND, "not_found"));
}

#[tokio::test]
async fn every_error_gets_a_fresh_request_id() {
    let (h, c) = start().await;
    let api = Api::new(&h, &c);
    let (_, a) = api.get("/plans?limit=0").await;
    let (_, b) = api.get("/plans?limit=0").await;
    assert_ne!(a["error"]["requestId"], b["error"]["requestId"]);
}

#[tokio::test]
async fn keys_are_checked_for_presence_expiry_and_scope() {
    let (h, c) = start().await;
    let endpoints: [(&str, &str, Scope); 13] = [
        ("GET", "/account", Scope::BalanceRead),
        ("GET", "/countries", Scope::CatalogRead),
        ("GET", "/regions", Scope::CatalogRead),
        ("GET", "/plans", Scope::CatalogRead),
        ("GET", "/plans/p1-base", Scope::CatalogRead),
        ("GET", "/balance", Scope::BalanceRead),
        ("GET", "/balance/transactions", Scope::BalanceRead),
        ("POST", "/balance/topups", Scope::BalanceWrite),
        ("POST", "/orders", Scope::OrdersWrite),
        ("GET", "/orders", Scope::OrdersRead),
        ("GET", "/orders/ord_x", Scope::OrdersRead),
        ("GET", "/esims/esim_x/installation", Scope::EsimsInstall),
        ("POST", "/checkout-sessions", Scope::CheckoutWrite),
    ];
    let expired = h.sandbox.create_key(KeySpec {
        expired: true,
        ..KeySpec::with_scopes(&Scope::ALL)
    });
    for (method, path, scope) in endpoints {
        let url = format!("{}{path}", h.base_url);
        let send = |key: Option<&str>| {
            let mut req = c.request(method.parse().expect("method"), &url);
            if let Some(key) = key {
                req = req.bearer_auth(key);
            }
            async move {
                let r = req.send().await.expect("sent");
                let s = r.status();
                (s, r.json::<Value>().await.expect("JSON"))
            }
        };
        let (s, b) = send(None).await;
        assert_eq!(
            (s, code(&b)),
            (StatusCode::UNAUTHORIZED, "unauthorized"),
            "{path}"
        );
        let (s, b) = send(Some("not-a-key")).await;
        assert_eq!(
            (s, code(&b)),
            (StatusCode::UNAUTHORIZED, "unauthorized"),
            "{path}"
        );
        let (s, b) = send(Some(&expired)).await;
        assert_eq!(
            (s, code(&b)),
            (StatusCode::UNAUTHORIZED, "key_expired"),
            "{path}"
        );
        // Every scope except the one needed.
        let others: Vec<Scope> = Scope::ALL.into_iter().filter(|s| *s != scope).collect();
        let key = h.sandbox.create_key(KeySpec::with_scopes(&others));
        let (s, b) = send(Some(&key)).await;
        assert_eq!(
            (s, code(&b)),
            (StatusCode::FORBIDDEN, "insufficient_scope"),
            "{path}"
        );
        // The needed scope alone gets past authorisation (to validation or a 404).
        let key = h.sandbox.create_key(KeySpec::with_scopes(&[scope]));
        let (s, _) = send(Some(&key)).await;
        assert!(
            !matches!(s, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN),
            "{path}: {s}"
        );
    }
    // GET /account reports the key's own scopes, expiry and environment.
    let prod = h.sandbox.create_key(KeySpec {
        environment: "production".to_string(),
        ..KeySpec::with_scopes(&[Scope::BalanceRead])
    });
    let (s, account) = Api::with_key(&h, &c, &prod).get("/account").await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(account["environment"], "production");
    assert_eq!(account["scopes"], json!(["balance:read"]));
    let expires = account["keyExpiresAt"].as_str().expect("timestamp");
    assert!(
        time::OffsetDateTime::parse(expires, &time::format_description::well_known::Rfc3339)
            .is_ok(),
        "{expires}"
    );
    let (_, main) = Api::new(&h, &c).get("/account").await;
    assert_eq!(main["environment"], "sandbox");
    assert_eq!(main["scopes"].as_array().map(Vec::len), Some(7));
    assert_eq!(main["webhookEnabled"], false);
    // The control API takes only the configured key.
    let r = c
        .get(format!("{}/_sandbox/stats", h.origin))
        .bearer_auth(&prod)
        .send()
        .await
        .expect("sent");
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn same_key_same_body_replays_and_different_body_conflicts() {
    let (h, c) = start().await;
    let api = Api::new(&h, &c);
    let plan = cheap_plan(&h);
    let (s, first) = api.order(&plan, "ref-1", "idem-replay-1").await;
    assert_eq!(s, StatusCode::ACCEPTED);
    let id = first["orderId"].as_str().expect("orderId");
    assert_eq!(first["statusUrl"], format!("/api/v1/orders/{id}"));
    let after_first = api.balance().await;
    // Same body with other whitespace and property order: the same order, nothing reserved.
    let price = api.price(&plan).await;
    let (s, second) = api
        .post_raw(
            "/orders",
            Some("idem-replay-1"),
            format!("{{ \"reference\": \"ref-1\", \"expectedPriceCents\": {price},  \"planId\": \"{plan}\" }}"),
            "application/json",
        )
        .await;
    assert_eq!(s, StatusCode::ACCEPTED);
    assert_eq!(second, first);
    assert_eq!(api.balance().await, after_first);
    let (s, b) = api
        .post(
            "/orders",
            "idem-replay-1",
            json!({"planId": plan, "expectedPriceCents": price, "reference": "ref-2"}),
        )
        .await;
    assert_eq!(
        (s, code(&b)),
        (StatusCode::CONFLICT, "idempotency_key_reused")
    );
    let stats = h.sandbox.stats();
    assert_eq!(stats.orders, 1);
    assert!(stats.duplicate_purchases.is_empty());
    // A new key with the same reference is a second purchase, and stats says so.
    let (s, _) = api.order(&plan, "ref-1", "idem-replay-2").await;
    assert_eq!(s, StatusCode::ACCEPTED);
    assert_eq!(
        h.sandbox.stats().duplicate_purchases,
        vec!["ref-1".to_string()]
    );
}

#[tokio::test]
async fn price_changes_and_missing_credit_are_refused_without_an_order() {
    let (h, c) = start().await;
    let api = Api::new(&h, &c);
    let plan = cheap_plan(&h);
    let price = api.price(&plan).await;
    h.sandbox
        .set_plan_price(&plan, price + 7)
        .expect("plan exists");
    let (s, b) = api
        .post(
            "/orders",
            "idem-price-1",
            json!({"planId": plan, "expectedPriceCents": price, "reference": "r"}),
        )
        .await;
    assert_eq!((s, code(&b)), (StatusCode::CONFLICT, "price_changed"));
    assert_eq!(api.price(&plan).await, price + 7);

    h.sandbox.set_balance(price).expect("in range");
    let (s, b) = api.order(&plan, "r", "idem-price-2").await;
    assert_eq!(
        (s, code(&b)),
        (StatusCode::CONFLICT, "insufficient_balance")
    );
    assert_eq!(h.sandbox.stats().orders, 0);
    assert_eq!(api.balance().await, (price, 0));
    // The refusal is not remembered: after a top-up the same key works.
    h.sandbox.set_balance(price + 7).expect("in range");
    let (s, _) = api.order(&plan, "r", "idem-price-2").await;
    assert_eq!(s, StatusCode::ACCEPTED);
    assert_eq!(api.balance().await, (0, price + 7));
    assert!(h.sandbox.stats().ledger_invariant_holds);
}

#[tokio::test]
async fn twenty_concurrent_orders_against_credit_for_five_accept_exactly_five() {
    let mut config = fast_config();
    // Keep orders reserved while the race runs.
    config.paid_delay = Duration::from_secs(30);
    let (h, c) = start_with(config).await;
    let plan = cheap_plan(&h);
    let price = Api::new(&h, &c).price(&plan).await;
    h.sandbox
        .set_balance(price * 5 + price / 2)
        .expect("in range");
    let tasks: Vec<_> = (0..20)
        .map(|i| {
            let c = c.clone();
            let url = format!("{}/orders", h.base_url);
            let plan = plan.clone();
            tokio::spawn(async move {
                c.post(url)
                    .bearer_auth(KEY)
                    .header("idempotency-key", format!("race-key-{i:04}"))
                    .json(&json!({"planId": plan, "expectedPriceCents": price, "reference": format!("race-{i}")}))
                    .send()
                    .await
                    .expect("sent")
                    .status()
            })
        })
        .collect();
    let mut accepted = 0;
    let mut refused = 0;
    for t in tasks {
        match t.await.expect("task") {
            StatusCode::ACCEPTED => accepted += 1,
            StatusCode::CONFLICT => refused += 1,
            other => panic!("unexpected {other}"),
        }
    }
    assert_eq!((accepted, refused), (5, 15));
    let stats = h.sandbox.stats();
    assert_eq!(stats.orders, 5);
    assert_eq!(stats.reserved_cents, price * 5);
    assert_eq!(stats.available_cents, price / 2);
    assert!(stats.ledger_invariant_holds);
}

#[tokio::test]
async fn orders_move_to_their_outcome_with_the_matching_ledger_effect() {
    let (h, c) = start().await;
    let api = Api::new(&h, &c);
    let plans: Vec<String> = h
        .sandbox
        .plans()
        .into_iter()
        .filter(|p| (100..=2_000).contains(&p.price_cents))
        .map(|p| p.id)
        .take(5)
        .collect();
    let outcomes = [
        Outcome::Fulfilled,
        Outcome::Failed,
        Outcome::PendingReview,
        Outcome::Refunded,
        Outcome::Other("on_hold".to_string()),
    ];
    for (plan, outcome) in plans.iter().zip(&outcomes) {
        h.sandbox
            .set_plan_outcome(plan, outcome.clone())
            .expect("plan exists");
        let price = api.price(plan).await;
        let before = api.balance().await;
        let (s, accepted) = api
            .order(
                plan,
                &format!("ref-{}", outcome.as_str()),
                &format!("idem-{}", outcome.as_str()),
            )
            .await;
        assert_eq!(s, StatusCode::ACCEPTED);
        let id = accepted["orderId"].as_str().expect("id").to_string();
        // Accepted: the price moved from available to reserved (spec 3, rule 2).
        let (_, first) = api.get(&format!("/orders/{id}")).await;
        assert!(first["esimId"].is_null());
        assert_eq!(first["priceCents"], price);
        assert_eq!(first["currency"], "USD");
        assert!(
            time::OffsetDateTime::parse(
                first["createdAt"].as_str().expect("ts"),
                &time::format_description::well_known::Rfc3339
            )
            .is_ok()
        );
        let order = api.wait_status(&id, outcome.as_str()).await;
        let after = api.balance().await;
        match outcome {
            Outcome::Fulfilled => {
                assert!(order["esimId"].is_string());
                assert_eq!(after, (before.0 - price, before.1));
            }
            Outcome::Failed => {
                assert!(order["esimId"].is_null());
                assert_eq!(after, before);
            }
            Outcome::PendingReview | Outcome::Other(_) => {
                assert!(order["esimId"].is_null());
                assert_eq!(after, (before.0 - price, before.1 + price));
            }
            Outcome::Refunded => {
                assert!(order["esimId"].is_string());
                assert_eq!(after, before);
            }
        }
        assert!(h.sandbox.stats().ledger_invariant_holds, "{outcome:?}");
    }
    // Every movement is a transaction, newest first, and pages cover them all once.
    let mut ids = Vec::new();
    let mut kinds = HashSet::new();
    let mut cursor: Option<String> = None;
    loop {
        let path = match &cursor {
            Some(c) => format!("/balance/transactions?limit=2&cursor={c}"),
            None => "/balance/transactions?limit=2".to_string(),
        };
        let (s, page) = api.get(&path).await;
        assert_eq!(s, StatusCode::OK);
        for t in page["data"].as_array().expect("data") {
            ids.push(t["id"].as_i64().expect("id"));
            kinds.insert(t["type"].as_str().expect("type").to_string());
        }
        match page["nextCursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
    }
    let mut sorted = ids.clone();
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    sorted.dedup();
    assert_eq!(ids, sorted, "newest first, no repeats");
    assert_eq!(ids.len(), h.sandbox.stats().transactions);
    for kind in ["credit", "reservation", "settlement", "release", "refund"] {
        assert!(kinds.contains(kind), "{kind}");
    }
    // Orders are listed newest first.
    let (_, list) = api.get("/orders?limit=100").await;
    let refs: Vec<&str> = list["data"]
        .as_array()
        .expect("data")
        .iter()
        .map(|o| o["reference"].as_str().expect("ref"))
        .collect();
    assert_eq!(
        refs,
        [
            "ref-on_hold",
            "ref-refunded",
            "ref-pending_review",
            "ref-failed",
            "ref-fulfilled"
        ]
    );
}

#[tokio::test]
async fn installation_is_served_only_for_fulfilled_esims_with_valid_values() {
    let (h, c) = start().await;
    let api = Api::new(&h, &c);
    let plan = cheap_plan(&h);
    let mut links = Vec::new();
    for i in 0..2 {
        let (_, accepted) = api
            .order(&plan, &format!("inst-{i}"), &format!("idem-inst-{i}"))
            .await;
        let id = accepted["orderId"].as_str().expect("id").to_string();
        let (s, b) = api.get("/esims/esim_unknown/installation").await;
        assert_eq!((s, code(&b)), (StatusCode::NOT_FOUND, "not_found"));
        let order = api.wait_status(&id, "fulfilled").await;
        let esim = order["esimId"].as_str().expect("esimId");
        let (s, inst) = api.get(&format!("/esims/{esim}/installation")).await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(inst["esimId"], esim);
        let iccid = inst["iccid"].as_str().expect("iccid");
        assert!(
            iccid.starts_with("89") && matches!(iccid.len(), 19 | 20),
            "{iccid}"
        );
        assert!(sandbox::luhn_valid(iccid), "{iccid}");
        let code_ = inst["activationCode"].as_str().expect("code");
        let parts: Vec<&str> = code_.split('$').collect();
        assert_eq!(parts.len(), 3, "{code_}");
        assert_eq!(parts[0], "LPA:1");
        assert!(parts[1].contains('.') && !parts[2].is_empty());
        let svg = inst["qrCodeSvg"].as_str().expect("svg");
        assert!(svg.contains("<svg") && svg.contains("</svg>"));
        links.push(inst["universalLink"].clone());
    }
    // Deterministically one with a link and one without.
    assert_eq!(links.iter().filter(|l| l.is_null()).count(), 1);
    assert!(
        links
            .iter()
            .any(|l| l.as_str().is_some_and(|s| s.starts_with("https://")))
    );
    // The order id is not an eSIM id.
    let (_, list) = api.get("/orders").await;
    let order_id = list["data"][0]["id"].as_str().expect("id");
    let (s, _) = api.get(&format!("/esims/{order_id}/installation")).await;
    assert_eq!(s, StatusCode::NOT_FOUND);
}

async fn collect_plans(api: &Api<'_>, filters: &str, limit: usize) -> Vec<Value> {
    let mut out = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut path = format!("/plans?limit={limit}{filters}");
        if let Some(c) = &cursor {
            path.push_str(&format!("&cursor={c}"));
        }
        let (s, page) = api.get(&path).await;
        assert_eq!(s, StatusCode::OK, "{path}: {page}");
        let data = page["data"].as_array().expect("data");
        assert!(data.len() <= limit);
        out.extend(data.iter().cloned());
        match page["nextCursor"].as_str() {
            Some(c) => {
                assert!(c.len() <= 100);
                assert!(!data.is_empty());
                cursor = Some(c.to_string());
            }
            None => return out,
        }
    }
}

#[tokio::test]
async fn plan_pages_cover_every_plan_exactly_once_under_each_filter() {
    let mut config = fast_config();
    config.plans = 250;
    let (h, c) = start_with(config).await;
    let api = Api::new(&h, &c);
    let all = h.sandbox.plans();
    assert_eq!(all.len(), 250);
    let ids = |plans: &[Value]| -> Vec<String> {
        plans
            .iter()
            .map(|p| p["id"].as_str().expect("id").to_string())
            .collect()
    };
    for limit in [1, 7, 25, 100] {
        let got = ids(&collect_plans(&api, "", limit).await);
        let expected: Vec<String> = all.iter().map(|p| p.id.clone()).collect();
        assert_eq!(got, expected, "limit {limit}");
    }
    // Default page size is 25.
    let (_, first) = api.get("/plans").await;
    assert_eq!(first["data"].as_array().map(Vec::len), Some(25));
    // A country page with ≥ 100 plans exists (benchmarks rely on it).
    let us = collect_plans(&api, "&country=US", 100).await;
    assert!(us.len() >= 100, "{}", us.len());
    let (_, countries) = api.get("/countries").await;
    let countries = countries.as_array().expect("array").clone();
    assert!(countries.iter().any(|c| c["countryName"] == "Curaçao"));
    for country in &countries {
        let cc = country["countryCode"].as_str().expect("code");
        let got = collect_plans(&api, &format!("&country={cc}"), 10).await;
        let expected: Vec<&str> = all
            .iter()
            .filter(|p| p.country_code == cc)
            .map(|p| p.id.as_str())
            .collect();
        assert_eq!(ids(&got), expected, "{cc}");
        assert!(!got.is_empty(), "{cc} is listed so it has a local plan");
    }
    // A country filter does not match membership in a regional plan's coverage.
    let regional: Vec<_> = all
        .iter()
        .filter(|p| p.scope.as_deref() == Some("regional"))
        .collect();
    assert!(!regional.is_empty());
    let (_, regions) = api.get("/regions").await;
    for region in regions.as_array().expect("array") {
        let slug = region["slug"].as_str().expect("slug");
        assert!(region["coverage"].as_array().is_some_and(|c| !c.is_empty()));
        let got = collect_plans(&api, &format!("&region={slug}"), 9).await;
        let expected: Vec<&str> = all
            .iter()
            .filter(|p| p.region.as_deref() == Some(slug))
            .map(|p| p.id.as_str())
            .collect();
        assert_eq!(ids(&got), expected, "{slug}");
    }
    let both = collect_plans(&api, "&country=FR&region=europe", 3).await;
    let expected: Vec<&str> = all
        .iter()
        .filter(|p| p.country_code == "FR" && p.region.as_deref() == Some("europe"))
        .map(|p| p.id.as_str())
        .collect();
    assert_eq!(ids(&both), expected);
    // A cursor only continues the list it came from.
    let (_, page) = api.get("/plans?limit=2&country=US").await;
    let cursor = page["nextCursor"].as_str().expect("more pages");
    let (s, b) = api
        .get(&format!("/plans?limit=2&country=FR&cursor={cursor}"))
        .await;
    assert_eq!((s, code(&b)), (StatusCode::BAD_REQUEST, "invalid_request"));
    // Every plan has every field, nullable ones as null.
    for p in collect_plans(&api, "", 100).await {
        for field in [
            "id",
            "countryCode",
            "countryName",
            "scope",
            "region",
            "coverage",
            "dataAmountMb",
            "validityDays",
            "priceCents",
            "currency",
            "networkType",
            "networks",
            "activationType",
            "isDailyPlan",
            "fupPolicy",
            "periodNum",
        ] {
            assert!(p.get(field).is_some(), "{field} missing in {p}");
        }
    }
}

#[tokio::test]
async fn the_same_seed_gives_the_same_catalog_over_http() {
    let (a, c) = start().await;
    let (b, _) = start().await;
    let pa = collect_plans(&Api::new(&a, &c), "", 100).await;
    let pb = collect_plans(&Api::new(&b, &c), "", 100).await;
    assert_eq!(pa, pb);
    assert!(pa.iter().any(|p| p["priceCents"] == 0));
    assert!(
        pa.iter()
            .any(|p| p["priceCents"] == 9_007_199_254_740_991_i64)
    );
    assert!(pa.iter().any(|p| p["networks"].is_null()));
    assert!(pa.iter().any(|p| p["networks"] == json!([])));
    assert!(pa.iter().any(|p| p["scope"].is_null()));
}

#[tokio::test]
async fn unavailable_plans_vanish_from_lookups_lists_and_countries() {
    let (h, c) = start().await;
    let api = Api::new(&h, &c);
    let ax_plans: Vec<String> = h
        .sandbox
        .plans()
        .into_iter()
        .filter(|p| p.country_code == "CW")
        .map(|p| p.id)
        .collect();
    assert!(!ax_plans.is_empty());
    for id in &ax_plans {
        h.sandbox.set_plan_available(id, false).expect("exists");
    }
    let (s, b) = api.get(&format!("/plans/{}", ax_plans[0])).await;
    assert_eq!((s, code(&b)), (StatusCode::NOT_FOUND, "not_found"));
    let all = collect_plans(&api, "", 100).await;
    assert!(!all.iter().any(|p| p["countryCode"] == "CW"));
    let (_, countries) = api.get("/countries").await;
    assert!(
        !countries
            .as_array()
            .expect("array")
            .iter()
            .any(|c| c["countryCode"] == "CW")
    );
    let (s, b) = api
        .post(
            "/orders",
            "idem-gone-01",
            json!({"planId": ax_plans[0], "expectedPriceCents": 0, "reference": "r"}),
        )
        .await;
    assert_eq!((s, code(&b)), (StatusCode::NOT_FOUND, "not_found"));
    // Through the control API too.
    let (s, _) = api
        .control(
            Method::POST,
            &format!("/plans/{}/availability", ax_plans[0]),
            Some(json!({"available": true})),
        )
        .await;
    assert_eq!(s, StatusCode::OK);
    let (s, _) = api.get(&format!("/plans/{}", ax_plans[0])).await;
    assert_eq!(s, StatusCode::OK);
}

#[tokio::test]
async fn rate_limits_and_bursts_answer_with_retry_after() {
    let (h, c) = start().await;
    let api = Api::new(&h, &c);
    let (s, _) = api
        .control(
            Method::POST,
            "/rate-limit",
            Some(json!({"requests": 3, "windowSecs": 60})),
        )
        .await;
    assert_eq!(s, StatusCode::OK);
    for _ in 0..3 {
        assert_eq!(api.get("/balance").await.0, StatusCode::OK);
    }
    let r = c
        .get(format!("{}/balance", h.base_url))
        .bearer_auth(KEY)
        .send()
        .await
        .expect("sent");
    assert_eq!(r.status(), StatusCode::TOO_MANY_REQUESTS);
    let retry: u64 = r
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
        .expect("Retry-After seconds");
    assert!((1..=60).contains(&retry));
    let body: Value = r.json().await.expect("JSON");
    assert_eq!(code(&body), "rate_limited");
    // Another key has its own budget.
    let other = h
        .sandbox
        .create_key(KeySpec::with_scopes(&[Scope::BalanceRead]));
    assert_eq!(
        Api::with_key(&h, &c, &other).get("/balance").await.0,
        StatusCode::OK
    );
    h.sandbox.set_rate_limit(None);

    h.sandbox.inject(Fault::RateLimitBurst {
        count: 2,
        retry_after_secs: 7,
    });
    for _ in 0..2 {
        let r = c
            .get(format!("{}/plans", h.base_url))
            .bearer_auth(KEY)
            .send()
            .await
            .expect("sent");
        assert_eq!(r.status(), StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(
            r.headers().get("retry-after").and_then(|v| v.to_str().ok()),
            Some("7")
        );
    }
    assert_eq!(api.get("/plans").await.0, StatusCode::OK);

    let (s, _) = api
        .control(
            Method::POST,
            "/faults",
            Some(json!({"kind": "unavailableBurst", "count": 1})),
        )
        .await;
    assert_eq!(s, StatusCode::OK);
    let (s, b) = api.get("/plans").await;
    assert_eq!(
        (s, code(&b)),
        (StatusCode::SERVICE_UNAVAILABLE, "service_unavailable")
    );
    assert_eq!(api.get("/plans").await.0, StatusCode::OK);
}

#[tokio::test]
async fn a_500_after_commit_leaves_an_order_that_a_retry_finds() {
    let (h, c) = start().await;
    let api = Api::new(&h, &c);
    let plan = cheap_plan(&h);
    let (s, _) = api
        .control(
            Method::POST,
            "/faults",
            Some(json!({"kind": "failAfterCommit", "count": 1})),
        )
        .await;
    assert_eq!(s, StatusCode::OK);
    let (s, b) = api.order(&plan, "commit-1", "idem-commit-1").await;
    assert_eq!(
        (s, code(&b)),
        (StatusCode::INTERNAL_SERVER_ERROR, "internal_error")
    );
    let stats = h.sandbox.stats();
    assert_eq!(stats.orders, 1, "the order exists although the POST failed");
    assert_eq!(stats.orders_by_reference.get("commit-1"), Some(&1));
    // Retrying with the same key and body finds it; nothing more is reserved.
    let reserved = api.balance().await.1;
    let (s, b) = api.order(&plan, "commit-1", "idem-commit-1").await;
    assert_eq!(s, StatusCode::ACCEPTED);
    assert!(b["orderId"].is_string());
    assert_eq!(h.sandbox.stats().orders, 1);
    assert!(api.balance().await.1 <= reserved);
    assert_eq!(h.sandbox.stats().order_requests, 2);
}

#[tokio::test]
async fn a_dropped_connection_is_an_error_for_reqwest_but_the_order_exists() {
    let (h, c) = start().await;
    let plan = cheap_plan(&h);
    let price = Api::new(&h, &c).price(&plan).await;
    h.sandbox.inject(Fault::DropAfterCommit(1));
    let result = async {
        let r = c
            .post(format!("{}/orders", h.base_url))
            .bearer_auth(KEY)
            .header("idempotency-key", "idem-drop-001")
            .json(&json!({"planId": plan, "expectedPriceCents": price, "reference": "drop"}))
            .send()
            .await?;
        r.bytes().await
    }
    .await;
    assert!(
        result.is_err(),
        "expected a broken connection, got {result:?}"
    );
    assert_eq!(h.sandbox.stats().orders_by_reference.get("drop"), Some(&1));
}

#[tokio::test]
async fn a_delayed_answer_times_the_client_out_but_the_order_exists() {
    let (h, c) = start().await;
    let plan = cheap_plan(&h);
    let price = Api::new(&h, &c).price(&plan).await;
    h.sandbox.inject(Fault::DelayAfterCommit {
        count: 1,
        delay: Duration::from_secs(2),
    });
    let result = c
        .post(format!("{}/orders", h.base_url))
        .bearer_auth(KEY)
        .timeout(Duration::from_millis(300))
        .header("idempotency-key", "idem-slow-001")
        .json(&json!({"planId": plan, "expectedPriceCents": price, "reference": "slow"}))
        .send()
        .await;
    assert!(result.is_err_and(|e| e.is_timeout()));
    assert_eq!(h.sandbox.stats().orders_by_reference.get("slow"), Some(&1));
}

#[tokio::test]
async fn added_latency_slows_every_request() {
    let (h, c) = start().await;
    let api = Api::new(&h, &c);
    h.sandbox.inject(Fault::Latency(Duration::from_millis(150)));
    let started = std::time::Instant::now();
    assert_eq!(api.get("/regions").await.0, StatusCode::OK);
    assert!(started.elapsed() >= Duration::from_millis(150));
    let (s, _) = api.control(Method::DELETE, "/faults", None).await;
    assert_eq!(s, StatusCode::OK);
    let started = std::time::Instant::now();
    api.get("/regions").await;
    assert!(started.elapsed() < Duration::from_millis(150));
}

#[tokio::test]
async fn top_ups_credit_the_wallet_only_when_paid_on_the_hosted_page() {
    let (h, c) = start().await;
    let api = Api::new(&h, &c);
    let before = api.balance().await;
    let (s, session) = api
        .post(
            "/balance/topups",
            "idem-topup-01",
            json!({"amountCents": 2500}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED);
    let url = session["checkoutUrl"].as_str().expect("url").to_string();
    assert!(
        url.starts_with(&format!("{}/_sandbox/checkout/", h.origin)),
        "{url}"
    );
    // Same key and body: the same session; another body: a conflict.
    let (_, again) = api
        .post(
            "/balance/topups",
            "idem-topup-01",
            json!({"amountCents": 2500}),
        )
        .await;
    assert_eq!(again, session);
    let (s, b) = api
        .post(
            "/balance/topups",
            "idem-topup-01",
            json!({"amountCents": 2600}),
        )
        .await;
    assert_eq!(
        (s, code(&b)),
        (StatusCode::CONFLICT, "idempotency_key_reused")
    );
    assert_eq!(
        api.balance().await,
        before,
        "creating a link credits nothing"
    );

    let page = c
        .get(&url)
        .send()
        .await
        .expect("page")
        .text()
        .await
        .expect("html");
    assert!(page.contains("SANDBOX") && page.contains("$25.00"));
    assert!(page.contains("/pay") && page.contains("/cancel"));
    let no_redirects = Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client");
    for _ in 0..2 {
        let r = no_redirects
            .post(format!("{url}/pay"))
            .send()
            .await
            .expect("pay");
        assert_eq!(r.status(), StatusCode::SEE_OTHER);
    }
    assert_eq!(
        api.balance().await,
        (before.0 + 2500, before.1),
        "paid once"
    );
    let page = c
        .get(&url)
        .send()
        .await
        .expect("page")
        .text()
        .await
        .expect("html");
    assert!(page.contains("data-status=\"paid\""));

    // A cancelled session never credits; the control API completes an open one.
    let (_, cancelled) = api
        .post(
            "/balance/topups",
            "idem-topup-02",
            json!({"amountCents": 1000}),
        )
        .await;
    let url2 = cancelled["checkoutUrl"].as_str().expect("url");
    no_redirects
        .post(format!("{url2}/cancel"))
        .send()
        .await
        .expect("cancel");
    no_redirects
        .post(format!("{url2}/pay"))
        .send()
        .await
        .expect("pay");
    assert_eq!(api.balance().await.0, before.0 + 2500);
    let (_, open) = api
        .post(
            "/balance/topups",
            "idem-topup-03",
            json!({"amountCents": 1000}),
        )
        .await;
    let id = open["id"].as_str().expect("id");
    let (s, done) = api
        .control(Method::POST, &format!("/topups/{id}/complete"), None)
        .await;
    assert_eq!((s, done["status"].as_str()), (StatusCode::OK, Some("paid")));
    assert_eq!(api.balance().await.0, before.0 + 3500);
    assert!(h.sandbox.stats().ledger_invariant_holds);
}

#[tokio::test]
async fn a_paid_customer_checkout_places_the_order() {
    let (h, c) = start().await;
    let api = Api::new(&h, &c);
    let plan = cheap_plan(&h);
    let price = api.price(&plan).await;
    let (s, b) = api
        .post("/checkout-sessions", "idem-cs-0001", json!({"planId": plan, "expectedPriceCents": price + 1, "reference": "cs-1", "email": "ana@example.com"}))
        .await;
    assert_eq!((s, code(&b)), (StatusCode::CONFLICT, "price_changed"));
    let (s, session) = api
        .post("/checkout-sessions", "idem-cs-0002", json!({"planId": plan, "expectedPriceCents": price, "reference": "cs-1", "email": "ana@example.com"}))
        .await;
    assert_eq!(s, StatusCode::CREATED);
    assert_eq!(h.sandbox.stats().orders, 0);
    let url = session["checkoutUrl"].as_str().expect("url");
    c.post(format!("{url}/pay")).send().await.expect("pay");
    c.post(format!("{url}/pay"))
        .send()
        .await
        .expect("pay again");
    let stats = h.sandbox.stats();
    assert_eq!(stats.orders_by_reference.get("cs-1"), Some(&1));
    let (_, list) = api.get("/orders").await;
    let id = list["data"][0]["id"].as_str().expect("id");
    api.wait_status(id, "fulfilled").await;
}

#[tokio::test]
async fn a_reversal_deficit_suspends_purchasing_until_covered() {
    let (h, c) = start().await;
    let api = Api::new(&h, &c);
    let plan = cheap_plan(&h);
    let (available, _) = api.balance().await;
    let (s, b) = api
        .control(
            Method::POST,
            "/reversals",
            Some(json!({"amountCents": available + 1500})),
        )
        .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(b["availableCents"], -1500);
    let (_, balance) = api.get("/balance").await;
    assert_eq!(balance["lowBalance"], true);
    let (s, b) = api.order(&plan, "r", "idem-susp-01").await;
    assert_eq!(
        (s, code(&b)),
        (StatusCode::CONFLICT, "purchasing_suspended")
    );
    // A top-up still works and covering the deficit lifts the suspension.
    let (_, session) = api
        .post(
            "/balance/topups",
            "idem-susp-tp",
            json!({"amountCents": 100_000}),
        )
        .await;
    h.sandbox
        .complete_topup(session["id"].as_str().expect("id"))
        .expect("open session");
    let (s, _) = api.order(&plan, "r", "idem-susp-01").await;
    assert_eq!(s, StatusCode::ACCEPTED);
    // A manual suspension, through the control API.
    api.control(
        Method::POST,
        "/purchasing",
        Some(json!({"suspended": true})),
    )
    .await;
    let (s, b) = api.order(&plan, "r2", "idem-susp-02").await;
    assert_eq!(
        (s, code(&b)),
        (StatusCode::CONFLICT, "purchasing_suspended")
    );
    h.sandbox.set_purchasing_suspended(false);
    let (s, _) = api.order(&plan, "r2", "idem-susp-02").await;
    assert_eq!(s, StatusCode::ACCEPTED);
    let (_, txs) = api.get("/balance/transactions?limit=100").await;
    assert!(
        txs["data"]
            .as_array()
            .expect("data")
            .iter()
            .any(|t| t["type"] == "reversal")
    );
    assert!(h.sandbox.stats().ledger_invariant_holds);
}

#[tokio::test]
async fn low_balance_follows_the_threshold() {
    let (h, c) = start().await;
    let api = Api::new(&h, &c);
    let (_, b) = api.get("/balance").await;
    assert_eq!(
        (b["availableCents"].as_i64(), b["lowBalance"].as_bool()),
        (Some(50_000), Some(false))
    );
    api.control(
        Method::POST,
        "/balance",
        Some(json!({"availableCents": 5_000})),
    )
    .await;
    let (_, b) = api.get("/balance").await;
    assert_eq!(b["lowBalance"], true);
    assert_eq!(b["currency"], "USD");
}

#[tokio::test]
async fn webhooks_are_signed_and_carry_no_installation_values() {
    use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(String, web::Bytes)>();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let server = HttpServer::new(move || {
        let tx = tx.clone();
        App::new().route(
            "/hook",
            web::post().to(move |req: HttpRequest, body: web::Bytes| {
                let tx = tx.clone();
                async move {
                    let sig = req
                        .headers()
                        .get(sandbox::SIGNATURE_HEADER)
                        .and_then(|v| v.to_str().ok())
                        .unwrap_or("")
                        .to_string();
                    let _ = tx.send((sig, body));
                    HttpResponse::NoContent().finish()
                }
            }),
        )
    })
    .listen(listener)
    .expect("listen")
    .workers(1)
    .disable_signals()
    .run();
    tokio::spawn(server);

    let (h, c) = start().await;
    let api = Api::new(&h, &c);
    let (s, _) = api
        .control(
            Method::POST,
            "/webhook",
            Some(json!({"url": format!("http://127.0.0.1:{port}/hook"), "secret": "whsec_test"})),
        )
        .await;
    assert_eq!(s, StatusCode::OK);
    let (_, account) = api.get("/account").await;
    assert_eq!(account["webhookEnabled"], true);
    let plan = cheap_plan(&h);
    let (_, accepted) = api.order(&plan, "hook-1", "idem-hook-01").await;
    let order_id = accepted["orderId"].as_str().expect("id");
    let mut statuses = HashSet::new();
    while statuses.len() < 3 {
        let (sig, body) = tokio::time::timeout(Duration::from_secs(5), rx.recv())
            .await
            .expect("a webhook within 5 s")
            .expect("channel open");
        let (t, v1) = sig
            .split_once(',')
            .and_then(|(t, v)| Some((t.strip_prefix("t=")?, v.strip_prefix("v1=")?)))
            .expect("t=…,v1=… header");
        let t: i64 = t.parse().expect("unix time");
        assert_eq!(sandbox::sign_webhook("whsec_test", t, &body), sig);
        assert_ne!(
            sandbox::sign_webhook("other", t, &body)
                .split_once("v1=")
                .map(|x| x.1),
            Some(v1)
        );
        let event: Value = serde_json::from_slice(&body).expect("JSON");
        assert_eq!(event["type"], "order.status_changed");
        assert_eq!(event["orderId"], order_id);
        assert!(event.get("iccid").is_none() && event.get("activationCode").is_none());
        let text = String::from_utf8_lossy(&body);
        assert!(!text.contains("LPA:"), "{text}");
        statuses.insert(event["status"].as_str().expect("status").to_string());
    }
    assert_eq!(
        statuses,
        HashSet::from([
            "paid".to_string(),
            "provisioning".to_string(),
            "fulfilled".to_string()
        ])
    );
}

#[tokio::test]
async fn control_api_levers_work_over_http() {
    let (h, c) = start().await;
    let api = Api::new(&h, &c);
    let plan = cheap_plan(&h);
    let (s, _) = api
        .control(
            Method::POST,
            &format!("/plans/{plan}/price"),
            Some(json!({"priceCents": 4242})),
        )
        .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(api.price(&plan).await, 4242);
    let (s, _) = api
        .control(
            Method::POST,
            &format!("/plans/{plan}/outcome"),
            Some(json!({"outcome": "on_hold"})),
        )
        .await;
    assert_eq!(s, StatusCode::OK);
    let (s, _) = api
        .control(
            Method::POST,
            "/provisioning",
            Some(json!({"paidMs": 5, "provisioningMs": 5})),
        )
        .await;
    assert_eq!(s, StatusCode::OK);
    // One reference of the plan ends its own way, ahead of the plan's outcome.
    let (s, _) = api
        .control(
            Method::POST,
            "/references/lever-alone/outcome",
            Some(json!({"outcome": "failed"})),
        )
        .await;
    assert_eq!(s, StatusCode::OK);
    let (_, accepted) = api.order(&plan, "lever", "idem-lever-1").await;
    api.wait_status(accepted["orderId"].as_str().expect("id"), "on_hold")
        .await;
    let (_, alone) = api.order(&plan, "lever-alone", "idem-lever-2").await;
    api.wait_status(alone["orderId"].as_str().expect("id"), "failed")
        .await;
    let (s, key) = api
        .control(
            Method::POST,
            "/keys",
            Some(json!({"scopes": ["catalog:read"]})),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED);
    let key = key["key"].as_str().expect("key");
    assert_eq!(
        Api::with_key(&h, &c, key).get("/plans").await.0,
        StatusCode::OK
    );
    assert_eq!(
        Api::with_key(&h, &c, key).get("/balance").await.0,
        StatusCode::FORBIDDEN
    );
    let (s, stats) = api.control(Method::GET, "/stats", None).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(stats["ordersByStatus"]["on_hold"], 1);
    assert_eq!(stats["ledgerInvariantHolds"], true);
    assert!(
        stats["duplicatePurchases"]
            .as_array()
            .is_some_and(Vec::is_empty)
    );
    let (s, b) = api
        .control(
            Method::POST,
            "/plans/p99999-base/price",
            Some(json!({"priceCents": 1})),
        )
        .await;
    assert_eq!((s, code(&b)), (StatusCode::NOT_FOUND, "not_found"));
    let (s, _) = api
        .control(Method::POST, "/faults", Some(json!({"kind": "bogus"})))
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
}
