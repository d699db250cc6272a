//! The Partner API's resources (spec section 2), field by field, and the request bodies.
//!
//! Decoding rules: camelCase names; unknown extra fields are ignored (the spec does not say
//! fields will never be added); nullable fields are `Option` and accept null or absence; a
//! nullable array keeps null (unavailable) apart from `[]` (none listed); every bounded amount is
//! range-checked, so an out-of-range `priceCents` makes the whole body malformed rather than
//! becoming a wrong price. Values whose format the spec does not show (timestamps, transaction
//! `type`) are kept as the raw string instead of guessing a parser.
//!
//! Responses also derive `Serialize` (round trip, and for the sandbox to answer with them);
//! request bodies also derive `Deserialize` with `deny_unknown_fields`, mirroring the spec's
//! "no other properties are allowed".

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::types::{ApiAmount, Cursor, InvalidValue, OrderReference, PlanId, TopUpAmount};
use crate::config::Secret;
use crate::domain::{Cents, Email};

/// `GET /account` (spec 2.1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PartnerAccount {
    pub id: String,
    pub name: String,
    pub email: String,
    /// `sandbox` or `production`; an unfamiliar name is kept as [`Environment::Other`], so a
    /// new environment is not a decode error.
    pub environment: Environment,
    pub scopes: Vec<String>,
    /// Raw timestamp: its format is not shown in the spec.
    pub key_expires_at: String,
    pub webhook_enabled: bool,
}

/// The environment an API key belongs to (spec 2.1 and 5). Exact, case-sensitive match, as
/// for [`OrderStatus`]: anything else is kept verbatim and never taken for a known one.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Environment {
    Sandbox,
    Production,
    Other(String),
}

impl Environment {
    pub fn parse(raw: &str) -> Self {
        match raw {
            "sandbox" => Self::Sandbox,
            "production" => Self::Production,
            other => Self::Other(other.to_string()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            Self::Sandbox => "sandbox",
            Self::Production => "production",
            Self::Other(raw) => raw,
        }
    }
}

impl fmt::Display for Environment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Environment {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Environment {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(deserializer)?;
        Ok(Self::parse(&raw))
    }
}

/// An item of `GET /countries` (spec 2.2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Country {
    pub country_code: String,
    pub country_name: String,
}

/// An item of `GET /regions` (spec 2.3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Region {
    pub slug: String,
    pub name: String,
    pub coverage: Vec<String>,
}

/// A catalog plan (spec 2.4).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Plan {
    /// Opaque: kept exactly as received. [`Plan::plan_id`] turns it into an orderable
    /// [`PlanId`]; one odd id must not make a whole catalog page undecodable.
    pub id: String,
    pub country_code: String,
    pub country_name: String,
    /// `local`, `regional`, `global`; `None` means unavailable, not global.
    pub scope: Option<String>,
    pub region: Option<String>,
    pub coverage: Vec<String>,
    pub data_amount_mb: u64,
    pub validity_days: u32,
    /// The partner's purchase price; passed back as `expectedPriceCents`.
    pub price_cents: ApiAmount,
    pub currency: String,
    pub network_type: Option<String>,
    /// `None`: unavailable. `Some(vec![])`: no networks listed.
    pub networks: Option<Vec<String>>,
    /// `first_install` or `first_network`; kept as text (an unknown value is not guessed).
    pub activation_type: String,
    pub is_daily_plan: bool,
    /// Empty means no text available, not unrestricted usage.
    pub fup_policy: String,
    pub period_num: Option<u32>,
}

impl Plan {
    pub fn plan_id(&self) -> Result<PlanId, InvalidValue> {
        PlanId::parse(self.id.as_str())
    }
}

/// `GET /balance` (spec 2.5).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Balance {
    pub currency: String,
    /// May be negative: a deficit after reversed funding was already spent.
    pub available_cents: Cents,
    pub reserved_cents: ApiAmount,
    pub low_balance: bool,
}

/// An item of `GET /balance/transactions` (spec 2.6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BalanceTransaction {
    pub id: i64,
    /// The allowed values are not shown; kept as text.
    #[serde(rename = "type")]
    pub kind: String,
    pub available_delta_cents: Cents,
    pub reserved_delta_cents: Cents,
    pub reference: String,
    /// Raw timestamp: its format is not shown in the spec.
    pub created_at: String,
}

/// The answer to `POST /orders` (spec 2.8).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AcceptedOrder {
    pub order_id: String,
    /// An origin-relative path. Kept raw and only checked when used
    /// (`PartnerClient::resolve_status_url`): an odd `statusUrl` must not hide the fact that
    /// the order was accepted.
    pub status_url: String,
}

/// An order's status (spec 3). An unfamiliar value is kept verbatim as [`OrderStatus::Other`]
/// and never mapped onto a known one: the caller keeps the record and never reorders.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum OrderStatus {
    Paid,
    Provisioning,
    PendingReview,
    Fulfilled,
    Failed,
    Refunded,
    Other(String),
}

impl OrderStatus {
    /// Exact, case-sensitive match: `"Fulfilled"` is not `fulfilled`, it is unfamiliar.
    pub fn parse(raw: &str) -> Self {
        match raw {
            "paid" => Self::Paid,
            "provisioning" => Self::Provisioning,
            "pending_review" => Self::PendingReview,
            "fulfilled" => Self::Fulfilled,
            "failed" => Self::Failed,
            "refunded" => Self::Refunded,
            other => Self::Other(other.to_string()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            Self::Paid => "paid",
            Self::Provisioning => "provisioning",
            Self::PendingReview => "pending_review",
            Self::Fulfilled => "fulfilled",
            Self::Failed => "failed",
            Self::Refunded => "refunded",
            Self::Other(raw) => raw,
        }
    }

    /// The status in the owner's words, for the console (an unfamiliar one is quoted as the
    /// supplier sent it, since that is what its support will recognise).
    pub fn label(&self) -> String {
        match self {
            Self::Paid => "accepted, not started yet".to_string(),
            Self::Provisioning => "being prepared".to_string(),
            Self::PendingReview => "held for the supplier's review".to_string(),
            Self::Fulfilled => "delivered".to_string(),
            Self::Failed => "failed".to_string(),
            Self::Refunded => "refunded by the supplier".to_string(),
            Self::Other(raw) => format!("unfamiliar status “{raw}”"),
        }
    }
}

impl fmt::Display for OrderStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for OrderStatus {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for OrderStatus {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(deserializer)?;
        Ok(Self::parse(&raw))
    }
}

/// An order (spec 2.9).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Order {
    pub id: String,
    pub reference: String,
    pub status: OrderStatus,
    pub price_cents: ApiAmount,
    pub currency: String,
    /// Raw timestamp: its format is not shown in the spec.
    pub created_at: String,
    /// Set for fulfilled orders; the id for `GET /esims/{id}/installation`.
    pub esim_id: Option<String>,
}

/// Installation details (spec 2.10). These are the customer's private credentials: every value
/// except `esim_id` is a [`Secret`], so `Debug` and logs show `[redacted]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Installation {
    pub esim_id: String,
    #[serde(with = "secret_string")]
    pub iccid: Secret<String>,
    #[serde(with = "secret_string")]
    pub activation_code: Secret<String>,
    #[serde(with = "secret_string")]
    pub qr_code_svg: Secret<String>,
    #[serde(with = "optional_secret_string", default)]
    pub universal_link: Option<Secret<String>>,
}

mod secret_string {
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::config::Secret;

    pub fn serialize<S: Serializer>(value: &Secret<String>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(value.expose())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Secret<String>, D::Error> {
        String::deserialize(d).map(Secret::new)
    }
}

mod optional_secret_string {
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::config::Secret;

    pub fn serialize<S: Serializer>(
        value: &Option<Secret<String>>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        match value {
            Some(v) => s.serialize_some(v.expose()),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<Secret<String>>, D::Error> {
        Ok(Option::<String>::deserialize(d)?.map(Secret::new))
    }
}

/// The answer to `POST /balance/topups` and `POST /checkout-sessions` (spec 2.11).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckoutSession {
    pub id: String,
    /// Validated as a URL on decode (the spec says "string, URI").
    #[serde(with = "url_string")]
    pub checkout_url: url::Url,
}

/// `url` is built without its `serde` feature; a URL travels as its string.
mod url_string {
    use serde::{Deserialize, Deserializer, Serializer, de::Error};

    pub fn serialize<S: Serializer>(value: &url::Url, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(value.as_str())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<url::Url, D::Error> {
        let raw = String::deserialize(d)?;
        url::Url::parse(&raw).map_err(|_| D::Error::custom("checkoutUrl is not a URL"))
    }
}

/// A page of a list endpoint (spec 2.14). A `nextCursor` longer than the spec's 100 characters
/// makes the body malformed: it could not be sent back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Page<T> {
    pub data: Vec<T>,
    pub next_cursor: Option<Cursor>,
}

/// The error body (spec 2.13).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ErrorDetail {
    pub code: String,
    pub message: String,
    pub request_id: String,
}

/// Body of `POST /orders` (spec 2.7). Only validated values go in, so it cannot be malformed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OrderRequest {
    pub plan_id: PlanId,
    pub expected_price_cents: ApiAmount,
    pub reference: OrderReference,
}

/// Body of `POST /checkout-sessions` (spec 2.12): the order fields plus the customer's email.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CheckoutRequest {
    pub plan_id: PlanId,
    pub expected_price_cents: ApiAmount,
    pub reference: OrderReference,
    pub email: Email,
}

impl CheckoutRequest {
    pub fn new(order: OrderRequest, email: Email) -> Self {
        Self {
            plan_id: order.plan_id,
            expected_price_cents: order.expected_price_cents,
            reference: order.reference,
            email,
        }
    }
}

/// Body of `POST /balance/topups` (spec 4.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TopUpRequest {
    pub amount_cents: TopUpAmount,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::upstream::types::MAX_API_AMOUNT;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn order_statuses_read_as_words_and_an_unfamiliar_one_is_quoted() {
        for raw in [
            "paid",
            "provisioning",
            "pending_review",
            "fulfilled",
            "failed",
            "refunded",
        ] {
            let label = OrderStatus::parse(raw).label();
            assert!(!label.contains('_'), "{raw}: {label}");
        }
        assert_eq!(
            OrderStatus::parse("pending_review").label(),
            "held for the supplier's review"
        );
        assert_eq!(
            OrderStatus::parse("on_hold").label(),
            "unfamiliar status “on_hold”"
        );
    }

    fn plan_json() -> serde_json::Value {
        json!({
            "id": "p12-base",
            "countryCode": "DE",
            "countryName": "Germany",
            "scope": "local",
            "region": null,
            "coverage": ["DE"],
            "dataAmountMb": 1024,
            "validityDays": 7,
            "priceCents": 103,
            "currency": "USD",
            "networkType": "5G",
            "networks": ["Telekom", "Vodafone"],
            "activationType": "first_install",
            "isDailyPlan": false,
            "fupPolicy": "",
            "periodNum": null
        })
    }

    fn plan_with(field: &str, value: serde_json::Value) -> Result<Plan, serde_json::Error> {
        let mut v = plan_json();
        v[field] = value;
        serde_json::from_value(v)
    }

    #[test]
    fn plan_decodes_from_the_spec_shape() {
        let plan: Plan = serde_json::from_value(plan_json()).expect("plan");
        assert_eq!(plan.price_cents.cents(), Cents::new(103));
        assert_eq!(
            plan.plan_id().map(String::from).ok(),
            Some("p12-base".into())
        );
        assert_eq!(plan.region, None);
        assert_eq!(plan.period_num, None);
        assert_eq!(plan.networks.as_deref().map(<[String]>::len), Some(2));
    }

    #[test]
    fn null_and_empty_networks_stay_distinct() {
        assert_eq!(
            plan_with("networks", json!(null)).expect("null").networks,
            None
        );
        assert_eq!(
            plan_with("networks", json!([])).expect("empty").networks,
            Some(vec![])
        );
        let mut v = plan_json();
        v.as_object_mut().map(|o| o.remove("networks"));
        let absent: Plan = serde_json::from_value(v).expect("absent");
        assert_eq!(absent.networks, None);
    }

    #[test]
    fn extra_fields_are_ignored() {
        let plan = plan_with("somethingNew", json!({"x": 1})).expect("extra");
        assert_eq!(plan.id, "p12-base");
    }

    #[test]
    fn out_of_range_price_is_malformed() {
        assert!(plan_with("priceCents", json!(-1)).is_err());
        assert!(plan_with("priceCents", json!(MAX_API_AMOUNT + 1)).is_err());
        assert!(plan_with("priceCents", json!(1.5)).is_err());
        assert!(plan_with("priceCents", json!("103")).is_err());
        assert!(plan_with("priceCents", json!(MAX_API_AMOUNT)).is_ok());
        assert!(plan_with("priceCents", json!(0)).is_ok());
    }

    #[test]
    fn missing_required_field_is_malformed() {
        let mut v = plan_json();
        v.as_object_mut().map(|o| o.remove("priceCents"));
        assert!(serde_json::from_value::<Plan>(v).is_err());
    }

    fn account_json() -> serde_json::Value {
        json!({
            "id": "acct_1",
            "name": "Partner",
            "email": "partner@example.com",
            "environment": "production",
            "scopes": ["catalog:read", "balance:read"],
            "keyExpiresAt": "2027-01-01T00:00:00Z",
            "webhookEnabled": true
        })
    }

    #[test]
    fn account_decodes_and_keeps_an_unfamiliar_environment() {
        let account: PartnerAccount = serde_json::from_value(account_json()).expect("account");
        assert_eq!(account.environment, Environment::Production);
        assert_eq!(account.key_expires_at, "2027-01-01T00:00:00Z");
        let mut v = account_json();
        v["environment"] = json!("Production");
        let odd: PartnerAccount = serde_json::from_value(v).expect("odd environment");
        assert_eq!(odd.environment, Environment::Other("Production".into()));
        assert_eq!(
            serde_json::to_value(&odd).expect("encode")["environment"],
            "Production"
        );
    }

    #[test]
    fn account_without_a_required_field_is_malformed() {
        for field in [
            "id",
            "name",
            "email",
            "environment",
            "scopes",
            "keyExpiresAt",
            "webhookEnabled",
        ] {
            let mut v = account_json();
            v.as_object_mut().map(|o| o.remove(field));
            assert!(
                serde_json::from_value::<PartnerAccount>(v).is_err(),
                "{field} is required"
            );
        }
        let mut v = account_json();
        v["webhookEnabled"] = json!("true");
        assert!(serde_json::from_value::<PartnerAccount>(v).is_err());
    }

    #[test]
    fn odd_plan_id_decodes_but_is_not_orderable() {
        let plan = plan_with("id", json!("weird id")).expect("opaque id");
        assert!(plan.plan_id().is_err());
    }

    #[test]
    fn negative_available_balance_is_a_deficit() {
        let b: Balance = serde_json::from_value(json!({
            "currency": "USD", "availableCents": -250, "reservedCents": 0, "lowBalance": true
        }))
        .expect("balance");
        assert!(b.available_cents.is_negative());
        assert!(
            serde_json::from_value::<Balance>(json!({
                "currency": "USD", "availableCents": 0, "reservedCents": -1, "lowBalance": true
            }))
            .is_err(),
            "reservedCents is bounded at 0"
        );
    }

    #[test]
    fn transaction_keeps_type_and_timestamp_raw() {
        let t: BalanceTransaction = serde_json::from_value(json!({
            "id": 7, "type": "reservation_hold_v2", "availableDeltaCents": -103,
            "reservedDeltaCents": 103, "reference": "ord-1", "createdAt": "yesterday-ish"
        }))
        .expect("transaction");
        assert_eq!(t.kind, "reservation_hold_v2");
        assert_eq!(t.created_at, "yesterday-ish");
        assert_eq!(t.available_delta_cents, Cents::new(-103));
    }

    #[test]
    fn order_statuses_known_and_unfamiliar() {
        let order = |status: &str| {
            serde_json::from_value::<Order>(json!({
                "id": "o1", "reference": "r1", "status": status, "priceCents": 103,
                "currency": "USD", "createdAt": "t", "esimId": null
            }))
        };
        assert_eq!(
            order("fulfilled").expect("o").status,
            OrderStatus::Fulfilled
        );
        assert_eq!(
            order("pending_review").expect("o").status,
            OrderStatus::PendingReview
        );
        let odd = order("on_hold").expect("o");
        assert_eq!(odd.status, OrderStatus::Other("on_hold".into()));
        assert_eq!(
            order("Fulfilled").expect("o").status,
            OrderStatus::Other("Fulfilled".into())
        );
        let back = serde_json::to_value(&odd).expect("ser");
        assert_eq!(back["status"], "on_hold");
        assert!(
            serde_json::from_value::<Order>(json!({
                "id": "o1", "reference": "r1", "status": "paid", "priceCents": -5,
                "currency": "USD", "createdAt": "t", "esimId": null
            }))
            .is_err()
        );
    }

    #[test]
    fn installation_debug_hides_credentials() {
        let inst: Installation = serde_json::from_value(json!({
            "esimId": "e1",
            "iccid": "8988247000001234567",
            "activationCode": "LPA:1$smdp.example$MATCHING-ID-SECRET",
            "qrCodeSvg": "<svg>QRSECRET</svg>",
            "universalLink": "https://esim.example/install?c=LINKSECRET"
        }))
        .expect("installation");
        let debug = format!("{inst:?}");
        for secret in [
            "8988247000001234567",
            "MATCHING-ID-SECRET",
            "QRSECRET",
            "LINKSECRET",
        ] {
            assert!(!debug.contains(secret), "{secret} leaked: {debug}");
        }
        assert!(debug.contains("e1"));
        let back = serde_json::to_value(&inst).expect("ser");
        assert_eq!(back["iccid"], "8988247000001234567");
        let no_link: Installation = serde_json::from_value(json!({
            "esimId": "e1", "iccid": "i", "activationCode": "a", "qrCodeSvg": "q",
            "universalLink": null
        }))
        .expect("null link");
        assert!(no_link.universal_link.is_none());
    }

    #[test]
    fn page_keeps_the_cursor_and_bounds_it() {
        let p: Page<Country> = serde_json::from_value(json!({
            "data": [{"countryCode": "DE", "countryName": "Germany"}], "nextCursor": "abc"
        }))
        .expect("page");
        assert_eq!(p.next_cursor.as_ref().map(Cursor::as_str), Some("abc"));
        let last: Page<Country> =
            serde_json::from_value(json!({"data": [], "nextCursor": null})).expect("last");
        assert!(last.next_cursor.is_none());
        assert!(
            serde_json::from_value::<Page<Country>>(
                json!({"data": [], "nextCursor": "c".repeat(101)})
            )
            .is_err()
        );
        assert!(serde_json::from_value::<Page<Country>>(json!({"nextCursor": null})).is_err());
    }

    #[test]
    fn checkout_session_needs_a_url() {
        assert!(
            serde_json::from_value::<CheckoutSession>(
                json!({"id": "cs1", "checkoutUrl": "https://pay.example/cs1"})
            )
            .is_ok()
        );
        assert!(
            serde_json::from_value::<CheckoutSession>(
                json!({"id": "cs1", "checkoutUrl": "not a url"})
            )
            .is_err()
        );
    }

    #[test]
    fn request_bodies_serialize_exactly_the_spec_fields() -> Result<(), Box<dyn std::error::Error>>
    {
        let order = OrderRequest {
            plan_id: PlanId::parse("p1-base")?,
            expected_price_cents: ApiAmount::new(Cents::new(103))?,
            reference: OrderReference::parse("shop-42")?,
        };
        assert_eq!(
            serde_json::to_value(&order)?,
            json!({"planId": "p1-base", "expectedPriceCents": 103, "reference": "shop-42"})
        );
        let checkout = CheckoutRequest::new(order, Email::parse("a@b.co")?);
        assert_eq!(
            serde_json::to_value(&checkout)?,
            json!({"planId": "p1-base", "expectedPriceCents": 103, "reference": "shop-42", "email": "a@b.co"})
        );
        let topup = TopUpRequest {
            amount_cents: TopUpAmount::new(Cents::new(1000))?,
        };
        assert_eq!(serde_json::to_value(topup)?, json!({"amountCents": 1000}));
        assert!(
            serde_json::from_value::<OrderRequest>(json!({
                "planId": "p1-base", "expectedPriceCents": 103, "reference": "r", "extra": 1
            }))
            .is_err(),
            "no other properties are allowed"
        );
        Ok(())
    }

    proptest! {
        #[test]
        fn status_round_trips_and_never_invents_a_known_one(raw in "\\PC{0,20}|paid|fulfilled|failed") {
            let status: OrderStatus = serde_json::from_value(json!(raw)).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(status.as_str(), raw.as_str());
            let known = ["paid", "provisioning", "pending_review", "fulfilled", "failed", "refunded"];
            prop_assert_eq!(matches!(status, OrderStatus::Other(_)), !known.contains(&raw.as_str()));
            prop_assert_eq!(serde_json::to_value(&status).ok(), Some(json!(raw)));
        }
    }
}
