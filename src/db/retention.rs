//! What the shop stops keeping once it has served its purpose (`orders::retention` decides
//! when): attempts of finished jobs of ended orders, checkout holds long expired, link tokens
//! that no longer open anything, and abandoned checkouts with every row that belongs to them.
//! Each function deletes one batch in one short write transaction and says how far it got, so
//! a caller walks each table once, in index order, without re-reading what it kept.

use diesel::prelude::*;

use crate::db::schema::{
    alerts, checkout_holds, checkouts, order_link_tokens, outbox_attempts, outbox_jobs,
    payment_events, promo_redemptions, purchase_events, purchases, refunds, travellers,
};
use crate::db::{DbConn, DbError};
use crate::domain::purchase::PurchaseStatus;

/// The outbox state of a job that finished well (`db::outbox::DONE`).
const DONE: &str = crate::db::outbox::DONE;

/// Statuses of an order that was paid and has ended: nothing more happens to it by itself.
pub const ENDED_AFTER_PAYMENT: [PurchaseStatus; 3] = [
    PurchaseStatus::Fulfilled,
    PurchaseStatus::Refunded,
    PurchaseStatus::Failed,
];

/// A place in a walk over rows ordered by a time and an id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mark<I> {
    pub at_ms: i64,
    pub id: I,
}

/// One batch of a walk: rows deleted, and where the next batch starts (`None`: walk done).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step<I> {
    pub deleted: usize,
    pub next: Option<Mark<I>>,
}

impl<I> Step<I> {
    const DONE: Self = Self {
        deleted: 0,
        next: None,
    };
}

/// Deletes the attempts, finished before `before_ms`, of jobs that are done and whose order
/// has ended after payment: a batch of `batch` attempts from `after` on, in the order of the
/// `outbox_attempts_finished` index. The job rows stay (the order page lists them).
pub fn job_attempts(
    conn: &mut DbConn,
    before_ms: i64,
    after: Option<&Mark<i64>>,
    batch: i64,
) -> Result<Step<i64>, DbError> {
    let ended = ENDED_AFTER_PAYMENT.map(PurchaseStatus::as_str);
    conn.write_tx(|conn| {
        let mut query = outbox_attempts::table
            .filter(outbox_attempts::finished_at_ms.lt(before_ms))
            .into_boxed();
        if let Some(mark) = after {
            query = query.filter(
                outbox_attempts::finished_at_ms
                    .gt(mark.at_ms)
                    .or(outbox_attempts::finished_at_ms
                        .eq(mark.at_ms)
                        .and(outbox_attempts::id.gt(mark.id))),
            );
        }
        let walked: Vec<(i64, i64, i64)> = query
            .order((outbox_attempts::finished_at_ms, outbox_attempts::id))
            .limit(batch)
            .select((
                outbox_attempts::finished_at_ms,
                outbox_attempts::id,
                outbox_attempts::job_id,
            ))
            .load(conn)?;
        let Some(&(at_ms, last, _)) = walked.last() else {
            return Ok(Step::DONE);
        };
        let jobs: Vec<i64> = walked.iter().map(|&(_, _, job)| job).collect();
        let finished: Vec<i64> = outbox_jobs::table
            .inner_join(purchases::table.on(purchases::id.eq(outbox_jobs::purchase_id)))
            .filter(outbox_jobs::id.eq_any(&jobs))
            .filter(outbox_jobs::state.eq(DONE))
            .filter(purchases::status.eq_any(ended))
            .select(outbox_jobs::id)
            .load(conn)?;
        let doomed: Vec<i64> = walked
            .iter()
            .filter(|(_, _, job)| finished.contains(job))
            .map(|&(_, id, _)| id)
            .collect();
        let deleted = if doomed.is_empty() {
            0
        } else {
            diesel::delete(outbox_attempts::table.filter(outbox_attempts::id.eq_any(&doomed)))
                .execute(conn)?
        };
        Ok(Step {
            deleted,
            next: (i64::try_from(walked.len()).unwrap_or(i64::MAX) == batch)
                .then_some(Mark { at_ms, id: last }),
        })
    })
}

/// Deletes a batch of checkout holds that expired before `before_ms` (read by the
/// `checkout_holds_expiry` index). Returns how many.
pub fn expired_holds(conn: &mut DbConn, before_ms: i64, batch: i64) -> Result<usize, DbError> {
    conn.write_tx(|conn| {
        let doomed: Vec<String> = checkout_holds::table
            .filter(checkout_holds::expires_at_ms.lt(before_ms))
            .order(checkout_holds::expires_at_ms)
            .limit(batch)
            .select(checkout_holds::purchase_id)
            .load(conn)?;
        if doomed.is_empty() {
            return Ok(0);
        }
        Ok(diesel::delete(
            checkout_holds::table.filter(checkout_holds::purchase_id.eq_any(&doomed)),
        )
        .execute(conn)?)
    })
}

/// Deletes the link tokens of a batch of orders in `status` (one of [`ENDED_AFTER_PAYMENT`])
/// that last changed before `before_ms`, from `after` on in the order of the
/// `purchases_status_updated` index. A link stops opening a set time after its order ended,
/// and an order ends no later than it last changed, so such tokens open nothing any more.
pub fn spent_link_tokens(
    conn: &mut DbConn,
    status: PurchaseStatus,
    before_ms: i64,
    after: Option<&Mark<String>>,
    batch: i64,
) -> Result<Step<String>, DbError> {
    conn.write_tx(|conn| {
        let mut query = purchases::table
            .filter(purchases::status.eq(status.as_str()))
            .filter(purchases::updated_at_ms.lt(before_ms))
            .into_boxed();
        if let Some(mark) = after {
            query = query.filter(
                purchases::updated_at_ms
                    .gt(mark.at_ms)
                    .or(purchases::updated_at_ms
                        .eq(mark.at_ms)
                        .and(purchases::id.gt(mark.id.clone()))),
            );
        }
        let walked: Vec<(i64, String)> = query
            .order((purchases::updated_at_ms, purchases::id))
            .limit(batch)
            .select((purchases::updated_at_ms, purchases::id))
            .load(conn)?;
        let Some((at_ms, last)) = walked.last().cloned() else {
            return Ok(Step::DONE);
        };
        let ids: Vec<String> = walked.into_iter().map(|(_, id)| id).collect();
        let deleted = diesel::delete(
            order_link_tokens::table.filter(order_link_tokens::purchase_id.eq_any(&ids)),
        )
        .execute(conn)?;
        Ok(Step {
            deleted,
            next: (i64::try_from(ids.len()).unwrap_or(i64::MAX) == batch)
                .then_some(Mark { at_ms, id: last }),
        })
    })
}

/// Deletes a batch of checkouts abandoned before `closed_before_ms` (never paid, payment page
/// closed by then: `domain::purchase::is_abandoned`, read by the `purchases_status_expires`
/// index), with every row that belongs to them. One that has a refund is left alone: money
/// moved, so it is not an abandoned checkout whatever its status says. Returns how many
/// checkouts were deleted.
pub fn abandoned_checkouts(
    conn: &mut DbConn,
    closed_before_ms: i64,
    batch: i64,
) -> Result<usize, DbError> {
    let unpaid = PurchaseStatus::UNPAID.map(PurchaseStatus::as_str);
    conn.write_tx(|conn| {
        let doomed: Vec<String> = purchases::table
            .filter(purchases::status.eq_any(unpaid))
            .filter(purchases::paid_at_ms.is_null())
            .filter(purchases::expires_at_ms.lt(closed_before_ms))
            .filter(diesel::dsl::not(diesel::dsl::exists(
                refunds::table.filter(refunds::purchase_id.eq(purchases::id)),
            )))
            .order(purchases::expires_at_ms)
            .limit(batch)
            .select(purchases::id)
            .load(conn)?;
        if doomed.is_empty() {
            return Ok(0);
        }
        let jobs = outbox_jobs::table
            .filter(outbox_jobs::purchase_id.eq_any(&doomed))
            .select(outbox_jobs::id);
        diesel::delete(outbox_attempts::table.filter(outbox_attempts::job_id.eq_any(jobs)))
            .execute(conn)?;
        diesel::delete(outbox_jobs::table.filter(outbox_jobs::purchase_id.eq_any(&doomed)))
            .execute(conn)?;
        diesel::delete(purchase_events::table.filter(purchase_events::purchase_id.eq_any(&doomed)))
            .execute(conn)?;
        diesel::delete(payment_events::table.filter(payment_events::purchase_id.eq_any(&doomed)))
            .execute(conn)?;
        diesel::delete(alerts::table.filter(alerts::purchase_id.eq_any(&doomed))).execute(conn)?;
        diesel::delete(
            order_link_tokens::table.filter(order_link_tokens::purchase_id.eq_any(&doomed)),
        )
        .execute(conn)?;
        diesel::delete(
            promo_redemptions::table.filter(promo_redemptions::purchase_id.eq_any(&doomed)),
        )
        .execute(conn)?;
        diesel::delete(checkout_holds::table.filter(checkout_holds::purchase_id.eq_any(&doomed)))
            .execute(conn)?;
        diesel::delete(travellers::table.filter(travellers::purchase_id.eq_any(&doomed)))
            .execute(conn)?;
        // A checkout's units were never paid together, so they go together.
        diesel::delete(checkouts::table.filter(checkouts::id.eq_any(&doomed))).execute(conn)?;
        Ok(diesel::delete(purchases::table.filter(purchases::id.eq_any(&doomed))).execute(conn)?)
    })
}
