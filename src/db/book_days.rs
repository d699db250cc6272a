//! The books of each UTC day as last reconciled (`book_days`, made by `crate::books::days`),
//! and the marks that make a stored day stale.
//!
//! **Marking.** A day's books are its lines: each purchase (paid or placed upstream) on the
//! day of its payment (or creation, if never paid) with its upstream order and that order's
//! transactions; each upstream order without a purchase and each credit or other transaction
//! on the day of its own time; each top-up the shop confirmed without a credit on the day it
//! was confirmed (see `crate::books::reconcile`). Every write that changes one of those rows
//! raises, in its own transaction, the `version` of every day whose lines the row can be on or
//! can change (a superset: an extra mark only costs one recount of that day):
//! - [`purchase_changed`]: the purchase's days, and those of the upstream orders that name it
//!   (an order not matched before may be now);
//! - [`supplier_orders_changed`]: the order's day, the days of the purchases it names and of
//!   the other orders naming them (which of two orders gets a purchase depends on both), and
//!   the days of the transactions naming it (before, they matched no order);
//! - [`supplier_transactions_changed`]: the transaction's day, the days of the orders it names
//!   and of their purchases, the day of the top-up it credits, and the days of earlier credits
//!   with its reference (a second credit for one top-up is flagged by id order);
//! - [`topup_changed`]: the day the top-up was confirmed and the days of its credits.
//!
//! A row whose time cannot be read is on no day: its line is listed in every period and is
//! never stored (`crate::books::days`).
//!
//! **Storing.** A stored result counts only while `computed_version = version`. The
//! reconciliation reads the day's version ([`version`]) before anything else, and [`store`]
//! writes the result only if the version is still the same: a change committed in between
//! (which the reconciliation may or may not have seen) leaves the day stale.

use std::collections::BTreeSet;

use diesel::prelude::*;

use crate::db::schema::{book_days, purchases, supplier_orders, supplier_transactions, topups};
use crate::db::{DbConn, DbError};
use crate::domain::PurchaseId;
use crate::domain::takings::utc_day_start;

/// A stored day as read: its version, and its summary when that was made at this version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredDay {
    pub day_ms: i64,
    pub version: i64,
    /// The stored summary, when it is current.
    pub summary: Option<String>,
}

/// The days starting in `[from_ms, until_ms)` that have a row, oldest first.
pub fn days_in(conn: &mut DbConn, from_ms: i64, until_ms: i64) -> Result<Vec<StoredDay>, DbError> {
    let rows: Vec<(i64, i64, Option<i64>, Option<String>)> = book_days::table
        .filter(book_days::day_ms.ge(from_ms))
        .filter(book_days::day_ms.lt(until_ms))
        .order(book_days::day_ms.asc())
        .select((
            book_days::day_ms,
            book_days::version,
            book_days::computed_version,
            book_days::summary,
        ))
        .load(conn)?;
    Ok(rows
        .into_iter()
        .map(|(day_ms, version, computed, summary)| StoredDay {
            day_ms,
            version,
            summary: summary.filter(|_| computed == Some(version)),
        })
        .collect())
}

/// The stored newest lines of the day starting at `day_ms`, when they are current.
pub fn newest(conn: &mut DbConn, day_ms: i64) -> Result<Option<String>, DbError> {
    let row: Option<(i64, Option<i64>, Option<String>)> = book_days::table
        .find(day_ms)
        .select((
            book_days::version,
            book_days::computed_version,
            book_days::newest,
        ))
        .first(conn)
        .optional()?;
    Ok(row.and_then(|(version, computed, newest)| newest.filter(|_| computed == Some(version))))
}

/// The version of the day starting at `day_ms` (0 for a day never marked).
pub fn version(conn: &mut DbConn, day_ms: i64) -> Result<i64, DbError> {
    Ok(book_days::table
        .find(day_ms)
        .select(book_days::version)
        .first(conn)
        .optional()?
        .unwrap_or(0))
}

/// Stores the day's result made at `at_version`, unless the day was marked since. Returns
/// whether it was stored.
pub fn store(
    conn: &mut DbConn,
    day_ms: i64,
    at_version: i64,
    summary: &str,
    newest: &str,
) -> Result<bool, DbError> {
    conn.write_tx(|conn| {
        let updated = diesel::update(
            book_days::table
                .filter(book_days::day_ms.eq(day_ms))
                .filter(book_days::version.eq(at_version)),
        )
        .set((
            book_days::computed_version.eq(at_version),
            book_days::summary.eq(summary),
            book_days::newest.eq(newest),
        ))
        .execute(conn)?;
        if updated == 1 || at_version != 0 {
            return Ok(updated == 1);
        }
        // A day never marked has no row yet; one marked meanwhile has, and keeps it.
        let row = (
            book_days::day_ms.eq(day_ms),
            book_days::version.eq(0_i64),
            book_days::computed_version.eq(Some(0_i64)),
            book_days::summary.eq(summary),
            book_days::newest.eq(newest),
        );
        let inserted = crate::with_inner!(&mut *conn, |c| {
            diesel::insert_into(book_days::table)
                .values(row)
                .on_conflict_do_nothing()
                .execute(c)
        })?;
        Ok(inserted == 1)
    })
}

/// Raises the version of each day of `days` (day starts), in ascending order so that two
/// transactions lock shared days in the same order. Call inside the transaction of the write.
pub fn mark(conn: &mut DbConn, days: &BTreeSet<i64>) -> Result<(), DbError> {
    for &day_ms in days {
        crate::with_inner!(&mut *conn, |c| {
            diesel::insert_into(book_days::table)
                .values((book_days::day_ms.eq(day_ms), book_days::version.eq(1_i64)))
                .on_conflict(book_days::day_ms)
                .do_update()
                .set(book_days::version.eq(book_days::version + 1_i64))
                .execute(c)
        })?;
    }
    Ok(())
}

/// The purchase `id`'s money or upstream order changed: marks its days and those of the
/// upstream orders naming it.
pub fn purchase_changed(conn: &mut DbConn, id: &PurchaseId) -> Result<(), DbError> {
    let row: Option<(String, Option<String>, Option<i64>, i64)> = purchases::table
        .find(id)
        .select((
            purchases::reference,
            purchases::upstream_order_id,
            purchases::paid_at_ms,
            purchases::created_at_ms,
        ))
        .first(conn)
        .optional()?;
    let Some((reference, order_id, paid_at, created_at)) = row else {
        return Ok(());
    };
    let mut days = BTreeSet::from([utc_day_start(created_at)]);
    days.extend(paid_at.map(utc_day_start));
    let mut handles = vec![reference];
    handles.extend(order_id);
    orders_days(conn, &handles, &mut days)?;
    mark(conn, &days)
}

/// Copied supplier orders were stored or changed (`rows`: each as it is now and, for a changed
/// one, as it was): marks the days their lines can be on.
pub fn supplier_orders_changed(
    conn: &mut DbConn,
    rows: &[(String, String, Option<i64>)],
) -> Result<(), DbError> {
    let mut days = BTreeSet::new();
    for (id, reference, at) in rows {
        days.extend(at.map(utc_day_start));
        let handles = [id.clone(), reference.clone()];
        for (purchase_reference, purchase_order) in purchases_named(conn, &handles, &mut days)? {
            let mut named = vec![purchase_reference];
            named.extend(purchase_order);
            orders_days(conn, &named, &mut days)?;
        }
        transactions_days(conn, &handles, false, &mut days)?;
    }
    mark(conn, &days)
}

/// Copied supplier transactions were stored (`rows`: reference, kind and time of each): marks
/// the days their lines can be on.
pub fn supplier_transactions_changed(
    conn: &mut DbConn,
    rows: &[(String, String, Option<i64>)],
) -> Result<(), DbError> {
    let mut days = BTreeSet::new();
    for (reference, kind, at) in rows {
        days.extend(at.map(utc_day_start));
        let handles = [reference.clone()];
        let orders: Vec<(String, String, Option<i64>)> = supplier_orders::table
            .filter(
                supplier_orders::id
                    .eq(reference)
                    .or(supplier_orders::reference.eq(reference)),
            )
            .select((
                supplier_orders::id,
                supplier_orders::reference,
                supplier_orders::created_at_ms,
            ))
            .load(conn)?;
        for (id, order_reference, order_at) in orders {
            days.extend(order_at.map(utc_day_start));
            purchases_named(conn, &[id, order_reference], &mut days)?;
        }
        let confirmed: Vec<Option<i64>> = topups::table
            .filter(topups::session_id.eq(reference))
            .select(topups::confirmed_at_ms)
            .load(conn)?;
        days.extend(confirmed.into_iter().flatten().map(utc_day_start));
        if kind == "credit" {
            transactions_days(conn, &handles, true, &mut days)?;
        }
    }
    mark(conn, &days)
}

/// The top-up `id` changed (its checkout session or its confirmation): marks the day it was
/// confirmed and the days of the credits naming its session.
pub fn topup_changed(conn: &mut DbConn, id: i64) -> Result<(), DbError> {
    let row: Option<(Option<String>, Option<i64>)> = topups::table
        .find(id)
        .select((topups::session_id, topups::confirmed_at_ms))
        .first(conn)
        .optional()?;
    let Some((session, confirmed)) = row else {
        return Ok(());
    };
    let mut days: BTreeSet<i64> = confirmed.map(utc_day_start).into_iter().collect();
    if let Some(session) = session {
        transactions_days(conn, &[session], false, &mut days)?;
    }
    mark(conn, &days)
}

/// Adds the days of the copied orders whose id or reference is one of `handles`.
fn orders_days(
    conn: &mut DbConn,
    handles: &[String],
    days: &mut BTreeSet<i64>,
) -> Result<(), DbError> {
    let at: Vec<Option<i64>> = supplier_orders::table
        .filter(
            supplier_orders::id
                .eq_any(handles)
                .or(supplier_orders::reference.eq_any(handles)),
        )
        .select(supplier_orders::created_at_ms)
        .load(conn)?;
    days.extend(at.into_iter().flatten().map(utc_day_start));
    Ok(())
}

/// Adds the days of the purchases an order with id or reference among `handles` names (by
/// reference, or by the order id the shop stored), and returns their reference and order id.
fn purchases_named(
    conn: &mut DbConn,
    handles: &[String],
    days: &mut BTreeSet<i64>,
) -> Result<Vec<(String, Option<String>)>, DbError> {
    let rows: Vec<(String, Option<String>, Option<i64>, i64)> = purchases::table
        .filter(
            purchases::reference
                .eq_any(handles)
                .or(purchases::upstream_order_id.eq_any(handles)),
        )
        .select((
            purchases::reference,
            purchases::upstream_order_id,
            purchases::paid_at_ms,
            purchases::created_at_ms,
        ))
        .load(conn)?;
    Ok(rows
        .into_iter()
        .map(|(reference, order_id, paid_at, created_at)| {
            days.insert(utc_day_start(paid_at.unwrap_or(created_at)));
            (reference, order_id)
        })
        .collect())
}

/// Adds the days of the copied transactions whose reference is one of `handles` (only the
/// credits with `credits_only`).
fn transactions_days(
    conn: &mut DbConn,
    handles: &[String],
    credits_only: bool,
    days: &mut BTreeSet<i64>,
) -> Result<(), DbError> {
    let mut query = supplier_transactions::table
        .filter(supplier_transactions::reference.eq_any(handles))
        .select(supplier_transactions::created_at_ms)
        .into_boxed();
    if credits_only {
        query = query.filter(supplier_transactions::kind.eq("credit"));
    }
    let at: Vec<Option<i64>> = query.load(conn)?;
    days.extend(at.into_iter().flatten().map(utc_day_start));
    Ok(())
}

/// Whether the copy holds an order or transaction whose time cannot be read: its line is on
/// no day, so every period lists it.
pub fn has_undated(conn: &mut DbConn) -> Result<bool, DbError> {
    let order: Option<String> = supplier_orders::table
        .filter(supplier_orders::created_at_ms.is_null())
        .select(supplier_orders::id)
        .first(conn)
        .optional()?;
    if order.is_some() {
        return Ok(true);
    }
    let transaction: Option<i64> = supplier_transactions::table
        .filter(supplier_transactions::created_at_ms.is_null())
        .select(supplier_transactions::id)
        .first(conn)
        .optional()?;
    Ok(transaction.is_some())
}

/// The first and the last day the books have anything on (day starts): the earliest and the
/// latest payment, copied order or transaction, or confirmed top-up. No line is on a day
/// outside them. `None` for a shop with none.
pub fn active_days(conn: &mut DbConn) -> Result<Option<(i64, i64)>, DbError> {
    use diesel::dsl::{max, min};
    // One aggregate per query: SQLite reads a minimum or a maximum from the index's end only
    // when it is the query's sole aggregate.
    let times: [Option<i64>; 8] = [
        // `IS NOT NULL` lets SQLite take the partial `purchases_paid_at`, which starts with
        // the payment time; without it, it walks another index holding the column.
        purchases::table
            .filter(purchases::paid_at_ms.is_not_null())
            .select(min(purchases::paid_at_ms))
            .first(conn)?,
        purchases::table
            .filter(purchases::paid_at_ms.is_not_null())
            .select(max(purchases::paid_at_ms))
            .first(conn)?,
        supplier_orders::table
            .select(min(supplier_orders::created_at_ms))
            .first(conn)?,
        supplier_orders::table
            .select(max(supplier_orders::created_at_ms))
            .first(conn)?,
        supplier_transactions::table
            .select(min(supplier_transactions::created_at_ms))
            .first(conn)?,
        supplier_transactions::table
            .select(max(supplier_transactions::created_at_ms))
            .first(conn)?,
        topups::table
            .select(min(topups::confirmed_at_ms))
            .first(conn)?,
        topups::table
            .select(max(topups::confirmed_at_ms))
            .first(conn)?,
    ];
    let first = times.iter().step_by(2).flatten().min();
    let last = times.iter().skip(1).step_by(2).flatten().max();
    Ok(first
        .zip(last)
        .map(|(first, last)| (utc_day_start(*first), utc_day_start(*last))))
}

/// The days in `[from_ms, until_ms)` whose stored result is missing or stale, oldest first.
pub fn stale_days(conn: &mut DbConn, from_ms: i64, until_ms: i64) -> Result<Vec<i64>, DbError> {
    let fresh: BTreeSet<i64> = book_days::table
        .filter(book_days::day_ms.ge(from_ms))
        .filter(book_days::day_ms.lt(until_ms))
        .filter(book_days::computed_version.eq(book_days::version.nullable()))
        .select(book_days::day_ms)
        .load::<i64>(conn)?
        .into_iter()
        .collect();
    let mut out = Vec::new();
    let mut day = utc_day_start(from_ms);
    while day < until_ms {
        if !fresh.contains(&day) {
            out.push(day);
        }
        day = day.saturating_add(crate::domain::takings::DAY_MS);
    }
    Ok(out)
}
