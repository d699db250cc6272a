//! The wallet's transactions in time order with the balances after each: the wallet CSV.

use super::period::upstream_time_ms;
use crate::domain::Cents;
use crate::upstream::BalanceTransaction;

/// A wallet transaction with the balances after it, oldest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunningTransaction {
    pub transaction: BalanceTransaction,
    /// `createdAt` in unix milliseconds, when readable.
    pub at_ms: Option<i64>,
    pub available_after: Cents,
    pub reserved_after: Cents,
}

/// Orders `transactions` oldest first (unreadable times after the readable ones, by id) and
/// adds the balances after each; the sums saturate rather than wrap on absurd deltas.
pub fn running_balance(transactions: Vec<BalanceTransaction>) -> Vec<RunningTransaction> {
    let mut timed: Vec<(Option<i64>, BalanceTransaction)> = transactions
        .into_iter()
        .map(|t| (upstream_time_ms(&t.created_at), t))
        .collect();
    timed.sort_by_key(|(at, t)| (at.is_none(), at.unwrap_or(0), t.id));
    let (mut available, mut reserved) = (0_i64, 0_i64);
    timed
        .into_iter()
        .map(|(at_ms, transaction)| {
            available = available.saturating_add(transaction.available_delta_cents.get());
            reserved = reserved.saturating_add(transaction.reserved_delta_cents.get());
            RunningTransaction {
                transaction,
                at_ms,
                available_after: Cents::new(available),
                reserved_after: Cents::new(reserved),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tx(id: i64, at: &str, available: i64, reserved: i64) -> BalanceTransaction {
        BalanceTransaction {
            id,
            kind: "x".into(),
            available_delta_cents: Cents::new(available),
            reserved_delta_cents: Cents::new(reserved),
            reference: "r".into(),
            created_at: at.into(),
        }
    }

    #[test]
    fn the_running_balance_follows_time_not_listing_order() {
        let rows = running_balance(vec![
            tx(3, "2026-11-02T00:00:00Z", -100, 100),
            tx(1, "2026-11-01T00:00:00Z", 1000, 0),
            tx(4, "unreadable", 5, 0),
            tx(2, "2026-11-01T12:00:00+02:00", -1, 0),
        ]);
        let ids: Vec<i64> = rows.iter().map(|r| r.transaction.id).collect();
        assert_eq!(ids, [1, 2, 3, 4]);
        let after: Vec<(i64, i64)> = rows
            .iter()
            .map(|r| (r.available_after.get(), r.reserved_after.get()))
            .collect();
        assert_eq!(after, [(1000, 0), (999, 0), (899, 100), (904, 100)]);
    }
}
