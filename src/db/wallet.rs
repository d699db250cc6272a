//! The last known upstream wallet, one row shared by every replica, and the credit that
//! purchases not yet placed upstream already count on.

use diesel::prelude::*;
use diesel::sql_types::BigInt;

use crate::db::schema::wallet;
use crate::db::{DbConn, DbError};

#[derive(Debug, Clone, PartialEq, Eq, Queryable)]
pub struct WalletRow {
    pub id: i64,
    pub available_cents: i64,
    pub reserved_cents: i64,
    pub low_balance: bool,
    pub sales_paused: bool,
    pub refreshed_at_ms: i64,
}

pub fn get(conn: &mut DbConn) -> Result<Option<WalletRow>, DbError> {
    Ok(wallet::table.find(1_i64).first(conn).optional()?)
}

/// Stores a fresh `GET /balance`. Keeps `sales_paused`: only a top-up (more credit than
/// before) or an admin resumes sales.
pub fn store(
    conn: &mut DbConn,
    available_cents: i64,
    reserved_cents: i64,
    low_balance: bool,
    now_ms: i64,
) -> Result<(), DbError> {
    conn.write_tx(|conn| {
        let previous = get(conn)?;
        let sales_paused = previous
            .as_ref()
            .is_some_and(|w| w.sales_paused && available_cents <= w.available_cents);
        if previous.is_some() {
            diesel::update(wallet::table.find(1_i64))
                .set((
                    wallet::available_cents.eq(available_cents),
                    wallet::reserved_cents.eq(reserved_cents),
                    wallet::low_balance.eq(low_balance),
                    wallet::sales_paused.eq(sales_paused),
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
                        wallet::sales_paused.eq(false),
                        wallet::refreshed_at_ms.eq(now_ms),
                    ))
                    .on_conflict_do_nothing()
                    .execute(c)
            })?;
        }
        Ok(())
    })
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
/// checkout counts the unpaid part only up to its cap ([`crate::orders::checkout`]).
pub fn committed_cents(conn: &mut DbConn, now_ms: i64) -> Result<i64, DbError> {
    Ok(paid_unplaced_cents(conn)? + crate::db::holds::held_cents(conn, now_ms)?)
}

/// Upstream cost of paid purchases whose upstream order is not placed yet: credit the wallet
/// must keep for them whatever else happens.
pub fn paid_unplaced_cents(conn: &mut DbConn) -> Result<i64, DbError> {
    let rows: Vec<Sum> = diesel::sql_query(
        "SELECT CAST(COALESCE(SUM(cost_cents), 0) AS BIGINT) AS total FROM purchases \
         WHERE upstream_order_id IS NULL AND status = 'paid'",
    )
    .load(conn)?;
    Ok(rows.first().map_or(0, |r| r.total))
}

/// Pauses or resumes new sales. Without a wallet row yet, one is created with zero balances
/// and `refreshed_at_ms = 0` (never refreshed, so the next checkout re-reads it).
pub fn set_sales_paused(conn: &mut DbConn, paused: bool) -> Result<(), DbError> {
    crate::with_inner!(&mut *conn, |c| {
        diesel::insert_into(wallet::table)
            .values((
                wallet::id.eq(1_i64),
                wallet::available_cents.eq(0_i64),
                wallet::reserved_cents.eq(0_i64),
                wallet::low_balance.eq(true),
                wallet::sales_paused.eq(paused),
                wallet::refreshed_at_ms.eq(0_i64),
            ))
            .on_conflict(wallet::id)
            .do_update()
            .set(wallet::sales_paused.eq(paused))
            .execute(c)
    })?;
    Ok(())
}
