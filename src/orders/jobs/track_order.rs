//! The `track_order` job: polls `GET /orders/{id}` on a backoff
//! schedule (seconds at first, then minutes, for days) until a terminal status, following spec
//! section 3. Nothing here ever places another order: an order that fails, stalls, is under
//! review or shows a status we do not know is handed to the admin or refunded, never
//! reordered. An upstream webhook only makes this job due now (`outbox::wake_tracking`).

use crate::db::outbox::LeasedJob;
use crate::db::purchases;
use crate::domain::AlertKind;
use crate::domain::purchase::{PurchaseEvent, PurchaseStatus};
use crate::orders::jobs::job::{
    Job, JobContext, JobFuture, JobKind, OutboxError, Verdict, duration_ms, enqueue,
    needs_attention,
};
use crate::orders::jobs::refund::refund_failed_delivery;
use crate::upstream::{Class, OrderStatus, PathId};

/// Polls `GET /orders/{id}` until the order reaches a terminal status.
pub(crate) struct TrackOrder;

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
    let polls = leased.job.attempts;
    let exhausted = polls >= i32::try_from(ob.config.max_tracking_polls).unwrap_or(i32::MAX);
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
    let next_poll = ob.backoff_at(&ob.config.tracking, polls);
    let slow_poll = crate::db::now_ms().saturating_add(duration_ms(ob.config.review_poll_interval));
    let give_up = |last: String| {
        let message = format!(
            "upstream order {order_id} reached no terminal status after {polls} polls \
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
    let verdict = match order.status {
        OrderStatus::Paid if exhausted => give_up(status),
        OrderStatus::Paid => {
            Verdict::retry("waiting", "upstream status paid", next_poll).with_effects(record_status)
        }
        OrderStatus::Provisioning if exhausted => give_up(status),
        OrderStatus::Provisioning => {
            let note = format!("upstream order {order_id} is provisioning");
            Verdict::retry("provisioning", "upstream status provisioning", next_poll).with_effects(
                move |c, now| {
                    record_status(c, now)?;
                    purchases::apply(
                        c,
                        &purchase_id,
                        &PurchaseEvent::UpstreamProvisioning,
                        &note,
                        now,
                    )?;
                    Ok(())
                },
            )
        }
        // Refunded by the shop while upstream worked on it ("refund and keep the cost"):
        // the sale is over, so the eSIM is not fetched or delivered.
        OrderStatus::Fulfilled if purchase.status() == PurchaseStatus::Refunded => Verdict::done(
            "fulfilled_after_refund",
            "upstream fulfilled an order the shop had refunded; not delivered",
        )
        .with_effects(record_status),
        OrderStatus::Fulfilled => match order.esim_id {
            Some(esim_id) => {
                Verdict::done("fulfilled", format!("esim {esim_id}")).with_effects(move |c, now| {
                    record_status(c, now)?;
                    purchases::set_esim_id(c, &purchase_id, &esim_id, now)?;
                    enqueue(c, &purchase_id, JobKind::FetchInstallation, now, now)?;
                    Ok(())
                })
            }
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
            let amount = purchase.price_cents;
            Verdict::done("failed", "upstream status failed").with_effects(move |c, now| {
                record_status(c, now)?;
                purchases::apply(c, &purchase_id, &PurchaseEvent::UpstreamFailed, &note, now)?;
                refund_failed_delivery(c, &purchase_id, amount, &note, now)?;
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
