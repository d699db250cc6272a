//! Money per UTC day of payment: how many purchases were paid, what they charged, what was
//! refunded of them, the tax kept on them and what their upstream orders cost the wallet (the
//! parts of [`Takings`], whose margin is the one the console shows). A purchase's refund, tax
//! and supplier cost count on the day it was paid, as in the books.
//!
//! The `daily_sales` table holds one row per day with sales, so the dashboard and the books
//! read a few rows, never the purchases. Every write that changes a paid purchase's money
//! (payment, upstream order placed, upstream status, refund created or settled) calls
//! [`refresh_for`] in its own transaction: the purchase's day is counted again from its
//! purchases (by the `paid_at_ms` index) and written, with the day's row locked first, so
//! on PostgreSQL two transactions changing the same day count one after the other. A database
//! whose table is empty while purchases were paid (one upgraded from before the table, or
//! grown by `scripts/scale_db.py`) is filled at start by [`rebuild_if_empty`].

use std::collections::HashMap;

use diesel::prelude::*;

use crate::db::schema::{daily_sales, purchases};
use crate::db::{DbConn, DbError, books, tax};
use crate::domain::takings::{DAY_MS, Takings, utc_day_start};
use crate::domain::{Cents, PurchaseId};

/// One UTC day's sales.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DaySales {
    /// Unix milliseconds at the start of the day.
    pub day_ms: i64,
    /// Purchases paid that day.
    pub orders: i64,
    pub takings: Takings,
}

/// A paid purchase's own money: id, price, cost, whether it was placed upstream, and the
/// upstream status.
type PaidRow = (PurchaseId, i64, i64, bool, Option<String>);

/// The day starting at `day_ms` counted from its purchases (those paid that day, by the
/// `paid_at_ms` index) and their refunds and taxes.
///
/// Three reads, each by an index, not one join: a day holds about a thousand purchases of an
/// old shop, and for that many PostgreSQL's planner hashes the whole `refunds` table (tens of
/// thousands of rows, read on every money write) rather than look each one up.
pub fn recount(conn: &mut DbConn, day_ms: i64) -> Result<DaySales, DbError> {
    let paid: Vec<PaidRow> = purchases::table
        .filter(purchases::paid_at_ms.ge(day_ms))
        .filter(purchases::paid_at_ms.lt(day_ms.saturating_add(DAY_MS)))
        .select((
            purchases::id,
            purchases::price_cents,
            purchases::cost_cents,
            purchases::upstream_order_id.is_not_null(),
            purchases::upstream_status,
        ))
        .load(conn)?;
    let ids: Vec<PurchaseId> = paid.iter().map(|row| row.0.clone()).collect();
    let mut refunded = HashMap::new();
    for chunk in ids.chunks(500) {
        refunded.extend(books::refunded(conn, Some(chunk))?);
    }
    let taxes = tax::unit_taxes_of(conn, &ids)?;
    let mut day = DaySales {
        day_ms,
        ..DaySales::default()
    };
    for (id, price, cost, placed, upstream_status) in paid {
        let tax = taxes.get(&id).copied().unwrap_or_default();
        day.orders += 1;
        day.takings = day.takings.plus(Takings::of_purchase(
            true,
            Cents::new(price.saturating_add(tax.added.get())),
            tax.tax,
            Cents::new(refunded.get(&id).copied().unwrap_or(0)),
            placed,
            upstream_status.as_deref(),
            Cents::new(cost),
        ));
    }
    Ok(day)
}

/// The stored `n` days from the one starting at `first_day_ms`, oldest first, every day
/// present (a day without sales has zeros).
pub fn days(conn: &mut DbConn, first_day_ms: i64, n: i64) -> Result<Vec<DaySales>, DbError> {
    let n = n.max(0);
    let end = first_day_ms.saturating_add(n.saturating_mul(DAY_MS));
    let stored: Vec<(i64, i64, i64, i64, i64, i64)> = daily_sales::table
        .filter(daily_sales::day_ms.ge(first_day_ms))
        .filter(daily_sales::day_ms.lt(end))
        .select((
            daily_sales::day_ms,
            daily_sales::orders,
            daily_sales::paid_cents,
            daily_sales::refunded_cents,
            daily_sales::supplier_cost_cents,
            daily_sales::tax_cents,
        ))
        .load(conn)?;
    let mut out: Vec<DaySales> = (0..n)
        .map(|i| DaySales {
            day_ms: first_day_ms.saturating_add(i.saturating_mul(DAY_MS)),
            ..DaySales::default()
        })
        .collect();
    for (day_ms, orders, paid, refunded, cost, tax) in stored {
        if let Some(day) = usize::try_from((day_ms - first_day_ms).div_euclid(DAY_MS))
            .ok()
            .and_then(|i| out.get_mut(i))
        {
            day.orders = orders;
            day.takings = Takings {
                paid: Cents::new(paid),
                refunded: Cents::new(refunded),
                tax: Cents::new(tax),
                supplier_cost: Cents::new(cost),
            };
        }
    }
    Ok(out)
}

/// Counts the day starting at `day_ms` again and stores it, in the caller's transaction. The
/// day's row is written (locked) before its purchases are read, so a concurrent change of the
/// same day waits and then counts with this one's change committed.
pub fn refresh(conn: &mut DbConn, day_ms: i64) -> Result<DaySales, DbError> {
    crate::with_inner!(&mut *conn, |c| {
        diesel::insert_into(daily_sales::table)
            .values(daily_sales::day_ms.eq(day_ms))
            .on_conflict(daily_sales::day_ms)
            .do_update()
            .set(daily_sales::orders.eq(daily_sales::orders))
            .execute(c)
    })?;
    let day = recount(conn, day_ms)?;
    if day.orders == 0 {
        diesel::delete(daily_sales::table.find(day_ms)).execute(conn)?;
    } else {
        diesel::update(daily_sales::table.find(day_ms))
            .set((
                daily_sales::orders.eq(day.orders),
                daily_sales::paid_cents.eq(day.takings.paid.get()),
                daily_sales::refunded_cents.eq(day.takings.refunded.get()),
                daily_sales::supplier_cost_cents.eq(day.takings.supplier_cost.get()),
                daily_sales::tax_cents.eq(day.takings.tax.get()),
            ))
            .execute(conn)?;
    }
    Ok(day)
}

/// After a change to the money of `purchase_id`: its day of payment is counted again (nothing
/// for a purchase not paid).
pub fn refresh_for(conn: &mut DbConn, purchase_id: &PurchaseId) -> Result<(), DbError> {
    let paid_at: Option<Option<i64>> = purchases::table
        .find(purchase_id)
        .select(purchases::paid_at_ms)
        .first(conn)
        .optional()?;
    if let Some(Some(at)) = paid_at {
        refresh(conn, utc_day_start(at))?;
    }
    Ok(())
}

/// Fills an empty table from the purchases, a day at a time, in one transaction; nothing
/// when the table has a row or no purchase was ever paid. Returns the days written.
pub fn rebuild_if_empty(conn: &mut DbConn) -> Result<usize, DbError> {
    conn.transaction(|conn| {
        let filled: Option<i64> = daily_sales::table
            .select(daily_sales::day_ms)
            .first(conn)
            .optional()?;
        if filled.is_some() {
            return Ok(0);
        }
        let first: Option<i64> = purchases::table
            .filter(purchases::paid_at_ms.is_not_null())
            .select(diesel::dsl::min(purchases::paid_at_ms))
            .first(conn)?;
        let last: Option<i64> = purchases::table
            .filter(purchases::paid_at_ms.is_not_null())
            .select(diesel::dsl::max(purchases::paid_at_ms))
            .first(conn)?;
        let (Some(first), Some(last)) = (first, last) else {
            return Ok(0);
        };
        let mut written = 0;
        let mut day = utc_day_start(first);
        while day <= last {
            if refresh(conn, day)?.orders > 0 {
                written += 1;
            }
            day = day.saturating_add(DAY_MS);
        }
        Ok(written)
    })
}

/// Sales of several days added up: orders paid and their money.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Sales {
    pub orders: i64,
    pub takings: Takings,
}

/// Days added up.
pub fn total<'a>(days: impl IntoIterator<Item = &'a DaySales>) -> Sales {
    days.into_iter().fold(Sales::default(), |sum, d| Sales {
        orders: sum.orders.saturating_add(d.orders),
        takings: sum.takings.plus(d.takings),
    })
}
