//! How consumers pay the partner: the [`PaymentProvider`] trait and its two providers, `demo`
//! (test mode, built in) and `stripe` (Stripe Checkout).
//!
//! A purchase is marked paid only on a verified provider event (a signed webhook, which the
//! demo delivers through the very same verification path), never on a browser redirect.

pub mod demo;
pub mod signature;
pub mod stripe;

use std::time::SystemTime;

use url::Url;

use crate::domain::{Cents, Email, PurchaseId};

/// What the provider's hosted page should charge.
#[derive(Clone)]
pub struct CheckoutRequest {
    pub purchase_id: PurchaseId,
    /// The price of one eSIM; the page charges it `quantity` times.
    pub amount: Cents,
    /// How many eSIMs (units) the checkout buys, at least 1.
    pub quantity: u32,
    pub email: Email,
    /// One line shown on the payment page ("France · 5 GB for 30 days").
    pub description: String,
    /// Where the consumer lands after paying or cancelling: the order page, without its
    /// private token (the buyer's cookie opens it).
    pub success_url: Url,
    pub cancel_url: Url,
    /// Makes a retried creation return the same session.
    pub idempotency_key: String,
    /// When the hosted page stops taking payment (unix seconds), so a consumer cannot pay long
    /// after the sale stopped holding wallet credit. Providers without expiry ignore it.
    pub expires_at_unix: Option<i64>,
    /// The shop's tax mode for this checkout: a provider that computes tax (Stripe Tax) is
    /// asked to, with the price as including or excluding it; others ignore it.
    pub tax: crate::domain::tax::TaxMode,
}

/// The return URLs name the order: they are not printed, nor is the email.
impl std::fmt::Debug for CheckoutRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CheckoutRequest")
            .field("purchase_id", &self.purchase_id)
            .field("amount", &self.amount)
            .field("quantity", &self.quantity)
            .field("email", &"[redacted]")
            .field("description", &self.description)
            .field("success_url", &"[redacted]")
            .field("cancel_url", &"[redacted]")
            .field("idempotency_key", &self.idempotency_key)
            .field("expires_at_unix", &self.expires_at_unix)
            .field("tax", &self.tax)
            .finish()
    }
}

/// A created checkout session: where to send the consumer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckoutSession {
    pub id: String,
    pub redirect_url: Url,
}

/// A verified event from the provider.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaymentEvent {
    /// The provider's event id: stored once, so a redelivery changes nothing.
    pub id: String,
    pub kind: EventKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventKind {
    /// Money was taken for this session.
    Paid {
        session_id: String,
        purchase_id: Option<String>,
        amount: Cents,
        /// The provider's payment id, needed to refund.
        payment_reference: Option<String>,
        /// The customer's billing country and the tax the provider computed, as reported.
        tax: PaidTax,
    },
    /// The payment was declined, failed later, or the session expired unpaid.
    Failed {
        session_id: String,
        purchase_id: Option<String>,
        reason: String,
    },
    /// The provider reports a refund of a payment.
    Refunded {
        payment_reference: String,
        amount: Cents,
    },
    /// The consumer disputed a payment: the admin must look.
    Disputed { payment_reference: String },
    /// Verified, but nothing the shop acts on.
    Other { kind: String },
}

/// What a provider reports about a payment's tax: the customer's billing country and, for a
/// provider that computes tax itself, what it computed. Every part may be missing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PaidTax {
    /// Two letters, as reported (checked where it is used).
    pub billing_country: Option<String>,
    /// `None`: the provider computed no tax (the shop's table applies).
    pub computed: Option<ProviderTax>,
}

/// Tax a provider computed for a payment, exactly as it reported it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProviderTax {
    /// The total tax of the payment.
    pub amount: Cents,
    /// Its breakdown by jurisdiction and rate; empty when the provider gave none.
    pub lines: Vec<crate::domain::tax::TaxLine>,
}

/// The state of a session as the provider sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionState {
    Open,
    Paid,
    Failed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefundStatus {
    Pending,
    Succeeded,
    Failed,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refund {
    pub id: String,
    pub status: RefundStatus,
}

#[derive(Debug, thiserror::Error)]
pub enum PaymentError {
    #[error("webhook signature rejected: {0}")]
    Signature(#[from] signature::SignatureError),
    #[error("webhook body is not a valid event: {0}")]
    Malformed(String),
    /// The provider refused the request; retrying the same request will not help.
    #[error("the payment provider refused the request: {0}")]
    Refused(String),
    /// The provider could not be reached or failed; the request may be retried.
    #[error("the payment provider is unavailable: {0}")]
    Unavailable(String),
}

/// A payment provider: hosted checkout, signed events, session lookup and refunds.
pub trait PaymentProvider: Send + Sync {
    /// `demo` or `stripe`, as stored on purchases.
    fn name(&self) -> &'static str;

    /// The smallest amount the provider can charge; cheaper plans are shown but not sold.
    fn minimum_charge(&self) -> Cents;

    /// The request header that carries the webhook signature.
    fn signature_header(&self) -> &'static str;

    fn create_checkout(
        &self,
        request: &CheckoutRequest,
    ) -> impl Future<Output = Result<CheckoutSession, PaymentError>> + Send;

    /// Verifies a webhook over its raw body and turns it into a typed event.
    fn verify_event(
        &self,
        signature: Option<&str>,
        body: &[u8],
        now: SystemTime,
    ) -> Result<PaymentEvent, PaymentError>;

    fn session_state(
        &self,
        session_id: &str,
    ) -> impl Future<Output = Result<SessionState, PaymentError>> + Send;

    /// The breakdown of the tax the provider computed for paid session `session_id`, by
    /// jurisdiction and rate, when its events do not carry it (Stripe sends it only when
    /// asked to expand it). Empty when there is none.
    fn tax_breakdown(
        &self,
        session_id: &str,
    ) -> impl Future<Output = Result<Vec<crate::domain::tax::TaxLine>, PaymentError>> + Send;

    /// Refunds `amount` of a payment: all of it, or a part (one unit of several); the same
    /// `idempotency_key` never refunds twice, and the provider refuses refunds beyond what
    /// was paid.
    fn refund(
        &self,
        payment_reference: &str,
        amount: Cents,
        idempotency_key: &str,
    ) -> impl Future<Output = Result<Refund, PaymentError>> + Send;
}

/// The configured provider.
pub enum Provider {
    Demo(demo::DemoProvider),
    Stripe(stripe::StripeProvider),
}

impl PaymentProvider for Provider {
    fn name(&self) -> &'static str {
        match self {
            Self::Demo(p) => p.name(),
            Self::Stripe(p) => p.name(),
        }
    }

    fn minimum_charge(&self) -> Cents {
        match self {
            Self::Demo(p) => p.minimum_charge(),
            Self::Stripe(p) => p.minimum_charge(),
        }
    }

    fn signature_header(&self) -> &'static str {
        match self {
            Self::Demo(p) => p.signature_header(),
            Self::Stripe(p) => p.signature_header(),
        }
    }

    async fn create_checkout(
        &self,
        request: &CheckoutRequest,
    ) -> Result<CheckoutSession, PaymentError> {
        match self {
            Self::Demo(p) => p.create_checkout(request).await,
            Self::Stripe(p) => p.create_checkout(request).await,
        }
    }

    fn verify_event(
        &self,
        signature: Option<&str>,
        body: &[u8],
        now: SystemTime,
    ) -> Result<PaymentEvent, PaymentError> {
        match self {
            Self::Demo(p) => p.verify_event(signature, body, now),
            Self::Stripe(p) => p.verify_event(signature, body, now),
        }
    }

    async fn session_state(&self, session_id: &str) -> Result<SessionState, PaymentError> {
        match self {
            Self::Demo(p) => p.session_state(session_id).await,
            Self::Stripe(p) => p.session_state(session_id).await,
        }
    }

    async fn tax_breakdown(
        &self,
        session_id: &str,
    ) -> Result<Vec<crate::domain::tax::TaxLine>, PaymentError> {
        match self {
            Self::Demo(p) => p.tax_breakdown(session_id).await,
            Self::Stripe(p) => p.tax_breakdown(session_id).await,
        }
    }

    async fn refund(
        &self,
        payment_reference: &str,
        amount: Cents,
        idempotency_key: &str,
    ) -> Result<Refund, PaymentError> {
        match self {
            Self::Demo(p) => p.refund(payment_reference, amount, idempotency_key).await,
            Self::Stripe(p) => p.refund(payment_reference, amount, idempotency_key).await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checkout_request_prints_no_private_link_and_no_email() {
        let link =
            Url::parse("https://shop.example/orders/abc?token=0123secrettoken").expect("url");
        let request = CheckoutRequest {
            purchase_id: PurchaseId::parse("abc").expect("id"),
            amount: Cents::new(500),
            quantity: 1,
            email: Email::parse("someone@example.com").expect("email"),
            description: "France · 5 GB for 30 days".into(),
            success_url: link.clone(),
            cancel_url: link,
            idempotency_key: "checkout-abc".into(),
            expires_at_unix: None,
            tax: crate::domain::tax::TaxMode::Off,
        };
        let shown = format!("{request:?}");
        assert!(!shown.contains("secrettoken"), "{shown}");
        assert!(!shown.contains("someone@"), "{shown}");
        assert!(shown.contains("abc"), "{shown}");
    }
}
