//! Display currencies: a USD price shown also as "≈ €23.40" at a rate the owner sets.
//!
//! Only for showing. What is charged, stored and booked stays in USD cents. A rate is how many
//! units of the currency one US dollar buys, kept as an integer number of millionths (no
//! floats). Converting `c` US cents at `r` millionths gives `c × r / 1 000 000` minor units
//! (cents) of the currency, rounded half up to the nearest cent.

use std::fmt;

use super::Cents;
use crate::i18n::Lang;

/// The currencies the owner may set a rate for: ISO code and the symbol shown before the
/// amount. All have two decimals.
pub const CURRENCIES: [(&str, &str); 5] = [
    ("EUR", "€"),
    ("GBP", "£"),
    ("CHF", "CHF\u{a0}"),
    ("CAD", "CA$"),
    ("AUD", "A$"),
];

/// Millionths of a currency unit per US dollar.
const MICROS: i64 = 1_000_000;
/// The largest rate accepted: 100 000 units per dollar.
const MAX_MICROS: i64 = 100_000 * MICROS;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RateError {
    #[error("unknown currency {0}")]
    UnknownCurrency(String),
    #[error("a rate is a positive number with at most 6 decimals, like 0.9245")]
    BadRate,
    #[error("the rate's date is a day written YYYY-MM-DD")]
    BadDate,
}

/// The symbol of a listed currency.
pub fn symbol(code: &str) -> Option<&'static str> {
    CURRENCIES.iter().find(|(c, _)| *c == code).map(|(_, s)| *s)
}

/// One owner-set rate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rate {
    currency: &'static str,
    symbol: &'static str,
    micros_per_usd: i64,
    date: String,
}

impl Rate {
    pub fn new(currency: &str, micros_per_usd: i64, date: &str) -> Result<Self, RateError> {
        let (code, sym) = CURRENCIES
            .iter()
            .find(|(c, _)| c.eq_ignore_ascii_case(currency.trim()))
            .ok_or_else(|| RateError::UnknownCurrency(currency.to_string()))?;
        if !(1..=MAX_MICROS).contains(&micros_per_usd) {
            return Err(RateError::BadRate);
        }
        Ok(Self {
            currency: code,
            symbol: sym,
            micros_per_usd,
            date: parse_date(date)?,
        })
    }

    pub fn currency(&self) -> &'static str {
        self.currency
    }
    pub fn micros_per_usd(&self) -> i64 {
        self.micros_per_usd
    }
    pub fn date(&self) -> &str {
        &self.date
    }

    /// `usd` in this currency's cents, rounded half up.
    pub fn convert(&self, usd: Cents) -> i64 {
        convert(usd, self.micros_per_usd)
    }

    /// What an English page shows beside a USD price.
    pub fn show(&self, usd: Cents) -> DisplayPrice {
        self.show_in(Lang::En, usd)
    }

    /// What a page in `lang` shows beside a USD price: the amount as `lang` writes money
    /// (`≈ €23.40`, `≈ 23,40 €`) and the rate's day as it writes dates.
    pub fn show_in(&self, lang: Lang, usd: Cents) -> DisplayPrice {
        let amount = lang.foreign_money(self.convert(usd), self.symbol);
        DisplayPrice {
            text: lang.ta("display-price", &[("amount", amount.into())]),
            currency: self.currency,
            note: lang.ta(
                "display-price-rate-of",
                &[(
                    "date",
                    lang.iso_day(&self.date)
                        .unwrap_or_else(|| self.date.clone())
                        .into(),
                )],
            ),
            date: self.date.clone(),
        }
    }

    /// The rate as the owner typed it: `0.924500`.
    pub fn rate_text(&self) -> String {
        format!(
            "{}.{:06}",
            self.micros_per_usd / MICROS,
            self.micros_per_usd % MICROS
        )
    }
}

/// A converted price with the date of the rate it used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DisplayPrice {
    /// `≈ €23.40`
    pub text: String,
    pub currency: &'static str,
    /// `2026-11-23`
    pub date: String,
    /// `rate of 23 Nov 2026`, in the page's language.
    pub note: String,
}

impl fmt::Display for DisplayPrice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// `cents × micros / 1 000 000`, rounded half up (away from zero for a negative amount).
pub fn convert(usd: Cents, micros_per_usd: i64) -> i64 {
    let product = i128::from(usd.get()) * i128::from(micros_per_usd);
    let m = i128::from(MICROS);
    let rounded = if product >= 0 {
        (product + m / 2) / m
    } else {
        -((-product + m / 2) / m)
    };
    i64::try_from(rounded).unwrap_or(if rounded > 0 { i64::MAX } else { i64::MIN })
}

/// A decimal rate (`0.9245`, `1`, `152.3`) as millionths; more than six decimals is refused,
/// not rounded.
pub fn parse_rate(raw: &str) -> Result<i64, RateError> {
    let raw = raw.trim();
    let (whole, frac) = raw.split_once('.').unwrap_or((raw, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() && frac.is_empty() || !digits(whole) || !digits(frac) || frac.len() > 6 {
        return Err(RateError::BadRate);
    }
    let whole: i64 = if whole.is_empty() {
        0
    } else {
        whole.parse().map_err(|_| RateError::BadRate)?
    };
    let frac_micros: i64 = if frac.is_empty() {
        0
    } else {
        format!("{frac:0<6}")
            .parse()
            .map_err(|_| RateError::BadRate)?
    };
    let micros = whole
        .checked_mul(MICROS)
        .and_then(|w| w.checked_add(frac_micros))
        .ok_or(RateError::BadRate)?;
    if (1..=MAX_MICROS).contains(&micros) {
        Ok(micros)
    } else {
        Err(RateError::BadRate)
    }
}

/// `YYYY-MM-DD`, checked to be a real day.
pub fn parse_date(raw: &str) -> Result<String, RateError> {
    let raw = raw.trim();
    let parts: Vec<&str> = raw.split('-').collect();
    let [y, m, d] = parts.as_slice() else {
        return Err(RateError::BadDate);
    };
    if y.len() != 4 || m.len() != 2 || d.len() != 2 {
        return Err(RateError::BadDate);
    }
    let (y, m, d): (i32, u8, u8) = (
        y.parse().map_err(|_| RateError::BadDate)?,
        m.parse().map_err(|_| RateError::BadDate)?,
        d.parse().map_err(|_| RateError::BadDate)?,
    );
    let month = time::Month::try_from(m).map_err(|_| RateError::BadDate)?;
    time::Date::from_calendar_date(y, month, d).map_err(|_| RateError::BadDate)?;
    Ok(raw.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_half_up_on_the_cent() {
        // 2 531 cents × 0.9245 = 2 339.9095 → 2 340
        assert_eq!(convert(Cents::new(2_531), 924_500), 2_340);
        // exactly half a cent rounds up: 1 cent × 0.5 = 0.5 → 1
        assert_eq!(convert(Cents::new(1), 500_000), 1);
        assert_eq!(convert(Cents::new(1), 499_999), 0);
        assert_eq!(convert(Cents::new(-1), 500_000), -1);
    }

    #[test]
    fn shows_the_symbol_and_the_rate_date() {
        let eur =
            Rate::new("eur", parse_rate("0.9245").expect("rate"), "2026-11-23").expect("valid");
        let shown = eur.show(Cents::new(2_531));
        assert_eq!(shown.text, "≈ €23.40");
        assert_eq!(shown.date, "2026-11-23");
        assert_eq!(shown.note, "rate of 23 Nov 2026");
        let es = eur.show_in(Lang::Es, Cents::new(2_531));
        assert_eq!(es.text, "≈ 23,40\u{a0}€");
        assert_eq!(es.note, "cambio del 23 nov 2026");
        let de = eur.show_in(Lang::De, Cents::new(2_531));
        assert_eq!(de.text, "≈ 23,40\u{a0}€");
        assert_eq!(de.note, "Kurs vom 23. Nov. 2026");
        assert_eq!(eur.rate_text(), "0.924500");
        let big = Rate::new("GBP", parse_rate("1000").expect("rate"), "2026-01-31").expect("valid");
        assert_eq!(big.show(Cents::new(123_456)).text, "≈ £1,234,560.00");
    }

    #[test]
    fn rates_and_dates_are_checked() {
        assert_eq!(parse_rate("1"), Ok(1_000_000));
        assert_eq!(parse_rate(".5"), Ok(500_000));
        assert_eq!(parse_rate("152.25"), Ok(152_250_000));
        for bad in ["", ".", "0", "-1", "1.2345678", "1e3", "abc", "1,5"] {
            assert!(parse_rate(bad).is_err(), "{bad}");
        }
        assert!(parse_date("2026-02-30").is_err());
        assert!(parse_date("26-02-01").is_err());
        assert!(parse_date("2026-02-28").is_ok());
        assert!(Rate::new("XYZ", 1, "2026-01-01").is_err());
    }
}
