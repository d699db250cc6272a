//! The `refund` job: gives the consumer's money back through the payment provider.
//!
//! The refund row (amount and idempotency key) is written in the same transaction that
//! queues the job, before the provider is ever asked, so a retried refund reuses the key and
//! cannot pay out twice. The purchase becomes `refunded` only when the provider says the
//! refund succeeded. Automatic refunds happen only when upstream CONFIRMED that no eSIM was
//! sold (`failed`), or on a definitive refusal with `AUTO_REFUND`; an unknown outcome is never
//! refunded here (the order may exist).

use crate::db::outbox::LeasedJob;
use crate::db::purchases::TransitionError;
use crate::db::{DbConn, DbError, alerts, purchases, refunds};
use crate::domain::PurchaseId;
use crate::domain::purchase::{PurchaseEvent, PurchaseStatus, RefundCause};
use crate::domain::{AlertKind, Cents};
use crate::orders::jobs::job::{
    Job, JobContext, JobFuture, JobKind, OutboxError, Verdict, enqueue, needs_attention,
};
use crate::payments::{PaymentError, PaymentProvider, RefundStatus};

/// Queues the automatic refund of a failed delivery (upstream failed the order, or refused the
/// request with `AUTO_REFUND` on), in the caller's transaction: the refund row with its key
/// first, then the job. The only refund the shop makes without an owner.
pub(crate) fn refund_failed_delivery(
    conn: &mut DbConn,
    unit: &purchases::Purchase,
    note: &str,
    now: i64,
) -> Result<(), DbError> {
    refunds::ensure_refund(conn, unit, note, RefundCause::DeliveryFailed, false, now)?;
    enqueue(conn, &unit.id, JobKind::Refund, now, now)?;
    Ok(())
}

/// Refunds the consumer through the payment provider (stored idempotency key).
pub(crate) struct Refund;

impl Job for Refund {
    fn kind(&self) -> JobKind {
        JobKind::Refund
    }

    fn run<'a>(&'a self, ctx: &'a JobContext, leased: &'a LeasedJob) -> JobFuture<'a> {
        Box::pin(refund(ctx, leased))
    }
}

async fn refund(ob: &JobContext, leased: &LeasedJob) -> Result<Verdict, OutboxError> {
    let Some(purchase) = ob.purchase(&leased.job.purchase_id).await? else {
        return Ok(Verdict::done(
            "purchase_missing",
            "the purchase row is gone",
        ));
    };
    let purchase_id = purchase.id.clone();
    if purchase.status == PurchaseStatus::Refunded {
        return Ok(Verdict::done(
            "already_refunded",
            "purchase already refunded",
        ));
    }
    let row = {
        let unit = purchase.clone();
        ob.db
            .run(move |c| {
                c.write_tx(|c| {
                    // Normally written with the job; a job without its row refunds as a
                    // failed delivery, the only automatic cause.
                    refunds::ensure_refund(
                        c,
                        &unit,
                        "refund requested",
                        RefundCause::DeliveryFailed,
                        false,
                        crate::db::now_ms(),
                    )
                })
            })
            .await?
    };
    let amount = Cents::new(row.amount_cents);
    if row.status == "succeeded" {
        return Ok(finish(purchase_id, row.id, row.provider_refund_id, amount));
    }
    let Some(payment_reference) = purchase.payment_reference.clone() else {
        let message = "cannot refund: the provider's payment reference is unknown".to_string();
        return Ok(
            Verdict::done("no_payment_reference", message.clone()).with_effects(move |c, now| {
                needs_attention(c, &purchase_id, AlertKind::NeedsAttention, &message, now)
            }),
        );
    };
    let exhausted =
        leased.job.attempts >= i32::try_from(ob.config.max_attempts).unwrap_or(i32::MAX);
    let result = ob
        .payments
        .refund(
            &payment_reference,
            Cents::new(row.amount_cents),
            &row.idempotency_key,
        )
        .await;
    let refund_id = row.id.clone();
    Ok(match result {
        Ok(done) => match done.status {
            RefundStatus::Succeeded => finish(purchase_id, refund_id, Some(done.id), amount),
            RefundStatus::Pending if exhausted => gave_up(purchase_id, "the refund stayed pending"),
            // Asked again later with the same key: the provider returns the same refund.
            RefundStatus::Pending => Verdict::retry(
                "refund_pending",
                format!("refund {} pending at the provider", done.id),
                ob.backoff_at(&ob.config.retry, leased.job.attempts),
            ),
            RefundStatus::Failed => failed(
                purchase_id,
                refund_id,
                Some(done.id),
                "the provider reports the refund failed".into(),
            ),
        },
        Err(PaymentError::Unavailable(reason)) if exhausted => gave_up(purchase_id, &reason),
        Err(PaymentError::Unavailable(reason)) => Verdict::retry(
            "provider_unavailable",
            reason,
            ob.backoff_at(&ob.config.retry, leased.job.attempts),
        ),
        Err(other) => failed(purchase_id, refund_id, None, other.to_string()),
    })
}

/// The refund succeeded: [`record_refunded`] in the job's second transaction.
fn finish(
    purchase_id: PurchaseId,
    refund_id: String,
    provider_id: Option<String>,
    amount: Cents,
) -> Verdict {
    Verdict::done("refunded", "the consumer was refunded").with_effects(move |c, now| {
        record_refunded(
            c,
            &purchase_id,
            &refund_id,
            provider_id.as_deref(),
            amount,
            now,
        )
    })
}

/// Records a refund the provider confirmed, in the caller's transaction; the one place a
/// completed refund is written. The refund row is `succeeded`, the purchase (one unit of its
/// checkout) is `refunded`, its timeline says how much came back (all of a single eSIM's
/// payment, or this unit's share of the checkout's), the consumer is told, and the alerts that
/// asked a person to decide about the unit (refund or absorb, refund by hand) are resolved,
/// since the refund was that decision. Alerts of other kinds (a dispute, a refund the provider
/// reports beyond this one) stay open.
pub(crate) fn record_refunded(
    c: &mut DbConn,
    purchase_id: &PurchaseId,
    refund_id: &str,
    provider_id: Option<&str>,
    amount: Cents,
    now: i64,
) -> Result<(), TransitionError> {
    refunds::set_refund_status(c, refund_id, "succeeded", provider_id, now)?;
    let units = match purchases::find(c, purchase_id)? {
        Some(unit) => purchases::units_of(c, &unit.checkout_id)?.len(),
        None => 1,
    };
    let note = if units > 1 {
        format!("the consumer was refunded {amount}, this eSIM's share of the order's payment")
    } else {
        format!("the consumer was refunded in full ({amount})")
    };
    let applied = purchases::apply(c, purchase_id, &PurchaseEvent::RefundCompleted, &note, now)?;
    if applied.moved() {
        enqueue(c, purchase_id, JobKind::EmailRefunded, now, now)?;
    }
    let settled = alerts::resolve_alerts_of_kind(c, purchase_id, AlertKind::NeedsAttention, now)?;
    if settled > 0 {
        let status = applied.to.as_str();
        purchases::add_event(
            c,
            purchase_id,
            Some(status),
            status,
            &format!("{settled} alert(s) resolved: the consumer was refunded"),
            now,
        )?;
    }
    // The credit note's number is the transaction's last write (see `orders::receipts`).
    crate::orders::receipts::issue_credit_note(c, refund_id, now)?;
    Ok(())
}

fn failed(
    purchase_id: PurchaseId,
    refund_id: String,
    provider_id: Option<String>,
    reason: String,
) -> Verdict {
    let message = format!("refund failed: {reason}; refund the consumer by hand");
    Verdict::done("refund_failed", message.clone()).with_effects(move |c, now| {
        refunds::set_refund_status(c, &refund_id, "failed", provider_id.as_deref(), now)?;
        needs_attention(c, &purchase_id, AlertKind::NeedsAttention, &message, now)
    })
}

fn gave_up(purchase_id: PurchaseId, reason: &str) -> Verdict {
    let message = format!("refund could not be completed: {reason}; check with the provider");
    Verdict::dead("refund_exhausted", message.clone()).with_effects(move |c, now| {
        needs_attention(c, &purchase_id, AlertKind::NeedsAttention, &message, now)
    })
}
