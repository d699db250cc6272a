//! Encrypted installation rows (`orders::installation` says how they are sealed), and what key
//! rotation needs to re-seal them.

use diesel::prelude::*;

use crate::db::schema::installations;
use crate::db::{DbBackend, DbConn, DbError};
use crate::domain::purchase::PurchaseId;

/// An encrypted installation row; see `orders::installation` for the format.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = installations)]
pub struct InstallationRow {
    pub purchase_id: PurchaseId,
    pub esim_id: String,
    pub key_id: String,
    pub nonce: String,
    pub ciphertext: String,
    pub iccid_last4: String,
    pub created_at_ms: i64,
}

/// Stores an installation once; a second store for the same purchase changes nothing.
pub fn insert_installation(conn: &mut DbConn, row: &InstallationRow) -> Result<bool, DbError> {
    let inserted = crate::with_inner!(&mut *conn, |c| {
        diesel::insert_into(installations::table)
            .values(row)
            .on_conflict(installations::purchase_id)
            .do_nothing()
            .execute(c)
    })?;
    Ok(inserted == 1)
}

pub fn installation(
    conn: &mut DbConn,
    purchase_id: &PurchaseId,
) -> Result<Option<InstallationRow>, DbError> {
    Ok(installations::table
        .find(purchase_id)
        .select(InstallationRow::as_select())
        .first(conn)
        .optional()?)
}

/// Rows encrypted under `key_id`, a page at a time in purchase id order, after the purchase
/// id `after` (for key rotation).
pub fn installations_under_key(
    conn: &mut DbConn,
    key_id: &str,
    after: &str,
    limit: i64,
) -> Result<Vec<InstallationRow>, DbError> {
    Ok(installations::table
        .filter(installations::key_id.eq(key_id))
        .filter(installations::purchase_id.gt(after))
        .order(installations::purchase_id)
        .limit(limit)
        .select(InstallationRow::as_select())
        .load(conn)?)
}

/// How many installations each key id seals, by key id.
pub fn installations_per_key(conn: &mut DbConn) -> Result<Vec<(String, i64)>, DbError> {
    Ok(installations::table
        .group_by(installations::key_id)
        .select((installations::key_id, diesel::dsl::count_star()))
        .order(installations::key_id)
        .load(conn)?)
}

/// Replaces a row's encryption, only if it is still under `old_key_id`.
pub fn reencrypt_installation(
    conn: &mut DbConn,
    purchase_id: &PurchaseId,
    old_key_id: &str,
    new_key_id: &str,
    nonce: &str,
    ciphertext: &str,
) -> Result<bool, DbError> {
    let changed = diesel::update(
        installations::table
            .filter(installations::purchase_id.eq(purchase_id))
            .filter(installations::key_id.eq(old_key_id)),
    )
    .set((
        installations::key_id.eq(new_key_id),
        installations::nonce.eq(nonce),
        installations::ciphertext.eq(ciphertext),
    ))
    .execute(conn)?;
    Ok(changed == 1)
}

/// The last four digits of the purchase's ICCID, once installed.
pub fn iccid_last4(conn: &mut DbConn, purchase_id: &PurchaseId) -> Result<Option<String>, DbError> {
    Ok(iccid_last4_query(purchase_id).first(conn).optional()?)
}

/// [`iccid_last4`]'s query (its plan is checked by a test).
pub fn iccid_last4_query(
    purchase_id: &PurchaseId,
) -> installations::BoxedQuery<'static, DbBackend, diesel::sql_types::Text> {
    installations::table
        .filter(installations::purchase_id.eq(purchase_id.clone()))
        .select(installations::iccid_last4)
        .into_boxed()
}
