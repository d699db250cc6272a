//! Numbers, money, data sizes and dates as each language writes them, with integer
//! arithmetic only. The charge is always in US dollars; only how the amount is written
//! changes: `$1,234.56` (English), `1234,56 US$` (Spanish), `1.234,56 $` (German).
//!
//! Grouping follows CLDR: English groups with `,`, German with `.`, Spanish with `.` but only
//! from five digits on (`1234`, `12.345`). Dates are day, abbreviated month and year:
//! `23 Nov 2026`, `23 nov 2026`, `23. Nov. 2026`; times are 24-hour UTC everywhere.

use super::{Lang, current};
use crate::Cents;

impl Lang {
    fn decimal_separator(self) -> char {
        match self {
            Self::En => '.',
            Self::Es | Self::De => ',',
        }
    }

    /// `1234567` → `1,234,567` / `1.234.567` / `1.234.567`; `1234` → `1,234` / `1234` / `1.234`.
    pub fn number(self, n: i64) -> String {
        let digits = n.unsigned_abs().to_string();
        let (separator, min_digits) = match self {
            Self::En => (',', 4),
            Self::Es => ('.', 5),
            Self::De => ('.', 4),
        };
        let mut out = String::with_capacity(digits.len() + digits.len() / 3 + 1);
        if n < 0 {
            out.push('-');
        }
        let group = digits.len() >= min_digits;
        for (i, digit) in digits.chars().enumerate() {
            if group && i > 0 && (digits.len() - i).is_multiple_of(3) {
                out.push(separator);
            }
            out.push(digit);
        }
        out
    }

    /// An amount of US dollars: `$36.69`, `36,69 US$`, `36,69 $`.
    pub fn money(self, amount: Cents) -> String {
        let cents = amount.get();
        let abs = cents.unsigned_abs();
        let whole = self.number(i64::try_from(abs / 100).unwrap_or(i64::MAX));
        let sign = if cents < 0 { "-" } else { "" };
        let frac = abs % 100;
        let dec = self.decimal_separator();
        match self {
            Self::En => format!("{sign}${whole}.{frac:02}"),
            Self::Es => format!("{sign}{whole}{dec}{frac:02}\u{a0}US$"),
            Self::De => format!("{sign}{whole}{dec}{frac:02}\u{a0}$"),
        }
    }

    /// An amount in another currency's minor units (cents), for a display price only:
    /// `€1,234.56` (English), `1234,56 €` (Spanish), `1.234,56 €` (German). `symbol` is the
    /// currency's sign as English writes it before the amount (`€`, `CHF `).
    pub fn foreign_money(self, minor: i64, symbol: &str) -> String {
        let abs = minor.unsigned_abs();
        let whole = self.number(i64::try_from(abs / 100).unwrap_or(i64::MAX));
        let sign = if minor < 0 { "-" } else { "" };
        let frac = abs % 100;
        let dec = self.decimal_separator();
        match self {
            Self::En => format!("{sign}{symbol}{whole}{dec}{frac:02}"),
            Self::Es | Self::De => {
                let symbol = symbol.trim_end_matches(['\u{a0}', ' ']);
                format!("{sign}{whole}{dec}{frac:02}\u{a0}{symbol}")
            }
        }
    }

    /// A day written `YYYY-MM-DD` as [`Lang::date`] writes it; `None` when it is not one.
    pub fn iso_day(self, day: &str) -> Option<String> {
        let format = time::macros::format_description!("[year]-[month]-[day]");
        let date = time::Date::parse(day, &format).ok()?;
        let ms = date.midnight().assume_utc().unix_timestamp() * 1000;
        Some(self.date(ms))
    }

    /// `1024` → `1 GB`, `1536` → `1.5 GB` / `1,5 GB`, `1500` → `1,500 MB` / `1500 MB` /
    /// `1.500 MB` (1024 MB is 1 GB). Gigabytes only when one decimal says exactly how much
    /// the plan gives, so the label never rounds the allowance.
    pub fn data(self, mb: i64) -> String {
        if mb >= 1024 && (mb % 1024) * 10 % 1024 == 0 {
            let whole = self.number(mb / 1024);
            match (mb % 1024) * 10 / 1024 {
                0 => format!("{whole} GB"),
                tenths => format!("{whole}{}{tenths} GB", self.decimal_separator()),
            }
        } else {
            format!("{} MB", self.number(mb))
        }
    }

    /// The UTC day of `ms` (Unix milliseconds): `23 Nov 2026`, `23 nov 2026`, `23. Nov. 2026`.
    pub fn date(self, ms: i64) -> String {
        let Some(t) = crate::clock::utc(ms) else {
            return String::new();
        };
        let month = self.month(t.month() as usize);
        match self {
            Self::En | Self::Es => format!("{} {month} {}", t.day(), t.year()),
            Self::De => format!("{}. {month} {}", t.day(), t.year()),
        }
    }

    /// The UTC day and time of `ms`: `23 Nov 2026, 06:00 UTC`.
    pub fn date_time(self, ms: i64) -> String {
        let Some(t) = crate::clock::utc(ms) else {
            return String::new();
        };
        format!("{}, {:02}:{:02} UTC", self.date(ms), t.hour(), t.minute())
    }

    fn month(self, month: usize) -> &'static str {
        const EN: [&str; 12] = [
            "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
        ];
        const ES: [&str; 12] = [
            "ene", "feb", "mar", "abr", "may", "jun", "jul", "ago", "sept", "oct", "nov", "dic",
        ];
        const DE: [&str; 12] = [
            "Jan.", "Feb.", "März", "Apr.", "Mai", "Juni", "Juli", "Aug.", "Sept.", "Okt.", "Nov.",
            "Dez.",
        ];
        let names = match self {
            Self::En => &EN,
            Self::Es => &ES,
            Self::De => &DE,
        };
        names[month.clamp(1, 12) - 1]
    }
}

/// `2026-11-23 06:00Z`: the machine-readable form of [`Lang::date_time`] for `<time datetime>`.
pub fn machine_date_time(ms: i64) -> String {
    crate::clock::utc(ms)
        .and_then(|t| {
            t.format(&time::macros::format_description!(
                "[year]-[month]-[day] [hour]:[minute]Z"
            ))
            .ok()
        })
        .unwrap_or_default()
}

/// [`Lang::money`] in the current language, for templates.
pub fn money(amount: &Cents) -> String {
    current().money(*amount)
}

/// [`Lang::date`] in the current language, for templates.
pub fn date(ms: &i64) -> String {
    current().date(*ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn foreign_money_and_days_are_written_per_language() {
        assert_eq!(Lang::En.foreign_money(2340, "€"), "€23.40");
        assert_eq!(Lang::Es.foreign_money(2340, "€"), "23,40\u{a0}€");
        assert_eq!(
            Lang::De.foreign_money(123_456, "CHF\u{a0}"),
            "1.234,56\u{a0}CHF"
        );
        assert_eq!(
            Lang::En.foreign_money(123_456, "CHF\u{a0}"),
            "CHF\u{a0}1,234.56"
        );
        assert_eq!(
            Lang::En.iso_day("2026-11-20").as_deref(),
            Some("20 Nov 2026")
        );
        assert_eq!(
            Lang::De.iso_day("2026-11-20").as_deref(),
            Some("20. Nov. 2026")
        );
        assert_eq!(Lang::Es.iso_day("2026-13-20"), None);
    }

    #[test]
    fn money_is_written_per_language() {
        assert_eq!(Lang::En.money(Cents::new(3669)), "$36.69");
        assert_eq!(Lang::Es.money(Cents::new(3669)), "36,69\u{a0}US$");
        assert_eq!(Lang::De.money(Cents::new(3669)), "36,69\u{a0}$");
        assert_eq!(Lang::En.money(Cents::new(123_456)), "$1,234.56");
        assert_eq!(Lang::Es.money(Cents::new(123_456)), "1234,56\u{a0}US$");
        assert_eq!(Lang::Es.money(Cents::new(1_234_567)), "12.345,67\u{a0}US$");
        assert_eq!(Lang::De.money(Cents::new(123_456)), "1.234,56\u{a0}$");
        assert_eq!(Lang::De.money(Cents::new(-5)), "-0,05\u{a0}$");
        // English is exactly what `Cents` has always shown.
        for c in [0, 5, 99, 100, 123_456, -5, i64::MIN, i64::MAX] {
            assert_eq!(Lang::En.money(Cents::new(c)), Cents::new(c).to_string());
        }
    }

    #[test]
    fn data_sizes_use_the_decimal_separator_of_the_language() {
        assert_eq!(Lang::En.data(1536), "1.5 GB");
        assert_eq!(Lang::Es.data(1536), "1,5 GB");
        assert_eq!(Lang::De.data(1536), "1,5 GB");
        assert_eq!(Lang::En.data(1500), "1,500 MB");
        assert_eq!(Lang::Es.data(1500), "1500 MB");
        assert_eq!(Lang::De.data(1500), "1.500 MB");
        assert_eq!(Lang::De.data(10 * 1024), "10 GB");
        for mb in [
            0, 1, 500, 1000, 1024, 1536, 1500, 20_480, 1_048_576, 1_000_000,
        ] {
            assert_eq!(Lang::En.data(mb), crate::plan::format_data(mb));
        }
    }

    #[test]
    fn dates_are_written_per_language() {
        // 2026-11-23 06:05 UTC.
        let ms = 1_795_413_900_000;
        assert_eq!(Lang::En.date(ms), "23 Nov 2026");
        assert_eq!(Lang::Es.date(ms), "23 nov 2026");
        assert_eq!(Lang::De.date(ms), "23. Nov. 2026");
        assert_eq!(Lang::De.date_time(ms), "23. Nov. 2026, 06:05 UTC");
        assert_eq!(machine_date_time(ms), "2026-11-23 06:05Z");
    }
}
