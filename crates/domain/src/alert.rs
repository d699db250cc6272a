//! What an alert is about: the values of `alerts.kind`, one enum for the whole shop. The stored
//! strings ([`AlertKind::as_str`]) are part of the database and never change; the emails' wording
//! for each kind lives with the emails (`mail`).

use std::fmt;

/// Why a person is being told. Purchase alerts name a purchase; shop alerts name none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AlertKind {
    /// The upstream wallet is running low; sales continue for now.
    LowBalance,
    /// An order was refused for lack of funds: it waits, and new sales are paused.
    InsufficientBalance,
    /// A purchase needs a decision (refund or absorb, unknown outcome, definitive error).
    NeedsAttention,
    /// Upstream holds an order for review; funds stay reserved, never reorder.
    PendingReview,
    /// Upstream reported a status this version does not know; the record is kept.
    UnfamiliarStatus,
    /// The supplier account and the payment settings form a pair the shop refuses to sell
    /// with; checkout is refused until one of them changes.
    UnsafeAccount,
    /// Shop-wide: the supplier refuses orders from this account (key, scope, suspension).
    AccountProblem,
    /// A placement's outcome stayed unknown and upstream's order list could not settle it.
    PlacementUnknown,
    /// A consumer email could not be sent.
    EmailFailed,
    /// The payment provider reports a refund the shop did not make.
    PaymentRefunded,
    /// The consumer disputed the payment.
    Dispute,
}

impl AlertKind {
    pub const ALL: [Self; 11] = [
        Self::LowBalance,
        Self::InsufficientBalance,
        Self::NeedsAttention,
        Self::PendingReview,
        Self::UnfamiliarStatus,
        Self::UnsafeAccount,
        Self::AccountProblem,
        Self::PlacementUnknown,
        Self::EmailFailed,
        Self::PaymentRefunded,
        Self::Dispute,
    ];

    /// The kind named by [`AlertKind::as_str`].
    pub fn parse(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == raw)
    }

    /// The value stored in `alerts.kind`, also used in logs.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::LowBalance => "low_balance",
            Self::InsufficientBalance => "insufficient_balance",
            Self::NeedsAttention => "needs_attention",
            Self::PendingReview => "pending_review",
            Self::UnfamiliarStatus => "unfamiliar_status",
            Self::UnsafeAccount => "unsafe_account",
            Self::AccountProblem => "account_problem",
            Self::PlacementUnknown => "placement_unknown",
            Self::EmailFailed => "email_failed",
            Self::PaymentRefunded => "payment_refunded",
            Self::Dispute => "dispute",
        }
    }
}

impl AlertKind {
    /// What the alert is about, in the owner's words.
    pub const fn label(self) -> &'static str {
        match self {
            Self::LowBalance => "Supplier balance running low",
            Self::InsufficientBalance => "Supplier balance too low for an order",
            Self::NeedsAttention => "Order needs a decision",
            Self::PendingReview => "Order held for review by the supplier",
            Self::UnfamiliarStatus => "Supplier reported an unfamiliar status",
            Self::UnsafeAccount => "Supplier account and payments do not fit together",
            Self::AccountProblem => "Supplier refuses orders from this account",
            Self::PlacementUnknown => "Unclear whether an order was placed",
            Self::EmailFailed => "Email to a customer could not be sent",
            Self::PaymentRefunded => "Refund made outside the shop",
            Self::Dispute => "Payment disputed by the customer",
        }
    }

    /// [`AlertKind::label`] of a stored kind; one this version does not know reads as such.
    pub fn label_of(raw: &str) -> &'static str {
        Self::parse(raw).map_or("Alert", Self::label)
    }
}

impl fmt::Display for AlertKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Each alert kind's heading and advice, as the console and the alert emails word them.
impl AlertKind {
    /// The heading people see.
    pub fn title(self) -> &'static str {
        match self {
            Self::LowBalance => "Low wallet balance",
            Self::InsufficientBalance => "Insufficient wallet balance",
            Self::NeedsAttention => "An order needs attention",
            Self::PendingReview => "An order is pending review",
            Self::UnfamiliarStatus => "Unfamiliar order status",
            Self::UnsafeAccount => {
                "Checkout is refused: supplier account and payments do not match"
            }
            Self::AccountProblem => "The supplier refuses orders from this account",
            Self::PlacementUnknown => "An order's outcome is unknown",
            Self::EmailFailed => "A customer email could not be sent",
            Self::PaymentRefunded => "The payment provider reports a refund",
            Self::Dispute => "A customer disputed a payment",
        }
    }

    /// What the owner should do about it.
    pub fn advice(self) -> &'static str {
        match self {
            Self::LowBalance => {
                "Top up the partner wallet soon: when it cannot cover a sale, new sales are paused."
            }
            Self::InsufficientBalance => {
                "An order was refused for lack of funds. It will be placed again after a top-up; \
                 new sales are paused until then."
            }
            Self::NeedsAttention => {
                "The shop cannot finish this order on its own. Open it to decide whether to \
                 refund the customer or retry."
            }
            Self::PendingReview => {
                "The provider is reviewing this order. Funds stay reserved; do not place it again. \
                 The shop keeps checking its status."
            }
            Self::UnfamiliarStatus => {
                "The provider reported a status this version of the shop does not know. The order \
                 is kept as it is and will not be placed again; check it with provider support."
            }
            Self::UnsafeAccount => {
                "The shop refuses every checkout until the payment settings and the supplier \
                 account's environment match again: change the settings named in the alert and \
                 restart the shop."
            }
            Self::AccountProblem => {
                "Paid orders wait and no new sales are made until the supplier account can buy \
                 again: renew the API key, grant the missing scope or settle the account."
            }
            Self::PlacementUnknown => {
                "The shop cannot tell whether the provider holds this order. Do not refund or \
                 reorder: the order may exist. The shop keeps looking it up."
            }
            Self::EmailFailed => {
                "The customer did not get an email about their order. Open it to see why."
            }
            Self::PaymentRefunded => {
                "The payment provider refunded this payment. Check whether the order should \
                 still be delivered."
            }
            Self::Dispute => {
                "The customer disputed this payment with the provider. Open the order to \
                 prepare your answer."
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_reads_back_from_its_stored_name() {
        for kind in AlertKind::ALL {
            assert_eq!(AlertKind::parse(kind.as_str()), Some(kind));
        }
        assert_eq!(AlertKind::parse("low-balance"), None);
    }
}
