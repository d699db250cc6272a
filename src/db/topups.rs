//! Top-ups asked for from the console (`topups`): keyed by the form's nonce, so a resubmitted
//! form finds the same Idempotency-Key, then upstream's checkout session or why there is none,
//! and when its credit was seen in the balance transactions.

use diesel::prelude::*;

use crate::db::schema::topups;
use crate::db::{DbConn, DbError};

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = topups)]
pub struct TopupRow {
    pub id: i64,
    pub nonce: String,
    pub idempotency_key: String,
    pub amount_cents: i64,
    pub created_by: i64,
    pub session_id: Option<String>,
    pub checkout_url: Option<String>,
    pub last_error: Option<String>,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
}

pub struct NewTopup<'a> {
    pub nonce: &'a str,
    pub idempotency_key: &'a str,
    pub amount_cents: i64,
    pub created_by: i64,
}

/// The top-up of this form nonce: inserted with `new`'s key the first time, the stored row
/// (and its original key) every time after. Returns the row and whether it was inserted now.
pub fn topup_for_nonce(
    conn: &mut DbConn,
    new: &NewTopup<'_>,
    now_ms: i64,
) -> Result<(TopupRow, bool), DbError> {
    let inserted = crate::with_inner!(&mut *conn, |c| {
        diesel::insert_into(topups::table)
            .values((
                topups::nonce.eq(new.nonce),
                topups::idempotency_key.eq(new.idempotency_key),
                topups::amount_cents.eq(new.amount_cents),
                topups::created_by.eq(new.created_by),
                topups::created_at_ms.eq(now_ms),
                topups::updated_at_ms.eq(now_ms),
            ))
            .on_conflict(topups::nonce)
            .do_nothing()
            .execute(c)
    })?;
    let row = topups::table
        .filter(topups::nonce.eq(new.nonce))
        .select(TopupRow::as_select())
        .first(conn)?;
    Ok((row, inserted == 1))
}

/// Records upstream's answer: the checkout session, or why there is none yet.
pub fn record_topup_outcome(
    conn: &mut DbConn,
    id: i64,
    outcome: Result<(&str, &str), &str>,
    now_ms: i64,
) -> Result<(), DbError> {
    let target = topups::table.find(id);
    match outcome {
        Ok((session_id, checkout_url)) => diesel::update(target)
            .set((
                topups::session_id.eq(session_id),
                topups::checkout_url.eq(checkout_url),
                topups::last_error.eq(None::<String>),
                topups::updated_at_ms.eq(now_ms),
            ))
            .execute(conn)?,
        Err(error) => diesel::update(target)
            .set((
                topups::last_error.eq(error),
                topups::updated_at_ms.eq(now_ms),
            ))
            .execute(conn)?,
    };
    // A session names the credit the top-up becomes, on the books.
    crate::db::book_days::topup_changed(conn, id)
}

/// A top-up as its progress page shows it.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = topups)]
pub struct TopupProgressRow {
    pub id: i64,
    pub amount_cents: i64,
    pub session_id: Option<String>,
    pub checkout_url: Option<String>,
    pub last_error: Option<String>,
    pub created_at_ms: i64,
    pub confirmed_at_ms: Option<i64>,
}

impl TopupProgressRow {
    /// `paid` once the credit was seen, `pending` with a checkout link, else `not created`.
    pub fn state(&self) -> &'static str {
        if self.confirmed_at_ms.is_some() {
            "paid"
        } else if self.checkout_url.is_some() {
            "pending"
        } else {
            "not created"
        }
    }
}

pub fn topup(conn: &mut DbConn, id: i64) -> Result<Option<TopupProgressRow>, DbError> {
    Ok(topups::table
        .find(id)
        .select(TopupProgressRow::as_select())
        .first(conn)
        .optional()?)
}

/// The newest top-ups first.
pub fn recent_topups(conn: &mut DbConn, limit: i64) -> Result<Vec<TopupProgressRow>, DbError> {
    Ok(topups::table
        .order(topups::id.desc())
        .limit(limit)
        .select(TopupProgressRow::as_select())
        .load(conn)?)
}

/// Top-ups with a checkout session whose credit has not been seen yet.
pub fn unconfirmed_topups(conn: &mut DbConn) -> Result<Vec<TopupProgressRow>, DbError> {
    Ok(topups::table
        .filter(topups::session_id.is_not_null())
        .filter(topups::confirmed_at_ms.is_null())
        .order(topups::id.asc())
        .select(TopupProgressRow::as_select())
        .load(conn)?)
}

/// Records that the top-up's credit showed up; `false` when it was already recorded.
pub fn confirm_topup(conn: &mut DbConn, id: i64, now_ms: i64) -> Result<bool, DbError> {
    let changed = diesel::update(
        topups::table
            .find(id)
            .filter(topups::confirmed_at_ms.is_null()),
    )
    .set(topups::confirmed_at_ms.eq(now_ms))
    .execute(conn)?;
    if changed == 1 {
        crate::db::book_days::topup_changed(conn, id)?;
    }
    Ok(changed == 1)
}
