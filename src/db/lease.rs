//! Named leases in the database: at most one holder at a time, until the lease expires.
//!
//! Taking a lease is one conditional `UPDATE` (the row is created first if missing). On
//! PostgreSQL a second replica racing for the same expired lease re-checks the condition after
//! the first one's update and changes nothing; on SQLite the write lock serialises them.

use diesel::prelude::*;

use crate::db::schema::leases;
use crate::db::{DbConn, DbError};

/// Takes `name` for `holder` until `now_ms + ttl_ms` if it is free, expired or already held by
/// `holder`. Returns whether `holder` now holds it.
pub fn try_acquire(
    conn: &mut DbConn,
    name: &str,
    holder: &str,
    now_ms: i64,
    ttl_ms: i64,
) -> Result<bool, DbError> {
    conn.write_tx(|conn| {
        crate::with_inner!(&mut *conn, |c| {
            diesel::insert_into(leases::table)
                .values((
                    leases::name.eq(name),
                    leases::holder.eq(""),
                    leases::expires_at_ms.eq(0_i64),
                ))
                .on_conflict(leases::name)
                .do_nothing()
                .execute(c)
        })?;
        let taken = diesel::update(
            leases::table.filter(leases::name.eq(name)).filter(
                leases::expires_at_ms
                    .le(now_ms)
                    .or(leases::holder.eq(holder)),
            ),
        )
        .set((
            leases::holder.eq(holder),
            leases::expires_at_ms.eq(now_ms.saturating_add(ttl_ms)),
        ))
        .execute(conn)?;
        Ok(taken == 1)
    })
}

/// Gives `name` back early, if `holder` still holds it.
pub fn release(conn: &mut DbConn, name: &str, holder: &str) -> Result<(), DbError> {
    conn.write_tx(|conn| {
        diesel::update(
            leases::table
                .filter(leases::name.eq(name))
                .filter(leases::holder.eq(holder)),
        )
        .set(leases::expires_at_ms.eq(0_i64))
        .execute(conn)?;
        Ok(())
    })
}
