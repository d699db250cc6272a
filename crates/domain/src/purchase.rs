//! A purchase's life: its statuses and the one transition table that every change goes
//! through. Each thing that can happen to a purchase is a [`PurchaseEvent`]: a payment event,
//! an upstream answer to placement, a tracking status, an admin action, the checkout's expiry
//! or a reconciliation. [`PurchaseStatus::on`] answers, for every (status, event) pair, the
//! next status, "stay" (the event is legal and changes nothing, such as a duplicate payment
//! event), or a named [`Refusal`]. Callers act on the answer; a refusal reaches them as an
//! error, never silently.
//!
//! Some rules depend on facts the status alone does not carry (is a placement attempt in
//! flight, does an upstream order exist, is a refund open). The caller reads those facts in
//! the same transaction and passes them inside the event, so the rule itself stays here.

use std::fmt;

/// A purchase's id: the key of its row, the path of its order page and the name of its
/// cookie. Checkout makes it (20 lowercase hex digits); a path or a row that holds anything
/// but 1 to 64 ASCII letters, digits, `-` or `_` is not one.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PurchaseId(String);

/// Text that cannot be a [`PurchaseId`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a purchase id")]
pub struct NotAPurchaseId;

impl PurchaseId {
    pub fn parse(raw: impl Into<String>) -> Result<Self, NotAPurchaseId> {
        let raw = raw.into();
        let valid = (1..=64).contains(&raw.len())
            && raw
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        if valid {
            Ok(Self(raw))
        } else {
            Err(NotAPurchaseId)
        }
    }

    /// A new id: 10 random bytes as 20 lowercase hex digits.
    pub fn generate() -> Self {
        use rand::RngCore;
        let mut bytes = [0u8; 10];
        rand::rng().fill_bytes(&mut bytes);
        Self(hex::encode(bytes))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// See [`order_number`].
    pub fn order_number(&self) -> String {
        order_number(&self.0)
    }
}

impl TryFrom<String> for PurchaseId {
    type Error = NotAPurchaseId;
    fn try_from(raw: String) -> Result<Self, NotAPurchaseId> {
        Self::parse(raw)
    }
}

impl PartialEq<str> for PurchaseId {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for PurchaseId {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl PartialEq<String> for PurchaseId {
    fn eq(&self, other: &String) -> bool {
        &self.0 == other
    }
}

impl From<PurchaseId> for String {
    fn from(id: PurchaseId) -> String {
        id.0
    }
}

impl std::str::FromStr for PurchaseId {
    type Err = NotAPurchaseId;
    fn from_str(raw: &str) -> Result<Self, NotAPurchaseId> {
        Self::parse(raw)
    }
}

impl fmt::Display for PurchaseId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for PurchaseId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PurchaseId({})", self.0)
    }
}

/// The short reference a customer sees and quotes (`SF-3FA2-9C1E`): the first eight
/// characters of the purchase id, upper case, in two groups. Support finds the order by the
/// id it starts with; it is not a key to open the order, which needs the private link.
pub fn order_number(id: &str) -> String {
    let head = order_key(id).to_ascii_uppercase();
    match head.split_at_checked(4) {
        Some((a, b)) if !b.is_empty() => format!("SF-{a}-{b}"),
        _ => format!("SF-{head}"),
    }
}

/// The order number of the purchase `id` without its dressing: the first eight letters or
/// digits of the id, in lower case. Stored with each purchase (`purchases.order_key`, indexed)
/// so that support finds an order by the number the customer quotes; the migration that added
/// the column computes the same in SQL for older rows.
pub fn order_key(id: &str) -> String {
    id.chars()
        .filter(char::is_ascii_alphanumeric)
        .take(8)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// The [`order_key`] an order number stands for, however the customer typed it
/// (`SF-3FA2-9C1E`, `sf 3fa29c1e`, `3FA2-9C1E`); `None` for text that is not one.
pub fn order_number_prefix(typed: &str) -> Option<String> {
    let trimmed = typed.trim();
    let rest = trimmed
        .get(..2)
        .filter(|p| p.eq_ignore_ascii_case("sf"))
        .map_or(trimmed, |_| &trimmed[2..]);
    let prefix: String = rest
        .chars()
        .filter(|c| !matches!(c, '-' | ' '))
        .map(|c| c.to_ascii_lowercase())
        .collect();
    (prefix.len() == 8 && prefix.chars().all(|c| c.is_ascii_alphanumeric())).then_some(prefix)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PurchaseStatus {
    AwaitingPayment,
    Paid,
    Ordered,
    Provisioning,
    Fulfilled,
    PaymentFailed,
    NeedsAttention,
    Failed,
    Refunded,
}

impl PurchaseStatus {
    pub const ALL: [Self; 9] = [
        Self::AwaitingPayment,
        Self::Paid,
        Self::Ordered,
        Self::Provisioning,
        Self::Fulfilled,
        Self::PaymentFailed,
        Self::NeedsAttention,
        Self::Failed,
        Self::Refunded,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::AwaitingPayment => "awaiting_payment",
            Self::Paid => "paid",
            Self::Ordered => "ordered",
            Self::Provisioning => "provisioning",
            Self::Fulfilled => "fulfilled",
            Self::PaymentFailed => "payment_failed",
            Self::NeedsAttention => "needs_attention",
            Self::Failed => "failed",
            Self::Refunded => "refunded",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == raw)
    }

    /// The status as the console shows it to a person.
    pub fn label(self) -> &'static str {
        match self {
            Self::AwaitingPayment => "Awaiting payment",
            Self::Paid => "Paid",
            Self::Ordered => "Ordered",
            Self::Provisioning => "Provisioning",
            Self::Fulfilled => "Fulfilled",
            Self::PaymentFailed => "Payment failed",
            Self::NeedsAttention => "Needs attention",
            Self::Failed => "Failed",
            Self::Refunded => "Refunded",
        }
    }

    /// [`Self::label`] of a stored status text; the text itself when it is not a status.
    pub fn label_of(raw: &str) -> String {
        Self::parse(raw).map_or_else(|| raw.to_string(), |s| s.label().to_string())
    }

    /// Money was taken: the purchase was paid at some point (whatever happened since).
    pub fn was_paid(self) -> bool {
        !matches!(self, Self::AwaitingPayment | Self::PaymentFailed)
    }

    /// The statuses of a checkout that was never paid.
    pub const UNPAID: [Self; 2] = [Self::AwaitingPayment, Self::PaymentFailed];

    /// The purchase moves on by itself soon (a payment or the supplier is on its way), so the
    /// order page reloads itself. A purchase that waits for a person or has ended does not.
    pub fn refreshes_order_page(self) -> bool {
        match self {
            Self::AwaitingPayment | Self::Paid | Self::Ordered | Self::Provisioning => true,
            Self::Fulfilled
            | Self::PaymentFailed
            | Self::NeedsAttention
            | Self::Failed
            | Self::Refunded => false,
        }
    }

    /// The purchase has reached its end: delivered, refunded, failed or never paid. Nothing
    /// moves it on by itself any more, so its order page may be kept for a moment and its
    /// links start to age. A purchase being looked into has not ended.
    pub fn has_ended(self) -> bool {
        match self {
            Self::Fulfilled | Self::Refunded | Self::Failed | Self::PaymentFailed => true,
            Self::AwaitingPayment
            | Self::Paid
            | Self::Ordered
            | Self::Provisioning
            | Self::NeedsAttention => false,
        }
    }
}

/// The status of a checkout of several units (what the buyer's page shows as its
/// `data-status`), from its units' statuses:
///
/// - every unit in the same status: that status;
/// - otherwise, while any unit has not ended, the least advanced of those (awaiting payment,
///   then being looked into, then paid, ordered, provisioning): the order is as far as its
///   slowest eSIM;
/// - otherwise (every unit ended, differently): `fulfilled` when any unit was delivered, else
///   `refunded`, `failed`, `payment_failed` in that order.
///
/// `None` for no units.
pub fn checkout_status(units: &[PurchaseStatus]) -> Option<PurchaseStatus> {
    use PurchaseStatus as S;
    let first = *units.first()?;
    if units.iter().all(|s| *s == first) {
        return Some(first);
    }
    const IN_PROGRESS: [S; 5] = [
        S::AwaitingPayment,
        S::NeedsAttention,
        S::Paid,
        S::Ordered,
        S::Provisioning,
    ];
    const ENDED: [S; 4] = [S::Fulfilled, S::Refunded, S::Failed, S::PaymentFailed];
    IN_PROGRESS
        .into_iter()
        .chain(ENDED)
        .find(|candidate| units.contains(candidate))
}

/// An abandoned checkout: never paid, and its payment page has closed (`expires_at_ms` is
/// past). The expiry sweep moves such a purchase from `awaiting_payment` to `payment_failed`
/// (event `checkout expired`), a declined one is there already; either way nobody is going to
/// pay it now, and a payment that still arrives moves it on as usual.
pub fn is_abandoned(status: PurchaseStatus, paid: bool, expires_at_ms: i64, now_ms: i64) -> bool {
    !paid && PurchaseStatus::UNPAID.contains(&status) && expires_at_ms <= now_ms
}

impl PurchaseStatus {
    /// The transition table: what `event` does to a purchase in status `self`.
    pub fn on(self, event: &PurchaseEvent) -> Result<Next, Refusal> {
        use Next::{Stay, To};
        use PurchaseEvent as E;
        use PurchaseStatus::*;
        let refuse = |why: &'static str| Err(Refusal::new(self, event, why));
        match event {
            // ---- payments -------------------------------------------------------------------
            // Money can still arrive after a session expired or an async payment was late; a
            // duplicate or a late event for a purchase already past payment changes nothing.
            E::PaymentConfirmed => match self {
                AwaitingPayment | PaymentFailed => Ok(To(Paid)),
                _ => Ok(Stay),
            },
            E::PaymentAmountMismatch => match self {
                AwaitingPayment | PaymentFailed => Ok(To(NeedsAttention)),
                _ => Ok(Stay),
            },
            // A failure reported after a success is noise: the money is there.
            E::PaymentFailed | E::CheckoutExpired | E::CheckoutAbandoned => match self {
                AwaitingPayment => Ok(To(PaymentFailed)),
                _ => Ok(Stay),
            },

            // ---- placement (the outbox's `place_order`) ---------------------------------------
            // The upstream order exists: never lose that fact, but after a refund it is a loss
            // the owner must see, not a sale to go on with.
            E::OrderAccepted | E::Reconciled { found: true } => match self {
                Paid | NeedsAttention => Ok(To(Ordered)),
                Ordered | Provisioning | Fulfilled | Failed => Ok(Stay),
                Refunded => refuse("the purchase was refunded before the upstream order existed"),
                AwaitingPayment | PaymentFailed => refuse("the purchase was never paid"),
            },
            // Proven absent upstream: placement may go on under the same key.
            E::Reconciled { found: false } => match self {
                Paid => Ok(Stay),
                NeedsAttention => Ok(To(Paid)),
                _ => refuse("only a paid purchase without an upstream order can be placed"),
            },
            // A refusal that waits (insufficient balance, an account problem, an unknown
            // outcome still being retried): the purchase stays as it is.
            E::PlacementWaiting => match self {
                Paid | NeedsAttention => Ok(Stay),
                _ => refuse("only a paid purchase waits for placement"),
            },
            // Placement ended without an order: a person decides (refund, or re-drive).
            E::PlacementStopped => match self {
                Paid => Ok(To(NeedsAttention)),
                NeedsAttention => Ok(Stay),
                _ => refuse("only a paid purchase can stop waiting for placement"),
            },

            // ---- tracking (`GET /orders/{id}`) ------------------------------------------------
            E::UpstreamProvisioning => match self {
                Ordered => Ok(To(Provisioning)),
                Provisioning | Fulfilled | NeedsAttention | Failed | Refunded => Ok(Stay),
                AwaitingPayment | PaymentFailed | Paid => refuse("no upstream order exists"),
            },
            E::InstallationStored => match self {
                Ordered | Provisioning | NeedsAttention => Ok(To(Fulfilled)),
                Fulfilled => Ok(Stay),
                Refunded => refuse("the consumer was refunded: the eSIM is not delivered"),
                Failed => refuse("upstream reported this order failed"),
                AwaitingPayment | PaymentFailed | Paid => refuse("no upstream order exists"),
            },
            E::UpstreamFailed => match self {
                Ordered | Provisioning | NeedsAttention => Ok(To(Failed)),
                // The consumer holds an eSIM that upstream now calls failed: a person looks.
                Fulfilled => Ok(To(NeedsAttention)),
                Failed | Refunded => Ok(Stay),
                AwaitingPayment | PaymentFailed | Paid => refuse("no upstream order exists"),
            },
            // Pending review, an unfamiliar status, upstream's own refund, tracking that gave
            // up, a refund the provider refused: a person looks; nothing is reordered.
            E::NeedsInvestigation => match self {
                Paid | Ordered | Provisioning | Fulfilled | Failed => Ok(To(NeedsAttention)),
                NeedsAttention | Refunded => Ok(Stay),
                AwaitingPayment | PaymentFailed => refuse("the purchase was never paid"),
            },

            // ---- refunds (the provider's answer) ---------------------------------------------
            E::RefundCompleted => match self {
                Paid | Ordered | Provisioning | Fulfilled | Failed | NeedsAttention => {
                    Ok(To(Refunded))
                }
                Refunded => Ok(Stay),
                AwaitingPayment | PaymentFailed => refuse("the purchase was never paid"),
            },

            // ---- the console ---------------------------------------------------------------------
            E::AdminNote | E::AdminResolve => Ok(Stay),
            E::AdminResend => match self {
                Fulfilled => Ok(Stay),
                _ => refuse("only a fulfilled order has a delivery email to resend"),
            },
            E::AdminRefund { keep_cost, facts } => {
                admin_refund(self, *keep_cost, facts).map_err(|why| Refusal::new(self, event, why))
            }
            E::AdminRedrive { facts } => {
                admin_redrive(self, facts).map_err(|why| Refusal::new(self, event, why))
            }
        }
    }
}

/// "Refund" and "refund and keep the cost": which is allowed depends on what upstream holds.
fn admin_refund(
    status: PurchaseStatus,
    keep_cost: bool,
    facts: &PlacementFacts,
) -> Result<Next, &'static str> {
    use PurchaseStatus::*;
    match status {
        AwaitingPayment | PaymentFailed => return Err("it was never paid"),
        Refunded => return Err("it is already refunded"),
        _ => {}
    }
    if facts.refund_open {
        return Err("a refund for it is already under way or done");
    }
    match (&facts.upstream, keep_cost) {
        (Upstream::NotPlaced, false) if facts.attempt_in_flight => {
            Err("a placement attempt is in flight right now; wait a minute and look again")
        }
        (Upstream::NotPlaced, false) if facts.outcome_unknown => Err(
            "an earlier placement attempt has an unknown outcome, so the supplier may hold an \
             order; reconcile it first (Retry placement looks the order up by its reference)",
        ),
        (Upstream::NotPlaced, false) | (Upstream::Ended, false) => Ok(Next::Stay),
        (Upstream::Live, false) => Err(
            "an upstream order exists and was paid from the wallet; use \"Refund and keep the \
             cost\" to refund the consumer and book the cost as a loss",
        ),
        (Upstream::Live, true) => Ok(Next::Stay),
        (Upstream::NotPlaced | Upstream::Ended, true) => {
            Err("no upstream order holds wallet credit for it, so nothing is kept: use Refund")
        }
    }
}

/// Re-queue a stopped placement under the stored key and body.
fn admin_redrive(status: PurchaseStatus, facts: &PlacementFacts) -> Result<Next, &'static str> {
    use PurchaseStatus::*;
    if !matches!(facts.upstream, Upstream::NotPlaced) {
        return Err("an upstream order exists already; it is tracked, not placed again");
    }
    if facts.refund_open {
        return Err("the consumer was refunded, or a refund is under way");
    }
    if facts.attempt_in_flight {
        return Err("a placement attempt is in flight right now");
    }
    match status {
        Paid => Ok(Next::Stay),
        NeedsAttention => Ok(Next::To(Paid)),
        _ => Err("only a paid purchase without an upstream order can be placed"),
    }
}

/// Why a consumer's money went back, in the words the consumer is owed: the refund email and
/// the order page say exactly this, never an invented reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RefundCause {
    /// The supplier could not provide the eSIM (an upstream failure or refusal).
    DeliveryFailed,
    /// The shop refunded on the customer's or its own request.
    OnRequest,
    /// Something was wrong with the payment itself.
    PaymentProblem,
}

impl RefundCause {
    pub const ALL: [Self; 3] = [Self::DeliveryFailed, Self::OnRequest, Self::PaymentProblem];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::DeliveryFailed => "delivery_failed",
            Self::OnRequest => "on_request",
            Self::PaymentProblem => "payment_problem",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.as_str() == raw)
    }

    /// Why the customer was refunded, as a message id (`crate::i18n`).
    pub fn customer_reason(self) -> &'static str {
        match self {
            Self::DeliveryFailed => crate::i18n::msg("refund-reason-delivery-failed"),
            Self::OnRequest => crate::i18n::msg("refund-reason-on-request"),
            Self::PaymentProblem => crate::i18n::msg("refund-reason-payment-problem"),
        }
    }
}

/// What the table says to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// The event is legal and leaves the status as it is.
    Stay,
    /// The purchase moves to this status.
    To(PurchaseStatus),
}

/// Where a purchase's upstream order stands, as far as refunds and re-drives care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Upstream {
    /// No upstream order is recorded.
    NotPlaced,
    /// An upstream order exists and holds (or spent) wallet credit.
    Live,
    /// The upstream order failed: its credit was released.
    Ended,
}

/// Facts beside the status that decide admin actions, read in the action's transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlacementFacts {
    pub upstream: Upstream,
    /// A `place_order` job is leased by a worker right now.
    pub attempt_in_flight: bool,
    /// A `place_order` attempt ended without knowing whether upstream took the order, and no
    /// reconciliation has settled it since.
    pub outcome_unknown: bool,
    /// A refund row exists that has not failed.
    pub refund_open: bool,
}

/// Everything that can happen to a purchase.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PurchaseEvent {
    /// A verified provider event: the money arrived, at the locked price.
    PaymentConfirmed,
    /// Money arrived, but not the amount the sale was locked at.
    PaymentAmountMismatch,
    /// The provider reports a failed payment.
    PaymentFailed,
    /// The checkout expired unpaid.
    CheckoutExpired,
    /// The payment page could not be created.
    CheckoutAbandoned,
    /// `POST /orders` answered 202.
    OrderAccepted,
    /// A placement refusal that waits and retries under the same key.
    PlacementWaiting,
    /// Placement ended without an order (definitive refusal, margin guard, re-price cap).
    PlacementStopped,
    /// `GET /orders` looked the purchase's reference up: found, or provably absent.
    Reconciled {
        found: bool,
    },
    UpstreamProvisioning,
    /// The installation is stored encrypted: the eSIM can be delivered.
    InstallationStored,
    UpstreamFailed,
    NeedsInvestigation,
    /// The payment provider confirmed the refund.
    RefundCompleted,
    AdminNote,
    AdminResolve,
    AdminResend,
    /// The console's refund; `keep_cost` is "refund and keep the cost" (an order exists).
    AdminRefund {
        keep_cost: bool,
        facts: PlacementFacts,
    },
    /// The console's "retry placement" of a stopped or dead placement.
    AdminRedrive {
        facts: PlacementFacts,
    },
}

impl PurchaseEvent {
    pub fn name(&self) -> &'static str {
        match self {
            Self::PaymentConfirmed => "payment confirmed",
            Self::PaymentAmountMismatch => "payment amount mismatch",
            Self::PaymentFailed => "payment failed",
            Self::CheckoutExpired => "checkout expired",
            Self::CheckoutAbandoned => "checkout abandoned",
            Self::OrderAccepted => "upstream accepted the order",
            Self::PlacementWaiting => "placement waits",
            Self::PlacementStopped => "placement stopped",
            Self::Reconciled { found: true } => "reconciled: order found",
            Self::Reconciled { found: false } => "reconciled: no order",
            Self::UpstreamProvisioning => "upstream provisioning",
            Self::InstallationStored => "installation stored",
            Self::UpstreamFailed => "upstream failed",
            Self::NeedsInvestigation => "needs investigation",
            Self::RefundCompleted => "refund completed",
            Self::AdminNote => "note",
            Self::AdminResolve => "resolve alerts",
            Self::AdminResend => "resend the delivery email",
            Self::AdminRefund {
                keep_cost: false, ..
            } => "refund",
            Self::AdminRefund {
                keep_cost: true, ..
            } => "refund and keep the cost",
            Self::AdminRedrive { .. } => "retry placement",
        }
    }
}

/// An event the purchase's status does not allow, with the reason in words an admin reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{event} refused while the purchase is {status}: {reason}")]
pub struct Refusal {
    pub status: PurchaseStatus,
    pub event: &'static str,
    pub reason: &'static str,
}

impl Refusal {
    fn new(status: PurchaseStatus, event: &PurchaseEvent, reason: &'static str) -> Self {
        Self {
            status,
            event: event.name(),
            reason,
        }
    }
}

/// A stored status that is none of [`PurchaseStatus::ALL`] (the schema's CHECK refuses one;
/// a row that holds one anyway is an error to read, never a guess).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown purchase status {0:?}")]
pub struct UnknownStatus(pub String);

impl TryFrom<String> for PurchaseStatus {
    type Error = UnknownStatus;
    fn try_from(raw: String) -> Result<Self, UnknownStatus> {
        Self::parse(&raw).ok_or(UnknownStatus(raw))
    }
}

impl fmt::Display for PurchaseStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_checkout_is_as_far_as_its_slowest_unit_and_delivered_once_any_unit_is() {
        use PurchaseStatus as S;
        assert_eq!(checkout_status(&[]), None);
        assert_eq!(checkout_status(&[S::Ordered]), Some(S::Ordered));
        assert_eq!(
            checkout_status(&[S::Refunded, S::Refunded]),
            Some(S::Refunded)
        );
        assert_eq!(
            checkout_status(&[S::Fulfilled, S::Provisioning, S::Ordered]),
            Some(S::Ordered)
        );
        assert_eq!(
            checkout_status(&[S::Fulfilled, S::NeedsAttention, S::Ordered]),
            Some(S::NeedsAttention)
        );
        assert_eq!(
            checkout_status(&[S::Refunded, S::Paid]),
            Some(S::Paid),
            "an ended unit does not end the order while another is on its way"
        );
        assert_eq!(
            checkout_status(&[S::Fulfilled, S::Refunded, S::Fulfilled]),
            Some(S::Fulfilled)
        );
        assert_eq!(
            checkout_status(&[S::Failed, S::Refunded]),
            Some(S::Refunded)
        );
        for one in PurchaseStatus::ALL {
            assert_eq!(checkout_status(&[one, one, one]), Some(one));
        }
    }

    use super::*;

    /// Every status's answer to "does the order page reload itself" and "has it ended"; a new
    /// status fails here until it is decided.
    #[test]
    fn every_status_decides_whether_the_page_refreshes_and_whether_it_has_ended() {
        use PurchaseStatus as S;
        let table = [
            (S::AwaitingPayment, true, false),
            (S::Paid, true, false),
            (S::Ordered, true, false),
            (S::Provisioning, true, false),
            (S::Fulfilled, false, true),
            (S::PaymentFailed, false, true),
            (S::NeedsAttention, false, false),
            (S::Failed, false, true),
            (S::Refunded, false, true),
        ];
        assert_eq!(
            table.map(|(s, _, _)| s),
            PurchaseStatus::ALL,
            "every status, in order"
        );
        for (status, refreshes, ended) in table {
            assert_eq!(
                status.refreshes_order_page(),
                refreshes,
                "{status:?} refreshes"
            );
            assert_eq!(status.has_ended(), ended, "{status:?} has ended");
            assert!(
                !(refreshes && ended),
                "{status:?}: an ended purchase's page stays still"
            );
        }
    }

    #[test]
    fn order_numbers_are_short_upper_case_and_grouped() {
        assert_eq!(order_number("3fa29c1e0b7d44aa1234"), "SF-3FA2-9C1E");
        assert_eq!(order_number("ab12"), "SF-AB12");
        assert_eq!(order_number("ab12c"), "SF-AB12-C");
        assert_eq!(order_number(""), "SF-");
    }

    #[test]
    fn purchase_ids_are_short_plain_tokens() {
        for ok in ["3fa29c1e0b7d44aa1234", "p1", "order-7_b"] {
            assert_eq!(
                PurchaseId::parse(ok).map(|id| id.to_string()),
                Ok(ok.to_string())
            );
        }
        for bad in ["", "a/b", "a b", "é", "x;y", &"a".repeat(65)] {
            assert_eq!(PurchaseId::parse(bad), Err(NotAPurchaseId), "{bad:?}");
        }
    }

    #[test]
    fn an_unknown_stored_status_is_an_error() {
        assert_eq!(
            PurchaseStatus::try_from("refunded".to_string()),
            Ok(PurchaseStatus::Refunded)
        );
        assert_eq!(
            PurchaseStatus::try_from("lost".to_string()),
            Err(UnknownStatus("lost".to_string()))
        );
    }
    use PurchaseStatus::*;

    fn facts(upstream: Upstream) -> PlacementFacts {
        PlacementFacts {
            upstream,
            attempt_in_flight: false,
            outcome_unknown: false,
            refund_open: false,
        }
    }

    /// Every event, with each combination of facts that matters.
    fn all_events() -> Vec<PurchaseEvent> {
        let mut events = vec![
            PurchaseEvent::PaymentConfirmed,
            PurchaseEvent::PaymentAmountMismatch,
            PurchaseEvent::PaymentFailed,
            PurchaseEvent::CheckoutExpired,
            PurchaseEvent::CheckoutAbandoned,
            PurchaseEvent::OrderAccepted,
            PurchaseEvent::PlacementWaiting,
            PurchaseEvent::PlacementStopped,
            PurchaseEvent::Reconciled { found: true },
            PurchaseEvent::Reconciled { found: false },
            PurchaseEvent::UpstreamProvisioning,
            PurchaseEvent::InstallationStored,
            PurchaseEvent::UpstreamFailed,
            PurchaseEvent::NeedsInvestigation,
            PurchaseEvent::RefundCompleted,
            PurchaseEvent::AdminNote,
            PurchaseEvent::AdminResolve,
            PurchaseEvent::AdminResend,
        ];
        for upstream in [Upstream::NotPlaced, Upstream::Live, Upstream::Ended] {
            for bits in 0..8u8 {
                let f = PlacementFacts {
                    upstream,
                    attempt_in_flight: bits & 1 != 0,
                    outcome_unknown: bits & 2 != 0,
                    refund_open: bits & 4 != 0,
                };
                events.push(PurchaseEvent::AdminRefund {
                    keep_cost: false,
                    facts: f,
                });
                events.push(PurchaseEvent::AdminRefund {
                    keep_cost: true,
                    facts: f,
                });
                events.push(PurchaseEvent::AdminRedrive { facts: f });
            }
        }
        events
    }

    #[test]
    fn an_order_number_reads_back_as_its_id_prefix() {
        let id = "3fa29c1e0b7d4411aa02";
        let shown = order_number(id);
        assert_eq!(shown, "SF-3FA2-9C1E");
        for typed in [
            shown.as_str(),
            "sf-3fa2-9c1e",
            " SF 3FA2 9C1E ",
            "3fa2-9c1e",
        ] {
            assert_eq!(
                order_number_prefix(typed).as_deref(),
                Some("3fa29c1e"),
                "{typed}"
            );
        }
        for typed in [
            "SF-3FA2",
            "ana@example.com",
            "SF-3FA2-9C1E-77",
            "sf-3fa2-9c1%",
        ] {
            assert_eq!(order_number_prefix(typed), None, "{typed}");
        }
    }

    #[test]
    fn names_round_trip() {
        for c in RefundCause::ALL {
            assert_eq!(RefundCause::parse(c.as_str()), Some(c));
        }
        for s in PurchaseStatus::ALL {
            assert_eq!(PurchaseStatus::parse(s.as_str()), Some(s));
        }
        assert_eq!(PurchaseStatus::parse("shipped"), None);
    }

    #[test]
    fn refunded_is_terminal_and_nothing_returns_to_awaiting_payment() {
        for s in PurchaseStatus::ALL {
            for e in all_events() {
                if let Ok(Next::To(next)) = s.on(&e) {
                    assert_ne!(next, AwaitingPayment, "{s} on {e:?}");
                    assert_ne!(next, s, "{s} on {e:?}: a move to itself is Stay");
                    assert_ne!(s, Refunded, "refunded moved on {e:?}");
                }
            }
        }
    }

    #[test]
    fn only_payment_or_a_proven_absence_leads_to_paid() {
        for s in PurchaseStatus::ALL {
            for e in all_events() {
                if s.on(&e) == Ok(Next::To(Paid)) {
                    assert!(
                        matches!(
                            e,
                            PurchaseEvent::PaymentConfirmed
                                | PurchaseEvent::Reconciled { found: false }
                                | PurchaseEvent::AdminRedrive { .. }
                        ),
                        "{s} on {e:?}"
                    );
                    if s != AwaitingPayment && s != PaymentFailed {
                        assert_eq!(s, NeedsAttention, "{e:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn an_order_never_follows_a_refund_and_no_unpaid_purchase_is_ordered() {
        for e in [
            PurchaseEvent::OrderAccepted,
            PurchaseEvent::Reconciled { found: true },
        ] {
            assert!(Refunded.on(&e).is_err());
            assert!(AwaitingPayment.on(&e).is_err());
            assert!(PaymentFailed.on(&e).is_err());
            assert_eq!(Paid.on(&e), Ok(Next::To(Ordered)));
        }
        assert!(Refunded.on(&PurchaseEvent::InstallationStored).is_err());
    }

    #[test]
    fn refunds_before_placement_need_no_attempt_in_flight_and_no_unknown_outcome() {
        let refund = |f| PurchaseEvent::AdminRefund {
            keep_cost: false,
            facts: f,
        };
        assert_eq!(Paid.on(&refund(facts(Upstream::NotPlaced))), Ok(Next::Stay));
        let mut f = facts(Upstream::NotPlaced);
        f.attempt_in_flight = true;
        assert!(Paid.on(&refund(f)).is_err());
        let mut f = facts(Upstream::NotPlaced);
        f.outcome_unknown = true;
        let refused = Paid.on(&refund(f)).expect_err("unknown outcome");
        assert!(refused.reason.contains("reconcile"), "{refused}");
        // An order that exists is refunded only as an explicit loss.
        assert!(Fulfilled.on(&refund(facts(Upstream::Live))).is_err());
        let keep = PurchaseEvent::AdminRefund {
            keep_cost: true,
            facts: facts(Upstream::Live),
        };
        assert_eq!(Fulfilled.on(&keep), Ok(Next::Stay));
        assert_eq!(Failed.on(&refund(facts(Upstream::Ended))), Ok(Next::Stay));
        // Never twice, never unpaid.
        let mut f = facts(Upstream::NotPlaced);
        f.refund_open = true;
        assert!(Paid.on(&refund(f)).is_err());
        assert!(
            AwaitingPayment
                .on(&refund(facts(Upstream::NotPlaced)))
                .is_err()
        );
        assert!(Refunded.on(&refund(facts(Upstream::Ended))).is_err());
    }

    #[test]
    fn redrive_only_without_an_order_or_a_refund() {
        let redrive = |f| PurchaseEvent::AdminRedrive { facts: f };
        assert_eq!(
            NeedsAttention.on(&redrive(facts(Upstream::NotPlaced))),
            Ok(Next::To(Paid))
        );
        assert!(NeedsAttention.on(&redrive(facts(Upstream::Live))).is_err());
        let mut f = facts(Upstream::NotPlaced);
        f.refund_open = true;
        assert!(NeedsAttention.on(&redrive(f)).is_err());
        assert!(Refunded.on(&redrive(facts(Upstream::NotPlaced))).is_err());
    }

    #[test]
    fn duplicates_and_late_events_stay() {
        for s in [Paid, Ordered, Fulfilled, Refunded] {
            assert_eq!(s.on(&PurchaseEvent::PaymentConfirmed), Ok(Next::Stay));
            assert_eq!(s.on(&PurchaseEvent::PaymentFailed), Ok(Next::Stay));
        }
        assert_eq!(
            Provisioning.on(&PurchaseEvent::UpstreamProvisioning),
            Ok(Next::Stay)
        );
        assert_eq!(Refunded.on(&PurchaseEvent::RefundCompleted), Ok(Next::Stay));
    }

    #[test]
    fn every_pair_has_an_answer_and_refusals_name_the_event() {
        for s in PurchaseStatus::ALL {
            for e in all_events() {
                if let Err(refusal) = s.on(&e) {
                    assert_eq!(refusal.status, s);
                    assert_eq!(refusal.event, e.name());
                    assert!(!refusal.reason.is_empty());
                    assert!(refusal.to_string().contains(s.as_str()));
                }
            }
        }
    }
}
