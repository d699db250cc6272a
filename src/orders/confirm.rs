//! Payment confirmation, exactly once. A verified provider event is stored by its id first; in
//! the same transaction a payment marks the purchase paid and queues its `place_order` job.
//! A duplicate, concurrent or late event finds its row (or a purchase that cannot move) and
//! changes nothing.

use crate::db::purchases::TransitionError;
use crate::db::{self, DbConn, DbError};
use crate::domain::AlertKind;
use crate::domain::PurchaseId;
use crate::domain::purchase::PurchaseEvent;
use crate::orders::Orders;
use crate::orders::outbox::{self, JobKind, OutboxWaker};
use crate::payments::{EventKind, PaymentError, PaymentEvent, PaymentProvider, Provider};

/// What an event did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Applied {
    /// Seen before: nothing changed.
    Duplicate,
    /// The purchase became paid and its order was queued.
    Paid { purchase_id: PurchaseId },
    /// The purchase's payment failed or expired.
    PaymentFailed { purchase_id: PurchaseId },
    /// Recorded; no purchase changed (unknown session, already settled, or not actionable).
    Recorded,
}

/// Why a delivered provider event was not applied.
#[derive(Debug, thiserror::Error)]
pub enum DeliveryError {
    /// The signature or its timestamp is wrong: the sender is told (400), nothing is stored.
    #[error("{0}")]
    BadSignature(String),
    #[error(transparent)]
    Transition(#[from] TransitionError),
}

/// Verifies and applies one provider event (a webhook, or the demo page's Pay and Decline),
/// then wakes this process's workers if it paid a purchase. An event signed by the provider
/// but not understood is acknowledged (`Recorded`) so it is not resent forever, and logged
/// loudly for a person to look at.
pub async fn deliver(
    orders: &Orders,
    payments: &Provider,
    waker: &OutboxWaker,
    signature: Option<&str>,
    body: &[u8],
    now: std::time::SystemTime,
) -> Result<Applied, DeliveryError> {
    let db = orders.db();
    let event = match payments.verify_event(signature, body, now) {
        Ok(event) => event,
        Err(PaymentError::Signature(err)) => {
            return Err(DeliveryError::BadSignature(err.to_string()));
        }
        Err(err) => {
            tracing::error!(error = %err, "verified payment event could not be handled");
            return Ok(Applied::Recorded);
        }
    };
    let provider = payments.name();
    // A payment waits while this process's paid purchases wait for their placement
    // (`orders::backlog`); other events have nothing to place.
    let admitted = match event.kind {
        EventKind::Paid { .. } => Some(waker.backlog().admit().await),
        _ => None,
    };
    let applied = db.run(move |conn| apply(conn, provider, &event)).await?;
    if let Applied::Paid { purchase_id } = &applied {
        if let Some(admitted) = admitted {
            admitted.hold(purchase_id);
        }
        crate::failpoints::failpoint!(crate::failpoints::AFTER_PAYMENT_COMMIT);
        tracing::info!(purchase.id = %purchase_id, "payment confirmed");
        waker.wake();
    }
    Ok(applied)
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
                db::purchases::find_by_payment_reference(conn, payment_reference)?,
            ),
            EventKind::Disputed { payment_reference } => (
                "disputed",
                db::purchases::find_by_payment_reference(conn, payment_reference)?,
            ),
            EventKind::Other { .. } => ("other", None),
        };
        let stored = db::payment_events::store(
            conn,
            &format!("{provider}:{}", event.id),
            provider,
            kind,
            purchase.as_ref().map(|p| &p.id),
            now,
        )?;
        if !stored {
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
                if *amount != purchase.price_cents {
                    // Money arrived, but not the amount the sale was locked at: a person looks.
                    alert(
                        conn,
                        AlertKind::NeedsAttention,
                        &purchase.id,
                        &format!(
                            "payment of {amount} does not match the price {}",
                            purchase.price_cents
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
                db::purchases::set_paid(conn, &purchase.id, payment_reference.as_deref(), now)?;
                // The code's use is counted here, with the verified payment, and only once.
                if let Some(counted) = db::promo::mark_used(conn, &purchase.id, now)? {
                    let note = if counted.beyond_cap() {
                        format!(
                            "promotion code {} counted: use {}, beyond its cap of {} (a checkout was paid after its hold on the code ended; the sale stands at the price charged)",
                            counted.code,
                            counted.used_count,
                            counted.max_uses.unwrap_or_default()
                        )
                    } else {
                        format!(
                            "promotion code {} counted: use {}",
                            counted.code, counted.used_count
                        )
                    };
                    db::purchases::add_event(conn, &purchase.id, Some("paid"), "paid", &note, now)?;
                }
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
                // The provider reports refunds the shop made too (Stripe's `charge.refunded`
                // follows every refund, possibly before the refund job has recorded its
                // answer): one the shop's own refund covers goes on the timeline only.
                let ours = db::refunds::refund_for(conn, &purchase.id)?
                    .filter(|refund| refund.is_open() && amount.get() <= refund.amount_cents);
                if let Some(refund) = ours {
                    db::purchases::add_event(
                        conn,
                        &purchase.id,
                        Some(purchase.status.as_str()),
                        purchase.status.as_str(),
                        &format!(
                            "provider reports a refund of {amount}, the shop's own refund of {}",
                            crate::domain::Cents::new(refund.amount_cents)
                        ),
                        now,
                    )?;
                    return Ok(Applied::Recorded);
                }
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
                    Some(purchase.status.as_str()),
                    purchase.status.as_str(),
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

fn alert(
    conn: &mut DbConn,
    kind: AlertKind,
    purchase_id: &PurchaseId,
    message: &str,
    now: i64,
) -> Result<(), DbError> {
    db::alerts::raise_alert(conn, kind, Some(purchase_id), message, now)?;
    Ok(())
}
