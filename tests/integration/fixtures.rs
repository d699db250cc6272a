//! Rows the tests write directly, without going through the shop: a purchase as checkout
//! would write it, with defaults for what a test does not care about.

use storefront::db::now_ms;
use storefront::db::purchases::NewPurchase;
use storefront::domain::PurchaseId;

/// `raw` as a purchase id, as the tests name their purchases (`"p1"`, an id read from a page).
pub(crate) fn as_id(raw: &str) -> PurchaseId {
    PurchaseId::parse(raw).expect("a purchase id")
}

/// A purchase row `id`: `awaiting_payment`, bought by ana@example.com for 5.00 (cost 4.00)
/// through the demo provider, created now and expiring half an hour later; its reference,
/// idempotency key and access-token hash are derived from `id`.
pub(crate) fn purchase(id: &str) -> PurchaseBuilder {
    PurchaseBuilder {
        id: id.to_string(),
        status: "awaiting_payment".into(),
        email: "ana@example.com".into(),
        plan_id: "plan_1".into(),
        price_cents: 500,
        cost_cents: 400,
        reference: format!("ref-{id}"),
        idempotency_key: format!("key-{id}"),
        created_at_ms: now_ms(),
        expires_in_ms: 1_800_000,
    }
}

/// A [`NewPurchase`] under construction; [`PurchaseBuilder::build`] finishes it.
#[derive(Debug, Clone)]
pub(crate) struct PurchaseBuilder {
    id: String,
    status: String,
    email: String,
    plan_id: String,
    price_cents: i64,
    cost_cents: i64,
    reference: String,
    idempotency_key: String,
    created_at_ms: i64,
    expires_in_ms: i64,
}

impl PurchaseBuilder {
    pub(crate) fn status(mut self, status: &str) -> Self {
        self.status = status.to_string();
        self
    }

    pub(crate) fn email(mut self, email: &str) -> Self {
        self.email = email.to_string();
        self
    }

    pub(crate) fn plan(mut self, plan_id: &str) -> Self {
        self.plan_id = plan_id.to_string();
        self
    }

    pub(crate) fn price(mut self, cents: i64) -> Self {
        self.price_cents = cents;
        self
    }

    pub(crate) fn cost(mut self, cents: i64) -> Self {
        self.cost_cents = cents;
        self
    }

    pub(crate) fn reference(mut self, reference: impl Into<String>) -> Self {
        self.reference = reference.into();
        self
    }

    pub(crate) fn idempotency_key(mut self, key: impl Into<String>) -> Self {
        self.idempotency_key = key.into();
        self
    }

    /// Created (and last updated) at `ms`; the expiry moves with it.
    pub(crate) fn created(mut self, ms: i64) -> Self {
        self.created_at_ms = ms;
        self
    }

    /// Expires `ms` after its creation.
    pub(crate) fn expires_in(mut self, ms: i64) -> Self {
        self.expires_in_ms = ms;
        self
    }

    pub(crate) fn build(self) -> NewPurchase {
        NewPurchase {
            access_token_hash: format!("hash-{}", self.id),
            id: as_id(&self.id),
            status: self.status,
            email: self.email,
            plan_id: self.plan_id,
            price_cents: self.price_cents,
            cost_cents: self.cost_cents,
            reference: self.reference,
            idempotency_key: self.idempotency_key,
            payment_provider: "demo".into(),
            expires_at_ms: self.created_at_ms + self.expires_in_ms,
            created_at_ms: self.created_at_ms,
            updated_at_ms: self.created_at_ms,
            language: None,
            checkout_id: as_id(&self.id),
            unit_index: 1,
        }
    }
}
