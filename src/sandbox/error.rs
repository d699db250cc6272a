//! Every failure of the simulated Partner API as the spec's JSON error body.
//!
//! The codes for the spec's "not shown" cases are the sandbox's own single choice, listed in
//! `docs/sandbox.md`. Each answer gets a fresh `requestId`.

use actix_web::http::StatusCode;
use actix_web::http::header::{CACHE_CONTROL, HeaderValue, RETRY_AFTER};
use actix_web::{HttpResponse, ResponseError};
use rand::RngCore;

use super::wire::{ErrorBody, ErrorDetail};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ApiError {
    #[error("{0}")]
    InvalidRequest(String),
    #[error("a valid bearer API key is required")]
    Unauthorized,
    #[error("the API key has expired")]
    KeyExpired,
    #[error("the API key lacks the {0} scope")]
    InsufficientScope(&'static str),
    #[error("{0}")]
    NotFound(String),
    #[error("this Idempotency-Key was already used with a different body")]
    IdempotencyKeyReused,
    #[error("the plan price is now {current_cents} cents")]
    PriceChanged { current_cents: i64 },
    #[error("available credit cannot cover this order")]
    InsufficientBalance,
    #[error("purchasing is suspended until the wallet deficit is resolved")]
    PurchasingSuspended,
    #[error("rate limit exceeded; retry after {retry_after_secs} s")]
    RateLimited { retry_after_secs: u64 },
    #[error("the service is temporarily unavailable")]
    Unavailable,
    /// Injected by a fault, or a bug. Opaque to the client.
    #[error("internal error")]
    Internal,
}

impl ApiError {
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::InvalidRequest(message.into())
    }

    pub fn not_found(what: impl Into<String>) -> Self {
        Self::NotFound(what.into())
    }

    pub fn code(&self) -> &'static str {
        match self {
            Self::InvalidRequest(_) => "invalid_request",
            Self::Unauthorized => "unauthorized",
            Self::KeyExpired => "key_expired",
            Self::InsufficientScope(_) => "insufficient_scope",
            Self::NotFound(_) => "not_found",
            Self::IdempotencyKeyReused => "idempotency_key_reused",
            Self::PriceChanged { .. } => "price_changed",
            Self::InsufficientBalance => "insufficient_balance",
            Self::PurchasingSuspended => "purchasing_suspended",
            Self::RateLimited { .. } => "rate_limited",
            Self::Unavailable => "service_unavailable",
            Self::Internal => "internal_error",
        }
    }
}

pub fn new_request_id() -> String {
    let mut bytes = [0u8; 8];
    rand::rng().fill_bytes(&mut bytes);
    format!("req_{}", hex::encode(bytes))
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            Self::InvalidRequest(_) => StatusCode::BAD_REQUEST,
            Self::Unauthorized | Self::KeyExpired => StatusCode::UNAUTHORIZED,
            Self::InsufficientScope(_) => StatusCode::FORBIDDEN,
            Self::NotFound(_) => StatusCode::NOT_FOUND,
            Self::IdempotencyKeyReused
            | Self::PriceChanged { .. }
            | Self::InsufficientBalance
            | Self::PurchasingSuspended => StatusCode::CONFLICT,
            Self::RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
            Self::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
            Self::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        let body = ErrorBody {
            error: ErrorDetail {
                code: self.code().to_string(),
                message: self.to_string(),
                request_id: new_request_id(),
            },
        };
        let mut response = HttpResponse::build(self.status_code());
        response.insert_header((CACHE_CONTROL, HeaderValue::from_static("private, no-store")));
        match self {
            Self::RateLimited { retry_after_secs } => {
                response.insert_header((RETRY_AFTER, retry_after_secs.to_string()));
            }
            Self::Unavailable => {
                response.insert_header((RETRY_AFTER, "1"));
            }
            Self::Unauthorized | Self::KeyExpired => {
                response.insert_header(("WWW-Authenticate", "Bearer"));
            }
            _ => {}
        }
        response.json(body)
    }
}
