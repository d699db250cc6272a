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

/// The wallet's balances at one moment (`GET /balance`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Anchor {
    pub available: Cents,
    pub reserved: Cents,
}

/// Orders `transactions` oldest first (unreadable times after the readable ones, by id) and
/// adds the balances after each; the sums saturate rather than wrap on absurd deltas.
///
/// With `now`, the balance read when the listing was made, the balances are counted back from
/// it (the last row's balances are `now`), so they are right even when the listing does not
/// reach back to the account's opening. Without it they are counted from zero, which is right
/// only for the whole history.
pub fn running_balance(
    transactions: Vec<BalanceTransaction>,
    now: Option<Anchor>,
) -> Vec<RunningTransaction> {
    let mut rows = from_zero(transactions);
    let (Some(now), Some(last)) = (now, rows.last()) else {
        return rows;
    };
    let shift_available = now
        .available
        .get()
        .saturating_sub(last.available_after.get());
    let shift_reserved = now.reserved.get().saturating_sub(last.reserved_after.get());
    for row in &mut rows {
        row.available_after = Cents::new(row.available_after.get().saturating_add(shift_available));
        row.reserved_after = Cents::new(row.reserved_after.get().saturating_add(shift_reserved));
    }
    rows
}

fn from_zero(transactions: Vec<BalanceTransaction>) -> Vec<RunningTransaction> {
    let mut timed: Vec<(Option<i64>, BalanceTransaction)> = transactions
        .into_iter()
        .map(|t| (upstream_time_ms(&t.created_at), t))
        .collect();
    timed.sort_by_key(|(at, t)| (at.is_none(), at.unwrap_or(0), t.id));
    let mut running = Running::default();
    timed
        .into_iter()
        .map(|(at_ms, transaction)| running.after(transaction, at_ms))
        .collect()
}

/// The balances counted from zero over transactions given one at a time, oldest first: the
/// wallet CSV streamed from the whole copied history.
#[derive(Debug, Default)]
pub struct Running {
    available: i64,
    reserved: i64,
}

impl Running {
    /// `transaction` (at `at_ms`) with the balances after it.
    pub fn after(
        &mut self,
        transaction: BalanceTransaction,
        at_ms: Option<i64>,
    ) -> RunningTransaction {
        self.available = self
            .available
            .saturating_add(transaction.available_delta_cents.get());
        self.reserved = self
            .reserved
            .saturating_add(transaction.reserved_delta_cents.get());
        RunningTransaction {
            transaction,
            at_ms,
            available_after: Cents::new(self.available),
            reserved_after: Cents::new(self.reserved),
        }
    }
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
        let rows = running_balance(
            vec![
                tx(3, "2026-11-02T00:00:00Z", -100, 100),
                tx(1, "2026-11-01T00:00:00Z", 1000, 0),
                tx(4, "unreadable", 5, 0),
                tx(2, "2026-11-01T12:00:00+02:00", -1, 0),
            ],
            None,
        );
        let ids: Vec<i64> = rows.iter().map(|r| r.transaction.id).collect();
        assert_eq!(ids, [1, 2, 3, 4]);
        let after: Vec<(i64, i64)> = rows
            .iter()
            .map(|r| (r.available_after.get(), r.reserved_after.get()))
            .collect();
        assert_eq!(after, [(1000, 0), (999, 0), (899, 100), (904, 100)]);
    }

    #[test]
    fn with_the_balance_now_the_rows_count_back_from_it() {
        // The listing starts after an opening balance of 500.00 it does not show.
        let listed = || {
            vec![
                tx(2, "2026-11-01T00:00:00Z", -1_000, 1_000),
                tx(3, "2026-11-02T00:00:00Z", 0, -1_000),
            ]
        };
        let now = Anchor {
            available: Cents::new(49_000),
            reserved: Cents::new(0),
        };
        let after: Vec<(i64, i64)> = running_balance(listed(), Some(now))
            .iter()
            .map(|r| (r.available_after.get(), r.reserved_after.get()))
            .collect();
        assert_eq!(after, [(49_000, 1_000), (49_000, 0)]);
        // The whole history: both ways agree.
        let whole = vec![tx(1, "2026-10-01T00:00:00Z", 50_000, 0)]
            .into_iter()
            .chain(listed())
            .collect::<Vec<_>>();
        assert_eq!(
            running_balance(whole.clone(), Some(now)),
            running_balance(whole, None)
        );
        assert!(running_balance(Vec::new(), Some(now)).is_empty());
    }
}
