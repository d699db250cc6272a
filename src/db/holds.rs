//! Wallet credit held by unpaid checkouts (`checkout_holds`), with the client and email each
//! was made from. A hold counts while `expires_at_ms` is in the future and its purchase still
//! awaits payment; the caps on what one client may hold are the checkout's rules
//! (`orders::checkout`), counted here.

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text};

use crate::db::schema::checkout_holds;
use crate::db::{DbConn, DbError};
use crate::domain::purchase::PurchaseId;

#[derive(Debug, Clone, PartialEq, Eq, Insertable)]
#[diesel(table_name = checkout_holds)]
pub struct NewHold {
    pub purchase_id: PurchaseId,
    pub client_key: String,
    pub email_key: String,
    pub cost_cents: i64,
    pub created_at_ms: i64,
    pub expires_at_ms: i64,
}

pub fn insert(conn: &mut DbConn, hold: &NewHold) -> Result<(), DbError> {
    diesel::insert_into(checkout_holds::table)
        .values(hold)
        .execute(conn)?;
    Ok(())
}

#[derive(QueryableByName)]
struct Sum {
    #[diesel(sql_type = BigInt)]
    total: i64,
}

/// The upstream cost held by unpaid checkouts at `now_ms`.
pub fn held_cents(conn: &mut DbConn, now_ms: i64) -> Result<i64, DbError> {
    let rows: Vec<Sum> = diesel::sql_query(
        "SELECT CAST(COALESCE(SUM(h.cost_cents), 0) AS BIGINT) AS total \
         FROM checkout_holds h JOIN purchases p ON p.id = h.purchase_id \
         WHERE h.expires_at_ms > $1 AND p.status = 'awaiting_payment'",
    )
    .bind::<BigInt, _>(now_ms)
    .load(conn)?;
    Ok(rows.first().map_or(0, |r| r.total))
}

#[derive(QueryableByName)]
struct HoldId {
    #[diesel(sql_type = Text)]
    purchase_id: String,
}

/// Which holds are counted by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeldBy {
    Client,
    Email,
}

/// The purchases whose holds count at `now_ms` for one client or one email, newest first.
pub fn active(
    conn: &mut DbConn,
    by: HeldBy,
    key: &str,
    now_ms: i64,
) -> Result<Vec<String>, DbError> {
    let column = match by {
        HeldBy::Client => "client_key",
        HeldBy::Email => "email_key",
    };
    let rows: Vec<HoldId> = diesel::sql_query(format!(
        "SELECT h.purchase_id AS purchase_id \
         FROM checkout_holds h JOIN purchases p ON p.id = h.purchase_id \
         WHERE h.{column} = $1 AND h.expires_at_ms > $2 AND p.status = 'awaiting_payment' \
         ORDER BY h.created_at_ms DESC, h.purchase_id DESC"
    ))
    .bind::<Text, _>(key)
    .bind::<BigInt, _>(now_ms)
    .load(conn)?;
    Ok(rows.into_iter().map(|r| r.purchase_id).collect())
}

/// Ends these holds now: their purchases stay payable but no longer hold credit.
pub fn end(conn: &mut DbConn, purchase_ids: &[String], now_ms: i64) -> Result<usize, DbError> {
    if purchase_ids.is_empty() {
        return Ok(0);
    }
    Ok(diesel::update(
        checkout_holds::table
            .filter(checkout_holds::purchase_id.eq_any(purchase_ids))
            .filter(checkout_holds::expires_at_ms.gt(now_ms)),
    )
    .set(checkout_holds::expires_at_ms.eq(now_ms))
    .execute(conn)?)
}

/// The hold of one purchase: `(client_key, email_key, cost_cents, expires_at_ms)`.
pub fn find(
    conn: &mut DbConn,
    purchase_id: &PurchaseId,
) -> Result<Option<(String, String, i64, i64)>, DbError> {
    Ok(checkout_holds::table
        .find(purchase_id)
        .select((
            checkout_holds::client_key,
            checkout_holds::email_key,
            checkout_holds::cost_cents,
            checkout_holds::expires_at_ms,
        ))
        .first(conn)
        .optional()?)
}
