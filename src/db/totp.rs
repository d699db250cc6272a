//! Console accounts' second factor: the sealed TOTP secret (`admin_totp`, one row per account)
//! and the hashed recovery codes (`admin_recovery_codes`). Nothing here sees a secret in clear.
//! Accepting a code or using a recovery code is one conditional `UPDATE`, so two requests (or
//! replicas) with the same code cannot both succeed.

use diesel::prelude::*;

use crate::db::schema::{admin_recovery_codes, admin_totp};
use crate::db::{DbConn, DbError};

/// A stored secret: ciphertext and the public id of the key that sealed it.
#[derive(Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = admin_totp)]
pub struct TotpRow {
    pub user_id: i64,
    pub key_id: String,
    pub nonce: String,
    pub ciphertext: String,
    pub created_at_ms: i64,
    /// `None` while enrolment waits for its first code.
    pub confirmed_at_ms: Option<i64>,
    /// The newest time step accepted.
    pub last_step: Option<i64>,
}

impl std::fmt::Debug for TotpRow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TotpRow")
            .field("user_id", &self.user_id)
            .field("key_id", &self.key_id)
            .field("confirmed_at_ms", &self.confirmed_at_ms)
            .finish_non_exhaustive()
    }
}

pub fn find(conn: &mut DbConn, user_id: i64) -> Result<Option<TotpRow>, DbError> {
    Ok(admin_totp::table
        .find(user_id)
        .select(TotpRow::as_select())
        .first(conn)
        .optional()?)
}

/// Stores a new unconfirmed secret for the account, replacing an unconfirmed one; a confirmed
/// secret is left alone (returns false).
pub fn start_enrolment(
    conn: &mut DbConn,
    user_id: i64,
    key_id: &str,
    nonce: &str,
    ciphertext: &str,
    now_ms: i64,
) -> Result<bool, DbError> {
    diesel::delete(
        admin_totp::table
            .filter(admin_totp::user_id.eq(user_id))
            .filter(admin_totp::confirmed_at_ms.is_null()),
    )
    .execute(conn)?;
    if find(conn, user_id)?.is_some() {
        return Ok(false);
    }
    diesel::insert_into(admin_totp::table)
        .values((
            admin_totp::user_id.eq(user_id),
            admin_totp::key_id.eq(key_id),
            admin_totp::nonce.eq(nonce),
            admin_totp::ciphertext.eq(ciphertext),
            admin_totp::created_at_ms.eq(now_ms),
        ))
        .execute(conn)?;
    Ok(true)
}

/// Every stored secret sealed under a key other than `key_id`.
pub fn not_under_key(conn: &mut DbConn, key_id: &str) -> Result<Vec<TotpRow>, DbError> {
    Ok(admin_totp::table
        .filter(admin_totp::key_id.ne(key_id))
        .select(TotpRow::as_select())
        .load(conn)?)
}

/// Replaces the sealed secret (re-sealed under another key), keeping everything else.
pub fn reseal(
    conn: &mut DbConn,
    user_id: i64,
    key_id: &str,
    nonce: &str,
    ciphertext: &str,
) -> Result<(), DbError> {
    diesel::update(admin_totp::table.find(user_id))
        .set((
            admin_totp::key_id.eq(key_id),
            admin_totp::nonce.eq(nonce),
            admin_totp::ciphertext.eq(ciphertext),
        ))
        .execute(conn)?;
    Ok(())
}

/// Accepts time step `step` for the account if no step as new or newer was accepted before;
/// with `confirm`, also marks a pending enrolment confirmed. Returns whether it was accepted.
pub fn accept_step(
    conn: &mut DbConn,
    user_id: i64,
    step: i64,
    confirm: bool,
    now_ms: i64,
) -> Result<bool, DbError> {
    let fresh = admin_totp::table
        .filter(admin_totp::user_id.eq(user_id))
        .filter(
            admin_totp::last_step
                .is_null()
                .or(admin_totp::last_step.lt(step)),
        );
    let changed = if confirm {
        diesel::update(fresh.filter(admin_totp::confirmed_at_ms.is_null()))
            .set((
                admin_totp::last_step.eq(step),
                admin_totp::confirmed_at_ms.eq(now_ms),
            ))
            .execute(conn)?
    } else {
        diesel::update(fresh.filter(admin_totp::confirmed_at_ms.is_not_null()))
            .set(admin_totp::last_step.eq(step))
            .execute(conn)?
    };
    Ok(changed == 1)
}

/// Removes the account's secret and recovery codes; returns whether it had a secret.
pub fn remove(conn: &mut DbConn, user_id: i64) -> Result<bool, DbError> {
    diesel::delete(admin_recovery_codes::table.filter(admin_recovery_codes::user_id.eq(user_id)))
        .execute(conn)?;
    Ok(diesel::delete(admin_totp::table.find(user_id)).execute(conn)? > 0)
}

/// Replaces the account's recovery codes with these hashes.
pub fn replace_recovery_codes(
    conn: &mut DbConn,
    user_id: i64,
    hashes: &[String],
    now_ms: i64,
) -> Result<(), DbError> {
    diesel::delete(admin_recovery_codes::table.filter(admin_recovery_codes::user_id.eq(user_id)))
        .execute(conn)?;
    for hash in hashes {
        diesel::insert_into(admin_recovery_codes::table)
            .values((
                admin_recovery_codes::user_id.eq(user_id),
                admin_recovery_codes::code_hash.eq(hash),
                admin_recovery_codes::created_at_ms.eq(now_ms),
            ))
            .execute(conn)?;
    }
    Ok(())
}

/// Marks the unused recovery code with this hash used; returns whether there was one.
pub fn use_recovery_code(
    conn: &mut DbConn,
    user_id: i64,
    code_hash: &str,
    now_ms: i64,
) -> Result<bool, DbError> {
    let changed = diesel::update(
        admin_recovery_codes::table
            .filter(admin_recovery_codes::user_id.eq(user_id))
            .filter(admin_recovery_codes::code_hash.eq(code_hash))
            .filter(admin_recovery_codes::used_at_ms.is_null()),
    )
    .set(admin_recovery_codes::used_at_ms.eq(now_ms))
    .execute(conn)?;
    Ok(changed == 1)
}

/// Unused recovery codes of the account.
pub fn recovery_codes_left(conn: &mut DbConn, user_id: i64) -> Result<i64, DbError> {
    Ok(admin_recovery_codes::table
        .filter(admin_recovery_codes::user_id.eq(user_id))
        .filter(admin_recovery_codes::used_at_ms.is_null())
        .count()
        .get_result(conn)?)
}

/// The TOTP state of each of these accounts: `None` no secret, `Some(false)` enrolling,
/// `Some(true)` on.
pub fn states(conn: &mut DbConn, user_ids: &[i64]) -> Result<Vec<(i64, bool)>, DbError> {
    let rows: Vec<(i64, Option<i64>)> = admin_totp::table
        .filter(admin_totp::user_id.eq_any(user_ids))
        .select((admin_totp::user_id, admin_totp::confirmed_at_ms))
        .load(conn)?;
    Ok(rows
        .into_iter()
        .map(|(id, confirmed)| (id, confirmed.is_some()))
        .collect())
}

/// Ids of active accounts without a confirmed secret.
pub fn active_users_without_totp(conn: &mut DbConn) -> Result<Vec<i64>, DbError> {
    use crate::db::schema::admin_users;
    let confirmed = admin_totp::table
        .filter(admin_totp::confirmed_at_ms.is_not_null())
        .select(admin_totp::user_id);
    Ok(admin_users::table
        .filter(admin_users::disabled_at_ms.is_null())
        .filter(admin_users::id.ne_all(confirmed))
        .select(admin_users::id)
        .load(conn)?)
}
