//! Promotion codes: what a code takes off a price, and the floor no discount goes below.
//!
//! The one money rule: `discounted = list − discount`, where a percentage discount is rounded
//! DOWN to the cent (the shop never gives more than the code says), a fixed discount is at
//! most the list price, and the result is never below `cost + min_margin` (the floor). The
//! console refuses a code that would reach below the floor for any plan in its scope when it is
//! created ([`Discount::breaks_floor`]). A plan whose cost rose after that is not refused at
//! checkout: the discount is capped so the price lands exactly on the floor ([`Offer::capped`]),
//! and the buyer is charged, shown and sent that price. Integer cents throughout.

use std::fmt;

use super::Cents;
use super::pricing::PlanKey;

/// The longest code accepted, in characters.
pub const MAX_CODE_LEN: usize = 32;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PromoError {
    #[error("a code is 3 to 32 letters, digits, '-' or '_'")]
    BadCode,
    #[error("a percentage is 0.01% to 100%")]
    BadPercent,
    #[error("an amount off is $0.01 to $10,000.00")]
    BadAmount,
    #[error("unknown scope {0}")]
    BadScope(String),
}

/// A code as typed, normalised: trimmed, upper case; letters, digits, `-`, `_`.
pub fn normalise_code(raw: &str) -> Result<String, PromoError> {
    let code = raw.trim().to_ascii_uppercase();
    if (3..=MAX_CODE_LEN).contains(&code.len())
        && code
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        Ok(code)
    } else {
        Err(PromoError::BadCode)
    }
}

/// What a code takes off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Discount {
    /// Basis points of the list price, 1 to 10 000.
    Percent(i64),
    /// A fixed amount, 1 cent to $10,000.00.
    Amount(Cents),
}

impl Discount {
    pub fn percent(bps: i64) -> Result<Self, PromoError> {
        if (1..=10_000).contains(&bps) {
            Ok(Self::Percent(bps))
        } else {
            Err(PromoError::BadPercent)
        }
    }

    pub fn amount(off: Cents) -> Result<Self, PromoError> {
        if (1..=1_000_000).contains(&off.get()) {
            Ok(Self::Amount(off))
        } else {
            Err(PromoError::BadAmount)
        }
    }

    /// Rebuilds a discount from its stored `(kind, value)`.
    pub fn from_parts(kind: &str, value: i64) -> Result<Self, PromoError> {
        match kind {
            "percent" => Self::percent(value),
            "amount" => Self::amount(Cents::new(value)),
            other => Err(PromoError::BadScope(other.to_string())),
        }
    }

    pub fn kind(&self) -> &'static str {
        match self {
            Self::Percent(_) => "percent",
            Self::Amount(_) => "amount",
        }
    }

    pub fn value(&self) -> i64 {
        match self {
            Self::Percent(bps) => *bps,
            Self::Amount(c) => c.get(),
        }
    }

    /// What the code alone takes off `list`, before the floor.
    pub fn off(&self, list: Cents) -> Cents {
        let list_c = list.get().max(0);
        match self {
            Self::Percent(bps) => {
                let off = i128::from(list_c) * i128::from(*bps) / 10_000;
                Cents::new(i64::try_from(off).unwrap_or(list_c).min(list_c))
            }
            Self::Amount(off) => Cents::new(off.get().min(list_c)),
        }
    }

    /// Whether the full discount would take `list` below `cost + min_margin`.
    pub fn breaks_floor(&self, list: Cents, cost: Cents, min_margin: Cents) -> bool {
        apply(self, list, cost, min_margin).capped
    }
}

/// `25.00%` or `$5.00`.
impl fmt::Display for Discount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Percent(bps) => write!(f, "{}.{:02}%", bps / 100, bps % 100),
            Self::Amount(c) => write!(f, "{c}"),
        }
    }
}

/// A price after a code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Offer {
    /// The catalog price the buyer was shown.
    pub list: Cents,
    /// What comes off (≥ 0).
    pub discount: Cents,
    /// What is charged: `list − discount`.
    pub price: Cents,
    /// The floor cut the discount short.
    pub capped: bool,
}

/// The money rule: `list − discount`, never below `cost + min_margin` (and never above `list`:
/// a list price already under the floor gets no discount at all).
pub fn apply(discount: &Discount, list: Cents, cost: Cents, min_margin: Cents) -> Offer {
    let wanted = discount.off(list);
    let floor = i128::from(cost.get()) + i128::from(min_margin.get().max(0));
    let room = (i128::from(list.get()) - floor).max(0);
    let allowed = i128::from(wanted.get()).min(room);
    let off = Cents::new(i64::try_from(allowed).unwrap_or(0));
    Offer {
        list,
        discount: off,
        price: Cents::new(list.get() - off.get()),
        capped: off < wanted,
    }
}

/// Which plans a code applies to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PromoScope {
    All,
    Country(String),
    Region(String),
    Plan(String),
}

impl PromoScope {
    pub fn from_parts(kind: &str, value: &str) -> Result<Self, PromoError> {
        let value = value.trim();
        match (kind, value) {
            ("all", _) => Ok(Self::All),
            ("country", v) if v.len() == 2 => Ok(Self::Country(v.to_ascii_uppercase())),
            ("region", v) if !v.is_empty() => Ok(Self::Region(v.to_string())),
            ("plan", v) if !v.is_empty() => Ok(Self::Plan(v.to_string())),
            _ => Err(PromoError::BadScope(format!("{kind}:{value}"))),
        }
    }

    pub fn kind(&self) -> &'static str {
        match self {
            Self::All => "all",
            Self::Country(_) => "country",
            Self::Region(_) => "region",
            Self::Plan(_) => "plan",
        }
    }

    pub fn value(&self) -> &str {
        match self {
            Self::All => "",
            Self::Country(v) | Self::Region(v) | Self::Plan(v) => v,
        }
    }

    /// The same matching as markup rules: a country is the plan's destination code, a region
    /// the plan's region slug.
    pub fn covers(&self, plan: PlanKey<'_>) -> bool {
        match self {
            Self::All => true,
            Self::Country(c) => plan.country_code.eq_ignore_ascii_case(c),
            Self::Region(r) => plan.region == Some(r.as_str()),
            Self::Plan(p) => plan.plan_id == p,
        }
    }
}

impl fmt::Display for PromoScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::All => f.write_str("every plan"),
            other => write!(f, "{} {}", other.kind(), other.value()),
        }
    }
}

/// Why a code cannot be used for this purchase; each is said to the buyer as is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PromoRefusal {
    #[error("This promotion code does not exist or is no longer offered.")]
    Unknown,
    #[error("This promotion code is not valid yet.")]
    NotYet,
    #[error("This promotion code has expired.")]
    Expired,
    #[error("This promotion code does not apply to this plan.")]
    OtherPlans,
    #[error("This promotion code has been used up.")]
    UsedUp,
    /// The cap per email is reached. Said like any other refusal of a use: the text must not
    /// tell whoever typed an address that its owner used the code.
    #[error("This promotion code cannot be used for this order.")]
    UsedByEmail,
    /// Checkouts from this client already hold as many of the code's uses as one client may.
    #[error("Other unpaid checkouts from your connection hold this promotion code.")]
    HeldByClient,
    /// The checkout buys more eSIMs than the code has uses left for it (overall or for one
    /// email): every unit of a checkout is one use.
    #[error("This promotion code covers fewer eSIMs than this order buys.")]
    TooManyUnits,
}

impl PromoRefusal {
    /// The id of the message that tells the customer why (the `Display` text is English, for
    /// logs).
    pub fn message_id(&self) -> &'static str {
        match self {
            Self::Unknown => "promo-unknown",
            Self::NotYet => "promo-not-yet",
            Self::Expired => "promo-expired",
            Self::OtherPlans => "promo-other-plans",
            Self::UsedUp => "promo-used-up",
            Self::UsedByEmail => "promo-not-for-this-order",
            Self::HeldByClient => "promo-held",
            Self::TooManyUnits => "promo-too-many-esims",
        }
    }
}

/// When a code may be used: `[starts, ends)`, a missing end never ends.
pub fn check_window(now_ms: i64, starts_ms: i64, ends_ms: Option<i64>) -> Result<(), PromoRefusal> {
    if now_ms < starts_ms {
        return Err(PromoRefusal::NotYet);
    }
    if ends_ms.is_some_and(|end| now_ms >= end) {
        return Err(PromoRefusal::Expired);
    }
    Ok(())
}

/// Whether one more use fits: `taken` uses (verified, plus reservations still running) under
/// an optional cap.
pub fn has_room(taken: i64, cap: Option<i64>) -> bool {
    cap.is_none_or(|cap| taken < cap)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const C: fn(i64) -> Cents = Cents::new;

    #[test]
    fn every_refusal_has_a_message_in_every_language() {
        for refusal in [
            PromoRefusal::Unknown,
            PromoRefusal::NotYet,
            PromoRefusal::Expired,
            PromoRefusal::OtherPlans,
            PromoRefusal::UsedUp,
            PromoRefusal::UsedByEmail,
            PromoRefusal::HeldByClient,
        ] {
            assert!(
                crate::i18n::has_message(refusal.message_id()),
                "{refusal:?}"
            );
        }
    }

    #[test]
    fn a_percentage_rounds_the_discount_down() {
        let ten = Discount::percent(1_000).expect("10%");
        let offer = apply(&ten, C(1_999), C(1_000), C(0));
        assert_eq!(offer.discount, C(199));
        assert_eq!(offer.price, C(1_800));
        assert!(!offer.capped);
    }

    #[test]
    fn the_floor_caps_the_discount_at_cost_plus_margin() {
        let half = Discount::percent(5_000).expect("50%");
        let offer = apply(&half, C(2_000), C(1_200), C(100));
        assert_eq!(offer.price, C(1_300));
        assert_eq!(offer.discount, C(700));
        assert!(offer.capped);
        assert!(half.breaks_floor(C(2_000), C(1_200), C(100)));
        assert!(!half.breaks_floor(C(2_000), C(900), C(100)));
    }

    #[test]
    fn a_list_price_already_under_the_floor_gets_nothing_off() {
        let off = Discount::amount(C(500)).expect("$5");
        let offer = apply(&off, C(1_000), C(1_100), C(0));
        assert_eq!(offer.price, C(1_000));
        assert_eq!(offer.discount, C(0));
    }

    #[test]
    fn bad_codes_and_values_are_refused() {
        assert_eq!(normalise_code(" summer-25 "), Ok("SUMMER-25".into()));
        assert!(normalise_code("ab").is_err());
        assert!(normalise_code("no spaces").is_err());
        assert!(Discount::percent(0).is_err());
        assert!(Discount::percent(10_001).is_err());
        assert!(Discount::amount(C(0)).is_err());
        assert_eq!(Discount::percent(1_250).expect("ok").to_string(), "12.50%");
    }

    #[test]
    fn the_window_and_the_caps() {
        assert_eq!(check_window(5, 10, None), Err(PromoRefusal::NotYet));
        assert_eq!(check_window(20, 10, Some(20)), Err(PromoRefusal::Expired));
        assert_eq!(check_window(19, 10, Some(20)), Ok(()));
        assert!(has_room(0, None));
        assert!(has_room(4, Some(5)));
        assert!(!has_room(5, Some(5)));
    }

    proptest! {
        #[test]
        fn never_below_the_floor_never_above_the_list(
            list in 0_i64..10_000_000,
            cost in 0_i64..10_000_000,
            margin in 0_i64..100_000,
            bps in 1_i64..=10_000,
            amount in 1_i64..=1_000_000,
        ) {
            for d in [Discount::Percent(bps), Discount::Amount(C(amount))] {
                let o = apply(&d, C(list), C(cost), C(margin));
                prop_assert!(o.price <= C(list));
                prop_assert!(o.discount >= C(0));
                prop_assert_eq!(o.price.get() + o.discount.get(), list);
                if list >= cost + margin {
                    prop_assert!(o.price.get() >= cost + margin);
                } else {
                    prop_assert_eq!(o.price, C(list));
                }
            }
        }
    }
}
