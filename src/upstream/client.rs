//! The Partner API client: one method per endpoint of spec section 4, the transport rules
//! (bearer key, timeouts, no redirects), GET retries and the shared `Retry-After` gate.
//!
//! Rules that keep the purchase flow safe:
//! - The three POSTs take the caller's [`IdempotencyKey`] as a required argument and are sent
//!   exactly once per call. Whether to retry is the outbox's decision, made from [`Class`],
//!   because only it has persisted the key and body that a retry must reuse.
//! - GETs have no effect upstream, so they are retried here on `Unknown` and `RetryAfter`.
//! - After a 429 nothing is sent for the whole key until the gate opens. GETs wait for it (up to
//!   `max_gate_wait`); POSTs never wait and return `RetryAfter` at once, so an outbox worker
//!   does not sit on its job lease: it persists [`PartnerClient::gate_opens_at`] and reschedules.
//! - Redirects are never followed: the bearer key must not be sent to another location.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use reqwest::{Method, StatusCode};
use serde::Serialize;
use serde::de::DeserializeOwned;
use url::Url;

use super::error::{
    Class, ErrorKind, RawResponse, UpstreamError, classify_failure, from_transport, interpret,
};
use super::models::{
    AcceptedOrder, Balance, BalanceTransaction, CheckoutRequest, CheckoutSession, Country,
    Installation, Order, OrderRequest, Page, PartnerAccount, Plan, Region, TopUpRequest,
};
use super::pager::{self, PageSource};
use super::retry::{Backoff, GetRetry, RateGate, SharedGate, gate_closed, retry_get};
use super::types::{
    CountryCode, Cursor, IdempotencyKey, PageLimit, PathId, RegionSlug, TopUpAmount,
};
use crate::config::{Secret, UpstreamSettings};

const IDEMPOTENCY_KEY: HeaderName = HeaderName::from_static("idempotency-key");

/// Bodies larger than this are not read to the end: no spec'd answer comes close (100 plans),
/// and an endless body must not exhaust memory. Such a body is malformed (`Unknown`).
const MAX_BODY_BYTES: usize = 8 * 1024 * 1024;

/// How the client talks to the Partner API.
#[derive(Clone)]
pub struct UpstreamClientConfig {
    /// The API base including `/api/v1` (with or without a trailing slash).
    pub base_url: Url,
    pub api_key: Secret<String>,
    pub connect_timeout: Duration,
    /// Total time for one attempt, from sending to the last body byte.
    pub request_timeout: Duration,
    /// Attempts per GET call, including the first (at least 1).
    pub max_get_attempts: u32,
    /// Wait between GET attempts.
    pub backoff: Backoff,
    /// The longest a GET waits for a closed `Retry-After` gate before failing with
    /// `RetryAfter` instead (a page view or sync should not hang for minutes).
    pub max_gate_wait: Duration,
    /// A pager fails after this many pages rather than follow cursors forever.
    pub max_pages: u32,
}

impl UpstreamClientConfig {
    /// The defaults: 5 s to connect, 30 s per attempt, 3 GET attempts backing off from 250 ms to
    /// 8 s, GETs wait up to 10 s for the gate, at most 1000 pages per listing.
    pub fn new(base_url: Url, api_key: Secret<String>) -> Self {
        Self {
            base_url,
            api_key,
            connect_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(30),
            max_get_attempts: 3,
            backoff: Backoff {
                base: Duration::from_millis(250),
                cap: Duration::from_secs(8),
            },
            max_gate_wait: Duration::from_secs(10),
            max_pages: 1000,
        }
    }

    pub fn from_settings(settings: &UpstreamSettings) -> Self {
        Self::new(settings.base_url.clone(), settings.api_key.clone())
    }
}

/// Shows where the client points, never the key nor any user-info in the URL.
impl fmt::Debug for UpstreamClientConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UpstreamClientConfig")
            .field("base_url", &DisplayUrl(&self.base_url))
            .field("api_key", &self.api_key)
            .field("connect_timeout", &self.connect_timeout)
            .field("request_timeout", &self.request_timeout)
            .field("max_get_attempts", &self.max_get_attempts)
            .field("backoff", &self.backoff)
            .field("max_gate_wait", &self.max_gate_wait)
            .field("max_pages", &self.max_pages)
            .finish()
    }
}

/// A URL without user name, password, query or fragment.
struct DisplayUrl<'a>(&'a Url);

impl fmt::Debug for DisplayUrl<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "\"{}{}\"",
            self.0.origin().ascii_serialization(),
            self.0.path()
        )
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClientBuildError {
    #[error(
        "upstream base URL must be http:// or https:// with a host, and without user info, query or fragment"
    )]
    BaseUrl,
    #[error("upstream API key is empty or contains characters that cannot be sent in a header")]
    ApiKey,
    #[error("max_get_attempts must be at least 1")]
    Attempts,
    #[error("could not build the HTTP client: {0}")]
    Http(String),
}

/// Filters of `GET /plans`; both may be given, and both then apply.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlanFilter {
    pub country: Option<CountryCode>,
    pub region: Option<RegionSlug>,
}

/// The Partner API client. Cheap to clone; clones share the connection pool and the gate.
#[derive(Clone)]
pub struct PartnerClient {
    inner: Arc<Inner>,
}

struct Inner {
    http: reqwest::Client,
    base_url: Url,
    authorization: HeaderValue,
    get_retry: GetRetry,
    max_pages: u32,
    gate: RateGate,
    /// The gate other processes of the shop see, once [`PartnerClient::share_gate`] set it.
    shared: std::sync::OnceLock<Arc<dyn SharedGate>>,
}

impl fmt::Debug for PartnerClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PartnerClient")
            .field("base_url", &DisplayUrl(&self.inner.base_url))
            .field("api_key", &"[redacted]")
            .field("gate_opens_at", &self.gate_opens_at())
            .finish()
    }
}

/// How one call is named in logs: the path template, never the filled-in path.
type Template = &'static str;

/// A listing's pages, fetched by this client.
pub type Pager<T> = pager::Pager<T, PartnerClient>;

impl PageSource for PartnerClient {
    fn max_pages(&self) -> u32 {
        self.inner.max_pages
    }

    async fn fetch_page<T: DeserializeOwned>(
        &self,
        template: &'static str,
        url: Url,
    ) -> Result<Page<T>, UpstreamError> {
        self.get(template, url).await
    }
}

impl PartnerClient {
    pub fn new(config: UpstreamClientConfig) -> Result<Self, ClientBuildError> {
        let base_url = config.base_url;
        if !matches!(base_url.scheme(), "http" | "https")
            || !base_url.has_host()
            || base_url.cannot_be_a_base()
            || !base_url.username().is_empty()
            || base_url.password().is_some()
            || base_url.query().is_some()
            || base_url.fragment().is_some()
        {
            return Err(ClientBuildError::BaseUrl);
        }
        let key = config.api_key.expose();
        if key.is_empty() {
            return Err(ClientBuildError::ApiKey);
        }
        let mut authorization = HeaderValue::from_str(&format!("Bearer {key}"))
            .map_err(|_| ClientBuildError::ApiKey)?;
        // Keeps the value out of reqwest's and hyper's own Debug output.
        authorization.set_sensitive(true);
        if config.max_get_attempts == 0 {
            return Err(ClientBuildError::Attempts);
        }
        let http = reqwest::Client::builder()
            .connect_timeout(config.connect_timeout)
            .timeout(config.request_timeout)
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("storefront/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| ClientBuildError::Http(e.without_url().to_string()))?;
        Ok(Self {
            inner: Arc::new(Inner {
                http,
                base_url,
                authorization,
                get_retry: GetRetry {
                    max_attempts: config.max_get_attempts,
                    backoff: config.backoff,
                    max_gate_wait: config.max_gate_wait,
                },
                max_pages: config.max_pages,
                gate: RateGate::default(),
                shared: std::sync::OnceLock::new(),
            }),
        })
    }

    pub fn from_settings(settings: &UpstreamSettings) -> Result<Self, ClientBuildError> {
        Self::new(UpstreamClientConfig::from_settings(settings))
    }

    /// Shares the `Retry-After` gate through `store` with the shop's other processes (see
    /// [`SharedGate`]); this client and its clones then read it before every request and
    /// publish every 429. Set once; a second call changes nothing.
    pub fn share_gate(&self, store: Arc<dyn SharedGate>) {
        let _ = self.inner.shared.set(store);
    }

    /// When the `Retry-After` gate opens again; `None` while requests may be sent.
    pub fn gate_opens_at(&self) -> Option<SystemTime> {
        self.inner.gate.opens_at()
    }

    // ---- catalog -------------------------------------------------------------------------

    /// `GET /account`.
    pub async fn account(&self) -> Result<PartnerAccount, UpstreamError> {
        self.get("/account", self.endpoint(&["account"])).await
    }

    /// `GET /countries`.
    pub async fn countries(&self) -> Result<Vec<Country>, UpstreamError> {
        self.get("/countries", self.endpoint(&["countries"])).await
    }

    /// `GET /regions`.
    pub async fn regions(&self) -> Result<Vec<Region>, UpstreamError> {
        self.get("/regions", self.endpoint(&["regions"])).await
    }

    /// One page of `GET /plans`.
    pub async fn plans(
        &self,
        filter: &PlanFilter,
        cursor: Option<&Cursor>,
        limit: PageLimit,
    ) -> Result<Page<Plan>, UpstreamError> {
        self.get("/plans", with_cursor(self.plans_url(filter, limit), cursor))
            .await
    }

    /// Every page of `GET /plans` with the same filters.
    pub fn plans_pager(&self, filter: &PlanFilter, limit: PageLimit) -> Pager<Plan> {
        Pager::new(self.clone(), "/plans", self.plans_url(filter, limit))
    }

    /// `GET /plans/{id}`.
    pub async fn plan(&self, id: &PathId) -> Result<Plan, UpstreamError> {
        self.get("/plans/{id}", self.endpoint(&["plans", id.as_str()]))
            .await
    }

    // ---- wallet --------------------------------------------------------------------------

    /// `GET /balance`.
    pub async fn balance(&self) -> Result<Balance, UpstreamError> {
        self.get("/balance", self.endpoint(&["balance"])).await
    }

    /// One page of `GET /balance/transactions`.
    pub async fn balance_transactions(
        &self,
        cursor: Option<&Cursor>,
        limit: PageLimit,
    ) -> Result<Page<BalanceTransaction>, UpstreamError> {
        let url = self.list_url(&["balance", "transactions"], limit);
        self.get("/balance/transactions", with_cursor(url, cursor))
            .await
    }

    pub fn balance_transactions_pager(&self, limit: PageLimit) -> Pager<BalanceTransaction> {
        let url = self.list_url(&["balance", "transactions"], limit);
        Pager::new(self.clone(), "/balance/transactions", url)
    }

    /// `POST /balance/topups`: a hosted checkout link to fund the wallet. Sent once.
    pub async fn create_topup(
        &self,
        key: &IdempotencyKey,
        amount: TopUpAmount,
    ) -> Result<CheckoutSession, UpstreamError> {
        let body = TopUpRequest {
            amount_cents: amount,
        };
        let url = self.endpoint(&["balance", "topups"]);
        self.post("/balance/topups", url, key, &body, StatusCode::CREATED)
            .await
    }

    // ---- orders --------------------------------------------------------------------------

    /// `POST /orders`. Sent once; on `Class::Unknown` the caller must retry with the SAME key
    /// and request, never a new one (that could buy a second eSIM).
    pub async fn create_order(
        &self,
        key: &IdempotencyKey,
        request: &OrderRequest,
    ) -> Result<AcceptedOrder, UpstreamError> {
        let url = self.endpoint(&["orders"]);
        self.post("/orders", url, key, request, StatusCode::ACCEPTED)
            .await
    }

    /// One page of `GET /orders`.
    pub async fn orders(
        &self,
        cursor: Option<&Cursor>,
        limit: PageLimit,
    ) -> Result<Page<Order>, UpstreamError> {
        let url = self.list_url(&["orders"], limit);
        self.get("/orders", with_cursor(url, cursor)).await
    }

    pub fn orders_pager(&self, limit: PageLimit) -> Pager<Order> {
        Pager::new(self.clone(), "/orders", self.list_url(&["orders"], limit))
    }

    /// `GET /orders/{id}`.
    pub async fn order(&self, id: &PathId) -> Result<Order, UpstreamError> {
        self.get("/orders/{id}", self.endpoint(&["orders", id.as_str()]))
            .await
    }

    /// `GET` of an accepted order's `statusUrl`, after checking it stays on the API origin.
    pub async fn order_status(&self, accepted: &AcceptedOrder) -> Result<Order, UpstreamError> {
        let url = self.resolve_status_url(&accepted.status_url)?;
        self.get("{statusUrl}", url).await
    }

    /// `GET /esims/{id}/installation`. The result holds customer credentials; see
    /// [`Installation`].
    pub async fn installation(&self, esim_id: &PathId) -> Result<Installation, UpstreamError> {
        let url = self.endpoint(&["esims", esim_id.as_str(), "installation"]);
        self.get("/esims/{id}/installation", url).await
    }

    /// `POST /checkout-sessions`. Sent once.
    pub async fn create_checkout_session(
        &self,
        key: &IdempotencyKey,
        request: &CheckoutRequest,
    ) -> Result<CheckoutSession, UpstreamError> {
        let url = self.endpoint(&["checkout-sessions"]);
        self.post("/checkout-sessions", url, key, request, StatusCode::CREATED)
            .await
    }

    /// Resolves an `AcceptedOrder.statusUrl` against the ORIGIN of the base URL (the path
    /// already contains `/api/v1`). Anything that lands on another origin, or carries user
    /// info, is refused: the key is never sent anywhere but the API.
    pub fn resolve_status_url(&self, status_url: &str) -> Result<Url, UpstreamError> {
        resolve_status_url(&self.inner.base_url, status_url)
    }

    // ---- plumbing ------------------------------------------------------------------------

    /// `base_url` + the given path segments, each percent-encoded (a `/` or `?` in an id stays
    /// inside its segment).
    fn endpoint(&self, segments: &[&str]) -> Url {
        endpoint(&self.inner.base_url, segments)
    }

    fn list_url(&self, segments: &[&str], limit: PageLimit) -> Url {
        let mut url = self.endpoint(segments);
        url.query_pairs_mut()
            .append_pair("limit", &limit.get().to_string());
        url
    }

    fn plans_url(&self, filter: &PlanFilter, limit: PageLimit) -> Url {
        let mut url = self.list_url(&["plans"], limit);
        {
            let mut query = url.query_pairs_mut();
            if let Some(country) = &filter.country {
                query.append_pair("country", country.as_str());
            }
            if let Some(region) = &filter.region {
                query.append_pair("region", region.as_str());
            }
        }
        url
    }

    fn request(
        &self,
        method: Method,
        url: Url,
        key: Option<&IdempotencyKey>,
        body: Option<Vec<u8>>,
    ) -> reqwest::RequestBuilder {
        let mut request = self
            .inner
            .http
            .request(method, url)
            .header(AUTHORIZATION, self.inner.authorization.clone())
            .header(ACCEPT, HeaderValue::from_static("application/json"));
        if let Some(key) = key {
            // Validated to `[A-Za-z0-9._:-]`, always a legal header value.
            request = request.header(IDEMPOTENCY_KEY, key.as_str());
        }
        if let Some(body) = body {
            request = request
                .header(CONTENT_TYPE, HeaderValue::from_static("application/json"))
                .body(body);
        }
        request
    }

    /// A GET, retried on `Unknown` and `RetryAfter` with backoff, waiting for the gate.
    pub(crate) async fn get<T: DeserializeOwned>(
        &self,
        template: Template,
        url: Url,
    ) -> Result<T, UpstreamError> {
        retry_get(self.inner.get_retry, &self.inner.gate, || {
            let request = self.request(Method::GET, url.clone(), None, None);
            self.send_once(request, template, StatusCode::OK)
        })
        .await
    }

    /// A POST, sent at most once, and not at all while the gate is closed.
    async fn post<B: Serialize, T: DeserializeOwned>(
        &self,
        template: Template,
        url: Url,
        key: &IdempotencyKey,
        body: &B,
        expected: StatusCode,
    ) -> Result<T, UpstreamError> {
        if let Some(wait) = self.inner.gate.remaining() {
            return Err(gate_closed(wait));
        }
        // Request bodies are built from validated values only; failing to encode one is a bug,
        // reported as Definitive because nothing was sent.
        let body = serde_json::to_vec(body).map_err(|_| {
            UpstreamError::new(
                ErrorKind::Transport,
                Class::Definitive,
                "request body could not be encoded; nothing was sent",
            )
        })?;
        let request = self.request(Method::POST, url, Some(key), Some(body));
        self.send_once(request, template, expected).await
    }

    /// One attempt: send, read, classify, close the gate on a 429, log one line.
    async fn send_once<T: DeserializeOwned>(
        &self,
        request: reqwest::RequestBuilder,
        template: Template,
        expected: StatusCode,
    ) -> Result<T, UpstreamError> {
        if let Some(shared) = self.inner.shared.get() {
            // Another replica (or path) may have met a 429 a moment ago.
            if let Some(until) = shared.opens_at().await {
                self.inner.gate.close_until(until);
            }
            if let Some(wait) = self.inner.gate.remaining() {
                return Err(gate_closed(wait));
            }
        }
        let started = Instant::now();
        // The exchange first, then what a failure means for the gate, and only then the
        // decoding into `T`: the shared gate is written before the caller hears of a 429 (and
        // no `T` is alive across that write).
        let (method, status, answer) = match request.build() {
            Err(error) => (None, None, Err(from_transport(error))),
            Ok(request) => {
                let method = request.method().clone();
                match self.inner.http.execute(request).await {
                    Err(error) => (Some(method), None, Err(from_transport(error))),
                    Ok(response) => {
                        let status = response.status();
                        let now = SystemTime::now();
                        let answer = read_response(response).await.and_then(|raw| {
                            if raw.status == expected {
                                Ok(raw)
                            } else {
                                Err(classify_failure(&raw, now))
                            }
                        });
                        (Some(method), Some(status), answer)
                    }
                }
            }
        };
        self.inner.gate.observe(&answer);
        if let (Some(shared), Some(until)) = (self.inner.shared.get(), self.inner.gate.opens_at())
            && let Err(error) = &answer
            && error.kind() == ErrorKind::RateLimited
        {
            // Before the caller hears of the 429: a request another replica sends after this
            // answer finds the gate closed.
            shared.close_until(until).await;
        }
        let result = answer.and_then(|raw| interpret(&raw, expected, SystemTime::now()));
        let elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let method = method.as_ref().map(Method::as_str).unwrap_or("?");
        match &result {
            Ok(_) => tracing::debug!(
                http.method = method,
                upstream.path = template,
                http.status = status.map(|s| s.as_u16()),
                elapsed_ms,
                "upstream request"
            ),
            Err(error) => tracing::debug!(
                http.method = method,
                upstream.path = template,
                http.status = status.map(|s| s.as_u16()),
                elapsed_ms,
                upstream.request_id = error.request_id(),
                upstream.error = ?error.kind(),
                upstream.class = ?error.class(),
                "upstream request failed"
            ),
        }
        result
    }
}

fn with_cursor(mut url: Url, cursor: Option<&Cursor>) -> Url {
    if let Some(cursor) = cursor {
        url.query_pairs_mut().append_pair("cursor", cursor.as_str());
    }
    url
}

/// Reads status, headers and at most [`MAX_BODY_BYTES`] of body.
///
/// A success body cut off or too large is an error of its own: after a 202 the order may exist,
/// so it is `Unknown` whatever was read (the status is kept). Any other status classifies by
/// itself, the body only adding detail: a 429 whose body breaks off still closes the gate for
/// its `Retry-After`, and a 4xx is still a refusal. Such a body is kept as far as it was read.
async fn read_response(mut response: reqwest::Response) -> Result<RawResponse, UpstreamError> {
    let status = response.status();
    let headers: HeaderMap = response.headers().clone();
    let mut body = Vec::new();
    loop {
        let chunk = match response.chunk().await {
            Ok(Some(chunk)) => chunk,
            Ok(None) => break,
            Err(e) if status.is_success() => return Err(from_transport(e).with_status(status)),
            Err(_) => break,
        };
        if body.len() + chunk.len() > MAX_BODY_BYTES {
            if !status.is_success() {
                break;
            }
            return Err(UpstreamError::new(
                ErrorKind::MalformedBody,
                Class::Unknown,
                format!(
                    "HTTP {} body larger than {MAX_BODY_BYTES} bytes",
                    status.as_u16()
                ),
            )
            .with_status(status));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(RawResponse {
        status,
        headers,
        body,
    })
}

pub(crate) fn endpoint(base: &Url, segments: &[&str]) -> Url {
    let mut url = base.clone();
    // `PartnerClient::new` refused cannot-be-a-base URLs, so this always applies.
    if let Ok(mut path) = url.path_segments_mut() {
        path.pop_if_empty().extend(segments);
    }
    url
}

/// See [`PartnerClient::resolve_status_url`].
pub fn resolve_status_url(base: &Url, status_url: &str) -> Result<Url, UpstreamError> {
    let refused = |why: &str| {
        UpstreamError::new(
            ErrorKind::ForeignStatusUrl,
            Class::Definitive,
            format!("statusUrl refused, not followed: {why}"),
        )
    };
    let mut origin = base.clone();
    origin.set_path("/");
    origin.set_query(None);
    origin.set_fragment(None);
    let mut resolved = origin
        .join(status_url)
        .map_err(|_| refused("not a URL reference"))?;
    if resolved.origin() != base.origin() {
        return Err(refused("it points outside the API origin"));
    }
    if !resolved.username().is_empty() || resolved.password().is_some() {
        return Err(refused("it carries user info"));
    }
    resolved.set_fragment(None);
    Ok(resolved)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Cents, Email};
    use crate::upstream::types::{ApiAmount, OrderReference, PlanId};

    fn url(s: &str) -> Url {
        Url::parse(s).expect("url")
    }

    fn client_at(base: &str) -> PartnerClient {
        PartnerClient::new(UpstreamClientConfig::new(
            url(base),
            Secret::new("sk_live_TOPSECRET".to_string()),
        ))
        .expect("client")
    }

    #[test]
    fn status_url_resolves_against_the_origin() {
        for base in ["https://h/api/v1", "https://h/api/v1/", "https://h"] {
            let resolved = resolve_status_url(&url(base), "/api/v1/orders/o1").expect(base);
            assert_eq!(resolved.as_str(), "https://h/api/v1/orders/o1", "{base}");
        }
        let resolved =
            resolve_status_url(&url("http://127.0.0.1:8081/api/v1"), "/api/v1/orders/o%201")
                .expect("port kept");
        assert_eq!(
            resolved.as_str(),
            "http://127.0.0.1:8081/api/v1/orders/o%201"
        );
        let same_origin_absolute =
            resolve_status_url(&url("https://h/api/v1"), "https://h/api/v1/orders/o1#frag")
                .expect("same origin");
        assert_eq!(same_origin_absolute.as_str(), "https://h/api/v1/orders/o1");
    }

    #[test]
    fn foreign_status_urls_are_refused() {
        let base = url("https://h/api/v1");
        for foreign in [
            "https://evil.example/api/v1/orders/o1",
            "//evil.example/api/v1/orders/o1",
            "/\\evil.example/orders/o1",
            "http://h/api/v1/orders/o1",
            "https://h:8443/api/v1/orders/o1",
            "https://user:pw@h/api/v1/orders/o1",
            "javascript:alert(1)",
        ] {
            let e = resolve_status_url(&base, foreign).expect_err(foreign);
            assert_eq!(e.kind(), ErrorKind::ForeignStatusUrl, "{foreign}");
            assert_eq!(e.class(), Class::Definitive);
        }
    }

    #[test]
    fn endpoints_encode_ids_into_one_segment() {
        for base in ["https://h/api/v1", "https://h/api/v1/"] {
            let base = url(base);
            assert_eq!(
                endpoint(&base, &["orders"]).as_str(),
                "https://h/api/v1/orders"
            );
            assert_eq!(
                endpoint(&base, &["esims", "a/b?c#d %", "installation"]).as_str(),
                "https://h/api/v1/esims/a%2Fb%3Fc%23d%20%25/installation"
            );
        }
    }

    #[test]
    fn list_urls_carry_filters_limit_and_cursor() -> Result<(), Box<dyn std::error::Error>> {
        let client = client_at("https://h/api/v1");
        let filter = PlanFilter {
            country: Some(CountryCode::parse("DE")?),
            region: Some(RegionSlug::parse("europe & more")?),
        };
        let first = client.plans_url(&filter, PageLimit::new(50)?);
        assert_eq!(
            first.as_str(),
            "https://h/api/v1/plans?limit=50&country=DE&region=europe+%26+more"
        );
        let next = with_cursor(first, Some(&Cursor::parse("c=1&x")?));
        assert_eq!(
            next.query(),
            Some("limit=50&country=DE&region=europe+%26+more&cursor=c%3D1%26x")
        );
        assert_eq!(
            client.list_url(&["orders"], PageLimit::default()).as_str(),
            "https://h/api/v1/orders?limit=25"
        );
        Ok(())
    }

    #[test]
    fn post_requests_carry_key_auth_and_json() -> Result<(), Box<dyn std::error::Error>> {
        let client = client_at("https://h/api/v1/");
        let key = IdempotencyKey::parse("order-42-gen-1")?;
        let order = OrderRequest {
            plan_id: PlanId::parse("p1-base")?,
            expected_price_cents: ApiAmount::new(Cents::new(103))?,
            reference: OrderReference::parse("shop-42")?,
        };
        let body = serde_json::to_vec(&order)?;
        let request = client
            .request(
                Method::POST,
                client.endpoint(&["orders"]),
                Some(&key),
                Some(body),
            )
            .build()?;
        assert_eq!(request.url().as_str(), "https://h/api/v1/orders");
        let headers = request.headers();
        assert_eq!(headers["idempotency-key"], "order-42-gen-1");
        assert_eq!(headers[AUTHORIZATION], "Bearer sk_live_TOPSECRET");
        assert!(headers[AUTHORIZATION].is_sensitive());
        assert_eq!(headers[ACCEPT], "application/json");
        assert_eq!(headers[CONTENT_TYPE], "application/json");
        let sent: serde_json::Value =
            serde_json::from_slice(request.body().and_then(|b| b.as_bytes()).unwrap_or(b""))?;
        assert_eq!(
            sent,
            serde_json::json!({"planId": "p1-base", "expectedPriceCents": 103, "reference": "shop-42"})
        );
        let _ = Email::parse("a@b.co")?;
        Ok(())
    }

    #[test]
    fn get_requests_carry_no_key_and_no_body() -> Result<(), Box<dyn std::error::Error>> {
        let client = client_at("https://h/api/v1");
        let request = client
            .request(Method::GET, client.endpoint(&["balance"]), None, None)
            .build()?;
        assert!(request.headers().get("idempotency-key").is_none());
        assert!(request.body().is_none());
        Ok(())
    }

    #[test]
    fn debug_never_shows_the_key() {
        let config = UpstreamClientConfig::new(
            url("https://h/api/v1"),
            Secret::new("sk_live_TOPSECRET".to_string()),
        );
        let shown = format!("{config:?}");
        assert!(!shown.contains("TOPSECRET"), "{shown}");
        assert!(shown.contains("https://h/api/v1"), "{shown}");
        let client = PartnerClient::new(config).expect("client");
        let shown = format!("{client:?}");
        assert!(!shown.contains("TOPSECRET"), "{shown}");
        let request = client
            .request(Method::GET, client.endpoint(&["account"]), None, None)
            .build()
            .expect("request");
        assert!(!format!("{request:?}").contains("TOPSECRET"));
    }

    #[test]
    fn config_debug_hides_user_info_in_the_base_url() {
        let config = UpstreamClientConfig::new(
            url("https://user:pw-SECRET@h/api/v1"),
            Secret::new("k".to_string()),
        );
        assert!(!format!("{config:?}").contains("SECRET"));
    }

    #[test]
    fn bad_configurations_are_refused_without_echoing_the_key() {
        let build = |base: &str, key: &str| {
            PartnerClient::new(UpstreamClientConfig::new(
                url(base),
                Secret::new(key.to_string()),
            ))
        };
        for base in [
            "ftp://h/api/v1",
            "https://user:pw@h/api/v1",
            "https://h/api/v1?x=1",
            "https://h/api/v1#f",
            "mailto:a@b.co",
        ] {
            assert_eq!(
                build(base, "k").map(|_| ()),
                Err(ClientBuildError::BaseUrl),
                "{base}"
            );
        }
        assert_eq!(
            build("https://h", "").map(|_| ()),
            Err(ClientBuildError::ApiKey)
        );
        let err = build("https://h", "sk_SECRET\nX-Evil: 1")
            .map(|_| ())
            .unwrap_err();
        assert_eq!(err, ClientBuildError::ApiKey);
        assert!(!err.to_string().contains("SECRET"));
        let mut config = UpstreamClientConfig::new(url("https://h"), Secret::new("k".into()));
        config.max_get_attempts = 0;
        assert_eq!(
            PartnerClient::new(config).map(|_| ()),
            Err(ClientBuildError::Attempts)
        );
    }

    #[tokio::test]
    async fn closed_gate_stops_posts_before_sending_and_is_shared_by_clones()
    -> Result<(), Box<dyn std::error::Error>> {
        // Port 9 on localhost: if anything were sent, the error would be Connect, not GateClosed.
        let client = client_at("http://127.0.0.1:9/api/v1");
        let clone = client.clone();
        client.inner.gate.close_for(Duration::from_secs(60));
        assert!(clone.gate_opens_at().is_some());
        let key = IdempotencyKey::generate();
        let err = clone
            .create_topup(&key, TopUpAmount::new(Cents::new(1000))?)
            .await
            .expect_err("gate closed");
        assert_eq!(err.kind(), ErrorKind::GateClosed);
        assert!(matches!(err.class(), Class::RetryAfter(d) if d > Duration::from_secs(50)));
        // A GET does not wait a minute either: beyond max_gate_wait it fails the same way.
        let err = clone.balance().await.expect_err("gate closed");
        assert_eq!(err.kind(), ErrorKind::GateClosed);
        Ok(())
    }

    #[tokio::test]
    async fn transport_failures_are_unknown() -> Result<(), Box<dyn std::error::Error>> {
        // Nothing listens on a port we just bound and dropped: connection refused.
        let port = {
            let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
            listener.local_addr()?.port()
        };
        let client = client_at(&format!("http://127.0.0.1:{port}/api/v1"));
        let key = IdempotencyKey::generate();
        let order = OrderRequest {
            plan_id: PlanId::parse("p1-base")?,
            expected_price_cents: ApiAmount::new(Cents::new(103))?,
            reference: OrderReference::parse("shop-1")?,
        };
        let err = client
            .create_order(&key, &order)
            .await
            .expect_err("refused");
        assert_eq!(err.class(), Class::Unknown);
        assert_eq!(err.kind(), ErrorKind::Connect);
        assert!(!err.to_string().contains("sk_live"), "{err}");
        Ok(())
    }
}
