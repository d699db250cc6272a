//! The Partner API of spec section 4, mounted under `/api/v1`.
//!
//! Every handler starts with [`gate`] (latency fault, 503/429 bursts, bearer key, scope, rate
//! limit), then parses its input strictly, then does one short locked step on the state.
//! List cursors are opaque hex strings that carry the last position and a fingerprint of the
//! filters, so a cursor replayed with other filters is refused instead of silently skipping.

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;

use actix_web::body::{BodySize, MessageBody};
use actix_web::http::header::{AUTHORIZATION, CACHE_CONTROL, HeaderValue};
use actix_web::middleware::DefaultHeaders;
use actix_web::web::{self, Bytes};
use actix_web::{HttpRequest, HttpResponse};

use super::error::ApiError;
use super::state::{CommitFault, Scope};
use super::validate::{self, ListQuery};
use super::wire::{CheckoutSession, Page, PartnerAccount};
use super::{Sandbox, esim, state};

const MAX_BODY_BYTES: usize = 64 * 1024;

pub fn mount(sandbox: Sandbox, cfg: &mut web::ServiceConfig) {
    let resource = |path: &str| {
        web::resource(path.to_string()).default_service(web::to(|req: HttpRequest| async move {
            Err::<HttpResponse, _>(ApiError::not_found(format!(
                "no endpoint {} {}",
                req.method(),
                req.path()
            )))
        }))
    };
    cfg.service(
        web::scope("/api/v1")
            .app_data(web::Data::new(sandbox))
            .wrap(DefaultHeaders::new().add((CACHE_CONTROL, "private, no-store")))
            .service(resource("/account").route(web::get().to(account)))
            .service(resource("/countries").route(web::get().to(countries)))
            .service(resource("/regions").route(web::get().to(regions)))
            .service(resource("/plans").route(web::get().to(plans)))
            .service(resource("/plans/{id}").route(web::get().to(plan)))
            .service(resource("/balance").route(web::get().to(balance)))
            .service(resource("/balance/transactions").route(web::get().to(transactions)))
            .service(resource("/balance/topups").route(web::post().to(create_topup)))
            .service(
                resource("/orders")
                    .route(web::post().to(create_order))
                    .route(web::get().to(orders)),
            )
            .service(resource("/orders/{id}").route(web::get().to(order)))
            .service(resource("/esims/{id}/installation").route(web::get().to(installation)))
            .service(resource("/checkout-sessions").route(web::post().to(create_checkout)))
            .default_service(web::to(|req: HttpRequest| async move {
                Err::<HttpResponse, _>(ApiError::not_found(format!(
                    "no endpoint {} {}",
                    req.method(),
                    req.path()
                )))
            })),
    );
}

/// The key a request presented, once accepted.
pub struct Caller {
    pub record: state::KeyRecord,
}

/// `Authorization: Bearer <key>` → the key's record; `None` when absent or malformed.
pub fn bearer(req: &HttpRequest) -> Option<String> {
    let value = req.headers().get(AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then(|| token.to_string())
}

/// Everything that happens before a Partner API handler's own work.
async fn gate(sb: &Sandbox, req: &HttpRequest, scope: Scope) -> Result<Caller, ApiError> {
    let (latency, inside) = sb.with(|s| {
        s.api_requests += 1;
        let inside = s.note_arrival(Instant::now());
        (s.faults.latency, inside)
    });
    if let Some((after, before_end)) = inside {
        tracing::warn!(
            method = %req.method(),
            path = req.path(),
            after_429_ms = after.as_millis(),
            before_window_end_ms = before_end.as_millis(),
            "a request arrived inside a Retry-After window this sandbox answered"
        );
    }
    if !latency.is_zero() {
        tokio::time::sleep(latency).await;
    }
    sb.with(|s| {
        let answer = admit(s, req, scope);
        if let Err(ApiError::RateLimited { retry_after_secs }) = &answer {
            s.note_rate_limited(Instant::now(), *retry_after_secs);
        }
        answer
    })
}

/// The checks of [`gate`] after the latency: bursts, the key, its scope, the rate limit.
fn admit(s: &mut super::state::State, req: &HttpRequest, scope: Scope) -> Result<Caller, ApiError> {
    {
        s.take_burst()?;
        let key = bearer(req).ok_or(ApiError::Unauthorized)?;
        let record = s.key(&key).cloned().ok_or(ApiError::Unauthorized)?;
        if record.expires_at <= time::OffsetDateTime::now_utc() {
            return Err(ApiError::KeyExpired);
        }
        if !record.scopes.contains(&scope) {
            return Err(ApiError::InsufficientScope(scope.as_str()));
        }
        s.check_rate_limit(&key, Instant::now())?;
        Ok(Caller { record })
    }
}

/// Reads a request body up to [`MAX_BODY_BYTES`]; anything larger is a 400, like any other
/// malformed body.
async fn read_body(payload: web::Payload) -> Result<Bytes, ApiError> {
    match payload.to_bytes_limited(MAX_BODY_BYTES).await {
        Ok(Ok(bytes)) => Ok(bytes),
        Ok(Err(e)) => Err(ApiError::invalid(format!("cannot read the body: {e}"))),
        Err(_) => Err(ApiError::invalid("the body is larger than 64 KiB")),
    }
}

fn ok_json<T: serde::Serialize>(value: &T) -> HttpResponse {
    HttpResponse::Ok().json(value)
}

/// The origin for absolute links: configured, else from the request (`Host`).
pub fn origin(sb: &Sandbox, req: &HttpRequest) -> String {
    if let Some(origin) = &sb.inner.public_origin {
        return origin.trim_end_matches('/').to_string();
    }
    let info = req.connection_info();
    format!("{}://{}", info.scheme(), info.host())
}

// ---- cursors -------------------------------------------------------------------------------

fn fingerprint(parts: &[Option<&str>]) -> u32 {
    // FNV-1a over the filters; only has to tell filter sets apart, not resist attackers.
    let mut hash: u32 = 0x811C_9DC5;
    for part in parts {
        for b in part.unwrap_or("\u{0}").bytes().chain([0xFF]) {
            hash ^= u32::from(b);
            hash = hash.wrapping_mul(0x0100_0193);
        }
    }
    hash
}

fn encode_cursor(tag: &str, position: u64, fp: u32) -> String {
    hex::encode(format!("{tag}:{position}:{fp:08x}"))
}

fn decode_cursor(raw: &str, tag: &str, fp: u32) -> Result<u64, ApiError> {
    let invalid = || ApiError::invalid("cursor is not a cursor of this list with these filters");
    let bytes = hex::decode(raw).map_err(|_| invalid())?;
    let text = String::from_utf8(bytes).map_err(|_| invalid())?;
    let mut parts = text.split(':');
    let (Some(t), Some(pos), Some(f), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(invalid());
    };
    if t != tag || f != format!("{fp:08x}") {
        return Err(invalid());
    }
    pos.parse().map_err(|_| invalid())
}

/// One page of `items` (already in list order, each with its position key). `descending`
/// says whether positions fall along the list (newest first) or rise (catalog order).
fn paginate<T>(
    items: impl Iterator<Item = (u64, T)>,
    query: &ListQuery,
    tag: &str,
    fp: u32,
    descending: bool,
) -> Result<Page<T>, ApiError> {
    let after = query
        .cursor
        .as_deref()
        .map(|c| decode_cursor(c, tag, fp))
        .transpose()?;
    let mut page: Vec<(u64, T)> = items
        .filter(|(pos, _)| match after {
            None => true,
            Some(a) if descending => *pos < a,
            Some(a) => *pos > a,
        })
        .take(query.limit + 1)
        .collect();
    let next_cursor = if page.len() > query.limit {
        page.truncate(query.limit);
        page.last().map(|(pos, _)| encode_cursor(tag, *pos, fp))
    } else {
        None
    };
    Ok(Page {
        data: page.into_iter().map(|(_, item)| item).collect(),
        next_cursor,
    })
}

// ---- handlers ------------------------------------------------------------------------------

async fn account(sb: web::Data<Sandbox>, req: HttpRequest) -> Result<HttpResponse, ApiError> {
    let caller = gate(&sb, &req, Scope::BalanceRead).await?;
    validate::no_query(&req)?;
    let (webhook_enabled, fails) = sb.with(|s| (s.webhook.is_some(), s.account_fails));
    if fails {
        return Err(ApiError::Unavailable);
    }
    Ok(ok_json(&PartnerAccount {
        id: "acct_sandbox".to_string(),
        name: "Sandbox Partner".to_string(),
        email: "partner@sandbox.invalid".to_string(),
        environment: caller.record.environment.clone(),
        scopes: caller
            .record
            .scopes
            .iter()
            .map(|s| s.as_str().to_string())
            .collect(),
        key_expires_at: state::format_time(caller.record.expires_at),
        webhook_enabled,
    }))
}

async fn countries(sb: web::Data<Sandbox>, req: HttpRequest) -> Result<HttpResponse, ApiError> {
    gate(&sb, &req, Scope::CatalogRead).await?;
    validate::no_query(&req)?;
    let list = sb.with(|s| s.catalog().countries(|id| s.is_available(id)));
    Ok(ok_json(&list))
}

async fn regions(sb: web::Data<Sandbox>, req: HttpRequest) -> Result<HttpResponse, ApiError> {
    gate(&sb, &req, Scope::CatalogRead).await?;
    validate::no_query(&req)?;
    let list = sb.with(|s| s.catalog().regions.clone());
    Ok(ok_json(&list))
}

async fn plans(sb: web::Data<Sandbox>, req: HttpRequest) -> Result<HttpResponse, ApiError> {
    gate(&sb, &req, Scope::CatalogRead).await?;
    let query = validate::list_query(&req, true)?;
    let fp = fingerprint(&[query.country.as_deref(), query.region.as_deref()]);
    let page = sb.with(|s| {
        let items = s
            .catalog()
            .plans
            .iter()
            .filter(|p| s.is_available(&p.plan.id))
            .filter(|p| {
                query
                    .country
                    .as_deref()
                    .is_none_or(|c| p.plan.country_code == c)
            })
            .filter(|p| {
                query
                    .region
                    .as_deref()
                    .is_none_or(|r| p.plan.region.as_deref() == Some(r))
            })
            .map(|p| (u64::try_from(p.index).unwrap_or(u64::MAX), &p.plan));
        paginate(items, &query, "plans", fp, false).map(|page| page.map(Clone::clone))
    })?;
    Ok(ok_json(&page))
}

async fn plan(
    sb: web::Data<Sandbox>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    gate(&sb, &req, Scope::CatalogRead).await?;
    validate::no_query(&req)?;
    let id = validate::path_id(&id)?;
    let plan = sb
        .with(|s| s.plan(id).cloned())
        .ok_or_else(|| ApiError::not_found(format!("plan {id} is not available")))?;
    Ok(ok_json(&plan))
}

async fn balance(sb: web::Data<Sandbox>, req: HttpRequest) -> Result<HttpResponse, ApiError> {
    gate(&sb, &req, Scope::BalanceRead).await?;
    validate::no_query(&req)?;
    Ok(ok_json(&sb.balance()))
}

async fn transactions(sb: web::Data<Sandbox>, req: HttpRequest) -> Result<HttpResponse, ApiError> {
    gate(&sb, &req, Scope::BalanceRead).await?;
    let query = validate::list_query(&req, false)?;
    let page = sb.with(|s| {
        let items = s
            .ledger()
            .transactions()
            .iter()
            .rev()
            .map(|t| (u64::try_from(t.id).unwrap_or(0), t));
        paginate(items, &query, "transactions", 0, true).map(|page| page.map(Clone::clone))
    })?;
    Ok(ok_json(&page))
}

async fn create_topup(
    sb: web::Data<Sandbox>,
    req: HttpRequest,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    gate(&sb, &req, Scope::BalanceWrite).await?;
    validate::no_query(&req)?;
    let key = validate::idempotency_key(&req)?;
    let body = read_body(payload).await?;
    let topup = validate::topup_request(&req, &body)?;
    let id = sb.with(|s| s.create_topup(&key, topup))?;
    Ok(HttpResponse::Created().json(CheckoutSession {
        checkout_url: format!("{}/_sandbox/checkout/{id}", origin(&sb, &req)),
        id,
    }))
}

async fn create_checkout(
    sb: web::Data<Sandbox>,
    req: HttpRequest,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    gate(&sb, &req, Scope::CheckoutWrite).await?;
    validate::no_query(&req)?;
    let key = validate::idempotency_key(&req)?;
    let body = read_body(payload).await?;
    let checkout = validate::checkout_request(&req, &body)?;
    let id = sb.with(|s| s.create_checkout(&key, checkout))?;
    Ok(HttpResponse::Created().json(CheckoutSession {
        checkout_url: format!("{}/_sandbox/checkout/{id}", origin(&sb, &req)),
        id,
    }))
}

async fn create_order(
    sb: web::Data<Sandbox>,
    req: HttpRequest,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    gate(&sb, &req, Scope::OrdersWrite).await?;
    sb.with(|s| s.note_order_request());
    validate::no_query(&req)?;
    let key = validate::idempotency_key(&req)?;
    let body = read_body(payload).await?;
    let order = validate::order_request(&req, &body)?;
    let placed = sb.place_order(&key, order)?;
    match placed.fault {
        None => Ok(HttpResponse::Accepted().json(&placed.accepted)),
        Some(CommitFault::Fail) => Err(ApiError::Internal),
        Some(CommitFault::Delay(delay)) => {
            tokio::time::sleep(delay).await;
            Ok(HttpResponse::Accepted().json(&placed.accepted))
        }
        Some(CommitFault::Drop) => Ok(HttpResponse::Accepted()
            .content_type("application/json")
            .body(BrokenBody)),
    }
}

/// A body that promises bytes and fails instead: actix aborts the connection, so the client
/// sees a broken connection after the order was committed.
struct BrokenBody;

impl MessageBody for BrokenBody {
    type Error = std::io::Error;

    fn size(&self) -> BodySize {
        BodySize::Sized(256)
    }

    fn poll_next(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Bytes, Self::Error>>> {
        Poll::Ready(Some(Err(std::io::Error::new(
            std::io::ErrorKind::ConnectionAborted,
            "sandbox fault: connection dropped",
        ))))
    }
}

async fn orders(sb: web::Data<Sandbox>, req: HttpRequest) -> Result<HttpResponse, ApiError> {
    gate(&sb, &req, Scope::OrdersRead).await?;
    let query = validate::list_query(&req, false)?;
    let page = sb.with(|s| {
        let items = s.orders().iter().rev().map(|o| (o.seq, o));
        paginate(items, &query, "orders", 0, true).map(|page| page.map(|o| o.to_wire()))
    })?;
    Ok(ok_json(&page))
}

async fn order(
    sb: web::Data<Sandbox>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    gate(&sb, &req, Scope::OrdersRead).await?;
    validate::no_query(&req)?;
    let id = validate::path_id(&id)?;
    let order = sb
        .order(id)
        .ok_or_else(|| ApiError::not_found(format!("order {id} does not exist")))?;
    Ok(ok_json(&order))
}

async fn installation(
    sb: web::Data<Sandbox>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    gate(&sb, &req, Scope::EsimsInstall).await?;
    validate::no_query(&req)?;
    let id = validate::path_id(&id)?;
    let seq = sb
        .with(|s| s.esim_order(id).and_then(|o| o.esim_seq))
        .ok_or_else(|| ApiError::not_found(format!("eSIM {id} does not exist")))?;
    // QR rendering runs outside the lock.
    let installation = esim::installation(id, seq).map_err(|e| {
        tracing::error!(error = %e, "sandbox: activation code does not fit a QR code");
        ApiError::Internal
    })?;
    let mut response = ok_json(&installation);
    response
        .headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static("private, no-store"));
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursor_round_trip_and_filter_binding() {
        let fp = fingerprint(&[Some("US"), None]);
        let c = encode_cursor("plans", 42, fp);
        assert!(c.len() <= 100);
        assert_eq!(decode_cursor(&c, "plans", fp), Ok(42));
        assert!(decode_cursor(&c, "orders", fp).is_err());
        assert!(decode_cursor(&c, "plans", fingerprint(&[Some("FR"), None])).is_err());
        assert!(decode_cursor("zz", "plans", fp).is_err());
        assert_ne!(
            fingerprint(&[Some("US"), None]),
            fingerprint(&[None, Some("US")])
        );
    }
}
