//! Admin accounts: users and roles, argon2id passwords, database-backed sessions, login
//! throttling and the audit log; managing the accounts from the console is in [`users`].
//!
//! A disabled account cannot log in (the answer is the same as for a wrong password) and its
//! sessions stop working at once.
//!
//! Everything a replica needs is in the database (sessions, the failures that throttle
//! logins), so any replica can serve any admin request. Throttling counts failed logins in
//! the audit log over the last minute, three ways (see [`login_throttled`]): per account and
//! client, so guessing one password from one place is slow; per client across all accounts,
//! so spraying many accounts is slow too; and per account across all clients, with a ceiling
//! only a distributed attack reaches. A client is a [`ClientKey`](crate::domain::ClientKey):
//! an IPv4 address, or a whole IPv6 /64 (fresh addresses inside one network do not buy fresh
//! attempts); the log shows the full address. Someone else's failures
//! therefore do not keep the owner out, and nothing is ever locked for good: the answer is a
//! 429 for the rest of the minute.

pub mod password;
pub mod session;
pub mod users;

use std::fmt;

use crate::db::accounts::{self as q, NewAudit, SessionRow};
use crate::db::{Db, DbConn, DbError};
use crate::domain::{Email, EmailError};
pub use password::{NewPassword, PasswordError};
pub use session::SessionToken;

/// Failed logins for one account from one client address within [`THROTTLE_WINDOW_MS`]
/// before the next from there is refused.
pub const MAX_FAILURES_PER_ACCOUNT_AND_CLIENT: i64 = 5;
/// Failed logins from one client address for any accounts (an office behind one NAT counts
/// once).
pub const MAX_FAILURES_PER_CLIENT: i64 = 20;
/// Failed logins for one account from all addresses together: far above what one person
/// mistyping produces, so only an attack from many addresses at once reaches it, and then the
/// account waits out the minute like everyone else.
pub const MAX_FAILURES_PER_ACCOUNT: i64 = 100;
/// Wrong current passwords on "Your account" per account (only a signed-in session of that
/// account can produce them).
pub const MAX_PASSWORD_CHANGE_FAILURES: i64 = 5;
pub const THROTTLE_WINDOW_MS: i64 = 60 * 1000;

/// Whether the next login is refused, given the failures of the last minute.
pub fn login_throttled(recent: &q::RecentCounts) -> bool {
    recent.pair >= MAX_FAILURES_PER_ACCOUNT_AND_CLIENT
        || recent.client >= MAX_FAILURES_PER_CLIENT
        || recent.actor >= MAX_FAILURES_PER_ACCOUNT
}

/// Audit actions.
pub mod action {
    pub const LOGIN: &str = "login";
    pub const LOGIN_FAILED: &str = "login_failed";
    pub const LOGIN_THROTTLED: &str = "login_throttled";
    pub const LOGOUT: &str = "logout";
    pub const USER_CREATED: &str = "user_created";
    pub const USER_ROLE_CHANGED: &str = "user_role_changed";
    pub const USER_DISABLED: &str = "user_disabled";
    pub const USER_ENABLED: &str = "user_enabled";
    pub const USER_PASSWORD_RESET: &str = "user_password_reset";
    pub const PASSWORD_CHANGED: &str = "password_changed";
    pub const PASSWORD_CHANGE_FAILED: &str = "password_change_failed";
    pub const ORDER_NOTE: &str = "order_note";
    pub const ORDER_RETRY: &str = "order_retry";
    pub const ORDER_REFUND: &str = "order_refund";
    pub const ORDER_RESOLVE: &str = "order_resolve";
    pub const ORDER_RESEND_EMAIL: &str = "order_resend_email";
    pub const ORDER_REVOKE_LINKS: &str = "order_revoke_links";
    pub const ORDER_SEND_LINK: &str = "order_send_link";
    pub const PLACEMENTS_RETRY: &str = "placements_retry";
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Everything.
    Owner,
    /// Reads orders and adds notes; no pricing, wallet, refunds or user management.
    Support,
}

impl Role {
    pub fn parse(raw: &str) -> Option<Self> {
        match raw {
            "owner" => Some(Self::Owner),
            "support" => Some(Self::Support),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Owner => "owner",
            Self::Support => "support",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An admin's email: parsed, trimmed and lowercased, so one person has one account and one
/// throttle counter however they type it.
pub fn admin_email(raw: &str) -> Result<Email, EmailError> {
    Email::parse(raw.trim().to_lowercase())
}

/// A signed-in admin, as a request sees them.
#[derive(Clone)]
pub struct Admin {
    pub user_id: i64,
    pub email: String,
    pub role: Role,
    /// Identifies the session in the database (the hash, not the cookie value).
    pub session_hash: String,
}

impl fmt::Debug for Admin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Admin")
            .field("user_id", &self.user_id)
            .field("role", &self.role)
            .finish_non_exhaustive()
    }
}

impl Admin {
    pub fn is_owner(&self) -> bool {
        self.role == Role::Owner
    }

    /// Appends an audit entry for an action this admin took, in the caller's transaction.
    pub fn audit(
        &self,
        conn: &mut DbConn,
        action: &str,
        target: Option<&str>,
        client_addr: &str,
        details: &str,
        now_ms: i64,
    ) -> Result<(), DbError> {
        q::append_audit(
            conn,
            &NewAudit {
                at_ms: now_ms,
                user_id: Some(self.user_id),
                actor: &self.email,
                action,
                target,
                client_addr,
                details,
            },
        )
    }
}

#[derive(Debug, thiserror::Error)]
pub enum AccountsError {
    #[error("an account with this email already exists")]
    EmailTaken,
    #[error(transparent)]
    Hash(#[from] password::HashError),
    #[error(transparent)]
    Db(#[from] DbError),
}

/// Creates an account; the audit log records it with `actor` (e.g. "cli").
pub async fn create_user(
    db: &Db,
    email: &Email,
    role: Role,
    password: NewPassword,
    actor: &str,
) -> Result<i64, AccountsError> {
    let hash = password::hash_blocking(password).await?;
    let email = email.as_str().to_string();
    let actor = actor.to_string();
    db.run(move |conn| {
        let now = crate::db::now_ms();
        conn.write_tx(|conn| {
            let Some(id) = q::insert_user(conn, &email, role.as_str(), &hash, now)? else {
                return Ok(None);
            };
            q::append_audit(
                conn,
                &NewAudit {
                    at_ms: now,
                    user_id: None,
                    actor: &actor,
                    action: action::USER_CREATED,
                    target: Some(&email),
                    client_addr: "local",
                    details: &format!("role {role}"),
                },
            )?;
            Ok::<_, DbError>(Some(id))
        })
    })
    .await?
    .ok_or(AccountsError::EmailTaken)
}

/// Whether an account with this email exists.
pub async fn user_exists(db: &Db, email: &Email) -> Result<bool, DbError> {
    let email = email.as_str().to_string();
    db.run(move |conn| Ok(q::find_user_by_email(conn, &email)?.is_some()))
        .await
}

/// The result of a login attempt. Failures are deliberately not told apart.
#[derive(Debug)]
pub enum LoginOutcome {
    /// Signed in: the browser gets `token`; any session it presented is gone.
    Success {
        admin: Admin,
        token: SessionToken,
    },
    Failed,
    Throttled,
}

/// Checks a login. `previous` is the session cookie the browser sent, ended on success so a
/// planted session id cannot survive login.
pub async fn login(
    db: &Db,
    email_raw: &str,
    password: String,
    client_addr: &str,
    previous: Option<SessionToken>,
) -> Result<LoginOutcome, AccountsError> {
    // The throttle counts by what was typed when it is not an email at all.
    let actor: String = match admin_email(email_raw) {
        Ok(email) => email.as_str().to_string(),
        Err(_) => email_raw.trim().to_lowercase().chars().take(254).collect(),
    };
    let client = client_addr.to_string();
    let lookup_actor = actor.clone();
    let (throttled, user) = db
        .run(move |conn| {
            let now = crate::db::now_ms();
            let recent = q::count_recent(
                conn,
                action::LOGIN_FAILED,
                &lookup_actor,
                &client,
                now - THROTTLE_WINDOW_MS,
            )?;
            if login_throttled(&recent) {
                // One entry per account and address per window: a client hammering a
                // throttled login cannot grow the audit log with every request.
                let noted = q::count_recent(
                    conn,
                    action::LOGIN_THROTTLED,
                    &lookup_actor,
                    &client,
                    now - THROTTLE_WINDOW_MS,
                )?;
                if noted.pair == 0 {
                    q::append_audit(
                        conn,
                        &NewAudit {
                            at_ms: now,
                            user_id: None,
                            actor: &lookup_actor,
                            action: action::LOGIN_THROTTLED,
                            target: None,
                            client_addr: &client,
                            details: "too many failed logins in the last minute",
                        },
                    )?;
                }
                return Ok::<_, DbError>((true, None));
            }
            Ok((false, q::find_user_by_email(conn, &lookup_actor)?))
        })
        .await?;
    if throttled {
        return Ok(LoginOutcome::Throttled);
    }
    let stored = user.as_ref().map(|u| u.password_hash.clone());
    let verified = password::verify_blocking(password, stored).await?;
    let client = client_addr.to_string();
    let (verified, user) = match (verified, user) {
        (verified, Some(user)) if verified != password::Verified::No && user.is_active() => {
            (verified, user)
        }
        (verified, found) => {
            // Only the audit log tells the two apart; the person typing sees the same answer.
            let details = if verified != password::Verified::No && found.is_some() {
                "right password, but the account is disabled"
            } else {
                "wrong email or password"
            };
            db.run(move |conn| {
                q::append_audit(
                    conn,
                    &NewAudit {
                        at_ms: crate::db::now_ms(),
                        user_id: None,
                        actor: &actor,
                        action: action::LOGIN_FAILED,
                        target: None,
                        client_addr: &client,
                        details,
                    },
                )
            })
            .await?;
            return Ok(LoginOutcome::Failed);
        }
    };
    let Some(role) = Role::parse(&user.role) else {
        tracing::error!(admin.id = user.id, "admin account has an unknown role");
        return Ok(LoginOutcome::Failed);
    };
    let token = SessionToken::generate();
    let admin = Admin {
        user_id: user.id,
        email: user.email.clone(),
        role,
        session_hash: token.hash(),
    };
    let row_admin = admin.clone();
    db.run(move |conn| {
        let now = crate::db::now_ms();
        conn.write_tx(|conn| {
            q::delete_expired_sessions(conn, now - session::IDLE_MS, now - session::ABSOLUTE_MS)?;
            if let Some(previous) = &previous {
                q::delete_session(conn, &previous.hash())?;
            }
            q::insert_session(
                conn,
                &SessionRow {
                    id_hash: row_admin.session_hash.clone(),
                    user_id: row_admin.user_id,
                    created_at_ms: now,
                    last_seen_ms: now,
                    client_addr: client.clone(),
                },
            )?;
            q::set_last_login(conn, row_admin.user_id, now)?;
            let details = if let password::Verified::YesRehashed(new_hash) = &verified {
                q::set_password_hash(conn, row_admin.user_id, new_hash, now)?;
                "signed in; password rehashed with current parameters"
            } else {
                "signed in"
            };
            row_admin.audit(conn, action::LOGIN, None, &client, details, now)
        })
    })
    .await?;
    Ok(LoginOutcome::Success { admin, token })
}

/// The admin behind a session cookie, if the session is alive. A dead session is deleted.
pub async fn authenticate(db: &Db, token: SessionToken) -> Result<Option<Admin>, DbError> {
    let id_hash = token.hash();
    db.run(move |conn| {
        let now = crate::db::now_ms();
        let Some((session, user)) = q::find_session(conn, &id_hash)? else {
            return Ok(None);
        };
        if !session::is_alive(session.created_at_ms, session.last_seen_ms, now) || !user.is_active()
        {
            q::delete_session(conn, &id_hash)?;
            return Ok(None);
        }
        let Some(role) = Role::parse(&user.role) else {
            return Ok(None);
        };
        if now - session.last_seen_ms >= session::TOUCH_EVERY_MS {
            q::touch_session(conn, &id_hash, now)?;
        }
        Ok(Some(Admin {
            user_id: user.id,
            email: user.email,
            role,
            session_hash: id_hash,
        }))
    })
    .await
}

/// Ends the session server-side and records the logout.
pub async fn logout(db: &Db, admin: Admin, client_addr: &str) -> Result<(), DbError> {
    let client = client_addr.to_string();
    db.run(move |conn| {
        let now = crate::db::now_ms();
        conn.write_tx(|conn| {
            q::delete_session(conn, &admin.session_hash)?;
            admin.audit(conn, action::LOGOUT, None, &client, "signed out", now)
        })
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(pair: i64, actor: i64, client: i64) -> q::RecentCounts {
        q::RecentCounts {
            pair,
            actor,
            client,
        }
    }

    #[test]
    fn each_budget_throttles_on_its_own() {
        assert!(!login_throttled(&counts(0, 0, 0)));
        assert!(
            !login_throttled(&counts(4, 99, 19)),
            "just below every limit"
        );
        assert!(
            login_throttled(&counts(5, 5, 5)),
            "one account from one address"
        );
        assert!(
            login_throttled(&counts(0, 0, 20)),
            "one address spraying accounts"
        );
        assert!(
            login_throttled(&counts(0, 100, 0)),
            "one account from everywhere"
        );
    }
}
