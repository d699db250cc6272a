//! Login attempts as the throttle counts them (`admin_login_attempts`). An attempt is reserved
//! (inserted as `pending`) before the password or code is verified, in one transaction with the
//! count that allowed it, and settled afterwards; every attempt that is not a success counts.
//! The audit log still records each outcome for people to read.

use diesel::prelude::*;

use crate::db::schema::admin_login_attempts;
use crate::db::{DbConn, DbError};

/// What is being guessed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Password,
    Totp,
    /// The current password on "Your account".
    PasswordChange,
}

impl Kind {
    fn as_str(self) -> &'static str {
        match self {
            Self::Password => "password",
            Self::Totp => "totp",
            Self::PasswordChange => "password_change",
        }
    }
}

/// How an attempt ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Failed,
    Success,
}

/// Attempts that were not successes, counted four ways since two points in time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counts {
    /// By this actor from this client, in the short window.
    pub pair: i64,
    /// By this actor from any client, in the short window.
    pub actor: i64,
    /// By this actor from any client, in the long window.
    pub actor_long: i64,
    /// From this client for any actor, in the short window.
    pub client: i64,
}

/// The PostgreSQL advisory lock that serialises reservations across replicas (SQLite's write
/// transaction already does).
const RESERVE_LOCK_KEY: i64 = 0x7374_6f72_6c6f_676e;

/// Counts the recent attempts and, when `allow` says so, reserves one more, all under one
/// lock: two replicas cannot both see the last free place. When `allow` refuses, `refused`
/// records the refusal in the same transaction. Returns the counts and the new attempt's id
/// (`None` when refused). Attempts older than `long_since_ms` are deleted on the way.
#[expect(
    clippy::too_many_arguments,
    reason = "one call site, each a plain value"
)]
pub fn reserve(
    conn: &mut DbConn,
    kind: Kind,
    actor: &str,
    client_key: &str,
    now_ms: i64,
    short_since_ms: i64,
    long_since_ms: i64,
    allow: impl FnOnce(&Counts) -> bool,
    refused: impl FnOnce(&mut DbConn) -> Result<(), DbError>,
) -> Result<(Counts, Option<i64>), DbError> {
    conn.write_tx(|conn| {
        if let DbConn::Postgres(pg) = conn {
            diesel::sql_query("SELECT pg_advisory_xact_lock($1)")
                .bind::<diesel::sql_types::BigInt, _>(RESERVE_LOCK_KEY)
                .execute(pg)?;
        }
        diesel::delete(
            admin_login_attempts::table.filter(admin_login_attempts::at_ms.lt(long_since_ms)),
        )
        .execute(conn)?;
        let counted = |since: i64| {
            admin_login_attempts::table
                .filter(admin_login_attempts::kind.eq(kind.as_str()))
                .filter(admin_login_attempts::state.ne("success"))
                .filter(admin_login_attempts::at_ms.ge(since))
        };
        let counts = Counts {
            pair: counted(short_since_ms)
                .filter(admin_login_attempts::actor.eq(actor))
                .filter(admin_login_attempts::client_key.eq(client_key))
                .count()
                .get_result(conn)?,
            actor: counted(short_since_ms)
                .filter(admin_login_attempts::actor.eq(actor))
                .count()
                .get_result(conn)?,
            actor_long: counted(long_since_ms)
                .filter(admin_login_attempts::actor.eq(actor))
                .count()
                .get_result(conn)?,
            client: counted(short_since_ms)
                .filter(admin_login_attempts::client_key.eq(client_key))
                .count()
                .get_result(conn)?,
        };
        if !allow(&counts) {
            refused(conn)?;
            return Ok((counts, None));
        }
        let id: i64 = diesel::insert_into(admin_login_attempts::table)
            .values((
                admin_login_attempts::kind.eq(kind.as_str()),
                admin_login_attempts::actor.eq(actor),
                admin_login_attempts::client_key.eq(client_key),
                admin_login_attempts::at_ms.eq(now_ms),
                admin_login_attempts::state.eq("pending"),
            ))
            .returning(admin_login_attempts::id)
            .get_result(conn)?;
        Ok((counts, Some(id)))
    })
}

/// Records how a reserved attempt ended.
pub fn settle(conn: &mut DbConn, id: i64, outcome: Outcome) -> Result<(), DbError> {
    let state = match outcome {
        Outcome::Failed => "failed",
        Outcome::Success => "success",
    };
    diesel::update(admin_login_attempts::table.find(id))
        .set(admin_login_attempts::state.eq(state))
        .execute(conn)?;
    Ok(())
}

/// Forgets a reserved attempt that never got to verify anything (every hashing slot was busy).
pub fn release(conn: &mut DbConn, id: i64) -> Result<(), DbError> {
    diesel::delete(admin_login_attempts::table.find(id)).execute(conn)?;
    Ok(())
}
