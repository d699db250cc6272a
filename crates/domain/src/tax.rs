//! Tax on sales: the owner's mode (off, prices include tax, tax added on top), rates in basis
//! points, the customer's country, and the one rounding rule every tax amount follows.
//!
//! **Rounding.** Every division that makes a tax amount goes through
//! [`div_round_half_up`]: the exact quotient rounded to the nearest cent, halves away from
//! zero (half up for the non-negative amounts a sale has). A sale's split computes the tax
//! from one side and the other side by subtraction, so `net + tax == gross` always holds
//! whatever the rate; a credit note's tax is the same function over the refunded share.
//!
//! Recording and reading tax is `orders::tax`'s; this holds the arithmetic and the values
//! the console parses.

use std::fmt;

use crate::Cents;
use crate::countries;

/// The `shop_settings` row of the owner's tax mode (see [`TaxMode::setting_value`]).
pub const MODE_SETTING: &str = "tax_mode";

/// 100 %, in basis points.
pub const MAX_RATE_BPS: i32 = 10_000;

/// How the shop's prices relate to tax.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TaxMode {
    /// No tax is charged or recorded (the default: nothing changes for a shop that never
    /// turns it on).
    #[default]
    Off,
    /// The shown price is what the customer pays; the tax is carved out of it.
    Inclusive,
    /// The shown price is before tax; the tax is added on top at payment.
    Exclusive,
}

impl TaxMode {
    /// What `shop_settings.value` holds: 0 off, 1 inclusive, 2 exclusive.
    pub fn setting_value(self) -> i64 {
        match self {
            Self::Off => 0,
            Self::Inclusive => 1,
            Self::Exclusive => 2,
        }
    }

    /// The mode a stored setting names; a value the shop never writes reads as off.
    pub fn from_setting(value: Option<i64>) -> Self {
        match value {
            Some(1) => Self::Inclusive,
            Some(2) => Self::Exclusive,
            _ => Self::Off,
        }
    }

    /// `off`, `inclusive` or `exclusive`: the console's form value and the stored spelling
    /// on checkouts and sales.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Off => "off",
            Self::Inclusive => "inclusive",
            Self::Exclusive => "exclusive",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "off" => Some(Self::Off),
            "inclusive" => Some(Self::Inclusive),
            "exclusive" => Some(Self::Exclusive),
            _ => None,
        }
    }

    /// The mode a checkout stored (`checkouts.tax_mode`, `None` when it was off).
    pub fn from_stored(stored: Option<&str>) -> Self {
        stored.and_then(Self::parse).unwrap_or(Self::Off)
    }

    /// What a checkout stores: `None` when off.
    pub fn stored(self) -> Option<&'static str> {
        self.is_on().then(|| self.as_str())
    }

    pub fn is_on(self) -> bool {
        self != Self::Off
    }
}

/// Why a value from the console's tax form is refused; each message names its field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TaxError {
    #[error("Prices: choose no tax, prices include tax, or tax added on top")]
    Mode,
    #[error("Country: enter a two-letter country code, like DE or FR")]
    Country,
    #[error("Rate: enter a percentage from 0 to 100 with at most two decimals, like 19 or 7.7")]
    Rate,
}

/// A tax rate in basis points (1900 = 19 %), 0 to 10,000.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RateBps(i32);

impl RateBps {
    pub fn new(bps: i32) -> Result<Self, TaxError> {
        if (0..=MAX_RATE_BPS).contains(&bps) {
            Ok(Self(bps))
        } else {
            Err(TaxError::Rate)
        }
    }

    pub fn get(self) -> i32 {
        self.0
    }

    /// The owner's percentage (`19`, `7.7`, `8.25`, `19%`): at most two decimals, 0 to 100.
    pub fn parse_percent(text: &str) -> Result<Self, TaxError> {
        let text = text.trim().trim_end_matches('%').trim();
        let bps = percent_to_bps(text, false).ok_or(TaxError::Rate)?;
        Self::new(i32::try_from(bps).map_err(|_| TaxError::Rate)?)
    }

    /// A rate a provider reports as a decimal percentage (`19.0`, `8.875`): basis points,
    /// digits past the second decimal rounded half up. `None` for text that is not a
    /// non-negative decimal or a rate above 100 %.
    pub fn from_reported_percent(text: &str) -> Option<Self> {
        let bps = percent_to_bps(text.trim(), true)?;
        Self::new(i32::try_from(bps).ok()?).ok()
    }
}

/// `19 %`, `7.7 %`, `8.25 %`: the rate as a person writes it.
impl fmt::Display for RateBps {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let whole = self.0 / 100;
        let hundredths = self.0 % 100;
        if hundredths == 0 {
            write!(f, "{whole}%")
        } else if hundredths % 10 == 0 {
            write!(f, "{whole}.{}%", hundredths / 10)
        } else {
            write!(f, "{whole}.{hundredths:02}%")
        }
    }
}

/// Decimal percentage text to basis points. Beyond two decimals: refused, or (`round`)
/// rounded half up.
fn percent_to_bps(text: &str, round: bool) -> Option<i64> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    if whole.is_empty() && fraction.is_empty() {
        return None;
    }
    if !whole.bytes().all(|b| b.is_ascii_digit()) || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if whole.len() > 4 || (!round && fraction.len() > 2) {
        return None;
    }
    let whole: i64 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    let digits: Vec<i64> = fraction.bytes().map(|b| i64::from(b - b'0')).collect();
    let first_two = digits.first().copied().unwrap_or(0) * 10 + digits.get(1).copied().unwrap_or(0);
    let half_up = i64::from(digits.get(2).is_some_and(|d| *d >= 5));
    Some(whole * 100 + first_two + half_up)
}

/// A customer's country: two letters ISO 3166-1 assigns, upper case.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CountryCode(String);

impl CountryCode {
    pub fn parse(text: &str) -> Result<Self, TaxError> {
        let code = text.trim().to_ascii_uppercase();
        if code.len() == 2 && countries::name(&code).is_some() {
            Ok(Self(code))
        } else {
            Err(TaxError::Country)
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The English name (`Germany`), for the console.
    pub fn name(&self) -> &'static str {
        countries::name(&self.0).unwrap_or("unknown country")
    }
}

impl fmt::Display for CountryCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// `numerator / denominator` rounded to the nearest integer, halves away from zero: the one
/// rounding rule of tax amounts in cents (see the module's note). A zero denominator gives 0.
pub fn div_round_half_up(numerator: i128, denominator: i128) -> i64 {
    if denominator == 0 {
        return 0;
    }
    let negative = (numerator < 0) != (denominator < 0);
    let (n, d) = (numerator.unsigned_abs(), denominator.unsigned_abs());
    // The remainder decides: at least half the divisor rounds up.
    let rounded = n / d + u128::from(n % d * 2 >= d);
    let value = i64::try_from(rounded).unwrap_or(i64::MAX);
    if negative { -value } else { value }
}

/// A sale's amount split into what it is before tax, the tax, and what is paid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaxSplit {
    pub net: Cents,
    pub tax: Cents,
    pub gross: Cents,
}

impl TaxSplit {
    /// An amount on which no tax is charged.
    pub fn untaxed(amount: Cents) -> Self {
        Self {
            net: amount,
            tax: Cents::ZERO,
            gross: amount,
        }
    }
}

/// Tax at `rate` on a sale priced `price` under `mode`: exclusive adds
/// `price × rate` on top; inclusive carves `price × rate / (1 + rate)` out of the price;
/// off charges none. The other side is a subtraction, so `net + tax == gross`.
pub fn split(price: Cents, rate: RateBps, mode: TaxMode) -> TaxSplit {
    let bps = i128::from(rate.get());
    let base = i128::from(MAX_RATE_BPS);
    let amount = i128::from(price.get());
    match mode {
        TaxMode::Off => TaxSplit::untaxed(price),
        TaxMode::Exclusive => {
            let tax = div_round_half_up(amount * bps, base);
            TaxSplit {
                net: price,
                tax: Cents::new(tax),
                gross: Cents::new(price.get().saturating_add(tax)),
            }
        }
        TaxMode::Inclusive => {
            let tax = div_round_half_up(amount * bps, base + bps);
            TaxSplit {
                net: Cents::new(price.get() - tax),
                tax: Cents::new(tax),
                gross: price,
            }
        }
    }
}

/// `amount × part / whole`, rounded by the one rule: the share of a sale's tax (or taxable
/// amount) that a refund of `part` of its `whole` gross carries back.
pub fn proportional(amount: Cents, part: Cents, whole: Cents) -> Cents {
    if whole.get() <= 0 {
        return Cents::ZERO;
    }
    let part = part.get().clamp(0, whole.get());
    Cents::new(div_round_half_up(
        i128::from(amount.get()) * i128::from(part),
        i128::from(whole.get()),
    ))
}

/// How a checkout's `total` (its tax, or one line's tax or taxable amount) is shared among
/// its eSIMs, weighted by their `prices` in unit order: each share is the running total
/// rounded by the one rule less the running total before it, so the shares add up to `total`
/// exactly and an eSIM's share does not depend on which is refunded first. Equal weights when
/// every price is zero.
pub fn allocate(total: Cents, prices: &[Cents]) -> Vec<Cents> {
    let weights: Vec<i128> = if prices.iter().any(|p| p.get() > 0) {
        prices.iter().map(|p| i128::from(p.get().max(0))).collect()
    } else {
        vec![1; prices.len()]
    };
    let whole: i128 = weights.iter().sum();
    let mut running = 0_i128;
    let mut before = 0_i64;
    weights
        .iter()
        .map(|weight| {
            running += weight;
            let upto = div_round_half_up(i128::from(total.get()) * running, whole);
            let share = upto - before;
            before = upto;
            Cents::new(share)
        })
        .collect()
}

/// One eSIM's share of its order's tax: the tax within what the buyer paid for it, and the
/// part of that charged on top of its price (all of it when tax is added on top, nothing when
/// prices include tax). Zero for an untaxed sale.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct UnitTax {
    pub tax: Cents,
    pub added: Cents,
}

impl UnitTax {
    /// What the buyer was charged for an eSIM priced `price`: the price, with tax added on top
    /// when the shop charged it that way. The one amount its refund gives back.
    pub fn charged(self, price: Cents) -> Cents {
        Cents::new(price.get().saturating_add(self.added.get()))
    }
}

/// Where tax is owed (a country code as reported or kept), the rate and the amounts of one
/// line of a sale's tax.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaxLine {
    /// `None` when the provider did not say.
    pub jurisdiction: Option<String>,
    pub rate: Option<RateBps>,
    pub taxable: Cents,
    pub tax: Cents,
}

/// A calendar quarter (`2026-Q4`), in UTC like the books' days: what a One-Stop-Shop
/// return covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Quarter {
    year: i32,
    /// 1 to 4.
    number: u8,
}

impl Quarter {
    /// `2026-Q4` (any case); the year 2000 to 9999.
    pub fn parse(text: &str) -> Option<Self> {
        let (year, number) = text.trim().split_once(['-'])?;
        let number = number.strip_prefix(['Q', 'q'])?;
        let year: i32 = year.parse().ok().filter(|y| (2000..=9999).contains(y))?;
        let number: u8 = number.parse().ok().filter(|n| (1..=4).contains(n))?;
        Some(Self { year, number })
    }

    /// The quarter containing unix milliseconds `ms`.
    pub fn containing(ms: i64) -> Self {
        let date = time::OffsetDateTime::from_unix_timestamp(ms.div_euclid(1000))
            .map(|t| t.date())
            .unwrap_or(time::Date::MIN);
        Self {
            year: date.year(),
            number: (u8::from(date.month()) - 1) / 3 + 1,
        }
    }

    fn first_day(self, number: u8, year: i32) -> i64 {
        let month = time::Month::try_from((number - 1) * 3 + 1).unwrap_or(time::Month::January);
        time::Date::from_calendar_date(year, month, 1)
            .map(|d| d.midnight().assume_utc().unix_timestamp() * 1000)
            .unwrap_or(0)
    }

    /// Unix milliseconds at its first instant.
    pub fn start_ms(self) -> i64 {
        self.first_day(self.number, self.year)
    }

    /// Unix milliseconds at the first instant of the next quarter (excluded).
    pub fn end_ms(self) -> i64 {
        if self.number == 4 {
            self.first_day(1, self.year + 1)
        } else {
            self.first_day(self.number + 1, self.year)
        }
    }

    /// The quarter before.
    pub fn previous(self) -> Self {
        if self.number == 1 {
            Self {
                year: self.year - 1,
                number: 4,
            }
        } else {
            Self {
                year: self.year,
                number: self.number - 1,
            }
        }
    }
}

/// `2026-Q4`.
impl fmt::Display for Quarter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-Q{}", self.year, self.number)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn quarters_cover_three_months_in_utc() {
        let q4 = Quarter::parse("2026-Q4").expect("quarter");
        assert_eq!(q4.to_string(), "2026-Q4");
        // 2026-10-01T00:00:00Z and 2027-01-01T00:00:00Z.
        assert_eq!(
            (q4.start_ms(), q4.end_ms()),
            (1_790_812_800_000, 1_798_761_600_000)
        );
        assert_eq!(Quarter::containing(q4.start_ms()), q4);
        assert_eq!(Quarter::containing(q4.end_ms() - 1), q4);
        assert_eq!(
            Quarter::parse("2026-q1").map(|q| q.end_ms()),
            Some(1_775_001_600_000)
        );
        assert_eq!(q4.previous().to_string(), "2026-Q3");
        assert_eq!(
            Quarter::parse("2026-Q1").map(|q| q.previous().to_string()),
            Some("2025-Q4".into())
        );
        for bad in ["", "2026", "2026-Q5", "2026-Q0", "26-Q1", "2026-4", "x-Q1"] {
            assert_eq!(Quarter::parse(bad), None, "{bad}");
        }
    }

    fn rate(bps: i32) -> RateBps {
        RateBps::new(bps).expect("rate")
    }

    #[test]
    fn rounding_is_half_up_on_cents() {
        assert_eq!(div_round_half_up(5, 10), 1);
        assert_eq!(div_round_half_up(4, 10), 0);
        assert_eq!(div_round_half_up(15, 10), 2);
        assert_eq!(div_round_half_up(14, 10), 1);
        assert_eq!(div_round_half_up(2, 3), 1);
        assert_eq!(div_round_half_up(1, 3), 0);
        assert_eq!(div_round_half_up(3, 2), 2);
        assert_eq!(div_round_half_up(-5, 10), -1);
        assert_eq!(div_round_half_up(7, 0), 0);
    }

    #[test]
    fn exclusive_adds_the_tax_on_top() {
        // 19 % of $10.00 is $1.90.
        let s = split(Cents::new(1000), rate(1900), TaxMode::Exclusive);
        assert_eq!(
            (s.net, s.tax, s.gross),
            (Cents::new(1000), Cents::new(190), Cents::new(1190))
        );
        // 19 % of $0.50 is 9.5 cents: rounded half up to 10.
        let s = split(Cents::new(50), rate(1900), TaxMode::Exclusive);
        assert_eq!(s.tax, Cents::new(10));
    }

    #[test]
    fn inclusive_carves_the_tax_out() {
        // $11.90 with 19 % inside is $10.00 + $1.90.
        let s = split(Cents::new(1190), rate(1900), TaxMode::Inclusive);
        assert_eq!(
            (s.net, s.tax, s.gross),
            (Cents::new(1000), Cents::new(190), Cents::new(1190))
        );
        // $9.99 at 20 %: 166.5 → 167 of tax.
        let s = split(Cents::new(999), rate(2000), TaxMode::Inclusive);
        assert_eq!((s.net, s.tax), (Cents::new(832), Cents::new(167)));
    }

    #[test]
    fn off_charges_nothing() {
        let s = split(Cents::new(999), rate(1900), TaxMode::Off);
        assert_eq!(s, TaxSplit::untaxed(Cents::new(999)));
    }

    #[test]
    fn a_refund_carries_its_share_of_the_tax() {
        // Half of a $11.90 sale with $1.90 tax carries $0.95 back.
        assert_eq!(
            proportional(Cents::new(190), Cents::new(595), Cents::new(1190)),
            Cents::new(95)
        );
        // A third: 63.33 → 63.
        assert_eq!(
            proportional(Cents::new(190), Cents::new(397), Cents::new(1190)),
            Cents::new(63)
        );
        assert_eq!(
            proportional(Cents::new(190), Cents::new(1190), Cents::new(1190)),
            Cents::new(190)
        );
        assert_eq!(
            proportional(Cents::new(190), Cents::new(5), Cents::ZERO),
            Cents::ZERO
        );
    }

    #[test]
    fn an_orders_tax_is_shared_among_its_esims_to_the_cent() {
        let c = Cents::new;
        // $1.00 of tax over three $5 eSIMs: 33, 34, 33 (running 33.3 → 33, 66.7 → 67, 100).
        assert_eq!(
            allocate(c(100), &[c(500), c(500), c(500)]),
            vec![c(33), c(34), c(33)]
        );
        assert_eq!(allocate(c(190), &[c(1000)]), vec![c(190)]);
        assert_eq!(allocate(c(9), &[c(0), c(0), c(0)]), vec![c(3), c(3), c(3)]);
        assert_eq!(allocate(c(9), &[]), Vec::<Cents>::new());
        assert_eq!(allocate(c(0), &[c(100), c(7)]), vec![c(0), c(0)]);
    }

    proptest! {
        #[test]
        fn shares_add_up_to_the_whole(
            total in 0_i64..10_000_000,
            prices in proptest::collection::vec(0_i64..1_000_000, 1..8),
        ) {
            let prices: Vec<Cents> = prices.into_iter().map(Cents::new).collect();
            let shares = allocate(Cents::new(total), &prices);
            prop_assert_eq!(shares.len(), prices.len());
            prop_assert_eq!(shares.iter().map(|s| s.get()).sum::<i64>(), total);
            prop_assert!(shares.iter().all(|s| s.get() >= 0));
        }
    }

    #[test]
    fn owners_write_rates_in_percent() {
        assert_eq!(RateBps::parse_percent("19"), Ok(rate(1900)));
        assert_eq!(RateBps::parse_percent(" 7.7 "), Ok(rate(770)));
        assert_eq!(RateBps::parse_percent("8.25%"), Ok(rate(825)));
        assert_eq!(RateBps::parse_percent("0"), Ok(rate(0)));
        assert_eq!(RateBps::parse_percent("100"), Ok(rate(10_000)));
        for bad in [
            "", ".", "-1", "100.01", "101", "8.255", "abc", "1e2", "19,5", "99999",
        ] {
            assert_eq!(RateBps::parse_percent(bad), Err(TaxError::Rate), "{bad}");
        }
        assert_eq!(rate(1900).to_string(), "19%");
        assert_eq!(rate(770).to_string(), "7.7%");
        assert_eq!(rate(825).to_string(), "8.25%");
        assert_eq!(rate(5).to_string(), "0.05%");
    }

    #[test]
    fn reported_rates_round_past_the_basis_point() {
        assert_eq!(RateBps::from_reported_percent("19.0"), Some(rate(1900)));
        assert_eq!(RateBps::from_reported_percent("8.875"), Some(rate(888)));
        assert_eq!(RateBps::from_reported_percent("8.874"), Some(rate(887)));
        assert_eq!(RateBps::from_reported_percent("-1"), None);
        assert_eq!(RateBps::from_reported_percent("150"), None);
    }

    #[test]
    fn countries_are_iso_codes() {
        assert_eq!(
            CountryCode::parse(" de ").map(|c| c.to_string()),
            Ok("DE".into())
        );
        for bad in ["", "D", "DEU", "XX", "1A"] {
            assert_eq!(CountryCode::parse(bad), Err(TaxError::Country), "{bad}");
        }
    }

    #[test]
    fn modes_read_back_as_written() {
        for mode in [TaxMode::Off, TaxMode::Inclusive, TaxMode::Exclusive] {
            assert_eq!(TaxMode::from_setting(Some(mode.setting_value())), mode);
            assert_eq!(TaxMode::parse(mode.as_str()), Some(mode));
            assert_eq!(TaxMode::from_stored(mode.stored()), mode);
        }
        assert_eq!(TaxMode::from_setting(None), TaxMode::Off);
        assert_eq!(TaxMode::from_setting(Some(7)), TaxMode::Off);
    }

    proptest! {
        #[test]
        fn net_plus_tax_is_gross(price in 0i64..100_000_000, bps in 0i32..=10_000, exclusive: bool) {
            let mode = if exclusive { TaxMode::Exclusive } else { TaxMode::Inclusive };
            let s = split(Cents::new(price), rate(bps), mode);
            prop_assert_eq!(s.net.get() + s.tax.get(), s.gross.get());
            prop_assert!(s.tax.get() >= 0 && s.net.get() >= 0);
            // The tax is within half a cent of the exact amount.
            let exact_num = i128::from(s.net.get()) * i128::from(bps);
            let err = (i128::from(s.tax.get()) * 10_000 - exact_num).abs();
            if exclusive {
                prop_assert!(err <= 5_000);
            }
        }

        #[test]
        fn rounding_is_within_half(n in 0i64..1_000_000_000, d in 1i64..1_000_000) {
            let q = div_round_half_up(i128::from(n), i128::from(d));
            let diff = 2 * (i128::from(n) - i128::from(q) * i128::from(d));
            prop_assert!(diff < i128::from(d) && diff >= -i128::from(d));
        }

        #[test]
        fn refunds_never_carry_back_more_than_the_tax(tax in 0i64..1_000_000, part in 0i64..2_000_000, whole in 1i64..2_000_000) {
            let back = proportional(Cents::new(tax), Cents::new(part), Cents::new(whole));
            prop_assert!(back.get() >= 0 && back.get() <= tax);
        }
    }
}
