//! The `track_order` job: polls `GET /orders/{id}` on a backoff
//! schedule (seconds at first, then minutes, for days) until a terminal status, following spec
//! section 3. Nothing here ever places another order: an order that fails, stalls, is under
//! review or shows a status we do not know is handed to the admin or refunded, never
//! reordered. An upstream webhook only makes this job due sooner (`outbox::wake_tracking`).
//!
//! The regular polls are fixed from the moment tracking began ([`regular_polls`]), not
//! counted from the reads made: a read a webhook hint brought earlier moves no later poll
//! and brings the give-up no closer, so hints (genuine, repeated or forged) can only make an
//! order's status known sooner, never later.

use crate::db::outbox::LeasedJob;
use crate::db::purchases;
use crate::domain::AlertKind;
use crate::domain::purchase::{PurchaseEvent, PurchaseStatus};
use crate::orders::jobs::job::{
    Job, JobContext, JobFuture, JobKind, OutboxError, Verdict, duration_ms, enqueue,
    needs_attention,
};
use crate::orders::jobs::refund::refund_failed_delivery;
use crate::upstream::{Backoff, Class, OrderStatus, PathId};

/// Polls `GET /orders/{id}` until the order reaches a terminal status.
pub(crate) struct TrackOrder;

/// The regular polls of the tracking job `job_id`, begun at `since_ms`: the first `backoff.base`
/// after the start, then intervals doubling up to `backoff.cap`, every interval scaled by the
/// job's own factor between ½ and 1 (the jitter: orders accepted together do not poll
/// together). Returns how many regular polls were due by `now_ms` and when the next one is.
pub(crate) fn regular_polls(
    backoff: &Backoff,
    job_id: i64,
    since_ms: i64,
    now_ms: i64,
) -> (u32, i64) {
    let permille = 500 + job_id.rem_euclid(501);
    let step = |n: u32| (duration_ms(backoff.ceiling(n)).saturating_mul(permille) / 1000).max(1);
    let (mut at, mut n) = (since_ms, 0_u32);
    loop {
        let interval = step(n);
        if backoff.ceiling(n) >= backoff.cap {
            // At the cap the interval no longer grows: skip the whole steps already past.
            let passed = now_ms.saturating_sub(at).max(0) / interval;
            at = at.saturating_add(passed.saturating_mul(interval));
            n = n.saturating_add(u32::try_from(passed).unwrap_or(u32::MAX));
            return (n, at.saturating_add(interval));
        }
        if at.saturating_add(interval) > now_ms {
            return (n, at.saturating_add(interval));
        }
        at = at.saturating_add(interval);
        n = n.saturating_add(1);
    }
}

impl Job for TrackOrder {
    fn kind(&self) -> JobKind {
        JobKind::TrackOrder
    }

    fn run<'a>(&'a self, ctx: &'a JobContext, leased: &'a LeasedJob) -> JobFuture<'a> {
        Box::pin(track_order(ctx, leased))
    }
}

async fn track_order(ob: &JobContext, leased: &LeasedJob) -> Result<Verdict, OutboxError> {
    let Some(purchase) = ob.purchase(&leased.job.purchase_id).await? else {
        return Ok(Verdict::done(
            "purchase_missing",
            "the purchase row is gone",
        ));
    };
    let Some(order_id) = purchase.upstream_order_id.clone() else {
        return Ok(Verdict::done(
            "no_order",
            "the purchase has no upstream order",
        ));
    };
    let purchase_id = purchase.id.clone();
    let (polls, next_poll) = regular_polls(
        &ob.config.tracking,
        leased.job.id,
        leased.job.created_at_ms,
        crate::db::now_ms(),
    );
    let exhausted = polls >= ob.config.max_tracking_polls;
    if exhausted && purchase.status.has_ended() {
        // Late work that no longer makes sense (a backlog after an outage, a restored copy):
        // the purchase ended long ago and its tracking ran out, so nobody is asked anything.
        return Ok(Verdict::done(
            "tracking_ended",
            "the purchase ended long ago; its tracking stopped without asking the supplier",
        ));
    }
    let path = match PathId::parse(order_id.as_str()) {
        Ok(path) => path,
        Err(e) => {
            let message = format!("upstream order id {order_id:?} cannot be polled: {e}");
            return Ok(
                Verdict::done("invalid_order_id", message.clone()).with_effects(move |c, now| {
                    needs_attention(c, &purchase_id, AlertKind::NeedsAttention, &message, now)
                }),
            );
        }
    };
    let slow_poll = crate::db::now_ms().saturating_add(duration_ms(ob.config.review_poll_interval));
    let give_up = |last: String| {
        let message = format!(
            "upstream order {order_id} reached no terminal status after {polls} scheduled polls \
             (last: {last}); ask upstream support about it by its order id"
        );
        let purchase_id = purchase_id.clone();
        Verdict::dead("tracking_exhausted", message.clone()).with_effects(move |c, now| {
            needs_attention(c, &purchase_id, AlertKind::NeedsAttention, &message, now)
        })
    };

    let order = match ob.upstream.order(&path).await {
        Ok(order) => order,
        Err(error) => {
            return Ok(match error.class() {
                Class::RetryAfter(wait) => ob.rate_limited(&error, wait),
                _ if exhausted => give_up(error.to_string()),
                _ => Verdict::retry("poll_failed", error.to_string(), next_poll),
            });
        }
    };

    let status = order.status.as_str().to_string();
    let record_status = {
        let purchase_id = purchase_id.clone();
        let status = status.clone();
        move |c: &mut crate::db::DbConn, now: i64| {
            purchases::set_upstream_status(c, &purchase_id, &status, now)?;
            Ok::<_, crate::db::purchases::TransitionError>(())
        }
    };
    let verdict =
        match order.status {
            OrderStatus::Paid if exhausted => give_up(status),
            OrderStatus::Paid => Verdict::retry("waiting", "upstream status paid", next_poll)
                .with_effects(record_status),
            OrderStatus::Provisioning if exhausted => give_up(status),
            OrderStatus::Provisioning => {
                let note = format!("upstream order {order_id} is provisioning");
                Verdict::retry("provisioning", "upstream status provisioning", next_poll)
                    .with_effects(move |c, now| {
                        record_status(c, now)?;
                        purchases::apply(
                            c,
                            &purchase_id,
                            &PurchaseEvent::UpstreamProvisioning,
                            &note,
                            now,
                        )?;
                        Ok(())
                    })
            }
            // Refunded by the shop while upstream worked on it ("refund and keep the cost"):
            // the sale is over, so the eSIM is not fetched or delivered.
            OrderStatus::Fulfilled if purchase.status == PurchaseStatus::Refunded => Verdict::done(
                "fulfilled_after_refund",
                "upstream fulfilled an order the shop had refunded; not delivered",
            )
            .with_effects(record_status),
            OrderStatus::Fulfilled => match order.esim_id {
                Some(esim_id) => Verdict::done("fulfilled", format!("esim {esim_id}"))
                    .with_effects(move |c, now| {
                        record_status(c, now)?;
                        purchases::set_esim_id(c, &purchase_id, &esim_id, now)?;
                        enqueue(c, &purchase_id, JobKind::FetchInstallation, now, now)?;
                        Ok(())
                    }),
                // The spec promises `esimId` on fulfilled orders; until it shows up, keep polling.
                None if exhausted => give_up("fulfilled without an esimId".into()),
                None => Verdict::retry(
                    "fulfilled_without_esim",
                    "upstream says fulfilled but gives no esimId yet",
                    next_poll,
                )
                .with_effects(record_status),
            },
            OrderStatus::Failed => {
                let note = format!(
                    "upstream order {order_id} failed; its reservation is released and the \
                 consumer is refunded"
                );
                let unit = purchase.clone();
                Verdict::done("failed", "upstream status failed").with_effects(move |c, now| {
                    record_status(c, now)?;
                    purchases::apply(c, &purchase_id, &PurchaseEvent::UpstreamFailed, &note, now)?;
                    refund_failed_delivery(c, &unit, &note, now)?;
                    Ok(())
                })
            }
            OrderStatus::PendingReview if exhausted => give_up(status),
            OrderStatus::PendingReview => {
                let message = format!(
                    "upstream order {order_id} is pending review: its outcome is being \
                 investigated. Contact upstream support; do not reorder. Funds stay reserved."
                );
                Verdict::retry(
                    "pending_review",
                    "upstream status pending_review",
                    slow_poll,
                )
                .with_effects(move |c, now| {
                    record_status(c, now)?;
                    needs_attention(c, &purchase_id, AlertKind::PendingReview, &message, now)
                })
            }
            OrderStatus::Refunded => {
                let message = format!(
                    "upstream refunded order {order_id}; reconcile before closing: the consumer \
                 was not refunded automatically"
                );
                Verdict::done("refunded", "upstream status refunded").with_effects(move |c, now| {
                    record_status(c, now)?;
                    needs_attention(c, &purchase_id, AlertKind::NeedsAttention, &message, now)
                })
            }
            OrderStatus::Other(_) if exhausted => give_up(status),
            OrderStatus::Other(raw) => {
                let message = format!(
                    "upstream order {order_id} reports the unfamiliar status {raw:?}; the record \
                 is kept and nothing is reordered. Investigate with upstream support."
                );
                Verdict::retry(
                    "unfamiliar_status",
                    format!("upstream status {raw:?}"),
                    slow_poll,
                )
                .with_effects(move |c, now| {
                    record_status(c, now)?;
                    needs_attention(c, &purchase_id, AlertKind::UnfamiliarStatus, &message, now)
                })
            }
        };
    Ok(verdict)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn regular_polls_double_up_to_the_cap_and_do_not_depend_on_reads() {
        let backoff = Backoff {
            base: Duration::from_secs(2),
            cap: Duration::from_secs(60),
        };
        // Job 500 has the factor 1: polls at 2, 6, 14, 30, 62, 122, 182… seconds.
        let at = |s: i64| regular_polls(&backoff, 500, 0, s * 1000);
        assert_eq!(at(0), (0, 2_000));
        assert_eq!(at(2), (1, 6_000));
        assert_eq!(at(13), (2, 14_000));
        assert_eq!(at(61), (4, 62_000));
        assert_eq!(at(62), (5, 122_000));
        assert_eq!(at(200), (7, 242_000));
        // Every job polls at between half and all of those intervals.
        for job in 0..600 {
            let (_, first) = regular_polls(&backoff, job, 0, 0);
            assert!((1_000..=2_000).contains(&first), "{job}: {first}");
        }
    }
}
