//! The reminder of an unfinished checkout: one email, an hour after an unpaid checkout's
//! payment page closed, linking back to the plan, sent only to a buyer who ticked the box for
//! it at checkout (`checkouts.remind_unfinished`). It is not about an order the customer has,
//! so it carries an unsubscribe link (and `List-Unsubscribe` headers for one-click clients).
//!
//! When the job runs it sends nothing, and ends, when:
//!
//! - the buyer did not consent (no job is queued then; a row changed by hand is still honoured);
//! - the checkout was paid after all, or the same address paid for anything since it began;
//! - the mailbox unsubscribed (`db::reminder_addresses`, by the address without case or `+tag`);
//! - the mailbox had such a reminder within the last week (the place is taken in the database
//!   before the email leaves, so two replicas send one);
//! - it is too late: the reminder was due over [`TOO_LATE_AFTER_MS`] ago (a backlog after the
//!   mail server was down), when the buyer has long moved on.
//!
//! A checkout whose payment page is still open (the job was made due early) runs again an
//! hour after it closes.

use crate::db::outbox::LeasedJob;
use crate::db::{DbError, now_ms, purchases, reminder_addresses as q};
use crate::domain::purchase::PurchaseStatus;
use crate::i18n::{self, Lang};
use crate::mail::OutgoingEmail;
use crate::orders::checkout::email_key;
use crate::orders::checkout_reminder::{AFTER_EXPIRY_MS, unsubscribe_url};
use crate::orders::jobs::email::plan_description;
use crate::orders::jobs::job::{Job, JobContext, JobFuture, JobKind, OutboxError, Verdict};
use crate::orders::links::{hash_token, new_token};

pub(crate) struct CheckoutReminder;

/// How long after it was due a reminder still goes out.
pub(crate) const TOO_LATE_AFTER_MS: i64 = 2 * 24 * 60 * 60 * 1000;

impl Job for CheckoutReminder {
    fn kind(&self) -> JobKind {
        JobKind::EmailCheckoutReminder
    }

    fn run<'a>(&'a self, ctx: &'a JobContext, leased: &'a LeasedJob) -> JobFuture<'a> {
        Box::pin(send(ctx, leased))
    }

    fn too_late_after(&self) -> Option<std::time::Duration> {
        Some(std::time::Duration::from_millis(
            u64::try_from(TOO_LATE_AFTER_MS).unwrap_or(0),
        ))
    }
}

async fn send(ob: &JobContext, leased: &LeasedJob) -> Result<Verdict, OutboxError> {
    let notifier = match ob.mailer() {
        Ok(notifier) => notifier,
        Err(wait) => return Ok(wait),
    };
    let checkout_id = leased.job.purchase_id.clone();
    let (consented, units) = {
        let id = checkout_id.clone();
        ob.db
            .run(move |c| Ok::<_, DbError>((q::consented(c, &id)?, purchases::units_of(c, &id)?)))
            .await?
    };
    let Some(first) = units.first() else {
        return Ok(Verdict::done("checkout_missing", "the checkout is gone"));
    };
    if !consented {
        return Ok(Verdict::done("no_consent", "the buyer did not ask for it"));
    }
    let unpaid = |s: PurchaseStatus| {
        matches!(
            s,
            PurchaseStatus::AwaitingPayment | PurchaseStatus::PaymentFailed
        )
    };
    if !units.iter().all(|u| unpaid(u.status)) {
        return Ok(Verdict::done("paid", "the checkout was paid"));
    }
    let now = now_ms();
    let due = units
        .iter()
        .map(|u| u.expires_at_ms)
        .max()
        .unwrap_or(now)
        .saturating_add(AFTER_EXPIRY_MS);
    if now > due.saturating_add(TOO_LATE_AFTER_MS) {
        return Ok(Verdict::done(
            "too_late",
            "the payment page closed days ago; a reminder now would not help",
        ));
    }
    if now < due {
        return Ok(Verdict::retry(
            "not_due",
            "the payment page closed less than an hour ago",
            due,
        ));
    }
    let mailbox = email_key(&first.email);
    let email_lower = first.email.as_str().to_lowercase();
    let since = first.created_at_ms;
    let token = new_token();
    let slot = {
        let (id, mailbox, token_hash) = (checkout_id.clone(), mailbox.clone(), hash_token(&token));
        ob.db
            .run(move |c| {
                c.write_tx(|c| {
                    if q::paid_since(c, &email_lower, since)? {
                        return Ok::<_, DbError>(None);
                    }
                    let slot = q::take_slot(c, &mailbox, &id, now)?;
                    if slot == q::Slot::Taken {
                        q::insert_token(c, &token_hash, &mailbox, now)?;
                    }
                    Ok(Some(slot))
                })
            })
            .await?
    };
    match slot {
        None => {
            return Ok(Verdict::done(
                "paid_since",
                "the address paid for something since",
            ));
        }
        Some(q::Slot::Unsubscribed) => {
            return Ok(Verdict::done("unsubscribed", "the address unsubscribed"));
        }
        Some(q::Slot::UsedThisWeek) => {
            return Ok(Verdict::done(
                "reminded_this_week",
                "the address had such a reminder within the week",
            ));
        }
        Some(q::Slot::Taken) => {}
    }
    let lang = Lang::parse(&first.language).unwrap_or_default();
    let plan_id = first.plan_id.clone();
    let description = ob
        .db
        .run(move |c| plan_description(c, &plan_id, lang))
        .await?;
    let mut plan_url = notifier.public_url.clone();
    plan_url.set_path(&format!("/plans/{}", first.plan_id));
    plan_url.query_pairs_mut().append_pair("lang", lang.code());
    let unsubscribe = unsubscribe_url(&notifier.public_url, &token);
    let brand = notifier.identity.current().mail_brand();
    let message = i18n::sync_scope(lang, || {
        OutgoingEmail::checkout_reminder(
            first.email.clone(),
            &brand,
            &plan_url,
            &description,
            &unsubscribe,
        )
    });
    let message = match message {
        Ok(message) => message,
        Err(err) => return Ok(Verdict::dead("render_failed", err.to_string())),
    };
    match notifier.mailer.send(&message).await {
        Ok(()) => Ok(Verdict::done(
            "sent",
            "reminded the buyer of the unfinished checkout",
        )),
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
