//! Money as integer US cents. No floats anywhere: amounts are added, compared and shown
//! exactly, and every arithmetic step that could overflow is checked.

use std::fmt;

use serde::{Deserialize, Serialize};

/// An amount of US dollars in cents. May be negative (a wallet in deficit, a refund delta).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Cents(i64);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoneyError {
    #[error("amount out of range")]
    Overflow,
}

impl Cents {
    pub const ZERO: Self = Self(0);

    pub const fn new(cents: i64) -> Self {
        Self(cents)
    }

    pub const fn get(self) -> i64 {
        self.0
    }

    pub fn checked_add(self, other: Self) -> Result<Self, MoneyError> {
        self.0
            .checked_add(other.0)
            .map(Self)
            .ok_or(MoneyError::Overflow)
    }

    pub fn checked_sub(self, other: Self) -> Result<Self, MoneyError> {
        self.0
            .checked_sub(other.0)
            .map(Self)
            .ok_or(MoneyError::Overflow)
    }

    pub const fn is_negative(self) -> bool {
        self.0 < 0
    }
}

impl fmt::Debug for Cents {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Cents({})", self.0)
    }
}

/// `$1,234.56`, `-$0.05`: how every amount is shown to people.
impl fmt::Display for Cents {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let abs = self.0.unsigned_abs();
        let dollars = (abs / 100).to_string();
        let mut grouped = String::with_capacity(dollars.len() + dollars.len() / 3);
        for (i, digit) in dollars.chars().enumerate() {
            if i > 0 && (dollars.len() - i).is_multiple_of(3) {
                grouped.push(',');
            }
            grouped.push(digit);
        }
        write!(f, "{sign}${grouped}.{:02}", abs % 100)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn displays_dollars_with_grouping() {
        assert_eq!(Cents::new(0).to_string(), "$0.00");
        assert_eq!(Cents::new(5).to_string(), "$0.05");
        assert_eq!(Cents::new(103).to_string(), "$1.03");
        assert_eq!(Cents::new(123_456).to_string(), "$1,234.56");
        assert_eq!(Cents::new(100_000_000).to_string(), "$1,000,000.00");
        assert_eq!(Cents::new(-5).to_string(), "-$0.05");
        assert_eq!(
            Cents::new(i64::MIN).to_string(),
            "-$92,233,720,368,547,758.08"
        );
    }

    #[test]
    fn arithmetic_overflow_is_an_error() {
        assert_eq!(
            Cents::new(i64::MAX).checked_add(Cents::new(1)),
            Err(MoneyError::Overflow)
        );
        assert_eq!(
            Cents::new(i64::MIN).checked_sub(Cents::new(1)),
            Err(MoneyError::Overflow)
        );
    }

    proptest! {
        #[test]
        fn display_round_trips_through_digits(c in any::<i64>()) {
            let shown = Cents::new(c).to_string();
            let digits: String = shown.chars().filter(|ch| ch.is_ascii_digit()).collect();
            let value: i128 = digits.parse().expect("digits");
            let value = if shown.starts_with('-') { -value } else { value };
            prop_assert_eq!(value, i128::from(c));
        }
    }
}
