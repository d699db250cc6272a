//! Payment confirmation, exactly once. A verified provider event is stored by its id first; in
//! the same transaction a payment marks the purchase paid and queues its `place_order` job.
//! A duplicate, concurrent or late event finds its row (or a purchase that cannot move) and
//! changes nothing.

use diesel::prelude::*;

use crate::db::purchases::TransitionError;
use crate::db::schema::{payment_events, purchases};
use crate::db::{self, DbConn, DbError};
use crate::domain::AlertKind;
use crate::domain::purchase::PurchaseEvent;
use crate::orders::outbox::{self, JobKind};
use crate::payments::{EventKind, PaymentEvent};

/// What an event did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Applied {
    /// Seen before: nothing changed.
    Duplicate,
    /// The purchase became paid and its order was queued.
    Paid { purchase_id: String },
    /// The purchase's payment failed or expired.
    PaymentFailed { purchase_id: String },
    /// Recorded; no purchase changed (unknown session, already settled, or not actionable).
    Recorded,
}

/// Applies `event` from `provider` in one write transaction.
pub fn apply(
    conn: &mut DbConn,
    provider: &str,
    event: &PaymentEvent,
) -> Result<Applied, TransitionError> {
    conn.write_tx(|conn| {
        let now = db::now_ms();
        let (kind, purchase) = match &event.kind {
            EventKind::Paid { session_id, .. } => {
                ("paid", db::purchases::find_by_session(conn, session_id)?)
            }
            EventKind::Failed { session_id, .. } => {
                ("failed", db::purchases::find_by_session(conn, session_id)?)
            }
            EventKind::Refunded {
                payment_reference, ..
            } => (
                "refunded",
                find_by_payment_reference(conn, payment_reference)?,
            ),
            EventKind::Disputed { payment_reference } => (
                "disputed",
                find_by_payment_reference(conn, payment_reference)?,
            ),
            EventKind::Other { .. } => ("other", None),
        };
        let stored = crate::with_inner!(&mut *conn, |c| {
            diesel::insert_into(payment_events::table)
                .values((
                    payment_events::id.eq(format!("{provider}:{}", event.id)),
                    payment_events::provider.eq(provider),
                    payment_events::kind.eq(kind),
                    payment_events::purchase_id.eq(purchase.as_ref().map(|p| p.id.clone())),
                    payment_events::received_at_ms.eq(now),
                ))
                .on_conflict_do_nothing()
                .execute(c)
        })?;
        if stored == 0 {
            return Ok(Applied::Duplicate);
        }
        let Some(purchase) = purchase else {
            if !matches!(event.kind, EventKind::Other { .. }) {
                tracing::warn!(payment.event = %event.id, "payment event for no known purchase");
            }
            return Ok(Applied::Recorded);
        };
        match &event.kind {
            EventKind::Paid {
                amount,
                payment_reference,
                ..
            } => {
                if amount.get() != purchase.price_cents {
                    // Money arrived, but not the amount the sale was locked at: a person looks.
                    alert(
                        conn,
                        AlertKind::NeedsAttention,
                        &purchase.id,
                        &format!(
                            "payment of {amount} does not match the price {}",
                            crate::domain::Cents::new(purchase.price_cents)
                        ),
                        now,
                    )?;
                    db::purchases::apply(
                        conn,
                        &purchase.id,
                        &PurchaseEvent::PaymentAmountMismatch,
                        "payment amount differs from the price",
                        now,
                    )?;
                    return Ok(Applied::Recorded);
                }
                let moved = db::purchases::apply(
                    conn,
                    &purchase.id,
                    &PurchaseEvent::PaymentConfirmed,
                    "payment confirmed by the provider",
                    now,
                )?;
                if !moved.moved() {
                    return Ok(Applied::Recorded);
                }
                diesel::update(purchases::table.find(&purchase.id))
                    .set((
                        purchases::paid_at_ms.eq(now),
                        purchases::payment_reference.eq(payment_reference),
                    ))
                    .execute(conn)?;
                outbox::enqueue(conn, &purchase.id, JobKind::PlaceOrder, now, now)?;
                outbox::enqueue(conn, &purchase.id, JobKind::EmailPaymentReceived, now, now)?;
                Ok(Applied::Paid {
                    purchase_id: purchase.id,
                })
            }
            EventKind::Failed { reason, .. } => {
                let moved = db::purchases::apply(
                    conn,
                    &purchase.id,
                    &PurchaseEvent::PaymentFailed,
                    &format!("payment failed: {reason}"),
                    now,
                )?;
                Ok(if moved.moved() {
                    Applied::PaymentFailed {
                        purchase_id: purchase.id,
                    }
                } else {
                    Applied::Recorded
                })
            }
            EventKind::Refunded { amount, .. } => {
                alert(
                    conn,
                    AlertKind::PaymentRefunded,
                    &purchase.id,
                    &format!("the payment provider reports a refund of {amount}"),
                    now,
                )?;
                db::purchases::add_event(
                    conn,
                    &purchase.id,
                    Some(&purchase.status),
                    &purchase.status,
                    &format!("provider reports a refund of {amount}"),
                    now,
                )?;
                Ok(Applied::Recorded)
            }
            EventKind::Disputed { .. } => {
                alert(
                    conn,
                    AlertKind::Dispute,
                    &purchase.id,
                    "the consumer disputed the payment",
                    now,
                )?;
                Ok(Applied::Recorded)
            }
            EventKind::Other { .. } => Ok(Applied::Recorded),
        }
    })
}

fn find_by_payment_reference(
    conn: &mut DbConn,
    reference: &str,
) -> Result<Option<db::purchases::Purchase>, DbError> {
    Ok(purchases::table
        .filter(purchases::payment_reference.eq(reference))
        .select(db::purchases::Purchase::as_select())
        .first(conn)
        .optional()?)
}

fn alert(
    conn: &mut DbConn,
    kind: AlertKind,
    purchase_id: &str,
    message: &str,
    now: i64,
) -> Result<(), DbError> {
    db::fulfilment::raise_alert(conn, kind, Some(purchase_id), message, now)?;
    Ok(())
}
