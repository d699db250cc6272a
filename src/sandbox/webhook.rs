//! Best-effort order webhooks: one signed JSON POST per status change, a couple of retries.
//!
//! The payload carries ids and the status only, never installation values (spec 2.10, 6).
//! Events may arrive late, twice or out of order; consumers must treat them as a hint to poll
//! `GET /orders/{id}`, which is the truth.

use std::time::Duration;

use hmac::{Hmac, Mac};
use sha2::Sha256;

use super::state::{StatusChange, WebhookConfig};
use super::wire::WebhookEvent;

pub const SIGNATURE_HEADER: &str = "X-Sandbox-Signature";
const ATTEMPTS: u32 = 3;

/// `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`
pub fn sign(secret: &str, timestamp: i64, body: &[u8]) -> String {
    let mut mac =
        Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC accepts keys of any length");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    format!(
        "t={timestamp},v1={}",
        hex::encode(mac.finalize().into_bytes())
    )
}

pub fn event(change: &StatusChange) -> WebhookEvent {
    WebhookEvent {
        id: format!("evt_{}_{}", change.order_id, change.status),
        kind: "order.status_changed".to_string(),
        order_id: change.order_id.clone(),
        reference: change.reference.clone(),
        status: change.status.clone(),
        occurred_at: change.occurred_at.clone(),
    }
}

/// Delivers one event; gives up quietly (one log line) after [`ATTEMPTS`] tries. True when the
/// receiver answered 2xx.
pub async fn deliver(client: reqwest::Client, target: WebhookConfig, change: StatusChange) -> bool {
    let body = match serde_json::to_vec(&event(&change)) {
        Ok(body) => body,
        Err(e) => {
            tracing::warn!(error = %e, "sandbox webhook: cannot encode event");
            return false;
        }
    };
    for attempt in 0..ATTEMPTS {
        if attempt > 0 {
            tokio::time::sleep(Duration::from_millis(200 * 2u64.pow(attempt - 1))).await;
        }
        let timestamp = time::OffsetDateTime::now_utc().unix_timestamp();
        let result = client
            .post(&target.url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header(SIGNATURE_HEADER, sign(&target.secret, timestamp, &body))
            .body(body.clone())
            .send()
            .await;
        match result {
            Ok(response) if response.status().is_success() => return true,
            Ok(response) => tracing::debug!(
                status = response.status().as_u16(),
                attempt,
                "sandbox webhook: receiver refused"
            ),
            Err(e) => tracing::debug!(error = %e, attempt, "sandbox webhook: delivery failed"),
        }
    }
    tracing::warn!(
        upstream.order_id = %change.order_id,
        status = %change.status,
        "sandbox webhook: gave up after {ATTEMPTS} attempts"
    );
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signature_is_hmac_of_timestamp_dot_body() {
        // Reference value computed independently (python: hmac.new(b"s", b"1.{}", sha256)).
        assert_eq!(
            sign("s", 1, b"{}"),
            "t=1,v1=b253639bcd705ed1cda3073f66104f16988bd40272584dea7d0d345ae93e61cc"
        );
    }
}
