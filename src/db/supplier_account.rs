//! The supplier account as `GET /account` last reported it: one row shared by every replica,
//! tagged with a fingerprint of the key that read it.

use diesel::prelude::*;

use crate::db::schema::supplier_account;
use crate::db::{DbConn, DbError};

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = supplier_account)]
pub struct AccountRow {
    pub id: i64,
    pub key_fingerprint: String,
    pub account_id: String,
    pub name: String,
    pub email: String,
    pub environment: String,
    /// Space-separated.
    pub scopes: String,
    /// Verbatim from upstream.
    pub key_expires_at: String,
    /// `None`: the value could not be read as a time.
    pub key_expires_at_ms: Option<i64>,
    pub webhook_enabled: bool,
    pub checked_at_ms: i64,
    pub attempted_at_ms: i64,
    /// Why the latest attempt failed; `None` when it succeeded.
    pub last_error: Option<String>,
}

/// The stored account, whichever key read it.
pub fn get(conn: &mut DbConn) -> Result<Option<AccountRow>, DbError> {
    Ok(supplier_account::table
        .find(1_i64)
        .select(AccountRow::as_select())
        .first(conn)
        .optional()?)
}

/// Stores a successful read, replacing whatever was there (also a row of another key).
pub fn store(conn: &mut DbConn, row: &AccountRow) -> Result<(), DbError> {
    let row = AccountRow {
        id: 1,
        last_error: None,
        ..row.clone()
    };
    crate::with_inner!(&mut *conn, |c| {
        diesel::insert_into(supplier_account::table)
            .values(&row)
            .on_conflict(supplier_account::id)
            .do_update()
            .set(&row)
            .execute(c)
    })?;
    Ok(())
}

/// Records a failed attempt on the row of the same key; a row of another key, or none, is left
/// alone (there is nothing about this key to keep). Returns whether a row was updated.
pub fn record_failure(
    conn: &mut DbConn,
    key_fingerprint: &str,
    error: &str,
    now_ms: i64,
) -> Result<bool, DbError> {
    let changed = diesel::update(
        supplier_account::table
            .find(1_i64)
            .filter(supplier_account::key_fingerprint.eq(key_fingerprint)),
    )
    .set((
        supplier_account::attempted_at_ms.eq(now_ms),
        supplier_account::last_error.eq(Some(error)),
    ))
    .execute(conn)?;
    Ok(changed == 1)
}
