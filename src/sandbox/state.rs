//! The simulated account behind one lock: catalog overrides, wallet, orders, idempotency
//! records, checkout sessions, keys, rate-limit windows and armed faults.
//!
//! Everything here is synchronous and runs under the `Sandbox`'s `std::sync::Mutex`; nothing in
//! this file awaits. That is what makes "check idempotency, price, suspension and balance, then
//! reserve and create the order" one atomic step: 20 concurrent orders against credit for 5
//! accept exactly 5. Timers, webhooks and HTTP live in `mod.rs` and the handlers.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::{Duration, Instant};

use rand::RngCore;
use serde::Serialize;
use time::OffsetDateTime;

use super::catalog::Catalog;
use super::error::ApiError;
use super::ledger::{Ledger, LedgerError, Totals};
use super::wire::{
    AcceptedOrder, Balance, CheckoutRequest, MAX_AMOUNT_CENTS, Order, OrderRequest, Plan,
    TopupRequest,
};
use crate::domain::rate_window::FixedWindows;

/// A permission of spec section 5.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
pub enum Scope {
    #[serde(rename = "catalog:read")]
    CatalogRead,
    #[serde(rename = "balance:read")]
    BalanceRead,
    #[serde(rename = "balance:write")]
    BalanceWrite,
    #[serde(rename = "orders:read")]
    OrdersRead,
    #[serde(rename = "orders:write")]
    OrdersWrite,
    #[serde(rename = "esims:install")]
    EsimsInstall,
    #[serde(rename = "checkout:write")]
    CheckoutWrite,
}

impl Scope {
    pub const ALL: [Scope; 7] = [
        Scope::CatalogRead,
        Scope::BalanceRead,
        Scope::BalanceWrite,
        Scope::OrdersRead,
        Scope::OrdersWrite,
        Scope::EsimsInstall,
        Scope::CheckoutWrite,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::CatalogRead => "catalog:read",
            Self::BalanceRead => "balance:read",
            Self::BalanceWrite => "balance:write",
            Self::OrdersRead => "orders:read",
            Self::OrdersWrite => "orders:write",
            Self::EsimsInstall => "esims:install",
            Self::CheckoutWrite => "checkout:write",
        }
    }
}

/// How an order placed for a plan ends (set per plan through the control API; the outcome a
/// plan has when the order is ACCEPTED is the one that order gets).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Outcome {
    #[default]
    Fulfilled,
    Failed,
    PendingReview,
    /// Fulfilled first, then refunded: the price is credited back to available.
    Refunded,
    /// An unfamiliar status string (e.g. `on_hold`); funds stay reserved.
    Other(String),
}

impl Outcome {
    pub fn parse(raw: &str) -> Result<Self, ApiError> {
        let valid = !raw.is_empty()
            && raw.len() <= 40
            && raw
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
        if !valid {
            return Err(ApiError::invalid(
                "outcome must be 1 to 40 characters from a-z, 0-9 and '_'",
            ));
        }
        Ok(match raw {
            "fulfilled" => Self::Fulfilled,
            "failed" => Self::Failed,
            "pending_review" => Self::PendingReview,
            "refunded" => Self::Refunded,
            other => Self::Other(other.to_string()),
        })
    }

    pub fn as_str(&self) -> &str {
        match self {
            Self::Fulfilled => "fulfilled",
            Self::Failed => "failed",
            Self::PendingReview => "pending_review",
            Self::Refunded => "refunded",
            Self::Other(s) => s,
        }
    }
}

/// Whether an order in `status` still holds its reservation. Unfamiliar statuses hold it, like
/// `pending_review`: the sandbox never guesses that an unknown state released money.
pub fn holds_funds(status: &str) -> bool {
    !matches!(status, "fulfilled" | "failed" | "refunded")
}

pub fn now_rfc3339() -> String {
    format_time(OffsetDateTime::now_utc())
}

/// RFC 3339, UTC, `Z` suffix, whole seconds (e.g. `2025-03-01T12:00:00Z`).
pub fn format_time(t: OffsetDateTime) -> String {
    let t = t.replace_nanosecond(0).unwrap_or(t);
    t.format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_else(|_| "1970-01-01T00:00:00Z".to_string())
}

fn random_hex(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    rand::rng().fill_bytes(&mut buf);
    hex::encode(buf)
}

#[derive(Debug, Clone)]
pub struct KeyRecord {
    pub scopes: Vec<Scope>,
    pub expires_at: OffsetDateTime,
    pub environment: String,
}

#[derive(Debug, Clone)]
pub struct OrderRecord {
    pub seq: u64,
    pub id: String,
    pub reference: String,
    pub price_cents: i64,
    pub status: String,
    pub created_at: String,
    pub esim_id: Option<String>,
    pub esim_seq: Option<u64>,
    pub outcome: Outcome,
}

impl OrderRecord {
    pub fn to_wire(&self) -> Order {
        Order {
            id: self.id.clone(),
            reference: self.reference.clone(),
            status: self.status.clone(),
            price_cents: self.price_cents,
            currency: "USD".to_string(),
            created_at: self.created_at.clone(),
            esim_id: self.esim_id.clone(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionKind {
    Topup {
        amount_cents: i64,
    },
    Order {
        request: OrderRequest,
        email: String,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionStatus {
    Open,
    Paid,
    Cancelled,
}

#[derive(Debug, Clone)]
pub struct SessionRecord {
    pub id: String,
    pub kind: SessionKind,
    pub status: SessionStatus,
    pub order_id: Option<String>,
    /// The last refusal when paying an order session failed (shown on the hosted page).
    pub last_error: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Endpoint {
    Orders,
    Topups,
    CheckoutSessions,
}

#[derive(Debug, Clone)]
enum IdemEntry {
    Order(OrderRequest, String),
    Topup(TopupRequest, String),
    Checkout(CheckoutRequest, String),
}

/// A fault that makes `POST /orders` misbehave after the order was committed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommitFault {
    Fail,
    Delay(Duration),
    Drop,
}

#[derive(Debug, Clone, Default)]
pub struct Faults {
    pub fail_after_commit: u32,
    pub delay_after_commit: u32,
    pub commit_delay: Duration,
    pub drop_after_commit: u32,
    pub rate_limit_burst: u32,
    pub burst_retry_after_secs: u64,
    pub unavailable_burst: u32,
    pub latency: Duration,
    pub refuse_orders: Option<super::OrderRefusal>,
    pub webhooks: Option<super::WebhookDisorder>,
}

/// A per-key request budget: at most `requests` per fixed `window`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    pub requests: u32,
    pub window: Duration,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookConfig {
    pub url: String,
    pub secret: String,
}

/// A status change to announce by webhook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusChange {
    pub order_id: String,
    pub reference: String,
    pub status: String,
    pub occurred_at: String,
}

/// What `POST /orders` decided.
#[derive(Debug, Clone)]
pub struct Placed {
    pub accepted: AcceptedOrder,
    /// False for an idempotent replay (nothing was reserved, no timer to start).
    pub created: bool,
    pub fault: Option<CommitFault>,
    pub change: Option<StatusChange>,
}

/// The next step of an order's life (driven by timers in production use, directly in tests).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// `paid` → `provisioning`.
    Provision,
    /// `provisioning` → the plan's outcome.
    Conclude,
    /// `fulfilled` → `refunded`, for orders whose outcome is `Refunded`.
    Refund,
}

/// Counters for `GET /_sandbox/stats` and [`crate::sandbox::Sandbox::stats`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Stats {
    pub orders: usize,
    /// `POST /orders` requests that reached the handler, replays included.
    pub order_requests: u64,
    /// Partner API requests received, of any kind, refused ones included (a 429 counts).
    pub api_requests: u64,
    /// Requests that arrived while a `Retry-After` the sandbox answered was still running
    /// (past [`IN_FLIGHT_GRACE`] after the 429): each one a client that did not wait.
    pub requests_inside_retry_after: u64,
    pub orders_by_reference: BTreeMap<String, usize>,
    /// References with more than one order: each one a double purchase by the client.
    pub duplicate_purchases: Vec<String>,
    pub orders_by_status: BTreeMap<String, usize>,
    pub available_cents: i64,
    pub reserved_cents: i64,
    /// Sum of the prices of orders whose status still holds a reservation.
    pub held_by_orders_cents: i128,
    pub ledger: Totals,
    /// Number of balance transactions recorded.
    pub transactions: usize,
    pub ledger_invariant_holds: bool,
    /// Order webhooks the receiver answered with 2xx (each copy of a duplicate counts).
    pub webhooks_delivered: u64,
    /// Order webhooks given up on after every retry was refused or failed.
    pub webhooks_failed: u64,
}

pub struct StateConfig {
    pub api_key: String,
    pub seed: u64,
    pub plans: usize,
    pub opening_balance_cents: i64,
    pub low_balance_threshold_cents: i64,
    pub rate_limit: Option<RateLimit>,
    pub webhook: Option<WebhookConfig>,
    pub delays: (Duration, Duration),
}

pub struct State {
    catalog: Catalog,
    plan_positions: HashMap<String, usize>,
    hidden: HashSet<String>,
    outcomes: HashMap<String, Outcome>,
    /// Outcomes for the order of one reference, ahead of its plan's.
    reference_outcomes: HashMap<String, Outcome>,
    ledger: Ledger,
    low_balance_threshold_cents: i64,
    orders: Vec<OrderRecord>,
    order_positions: HashMap<String, usize>,
    esims: HashMap<String, usize>,
    next_esim_seq: u64,
    idempotency: HashMap<(Endpoint, String), IdemEntry>,
    sessions: HashMap<String, SessionRecord>,
    keys: HashMap<String, KeyRecord>,
    pub primary_key: String,
    pub faults: Faults,
    rate_limit: Option<RateLimit>,
    rate_windows: Option<FixedWindows<String>>,
    pub webhook: Option<WebhookConfig>,
    /// (paid → provisioning, provisioning → outcome); the refund step reuses the second.
    pub delays: (Duration, Duration),
    suspended: bool,
    order_requests: u64,
    /// `GET /account` answers 503 while set (control API `POST /account`).
    pub account_fails: bool,
    /// Every Partner API request that arrived (see [`Stats::api_requests`]).
    pub api_requests: u64,
    /// Until when the last 429 told the client to wait, and since when (its answer time).
    retry_after: Option<(Instant, Instant)>,
    /// See [`Stats::requests_inside_retry_after`].
    requests_inside_retry_after: u64,
    /// Status changes held back by [`super::WebhookDisorder::Reverse`], per order, oldest first.
    withheld_webhooks: HashMap<String, Vec<StatusChange>>,
    webhooks_delivered: u64,
    webhooks_failed: u64,
}

/// Requests arriving this soon after a 429 may have been sent before the client could know
/// of it, so they do not count against [`Stats::requests_inside_retry_after`]. With several
/// replicas the 429 reaches the others through the database: one replica reads the 429, writes
/// the shared gate, and another that checked the gate a moment earlier may still be sending.
/// On a loaded two-core machine that round took 109 ms once, so the grace is 250 ms, which
/// still leaves most of a one-second window in which any request is a client that did not wait.
pub const IN_FLIGHT_GRACE: Duration = Duration::from_millis(250);

impl State {
    pub fn new(cfg: StateConfig) -> Self {
        let catalog = Catalog::generate(cfg.seed, cfg.plans);
        let plan_positions = catalog
            .plans
            .iter()
            .enumerate()
            .map(|(i, p)| (p.plan.id.clone(), i))
            .collect();
        let mut keys = HashMap::new();
        keys.insert(
            cfg.api_key.clone(),
            KeyRecord {
                scopes: Scope::ALL.to_vec(),
                expires_at: OffsetDateTime::now_utc() + time::Duration::days(365),
                environment: "sandbox".to_string(),
            },
        );
        Self {
            catalog,
            plan_positions,
            hidden: HashSet::new(),
            outcomes: HashMap::new(),
            reference_outcomes: HashMap::new(),
            ledger: Ledger::new(cfg.opening_balance_cents, &now_rfc3339()),
            low_balance_threshold_cents: cfg.low_balance_threshold_cents,
            orders: Vec::new(),
            order_positions: HashMap::new(),
            esims: HashMap::new(),
            next_esim_seq: 1,
            idempotency: HashMap::new(),
            sessions: HashMap::new(),
            keys,
            primary_key: cfg.api_key,
            faults: Faults::default(),
            rate_limit: cfg.rate_limit,
            rate_windows: None,
            webhook: cfg.webhook,
            delays: cfg.delays,
            suspended: false,
            order_requests: 0,
            account_fails: false,
            api_requests: 0,
            retry_after: None,
            requests_inside_retry_after: 0,
            withheld_webhooks: HashMap::new(),
            webhooks_delivered: 0,
            webhooks_failed: 0,
        }
    }

    // ---- keys and limits -------------------------------------------------------------

    pub fn key(&self, key: &str) -> Option<&KeyRecord> {
        self.keys.get(key)
    }

    /// Applies an [`AccountChange`](super::AccountChange) to the configured key.
    pub fn change_primary_account(&mut self, change: super::AccountChange) {
        if let Some(failing) = change.failing {
            self.account_fails = failing;
        }
        let Some(record) = self.keys.get_mut(&self.primary_key) else {
            return;
        };
        if let Some(environment) = change.environment {
            record.environment = environment;
        }
        if let Some(scopes) = change.scopes {
            record.scopes = scopes;
        }
        if let Some(expires_in) = change.key_expires_in {
            record.expires_at = OffsetDateTime::now_utc() + expires_in;
        }
    }

    pub fn add_key(&mut self, record: KeyRecord) -> String {
        let key = format!("sbx_{}", random_hex(16));
        self.keys.insert(key.clone(), record);
        key
    }

    pub fn set_rate_limit(&mut self, limit: Option<RateLimit>) {
        self.rate_limit = limit;
        self.rate_windows = limit.map(|l| FixedWindows::new(l.requests, l.window));
    }

    /// Counts one request of `key` against the configured limit.
    pub fn check_rate_limit(&mut self, key: &str, now: Instant) -> Result<(), ApiError> {
        let Some(windows) = self.rate_windows.as_mut() else {
            return Ok(());
        };
        windows.hit(key.to_string(), now).map_err(|over| {
            let remaining = over.retry_after;
            let secs = remaining.as_secs() + u64::from(remaining.subsec_nanos() > 0);
            ApiError::RateLimited {
                retry_after_secs: secs.max(1),
            }
        })
    }

    /// Counts a request arriving inside the `Retry-After` window of an earlier 429; returns,
    /// for one that is counted, how long after that 429 it came and how long before the
    /// window's end.
    pub fn note_arrival(&mut self, now: Instant) -> Option<(Duration, Duration)> {
        if let Some((answered, until)) = self.retry_after
            && now < until
            && now.duration_since(answered) > IN_FLIGHT_GRACE
        {
            self.requests_inside_retry_after += 1;
            return Some((now.duration_since(answered), until.duration_since(now)));
        }
        None
    }

    /// Remembers a 429 answered at `now` with `Retry-After: secs`; a later, longer window wins.
    pub fn note_rate_limited(&mut self, now: Instant, secs: u64) {
        let until = now + Duration::from_secs(secs);
        match self.retry_after {
            Some((_, existing)) if existing >= until => {}
            _ => self.retry_after = Some((now, until)),
        }
    }

    /// Consumes one armed 503 or 429 burst, if any (checked before authentication, like a
    /// gateway in front of the real service would).
    pub fn take_burst(&mut self) -> Result<(), ApiError> {
        if self.faults.unavailable_burst > 0 {
            self.faults.unavailable_burst -= 1;
            return Err(ApiError::Unavailable);
        }
        if self.faults.rate_limit_burst > 0 {
            self.faults.rate_limit_burst -= 1;
            return Err(ApiError::RateLimited {
                retry_after_secs: self.faults.burst_retry_after_secs,
            });
        }
        Ok(())
    }

    // ---- catalog ------------------------------------------------------------------------

    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    pub fn is_available(&self, plan_id: &str) -> bool {
        self.plan_positions.contains_key(plan_id) && !self.hidden.contains(plan_id)
    }

    pub fn plan(&self, plan_id: &str) -> Option<&Plan> {
        if self.hidden.contains(plan_id) {
            return None;
        }
        let pos = *self.plan_positions.get(plan_id)?;
        Some(&self.catalog.plans[pos].plan)
    }

    fn plan_mut(&mut self, plan_id: &str) -> Result<&mut Plan, ApiError> {
        let pos = *self
            .plan_positions
            .get(plan_id)
            .ok_or_else(|| ApiError::not_found(format!("plan {plan_id} does not exist")))?;
        Ok(&mut self.catalog.plans[pos].plan)
    }

    pub fn set_plan_price(&mut self, plan_id: &str, cents: i64) -> Result<(), ApiError> {
        if !(0..=MAX_AMOUNT_CENTS).contains(&cents) {
            return Err(ApiError::invalid(
                "priceCents must be 0 to 9007199254740991",
            ));
        }
        self.plan_mut(plan_id)?.price_cents = cents;
        Ok(())
    }

    pub fn set_plan_available(&mut self, plan_id: &str, available: bool) -> Result<(), ApiError> {
        self.plan_mut(plan_id)?;
        if available {
            self.hidden.remove(plan_id);
        } else {
            self.hidden.insert(plan_id.to_string());
        }
        Ok(())
    }

    pub fn set_plan_outcome(&mut self, plan_id: &str, outcome: Outcome) -> Result<(), ApiError> {
        self.plan_mut(plan_id)?;
        self.outcomes.insert(plan_id.to_string(), outcome);
        Ok(())
    }

    /// The order placed under `reference` (not yet placed) ends this way, whatever its plan's
    /// outcome: one order of several for the same plan can fail on its own.
    pub fn set_reference_outcome(&mut self, reference: &str, outcome: Outcome) {
        self.reference_outcomes
            .insert(reference.to_string(), outcome);
    }

    // ---- wallet -------------------------------------------------------------------------

    pub fn balance(&self) -> Balance {
        Balance {
            currency: "USD".to_string(),
            available_cents: self.ledger.available(),
            reserved_cents: self.ledger.reserved(),
            low_balance: self.ledger.available() <= self.low_balance_threshold_cents,
        }
    }

    pub fn ledger(&self) -> &Ledger {
        &self.ledger
    }

    pub fn set_balance(&mut self, available_cents: i64) -> Result<(), ApiError> {
        if available_cents.unsigned_abs() > MAX_AMOUNT_CENTS.unsigned_abs() {
            return Err(ApiError::invalid(
                "availableCents must be within ±9007199254740991",
            ));
        }
        self.ledger
            .set_available(available_cents, &now_rfc3339())
            .map_err(|e| ApiError::invalid(e.to_string()))
    }

    pub fn apply_reversal(&mut self, amount_cents: i64, reference: &str) -> Result<(), ApiError> {
        if !(1..=MAX_AMOUNT_CENTS).contains(&amount_cents) {
            return Err(ApiError::invalid(
                "amountCents must be 1 to 9007199254740991",
            ));
        }
        self.ledger
            .reverse(amount_cents, reference, &now_rfc3339())
            .map_err(|e| ApiError::invalid(e.to_string()))
    }

    pub fn set_suspended(&mut self, suspended: bool) {
        self.suspended = suspended;
    }

    /// Purchasing stops while the operator suspended it or the wallet is in deficit.
    pub fn purchasing_suspended(&self) -> bool {
        self.suspended || self.ledger.available() < 0
    }

    // ---- orders -------------------------------------------------------------------------

    pub fn note_order_request(&mut self) {
        self.order_requests += 1;
    }

    /// The atomic heart of `POST /orders`: replay, refusal, or reserve-and-create.
    pub fn place_order(&mut self, idem_key: &str, req: OrderRequest) -> Result<Placed, ApiError> {
        match self.faults.refuse_orders {
            Some(super::OrderRefusal::KeyExpired) => return Err(ApiError::KeyExpired),
            Some(super::OrderRefusal::MissingScope) => {
                return Err(ApiError::InsufficientScope("orders:write"));
            }
            Some(super::OrderRefusal::KeyReused) => return Err(ApiError::IdempotencyKeyReused),
            None => {}
        }
        let slot = (Endpoint::Orders, idem_key.to_string());
        if let Some(entry) = self.idempotency.get(&slot) {
            return match entry {
                IdemEntry::Order(previous, order_id) if *previous == req => Ok(Placed {
                    accepted: accepted(order_id),
                    created: false,
                    fault: self.take_commit_fault(),
                    change: None,
                }),
                _ => Err(ApiError::IdempotencyKeyReused),
            };
        }
        let plan = self
            .plan(&req.plan_id)
            .ok_or_else(|| ApiError::not_found(format!("plan {} is not available", req.plan_id)))?;
        let price = plan.price_cents;
        if self.purchasing_suspended() {
            return Err(ApiError::PurchasingSuspended);
        }
        if req.expected_price_cents != price {
            return Err(ApiError::PriceChanged {
                current_cents: price,
            });
        }
        let seq = u64::try_from(self.orders.len()).unwrap_or(u64::MAX) + 1;
        let id = format!("ord_{}", random_hex(8));
        let now = now_rfc3339();
        self.ledger.reserve(price, &id, &now).map_err(|e| match e {
            LedgerError::Insufficient(_) => ApiError::InsufficientBalance,
            LedgerError::OutOfRange => ApiError::InsufficientBalance,
        })?;
        let record = OrderRecord {
            seq,
            id: id.clone(),
            reference: req.reference.clone(),
            price_cents: price,
            status: "paid".to_string(),
            created_at: now.clone(),
            esim_id: None,
            esim_seq: None,
            outcome: self
                .reference_outcomes
                .get(&req.reference)
                .or_else(|| self.outcomes.get(&req.plan_id))
                .cloned()
                .unwrap_or_default(),
        };
        let change = StatusChange {
            order_id: id.clone(),
            reference: record.reference.clone(),
            status: record.status.clone(),
            occurred_at: now,
        };
        self.order_positions.insert(id.clone(), self.orders.len());
        self.orders.push(record);
        self.idempotency
            .insert(slot, IdemEntry::Order(req, id.clone()));
        Ok(Placed {
            accepted: accepted(&id),
            created: true,
            fault: self.take_commit_fault(),
            change: Some(change),
        })
    }

    fn take_commit_fault(&mut self) -> Option<CommitFault> {
        let f = &mut self.faults;
        if f.fail_after_commit > 0 {
            f.fail_after_commit -= 1;
            Some(CommitFault::Fail)
        } else if f.drop_after_commit > 0 {
            f.drop_after_commit -= 1;
            Some(CommitFault::Drop)
        } else if f.delay_after_commit > 0 {
            f.delay_after_commit -= 1;
            Some(CommitFault::Delay(f.commit_delay))
        } else {
            None
        }
    }

    pub fn order(&self, id: &str) -> Option<&OrderRecord> {
        self.order_positions.get(id).map(|&i| &self.orders[i])
    }

    pub fn orders(&self) -> &[OrderRecord] {
        &self.orders
    }

    /// Moves an order one step on; `None` when the step does not apply to its current status
    /// (a timer that fires late, or a test driving steps by hand).
    pub fn advance(&mut self, order_id: &str, step: Step) -> Option<StatusChange> {
        let pos = *self.order_positions.get(order_id)?;
        let now = now_rfc3339();
        let order = &self.orders[pos];
        let (status, price, outcome) = (
            order.status.clone(),
            order.price_cents,
            order.outcome.clone(),
        );
        let new_status = match (step, status.as_str()) {
            (Step::Provision, "paid") => "provisioning".to_string(),
            (Step::Conclude, "provisioning") => match &outcome {
                Outcome::Fulfilled | Outcome::Refunded => {
                    self.ledger.settle(price, order_id, &now).ok()?;
                    let seq = self.next_esim_seq;
                    self.next_esim_seq += 1;
                    let esim_id = format!("esim_{}", random_hex(8));
                    self.esims.insert(esim_id.clone(), pos);
                    let order = &mut self.orders[pos];
                    order.esim_id = Some(esim_id);
                    order.esim_seq = Some(seq);
                    "fulfilled".to_string()
                }
                Outcome::Failed => {
                    self.ledger.release(price, order_id, &now).ok()?;
                    "failed".to_string()
                }
                other => other.as_str().to_string(),
            },
            (Step::Refund, "fulfilled") if outcome == Outcome::Refunded => {
                self.ledger.refund(price, order_id, &now).ok()?;
                "refunded".to_string()
            }
            _ => return None,
        };
        let order = &mut self.orders[pos];
        order.status = new_status.clone();
        Some(StatusChange {
            order_id: order.id.clone(),
            reference: order.reference.clone(),
            status: new_status,
            occurred_at: now,
        })
    }

    /// The webhooks to send now for `change`, in order: itself; itself twice
    /// ([`super::WebhookDisorder::Duplicate`]); or, held back under
    /// [`super::WebhookDisorder::Reverse`], nothing until the order settles and then all its
    /// held changes newest first. Changes held when the fault is cleared still come out when
    /// their order settles.
    pub fn webhook_deliveries(&mut self, change: StatusChange) -> Vec<StatusChange> {
        let holding = self.withheld_webhooks.contains_key(&change.order_id);
        match self.faults.webhooks {
            Some(super::WebhookDisorder::Reverse) => {}
            _ if holding => {}
            Some(super::WebhookDisorder::Duplicate) => return vec![change.clone(), change],
            None => return vec![change],
        }
        // An order moves on by itself from `paid`, `provisioning`, and `fulfilled` when it is
        // to be refunded; any other status is where it stays.
        let settled = self.order(&change.order_id).is_none_or(|o| {
            let moves_on = match o.status.as_str() {
                "paid" | "provisioning" => true,
                "fulfilled" => o.outcome == Outcome::Refunded,
                _ => false,
            };
            !moves_on
        });
        let order_id = change.order_id.clone();
        let held = self.withheld_webhooks.entry(order_id.clone()).or_default();
        held.push(change);
        if !settled {
            return Vec::new();
        }
        let mut all = self.withheld_webhooks.remove(&order_id).unwrap_or_default();
        all.reverse();
        all
    }

    /// Counts one webhook delivery that ended (see [`Stats::webhooks_delivered`]).
    pub fn note_webhook(&mut self, delivered: bool) {
        if delivered {
            self.webhooks_delivered += 1;
        } else {
            self.webhooks_failed += 1;
        }
    }

    /// The order an eSIM belongs to, when that order is fulfilled or was (refunded after
    /// fulfilment keeps the issued eSIM readable).
    pub fn esim_order(&self, esim_id: &str) -> Option<&OrderRecord> {
        self.esims.get(esim_id).map(|&i| &self.orders[i])
    }

    // ---- checkout sessions ----------------------------------------------------------------

    pub fn create_topup(&mut self, idem_key: &str, req: TopupRequest) -> Result<String, ApiError> {
        let slot = (Endpoint::Topups, idem_key.to_string());
        if let Some(entry) = self.idempotency.get(&slot) {
            return match entry {
                IdemEntry::Topup(previous, id) if *previous == req => Ok(id.clone()),
                _ => Err(ApiError::IdempotencyKeyReused),
            };
        }
        let id = format!("cs_{}", random_hex(16));
        self.sessions.insert(
            id.clone(),
            SessionRecord {
                id: id.clone(),
                kind: SessionKind::Topup {
                    amount_cents: req.amount_cents,
                },
                status: SessionStatus::Open,
                order_id: None,
                last_error: None,
            },
        );
        self.idempotency
            .insert(slot, IdemEntry::Topup(req, id.clone()));
        Ok(id)
    }

    /// A customer checkout link. The plan and price are checked now (404 / 409 as for an
    /// order); the balance only when the link is paid.
    pub fn create_checkout(
        &mut self,
        idem_key: &str,
        req: CheckoutRequest,
    ) -> Result<String, ApiError> {
        let slot = (Endpoint::CheckoutSessions, idem_key.to_string());
        if let Some(entry) = self.idempotency.get(&slot) {
            return match entry {
                IdemEntry::Checkout(previous, id) if *previous == req => Ok(id.clone()),
                _ => Err(ApiError::IdempotencyKeyReused),
            };
        }
        let plan = self
            .plan(&req.plan_id)
            .ok_or_else(|| ApiError::not_found(format!("plan {} is not available", req.plan_id)))?;
        if plan.price_cents != req.expected_price_cents {
            return Err(ApiError::PriceChanged {
                current_cents: plan.price_cents,
            });
        }
        let id = format!("cs_{}", random_hex(16));
        self.sessions.insert(
            id.clone(),
            SessionRecord {
                id: id.clone(),
                kind: SessionKind::Order {
                    request: OrderRequest {
                        plan_id: req.plan_id.clone(),
                        expected_price_cents: req.expected_price_cents,
                        reference: req.reference.clone(),
                    },
                    email: req.email.clone(),
                },
                status: SessionStatus::Open,
                order_id: None,
                last_error: None,
            },
        );
        self.idempotency
            .insert(slot, IdemEntry::Checkout(req, id.clone()));
        Ok(id)
    }

    pub fn session(&self, id: &str) -> Option<&SessionRecord> {
        self.sessions.get(id)
    }

    /// Pays a session once: a top-up credits the wallet; an order session places the order
    /// through [`State::place_order`] (key `checkout:<session id>`), reserving wallet credit
    /// exactly like `POST /orders`. Paying again changes nothing.
    pub fn pay_session(&mut self, id: &str) -> Result<(SessionRecord, Option<Placed>), ApiError> {
        let session = self
            .sessions
            .get(id)
            .cloned()
            .ok_or_else(|| ApiError::not_found("no such checkout session"))?;
        if session.status != SessionStatus::Open {
            return Ok((session, None));
        }
        let mut placed = None;
        let mut updated = session.clone();
        match &session.kind {
            SessionKind::Topup { amount_cents } => {
                self.ledger
                    .credit(*amount_cents, id, &now_rfc3339())
                    .map_err(|e| ApiError::invalid(e.to_string()))?;
                updated.status = SessionStatus::Paid;
            }
            SessionKind::Order { request, .. } => {
                match self.place_order(&format!("checkout:{id}"), request.clone()) {
                    Ok(p) => {
                        updated.status = SessionStatus::Paid;
                        updated.order_id = Some(p.accepted.order_id.clone());
                        // A hosted page is not `POST /orders`: its faults do not apply here.
                        placed = Some(Placed { fault: None, ..p });
                        updated.last_error = None;
                    }
                    Err(e) => updated.last_error = Some(format!("{}: {e}", e.code())),
                }
            }
        }
        self.sessions.insert(id.to_string(), updated.clone());
        Ok((updated, placed))
    }

    pub fn cancel_session(&mut self, id: &str) -> Result<SessionRecord, ApiError> {
        let session = self
            .sessions
            .get_mut(id)
            .ok_or_else(|| ApiError::not_found("no such checkout session"))?;
        if session.status == SessionStatus::Open {
            session.status = SessionStatus::Cancelled;
        }
        Ok(session.clone())
    }

    // ---- stats --------------------------------------------------------------------------

    pub fn held_by_orders(&self) -> i128 {
        self.orders
            .iter()
            .filter(|o| holds_funds(&o.status))
            .map(|o| i128::from(o.price_cents))
            .sum()
    }

    pub fn stats(&self) -> Stats {
        let mut by_reference: BTreeMap<String, usize> = BTreeMap::new();
        let mut by_status: BTreeMap<String, usize> = BTreeMap::new();
        for o in &self.orders {
            *by_reference.entry(o.reference.clone()).or_default() += 1;
            *by_status.entry(o.status.clone()).or_default() += 1;
        }
        let duplicates = by_reference
            .iter()
            .filter(|(_, n)| **n > 1)
            .map(|(r, _)| r.clone())
            .collect();
        let held = self.held_by_orders();
        Stats {
            orders: self.orders.len(),
            order_requests: self.order_requests,
            api_requests: self.api_requests,
            requests_inside_retry_after: self.requests_inside_retry_after,
            orders_by_reference: by_reference,
            duplicate_purchases: duplicates,
            orders_by_status: by_status,
            available_cents: self.ledger.available(),
            reserved_cents: self.ledger.reserved(),
            held_by_orders_cents: held,
            ledger: self.ledger.totals(),
            transactions: self.ledger.transactions().len(),
            ledger_invariant_holds: self.ledger.invariant_holds()
                && held == i128::from(self.ledger.reserved()),
            webhooks_delivered: self.webhooks_delivered,
            webhooks_failed: self.webhooks_failed,
        }
    }
}

fn accepted(order_id: &str) -> AcceptedOrder {
    AcceptedOrder {
        order_id: order_id.to_string(),
        status_url: format!("/api/v1/orders/{order_id}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn state(opening: i64) -> State {
        State::new(StateConfig {
            api_key: "k".to_string(),
            seed: 3,
            plans: 40,
            opening_balance_cents: opening,
            low_balance_threshold_cents: 0,
            rate_limit: None,
            webhook: None,
            delays: (Duration::ZERO, Duration::ZERO),
        })
    }

    #[derive(Debug, Clone)]
    enum Op {
        Order { plan: usize, outcome: u8 },
        Replay { order: usize },
        Advance { order: usize, step: u8 },
        Topup { amount: i64, pay: bool },
        Reversal { amount: i64 },
        SetBalance { amount: i64 },
        Price { plan: usize, cents: i64 },
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => (0usize..40, 0u8..5).prop_map(|(plan, outcome)| Op::Order { plan, outcome }),
            1 => (0usize..50).prop_map(|order| Op::Replay { order }),
            5 => (0usize..50, 0u8..3).prop_map(|(order, step)| Op::Advance { order, step }),
            1 => (1000i64..=100_000, any::<bool>()).prop_map(|(amount, pay)| Op::Topup { amount, pay }),
            1 => (1i64..20_000).prop_map(|amount| Op::Reversal { amount }),
            1 => (-5_000i64..60_000).prop_map(|amount| Op::SetBalance { amount }),
            1 => (0usize..40, 0i64..5_000).prop_map(|(plan, cents)| Op::Price { plan, cents }),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// Whatever happens, money is neither created nor lost, and reserved credit is exactly
        /// what unfinished orders hold.
        #[test]
        fn the_ledger_invariant_always_holds(opening in 0i64..50_000, ops in proptest::collection::vec(op(), 1..80)) {
            let mut s = state(opening);
            let plan_ids: Vec<String> = s.catalog().plans.iter().map(|p| p.plan.id.clone()).collect();
            let mut requests: Vec<(String, OrderRequest)> = Vec::new();
            for (n, op) in ops.into_iter().enumerate() {
                match op {
                    Op::Order { plan, outcome } => {
                        let id = &plan_ids[plan];
                        let outcome = ["fulfilled", "failed", "pending_review", "refunded", "on_hold"][usize::from(outcome)];
                        s.set_plan_outcome(id, Outcome::parse(outcome).expect("valid"))
                            .expect("exists");
                        let price = s.plan(id).map(|p| p.price_cents).unwrap_or(0);
                        let req = OrderRequest { plan_id: id.clone(), expected_price_cents: price, reference: format!("r{n}") };
                        let key = format!("key-{n:06}");
                        let before = s.orders().len();
                        match s.place_order(&key, req.clone()) {
                            Ok(p) => {
                                prop_assert!(p.created);
                                prop_assert_eq!(s.orders().len(), before + 1);
                                requests.push((key, req));
                            }
                            Err(e) => {
                                prop_assert!(matches!(e, ApiError::InsufficientBalance | ApiError::PurchasingSuspended), "{e:?}");
                                prop_assert_eq!(s.orders().len(), before);
                            }
                        }
                    }
                    Op::Replay { order } => {
                        if let Some((key, req)) = requests.get(order).cloned() {
                            let before = (s.orders().len(), s.ledger().transactions().len());
                            let p = s.place_order(&key, req).expect("a replay is accepted");
                            prop_assert!(!p.created);
                            prop_assert_eq!(before, (s.orders().len(), s.ledger().transactions().len()));
                        }
                    }
                    Op::Advance { order, step } => {
                        if let Some(id) = s.orders().get(order).map(|o| o.id.clone()) {
                            let step = [Step::Provision, Step::Conclude, Step::Refund][usize::from(step)];
                            s.advance(&id, step);
                        }
                    }
                    Op::Topup { amount, pay } => {
                        let id = s.create_topup(&format!("top-{n:06}"), TopupRequest { amount_cents: amount }).expect("valid");
                        if pay {
                            s.pay_session(&id).expect("exists");
                            s.pay_session(&id).expect("exists");
                        }
                    }
                    Op::Reversal { amount } => s.apply_reversal(amount, "rev").expect("valid"),
                    Op::SetBalance { amount } => s.set_balance(amount).expect("valid"),
                    Op::Price { plan, cents } => s.set_plan_price(&plan_ids[plan], cents).expect("valid"),
                }
                let stats = s.stats();
                prop_assert!(stats.ledger_invariant_holds, "{stats:?}");
                prop_assert!(stats.reserved_cents >= 0);
                prop_assert!(stats.duplicate_purchases.is_empty());
            }
        }
    }

    #[test]
    fn an_order_walks_paid_provisioning_fulfilled_and_steps_out_of_order_do_nothing() {
        let mut s = state(100_000);
        let plan = s
            .catalog()
            .plans
            .iter()
            .find(|p| p.plan.price_cents > 0 && p.plan.price_cents < 100_000)
            .map(|p| p.plan.clone())
            .expect("a cheap plan");
        let placed = s
            .place_order(
                "key-000001",
                OrderRequest {
                    plan_id: plan.id.clone(),
                    expected_price_cents: plan.price_cents,
                    reference: "r".to_string(),
                },
            )
            .expect("accepted");
        let id = placed.accepted.order_id;
        assert_eq!(s.order(&id).map(|o| o.status.as_str()), Some("paid"));
        assert!(s.advance(&id, Step::Conclude).is_none());
        assert!(s.advance(&id, Step::Refund).is_none());
        assert_eq!(
            s.advance(&id, Step::Provision).map(|c| c.status),
            Some("provisioning".to_string())
        );
        assert_eq!(
            s.advance(&id, Step::Conclude).map(|c| c.status),
            Some("fulfilled".to_string())
        );
        assert!(
            s.advance(&id, Step::Refund).is_none(),
            "a plain fulfilment is final"
        );
        assert_eq!(s.balance().reserved_cents, 0);
        assert_eq!(s.balance().available_cents, 100_000 - plan.price_cents);
    }

    #[test]
    fn requests_inside_a_retry_after_window_are_counted_after_the_grace() {
        let mut s = state(0);
        let t0 = Instant::now();
        s.note_arrival(t0);
        s.note_rate_limited(t0, 2);
        s.note_arrival(t0 + Duration::from_millis(50)); // in flight when the 429 left
        assert_eq!(s.stats().requests_inside_retry_after, 0);
        s.note_arrival(t0 + Duration::from_millis(500));
        s.note_arrival(t0 + Duration::from_millis(1900));
        assert_eq!(s.stats().requests_inside_retry_after, 2);
        s.note_arrival(t0 + Duration::from_millis(2100));
        // A shorter 429 later does not shorten the window.
        s.note_rate_limited(t0 + Duration::from_millis(600), 0);
        assert_eq!(s.stats().requests_inside_retry_after, 2);
    }

    #[test]
    fn rate_limit_window_counts_and_resets() {
        let mut s = state(0);
        s.set_rate_limit(Some(RateLimit {
            requests: 2,
            window: Duration::from_secs(10),
        }));
        let t0 = Instant::now();
        assert!(s.check_rate_limit("a", t0).is_ok());
        assert!(s.check_rate_limit("a", t0).is_ok());
        assert_eq!(
            s.check_rate_limit("a", t0 + Duration::from_millis(2500)),
            Err(ApiError::RateLimited {
                retry_after_secs: 8
            })
        );
        assert!(s.check_rate_limit("b", t0).is_ok());
        assert!(
            s.check_rate_limit("a", t0 + Duration::from_secs(10))
                .is_ok()
        );
    }

    fn placed_order(s: &mut State, outcome: Outcome) -> String {
        let plan = s
            .catalog()
            .plans
            .iter()
            .find(|p| p.plan.price_cents > 0 && p.plan.price_cents < 10_000)
            .map(|p| p.plan.clone())
            .expect("a cheap plan");
        s.set_plan_outcome(&plan.id, outcome).expect("exists");
        let n = s.orders().len();
        s.place_order(
            &format!("key-{n:06}"),
            OrderRequest {
                plan_id: plan.id,
                expected_price_cents: plan.price_cents,
                reference: format!("r{n}"),
            },
        )
        .expect("accepted")
        .accepted
        .order_id
    }

    /// The statuses `announce` would send for an order's whole life, in wire order.
    fn announced(s: &mut State, order_id: &str) -> Vec<String> {
        let paid = StatusChange {
            order_id: order_id.to_string(),
            reference: String::new(),
            status: "paid".to_string(),
            occurred_at: String::new(),
        };
        let mut sent: Vec<String> = s
            .webhook_deliveries(paid)
            .into_iter()
            .map(|c| c.status)
            .collect();
        for step in [Step::Provision, Step::Conclude, Step::Refund] {
            if let Some(change) = s.advance(order_id, step) {
                sent.extend(s.webhook_deliveries(change).into_iter().map(|c| c.status));
            }
        }
        sent
    }

    #[test]
    fn webhook_disorder_duplicates_or_reverses_an_orders_events() {
        let mut s = state(100_000);
        let plain = placed_order(&mut s, Outcome::Fulfilled);
        assert_eq!(
            announced(&mut s, &plain),
            ["paid", "provisioning", "fulfilled"]
        );

        s.faults.webhooks = Some(crate::sandbox::WebhookDisorder::Duplicate);
        let twice = placed_order(&mut s, Outcome::Failed);
        assert_eq!(
            announced(&mut s, &twice),
            [
                "paid",
                "paid",
                "provisioning",
                "provisioning",
                "failed",
                "failed"
            ]
        );

        s.faults.webhooks = Some(crate::sandbox::WebhookDisorder::Reverse);
        let reversed = placed_order(&mut s, Outcome::Fulfilled);
        assert_eq!(
            announced(&mut s, &reversed),
            ["fulfilled", "provisioning", "paid"]
        );
        // An order refunded after fulfilment settles only at `refunded`.
        let refunded = placed_order(&mut s, Outcome::Refunded);
        assert_eq!(
            announced(&mut s, &refunded),
            ["refunded", "fulfilled", "provisioning", "paid"]
        );

        // Cleared midway: what was held still comes out, reversed, when the order settles.
        let paid = placed_order(&mut s, Outcome::Fulfilled);
        let change = StatusChange {
            order_id: paid.clone(),
            reference: String::new(),
            status: "paid".to_string(),
            occurred_at: String::new(),
        };
        assert!(s.webhook_deliveries(change).is_empty());
        s.faults.webhooks = None;
        let provisioning = s.advance(&paid, Step::Provision).expect("moves");
        assert!(s.webhook_deliveries(provisioning).is_empty());
        let done = s.advance(&paid, Step::Conclude).expect("moves");
        let sent: Vec<String> = s
            .webhook_deliveries(done)
            .into_iter()
            .map(|c| c.status)
            .collect();
        assert_eq!(sent, ["fulfilled", "provisioning", "paid"]);
        assert!(s.stats().ledger_invariant_holds);
    }

    #[test]
    fn outcome_parsing() {
        assert_eq!(Outcome::parse("failed"), Ok(Outcome::Failed));
        assert_eq!(
            Outcome::parse("on_hold"),
            Ok(Outcome::Other("on_hold".to_string()))
        );
        assert!(Outcome::parse("").is_err());
        assert!(Outcome::parse("On Hold").is_err());
    }
}
