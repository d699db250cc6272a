//! The prepaid wallet: available and reserved credit, and one `BalanceTransaction` per movement.
//!
//! Movements and their types (spec 2.6 leaves the values open; these are the sandbox's):
//!
//! | type          | available | reserved | when                                              |
//! |---------------|-----------|----------|---------------------------------------------------|
//! | `credit`      | +amount   |          | a top-up was paid                                 |
//! | `reservation` | −price    | +price   | an order was accepted                             |
//! | `settlement`  |           | −price   | the order was fulfilled                           |
//! | `release`     | +price    | −price   | the order failed (confirmed)                      |
//! | `refund`      | +price    |          | a fulfilled order was refunded                    |
//! | `reversal`    | −amount   |          | a funding reversal or dispute (may go negative)   |
//! | `adjustment`  | ±delta    |          | the operator set the balance (control API)        |
//!
//! The invariant ([`Ledger::invariant_holds`]): available + reserved = credits + refunds +
//! adjustments − settlements − reversals, the transaction deltas sum to both balances, and
//! reserved is never negative. (The order-side half — reserved equals the prices of orders still
//! holding funds — is checked by the state, which knows the orders.)

use super::wire::BalanceTransaction;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxKind {
    Credit,
    Reservation,
    Settlement,
    Release,
    Refund,
    Reversal,
    Adjustment,
}

impl TxKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Credit => "credit",
            Self::Reservation => "reservation",
            Self::Settlement => "settlement",
            Self::Release => "release",
            Self::Refund => "refund",
            Self::Reversal => "reversal",
            Self::Adjustment => "adjustment",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LedgerError {
    #[error("available credit cannot cover {0} cents")]
    Insufficient(i64),
    #[error("amount out of range")]
    OutOfRange,
}

/// Sums per movement type, in i128 so that they cannot overflow even when balances are set
/// near the i64 limits through the control API.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Totals {
    pub credits_cents: i128,
    pub reservations_cents: i128,
    pub settlements_cents: i128,
    pub releases_cents: i128,
    pub refunds_cents: i128,
    pub reversals_cents: i128,
    pub adjustments_cents: i128,
}

#[derive(Debug, Clone)]
pub struct Ledger {
    available: i64,
    reserved: i64,
    totals: Totals,
    /// Oldest first; listed newest first.
    transactions: Vec<BalanceTransaction>,
}

impl Ledger {
    /// A wallet whose opening balance is one `credit` (so the invariant holds from the start).
    pub fn new(opening_cents: i64, now: &str) -> Self {
        let mut ledger = Self {
            available: 0,
            reserved: 0,
            totals: Totals::default(),
            transactions: Vec::new(),
        };
        if opening_cents != 0 {
            // An opening balance is a credit when positive; a negative opening is an adjustment.
            let kind = if opening_cents > 0 {
                TxKind::Credit
            } else {
                TxKind::Adjustment
            };
            // Cannot fail: 0 + any i64 fits.
            let _ = ledger.record(kind, opening_cents, 0, "opening-balance", now);
        }
        ledger
    }

    pub fn available(&self) -> i64 {
        self.available
    }

    pub fn reserved(&self) -> i64 {
        self.reserved
    }

    pub fn totals(&self) -> Totals {
        self.totals
    }

    pub fn transactions(&self) -> &[BalanceTransaction] {
        &self.transactions
    }

    fn record(
        &mut self,
        kind: TxKind,
        available_delta: i64,
        reserved_delta: i64,
        reference: &str,
        now: &str,
    ) -> Result<(), LedgerError> {
        let available = self
            .available
            .checked_add(available_delta)
            .ok_or(LedgerError::OutOfRange)?;
        let reserved = self
            .reserved
            .checked_add(reserved_delta)
            .ok_or(LedgerError::OutOfRange)?;
        if reserved < 0 {
            return Err(LedgerError::OutOfRange);
        }
        self.available = available;
        self.reserved = reserved;
        let amount = i128::from(
            available_delta
                .unsigned_abs()
                .max(reserved_delta.unsigned_abs()),
        );
        let t = &mut self.totals;
        match kind {
            TxKind::Credit => t.credits_cents += amount,
            TxKind::Reservation => t.reservations_cents += amount,
            TxKind::Settlement => t.settlements_cents += amount,
            TxKind::Release => t.releases_cents += amount,
            TxKind::Refund => t.refunds_cents += amount,
            TxKind::Reversal => t.reversals_cents += amount,
            TxKind::Adjustment => t.adjustments_cents += i128::from(available_delta),
        }
        let id = i64::try_from(self.transactions.len()).unwrap_or(i64::MAX) + 1;
        self.transactions.push(BalanceTransaction {
            id,
            kind: kind.as_str().to_string(),
            available_delta_cents: available_delta,
            reserved_delta_cents: reserved_delta,
            reference: reference.to_string(),
            created_at: now.to_string(),
        });
        Ok(())
    }

    pub fn credit(&mut self, amount: i64, reference: &str, now: &str) -> Result<(), LedgerError> {
        if amount <= 0 {
            return Err(LedgerError::OutOfRange);
        }
        self.record(TxKind::Credit, amount, 0, reference, now)
    }

    /// Moves `price` from available to reserved, or refuses when available cannot cover it.
    /// A zero-priced order still records a (zero) reservation so every order has its trail.
    pub fn reserve(&mut self, price: i64, reference: &str, now: &str) -> Result<(), LedgerError> {
        if price < 0 {
            return Err(LedgerError::OutOfRange);
        }
        if self.available < price {
            return Err(LedgerError::Insufficient(price));
        }
        let negative = price.checked_neg().ok_or(LedgerError::OutOfRange)?;
        self.record(TxKind::Reservation, negative, price, reference, now)
    }

    pub fn settle(&mut self, price: i64, reference: &str, now: &str) -> Result<(), LedgerError> {
        let negative = price.checked_neg().ok_or(LedgerError::OutOfRange)?;
        self.record(TxKind::Settlement, 0, negative, reference, now)
    }

    pub fn release(&mut self, price: i64, reference: &str, now: &str) -> Result<(), LedgerError> {
        let negative = price.checked_neg().ok_or(LedgerError::OutOfRange)?;
        self.record(TxKind::Release, price, negative, reference, now)
    }

    pub fn refund(&mut self, price: i64, reference: &str, now: &str) -> Result<(), LedgerError> {
        self.record(TxKind::Refund, price, 0, reference, now)
    }

    /// A funding reversal: available drops by `amount` and may go negative (a deficit).
    pub fn reverse(&mut self, amount: i64, reference: &str, now: &str) -> Result<(), LedgerError> {
        if amount <= 0 {
            return Err(LedgerError::OutOfRange);
        }
        let negative = amount.checked_neg().ok_or(LedgerError::OutOfRange)?;
        self.record(TxKind::Reversal, negative, 0, reference, now)
    }

    /// Sets available credit to `target` through one `adjustment` (no-op when already there).
    pub fn set_available(&mut self, target: i64, now: &str) -> Result<(), LedgerError> {
        let delta = target
            .checked_sub(self.available)
            .ok_or(LedgerError::OutOfRange)?;
        if delta == 0 {
            return Ok(());
        }
        self.record(TxKind::Adjustment, delta, 0, "operator-adjustment", now)
    }

    pub fn invariant_holds(&self) -> bool {
        let t = self.totals;
        let expected = t.credits_cents + t.refunds_cents + t.adjustments_cents
            - t.settlements_cents
            - t.reversals_cents;
        let sum_available: i128 = self
            .transactions
            .iter()
            .map(|tx| i128::from(tx.available_delta_cents))
            .sum();
        let sum_reserved: i128 = self
            .transactions
            .iter()
            .map(|tx| i128::from(tx.reserved_delta_cents))
            .sum();
        self.reserved >= 0
            && i128::from(self.available) + i128::from(self.reserved) == expected
            && sum_available == i128::from(self.available)
            && sum_reserved == i128::from(self.reserved)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: &str = "2025-01-01T00:00:00Z";

    #[test]
    fn the_spec_example_reserve_then_settle() {
        let mut l = Ledger::new(1000, NOW);
        l.reserve(103, "o1", NOW).expect("covered");
        assert_eq!((l.available(), l.reserved()), (897, 103));
        l.settle(103, "o1", NOW).expect("reserved");
        assert_eq!((l.available(), l.reserved()), (897, 0));
        assert!(l.invariant_holds());
    }

    #[test]
    fn release_returns_credit_and_reversal_can_leave_a_deficit() {
        let mut l = Ledger::new(1000, NOW);
        l.reserve(400, "o1", NOW).expect("covered");
        l.release(400, "o1", NOW).expect("reserved");
        assert_eq!((l.available(), l.reserved()), (1000, 0));
        l.reverse(1500, "chargeback", NOW).expect("valid");
        assert_eq!(l.available(), -500);
        assert_eq!(l.reserve(1, "o2", NOW), Err(LedgerError::Insufficient(1)));
        assert!(l.invariant_holds());
        let kinds: Vec<&str> = l.transactions().iter().map(|t| t.kind.as_str()).collect();
        assert_eq!(kinds, ["credit", "reservation", "release", "reversal"]);
    }

    #[test]
    fn insufficient_reservation_changes_nothing() {
        let mut l = Ledger::new(100, NOW);
        assert!(l.reserve(101, "o1", NOW).is_err());
        assert_eq!(
            (l.available(), l.reserved(), l.transactions().len()),
            (100, 0, 1)
        );
    }
}
