//! The kinds of work the outbox does for a purchase, by name. The jobs themselves live in
//! `orders::jobs`, one file each; the kind is here so that every layer that names one (the
//! queries in `db`, the console's read models, the tests) takes its name from
//! [`JobKind::as_str`] rather than spelling it.

use std::fmt;

/// What a job does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JobKind {
    /// Send `POST /orders` for a paid purchase (same key and body on every retry).
    PlaceOrder,
    /// Poll `GET /orders/{id}` until the order reaches a terminal status.
    TrackOrder,
    /// `GET /esims/{id}/installation` once, store it encrypted, purchase → `fulfilled`.
    FetchInstallation,
    /// Refund the consumer through the payment provider (stored idempotency key).
    Refund,
    /// Tell the consumer the payment arrived (with the private link).
    EmailPaymentReceived,
    /// Tell the consumer the eSIM is ready (the private link only, never the eSIM itself).
    EmailEsimReady,
    /// Tell the consumer the order could not be completed and was refunded.
    EmailRefunded,
    /// Remind the buyer of their eSIM the day before the departure day they gave (the job
    /// names the checkout).
    EmailTripReminder,
    /// Remind a buyer who asked for it of a checkout left unpaid (the job names the checkout).
    EmailCheckoutReminder,
}

impl JobKind {
    pub const ALL: [Self; 9] = [
        Self::PlaceOrder,
        Self::TrackOrder,
        Self::FetchInstallation,
        Self::Refund,
        Self::EmailPaymentReceived,
        Self::EmailEsimReady,
        Self::EmailRefunded,
        Self::EmailTripReminder,
        Self::EmailCheckoutReminder,
    ];

    /// The kind's name in `outbox_jobs.kind`, the one spelling every query and test uses.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::PlaceOrder => "place_order",
            Self::TrackOrder => "track_order",
            Self::FetchInstallation => "fetch_installation",
            Self::Refund => "refund",
            Self::EmailPaymentReceived => "email_payment_received",
            Self::EmailEsimReady => "email_esim_ready",
            Self::EmailRefunded => "email_refunded",
            Self::EmailTripReminder => "email_trip_reminder",
            Self::EmailCheckoutReminder => "email_checkout_reminder",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == raw)
    }

    /// What the job does, in the owner's words (`Placing the order with the supplier`).
    pub fn label(self) -> &'static str {
        match self {
            Self::PlaceOrder => "Placing the order with the supplier",
            Self::TrackOrder => "Following the order at the supplier",
            Self::FetchInstallation => "Collecting the eSIM from the supplier",
            Self::Refund => "Refunding the customer",
            Self::EmailPaymentReceived => "Emailing the payment confirmation",
            Self::EmailEsimReady => "Emailing the customer their eSIM link",
            Self::EmailRefunded => "Emailing the refund notice",
            Self::EmailTripReminder => "Emailing the reminder before the trip",
            Self::EmailCheckoutReminder => "Emailing the reminder of an unfinished checkout",
        }
    }

    /// [`JobKind::label`] of a stored kind; one this version does not know reads as such.
    pub fn label_of(raw: &str) -> &'static str {
        Self::parse(raw).map_or("A task this version does not know", Self::label)
    }
}

/// A stored job state (`outbox_jobs.state`) in the owner's words.
pub fn state_label(raw: &str) -> &'static str {
    match raw {
        "queued" => "Waiting its turn",
        "running" => "Running now",
        "done" => "Done",
        "dead" => "Stopped: needs a person",
        _ => "Unknown state",
    }
}

impl fmt::Display for JobKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
