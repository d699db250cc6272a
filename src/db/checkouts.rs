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

/// A checkout's departure day and the day a trip reminder last went out for (`YYYY-MM-DD`).
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = checkouts)]
pub struct TripRow {
    pub trip_date: Option<String>,
    pub trip_reminded_for: Option<String>,
}

/// The trip columns of checkout `id`; `None` for an unknown checkout.
pub fn trip(conn: &mut DbConn, id: &PurchaseId) -> Result<Option<TripRow>, DbError> {
    Ok(checkouts::table
        .find(id)
        .select(TripRow::as_select())
        .first(conn)
        .optional()?)
}

/// Sets (or, with `None`, clears) checkout `id`'s departure day; returns whether a row changed.
pub fn set_trip_date(
    conn: &mut DbConn,
    id: &PurchaseId,
    date: Option<&str>,
) -> Result<bool, DbError> {
    let changed = diesel::update(checkouts::table.find(id))
        .set(checkouts::trip_date.eq(date))
        .execute(conn)?;
    Ok(changed > 0)
}

/// Records that the reminder for departure day `date` went out for checkout `id`.
pub fn mark_trip_reminded(conn: &mut DbConn, id: &PurchaseId, date: &str) -> Result<(), DbError> {
    diesel::update(checkouts::table.find(id))
        .set(checkouts::trip_reminded_for.eq(Some(date)))
        .execute(conn)?;
    Ok(())
}

/// Records the tax mode checkout `id` was started under (`None`: no tax) and the country of
/// the client's address when a trusted proxy named it, in the caller's transaction.
pub fn set_tax_mode(
    conn: &mut DbConn,
    id: &PurchaseId,
    mode: Option<&str>,
    client_country: Option<&str>,
) -> Result<(), DbError> {
    diesel::update(checkouts::table.find(id))
        .set((
            checkouts::tax_mode.eq(mode),
            checkouts::client_country.eq(client_country),
        ))
        .execute(conn)?;
    Ok(())
}

/// The tax mode checkout `id` was started under; `None` when it had none (or is unknown).
pub fn tax_mode(conn: &mut DbConn, id: &PurchaseId) -> Result<Option<String>, DbError> {
    Ok(checkouts::table
        .find(id)
        .select(checkouts::tax_mode)
        .first::<Option<String>>(conn)
        .optional()?
        .flatten())
}

/// The tax mode checkout `id` was started under and the country of its client's address
/// (each `None` when unknown).
pub fn tax_evidence(
    conn: &mut DbConn,
    id: &PurchaseId,
) -> Result<(Option<String>, Option<String>), DbError> {
    Ok(checkouts::table
        .find(id)
        .select((checkouts::tax_mode, checkouts::client_country))
        .first::<(Option<String>, Option<String>)>(conn)
        .optional()?
        .unwrap_or_default())
}
