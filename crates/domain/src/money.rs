//! Money as integer US cents. No floats anywhere: amounts are added, compared and shown
//! exactly, and every arithmetic step that could overflow is checked.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// An amount of US dollars in cents. May be negative (a wallet in deficit, a refund delta).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Cents(i64);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoneyError {
    #[error("amount out of range")]
    Overflow,
    #[error("not an amount like 25 or 25.50")]
    NotAnAmount,
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

    /// `-12.05` for -1205 cents: dollars with two decimals, no sign for zero, no grouping, no
    /// `$`: for CSV cells and form fields, and read back by [`Cents::from_str`] when not
    /// negative.
    pub fn plain(self) -> String {
        let sign = if self.0 < 0 { "-" } else { "" };
        let abs = self.0.unsigned_abs();
        format!("{sign}{}.{:02}", abs / 100, abs % 100)
    }
}

/// Dollars as a person types them — `25`, `25.5`, `25.50`, `$1,000`, ` $1,000.00 ` — into
/// cents, without floats. Refused: empty text, a sign, more than two decimals, a lone or
/// trailing point (`.5`, `25.`), separators out of place (`1,00`, `,100`), letters and
/// amounts beyond a trillion dollars.
impl FromStr for Cents {
    type Err = MoneyError;

    fn from_str(raw: &str) -> Result<Self, Self::Err> {
        let text = raw.trim();
        let text = text.strip_prefix('$').unwrap_or(text).trim_start();
        parse_hundredths(text)
            .map(Self)
            .ok_or(MoneyError::NotAnAmount)
    }
}

/// A non-negative decimal with at most two places (`12`, `12.5`, `1,234.56`) as hundredths:
/// the one reading of typed amounts, for dollars ([`Cents`]'s `FromStr`) and for percentages
/// (a markup of `12.5` is 1250 basis points). Thousands separators only where they belong.
pub fn parse_hundredths(raw: &str) -> Option<i64> {
    let text = raw.trim();
    let (whole, frac) = match text.split_once('.') {
        Some((whole, frac)) if (1..=2).contains(&frac.len()) => (whole, frac),
        Some(_) => return None,
        None => (text, ""),
    };
    let mut groups = whole.split(',');
    let first = groups.next().unwrap_or_default();
    let mut digits = String::with_capacity(whole.len());
    digits.push_str(first);
    let mut grouped_ok = true;
    for group in groups {
        grouped_ok &= !first.is_empty() && first.len() <= 3 && group.len() == 3;
        digits.push_str(group);
    }
    if !grouped_ok
        || digits.is_empty()
        || digits.len() > 12
        || !digits
            .bytes()
            .chain(frac.bytes())
            .all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let whole: i64 = digits.parse().ok()?;
    let frac: i64 = match frac.len() {
        0 => 0,
        1 => frac.parse::<i64>().ok()? * 10,
        _ => frac.parse().ok()?,
    };
    whole.checked_mul(100)?.checked_add(frac)
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
    fn plain_dollars_are_exact_and_negatives_keep_their_sign() {
        assert_eq!(Cents::new(0).plain(), "0.00");
        assert_eq!(Cents::new(5).plain(), "0.05");
        assert_eq!(Cents::new(-5).plain(), "-0.05");
        assert_eq!(Cents::new(-1205).plain(), "-12.05");
        assert_eq!(Cents::new(123_456).plain(), "1234.56");
        assert_eq!(Cents::new(i64::MIN).plain(), "-92233720368547758.08");
    }

    proptest! {
        #[test]
        fn plain_dollars_read_back_as_the_same_cents(c in any::<i64>()) {
            let s = Cents::new(c).plain();
            let negative = s.starts_with('-');
            let (whole, frac) = s.trim_start_matches('-').split_once('.').expect("a point");
            prop_assert_eq!(frac.len(), 2);
            let abs = whole.parse::<u128>().expect("digits") * 100 + frac.parse::<u128>().expect("digits");
            prop_assert_eq!(abs, u128::from(c.unsigned_abs()));
            prop_assert_eq!(negative, c < 0);
        }

        #[test]
        fn plain_amounts_parse_back(cents in 0i64..1_000_000_000) {
            prop_assert_eq!(Cents::new(cents).plain().parse::<Cents>(), Ok(Cents::new(cents)));
        }
    }

    fn dollars(raw: &str) -> Option<i64> {
        raw.parse::<Cents>().ok().map(Cents::get)
    }

    #[test]
    fn typed_dollars_parse_to_cents() {
        assert_eq!(dollars("25"), Some(2_500));
        assert_eq!(dollars(" 25.50 "), Some(2_550));
        assert_eq!(dollars("25.5"), Some(2_550));
        assert_eq!(dollars("$1,000"), Some(100_000));
        assert_eq!(dollars("$ 1,234.56"), Some(123_456));
        assert_eq!(dollars("1000.00"), Some(100_000));
        assert_eq!(dollars("0.01"), Some(1));
        assert_eq!(dollars("999,999,999,999.99"), Some(99_999_999_999_999));
        for bad in [
            "",
            "$",
            ".",
            "25.",
            ".5",
            "-10",
            "+10",
            "1.234",
            "1e3",
            "ten",
            "1,00",
            ",100",
            "1,0000",
            "1000,000",
            "12 5",
            "1.2.3",
            "$$5",
            "5$",
            "9999999999999",
            "１２",
        ] {
            assert_eq!(dollars(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn percentages_parse_to_hundredths_by_the_same_rule() {
        assert_eq!(parse_hundredths("12.5"), Some(1_250));
        assert_eq!(parse_hundredths("0"), Some(0));
        assert_eq!(
            parse_hundredths("$12"),
            None,
            "a dollar sign is not a percentage"
        );
        assert_eq!(parse_hundredths("1,00"), None);
    }

    proptest! {
        #[test]
        fn shown_amounts_read_back_as_the_same_cents(cents in 0i64..100_000_000_000_000) {
            prop_assert_eq!(Cents::new(cents).to_string().parse::<Cents>(), Ok(Cents::new(cents)));
        }
    }

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
