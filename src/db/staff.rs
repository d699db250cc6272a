//! Admin accounts, their sessions and the audit log. Sessions are keyed by the SHA-256 of the
//! cookie value. An audit entry is never edited, with one exception: a repeated refusal
//! ([`note_repeated_audit`]) counts up the `repeats` of its client's entry for the window.
//! Entries leave only through the retention prune ([`prune_audit`]).

use diesel::prelude::*;

use crate::db::schema::{admin_audit, admin_sessions, admin_users};
use crate::db::{DbConn, DbError};
use crate::domain::ClientKey;

#[derive(Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = admin_users)]
pub struct UserRow {
    pub id: i64,
    pub email: String,
    pub role: String,
    pub password_hash: String,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
    /// Set while the account is disabled.
    pub disabled_at_ms: Option<i64>,
    pub last_login_ms: Option<i64>,
}

impl UserRow {
    pub fn is_active(&self) -> bool {
        self.disabled_at_ms.is_none()
    }
}

impl std::fmt::Debug for UserRow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UserRow")
            .field("id", &self.id)
            .field("role", &self.role)
            .finish_non_exhaustive()
    }
}

/// Inserts an account, in the caller's write transaction; `None` when the email is taken.
pub fn insert_user(
    conn: &mut DbConn,
    email: &str,
    role: &str,
    password_hash: &str,
    now_ms: i64,
) -> Result<Option<i64>, DbError> {
    if find_user_by_email(conn, email)?.is_some() {
        return Ok(None);
    }
    let id: i64 = diesel::insert_into(admin_users::table)
        .values((
            admin_users::email.eq(email),
            admin_users::role.eq(role),
            admin_users::password_hash.eq(password_hash),
            admin_users::created_at_ms.eq(now_ms),
            admin_users::updated_at_ms.eq(now_ms),
        ))
        .returning(admin_users::id)
        .get_result(conn)?;
    Ok(Some(id))
}

pub fn find_user_by_email(conn: &mut DbConn, email: &str) -> Result<Option<UserRow>, DbError> {
    Ok(admin_users::table
        .filter(admin_users::email.eq(email))
        .select(UserRow::as_select())
        .first(conn)
        .optional()?)
}

/// An account as the console lists it: everything but the password hash.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = admin_users)]
pub struct UserSummary {
    pub id: i64,
    pub email: String,
    pub role: String,
    pub created_at_ms: i64,
    pub disabled_at_ms: Option<i64>,
    pub last_login_ms: Option<i64>,
}

pub fn find_user(conn: &mut DbConn, id: i64) -> Result<Option<UserRow>, DbError> {
    Ok(admin_users::table
        .find(id)
        .select(UserRow::as_select())
        .first(conn)
        .optional()?)
}

pub fn find_summary(conn: &mut DbConn, id: i64) -> Result<Option<UserSummary>, DbError> {
    Ok(admin_users::table
        .find(id)
        .select(UserSummary::as_select())
        .first(conn)
        .optional()?)
}

/// A page of accounts by email; `limit + 1` rows tell the caller whether another page follows.
pub fn list_users(conn: &mut DbConn, offset: i64, limit: i64) -> Result<Vec<UserSummary>, DbError> {
    Ok(admin_users::table
        .order((admin_users::email, admin_users::id))
        .offset(offset)
        .limit(limit)
        .select(UserSummary::as_select())
        .load(conn)?)
}

pub fn set_role(conn: &mut DbConn, user_id: i64, role: &str, now_ms: i64) -> Result<(), DbError> {
    diesel::update(admin_users::table.find(user_id))
        .set((
            admin_users::role.eq(role),
            admin_users::updated_at_ms.eq(now_ms),
        ))
        .execute(conn)?;
    Ok(())
}

/// Disables the account (`Some(now)`) or enables it again (`None`).
pub fn set_disabled(
    conn: &mut DbConn,
    user_id: i64,
    disabled_at_ms: Option<i64>,
    now_ms: i64,
) -> Result<(), DbError> {
    diesel::update(admin_users::table.find(user_id))
        .set((
            admin_users::disabled_at_ms.eq(disabled_at_ms),
            admin_users::updated_at_ms.eq(now_ms),
        ))
        .execute(conn)?;
    Ok(())
}

pub fn set_last_login(conn: &mut DbConn, user_id: i64, now_ms: i64) -> Result<(), DbError> {
    diesel::update(admin_users::table.find(user_id))
        .set(admin_users::last_login_ms.eq(now_ms))
        .execute(conn)?;
    Ok(())
}

/// Locks the active owners' rows for the rest of the transaction, so two owners demoting or
/// disabling each other at once cannot both pass the last-owner check. SQLite's write
/// transaction already serialises them.
pub fn lock_active_owners(conn: &mut DbConn) -> Result<(), DbError> {
    if let DbConn::Postgres(pg) = conn {
        diesel::sql_query(
            "SELECT id FROM admin_users WHERE role = 'owner' AND disabled_at_ms IS NULL FOR UPDATE",
        )
        .execute(pg)?;
    }
    Ok(())
}

/// Active owners other than `user_id`.
pub fn count_other_active_owners(conn: &mut DbConn, user_id: i64) -> Result<i64, DbError> {
    Ok(admin_users::table
        .filter(admin_users::role.eq("owner"))
        .filter(admin_users::disabled_at_ms.is_null())
        .filter(admin_users::id.ne(user_id))
        .count()
        .get_result(conn)?)
}

pub fn set_password_hash(
    conn: &mut DbConn,
    user_id: i64,
    password_hash: &str,
    now_ms: i64,
) -> Result<(), DbError> {
    diesel::update(admin_users::table.find(user_id))
        .set((
            admin_users::password_hash.eq(password_hash),
            admin_users::updated_at_ms.eq(now_ms),
        ))
        .execute(conn)?;
    Ok(())
}

#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = admin_sessions)]
pub struct SessionRow {
    /// The SHA-256 of the cookie value, not a secret by itself.
    pub id_hash: String,
    pub user_id: i64,
    pub created_at_ms: i64,
    pub last_seen_ms: i64,
    pub client_addr: String,
    /// `full`, `totp` (waits for the code) or `enrol` (must enrol before anything else).
    pub stage: String,
}

pub fn insert_session(conn: &mut DbConn, row: &SessionRow) -> Result<(), DbError> {
    diesel::insert_into(admin_sessions::table)
        .values((
            admin_sessions::id_hash.eq(&row.id_hash),
            admin_sessions::user_id.eq(row.user_id),
            admin_sessions::created_at_ms.eq(row.created_at_ms),
            admin_sessions::last_seen_ms.eq(row.last_seen_ms),
            admin_sessions::client_addr.eq(&row.client_addr),
            admin_sessions::stage.eq(&row.stage),
        ))
        .execute(conn)?;
    Ok(())
}

/// The session and its account.
pub fn find_session(
    conn: &mut DbConn,
    id_hash: &str,
) -> Result<Option<(SessionRow, UserRow)>, DbError> {
    Ok(admin_sessions::table
        .inner_join(admin_users::table)
        .filter(admin_sessions::id_hash.eq(id_hash))
        .select((SessionRow::as_select(), UserRow::as_select()))
        .first(conn)
        .optional()?)
}

pub fn touch_session(conn: &mut DbConn, id_hash: &str, now_ms: i64) -> Result<(), DbError> {
    diesel::update(admin_sessions::table.find(id_hash))
        .set(admin_sessions::last_seen_ms.eq(now_ms))
        .execute(conn)?;
    Ok(())
}

/// Deletes one session; returns whether it existed.
pub fn delete_session(conn: &mut DbConn, id_hash: &str) -> Result<bool, DbError> {
    Ok(diesel::delete(admin_sessions::table.find(id_hash)).execute(conn)? > 0)
}

/// Deletes every session of these accounts; returns how many there were.
pub fn delete_sessions_of(conn: &mut DbConn, user_ids: &[i64]) -> Result<usize, DbError> {
    Ok(
        diesel::delete(admin_sessions::table.filter(admin_sessions::user_id.eq_any(user_ids)))
            .execute(conn)?,
    )
}

/// Deletes every session of the account; returns how many there were.
pub fn delete_user_sessions(conn: &mut DbConn, user_id: i64) -> Result<usize, DbError> {
    Ok(
        diesel::delete(admin_sessions::table.filter(admin_sessions::user_id.eq(user_id)))
            .execute(conn)?,
    )
}

/// Deletes every session idle since `idle_before_ms` or created before `created_before_ms`.
pub fn delete_expired_sessions(
    conn: &mut DbConn,
    idle_before_ms: i64,
    created_before_ms: i64,
) -> Result<usize, DbError> {
    Ok(diesel::delete(
        admin_sessions::table.filter(
            admin_sessions::last_seen_ms
                .lt(idle_before_ms)
                .or(admin_sessions::created_at_ms.lt(created_before_ms)),
        ),
    )
    .execute(conn)?)
}

// ---- audit ----------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = admin_audit)]
pub struct AuditRow {
    pub id: i64,
    pub at_ms: i64,
    pub user_id: Option<i64>,
    pub actor: String,
    pub action: String,
    pub target: Option<String>,
    pub client_addr: String,
    pub details: String,
    /// How many events this entry stands for (refused logins of one client in one window).
    pub repeats: i64,
}

/// One audit entry to append.
#[derive(Debug, Clone, PartialEq)]
pub struct NewAudit<'a> {
    pub at_ms: i64,
    pub user_id: Option<i64>,
    pub actor: &'a str,
    pub action: &'a str,
    pub target: Option<&'a str>,
    pub client_addr: &'a str,
    pub details: &'a str,
}

pub fn append_audit(conn: &mut DbConn, entry: &NewAudit<'_>) -> Result<(), DbError> {
    diesel::insert_into(admin_audit::table)
        .values((
            admin_audit::at_ms.eq(entry.at_ms),
            admin_audit::user_id.eq(entry.user_id),
            admin_audit::actor.eq(entry.actor),
            admin_audit::action.eq(entry.action),
            admin_audit::target.eq(entry.target),
            admin_audit::client_addr.eq(entry.client_addr),
            admin_audit::details.eq(entry.details),
            admin_audit::client_key.eq(ClientKey::key_text(entry.client_addr)),
        ))
        .execute(conn)?;
    Ok(())
}

/// Records `entry` (a refused login) once per client and window: when an entry of the same
/// action from the same client (its [`ClientKey`]) exists since `since_ms`, its `repeats` goes
/// up by one and nothing is added, whatever the entry's actor. Call it inside a write
/// transaction (the look-up and the write must not be split by another writer).
pub fn note_repeated_audit(
    conn: &mut DbConn,
    entry: &NewAudit<'_>,
    since_ms: i64,
) -> Result<(), DbError> {
    let client_key = ClientKey::key_text(entry.client_addr);
    let existing: Option<i64> = admin_audit::table
        .filter(admin_audit::action.eq(entry.action))
        .filter(admin_audit::client_key.eq(&client_key))
        .filter(admin_audit::at_ms.ge(since_ms))
        .order(admin_audit::id.desc())
        .select(admin_audit::id)
        .first(conn)
        .optional()?;
    match existing {
        Some(id) => {
            diesel::update(admin_audit::table.find(id))
                .set(admin_audit::repeats.eq(admin_audit::repeats + 1))
                .execute(conn)?;
            Ok(())
        }
        None => append_audit(conn, entry),
    }
}

/// Deletes up to `batch` audit entries older than `before_ms`, keeping those whose action is
/// in `kept_actions` unless they are also older than `kept_before_ms` (which must be no later
/// than `before_ms`). Returns how many were deleted; the caller repeats until fewer than
/// `batch`, so no transaction holds the write lock for long.
pub fn prune_audit(
    conn: &mut DbConn,
    before_ms: i64,
    kept_actions: &[&str],
    kept_before_ms: i64,
    batch: i64,
) -> Result<usize, DbError> {
    conn.write_tx(|conn| {
        let doomed: Vec<i64> = admin_audit::table
            .filter(admin_audit::at_ms.lt(before_ms))
            .filter(
                admin_audit::action
                    .ne_all(kept_actions)
                    .or(admin_audit::at_ms.lt(kept_before_ms)),
            )
            .order(admin_audit::at_ms)
            .select(admin_audit::id)
            .limit(batch)
            .load(conn)?;
        if doomed.is_empty() {
            return Ok(0);
        }
        Ok(
            diesel::delete(admin_audit::table.filter(admin_audit::id.eq_any(&doomed)))
                .execute(conn)?,
        )
    })
}

/// How many entries of one action (failed logins) were recent, counted three ways.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RecentCounts {
    /// By this actor from this client address.
    pub pair: i64,
    /// By this actor from any address.
    pub actor: i64,
    /// From this client address for any actor.
    pub client: i64,
}

/// Entries of `action` since `since_ms`: by `actor` from the client of `client_addr`, by
/// `actor`, and from that client. The client is the address's [`ClientKey`] (an IPv6 /64 is one
/// client), stored with each entry. Both indexes on the audit log (action, actor | client_key,
/// at_ms) serve it.
pub fn count_recent(
    conn: &mut DbConn,
    action: &str,
    actor: &str,
    client_addr: &str,
    since_ms: i64,
) -> Result<RecentCounts, DbError> {
    let client_key = ClientKey::key_text(client_addr);
    let recent = || {
        admin_audit::table
            .filter(admin_audit::action.eq(action))
            .filter(admin_audit::at_ms.ge(since_ms))
    };
    let pair = recent()
        .filter(admin_audit::actor.eq(actor))
        .filter(admin_audit::client_key.eq(&client_key))
        .count()
        .get_result(conn)?;
    let by_actor = recent()
        .filter(admin_audit::actor.eq(actor))
        .count()
        .get_result(conn)?;
    let by_client = recent()
        .filter(admin_audit::client_key.eq(&client_key))
        .count()
        .get_result(conn)?;
    Ok(RecentCounts {
        pair,
        actor: by_actor,
        client: by_client,
    })
}

/// A page of the audit log, newest first: up to `limit` rows older than `before_id`.
pub fn audit_page(
    conn: &mut DbConn,
    before_id: Option<i64>,
    limit: i64,
) -> Result<Vec<AuditRow>, DbError> {
    let mut query = admin_audit::table
        .select(AuditRow::as_select())
        .order(admin_audit::id.desc())
        .limit(limit)
        .into_boxed();
    if let Some(before) = before_id {
        query = query.filter(admin_audit::id.lt(before));
    }
    Ok(query.load(conn)?)
}

pub fn audit_for_target(conn: &mut DbConn, target: &str) -> Result<Vec<AuditRow>, DbError> {
    Ok(admin_audit::table
        .filter(admin_audit::target.eq(target))
        .select(AuditRow::as_select())
        .order(admin_audit::id)
        .load(conn)?)
}

/// Emails of the active owner accounts (who get the wallet alerts).
pub fn owner_emails(conn: &mut DbConn) -> Result<Vec<String>, DbError> {
    Ok(admin_users::table
        .filter(admin_users::role.eq("owner"))
        .filter(admin_users::disabled_at_ms.is_null())
        .order(admin_users::id)
        .select(admin_users::email)
        .load(conn)?)
}
