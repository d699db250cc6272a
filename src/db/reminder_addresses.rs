//! Reminders of unfinished checkouts, per mailbox: when one was last sent (at most one a
//! week), whether the mailbox unsubscribed (then never again), and the unsubscribe links sent.
//! A mailbox is `orders::checkout::email_key` of the address (lower case, no `+tag`).

use diesel::prelude::*;

use crate::db::schema::{checkouts, purchases, reminder_addresses, unsubscribe_tokens};
use crate::db::{DbConn, DbError};
use crate::domain::purchase::PurchaseId;

/// A week, the least time between two reminders to one mailbox.
pub const WEEK_MS: i64 = 7 * 24 * 60 * 60 * 1000;

/// Records the buyer's consent on checkout `id`, in the caller's transaction.
pub fn consent(conn: &mut DbConn, id: &PurchaseId) -> Result<(), DbError> {
    diesel::update(checkouts::table.find(id))
        .set(checkouts::remind_unfinished.eq(true))
        .execute(conn)?;
    Ok(())
}

/// Whether checkout `id`'s buyer asked for the reminder.
pub fn consented(conn: &mut DbConn, id: &PurchaseId) -> Result<bool, DbError> {
    Ok(checkouts::table
        .find(id)
        .select(checkouts::remind_unfinished)
        .first::<bool>(conn)
        .optional()?
        .unwrap_or(false))
}

/// Whether `email_lower` paid for anything after `since_ms`.
pub fn paid_since(conn: &mut DbConn, email_lower: &str, since_ms: i64) -> Result<bool, DbError> {
    let paid: i64 = purchases::table
        .filter(purchases::email_lower.eq(email_lower))
        .filter(purchases::paid_at_ms.gt(since_ms))
        .count()
        .get_result(conn)?;
    Ok(paid > 0)
}

/// What taking a mailbox's weekly reminder came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// Taken for this checkout (also when this checkout took it before: a retried send).
    Taken,
    /// The mailbox unsubscribed.
    Unsubscribed,
    /// Another checkout's reminder went to it within the week.
    UsedThisWeek,
}

/// Takes `email_key`'s reminder of this week for checkout `checkout`, in the caller's write
/// transaction (the row is written before the email leaves, so two replicas running reminders
/// for two checkouts of one mailbox send one).
pub fn take_slot(
    conn: &mut DbConn,
    email_key: &str,
    checkout: &PurchaseId,
    now_ms: i64,
) -> Result<Slot, DbError> {
    let row: Option<(Option<i64>, Option<i64>, Option<String>)> = reminder_addresses::table
        .find(email_key)
        .select((
            reminder_addresses::last_reminded_at_ms,
            reminder_addresses::unsubscribed_at_ms,
            reminder_addresses::last_checkout_id,
        ))
        .first(conn)
        .optional()?;
    match row {
        None => {
            diesel::insert_into(reminder_addresses::table)
                .values((
                    reminder_addresses::email_key.eq(email_key),
                    reminder_addresses::last_reminded_at_ms.eq(Some(now_ms)),
                    reminder_addresses::last_checkout_id.eq(Some(checkout.as_str())),
                ))
                .execute(conn)?;
            Ok(Slot::Taken)
        }
        Some((_, Some(_), _)) => Ok(Slot::Unsubscribed),
        Some((_, None, Some(last))) if last == checkout.as_str() => Ok(Slot::Taken),
        Some((Some(at), None, _)) if now_ms.saturating_sub(at) < WEEK_MS => Ok(Slot::UsedThisWeek),
        Some(_) => {
            diesel::update(reminder_addresses::table.find(email_key))
                .set((
                    reminder_addresses::last_reminded_at_ms.eq(Some(now_ms)),
                    reminder_addresses::last_checkout_id.eq(Some(checkout.as_str())),
                ))
                .execute(conn)?;
            Ok(Slot::Taken)
        }
    }
}

/// Stores the hash of an unsubscribe link's token for `email_key`.
pub fn insert_token(
    conn: &mut DbConn,
    token_hash: &str,
    email_key: &str,
    now_ms: i64,
) -> Result<(), DbError> {
    diesel::insert_into(unsubscribe_tokens::table)
        .values((
            unsubscribe_tokens::token_hash.eq(token_hash),
            unsubscribe_tokens::email_key.eq(email_key),
            unsubscribe_tokens::created_at_ms.eq(now_ms),
        ))
        .execute(conn)?;
    Ok(())
}

/// The mailbox an unsubscribe token's hash names, if any.
pub fn mailbox_of(conn: &mut DbConn, token_hash: &str) -> Result<Option<String>, DbError> {
    Ok(unsubscribe_tokens::table
        .find(token_hash)
        .select(unsubscribe_tokens::email_key)
        .first(conn)
        .optional()?)
}

/// Unsubscribes `email_key` (kept as it was when already unsubscribed).
pub fn unsubscribe(conn: &mut DbConn, email_key: &str, now_ms: i64) -> Result<(), DbError> {
    let changed = diesel::update(
        reminder_addresses::table
            .find(email_key)
            .filter(reminder_addresses::unsubscribed_at_ms.is_null()),
    )
    .set(reminder_addresses::unsubscribed_at_ms.eq(Some(now_ms)))
    .execute(conn)?;
    if changed == 0 {
        let exists: i64 = reminder_addresses::table
            .find(email_key)
            .count()
            .get_result(conn)?;
        if exists == 0 {
            diesel::insert_into(reminder_addresses::table)
                .values((
                    reminder_addresses::email_key.eq(email_key),
                    reminder_addresses::unsubscribed_at_ms.eq(Some(now_ms)),
                ))
                .execute(conn)?;
        }
    }
    Ok(())
}
