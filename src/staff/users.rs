//! Managing console accounts: owners create accounts, change roles, disable and re-enable
//! them and reset passwords; every signed-in admin changes their own password.
//!
//! Each change is written in one transaction with its audit entry (who, what, when, from
//! where; never a password). Disabling an account or resetting its password deletes its
//! sessions in that same transaction, so the next request from any of its browsers, on any
//! replica, finds no session. The console always keeps an active owner: the last one can be
//! neither disabled nor demoted.

use crate::staff::Staff;
use diesel::result::Error as DieselError;

use super::{Admin, NewPassword, Role, SessionToken, action, password, throttle};
use crate::db::login_attempts::{Kind as AttemptKind, Outcome as AttemptOutcome};
use crate::db::staff::{self as q, SessionRow, UserRow};
use crate::db::{DbConn, DbError, now_ms};

/// Why an account change was refused or failed.
#[derive(Debug, thiserror::Error)]
pub enum UsersError {
    #[error("only an owner can manage accounts")]
    NotOwner,
    #[error("there is no such account")]
    NotFound,
    #[error("an account with this email already exists")]
    EmailTaken,
    #[error("at least one active owner must remain")]
    LastOwner,
    /// Resetting one's own password from the users page would skip the current-password check.
    #[error("an admin changes their own password with their current one")]
    OwnPassword,
    #[error("the current password is wrong")]
    WrongPassword,
    #[error("too many wrong current passwords in the last minute")]
    Throttled,
    /// A form that does not parse: what to fix, in the form's words.
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Hash(#[from] password::HashError),
    #[error(transparent)]
    Db(#[from] DbError),
}

impl From<DieselError> for UsersError {
    fn from(err: DieselError) -> Self {
        Self::Db(err.into())
    }
}

/// Whether an action changed anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Done {
        /// Sessions of the account that were ended.
        sessions_ended: usize,
    },
    /// The account already was that way; nothing was written.
    Unchanged,
}

/// The fields of every form on the users pages. Passwords are never logged, echoed or audited.
#[derive(serde::Deserialize)]
pub struct UserForm {
    #[serde(default)]
    pub email: String,
    #[serde(default)]
    pub role: String,
    #[serde(default)]
    pub password: String,
    #[serde(default)]
    pub password_again: String,
}

impl UserForm {
    fn role(&self) -> Result<Role, UsersError> {
        Role::parse(&self.role)
            .ok_or_else(|| UsersError::Invalid("Choose a role: owner or support.".into()))
    }

    fn new_password(&self) -> Result<NewPassword, UsersError> {
        NewPassword::typed_twice(&self.password, &self.password_again).map_err(UsersError::Invalid)
    }
}

/// An owner's change to one account, as its address names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Role,
    Disable,
    Enable,
    Password,
}

impl Action {
    pub fn parse(raw: &str) -> Option<Self> {
        [Self::Role, Self::Disable, Self::Enable, Self::Password]
            .into_iter()
            .find(|action| action.slug() == raw)
    }

    pub fn slug(self) -> &'static str {
        match self {
            Self::Role => "role",
            Self::Disable => "disable",
            Self::Enable => "enable",
            Self::Password => "password",
        }
    }
}

/// How an account appears as an audit target.
pub fn audit_target(user_id: i64) -> String {
    format!("user:{user_id}")
}

fn ensure_owner(by: &Admin) -> Result<(), UsersError> {
    if by.is_owner() {
        Ok(())
    } else {
        Err(UsersError::NotOwner)
    }
}

/// Whether `user` may stop being an active owner: always unless it is the last one. Call after
/// [`q::lock_active_owners`] in the same transaction.
fn may_leave_owners(conn: &mut DbConn, user: &UserRow) -> Result<bool, UsersError> {
    if user.role != Role::Owner.as_str() || !user.is_active() {
        return Ok(true);
    }
    Ok(q::count_other_active_owners(conn, user.id)? > 0)
}

/// A page of the console's accounts: up to `limit` from `offset`.
#[tracing::instrument(skip_all, fields(offset = offset, limit = limit))]
pub async fn summaries(
    staff: &Staff,
    offset: i64,
    limit: i64,
) -> Result<Vec<q::UserSummary>, DbError> {
    let db = staff.db();
    db.run(move |conn| q::list_users(conn, offset, limit)).await
}

/// The account `id`, if there is one.
#[tracing::instrument(skip_all, fields(user.id = id))]
pub async fn summary(staff: &Staff, id: i64) -> Result<Option<q::UserSummary>, DbError> {
    let db = staff.db();
    db.run(move |conn| q::find_summary(conn, id)).await
}

/// Creates the account `form` describes on an owner's behalf; returns its id. A form that does
/// not parse is refused before anything is written.
#[tracing::instrument(skip_all, fields(admin.id = by.user_id))]
pub async fn create(
    staff: &Staff,
    by: &Admin,
    client_addr: &str,
    form: &UserForm,
) -> Result<i64, UsersError> {
    let db = staff.db();
    ensure_owner(by)?;
    let email = super::admin_email(&form.email)
        .map_err(|e| UsersError::Invalid(format!("That email cannot be used: {e}.")))?;
    let (role, password) = (form.role()?, form.new_password()?);
    let hash = password::hash_blocking(password).await?;
    let (by, client, email) = (
        by.clone(),
        client_addr.to_string(),
        email.as_str().to_string(),
    );
    db.run(move |conn| {
        let now = now_ms();
        conn.write_tx(|conn| {
            let id = q::insert_user(conn, &email, role.as_str(), &hash, now)?
                .ok_or(UsersError::EmailTaken)?;
            by.audit(
                conn,
                action::USER_CREATED,
                Some(&audit_target(id)),
                &client,
                &format!("{email}, role {role}"),
                now,
            )?;
            Ok(id)
        })
    })
    .await
    .map_err(|err| match err {
        // Two owners adding the same email at once: the unique index decides.
        UsersError::Db(db) if db.is_unique_violation() => UsersError::EmailTaken,
        other => other,
    })
}

/// Makes `action` on the account `user_id` with the input of `form` (the role, the new
/// password). A form that does not parse is refused before anything is attempted.
pub async fn change(
    staff: &Staff,
    by: &Admin,
    client_addr: &str,
    user_id: i64,
    action: Action,
    form: &UserForm,
) -> Result<Change, UsersError> {
    match action {
        Action::Role => change_role(staff, by, client_addr, user_id, form.role()?).await,
        Action::Disable => set_disabled(staff, by, client_addr, user_id, true).await,
        Action::Enable => set_disabled(staff, by, client_addr, user_id, false).await,
        Action::Password => {
            reset_password(staff, by, client_addr, user_id, form.new_password()?).await
        }
    }
}

/// Gives the account `role`. Takes effect on its next request: sessions read the role from
/// the account.
#[tracing::instrument(skip_all, fields(admin.id = by.user_id, user.id = user_id))]
async fn change_role(
    staff: &Staff,
    by: &Admin,
    client_addr: &str,
    user_id: i64,
    role: Role,
) -> Result<Change, UsersError> {
    let db = staff.db();
    ensure_owner(by)?;
    let (by, client) = (by.clone(), client_addr.to_string());
    db.run(move |conn| {
        let now = now_ms();
        conn.write_tx(|conn| {
            q::lock_active_owners(conn)?;
            let user = q::find_user(conn, user_id)?.ok_or(UsersError::NotFound)?;
            if user.role == role.as_str() {
                return Ok(Change::Unchanged);
            }
            if role != Role::Owner && !may_leave_owners(conn, &user)? {
                return Err(UsersError::LastOwner);
            }
            q::set_role(conn, user_id, role.as_str(), now)?;
            by.audit(
                conn,
                action::USER_ROLE_CHANGED,
                Some(&audit_target(user_id)),
                &client,
                &format!("{}: before {}; after {role}", user.email, user.role),
                now,
            )?;
            Ok(Change::Done { sessions_ended: 0 })
        })
    })
    .await
}

/// Disables the account and ends its sessions (`disabled`), or lets it log in again.
#[tracing::instrument(skip_all, fields(admin.id = by.user_id, user.id = user_id, disabled = disabled))]
async fn set_disabled(
    staff: &Staff,
    by: &Admin,
    client_addr: &str,
    user_id: i64,
    disabled: bool,
) -> Result<Change, UsersError> {
    let db = staff.db();
    ensure_owner(by)?;
    let (by, client) = (by.clone(), client_addr.to_string());
    db.run(move |conn| {
        let now = now_ms();
        conn.write_tx(|conn| {
            q::lock_active_owners(conn)?;
            let user = q::find_user(conn, user_id)?.ok_or(UsersError::NotFound)?;
            if user.is_active() != disabled {
                return Ok(Change::Unchanged);
            }
            if disabled && !may_leave_owners(conn, &user)? {
                return Err(UsersError::LastOwner);
            }
            q::set_disabled(conn, user_id, disabled.then_some(now), now)?;
            let (act, sessions_ended) = if disabled {
                (
                    action::USER_DISABLED,
                    q::delete_user_sessions(conn, user_id)?,
                )
            } else {
                (action::USER_ENABLED, 0)
            };
            let details = if disabled {
                format!(
                    "{}: disabled; {sessions_ended} session(s) ended",
                    user.email
                )
            } else {
                format!("{}: enabled", user.email)
            };
            by.audit(
                conn,
                act,
                Some(&audit_target(user_id)),
                &client,
                &details,
                now,
            )?;
            Ok(Change::Done { sessions_ended })
        })
    })
    .await
}

/// Sets another account's password and ends its sessions.
#[tracing::instrument(skip_all, fields(admin.id = by.user_id, user.id = user_id))]
async fn reset_password(
    staff: &Staff,
    by: &Admin,
    client_addr: &str,
    user_id: i64,
    password: NewPassword,
) -> Result<Change, UsersError> {
    let db = staff.db();
    ensure_owner(by)?;
    if user_id == by.user_id {
        return Err(UsersError::OwnPassword);
    }
    let hash = password::hash_blocking(password).await?;
    let (by, client) = (by.clone(), client_addr.to_string());
    db.run(move |conn| {
        let now = now_ms();
        conn.write_tx(|conn| {
            let user = q::find_user(conn, user_id)?.ok_or(UsersError::NotFound)?;
            q::set_password_hash(conn, user_id, &hash, now)?;
            let sessions_ended = q::delete_user_sessions(conn, user_id)?;
            by.audit(
                conn,
                action::USER_PASSWORD_RESET,
                Some(&audit_target(user_id)),
                &client,
                &format!(
                    "{}: password reset; {sessions_ended} session(s) ended",
                    user.email
                ),
                now,
            )?;
            Ok(Change::Done { sessions_ended })
        })
    })
    .await
}

/// Changes the signed-in admin's own password after checking the current one. Every session
/// of the account ends, this one included; the returned token is this browser's new session.
/// Wrong current passwords are throttled like logins.
#[tracing::instrument(skip_all, fields(admin.id = me.user_id))]
pub async fn change_own_password(
    staff: &Staff,
    me: &Admin,
    client_addr: &str,
    current: String,
    new: NewPassword,
) -> Result<SessionToken, UsersError> {
    let db = staff.db();
    let user_id = me.user_id;
    // Counted before it is hashed (settled below), so parallel requests share the budget.
    let Some(attempt) =
        throttle::reserve(db, AttemptKind::PasswordChange, &me.email, client_addr).await?
    else {
        return Err(UsersError::Throttled);
    };
    let stored = db
        .run(move |conn| match q::find_user(conn, user_id)? {
            Some(user) if user.is_active() => Ok(user.password_hash),
            _ => Err(UsersError::NotFound),
        })
        .await;
    let verified = match stored {
        Ok(stored) => password::verify_blocking(current, Some(stored)).await,
        Err(err) => {
            attempt.release(db).await?;
            return Err(err);
        }
    };
    let verified = match verified {
        Ok(verified) => verified,
        Err(err) => {
            // Nothing was checked (every hashing slot busy): the attempt is not a guess.
            attempt.release(db).await?;
            return Err(err.into());
        }
    };
    if verified == password::Verified::No {
        let (failed_by, client) = (me.clone(), client_addr.to_string());
        db.run(move |conn| {
            attempt.settle_in(conn, AttemptOutcome::Failed)?;
            failed_by.audit(
                conn,
                action::PASSWORD_CHANGE_FAILED,
                Some(&audit_target(user_id)),
                &client,
                "wrong current password",
                now_ms(),
            )
        })
        .await?;
        return Err(UsersError::WrongPassword);
    }
    attempt.settle(db, AttemptOutcome::Success).await?;
    let hash = password::hash_blocking(new).await?;
    let token = SessionToken::generate();
    let (me, client, session_hash) = (me.clone(), client_addr.to_string(), token.hash());
    db.run(move |conn| {
        let now = now_ms();
        conn.write_tx(|conn| {
            q::set_password_hash(conn, user_id, &hash, now)?;
            let ended = q::delete_user_sessions(conn, user_id)?;
            q::insert_session(
                conn,
                &SessionRow {
                    id_hash: session_hash.clone(),
                    user_id,
                    created_at_ms: now,
                    last_seen_ms: now,
                    client_addr: client.clone(),
                    stage: super::Stage::Full.as_str().to_string(),
                },
            )?;
            me.audit(
                conn,
                action::PASSWORD_CHANGED,
                Some(&audit_target(user_id)),
                &client,
                &format!("{ended} session(s) ended; this browser signed in again"),
                now,
            )?;
            Ok::<_, UsersError>(())
        })
    })
    .await?;
    Ok(token)
}
