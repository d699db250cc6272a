//! Stripe Checkout: hosted payment pages, signed webhooks, session look-ups and refunds, over
//! Stripe's REST API (`{api_base}/v1/…`, form-encoded requests, JSON answers).
//!
//! What this module decides, so callers need not know Stripe:
//! - A purchase is paid only on `checkout.session.completed` with `payment_status=paid`, or on
//!   `checkout.session.async_payment_succeeded` (bank debits and the like settle days later).
//! - Every amount handed out as [`Cents`] is a USD amount. The shop only creates USD sessions,
//!   so an event that carries money in another currency is something we never asked for; it is
//!   reported as [`PaymentError::Malformed`] (loud, never counted as paid) rather than as an
//!   ignorable `Other`, because money may have been taken and someone has to look.
//! - Errors: Stripe's 4xx answers become [`PaymentError::Refused`] with Stripe's own message (it
//!   never carries our secret, and it is scrubbed anyway); 5xx, 429, lock timeouts, timeouts and
//!   connection failures become [`PaymentError::Unavailable`]. Every write carries an
//!   `Idempotency-Key`, so a caller may retry `Unavailable` with the same key (Stripe keeps keys
//!   for at least 24 hours) without creating a second session or refund.
//! - The secret key lives in one sensitive header value; it is never in `Debug`, logs or errors.

use std::fmt;
use std::time::{Duration, SystemTime};

use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderValue};
use reqwest::{Method, StatusCode};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use url::Url;
use url::form_urlencoded;

use super::signature;
use super::{
    CheckoutRequest, CheckoutSession, EventKind, PaidTax, PaymentError, PaymentEvent,
    PaymentProvider, ProviderTax, Refund, RefundStatus, SessionState,
};
use crate::config::{Secret, StripeSettings};
use crate::domain::Cents;
use crate::domain::tax::{RateBps, TaxLine};

/// The header Stripe signs webhooks in.
pub const SIGNATURE_HEADER: &str = "stripe-signature";

/// Stripe cannot charge less than $0.50 in USD.
pub const MINIMUM_CHARGE: Cents = Cents::new(50);

/// The only currency the shop charges in (lower case, as Stripe writes it).
const CURRENCY: &str = "usd";

/// Stripe replaces this literal in `success_url` with the session id after payment.
const SESSION_ID_TEMPLATE: &str = "{CHECKOUT_SESSION_ID}";

pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// Stripe answers in well under a second normally; 30 s leaves room for a slow moment while
/// keeping a checkout request from hanging. A timeout is `Unavailable`: the idempotency key
/// makes the retry safe even if Stripe did the work.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// Longest piece of a Stripe error message we keep, so an odd answer cannot flood a log line.
const MAX_MESSAGE_CHARS: usize = 300;

/// The Stripe provider. Cheap to share behind the [`super::Provider`] enum.
pub struct StripeProvider {
    http: reqwest::Client,
    api_base: Url,
    authorization: HeaderValue,
    /// Kept only to scrub it out of any text that could reach an error or a log.
    secret_key: Secret<String>,
    webhook_secret: Secret<String>,
}

impl fmt::Debug for StripeProvider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StripeProvider")
            .field("api_base", &self.api_base.as_str())
            .field("secret_key", &"[redacted]")
            .field("webhook_secret", &"[redacted]")
            .finish()
    }
}

fn config_error(problem: &str) -> PaymentError {
    // `PaymentError` has no configuration variant; a provider that cannot be built refuses
    // every request, and the message names the setting without its value.
    PaymentError::Refused(problem.to_string())
}

impl StripeProvider {
    pub fn new(settings: &StripeSettings) -> Result<Self, PaymentError> {
        Self::with_timeouts(settings, DEFAULT_CONNECT_TIMEOUT, DEFAULT_REQUEST_TIMEOUT)
    }

    /// As [`Self::new`] with explicit timeouts (tests use short ones).
    pub fn with_timeouts(
        settings: &StripeSettings,
        connect_timeout: Duration,
        request_timeout: Duration,
    ) -> Result<Self, PaymentError> {
        let api_base = settings.api_base.clone();
        if !matches!(api_base.scheme(), "http" | "https")
            || !api_base.has_host()
            || api_base.cannot_be_a_base()
            || !api_base.username().is_empty()
            || api_base.password().is_some()
            || api_base.query().is_some()
            || api_base.fragment().is_some()
        {
            return Err(config_error(
                "STOREFRONT_STRIPE_API_BASE must be a plain http(s) origin",
            ));
        }
        let key = settings.secret_key.expose().trim();
        if key.is_empty() {
            return Err(config_error("STOREFRONT_STRIPE_SECRET_KEY is empty"));
        }
        // A publishable key is public and cannot create sessions: catch the mix-up at start
        // rather than at the first sale.
        if key.starts_with("pk_") {
            return Err(config_error(
                "STOREFRONT_STRIPE_SECRET_KEY holds a publishable key (pk_…); use the secret key (sk_… or rk_…)",
            ));
        }
        let mut authorization = HeaderValue::from_str(&format!("Bearer {key}")).map_err(|_| {
            config_error(
                "STOREFRONT_STRIPE_SECRET_KEY contains characters that cannot be sent in a header",
            )
        })?;
        // Keeps the value out of reqwest's and hyper's own Debug output.
        authorization.set_sensitive(true);
        if settings.webhook_secret.expose().trim().is_empty() {
            return Err(config_error("STOREFRONT_STRIPE_WEBHOOK_SECRET is empty"));
        }
        let http = reqwest::Client::builder()
            .connect_timeout(connect_timeout)
            .timeout(request_timeout)
            // Stripe never redirects API calls; following one could send the key elsewhere.
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("storefront/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| PaymentError::Unavailable(e.without_url().to_string()))?;
        Ok(Self {
            http,
            api_base,
            authorization,
            secret_key: Secret::new(key.to_string()),
            webhook_secret: Secret::new(settings.webhook_secret.expose().trim().to_string()),
        })
    }

    fn endpoint(&self, segments: &[&str]) -> Url {
        let mut url = self.api_base.clone();
        // `with_timeouts` refused cannot-be-a-base URLs, so this always applies.
        if let Ok(mut path) = url.path_segments_mut() {
            path.pop_if_empty().push("v1").extend(segments);
        }
        url
    }

    /// Removes the secret key from text that came from outside (Stripe's messages, reqwest's
    /// errors) before it can reach an error value or a log.
    fn scrub(&self, text: &str) -> String {
        let key = self.secret_key.expose();
        let scrubbed = if key.is_empty() {
            text.to_string()
        } else {
            text.replace(key.as_str(), "[redacted]")
        };
        scrubbed.chars().take(MAX_MESSAGE_CHARS).collect()
    }

    /// Sends one request and decodes a 2xx answer as `T`; anything else becomes a typed error.
    async fn call<T: DeserializeOwned>(
        &self,
        method: Method,
        url: Url,
        form: Option<String>,
        idempotency_key: Option<&str>,
    ) -> Result<T, PaymentError> {
        let mut headers = HeaderMap::new();
        headers.insert(AUTHORIZATION, self.authorization.clone());
        if let Some(key) = idempotency_key {
            let value = HeaderValue::from_str(key).map_err(|_| {
                PaymentError::Refused("the idempotency key cannot be sent in a header".into())
            })?;
            headers.insert("idempotency-key", value);
        }
        let mut request = self.http.request(method, url).headers(headers);
        if let Some(body) = form {
            request = request
                .header(
                    CONTENT_TYPE,
                    HeaderValue::from_static("application/x-www-form-urlencoded"),
                )
                .body(body);
        }
        let response = request.send().await.map_err(|e| self.transport_error(e))?;
        let status = response.status();
        // Stripe may say explicitly whether a retry can help (`Stripe-Should-Retry`); when it
        // does, that wins over our reading of the status code.
        let should_retry = response
            .headers()
            .get("stripe-should-retry")
            .and_then(|v| v.to_str().ok())
            .map(|v| v.eq_ignore_ascii_case("true"));
        let body = response
            .bytes()
            .await
            .map_err(|e| self.transport_error(e))?;
        if status.is_success() {
            return serde_json::from_slice(&body).map_err(|e| {
                // The work may have been done; the caller's retry with the same idempotency key
                // returns the same object, so this is worth retrying.
                PaymentError::Unavailable(format!("Stripe's answer could not be read: {e}"))
            });
        }
        Err(self.status_error(status, should_retry, &body))
    }

    fn transport_error(&self, error: reqwest::Error) -> PaymentError {
        let what = if error.is_timeout() {
            "Stripe did not answer in time"
        } else if error.is_connect() {
            "Stripe could not be reached"
        } else {
            "the request to Stripe failed"
        };
        let detail = self.scrub(&error.without_url().to_string());
        PaymentError::Unavailable(format!("{what}: {detail}"))
    }

    fn status_error(
        &self,
        status: StatusCode,
        should_retry: Option<bool>,
        body: &[u8],
    ) -> PaymentError {
        let error = serde_json::from_slice::<ErrorBody>(body)
            .ok()
            .map(|b| b.error)
            .unwrap_or_default();
        let message = match error.message.as_deref() {
            Some(m) if !m.trim().is_empty() => self.scrub(m.trim()),
            _ => format!("HTTP {}", status.as_u16()),
        };
        let retryable = should_retry.unwrap_or_else(|| {
            // Not a 4xx (5xx, or an unexpected 1xx/3xx), rate limited, or another request
            // holding the same object or idempotency key: a later retry may succeed.
            !status.is_client_error()
                || status == StatusCode::TOO_MANY_REQUESTS
                || error.code.as_deref() == Some("lock_timeout")
        });
        if retryable {
            PaymentError::Unavailable(format!("Stripe answered {}: {message}", status.as_u16()))
        } else {
            PaymentError::Refused(message)
        }
    }
}

/// `success_url` with `session_id={CHECKOUT_SESSION_ID}` appended to its query.
///
/// The braces are appended as text, not through `Url`'s query serializer, which would write
/// `%7B…%7D`: Stripe substitutes only the literal `{CHECKOUT_SESSION_ID}`. (The form encoding
/// of the request body escapes them on the wire; Stripe decodes the form back to the literal.)
pub fn success_url_with_session(success_url: &Url) -> String {
    let mut base = success_url.clone();
    let fragment = base.fragment().map(str::to_string);
    base.set_fragment(None);
    let had_query = base.query().is_some_and(|q| !q.is_empty());
    // An empty query (`…/pu1?`) is dropped so the result has no `?&`.
    if !had_query {
        base.set_query(None);
    }
    let mut text = base.to_string();
    text.push(if had_query { '&' } else { '?' });
    text.push_str("session_id=");
    text.push_str(SESSION_ID_TEMPLATE);
    if let Some(fragment) = fragment {
        text.push('#');
        text.push_str(&fragment);
    }
    text
}

/// The form body of `POST /v1/checkout/sessions`, in a fixed order.
pub fn checkout_form(request: &CheckoutRequest) -> Vec<(&'static str, String)> {
    let mut form = vec![
        ("mode", "payment".to_string()),
        ("line_items[0][price_data][currency]", CURRENCY.to_string()),
        (
            "line_items[0][price_data][unit_amount]",
            request.amount.get().to_string(),
        ),
        (
            "line_items[0][price_data][product_data][name]",
            request.description.clone(),
        ),
        (
            "line_items[0][quantity]",
            request.quantity.max(1).to_string(),
        ),
        ("client_reference_id", request.purchase_id.to_string()),
        ("metadata[purchase_id]", request.purchase_id.to_string()),
        (
            "payment_intent_data[metadata][purchase_id]",
            request.purchase_id.to_string(),
        ),
        ("customer_email", request.email.as_str().to_string()),
        (
            "success_url",
            success_url_with_session(&request.success_url),
        ),
        ("cancel_url", request.cancel_url.to_string()),
    ];
    if let Some(expires_at) = request.expires_at_unix {
        form.push(("expires_at", expires_at.to_string()));
    }
    if request.tax.is_on() {
        // Stripe Tax computes the tax from the billing address it collects; the price is
        // gross (tax carved out) or net (tax added on top) as the owner set.
        form.push(("automatic_tax[enabled]", "true".to_string()));
        form.push((
            "line_items[0][price_data][tax_behavior]",
            request.tax.as_str().to_string(),
        ));
        form.push(("billing_address_collection", "required".to_string()));
    }
    form
}

fn encode_form<'a>(pairs: impl IntoIterator<Item = (&'a str, String)>) -> String {
    let mut form = form_urlencoded::Serializer::new(String::new());
    for (key, value) in pairs {
        form.append_pair(key, &value);
    }
    form.finish()
}

/// Stripe ids are ASCII letters, digits and underscores (`cs_test_a1B2…`). Anything else is
/// refused before it is put in a URL path.
fn valid_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 255 && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

// ---- Stripe's JSON, only the fields we read; unknown fields are ignored ---------------------

#[derive(Debug, Default, Deserialize)]
struct ErrorBody {
    #[serde(default)]
    error: StripeError,
}

#[derive(Debug, Default, Deserialize)]
struct StripeError {
    message: Option<String>,
    code: Option<String>,
}

#[derive(Debug, Deserialize)]
struct CreatedSession {
    id: String,
    url: Option<String>,
}

/// A reference Stripe may send as an id or, when expanded, as an object with an id.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Expandable {
    Id(String),
    Object { id: String },
}

impl Expandable {
    fn into_id(self) -> String {
        match self {
            Self::Id(id) | Self::Object { id } => id,
        }
    }
}

#[derive(Debug, Default, Deserialize)]
struct Metadata {
    purchase_id: Option<String>,
}

#[derive(Debug, Deserialize)]
struct SessionObject {
    id: String,
    status: Option<String>,
    payment_status: Option<String>,
    amount_total: Option<i64>,
    currency: Option<String>,
    client_reference_id: Option<String>,
    #[serde(default)]
    metadata: Option<Metadata>,
    payment_intent: Option<Expandable>,
    /// Read field by field ([`reported_tax`]): a shape we do not expect there must never
    /// stop a payment from counting.
    #[serde(default)]
    total_details: Option<serde_json::Value>,
    #[serde(default)]
    customer_details: Option<serde_json::Value>,
    #[serde(default)]
    automatic_tax: Option<serde_json::Value>,
}

#[derive(Debug, Deserialize)]
struct ChargeObject {
    amount_refunded: i64,
    currency: Option<String>,
    payment_intent: Option<Expandable>,
}

#[derive(Debug, Deserialize)]
struct DisputeObject {
    payment_intent: Option<Expandable>,
}

#[derive(Debug, Deserialize)]
struct RefundObject {
    id: String,
    status: Option<String>,
}

#[derive(Debug, Deserialize)]
struct RawEvent {
    id: String,
    #[serde(rename = "type")]
    kind: String,
    data: Option<RawEventData>,
}

#[derive(Debug, Deserialize)]
struct RawEventData {
    object: serde_json::Value,
}

fn malformed(what: impl fmt::Display) -> PaymentError {
    PaymentError::Malformed(what.to_string())
}

/// Decodes `data.object` of a known event type.
fn object<T: DeserializeOwned>(event: &RawEvent) -> Result<T, PaymentError> {
    let data = event
        .data
        .as_ref()
        .ok_or_else(|| malformed(format!("{} event without data.object", event.kind)))?;
    T::deserialize(&data.object).map_err(|e| malformed(format!("{}: {e}", event.kind)))
}

/// An amount Stripe reported, as USD cents; any other currency or a negative amount is refused
/// (see the module comment).
fn usd_amount(amount: i64, currency: Option<&str>, what: &str) -> Result<Cents, PaymentError> {
    match currency {
        Some(c) if c.eq_ignore_ascii_case(CURRENCY) => {}
        Some(c) => {
            return Err(malformed(format!(
                "{what} is in {c:?}, not USD: not counted, check it in the Stripe dashboard"
            )));
        }
        None => return Err(malformed(format!("{what} has no currency"))),
    }
    if amount < 0 {
        return Err(malformed(format!("{what} has a negative amount")));
    }
    Ok(Cents::new(amount))
}

impl SessionObject {
    /// `client_reference_id`, else `metadata.purchase_id`. Both are set by us; if both are
    /// present they must agree, or something other than this shop edited the session.
    fn purchase_id(&self) -> Result<Option<String>, PaymentError> {
        let reference = self.client_reference_id.clone().filter(|s| !s.is_empty());
        let metadata = self
            .metadata
            .as_ref()
            .and_then(|m| m.purchase_id.clone())
            .filter(|s| !s.is_empty());
        match (reference, metadata) {
            (Some(a), Some(b)) if a != b => Err(malformed(format!(
                "session {} names two purchases (client_reference_id and metadata)",
                self.id
            ))),
            (Some(a), _) => Ok(Some(a)),
            (None, b) => Ok(b),
        }
    }

    fn paid(self) -> Result<EventKind, PaymentError> {
        let amount = self
            .amount_total
            .ok_or_else(|| malformed(format!("paid session {} has no amount_total", self.id)))?;
        let amount = usd_amount(
            amount,
            self.currency.as_deref(),
            &format!("session {}", self.id),
        )?;
        let purchase_id = self.purchase_id()?;
        let tax = self.reported_tax();
        Ok(EventKind::Paid {
            session_id: self.id,
            purchase_id,
            amount,
            payment_reference: self.payment_intent.map(Expandable::into_id),
            tax,
        })
    }

    /// The billing country and the tax Stripe computed, as far as the session says.
    fn reported_tax(&self) -> PaidTax {
        let billing_country = self
            .customer_details
            .as_ref()
            .and_then(|c| c.pointer("/address/country"))
            .and_then(serde_json::Value::as_str)
            .filter(|c| !c.is_empty())
            .map(str::to_string);
        let enabled = self
            .automatic_tax
            .as_ref()
            .and_then(|a| a.get("enabled"))
            .and_then(serde_json::Value::as_bool)
            == Some(true);
        let amount = self
            .total_details
            .as_ref()
            .and_then(|t| t.get("amount_tax"))
            .and_then(serde_json::Value::as_i64);
        let computed = if enabled || amount.is_some_and(|a| a > 0) {
            Some(ProviderTax {
                amount: Cents::new(amount.unwrap_or(0).max(0)),
                lines: self
                    .total_details
                    .as_ref()
                    .map(breakdown_lines)
                    .unwrap_or_default(),
            })
        } else {
            None
        };
        PaidTax {
            billing_country,
            computed,
        }
    }

    fn failed(self, reason: &str) -> Result<EventKind, PaymentError> {
        let purchase_id = self.purchase_id()?;
        Ok(EventKind::Failed {
            session_id: self.id,
            purchase_id,
            reason: reason.to_string(),
        })
    }
}

/// The lines of `total_details.breakdown.taxes`, as reported: each line's tax and taxable
/// amount, its rate (`rate.percentage`, in basis points) and where it is owed (`rate.country`,
/// with `rate.state` as `US-CA`, else `rate.jurisdiction`). A line without an amount is
/// skipped; a missing rate or place stays unknown. Empty when Stripe sent no breakdown (it
/// sends one only when asked to expand it).
fn breakdown_lines(total_details: &serde_json::Value) -> Vec<TaxLine> {
    let Some(taxes) = total_details
        .pointer("/breakdown/taxes")
        .and_then(serde_json::Value::as_array)
    else {
        return Vec::new();
    };
    taxes
        .iter()
        .filter_map(|item| {
            let tax = item.get("amount").and_then(serde_json::Value::as_i64)?;
            let taxable = item
                .get("taxable_amount")
                .and_then(serde_json::Value::as_i64)
                .unwrap_or(0);
            let rate = item.get("rate");
            let text = |key: &str| {
                rate.and_then(|r| r.get(key))
                    .and_then(serde_json::Value::as_str)
                    .map(str::trim)
                    .filter(|t| !t.is_empty())
                    .map(str::to_string)
            };
            let jurisdiction = match (text("country"), text("state")) {
                (Some(country), Some(state)) => Some(format!("{country}-{state}")),
                (Some(country), None) => Some(country),
                (None, _) => text("jurisdiction"),
            };
            let percent = rate
                .and_then(|r| r.get("percentage"))
                .and_then(|p| match p {
                    serde_json::Value::Number(n) => Some(n.to_string()),
                    serde_json::Value::String(s) => Some(s.clone()),
                    _ => None,
                })
                .and_then(|p| RateBps::from_reported_percent(&p));
            Some(TaxLine {
                jurisdiction,
                rate: percent,
                taxable: Cents::new(taxable.max(0)),
                tax: Cents::new(tax.max(0)),
            })
        })
        .collect()
}

/// Maps a verified event body to a typed event. Public so the mapping can be tested without
/// signing; production code goes through [`PaymentProvider::verify_event`].
pub fn parse_event(body: &[u8]) -> Result<PaymentEvent, PaymentError> {
    let event: RawEvent = serde_json::from_slice(body).map_err(malformed)?;
    if event.id.is_empty() {
        return Err(malformed("event without an id"));
    }
    let other = || EventKind::Other {
        kind: event.kind.clone(),
    };
    let kind = match event.kind.as_str() {
        "checkout.session.completed" => {
            let session: SessionObject = object(&event)?;
            // `unpaid` here means a delayed method (a bank debit) was chosen: the money is not
            // there yet and `async_payment_succeeded` or `_failed` follows.
            if session.payment_status.as_deref() == Some("paid") {
                session.paid()?
            } else {
                other()
            }
        }
        "checkout.session.async_payment_succeeded" => object::<SessionObject>(&event)?.paid()?,
        "checkout.session.async_payment_failed" => {
            object::<SessionObject>(&event)?.failed("the delayed payment failed after checkout")?
        }
        "checkout.session.expired" => object::<SessionObject>(&event)?.failed("expired")?,
        "charge.refunded" => {
            let charge: ChargeObject = object(&event)?;
            match charge.payment_intent {
                // Every charge made through Checkout has a PaymentIntent; a charge without one
                // was made some other way on the same account and is none of the shop's business.
                None => other(),
                Some(pi) => {
                    let amount = usd_amount(
                        charge.amount_refunded,
                        charge.currency.as_deref(),
                        "refunded charge",
                    )?;
                    EventKind::Refunded {
                        payment_reference: pi.into_id(),
                        amount,
                    }
                }
            }
        }
        "charge.dispute.created" => {
            let dispute: DisputeObject = object(&event)?;
            match dispute.payment_intent {
                None => other(),
                Some(pi) => EventKind::Disputed {
                    payment_reference: pi.into_id(),
                },
            }
        }
        _ => other(),
    };
    Ok(PaymentEvent { id: event.id, kind })
}

fn refund_status(status: Option<&str>) -> RefundStatus {
    match status {
        Some("succeeded") => RefundStatus::Succeeded,
        Some("failed" | "canceled") => RefundStatus::Failed,
        // `pending`, `requires_action` (the customer must give bank details), a missing status
        // or one Stripe adds later: not final, the `charge.refunded` event or a later look-up
        // settles it. Never guess success or failure.
        _ => RefundStatus::Pending,
    }
}

impl PaymentProvider for StripeProvider {
    fn name(&self) -> &'static str {
        "stripe"
    }

    fn minimum_charge(&self) -> Cents {
        MINIMUM_CHARGE
    }

    fn signature_header(&self) -> &'static str {
        SIGNATURE_HEADER
    }

    async fn create_checkout(
        &self,
        request: &CheckoutRequest,
    ) -> Result<CheckoutSession, PaymentError> {
        if request.amount < MINIMUM_CHARGE {
            return Err(PaymentError::Refused(format!(
                "Stripe cannot charge less than {MINIMUM_CHARGE}"
            )));
        }
        let body = encode_form(checkout_form(request));
        let created: CreatedSession = self
            .call(
                Method::POST,
                self.endpoint(&["checkout", "sessions"]),
                Some(body),
                Some(&request.idempotency_key),
            )
            .await?;
        // Retrying returns the same session, so an answer without a usable URL is final.
        let url = created.url.ok_or_else(|| {
            PaymentError::Refused(format!("Stripe session {} has no hosted URL", created.id))
        })?;
        let redirect_url = Url::parse(&url)
            .ok()
            .filter(|u| matches!(u.scheme(), "https" | "http"))
            .ok_or_else(|| {
                PaymentError::Refused(format!("Stripe session {} has no usable URL", created.id))
            })?;
        Ok(CheckoutSession {
            id: created.id,
            redirect_url,
        })
    }

    fn verify_event(
        &self,
        signature_value: Option<&str>,
        body: &[u8],
        now: SystemTime,
    ) -> Result<PaymentEvent, PaymentError> {
        // Over the raw bytes exactly as received: re-serialised JSON would not match.
        signature::verify(
            self.webhook_secret.expose().as_bytes(),
            signature_value,
            body,
            now,
        )?;
        parse_event(body)
    }

    async fn session_state(&self, session_id: &str) -> Result<SessionState, PaymentError> {
        if !valid_id(session_id) {
            return Err(PaymentError::Refused(
                "not a Stripe Checkout Session id".into(),
            ));
        }
        let session: SessionObject = self
            .call(
                Method::GET,
                self.endpoint(&["checkout", "sessions", session_id]),
                None,
                None,
            )
            .await?;
        if session.payment_status.as_deref() == Some("paid") {
            // Same rule as events: a paid session in another currency is not "paid" for us.
            usd_amount(
                session.amount_total.unwrap_or_default(),
                session.currency.as_deref(),
                &format!("session {}", session.id),
            )
            .map_err(|e| PaymentError::Refused(e.to_string()))?;
            Ok(SessionState::Paid)
        } else if session.status.as_deref() == Some("expired") {
            Ok(SessionState::Failed)
        } else {
            Ok(SessionState::Open)
        }
    }

    async fn tax_breakdown(&self, session_id: &str) -> Result<Vec<TaxLine>, PaymentError> {
        if !valid_id(session_id) {
            return Err(PaymentError::Refused(
                "not a Stripe Checkout Session id".into(),
            ));
        }
        let mut url = self.endpoint(&["checkout", "sessions", session_id]);
        url.query_pairs_mut()
            .append_pair("expand[]", "total_details.breakdown");
        let session: SessionObject = self.call(Method::GET, url, None, None).await?;
        Ok(session
            .total_details
            .as_ref()
            .map(breakdown_lines)
            .unwrap_or_default())
    }

    async fn refund(
        &self,
        payment_reference: &str,
        amount: Cents,
        idempotency_key: &str,
    ) -> Result<Refund, PaymentError> {
        if amount.get() <= 0 {
            return Err(PaymentError::Refused(
                "a refund needs a positive amount".into(),
            ));
        }
        if payment_reference.is_empty() {
            return Err(PaymentError::Refused(
                "a refund needs a payment reference".into(),
            ));
        }
        let body = encode_form([
            ("payment_intent", payment_reference.to_string()),
            ("amount", amount.get().to_string()),
        ]);
        let refund: RefundObject = self
            .call(
                Method::POST,
                self.endpoint(&["refunds"]),
                Some(body),
                Some(idempotency_key),
            )
            .await?;
        Ok(Refund {
            id: refund.id,
            status: refund_status(refund.status.as_deref()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_session_template_is_appended_literally() {
        let cases = [
            (
                "https://shop.example/orders/pu1",
                "https://shop.example/orders/pu1?session_id={CHECKOUT_SESSION_ID}",
            ),
            (
                "https://shop.example/orders/pu1?x=1",
                "https://shop.example/orders/pu1?x=1&session_id={CHECKOUT_SESSION_ID}",
            ),
            (
                "https://shop.example/orders/pu1?",
                "https://shop.example/orders/pu1?session_id={CHECKOUT_SESSION_ID}",
            ),
            (
                "https://shop.example/orders/pu1#top",
                "https://shop.example/orders/pu1?session_id={CHECKOUT_SESSION_ID}#top",
            ),
        ];
        for (input, expected) in cases {
            let url = Url::parse(input).expect("url");
            assert_eq!(success_url_with_session(&url), expected, "{input}");
        }
    }

    #[test]
    fn refund_statuses_never_guess() {
        assert_eq!(refund_status(Some("succeeded")), RefundStatus::Succeeded);
        assert_eq!(refund_status(Some("pending")), RefundStatus::Pending);
        assert_eq!(
            refund_status(Some("requires_action")),
            RefundStatus::Pending
        );
        assert_eq!(refund_status(Some("failed")), RefundStatus::Failed);
        assert_eq!(refund_status(Some("canceled")), RefundStatus::Failed);
        assert_eq!(refund_status(Some("new_state")), RefundStatus::Pending);
        assert_eq!(refund_status(None), RefundStatus::Pending);
    }

    #[test]
    fn ids_that_could_leave_their_path_segment_are_refused() {
        assert!(valid_id("cs_test_a1B2c3"));
        for bad in [
            "",
            "..",
            "cs/../refunds",
            "cs?x=1",
            "cs#x",
            "cs%2F",
            "cs test",
        ] {
            assert!(!valid_id(bad), "{bad}");
        }
    }

    #[test]
    fn malformed_bodies_are_typed_errors() {
        for body in [
            &b""[..],
            b"not json",
            b"{}",
            br#"{"id":"evt_1"}"#,
            br#"{"id":"","type":"x"}"#,
            br#"{"id":"evt_1","type":"checkout.session.completed"}"#,
            br#"{"id":"evt_1","type":"checkout.session.completed","data":{"object":{"payment_status":"paid"}}}"#,
            br#"{"id":"evt_1","type":"charge.refunded","data":{"object":{"payment_intent":"pi_1","currency":"usd"}}}"#,
        ] {
            assert!(
                matches!(parse_event(body), Err(PaymentError::Malformed(_))),
                "{}",
                String::from_utf8_lossy(body)
            );
        }
    }
}
