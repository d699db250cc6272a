//! Time as the shop stores it, Unix milliseconds, and the one conversion from it to a date and
//! time. Every place that shows or writes a stored time goes through [`utc`]; the formats built
//! on it here are the ones more than one place uses.

use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// `ms` (Unix milliseconds) as a UTC date and time; `None` when it is out of range.
pub fn utc(ms: i64) -> Option<OffsetDateTime> {
    OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000).ok()
}

/// `2026-11-22T14:03:05Z`; empty when the time is not representable.
pub fn rfc3339(ms: i64) -> String {
    utc(ms)
        .and_then(|t| t.format(&Rfc3339).ok())
        .unwrap_or_default()
}

/// `2026-11-22 14:03 UTC`: how the console shows a time.
pub fn minute_utc(t: OffsetDateTime) -> Option<String> {
    t.to_offset(time::UtcOffset::UTC)
        .format(&time::macros::format_description!(
            "[year]-[month]-[day] [hour]:[minute] UTC"
        ))
        .ok()
}

/// [`minute_utc`] of `ms`; the bare number when it is not representable.
pub fn minute_ms(ms: i64) -> String {
    utc(ms)
        .and_then(minute_utc)
        .unwrap_or_else(|| ms.to_string())
}

/// A timestamp from upstream (RFC 3339, though the spec does not promise a format), shown like
/// [`minute_ms`]; anything unreadable is kept as it came.
pub fn minute_of_upstream(raw: &str) -> String {
    OffsetDateTime::parse(raw, &Rfc3339)
        .ok()
        .and_then(minute_utc)
        .unwrap_or_else(|| raw.to_string())
}

/// `45 s`, `12 min`, `3 h 5 min`, `2 d 4 h`: a duration of `ms`, negative read as none.
pub fn age(ms: i64) -> String {
    let secs = ms.max(0) / 1000;
    match secs {
        0..60 => format!("{secs} s"),
        60..3600 => format!("{} min", secs / 60),
        3600..86_400 => format!("{} h {} min", secs / 3600, secs % 3600 / 60),
        _ => format!("{} d {} h", secs / 86_400, secs % 86_400 / 3600),
    }
}

/// The time zone the console shows its times in: an IANA zone name (`Europe/Berlin`) checked
/// against the time zone database compiled into the binary, so every replica reads a stored
/// name the same way whatever its host has installed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsoleZone {
    name: String,
    zone: jiff::tz::TimeZone,
}

/// A name that is not a zone of the time zone database.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("“{0}” is not a time zone name like Europe/Berlin, America/New_York or UTC")]
pub struct UnknownZone(pub String);

impl Default for ConsoleZone {
    fn default() -> Self {
        Self {
            name: "UTC".to_string(),
            zone: jiff::tz::TimeZone::UTC,
        }
    }
}

impl ConsoleZone {
    /// `raw` as a zone of the database, named as the database spells it (`europe/berlin` is
    /// `Europe/Berlin`).
    pub fn parse(raw: &str) -> Result<Self, UnknownZone> {
        let raw = raw.trim();
        let refused = || UnknownZone(raw.chars().take(64).collect());
        if raw.is_empty() || raw.len() > 64 {
            return Err(refused());
        }
        let zone = jiff::tz::TimeZone::get(raw).map_err(|_| refused())?;
        let name = zone.iana_name().unwrap_or(raw).to_string();
        Ok(Self { name, zone })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The calendar day in this zone at `ms` (Unix milliseconds); `None` out of range.
    pub fn today(&self, ms: i64) -> Option<jiff::civil::Date> {
        jiff::Timestamp::from_millisecond(ms)
            .ok()
            .map(|t| t.to_zoned(self.zone.clone()).date())
    }

    /// The wall-clock time `at` in this zone as Unix milliseconds (a time skipped by a clock
    /// change is read as after it); `None` out of range.
    pub fn ms_at(&self, at: jiff::civil::DateTime) -> Option<i64> {
        at.to_zoned(self.zone.clone())
            .ok()
            .map(|z| z.timestamp().as_millisecond())
    }

    /// Every zone name of the database, sorted, for the console's picker.
    pub fn all_names() -> Vec<String> {
        let mut names: Vec<String> = jiff::tz::db().available().map(|n| n.to_string()).collect();
        names.sort();
        names
    }

    /// `26 Nov 2026, 15:03 CET`: `ms` in this zone, in plain words; the bare number when it
    /// is out of range.
    pub fn minute(&self, ms: i64) -> String {
        jiff::Timestamp::from_millisecond(ms)
            .map(|t| {
                t.to_zoned(self.zone.clone())
                    .strftime("%-d %b %Y, %H:%M %Z")
                    .to_string()
            })
            .unwrap_or_else(|_| ms.to_string())
    }
}

/// `31 Dec 2026`: a calendar day given as `YYYY-MM-DD`; anything else as it came.
pub fn day_in_words(iso_day: &str) -> String {
    jiff::civil::Date::strptime("%Y-%m-%d", iso_day)
        .map(|d| d.strftime("%-d %b %Y").to_string())
        .unwrap_or_else(|_| iso_day.to_string())
}

/// Unix milliseconds of an upstream timestamp (RFC 3339), if it reads as one.
pub fn ms_of_upstream(raw: &str) -> Option<i64> {
    OffsetDateTime::parse(raw, &Rfc3339)
        .ok()
        .and_then(|t| i64::try_from(t.unix_timestamp_nanos() / 1_000_000).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn console_zones_are_database_names_and_times_read_as_words() {
        let berlin = ConsoleZone::parse(" europe/berlin ").expect("a zone");
        assert_eq!(berlin.name(), "Europe/Berlin");
        // 06:00 UTC in November is 07:00 in Berlin (CET); New York in July is on summer time.
        assert_eq!(berlin.minute(1_795_327_235_000), "22 Nov 2026, 07:00 CET");
        assert_eq!(
            ConsoleZone::default().minute(1_795_327_235_000),
            "22 Nov 2026, 06:00 UTC"
        );
        assert_eq!(
            ConsoleZone::parse("America/New_York")
                .expect("a zone")
                .minute(1_782_900_000_000),
            "1 Jul 2026, 06:00 EDT"
        );
        for bad in ["", "Mars/Olympus", "local", "+02:00", "Europe/Berlin/x"] {
            assert!(ConsoleZone::parse(bad).is_err(), "{bad:?} refused");
        }
        assert_eq!(
            ConsoleZone::default().minute(i64::MAX),
            i64::MAX.to_string()
        );
        assert!(ConsoleZone::all_names().iter().any(|n| n == "Asia/Tokyo"));
        assert_eq!(day_in_words("2026-12-31"), "31 Dec 2026");
        assert_eq!(day_in_words("soon"), "soon");
        assert_eq!(
            ms_of_upstream("2026-11-22T06:00:35Z"),
            Some(1_795_327_235_000)
        );
        assert_eq!(ms_of_upstream("yesterday-ish"), None);
    }

    #[test]
    fn ages_and_times_read_well() {
        assert_eq!(age(-5), "0 s");
        assert_eq!(age(59_000), "59 s");
        assert_eq!(age(12 * 60_000), "12 min");
        assert_eq!(age(3 * 3_600_000 + 5 * 60_000), "3 h 5 min");
        assert_eq!(age(2 * 86_400_000 + 4 * 3_600_000), "2 d 4 h");
        assert_eq!(minute_ms(0), "1970-01-01 00:00 UTC");
        assert_eq!(minute_ms(i64::MAX), i64::MAX.to_string());
        assert_eq!(rfc3339(1_795_327_235_000), "2026-11-22T06:00:35Z");
        assert_eq!(rfc3339(i64::MAX), "");
    }

    #[test]
    fn upstream_times_read_like_the_console_s_own() {
        assert_eq!(
            minute_of_upstream("2026-11-22T06:00:35Z"),
            "2026-11-22 06:00 UTC"
        );
        assert_eq!(
            minute_of_upstream("2026-11-22T08:00:35.123+02:00"),
            "2026-11-22 06:00 UTC"
        );
        assert_eq!(minute_of_upstream("yesterday-ish"), "yesterday-ish");
    }
}
