//! Alert emails to the owners (`alert_emails`): one row per alert and recipient, kept until the
//! mail server has taken the message. A row is claimed for one attempt by moving its
//! `next_attempt_ms` past the attempt's end, so two processes (or a page view and the wallet
//! watcher) never send the same row at the same time.

use diesel::prelude::*;

use crate::db::schema::{alert_emails, alerts};
use crate::db::{DbConn, DbError};

pub const PENDING: &str = "pending";
pub const SENT: &str = "sent";
/// The alert was resolved before its email could go out.
pub const DROPPED: &str = "dropped";
/// The mail server refused the message for good.
pub const FAILED: &str = "failed";

/// A pending email that is due, with the alert it tells about.
#[derive(Debug, Clone, PartialEq, Eq, Queryable)]
pub struct DueEmail {
    pub id: i64,
    pub recipient: String,
    pub attempts: i32,
    pub alert_kind: String,
    pub alert_purchase_id: Option<String>,
    pub alert_message: String,
    pub alert_resolved_at_ms: Option<i64>,
}

/// Queues the alert's email to each recipient, once: a recipient already queued for this alert
/// is skipped. Returns how many rows were added.
pub fn queue(
    conn: &mut DbConn,
    alert_id: i64,
    recipients: &[String],
    now_ms: i64,
) -> Result<usize, DbError> {
    let mut added = 0;
    for recipient in recipients {
        added += crate::with_inner!(&mut *conn, |c| {
            diesel::insert_into(alert_emails::table)
                .values((
                    alert_emails::alert_id.eq(alert_id),
                    alert_emails::recipient.eq(recipient),
                    alert_emails::state.eq(PENDING),
                    alert_emails::attempts.eq(0),
                    alert_emails::next_attempt_ms.eq(now_ms),
                    alert_emails::created_at_ms.eq(now_ms),
                    alert_emails::updated_at_ms.eq(now_ms),
                ))
                .on_conflict((alert_emails::alert_id, alert_emails::recipient))
                .do_nothing()
                .execute(c)
        })?;
    }
    Ok(added)
}

/// Pending emails due at `now_ms`, oldest first.
pub fn due(conn: &mut DbConn, now_ms: i64, limit: i64) -> Result<Vec<DueEmail>, DbError> {
    Ok(alert_emails::table
        .inner_join(alerts::table)
        .filter(alert_emails::state.eq(PENDING))
        .filter(alert_emails::next_attempt_ms.le(now_ms))
        .order(alert_emails::id)
        .limit(limit)
        .select((
            alert_emails::id,
            alert_emails::recipient,
            alert_emails::attempts,
            alerts::kind,
            alerts::purchase_id,
            alerts::message,
            alerts::resolved_at_ms,
        ))
        .load(conn)?)
}

/// Claims a due row for one attempt until `until_ms`, counting the attempt. False when another
/// process claimed it first or it is no longer pending.
pub fn claim(conn: &mut DbConn, id: i64, now_ms: i64, until_ms: i64) -> Result<bool, DbError> {
    let claimed = diesel::update(
        alert_emails::table
            .find(id)
            .filter(alert_emails::state.eq(PENDING))
            .filter(alert_emails::next_attempt_ms.le(now_ms)),
    )
    .set((
        alert_emails::attempts.eq(alert_emails::attempts + 1),
        alert_emails::next_attempt_ms.eq(until_ms),
        alert_emails::updated_at_ms.eq(now_ms),
    ))
    .execute(conn)?;
    Ok(claimed == 1)
}

/// Records the outcome of an attempt: `state` (`SENT`, `DROPPED`, `FAILED`), or still `PENDING`
/// with the next attempt at `next_attempt_ms`.
pub fn record(
    conn: &mut DbConn,
    id: i64,
    state: &str,
    next_attempt_ms: i64,
    error: Option<&str>,
    now_ms: i64,
) -> Result<(), DbError> {
    diesel::update(alert_emails::table.find(id))
        .set((
            alert_emails::state.eq(state),
            alert_emails::next_attempt_ms.eq(next_attempt_ms),
            alert_emails::last_error.eq(error),
            alert_emails::sent_at_ms.eq((state == SENT).then_some(now_ms)),
            alert_emails::updated_at_ms.eq(now_ms),
        ))
        .execute(conn)?;
    Ok(())
}
