//! The owner's display-only exchange rates (`display_rates`). A change raises the pricing
//! version in the same transaction, so every replica rebuilds its catalog snapshot (and with
//! it the cached pages that show converted prices).

use diesel::prelude::*;

use crate::db::schema::display_rates;
use crate::db::{DbConn, DbError};

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = display_rates)]
pub struct RateRow {
    pub currency: String,
    pub micros_per_usd: i64,
    pub rate_date: String,
    pub updated_at_ms: i64,
}

pub fn list(conn: &mut DbConn) -> Result<Vec<RateRow>, DbError> {
    Ok(display_rates::table
        .select(RateRow::as_select())
        .order(display_rates::currency)
        .load(conn)?)
}

pub fn find(conn: &mut DbConn, currency: &str) -> Result<Option<RateRow>, DbError> {
    Ok(display_rates::table
        .find(currency)
        .select(RateRow::as_select())
        .first(conn)
        .optional()?)
}

/// Sets the rate of `currency`, in the caller's transaction.
pub fn set(
    conn: &mut DbConn,
    currency: &str,
    micros_per_usd: i64,
    rate_date: &str,
    now_ms: i64,
) -> Result<(), DbError> {
    crate::with_inner!(&mut *conn, |c| {
        diesel::insert_into(display_rates::table)
            .values((
                display_rates::currency.eq(currency),
                display_rates::micros_per_usd.eq(micros_per_usd),
                display_rates::rate_date.eq(rate_date),
                display_rates::updated_at_ms.eq(now_ms),
            ))
            .on_conflict(display_rates::currency)
            .do_update()
            .set((
                display_rates::micros_per_usd.eq(micros_per_usd),
                display_rates::rate_date.eq(rate_date),
                display_rates::updated_at_ms.eq(now_ms),
            ))
            .execute(c)
    })?;
    crate::db::pricing::bump_version(conn, now_ms)
}

/// Clears the rate of `currency`; false when there was none.
pub fn clear(conn: &mut DbConn, currency: &str, now_ms: i64) -> Result<bool, DbError> {
    let deleted = diesel::delete(display_rates::table.find(currency)).execute(conn)?;
    if deleted == 1 {
        crate::db::pricing::bump_version(conn, now_ms)?;
    }
    Ok(deleted == 1)
}
