//! Periods of whole UTC days, and upstream's timestamps as unix milliseconds.

use time::Date;

pub const DAY_MS: i64 = 86_400_000;

/// Why a period was refused; the text is for the person who typed it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct PeriodError(pub String);

/// A period of whole UTC days, both ends included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Period {
    pub first: Date,
    pub last: Date,
}

/// `YYYY-MM-DD`.
pub fn parse_day(raw: &str) -> Option<Date> {
    Date::parse(
        raw.trim(),
        &time::macros::format_description!("[year]-[month]-[day]"),
    )
    .ok()
}

impl Period {
    /// The period from `from` to `to`, both `YYYY-MM-DD` and included.
    pub fn parse(from: &str, to: &str) -> Result<Self, PeriodError> {
        let shown = |raw: &str| raw.chars().take(20).collect::<String>();
        let first = parse_day(from).ok_or_else(|| {
            PeriodError(format!(
                "--from {:?} is not a date: write it as YYYY-MM-DD, like 2026-11-01",
                shown(from)
            ))
        })?;
        let last = parse_day(to).ok_or_else(|| {
            PeriodError(format!(
                "--to {:?} is not a date: write it as YYYY-MM-DD, like 2026-11-30",
                shown(to)
            ))
        })?;
        if first > last {
            return Err(PeriodError(format!(
                "the period starts ({first}) after it ends ({last}): swap the dates"
            )));
        }
        Ok(Self { first, last })
    }

    /// The UTC day containing `now_ms`, back to the day `days - 1` before it.
    pub fn last_days(now_ms: i64, days: i64) -> Self {
        let day = |ms: i64| {
            time::OffsetDateTime::from_unix_timestamp(ms.div_euclid(1000))
                .map(|t| t.date())
                .unwrap_or(Date::MIN)
        };
        Self {
            first: day(now_ms - (days - 1).max(0) * DAY_MS),
            last: day(now_ms),
        }
    }

    /// Unix milliseconds at the start of the first day.
    pub fn start_ms(&self) -> i64 {
        self.first.midnight().assume_utc().unix_timestamp() * 1000
    }

    /// Unix milliseconds at the start of the day after the last (excluded).
    pub fn end_ms(&self) -> i64 {
        self.last.midnight().assume_utc().unix_timestamp() * 1000 + DAY_MS
    }

    pub fn contains_ms(&self, ms: i64) -> bool {
        (self.start_ms()..self.end_ms()).contains(&ms)
    }
}

/// Unix milliseconds of an upstream timestamp (RFC 3339, though the spec shows no format);
/// `None` when it cannot be read.
pub fn upstream_time_ms(raw: &str) -> Option<i64> {
    let t = time::OffsetDateTime::parse(raw.trim(), &time::format_description::well_known::Rfc3339)
        .ok()?;
    i64::try_from(t.unix_timestamp_nanos() / 1_000_000).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn periods_are_whole_utc_days_and_refuse_nonsense() {
        let p = Period::parse("2026-11-01", "2026-11-01").expect("one day");
        assert_eq!(p.end_ms() - p.start_ms(), DAY_MS);
        assert!(p.contains_ms(p.start_ms()));
        assert!(!p.contains_ms(p.end_ms()));
        assert!(Period::parse("2026-11-02", "2026-11-01").is_err());
        assert!(Period::parse("2026-13-01", "2026-11-01").is_err());
        assert!(Period::parse("yesterday", "2026-11-01").is_err());
        let last = Period::last_days(p.start_ms() + 5, 30);
        assert_eq!(last.last, p.first);
        assert_eq!((last.last - last.first).whole_days(), 29);
    }
}
