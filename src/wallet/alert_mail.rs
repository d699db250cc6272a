//! Alert emails to the owners, made durable. Raising a shop alert queues one `alert_emails` row
//! per active owner in the same transaction ([`queue_for_owners`]); [`deliver_due`] sends what
//! is due, right after the alert is raised and again every minute from the wallet watcher,
//! until the mail server has taken each message.
//!
//! A transient failure (server unreachable, a 4xx reply) is retried with backoff: 1, 2, 4 …
//! minutes, at most 30. A permanent refusal is recorded and logged, not retried. An alert that
//! is resolved before its email went out drops the email: the news would be stale. Like the
//! consumer emails, delivery is at least once: a crash between the server's acceptance and
//! the recorded outcome sends that email again once the claim has expired.

use url::Url;

use crate::db::alert_mail::{self as q, DROPPED, DueEmail, FAILED, PENDING, SENT};
use crate::db::{Db, DbConn, DbError, now_ms};
use crate::mail::{AlertKind, OutgoingEmail};
use crate::orders::notify::Notifier;
use crate::staff;

/// How long one attempt may take before another process may try the same row again.
const CLAIM_MS: i64 = 5 * 60_000;
const FIRST_RETRY_MS: i64 = 60_000;
const MAX_RETRY_MS: i64 = 30 * 60_000;
/// Rows looked at per call; the rest wait for the next one.
const BATCH: i64 = 50;

/// Queues the alert's email to every active owner, in the caller's transaction.
pub fn queue_for_owners(conn: &mut DbConn, alert_id: i64, now_ms: i64) -> Result<usize, DbError> {
    let owners = crate::db::staff::owner_emails(conn)?;
    q::queue(conn, alert_id, &owners, now_ms)
}

/// When to try again after `attempts` failed attempts.
fn retry_delay_ms(attempts: i32) -> i64 {
    let doublings = u32::try_from(attempts.saturating_sub(1).clamp(0, 16)).unwrap_or(16);
    FIRST_RETRY_MS
        .saturating_mul(1_i64 << doublings)
        .min(MAX_RETRY_MS)
}

/// The console page an alert is about.
fn details_path(email: &DueEmail) -> String {
    match (&email.alert_purchase_id, email.alert_kind.as_str()) {
        (Some(purchase), _) => format!("/admin/orders/{purchase}"),
        (None, "low_balance" | "insufficient_balance") => "/admin/wallet".into(),
        (None, _) => "/admin".into(),
    }
}

/// What one attempt came to: the row's new state, when to try next, and why.
struct Outcome {
    state: &'static str,
    next_attempt_ms: i64,
    error: Option<String>,
}

async fn attempt(notifier: &Notifier, email: &DueEmail, attempts: i32) -> Outcome {
    let now = now_ms();
    let give_up = |error: String| Outcome {
        state: FAILED,
        next_attempt_ms: now,
        error: Some(error),
    };
    let Some(kind) = AlertKind::parse(&email.alert_kind) else {
        return give_up(format!(
            "no email is written for {:?} alerts",
            email.alert_kind
        ));
    };
    let Ok(to) = staff::admin_email(&email.recipient) else {
        return give_up("the owner's address is not a valid email address".into());
    };
    let url: Url = match notifier.public_url.join(&details_path(email)) {
        Ok(url) => url,
        Err(err) => return give_up(format!("no link to the console: {err}")),
    };
    let sent = match OutgoingEmail::alert(to, kind, &email.alert_message, &url) {
        Ok(message) => notifier.mailer.send(&message).await,
        Err(err) => Err(err),
    };
    match sent {
        Ok(()) => Outcome {
            state: SENT,
            next_attempt_ms: now,
            error: None,
        },
        Err(err) if err.is_transient() => Outcome {
            state: PENDING,
            next_attempt_ms: now.saturating_add(retry_delay_ms(attempts)),
            error: Some(err.to_string()),
        },
        Err(err) => give_up(err.to_string()),
    }
}

/// Sends the alert emails that are due; returns how many went out. Without a mail transport
/// nothing is sent and the rows wait.
pub async fn deliver_due(db: &Db, notifier: Option<&Notifier>) -> Result<usize, DbError> {
    let Some(notifier) = notifier else {
        return Ok(0);
    };
    let due = db.run(|conn| q::due(conn, now_ms(), BATCH)).await?;
    let mut sent = 0;
    for email in due {
        let id = email.id;
        if email.alert_resolved_at_ms.is_some() {
            db.run(move |conn| {
                let now = now_ms();
                q::record(
                    conn,
                    id,
                    DROPPED,
                    now,
                    Some("the alert was resolved first"),
                    now,
                )
            })
            .await?;
            continue;
        }
        let claimed = db
            .run(move |conn| {
                let now = now_ms();
                q::claim(conn, id, now, now + CLAIM_MS)
            })
            .await?;
        if !claimed {
            continue;
        }
        let attempts = email.attempts.saturating_add(1);
        let outcome = attempt(notifier, &email, attempts).await;
        match outcome.state {
            SENT => sent += 1,
            PENDING => tracing::warn!(
                alert_email.id = id,
                alert_email.attempts = attempts,
                error = outcome.error.as_deref().unwrap_or_default(),
                "alert email not sent; it will be retried"
            ),
            _ => tracing::error!(
                alert_email.id = id,
                error = outcome.error.as_deref().unwrap_or_default(),
                "alert email refused for good"
            ),
        }
        db.run(move |conn| {
            q::record(
                conn,
                id,
                outcome.state,
                outcome.next_attempt_ms,
                outcome.error.as_deref(),
                now_ms(),
            )
        })
        .await?;
    }
    Ok(sent)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_back_off_to_half_an_hour() {
        let minutes: Vec<i64> = (1..=7).map(|n| retry_delay_ms(n) / 60_000).collect();
        assert_eq!(minutes, [1, 2, 4, 8, 16, 30, 30]);
        assert_eq!(retry_delay_ms(i32::MAX), MAX_RETRY_MS);
        assert_eq!(retry_delay_ms(0), FIRST_RETRY_MS);
    }
}
