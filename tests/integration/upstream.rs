//! The Partner API client (`storefront::upstream`) against a spawned sandbox over real HTTP:
//! every endpoint decodes, pagers walk whole listings, failures land in the class a caller
//! branches on, and the client's own promises (POSTs sent once, the shared `Retry-After` gate)
//! hold when the sandbox misbehaves. What a test "sees upstream" comes from `sandbox.stats()`.
//!
//! Delays and timeouts are shrunk so the whole file runs in a few seconds; the one test that
//! waits out a real `Retry-After: 1` costs about a second.

use std::collections::HashSet;
use std::time::{Duration, Instant, SystemTime};

use storefront::config::Secret;
use storefront::domain::{Cents, Email};
use storefront::sandbox::{
    self, Fault, KeySpec, Outcome, RateLimit, SandboxConfig, SandboxHandle, Scope,
};
use storefront::upstream::{
    AcceptedOrder, ApiAmount, Backoff, CheckoutRequest, Class, CountryCode, ErrorCode, ErrorKind,
    IdempotencyKey, OrderReference, OrderRequest, OrderStatus, PageLimit, PartnerClient, PathId,
    Plan, PlanFilter, PlanId, RegionSlug, TopUpAmount, UpstreamClientConfig, UpstreamError,
};
use url::Url;

const KEY: &str = "sbx_client_it_key_0001";

struct Env {
    handle: SandboxHandle,
    client: PartnerClient,
}

impl Env {
    fn sandbox(&self) -> &sandbox::Sandbox {
        &self.handle.sandbox
    }

    /// Another client of the same sandbox, with its own gate and connection pool.
    fn client_with(
        &self,
        key: &str,
        adjust: impl FnOnce(&mut UpstreamClientConfig),
    ) -> PartnerClient {
        let mut config = fast_client_config(&self.handle.base_url, key);
        adjust(&mut config);
        PartnerClient::new(config).expect("client builds")
    }
}

fn fast_sandbox_config() -> SandboxConfig {
    let mut config = SandboxConfig::new(KEY);
    config.paid_delay = Duration::from_millis(20);
    config.provisioning_delay = Duration::from_millis(20);
    config
}

/// Timeouts and backoff small enough for tests, large enough for a loaded CI machine.
fn fast_client_config(base_url: &str, key: &str) -> UpstreamClientConfig {
    let mut config = UpstreamClientConfig::new(
        Url::parse(base_url).expect("sandbox base URL"),
        Secret::new(key.to_string()),
    );
    config.connect_timeout = Duration::from_secs(2);
    config.request_timeout = Duration::from_secs(3);
    config.max_get_attempts = 3;
    config.backoff = Backoff {
        base: Duration::from_millis(5),
        cap: Duration::from_millis(20),
    };
    config.max_gate_wait = Duration::from_secs(3);
    config
}

async fn start() -> Env {
    start_with(fast_sandbox_config()).await
}

async fn start_with(config: SandboxConfig) -> Env {
    let handle = sandbox::spawn(config).await.expect("sandbox binds");
    let client = PartnerClient::new(fast_client_config(&handle.base_url, KEY)).expect("client");
    Env { handle, client }
}

fn limit(n: u32) -> PageLimit {
    PageLimit::new(n).expect("limit in 1..=100")
}

fn path_id(id: &str) -> PathId {
    PathId::parse(id).expect("path id")
}

/// A non-zero price well inside the opening $500, so balances move visibly.
fn cheap_plan(env: &Env) -> storefront::sandbox::wire::Plan {
    env.sandbox()
        .plans()
        .into_iter()
        .find(|p| (100..=2_000).contains(&p.price_cents) && p.period_num.is_none())
        .expect("the catalog has a cheap plan")
}

fn order_request(plan_id: &str, price: i64, reference: &str) -> OrderRequest {
    OrderRequest {
        plan_id: PlanId::parse(plan_id).expect("plan id"),
        expected_price_cents: ApiAmount::new(Cents::new(price)).expect("amount"),
        reference: OrderReference::parse(reference).expect("reference"),
    }
}

fn cheap_order(env: &Env, reference: &str) -> (OrderRequest, i64) {
    let plan = cheap_plan(env);
    (
        order_request(&plan.id, plan.price_cents, reference),
        plan.price_cents,
    )
}

fn key(label: &str) -> IdempotencyKey {
    IdempotencyKey::parse(format!("it-{label}-{}", IdempotencyKey::generate()))
        .expect("idempotency key")
}

fn assert_rejected(error: &UpstreamError, status: u16, code: &ErrorCode) {
    assert_eq!(error.class(), Class::Definitive, "{error}");
    assert_eq!(error.kind(), ErrorKind::Rejected, "{error}");
    assert_eq!(error.status().map(|s| s.as_u16()), Some(status), "{error}");
    assert_eq!(error.code(), Some(code), "{error}");
    assert!(
        error.request_id().is_some_and(|id| !id.is_empty()),
        "a requestId for support: {error}"
    );
}

fn other(code: &str) -> ErrorCode {
    ErrorCode::Other(code.to_string())
}

/// Every field of a decoded plan equals what the sandbox serves.
fn assert_same_plan(got: &Plan, want: &storefront::sandbox::wire::Plan) {
    let id = &want.id;
    assert_eq!(got.id, want.id);
    assert_eq!(got.country_code, want.country_code, "{id}");
    assert_eq!(got.country_name, want.country_name, "{id}");
    assert_eq!(got.scope, want.scope, "{id}");
    assert_eq!(got.region, want.region, "{id}");
    assert_eq!(got.coverage, want.coverage, "{id}");
    assert_eq!(
        i64::try_from(got.data_amount_mb).ok(),
        Some(want.data_amount_mb),
        "{id}"
    );
    assert_eq!(i64::from(got.validity_days), want.validity_days, "{id}");
    assert_eq!(i64::from(got.price_cents), want.price_cents, "{id}");
    assert_eq!(got.currency, want.currency, "{id}");
    assert_eq!(got.network_type, want.network_type, "{id}");
    assert_eq!(got.networks, want.networks, "{id}");
    assert_eq!(got.activation_type, want.activation_type, "{id}");
    assert_eq!(got.is_daily_plan, want.is_daily_plan, "{id}");
    assert_eq!(got.fup_policy, want.fup_policy, "{id}");
    assert_eq!(got.period_num.map(i64::from), want.period_num, "{id}");
}

fn ids(plans: &[Plan]) -> Vec<String> {
    plans.iter().map(|p| p.id.clone()).collect()
}

async fn wait_for_status(client: &PartnerClient, order_id: &str, status: &OrderStatus) {
    let id = path_id(order_id);
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let order = client.order(&id).await.expect("order readable");
        if &order.status == status {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "order {order_id} stuck at {}",
            order.status
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

// ---- 1. every endpoint succeeds and decodes ------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn account_countries_and_regions_decode() {
    let env = start().await;
    let account = env.client.account().await.expect("account");
    assert_eq!(
        account.environment,
        storefront::upstream::Environment::Sandbox
    );
    assert!(!account.id.is_empty() && !account.name.is_empty());
    assert!(account.email.contains('@'), "{}", account.email);
    let scopes: HashSet<&str> = account.scopes.iter().map(String::as_str).collect();
    let all: HashSet<&str> = Scope::ALL.iter().map(|s| s.as_str()).collect();
    assert_eq!(scopes, all, "the primary key has every scope");
    assert!(!account.key_expires_at.is_empty());
    assert!(!account.webhook_enabled);

    let countries = env.client.countries().await.expect("countries");
    assert!(
        countries
            .iter()
            .any(|c| c.country_code == "CW" && c.country_name == "Curaçao"),
        "non-ASCII names survive decoding"
    );
    // Only destinations with a plan of their own, each once; coverage-only countries are not.
    let destinations: HashSet<String> = env
        .sandbox()
        .plans()
        .into_iter()
        .map(|p| p.country_code)
        .collect();
    let listed: HashSet<String> = countries.iter().map(|c| c.country_code.clone()).collect();
    assert_eq!(listed.len(), countries.len(), "no duplicates");
    for code in &listed {
        assert!(CountryCode::parse(code.as_str()).is_ok(), "{code}");
        assert!(destinations.contains(code), "{code} has no plan");
    }
    assert!(
        !listed.contains("AD"),
        "coverage-only countries are not listed"
    );

    let regions = env.client.regions().await.expect("regions");
    assert!(!regions.is_empty());
    for region in &regions {
        assert!(!region.slug.is_empty() && !region.name.is_empty());
        assert!(!region.coverage.is_empty(), "{}", region.slug);
        assert!(RegionSlug::parse(region.slug.as_str()).is_ok());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plan_by_id_decodes_every_awkward_shape() {
    let env = start().await;
    let plans = env.sandbox().plans();
    let find = |what: &str, pred: &dyn Fn(&storefront::sandbox::wire::Plan) -> bool| {
        plans
            .iter()
            .find(|p| pred(p))
            .unwrap_or_else(|| panic!("the catalog has a plan with {what}"))
            .clone()
    };
    let cases = [
        find("price 0", &|p| p.price_cents == 0),
        find("the maximum price", &|p| {
            p.price_cents == 9_007_199_254_740_991
        }),
        find("null scope", &|p| p.scope.is_none()),
        find("null networks", &|p| p.networks.is_none()),
        find("empty networks", &|p| {
            p.networks.as_ref().is_some_and(Vec::is_empty)
        }),
        find("null networkType", &|p| p.network_type.is_none()),
        find("empty fupPolicy", &|p| p.fup_policy.is_empty()),
        find("a daily 7-day variant", &|p| {
            p.id.ends_with("-7") && p.period_num == Some(7)
        }),
        find("a daily base", &|p| {
            p.is_daily_plan && p.period_num.is_none()
        }),
        find("a regional plan", &|p| {
            p.scope.as_deref() == Some("regional")
        }),
        find("a global plan", &|p| p.scope.as_deref() == Some("global")),
    ];
    for want in &cases {
        let got = env.client.plan(&path_id(&want.id)).await.expect(&want.id);
        assert_same_plan(&got, want);
        assert_eq!(
            got.plan_id().map(String::from).ok().as_deref(),
            Some(want.id.as_str()),
            "the id is orderable unchanged"
        );
    }
    // The distinctions a caller relies on, spelled out.
    let daily = env
        .client
        .plan(&path_id(&cases[7].id))
        .await
        .expect("daily");
    assert_eq!(daily.period_num, Some(7));
    assert!(daily.is_daily_plan);
    let null_networks = env.client.plan(&path_id(&cases[3].id)).await.expect("null");
    let empty_networks = env.client.plan(&path_id(&cases[4].id)).await.expect("[]");
    assert_eq!(null_networks.networks, None);
    assert_eq!(empty_networks.networks, Some(Vec::new()));
    let huge = env.client.plan(&path_id(&cases[1].id)).await.expect("huge");
    assert_eq!(huge.price_cents.cents(), Cents::new(9_007_199_254_740_991));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn balance_and_its_transactions_decode() {
    let env = start().await;
    let balance = env.client.balance().await.expect("balance");
    assert_eq!(balance.currency, "USD");
    assert_eq!(balance.available_cents, Cents::new(50_000));
    assert_eq!(balance.reserved_cents.cents(), Cents::ZERO);
    assert!(!balance.low_balance);

    // An order and an adjustment give the ledger a few entries of different kinds.
    let (request, price) = cheap_order(&env, "tx-1");
    env.client
        .create_order(&key("tx"), &request)
        .await
        .expect("accepted");
    env.sandbox().set_balance(4_000).expect("set balance");
    let balance = env.client.balance().await.expect("balance");
    assert_eq!(balance.available_cents, Cents::new(4_000));
    assert!(balance.low_balance, "at or below the $50 threshold");

    let first = env
        .client
        .balance_transactions(None, limit(1))
        .await
        .expect("first page");
    assert_eq!(first.data.len(), 1);
    assert!(first.next_cursor.is_some());
    let second = env
        .client
        .balance_transactions(first.next_cursor.as_ref(), limit(1))
        .await
        .expect("second page");
    assert_ne!(first.data, second.data);

    let all = env
        .client
        .balance_transactions_pager(limit(1))
        .collect_all()
        .await
        .expect("every transaction");
    assert_eq!(all.len(), env.sandbox().stats().transactions);
    let distinct: HashSet<i64> = all.iter().map(|t| t.id).collect();
    assert_eq!(distinct.len(), all.len(), "each transaction once");
    let kinds: HashSet<&str> = all.iter().map(|t| t.kind.as_str()).collect();
    assert!(
        kinds.contains("credit") && kinds.contains("reservation"),
        "{kinds:?}"
    );
    let reservation = all
        .iter()
        .find(|t| t.kind == "reservation")
        .expect("reservation");
    assert_eq!(reservation.available_delta_cents, Cents::new(-price));
    assert_eq!(reservation.reserved_delta_cents, Cents::new(price));
    assert!(all.iter().all(|t| !t.created_at.is_empty()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn topup_gives_a_checkout_link_and_credits_nothing_until_paid() {
    let env = start().await;
    let amount = TopUpAmount::new(Cents::new(2_500)).expect("amount");
    let topup_key = key("topup");
    let session = env
        .client
        .create_topup(&topup_key, amount)
        .await
        .expect("checkout session");
    assert!(!session.id.is_empty());
    assert_eq!(
        session.checkout_url.origin().ascii_serialization(),
        env.handle.origin
    );
    assert!(
        session.checkout_url.path().ends_with(&session.id),
        "{}",
        session.checkout_url
    );
    let balance = env.client.balance().await.expect("balance");
    assert_eq!(
        balance.available_cents,
        Cents::new(50_000),
        "a link is not credit"
    );

    // Same key, same body: the same session, not a second payment.
    let again = env
        .client
        .create_topup(&topup_key, amount)
        .await
        .expect("replay");
    assert_eq!(again.id, session.id);
    let other_amount = TopUpAmount::new(Cents::new(3_000)).expect("amount");
    let reused = env
        .client
        .create_topup(&topup_key, other_amount)
        .await
        .expect_err("reused key");
    assert_rejected(&reused, 409, &ErrorCode::IdempotencyKeyReused);

    env.sandbox().complete_topup(&session.id).expect("paid");
    let balance = env.client.balance().await.expect("balance");
    assert_eq!(balance.available_cents, Cents::new(52_500));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn checkout_session_is_created_for_a_plan_at_its_price() {
    let env = start().await;
    let (order, price) = cheap_order(&env, "co-1");
    let email = Email::parse("buyer@example.com").expect("email");
    let request = CheckoutRequest::new(order.clone(), email.clone());
    let session = env
        .client
        .create_checkout_session(&key("co"), &request)
        .await
        .expect("checkout session");
    assert!(!session.id.is_empty());
    assert_eq!(
        session.checkout_url.origin().ascii_serialization(),
        env.handle.origin
    );
    assert_eq!(env.sandbox().stats().orders, 0, "a link places no order");

    // Same key and body: the same link; another body under that key is refused.
    let checkout_key = key("co-replay");
    let first = env
        .client
        .create_checkout_session(&checkout_key, &request)
        .await
        .expect("session");
    let again = env
        .client
        .create_checkout_session(&checkout_key, &request)
        .await
        .expect("replay");
    assert_eq!(again, first);
    let other_body = CheckoutRequest::new(
        order_request(order.plan_id.as_str(), price, "co-3"),
        email.clone(),
    );
    let err = env
        .client
        .create_checkout_session(&checkout_key, &other_body)
        .await
        .expect_err("reused key");
    assert_rejected(&err, 409, &ErrorCode::IdempotencyKeyReused);

    // Paying the hosted page places the order once; the client reads it like any other.
    env.sandbox().complete_topup(&session.id).expect("paid");
    env.sandbox()
        .complete_topup(&session.id)
        .expect("paid twice");
    let orders = env
        .client
        .orders_pager(limit(25))
        .collect_all()
        .await
        .expect("orders");
    assert_eq!(orders.len(), 1);
    assert_eq!(orders[0].reference, "co-1");
    assert_eq!(orders[0].price_cents.cents(), Cents::new(price));

    let stale = CheckoutRequest::new(
        order_request(order.plan_id.as_str(), price + 1, "co-2"),
        email,
    );
    let err = env
        .client
        .create_checkout_session(&key("co-stale"), &stale)
        .await
        .expect_err("stale price");
    assert_rejected(&err, 409, &ErrorCode::PriceChanged);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_order_is_accepted_tracked_to_fulfilled_and_installed() {
    let env = start().await;
    // Long enough to observe each state, short enough for a quick test.
    env.sandbox()
        .set_provisioning_delays(Duration::from_millis(250), Duration::from_millis(250));
    let (request, price) = cheap_order(&env, "life-1");
    let accepted: AcceptedOrder = env
        .client
        .create_order(&key("life"), &request)
        .await
        .expect("accepted");
    assert!(!accepted.order_id.is_empty());

    let order = env
        .client
        .order_status(&accepted)
        .await
        .expect("statusUrl resolves");
    assert_eq!(order.id, accepted.order_id);
    assert_eq!(order.reference, "life-1");
    assert_eq!(order.price_cents.cents(), Cents::new(price));
    assert_eq!(order.currency, "USD");
    assert_eq!(order.esim_id, None);

    let balance = env.client.balance().await.expect("balance");
    assert_eq!(balance.available_cents, Cents::new(50_000 - price));
    assert_eq!(balance.reserved_cents.cents(), Cents::new(price));

    // Poll by id and record every status seen.
    let id = path_id(&accepted.order_id);
    let mut seen = vec![order.status.clone()];
    let deadline = Instant::now() + Duration::from_secs(5);
    let fulfilled = loop {
        let order = env.client.order(&id).await.expect("order");
        if seen.last() != Some(&order.status) {
            seen.push(order.status.clone());
        }
        if order.status == OrderStatus::Fulfilled {
            break order;
        }
        assert!(Instant::now() < deadline, "stuck: {seen:?}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    assert_eq!(
        seen,
        [
            OrderStatus::Paid,
            OrderStatus::Provisioning,
            OrderStatus::Fulfilled
        ]
    );
    let balance = env.client.balance().await.expect("balance");
    assert_eq!(balance.available_cents, Cents::new(50_000 - price));
    assert_eq!(balance.reserved_cents.cents(), Cents::ZERO, "settled");

    let esim_id = fulfilled.esim_id.expect("a fulfilled order names its eSIM");
    let installation = env
        .client
        .installation(&path_id(&esim_id))
        .await
        .expect("installation");
    assert_eq!(installation.esim_id, esim_id);
    let iccid = installation.iccid.expose().clone();
    let code = installation.activation_code.expose().clone();
    assert!(iccid.len() >= 18 && iccid.bytes().all(|b| b.is_ascii_digit()));
    assert!(sandbox::luhn_valid(&iccid), "{}", iccid.len());
    assert!(!code.is_empty());
    assert!(installation.qr_code_svg.expose().contains("<svg"));
    let shown = format!("{installation:?}");
    assert!(!shown.contains(&iccid), "ICCID leaked into Debug");
    assert!(!shown.contains(&code), "activation code leaked into Debug");
    assert!(!shown.contains("<svg"), "QR code leaked into Debug");
    assert!(shown.contains("[redacted]"));

    let orders = env
        .client
        .orders_pager(limit(10))
        .collect_all()
        .await
        .expect("orders");
    assert_eq!(ids_of(&orders), vec![accepted.order_id.clone()]);
    assert!(env.sandbox().stats().ledger_invariant_holds);
}

fn ids_of(orders: &[storefront::upstream::Order]) -> Vec<String> {
    orders.iter().map(|o| o.id.clone()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn orders_pager_lists_every_order_once_newest_first() {
    let env = start().await;
    let (_, price) = cheap_order(&env, "x");
    let plan = cheap_plan(&env);
    let mut placed = Vec::new();
    for n in 0..7 {
        let request = order_request(&plan.id, price, &format!("list-{n}"));
        let accepted = env
            .client
            .create_order(&key(&format!("list-{n}")), &request)
            .await
            .expect("accepted");
        placed.push(accepted.order_id);
    }
    let first = env.client.orders(None, limit(3)).await.expect("page");
    assert_eq!(first.data.len(), 3);
    let listed = env
        .client
        .orders_pager(limit(3))
        .collect_all()
        .await
        .expect("orders");
    placed.reverse();
    assert_eq!(ids_of(&listed), placed, "each order once, newest first");
    assert_eq!(ids_of(&listed[..3]), ids_of(&first.data));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unhappy_and_unfamiliar_outcomes_decode() {
    let env = start().await;
    let cheap: Vec<_> = env
        .sandbox()
        .plans()
        .into_iter()
        .filter(|p| (100..=2_000).contains(&p.price_cents))
        .take(4)
        .collect();
    assert_eq!(cheap.len(), 4);
    let outcomes = [
        (Outcome::Failed, OrderStatus::Failed),
        (Outcome::PendingReview, OrderStatus::PendingReview),
        (
            Outcome::Other("on_hold".to_string()),
            OrderStatus::Other("on_hold".to_string()),
        ),
        (Outcome::Refunded, OrderStatus::Refunded),
    ];
    let mut placed = Vec::new();
    for (plan, (outcome, status)) in cheap.iter().zip(outcomes) {
        env.sandbox()
            .set_plan_outcome(&plan.id, outcome)
            .expect("outcome");
        let request = order_request(&plan.id, plan.price_cents, &format!("out-{}", plan.id));
        let accepted = env
            .client
            .create_order(&key("out"), &request)
            .await
            .expect("accepted");
        placed.push((accepted.order_id, status, plan.price_cents));
    }
    for (id, status, _) in &placed {
        wait_for_status(&env.client, id, status).await;
    }
    // Funds stay reserved for the two orders still under investigation.
    let held: i64 = placed[1].2 + placed[2].2;
    let balance = env.client.balance().await.expect("balance");
    assert_eq!(balance.reserved_cents.cents(), Cents::new(held));
    assert_eq!(
        balance.available_cents,
        Cents::new(50_000 - held),
        "the failed order was released, the refunded one credited back"
    );
    // A refunded order keeps its eSIM readable.
    let refunded = env
        .client
        .order(&path_id(&placed[3].0))
        .await
        .expect("refunded order");
    let esim = refunded.esim_id.expect("issued before the refund");
    env.client
        .installation(&path_id(&esim))
        .await
        .expect("installation after a refund");
    let failed = env
        .client
        .order(&path_id(&placed[0].0))
        .await
        .expect("failed");
    assert_eq!(failed.esim_id, None);
    assert!(env.sandbox().stats().ledger_invariant_holds);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn extreme_amounts_and_a_deficit_decode() {
    let env = start().await;
    let plans = env.sandbox().plans();
    let free = plans
        .iter()
        .find(|p| p.price_cents == 0)
        .expect("a free plan");
    let huge = plans
        .iter()
        .find(|p| p.price_cents == 9_007_199_254_740_991)
        .expect("a maximum-price plan");
    env.sandbox()
        .set_provisioning_delays(Duration::from_secs(60), Duration::from_secs(60));

    env.client
        .create_order(&key("free"), &order_request(&free.id, 0, "free-1"))
        .await
        .expect("a free plan is orderable");
    let err = env
        .client
        .create_order(
            &key("huge"),
            &order_request(&huge.id, huge.price_cents, "huge-1"),
        )
        .await
        .expect_err("$90 trillion");
    assert_rejected(&err, 409, &ErrorCode::InsufficientBalance);

    env.sandbox()
        .set_balance(huge.price_cents)
        .expect("a very rich partner");
    let accepted = env
        .client
        .create_order(
            &key("huge"),
            &order_request(&huge.id, huge.price_cents, "huge-1"),
        )
        .await
        .expect("covered now");
    let order = env.client.order_status(&accepted).await.expect("order");
    assert_eq!(i64::from(order.price_cents), huge.price_cents);
    let balance = env.client.balance().await.expect("balance");
    assert_eq!(i64::from(balance.reserved_cents), huge.price_cents);
    assert_eq!(balance.available_cents, Cents::ZERO);

    // A funding reversal leaves a deficit: negative available credit decodes, and purchasing
    // is refused definitively (the code is the sandbox's choice; the spec does not name it).
    env.sandbox().apply_reversal(2_500).expect("reversal");
    let balance = env.client.balance().await.expect("balance in deficit");
    assert_eq!(balance.available_cents, Cents::new(-2_500));
    assert!(balance.low_balance);
    let err = env
        .client
        .create_order(&key("deficit"), &order_request(&free.id, 0, "free-2"))
        .await
        .expect_err("suspended");
    assert_rejected(&err, 409, &other("purchasing_suspended"));
    assert!(env.sandbox().stats().ledger_invariant_holds);
}

// ---- 2. the plan pager ---------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plans_pager_collects_the_catalog_exactly_once() {
    let mut config = fast_sandbox_config();
    config.plans = 250;
    let env = start_with(config).await;
    let catalog = env.sandbox().plans();
    assert!(catalog.len() > 200);
    let catalog_ids: Vec<String> = catalog.iter().map(|p| p.id.clone()).collect();

    for page_size in [7, 25, 100] {
        let all = env
            .client
            .plans_pager(&PlanFilter::default(), limit(page_size))
            .collect_all()
            .await
            .expect("every plan");
        assert_eq!(ids(&all), catalog_ids, "limit {page_size}");
        for (got, want) in all.iter().zip(&catalog) {
            assert_same_plan(got, want);
        }
    }

    // One page at a time, by hand: a full page of 100, then the rest.
    let page = env
        .client
        .plans(&PlanFilter::default(), None, limit(100))
        .await
        .expect("page 1");
    assert_eq!(page.data.len(), 100);
    let next = page.next_cursor.expect("more pages");
    let page2 = env
        .client
        .plans(&PlanFilter::default(), Some(&next), limit(100))
        .await
        .expect("page 2");
    assert_eq!(ids(&page2.data), catalog_ids[100..200].to_vec());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plans_pager_keeps_its_filters_on_every_page() {
    let mut config = fast_sandbox_config();
    config.plans = 250;
    let env = start_with(config).await;
    let catalog = env.sandbox().plans();
    let expect = |pred: &dyn Fn(&storefront::sandbox::wire::Plan) -> bool| -> Vec<String> {
        catalog
            .iter()
            .filter(|p| pred(p))
            .map(|p| p.id.clone())
            .collect()
    };
    let country = |c: &str| Some(CountryCode::parse(c).expect("country"));
    let region = |r: &str| Some(RegionSlug::parse(r).expect("region"));
    let cases = [
        (
            PlanFilter {
                country: country("US"),
                region: None,
            },
            expect(&|p| p.country_code == "US"),
        ),
        (
            PlanFilter {
                country: None,
                region: region("europe"),
            },
            expect(&|p| p.region.as_deref() == Some("europe")),
        ),
        (
            PlanFilter {
                country: country("US"),
                region: region("north-america"),
            },
            expect(&|p| p.country_code == "US" && p.region.as_deref() == Some("north-america")),
        ),
    ];
    for (filter, want) in cases {
        assert!(
            want.len() > 3,
            "{filter:?} must span several pages of 3 ({})",
            want.len()
        );
        let got = env
            .client
            .plans_pager(&filter, limit(3))
            .collect_all()
            .await
            .unwrap_or_else(|e| panic!("{filter:?}: {e}"));
        assert_eq!(ids(&got), want, "{filter:?}");
        let got = env
            .client
            .plans_pager(&filter, limit(100))
            .collect_all()
            .await
            .unwrap_or_else(|e| panic!("{filter:?}: {e}"));
        assert_eq!(ids(&got), want, "{filter:?} by 100");
    }
    // The US has more than 100 plans, so even limit 100 needs a second page with the filter.
    assert!(expect(&|p| p.country_code == "US").len() > 100);
}

// ---- 3. error classes ----------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_are_definitive_with_their_status_and_code() {
    let env = start().await;
    let (request, price) = cheap_order(&env, "err-1");

    let err = env
        .client
        .plan(&path_id("p99999-base"))
        .await
        .expect_err("unknown plan");
    assert_rejected(&err, 404, &other("not_found"));
    let err = env
        .client
        .create_order(
            &key("unknown"),
            &order_request("p99999-base", price, "err-404"),
        )
        .await
        .expect_err("unknown plan");
    assert_rejected(&err, 404, &other("not_found"));
    let err = env
        .client
        .order(&path_id("ord_missing"))
        .await
        .expect_err("unknown order");
    assert_rejected(&err, 404, &other("not_found"));
    // Ids are opaque and stay inside their path segment: no traversal to another endpoint.
    for id in [
        "p1-base/../../account",
        "../balance",
        "p1-base?x=1",
        "p1-base#x",
        "é ö",
    ] {
        let err = env.client.plan(&path_id(id)).await.expect_err(id);
        assert_rejected(&err, 404, &other("not_found"));
    }
    let err = env
        .client
        .installation(&path_id("../../orders"))
        .await
        .expect_err("no traversal");
    assert_rejected(&err, 404, &other("not_found"));

    // Any retry would first sleep at least a second.
    let wrong = env.client_with("sbx_not_a_key", |c| {
        c.backoff = Backoff {
            base: Duration::from_secs(2),
            cap: Duration::from_secs(2),
        }
    });
    let started = Instant::now();
    let err = wrong.account().await.expect_err("wrong key");
    assert_rejected(&err, 401, &other("unauthorized"));
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "a 401 is not retried"
    );
    let err = wrong
        .create_order(&key("wrong"), &request)
        .await
        .expect_err("wrong key");
    assert_rejected(&err, 401, &other("unauthorized"));

    let catalog_only = env
        .sandbox()
        .create_key(KeySpec::with_scopes(&[Scope::CatalogRead]));
    let narrow = env.client_with(&catalog_only, |_| {});
    narrow
        .plan(&path_id(request.plan_id.as_str()))
        .await
        .expect("catalog:read is granted");
    let err = narrow.balance().await.expect_err("no balance:read");
    assert_rejected(&err, 403, &other("insufficient_scope"));
    let err = narrow
        .create_order(&key("narrow"), &request)
        .await
        .expect_err("no orders:write");
    assert_rejected(&err, 403, &other("insufficient_scope"));

    let mut expired = KeySpec::with_scopes(&Scope::ALL);
    expired.expired = true;
    let expired = env.client_with(&env.sandbox().create_key(expired), |_| {});
    let err = expired.account().await.expect_err("expired key");
    assert_rejected(&err, 401, &other("key_expired"));

    let err = env
        .client
        .create_order(
            &key("stale"),
            &order_request(request.plan_id.as_str(), price - 1, "err-409"),
        )
        .await
        .expect_err("stale price");
    assert_rejected(&err, 409, &ErrorCode::PriceChanged);

    env.sandbox().set_balance(price - 1).expect("set balance");
    let err = env
        .client
        .create_order(&key("poor"), &request)
        .await
        .expect_err("cannot cover");
    assert_rejected(&err, 409, &ErrorCode::InsufficientBalance);

    let stats = env.sandbox().stats();
    assert_eq!(stats.orders, 0, "no refusal left an order behind");
    assert_eq!(stats.reserved_cents, 0);
    assert!(stats.ledger_invariant_holds);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idempotency_key_replays_the_same_order_and_refuses_another_body() {
    let env = start().await;
    let (request, price) = cheap_order(&env, "idem-1");
    let order_key = key("idem");
    let first = env
        .client
        .create_order(&order_key, &request)
        .await
        .expect("accepted");
    let transactions = env.sandbox().stats().transactions;
    let again = env
        .client
        .create_order(&order_key, &request)
        .await
        .expect("replayed");
    assert_eq!(again, first, "the same order, the same statusUrl");

    let stats = env.sandbox().stats();
    assert_eq!(stats.orders, 1);
    assert_eq!(stats.order_requests, 2);
    assert_eq!(stats.transactions, transactions, "no second reservation");
    assert_eq!(stats.available_cents, 50_000 - price);
    assert!(stats.duplicate_purchases.is_empty());

    let different = order_request(request.plan_id.as_str(), price, "idem-2");
    let err = env
        .client
        .create_order(&order_key, &different)
        .await
        .expect_err("key reused with another body");
    assert_rejected(&err, 409, &ErrorCode::IdempotencyKeyReused);
    assert_eq!(env.sandbox().stats().orders, 1);
}

// ---- 4. faults after the commit ------------------------------------------------------------

/// After an `Unknown`, the same key and body must return the order that was committed, and the
/// reference must not have been bought twice.
async fn retry_recovers_the_committed_order(
    env: &Env,
    order_key: &IdempotencyKey,
    request: &OrderRequest,
) {
    let stats = env.sandbox().stats();
    assert_eq!(
        stats.orders, 1,
        "the order was committed before the failure"
    );
    let reference = request.reference.as_str();
    let retried = env
        .client
        .create_order(order_key, request)
        .await
        .expect("the retry is answered");
    let order = env
        .client
        .order(&path_id(&retried.order_id))
        .await
        .expect("the order");
    assert_eq!(order.reference, reference);
    let stats = env.sandbox().stats();
    assert_eq!(stats.orders, 1);
    assert_eq!(stats.orders_by_reference.get(reference), Some(&1));
    assert!(stats.duplicate_purchases.is_empty());
    assert!(stats.ledger_invariant_holds);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failure_after_commit_is_unknown_and_the_same_key_recovers_the_order() {
    let env = start().await;
    let (request, _) = cheap_order(&env, "fail-1");
    let order_key = key("fail");
    env.sandbox().inject(Fault::FailAfterCommit(1));
    let err = env
        .client
        .create_order(&order_key, &request)
        .await
        .expect_err("500 after commit");
    assert_eq!(err.class(), Class::Unknown, "{err}");
    assert_eq!(err.kind(), ErrorKind::ServerError);
    assert_eq!(err.status().map(|s| s.as_u16()), Some(500));
    assert_eq!(
        env.sandbox().stats().order_requests,
        1,
        "the client did not retry the POST itself"
    );
    retry_recovers_the_committed_order(&env, &order_key, &request).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_answer_after_commit_times_out_as_unknown() {
    let env = start().await;
    let client = env.client_with(KEY, |c| c.request_timeout = Duration::from_millis(300));
    let (request, _) = cheap_order(&env, "slow-1");
    let order_key = key("slow");
    env.sandbox().inject(Fault::DelayAfterCommit {
        count: 1,
        delay: Duration::from_millis(1_500),
    });
    let started = Instant::now();
    let err = client
        .create_order(&order_key, &request)
        .await
        .expect_err("timed out");
    assert!(started.elapsed() < Duration::from_millis(1_200));
    assert_eq!(err.class(), Class::Unknown, "{err}");
    assert_eq!(err.kind(), ErrorKind::Timeout, "{err}");
    assert_eq!(env.sandbox().stats().order_requests, 1);
    retry_recovers_the_committed_order(&env, &order_key, &request).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_connection_after_commit_is_unknown() {
    let env = start().await;
    let (request, _) = cheap_order(&env, "drop-1");
    let order_key = key("drop");
    env.sandbox().inject(Fault::DropAfterCommit(1));
    let err = env
        .client
        .create_order(&order_key, &request)
        .await
        .expect_err("connection dropped");
    assert_eq!(err.class(), Class::Unknown, "{err}");
    assert_eq!(err.kind(), ErrorKind::Transport, "{err}");
    assert_eq!(env.sandbox().stats().order_requests, 1);
    retry_recovers_the_committed_order(&env, &order_key, &request).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_503_burst_is_retried_for_gets_and_never_for_posts() {
    let env = start().await;
    // A probe that sends exactly one request per call.
    let single = env.client_with(KEY, |c| c.max_get_attempts = 1);

    env.sandbox().inject(Fault::UnavailableBurst(2));
    let balance = env.client.balance().await.expect("third attempt succeeds");
    assert_eq!(balance.available_cents, Cents::new(50_000));

    // Three 503s against three attempts: it fails after exactly three (a fourth would have
    // succeeded; fewer would leave a 503 for the single-shot probe).
    env.sandbox().inject(Fault::UnavailableBurst(3));
    let err = env.client.balance().await.expect_err("attempts used up");
    assert_eq!(err.class(), Class::Unknown);
    assert_eq!(err.kind(), ErrorKind::ServerError);
    assert_eq!(err.status().map(|s| s.as_u16()), Some(503));
    assert_eq!(err.code(), Some(&other("service_unavailable")));
    single.balance().await.expect("the burst is used up");

    // A POST meets one 503 and is not retried: a retry would have been accepted.
    let (request, _) = cheap_order(&env, "busy-1");
    env.sandbox().inject(Fault::UnavailableBurst(1));
    let err = env
        .client
        .create_order(&key("busy"), &request)
        .await
        .expect_err("503");
    assert_eq!(err.class(), Class::Unknown);
    assert_eq!(err.status().map(|s| s.as_u16()), Some(503));
    let stats = env.sandbox().stats();
    assert_eq!(stats.orders, 0, "no second attempt was sent");
    assert_eq!(stats.order_requests, 0);
    single.balance().await.expect("the POST used the one 503");
}

// ---- 5. rate limiting ----------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_retry_after_closes_the_gate_for_gets_and_posts() {
    let env = start().await;
    env.sandbox().inject(Fault::RateLimitBurst {
        count: 1,
        retry_after_secs: 30,
    });
    let before = SystemTime::now();
    let started = Instant::now();
    let err = env.client.balance().await.expect_err("429");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "a GET does not wait 30 s"
    );
    assert_eq!(err.kind(), ErrorKind::RateLimited);
    assert_eq!(err.class(), Class::RetryAfter(Duration::from_secs(30)));
    assert_eq!(err.code(), Some(&other("rate_limited")));
    let opens = env.client.gate_opens_at().expect("gate closed");
    assert!(opens >= before + Duration::from_secs(30), "{opens:?}");

    let (request, _) = cheap_order(&env, "gated-1");
    let clone = env.client.clone();
    assert_eq!(clone.gate_opens_at(), Some(opens), "clones share the gate");
    for client in [&env.client, &clone] {
        let err = client
            .create_order(&key("gated"), &request)
            .await
            .expect_err("gated");
        assert_eq!(err.kind(), ErrorKind::GateClosed);
        assert!(
            matches!(err.class(), Class::RetryAfter(d) if d > Duration::from_secs(25)),
            "{err}"
        );
        let err = client.balance().await.expect_err("gated");
        assert_eq!(err.kind(), ErrorKind::GateClosed);
    }
    let stats = env.sandbox().stats();
    assert_eq!((stats.orders, stats.order_requests), (0, 0));
    // A client of its own (no shared gate) goes through: the burst was used up by one request.
    env.client_with(KEY, |_| {})
        .balance()
        .await
        .expect("sandbox not limiting");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_short_gate_holds_posts_back_and_gets_wait_it_out() {
    let env = start().await;
    let (request, _) = cheap_order(&env, "rl-1");
    // Two 429s armed: the first closes the gate; the second stays armed only if nothing else
    // is sent while the gate is closed.
    env.sandbox().inject(Fault::RateLimitBurst {
        count: 2,
        retry_after_secs: 1,
    });
    let before = SystemTime::now();
    let err = env
        .client
        .create_order(&key("rl"), &request)
        .await
        .expect_err("429");
    assert_eq!(err.kind(), ErrorKind::RateLimited);
    assert_eq!(err.class(), Class::RetryAfter(Duration::from_secs(1)));
    let opens = env.client.gate_opens_at().expect("gate closed");
    assert!(opens >= before + Duration::from_secs(1));

    let clone = env.client.clone();
    assert_eq!(clone.gate_opens_at(), Some(opens));
    let err = clone
        .create_order(&key("rl-2"), &request)
        .await
        .expect_err("held back");
    assert_eq!(err.kind(), ErrorKind::GateClosed);
    assert!(
        matches!(err.class(), Class::RetryAfter(d) if d <= Duration::from_secs(1)),
        "{err}"
    );

    // The second 429 is still armed: the held-back POST never reached the sandbox.
    let probe = env.client_with(KEY, |c| c.max_get_attempts = 1);
    let err = probe.balance().await.expect_err("second 429");
    assert_eq!(err.kind(), ErrorKind::RateLimited);
    let stats = env.sandbox().stats();
    assert_eq!((stats.orders, stats.order_requests), (0, 0));

    // A GET on the first client waits for its gate, then goes through.
    let balance = clone.balance().await.expect("after the gate");
    assert!(SystemTime::now() >= opens, "sent before the gate opened");
    assert_eq!(balance.available_cents, Cents::new(50_000));
    assert_eq!(env.client.gate_opens_at(), None);
    env.client
        .create_order(&key("rl-3"), &request)
        .await
        .expect("accepted once the gate is open");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pager_under_the_sandbox_rate_limit_waits_and_completes() {
    let env = start().await;
    let catalog: Vec<String> = env.sandbox().plans().into_iter().map(|p| p.id).collect();
    // Five pages of 25 against three requests a second: at least one 429 mid-listing.
    env.sandbox().set_rate_limit(Some(RateLimit {
        requests: 3,
        window: Duration::from_secs(1),
    }));
    let started = Instant::now();
    let all = env
        .client
        .plans_pager(&PlanFilter::default(), limit(25))
        .collect_all()
        .await
        .expect("the pager waits for the gate instead of failing");
    assert_eq!(ids(&all), catalog);
    assert!(
        started.elapsed() >= Duration::from_millis(900),
        "it really was limited"
    );
}

// ---- 6. concurrency ------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn twenty_concurrent_orders_against_credit_for_five() {
    let env = start().await;
    let plan = cheap_plan(&env);
    env.sandbox()
        .set_plan_outcome(&plan.id, Outcome::Fulfilled)
        .expect("outcome");
    env.sandbox()
        .set_balance(plan.price_cents * 5)
        .expect("balance for five");
    let tasks: Vec<_> = (0..20)
        .map(|n| {
            let client = env.client.clone();
            let request = order_request(&plan.id, plan.price_cents, &format!("race-{n}"));
            tokio::spawn(async move {
                client
                    .create_order(&key(&format!("race-{n}")), &request)
                    .await
            })
        })
        .collect();
    let mut accepted = Vec::new();
    let mut refused = 0;
    for task in tasks {
        match task.await.expect("task ran") {
            Ok(order) => accepted.push(order.order_id),
            Err(e) => {
                assert_rejected(&e, 409, &ErrorCode::InsufficientBalance);
                refused += 1;
            }
        }
    }
    assert_eq!((accepted.len(), refused), (5, 15));
    let distinct: HashSet<&String> = accepted.iter().collect();
    assert_eq!(distinct.len(), 5);
    let stats = env.sandbox().stats();
    assert_eq!(stats.orders, 5);
    assert_eq!(stats.order_requests, 20);
    assert_eq!(stats.available_cents, 0);
    assert!(stats.duplicate_purchases.is_empty());
    assert!(stats.ledger_invariant_holds, "{stats:?}");
    for id in &accepted {
        wait_for_status(&env.client, id, &OrderStatus::Fulfilled).await;
    }
    let stats = env.sandbox().stats();
    assert_eq!((stats.available_cents, stats.reserved_cents), (0, 0));
    assert!(stats.ledger_invariant_holds, "{stats:?}");
}
