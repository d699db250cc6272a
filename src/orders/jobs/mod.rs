//! The outbox's jobs, one file each, and the registry the runner (`orders::outbox`) consults.
//!
//! Every job implements [`job::Job`]: the kind it runs, and one attempt that reads through the
//! [`job::JobContext`] and returns a [`job::Verdict`]. The runner claims, renews, executes and
//! records without knowing any job; the jobs share only `job.rs` and know no runner. A new job
//! is a name in [`JobKind`](crate::domain::job::JobKind), a new file here and one line in
//! [`registry`].

pub mod job;

mod checkout_reminder;
pub(crate) mod email;
mod fetch_installation;
mod place_order;
mod refund;
mod track_order;
mod trip_reminder;

use checkout_reminder::CheckoutReminder;
use email::ConsumerEmail;
use fetch_installation::FetchInstallation;
use job::Job;
use place_order::PlaceOrder;
use refund::Refund;
use track_order::TrackOrder;
use trip_reminder::TripReminder;

/// Every job this version runs, one per [`job::JobKind`].
pub(crate) fn registry() -> &'static [&'static dyn Job] {
    &[
        &PlaceOrder,
        &TrackOrder,
        &FetchInstallation,
        &Refund,
        &ConsumerEmail::PaymentReceived,
        &ConsumerEmail::EsimReady,
        &ConsumerEmail::Refunded,
        &TripReminder,
        &CheckoutReminder,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use job::JobKind;

    #[test]
    fn every_kind_has_exactly_one_job() {
        for kind in JobKind::ALL {
            let jobs = registry().iter().filter(|j| j.kind() == kind).count();
            assert_eq!(jobs, 1, "{kind}");
        }
        assert_eq!(registry().len(), JobKind::ALL.len());
    }
}
