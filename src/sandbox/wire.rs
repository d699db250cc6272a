//! The Partner API's JSON shapes exactly as spec section 2 names them, owned by the sandbox.
//!
//! The sandbox deliberately does not share types with `crate::upstream`: it is a second,
//! independent reading of the spec, so a misreading in the client shows up as a failing test
//! instead of being copied into its own test double.
//!
//! Request bodies reject unknown properties and non-integer numbers (`1.5`, `"100"`) through
//! serde itself; ranges and patterns are checked in `validate`.

use serde::{Deserialize, Serialize};

/// Largest amount the spec allows (`Number.MAX_SAFE_INTEGER`).
pub const MAX_AMOUNT_CENTS: i64 = 9_007_199_254_740_991;

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PartnerAccount {
    pub id: String,
    pub name: String,
    pub email: String,
    pub environment: String,
    pub scopes: Vec<String>,
    pub key_expires_at: String,
    pub webhook_enabled: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Country {
    pub country_code: String,
    pub country_name: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Region {
    pub slug: String,
    pub name: String,
    pub coverage: Vec<String>,
}

/// Every field is always serialized, nullable ones as `null` (spec 2.4: "present with null").
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Plan {
    pub id: String,
    pub country_code: String,
    pub country_name: String,
    pub scope: Option<String>,
    pub region: Option<String>,
    pub coverage: Vec<String>,
    pub data_amount_mb: i64,
    pub validity_days: i64,
    pub price_cents: i64,
    pub currency: String,
    pub network_type: Option<String>,
    pub networks: Option<Vec<String>>,
    pub activation_type: String,
    pub is_daily_plan: bool,
    pub fup_policy: String,
    pub period_num: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Balance {
    pub currency: String,
    pub available_cents: i64,
    pub reserved_cents: i64,
    pub low_balance: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BalanceTransaction {
    pub id: i64,
    #[serde(rename = "type")]
    pub kind: String,
    pub available_delta_cents: i64,
    pub reserved_delta_cents: i64,
    pub reference: String,
    pub created_at: String,
}

/// Body of `POST /orders`. Also the fingerprint compared on idempotent replays, so two bodies
/// that differ only in whitespace or property order count as "the same body".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OrderRequest {
    pub plan_id: String,
    pub expected_price_cents: i64,
    pub reference: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AcceptedOrder {
    pub order_id: String,
    pub status_url: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Order {
    pub id: String,
    pub reference: String,
    pub status: String,
    pub price_cents: i64,
    pub currency: String,
    pub created_at: String,
    pub esim_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Installation {
    pub esim_id: String,
    pub iccid: String,
    pub activation_code: String,
    pub qr_code_svg: String,
    pub universal_link: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckoutSession {
    pub id: String,
    pub checkout_url: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CheckoutRequest {
    pub plan_id: String,
    pub expected_price_cents: i64,
    pub reference: String,
    pub email: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TopupRequest {
    pub amount_cents: i64,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ErrorDetail {
    pub code: String,
    pub message: String,
    pub request_id: String,
}

/// The shared list envelope of spec 2.14.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Page<T> {
    pub data: Vec<T>,
    pub next_cursor: Option<String>,
}

impl<T> Page<T> {
    /// The same page with each item converted: lists paginate over borrowed items and copy
    /// only the page they return.
    pub fn map<U>(self, f: impl FnMut(T) -> U) -> Page<U> {
        Page {
            data: self.data.into_iter().map(f).collect(),
            next_cursor: self.next_cursor,
        }
    }
}

/// Payload of an order webhook. Carries no installation values (spec 2.10, 6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WebhookEvent {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub order_id: String,
    pub reference: String,
    pub status: String,
    pub occurred_at: String,
}
