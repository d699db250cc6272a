//! A spec-faithful, in-memory simulator of the upstream Reseller eSIM Partner API, with fault
//! injection. It is the default upstream of `storefront demo`, the double every test uses, and
//! a tool partners point their own integrations at (`storefront sandbox`).
//!
//! Layout: `wire` (JSON shapes), `validate` (input rules), `error` (error bodies), `catalog`
//! (seeded plans), `ledger` (wallet), `state` (the account behind one lock), `esim`
//! (installation values), `webhook` (signed hints), `api` (`/api/v1`), `control` (`/_sandbox`).
//! Tests drive the same code through [`Sandbox`]'s methods or the control API.
//!
//! Choices for everything the spec leaves "not shown" are listed in `docs/sandbox.md`.

mod api;
mod catalog;
mod control;
pub mod error;
mod esim;
mod ledger;
mod state;
mod validate;
mod webhook;
pub mod wire;

use std::net::{SocketAddr, TcpListener};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use actix_web::{App, HttpServer, web};

pub use catalog::SplitMix64;
pub use error::ApiError;
pub use esim::luhn_valid;
pub use ledger::Totals;
pub use state::{Outcome, RateLimit, Scope, Stats, WebhookConfig};
pub use webhook::{SIGNATURE_HEADER, sign as sign_webhook};

use state::{Placed, State, StateConfig, Step};
use wire::{Balance, Order, Plan};

/// Everything a sandbox starts with. Build it with [`SandboxConfig::new`] and adjust fields.
#[derive(Debug, Clone)]
pub struct SandboxConfig {
    /// The bearer key that gets every scope (environment `sandbox`) and may use `/_sandbox`.
    pub api_key: String,
    /// Seed of the generated catalog: same seed and plan count, same plans.
    pub seed: u64,
    /// Number of plans in the catalog.
    pub plans: usize,
    /// Available credit at start (one `credit` transaction).
    pub opening_balance_cents: i64,
    /// `lowBalance` is true when available credit is at or below this.
    pub low_balance_threshold_cents: i64,
    /// How long an order stays `paid` before `provisioning`.
    pub paid_delay: Duration,
    /// How long it stays `provisioning` before its outcome (and `fulfilled` before `refunded`).
    pub provisioning_delay: Duration,
    /// Per-key request budget; `None` is unlimited.
    pub rate_limit: Option<RateLimit>,
    pub webhook: Option<WebhookConfig>,
    /// Origin used in absolute links (`checkoutUrl`); by default taken from the request's
    /// `Host` header.
    pub public_origin: Option<String>,
}

impl SandboxConfig {
    pub fn new(api_key: impl Into<String>) -> Self {
        Self {
            api_key: api_key.into(),
            seed: 1,
            plans: 120,
            opening_balance_cents: 50_000,
            low_balance_threshold_cents: 5_000,
            paid_delay: Duration::from_millis(200),
            provisioning_delay: Duration::from_millis(400),
            rate_limit: None,
            webhook: None,
            public_origin: None,
        }
    }
}

/// A fault to arm; counts apply to the next N matching requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// The next N `POST /orders` commit the order, then answer 500.
    FailAfterCommit(u32),
    /// The next N `POST /orders` commit the order, then answer 202 only after `delay`.
    DelayAfterCommit { count: u32, delay: Duration },
    /// The next N `POST /orders` commit the order, then break the connection mid-answer.
    DropAfterCommit(u32),
    /// The next N Partner API requests answer 429 with this `Retry-After`.
    RateLimitBurst { count: u32, retry_after_secs: u64 },
    /// The next N Partner API requests answer 503.
    UnavailableBurst(u32),
    /// Every Partner API request waits this long first (zero turns it off).
    Latency(Duration),
    /// Every `POST /orders` is refused this way until `RefuseOrders(None)` or a clear: a key
    /// that expired or lost a scope mid-run, or a key reuse upstream claims to have seen.
    RefuseOrders(Option<OrderRefusal>),
    /// Order webhooks misbehave this way until `Webhooks(None)` or a clear (spec: events "may
    /// arrive late, twice or out of order").
    Webhooks(Option<WebhookDisorder>),
}

/// How [`Fault::Webhooks`] delivers order webhooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WebhookDisorder {
    /// Every event is delivered twice, one after the other.
    Duplicate,
    /// An order's events are held back until it reaches a status it does not leave by itself,
    /// then delivered newest first (the final status arrives before `paid`).
    Reverse,
}

/// How [`Fault::RefuseOrders`] refuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrderRefusal {
    /// 401 `key_expired`.
    KeyExpired,
    /// 403 `insufficient_scope`.
    MissingScope,
    /// 409 `idempotency_key_reused` (no order is created).
    KeyReused,
}

/// A key to create for testing authentication and authorisation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeySpec {
    pub scopes: Vec<Scope>,
    pub expired: bool,
    pub environment: String,
}

impl KeySpec {
    pub fn with_scopes(scopes: &[Scope]) -> Self {
        Self {
            scopes: scopes.to_vec(),
            expired: false,
            environment: "sandbox".to_string(),
        }
    }
}

/// A change to the configured key's account as `GET /account` reports it; `None` leaves a
/// field as it is. The key really changes: fewer scopes refuse those endpoints, an expiry in
/// the past answers 401 `key_expired` everywhere.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AccountChange {
    /// `sandbox`, `production` or any other lower-case word (an unfamiliar environment).
    pub environment: Option<String>,
    pub scopes: Option<Vec<Scope>>,
    /// The key expires this long from now (negative: it has expired).
    pub key_expires_in: Option<time::Duration>,
    /// While true, `GET /account` answers 503 `service_unavailable` (after authentication).
    pub failing: Option<bool>,
}

struct Inner {
    state: Mutex<State>,
    public_origin: Option<String>,
    http: Option<reqwest::Client>,
}

/// A cheaply cloneable handle to one simulated partner account.
#[derive(Clone)]
pub struct Sandbox {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Sandbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sandbox").finish_non_exhaustive()
    }
}

impl Sandbox {
    pub fn new(config: SandboxConfig) -> Self {
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(5))
            .build()
            .map_err(|e| tracing::warn!(error = %e, "sandbox webhooks disabled: no HTTP client"))
            .ok();
        let state = State::new(StateConfig {
            api_key: config.api_key,
            seed: config.seed,
            plans: config.plans,
            opening_balance_cents: config.opening_balance_cents,
            low_balance_threshold_cents: config.low_balance_threshold_cents,
            rate_limit: config.rate_limit,
            webhook: config.webhook,
            delays: (config.paid_delay, config.provisioning_delay),
        });
        Self {
            inner: Arc::new(Inner {
                state: Mutex::new(state),
                public_origin: config.public_origin,
                http,
            }),
        }
    }

    /// Mounts the Partner API under `/api/v1` and the control API under `/_sandbox`.
    pub fn configure(&self, cfg: &mut web::ServiceConfig) {
        api::mount(self.clone(), cfg);
        control::mount(self.clone(), cfg);
    }

    /// The lock is never held across an `.await`: every caller gets it inside a closure. A
    /// poisoned lock (a panic in another request) is recovered, not propagated: the state is
    /// plain data and every mutation completes or returns before changing anything.
    fn lock(&self) -> MutexGuard<'_, State> {
        self.inner
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn with<R>(&self, f: impl FnOnce(&mut State) -> R) -> R {
        f(&mut self.lock())
    }

    // ---- the Rust-side control API (the HTTP control API calls these same methods) ------

    pub fn inject(&self, fault: Fault) {
        self.with(|s| {
            let f = &mut s.faults;
            match fault {
                Fault::FailAfterCommit(n) => f.fail_after_commit = n,
                Fault::DelayAfterCommit { count, delay } => {
                    f.delay_after_commit = count;
                    f.commit_delay = delay;
                }
                Fault::DropAfterCommit(n) => f.drop_after_commit = n,
                Fault::RateLimitBurst {
                    count,
                    retry_after_secs,
                } => {
                    f.rate_limit_burst = count;
                    f.burst_retry_after_secs = retry_after_secs.max(1);
                }
                Fault::UnavailableBurst(n) => f.unavailable_burst = n,
                Fault::Latency(d) => f.latency = d,
                Fault::RefuseOrders(refusal) => f.refuse_orders = refusal,
                Fault::Webhooks(disorder) => f.webhooks = disorder,
            }
        });
    }

    pub fn clear_faults(&self) {
        self.with(|s| s.faults = state::Faults::default());
    }

    pub fn stats(&self) -> Stats {
        self.with(|s| s.stats())
    }

    pub fn balance(&self) -> Balance {
        self.with(|s| s.balance())
    }

    /// The available plans in catalog order.
    pub fn plans(&self) -> Vec<Plan> {
        self.with(|s| {
            s.catalog()
                .plans
                .iter()
                .filter(|p| s.is_available(&p.plan.id))
                .map(|p| p.plan.clone())
                .collect()
        })
    }

    pub fn order(&self, order_id: &str) -> Option<Order> {
        self.with(|s| s.order(order_id).map(|o| o.to_wire()))
    }

    /// Every order of the account, oldest first.
    pub fn orders(&self) -> Vec<Order> {
        self.with(|s| s.orders().iter().map(|o| o.to_wire()).collect())
    }

    pub fn set_plan_price(&self, plan_id: &str, cents: i64) -> Result<(), ApiError> {
        self.with(|s| s.set_plan_price(plan_id, cents))
    }

    pub fn set_plan_available(&self, plan_id: &str, available: bool) -> Result<(), ApiError> {
        self.with(|s| s.set_plan_available(plan_id, available))
    }

    pub fn set_plan_outcome(&self, plan_id: &str, outcome: Outcome) -> Result<(), ApiError> {
        self.with(|s| s.set_plan_outcome(plan_id, outcome))
    }

    /// The order placed under `reference` ends with `outcome`, ahead of its plan's outcome.
    pub fn set_reference_outcome(&self, reference: &str, outcome: Outcome) {
        self.with(|s| s.set_reference_outcome(reference, outcome));
    }

    /// Sets available credit (one `adjustment` transaction).
    pub fn set_balance(&self, available_cents: i64) -> Result<(), ApiError> {
        self.with(|s| s.set_balance(available_cents))
    }

    /// A funding reversal: available drops by `amount_cents`, possibly below zero, which
    /// suspends purchasing until the deficit is covered.
    pub fn apply_reversal(&self, amount_cents: i64) -> Result<(), ApiError> {
        self.with(|s| s.apply_reversal(amount_cents, "funding-reversal"))
    }

    pub fn set_purchasing_suspended(&self, suspended: bool) {
        self.with(|s| s.set_suspended(suspended));
    }

    /// Pays a checkout session as if on its hosted page (top-up: credits the wallet once).
    pub fn complete_topup(&self, session_id: &str) -> Result<(), ApiError> {
        self.pay_session(session_id).map(|_| ())
    }

    pub fn create_key(&self, spec: KeySpec) -> String {
        let expires_at = if spec.expired {
            time::OffsetDateTime::now_utc() - time::Duration::hours(1)
        } else {
            time::OffsetDateTime::now_utc() + time::Duration::days(30)
        };
        self.with(|s| {
            s.add_key(state::KeyRecord {
                scopes: spec.scopes,
                expires_at,
                environment: spec.environment,
            })
        })
    }

    /// Changes what `GET /account` reports for the configured key (see [`AccountChange`]).
    pub fn set_account(&self, change: AccountChange) {
        self.with(|s| s.change_primary_account(change));
    }

    /// Delays of orders accepted from now on.
    pub fn set_provisioning_delays(&self, paid: Duration, provisioning: Duration) {
        self.with(|s| s.delays = (paid, provisioning));
    }

    pub fn set_webhook(&self, webhook: Option<WebhookConfig>) {
        self.with(|s| s.webhook = webhook);
    }

    pub fn set_rate_limit(&self, limit: Option<RateLimit>) {
        self.with(|s| s.set_rate_limit(limit));
    }

    // ---- shared by the handlers -------------------------------------------------------

    /// Places an order (or replays it) and, for a new one, starts its timers and announces
    /// `paid`. Both `POST /orders` and a paid checkout session come through here.
    fn place_order(&self, idem_key: &str, req: wire::OrderRequest) -> Result<Placed, ApiError> {
        let placed = self.with(|s| s.place_order(idem_key, req))?;
        self.after_placed(&placed);
        Ok(placed)
    }

    fn after_placed(&self, placed: &Placed) {
        if let Some(change) = &placed.change {
            self.announce(change.clone());
        }
        if placed.created {
            self.start_lifecycle(placed.accepted.order_id.clone());
        }
    }

    fn pay_session(&self, session_id: &str) -> Result<state::SessionRecord, ApiError> {
        let (session, placed) = self.with(|s| s.pay_session(session_id))?;
        if let Some(placed) = &placed {
            self.after_placed(placed);
        }
        Ok(session)
    }

    fn start_lifecycle(&self, order_id: String) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            tracing::warn!(upstream.order_id = %order_id, "sandbox: no runtime, order stays paid");
            return;
        };
        let (paid, provisioning) = self.with(|s| s.delays);
        let sandbox = self.clone();
        runtime.spawn(async move {
            let steps = [
                (paid, Step::Provision),
                (provisioning, Step::Conclude),
                (provisioning, Step::Refund),
            ];
            for (delay, step) in steps {
                tokio::time::sleep(delay).await;
                match sandbox.with(|s| s.advance(&order_id, step)) {
                    Some(change) => sandbox.announce(change),
                    None if step == Step::Refund => {}
                    None => return,
                }
            }
        });
    }

    /// Sends the webhooks `change` calls for: one, or as [`Fault::Webhooks`] disorders them
    /// (in turn, so their order on the wire is the order decided here).
    fn announce(&self, change: state::StatusChange) {
        let (target, changes) = self.with(|s| (s.webhook.clone(), s.webhook_deliveries(change)));
        let Some(target) = target else {
            return;
        };
        let Some(client) = self.inner.http.clone() else {
            return;
        };
        if changes.is_empty() {
            return;
        }
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let sandbox = self.clone();
            runtime.spawn(async move {
                for change in changes {
                    let delivered = webhook::deliver(client.clone(), target.clone(), change).await;
                    sandbox.with(|s| s.note_webhook(delivered));
                }
            });
        }
    }
}

/// A sandbox serving on a random local port, for tests and embedding.
#[derive(Debug, Clone)]
pub struct SandboxHandle {
    /// `http://127.0.0.1:PORT`
    pub origin: String,
    /// `origin` + `/api/v1`: what a Partner API client takes as its base URL.
    pub base_url: String,
    pub sandbox: Sandbox,
}

/// Binds 127.0.0.1:0 and serves a new sandbox in the background of the current runtime.
pub async fn spawn(config: SandboxConfig) -> std::io::Result<SandboxHandle> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let port = listener.local_addr()?.port();
    let sandbox = Sandbox::new(config);
    let served = sandbox.clone();
    let server = HttpServer::new(move || App::new().configure(|cfg| served.configure(cfg)))
        .listen(listener)?
        .workers(2)
        .disable_signals()
        .shutdown_timeout(1)
        .run();
    tokio::spawn(server);
    let origin = format!("http://127.0.0.1:{port}");
    Ok(SandboxHandle {
        base_url: format!("{origin}/api/v1"),
        origin,
        sandbox,
    })
}

/// Serves a sandbox on `bind` until SIGTERM or Ctrl-C (the `storefront sandbox` command).
pub async fn serve(bind: SocketAddr, config: SandboxConfig) -> std::io::Result<()> {
    let listener = TcpListener::bind(bind)?;
    let local = listener.local_addr()?;
    let sandbox = Sandbox::new(config);
    let served = sandbox.clone();
    let server = HttpServer::new(move || App::new().configure(|cfg| served.configure(cfg)))
        .listen(listener)?
        .shutdown_timeout(5)
        .run();
    tracing::info!(
        base_url = %format!("http://{local}/api/v1"),
        control = %format!("http://{local}/_sandbox"),
        "sandbox Partner API is serving"
    );
    server.await
}
