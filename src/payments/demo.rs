//! The built-in test-mode provider. Its hosted page (`/demo-pay/{session}`) is served by the
//! shop itself; Pay and Decline produce events signed exactly like Stripe's and delivered
//! through the same verification and handling path, so the demo exercises production code.
//! No money moves.
//!
//! A demo session takes one answer. Pay or Decline settles it for good: a second press (a
//! stale tab, a replayed form) is refused with [`SessionClosed`] and no event is made, so a
//! declined demo payment can never turn into a paid order later. This is the demo's own rule,
//! stricter than Stripe's (where a declined card may be retried until the session expires):
//! here Decline already told the shop the payment failed. Late *provider* events are another
//! matter and are still honoured by [`crate::orders::confirm`].
//!
//! Session states live in this process (the demo runs as one process). After a restart the
//! process knows no session, and the purchase's own status stands in for it
//! ([`recorded_state`]).
//!
//! Refunds are checked the way a real provider checks them: a payment this process took is
//! refunded in parts (one per key, a repeated key returns the same refund) and never beyond
//! what was paid; a refund that would take the payment's refunds past it is refused. A payment
//! taken before a restart is unknown here and refunded as asked (no money moves in the demo).

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};
use std::time::{SystemTime, UNIX_EPOCH};

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
use crate::domain::PurchaseId;
use crate::domain::purchase::PurchaseStatus;

pub const SIGNATURE_HEADER: &str = "demo-signature";

pub struct DemoProvider {
    signing_key: [u8; 32],
    public_url: Url,
    sessions: Mutex<HashMap<String, DemoSession>>,
    /// Payments this process took, by payment reference.
    payments: Mutex<HashMap<String, DemoPayment>>,
}

/// A payment taken through the hosted page, and the refunds made of it so far.
#[derive(Debug, Clone, Default)]
struct DemoPayment {
    paid: Cents,
    /// Refunded amounts by idempotency key.
    refunds: HashMap<String, Cents>,
}

impl DemoPayment {
    fn refunded(&self) -> Cents {
        Cents::new(
            self.refunds
                .values()
                .map(|c| c.get())
                .fold(0, i64::saturating_add),
        )
    }
}

/// The payment reference the demo gives a paid session (what the shop refunds against).
fn payment_reference(session_id: &str) -> String {
    format!("demo_pay_{session_id}")
}

/// One session as this process knows it.
#[derive(Debug, Clone, Copy)]
struct DemoSession {
    state: SessionState,
    /// When the hosted page stops taking an answer (unix seconds), as the checkout asked.
    expires_at_unix: Option<i64>,
}

/// The consumer's answer on the hosted page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DemoAnswer {
    Pay,
    Decline,
}

impl DemoAnswer {
    /// `pay` or `decline`, as in `/demo-pay/{session}/{answer}`.
    pub fn parse(raw: &str) -> Option<Self> {
        match raw {
            "pay" => Some(Self::Pay),
            "decline" => Some(Self::Decline),
            _ => None,
        }
    }
}

/// Why the hosted page takes no answer: the session's outcome is already final. Each message
/// is what the consumer reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SessionClosed {
    #[error("This payment is already made. Nothing more was charged.")]
    Paid,
    #[error(
        "This payment was declined, and a declined test payment stays declined. Nothing was charged. To buy, start again from the plan page."
    )]
    Declined,
    #[error(
        "This payment page has expired. Nothing was charged. To buy, start again from the plan page."
    )]
    Expired,
}

/// The session state the shop's record implies, for a session this process does not know
/// (it was started before a restart): still awaiting payment → open; payment failed →
/// failed; anything later → paid.
pub fn recorded_state(status: PurchaseStatus) -> SessionState {
    match status {
        PurchaseStatus::AwaitingPayment => SessionState::Open,
        PurchaseStatus::PaymentFailed => SessionState::Failed,
        _ => SessionState::Paid,
    }
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
    /// The billing country the payer chose on the page (asked only while the shop charges
    /// tax).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    billing_country: Option<String>,
}

fn random_id(prefix: &str) -> String {
    let mut bytes = [0u8; 16];
    rand::rng().fill_bytes(&mut bytes);
    format!("{prefix}_{}", hex::encode(bytes))
}

fn unix_seconds(now: SystemTime) -> i64 {
    now.duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
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
            payments: Mutex::new(HashMap::new()),
        }
    }

    /// The payments table; poisoning is taken over as for [`DemoProvider::sessions`].
    fn payments(&self) -> MutexGuard<'_, HashMap<String, DemoPayment>> {
        self.payments
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The session table. A panic while it was held leaves nothing half-written (every
    /// change is one insert), so a poisoned lock is taken over rather than failing the page.
    fn sessions(&self) -> MutexGuard<'_, HashMap<String, DemoSession>> {
        self.sessions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Whether the session still takes an answer, or why not. `recorded` stands in for a
    /// session this process does not know (see [`recorded_state`]).
    fn check_open(
        session: Option<&DemoSession>,
        recorded: SessionState,
        now: SystemTime,
    ) -> Result<(), SessionClosed> {
        let (state, expires_at_unix) =
            session.map_or((recorded, None), |s| (s.state, s.expires_at_unix));
        match state {
            SessionState::Paid => Err(SessionClosed::Paid),
            SessionState::Failed => Err(SessionClosed::Declined),
            SessionState::Open if expires_at_unix.is_some_and(|at| unix_seconds(now) >= at) => {
                Err(SessionClosed::Expired)
            }
            SessionState::Open => Ok(()),
        }
    }

    /// Whether the hosted page should offer Pay and Decline.
    pub fn is_open(&self, session_id: &str, recorded: SessionState, now: SystemTime) -> bool {
        Self::check_open(self.sessions().get(session_id), recorded, now).is_ok()
    }

    /// Takes the consumer's one answer: the session becomes paid or failed at once (two
    /// presses at the same moment cannot both pass), and the signed event to deliver is
    /// returned as `(header value, body)`. A session already settled or expired is refused
    /// and no event is made.
    ///
    /// If the event then cannot be delivered, [`DemoProvider::reopen`] gives the consumer
    /// their answer back. `billing_country` is the payer's, when the page asked for it.
    #[expect(
        clippy::too_many_arguments,
        reason = "one answer of the hosted page, all of it"
    )]
    pub fn settle(
        &self,
        session_id: &str,
        answer: DemoAnswer,
        purchase_id: &PurchaseId,
        amount: Cents,
        billing_country: Option<&str>,
        recorded: SessionState,
        now: SystemTime,
    ) -> Result<(String, Vec<u8>), SessionClosed> {
        {
            let mut sessions = self.sessions();
            let known = sessions.get(session_id).copied();
            Self::check_open(known.as_ref(), recorded, now)?;
            sessions.insert(
                session_id.to_string(),
                DemoSession {
                    state: match answer {
                        DemoAnswer::Pay => SessionState::Paid,
                        DemoAnswer::Decline => SessionState::Failed,
                    },
                    expires_at_unix: known.and_then(|s| s.expires_at_unix),
                },
            );
        }
        if answer == DemoAnswer::Pay {
            self.payments().insert(
                payment_reference(session_id),
                DemoPayment {
                    paid: amount,
                    refunds: HashMap::new(),
                },
            );
        }
        Ok(self.signed_event(
            answer,
            session_id,
            purchase_id,
            amount,
            billing_country,
            now,
        ))
    }

    /// Opens a settled session again, after its event was not recorded (the database refused
    /// it): nothing happened, so the consumer may answer again.
    pub fn reopen(&self, session_id: &str) {
        if let Some(session) = self.sessions().get_mut(session_id) {
            session.state = SessionState::Open;
        }
        self.payments().remove(&payment_reference(session_id));
    }

    /// The signed event for `answer`: `(header value, body)`.
    fn signed_event(
        &self,
        answer: DemoAnswer,
        session_id: &str,
        purchase_id: &PurchaseId,
        amount: Cents,
        billing_country: Option<&str>,
        now: SystemTime,
    ) -> (String, Vec<u8>) {
        let event = DemoEvent {
            id: random_id("evt_demo"),
            kind: match answer {
                DemoAnswer::Pay => "payment.succeeded",
                DemoAnswer::Decline => "payment.declined",
            }
            .to_string(),
            session: session_id.to_string(),
            purchase: purchase_id.to_string(),
            amount_cents: amount.get(),
            billing_country: billing_country.map(str::to_string),
        };
        let body = serde_json::to_vec(&event).unwrap_or_default();
        (signature::sign(&self.signing_key, &body, now), body)
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
        request: &CheckoutRequest,
    ) -> Result<CheckoutSession, PaymentError> {
        let id = random_id("demo_cs");
        let redirect_url = self
            .public_url
            .join(&format!("/demo-pay/{id}"))
            .map_err(|e| PaymentError::Refused(e.to_string()))?;
        self.sessions().insert(
            id.clone(),
            DemoSession {
                state: SessionState::Open,
                expires_at_unix: request.expires_at_unix,
            },
        );
        Ok(CheckoutSession { id, redirect_url })
    }

    /// Session states are changed by [`DemoProvider::settle`], before the event exists;
    /// verifying only reads the event.
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
            "payment.succeeded" => EventKind::Paid {
                payment_reference: Some(payment_reference(&event.session)),
                session_id: event.session,
                purchase_id: Some(event.purchase),
                amount: Cents::new(event.amount_cents),
                // The demo computes no tax: the shop's table applies.
                tax: super::PaidTax {
                    billing_country: event.billing_country,
                    computed: None,
                },
            },
            "payment.declined" => EventKind::Failed {
                session_id: event.session,
                purchase_id: Some(event.purchase),
                reason: "the test card was declined".to_string(),
            },
            other => EventKind::Other {
                kind: other.to_string(),
            },
        };
        Ok(PaymentEvent { id: event.id, kind })
    }

    async fn session_state(&self, session_id: &str) -> Result<SessionState, PaymentError> {
        self.sessions()
            .get(session_id)
            .map(|s| s.state)
            .ok_or_else(|| PaymentError::Refused("unknown demo session".to_string()))
    }

    /// The demo computes no tax: the shop's table does.
    async fn tax_breakdown(
        &self,
        _session_id: &str,
    ) -> Result<Vec<crate::domain::tax::TaxLine>, PaymentError> {
        Ok(Vec::new())
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
        // The id is derived from the key, so retrying returns the same refund.
        let refund = Refund {
            id: format!(
                "demo_re_{}",
                &hex::encode(Sha256::digest(idempotency_key.as_bytes()))[..24]
            ),
            status: RefundStatus::Succeeded,
        };
        let mut payments = self.payments();
        let Some(payment) = payments.get_mut(payment_reference) else {
            return Ok(refund);
        };
        if payment.refunds.contains_key(idempotency_key) {
            return Ok(refund);
        }
        let after = payment.refunded().get().saturating_add(amount.get());
        if after > payment.paid.get() {
            return Err(PaymentError::Refused(format!(
                "a refund of {amount} would bring the refunds of the payment to {}, more than the {} paid",
                Cents::new(after),
                payment.paid
            )));
        }
        payment.refunds.insert(idempotency_key.to_string(), amount);
        Ok(refund)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn pid(raw: &str) -> PurchaseId {
        PurchaseId::parse(raw).expect("a purchase id")
    }

    fn provider() -> DemoProvider {
        DemoProvider::new(
            &SecretKey::from_bytes([7; 32]),
            Url::parse("http://127.0.0.1:8080").expect("url"),
        )
    }

    async fn open_session(demo: &DemoProvider, expires_at_unix: Option<i64>) -> String {
        demo.create_checkout(&CheckoutRequest {
            purchase_id: pid("pu1"),
            amount: Cents::new(1299),
            quantity: 1,
            email: crate::domain::Email::parse("a@example.com").expect("email"),
            description: "test".into(),
            success_url: Url::parse("http://x/orders/pu1").expect("url"),
            cancel_url: Url::parse("http://x/orders/pu1").expect("url"),
            idempotency_key: "k".into(),
            expires_at_unix,
            tax: crate::domain::tax::TaxMode::Off,
        })
        .await
        .expect("session")
        .id
    }

    fn settle(
        demo: &DemoProvider,
        session: &str,
        answer: DemoAnswer,
        now: SystemTime,
    ) -> Result<(String, Vec<u8>), SessionClosed> {
        demo.settle(
            session,
            answer,
            &pid("pu1"),
            Cents::new(1299),
            None,
            SessionState::Open,
            now,
        )
    }

    #[tokio::test]
    async fn pay_and_decline_events_verify_into_typed_events() {
        let demo = provider();
        let session = open_session(&demo, None).await;
        assert!(session.starts_with("demo_cs_"));
        assert_eq!(
            demo.session_state(&session).await.expect("state"),
            SessionState::Open
        );

        let now = SystemTime::now();
        let (header, body) = settle(&demo, &session, DemoAnswer::Pay, now).expect("open");
        let event = demo
            .verify_event(Some(&header), &body, now)
            .expect("verifies");
        assert!(matches!(
            event.kind,
            EventKind::Paid { ref purchase_id, amount, .. } if purchase_id.as_deref() == Some("pu1") && amount == Cents::new(1299)
        ));
        assert_eq!(
            demo.session_state(&session).await.expect("state"),
            SessionState::Paid
        );

        let declined = open_session(&demo, None).await;
        let (header, body) = settle(&demo, &declined, DemoAnswer::Decline, now).expect("open");
        let event = demo
            .verify_event(Some(&header), &body, now)
            .expect("verifies");
        assert!(matches!(event.kind, EventKind::Failed { .. }));
        assert_eq!(
            demo.session_state(&declined).await.expect("state"),
            SessionState::Failed
        );
    }

    #[tokio::test]
    async fn a_settled_session_takes_no_second_answer() {
        let demo = provider();
        let now = SystemTime::now();
        let declined = open_session(&demo, None).await;
        settle(&demo, &declined, DemoAnswer::Decline, now).expect("open");
        assert!(!demo.is_open(&declined, SessionState::Open, now));
        for answer in [DemoAnswer::Pay, DemoAnswer::Decline] {
            assert_eq!(
                settle(&demo, &declined, answer, now),
                Err(SessionClosed::Declined)
            );
        }
        let paid = open_session(&demo, None).await;
        settle(&demo, &paid, DemoAnswer::Pay, now).expect("open");
        assert_eq!(
            settle(&demo, &paid, DemoAnswer::Pay, now),
            Err(SessionClosed::Paid)
        );
        // An answer whose event was not recorded can be given again.
        demo.reopen(&paid);
        assert!(settle(&demo, &paid, DemoAnswer::Pay, now).is_ok());
    }

    #[tokio::test]
    async fn an_expired_session_takes_no_answer() {
        let demo = provider();
        let now = SystemTime::now();
        let session = open_session(&demo, Some(unix_seconds(now) + 60)).await;
        assert!(demo.is_open(&session, SessionState::Open, now));
        let later = now + Duration::from_secs(61);
        assert!(!demo.is_open(&session, SessionState::Open, later));
        assert_eq!(
            settle(&demo, &session, DemoAnswer::Pay, later),
            Err(SessionClosed::Expired)
        );
    }

    #[test]
    fn after_a_restart_the_purchase_status_stands_in_for_the_session() {
        let demo = provider();
        let now = SystemTime::now();
        let answer = |status| {
            demo.settle(
                "demo_cs_before_restart",
                DemoAnswer::Pay,
                &pid("pu1"),
                Cents::new(1),
                None,
                recorded_state(status),
                now,
            )
            .map(|_| ())
        };
        assert_eq!(
            answer(PurchaseStatus::PaymentFailed),
            Err(SessionClosed::Declined)
        );
        assert_eq!(answer(PurchaseStatus::Fulfilled), Err(SessionClosed::Paid));
        assert_eq!(answer(PurchaseStatus::AwaitingPayment), Ok(()));
        // Once answered, the process knows the session and the record no longer matters.
        assert_eq!(
            answer(PurchaseStatus::AwaitingPayment),
            Err(SessionClosed::Paid)
        );
    }

    #[tokio::test]
    async fn refunds_of_a_payment_never_add_up_to_more_than_was_paid() {
        let demo = provider();
        let now = SystemTime::now();
        let session = open_session(&demo, None).await;
        // Three eSIMs at 12.99 paid as one payment of 38.97.
        demo.settle(
            &session,
            DemoAnswer::Pay,
            &pid("pu1"),
            Cents::new(3 * 1299),
            None,
            SessionState::Open,
            now,
        )
        .expect("open");
        let payment = payment_reference(&session);
        let unit = Cents::new(1299);
        let first = demo
            .refund(&payment, unit, "refund-pu1-2")
            .await
            .expect("a unit's share");
        assert_eq!(first.status, RefundStatus::Succeeded);
        // The same key is the same refund, not a second one.
        let again = demo
            .refund(&payment, unit, "refund-pu1-2")
            .await
            .expect("the same refund");
        assert_eq!(again, first);
        demo.refund(&payment, unit, "refund-pu1-3")
            .await
            .expect("a second unit's share");
        // 25.98 of 38.97 is refunded: 13.00 more is refused, 12.99 is not.
        let refused = demo
            .refund(&payment, Cents::new(1300), "refund-pu1-1")
            .await;
        assert!(
            matches!(refused, Err(PaymentError::Refused(ref why)) if why.contains("more than")),
            "{refused:?}"
        );
        demo.refund(&payment, unit, "refund-pu1-1")
            .await
            .expect("the last share");
        let beyond = demo.refund(&payment, Cents::new(1), "refund-extra").await;
        assert!(
            matches!(beyond, Err(PaymentError::Refused(_))),
            "{beyond:?}"
        );
        assert!(matches!(
            demo.refund(&payment, Cents::new(0), "refund-zero").await,
            Err(PaymentError::Refused(_))
        ));
    }

    #[test]
    fn forged_or_replayed_events_are_refused() {
        let demo = provider();
        let now = SystemTime::now();
        let (header, body) = demo.signed_event(
            DemoAnswer::Pay,
            "s",
            &pid("pu1"),
            Cents::new(100),
            None,
            now,
        );
        let mut forged = body.clone();
        forged.extend_from_slice(b" ");
        assert!(demo.verify_event(Some(&header), &forged, now).is_err());
        let other = DemoProvider::new(
            &SecretKey::from_bytes([8; 32]),
            Url::parse("http://x").expect("url"),
        );
        assert!(other.verify_event(Some(&header), &body, now).is_err());
        let later = now + Duration::from_secs(301);
        assert!(demo.verify_event(Some(&header), &body, later).is_err());
    }
}
