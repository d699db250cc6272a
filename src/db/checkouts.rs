//! Checkouts: what a buyer paid for at once, one payment for 1–N units. Each unit is a
//! `purchases` row naming its checkout (`purchases::checkout_id`); the checkout's id is its
//! first unit's id, and it keeps the hash of the buyer's checkout token.

use diesel::prelude::*;

use crate::db::schema::checkouts;
use crate::db::{DbConn, DbError};
use crate::domain::purchase::PurchaseId;

#[derive(Debug, Clone, Insertable)]
#[diesel(table_name = checkouts)]
pub struct NewCheckout {
    pub id: PurchaseId,
    pub access_token_hash: String,
    pub unit_count: i32,
    pub created_at_ms: i64,
}

/// Records a checkout, in the caller's transaction (the one that inserts its units).
pub fn insert(conn: &mut DbConn, new: &NewCheckout) -> Result<(), DbError> {
    diesel::insert_into(checkouts::table)
        .values(new)
        .execute(conn)?;
    Ok(())
}
