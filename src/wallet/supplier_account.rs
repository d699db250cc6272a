//! The supplier account (`GET /account`): which environment the API key belongs to, what it may
//! do and until when, and whether sales may go ahead with this shop's payment settings.
//!
//! Pairs the shop does not sell with: demo payments with a `production` account (real eSIMs
//! bought for orders nobody paid for); Stripe test keys with a `production` account (the same
//! harm: anyone pays with Stripe's public test card, and the signed test-mode webhook is
//! genuine; allowed for a supervised pre-launch check by
//! `STOREFRONT_ALLOW_STRIPE_TEST_KEYS_WITH_PRODUCTION`); demo payments or Stripe test keys with
//! an environment the shop does not recognise (it may be a production one under another name;
//! allowed for the one environment named in `STOREFRONT_ALLOW_TEST_PAYMENTS_WITH_ENVIRONMENT`);
//! and live Stripe keys with a `sandbox` account (real money taken for eSIMs that cannot be
//! installed; allowed for a staging shop by `STOREFRONT_ALLOW_LIVE_PAYMENTS_WITH_SANDBOX`). At
//! start such a pair stops the shop. Checkout
//! also waits until this process has read the account once: a stored row from earlier says
//! nothing about a key that may have changed since. When the account only becomes known later
//! (the upstream was down at start), or changes while the shop runs, an unsafe pair cannot stop
//! a serving process cleanly: checkout is refused and the owners are alerted instead.
//!
//! Every read is stored in one row that all replicas share (the console shows it); each
//! process keeps its own verdict in memory, rebuilt by its own read at start.

use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use sha2::{Digest, Sha256};
use time::OffsetDateTime;
use time::format_description::well_known::{Iso8601, Rfc2822, Rfc3339};
use tokio::sync::watch;

use crate::config::{Payments, Settings};
use crate::db::supplier_account::AccountRow;
use crate::db::{self, Db, DbError};
use crate::domain::AlertKind;
use crate::upstream::{Environment, PartnerAccount, PartnerClient};

/// Scopes the shop cannot sell without: catalog sync, the wallet guard and this check, orders
/// and their tracking, installations.
pub const REQUIRED_SCOPES: [&str; 5] = [
    "catalog:read",
    "balance:read",
    "orders:write",
    "orders:read",
    "esims:install",
];
/// Only the console's top-ups need it.
pub const TOPUP_SCOPE: &str = "balance:write";
/// A key expiring within this many days is warned about.
pub const EXPIRY_WARNING_DAYS: i64 = 14;
/// `alerts.kind` raised while checkout is refused for an unsafe pair.
pub const UNSAFE_ALERT: AlertKind = AlertKind::UnsafeAccount;

/// The start-up read gives up after this long; the shop then starts and keeps trying.
const START_TIMEOUT: Duration = Duration::from_secs(10);
/// Re-reads while the account is unknown back off from this...
const RETRY_FIRST: Duration = Duration::from_secs(1);
/// ...to this.
const RETRY_CAP: Duration = Duration::from_secs(30);
const DAY_MS: i64 = 86_400_000;

/// How consumers pay, as far as the pairing rule cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PaymentMode {
    Demo,
    StripeTest,
    StripeLive,
}

/// The settings this process sells with.
#[derive(Debug, Clone)]
pub struct Policy {
    pub payments: PaymentMode,
    pub allow_live_with_sandbox: bool,
    /// `STOREFRONT_ALLOW_STRIPE_TEST_KEYS_WITH_PRODUCTION`.
    pub allow_test_keys_with_production: bool,
    /// `STOREFRONT_ALLOW_TEST_PAYMENTS_WITH_ENVIRONMENT`: an unfamiliar environment the
    /// operator vouches buys nothing real.
    pub test_payments_environment: Option<String>,
    /// `STOREFRONT_UPSTREAM_WEBHOOK_TOKEN` is set: the shop expects upstream webhooks.
    pub webhook_token_set: bool,
    /// Which key reads the account: a hash of the base URL and the API key (never the key).
    pub key_fingerprint: String,
}

impl Policy {
    pub fn from_settings(settings: &Settings) -> Self {
        let payments = match &settings.payments {
            Payments::Demo => PaymentMode::Demo,
            Payments::Stripe(stripe) if stripe.is_live() => PaymentMode::StripeLive,
            Payments::Stripe(_) => PaymentMode::StripeTest,
        };
        let mut hash = Sha256::new();
        hash.update(settings.upstream.base_url.as_str().as_bytes());
        hash.update(b"\n");
        hash.update(settings.upstream.api_key.expose().as_bytes());
        let digest = hex::encode(hash.finalize());
        Self {
            payments,
            allow_live_with_sandbox: settings.allow_live_payments_with_sandbox,
            allow_test_keys_with_production: settings.allow_stripe_test_keys_with_production,
            test_payments_environment: settings.test_payments_environment.clone(),
            webhook_token_set: settings.upstream.webhook_token.is_some(),
            key_fingerprint: digest.get(..32).unwrap_or(&digest).to_string(),
        }
    }
}

/// A pair of payment settings and supplier environment the shop does not sell with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum UnsafePair {
    #[error("{}: {}", self.var(), self.problem())]
    DemoWithProduction,
    #[error("{}: {}", self.var(), self.problem())]
    LiveWithSandbox,
    #[error("{}: {}", self.var(), self.problem())]
    TestKeysWithProduction,
    #[error("{}: {}", self.var(), self.problem())]
    DemoWithUnknownEnvironment,
    #[error("{}: {}", self.var(), self.problem())]
    TestKeysWithUnknownEnvironment,
}

impl UnsafePair {
    /// The setting to change, named as the operator sets it.
    pub fn var(self) -> &'static str {
        match self {
            Self::DemoWithProduction | Self::DemoWithUnknownEnvironment => "STOREFRONT_PAYMENTS",
            Self::LiveWithSandbox
            | Self::TestKeysWithProduction
            | Self::TestKeysWithUnknownEnvironment => "STOREFRONT_STRIPE_SECRET_KEY",
        }
    }

    pub fn problem(self) -> &'static str {
        match self {
            Self::DemoWithProduction => {
                "demo payments cannot be used with a production upstream account \
                 (STOREFRONT_UPSTREAM_API_KEY): every order would buy a real eSIM that nobody \
                 paid for; use STOREFRONT_PAYMENTS=stripe, or a sandbox upstream key"
            }
            Self::LiveWithSandbox => {
                "a live Stripe key cannot be used with a sandbox upstream account \
                 (STOREFRONT_UPSTREAM_API_KEY): customers would pay real money for eSIMs that \
                 cannot be installed; use a test key (sk_test_…), a production upstream key, or \
                 STOREFRONT_ALLOW_LIVE_PAYMENTS_WITH_SANDBOX=true for a staging shop"
            }
            Self::TestKeysWithProduction => {
                "a Stripe test key (sk_test_…, rk_test_…) cannot be used with a production \
                 upstream account (STOREFRONT_UPSTREAM_API_KEY): anyone can pay with Stripe's \
                 public test cards, and every such order would buy a real eSIM; use a live key, \
                 a sandbox upstream key, or STOREFRONT_ALLOW_STRIPE_TEST_KEYS_WITH_PRODUCTION=true \
                 for a supervised pre-launch check"
            }
            Self::DemoWithUnknownEnvironment => {
                "demo payments cannot be used with an upstream account whose environment is \
                 neither sandbox nor production (STOREFRONT_UPSTREAM_API_KEY): it may buy real \
                 eSIMs that nobody paid for; use a sandbox upstream key, or name that \
                 environment in STOREFRONT_ALLOW_TEST_PAYMENTS_WITH_ENVIRONMENT if it buys \
                 nothing real"
            }
            Self::TestKeysWithUnknownEnvironment => {
                "a Stripe test key (sk_test_…, rk_test_…) cannot be used with an upstream \
                 account whose environment is neither sandbox nor production \
                 (STOREFRONT_UPSTREAM_API_KEY): it may buy real eSIMs that nobody paid for; use \
                 a sandbox upstream key, or name that environment in \
                 STOREFRONT_ALLOW_TEST_PAYMENTS_WITH_ENVIRONMENT if it buys nothing real"
            }
        }
    }
}

/// The pairing rule. Payments that take no real money (demo, Stripe test keys) are sold only
/// with a `sandbox` account, or with the one unfamiliar environment the operator named; live
/// Stripe keys not with a `sandbox` account. Each refusal but demo with `production` has an
/// override that names its risk.
pub fn unsafe_pair(policy: &Policy, environment: &Environment) -> Option<UnsafePair> {
    let vouched = |name: &str| policy.test_payments_environment.as_deref() == Some(name);
    match (policy.payments, environment) {
        (PaymentMode::Demo, Environment::Production) => Some(UnsafePair::DemoWithProduction),
        (PaymentMode::StripeTest, Environment::Production)
            if !policy.allow_test_keys_with_production =>
        {
            Some(UnsafePair::TestKeysWithProduction)
        }
        (PaymentMode::Demo, Environment::Other(name)) if !vouched(name) => {
            Some(UnsafePair::DemoWithUnknownEnvironment)
        }
        (PaymentMode::StripeTest, Environment::Other(name)) if !vouched(name) => {
            Some(UnsafePair::TestKeysWithUnknownEnvironment)
        }
        (PaymentMode::StripeLive, Environment::Sandbox) if !policy.allow_live_with_sandbox => {
            Some(UnsafePair::LiveWithSandbox)
        }
        _ => None,
    }
}

/// What one read of the account came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checked {
    Safe,
    Unsafe(UnsafePair),
    /// Upstream did not answer with an account (logged and recorded).
    Unreadable,
}

/// Why checkout is refused before anything is asked of the consumer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SalesHeld {
    #[error("the supplier account has not been read since the shop started")]
    AccountUnknown,
    #[error("the supplier account does not match the payment settings: {0}")]
    UnsafePair(UnsafePair),
}

/// What `GET /account` said, as the shop keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountFacts {
    pub id: String,
    pub name: String,
    pub email: String,
    pub environment: Environment,
    pub scopes: Vec<String>,
    /// Verbatim: the spec does not give its format.
    pub key_expires_at: String,
    /// `None` when `key_expires_at` could not be read as a time ("unknown expiry").
    pub key_expires_at_ms: Option<i64>,
    pub webhook_enabled: bool,
    pub checked_at_ms: i64,
}

impl AccountFacts {
    pub fn from_wire(account: PartnerAccount, now_ms: i64) -> Self {
        Self {
            key_expires_at_ms: parse_timestamp_ms(&account.key_expires_at),
            id: account.id,
            name: account.name,
            email: account.email,
            environment: account.environment,
            scopes: account.scopes,
            key_expires_at: account.key_expires_at,
            webhook_enabled: account.webhook_enabled,
            checked_at_ms: now_ms,
        }
    }

    fn from_row(row: AccountRow) -> Self {
        Self {
            id: row.account_id,
            name: row.name,
            email: row.email,
            environment: Environment::parse(&row.environment),
            scopes: row.scopes.split_whitespace().map(str::to_string).collect(),
            key_expires_at: row.key_expires_at,
            key_expires_at_ms: row.key_expires_at_ms,
            webhook_enabled: row.webhook_enabled,
            checked_at_ms: row.checked_at_ms,
        }
    }

    fn to_row(&self, key_fingerprint: &str) -> AccountRow {
        AccountRow {
            id: 1,
            key_fingerprint: key_fingerprint.to_string(),
            account_id: self.id.clone(),
            name: self.name.clone(),
            email: self.email.clone(),
            environment: self.environment.as_str().to_string(),
            scopes: self.scopes.join(" "),
            key_expires_at: self.key_expires_at.clone(),
            key_expires_at_ms: self.key_expires_at_ms,
            webhook_enabled: self.webhook_enabled,
            checked_at_ms: self.checked_at_ms,
            attempted_at_ms: self.checked_at_ms,
            last_error: None,
        }
    }

    fn has(&self, scope: &str) -> bool {
        self.scopes.iter().any(|s| s == scope)
    }

    /// Scopes the shop needs to sell that the key lacks.
    pub fn missing_scopes(&self) -> Vec<&'static str> {
        REQUIRED_SCOPES
            .into_iter()
            .filter(|s| !self.has(s))
            .collect()
    }

    /// The facts' warnings at `now_ms`, most serious first.
    pub fn warnings(&self, policy: &Policy, now_ms: i64) -> Vec<Warning> {
        let mut out = Vec::new();
        match self.key_expires_at_ms {
            Some(at) if at <= now_ms => out.push(Warning::danger(format!(
                "The upstream API key expired on {}. Every upstream call will fail: ask your \
                 supplier for a new key and set STOREFRONT_UPSTREAM_API_KEY.",
                format_date(at)
            ))),
            Some(at) if at - now_ms <= EXPIRY_WARNING_DAYS * DAY_MS => {
                let days = (at - now_ms) / DAY_MS;
                out.push(Warning::warn(format!(
                    "The upstream API key expires on {} ({}). Ask your supplier for a new key \
                     before then.",
                    format_date(at),
                    match days {
                        0 => "within a day".to_string(),
                        1 => "in 1 day".to_string(),
                        n => format!("in {n} days"),
                    }
                )));
            }
            Some(_) => {}
            None => out.push(Warning::notice(format!(
                "The upstream API key has an unknown expiry: upstream reported {:?}, which is not \
                 a time the shop can read.",
                self.key_expires_at
            ))),
        }
        let missing = self.missing_scopes();
        if !missing.is_empty() {
            out.push(Warning::danger(format!(
                "The upstream API key lacks the scope{} {} that the shop needs to sell: those \
                 calls will be refused.",
                if missing.len() == 1 { "" } else { "s" },
                missing.join(", ")
            )));
        }
        if !self.has(TOPUP_SCOPE) {
            out.push(Warning::notice(format!(
                "The upstream API key lacks the scope {TOPUP_SCOPE}: wallet top-ups from the \
                 console will be refused (sales are not affected)."
            )));
        }
        if let Environment::Other(name) = &self.environment {
            out.push(Warning::warn(format!(
                "The upstream account reports the unfamiliar environment {name:?} (expected \
                 sandbox or production)."
            )));
        }
        if policy.webhook_token_set && !self.webhook_enabled {
            out.push(Warning::warn(
                "STOREFRONT_UPSTREAM_WEBHOOK_TOKEN is set, but the upstream account has \
                 webhooks turned off: order progress is seen by polling only."
                    .to_string(),
            ));
        }
        out
    }
}

/// How serious a console warning is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Danger,
    Warn,
    Notice,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Danger => "danger",
            Self::Warn => "warn",
            Self::Notice => "notice",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    pub level: Level,
    pub text: String,
}

impl Warning {
    fn danger(text: String) -> Self {
        Self {
            level: Level::Danger,
            text,
        }
    }
    fn warn(text: String) -> Self {
        Self {
            level: Level::Warn,
            text,
        }
    }
    fn notice(text: String) -> Self {
        Self {
            level: Level::Notice,
            text,
        }
    }
}

/// What the console shows about the supplier account.
#[derive(Debug, Clone)]
pub struct Overview {
    /// The stored account, when it was read with the key this process uses.
    pub facts: Option<AccountFacts>,
    /// The latest attempt failed at this time, with this reason (the facts are older).
    pub failed: Option<(i64, String)>,
    pub warnings: Vec<Warning>,
}

/// The account facts `/readyz` reports: this process's own last read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Readiness {
    pub environment: Option<String>,
    pub key_expires_at: Option<String>,
    pub missing_scopes: Vec<&'static str>,
    pub last_checked_ms: Option<i64>,
    pub checkout: Result<(), SalesHeld>,
}

#[derive(Debug, Default)]
struct Gate {
    /// This process's latest successful read and its verdict.
    known: Option<(AccountFacts, Option<UnsafePair>)>,
    /// The latest attempt failed: when and why.
    failed: Option<(i64, String)>,
}

/// The supplier account of one process: its reads, its verdict, its watch loop.
pub struct SupplierAccount {
    db: Db,
    upstream: PartnerClient,
    policy: Policy,
    gate: RwLock<Gate>,
}

impl std::fmt::Debug for SupplierAccount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SupplierAccount")
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

impl SupplierAccount {
    pub fn new(db: Db, upstream: PartnerClient, policy: Policy) -> Self {
        Self {
            db,
            upstream,
            policy,
            gate: RwLock::new(Gate::default()),
        }
    }

    fn read_gate<R>(&self, f: impl FnOnce(&Gate) -> R) -> R {
        f(&self.gate.read().unwrap_or_else(PoisonError::into_inner))
    }

    fn write_gate<R>(&self, f: impl FnOnce(&mut Gate) -> R) -> R {
        f(&mut self.gate.write().unwrap_or_else(PoisonError::into_inner))
    }

    /// The start-up read. An unsafe pair is returned (the caller stops); an upstream that
    /// cannot be read in time is not an error: the shop starts with checkout held.
    pub async fn check_at_start(&self) -> Result<(), UnsafePair> {
        match tokio::time::timeout(START_TIMEOUT, self.check()).await {
            Ok(Checked::Unsafe(pair)) => Err(pair),
            Ok(Checked::Safe) => Ok(()),
            Ok(Checked::Unreadable) => {
                tracing::warn!("checkout is held until the supplier account can be read");
                Ok(())
            }
            Err(_) => {
                let reason = "no answer within 10 s";
                self.record_failure(reason.to_string()).await;
                tracing::warn!(
                    error = reason,
                    "the supplier account could not be read at start; checkout is held until it is"
                );
                Ok(())
            }
        }
    }

    /// One read of `GET /account`: stored for every replica, and this process's verdict
    /// updated. A failure is logged and recorded here.
    pub async fn check(&self) -> Checked {
        let account = match self.upstream.account().await {
            Ok(account) => account,
            Err(err) => {
                tracing::warn!(error = %err, "the supplier account could not be read");
                self.record_failure(err.to_string()).await;
                return Checked::Unreadable;
            }
        };
        let facts = AccountFacts::from_wire(account, db::now_ms());
        let verdict = unsafe_pair(&self.policy, &facts.environment);
        let row = facts.to_row(&self.policy.key_fingerprint);
        if let Err(err) = self
            .db
            .run(move |conn| db::supplier_account::store(conn, &row))
            .await
        {
            tracing::warn!(error = %err, "could not store the supplier account");
        }
        let missing = facts.missing_scopes();
        if !missing.is_empty() {
            tracing::warn!(upstream.missing_scopes = ?missing, "the upstream API key lacks scopes the shop needs");
        }
        self.write_gate(|gate| {
            gate.known = Some((facts, verdict));
            gate.failed = None;
        });
        match verdict {
            Some(pair) => Checked::Unsafe(pair),
            None => Checked::Safe,
        }
    }

    async fn record_failure(&self, reason: String) {
        let now = db::now_ms();
        self.write_gate(|gate| gate.failed = Some((now, reason.clone())));
        let fingerprint = self.policy.key_fingerprint.clone();
        if let Err(err) = self
            .db
            .run(move |conn| db::supplier_account::record_failure(conn, &fingerprint, &reason, now))
            .await
        {
            tracing::warn!(error = %err, "could not record the failed supplier account read");
        }
    }

    /// A read as the watch loop makes it: an unsafe pair found while serving is logged and
    /// raised as an owner alert (checkout already refuses); a safe one resolves that alert.
    pub async fn check_and_alert(&self) {
        let result = match self.check().await {
            Checked::Unreadable => return,
            Checked::Unsafe(pair) => {
                tracing::error!(
                    setting = pair.var(),
                    "{pair}; checkout is refused until the settings change and the shop restarts"
                );
                let message = format!(
                    "Checkout is refused: the supplier account does not match the payment \
                     settings. {pair}"
                );
                self.db
                    .run(move |conn| raise_unsafe_alert(conn, &message, db::now_ms()))
                    .await
            }
            Checked::Safe => {
                self.db
                    .run(|conn| {
                        crate::db::alerts::resolve_shop_alerts(conn, UNSAFE_ALERT, db::now_ms())
                            .map(|_| ())
                    })
                    .await
            }
        };
        if let Err(err) = result {
            tracing::warn!(error = %err, "could not update the supplier account alert");
        }
    }

    /// Whether this process may start a sale now.
    pub fn sales_allowed(&self) -> Result<(), SalesHeld> {
        self.read_gate(|gate| match &gate.known {
            None => Err(SalesHeld::AccountUnknown),
            Some((_, Some(pair))) => Err(SalesHeld::UnsafePair(*pair)),
            Some((_, None)) => Ok(()),
        })
    }

    fn is_known(&self) -> bool {
        self.read_gate(|gate| gate.known.is_some())
    }

    /// This process's own facts, for `/readyz` (no database, no upstream call).
    pub fn readiness(&self) -> Readiness {
        let checkout = self.sales_allowed();
        self.read_gate(|gate| match &gate.known {
            None => Readiness {
                environment: None,
                key_expires_at: None,
                missing_scopes: Vec::new(),
                last_checked_ms: None,
                checkout,
            },
            Some((facts, _)) => Readiness {
                environment: Some(facts.environment.as_str().to_string()),
                key_expires_at: Some(facts.key_expires_at.clone()),
                missing_scopes: facts.missing_scopes(),
                last_checked_ms: Some(facts.checked_at_ms),
                checkout,
            },
        })
    }

    /// The stored account (shared by the replicas) with its warnings, and this process's own
    /// refusal when it holds checkout.
    pub async fn overview(&self) -> Result<Overview, DbError> {
        let row = self.db.run(db::supplier_account::get).await?;
        let now = db::now_ms();
        let mine = row.filter(|r| r.key_fingerprint == self.policy.key_fingerprint);
        let mut warnings = Vec::new();
        match self.sales_allowed() {
            Err(SalesHeld::UnsafePair(pair)) => warnings.push(Warning::danger(format!(
                "Checkout is refused: the supplier account does not match the payment \
                 settings. {pair}. Change the setting and restart the shop."
            ))),
            Err(SalesHeld::AccountUnknown) => warnings.push(Warning::danger(
                "Checkout is refused until the supplier account has been read: the upstream \
                 could not be reached since the shop started. It is tried again every 30 s."
                    .to_string(),
            )),
            Ok(()) => {}
        }
        let failed = match &mine {
            Some(r) => r.last_error.clone().map(|e| (r.attempted_at_ms, e)),
            None => self.read_gate(|gate| gate.failed.clone()),
        };
        if let Some((_, reason)) = &failed {
            warnings.push(Warning::warn(format!(
                "The supplier account could not be read on the latest attempt ({reason}); what \
                 is shown is from the last successful read."
            )));
        }
        let facts = mine.map(AccountFacts::from_row);
        match &facts {
            Some(f) => warnings.extend(f.warnings(&self.policy, now)),
            None => warnings.push(Warning::warn(
                "The supplier account has not been read with the current API key yet.".to_string(),
            )),
        }
        Ok(Overview {
            facts,
            failed,
            warnings,
        })
    }

    /// Re-reads the account: with backoff (1 s doubling to 30 s) while it is unknown, then
    /// once per `period` (the catalog's refresh period).
    pub async fn watch(self: Arc<Self>, period: Duration, mut shutdown: watch::Receiver<bool>) {
        let mut retry = RETRY_FIRST;
        loop {
            let wait = if self.is_known() {
                period
            } else {
                let wait = retry;
                retry = (retry * 2).min(RETRY_CAP);
                wait
            };
            tokio::select! {
                _ = tokio::time::sleep(wait) => {}
                _ = shutdown.changed() => return,
            }
            self.check_and_alert().await;
        }
    }
}

/// Raises the shop's unsafe-account alert once and queues the owners' emails with it.
fn raise_unsafe_alert(conn: &mut db::DbConn, message: &str, now: i64) -> Result<(), DbError> {
    conn.write_tx(|conn| {
        let raised = db::alerts::raise_alert(conn, UNSAFE_ALERT, None, message, now)?;
        if raised && let Some(alert_id) = crate::db::alerts::open_shop_alert(conn, UNSAFE_ALERT)? {
            let owners = db::staff::owner_emails(conn)?;
            db::alert_mail::queue(conn, alert_id, &owners, now)?;
        }
        Ok(())
    })
}

/// `keyExpiresAt` as unix milliseconds. Its format is not specified, so a few common forms are
/// read: RFC 3339, RFC 2822, ISO 8601, `YYYY-MM-DD HH:MM:SS` and `YYYY-MM-DD` (taken as UTC),
/// and unix seconds or milliseconds. Anything else is `None` (an unknown expiry), never a
/// guess.
pub fn parse_timestamp_ms(raw: &str) -> Option<i64> {
    let raw = raw.trim();
    if raw.is_empty() {
        return None;
    }
    if raw.bytes().all(|b| b.is_ascii_digit()) {
        let n: i64 = raw.parse().ok()?;
        // Ten digits or fewer are seconds (until the year 2286), more are milliseconds.
        let ms = if raw.len() <= 10 {
            n.checked_mul(1000)?
        } else {
            n
        };
        return crate::domain::clock::utc(ms).map(|_| ms);
    }
    let parsed = OffsetDateTime::parse(raw, &Rfc3339)
        .or_else(|_| OffsetDateTime::parse(raw, &Rfc2822))
        .or_else(|_| OffsetDateTime::parse(raw, &Iso8601::DEFAULT))
        .ok()
        .or_else(|| parse_naive_utc(raw))?;
    i64::try_from(parsed.unix_timestamp_nanos() / 1_000_000).ok()
}

/// `YYYY-MM-DD[ T]HH:MM:SS[.fff][Z| UTC]` or `YYYY-MM-DD`, read as UTC.
fn parse_naive_utc(raw: &str) -> Option<OffsetDateTime> {
    use time::macros::format_description;
    let text = raw
        .strip_suffix(" UTC")
        .or_else(|| raw.strip_suffix('Z'))
        .unwrap_or(raw)
        .replacen('T', " ", 1);
    let datetime = format_description!("[year]-[month]-[day] [hour]:[minute]:[second]");
    let with_fraction =
        format_description!("[year]-[month]-[day] [hour]:[minute]:[second].[subsecond]");
    let date = format_description!("[year]-[month]-[day]");
    time::PrimitiveDateTime::parse(&text, datetime)
        .or_else(|_| time::PrimitiveDateTime::parse(&text, with_fraction))
        .map(time::PrimitiveDateTime::assume_utc)
        .ok()
        .or_else(|| {
            time::Date::parse(&text, date)
                .ok()
                .map(|d| d.midnight().assume_utc())
        })
}

/// `2026-12-01`, the day in UTC.
fn format_date(ms: i64) -> String {
    crate::domain::clock::utc(ms)
        .and_then(|t| {
            t.format(time::macros::format_description!("[year]-[month]-[day]"))
                .ok()
        })
        .unwrap_or_else(|| ms.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(payments: PaymentMode) -> Policy {
        Policy {
            payments,
            allow_live_with_sandbox: false,
            allow_test_keys_with_production: false,
            test_payments_environment: None,
            webhook_token_set: false,
            key_fingerprint: "f".into(),
        }
    }

    fn facts(scopes: &[&str], expires_ms: Option<i64>) -> AccountFacts {
        AccountFacts {
            id: "a".into(),
            name: "n".into(),
            email: "e@example.com".into(),
            environment: Environment::Sandbox,
            scopes: scopes.iter().map(|s| s.to_string()).collect(),
            key_expires_at: "raw".into(),
            key_expires_at_ms: expires_ms,
            webhook_enabled: true,
            checked_at_ms: 0,
        }
    }

    #[test]
    fn payments_without_real_money_sell_only_with_a_sandbox_or_a_vouched_environment() {
        use Environment::*;
        let demo = policy(PaymentMode::Demo);
        let live = policy(PaymentMode::StripeLive);
        let test = policy(PaymentMode::StripeTest);
        let staging = || Other("staging".into());
        assert_eq!(
            unsafe_pair(&demo, &Production),
            Some(UnsafePair::DemoWithProduction)
        );
        assert_eq!(unsafe_pair(&demo, &Sandbox), None);
        assert_eq!(
            unsafe_pair(&demo, &staging()),
            Some(UnsafePair::DemoWithUnknownEnvironment)
        );
        assert_eq!(
            unsafe_pair(&live, &Sandbox),
            Some(UnsafePair::LiveWithSandbox)
        );
        assert_eq!(unsafe_pair(&live, &Production), None);
        assert_eq!(unsafe_pair(&live, &staging()), None);
        assert_eq!(unsafe_pair(&test, &Sandbox), None);
        assert_eq!(
            unsafe_pair(&test, &Production),
            Some(UnsafePair::TestKeysWithProduction),
            "anyone pays with Stripe's test card and a real eSIM is bought"
        );
        assert_eq!(
            unsafe_pair(&test, &staging()),
            Some(UnsafePair::TestKeysWithUnknownEnvironment)
        );

        // Each override lifts its own pair only.
        let live_staging = Policy {
            allow_live_with_sandbox: true,
            ..live
        };
        assert_eq!(unsafe_pair(&live_staging, &Sandbox), None);
        let everything = |payments| Policy {
            payments,
            allow_live_with_sandbox: true,
            allow_test_keys_with_production: true,
            test_payments_environment: Some("staging".into()),
            ..policy(payments)
        };
        assert_eq!(
            unsafe_pair(&everything(PaymentMode::Demo), &Production),
            Some(UnsafePair::DemoWithProduction),
            "demo payments with production have no override"
        );
        assert_eq!(
            unsafe_pair(&everything(PaymentMode::Demo), &staging()),
            None
        );
        assert_eq!(
            unsafe_pair(&everything(PaymentMode::Demo), &Other("live".into())),
            Some(UnsafePair::DemoWithUnknownEnvironment),
            "only the environment named is vouched for"
        );
        assert_eq!(
            unsafe_pair(&everything(PaymentMode::StripeTest), &Production),
            None
        );
        assert_eq!(
            unsafe_pair(&everything(PaymentMode::StripeTest), &staging()),
            None
        );
        let test_in_production = Policy {
            allow_test_keys_with_production: true,
            ..test
        };
        assert_eq!(
            unsafe_pair(&test_in_production, &staging()),
            Some(UnsafePair::TestKeysWithUnknownEnvironment)
        );
    }

    #[test]
    fn refusals_are_one_line_naming_the_settings() {
        for pair in [
            UnsafePair::DemoWithProduction,
            UnsafePair::LiveWithSandbox,
            UnsafePair::TestKeysWithProduction,
            UnsafePair::DemoWithUnknownEnvironment,
            UnsafePair::TestKeysWithUnknownEnvironment,
        ] {
            let line = pair.to_string();
            assert!(!line.contains('\n'));
            assert!(line.starts_with(&format!("{}: ", pair.var())), "{line}");
            assert!(line.contains("STOREFRONT_UPSTREAM_API_KEY"), "{line}");
        }
    }

    #[test]
    fn timestamps_are_read_in_common_forms_and_never_guessed() {
        let expected = Some(1_798_761_600_000); // 2027-01-01T00:00:00Z
        for raw in [
            "2027-01-01T00:00:00Z",
            "2027-01-01T01:00:00+01:00",
            "2027-01-01T00:00:00.000Z",
            "2027-01-01 00:00:00",
            "2027-01-01T00:00:00",
            "2027-01-01 00:00:00 UTC",
            "2027-01-01",
            "Fri, 01 Jan 2027 00:00:00 +0000",
            "1798761600",
            "1798761600000",
            " 2027-01-01T00:00:00Z ",
        ] {
            assert_eq!(parse_timestamp_ms(raw), expected, "{raw}");
        }
        for raw in [
            "",
            "soon",
            "2027-13-01",
            "01/02/2027",
            "-5",
            "99999999999999999999999",
        ] {
            assert_eq!(parse_timestamp_ms(raw), None, "{raw}");
        }
    }

    #[test]
    fn warnings_cover_expiry_scopes_and_webhooks() {
        let all: Vec<&str> = REQUIRED_SCOPES
            .iter()
            .copied()
            .chain([TOPUP_SCOPE])
            .collect();
        let now = 1_000 * DAY_MS;
        let p = policy(PaymentMode::Demo);
        assert!(
            facts(&all, Some(now + 30 * DAY_MS))
                .warnings(&p, now)
                .is_empty()
        );

        let soon = facts(&all, Some(now + 3 * DAY_MS)).warnings(&p, now);
        assert_eq!(soon.len(), 1);
        assert!(soon[0].text.contains("in 3 days"), "{soon:?}");
        let expired = facts(&all, Some(now - 1)).warnings(&p, now);
        assert_eq!(expired[0].level, Level::Danger);
        assert!(expired[0].text.contains("expired"), "{expired:?}");
        let unknown = facts(&all, None).warnings(&p, now);
        assert!(unknown[0].text.contains("unknown expiry"), "{unknown:?}");

        let no_install: Vec<&str> = all
            .iter()
            .copied()
            .filter(|s| *s != "esims:install")
            .collect();
        let w = facts(&no_install, Some(now + 30 * DAY_MS)).warnings(&p, now);
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].level, Level::Danger);
        assert!(w[0].text.contains("esims:install"), "{w:?}");
        let w = facts(&REQUIRED_SCOPES, Some(now + 30 * DAY_MS)).warnings(&p, now);
        assert_eq!(w.len(), 1);
        assert_eq!(
            w[0].level,
            Level::Notice,
            "balance:write is a softer warning"
        );

        let hooks = Policy {
            webhook_token_set: true,
            ..p
        };
        let mut off = facts(&all, Some(now + 30 * DAY_MS));
        off.webhook_enabled = false;
        let w = off.warnings(&hooks, now);
        assert!(
            w.iter()
                .any(|w| w.text.contains("STOREFRONT_UPSTREAM_WEBHOOK_TOKEN")),
            "{w:?}"
        );
    }
}
