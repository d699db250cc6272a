//! The emails the shop sends: [`OutgoingEmail`] and one constructor per kind, rendered from the
//! askama templates under `templates/mail/` (a shared layout, an HTML and a plain-text part each).
//!
//! Customer emails are written in the current language ([`crate::i18n::current`]): the caller
//! renders them inside [`crate::i18n::sync_scope`] with the purchase's language. Alerts are
//! for the shop's own people and stay English.
//!
//! Every value reaches the HTML through askama's escaping, including plan names from upstream,
//! which may contain `<`, `&` or any script. The text part is not HTML and is not escaped.
//! Consumer emails carry a link to the private order page and nothing else of the eSIM: no QR
//! code, activation code or ICCID ever goes into a mailbox. The constructors cannot even
//! receive those values.

use std::fmt;

use askama::Template;
use url::Url;

use super::MailError;
use crate::domain::PurchaseId;
use crate::domain::{AlertKind, Cents, Email};
use crate::i18n;

/// A rendered email, ready for [`super::Mailer::send`].
///
/// `Debug` shows the masked recipient and the subject only: the bodies hold the private order
/// link, which is as good as a password for the order page.
#[derive(Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct OutgoingEmail {
    pub to: Email,
    /// Who reads it, which decides where a reply goes.
    #[serde(default)]
    pub audience: Audience,
    pub subject: String,
    /// The `text/plain` alternative.
    pub text: String,
    /// The `text/html` alternative.
    pub html: String,
    /// The sender's display name when the configured sender has none: the shop's name as it
    /// was when the email was written.
    #[serde(default)]
    pub sender_name: Option<String>,
    /// Where a customer's reply goes, when the shop's identity names a support address.
    #[serde(default)]
    pub reply_to: Option<Email>,
    /// The unsubscribe link of an email that is not about an order (a reminder of an
    /// unfinished checkout): sent as `List-Unsubscribe` with one-click `List-Unsubscribe-Post`
    /// (RFC 8058).
    #[serde(default)]
    pub list_unsubscribe: Option<String>,
    /// What makes this message the same message however often it is sent: its Message-ID is
    /// derived from it (see [`OutgoingEmail::once_per`]). Without one, every send is a new
    /// message.
    #[serde(default)]
    pub message_key: Option<String>,
}

impl MailBrand {
    /// A shop known by its name alone: the default colour, no company details, no Reply-To.
    pub fn named(name: &str) -> Self {
        Self {
            name: name.to_string(),
            accent: crate::domain::brand::DEFAULT_ACCENT.to_string(),
            footer: Vec::new(),
            reply_to: None,
        }
    }
}

/// How a customer email presents the shop: its name (heading, subject, sender), its accent
/// colour (the button), its company details (the footer) and its support address (Reply-To).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MailBrand {
    pub name: String,
    /// `#rrggbb`.
    pub accent: String,
    pub footer: Vec<String>,
    pub reply_to: Option<Email>,
}

impl fmt::Debug for OutgoingEmail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OutgoingEmail")
            .field("to", &self.to)
            .field("subject", &self.subject)
            .finish_non_exhaustive()
    }
}

/// Who an email is for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Audience {
    /// A customer: a reply goes to the shop's support address, when it has one.
    Customer,
    /// The shop's own people (alerts): replies are not routed anywhere special.
    #[default]
    Staff,
}

/// What a customer's email says about the order itself, like a receipt: its short number,
/// the plan, the amount and the day it was ordered. The amount and the day are written in the
/// email's language when it is rendered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Receipt {
    /// `SF-3FA2-9C1E` ([`crate::domain::purchase::order_number`]).
    pub order_number: String,
    /// "France · 5 GB for 30 days", already in the email's language.
    pub plan: String,
    pub amount: Cents,
    /// When it was ordered (Unix ms); shown as its UTC day.
    pub ordered_at_ms: i64,
    /// The promotion code the order used, when it used one.
    pub promo: Option<PromoLine>,
    /// The issued receipt's number (`R-000001`) and the link to its page.
    pub document: Option<(String, String)>,
    /// How many eSIMs the order holds (`amount` and the promotion line are for all of them).
    pub units: usize,
    /// Which eSIM of several an email is about ("eSIM 1 of 3 · Anna"), in the email's
    /// language.
    pub place: Option<String>,
}

/// A promotion code on a receipt: the code, the list price and what it took off (`amount`
/// is what was paid).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromoLine {
    pub code: String,
    pub list_price: Cents,
    pub discount: Cents,
}

impl PromoLine {
    /// `SPRING: $2.00 off $20.00`, in the language the email is being written in.
    pub fn line(&self) -> String {
        let lang = crate::i18n::current();
        lang.ta(
            "mail-receipt-promo-line",
            &[
                ("code", self.code.as_str().into()),
                ("discount", lang.money(self.discount).into()),
                ("list", lang.money(self.list_price).into()),
            ],
        )
    }
}

impl Receipt {
    /// The receipt of the purchase `purchase_id`, ordered at `ordered_at_ms` (Unix ms).
    pub fn new(purchase_id: &PurchaseId, plan: &str, amount: Cents, ordered_at_ms: i64) -> Self {
        Self {
            order_number: purchase_id.order_number(),
            plan: plan.to_string(),
            amount,
            ordered_at_ms,
            promo: None,
            document: None,
            units: 1,
            place: None,
        }
    }

    /// The details of an order of `units` eSIMs that cost `total` together, about the one at
    /// `place` when the email is about one of them. A promotion code took its discount off
    /// each eSIM, so its line shows what it took off all of them.
    pub fn with_units(mut self, units: usize, total: Cents, place: Option<String>) -> Self {
        let times = i64::try_from(units).unwrap_or(1).max(1);
        self.units = units;
        self.amount = total;
        self.place = place;
        if let Some(promo) = &mut self.promo {
            promo.list_price = Cents::new(promo.list_price.get().saturating_mul(times));
            promo.discount = Cents::new(promo.discount.get().saturating_mul(times));
        }
        self
    }

    /// The details of one eSIM of an order of several, named by its `place` ("eSIM 2 of 3 ·
    /// Ben"): the amount stays that eSIM's.
    pub fn about_unit(mut self, place: String) -> Self {
        self.place = Some(place);
        self
    }

    /// What was bought: the plan, or "3 eSIMs · France · 5 GB for 30 days" for several, in
    /// the language the email is being written in.
    pub fn bought(&self) -> String {
        if self.units > 1 {
            i18n::current().ta(
                "mail-units-plan",
                &[
                    ("count", self.units.into()),
                    ("plan", self.plan.as_str().into()),
                ],
            )
        } else {
            self.plan.clone()
        }
    }

    /// The details with the link to the issued receipt `number` at `url`.
    pub fn with_document(mut self, number: String, url: &Url) -> Self {
        self.document = Some((number, url.to_string()));
        self
    }

    /// The receipt of a purchase made with a promotion code.
    pub fn with_promo(
        mut self,
        code: Option<&str>,
        list: Option<i64>,
        discount: Option<i64>,
    ) -> Self {
        self.promo = match (code, list, discount) {
            (Some(code), Some(list), Some(discount)) => Some(PromoLine {
                code: code.to_string(),
                list_price: Cents::new(list),
                discount: Cents::new(discount),
            }),
            _ => None,
        };
        self
    }
}

/// What the layout needs from every email. Fields are read by the templates.
struct Frame<'a> {
    /// The name at the top: the shop's, or "storefront" for admin alerts.
    brand: &'a str,
    /// The button's colour.
    accent: &'a str,
    /// The shop's company details, one line each, under the footer.
    company: &'a [String],
    /// The hidden preview line mail clients show next to the subject.
    preheader: String,
    heading: String,
    action_label: String,
    action_url: &'a str,
}

impl<'a> Frame<'a> {
    /// The frame of a customer email, its texts the messages `<name>-preheader`,
    /// `<name>-heading` and `<name>-action` in the current language.
    fn customer(name: &str, brand: &'a MailBrand, action_url: &'a str) -> Self {
        let text = |part: &str| i18n::t(&format!("mail-{name}-{part}"));
        Self {
            brand: &brand.name,
            accent: &brand.accent,
            company: &brand.footer,
            preheader: text("preheader"),
            heading: text("heading"),
            action_label: text("action"),
            action_url,
        }
    }
}

// One struct per part. Askama picks the escaper from the file extension: `.html` escapes every
// `{{ value }}`, `.txt` writes values as they are (plain text has nothing to inject into).

#[derive(Template)]
#[template(path = "mail/payment_received.html")]
struct PaymentReceivedHtml<'a> {
    frame: &'a Frame<'a>,
    receipt: &'a Receipt,
}

#[derive(Template)]
#[template(path = "mail/payment_received.txt")]
struct PaymentReceivedText<'a> {
    frame: &'a Frame<'a>,
    receipt: &'a Receipt,
}

#[derive(Template)]
#[template(path = "mail/esim_ready.html")]
struct EsimReadyHtml<'a> {
    frame: &'a Frame<'a>,
    receipt: &'a Receipt,
}

#[derive(Template)]
#[template(path = "mail/esim_ready.txt")]
struct EsimReadyText<'a> {
    frame: &'a Frame<'a>,
    receipt: &'a Receipt,
}

#[derive(Template)]
#[template(path = "mail/traveller_ready.html")]
struct TravellerReadyHtml<'a> {
    frame: &'a Frame<'a>,
    plan: &'a str,
    unit: &'a str,
    order_number: &'a str,
}

#[derive(Template)]
#[template(path = "mail/traveller_ready.txt")]
struct TravellerReadyText<'a> {
    frame: &'a Frame<'a>,
    plan: &'a str,
    unit: &'a str,
    order_number: &'a str,
}

#[derive(Template)]
#[template(path = "mail/trip_reminder.html")]
struct TripReminderHtml<'a> {
    frame: &'a Frame<'a>,
    plan: &'a str,
    day: &'a str,
    advice: &'a str,
}

#[derive(Template)]
#[template(path = "mail/trip_reminder.txt")]
struct TripReminderText<'a> {
    frame: &'a Frame<'a>,
    plan: &'a str,
    day: &'a str,
    advice: &'a str,
}

#[derive(Template)]
#[template(path = "mail/checkout_reminder.html")]
struct CheckoutReminderHtml<'a> {
    frame: &'a Frame<'a>,
    plan: &'a str,
    unsubscribe: &'a str,
}

#[derive(Template)]
#[template(path = "mail/checkout_reminder.txt")]
struct CheckoutReminderText<'a> {
    frame: &'a Frame<'a>,
    plan: &'a str,
    unsubscribe: &'a str,
}

#[derive(Template)]
#[template(path = "mail/order_refunded.html")]
struct OrderRefundedHtml<'a> {
    frame: &'a Frame<'a>,
    receipt: &'a Receipt,
    reason: &'a str,
}

#[derive(Template)]
#[template(path = "mail/order_refunded.txt")]
struct OrderRefundedText<'a> {
    frame: &'a Frame<'a>,
    receipt: &'a Receipt,
    reason: &'a str,
}

#[derive(Template)]
#[template(path = "mail/alert.html")]
struct AlertHtml<'a> {
    frame: &'a Frame<'a>,
    summary: &'a str,
    advice: &'a str,
}

#[derive(Template)]
#[template(path = "mail/alert.txt")]
struct AlertText<'a> {
    frame: &'a Frame<'a>,
    summary: &'a str,
    advice: &'a str,
}

/// One order in the "your order links" email: its receipt and a fresh private link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderLink {
    pub receipt: Receipt,
    pub url: Url,
}

#[derive(Template)]
#[template(path = "mail/lost_link.html")]
struct LostLinkHtml<'a> {
    frame: &'a Frame<'a>,
    orders: &'a [OrderLink],
    sign_in: &'a Url,
}

#[derive(Template)]
#[template(path = "mail/lost_link.txt")]
struct LostLinkText<'a> {
    frame: &'a Frame<'a>,
    orders: &'a [OrderLink],
    sign_in: &'a Url,
}

/// Renders the text and the HTML part; `name` says which email failed, for the error.
fn render_pair(
    name: &'static str,
    text: &impl Template,
    html: &impl Template,
) -> Result<(String, String), MailError> {
    let render_error = |source| MailError::Render {
        template: name,
        source,
    };
    Ok((
        text.render().map_err(render_error)?,
        html.render().map_err(render_error)?,
    ))
}

impl OutgoingEmail {
    /// "Your order links": asked for on the "Lost your link?" page, one fresh private link per
    /// paid order (newest first) and the link that signs in to "My eSIMs". `None` without
    /// orders: nothing is sent then.
    pub fn lost_link(
        to: Email,
        brand: &MailBrand,
        orders: &[OrderLink],
        sign_in: &Url,
    ) -> Option<Result<Self, MailError>> {
        let newest = orders.first()?;
        let frame = Frame::customer("lost", brand, newest.url.as_str());
        Some(
            render_pair(
                "lost_link",
                &LostLinkText {
                    frame: &frame,
                    orders,
                    sign_in,
                },
                &LostLinkHtml {
                    frame: &frame,
                    orders,
                    sign_in,
                },
            )
            .map(|(text, html)| {
                Self::new(
                    Audience::Customer,
                    to,
                    i18n::ta("mail-lost-subject", "shop", &brand.name),
                    text,
                    html,
                )
                .sent_by(brand)
            }),
        )
    }

    /// "We received your payment": sent when the provider confirms the payment.
    pub fn payment_received(
        to: Email,
        brand: &MailBrand,
        order_url: &Url,
        receipt: &Receipt,
    ) -> Result<Self, MailError> {
        let frame = Frame::customer("paid", brand, order_url.as_str());
        let (text, html) = render_pair(
            "payment_received",
            &PaymentReceivedText {
                frame: &frame,
                receipt,
            },
            &PaymentReceivedHtml {
                frame: &frame,
                receipt,
            },
        )?;
        Ok(Self::new(
            Audience::Customer,
            to,
            i18n::ta("mail-paid-subject", "shop", &brand.name),
            text,
            html,
        )
        .sent_by(brand))
    }

    /// "Your eSIM is ready": the private link to the install page, nothing else of the eSIM.
    pub fn esim_ready(
        to: Email,
        brand: &MailBrand,
        order_url: &Url,
        receipt: &Receipt,
    ) -> Result<Self, MailError> {
        let frame = Frame::customer("ready", brand, order_url.as_str());
        let (text, html) = render_pair(
            "esim_ready",
            &EsimReadyText {
                frame: &frame,
                receipt,
            },
            &EsimReadyHtml {
                frame: &frame,
                receipt,
            },
        )?;
        Ok(Self::new(
            Audience::Customer,
            to,
            i18n::ta("mail-ready-subject", "shop", &brand.name),
            text,
            html,
        )
        .sent_by(brand))
    }

    /// "Your eSIM is ready" to a traveller the buyer named: the link opens only that eSIM.
    /// The order is named by the buyer's order number (`order_number`), as on the traveller's
    /// page: it is what the shop finds the order by when the traveller asks for help, and it
    /// opens nothing. Nothing else of the buyer's order (the buyer, the price, the other
    /// eSIMs) is in it. `plan` names the plan, `unit` the eSIM ("eSIM 2 of 3").
    pub fn traveller_ready(
        to: Email,
        brand: &MailBrand,
        unit_url: &Url,
        plan: &str,
        unit: &str,
        order_number: &str,
    ) -> Result<Self, MailError> {
        let frame = Frame::customer("traveller", brand, unit_url.as_str());
        let (text, html) = render_pair(
            "traveller_ready",
            &TravellerReadyText {
                frame: &frame,
                plan,
                unit,
                order_number,
            },
            &TravellerReadyHtml {
                frame: &frame,
                plan,
                unit,
                order_number,
            },
        )?;
        Ok(Self::new(
            Audience::Customer,
            to,
            i18n::ta("mail-traveller-subject", "shop", &brand.name),
            text,
            html,
        )
        .sent_by(brand))
    }

    /// The reminder the buyer asked for by giving a departure day: sent the day before `day`
    /// (written in the current language), with the buyer's private link and `advice`, a
    /// message id ([`crate::domain::plan::Activation::install_advice`]).
    pub fn trip_reminder(
        to: Email,
        brand: &MailBrand,
        order_url: &Url,
        plan: &str,
        day: &str,
        advice: &str,
    ) -> Result<Self, MailError> {
        let frame = Frame::customer("trip", brand, order_url.as_str());
        let (text, html) = render_pair(
            "trip_reminder",
            &TripReminderText {
                frame: &frame,
                plan,
                day,
                advice,
            },
            &TripReminderHtml {
                frame: &frame,
                plan,
                day,
                advice,
            },
        )?;
        Ok(Self::new(
            Audience::Customer,
            to,
            i18n::ta2("mail-trip-subject", "day", day, "shop", &brand.name),
            text,
            html,
        )
        .sent_by(brand))
    }

    /// The reminder of an unfinished checkout the buyer asked for: the plan's page to go back
    /// to, and the link that unsubscribes the address from such reminders (also in the
    /// headers).
    pub fn checkout_reminder(
        to: Email,
        brand: &MailBrand,
        plan_url: &Url,
        plan: &str,
        unsubscribe: &Url,
    ) -> Result<Self, MailError> {
        let frame = Frame::customer("unfinished", brand, plan_url.as_str());
        let (text, html) = render_pair(
            "checkout_reminder",
            &CheckoutReminderText {
                frame: &frame,
                plan,
                unsubscribe: unsubscribe.as_str(),
            },
            &CheckoutReminderHtml {
                frame: &frame,
                plan,
                unsubscribe: unsubscribe.as_str(),
            },
        )?;
        let mut email = Self::new(
            Audience::Customer,
            to,
            i18n::ta("mail-unfinished-subject", "shop", &brand.name),
            text,
            html,
        )
        .sent_by(brand);
        email.list_unsubscribe = Some(unsubscribe.to_string());
        Ok(email)
    }

    /// "Your order was refunded"; `reason` is a message id
    /// ([`crate::domain::purchase::RefundCause::customer_reason`]).
    pub fn order_refunded(
        to: Email,
        brand: &MailBrand,
        order_url: &Url,
        receipt: &Receipt,
        reason: &str,
    ) -> Result<Self, MailError> {
        let frame = Frame::customer("refunded", brand, order_url.as_str());
        let (text, html) = render_pair(
            "order_refunded",
            &OrderRefundedText {
                frame: &frame,
                receipt,
                reason,
            },
            &OrderRefundedHtml {
                frame: &frame,
                receipt,
                reason,
            },
        )?;
        Ok(Self::new(
            Audience::Customer,
            to,
            i18n::ta("mail-refunded-subject", "shop", &brand.name),
            text,
            html,
        )
        .sent_by(brand))
    }

    /// An alert for the shop's admin. `summary` is one or two sentences for the inbox; it must not
    /// contain installation values (it is a normal email, forwarded and archived).
    pub fn alert(
        to: Email,
        kind: AlertKind,
        summary: &str,
        details_url: &Url,
    ) -> Result<Self, MailError> {
        let frame = Frame {
            brand: "storefront",
            accent: "#1d4ed8",
            company: &[],
            preheader: summary.to_string(),
            heading: kind.title().to_string(),
            action_label: "Open in the admin console".to_string(),
            action_url: details_url.as_str(),
        };
        let advice = kind.advice();
        let (text, html) = render_pair(
            "alert",
            &AlertText {
                frame: &frame,
                summary,
                advice,
            },
            &AlertHtml {
                frame: &frame,
                summary,
                advice,
            },
        )?;
        Ok(Self::new(
            Audience::Staff,
            to,
            format!("[Alert] {}: {}", kind.title(), shorten(summary, 100)),
            text,
            html,
        ))
    }

    fn new(audience: Audience, to: Email, subject: String, text: String, html: String) -> Self {
        Self {
            to,
            audience,
            subject: single_line(&subject),
            text,
            html,
            sender_name: None,
            reply_to: None,
            list_unsubscribe: None,
            message_key: None,
        }
    }

    /// The same message each time it is sent under `key`: a resend (an outbox job run again
    /// after a crash between the send and its record) carries the same Message-ID, which
    /// mail servers and clients treat as one message. `key` must be unique to this message
    /// across every shop that shares the sender's domain.
    pub fn once_per(mut self, key: impl Into<String>) -> Self {
        self.message_key = Some(key.into());
        self
    }

    /// The email sent in the name of `brand`.
    fn sent_by(mut self, brand: &MailBrand) -> Self {
        self.sender_name = Some(brand.name.clone());
        self.reply_to = brand.reply_to.clone();
        self
    }
}

/// Subjects are one header line: any control character (a newline in an upstream plan name or a
/// summary) becomes a space. lettre encodes the header safely anyway; this keeps it readable.
pub(crate) fn single_line(value: &str) -> String {
    let spaced: String = value
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    spaced.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// At most `max` characters, with `…` when cut (counting characters, not bytes: CJK is safe).
fn shorten(value: &str, max: usize) -> String {
    let line = single_line(value);
    if line.chars().count() <= max {
        return line;
    }
    let mut cut: String = line.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pid(raw: &str) -> PurchaseId {
        PurchaseId::parse(raw).expect("a purchase id")
    }

    fn to() -> Email {
        Email::parse("jane@example.com").expect("valid")
    }

    fn receipt(plan: &str, cents: i64) -> Receipt {
        Receipt::new(&pid("3fa29c1e0b7d"), plan, Cents::new(cents), 0)
    }

    /// Every customer email carries its receipt: order number, plan, amount and date; and the
    /// long link may wrap anywhere, but no text is cut mid-word.
    #[test]
    fn customer_emails_carry_the_receipt_and_keep_words_whole() {
        let url = order_url();
        let r = receipt("Japan · 1 GB per day for 7 days", 3_669);
        for mail in [
            OutgoingEmail::payment_received(to(), &MailBrand::named("Shop"), &url, &r),
            OutgoingEmail::esim_ready(to(), &MailBrand::named("Shop"), &url, &r),
            OutgoingEmail::order_refunded(
                to(),
                &MailBrand::named("Shop"),
                &url,
                &r,
                "refund-reason-delivery-failed",
            ),
        ] {
            let mail = mail.expect("render");
            for body in [&mail.text, &mail.html] {
                for shown in [
                    "SF-3FA2-9C1E",
                    "Japan · 1 GB per day",
                    "$36.69",
                    "1 Jan 1970",
                ] {
                    assert!(body.contains(shown), "{shown} missing: {body}");
                }
                assert!(!body.contains("cannot be reinstalled"), "{body}");
            }
            assert!(!mail.html.contains("break-all"), "{}", mail.html);
            // Small grey text on the grey page is #4b5563 (7:1), never the paler #6b7280.
            assert!(!mail.html.contains("#6b7280"), "{}", mail.html);
        }
    }

    /// An order of several eSIMs: the payment email names the count and the total in every
    /// language; the ready email also names the eSIM it is about.
    #[test]
    fn emails_of_several_esims_name_the_count() {
        let url = order_url();
        for (lang, count, place) in [
            (i18n::Lang::En, "3 eSIMs · Japan", "(eSIM 1 of 3 · Anna)"),
            (i18n::Lang::De, "3 eSIMs · Japan", "(eSIM 1 von 3 · Anna)"),
            (i18n::Lang::Es, "3 eSIM · Japan", "(eSIM 1 de 3 · Anna)"),
        ] {
            let total = lang.money(Cents::new(3 * 1_000));
            let (paid, ready) = i18n::sync_scope(lang, || {
                let r = receipt("Japan", 1_000).with_units(3, Cents::new(3_000), None);
                let place = lang.ta(
                    "order-unit-label",
                    &[("index", 1_i64.into()), ("count", 3_usize.into())],
                );
                let one = receipt("Japan", 1_000).with_units(
                    3,
                    Cents::new(3_000),
                    Some(format!("{place} · Anna")),
                );
                (
                    OutgoingEmail::payment_received(to(), &MailBrand::named("Shop"), &url, &r),
                    OutgoingEmail::esim_ready(to(), &MailBrand::named("Shop"), &url, &one),
                )
            });
            let (paid, ready) = (paid.expect("render"), ready.expect("render"));
            for body in [&paid.text, &paid.html] {
                assert!(body.contains(count), "{count}: {body}");
                assert!(body.contains(&total), "{total}: {body}");
            }
            for body in [&ready.text, &ready.html] {
                assert!(body.contains(place), "{place}: {body}");
                assert!(body.contains(count), "{count}: {body}");
            }
        }
    }

    /// The refund of one eSIM of several says which it is and that the others stand, with
    /// that eSIM's amount; a refund of a whole one-eSIM order says nothing of the kind.
    #[test]
    fn a_refund_of_one_esim_of_several_names_it() {
        let url = order_url();
        let one = OutgoingEmail::order_refunded(
            to(),
            &MailBrand::named("Shop"),
            &url,
            &receipt("Japan · 1 GB", 1_250).about_unit("eSIM 2 of 3 · Ben".to_string()),
            "refund-reason-delivery-failed",
        )
        .expect("render");
        for body in [&one.text, &one.html] {
            assert!(
                body.contains("This refund is for eSIM 2 of 3 · Ben of your order"),
                "{body}"
            );
            assert!(body.contains("$12.50"), "{body}");
        }
        let whole = OutgoingEmail::order_refunded(
            to(),
            &MailBrand::named("Shop"),
            &url,
            &receipt("Japan · 1 GB", 1_250),
            "refund-reason-delivery-failed",
        )
        .expect("render");
        assert!(!whole.text.contains("This refund is for"), "{}", whole.text);
    }

    #[test]
    fn order_links_email_lists_each_order_with_its_link_and_none_means_no_email() {
        let sign_in =
            Url::parse("https://shop.example.com/my-esims/sign-in?token=s1").expect("url");
        assert!(OutgoingEmail::lost_link(to(), &MailBrand::named("Shop"), &[], &sign_in).is_none());
        let orders = [
            OrderLink {
                receipt: Receipt::new(&pid("aaaa1111"), "<b>Japan</b> & Korea", Cents::new(500), 0),
                url: Url::parse("https://shop.example.com/orders/aaaa1111?token=t1").expect("url"),
            },
            OrderLink {
                receipt: Receipt::new(
                    &pid("bbbb2222"),
                    "France · 5 GB",
                    Cents::new(900),
                    86_400_000,
                ),
                url: Url::parse("https://shop.example.com/orders/bbbb2222?token=t2").expect("url"),
            },
        ];
        let mail = OutgoingEmail::lost_link(to(), &MailBrand::named("Shop"), &orders, &sign_in)
            .expect("orders")
            .expect("render");
        assert_eq!(mail.audience, Audience::Customer);
        for body in [&mail.text, &mail.html] {
            for shown in [
                "SF-AAAA-1111",
                "/orders/aaaa1111?token=t1",
                "1 Jan 1970",
                "SF-BBBB-2222",
                "/orders/bbbb2222?token=t2",
                "2 Jan 1970",
                "France · 5 GB",
                "/my-esims/sign-in?token=s1",
                "My eSIMs",
            ] {
                assert!(body.contains(shown), "{shown} missing: {body}");
            }
        }
        assert!(!mail.html.contains("<b>Japan"), "{}", mail.html);
        assert!(mail.text.contains("<b>Japan</b> & Korea"), "{}", mail.text);
    }

    fn order_url() -> Url {
        Url::parse("https://shop.example.com/orders/42?token=tok_abcdef0123456789").expect("url")
    }

    #[test]
    fn hostile_plan_names_are_escaped_in_html_and_kept_in_text() {
        let plan = r#"<script>alert("x")</script> Japan & Korea 日本 10 GB"#;
        let mail = OutgoingEmail::payment_received(
            to(),
            &MailBrand::named("Shop <b>&</b>"),
            &order_url(),
            &receipt(plan, 123_456),
        )
        .expect("render");
        assert!(!mail.html.contains("<script>"), "{}", mail.html);
        assert!(!mail.html.contains("<b>&</b>"), "{}", mail.html);
        assert!(mail.html.contains("&#60;script&#62;") || mail.html.contains("&lt;script&gt;"));
        assert!(mail.html.contains("Japan &#38; Korea") || mail.html.contains("Japan &amp; Korea"));
        assert!(mail.html.contains("日本 10 GB"));
        assert!(mail.html.contains("$1,234.56"));
        assert!(mail.text.contains(plan), "{}", mail.text);
        assert!(mail.text.contains("$1,234.56"));
    }

    #[test]
    fn links_are_escaped_in_attributes() {
        // `Url` already percent-encodes quotes and angle brackets; `&` stays and is escaped.
        let url = Url::parse("https://shop.example.com/orders/1?token=abc&lang=ja").expect("url");
        let mail =
            OutgoingEmail::esim_ready(to(), &MailBrand::named("Shop"), &url, &receipt("Plan", 500))
                .expect("render");
        assert!(
            mail.html
                .contains(r#"href="https://shop.example.com/orders/1?token=abc&#38;lang=ja""#),
            "{}",
            mail.html
        );
        assert!(mail.text.contains(url.as_str()));
    }

    #[test]
    fn html_loads_nothing_and_runs_nothing() {
        let url = order_url();
        for mail in [
            OutgoingEmail::payment_received(
                to(),
                &MailBrand::named("Shop"),
                &url,
                &receipt("Plan", 500),
            ),
            OutgoingEmail::esim_ready(to(), &MailBrand::named("Shop"), &url, &receipt("Plan", 500)),
            OutgoingEmail::order_refunded(
                to(),
                &MailBrand::named("Shop"),
                &url,
                &receipt("Plan", 500),
                "Sold out",
            ),
            OutgoingEmail::alert(to(), AlertKind::LowBalance, "Wallet at $12.00", &url),
        ] {
            let mail = mail.expect("render");
            let html = mail.html.to_ascii_lowercase();
            for banned in [
                "<script", "<img", "<link", "src=", "url(", "@import", "<iframe",
            ] {
                assert!(!html.contains(banned), "{banned} in {}", mail.html);
            }
            assert!(
                mail.html.contains(&format!("href=\"{url}\"")),
                "{}",
                mail.html
            );
            assert!(mail.text.contains(url.as_str()));
        }
    }

    #[test]
    fn subjects_are_single_lines() {
        let url = order_url();
        let mail = OutgoingEmail::alert(
            to(),
            AlertKind::UnfamiliarStatus,
            "Order ord_1 reported\r\nBcc: victim@example.com",
            &url,
        )
        .expect("render");
        assert!(!mail.subject.contains(['\r', '\n']), "{}", mail.subject);
        assert!(
            mail.subject
                .starts_with("[Alert] Unfamiliar order status: Order ord_1")
        );
    }

    #[test]
    fn long_summaries_are_shortened_by_characters() {
        let long = "日".repeat(300);
        let short = shorten(&long, 100);
        assert_eq!(short.chars().count(), 100);
        assert!(short.ends_with('…'));
    }

    #[test]
    fn debug_hides_bodies_and_the_full_address() {
        let mail = OutgoingEmail::esim_ready(
            to(),
            &MailBrand::named("Shop"),
            &order_url(),
            &receipt("Plan", 500),
        )
        .expect("render");
        let debug = format!("{mail:?}");
        assert!(!debug.contains("tok_abcdef"), "{debug}");
        assert!(!debug.contains("jane@"), "{debug}");
    }

    #[test]
    fn every_alert_kind_renders_its_own_advice() {
        let url = order_url();
        for kind in [
            AlertKind::LowBalance,
            AlertKind::InsufficientBalance,
            AlertKind::NeedsAttention,
            AlertKind::PendingReview,
            AlertKind::UnfamiliarStatus,
        ] {
            let mail = OutgoingEmail::alert(to(), kind, "Something happened", &url).expect("ok");
            assert!(mail.text.contains(kind.title()), "{}", mail.text);
            assert!(mail.text.contains(kind.advice()), "{}", mail.text);
        }
    }
}
