//! Admin accounts: users and roles, argon2id passwords, database-backed sessions, login
//! throttling and the audit log; managing the accounts from the console is in [`users`].
//!
//! A disabled account cannot log in (the answer is the same as for a wrong password) and its
//! sessions stop working at once.
//!
//! Everything a replica needs is in the database (sessions, the attempts that throttle logins),
//! so any replica can serve any admin request. Every password is reserved as an attempt before
//! Argon2 sees it ([`throttle`]: per account and client, per client, per account everywhere over
//! 15 minutes and an hour; IPv6 clients by /64), so parallel guesses cannot outrun the limit.
//!
//! An account with TOTP ([`totp`]) signs in in two steps: the right password opens a session
//! that may only enter the code (or a recovery code); the code replaces it with a full session.
//! When an owner requires TOTP for all, an account without it gets a session that may only
//! enrol.

pub mod audit;
pub mod password;
pub mod session;
pub mod throttle;
pub mod totp;
pub mod users;

use std::fmt;

use crate::db::login_attempts::{Kind as AttemptKind, Outcome as AttemptOutcome};
use crate::db::staff::{self as q, NewAudit, SessionRow};
use crate::db::{Db, DbConn, DbError};
use crate::domain::{Email, EmailError};
pub use password::{NewPassword, PasswordError};
pub use session::SessionToken;

/// Wrong current passwords on "Your account" per account (only a signed-in session of that
/// account can produce them).
pub const MAX_PASSWORD_CHANGE_FAILURES: i64 = 5;
/// The window [`MAX_PASSWORD_CHANGE_FAILURES`] counts over (logins: [`throttle`]).
pub const THROTTLE_WINDOW_MS: i64 = 60 * 1000;

/// Audit actions, every one the console writes.
pub mod action {
    pub const LOGIN: &str = "login";
    pub const LOGIN_FAILED: &str = "login_failed";
    pub const LOGIN_THROTTLED: &str = "login_throttled";
    /// The password was right; the login waits for the second factor or enrolment.
    pub const LOGIN_PASSWORD_OK: &str = "login_password_ok";
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
    /// The customer's address corrected, with a new link sent to it.
    pub const ORDER_EMAIL_CORRECTED: &str = "order_email_corrected";
    pub const PLACEMENTS_RETRY: &str = "placements_retry";
    pub const TOTP_ENROLMENT_STARTED: &str = "totp_enrolment_started";
    pub const TOTP_ENABLED: &str = "totp_enabled";
    pub const TOTP_FAILED: &str = "totp_failed";
    pub const TOTP_THROTTLED: &str = "totp_throttled";
    pub const TOTP_RECOVERY_CODES_RENEWED: &str = "totp_recovery_codes_renewed";
    pub const TOTP_RESET: &str = "totp_reset";
    pub const TOTP_REQUIRED: &str = "totp_required";
    pub const TOTP_NOT_REQUIRED: &str = "totp_not_required";
    pub const PRICING_RULE_SAVED: &str = "pricing_rule_saved";
    pub const PRICING_RULE_DELETED: &str = "pricing_rule_deleted";
    pub const PROMO_CODE_CREATED: &str = "promo_code_created";
    pub const PROMO_CODE_CHANGED: &str = "promo_code_changed";
    pub const PROMO_CODE_DISABLED: &str = "promo_code_disabled";
    pub const PROMO_CODE_ENABLED: &str = "promo_code_enabled";
    pub const DISPLAY_RATE_SET: &str = "display_rate_set";
    pub const DISPLAY_RATE_CLEARED: &str = "display_rate_cleared";
    /// The owner's tax mode changed (off, prices include tax, tax added on top).
    pub const TAX_MODE_SET: &str = "tax_mode_set";
    /// A country's rate in the owner's tax table set or removed.
    pub const TAX_RATE_SET: &str = "tax_rate_set";
    pub const TAX_RATE_REMOVED: &str = "tax_rate_removed";
    /// The owner's own names of a region changed.
    pub const REGION_NAMES_SAVED: &str = "region_names_saved";
    pub const SHOP_IDENTITY_SAVED: &str = "shop_identity_saved";
    pub const SHOP_LOGO_SET: &str = "shop_logo_set";
    pub const CONSOLE_TIME_ZONE_SET: &str = "console_time_zone_set";
    pub const SHOP_LOGO_REMOVED: &str = "shop_logo_removed";
    /// A legal text (terms, privacy, refunds, imprint) saved by the owner.
    pub const LEGAL_TEXT_EDITED: &str = "legal_text_edited";
    /// A legal text confirmed as it stands, without changes.
    pub const LEGAL_TEXT_REVIEWED: &str = "legal_text_reviewed";
    /// A mismatch in the books explained by the owner, with a note.
    pub const BOOKS_MISMATCH_EXPLAINED: &str = "books_mismatch_explained";
    /// A top-up created upstream by its form's first submission.
    pub const WALLET_TOPUP_CREATED: &str = "wallet_topup_created";
    /// A later submission of the same top-up form (same key, same session).
    pub const WALLET_TOPUP_RESUBMITTED: &str = "wallet_topup_resubmitted";
    /// A top-up submission that did not lead to a payment page.
    pub const WALLET_TOPUP_FAILED: &str = "wallet_topup_failed";

    /// An audit action in the owner's words (`Wallet top-up created`); one this version does
    /// not write reads as its words with the underscores made spaces.
    pub fn label(raw: &str) -> String {
        let known = match raw {
            LOGIN => "Signed in",
            LOGIN_FAILED => "Sign-in refused",
            LOGIN_THROTTLED => "Sign-in blocked after too many tries",
            LOGIN_PASSWORD_OK => "Password accepted, second step asked",
            LOGOUT => "Signed out",
            USER_CREATED => "Account created",
            USER_ROLE_CHANGED => "Account role changed",
            USER_DISABLED => "Account disabled",
            USER_ENABLED => "Account enabled",
            USER_PASSWORD_RESET => "Account password reset",
            PASSWORD_CHANGED => "Own password changed",
            PASSWORD_CHANGE_FAILED => "Own password change refused",
            ORDER_NOTE => "Order note added",
            ORDER_RETRY => "Order retried",
            ORDER_REFUND => "Order refunded",
            ORDER_RESOLVE => "Order alerts resolved",
            ORDER_RESEND_EMAIL => "Delivery email sent again",
            ORDER_REVOKE_LINKS => "Order links revoked",
            ORDER_SEND_LINK => "New order link emailed",
            ORDER_EMAIL_CORRECTED => "Customer email corrected",
            PLACEMENTS_RETRY => "Waiting orders sent again",
            TOTP_ENROLMENT_STARTED => "Two-step sign-in set-up started",
            TOTP_ENABLED => "Two-step sign-in turned on",
            TOTP_FAILED => "Two-step code refused",
            TOTP_THROTTLED => "Two-step sign-in blocked after too many tries",
            TOTP_RECOVERY_CODES_RENEWED => "Recovery codes renewed",
            TOTP_RESET => "Two-step sign-in reset",
            TOTP_REQUIRED => "Two-step sign-in made required",
            TOTP_NOT_REQUIRED => "Two-step sign-in made optional",
            PRICING_RULE_SAVED => "Pricing rule saved",
            PRICING_RULE_DELETED => "Pricing rule removed",
            PROMO_CODE_CREATED => "Promotion code created",
            PROMO_CODE_CHANGED => "Promotion code changed",
            PROMO_CODE_DISABLED => "Promotion code disabled",
            PROMO_CODE_ENABLED => "Promotion code enabled",
            DISPLAY_RATE_SET => "Display currency rate set",
            DISPLAY_RATE_CLEARED => "Display currency rate removed",
            TAX_MODE_SET => "Tax setting changed",
            TAX_RATE_SET => "Tax rate set",
            TAX_RATE_REMOVED => "Tax rate removed",
            REGION_NAMES_SAVED => "Region names changed",
            SHOP_IDENTITY_SAVED => "Shop details saved",
            SHOP_LOGO_SET => "Shop logo uploaded",
            CONSOLE_TIME_ZONE_SET => "Console time zone changed",
            SHOP_LOGO_REMOVED => "Shop logo removed",
            LEGAL_TEXT_EDITED => "Legal page edited",
            LEGAL_TEXT_REVIEWED => "Legal page marked as reviewed",
            BOOKS_MISMATCH_EXPLAINED => "Books difference explained",
            WALLET_TOPUP_CREATED => "Wallet top-up created",
            WALLET_TOPUP_RESUBMITTED => "Wallet top-up form sent again",
            WALLET_TOPUP_FAILED => "Wallet top-up failed",
            _ => "",
        };
        if known.is_empty() {
            let words = raw.replace('_', " ");
            let mut chars = words.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_uppercase().chain(chars).collect()
            })
        } else {
            known.to_string()
        }
    }

    /// The money actions: what moves money (refunds, orders placed again at the shop's cost,
    /// wallet top-ups, resolving a purchase's problem, which may absorb its cost) or changes
    /// what customers pay (markup rules, promotion codes, display rates, tax). The audit retention
    /// keeps them at least a year ([`super::audit`]), whatever the configured retention.
    pub const MONEY: &[&str] = &[
        ORDER_REFUND,
        ORDER_RETRY,
        ORDER_RESOLVE,
        PLACEMENTS_RETRY,
        WALLET_TOPUP_CREATED,
        WALLET_TOPUP_RESUBMITTED,
        WALLET_TOPUP_FAILED,
        PRICING_RULE_SAVED,
        PRICING_RULE_DELETED,
        PROMO_CODE_CREATED,
        PROMO_CODE_CHANGED,
        PROMO_CODE_DISABLED,
        PROMO_CODE_ENABLED,
        DISPLAY_RATE_SET,
        DISPLAY_RATE_CLEARED,
        TAX_MODE_SET,
        TAX_RATE_SET,
        TAX_RATE_REMOVED,
        BOOKS_MISMATCH_EXPLAINED,
    ];
}

/// What a session may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Everything its role allows.
    Full,
    /// The password was right; only the TOTP code (or a recovery code) may be entered.
    Totp,
    /// The password was right, TOTP is required for all and the account has none: only
    /// enrolment.
    Enrol,
}

impl Stage {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Full => "full",
            Self::Totp => "totp",
            Self::Enrol => "enrol",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        match raw {
            "full" => Some(Self::Full),
            "totp" => Some(Self::Totp),
            "enrol" => Some(Self::Enrol),
            _ => None,
        }
    }
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

/// The console's accounts as a service: what the web layer holds to sign admins in, manage
/// accounts and read the audit log. Each capability function takes it and reaches the
/// database through it, so no handler handles the database itself.
#[derive(Clone)]
pub struct Staff {
    db: Db,
}

impl Staff {
    pub fn new(db: Db) -> Self {
        Self { db }
    }

    pub(crate) fn db(&self) -> &Db {
        &self.db
    }
}

/// Enrolment takes the service or, for tests that stage an enrolment, the database itself.
impl AsRef<Db> for Staff {
    fn as_ref(&self) -> &Db {
        &self.db
    }
}

/// A signed-in admin, as a request sees them.
#[derive(Clone)]
pub struct Admin {
    pub user_id: i64,
    pub email: String,
    pub role: Role,
    /// Identifies the session in the database (the hash, not the cookie value).
    pub session_hash: String,
    pub stage: Stage,
}

impl fmt::Debug for Admin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Admin")
            .field("user_id", &self.user_id)
            .field("role", &self.role)
            .field("stage", &self.stage)
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
    /// The password was right: the browser gets `token`; any session it presented is gone.
    /// `admin.stage` says whether the session is full or waits for TOTP or enrolment.
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
    staff: &Staff,
    email_raw: &str,
    password: String,
    client_addr: &str,
    previous: Option<SessionToken>,
) -> Result<LoginOutcome, AccountsError> {
    let db = staff.db();
    // The throttle counts by what was typed when it is not an email at all.
    let actor: String = match admin_email(email_raw) {
        Ok(email) => email.as_str().to_string(),
        Err(_) => email_raw.trim().to_lowercase().chars().take(254).collect(),
    };
    // Counted before Argon2 runs: a burst of guesses is refused past the limit, not verified.
    let Some(reservation) =
        throttle::reserve(db, AttemptKind::Password, &actor, client_addr).await?
    else {
        return Ok(LoginOutcome::Throttled);
    };
    let lookup_actor = actor.clone();
    let user = db
        .run(move |conn| q::find_user_by_email(conn, &lookup_actor))
        .await?;
    let stored = user.as_ref().map(|u| u.password_hash.clone());
    let verified = match password::verify_blocking(password, stored).await {
        Ok(verified) => verified,
        Err(err) => {
            // Nothing was verified (every hashing slot was busy): the attempt does not count.
            reservation.release(db).await?;
            return Err(err.into());
        }
    };
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
                conn.write_tx(|conn| {
                    reservation.settle_in(conn, AttemptOutcome::Failed)?;
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
            })
            .await?;
            return Ok(LoginOutcome::Failed);
        }
    };
    let Some(role) = Role::parse(&user.role) else {
        tracing::error!(admin.id = user.id, "admin account has an unknown role");
        reservation.settle(db, AttemptOutcome::Failed).await?;
        return Ok(LoginOutcome::Failed);
    };
    let token = SessionToken::generate();
    let mut admin = Admin {
        user_id: user.id,
        email: user.email.clone(),
        role,
        session_hash: token.hash(),
        stage: Stage::Full,
    };
    let row_admin = admin.clone();
    let stage = db
        .run(move |conn| {
            let now = crate::db::now_ms();
            conn.write_tx(|conn| {
                let stage = totp::stage_after_password(conn, row_admin.user_id)?;
                q::delete_expired_sessions(
                    conn,
                    now - session::IDLE_MS,
                    now - session::ABSOLUTE_MS,
                )?;
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
                        stage: stage.as_str().to_string(),
                    },
                )?;
                if let password::Verified::YesRehashed(new_hash) = &verified {
                    q::set_password_hash(conn, row_admin.user_id, new_hash, now)?;
                }
                // The password guess is over either way; a second factor is throttled on its own.
                reservation.settle_in(conn, AttemptOutcome::Success)?;
                let rehashed = matches!(verified, password::Verified::YesRehashed(_));
                let (audited, details) = match (stage, rehashed) {
                    (Stage::Full, false) => (action::LOGIN, "signed in"),
                    (Stage::Full, true) => (
                        action::LOGIN,
                        "signed in; password rehashed with current parameters",
                    ),
                    (Stage::Totp, _) => (
                        action::LOGIN_PASSWORD_OK,
                        "right password; waiting for the TOTP code",
                    ),
                    (Stage::Enrol, _) => (
                        action::LOGIN_PASSWORD_OK,
                        "right password; TOTP is required for all: sent to enrolment",
                    ),
                };
                if stage == Stage::Full {
                    q::set_last_login(conn, row_admin.user_id, now)?;
                }
                row_admin.audit(conn, audited, None, &client, details, now)?;
                Ok::<_, DbError>(stage)
            })
        })
        .await?;
    admin.stage = stage;
    Ok(LoginOutcome::Success { admin, token })
}

/// The admin behind a session cookie, if the session is alive. A dead session is deleted.
pub async fn authenticate(staff: &Staff, token: SessionToken) -> Result<Option<Admin>, DbError> {
    let db = staff.db();
    let id_hash = token.hash();
    db.run(move |conn| {
        let now = crate::db::now_ms();
        let Some((session, user)) = q::find_session(conn, &id_hash)? else {
            return Ok(None);
        };
        let Some(stage) = Stage::parse(&session.stage) else {
            return Ok(None);
        };
        if !session::is_alive(session.created_at_ms, session.last_seen_ms, now)
            || !totp::pending_alive(stage, session.created_at_ms, now)
            || !user.is_active()
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
            stage,
        }))
    })
    .await
}

/// Ends the session server-side and records the logout.
pub async fn logout(staff: &Staff, admin: Admin, client_addr: &str) -> Result<(), DbError> {
    let db = staff.db();
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
