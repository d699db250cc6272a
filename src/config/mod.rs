//! Typed settings, read once at start from `STOREFRONT_*` environment variables and an optional
//! TOML file (`--config`), where the environment wins.
//!
//! Every value is parsed into its own type here, so the rest of the program never sees a raw
//! string. A missing or malformed value becomes one [`ConfigError`] line that names the full
//! variable, which the CLI prints before exiting with code 2.

use std::collections::BTreeMap;
use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};

use ipnet::IpNet;
use url::Url;

pub use crate::domain::database_url::DatabaseUrl;
pub use crate::domain::secret::Secret;
use crate::domain::{Cents, Email};

/// The prefix every environment variable of the shop carries.
pub const PREFIX: &str = "STOREFRONT_";

/// The shop's name before its owner gives one (`STOREFRONT_SHOP_NAME`, then the console).
pub const DEFAULT_SHOP_NAME: &str = "eSIM shop";

/// A setting that is missing or malformed, named by its full environment variable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{var}: {problem}")]
pub struct ConfigError {
    pub var: String,
    pub problem: String,
}

impl ConfigError {
    fn new(key: &str, problem: impl Into<String>) -> Self {
        Self {
            var: format!("{PREFIX}{key}"),
            problem: problem.into(),
        }
    }
}

/// Where the raw values come from: the environment over an optional TOML file.
///
/// TOML keys are the variable names without the prefix, in lower case
/// (`database_url = "sqlite://data/shop.db"`).
#[derive(Debug, Clone, Default)]
pub struct Source {
    values: BTreeMap<String, String>,
}

impl Source {
    /// The process environment, layered over `file` when one is given.
    pub fn load(file: Option<&Path>) -> Result<Self, ConfigError> {
        let mut source = match file {
            Some(path) => Self::from_toml_file(path)?,
            None => Self::default(),
        };
        source.overlay(std::env::vars());
        Ok(source)
    }

    /// Values from `(NAME, value)` pairs; names without the prefix are ignored.
    pub fn from_pairs<I, K, V>(pairs: I) -> Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: Into<String>,
    {
        let mut source = Self::default();
        source.overlay(pairs);
        source
    }

    fn overlay<I, K, V>(&mut self, pairs: I)
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: Into<String>,
    {
        for (name, value) in pairs {
            if let Some(key) = name.as_ref().strip_prefix(PREFIX) {
                self.values.insert(key.to_string(), value.into());
            }
        }
    }

    fn from_toml_file(path: &Path) -> Result<Self, ConfigError> {
        let file_error = |problem: String| ConfigError {
            var: format!("--config {}", path.display()),
            problem,
        };
        let text = std::fs::read_to_string(path).map_err(|e| file_error(e.to_string()))?;
        let table: toml::Table = text
            .parse()
            .map_err(|e: toml::de::Error| file_error(e.message().to_string()))?;
        let mut values = BTreeMap::new();
        for (key, value) in table {
            let text = match value {
                toml::Value::String(s) => s,
                toml::Value::Integer(i) => i.to_string(),
                toml::Value::Boolean(b) => b.to_string(),
                other => {
                    return Err(file_error(format!(
                        "key `{key}` must be a string, integer or boolean, not {}",
                        other.type_str()
                    )));
                }
            };
            values.insert(key.to_ascii_uppercase(), text);
        }
        Ok(Self { values })
    }

    /// The trimmed value of `key`; an empty value counts as unset.
    fn get(&self, key: &str) -> Option<&str> {
        self.values
            .get(key)
            .map(|v| v.trim())
            .filter(|v| !v.is_empty())
    }

    fn required(&self, key: &str) -> Result<&str, ConfigError> {
        self.get(key)
            .ok_or_else(|| ConfigError::new(key, "is required but not set"))
    }

    fn parsed<T>(
        &self,
        key: &str,
        default: T,
        parse: impl FnOnce(&str) -> Result<T, String>,
    ) -> Result<T, ConfigError> {
        match self.get(key) {
            None => Ok(default),
            Some(raw) => parse(raw).map_err(|p| ConfigError::new(key, p)),
        }
    }
}

/// The 32-byte key behind encryption at rest and signed cookies.
#[derive(Clone)]
pub struct SecretKey(Secret<[u8; 32]>);

impl SecretKey {
    pub fn parse(raw: &str) -> Result<Self, String> {
        if raw.len() != 64 {
            return Err(format!(
                "must be 64 hexadecimal characters (32 bytes), got {} characters",
                raw.chars().count()
            ));
        }
        let mut key = [0u8; 32];
        hex::decode_to_slice(raw, &mut key)
            .map_err(|_| "must contain only hexadecimal characters 0-9 and a-f".to_string())?;
        Ok(Self(Secret::new(key)))
    }

    pub fn from_bytes(bytes: [u8; 32]) -> Self {
        Self(Secret::new(bytes))
    }

    /// A fresh key from the operating system's random source (through `rand`'s thread RNG,
    /// a CSPRNG seeded from it).
    pub fn generate() -> Self {
        let mut bytes = [0u8; 32];
        rand::RngCore::fill_bytes(&mut rand::rng(), &mut bytes);
        Self::from_bytes(bytes)
    }

    pub fn bytes(&self) -> &[u8; 32] {
        self.0.expose()
    }

    /// The key in the format [`SecretKey::parse`] reads: 64 lower-case hex characters.
    pub fn to_hex(&self) -> Secret<String> {
        Secret::new(hex::encode(self.bytes()))
    }
}

impl fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SecretKey([redacted])")
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    Pretty,
    Json,
}

impl LogFormat {
    pub fn parse(raw: &str) -> Result<Self, String> {
        match raw {
            "pretty" => Ok(Self::Pretty),
            "json" => Ok(Self::Json),
            other => Err(format!("must be `json` or `pretty`, got {other:?}")),
        }
    }
}

/// How consumers pay.
#[derive(Debug, Clone)]
pub enum Payments {
    /// The built-in test-mode provider: no money moves.
    Demo,
    Stripe(StripeSettings),
}

#[derive(Debug, Clone)]
pub struct StripeSettings {
    pub secret_key: Secret<String>,
    pub webhook_secret: Secret<String>,
    pub api_base: Url,
}

impl StripeSettings {
    /// Whether the secret key (or restricted key) moves real money: `sk_live_…` / `rk_live_…`.
    pub fn is_live(&self) -> bool {
        let key = self.secret_key.expose();
        key.starts_with("sk_live_") || key.starts_with("rk_live_")
    }
}

/// Where outgoing mail goes.
#[derive(Debug, Clone)]
pub enum MailTransport {
    /// An SMTP relay (`smtp://` or `smtps://`, credentials in the URL).
    Smtp(Secret<String>),
    /// A folder that receives one `.eml` file per message.
    Dir(PathBuf),
}

#[derive(Debug, Clone)]
pub struct MailSettings {
    pub transport: MailTransport,
    pub from: String,
    /// `STOREFRONT_SUPPORT_EMAIL`: where customers write to the shop. Shown on the shop's pages
    /// and set as Reply-To on customers' emails; without it the shop offers no contact.
    pub support_email: Option<Email>,
}

#[derive(Debug, Clone)]
pub struct UpstreamSettings {
    /// The Partner API base, including `/api/v1`, without a trailing slash.
    pub base_url: Url,
    pub api_key: Secret<String>,
    /// The secret path segment of `/webhooks/upstream/{token}`; `None` turns the endpoint off.
    pub webhook_token: Option<Secret<String>>,
}

/// Days a purchase's links keep working after it was fulfilled or ended
/// (`STOREFRONT_ORDER_LINK_DAYS`'s default).
pub const DEFAULT_ORDER_LINK_DAYS: u32 = 90;

/// Everything `storefront serve` needs, validated.
#[derive(Debug, Clone)]
pub struct Settings {
    pub database_url: DatabaseUrl,
    pub bind: SocketAddr,
    pub public_url: Url,
    pub upstream: UpstreamSettings,
    pub secret_key: SecretKey,
    /// Keys the shop still accepts but no longer signs or seals with
    /// (`STOREFRONT_PREVIOUS_SECRET_KEYS`): installations sealed under them still open, and
    /// forms signed with them still verify, until `storefront keys rotate` has moved every
    /// installation to `secret_key`. See "Rotating the secret key" in docs/architecture.md.
    pub previous_secret_keys: Vec<SecretKey>,
    /// `STOREFRONT_SHOP_NAME`: the shop's name until the owner saves one in the console
    /// (`shop::identity`): the site's header and titles, the emails and the sender's name
    /// when `STOREFRONT_MAIL_FROM` gives only an address.
    pub shop_name: crate::domain::brand::ShopName,
    /// `STOREFRONT_TIME_ZONE`: the IANA zone the console shows its times in until an owner
    /// chooses one on the Shop identity page (default UTC).
    pub time_zone: crate::domain::clock::ConsoleZone,
    pub payments: Payments,
    pub mail: MailSettings,
    pub catalog_refresh_secs: u64,
    pub workers: usize,
    pub default_markup_bps: u32,
    pub min_margin: Cents,
    pub auto_refund: bool,
    /// Checkouts one client address may start per minute.
    pub checkout_rate_limit: u32,
    /// `STOREFRONT_LOGIN_RATE_LIMIT`: console sign-in forms (password or code) one client
    /// may send per minute, refused before anything is written.
    pub login_rate_limit: u32,
    /// `STOREFRONT_AUDIT_RETENTION_DAYS` (30 … 3650, default 400): days the audit log keeps
    /// an entry (money actions at least a year, see `staff::audit`).
    pub audit_retention_days: u32,
    /// `STOREFRONT_ORDER_LINK_DAYS`: days the private order links keep working after the
    /// purchase was fulfilled or ended.
    pub order_link_days: u32,
    /// `STOREFRONT_MAX_ESIMS_PER_ORDER` (1 … 10, default 10): the most eSIMs one checkout
    /// may buy.
    pub max_esims_per_order: crate::domain::units::Quantity,
    /// `STOREFRONT_SUPPLIER_FULL_PASS_DAYS` (1 … 90, default 7): days between full passes of
    /// the copy of the supplier's history (`books::history`), each reading every page of both
    /// listings.
    pub supplier_full_pass_days: u32,
    /// `STOREFRONT_JOB_HISTORY_DAYS` (7 … 3650, default 90): days the attempts of a finished
    /// job of an ended order are kept (`orders::retention`).
    pub job_history_days: u32,
    /// `STOREFRONT_ABANDONED_CHECKOUT_DAYS` (31 … 3650, default 90): days an abandoned
    /// checkout is kept after its payment page closed (`orders::retention`).
    pub abandoned_checkout_days: u32,
    pub log_format: LogFormat,
    /// The bearer token `GET /metrics` asks for; `None` turns the endpoint off (404).
    pub metrics_token: Option<Secret<String>>,
    /// Reverse proxies whose `X-Forwarded-For` names the client; empty: the TCP peer is the
    /// client and the header is ignored.
    pub trusted_proxies: TrustedProxies,
    /// `STOREFRONT_CLIENT_COUNTRY_HEADER` (e.g. `CF-IPCountry`): the header in which a trusted
    /// proxy names the country of the client's address, kept with each taxed sale as evidence
    /// of where the customer is. Read only on requests from `trusted_proxies`; `None`: the
    /// shop does not know the client's country.
    pub client_country_header: Option<actix_web::http::header::HeaderName>,
    /// `STOREFRONT_ALLOW_LIVE_PAYMENTS_WITH_SANDBOX`: a staging shop may take live Stripe
    /// payments while its upstream key is a sandbox key (otherwise refused at start).
    pub allow_live_payments_with_sandbox: bool,
    /// `STOREFRONT_ALLOW_STRIPE_TEST_KEYS_WITH_PRODUCTION`: Stripe test keys (payments anyone
    /// can make with Stripe's public test cards) may buy real eSIMs from a production account
    /// (otherwise refused at start).
    pub allow_stripe_test_keys_with_production: bool,
    /// `STOREFRONT_ALLOW_TEST_PAYMENTS_WITH_ENVIRONMENT`: the one upstream environment, neither
    /// `sandbox` nor `production`, that demo payments or Stripe test keys may sell with
    /// (otherwise such an environment is refused at start with them).
    pub test_payments_environment: Option<String>,
}

pub const DEFAULT_BIND: &str = "127.0.0.1:8080";

impl Settings {
    /// Parses every setting; the first problem found is returned.
    pub fn from_source(src: &Source) -> Result<Self, ConfigError> {
        let database_url = database_url(src)?;
        let bind = bind(src)?;
        let public_url = parse_http_url("PUBLIC_URL", src.required("PUBLIC_URL")?)?;
        let upstream = upstream_settings(src)?;
        let (secret_key, previous_secret_keys) = secret_keys(src)?;
        let payments = payments(src)?;
        let mail = mail(src)?;
        let settings = Self {
            database_url,
            bind,
            public_url,
            upstream,
            secret_key,
            previous_secret_keys,
            shop_name: src.parsed("SHOP_NAME", default_shop_name(), |raw| {
                crate::domain::brand::ShopName::parse(raw).map_err(|e| e.to_string())
            })?,
            time_zone: src.parsed(
                "TIME_ZONE",
                crate::domain::clock::ConsoleZone::default(),
                |raw| crate::domain::clock::ConsoleZone::parse(raw).map_err(|e| e.to_string()),
            )?,
            payments,
            mail,
            catalog_refresh_secs: src.parsed("CATALOG_REFRESH_SECS", 900, |raw| {
                parse_int_in(raw, 10, 7 * 24 * 3600)
            })?,
            workers: src.parsed("WORKERS", 4, |raw| parse_int_in(raw, 1, 256))?,
            default_markup_bps: default_markup_bps(src)?,
            min_margin: src.parsed("MIN_MARGIN_CENTS", Cents::ZERO, |raw| {
                parse_int_in(raw, 0, i64::from(i32::MAX)).map(Cents::new)
            })?,
            auto_refund: src.parsed("AUTO_REFUND", false, parse_bool)?,
            checkout_rate_limit: src.parsed("CHECKOUT_RATE_LIMIT", 10, |raw| {
                parse_int_in(raw, 1, 1_000_000)
            })?,
            login_rate_limit: src.parsed("LOGIN_RATE_LIMIT", 10, |raw| {
                parse_int_in(raw, 1, 1_000_000)
            })?,
            audit_retention_days: src.parsed("AUDIT_RETENTION_DAYS", 400, |raw| {
                parse_int_in(raw, 30, 3_650)
            })?,
            order_link_days: src.parsed("ORDER_LINK_DAYS", DEFAULT_ORDER_LINK_DAYS, |raw| {
                parse_int_in(raw, 1, 3_650)
            })?,
            max_esims_per_order: src.parsed(
                "MAX_ESIMS_PER_ORDER",
                crate::domain::units::Quantity::MAX,
                |raw| {
                    let n = parse_int_in(raw, 1, crate::domain::units::Quantity::MAX.get())?;
                    crate::domain::units::Quantity::new(n).ok_or_else(|| "out of range".to_string())
                },
            )?,
            job_history_days: src
                .parsed("JOB_HISTORY_DAYS", 90, |raw| parse_int_in(raw, 7, 3_650))?,
            supplier_full_pass_days: src
                .parsed("SUPPLIER_FULL_PASS_DAYS", 7, |raw| parse_int_in(raw, 1, 90))?,
            abandoned_checkout_days: src.parsed("ABANDONED_CHECKOUT_DAYS", 90, |raw| {
                parse_int_in(raw, 31, 3_650)
            })?,
            log_format: log_format(src)?,
            metrics_token: src.parsed("METRICS_TOKEN", None, |raw| {
                parse_metrics_token(raw).map(Some)
            })?,
            trusted_proxies: src.parsed(
                "TRUSTED_PROXIES",
                TrustedProxies::default(),
                TrustedProxies::parse,
            )?,
            client_country_header: src.parsed("CLIENT_COUNTRY_HEADER", None, |raw| {
                parse_header_name(raw).map(Some)
            })?,
            allow_live_payments_with_sandbox: src.parsed(
                "ALLOW_LIVE_PAYMENTS_WITH_SANDBOX",
                false,
                parse_bool,
            )?,
            allow_stripe_test_keys_with_production: src.parsed(
                "ALLOW_STRIPE_TEST_KEYS_WITH_PRODUCTION",
                false,
                parse_bool,
            )?,
            test_payments_environment: src.parsed(
                "ALLOW_TEST_PAYMENTS_WITH_ENVIRONMENT",
                None,
                |raw| parse_environment_name(raw).map(Some),
            )?,
        };
        if settings.client_country_header.is_some() && settings.trusted_proxies.is_empty() {
            return Err(ConfigError::new(
                "CLIENT_COUNTRY_HEADER",
                "is read only from a trusted proxy: set STOREFRONT_TRUSTED_PROXIES to the proxy \
                 that writes it, or unset this (any client could write the header)",
            ));
        }
        Ok(settings)
    }

    /// Every key a signature or a sealed row may have been made with: the current one first.
    pub fn accepted_secret_keys(&self) -> impl Iterator<Item = &SecretKey> {
        std::iter::once(&self.secret_key).chain(&self.previous_secret_keys)
    }
}

fn default_shop_name() -> crate::domain::brand::ShopName {
    crate::domain::brand::ShopName::parse(DEFAULT_SHOP_NAME).expect("the default name is valid")
}

/// The secret key and the previous ones alone (`keys rotate`).
pub fn secret_keys(src: &Source) -> Result<(SecretKey, Vec<SecretKey>), ConfigError> {
    let current = SecretKey::parse(src.required("SECRET_KEY")?)
        .map_err(|p| ConfigError::new("SECRET_KEY", p))?;
    let previous = src.parsed(PREVIOUS_SECRET_KEYS, Vec::new(), |raw| {
        parse_previous_keys(raw, &current)
    })?;
    Ok((current, previous))
}

/// The variable (without prefix) listing the keys a rotation moves away from.
pub const PREVIOUS_SECRET_KEYS: &str = "PREVIOUS_SECRET_KEYS";

/// Comma-separated keys in [`SecretKey`]'s format; never echoes a value back.
fn parse_previous_keys(raw: &str, current: &SecretKey) -> Result<Vec<SecretKey>, String> {
    let items: Vec<&str> = raw
        .split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .collect();
    let mut keys: Vec<SecretKey> = Vec::with_capacity(items.len());
    for (n, item) in items.iter().enumerate() {
        let key =
            SecretKey::parse(item).map_err(|p| format!("key {} of {}: {p}", n + 1, items.len()))?;
        if key.bytes() == current.bytes() {
            return Err(format!(
                "key {} of {} is STOREFRONT_SECRET_KEY itself; list only the keys it replaces",
                n + 1,
                items.len()
            ));
        }
        if keys.iter().any(|k| k.bytes() == key.bytes()) {
            return Err(format!("key {} of {} is listed twice", n + 1, items.len()));
        }
        keys.push(key);
    }
    Ok(keys)
}

/// The database setting alone, for commands that need nothing else (`migrate`).
pub fn database_url(src: &Source) -> Result<DatabaseUrl, ConfigError> {
    DatabaseUrl::parse(src.required("DATABASE_URL")?)
        .map_err(|p| ConfigError::new("DATABASE_URL", p))
}

/// The Partner API settings alone (`catalog sync`).
pub fn upstream_settings(src: &Source) -> Result<UpstreamSettings, ConfigError> {
    Ok(UpstreamSettings {
        base_url: {
            let raw = src.required("UPSTREAM_BASE_URL")?;
            if src.parsed("ALLOW_PLAIN_HTTP_UPSTREAM", false, parse_bool)? {
                parse_http_url("UPSTREAM_BASE_URL", raw)?
            } else {
                parse_api_url("UPSTREAM_BASE_URL", raw)?
            }
        },
        api_key: Secret::new(src.required("UPSTREAM_API_KEY")?.to_string()),
        webhook_token: src.parsed("UPSTREAM_WEBHOOK_TOKEN", None, |raw| {
            parse_webhook_token(raw).map(Some)
        })?,
    })
}

/// The markup used where no rule matches, alone (`catalog sync`).
pub fn default_markup_bps(src: &Source) -> Result<u32, ConfigError> {
    src.parsed("DEFAULT_MARKUP_BPS", 2500, |raw| {
        parse_int_in(raw, 0, 100_000)
    })
}

/// The listen address alone (`demo`).
pub fn bind(src: &Source) -> Result<SocketAddr, ConfigError> {
    src.parsed("BIND", default_bind(), parse_bind)
}

/// The log format alone, so logging can start before the rest is read.
pub fn log_format(src: &Source) -> Result<LogFormat, ConfigError> {
    src.parsed("LOG_FORMAT", LogFormat::Pretty, LogFormat::parse)
}

fn default_bind() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 8080))
}

fn parse_bind(raw: &str) -> Result<SocketAddr, String> {
    raw.parse()
        .map_err(|_| format!("{raw:?} is not an address like 127.0.0.1:8080 or [::]:8080"))
}

fn parse_http_url(key: &str, raw: &str) -> Result<Url, ConfigError> {
    let url = Url::parse(raw).map_err(|e| ConfigError::new(key, format!("not a URL: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") || !url.has_host() {
        return Err(ConfigError::new(
            key,
            "must be an http:// or https:// URL with a host",
        ));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(ConfigError::new(key, "must not have a query or fragment"));
    }
    let trimmed = url.as_str().trim_end_matches('/').to_string();
    Url::parse(&trimmed).map_err(|e| ConfigError::new(key, format!("not a URL: {e}")))
}

/// A URL the shop sends a bearer key to: https, or http only to this machine (the sandbox, a
/// local stand-in), so keys never cross a network in clear.
fn parse_api_url(key: &str, raw: &str) -> Result<Url, ConfigError> {
    let url = parse_http_url(key, raw)?;
    let loopback = match url.host() {
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    };
    if url.scheme() == "http" && !loopback {
        return Err(ConfigError::new(
            key,
            "must be an https:// URL (http:// only to localhost): the API key would travel in clear",
        ));
    }
    Ok(url)
}

fn parse_webhook_token(raw: &str) -> Result<Secret<String>, String> {
    if raw.len() < 32
        || !raw
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(
            "must be at least 32 characters of letters, digits, `-` or `_` (it is a URL path segment)"
                .into(),
        );
    }
    Ok(Secret::new(raw.to_string()))
}

fn parse_int_in<T>(raw: &str, min: T, max: T) -> Result<T, String>
where
    T: std::str::FromStr + PartialOrd + fmt::Display + Copy,
{
    match raw.parse::<T>() {
        Ok(v) if v >= min && v <= max => Ok(v),
        _ => Err(format!(
            "must be a whole number from {min} to {max}, got {raw:?}"
        )),
    }
}

fn parse_bool(raw: &str) -> Result<bool, String> {
    match raw.to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" | "on" => Ok(true),
        "false" | "0" | "no" | "off" => Ok(false),
        _ => Err(format!("must be true or false, got {raw:?}")),
    }
}

/// An upstream environment name as `GET /account` reports it, other than the two the shop
/// knows (`sandbox` needs no override; `production` is never sold with test payments this way).
fn parse_environment_name(raw: &str) -> Result<String, String> {
    let name = raw.trim();
    let well_formed = !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b));
    match name {
        _ if !well_formed => Err(format!(
            "must name one upstream environment (1 to 64 letters, digits, `-_.`), got {raw:?}"
        )),
        "sandbox" => Err("sandbox needs no override: leave it unset".into()),
        "production" => Err(
            "production cannot be allowed here: test payments would buy real eSIMs nobody paid \
             for (see STOREFRONT_ALLOW_STRIPE_TEST_KEYS_WITH_PRODUCTION for Stripe test keys)"
                .into(),
        ),
        _ => Ok(name.to_string()),
    }
}

fn payments(src: &Source) -> Result<Payments, ConfigError> {
    match src.required("PAYMENTS")? {
        "demo" => Ok(Payments::Demo),
        "stripe" => {
            let with_stripe = |key: &str| {
                src.get(key)
                    .map(|v| Secret::new(v.to_string()))
                    .ok_or_else(|| {
                        ConfigError::new(key, "is required when STOREFRONT_PAYMENTS=stripe")
                    })
            };
            let api_base = match src.get("STRIPE_API_BASE") {
                Some(raw) => parse_api_url("STRIPE_API_BASE", raw)?,
                None => Url::parse("https://api.stripe.com")
                    .map_err(|e| ConfigError::new("STRIPE_API_BASE", e.to_string()))?,
            };
            Ok(Payments::Stripe(StripeSettings {
                secret_key: with_stripe("STRIPE_SECRET_KEY")?,
                webhook_secret: with_stripe("STRIPE_WEBHOOK_SECRET")?,
                api_base,
            }))
        }
        other => Err(ConfigError::new(
            "PAYMENTS",
            format!("must be `demo` or `stripe`, got {other:?}"),
        )),
    }
}

fn mail(src: &Source) -> Result<MailSettings, ConfigError> {
    let transport = match (src.get("SMTP_URL"), src.get("MAIL_DIR")) {
        (Some(_), Some(_)) => {
            return Err(ConfigError::new(
                "SMTP_URL",
                "set either STOREFRONT_SMTP_URL or STOREFRONT_MAIL_DIR, not both",
            ));
        }
        (Some(raw), None) => {
            let url = Url::parse(raw)
                .map_err(|e| ConfigError::new("SMTP_URL", format!("not a URL: {e}")))?;
            if !matches!(url.scheme(), "smtp" | "smtps") || !url.has_host() {
                return Err(ConfigError::new(
                    "SMTP_URL",
                    "must look like smtp://user:password@host:587 or smtps://host:465",
                ));
            }
            MailTransport::Smtp(Secret::new(raw.to_string()))
        }
        (None, Some(dir)) => MailTransport::Dir(PathBuf::from(dir)),
        (None, None) => {
            return Err(ConfigError::new(
                "SMTP_URL",
                "is required (or set STOREFRONT_MAIL_DIR to write mail to a folder)",
            ));
        }
    };
    let from = src.required("MAIL_FROM")?;
    if !from.contains('@') {
        return Err(ConfigError::new(
            "MAIL_FROM",
            format!("must be an address like \"Shop <shop@example.com>\", got {from:?}"),
        ));
    }
    Ok(MailSettings {
        transport,
        from: from.to_string(),
        support_email: src.parsed("SUPPORT_EMAIL", None, |raw| {
            parse_support_email(raw).map(Some)
        })?,
    })
}

/// An address customers can write to, and that fits a `mailto:` link and a Reply-To header
/// as it is: letters, digits and `.`, `_`, `+`, `-` before the `@`, a dotted host name after it.
fn parse_support_email(raw: &str) -> Result<Email, String> {
    let refused = || format!("must be an email address like support@example.com, got {raw:?}");
    let email = Email::parse(raw).map_err(|_| refused())?;
    let (local, domain) = email.as_str().split_once('@').ok_or_else(refused)?;
    let local_ok = local
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '+' | '-'));
    let domain_ok = domain
        .split('.')
        .all(|label| label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'));
    if local_ok && domain_ok {
        Ok(email)
    } else {
        Err(refused())
    }
}

/// The shortest `STOREFRONT_METRICS_TOKEN` accepted: even 32 random hex digits carry 128
/// bits, beyond guessing over the network (`openssl rand -hex 32` gives 64 digits).
pub const MIN_METRICS_TOKEN_CHARS: usize = 32;

/// A bearer token as RFC 6750 allows it (`b64token`), long enough not to be guessed. The
/// problem never repeats the value.
fn parse_metrics_token(raw: &str) -> Result<Secret<String>, String> {
    let body = raw.trim_end_matches('=');
    let alphabet_ok = !body.is_empty()
        && body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~+/".contains(&b));
    if raw.len() < MIN_METRICS_TOKEN_CHARS || !alphabet_ok {
        return Err(format!(
            "must be at least {MIN_METRICS_TOKEN_CHARS} characters of letters, digits and \
             `-._~+/` (e.g. the output of `openssl rand -hex 32`)"
        ));
    }
    Ok(Secret::new(raw.to_string()))
}

/// A request header's name, e.g. `CF-IPCountry`.
fn parse_header_name(raw: &str) -> Result<actix_web::http::header::HeaderName, String> {
    actix_web::http::header::HeaderName::from_bytes(raw.trim().as_bytes())
        .map_err(|_| format!("{raw:?} is not a header name (e.g. CF-IPCountry)"))
}

/// The reverse proxies in front of the shop (`STOREFRONT_TRUSTED_PROXIES`: addresses or
/// networks, comma-separated, e.g. `10.0.0.0/8, 192.168.1.10`). Only a request whose TCP peer
/// is one of them may name its client in `X-Forwarded-For`; from anyone else the header is
/// ignored, since every client can set it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<IpNet>);

impl TrustedProxies {
    pub fn parse(raw: &str) -> Result<Self, String> {
        raw.split(',')
            .map(str::trim)
            .filter(|item| !item.is_empty())
            .map(|item| {
                item.parse::<IpNet>()
                    .or_else(|_| item.parse::<IpAddr>().map(IpNet::from))
                    .map(|net| net.trunc())
                    .map_err(|_| {
                        format!(
                            "{item:?} is not an IP address or network \
                             (use e.g. 10.0.0.5, 10.0.0.0/8 or fd00::/8, comma-separated)"
                        )
                    })
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Self)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether `addr` is one of the trusted proxies.
    pub fn contains(&self, addr: IpAddr) -> bool {
        let addr = addr.to_canonical();
        self.0.iter().any(|net| net.contains(&addr))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn valid() -> Vec<(&'static str, &'static str)> {
        vec![
            ("STOREFRONT_DATABASE_URL", "sqlite://data/shop.db"),
            ("STOREFRONT_PUBLIC_URL", "https://shop.example.com/"),
            (
                "STOREFRONT_UPSTREAM_BASE_URL",
                "https://partner.example.com/api/v1",
            ),
            ("STOREFRONT_UPSTREAM_API_KEY", "sk_live_supersecret"),
            (
                "STOREFRONT_SECRET_KEY",
                "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
            ),
            ("STOREFRONT_PAYMENTS", "demo"),
            ("STOREFRONT_MAIL_DIR", "data/mail"),
            ("STOREFRONT_MAIL_FROM", "Shop <shop@example.com>"),
        ]
    }

    fn with(overrides: &[(&'static str, &'static str)]) -> Result<Settings, ConfigError> {
        let mut pairs = valid();
        for (k, v) in overrides {
            pairs.retain(|(key, _)| key != k);
            pairs.push((k, v));
        }
        Settings::from_source(&Source::from_pairs(pairs))
    }

    #[test]
    fn valid_settings_parse_with_defaults() {
        let s = with(&[]).expect("valid");
        assert_eq!(s.bind, default_bind());
        assert_eq!(s.public_url.as_str(), "https://shop.example.com/");
        assert_eq!(s.workers, 4);
        assert_eq!(s.catalog_refresh_secs, 900);
        assert_eq!(s.default_markup_bps, 2500);
        assert_eq!(s.min_margin, Cents::ZERO);
        assert!(!s.auto_refund);
        assert_eq!(s.log_format, LogFormat::Pretty);
        assert!(
            matches!(s.database_url, DatabaseUrl::Sqlite(ref p) if p == Path::new("data/shop.db"))
        );
    }

    #[test]
    fn the_test_payments_environment_names_one_unfamiliar_environment() {
        let s = with(&[(
            "STOREFRONT_ALLOW_TEST_PAYMENTS_WITH_ENVIRONMENT",
            " staging ",
        )])
        .expect("valid");
        assert_eq!(s.test_payments_environment.as_deref(), Some("staging"));
        assert_eq!(with(&[]).expect("valid").test_payments_environment, None);
        for bad in ["production", "sandbox", "two words", "x/y"] {
            let err =
                with(&[("STOREFRONT_ALLOW_TEST_PAYMENTS_WITH_ENVIRONMENT", bad)]).expect_err(bad);
            assert_eq!(err.var, "STOREFRONT_ALLOW_TEST_PAYMENTS_WITH_ENVIRONMENT");
        }
    }

    #[test]
    fn unsupported_database_scheme_names_the_variable() {
        let err = with(&[("STOREFRONT_DATABASE_URL", "mysql://x")]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "STOREFRONT_DATABASE_URL: unsupported scheme \"mysql\" (use sqlite:// or postgres://)"
        );
    }

    #[test]
    fn malformed_secret_key_is_rejected_without_echoing_it() {
        let err = with(&[("STOREFRONT_SECRET_KEY", "zz-not-hex-zz")]).unwrap_err();
        assert_eq!(err.var, "STOREFRONT_SECRET_KEY");
        assert!(!err.to_string().contains("zz-not-hex"));
        let err = with(&[(
            "STOREFRONT_SECRET_KEY",
            "g00102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
        )])
        .unwrap_err();
        assert!(err.problem.contains("hexadecimal"), "{err}");
    }

    #[test]
    fn previous_secret_keys_are_optional_and_comma_separated() {
        let s = with(&[]).expect("valid");
        assert!(s.previous_secret_keys.is_empty());
        assert_eq!(s.accepted_secret_keys().count(), 1);
        let both = " a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf , c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf,";
        let s = with(&[("STOREFRONT_PREVIOUS_SECRET_KEYS", both)]).expect("valid");
        assert_eq!(s.previous_secret_keys.len(), 2);
        assert_eq!(
            s.previous_secret_keys[1].bytes(),
            SecretKey::parse("c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf")
                .expect("key")
                .bytes()
        );
        let accepted: Vec<_> = s.accepted_secret_keys().map(|k| k.bytes()[0]).collect();
        assert_eq!(accepted, vec![0x00, 0xa0, 0xc0], "current first");
        let debug = format!("{s:?}");
        assert!(
            !debug.contains("a0a1a2") && !debug.contains("c0c1c2"),
            "{debug}"
        );
    }

    #[test]
    fn a_bad_previous_key_is_named_without_echoing_it() {
        let bad = "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf,not-a-key-zz";
        let err = with(&[("STOREFRONT_PREVIOUS_SECRET_KEYS", bad)]).unwrap_err();
        assert_eq!(err.var, "STOREFRONT_PREVIOUS_SECRET_KEYS");
        assert!(err.problem.starts_with("key 2 of 2: must be 64"), "{err}");
        assert!(!err.to_string().contains("not-a-key") && !err.to_string().contains("a0a1"));
        let current = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
        let err = with(&[("STOREFRONT_PREVIOUS_SECRET_KEYS", current)]).unwrap_err();
        assert!(
            err.problem.contains("STOREFRONT_SECRET_KEY itself"),
            "{err}"
        );
        let twice = "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf,a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf";
        let err = with(&[("STOREFRONT_PREVIOUS_SECRET_KEYS", twice)]).unwrap_err();
        assert!(err.problem.contains("listed twice"), "{err}");
    }

    #[test]
    fn generated_keys_are_random_and_read_back() {
        let a = SecretKey::generate();
        let b = SecretKey::generate();
        assert_ne!(a.bytes(), b.bytes());
        let hex = a.to_hex();
        assert_eq!(hex.expose().len(), 64);
        assert_eq!(
            SecretKey::parse(hex.expose()).expect("parses").bytes(),
            a.bytes()
        );
        assert_eq!(format!("{hex:?}"), "[redacted]");
    }

    #[test]
    fn missing_required_value_is_named() {
        let pairs: Vec<_> = valid()
            .into_iter()
            .filter(|(k, _)| *k != "STOREFRONT_UPSTREAM_API_KEY")
            .collect();
        let err = Settings::from_source(&Source::from_pairs(pairs)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "STOREFRONT_UPSTREAM_API_KEY: is required but not set"
        );
    }

    #[test]
    fn stripe_requires_its_credentials() {
        let err = with(&[("STOREFRONT_PAYMENTS", "stripe")]).unwrap_err();
        assert_eq!(err.var, "STOREFRONT_STRIPE_SECRET_KEY");
        let s = with(&[
            ("STOREFRONT_PAYMENTS", "stripe"),
            ("STOREFRONT_STRIPE_SECRET_KEY", "sk_test_1"),
            ("STOREFRONT_STRIPE_WEBHOOK_SECRET", "whsec_1"),
        ])
        .expect("valid");
        match s.payments {
            Payments::Stripe(stripe) => {
                assert_eq!(stripe.api_base.as_str(), "https://api.stripe.com/")
            }
            Payments::Demo => panic!("expected stripe"),
        }
    }

    #[test]
    fn numbers_are_range_checked() {
        let err = with(&[("STOREFRONT_WORKERS", "0")]).unwrap_err();
        assert_eq!(err.var, "STOREFRONT_WORKERS");
        let err = with(&[("STOREFRONT_DEFAULT_MARKUP_BPS", "12.5")]).unwrap_err();
        assert_eq!(err.var, "STOREFRONT_DEFAULT_MARKUP_BPS");
        let err = with(&[("STOREFRONT_AUTO_REFUND", "maybe")]).unwrap_err();
        assert_eq!(err.var, "STOREFRONT_AUTO_REFUND");
    }

    #[test]
    fn the_support_address_is_optional_and_must_be_an_address() {
        let s = with(&[]).expect("valid");
        assert_eq!(s.mail.support_email, None);
        let s = with(&[("STOREFRONT_SUPPORT_EMAIL", " help+shop@example.co.uk ")]).expect("valid");
        assert_eq!(
            s.mail.support_email.as_ref().map(Email::as_str),
            Some("help+shop@example.co.uk")
        );
        for bad in [
            "support",
            "support@localhost",
            "Support <support@example.com>",
            "a?subject=x@example.com",
            "a@exa_mple.com",
        ] {
            let err = with(&[("STOREFRONT_SUPPORT_EMAIL", bad)]).unwrap_err();
            assert_eq!(err.var, "STOREFRONT_SUPPORT_EMAIL", "{bad}");
            assert!(err.problem.contains("support@example.com"), "{err}");
        }
    }

    #[test]
    fn mail_needs_exactly_one_transport() {
        let err = with(&[("STOREFRONT_SMTP_URL", "smtp://localhost:25")]).unwrap_err();
        assert!(err.problem.contains("not both"), "{err}");
    }

    #[test]
    fn debug_output_hides_every_secret() {
        let s = with(&[
            (
                "STOREFRONT_DATABASE_URL",
                "postgres://shop:pgpassword@db.internal/shop",
            ),
            (
                "STOREFRONT_UPSTREAM_WEBHOOK_TOKEN",
                "hook_token_0123456789abcdefghijklmn",
            ),
            (
                "STOREFRONT_METRICS_TOKEN",
                "metrics_token_0123456789abcdef0123",
            ),
        ])
        .expect("valid");
        let debug = format!("{s:?}");
        for secret in [
            "pgpassword",
            "sk_live_supersecret",
            "hook_token_0123456789abcdefghijklmn",
            "metrics_token_0123456789",
            "0102030405",
        ] {
            assert!(!debug.contains(secret), "{secret} leaked in {debug}");
        }
        assert!(debug.contains("db.internal"), "{debug}");
    }

    #[test]
    fn keys_travel_only_over_https_or_to_this_machine() {
        for (var, url) in [
            (
                "STOREFRONT_UPSTREAM_BASE_URL",
                "http://partner.example.com/api/v1",
            ),
            ("STOREFRONT_UPSTREAM_BASE_URL", "http://10.0.0.5/api/v1"),
            ("STOREFRONT_STRIPE_API_BASE", "http://stripe.internal"),
        ] {
            let mut pairs = vec![(var, url)];
            if var == "STOREFRONT_STRIPE_API_BASE" {
                pairs.extend([
                    ("STOREFRONT_PAYMENTS", "stripe"),
                    ("STOREFRONT_STRIPE_SECRET_KEY", "sk_test_123"),
                    ("STOREFRONT_STRIPE_WEBHOOK_SECRET", "whsec_123"),
                ]);
            }
            let err = with(&pairs).expect_err(url);
            assert_eq!(err.var, var, "{url}");
            assert!(err.to_string().contains("https"), "{err}");
        }
        // A sandbox on a private network (a compose stack) is reached in clear only when
        // the setting that names the risk says so, and Stripe never.
        let plain = "http://sandbox:8787/api/v1";
        let allowed = with(&[
            ("STOREFRONT_UPSTREAM_BASE_URL", plain),
            ("STOREFRONT_ALLOW_PLAIN_HTTP_UPSTREAM", "true"),
        ])
        .expect("plain http allowed by name");
        assert_eq!(allowed.upstream.base_url.as_str(), plain);
        let err = with(&[
            ("STOREFRONT_UPSTREAM_BASE_URL", plain),
            ("STOREFRONT_ALLOW_PLAIN_HTTP_UPSTREAM", "false"),
        ])
        .expect_err("off by default");
        assert_eq!(err.var, "STOREFRONT_UPSTREAM_BASE_URL");
        let err = with(&[
            ("STOREFRONT_ALLOW_PLAIN_HTTP_UPSTREAM", "true"),
            ("STOREFRONT_PAYMENTS", "stripe"),
            ("STOREFRONT_STRIPE_SECRET_KEY", "sk_test_123"),
            ("STOREFRONT_STRIPE_WEBHOOK_SECRET", "whsec_123"),
            ("STOREFRONT_STRIPE_API_BASE", "http://stripe.internal"),
        ])
        .expect_err("stripe stays https");
        assert_eq!(err.var, "STOREFRONT_STRIPE_API_BASE");
        for url in [
            "https://partner.example.com/api/v1",
            "http://127.0.0.1:8787/api/v1",
            "http://localhost:8787/api/v1",
            "http://[::1]:8787/api/v1",
        ] {
            assert!(
                with(&[("STOREFRONT_UPSTREAM_BASE_URL", url)]).is_ok(),
                "{url}"
            );
        }
    }

    #[test]
    fn the_upstream_webhook_token_is_at_least_32_characters() {
        let short = "0123456789abcdef0123456789abcde";
        let err = with(&[("STOREFRONT_UPSTREAM_WEBHOOK_TOKEN", short)]).expect_err("31");
        assert_eq!(err.var, "STOREFRONT_UPSTREAM_WEBHOOK_TOKEN");
        assert!(!err.to_string().contains(short), "not echoed: {err}");
        let long = "0123456789abcdef0123456789abcdef";
        assert!(with(&[("STOREFRONT_UPSTREAM_WEBHOOK_TOKEN", long)]).is_ok());
    }

    #[test]
    fn metrics_token_is_off_by_default_and_must_be_long() {
        assert!(with(&[]).expect("valid").metrics_token.is_none());
        let token = "0123456789abcdef0123456789abcdef";
        let s = with(&[("STOREFRONT_METRICS_TOKEN", token)]).expect("valid");
        assert_eq!(
            s.metrics_token.as_ref().map(|t| t.expose().as_str()),
            Some(token)
        );
        for bad in [
            "short-token",
            "0123456789abcdef0123456789abcde!",
            "0123456789abcdef 0123456789abcdef",
        ] {
            let err = with(&[("STOREFRONT_METRICS_TOKEN", bad)]).unwrap_err();
            assert_eq!(err.var, "STOREFRONT_METRICS_TOKEN");
            assert!(!err.to_string().contains(bad), "{err}");
        }
    }

    #[test]
    fn the_client_country_header_needs_a_trusted_proxy() {
        assert_eq!(with(&[]).expect("valid").client_country_header, None);
        let err = with(&[("STOREFRONT_CLIENT_COUNTRY_HEADER", "CF-IPCountry")]).unwrap_err();
        assert_eq!(err.var, "STOREFRONT_CLIENT_COUNTRY_HEADER");
        assert!(err.problem.contains("STOREFRONT_TRUSTED_PROXIES"), "{err}");
        let s = with(&[
            ("STOREFRONT_CLIENT_COUNTRY_HEADER", "CF-IPCountry"),
            ("STOREFRONT_TRUSTED_PROXIES", "10.0.0.0/8"),
        ])
        .expect("valid");
        assert_eq!(
            s.client_country_header.as_ref().map(|h| h.as_str()),
            Some("cf-ipcountry")
        );
        let err = with(&[
            ("STOREFRONT_CLIENT_COUNTRY_HEADER", "not a header"),
            ("STOREFRONT_TRUSTED_PROXIES", "10.0.0.0/8"),
        ])
        .unwrap_err();
        assert!(err.problem.contains("not a header name"), "{err}");
    }

    #[test]
    fn trusted_proxies_are_addresses_or_networks() {
        assert!(with(&[]).expect("valid").trusted_proxies.is_empty());
        let s = with(&[(
            "STOREFRONT_TRUSTED_PROXIES",
            "10.0.0.0/8, 192.168.1.10,fd00::/8",
        )])
        .expect("valid");
        let ip = |s: &str| s.parse::<IpAddr>().expect("ip");
        assert!(s.trusted_proxies.contains(ip("10.1.2.3")));
        assert!(
            s.trusted_proxies.contains(ip("::ffff:10.1.2.3")),
            "IPv4-mapped"
        );
        assert!(s.trusted_proxies.contains(ip("192.168.1.10")));
        assert!(!s.trusted_proxies.contains(ip("192.168.1.11")));
        assert!(s.trusted_proxies.contains(ip("fd12::1")));
        let err =
            with(&[("STOREFRONT_TRUSTED_PROXIES", "10.0.0.0/8, proxy.internal")]).unwrap_err();
        assert_eq!(err.var, "STOREFRONT_TRUSTED_PROXIES");
        assert!(err.problem.contains("proxy.internal"), "{err}");
    }

    #[test]
    fn toml_file_is_overridden_by_the_environment() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("storefront.toml");
        std::fs::write(
            &path,
            "workers = 8\nbind = \"0.0.0.0:9000\"\nauto_refund = true\n",
        )
        .expect("write");
        let mut src = Source::from_toml_file(&path).expect("parse");
        src.overlay(valid());
        src.overlay([("STOREFRONT_WORKERS", "2")]);
        let s = Settings::from_source(&src).expect("valid");
        assert_eq!(s.workers, 2);
        assert_eq!(s.bind.port(), 9000);
        assert!(s.auto_refund);
    }
}
