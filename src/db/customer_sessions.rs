//! "My eSIMs" sign-in: the emailed sign-in links' tokens (`customer_sign_in_tokens`) and the
//! signed-in browsers (`customer_sessions`), both by the SHA-256 of what the customer holds,
//! with the lowercased address they stand for. Lifetimes are the caller's to choose.

use diesel::prelude::*;

use crate::db::schema::{customer_sessions, customer_sign_in_tokens};
use crate::db::{DbConn, DbError};

/// Records a sign-in token for `email_lower` by its hash, working until `expires_at_ms`.
pub fn insert_sign_in(
    conn: &mut DbConn,
    token_hash: &str,
    email_lower: &str,
    now_ms: i64,
    expires_at_ms: i64,
) -> Result<(), DbError> {
    diesel::insert_into(customer_sign_in_tokens::table)
        .values((
            customer_sign_in_tokens::token_hash.eq(token_hash),
            customer_sign_in_tokens::email_lower.eq(email_lower),
            customer_sign_in_tokens::created_at_ms.eq(now_ms),
            customer_sign_in_tokens::expires_at_ms.eq(expires_at_ms),
        ))
        .execute(conn)?;
    Ok(())
}

/// Marks the sign-in token with `token_hash` used, if it is unused and not expired at
/// `now_ms`, and returns its address; `None` otherwise. One conditional update: of two
/// requests with the same token, on any replicas, only one gets the address.
pub fn use_sign_in(
    conn: &mut DbConn,
    token_hash: &str,
    now_ms: i64,
) -> Result<Option<String>, DbError> {
    let used = diesel::update(
        customer_sign_in_tokens::table
            .find(token_hash)
            .filter(customer_sign_in_tokens::used_at_ms.is_null())
            .filter(customer_sign_in_tokens::expires_at_ms.gt(now_ms)),
    )
    .set(customer_sign_in_tokens::used_at_ms.eq(now_ms))
    .execute(conn)?;
    if used != 1 {
        return Ok(None);
    }
    Ok(customer_sign_in_tokens::table
        .find(token_hash)
        .select(customer_sign_in_tokens::email_lower)
        .first(conn)
        .optional()?)
}

/// Whether the sign-in token with `token_hash` would still sign in at `now_ms` (unused and
/// not expired), without using it.
pub fn sign_in_is_open(conn: &mut DbConn, token_hash: &str, now_ms: i64) -> Result<bool, DbError> {
    let open: i64 = customer_sign_in_tokens::table
        .find(token_hash)
        .filter(customer_sign_in_tokens::used_at_ms.is_null())
        .filter(customer_sign_in_tokens::expires_at_ms.gt(now_ms))
        .count()
        .get_result(conn)?;
    Ok(open == 1)
}

/// Records a session of `email_lower` by its hash.
pub fn insert_session(
    conn: &mut DbConn,
    id_hash: &str,
    email_lower: &str,
    now_ms: i64,
) -> Result<(), DbError> {
    diesel::insert_into(customer_sessions::table)
        .values((
            customer_sessions::id_hash.eq(id_hash),
            customer_sessions::email_lower.eq(email_lower),
            customer_sessions::created_at_ms.eq(now_ms),
            customer_sessions::last_seen_ms.eq(now_ms),
        ))
        .execute(conn)?;
    Ok(())
}

/// A stored session: its address, when it began and when it was last used.
#[derive(Debug, Clone, Queryable, Selectable)]
#[diesel(table_name = customer_sessions)]
pub struct SessionRow {
    pub email_lower: String,
    pub created_at_ms: i64,
    pub last_seen_ms: i64,
}

pub fn find_session(conn: &mut DbConn, id_hash: &str) -> Result<Option<SessionRow>, DbError> {
    Ok(customer_sessions::table
        .find(id_hash)
        .select(SessionRow::as_select())
        .first(conn)
        .optional()?)
}

pub fn touch_session(conn: &mut DbConn, id_hash: &str, now_ms: i64) -> Result<(), DbError> {
    diesel::update(customer_sessions::table.find(id_hash))
        .set(customer_sessions::last_seen_ms.eq(now_ms))
        .execute(conn)?;
    Ok(())
}

/// Ends one session; returns its address when there was one.
pub fn delete_session(conn: &mut DbConn, id_hash: &str) -> Result<Option<String>, DbError> {
    let email = customer_sessions::table
        .find(id_hash)
        .select(customer_sessions::email_lower)
        .first::<String>(conn)
        .optional()?;
    diesel::delete(customer_sessions::table.find(id_hash)).execute(conn)?;
    Ok(email)
}

/// Ends every session of `email_lower`; returns how many.
pub fn delete_sessions_of(conn: &mut DbConn, email_lower: &str) -> Result<usize, DbError> {
    Ok(diesel::delete(
        customer_sessions::table.filter(customer_sessions::email_lower.eq(email_lower)),
    )
    .execute(conn)?)
}

/// Removes the sessions idle since before `idle_before_ms` or begun before
/// `created_before_ms`, and the sign-in tokens expired before `expired_before_ms`; returns how
/// many rows went.
pub fn delete_ended(
    conn: &mut DbConn,
    idle_before_ms: i64,
    created_before_ms: i64,
    expired_before_ms: i64,
) -> Result<usize, DbError> {
    let sessions = diesel::delete(
        customer_sessions::table.filter(
            customer_sessions::last_seen_ms
                .lt(idle_before_ms)
                .or(customer_sessions::created_at_ms.lt(created_before_ms)),
        ),
    )
    .execute(conn)?;
    let tokens = diesel::delete(
        customer_sign_in_tokens::table
            .filter(customer_sign_in_tokens::expires_at_ms.lt(expired_before_ms)),
    )
    .execute(conn)?;
    Ok(sessions + tokens)
}
