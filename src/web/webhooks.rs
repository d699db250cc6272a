//! Webhooks from the outside: the payment provider's signed events.

use std::time::SystemTime;

use actix_web::{HttpRequest, HttpResponse, web};

use crate::payments::PaymentProvider;
use crate::web::AppState;
use crate::web::checkout::deliver_event;
use crate::web::error::AppError;

/// `POST /webhooks/stripe`: 2xx for every verified event, handled or not (so Stripe stops
/// retrying), 400 for a bad signature or a stale timestamp, 5xx when the event could not be
/// stored (so Stripe retries).
pub async fn stripe(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse, AppError> {
    if state.payments.name() != "stripe" {
        return Err(AppError::NotFound);
    }
    let signature = req
        .headers()
        .get(state.payments.signature_header())
        .and_then(|v| v.to_str().ok());
    let applied = deliver_event(&state, signature, &body, SystemTime::now()).await;
    match applied {
        Ok(_) => Ok(HttpResponse::Ok().content_type("text/plain").body("ok\n")),
        Err(AppError::BadRequest(reason)) => {
            tracing::warn!(reason, "payment webhook rejected");
            Ok(HttpResponse::BadRequest()
                .content_type("text/plain")
                .body("rejected\n"))
        }
        Err(other) => Err(other),
    }
}
