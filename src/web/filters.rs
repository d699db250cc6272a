//! Askama filters that write the console's typed values as the pages show them: times from
//! Unix milliseconds (through [`crate::domain::clock`]), money from cents, purchase statuses
//! as their labels. A page module brings them in with `use crate::web::filters;`, so page
//! structs keep the capability's typed data and the template decides how it reads.

use askama::{Result, Values};

use crate::domain::Cents;
use crate::domain::clock;
use crate::domain::purchase::PurchaseStatus;

/// `2026-11-22 14:03 UTC`.
#[askama::filter_fn]
pub fn when(ms: impl Count, _: &dyn Values) -> Result<String> {
    Ok(clock::minute_ms(ms.get()))
}

/// `2026-11-22T14:03:05Z`, for `<time datetime="…">`.
#[askama::filter_fn]
pub fn datetime(ms: impl Count, _: &dyn Values) -> Result<String> {
    Ok(clock::rfc3339(ms.get()))
}

/// `3 h 5 min`: a duration in milliseconds.
#[askama::filter_fn]
pub fn age(ms: impl Count, _: &dyn Values) -> Result<String> {
    Ok(clock::age(ms.get()))
}

/// An upstream timestamp shown like the console's own times.
#[askama::filter_fn]
pub fn upstream_time(raw: &str, _: &dyn Values) -> Result<String> {
    Ok(clock::minute_of_upstream(raw))
}

/// `$1,234.50` (see [`Cents`]'s `Display`) from a count of cents.
#[askama::filter_fn]
pub fn cents(cents: impl Count, _: &dyn Values) -> Result<String> {
    Ok(Cents::new(cents.get()).to_string())
}

/// A purchase status's label (`Needs attention`); an unknown value as it is.
#[askama::filter_fn]
pub fn status_label(raw: &str, _: &dyn Values) -> Result<String> {
    Ok(PurchaseStatus::label_of(raw))
}

/// A stored count (milliseconds, cents) as askama hands it to a filter: by value or behind
/// references.
pub trait Count {
    fn get(&self) -> i64;
}

impl Count for i64 {
    fn get(&self) -> i64 {
        *self
    }
}

impl Count for Cents {
    fn get(&self) -> i64 {
        Cents::get(*self)
    }
}

impl<T: Count + ?Sized> Count for &T {
    fn get(&self) -> i64 {
        (**self).get()
    }
}
