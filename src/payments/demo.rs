//! The built-in test-mode provider. Its hosted page (`/demo-pay/{session}`) is served by the
//! shop itself; Pay and Decline produce events signed exactly like Stripe's and delivered
//! through the same verification and handling path, so the demo exercises production code.
//! No money moves. Session states live in this process (the demo runs as one process).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::SystemTime;

use hmac::{Hmac, Mac};
use rand::RngCore;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use url::Url;

use super::signature;
use super::{
    CheckoutRequest, CheckoutSession, EventKind, PaymentError, PaymentEvent, PaymentProvider,
    Refund, RefundStatus, SessionState,
};
use crate::config::SecretKey;
use crate::domain::Cents;

pub const SIGNATURE_HEADER: &str = "demo-signature";

pub struct DemoProvider {
    signing_key: [u8; 32],
    public_url: Url,
    sessions: Mutex<HashMap<String, SessionState>>,
}

/// The body of a demo event, shaped like a provider's.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct DemoEvent {
    id: String,
    #[serde(rename = "type")]
    kind: String,
    session: String,
    purchase: String,
    amount_cents: i64,
}

fn random_id(prefix: &str) -> String {
    let mut bytes = [0u8; 16];
    rand::rng().fill_bytes(&mut bytes);
    format!("{prefix}_{}", hex::encode(bytes))
}

impl DemoProvider {
    /// The signing key is derived from the shop's secret key, never the key itself.
    pub fn new(secret_key: &SecretKey, public_url: Url) -> Self {
        let mut mac = Hmac::<Sha256>::new_from_slice(secret_key.bytes())
            .expect("HMAC takes keys of any length");
        mac.update(b"storefront demo payments v1");
        Self {
            signing_key: mac.finalize().into_bytes().into(),
            public_url,
            sessions: Mutex::new(HashMap::new()),
        }
    }

    /// The signed event the hosted page delivers when the consumer pays or declines:
    /// `(header value, body)`.
    pub fn signed_event(
        &self,
        paid: bool,
        session_id: &str,
        purchase_id: &str,
        amount: Cents,
        now: SystemTime,
    ) -> (String, Vec<u8>) {
        let event = DemoEvent {
            id: random_id("evt_demo"),
            kind: if paid {
                "payment.succeeded"
            } else {
                "payment.declined"
            }
            .to_string(),
            session: session_id.to_string(),
            purchase: purchase_id.to_string(),
            amount_cents: amount.get(),
        };
        let body = serde_json::to_vec(&event).unwrap_or_default();
        (signature::sign(&self.signing_key, &body, now), body)
    }

    fn set_state(&self, session_id: &str, state: SessionState) {
        if let Ok(mut sessions) = self.sessions.lock() {
            sessions.insert(session_id.to_string(), state);
        }
    }
}

impl PaymentProvider for DemoProvider {
    fn name(&self) -> &'static str {
        "demo"
    }

    fn minimum_charge(&self) -> Cents {
        Cents::new(1)
    }

    fn signature_header(&self) -> &'static str {
        SIGNATURE_HEADER
    }

    async fn create_checkout(
        &self,
        _request: &CheckoutRequest,
    ) -> Result<CheckoutSession, PaymentError> {
        let id = random_id("demo_cs");
        let redirect_url = self
            .public_url
            .join(&format!("/demo-pay/{id}"))
            .map_err(|e| PaymentError::Refused(e.to_string()))?;
        self.set_state(&id, SessionState::Open);
        Ok(CheckoutSession { id, redirect_url })
    }

    fn verify_event(
        &self,
        signature_value: Option<&str>,
        body: &[u8],
        now: SystemTime,
    ) -> Result<PaymentEvent, PaymentError> {
        signature::verify(&self.signing_key, signature_value, body, now)?;
        let event: DemoEvent =
            serde_json::from_slice(body).map_err(|e| PaymentError::Malformed(e.to_string()))?;
        let kind = match event.kind.as_str() {
            "payment.succeeded" => {
                self.set_state(&event.session, SessionState::Paid);
                EventKind::Paid {
                    payment_reference: Some(format!("demo_pay_{}", event.session)),
                    session_id: event.session,
                    purchase_id: Some(event.purchase),
                    amount: Cents::new(event.amount_cents),
                }
            }
            "payment.declined" => {
                self.set_state(&event.session, SessionState::Failed);
                EventKind::Failed {
                    session_id: event.session,
                    purchase_id: Some(event.purchase),
                    reason: "the test card was declined".to_string(),
                }
            }
            other => EventKind::Other {
                kind: other.to_string(),
            },
        };
        Ok(PaymentEvent { id: event.id, kind })
    }

    async fn session_state(&self, session_id: &str) -> Result<SessionState, PaymentError> {
        self.sessions
            .lock()
            .ok()
            .and_then(|s| s.get(session_id).copied())
            .ok_or_else(|| PaymentError::Refused("unknown demo session".to_string()))
    }

    async fn refund(
        &self,
        _payment_reference: &str,
        _amount: Cents,
        idempotency_key: &str,
    ) -> Result<Refund, PaymentError> {
        // Test mode: nothing to give back, so a refund succeeds at once. The id is derived from
        // the key, so retrying returns the same refund.
        Ok(Refund {
            id: format!(
                "demo_re_{}",
                &hex::encode(Sha256::digest(idempotency_key.as_bytes()))[..24]
            ),
            status: RefundStatus::Succeeded,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn provider() -> DemoProvider {
        DemoProvider::new(
            &SecretKey::from_bytes([7; 32]),
            Url::parse("http://127.0.0.1:8080").expect("url"),
        )
    }

    #[tokio::test]
    async fn pay_and_decline_events_verify_into_typed_events() {
        let demo = provider();
        let session = demo
            .create_checkout(&CheckoutRequest {
                purchase_id: "pu1".into(),
                amount: Cents::new(1299),
                email: crate::domain::Email::parse("a@example.com").expect("email"),
                description: "test".into(),
                success_url: Url::parse("http://x/orders/pu1").expect("url"),
                cancel_url: Url::parse("http://x/orders/pu1").expect("url"),
                idempotency_key: "k".into(),
                expires_at_unix: None,
            })
            .await
            .expect("session");
        assert!(
            session
                .redirect_url
                .as_str()
                .starts_with("http://127.0.0.1:8080/demo-pay/demo_cs_")
        );
        assert_eq!(
            demo.session_state(&session.id).await.expect("state"),
            SessionState::Open
        );

        let now = SystemTime::now();
        let (header, body) = demo.signed_event(true, &session.id, "pu1", Cents::new(1299), now);
        let event = demo
            .verify_event(Some(&header), &body, now)
            .expect("verifies");
        assert!(matches!(
            event.kind,
            EventKind::Paid { ref purchase_id, amount, .. } if purchase_id.as_deref() == Some("pu1") && amount == Cents::new(1299)
        ));
        assert_eq!(
            demo.session_state(&session.id).await.expect("state"),
            SessionState::Paid
        );

        let (header, body) = demo.signed_event(false, &session.id, "pu1", Cents::new(1299), now);
        let event = demo
            .verify_event(Some(&header), &body, now)
            .expect("verifies");
        assert!(matches!(event.kind, EventKind::Failed { .. }));
    }

    #[test]
    fn forged_or_replayed_events_are_refused() {
        let demo = provider();
        let now = SystemTime::now();
        let (header, body) = demo.signed_event(true, "s", "pu1", Cents::new(100), now);
        let mut forged = body.clone();
        forged.extend_from_slice(b" ");
        assert!(demo.verify_event(Some(&header), &forged, now).is_err());
        let other = DemoProvider::new(
            &SecretKey::from_bytes([8; 32]),
            Url::parse("http://x").expect("url"),
        );
        assert!(other.verify_event(Some(&header), &body, now).is_err());
        let later = now + std::time::Duration::from_secs(301);
        assert!(demo.verify_event(Some(&header), &body, later).is_err());
    }
}
