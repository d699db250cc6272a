//! Every way a Partner API call can fail, and the one classification every caller acts on.
//!
//! [`Class`] answers the only question that matters to the purchase flow: did the request have
//! an effect? `Definitive` means certainly not (the caller may refund, or try again under a new
//! key); `Unknown` means maybe (the caller must retry with the same key and body, never a new
//! one); `RetryAfter` means the key is rate-limited until a named time. When in doubt the answer
//! is `Unknown`: treating a maybe-order as no-order can buy a second eSIM, treating a no-order as
//! maybe only costs a retry.
//!
//! Classification works on a [`RawResponse`] (status, headers, body bytes), not on a live
//! `reqwest::Response`, so it is unit-tested without a server. Error messages never include a
//! response body (a success body may hold installation values) nor the API key.

use std::fmt;
use std::time::{Duration, SystemTime};

use reqwest::StatusCode;
use reqwest::header::{HeaderMap, RETRY_AFTER};
use serde::de::DeserializeOwned;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc2822;

use super::models::ErrorBody;

/// What the caller may conclude about the request's effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// The request certainly had no effect (400, 401, 403, 404, 409, or it was never sent for a
    /// reason that is not going to change, such as a refused `statusUrl`).
    Definitive,
    /// The request may or may not have had an effect: retry with the same key and body.
    Unknown,
    /// Rate-limited (429, or held back by the client's own gate): nothing may be sent for this
    /// long. The request had no effect, and a retry must use the same key.
    RetryAfter(Duration),
}

/// `error.code` of an error body. The spec names two codes; everything else is kept verbatim.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// 409: `expectedPriceCents` differs from the plan's current price. No order exists.
    PriceChanged,
    /// 409: available credit cannot cover the order. No order exists.
    InsufficientBalance,
    /// The `Idempotency-Key` was used before with another body. Not in the spec's list (the
    /// answer to such a reuse is "not shown"), so it is recognised whatever status carries it:
    /// an order may exist under that key.
    IdempotencyKeyReused,
    Other(String),
}

impl ErrorCode {
    pub fn parse(raw: &str) -> Self {
        match raw {
            "price_changed" => Self::PriceChanged,
            "insufficient_balance" => Self::InsufficientBalance,
            "idempotency_key_reused" => Self::IdempotencyKeyReused,
            other => Self::Other(other.to_string()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            Self::PriceChanged => "price_changed",
            Self::InsufficientBalance => "insufficient_balance",
            Self::IdempotencyKeyReused => "idempotency_key_reused",
            Self::Other(raw) => raw,
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why the API refused a request, for a caller that must tell a refusal that waits from one
/// that ends. This is the one place that decides it; callers never look at statuses or codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// 409 `price_changed`: no order; re-read the plan and decide.
    PriceChanged,
    /// 409 `insufficient_balance`: no order; the wallet needs a top-up.
    InsufficientBalance,
    /// The account cannot buy right now: 401 (bad or expired key), 403 (missing scope), or a
    /// 409 with a code this client does not know (a purchasing suspension, a deficit). No
    /// order exists, but the purchase is not at fault: it waits for the owner to fix the
    /// account and is sent again under the same key. Never a reason to refund.
    Account,
    /// `idempotency_key_reused`: the key was seen with another body, so an order may exist
    /// under it. Only looking the order up by its reference can tell.
    KeyReused,
    /// The request itself was refused (400, 404: bad body, unknown plan). No order exists and
    /// sending it again will not change that.
    Request,
}

/// What went wrong, in more detail than [`Class`]; for logs, metrics and admin messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// 400, 401, 403, 404 or 409: the API refused the request.
    Rejected,
    /// 429.
    RateLimited,
    /// 5xx.
    ServerError,
    /// A status the spec does not list for this endpoint (1xx, 3xx, other 4xx, other 2xx).
    UnexpectedStatus,
    /// The expected success status with a body we cannot read (not JSON, wrong shape, an
    /// out-of-range amount, too large).
    MalformedBody,
    /// The connect or total timeout elapsed.
    Timeout,
    /// The connection could not be established.
    Connect,
    /// Any other transport failure (reset, TLS, body read interrupted).
    Transport,
    /// Not sent: the client's `Retry-After` gate is closed for the whole key.
    GateClosed,
    /// A `statusUrl` that is not on the API's origin; it was not followed.
    ForeignStatusUrl,
    /// A list endpoint repeated a cursor or exceeded the page cap.
    Pagination,
}

/// A failed Partner API call.
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
pub struct UpstreamError {
    kind: ErrorKind,
    class: Class,
    status: Option<StatusCode>,
    code: Option<ErrorCode>,
    request_id: Option<String>,
    message: String,
}

impl UpstreamError {
    pub(crate) fn new(kind: ErrorKind, class: Class, message: impl Into<String>) -> Self {
        Self {
            kind,
            class,
            status: None,
            code: None,
            request_id: None,
            message: message.into(),
        }
    }

    pub(crate) fn with_status(mut self, status: StatusCode) -> Self {
        self.status = Some(status);
        self
    }

    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    pub fn class(&self) -> Class {
        self.class
    }

    /// The HTTP status, when a response was received.
    pub fn status(&self) -> Option<StatusCode> {
        self.status
    }

    /// `error.code`, when the error body was readable.
    pub fn code(&self) -> Option<&ErrorCode> {
        self.code.as_ref()
    }

    /// The upstream `requestId`, for support.
    pub fn request_id(&self) -> Option<&str> {
        self.request_id.as_deref()
    }

    /// Safe to log and to show an admin: never a body, never the key.
    pub fn message(&self) -> &str {
        &self.message
    }

    pub fn is_definitive(&self) -> bool {
        self.class == Class::Definitive
    }

    /// Why the API refused the request, when it did: `None` for outcomes that are unknown or
    /// rate-limited (the caller retries those under the same key).
    pub fn refusal(&self) -> Option<Refusal> {
        if self.code == Some(ErrorCode::IdempotencyKeyReused)
            && !matches!(self.class, Class::RetryAfter(_))
        {
            return Some(Refusal::KeyReused);
        }
        if self.class != Class::Definitive {
            return None;
        }
        let status = self.status.map(|s| s.as_u16());
        Some(match (status, &self.code) {
            (Some(409), Some(ErrorCode::PriceChanged)) => Refusal::PriceChanged,
            (Some(409), Some(ErrorCode::InsufficientBalance)) => Refusal::InsufficientBalance,
            (Some(401 | 403 | 409), _) => Refusal::Account,
            _ => Refusal::Request,
        })
    }

    /// How long to wait before anything is sent again, for `RetryAfter`.
    pub fn retry_after(&self) -> Option<Duration> {
        match self.class {
            Class::RetryAfter(d) => Some(d),
            _ => None,
        }
    }
}

impl fmt::Display for UpstreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "upstream {:?} ({:?})", self.kind, self.class)?;
        if let Some(status) = self.status {
            write!(f, " status {}", status.as_u16())?;
        }
        if let Some(code) = &self.code {
            write!(f, " code {code}")?;
        }
        if let Some(id) = &self.request_id {
            write!(f, " request {id}")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl fmt::Debug for UpstreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A response reduced to what classification needs, independent of `reqwest::Response`.
#[derive(Debug, Clone)]
pub struct RawResponse {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

/// The wait used when a 429 has no readable `Retry-After`. The spec promises the header, so its
/// absence is a malfunction; 30 s is long enough not to hammer a limiter whose numbers are not
/// shown, short enough that a checkout is not stalled for minutes.
pub const DEFAULT_RETRY_AFTER: Duration = Duration::from_secs(30);

/// Upper bound on a single `Retry-After`. Only guards against absurd values (overflowing
/// `Instant` arithmetic, a date years ahead) freezing the client forever.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(24 * 3600);

/// `Retry-After` as delta-seconds or an HTTP-date (RFC 9110 10.2.3), relative to `now`.
/// `None` when missing or unreadable. A date in the past means "now" (zero).
pub fn parse_retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let value = headers.get(RETRY_AFTER)?.to_str().ok()?.trim();
    let wait = if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        // Digits only; too many digits to fit is "very long", capped below.
        Duration::from_secs(value.parse::<u64>().unwrap_or(u64::MAX))
    } else {
        // IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) is RFC 2822 syntax. The obsolete RFC 850
        // and asctime forms are not accepted; they fall back to the default.
        let at = SystemTime::from(OffsetDateTime::parse(value, &Rfc2822).ok()?);
        at.duration_since(now).unwrap_or(Duration::ZERO)
    };
    Some(wait.min(MAX_RETRY_AFTER))
}

/// Turns a response into the expected success value or a classified error.
///
/// Only `expected` counts as success; any other 2xx is `Unknown` (on `POST /orders` a 200 or 201
/// we did not ask for may still be an order). A success body that does not decode is `Unknown`
/// for the same reason.
pub fn interpret<T: DeserializeOwned>(
    raw: &RawResponse,
    expected: StatusCode,
    now: SystemTime,
) -> Result<T, UpstreamError> {
    if raw.status == expected {
        return serde_json::from_slice(&raw.body).map_err(|e| {
            // serde_json's own message can quote the offending value (an ICCID, a code):
            // keep only its category and position.
            UpstreamError::new(
                ErrorKind::MalformedBody,
                Class::Unknown,
                format!(
                    "unreadable {} body ({:?} error at line {} column {})",
                    expected.as_u16(),
                    e.classify(),
                    e.line(),
                    e.column()
                ),
            )
            .with_status(raw.status)
        });
    }
    Err(classify_failure(raw, now))
}

/// The error for any response that is not the expected success.
pub fn classify_failure(raw: &RawResponse, now: SystemTime) -> UpstreamError {
    let status = raw.status;
    let (kind, class) = match status.as_u16() {
        400 | 401 | 403 | 404 | 409 => (ErrorKind::Rejected, Class::Definitive),
        429 => {
            let wait = parse_retry_after(&raw.headers, now).unwrap_or(DEFAULT_RETRY_AFTER);
            (ErrorKind::RateLimited, Class::RetryAfter(wait))
        }
        500..=599 => (ErrorKind::ServerError, Class::Unknown),
        _ => (ErrorKind::UnexpectedStatus, Class::Unknown),
    };
    // The error body only adds detail; a proxy's HTML page or a schema violation still
    // classifies by status. A success status never reaches here with its body parsed as an
    // error: an unexpected 2xx body may hold installation values.
    let detail = if status.is_success() {
        None
    } else {
        serde_json::from_slice::<ErrorBody>(&raw.body)
            .ok()
            .map(|b| b.error)
    };
    let mut error = UpstreamError::new(kind, class, String::new()).with_status(status);
    match detail {
        Some(detail) => {
            error.code = Some(ErrorCode::parse(&detail.code));
            error.request_id = Some(truncate(&detail.request_id, 100));
            error.message = truncate(&detail.message, 300);
        }
        None => {
            error.message = match kind {
                ErrorKind::UnexpectedStatus if status.is_success() => {
                    format!("unexpected success status {}", status.as_u16())
                }
                _ => format!("HTTP {} without a readable error body", status.as_u16()),
            };
        }
    }
    error
}

/// Keeps log lines bounded whatever the upstream sends.
fn truncate(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

/// A transport failure (no response), always `Unknown`: a request that timed out or lost its
/// connection may have reached the API. The URL is stripped from the message.
pub(crate) fn from_transport(error: reqwest::Error) -> UpstreamError {
    let kind = if error.is_timeout() {
        ErrorKind::Timeout
    } else if error.is_connect() {
        ErrorKind::Connect
    } else {
        ErrorKind::Transport
    };
    let error = error.without_url();
    // reqwest's own text is generic ("error sending request"); the cause (connection reset,
    // TLS failure) is in the source chain.
    let mut message = error.to_string();
    let mut source = std::error::Error::source(&error);
    while let Some(cause) = source {
        message.push_str(": ");
        message.push_str(&cause.to_string());
        source = cause.source();
    }
    UpstreamError::new(kind, Class::Unknown, truncate(&message, 300))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::upstream::models::{AcceptedOrder, Installation};
    use reqwest::header::HeaderValue;

    fn raw(status: u16, body: &str) -> RawResponse {
        RawResponse {
            status: StatusCode::from_u16(status).expect("status"),
            headers: HeaderMap::new(),
            body: body.as_bytes().to_vec(),
        }
    }

    fn with_retry_after(mut r: RawResponse, value: &str) -> RawResponse {
        r.headers
            .insert(RETRY_AFTER, HeaderValue::from_str(value).expect("header"));
        r
    }

    fn error_body(code: &str) -> String {
        format!(r#"{{"error":{{"code":"{code}","message":"nope","requestId":"req-9"}}}}"#)
    }

    fn now() -> SystemTime {
        // Sun, 06 Nov 1994 08:49:37 GMT
        SystemTime::UNIX_EPOCH + Duration::from_secs(784_111_777)
    }

    fn fail(r: &RawResponse) -> UpstreamError {
        classify_failure(r, now())
    }

    #[test]
    fn conflict_codes_are_definitive_and_named() {
        let e = fail(&raw(409, &error_body("price_changed")));
        assert_eq!(e.class(), Class::Definitive);
        assert_eq!(e.code(), Some(&ErrorCode::PriceChanged));
        assert_eq!(e.request_id(), Some("req-9"));
        assert_eq!(e.status(), Some(StatusCode::CONFLICT));
        let e = fail(&raw(409, &error_body("insufficient_balance")));
        assert_eq!(e.code(), Some(&ErrorCode::InsufficientBalance));
        assert!(e.is_definitive());
        let e = fail(&raw(409, &error_body("account_suspended")));
        assert_eq!(e.class(), Class::Definitive);
        assert_eq!(
            e.code(),
            Some(&ErrorCode::Other("account_suspended".into()))
        );
    }

    #[test]
    fn refusals_are_classified_once() {
        let refusal = |status, code: &str| fail(&raw(status, &error_body(code))).refusal();
        assert_eq!(refusal(409, "price_changed"), Some(Refusal::PriceChanged));
        assert_eq!(
            refusal(409, "insufficient_balance"),
            Some(Refusal::InsufficientBalance)
        );
        for (status, code) in [
            (401, "unauthorized"),
            (401, "key_expired"),
            (403, "insufficient_scope"),
            (409, "purchasing_suspended"),
            (409, "something_new"),
        ] {
            assert_eq!(
                refusal(status, code),
                Some(Refusal::Account),
                "{status} {code}"
            );
        }
        // A 409 without a readable code is not known to be a price or balance answer.
        assert_eq!(fail(&raw(409, "")).refusal(), Some(Refusal::Account));
        assert_eq!(fail(&raw(401, "")).refusal(), Some(Refusal::Account));
        for status in [400, 404] {
            assert_eq!(refusal(status, "x"), Some(Refusal::Request), "{status}");
        }
        // Key reuse is recognised whatever status carries it, even an unlisted one.
        for status in [400, 409, 422] {
            assert_eq!(
                refusal(status, "idempotency_key_reused"),
                Some(Refusal::KeyReused),
                "{status}"
            );
        }
        // Unknown and rate-limited outcomes are not refusals.
        assert_eq!(fail(&raw(500, &error_body("x"))).refusal(), None);
        assert_eq!(fail(&raw(429, &error_body("rate_limited"))).refusal(), None);
        assert_eq!(fail(&raw(422, &error_body("x"))).refusal(), None);
    }

    #[test]
    fn listed_client_errors_are_definitive() {
        for status in [400, 401, 403, 404, 409] {
            let e = fail(&raw(status, &error_body("x")));
            assert_eq!(e.class(), Class::Definitive, "{status}");
            assert_eq!(e.kind(), ErrorKind::Rejected);
        }
    }

    #[test]
    fn server_errors_and_unlisted_statuses_are_unknown() {
        for status in [500, 502, 503, 504, 599] {
            assert_eq!(fail(&raw(status, "")).class(), Class::Unknown, "{status}");
        }
        for status in [
            100, 200, 201, 204, 301, 302, 304, 307, 402, 405, 408, 410, 422, 451,
        ] {
            let e = fail(&raw(status, &error_body("x")));
            assert_eq!(e.class(), Class::Unknown, "{status}");
            assert_eq!(e.kind(), ErrorKind::UnexpectedStatus, "{status}");
        }
    }

    #[test]
    fn html_or_schema_violating_error_bodies_classify_by_status() {
        let e = fail(&raw(404, "<html><body>Not Found</body></html>"));
        assert_eq!(e.class(), Class::Definitive);
        assert_eq!(e.code(), None);
        assert!(!e.message().contains("html"), "{e}");
        let e = fail(&raw(502, "<html>Bad Gateway</html>"));
        assert_eq!(e.class(), Class::Unknown);
        let e = fail(&raw(409, r#"{"error":{"code":"price_changed"}}"#));
        assert_eq!(e.class(), Class::Definitive);
        assert_eq!(e.code(), None, "an incomplete error body is not trusted");
        let e = fail(&raw(400, r#"{"error":"flat string"}"#));
        assert_eq!(e.class(), Class::Definitive);
    }

    #[test]
    fn rate_limit_reads_delta_seconds() {
        let e = fail(&with_retry_after(
            raw(429, &error_body("rate_limited")),
            "7",
        ));
        assert_eq!(e.class(), Class::RetryAfter(Duration::from_secs(7)));
        assert_eq!(e.retry_after(), Some(Duration::from_secs(7)));
        assert_eq!(e.kind(), ErrorKind::RateLimited);
        assert_eq!(e.request_id(), Some("req-9"));
    }

    #[test]
    fn rate_limit_reads_an_http_date() {
        let e = fail(&with_retry_after(
            raw(429, ""),
            "Sun, 06 Nov 1994 08:50:37 GMT",
        ));
        assert_eq!(e.class(), Class::RetryAfter(Duration::from_secs(60)));
        let past = fail(&with_retry_after(
            raw(429, ""),
            "Sun, 06 Nov 1994 08:00:00 GMT",
        ));
        assert_eq!(past.class(), Class::RetryAfter(Duration::ZERO));
    }

    #[test]
    fn rate_limit_without_a_usable_header_uses_the_default() {
        assert_eq!(
            fail(&raw(429, "")).class(),
            Class::RetryAfter(DEFAULT_RETRY_AFTER)
        );
        for garbled in ["soon", "-5", "1.5", "", "Sun, 99 Nov 1994 08:50:37 GMT"] {
            let e = fail(&with_retry_after(raw(429, ""), garbled));
            assert_eq!(
                e.class(),
                Class::RetryAfter(DEFAULT_RETRY_AFTER),
                "{garbled}"
            );
        }
        let huge = fail(&with_retry_after(raw(429, ""), "99999999999999999999999"));
        assert_eq!(huge.class(), Class::RetryAfter(MAX_RETRY_AFTER));
    }

    #[test]
    fn expected_success_decodes() {
        let accepted: AcceptedOrder = interpret(
            &raw(202, r#"{"orderId":"o1","statusUrl":"/api/v1/orders/o1"}"#),
            StatusCode::ACCEPTED,
            now(),
        )
        .expect("accepted");
        assert_eq!(accepted.order_id, "o1");
    }

    #[test]
    fn unreadable_success_is_unknown_not_definitive() {
        for body in [
            "",
            "not json",
            r#"{"orderId":"o1"}"#,
            r#"{"orderId":5,"statusUrl":"/x"}"#,
        ] {
            let e = interpret::<AcceptedOrder>(&raw(202, body), StatusCode::ACCEPTED, now())
                .expect_err(body);
            assert_eq!(e.class(), Class::Unknown, "{body}");
            assert_eq!(e.kind(), ErrorKind::MalformedBody);
            assert_eq!(e.status(), Some(StatusCode::ACCEPTED));
        }
        // A different success status than promised is Unknown too, even if it would decode.
        let e = interpret::<AcceptedOrder>(
            &raw(200, r#"{"orderId":"o1","statusUrl":"/api/v1/orders/o1"}"#),
            StatusCode::ACCEPTED,
            now(),
        )
        .expect_err("200 is not 202");
        assert_eq!(e.class(), Class::Unknown);
    }

    #[test]
    fn malformed_body_messages_do_not_quote_the_body() {
        let body = r#"{"esimId":"e1","iccid":8988247000001234567,"activationCode":"LPA:SECRET","qrCodeSvg":"q","universalLink":null}"#;
        let e = interpret::<Installation>(&raw(200, body), StatusCode::OK, now())
            .expect_err("iccid must be a string");
        let shown = format!("{e} {e:?}");
        assert!(!shown.contains("8988247000001234567"), "{shown}");
        assert!(!shown.contains("SECRET"), "{shown}");
    }

    #[test]
    fn long_upstream_messages_are_truncated() {
        let body = format!(
            r#"{{"error":{{"code":"x","message":"{}","requestId":"r"}}}}"#,
            "m".repeat(5000)
        );
        assert!(fail(&raw(400, &body)).message().chars().count() <= 301);
    }
}
