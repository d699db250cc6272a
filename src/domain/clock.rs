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

#[cfg(test)]
mod tests {
    use super::*;

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
