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

/// The customer's order number of a purchase id (`SF-3FA2-9C1E`): how the console names an
/// order, as the customer quotes it.
#[askama::filter_fn]
pub fn order_number(purchase_id: impl std::fmt::Display, _: &dyn Values) -> Result<String> {
    Ok(crate::domain::purchase::order_number(
        &purchase_id.to_string(),
    ))
}

/// The last day a promotion code may be used (`2026-12-31`), from its exclusive end.
#[askama::filter_fn]
pub fn last_day(end_ms: impl Count, _: &dyn Values) -> Result<String> {
    Ok(crate::catalog::promo_codes::last_day(end_ms.get()))
}

/// What an outbox job of a stored kind does (`Placing the order with the supplier`).
#[askama::filter_fn]
pub fn job_label(raw: &str, _: &dyn Values) -> Result<&'static str> {
    Ok(crate::orders::outbox::JobKind::label_of(raw))
}

/// A stored job state in words (`Waiting its turn`).
#[askama::filter_fn]
pub fn job_state(raw: &str, _: &dyn Values) -> Result<&'static str> {
    Ok(crate::orders::outbox::state_label(raw))
}

/// What an alert of a stored kind is about.
#[askama::filter_fn]
pub fn alert_label(raw: &str, _: &dyn Values) -> Result<&'static str> {
    Ok(crate::domain::alert::AlertKind::label_of(raw))
}

/// A recorded outcome code (`price_changed_cap`) as words (`Price changed cap`).
#[askama::filter_fn]
pub fn outcome(raw: &str, _: &dyn Values) -> Result<String> {
    let words = raw.replace('_', " ");
    let mut chars = words.chars();
    Ok(chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    }))
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
