//! The control API under `/_sandbox`: fault injection, catalog and wallet levers, extra keys,
//! webhooks, stats, and the hosted checkout pages that checkout links point at.
//!
//! JSON endpoints require the sandbox's configured key (extra keys made here are for testing
//! the Partner API, not for steering the sandbox). Each endpoint calls the same [`Sandbox`]
//! method a Rust test would. The hosted pages take no bearer key: their session id (128 random
//! bits) is the secret, as with a real payment provider's checkout link.

use std::time::Duration;

use actix_web::http::header::{CACHE_CONTROL, LOCATION};
use actix_web::middleware::DefaultHeaders;
use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;

use super::api::bearer;
use super::error::ApiError;
use super::state::{SessionKind, SessionStatus};
use super::{
    AccountChange, Fault, KeySpec, OrderRefusal, Outcome, RateLimit, Sandbox, Scope, WebhookConfig,
    WebhookDisorder, validate,
};
use crate::domain::html::escape;

pub fn mount(sandbox: Sandbox, cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::scope("/_sandbox")
            .app_data(web::Data::new(sandbox))
            .wrap(DefaultHeaders::new().add((CACHE_CONTROL, "private, no-store")))
            .route("/stats", web::get().to(stats))
            .route("/faults", web::post().to(inject))
            .route("/faults", web::delete().to(clear_faults))
            .route("/plans/{id}/price", web::post().to(plan_price))
            .route(
                "/plans/{id}/availability",
                web::post().to(plan_availability),
            )
            .route("/plans/{id}/outcome", web::post().to(plan_outcome))
            .route(
                "/references/{reference}/outcome",
                web::post().to(reference_outcome),
            )
            .route("/balance", web::post().to(set_balance))
            .route("/reversals", web::post().to(reversal))
            .route("/purchasing", web::post().to(purchasing))
            .route("/topups/{id}/complete", web::post().to(complete_topup))
            .route("/keys", web::post().to(create_key))
            .route("/account", web::post().to(change_account))
            .route("/provisioning", web::post().to(provisioning))
            .route("/webhook", web::post().to(set_webhook))
            .route("/rate-limit", web::post().to(rate_limit))
            .route("/checkout/{id}", web::get().to(checkout_page))
            .route("/checkout/{id}/pay", web::post().to(checkout_pay))
            .route("/checkout/{id}/cancel", web::post().to(checkout_cancel))
            .default_service(web::to(|req: HttpRequest| async move {
                Err::<HttpResponse, _>(ApiError::not_found(format!(
                    "no control endpoint {} {}",
                    req.method(),
                    req.path()
                )))
            })),
    );
}

fn authorize(sb: &Sandbox, req: &HttpRequest) -> Result<(), ApiError> {
    let key = bearer(req).ok_or(ApiError::Unauthorized)?;
    if sb.with(|s| s.primary_key == key) {
        Ok(())
    } else {
        Err(ApiError::Unauthorized)
    }
}

fn ok() -> HttpResponse {
    HttpResponse::Ok().json(serde_json::json!({ "ok": true }))
}

async fn stats(sb: web::Data<Sandbox>, req: HttpRequest) -> Result<HttpResponse, ApiError> {
    authorize(&sb, &req)?;
    Ok(HttpResponse::Ok().json(sb.stats()))
}

#[derive(Debug, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
enum FaultBody {
    FailAfterCommit { count: u32 },
    DelayAfterCommit { count: u32, delay_ms: u64 },
    DropAfterCommit { count: u32 },
    RateLimitBurst { count: u32, retry_after_secs: u64 },
    UnavailableBurst { count: u32 },
    Latency { ms: u64 },
    RefuseOrders { with: Option<RefusalBody> },
    Webhooks { disorder: Option<DisorderBody> },
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "camelCase")]
enum DisorderBody {
    Duplicate,
    Reverse,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "camelCase")]
enum RefusalBody {
    KeyExpired,
    InsufficientScope,
    IdempotencyKeyReused,
}

impl From<FaultBody> for Fault {
    fn from(body: FaultBody) -> Self {
        match body {
            FaultBody::FailAfterCommit { count } => Fault::FailAfterCommit(count),
            FaultBody::DelayAfterCommit { count, delay_ms } => Fault::DelayAfterCommit {
                count,
                delay: Duration::from_millis(delay_ms),
            },
            FaultBody::DropAfterCommit { count } => Fault::DropAfterCommit(count),
            FaultBody::RateLimitBurst {
                count,
                retry_after_secs,
            } => Fault::RateLimitBurst {
                count,
                retry_after_secs,
            },
            FaultBody::UnavailableBurst { count } => Fault::UnavailableBurst(count),
            FaultBody::Latency { ms } => Fault::Latency(Duration::from_millis(ms)),
            FaultBody::RefuseOrders { with } => Fault::RefuseOrders(with.map(|w| match w {
                RefusalBody::KeyExpired => OrderRefusal::KeyExpired,
                RefusalBody::InsufficientScope => OrderRefusal::MissingScope,
                RefusalBody::IdempotencyKeyReused => OrderRefusal::KeyReused,
            })),
            FaultBody::Webhooks { disorder } => Fault::Webhooks(disorder.map(|d| match d {
                DisorderBody::Duplicate => WebhookDisorder::Duplicate,
                DisorderBody::Reverse => WebhookDisorder::Reverse,
            })),
        }
    }
}

async fn inject(
    sb: web::Data<Sandbox>,
    req: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    authorize(&sb, &req)?;
    let fault: FaultBody = validate::json_body(&req, &body)?;
    sb.inject(fault.into());
    Ok(ok())
}

async fn clear_faults(sb: web::Data<Sandbox>, req: HttpRequest) -> Result<HttpResponse, ApiError> {
    authorize(&sb, &req)?;
    sb.clear_faults();
    Ok(ok())
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct PriceBody {
    price_cents: i64,
}

async fn plan_price(
    sb: web::Data<Sandbox>,
    req: HttpRequest,
    id: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    authorize(&sb, &req)?;
    let b: PriceBody = validate::json_body(&req, &body)?;
    sb.set_plan_price(&id, b.price_cents)?;
    Ok(ok())
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct AvailabilityBody {
    available: bool,
}

async fn plan_availability(
    sb: web::Data<Sandbox>,
    req: HttpRequest,
    id: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    authorize(&sb, &req)?;
    let b: AvailabilityBody = validate::json_body(&req, &body)?;
    sb.set_plan_available(&id, b.available)?;
    Ok(ok())
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct OutcomeBody {
    outcome: String,
}

async fn plan_outcome(
    sb: web::Data<Sandbox>,
    req: HttpRequest,
    id: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    authorize(&sb, &req)?;
    let b: OutcomeBody = validate::json_body(&req, &body)?;
    sb.set_plan_outcome(&id, Outcome::parse(&b.outcome)?)?;
    Ok(ok())
}

async fn reference_outcome(
    sb: web::Data<Sandbox>,
    req: HttpRequest,
    reference: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    authorize(&sb, &req)?;
    let b: OutcomeBody = validate::json_body(&req, &body)?;
    sb.set_reference_outcome(&reference, Outcome::parse(&b.outcome)?);
    Ok(ok())
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct BalanceBody {
    available_cents: i64,
}

async fn set_balance(
    sb: web::Data<Sandbox>,
    req: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    authorize(&sb, &req)?;
    let b: BalanceBody = validate::json_body(&req, &body)?;
    sb.set_balance(b.available_cents)?;
    Ok(HttpResponse::Ok().json(sb.balance()))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ReversalBody {
    amount_cents: i64,
}

async fn reversal(
    sb: web::Data<Sandbox>,
    req: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    authorize(&sb, &req)?;
    let b: ReversalBody = validate::json_body(&req, &body)?;
    sb.apply_reversal(b.amount_cents)?;
    Ok(HttpResponse::Ok().json(sb.balance()))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct PurchasingBody {
    suspended: bool,
}

async fn purchasing(
    sb: web::Data<Sandbox>,
    req: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    authorize(&sb, &req)?;
    let b: PurchasingBody = validate::json_body(&req, &body)?;
    sb.set_purchasing_suspended(b.suspended);
    Ok(ok())
}

async fn complete_topup(
    sb: web::Data<Sandbox>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    authorize(&sb, &req)?;
    let session = sb.pay_session(&id)?;
    Ok(HttpResponse::Ok().json(serde_json::json!({
        "id": session.id,
        "status": status_name(session.status),
        "orderId": session.order_id,
        "error": session.last_error,
    })))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct KeyBody {
    scopes: Vec<Scope>,
    #[serde(default)]
    expired: bool,
    #[serde(default = "sandbox_env")]
    environment: String,
}

fn sandbox_env() -> String {
    "sandbox".to_string()
}

async fn create_key(
    sb: web::Data<Sandbox>,
    req: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    authorize(&sb, &req)?;
    let b: KeyBody = validate::json_body(&req, &body)?;
    if !matches!(b.environment.as_str(), "sandbox" | "production") {
        return Err(ApiError::invalid(
            "environment must be sandbox or production",
        ));
    }
    let key = sb.create_key(KeySpec {
        scopes: b.scopes,
        expired: b.expired,
        environment: b.environment,
    });
    Ok(HttpResponse::Created().json(serde_json::json!({ "key": key })))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct AccountBody {
    environment: Option<String>,
    scopes: Option<Vec<Scope>>,
    key_expires_in_secs: Option<i64>,
    failing: Option<bool>,
}

async fn change_account(
    sb: web::Data<Sandbox>,
    req: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    authorize(&sb, &req)?;
    let b: AccountBody = validate::json_body(&req, &body)?;
    if let Some(env) = &b.environment
        && (env.is_empty()
            || env.len() > 32
            || !env
                .bytes()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_'))
    {
        return Err(ApiError::invalid(
            "environment must be 1 to 32 characters of a-z, 0-9 and _",
        ));
    }
    let key_expires_in = match b.key_expires_in_secs {
        None => None,
        Some(secs) if secs.unsigned_abs() <= 100 * 365 * 86_400 => {
            Some(time::Duration::seconds(secs))
        }
        Some(_) => return Err(ApiError::invalid("keyExpiresInSecs is out of range")),
    };
    sb.set_account(AccountChange {
        environment: b.environment,
        scopes: b.scopes,
        key_expires_in,
        failing: b.failing,
    });
    Ok(ok())
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ProvisioningBody {
    paid_ms: u64,
    provisioning_ms: u64,
}

async fn provisioning(
    sb: web::Data<Sandbox>,
    req: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    authorize(&sb, &req)?;
    let b: ProvisioningBody = validate::json_body(&req, &body)?;
    sb.set_provisioning_delays(
        Duration::from_millis(b.paid_ms),
        Duration::from_millis(b.provisioning_ms),
    );
    Ok(ok())
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct WebhookBody {
    url: Option<String>,
    #[serde(default)]
    secret: String,
}

async fn set_webhook(
    sb: web::Data<Sandbox>,
    req: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    authorize(&sb, &req)?;
    let b: WebhookBody = validate::json_body(&req, &body)?;
    let target = match b.url {
        None => None,
        Some(url) => {
            let parsed =
                url::Url::parse(&url).map_err(|e| ApiError::invalid(format!("url: {e}")))?;
            if !matches!(parsed.scheme(), "http" | "https") {
                return Err(ApiError::invalid("url must be http or https"));
            }
            if b.secret.is_empty() {
                return Err(ApiError::invalid("secret is required with a url"));
            }
            Some(WebhookConfig {
                url,
                secret: b.secret,
            })
        }
    };
    sb.set_webhook(target);
    Ok(ok())
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RateLimitBody {
    requests: Option<u32>,
    #[serde(default = "one")]
    window_secs: u64,
}

fn one() -> u64 {
    1
}

async fn rate_limit(
    sb: web::Data<Sandbox>,
    req: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    authorize(&sb, &req)?;
    let b: RateLimitBody = validate::json_body(&req, &body)?;
    if b.window_secs == 0 {
        return Err(ApiError::invalid("windowSecs must be at least 1"));
    }
    sb.set_rate_limit(b.requests.map(|requests| RateLimit {
        requests,
        window: Duration::from_secs(b.window_secs),
    }));
    Ok(ok())
}

// ---- hosted checkout pages ---------------------------------------------------------------

fn status_name(status: SessionStatus) -> &'static str {
    match status {
        SessionStatus::Open => "open",
        SessionStatus::Paid => "paid",
        SessionStatus::Cancelled => "cancelled",
    }
}

/// An amount as the shop shows it: `$1,234.56`.
fn dollars(cents: i64) -> String {
    crate::domain::Cents::new(cents).to_string()
}

async fn checkout_page(
    sb: web::Data<Sandbox>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let session = sb
        .with(|s| s.session(&id).cloned())
        .ok_or_else(|| ApiError::not_found("no such checkout session"))?;
    let what = match &session.kind {
        SessionKind::Topup { amount_cents } => {
            format!("Wallet top-up of {}", dollars(*amount_cents))
        }
        SessionKind::Order { request, email } => format!(
            "eSIM plan {} for {} ({}), reference {}. Paying places the order and reserves \
             its price from the partner wallet.",
            escape(&request.plan_id),
            dollars(request.expected_price_cents),
            escape(email),
            escape(&request.reference),
        ),
    };
    let id = escape(&session.id);
    let status = status_name(session.status);
    let actions = if session.status == SessionStatus::Open {
        format!(
            "<form method=\"post\" action=\"/_sandbox/checkout/{id}/pay\"><button type=\"submit\">Pay</button></form>\n\
             <form method=\"post\" action=\"/_sandbox/checkout/{id}/cancel\"><button type=\"submit\">Cancel</button></form>"
        )
    } else {
        String::new()
    };
    let order = session
        .order_id
        .map(|o| format!("<p>Order: <code>{}</code></p>", escape(&o)))
        .unwrap_or_default();
    let error = session
        .last_error
        .map(|e| format!("<p>Payment could not place the order: {}</p>", escape(&e)))
        .unwrap_or_default();
    let html = format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"robots\" content=\"noindex\"><title>SANDBOX checkout</title></head>\n\
         <body><h1>SANDBOX checkout — test mode, no real money</h1>\n\
         <p>{what}</p>\n<p>Status: <strong data-status=\"{status}\">{status}</strong></p>\n\
         {order}{error}{actions}\n</body></html>\n"
    );
    Ok(HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .insert_header(("Referrer-Policy", "no-referrer"))
        .body(html))
}

async fn checkout_pay(
    sb: web::Data<Sandbox>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    sb.pay_session(&id)?;
    Ok(back_to_page(&id))
}

async fn checkout_cancel(
    sb: web::Data<Sandbox>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    sb.with(|s| s.cancel_session(&id))?;
    Ok(back_to_page(&id))
}

fn back_to_page(id: &str) -> HttpResponse {
    HttpResponse::SeeOther()
        .insert_header((LOCATION, format!("/_sandbox/checkout/{id}")))
        .finish()
}
