//! "Lost your link?" requests (`lost_link_requests`): one row per lowercased address, which is
//! both the queued email and the per-address limit. The customer's paid purchases, for the
//! email, are read here too.

use diesel::prelude::*;

use crate::db::purchases::Purchase;
use crate::db::schema::{lost_link_requests, purchases};
use crate::db::{DbConn, DbError};
use crate::domain::purchase::PurchaseStatus;

diesel::define_sql_function!(fn lower(x: diesel::sql_types::Text) -> diesel::sql_types::Text);

pub const PENDING: &str = "pending";
pub const SENT: &str = "sent";
/// Looked up: the address has no paid orders, so nothing was sent.
pub const NO_ORDERS: &str = "no_orders";
/// The mail server refused the message for good.
pub const FAILED: &str = "failed";

/// Queues an email to `email` (already lowercased), written in `language`, unless one was
/// requested for it in the last `window_ms`; returns whether it was queued. In the caller's
/// transaction.
pub fn request(
    conn: &mut DbConn,
    email: &str,
    language: &str,
    now_ms: i64,
    window_ms: i64,
) -> Result<bool, DbError> {
    let inserted = crate::with_inner!(&mut *conn, |c| {
        diesel::insert_into(lost_link_requests::table)
            .values((
                lost_link_requests::email.eq(email),
                lost_link_requests::requested_at_ms.eq(now_ms),
                lost_link_requests::state.eq(PENDING),
                lost_link_requests::attempts.eq(0),
                lost_link_requests::next_attempt_ms.eq(now_ms),
                lost_link_requests::language.eq(language),
            ))
            .on_conflict(lost_link_requests::email)
            .do_nothing()
            .execute(c)
    })?;
    if inserted == 1 {
        return Ok(true);
    }
    let renewed = diesel::update(
        lost_link_requests::table
            .find(email)
            .filter(lost_link_requests::requested_at_ms.le(now_ms.saturating_sub(window_ms))),
    )
    .set((
        lost_link_requests::requested_at_ms.eq(now_ms),
        lost_link_requests::state.eq(PENDING),
        lost_link_requests::attempts.eq(0),
        lost_link_requests::next_attempt_ms.eq(now_ms),
        lost_link_requests::last_error.eq(None::<String>),
        lost_link_requests::language.eq(language),
    ))
    .execute(conn)?;
    Ok(renewed == 1)
}

/// A queued request that is due: its address, how many attempts it had, and the language of
/// the email.
pub fn due(
    conn: &mut DbConn,
    now_ms: i64,
    limit: i64,
) -> Result<Vec<(String, i32, String)>, DbError> {
    Ok(lost_link_requests::table
        .filter(lost_link_requests::state.eq(PENDING))
        .filter(lost_link_requests::next_attempt_ms.le(now_ms))
        .order(lost_link_requests::next_attempt_ms)
        .limit(limit)
        .select((
            lost_link_requests::email,
            lost_link_requests::attempts,
            lost_link_requests::language,
        ))
        .load(conn)?)
}

/// Takes the request for one attempt (until `until_ms`); false when another process has it.
pub fn claim(conn: &mut DbConn, email: &str, now_ms: i64, until_ms: i64) -> Result<bool, DbError> {
    let claimed = diesel::update(
        lost_link_requests::table
            .find(email)
            .filter(lost_link_requests::state.eq(PENDING))
            .filter(lost_link_requests::next_attempt_ms.le(now_ms)),
    )
    .set((
        lost_link_requests::attempts.eq(lost_link_requests::attempts + 1),
        lost_link_requests::next_attempt_ms.eq(until_ms),
    ))
    .execute(conn)?;
    Ok(claimed == 1)
}

/// Records what an attempt came to.
pub fn record(
    conn: &mut DbConn,
    email: &str,
    state: &str,
    next_attempt_ms: i64,
    error: Option<&str>,
) -> Result<(), DbError> {
    diesel::update(lost_link_requests::table.find(email))
        .set((
            lost_link_requests::state.eq(state),
            lost_link_requests::next_attempt_ms.eq(next_attempt_ms),
            lost_link_requests::last_error.eq(error),
        ))
        .execute(conn)?;
    Ok(())
}

/// The state of the request for `email`, if there is one.
pub fn state_of(conn: &mut DbConn, email: &str) -> Result<Option<String>, DbError> {
    Ok(lost_link_requests::table
        .find(email)
        .select(lost_link_requests::state)
        .first(conn)
        .optional()?)
}

/// Forgets the handled requests (sent, no orders, failed) made before `before_ms`: the address
/// is kept only as long as it is needed. Returns how many were removed.
pub fn forget_handled(conn: &mut DbConn, before_ms: i64) -> Result<usize, DbError> {
    Ok(diesel::delete(
        lost_link_requests::table
            .filter(lost_link_requests::state.ne(PENDING))
            .filter(lost_link_requests::requested_at_ms.lt(before_ms)),
    )
    .execute(conn)?)
}

/// Statuses of purchases that were paid: the customer has an order page worth a link.
pub const PAID_STATUSES: [PurchaseStatus; 7] = [
    PurchaseStatus::Paid,
    PurchaseStatus::Ordered,
    PurchaseStatus::Provisioning,
    PurchaseStatus::Fulfilled,
    PurchaseStatus::NeedsAttention,
    PurchaseStatus::Failed,
    PurchaseStatus::Refunded,
];

/// The paid purchases made with `email` (any case), newest first, at most `limit`.
pub fn paid_purchases(
    conn: &mut DbConn,
    email: &str,
    limit: i64,
) -> Result<Vec<Purchase>, DbError> {
    let statuses: Vec<&str> = PAID_STATUSES.iter().map(|s| s.as_str()).collect();
    Ok(purchases::table
        .filter(lower(purchases::email).eq(email.to_lowercase()))
        .filter(purchases::status.eq_any(statuses))
        // One per checkout: its first unit, whose id is the checkout's (the buyer's link).
        .filter(purchases::unit_index.eq(1))
        .order((purchases::created_at_ms.desc(), purchases::id.desc()))
        .limit(limit)
        .select(Purchase::as_select())
        .load(conn)?)
}
