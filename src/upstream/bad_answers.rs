//! Generated answers from the Partner API: any status, any `Retry-After` and any body (random
//! bytes, random JSON, truncated JSON, the resources' own fields with wrong types, huge numbers
//! and negative amounts) must come out of [`interpret`] as a value or a classified error, never
//! a panic, with the class the status calls for. The sandbox never answers like this, so the
//! classification is driven directly.
//!
//! `STOREFRONT_FUZZ_CASES` sets the cases as for the HTTP side's property tests: three times
//! as many answers (each read as every resource type) and ten times as many `Retry-After`
//! values; `scripts/fuzz` runs the long form.

use std::time::{Duration, SystemTime};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use reqwest::StatusCode;
use reqwest::header::{HeaderMap, HeaderValue, RETRY_AFTER};
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::error::{
    Class, MAX_RETRY_AFTER, RawResponse, UpstreamError, interpret, parse_retry_after,
};
use super::models::{
    AcceptedOrder, Balance, BalanceTransaction, CheckoutSession, Country, Installation, Order,
    Page, PartnerAccount, Plan, Region,
};

fn cases() -> u32 {
    std::env::var("STOREFRONT_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200)
}

/// `Retry-After` values of every shape: delta-seconds small, huge and negative, fractions,
/// HTTP-dates past, near and far (and in forms the client does not accept), and garbage.
fn retry_after() -> impl Strategy<Value = Option<Vec<u8>>> {
    let shapes = prop_oneof![
        any::<u64>().prop_map(|n| n.to_string()),
        (0u32..100_000).prop_map(|n| n.to_string()),
        any::<i64>().prop_map(|n| n.to_string()),
        "[0-9]{20,60}",
        (0u32..1000, 0u32..1000).prop_map(|(a, b)| format!("{a}.{b}")),
        (
            prop::sample::select(vec!["Mon", "Tue", "Sun", "Xyz"]),
            0u32..40,
            prop::sample::select(vec!["Jan", "Feb", "Nov", "Dec", "Foo"]),
            prop_oneof![1900u32..2100, 0u32..10_000, Just(9999)],
            0u32..30,
            0u32..70,
            0u32..70,
            prop::sample::select(vec!["GMT", "UTC", "+0000", "-2359", "+2359", "PST", ""]),
        )
            .prop_map(|(d, day, m, y, h, min, s, z)| {
                format!("{d}, {day:02} {m} {y} {h:02}:{min:02}:{s:02} {z}")
            }),
        Just("Sunday, 06-Nov-94 08:49:37 GMT".to_string()),
        Just("Sun Nov  6 08:49:37 1994".to_string()),
        "[ -~]{0,40}",
    ];
    prop::option::weighted(
        0.8,
        prop_oneof![
            6 => shapes.prop_map(String::into_bytes),
            1 => prop::collection::vec(any::<u8>(), 0..40),
        ],
    )
}

/// Any JSON value, a few levels deep, numbers of every size and sign.
fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        ".{0,20}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map(".{0,8}", inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Every field name of the resources, so generated objects decode part of the way.
const FIELDS: &[&str] = &[
    "id",
    "name",
    "email",
    "environment",
    "scopes",
    "keyExpiresAt",
    "webhookEnabled",
    "countryCode",
    "countryName",
    "slug",
    "coverage",
    "scope",
    "region",
    "dataAmountMb",
    "validityDays",
    "priceCents",
    "currency",
    "networkType",
    "networks",
    "activationType",
    "isDailyPlan",
    "fupPolicy",
    "periodNum",
    "availableCents",
    "reservedCents",
    "lowBalance",
    "type",
    "availableDeltaCents",
    "reservedDeltaCents",
    "reference",
    "createdAt",
    "orderId",
    "statusUrl",
    "status",
    "esimId",
    "iccid",
    "activationCode",
    "qrCodeSvg",
    "universalLink",
    "checkoutUrl",
    "data",
    "nextCursor",
    "error",
    "code",
    "message",
    "requestId",
];

/// A value for a resource's field: usually of a plausible type, often not.
fn field_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        3 => ".{0,12}".prop_map(Value::String),
        2 => prop_oneof![
            Just(0i64), Just(-1), Just(i64::MIN), Just(i64::MAX), -1000i64..1000,
        ].prop_map(Value::from),
        1 => Just(Value::from(u64::MAX)),
        1 => any::<f64>().prop_map(Value::from),
        1 => any::<bool>().prop_map(Value::Bool),
        1 => Just(Value::Null),
        1 => json(),
    ]
}

/// An object with most of the resources' field names, any of them missing or of another type.
fn resource() -> impl Strategy<Value = Value> {
    prop::collection::btree_map(prop::sample::select(FIELDS), field_value(), 0..FIELDS.len())
        .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k.to_string(), v)).collect()))
}

/// A body as it may arrive.
fn body() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        3 => resource().prop_map(|v| v.to_string().into_bytes()),
        2 => prop::collection::vec(resource(), 0..4)
            .prop_map(|data| serde_json::json!({"data": data, "nextCursor": null}).to_string().into_bytes()),
        1 => (resource(), field_value())
            .prop_map(|(error, next)| serde_json::json!({"error": error, "data": [], "nextCursor": next}).to_string().into_bytes()),
        2 => json().prop_map(|v| v.to_string().into_bytes()),
        1 => (resource(), any::<prop::sample::Index>()).prop_map(|(v, cut)| {
            let text = v.to_string().into_bytes();
            let at = cut.index(text.len() + 1);
            text[..at].to_vec()
        }),
        1 => Just(b"{\"priceCents\": 1e400, \"availableCents\": 99999999999999999999999}".to_vec()),
        1 => prop::collection::vec(any::<u8>(), 0..200),
    ]
}

#[derive(Debug, Clone)]
struct Answer {
    status: u16,
    retry_after: Option<Vec<u8>>,
    body: Vec<u8>,
    expected: u16,
    /// Seconds since the epoch at which the answer is read.
    now: u64,
}

fn answer() -> impl Strategy<Value = Answer> {
    (
        prop_oneof![
            3 => prop::sample::select(vec![200u16, 201, 202, 204, 400, 401, 403, 404, 409, 429, 500, 502, 503]),
            1 => 100u16..1000,
        ],
        retry_after(),
        body(),
        prop::sample::select(vec![200u16, 201, 202]),
        prop_oneof![Just(1_750_000_000u64), 0u64..=u64::from(u32::MAX) * 4],
    )
        .prop_map(|(status, retry_after, body, expected, now)| Answer {
            status,
            retry_after,
            body,
            expected,
            now,
        })
}

/// The class the status calls for, whatever the body says.
fn check_class(answer: &Answer, error: &UpstreamError) -> Result<(), TestCaseError> {
    let class = error.class();
    match answer.status {
        429 => match class {
            Class::RetryAfter(wait) => prop_assert!(wait <= MAX_RETRY_AFTER, "{wait:?}"),
            other => prop_assert!(false, "429 classified {other:?}"),
        },
        400 | 401 | 403 | 404 | 409 => prop_assert_eq!(class, Class::Definitive),
        _ => prop_assert_eq!(class, Class::Unknown),
    }
    // Reading the error back never fails either, and stays bounded whatever the body held.
    let _ = error.refusal();
    let _ = error.retry_after();
    prop_assert!(
        error.message().chars().count() <= 301,
        "{}",
        error.message()
    );
    prop_assert!(error.to_string().len() < 2_000);
    Ok(())
}

fn interpret_as<T: DeserializeOwned>(
    answer: &Answer,
    raw: &RawResponse,
    then: impl Fn(&T),
) -> Result<(), TestCaseError> {
    let expected = StatusCode::from_u16(answer.expected).expect("expected status");
    let now = SystemTime::UNIX_EPOCH + Duration::from_secs(answer.now);
    match interpret::<T>(raw, expected, now) {
        Ok(value) => {
            prop_assert_eq!(
                answer.status,
                answer.expected,
                "only the expected status decodes"
            );
            then(&value);
            Ok(())
        }
        Err(error) => check_class(answer, &error),
    }
}

#[test]
fn every_answer_is_a_value_or_a_classified_error() {
    let mut runner = TestRunner::new(Config {
        cases: cases().saturating_mul(3),
        failure_persistence: None,
        ..Config::default()
    });
    let outcome = runner.run(&answer(), |answer| {
        let mut headers = HeaderMap::new();
        if let Some(value) = answer
            .retry_after
            .as_deref()
            .and_then(|b| HeaderValue::from_bytes(b).ok())
        {
            headers.insert(RETRY_AFTER, value);
        }
        let raw = RawResponse {
            status: StatusCode::from_u16(answer.status).expect("100..=999"),
            headers,
            body: answer.body.clone(),
        };
        // What callers do with a decoded value: validate ids and amounts.
        interpret_as::<PartnerAccount>(&answer, &raw, |_| {})?;
        interpret_as::<Country>(&answer, &raw, |_| {})?;
        interpret_as::<Region>(&answer, &raw, |_| {})?;
        interpret_as::<Plan>(&answer, &raw, |plan| {
            let _ = plan.plan_id();
            let _ = plan.price_cents.cents();
        })?;
        interpret_as::<Page<Plan>>(&answer, &raw, |page| {
            for plan in &page.data {
                let _ = plan.plan_id();
            }
        })?;
        interpret_as::<Balance>(&answer, &raw, |b| {
            let _ = b
                .available_cents
                .get()
                .checked_add(b.reserved_cents.cents().get());
        })?;
        interpret_as::<Page<BalanceTransaction>>(&answer, &raw, |_| {})?;
        interpret_as::<AcceptedOrder>(&answer, &raw, |_| {})?;
        interpret_as::<Order>(&answer, &raw, |o| {
            let _ = o.status.as_str();
        })?;
        interpret_as::<Installation>(&answer, &raw, |_| {})?;
        interpret_as::<CheckoutSession>(&answer, &raw, |_| {})?;
        interpret_as::<Value>(&answer, &raw, |_| {})?;
        Ok(())
    });
    if let Err(failure) = outcome {
        panic!("{failure}");
    }
}

#[test]
fn retry_after_of_any_shape_is_bounded_or_absent() {
    let mut runner = TestRunner::new(Config {
        cases: cases().saturating_mul(10),
        failure_persistence: None,
        ..Config::default()
    });
    let outcome = runner.run(&(retry_after(), any::<u64>()), |(value, now)| {
        let mut headers = HeaderMap::new();
        if let Some(value) = value
            .as_deref()
            .and_then(|b| HeaderValue::from_bytes(b).ok())
        {
            headers.insert(RETRY_AFTER, value);
        }
        let now = SystemTime::UNIX_EPOCH
            .checked_add(Duration::from_secs(now))
            .unwrap_or(SystemTime::UNIX_EPOCH);
        if let Some(wait) = parse_retry_after(&headers, now) {
            prop_assert!(wait <= MAX_RETRY_AFTER, "{wait:?}");
        }
        Ok(())
    });
    if let Err(failure) = outcome {
        panic!("{failure}");
    }
}
