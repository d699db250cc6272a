//! What an owner does to one purchase from the console, and to the shop's waiting
//! placements: each action reads the facts beside the status in the caller's transaction, asks
//! the transition table (`domain::purchase`), and only then changes anything. A refusal is an
//! error carrying the table's reason, which the console shows beside the form.

use crate::db::purchases::{self, Purchase, TransitionError};
use crate::db::{DbConn, DbError, fulfilment, outbox as jobs};
use crate::domain::Cents;
use crate::domain::purchase::{PlacementFacts, PurchaseEvent, RefundCause, Upstream};
use crate::orders::outbox::{JobKind, enqueue};

/// Attempt outcomes that leave a placement's result unknown until it is settled by a later
/// answer under the same key or by reconciliation.
const UNSETTLED: [&str; 4] = [
    "unknown",
    "lease_expired",
    "reconcile_failed",
    "unknown_exhausted",
];
/// Attempt outcomes that sent nothing upstream: they neither create nor settle a doubt.
const NOT_SENT: [&str; 3] = ["rate_limited", "price_check_failed", "unknown_kind"];

/// The facts the table needs about `purchase`, read in the caller's transaction.
pub fn placement_facts(conn: &mut DbConn, purchase: &Purchase) -> Result<PlacementFacts, DbError> {
    let upstream = match (
        &purchase.upstream_order_id,
        purchase.upstream_status.as_deref(),
    ) {
        (None, _) => Upstream::NotPlaced,
        (Some(_), Some("failed")) => Upstream::Ended,
        (Some(_), _) => Upstream::Live,
    };
    let placements: Vec<jobs::Job> = jobs::jobs_for_purchase(conn, &purchase.id)?
        .into_iter()
        .filter(|j| j.kind == JobKind::PlaceOrder.as_str())
        .collect();
    let attempt_in_flight = placements.iter().any(|j| j.state == jobs::RUNNING);
    let outcome_unknown = match placements.last() {
        Some(job) => {
            let attempts = jobs::attempts(conn, job.id)?;
            attempts
                .iter()
                .rev()
                .find(|a| !NOT_SENT.contains(&a.outcome.as_str()))
                .is_some_and(|a| UNSETTLED.contains(&a.outcome.as_str()))
                || job.outcome.as_deref() == Some("unknown_exhausted")
        }
        None => false,
    };
    let refund_open = fulfilment::refund_for(conn, &purchase.id)?.is_some_and(|r| r.is_open());
    Ok(PlacementFacts {
        upstream,
        attempt_in_flight,
        outcome_unknown,
        refund_open,
    })
}

fn find(conn: &mut DbConn, purchase_id: &str) -> Result<Purchase, TransitionError> {
    purchases::find(conn, purchase_id)?
        .ok_or_else(|| TransitionError::Missing(purchase_id.to_string()))
}

/// What a refund request did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefundRequested {
    pub amount: Cents,
    /// A queued placement was cancelled with it (a refund before any order existed).
    pub placement_cancelled: bool,
    /// "Refund and keep the cost": the wholesale cost is booked as a loss.
    pub keeps_cost: bool,
}

/// The console's refund, in the caller's transaction. Before placement, the queued
/// `place_order` is cancelled in the same transaction, so no order can follow the refund;
/// while an attempt is in flight or its outcome is unknown the table refuses. After an
/// upstream order exists, only `keep_cost` ("refund and keep the cost") is allowed.
/// Call `OutboxWaker::wake` after committing.
pub fn refund(
    conn: &mut DbConn,
    purchase_id: &str,
    reason: &str,
    keep_cost: bool,
    now_ms: i64,
) -> Result<RefundRequested, TransitionError> {
    let purchase = find(conn, purchase_id)?;
    let facts = placement_facts(conn, &purchase)?;
    purchases::apply(
        conn,
        purchase_id,
        &PurchaseEvent::AdminRefund { keep_cost, facts },
        reason,
        now_ms,
    )?;
    let placement_cancelled = jobs::cancel_queued(
        conn,
        purchase_id,
        JobKind::PlaceOrder.as_str(),
        "cancelled_refund",
        now_ms,
    )?;
    // On PostgreSQL a worker may have claimed the placement after the facts were read: the
    // cancel then found nothing queued. Read again; the refund is refused rather than raced.
    if facts.upstream == Upstream::NotPlaced {
        let again = placement_facts(conn, &purchase)?;
        purchases::apply(
            conn,
            purchase_id,
            &PurchaseEvent::AdminRefund {
                keep_cost,
                facts: again,
            },
            reason,
            now_ms,
        )?;
    }
    let note = match (placement_cancelled, keep_cost) {
        (true, _) => format!("refund requested before placement, placement cancelled: {reason}"),
        (false, true) => format!(
            "refund requested; the upstream order's cost {} is kept as a loss: {reason}",
            Cents::new(purchase.cost_cents)
        ),
        (false, false) => format!("refund requested: {reason}"),
    };
    let status = purchase.status.as_str();
    purchases::add_event(conn, purchase_id, Some(status), status, &note, now_ms)?;
    fulfilment::ensure_refund(
        conn,
        purchase_id,
        purchase.price_cents,
        reason,
        RefundCause::OnRequest,
        keep_cost,
        now_ms,
    )?;
    enqueue(conn, purchase_id, JobKind::Refund, now_ms, now_ms)?;
    Ok(RefundRequested {
        amount: Cents::new(purchase.price_cents),
        placement_cancelled,
        keeps_cost: keep_cost,
    })
}

/// What "retry placement" did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retried {
    /// Open jobs of the purchase (any kind) were made due now.
    MadeDue(usize),
    /// A stopped or dead placement was queued again under the stored key and body.
    Redriven,
}

/// The console's retry, in the caller's transaction: open jobs are made due now; a placement
/// that stopped or died is queued again under the purchase's stored key and body (never a new
/// key), if the table allows it. Call `OutboxWaker::wake` after committing.
pub fn retry(
    conn: &mut DbConn,
    purchase_id: &str,
    reason: &str,
    now_ms: i64,
) -> Result<Retried, TransitionError> {
    let purchase = find(conn, purchase_id)?;
    let due = crate::db::admin::make_due_now(conn, purchase_id, now_ms)?;
    if due > 0 {
        return Ok(Retried::MadeDue(due));
    }
    let facts = placement_facts(conn, &purchase)?;
    let note = format!(
        "placement retried under key generation {} (the stored key and body): {reason}",
        purchase.key_generation
    );
    let applied = purchases::apply(
        conn,
        purchase_id,
        &PurchaseEvent::AdminRedrive { facts },
        &note,
        now_ms,
    )?;
    if !applied.moved() {
        let status = applied.to.as_str();
        purchases::add_event(conn, purchase_id, Some(status), status, &note, now_ms)?;
    }
    enqueue(conn, purchase_id, JobKind::PlaceOrder, now_ms, now_ms)?;
    Ok(Retried::Redriven)
}

/// The dashboard's "retry waiting placements": every placement held back (insufficient
/// balance, an account problem) is due now, under its own key. Returns how many.
pub fn retry_waiting_placements(conn: &mut DbConn, now_ms: i64) -> Result<usize, TransitionError> {
    Ok(jobs::make_kind_due_now(
        conn,
        JobKind::PlaceOrder.as_str(),
        now_ms,
    )?)
}
