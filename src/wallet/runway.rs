//! How long the wallet lasts: days of sales the available credit covers at the rate the shop
//! paid upstream over the last 7 days, in integer arithmetic.

use crate::domain::Cents;

/// Days of sales `available_cents` covers at the rate of `spent_7d_cents` per 7 days.
pub fn runway(available_cents: i64, spent_7d_cents: i64) -> String {
    if spent_7d_cents <= 0 {
        return "No purchases were placed upstream in the last 7 days: no rate to estimate from."
            .into();
    }
    if available_cents <= 0 {
        return "0 days: the balance covers no sales.".into();
    }
    // Tenths of a day, in integers: available / (spent / 7) * 10.
    let tenths = i128::from(available_cents) * 70 / i128::from(spent_7d_cents);
    format!(
        "About {}.{} days of sales at the last 7 days' rate ({} a day).",
        tenths / 10,
        tenths % 10,
        Cents::new(spent_7d_cents / 7)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runway_uses_integer_days() {
        assert!(runway(50_000, 0).contains("no rate"));
        assert!(runway(-5, 700).starts_with("0 days"));
        // $70 over 7 days is $10 a day: $500 lasts 50 days.
        assert!(runway(50_000, 7_000).starts_with("About 50.0 days"));
        assert!(runway(1_500, 7_000).starts_with("About 1.5 days"));
        assert!(runway(i64::MAX, 1).starts_with("About "));
    }
}
