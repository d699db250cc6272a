//! Payment confirmation, exactly once. A verified provider event is stored by its id first; in
//! the same transaction a payment marks the purchase paid and queues its `place_order` job.
//! A duplicate, concurrent or late event finds its row (or a purchase that cannot move) and
//! changes nothing.

use crate::db::purchases::TransitionError;
use crate::db::{self, DbConn, DbError};
use crate::domain::PurchaseId;
use crate::domain::purchase::PurchaseEvent;
use crate::domain::{AlertKind, Cents};
use crate::orders::outbox::{self, JobKind, OutboxWaker};
use crate::orders::{Orders, receipts, tax};
use crate::payments::{EventKind, PaymentError, PaymentEvent, PaymentProvider, Provider};
use crate::shop::Identity;

/// What an event did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Applied {
    /// Seen before: nothing changed.
    Duplicate,
    /// The checkout's units became paid and one order per unit was queued: `purchase_id`
    /// is the first of `units`.
    Paid {
        purchase_id: PurchaseId,
        units: Vec<PurchaseId>,
    },
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
    let mut event = match payments.verify_event(signature, body, now) {
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
    complete_tax_breakdown(payments, &mut event).await;
    // A payment waits while this process's paid purchases wait for their placement
    // (`orders::backlog`); other events have nothing to place.
    let admitted = match event.kind {
        EventKind::Paid { .. } => Some(waker.backlog().admit().await),
        _ => None,
    };
    let seller = orders.identity.current();
    let applied = db
        .run(move |conn| apply_as(conn, provider, &event, &seller))
        .await?;
    if let Applied::Paid { purchase_id, units } = &applied {
        if let Some(admitted) = admitted {
            admitted.hold_units(units);
        }
        crate::failpoints::failpoint!(crate::failpoints::AFTER_PAYMENT_COMMIT);
        tracing::info!(purchase.id = %purchase_id, "payment confirmed");
        waker.wake();
    }
    Ok(applied)
}

/// Asks the provider for the breakdown of the tax it computed on a payment whose event does
/// not carry one (Stripe's events never do), before the confirming transaction. A failed
/// look-up changes nothing: the tax is recorded as reported, its jurisdiction unknown, and
/// the payment counts all the same.
async fn complete_tax_breakdown(payments: &Provider, event: &mut PaymentEvent) {
    let EventKind::Paid {
        session_id, tax, ..
    } = &mut event.kind
    else {
        return;
    };
    let Some(computed) = tax.computed.as_mut() else {
        return;
    };
    if !computed.lines.is_empty() || computed.amount.get() == 0 {
        return;
    }
    match payments.tax_breakdown(session_id).await {
        Ok(lines) => computed.lines = lines,
        Err(err) => {
            tracing::warn!(payment.event = %event.id, error = %err, "the tax breakdown could not be read: recorded without a jurisdiction");
        }
    }
}

/// Applies `event` from `provider` in one write transaction. A payment pays for a whole
/// checkout, so every event about it acts on each of the checkout's units: a payment marks
/// them all paid and queues one `place_order` job per unit; a failure, a refund or a dispute
/// reported by the provider is written on each unit's timeline. A paid checkout gets its
/// receipt, naming the shop as stored (or, never saved, as the built-in defaults).
pub fn apply(
    conn: &mut DbConn,
    provider: &str,
    event: &PaymentEvent,
) -> Result<Applied, TransitionError> {
    apply_as(conn, provider, event, &Identity::built_in())
}

/// [`apply`], for a shop whose identity this process serves as `current`: its receipts name
/// the identity as stored when the payment is applied, or `current` when none was saved.
pub fn apply_as(
    conn: &mut DbConn,
    provider: &str,
    event: &PaymentEvent,
    current: &Identity,
) -> Result<Applied, TransitionError> {
    conn.write_tx(|conn| {
        let now = db::now_ms();
        let (kind, units) = match &event.kind {
            EventKind::Paid { session_id, .. } => {
                ("paid", db::purchases::units_by_session(conn, session_id)?)
            }
            EventKind::Failed { session_id, .. } => {
                ("failed", db::purchases::units_by_session(conn, session_id)?)
            }
            EventKind::Refunded {
                payment_reference, ..
            } => (
                "refunded",
                db::purchases::units_by_payment_reference(conn, payment_reference)?,
            ),
            EventKind::Disputed { payment_reference } => (
                "disputed",
                db::purchases::units_by_payment_reference(conn, payment_reference)?,
            ),
            EventKind::Other { .. } => ("other", Vec::new()),
        };
        let stored = db::payment_events::store(
            conn,
            &format!("{provider}:{}", event.id),
            provider,
            kind,
            units.first().map(|p| &p.id),
            now,
        )?;
        if !stored {
            return Ok(Applied::Duplicate);
        }
        let Some(first) = units.first() else {
            if !matches!(event.kind, EventKind::Other { .. }) {
                tracing::warn!(payment.event = %event.id, "payment event for no known purchase");
            }
            return Ok(Applied::Recorded);
        };
        let first_id = first.id.clone();
        match &event.kind {
            EventKind::Paid {
                amount,
                payment_reference,
                tax,
                ..
            } => {
                let price = Cents::new(
                    units
                        .iter()
                        .map(|unit| unit.price_cents.get())
                        .fold(0, i64::saturating_add),
                );
                // Tax added on top of the price is part of the charge (`orders::tax`).
                let taxed = tax::assess(conn, &first.checkout_id, price, tax)?;
                if *amount != taxed.expected {
                    // Money arrived, but not the amount the sale was locked at: a person looks.
                    let expected = if taxed.expected == price {
                        format!("the price {price}")
                    } else {
                        format!("the price with tax {}", taxed.expected)
                    };
                    alert(
                        conn,
                        AlertKind::NeedsAttention,
                        &first_id,
                        &format!("payment of {amount} does not match {expected}"),
                        now,
                    )?;
                    for unit in &units {
                        db::purchases::apply(
                            conn,
                            &unit.id,
                            &PurchaseEvent::PaymentAmountMismatch,
                            "payment amount differs from the price",
                            now,
                        )?;
                    }
                    return Ok(Applied::Recorded);
                }
                let mut paid = Vec::new();
                for unit in &units {
                    let moved = db::purchases::apply(
                        conn,
                        &unit.id,
                        &PurchaseEvent::PaymentConfirmed,
                        "payment confirmed by the provider",
                        now,
                    )?;
                    if !moved.moved() {
                        continue;
                    }
                    db::purchases::set_paid(conn, &unit.id, payment_reference.as_deref(), now)?;
                    count_promo(conn, &unit.id, now)?;
                    outbox::enqueue(conn, &unit.id, JobKind::PlaceOrder, now, now)?;
                    paid.push(unit.id.clone());
                }
                let Some(first_paid) = paid.first().cloned() else {
                    return Ok(Applied::Recorded);
                };
                // One email for the checkout, to the buyer.
                outbox::enqueue(conn, &first_paid, JobKind::EmailPaymentReceived, now, now)?;
                // Before the receipt, which shows it.
                tax::record(conn, &taxed, now)?;
                // The receipt's number is the transaction's last write (see `receipts`).
                receipts::issue_receipt(conn, &first.checkout_id, provider, current, now)?;
                Ok(Applied::Paid {
                    purchase_id: first_paid,
                    units: paid,
                })
            }
            EventKind::Failed { reason, .. } => {
                let mut failed = None;
                for unit in &units {
                    let moved = db::purchases::apply(
                        conn,
                        &unit.id,
                        &PurchaseEvent::PaymentFailed,
                        &format!("payment failed: {reason}"),
                        now,
                    )?;
                    if moved.moved() && failed.is_none() {
                        failed = Some(unit.id.clone());
                    }
                }
                Ok(match failed {
                    Some(purchase_id) => Applied::PaymentFailed { purchase_id },
                    None => Applied::Recorded,
                })
            }
            EventKind::Refunded { amount, .. } => {
                // The provider reports refunds the shop made too (Stripe's `charge.refunded`
                // follows every refund, possibly before the refund job has recorded its
                // answer, and names the total refunded of the payment so far): one the shop's
                // own refunds of the payment's units cover goes on the timeline only.
                let mut ours = Vec::new();
                for unit in &units {
                    if let Some(refund) =
                        db::refunds::refund_for(conn, &unit.id)?.filter(|r| r.is_open())
                    {
                        ours.push((unit, refund.amount_cents));
                    }
                }
                let covered: i64 = ours.iter().map(|(_, cents)| cents).sum();
                if !ours.is_empty() && amount.get() <= covered {
                    for (unit, cents) in ours {
                        db::purchases::add_event(
                            conn,
                            &unit.id,
                            Some(unit.status.as_str()),
                            unit.status.as_str(),
                            &format!(
                                "provider reports a refund of {amount}, the shop's own refund of {}",
                                Cents::new(cents)
                            ),
                            now,
                        )?;
                    }
                    return Ok(Applied::Recorded);
                }
                alert(
                    conn,
                    AlertKind::PaymentRefunded,
                    &first_id,
                    &format!(
                        "the payment provider reports a refund of {amount}{}",
                        whole_order(units.len())
                    ),
                    now,
                )?;
                for unit in &units {
                    db::purchases::add_event(
                        conn,
                        &unit.id,
                        Some(unit.status.as_str()),
                        unit.status.as_str(),
                        &format!("provider reports a refund of {amount}"),
                        now,
                    )?;
                }
                Ok(Applied::Recorded)
            }
            EventKind::Disputed { .. } => {
                alert(
                    conn,
                    AlertKind::Dispute,
                    &first_id,
                    &format!(
                        "the consumer disputed the payment{}",
                        whole_order(units.len())
                    ),
                    now,
                )?;
                for unit in units.iter().skip(1) {
                    db::purchases::add_event(
                        conn,
                        &unit.id,
                        Some(unit.status.as_str()),
                        unit.status.as_str(),
                        "the consumer disputed the payment of the whole order",
                        now,
                    )?;
                }
                Ok(Applied::Recorded)
            }
            EventKind::Other { .. } => Ok(Applied::Recorded),
        }
    })
}

/// ` (all N eSIMs of the order)` for a payment of several units; nothing for one.
fn whole_order(units: usize) -> String {
    if units > 1 {
        format!(" (all {units} eSIMs of the order)")
    } else {
        String::new()
    }
}

/// Counts the use of the promotion code a paid unit was bought with, once, with the verified
/// payment.
fn count_promo(conn: &mut DbConn, id: &PurchaseId, now: i64) -> Result<(), DbError> {
    if let Some(counted) = db::promo::mark_used(conn, id, now)? {
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
        db::purchases::add_event(conn, id, Some("paid"), "paid", &note, now)?;
    }
    Ok(())
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
