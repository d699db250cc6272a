//! What an owner does to one purchase from the console, and to the shop's waiting
//! placements: each action reads the facts beside the status in the caller's transaction, asks
//! the transition table (`domain::purchase`), and only then changes anything. A refusal is an
//! error carrying the table's reason, which the console shows beside the form.
//!
//! [`perform`] is what the console's order page calls: one transaction per action, holding the
//! change, its timeline note and its audit entry.

use crate::db::purchases::{self, Purchase, TransitionError};
use crate::db::{DbConn, DbError, now_ms, outbox as jobs, refunds};
use crate::domain::Cents;
use crate::domain::Email;
use crate::domain::PurchaseId;
use crate::domain::purchase::{
    PlacementFacts, PurchaseEvent, PurchaseStatus, RefundCause, Upstream,
};
use crate::orders::Orders;
use crate::orders::outbox::{JobKind, enqueue};
use crate::staff::{Admin, action};

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
    let refund_open = refunds::refund_for(conn, &purchase.id)?.is_some_and(|r| r.is_open());
    Ok(PlacementFacts {
        upstream,
        attempt_in_flight,
        outcome_unknown,
        refund_open,
    })
}

fn find(conn: &mut DbConn, purchase_id: &PurchaseId) -> Result<Purchase, TransitionError> {
    purchases::find(conn, purchase_id)?.ok_or_else(|| TransitionError::Missing(purchase_id.clone()))
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
    purchase_id: &PurchaseId,
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
            purchase.cost_cents
        ),
        (false, false) => format!("refund requested: {reason}"),
    };
    let status = purchase.status.as_str();
    purchases::add_event(conn, purchase_id, Some(status), status, &note, now_ms)?;
    let refund = refunds::ensure_refund(
        conn,
        &purchase,
        reason,
        RefundCause::OnRequest,
        keep_cost,
        now_ms,
    )?;
    enqueue(conn, purchase_id, JobKind::Refund, now_ms, now_ms)?;
    Ok(RefundRequested {
        amount: Cents::new(refund.amount_cents),
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
    purchase_id: &PurchaseId,
    reason: &str,
    now_ms: i64,
) -> Result<Retried, TransitionError> {
    let purchase = find(conn, purchase_id)?;
    let due = crate::db::outbox::make_due_now(conn, purchase_id, now_ms)?;
    if due > 0 {
        return Ok(Retried::MadeDue(due));
    }
    let facts = placement_facts(conn, &purchase)?;
    let note = format!("placement retried with its stored order details: {reason}");
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
///
/// A pause for an account problem ends when the supplier accepts an order again. With no
/// placement open at all (the waiting purchases were refunded), no order can ever show that,
/// so the owner's word that the account is fixed ends the pause and its alert; an order the
/// supplier still refuses pauses sales again.
pub fn retry_waiting_placements(conn: &mut DbConn, now_ms: i64) -> Result<usize, TransitionError> {
    let due = jobs::make_kind_due_now(conn, JobKind::PlaceOrder.as_str(), now_ms)?;
    if jobs::open_of_kind(conn, JobKind::PlaceOrder.as_str())? == 0
        && crate::db::wallet::resume_from(conn, crate::db::wallet::PauseReason::AccountProblem)?
    {
        crate::db::alerts::resolve_shop_alerts(
            conn,
            crate::domain::AlertKind::AccountProblem,
            now_ms,
        )?;
    }
    Ok(due)
}

/// The order page's actions: what they are called in the URL, and who may take them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrderAction {
    Note,
    Retry,
    Refund,
    RefundKeepCost,
    Resolve,
    ResendEmail,
    /// Ends every private link of the order, and the cookies they set.
    RevokeLinks,
    /// Emails the customer the order's status email again, with a new link.
    SendLink,
}

impl OrderAction {
    pub fn parse(raw: &str) -> Option<Self> {
        match raw {
            "note" => Some(Self::Note),
            "retry" => Some(Self::Retry),
            "refund" => Some(Self::Refund),
            "refund-keep-cost" => Some(Self::RefundKeepCost),
            "resolve" => Some(Self::Resolve),
            "resend" => Some(Self::ResendEmail),
            "revoke-links" => Some(Self::RevokeLinks),
            "send-link" => Some(Self::SendLink),
            _ => None,
        }
    }

    pub fn slug(self) -> &'static str {
        match self {
            Self::Note => "note",
            Self::Retry => "retry",
            Self::Refund => "refund",
            Self::RefundKeepCost => "refund-keep-cost",
            Self::Resolve => "resolve",
            Self::ResendEmail => "resend",
            Self::RevokeLinks => "revoke-links",
            Self::SendLink => "send-link",
        }
    }

    fn audit_action(self) -> &'static str {
        match self {
            Self::Note => action::ORDER_NOTE,
            Self::Retry => action::ORDER_RETRY,
            Self::Refund | Self::RefundKeepCost => action::ORDER_REFUND,
            Self::Resolve => action::ORDER_RESOLVE,
            Self::ResendEmail => action::ORDER_RESEND_EMAIL,
            Self::RevokeLinks => action::ORDER_REVOKE_LINKS,
            Self::SendLink => action::ORDER_SEND_LINK,
        }
    }

    /// Support may add notes and resend the delivery email or a new link (to the customer's
    /// own address); the rest is for owners.
    pub fn owner_only(self) -> bool {
        !matches!(self, Self::Note | Self::ResendEmail | Self::SendLink)
    }

    /// Whether the action cannot be taken back in the console (money leaves, links end): the
    /// console asks before it runs.
    pub fn cannot_be_undone(self) -> bool {
        matches!(
            self,
            Self::Refund | Self::RefundKeepCost | Self::RevokeLinks
        )
    }

    /// Whether the action may have queued work the workers should start at once.
    pub fn queues_work(self) -> bool {
        matches!(
            self,
            Self::Retry | Self::Refund | Self::RefundKeepCost | Self::ResendEmail | Self::SendLink
        )
    }
}

/// Why an order action was not taken.
#[derive(Debug, thiserror::Error)]
pub enum ActionError {
    #[error("no such purchase")]
    NotFound,
    #[error("this action needs an owner")]
    NotOwner,
    /// The purchase's state refuses it; the text is for the console, as a sentence.
    #[error("{0}")]
    Conflict(String),
    #[error(transparent)]
    Db(#[from] DbError),
}

impl From<diesel::result::Error> for ActionError {
    fn from(err: diesel::result::Error) -> Self {
        Self::Db(err.into())
    }
}

impl From<TransitionError> for ActionError {
    fn from(err: TransitionError) -> Self {
        match err {
            TransitionError::Missing(_) => Self::NotFound,
            TransitionError::Refused(refusal) => {
                Self::Conflict(format!("Not possible: {}.", capitalised(refusal.reason)))
            }
            TransitionError::Db(db) => Self::Db(db),
        }
    }
}

/// The table's reasons are written as clauses; the console shows them as sentences.
fn capitalised(reason: &str) -> String {
    let mut chars = reason.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

/// Takes `act` on purchase `purchase_id` for `by`, with `reason` (already checked to be
/// present and short enough), in one transaction with its audit entry. Returns the slug of
/// what was done, for the page's confirmation (`redrive`, `resend_open` when they differ from
/// the action's own). Call `OutboxWaker::wake` afterwards when [`OrderAction::queues_work`].
#[tracing::instrument(skip_all, fields(purchase.id = %purchase_id, action = act.slug(), admin.id = by.user_id))]
pub async fn perform(
    orders: &Orders,
    by: &Admin,
    client_addr: &str,
    purchase_id: &PurchaseId,
    act: OrderAction,
    reason: String,
) -> Result<&'static str, ActionError> {
    let db = orders.db();
    if act.owner_only() && !by.is_owner() {
        return Err(ActionError::NotOwner);
    }
    let (by, client, purchase_id) = (by.clone(), client_addr.to_string(), purchase_id.clone());
    db.run(move |conn| {
        let now = now_ms();
        conn.write_tx(|conn| {
            let purchase = purchases::find(conn, &purchase_id)?.ok_or(ActionError::NotFound)?;
            let (done, details) = match act {
                OrderAction::Note => {
                    let note = format!("Note by {}: {reason}", by.email);
                    let status = purchase.status.as_str();
                    purchases::add_event(conn, &purchase_id, Some(status), status, &note, now)?;
                    (act.slug(), reason.clone())
                }
                OrderAction::Retry => match retry(conn, &purchase_id, &reason, now)? {
                    Retried::MadeDue(n) => {
                        (act.slug(), format!("{reason} ({n} job(s) made due now)"))
                    }
                    Retried::Redriven => (
                        "redrive",
                        format!("{reason} (placement queued again with its stored order details)"),
                    ),
                },
                OrderAction::Refund | OrderAction::RefundKeepCost => {
                    let keep_cost = act == OrderAction::RefundKeepCost;
                    let requested = refund(conn, &purchase_id, &reason, keep_cost, now)?;
                    let details = match (requested.placement_cancelled, requested.keeps_cost) {
                        (true, _) => format!(
                            "{reason} (full refund of {}; the queued placement was cancelled)",
                            requested.amount
                        ),
                        (false, true) => format!(
                            "{reason} (full refund of {}; the upstream cost {} is kept as a loss)",
                            requested.amount,
                            purchase.cost_cents
                        ),
                        (false, false) => format!("{reason} (full refund of {})", requested.amount),
                    };
                    (act.slug(), details)
                }
                OrderAction::Resolve => {
                    let n = crate::db::alerts::resolve_alerts(conn, &purchase_id, now)?;
                    (act.slug(), format!("{reason} ({n} alert(s) resolved)"))
                }
                OrderAction::RevokeLinks => {
                    let n = revoke_links(conn, &purchase, &by.email, &reason, now)?;
                    (act.slug(), format!("{reason} ({n} link(s) revoked)"))
                }
                OrderAction::SendLink => {
                    let Some(kind) = link_email(purchase.status) else {
                        return Err(ActionError::Conflict(
                            "Not possible: this order was never paid, so no email about it exists; its page opens only in the browser that checked out.".into(),
                        ));
                    };
                    let status = purchase.status.as_str();
                    let note = format!("New link emailed by {}: {reason}", by.email);
                    purchases::add_event(conn, &purchase_id, Some(status), status, &note, now)?;
                    // A no-op while that email is queued: it will carry a new link anyway.
                    if enqueue(conn, &purchase_id, kind, now, now)? {
                        (act.slug(), format!("{reason} (the latest email queued with a new link)"))
                    } else {
                        (
                            "send-link_open",
                            format!("{reason} (an email was already queued; nothing added)"),
                        )
                    }
                }
                OrderAction::ResendEmail => {
                    purchases::apply(
                        conn,
                        &purchase_id,
                        &PurchaseEvent::AdminResend,
                        &reason,
                        now,
                    )?;
                    // A no-op while an email job of this kind is open: one email, not two.
                    if enqueue(conn, &purchase_id, JobKind::EmailEsimReady, now, now)? {
                        (act.slug(), format!("{reason} (delivery email queued)"))
                    } else {
                        (
                            "resend_open",
                            format!(
                                "{reason} (a delivery email was already queued; nothing added)"
                            ),
                        )
                    }
                }
            };
            by.audit(
                conn,
                act.audit_action(),
                Some(&format!("purchase:{purchase_id}")),
                &client,
                &details,
                now,
            )?;
            Ok(done)
        })
    })
    .await
}

/// What [`correct_email`] did, for the page's confirmation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EmailCorrected {
    /// The old links are revoked and an email with a new link is queued to the new address.
    LinkSent,
    /// An email to the customer was already queued: it goes to the new address with a new link.
    LinkAlreadyQueued,
    /// Not paid yet: no email exists to send again; the next one goes to the new address.
    NothingToSend,
}

impl EmailCorrected {
    /// The page's `?done=` slug.
    pub fn slug(self) -> &'static str {
        match self {
            Self::LinkSent => "correct-email",
            Self::LinkAlreadyQueued => "correct-email_open",
            Self::NothingToSend => "correct-email_unpaid",
        }
    }
}

/// Corrects the customer's address of purchase `purchase_id` to `new_email` for `by` (owner or
/// support) with `reason`, in one transaction with its timeline note and audit entry. For a
/// paid order the links sent so far are revoked (they went to an address that may belong to
/// someone else) and the latest status email is queued again: it goes to the new address with
/// a new link. Call `OutboxWaker::wake` afterwards.
pub async fn correct_email(
    orders: &Orders,
    by: &Admin,
    client_addr: &str,
    purchase_id: &PurchaseId,
    new_email: Email,
    reason: String,
) -> Result<EmailCorrected, ActionError> {
    let db = orders.db();
    let (by, client, purchase_id) = (by.clone(), client_addr.to_string(), purchase_id.clone());
    db.run(move |conn| {
        let now = now_ms();
        conn.write_tx(|conn| {
            let purchase = purchases::find(conn, &purchase_id)?.ok_or(ActionError::NotFound)?;
            if purchase.email == new_email {
                return Err(ActionError::Conflict(
                    "Not changed: that is already the order's address.".into(),
                ));
            }
            let old = purchase.email.as_str().to_string();
            purchases::set_email(conn, &purchase_id, new_email.as_str(), now)?;
            let status = purchase.status.as_str();
            let note = format!(
                "Email address corrected by {} from {old} to {}: {reason}",
                by.email,
                new_email.as_str()
            );
            purchases::add_event(conn, &purchase_id, Some(status), status, &note, now)?;
            let done = match link_email(purchase.status) {
                None => EmailCorrected::NothingToSend,
                Some(kind) => {
                    crate::db::order_links::revoke_all(conn, &purchase_id, now)?;
                    if enqueue(conn, &purchase_id, kind, now, now)? {
                        EmailCorrected::LinkSent
                    } else {
                        EmailCorrected::LinkAlreadyQueued
                    }
                }
            };
            let old_masked = purchase.email.masked();
            let details = format!(
                "{reason} (from {old_masked} to {}{})",
                new_email.masked(),
                match done {
                    EmailCorrected::LinkSent => "; old links revoked, a new link emailed",
                    EmailCorrected::LinkAlreadyQueued => {
                        "; old links revoked, the queued email carries a new link"
                    }
                    EmailCorrected::NothingToSend => "; not paid, nothing sent",
                }
            );
            by.audit(
                conn,
                action::ORDER_EMAIL_CORRECTED,
                Some(&format!("purchase:{purchase_id}")),
                &client,
                &details,
                now,
            )?;
            Ok(done)
        })
    })
    .await
}

/// The email that gives a customer a new link to their order in `status`: the one the shop
/// sent last about it; `None` before payment (no email exists then).
pub fn link_email(status: PurchaseStatus) -> Option<JobKind> {
    match status {
        PurchaseStatus::AwaitingPayment | PurchaseStatus::PaymentFailed => None,
        PurchaseStatus::Fulfilled => Some(JobKind::EmailEsimReady),
        PurchaseStatus::Refunded => Some(JobKind::EmailRefunded),
        PurchaseStatus::Paid
        | PurchaseStatus::Ordered
        | PurchaseStatus::Provisioning
        | PurchaseStatus::NeedsAttention
        | PurchaseStatus::Failed => Some(JobKind::EmailPaymentReceived),
    }
}

/// The console's "revoke order links", in the caller's transaction: every link token of the
/// purchase made so far stops opening its page (and so do the cookies they set), with a note
/// on the timeline. Returns how many were revoked. An email sent later carries a new link.
pub fn revoke_links(
    conn: &mut DbConn,
    purchase: &Purchase,
    by: &str,
    reason: &str,
    now_ms: i64,
) -> Result<usize, DbError> {
    let n = crate::db::order_links::revoke_all(conn, &purchase.id, now_ms)?;
    let status = purchase.status.as_str();
    let note = format!("Order links revoked by {by} ({n}): {reason}");
    purchases::add_event(conn, &purchase.id, Some(status), status, &note, now_ms)?;
    Ok(n)
}

/// [`retry_waiting_placements`] for an owner from the console, with its audit entry, in one
/// transaction. Call `OutboxWaker::wake` afterwards.
pub async fn retry_waiting_placements_for(
    orders: &Orders,
    by: &Admin,
    client_addr: &str,
) -> Result<usize, ActionError> {
    let db = orders.db();
    if !by.is_owner() {
        return Err(ActionError::NotOwner);
    }
    let (by, client) = (by.clone(), client_addr.to_string());
    db.run(move |conn| {
        let now = now_ms();
        conn.write_tx(|conn| {
            let n = retry_waiting_placements(conn, now)?;
            by.audit(
                conn,
                action::PLACEMENTS_RETRY,
                None,
                &client,
                &format!("{n} waiting placement(s) made due now"),
                now,
            )?;
            Ok(n)
        })
    })
    .await
}
