//! The last known upstream wallet, one row shared by every replica, and the credit that
//! purchases not yet placed upstream already count on.

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Nullable};

use crate::db::schema::{purchases, wallet};
use crate::db::{DbBackend, DbConn, DbError};
use crate::domain::AlertKind;

/// `shop_settings` name of the low-balance threshold, in cents.
pub const THRESHOLD_SETTING: &str = "low_balance_threshold_cents";
/// Until the owner sets one.
pub const DEFAULT_THRESHOLD_CENTS: i64 = 10_000;
/// `shop_settings` name of the owner's choice to pause new sales below the threshold
/// (1 = pause, 0 or absent = only alert).
pub const PAUSE_BELOW_THRESHOLD_SETTING: &str = "pause_sales_below_threshold";

/// Why new sales are paused. Each reason has its own rule for resuming ([`paused_after_read`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PauseReason {
    /// Upstream refused an order for lack of credit (`insufficient_balance`).
    InsufficientBalance,
    /// The owner chose to stop selling while available credit is below the threshold.
    BelowThreshold,
    /// The supplier refuses orders from this account (expired key, missing scope, a
    /// suspension). No balance read can end it: only an order the supplier accepts again.
    AccountProblem,
}

impl PauseReason {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::InsufficientBalance => "insufficient_balance",
            Self::BelowThreshold => "below_threshold",
            Self::AccountProblem => "account_problem",
        }
    }

    /// A stored reason. A pause without one (or with one this version does not know) dates
    /// from before reasons were stored, when `insufficient_balance` was the only cause.
    fn from_stored(text: Option<&str>) -> Self {
        match text {
            Some("below_threshold") => Self::BelowThreshold,
            Some("account_problem") => Self::AccountProblem,
            _ => Self::InsufficientBalance,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Queryable)]
pub struct WalletRow {
    pub id: i64,
    pub available_cents: i64,
    pub reserved_cents: i64,
    pub low_balance: bool,
    pub sales_paused: bool,
    pub refreshed_at_ms: i64,
    pub pause_reason: Option<String>,
}

impl WalletRow {
    /// Why sales are paused; `None` while they run.
    pub fn pause(&self) -> Option<PauseReason> {
        self.sales_paused
            .then(|| PauseReason::from_stored(self.pause_reason.as_deref()))
    }
}

/// The owner's low-balance settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThresholdPolicy {
    pub threshold_cents: i64,
    /// Pause new sales while available credit is below the threshold (off by default: the
    /// threshold then only raises the owners' alert).
    pub pause_below: bool,
}

pub fn threshold_policy(conn: &mut DbConn) -> Result<ThresholdPolicy, DbError> {
    Ok(ThresholdPolicy {
        threshold_cents: crate::db::settings::setting(conn, THRESHOLD_SETTING)?
            .unwrap_or(DEFAULT_THRESHOLD_CENTS),
        pause_below: crate::db::settings::setting(conn, PAUSE_BELOW_THRESHOLD_SETTING)?
            .is_some_and(|v| v != 0),
    })
}

/// Whether sales are paused after a balance read showing `available_cents`, given the pause
/// before it and the cost of purchases still waiting for wallet credit (`committed_cents`).
///
/// The rule looks at levels, never at a rise: a reservation released upstream raises available
/// credit without anyone paying, so "more than before" proves nothing. A pause for
/// `insufficient_balance` lasts until the credit covers the purchases waiting; a pause below
/// the threshold lasts while the owner's choice is on and credit is below it.
pub fn paused_after_read(
    before: Option<PauseReason>,
    available_cents: i64,
    committed_cents: i64,
    policy: ThresholdPolicy,
) -> Option<PauseReason> {
    if before == Some(PauseReason::AccountProblem) {
        Some(PauseReason::AccountProblem)
    } else if before == Some(PauseReason::InsufficientBalance) && available_cents < committed_cents
    {
        Some(PauseReason::InsufficientBalance)
    } else if policy.pause_below && available_cents < policy.threshold_cents {
        Some(PauseReason::BelowThreshold)
    } else {
        None
    }
}

pub fn get(conn: &mut DbConn) -> Result<Option<WalletRow>, DbError> {
    Ok(wallet::table.find(1_i64).first(conn).optional()?)
}

/// Stores a fresh `GET /balance` and decides from it whether sales stay paused
/// ([`paused_after_read`]).
pub fn store(
    conn: &mut DbConn,
    available_cents: i64,
    reserved_cents: i64,
    low_balance: bool,
    now_ms: i64,
) -> Result<(), DbError> {
    conn.write_tx(|conn| {
        let previous = get(conn)?;
        let policy = threshold_policy(conn)?;
        let committed = committed_cents(conn, now_ms)?;
        let pause = paused_after_read(
            previous.as_ref().and_then(WalletRow::pause),
            available_cents,
            committed,
            policy,
        );
        // The owner's `insufficient_balance` alert ("top it up") ends with the shortage it
        // announced: once a read shows credit covering every purchase waiting for it, as the
        // pause does. Left open, it would keep telling the owner that sales are paused.
        if available_cents >= committed {
            crate::db::alerts::resolve_shop_alerts(conn, AlertKind::InsufficientBalance, now_ms)?;
        }
        let reason = pause.map(PauseReason::as_str);
        if previous.is_some() {
            diesel::update(wallet::table.find(1_i64))
                .set((
                    wallet::available_cents.eq(available_cents),
                    wallet::reserved_cents.eq(reserved_cents),
                    wallet::low_balance.eq(low_balance),
                    wallet::sales_paused.eq(pause.is_some()),
                    wallet::pause_reason.eq(reason),
                    wallet::refreshed_at_ms.eq(now_ms),
                ))
                .execute(conn)?;
        } else {
            crate::with_inner!(&mut *conn, |c| {
                diesel::insert_into(wallet::table)
                    .values((
                        wallet::id.eq(1_i64),
                        wallet::available_cents.eq(available_cents),
                        wallet::reserved_cents.eq(reserved_cents),
                        wallet::low_balance.eq(low_balance),
                        wallet::sales_paused.eq(pause.is_some()),
                        wallet::pause_reason.eq(reason),
                        wallet::refreshed_at_ms.eq(now_ms),
                    ))
                    .on_conflict_do_nothing()
                    .execute(c)
            })?;
        }
        Ok(())
    })
}

/// After the owner changed the threshold settings: pauses at once when the last known credit
/// is below a threshold that now pauses, and lifts a threshold pause the owner turned off.
/// Nothing else resumes here: that takes a balance read ([`store`]).
pub fn apply_threshold_policy(conn: &mut DbConn) -> Result<(), DbError> {
    let Some(row) = get(conn)? else {
        return Ok(());
    };
    let policy = threshold_policy(conn)?;
    let below = row.refreshed_at_ms > 0 && row.available_cents < policy.threshold_cents;
    let pause = match row.pause() {
        None if policy.pause_below && below => Some(PauseReason::BelowThreshold),
        Some(PauseReason::BelowThreshold) if !policy.pause_below => None,
        unchanged => unchanged,
    };
    if pause != row.pause() {
        diesel::update(wallet::table.find(1_i64))
            .set((
                wallet::sales_paused.eq(pause.is_some()),
                wallet::pause_reason.eq(pause.map(PauseReason::as_str)),
            ))
            .execute(conn)?;
    }
    Ok(())
}

/// Locks the wallet row for the rest of the transaction, so concurrent checkouts count the
/// same credit one after another. SQLite's write transaction already serialises them.
pub fn lock(conn: &mut DbConn) -> Result<(), DbError> {
    if let DbConn::Postgres(pg) = conn {
        diesel::sql_query("SELECT id FROM wallet WHERE id = 1 FOR UPDATE").execute(pg)?;
    }
    Ok(())
}

#[derive(QueryableByName)]
struct Sum {
    #[diesel(sql_type = BigInt)]
    total: i64,
}

/// Upstream cost of purchases that will need wallet credit but have no upstream order yet:
/// paid ones, and unpaid ones while their checkout hold lasts (see [`crate::db::holds`]). The
/// checkout counts the unpaid part only up to its cap (`orders::checkout`).
pub fn committed_cents(conn: &mut DbConn, now_ms: i64) -> Result<i64, DbError> {
    Ok(paid_unplaced_cents(conn)? + crate::db::holds::held_cents(conn, now_ms)?)
}

/// Upstream cost of paid purchases whose upstream order is not placed yet: credit the wallet
/// must keep for them whatever else happens.
pub fn paid_unplaced_cents(conn: &mut DbConn) -> Result<i64, DbError> {
    // Read from the partial index of exactly these purchases. SQLite's statistics know the
    // unique index of upstream order ids and not this one, and would walk every purchase
    // without an order (every unpaid checkout ever) inside the caller's write transaction.
    let indexed_by = match conn {
        DbConn::Sqlite(_) => " INDEXED BY purchases_paid_unplaced",
        DbConn::Postgres(_) => "",
    };
    let rows: Vec<Sum> = diesel::sql_query(format!(
        "SELECT CAST(COALESCE(SUM(cost_cents), 0) AS BIGINT) AS total FROM purchases{indexed_by} \
         WHERE upstream_order_id IS NULL AND status = 'paid'"
    ))
    .load(conn)?;
    Ok(rows.first().map_or(0, |r| r.total))
}

/// Pauses new sales because upstream refused an order for lack of credit (`paused`), or
/// resumes them (`!paused`, an admin's decision). A pause lasts until a balance read shows
/// credit covering the purchases waiting ([`paused_after_read`]). Without a wallet row yet, one
/// is created with zero balances and `refreshed_at_ms = 0` (never refreshed, so the next
/// checkout re-reads it).
pub fn set_sales_paused(conn: &mut DbConn, paused: bool) -> Result<(), DbError> {
    pause_for(conn, paused.then_some(PauseReason::InsufficientBalance))
}

/// Ends a pause for `reason` (and only for it): another reason's pause stays. Returns whether
/// sales resumed.
pub fn resume_from(conn: &mut DbConn, reason: PauseReason) -> Result<bool, DbError> {
    let paused_for = get(conn)?.and_then(|w| w.pause());
    if paused_for != Some(reason) {
        return Ok(false);
    }
    pause_for(conn, None)?;
    Ok(true)
}

/// Pauses new sales for `reason`, or resumes them (`None`).
pub fn pause_for(conn: &mut DbConn, reason: Option<PauseReason>) -> Result<(), DbError> {
    let paused = reason.is_some();
    let reason = reason.map(PauseReason::as_str);
    crate::with_inner!(&mut *conn, |c| {
        diesel::insert_into(wallet::table)
            .values((
                wallet::id.eq(1_i64),
                wallet::available_cents.eq(0_i64),
                wallet::reserved_cents.eq(0_i64),
                wallet::low_balance.eq(true),
                wallet::sales_paused.eq(paused),
                wallet::pause_reason.eq(reason),
                wallet::refreshed_at_ms.eq(0_i64),
            ))
            .on_conflict(wallet::id)
            .do_update()
            .set((
                wallet::sales_paused.eq(paused),
                wallet::pause_reason.eq(reason),
            ))
            .execute(c)
    })?;
    Ok(())
}

/// Upstream cost of purchases placed upstream (they have an order id) and paid at or after
/// `since_ms`: what the wallet paid out, for the runway estimate.
pub fn placed_cost_since(conn: &mut DbConn, since_ms: i64) -> Result<i64, DbError> {
    let total: Option<i64> = placed_cost_since_query(since_ms).first(conn)?;
    Ok(total.unwrap_or(0))
}

/// [`placed_cost_since`]'s query (its plan is checked by a test).
pub fn placed_cost_since_query(
    since_ms: i64,
) -> purchases::BoxedQuery<'static, DbBackend, Nullable<BigInt>> {
    purchases::table
        .filter(purchases::paid_at_ms.ge(since_ms))
        .filter(purchases::upstream_order_id.is_not_null())
        .select(diesel::dsl::sql::<Nullable<BigInt>>(
            "CAST(SUM(cost_cents) AS BIGINT)",
        ))
        .into_boxed()
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALERT_ONLY: ThresholdPolicy = ThresholdPolicy {
        threshold_cents: 10_000,
        pause_below: false,
    };
    const PAUSING: ThresholdPolicy = ThresholdPolicy {
        threshold_cents: 10_000,
        pause_below: true,
    };

    #[test]
    fn the_threshold_pauses_only_when_the_owner_chose_it() {
        assert_eq!(paused_after_read(None, 9_999, 0, ALERT_ONLY), None);
        assert_eq!(
            paused_after_read(None, 9_999, 0, PAUSING),
            Some(PauseReason::BelowThreshold)
        );
        assert_eq!(paused_after_read(None, 10_000, 0, PAUSING), None);
        // Turning the choice off lifts a threshold pause at the next read.
        assert_eq!(
            paused_after_read(Some(PauseReason::BelowThreshold), 5, 0, ALERT_ONLY),
            None
        );
    }

    #[test]
    fn more_credit_that_is_still_short_resumes_nothing() {
        // A released reservation raised available from $50 to $80: still below $100.
        assert_eq!(
            paused_after_read(Some(PauseReason::BelowThreshold), 8_000, 0, PAUSING),
            Some(PauseReason::BelowThreshold)
        );
        // $300 waiting to be placed, $250 available: still short.
        assert_eq!(
            paused_after_read(
                Some(PauseReason::InsufficientBalance),
                25_000,
                30_000,
                ALERT_ONLY
            ),
            Some(PauseReason::InsufficientBalance)
        );
    }

    #[test]
    fn an_insufficient_balance_pause_lasts_until_the_orders_waiting_are_covered() {
        assert_eq!(
            paused_after_read(
                Some(PauseReason::InsufficientBalance),
                30_000,
                30_000,
                ALERT_ONLY
            ),
            None
        );
        // Covered, but below a threshold that pauses: the pause stays, for that reason.
        assert_eq!(
            paused_after_read(
                Some(PauseReason::InsufficientBalance),
                9_000,
                5_000,
                PAUSING
            ),
            Some(PauseReason::BelowThreshold)
        );
        // Nothing else pauses for lack of credit: that takes upstream's refusal.
        assert_eq!(paused_after_read(None, 0, 30_000, ALERT_ONLY), None);
    }

    #[test]
    fn a_pause_stored_without_a_reason_is_one_for_lack_of_credit() {
        let row = WalletRow {
            id: 1,
            available_cents: 0,
            reserved_cents: 0,
            low_balance: true,
            sales_paused: true,
            refreshed_at_ms: 0,
            pause_reason: None,
        };
        assert_eq!(row.pause(), Some(PauseReason::InsufficientBalance));
        let running = WalletRow {
            sales_paused: false,
            pause_reason: Some("below_threshold".into()),
            ..row
        };
        assert_eq!(running.pause(), None);
    }
}
