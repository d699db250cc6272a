//! Trip dates: the buyer's optional departure day, given at checkout or later on the order
//! page, and the reminder the outbox sends the day before (`orders::jobs::trip_reminder`).
//!
//! The date is stored on the checkout, and in the same transaction the checkout's
//! `email_trip_reminder` job is queued for its due time ([`TripDate::reminder_at`]), moved to
//! the new due time when the date changes, or ended when the date is removed. The job reads
//! the checkout again when it runs and decides then (see the job), so a time zone changed in
//! the console, a refund or a date changed on another replica since is what counts.
//!
//! Only the buyer sets the date: the buyer's private link (the cookie it leaves) opens the
//! form, never a traveller's link to one eSIM, and never a "My eSIMs" session.

use crate::db::outbox as jobs;
use crate::db::{self, DbConn, DbError, now_ms};
use crate::domain::PurchaseId;
use crate::domain::clock::ConsoleZone;
use crate::domain::job::JobKind;
use crate::domain::trip::{TripDate, TripDateError};
use crate::orders::Orders;
use crate::orders::links::{self, LinkPolicy};
use crate::orders::outbox::OutboxWaker;

/// A departure day as a form gave it: checked against today in the shop's zone, with the
/// time its reminder goes out (`None`: too late for one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TripAsk {
    pub date: TripDate,
    pub remind_at_ms: Option<i64>,
}

impl TripAsk {
    /// The field `raw` of a form, read at `now_ms` in `zone`; `Ok(None)` when left empty.
    pub fn parse(
        raw: &str,
        zone: &ConsoleZone,
        now_ms: i64,
    ) -> Result<Option<Self>, TripDateError> {
        let today = zone.today(now_ms).ok_or(TripDateError::NotADate)?;
        Ok(TripDate::parse(raw, today)?.map(|date| Self {
            date,
            remind_at_ms: date.reminder_at(zone, now_ms),
        }))
    }
}

/// Stores `ask` as checkout `checkout_id`'s departure day (`None` removes it) and queues,
/// re-times or ends its reminder, in the caller's transaction. Returns whether the checkout
/// exists.
pub fn record_in(
    conn: &mut DbConn,
    checkout_id: &PurchaseId,
    ask: Option<TripAsk>,
    now_ms: i64,
) -> Result<bool, DbError> {
    let date = ask.map(|a| a.date.iso());
    if !db::checkouts::set_trip_date(conn, checkout_id, date.as_deref())? {
        return Ok(false);
    }
    let kind = JobKind::EmailTripReminder.as_str();
    match ask.and_then(|a| a.remind_at_ms) {
        Some(at) => {
            if !jobs::insert_job(conn, kind, checkout_id, at, now_ms)? {
                jobs::retime_queued(conn, checkout_id, kind, at, now_ms)?;
            }
        }
        None => {
            jobs::cancel_queued(conn, checkout_id, kind, "no_trip_reminder_due", now_ms)?;
        }
    }
    Ok(true)
}

/// Why the order page's trip form was refused.
#[derive(Debug, thiserror::Error)]
pub enum TripError {
    /// Not the buyer's link (or no such order): the same answer as an unknown order.
    #[error("order not found")]
    NotFound,
    #[error(transparent)]
    Date(#[from] TripDateError),
    #[error(transparent)]
    Db(#[from] DbError),
}

impl From<diesel::result::Error> for TripError {
    fn from(e: diesel::result::Error) -> Self {
        Self::Db(DbError::Query(e))
    }
}

/// The departure day of checkout `id` when `token` is its buyer's live link (`Ok(None)`
/// without a date); [`TripError::NotFound`] for any other token or id.
pub async fn buyer_trip(
    orders: &Orders,
    id: &PurchaseId,
    token: &str,
    policy: LinkPolicy,
) -> Result<Option<TripDate>, TripError> {
    let (id, token) = (id.clone(), token.to_string());
    orders
        .db()
        .run(move |conn| {
            if !opens_as_buyer(conn, &id, &token, policy)? {
                return Err(TripError::NotFound);
            }
            Ok(db::checkouts::trip(conn, &id)?
                .and_then(|row| row.trip_date)
                .as_deref()
                .and_then(TripDate::stored))
        })
        .await
}

/// Sets the departure day of checkout `id` from the order page's field `raw` (empty removes
/// it), for the buyer's link `token` only, and wakes this process's workers when the reminder
/// is due at once.
pub async fn change_trip(
    orders: &Orders,
    waker: &OutboxWaker,
    id: &PurchaseId,
    token: &str,
    policy: LinkPolicy,
    raw: &str,
) -> Result<Option<TripDate>, TripError> {
    let now = now_ms();
    let zone = orders.identity.current().time_zone.clone();
    let ask = TripAsk::parse(raw, &zone, now)?;
    let (id, token) = (id.clone(), token.to_string());
    orders
        .db()
        .run(move |conn| {
            conn.write_tx(|conn| {
                if !opens_as_buyer(conn, &id, &token, policy)? || !record_in(conn, &id, ask, now)? {
                    return Err(TripError::NotFound);
                }
                Ok(())
            })
        })
        .await?;
    if ask.and_then(|a| a.remind_at_ms).is_some_and(|at| at <= now) {
        waker.wake();
    }
    Ok(ask.map(|a| a.date))
}

/// Whether `token` is a live buyer's link of checkout `id` (the link that opens the whole
/// checkout; a checkout's id is its first unit's).
fn opens_as_buyer(
    conn: &mut DbConn,
    id: &PurchaseId,
    token: &str,
    policy: LinkPolicy,
) -> Result<bool, DbError> {
    Ok(links::open(conn, id, token, policy, now_ms())?
        .is_some_and(|opened| opened.opens_checkout && opened.purchase.checkout_id == *id))
}
