//! The buyer's departure day ("When do you leave?") and when its reminder is due.
//!
//! A trip date is a calendar day in the shop's time zone (the console's setting,
//! [`ConsoleZone`]): not before today there, and at most one year ahead. The reminder is due
//! at [`REMINDER_HOUR`]:00 on the day before, in that zone; a date set after that moment but
//! before the departure day begins is reminded at once, and a date set on the departure day
//! itself gets no reminder (the buyer is leaving as the order's own emails arrive).

use jiff::ToSpan;
use jiff::civil::Date;

use crate::clock::ConsoleZone;

/// The hour of the day before departure at which the reminder is due, in the shop's zone.
pub const REMINDER_HOUR: i8 = 9;

/// A departure day, checked against the day it was given on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TripDate(Date);

/// Why a typed departure day was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TripDateError {
    #[error("not a date")]
    NotADate,
    #[error("the date has passed")]
    InThePast,
    #[error("the date is more than a year ahead")]
    TooFarAhead,
}

impl TripDateError {
    /// The message the form shows beside the field.
    pub fn message_id(self) -> &'static str {
        match self {
            Self::NotADate => "trip-date-invalid",
            Self::InThePast => "trip-date-past",
            Self::TooFarAhead => "trip-date-too-far",
        }
    }
}

impl TripDate {
    /// `raw` (`YYYY-MM-DD`, as a date input sends it) as a departure day, given today in the
    /// shop's zone; `Ok(None)` for an empty field (no date).
    pub fn parse(raw: &str, today: Date) -> Result<Option<Self>, TripDateError> {
        let raw = raw.trim();
        if raw.is_empty() {
            return Ok(None);
        }
        if raw.len() != 10 {
            return Err(TripDateError::NotADate);
        }
        let date = Date::strptime("%Y-%m-%d", raw).map_err(|_| TripDateError::NotADate)?;
        if date < today {
            return Err(TripDateError::InThePast);
        }
        let last = today
            .checked_add(1.year())
            .map_err(|_| TripDateError::TooFarAhead)?;
        if date > last {
            return Err(TripDateError::TooFarAhead);
        }
        Ok(Some(Self(date)))
    }

    /// A date as stored (`YYYY-MM-DD`), without the checks of [`TripDate::parse`]: a stored
    /// date was checked when it was given.
    pub fn stored(raw: &str) -> Option<Self> {
        Date::strptime("%Y-%m-%d", raw).ok().map(Self)
    }

    /// `2026-12-24`: how it is stored and how a date input takes it.
    pub fn iso(self) -> String {
        self.0.strftime("%Y-%m-%d").to_string()
    }

    /// When the reminder is due: [`REMINDER_HOUR`]:00 on the day before, in `zone` (Unix ms).
    pub fn reminder_due_ms(self, zone: &ConsoleZone) -> Option<i64> {
        let eve = self.0.yesterday().ok()?;
        zone.ms_at(eve.at(REMINDER_HOUR, 0, 0, 0))
    }

    /// When the departure day begins in `zone` (Unix ms): after it, no reminder is sent.
    pub fn departure_starts_ms(self, zone: &ConsoleZone) -> Option<i64> {
        zone.ms_at(self.0.at(0, 0, 0, 0))
    }

    /// When a reminder for this date should go out, seen at `now_ms`: its due time, or now when
    /// that has passed but the departure day has not begun; `None` when it is too late.
    pub fn reminder_at(self, zone: &ConsoleZone, now_ms: i64) -> Option<i64> {
        let due = self.reminder_due_ms(zone)?;
        let starts = self.departure_starts_ms(zone)?;
        (now_ms < starts).then_some(due.max(now_ms))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(raw: &str) -> Date {
        Date::strptime("%Y-%m-%d", raw).expect("a date")
    }

    #[test]
    fn a_trip_date_is_today_up_to_a_year_ahead() {
        let today = day("2026-11-26");
        assert_eq!(TripDate::parse("", today), Ok(None));
        assert_eq!(TripDate::parse("  ", today), Ok(None));
        assert_eq!(
            TripDate::parse("2026-11-26", today).map(|d| d.map(TripDate::iso)),
            Ok(Some("2026-11-26".to_string()))
        );
        assert_eq!(
            TripDate::parse("2027-11-26", today).map(|d| d.map(TripDate::iso)),
            Ok(Some("2027-11-26".to_string()))
        );
        assert_eq!(
            TripDate::parse("2026-11-25", today),
            Err(TripDateError::InThePast)
        );
        assert_eq!(
            TripDate::parse("2027-11-27", today),
            Err(TripDateError::TooFarAhead)
        );
        for bad in [
            "tomorrow",
            "2026-13-01",
            "26.11.2026",
            "2026-11-31",
            "+2026-11-30",
        ] {
            assert_eq!(
                TripDate::parse(bad, today),
                Err(TripDateError::NotADate),
                "{bad}"
            );
        }
    }

    #[test]
    fn the_reminder_is_due_at_nine_the_day_before_in_the_shop_s_zone() {
        let berlin = ConsoleZone::parse("Europe/Berlin").expect("a zone");
        let date = TripDate::stored("2026-12-24").expect("a date");
        // 23 Dec 2026 09:00 CET is 08:00 UTC.
        let due = date.reminder_due_ms(&berlin).expect("due");
        assert_eq!(crate::clock::rfc3339(due), "2026-12-23T08:00:00Z");
        let starts = date.departure_starts_ms(&berlin).expect("starts");
        assert_eq!(crate::clock::rfc3339(starts), "2026-12-23T23:00:00Z");
        // Set long before: due then. Set the evening before: at once. On the day: never.
        assert_eq!(date.reminder_at(&berlin, 0), Some(due));
        assert_eq!(date.reminder_at(&berlin, due + 1), Some(due + 1));
        assert_eq!(date.reminder_at(&berlin, starts), None);
    }
}
