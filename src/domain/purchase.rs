//! A purchase's life: the statuses of DESIGN's purchase flow and which moves between them are
//! allowed. Every move the code makes goes through [`PurchaseStatus::can_move_to`], so a late or
//! duplicated event can never drag a purchase backwards.

use std::fmt;

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

    /// Whether a purchase may move from `self` to `next`.
    pub fn can_move_to(self, next: Self) -> bool {
        use PurchaseStatus::*;
        matches!(
            (self, next),
            (AwaitingPayment, Paid | PaymentFailed)
                // Money can still arrive after a session expired or an async payment was late.
                | (PaymentFailed, Paid)
                | (Paid, Ordered | NeedsAttention | Failed)
                | (Ordered, Provisioning | Fulfilled | Failed | NeedsAttention | Refunded)
                | (Provisioning, Fulfilled | Failed | NeedsAttention | Refunded)
                | (Fulfilled, Refunded | NeedsAttention)
                | (NeedsAttention, Paid | Ordered | Provisioning | Fulfilled | Failed | Refunded)
                | (Failed, Refunded)
        )
    }

    /// The statuses from which a move to `next` is allowed.
    pub fn sources_of(next: Self) -> Vec<Self> {
        Self::ALL
            .into_iter()
            .filter(|s| s.can_move_to(next))
            .collect()
    }

    /// Money was taken and the purchase is not settled yet.
    pub fn holds_wallet_credit(self) -> bool {
        matches!(self, Self::Paid)
    }
}

impl fmt::Display for PurchaseStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for s in PurchaseStatus::ALL {
            assert_eq!(PurchaseStatus::parse(s.as_str()), Some(s));
        }
        assert_eq!(PurchaseStatus::parse("shipped"), None);
    }

    #[test]
    fn refunded_is_terminal_and_nothing_returns_to_awaiting_payment() {
        for s in PurchaseStatus::ALL {
            assert!(!PurchaseStatus::Refunded.can_move_to(s));
            assert!(!s.can_move_to(PurchaseStatus::AwaitingPayment));
            assert!(!s.can_move_to(s), "{s} to itself is not a move");
        }
    }

    #[test]
    fn only_payment_leads_to_paid() {
        assert_eq!(
            PurchaseStatus::sources_of(PurchaseStatus::Paid),
            vec![
                PurchaseStatus::AwaitingPayment,
                PurchaseStatus::PaymentFailed,
                PurchaseStatus::NeedsAttention
            ]
        );
        assert!(!PurchaseStatus::Fulfilled.can_move_to(PurchaseStatus::Paid));
    }
}
