//! Consumer emails as outbox jobs: one job per purchase and kind, so a duplicate event queues
//! nothing new and a failed send is retried. Only a crash between the SMTP server's answer and
//! the job's commit can send one email twice, and then as the same message (one Message-ID per
//! job). Emails carry the private link, never the eSIM.

use crate::catalog::snapshot::{destination_name_in, region_names};
use crate::db::outbox::LeasedJob;
use crate::db::{DbError, alerts, now_ms, refunds};
use crate::domain::PurchaseId;
use crate::domain::plan::describe_allowance;
use crate::domain::purchase::RefundCause;
use crate::domain::receipt::DocumentNumber;
use crate::domain::{AlertKind, Cents};
use crate::i18n::{self, Lang};
use crate::mail::{OutgoingEmail, Receipt};
use crate::orders::jobs::job::{Job, JobContext, JobFuture, JobKind, OutboxError, Verdict};
use crate::orders::links::{issue, order_url};
use crate::orders::page::UnitPlace;

/// "France · 5 GB for 30 days" (or "Europe · …", "Francia · …") in `lang`, from the stored catalog: the plan
/// may have left the live one. Named as the shop names it, not with upstream's multi-country
/// label.
pub(crate) fn plan_description(
    conn: &mut crate::db::DbConn,
    plan_id: &str,
    lang: Lang,
) -> Result<String, DbError> {
    let Some((row, region)) = crate::db::catalog::stored_plan(conn, plan_id)? else {
        return Ok(lang.ta("mail-unknown-plan", &[("id", plan_id.into())]));
    };
    Ok(format!(
        "{} · {}",
        destination_name_in(
            &row,
            region.map(|r| region_names(&r.english, &r.own)).as_ref(),
            lang
        ),
        describe_allowance(lang, row.data_mb, row.validity_days, row.is_daily)
    ))
}

/// The three consumer emails: one job type, one kind each.
#[derive(Debug, Clone, Copy)]
pub(crate) enum ConsumerEmail {
    /// The payment arrived (with the private link).
    PaymentReceived,
    /// The eSIM is ready (the private link only, never the eSIM itself).
    EsimReady,
    /// The order could not be completed and was refunded.
    Refunded,
}

impl Job for ConsumerEmail {
    fn kind(&self) -> JobKind {
        match self {
            Self::PaymentReceived => JobKind::EmailPaymentReceived,
            Self::EsimReady => JobKind::EmailEsimReady,
            Self::Refunded => JobKind::EmailRefunded,
        }
    }

    fn run<'a>(&'a self, ctx: &'a JobContext, leased: &'a LeasedJob) -> JobFuture<'a> {
        Box::pin(send(ctx, leased, *self))
    }
}

async fn send(
    ob: &JobContext,
    leased: &LeasedJob,
    email: ConsumerEmail,
) -> Result<Verdict, OutboxError> {
    let kind = email.kind();
    let notifier = match ob.mailer() {
        Ok(notifier) => notifier,
        Err(wait) => return Ok(wait),
    };
    let Some(purchase) = ob.purchase(&leased.job.purchase_id).await? else {
        return Ok(Verdict::done(
            "purchase_missing",
            "the purchase row is gone",
        ));
    };
    // Every email of a purchase is written in the language the customer bought in (English
    // when the stored code is not one the shop has).
    let lang = Lang::parse(&purchase.language).unwrap_or_default();
    let (plan_id, purchase_id) = (purchase.plan_id.clone(), purchase.id.clone());
    let (checkout_id, unit_id) = (purchase.checkout_id.clone(), purchase.id.clone());
    let (description, refund, document, traveller, units, taxes) = ob
        .db
        .run(move |c| {
            let units = crate::db::purchases::units_of(c, &checkout_id)?;
            let ids: Vec<_> = units.iter().map(|unit| unit.id.clone()).collect();
            Ok::<_, DbError>((
                plan_description(c, &plan_id, lang)?,
                refunds::refund_for(c, &purchase_id)?,
                crate::db::receipts::receipt_of(c, checkout_id.as_str())?,
                crate::db::travellers::find(c, &unit_id)?,
                units,
                crate::db::tax::unit_taxes_of(c, &ids)?,
            ))
        })
        .await?;
    // What the buyer paid for an eSIM: its price, with tax when it was added on top.
    let charged = |unit: &crate::db::purchases::Purchase| {
        taxes
            .get(&unit.id)
            .copied()
            .unwrap_or_default()
            .charged(unit.price_cents)
    };
    let count = units.len();
    // A unit whose traveller has an address is delivered to them: their own email, with a
    // link that opens only their eSIM. Every other email goes to the buyer with the buyer's
    // link, which opens the whole checkout.
    let traveller_to = match email {
        ConsumerEmail::EsimReady => traveller
            .as_ref()
            .and_then(|t| t.email.as_deref())
            .and_then(|raw| crate::domain::Email::parse(raw).ok()),
        _ => None,
    };
    // The refund email says what the refund row records, never a guess.
    let refund_reason = refund
        .as_ref()
        .map_or(RefundCause::DeliveryFailed, |r| r.cause());
    let to = traveller_to
        .clone()
        .unwrap_or_else(|| purchase.email.clone());
    // A token of its own, recorded before the email can leave (see `orders::links`): the
    // unit's for its traveller, else the buyer's (a row of the checkout's first unit).
    let (linked, opens_checkout) = if traveller_to.is_some() {
        (purchase.id.clone(), false)
    } else {
        (purchase.checkout_id.clone(), true)
    };
    let token = {
        let linked = linked.clone();
        ob.db
            .run(move |c| c.write_tx(|c| issue(c, &linked, opens_checkout, now_ms())))
            .await?
    };
    let link = order_url(&notifier.public_url, &linked, &token);
    // Every email names the order by the buyer's number (the checkout's), as every page does:
    // an eSIM's own id is never shown to a person.
    // A refund email says what the refund row gave back; the others what was paid.
    let amount = match (email, &refund) {
        (ConsumerEmail::Refunded, Some(refund)) => Cents::new(refund.amount_cents),
        _ => charged(&purchase),
    };
    let receipt = Receipt::new(
        &purchase.checkout_id,
        &description,
        amount,
        purchase.created_at_ms,
    )
    .with_promo(
        purchase.promo_code.as_deref(),
        purchase.list_price_cents,
        purchase.discount_cents,
    );
    // The buyer's emails of a checkout of several eSIMs name how many, and what they cost
    // together; the ready email also which of them is ready. A refund is of one eSIM.
    let receipt = match email {
        ConsumerEmail::PaymentReceived | ConsumerEmail::EsimReady if count > 1 => {
            let total = Cents::new(
                units
                    .iter()
                    .map(|unit| charged(unit).get())
                    .fold(0, i64::saturating_add),
            );
            let place = matches!(email, ConsumerEmail::EsimReady).then(|| {
                unit_label(
                    lang,
                    purchase.unit_index,
                    count,
                    traveller.as_ref().and_then(|t| t.name.as_deref()),
                )
            });
            receipt.with_units(count, total, place)
        }
        // A refund is of one eSIM: the email says which, and that the others stand.
        ConsumerEmail::Refunded if count > 1 => receipt.about_unit(unit_label(
            lang,
            purchase.unit_index,
            count,
            traveller.as_ref().and_then(|t| t.name.as_deref()),
        )),
        _ => receipt,
    };
    // The buyer's payment email links the checkout's receipt, opened by the same token.
    let receipt = match document {
        Some(document)
            if matches!(email, ConsumerEmail::PaymentReceived) && purchase.names_checkout() =>
        {
            let mut url = link.clone();
            url.set_path(&format!("/orders/{linked}/receipt"));
            receipt.with_document(DocumentNumber::receipt(document.number).to_string(), &url)
        }
        _ => receipt,
    };
    let brand = notifier.identity.current().mail_brand();
    let shop = &brand;
    let message = i18n::sync_scope(lang, || match email {
        ConsumerEmail::EsimReady if traveller_to.is_some() => {
            let unit = unit_label(lang, purchase.unit_index, count, None);
            OutgoingEmail::traveller_ready(
                to,
                shop,
                &link,
                &description,
                &unit,
                &purchase.checkout_id.order_number(),
            )
        }
        ConsumerEmail::PaymentReceived => {
            OutgoingEmail::payment_received(to, shop, &link, &receipt)
        }
        ConsumerEmail::EsimReady => OutgoingEmail::esim_ready(to, shop, &link, &receipt),
        ConsumerEmail::Refunded => OutgoingEmail::order_refunded(
            to,
            shop,
            &link,
            &receipt,
            refund_reason.customer_reason(),
        ),
    });
    // A run of this job after a crash between the send and its record sends the same message
    // again: the same Message-ID says so to the recipient's mail server and client.
    let message = match message {
        Ok(message) => message.once_per(format!(
            "{}/{}/{}",
            leased.job.purchase_id, leased.job.kind, leased.job.id
        )),
        Err(err) => return Ok(Verdict::dead("render_failed", err.to_string())),
    };
    match notifier.mailer.send(&message).await {
        Ok(()) => Ok(Verdict::done("sent", "sent to the customer")),
        Err(err) if err.is_transient() => {
            let exhausted =
                leased.job.attempts >= i32::try_from(ob.config.max_attempts).unwrap_or(i32::MAX);
            if exhausted {
                Ok(dead_with_alert(&purchase.id, kind, err.to_string()))
            } else {
                Ok(Verdict::retry(
                    "mail_deferred",
                    err.to_string(),
                    ob.backoff_at(&ob.config.retry, leased.job.attempts),
                ))
            }
        }
        Err(err) => Ok(dead_with_alert(&purchase.id, kind, err.to_string())),
    }
}

/// "eSIM 2 of 3" in `lang`, with the traveller's name when given ("eSIM 2 of 3 · Ben").
fn unit_label(lang: Lang, index: i32, count: usize, name: Option<&str>) -> String {
    UnitPlace {
        index,
        count,
        name: name.map(str::to_string),
    }
    .label(lang)
}

fn dead_with_alert(purchase_id: &PurchaseId, kind: JobKind, reason: String) -> Verdict {
    let purchase_id = purchase_id.clone();
    let message = format!("{} failed: {reason}", kind.label());
    Verdict::dead("mail_failed", message.clone()).with_effects(move |c, now| {
        alerts::raise_alert(c, AlertKind::EmailFailed, Some(&purchase_id), &message, now)?;
        Ok(())
    })
}
