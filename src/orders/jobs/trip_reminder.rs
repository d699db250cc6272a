//! The trip reminder: one email to the buyer the day before the departure day they gave
//! (`orders::trip`), with the buyer's private link and the advice that follows the plan's
//! activation rule (install now, or only on arrival).
//!
//! The job names the checkout and decides when it runs, from the checkout as it is then:
//!
//! - no date any more, or the reminder for this date already went out → done, nothing sent;
//! - every eSIM refunded, failed or unpaid → done, nothing sent; a payment page still open →
//!   runs again once it has closed;
//! - not due yet under the shop's time zone now (the zone changed, or the date moved) → runs
//!   again at the due time;
//! - the departure day has begun → done, nothing sent;
//! - otherwise the email goes out, and the date it was for is recorded with the job's outcome
//!   in one transaction, so a second job for the same date sends nothing.
//!
//! The shop cannot know whether an eSIM was installed: the Partner API reports no installation
//! state, and the order page cannot see what the phone did with the QR code or the link. So
//! every delivered or still-pending checkout with a date gets its reminder.

use crate::db::outbox::LeasedJob;
use crate::db::{DbError, checkouts, now_ms, purchases};
use crate::domain::plan::{Activation, UNKNOWN_INSTALL_ADVICE};
use crate::domain::purchase::PurchaseStatus;
use crate::domain::trip::TripDate;
use crate::i18n::{self, Lang};
use crate::mail::OutgoingEmail;
use crate::orders::jobs::email::plan_description;
use crate::orders::jobs::job::{Job, JobContext, JobFuture, JobKind, OutboxError, Verdict};
use crate::orders::links::{issue, order_url};

pub(crate) struct TripReminder;

impl Job for TripReminder {
    fn kind(&self) -> JobKind {
        JobKind::EmailTripReminder
    }

    fn run<'a>(&'a self, ctx: &'a JobContext, leased: &'a LeasedJob) -> JobFuture<'a> {
        Box::pin(send(ctx, leased))
    }
}

/// How long after a payment page closes an unpaid checkout is looked at again.
const AFTER_PAYMENT_PAGE_MS: i64 = 60_000;

async fn send(ob: &JobContext, leased: &LeasedJob) -> Result<Verdict, OutboxError> {
    let notifier = match ob.mailer() {
        Ok(notifier) => notifier,
        Err(wait) => return Ok(wait),
    };
    let checkout_id = leased.job.purchase_id.clone();
    let (trip, units) = {
        let id = checkout_id.clone();
        ob.db
            .run(move |c| {
                Ok::<_, DbError>((checkouts::trip(c, &id)?, purchases::units_of(c, &id)?))
            })
            .await?
    };
    let (Some(trip), Some(first)) = (trip, units.first()) else {
        return Ok(Verdict::done("checkout_missing", "the checkout is gone"));
    };
    let Some(date) = trip.trip_date.as_deref().and_then(TripDate::stored) else {
        return Ok(Verdict::done("no_trip_date", "the buyer removed the date"));
    };
    let iso = date.iso();
    if trip.trip_reminded_for.as_deref() == Some(iso.as_str()) {
        return Ok(Verdict::done(
            "already_sent",
            format!("the reminder for {iso} went out already"),
        ));
    }
    let now = now_ms();
    let statuses: Vec<PurchaseStatus> = units.iter().map(|u| u.status).collect();
    if statuses.contains(&PurchaseStatus::AwaitingPayment) {
        let closes = units.iter().map(|u| u.expires_at_ms).max().unwrap_or(now);
        if now < closes.saturating_add(AFTER_PAYMENT_PAGE_MS) {
            return Ok(Verdict::retry(
                "awaiting_payment",
                "the payment page is still open",
                closes.saturating_add(AFTER_PAYMENT_PAGE_MS),
            ));
        }
    }
    let delivering = |s: &PurchaseStatus| {
        !matches!(
            s,
            PurchaseStatus::AwaitingPayment
                | PurchaseStatus::PaymentFailed
                | PurchaseStatus::Failed
                | PurchaseStatus::Refunded
        )
    };
    if !statuses.iter().any(delivering) {
        return Ok(Verdict::done(
            "not_delivered",
            "no eSIM of the order is paid and still on its way or delivered",
        ));
    }
    let zone = notifier.identity.current().time_zone.clone();
    match date.reminder_at(&zone, now) {
        None => {
            return Ok(Verdict::done(
                "departure_passed",
                format!("the departure day {iso} has begun"),
            ));
        }
        Some(at) if at > now => {
            return Ok(Verdict::retry("not_due", format!("due for {iso}"), at));
        }
        Some(_) => {}
    }
    let lang = Lang::parse(&first.language).unwrap_or_default();
    let plan_id = first.plan_id.clone();
    let (description, activation, token) = {
        let id = checkout_id.clone();
        ob.db
            .run(move |c| {
                let activation = crate::db::catalog::stored_plan(c, &plan_id)?
                    .map(|(row, _)| Activation::parse(&row.activation_type));
                let description = plan_description(c, &plan_id, lang)?;
                // The buyer's link, which opens every eSIM of the checkout.
                let token = c.write_tx(|c| issue(c, &id, true, now_ms()))?;
                Ok::<_, DbError>((description, activation, token))
            })
            .await?
    };
    let advice = activation.map_or(UNKNOWN_INSTALL_ADVICE, |a| a.install_advice());
    let link = order_url(&notifier.public_url, &checkout_id, &token);
    let brand = notifier.identity.current().mail_brand();
    let message = i18n::sync_scope(lang, || {
        let day = lang.iso_day(&iso).unwrap_or_else(|| iso.clone());
        OutgoingEmail::trip_reminder(
            first.email.clone(),
            &brand,
            &link,
            &description,
            &day,
            advice,
        )
    });
    let message = match message {
        Ok(message) => message,
        Err(err) => return Ok(Verdict::dead("render_failed", err.to_string())),
    };
    match notifier.mailer.send(&message).await {
        Ok(()) => {
            let id = checkout_id.clone();
            Ok(
                Verdict::done("sent", format!("reminded the buyer of the trip on {iso}"))
                    .with_effects(move |c, _now| {
                        checkouts::mark_trip_reminded(c, &id, &iso)?;
                        Ok(())
                    }),
            )
        }
        Err(err)
            if err.is_transient()
                && leased.job.attempts
                    < i32::try_from(ob.config.max_attempts).unwrap_or(i32::MAX) =>
        {
            Ok(Verdict::retry(
                "mail_deferred",
                err.to_string(),
                ob.backoff_at(&ob.config.retry, leased.job.attempts),
            ))
        }
        Err(err) => Ok(Verdict::dead("mail_failed", err.to_string())),
    }
}
