//! How many eSIMs one checkout buys, and who each is for. A checkout owns 1 to
//! [`Quantity::MAX`] units; the owner may lower the cap (`STOREFRONT_MAX_ESIMS_PER_ORDER`).
//! Each unit may name its traveller (a name to show, an address for the unit's own email);
//! both are optional.

use crate::{Cents, Email};

/// The number of eSIMs of one checkout, between 1 and a cap of at most [`Quantity::MAX`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Quantity(u8);

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum QuantityError {
    #[error("the number of eSIMs is not a whole number")]
    NotANumber,
    #[error("the number of eSIMs must be between 1 and {max}")]
    OutOfRange { max: Quantity },
}

impl Quantity {
    /// The most eSIMs one checkout may buy, whatever the owner sets.
    pub const MAX: Quantity = Quantity(10);
    pub const ONE: Quantity = Quantity(1);

    /// `n` when it is 1 to [`Quantity::MAX`].
    pub fn new(n: u32) -> Option<Self> {
        u8::try_from(n)
            .ok()
            .filter(|n| (1..=Self::MAX.0).contains(n))
            .map(Self)
    }

    /// The form's field: a whole number from 1 to `cap`; empty means one.
    pub fn parse(raw: &str, cap: Quantity) -> Result<Self, QuantityError> {
        let raw = raw.trim();
        if raw.is_empty() {
            return Ok(Self::ONE);
        }
        let digits = raw.strip_prefix('-').unwrap_or(raw);
        let n: u32 = raw.parse().map_err(|_| {
            // A whole number this type cannot hold (negative, or huge) is out of range.
            if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
                QuantityError::OutOfRange { max: cap }
            } else {
                QuantityError::NotANumber
            }
        })?;
        Self::new(n)
            .filter(|q| *q <= cap)
            .ok_or(QuantityError::OutOfRange { max: cap })
    }

    pub fn get(self) -> u32 {
        u32::from(self.0)
    }

    /// 1, 2, … up to this quantity: the units' places in their checkout.
    pub fn indexes(self) -> impl Iterator<Item = i32> {
        1..=i32::from(self.0)
    }

    /// `each` times this quantity.
    pub fn times(self, each: Cents) -> Cents {
        Cents::new(each.get().saturating_mul(i64::from(self.0)))
    }
}

impl std::fmt::Display for Quantity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// The longest traveller's name kept, in characters.
pub const NAME_MAX_CHARS: usize = 60;

/// Who one unit is for: both parts optional.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Traveller {
    pub name: Option<String>,
    pub email: Option<Email>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TravellerError {
    #[error(
        "the traveller's name is longer than {NAME_MAX_CHARS} characters or has control characters"
    )]
    Name,
    #[error("the traveller's email address is not valid")]
    Email,
}

impl Traveller {
    /// A traveller from the form's two fields as typed (blank parts are absent).
    pub fn parse(name: &str, email: &str) -> Result<Self, TravellerError> {
        let name = name.split_whitespace().collect::<Vec<_>>().join(" ");
        let name = if name.is_empty() {
            None
        } else if name.chars().count() > NAME_MAX_CHARS || name.chars().any(char::is_control) {
            return Err(TravellerError::Name);
        } else {
            Some(name)
        };
        let email = match email.trim() {
            "" => None,
            raw => Some(Email::parse(raw).map_err(|_| TravellerError::Email)?),
        };
        Ok(Self { name, email })
    }

    pub fn is_empty(&self) -> bool {
        self.name.is_none() && self.email.is_none()
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn a_quantity_is_a_whole_number_within_the_cap() {
        let cap = Quantity::new(4).expect("4");
        assert_eq!(Quantity::parse("3", cap).map(Quantity::get), Ok(3));
        assert_eq!(Quantity::parse(" 1 ", cap).map(Quantity::get), Ok(1));
        assert_eq!(Quantity::parse("", cap), Ok(Quantity::ONE));
        for bad in ["0", "5", "11", "-1", "99999999999"] {
            assert_eq!(
                Quantity::parse(bad, cap),
                Err(QuantityError::OutOfRange { max: cap }),
                "{bad}"
            );
        }
        for bad in ["three", "2.5", "1e1", "--1"] {
            assert_eq!(
                Quantity::parse(bad, cap),
                Err(QuantityError::NotANumber),
                "{bad}"
            );
        }
        assert_eq!(Quantity::new(11), None);
        assert_eq!(Quantity::new(0), None);
        assert_eq!(
            Quantity::new(3).expect("3").times(Cents::new(1299)),
            Cents::new(3897)
        );
    }

    #[test]
    fn a_traveller_may_be_blank_named_or_addressed() {
        assert!(Traveller::parse(" ", "").expect("blank").is_empty());
        let ben = Traveller::parse("  Ben   Lee ", "ben@example.com").expect("ben");
        assert_eq!(ben.name.as_deref(), Some("Ben Lee"));
        assert_eq!(
            ben.email.as_ref().map(Email::as_str),
            Some("ben@example.com")
        );
        assert_eq!(
            Traveller::parse("Ana", "not-an-address"),
            Err(TravellerError::Email)
        );
        assert_eq!(
            Traveller::parse(&"x".repeat(NAME_MAX_CHARS + 1), ""),
            Err(TravellerError::Name)
        );
    }

    proptest! {
        #[test]
        fn a_parsed_quantity_never_leaves_its_cap(raw in ".{0,12}", cap in 1_u32..=10) {
            let cap = Quantity::new(cap).expect("cap");
            if let Ok(q) = Quantity::parse(&raw, cap) {
                prop_assert!(q >= Quantity::ONE && q <= cap);
            }
        }
    }
}
