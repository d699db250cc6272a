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

/// `POST /webhooks/upstream/{token}`: the Partner API's order notifications. Their shape is not
/// specified, so the body is only searched for an order id, and that order's tracking job is
/// made due now. The status in the payload is never trusted: the poller asks the API.
pub async fn upstream(
    state: web::Data<AppState>,
    token: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, AppError> {
    let upstream_settings = &state.settings.upstream;
    let Some(expected) = upstream_settings.webhook_token.as_ref() else {
        return Err(AppError::NotFound);
    };
    if !expected.matches(token.as_bytes()) {
        return Err(AppError::NotFound);
    }
    let json: serde_json::Value = serde_json::from_slice(&body)
        .map_err(|_| AppError::BadRequest("the body is not JSON".into()))?;
    let Some(order_id) = find_order_id(&json) else {
        tracing::info!("upstream webhook without an order id; ignored");
        return Ok(HttpResponse::Accepted().finish());
    };
    let woken = state.outbox.wake_tracking(&order_id).await?;
    tracing::info!(upstream.order_id = %order_id, woken, "upstream webhook woke tracking");
    Ok(HttpResponse::Accepted().finish())
}

/// An order id anywhere plausible: `orderId`/`order_id` at any depth, or the `id` of an object
/// under an `order` key. Bounded in length like the API's own path ids.
fn find_order_id(value: &serde_json::Value) -> Option<String> {
    fn walk(value: &serde_json::Value, depth: usize) -> Option<String> {
        if depth > 6 {
            return None;
        }
        let object = value.as_object()?;
        for key in ["orderId", "order_id"] {
            if let Some(id) = object.get(key).and_then(|v| v.as_str()) {
                return Some(id.to_string());
            }
        }
        if let Some(id) = object
            .get("order")
            .and_then(|o| o.get("id"))
            .and_then(|v| v.as_str())
        {
            return Some(id.to_string());
        }
        object.values().find_map(|v| walk(v, depth + 1))
    }
    walk(value, 0).filter(|id| !id.is_empty() && id.len() <= 100)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_ids_are_found_in_any_plausible_shape() {
        let cases = [
            (
                r#"{"type":"order.status_changed","orderId":"o1","status":"fulfilled"}"#,
                Some("o1"),
            ),
            (r#"{"data":{"object":{"order_id":"o2"}}}"#, Some("o2")),
            (r#"{"order":{"id":"o3","status":"failed"}}"#, Some("o3")),
            (r#"{"id":"evt_1","status":"fulfilled"}"#, None),
            (r#"[1,2,3]"#, None),
        ];
        for (json, expected) in cases {
            let value: serde_json::Value = serde_json::from_str(json).expect("json");
            assert_eq!(find_order_id(&value).as_deref(), expected, "{json}");
        }
    }
}
