//! Askama filters that write the console's typed values as the pages show them: times from
//! Unix milliseconds (through [`crate::domain::clock`], in the owner's time zone with UTC in a
//! tooltip), money from cents, purchase statuses as their labels. A page module brings them in with `use crate::web::filters;`, so page
//! structs keep the capability's typed data and the template decides how it reads.

use askama::{Result, Values};

use crate::domain::Cents;
use crate::domain::clock;
use crate::domain::purchase::PurchaseStatus;

/// How every console page shows a time: in the owner's time zone in plain words, the exact
/// time in `datetime` and UTC in the tooltip:
/// `<time datetime="2026-11-22T14:03:05Z" title="2026-11-22 14:03 UTC">22 Nov 2026, 15:03 CET</time>`.
#[askama::filter_fn]
pub fn when(ms: impl Count, _: &dyn Values) -> Result<askama::filters::Safe<String>> {
    Ok(askama::filters::Safe(time_element(ms.get())))
}

/// The `<time>` element of [`when`]; its text holds only digits, month and zone names.
fn time_element(ms: i64) -> String {
    let zone = crate::web::admin::zone();
    let exact = clock::rfc3339(ms);
    if exact.is_empty() {
        return ms.to_string();
    }
    format!(
        "<time datetime=\"{exact}\" title=\"{}\">{}</time>",
        clock::minute_ms(ms),
        zone.minute(ms)
    )
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

/// An upstream timestamp shown like the console's own times ([`when`]); one that does not
/// read as a time is shown as it came, escaped.
#[askama::filter_fn]
pub fn upstream_time(raw: &str, _: &dyn Values) -> Result<askama::filters::Safe<String>> {
    Ok(askama::filters::Safe(match clock::ms_of_upstream(raw) {
        Some(ms) => time_element(ms),
        None => crate::domain::html::escape(raw),
    }))
}

/// `$1,234.50` (see [`Cents`]'s `Display`) from a count of cents.
#[askama::filter_fn]
pub fn cents(cents: impl Count, _: &dyn Values) -> Result<String> {
    Ok(Cents::new(cents.get()).to_string())
}

/// `16,670`: a count with its thousands grouped, as the console writes numbers.
#[askama::filter_fn]
pub fn count(n: impl Count, _: &dyn Values) -> Result<String> {
    Ok(crate::domain::plan::group_thousands(n.get()))
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

/// The last day a promotion code may be used (`31 Dec 2026`), from its exclusive end.
#[askama::filter_fn]
pub fn last_day(end_ms: impl Count, _: &dyn Values) -> Result<String> {
    Ok(clock::day_in_words(&crate::catalog::promo_codes::last_day(
        end_ms.get(),
    )))
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

/// A supplier order status as stored (`pending_review`) in the owner's words.
#[askama::filter_fn]
pub fn supplier_status(raw: &str, _: &dyn Values) -> Result<String> {
    Ok(crate::upstream::OrderStatus::parse(raw).label())
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

impl Count for usize {
    fn get(&self) -> i64 {
        i64::try_from(*self).unwrap_or(i64::MAX)
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

#[cfg(test)]
mod tests {
    #[test]
    fn counts_group_their_thousands() {
        assert_eq!(crate::domain::plan::group_thousands(0), "0");
        assert_eq!(crate::domain::plan::group_thousands(999), "999");
        assert_eq!(crate::domain::plan::group_thousands(16_670), "16,670");
        assert_eq!(crate::domain::plan::group_thousands(1_000_200), "1,000,200");
        assert_eq!(crate::domain::plan::group_thousands(-1_000), "-1,000");
    }
}
