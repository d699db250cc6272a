//! Validated request values: every string or number the client sends upstream is one of these.
//!
//! Each type is built only by parsing (constructors return `Result` with a precise
//! [`InvalidValue`]), so a request that violates the spec's limits (section 4.1, 4.2, 8) cannot be
//! expressed and is refused here instead of being sent and answered with a 400. Errors never echo
//! the rejected input: a reference or cursor may carry customer data.

use std::fmt;

use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::domain::Cents;

/// Why a value was refused, without the value itself.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid {what}: {problem}")]
pub struct InvalidValue {
    /// Which kind of value (`plan id`, `idempotency key`, ...).
    pub what: &'static str,
    pub problem: Problem,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// Length in characters outside `min..=max`.
    Length { min: usize, max: usize, got: usize },
    /// A number outside `min..=max`.
    Range { min: i64, max: i64, got: i64 },
    /// A character not allowed at this position (0-based character index).
    Character { index: usize },
    /// The value does not have the required shape.
    Pattern(&'static str),
    /// `.` and `..` cannot be sent as a path segment: URL parsers collapse them (even
    /// percent-encoded), so `/orders/..` would silently become another endpoint.
    DotSegment,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Length { min, max, got } => {
                write!(f, "length must be {min} to {max} characters, got {got}")
            }
            Self::Range { min, max, got } => {
                write!(f, "must be from {min} to {max}, got {got}")
            }
            Self::Character { index } => write!(f, "character at position {index} is not allowed"),
            Self::Pattern(pattern) => write!(f, "must match {pattern}"),
            Self::DotSegment => f.write_str("`.` and `..` cannot be used as an id in a path"),
        }
    }
}

fn invalid(what: &'static str, problem: Problem) -> InvalidValue {
    InvalidValue { what, problem }
}

fn check_len(what: &'static str, value: &str, min: usize, max: usize) -> Result<(), InvalidValue> {
    // The spec's lengths are JSON Schema lengths: counted in Unicode code points, not bytes.
    let got = value.chars().count();
    if (min..=max).contains(&got) {
        Ok(())
    } else {
        Err(invalid(what, Problem::Length { min, max, got }))
    }
}

fn check_range(what: &'static str, value: i64, min: i64, max: i64) -> Result<(), InvalidValue> {
    if (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(invalid(
            what,
            Problem::Range {
                min,
                max,
                got: value,
            },
        ))
    }
}

/// Declares a string newtype that is parsed by `$parse`, serialized as the plain string and
/// deserialized through the same parser (so the sandbox can reuse it to validate requests).
macro_rules! validated_string {
    ($(#[$meta:meta])* $name:ident, $parse:expr) => {
        $(#[$meta])*
        #[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(try_from = "String", into = "String")]
        pub struct $name(String);

        impl $name {
            pub fn parse(value: impl Into<String>) -> Result<Self, InvalidValue> {
                let value = value.into();
                let check: fn(&str) -> Result<(), InvalidValue> = $parse;
                check(&value)?;
                Ok(Self(value))
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl TryFrom<String> for $name {
            type Error = InvalidValue;
            fn try_from(value: String) -> Result<Self, InvalidValue> {
                Self::parse(value)
            }
        }

        impl From<$name> for String {
            fn from(value: $name) -> String {
                value.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }
    };
}

/// Implements a plain `Debug` (these values are identifiers, safe to log).
macro_rules! plain_debug {
    ($($name:ident),*) => {$(
        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}({:?})", stringify!($name), self.0)
            }
        }
    )*};
}

validated_string!(
    /// A purchasable plan id, `^p[1-9][0-9]*-(base|[1-9][0-9]*)$` (spec 2.7). Taken from a
    /// [`Plan`](super::models::Plan) unchanged, never rebuilt from parts.
    PlanId,
    parse_plan_id
);

validated_string!(
    /// The partner's own unique reference for a consumer order, 1 to 100 characters.
    OrderReference,
    |v| check_len("order reference", v, 1, 100)
);

validated_string!(
    /// The `Idempotency-Key` of a POST, `^[A-Za-z0-9._:-]{8,128}$` (spec 4.2).
    IdempotencyKey,
    parse_idempotency_key
);

validated_string!(
    /// An opaque page cursor (a previous `nextCursor`), at most 100 characters. The spec gives
    /// no minimum, so an empty cursor is accepted as the spec allows it.
    Cursor,
    |v| check_len("cursor", v, 0, 100)
);

validated_string!(
    /// A catalog destination filter, `^[A-Z]{2}$`.
    CountryCode,
    parse_country_code
);

validated_string!(
    /// A region slug from `GET /regions`, 1 to 80 characters.
    RegionSlug,
    |v| check_len("region slug", v, 1, 80)
);

validated_string!(
    /// The `{id}` of `/plans/{id}`, `/orders/{id}` and `/esims/{id}/installation`: 1 to 100
    /// characters, percent-encoded into the path by the client. `.` and `..` are refused.
    PathId,
    parse_path_id
);

plain_debug!(
    PlanId,
    OrderReference,
    IdempotencyKey,
    Cursor,
    CountryCode,
    RegionSlug,
    PathId
);

fn parse_plan_id(value: &str) -> Result<(), InvalidValue> {
    const WHAT: &str = "plan id";
    const PATTERN: Problem = Problem::Pattern("^p[1-9][0-9]*-(base|[1-9][0-9]*)$");
    let bytes = value.as_bytes();
    // A positive decimal without a leading zero, starting at `start`; returns where it ends.
    let number = |start: usize| -> Option<usize> {
        match bytes.get(start) {
            Some(b'1'..=b'9') => {}
            _ => return None,
        }
        let digits = bytes[start..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        Some(start + digits)
    };
    if bytes.first() != Some(&b'p') {
        return Err(invalid(WHAT, PATTERN));
    }
    let after_number = number(1).ok_or(invalid(WHAT, PATTERN))?;
    if bytes.get(after_number) != Some(&b'-') {
        return Err(invalid(WHAT, PATTERN));
    }
    let variant = after_number + 1;
    let end = if bytes[variant..] == *b"base" {
        bytes.len()
    } else {
        number(variant).ok_or(invalid(WHAT, PATTERN))?
    };
    if end == bytes.len() {
        Ok(())
    } else {
        Err(invalid(WHAT, PATTERN))
    }
}

fn is_key_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | ':' | '-')
}

fn parse_idempotency_key(value: &str) -> Result<(), InvalidValue> {
    const WHAT: &str = "idempotency key";
    if let Some(index) = value.chars().position(|c| !is_key_char(c)) {
        return Err(invalid(WHAT, Problem::Character { index }));
    }
    check_len(WHAT, value, 8, 128)
}

fn parse_country_code(value: &str) -> Result<(), InvalidValue> {
    const WHAT: &str = "country code";
    if let Some(index) = value.chars().position(|c| !c.is_ascii_uppercase()) {
        return Err(invalid(WHAT, Problem::Character { index }));
    }
    check_len(WHAT, value, 2, 2)
}

fn parse_path_id(value: &str) -> Result<(), InvalidValue> {
    const WHAT: &str = "path id";
    check_len(WHAT, value, 1, 100)?;
    if value == "." || value == ".." {
        return Err(invalid(WHAT, Problem::DotSegment));
    }
    Ok(())
}

impl IdempotencyKey {
    /// A fresh key: `sf-` and 32 random letters and digits (about 190 bits), so two purchases
    /// never share one by chance. Persist it before the first attempt; retries reuse it.
    pub fn generate() -> Self {
        let mut rng = rand::rng();
        let random: String = (0..32)
            .map(|_| char::from(rng.sample(rand::distr::Alphanumeric)))
            .collect();
        Self(format!("sf-{random}"))
    }
}

impl PathId {
    /// The path form of a plan id (for `GET /plans/{id}`).
    pub fn for_plan(plan: &PlanId) -> Result<Self, InvalidValue> {
        Self::parse(plan.as_str())
    }
}

/// The largest amount the spec allows (`priceCents`, `expectedPriceCents`, `reservedCents`):
/// 2^53 - 1, the JavaScript safe-integer limit.
pub const MAX_API_AMOUNT: i64 = 9_007_199_254_740_991;

/// A non-negative amount within the spec's range `0..=9007199254740991`, in USD cents.
///
/// Used both for what we send (`expectedPriceCents`) and for what we read (`priceCents`,
/// `reservedCents`): an amount outside the range in a response makes the body malformed.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "i64", into = "i64")]
pub struct ApiAmount(Cents);

impl ApiAmount {
    pub fn new(cents: Cents) -> Result<Self, InvalidValue> {
        check_range("amount", cents.get(), 0, MAX_API_AMOUNT)?;
        Ok(Self(cents))
    }

    pub fn cents(self) -> Cents {
        self.0
    }
}

impl TryFrom<i64> for ApiAmount {
    type Error = InvalidValue;
    fn try_from(value: i64) -> Result<Self, InvalidValue> {
        Self::new(Cents::new(value))
    }
}

impl From<ApiAmount> for i64 {
    fn from(value: ApiAmount) -> i64 {
        value.0.get()
    }
}

impl fmt::Debug for ApiAmount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ApiAmount({})", self.0.get())
    }
}

/// A wallet top-up, 1000 to 100000 cents (USD 10 to 1,000) per request (spec 4.3).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "i64", into = "i64")]
pub struct TopUpAmount(Cents);

impl TopUpAmount {
    pub const MIN: i64 = 1_000;
    pub const MAX: i64 = 100_000;

    pub fn new(cents: Cents) -> Result<Self, InvalidValue> {
        check_range("top-up amount", cents.get(), Self::MIN, Self::MAX)?;
        Ok(Self(cents))
    }

    pub fn cents(self) -> Cents {
        self.0
    }
}

impl TryFrom<i64> for TopUpAmount {
    type Error = InvalidValue;
    fn try_from(value: i64) -> Result<Self, InvalidValue> {
        Self::new(Cents::new(value))
    }
}

impl From<TopUpAmount> for i64 {
    fn from(value: TopUpAmount) -> i64 {
        value.0.get()
    }
}

impl fmt::Debug for TopUpAmount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TopUpAmount({})", self.0.get())
    }
}

/// Page size of a list request, 1 to 100; the spec's default is 25.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PageLimit(u8);

impl PageLimit {
    pub const MAX: u8 = 100;

    pub fn new(limit: u32) -> Result<Self, InvalidValue> {
        check_range("page limit", i64::from(limit), 1, i64::from(Self::MAX))?;
        // In range 1..=100, so it fits.
        Ok(Self(u8::try_from(limit).unwrap_or(Self::MAX)))
    }

    pub fn get(self) -> u8 {
        self.0
    }
}

impl Default for PageLimit {
    fn default() -> Self {
        Self(25)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// An independent reading of `^p[1-9][0-9]*-(base|[1-9][0-9]*)$`, written with string
    /// methods instead of the byte walk above, so the property tests compare two designs.
    fn plan_id_oracle(s: &str) -> bool {
        let positive =
            |d: &str| !d.is_empty() && !d.starts_with('0') && d.chars().all(|c| c.is_ascii_digit());
        let Some(rest) = s.strip_prefix('p') else {
            return false;
        };
        let Some((number, variant)) = rest.split_once('-') else {
            return false;
        };
        positive(number) && (variant == "base" || positive(variant))
    }

    fn key_oracle(s: &str) -> bool {
        let n = s.chars().count();
        (8..=128).contains(&n)
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "._:-".contains(c))
    }

    #[test]
    fn plan_id_boundaries() {
        for ok in ["p1-base", "p1-1", "p10-20", "p9-9", "p123456789-987654321"] {
            assert!(PlanId::parse(ok).is_ok(), "{ok}");
        }
        for bad in [
            "", "p", "p-", "p1", "p1-", "p0-base", "p01-base", "p1-0", "p1-01", "P1-base",
            "p1-Base", "p1-base ", " p1-base", "p1-basex", "p1--1", "p1-1-1", "p1_base", "p١-base",
            "p1-bas",
        ] {
            let err = PlanId::parse(bad).expect_err(bad);
            assert_eq!(err.what, "plan id");
        }
    }

    #[test]
    fn idempotency_key_boundaries() {
        assert!(IdempotencyKey::parse("a".repeat(8)).is_ok());
        assert!(IdempotencyKey::parse("a".repeat(128)).is_ok());
        assert!(IdempotencyKey::parse("aZ09._:-").is_ok());
        assert_eq!(
            IdempotencyKey::parse("a".repeat(7)).unwrap_err().problem,
            Problem::Length {
                min: 8,
                max: 128,
                got: 7
            }
        );
        assert!(IdempotencyKey::parse("a".repeat(129)).is_err());
        assert_eq!(
            IdempotencyKey::parse("abcdefg h").unwrap_err().problem,
            Problem::Character { index: 7 }
        );
        assert!(IdempotencyKey::parse("abcdefgé").is_err());
        assert!(IdempotencyKey::parse("abcd/efgh").is_err());
    }

    #[test]
    fn generated_keys_are_valid_and_distinct() {
        let a = IdempotencyKey::generate();
        let b = IdempotencyKey::generate();
        assert_ne!(a, b);
        for key in [a, b] {
            assert!(IdempotencyKey::parse(key.as_str()).is_ok());
            assert!(key_oracle(key.as_str()));
        }
    }

    #[test]
    fn length_limited_strings() {
        assert!(OrderReference::parse("").is_err());
        assert!(OrderReference::parse("x").is_ok());
        assert!(
            OrderReference::parse("é".repeat(100)).is_ok(),
            "counts characters"
        );
        assert!(OrderReference::parse("x".repeat(101)).is_err());
        assert!(Cursor::parse("").is_ok());
        assert!(Cursor::parse("c".repeat(100)).is_ok());
        assert!(Cursor::parse("c".repeat(101)).is_err());
        assert!(RegionSlug::parse("").is_err());
        assert!(RegionSlug::parse("r".repeat(80)).is_ok());
        assert!(RegionSlug::parse("r".repeat(81)).is_err());
        assert!(PathId::parse("").is_err());
        assert!(PathId::parse("i".repeat(100)).is_ok());
        assert!(PathId::parse("i".repeat(101)).is_err());
        assert_eq!(
            PathId::parse("..").unwrap_err().problem,
            Problem::DotSegment
        );
        assert_eq!(PathId::parse(".").unwrap_err().problem, Problem::DotSegment);
        assert!(PathId::parse("...").is_ok());
        assert!(PathId::parse("a/b?c#d").is_ok(), "encoded by the client");
    }

    #[test]
    fn country_code_boundaries() {
        assert!(CountryCode::parse("DE").is_ok());
        for bad in ["", "D", "DEU", "de", "D1", "ÄB"] {
            assert!(CountryCode::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn numeric_ranges() {
        assert!(TopUpAmount::new(Cents::new(999)).is_err());
        assert!(TopUpAmount::new(Cents::new(1_000)).is_ok());
        assert!(TopUpAmount::new(Cents::new(100_000)).is_ok());
        assert!(TopUpAmount::new(Cents::new(100_001)).is_err());
        assert!(ApiAmount::new(Cents::new(-1)).is_err());
        assert!(ApiAmount::new(Cents::new(0)).is_ok());
        assert!(ApiAmount::new(Cents::new(MAX_API_AMOUNT)).is_ok());
        assert!(ApiAmount::new(Cents::new(MAX_API_AMOUNT + 1)).is_err());
        assert!(PageLimit::new(0).is_err());
        assert_eq!(PageLimit::new(1).map(PageLimit::get), Ok(1));
        assert_eq!(PageLimit::new(100).map(PageLimit::get), Ok(100));
        assert!(PageLimit::new(101).is_err());
        assert_eq!(PageLimit::default().get(), 25);
    }

    #[test]
    fn values_deserialize_through_their_parser() {
        assert!(serde_json::from_str::<PlanId>("\"p1-base\"").is_ok());
        assert!(serde_json::from_str::<PlanId>("\"p0-base\"").is_err());
        assert!(serde_json::from_str::<ApiAmount>("-1").is_err());
        assert!(serde_json::from_str::<ApiAmount>("9007199254740992").is_err());
        assert!(serde_json::from_str::<TopUpAmount>("1000").is_ok());
        assert_eq!(
            serde_json::to_string(&ApiAmount::new(Cents::new(103)).ok()).ok(),
            Some("103".to_string())
        );
    }

    #[test]
    fn errors_do_not_echo_the_input() {
        let err = OrderReference::parse("customer-secret-".repeat(10)).unwrap_err();
        assert!(!err.to_string().contains("customer-secret"), "{err}");
    }

    proptest! {
        #[test]
        fn plan_ids_matching_the_pattern_are_accepted(s in "p[1-9][0-9]{0,12}-(base|[1-9][0-9]{0,12})") {
            prop_assert!(PlanId::parse(s.as_str()).is_ok());
        }

        #[test]
        fn plan_id_parser_agrees_with_the_pattern(s in "[pP0-9a-z_-]{0,12}|p[0-9]{1,3}-[0-9a-z]{0,5}") {
            prop_assert_eq!(PlanId::parse(s.as_str()).is_ok(), plan_id_oracle(&s));
        }

        #[test]
        fn plan_id_parser_never_accepts_anything_else(s in any::<String>()) {
            prop_assert_eq!(PlanId::parse(s.as_str()).is_ok(), plan_id_oracle(&s));
        }

        #[test]
        fn keys_matching_the_pattern_are_accepted(s in "[A-Za-z0-9._:-]{8,128}") {
            prop_assert!(IdempotencyKey::parse(s.as_str()).is_ok());
        }

        #[test]
        fn key_parser_agrees_with_the_pattern(s in "[A-Za-z0-9._:/ é-]{0,140}") {
            prop_assert_eq!(IdempotencyKey::parse(s.as_str()).is_ok(), key_oracle(&s));
        }

        #[test]
        fn country_parser_agrees_with_the_pattern(s in "[A-Za-z0-9]{0,3}") {
            let expected = s.len() == 2 && s.chars().all(|c| c.is_ascii_uppercase());
            prop_assert_eq!(CountryCode::parse(s.as_str()).is_ok(), expected);
        }

        #[test]
        fn length_limits_count_characters(s in "\\PC{0,120}") {
            let n = s.chars().count();
            prop_assert_eq!(OrderReference::parse(s.as_str()).is_ok(), (1..=100).contains(&n));
            prop_assert_eq!(Cursor::parse(s.as_str()).is_ok(), n <= 100);
            prop_assert_eq!(RegionSlug::parse(s.as_str()).is_ok(), (1..=80).contains(&n));
            prop_assert_eq!(
                PathId::parse(s.as_str()).is_ok(),
                (1..=100).contains(&n) && s != "." && s != ".."
            );
        }

        #[test]
        fn amounts_accept_exactly_their_range(v in any::<i64>()) {
            prop_assert_eq!(ApiAmount::try_from(v).is_ok(), (0..=MAX_API_AMOUNT).contains(&v));
            prop_assert_eq!(TopUpAmount::try_from(v).is_ok(), (1_000..=100_000).contains(&v));
        }

        #[test]
        fn page_limit_accepts_exactly_its_range(v in any::<u32>()) {
            prop_assert_eq!(PageLimit::new(v).map(PageLimit::get).ok(), (1..=100).contains(&v).then_some(v as u8));
        }
    }
}
