//! The login throttle: every password (and every second-factor code) is reserved as an attempt
//! in the database before it is verified, in one transaction with the count that allowed it, so
//! parallel guesses count against the limit before any of them reaches Argon2, on any replica.
//! A verified attempt is then marked a success (no longer counted) or a failure; an attempt that
//! never got to verify anything (every hashing slot busy) is released.
//!
//! The current password asked on "Your account" is reserved the same way, under its own kind:
//! at most [`super::MAX_PASSWORD_CHANGE_FAILURES`] per account per
//! [`super::THROTTLE_WINDOW_MS`].
//!
//! Passwords are limited four ways ([`password_throttled`]): per account and client, per client
//! across accounts (spraying), and per account from everywhere, over 15 minutes and over an
//! hour. A client is a [`ClientKey`]: an IPv4 address or a whole IPv6 /64. Codes are limited per
//! account only (the password is already known). Nothing is locked for good: the refusal lasts
//! until old attempts leave the window.

use crate::db::login_attempts::{self as a, Counts, Kind, Outcome};
use crate::db::staff::{self as q, NewAudit};
use crate::db::{Db, DbConn, DbError, now_ms};
use crate::domain::ClientKey;

use super::action;

/// The short window every limit but the hourly one counts over.
pub const WINDOW_MS: i64 = 15 * 60 * 1000;
/// The long window of the hourly ceilings.
pub const LONG_WINDOW_MS: i64 = 60 * 60 * 1000;

/// Wrong passwords for one account from one client per [`WINDOW_MS`].
pub const MAX_PER_ACCOUNT_AND_CLIENT: i64 = 5;
/// Wrong passwords from one client for any accounts per [`WINDOW_MS`] (an office behind one NAT
/// counts once).
pub const MAX_PER_CLIENT: i64 = 20;
/// Wrong passwords for one account from all clients together per [`WINDOW_MS`]...
pub const MAX_PER_ACCOUNT: i64 = 10;
/// ...and per [`LONG_WINDOW_MS`]: at most 20 guesses an hour, 480 a day, per account.
pub const MAX_PER_ACCOUNT_HOURLY: i64 = 20;
/// Wrong TOTP or recovery codes per account per [`WINDOW_MS`].
pub const MAX_CODES_PER_ACCOUNT: i64 = 5;
/// ...and per [`LONG_WINDOW_MS`].
pub const MAX_CODES_PER_ACCOUNT_HOURLY: i64 = 10;
/// What a refused login answers in `Retry-After`, in seconds.
pub const RETRY_AFTER_SECS: i64 = WINDOW_MS / 1000;

/// Whether the next password is refused, given the attempts that were not successes.
pub fn password_throttled(recent: &Counts) -> bool {
    recent.pair >= MAX_PER_ACCOUNT_AND_CLIENT
        || recent.client >= MAX_PER_CLIENT
        || recent.actor >= MAX_PER_ACCOUNT
        || recent.actor_long >= MAX_PER_ACCOUNT_HOURLY
}

/// Whether the next code is refused.
pub fn code_throttled(recent: &Counts) -> bool {
    recent.actor >= MAX_CODES_PER_ACCOUNT || recent.actor_long >= MAX_CODES_PER_ACCOUNT_HOURLY
}

/// The window the per-account limits of `kind` count over.
fn short_window_ms(kind: Kind) -> i64 {
    match kind {
        Kind::Password | Kind::Totp => WINDOW_MS,
        Kind::PasswordChange => super::THROTTLE_WINDOW_MS,
    }
}

/// A reserved attempt; settle it once verified.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use = "a reservation counts as a failure until it is settled"]
pub struct Reservation {
    id: i64,
}

impl Reservation {
    /// Settles the attempt in the caller's transaction.
    pub fn settle_in(self, conn: &mut DbConn, outcome: Outcome) -> Result<(), DbError> {
        a::settle(conn, self.id, outcome)
    }

    pub async fn settle(self, db: &Db, outcome: Outcome) -> Result<(), DbError> {
        db.run(move |conn| a::settle(conn, self.id, outcome)).await
    }

    /// Forgets an attempt that verified nothing.
    pub async fn release(self, db: &Db) -> Result<(), DbError> {
        db.run(move |conn| a::release(conn, self.id)).await
    }
}

/// Reserves an attempt for `actor` from `client_addr`, or `None` when the limits refuse it. A
/// refusal is audited once per client and window, counted up in that entry's `repeats`
/// whatever address was typed, so hammering a throttled login with new addresses does not
/// grow the audit log.
pub async fn reserve(
    db: &Db,
    kind: Kind,
    actor: &str,
    client_addr: &str,
) -> Result<Option<Reservation>, DbError> {
    let (actor, client) = (actor.to_string(), client_addr.to_string());
    db.run(move |conn| {
        let now = now_ms();
        let allow = |counts: &Counts| match kind {
            Kind::Password => !password_throttled(counts),
            Kind::Totp => !code_throttled(counts),
            Kind::PasswordChange => counts.actor < super::MAX_PASSWORD_CHANGE_FAILURES,
        };
        let (noted_as, details) = match kind {
            Kind::Password => (action::LOGIN_THROTTLED, "too many failed logins"),
            Kind::Totp => (action::TOTP_THROTTLED, "too many wrong codes"),
            Kind::PasswordChange => (
                action::PASSWORD_CHANGE_FAILED,
                "too many wrong current passwords: refused unchecked",
            ),
        };
        let refused = |conn: &mut DbConn| {
            q::note_repeated_audit(
                conn,
                &NewAudit {
                    at_ms: now,
                    user_id: None,
                    actor: &actor,
                    action: noted_as,
                    target: None,
                    client_addr: &client,
                    details,
                },
                now - short_window_ms(kind),
            )
        };
        let (_, id) = a::reserve(
            conn,
            kind,
            &actor,
            &ClientKey::key_text(&client),
            now,
            now - short_window_ms(kind),
            now - LONG_WINDOW_MS,
            allow,
            refused,
        )?;
        Ok(id.map(|id| Reservation { id }))
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(pair: i64, actor: i64, actor_long: i64, client: i64) -> Counts {
        Counts {
            pair,
            actor,
            actor_long,
            client,
        }
    }

    #[test]
    fn each_password_budget_throttles_on_its_own() {
        assert!(!password_throttled(&counts(0, 0, 0, 0)));
        assert!(
            !password_throttled(&counts(4, 9, 19, 19)),
            "just below every limit"
        );
        assert!(
            password_throttled(&counts(5, 5, 5, 5)),
            "one account, one client"
        );
        assert!(
            password_throttled(&counts(0, 0, 0, 20)),
            "one client spraying"
        );
        assert!(
            password_throttled(&counts(0, 10, 10, 0)),
            "one account, everywhere"
        );
        assert!(
            password_throttled(&counts(0, 3, 20, 0)),
            "the hourly ceiling"
        );
    }

    #[test]
    fn codes_are_limited_per_account() {
        assert!(!code_throttled(&counts(4, 4, 9, 4)));
        assert!(code_throttled(&counts(0, 5, 5, 0)));
        assert!(code_throttled(&counts(0, 0, 10, 0)));
    }
}
