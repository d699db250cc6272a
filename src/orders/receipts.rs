//! Receipts and credit notes: issued once, numbered without gaps, never changed.
//!
//! A paid checkout gets its receipt in the transaction that applies the payment
//! (`orders::confirm`); a succeeded refund gets its credit note in the transaction that records
//! it (`orders::jobs::refund`). Both store what they say at that moment (the seller's identity,
//! the customer, the lines in the purchase's language, the total and how it was paid), so
//! renaming the shop or the catalog later changes no document. Each takes its number last, as
//! its transaction's final writes (see `db::receipts`).
//!
//! Who may read a receipt: whoever may open the checkout's order page as its buyer (the
//! buyer's link token or cookie, or a "My eSIMs" session of the buyer's address). A
//! traveller's link to one unit opens no receipt, and no receipt is ever found by its number.

use crate::db::receipts::{self as q, CreditNoteRow, ReceiptLineRow, ReceiptRow};
use crate::db::tax::SaleTaxLineRow;
use crate::db::{self, DbConn, DbError, now_ms};
use crate::domain::PurchaseId;
use crate::domain::countries;
use crate::domain::receipt::{
    CURRENCY, DocumentNumber, LineKind, PaymentMethod, Series, UnitSale, item_lines,
};
use crate::domain::tax::{RateBps, TaxMode};
use crate::domain::{Cents, Email};
use crate::i18n::Lang;
use crate::orders::Orders;
use crate::orders::jobs::email::plan_description;
use crate::orders::links::{self, LinkPolicy};
use crate::orders::my_esims;
use crate::orders::page::Proof;
use crate::orders::tax;
use crate::shop::Identity;

/// Issues the receipt of checkout `checkout_id`'s paid units, in the caller's transaction,
/// unless it has one; returns its number. `provider` names the payment method; `current` is
/// the identity this process serves, whose stored version (read here, in the transaction) the
/// receipt freezes.
pub fn issue_receipt(
    conn: &mut DbConn,
    checkout_id: &PurchaseId,
    provider: &str,
    current: &Identity,
    now: i64,
) -> Result<DocumentNumber, DbError> {
    if let Some(issued) = q::receipt_of(conn, checkout_id.as_str())? {
        return Ok(DocumentNumber::receipt(issued.number));
    }
    let units: Vec<_> = db::purchases::units_of(conn, checkout_id)?
        .into_iter()
        .filter(|unit| unit.paid_at_ms.is_some())
        .collect();
    let Some(first) = units.first() else {
        return Err(DbError::Query(diesel::result::Error::NotFound));
    };
    let lang = Lang::parse(&first.language).unwrap_or_default();
    let customer_email = first.email.as_str().to_string();
    let seller = current.as_stored(db::identity::find(conn)?);
    let sales: Vec<UnitSale> = units
        .iter()
        .map(|unit| {
            let discount = Cents::new(unit.discount_cents.unwrap_or(0));
            UnitSale {
                plan_id: unit.plan_id.clone(),
                list_price: Cents::new(unit.list_price_cents.unwrap_or(unit.price_cents.get())),
                discount,
                price: unit.price_cents,
            }
        })
        .collect();
    let mut lines = Vec::new();
    let mut total: i64 = 0;
    for (index, line) in item_lines(&sales).into_iter().enumerate() {
        total = total.saturating_add(line.amount.get());
        lines.push(ReceiptLineRow {
            receipt_id: checkout_id.as_str().to_string(),
            line_no: i32::try_from(index + 1).unwrap_or(i32::MAX),
            kind: LineKind::Item.as_str().to_string(),
            description: plan_description(conn, &line.plan_id, lang)?,
            quantity: line.quantity,
            unit_price_cents: line.unit_price.get(),
            discount_cents: line.discount.get(),
            amount_cents: line.amount.get(),
            tax_rate_bps: None,
            tax_jurisdiction: None,
        });
    }
    // The sale's tax as recorded in this transaction (`orders::tax`), one line each; the
    // total is what was charged, the tax included.
    let taxed = tax::sale_tax(conn, checkout_id.as_str())?;
    if let Some(taxed) = &taxed {
        let mode = taxed.mode();
        for line in &taxed.lines {
            lines.push(ReceiptLineRow {
                receipt_id: checkout_id.as_str().to_string(),
                line_no: i32::try_from(lines.len() + 1).unwrap_or(i32::MAX),
                kind: LineKind::Tax.as_str().to_string(),
                description: tax_description(line, mode, lang),
                quantity: 1,
                // A tax line's unit price is the amount it taxed.
                unit_price_cents: line.taxable_cents,
                discount_cents: 0,
                amount_cents: line.tax_cents,
                tax_rate_bps: line.rate_bps,
                tax_jurisdiction: line.jurisdiction.clone(),
            });
        }
        total = taxed.sale.gross_cents;
    }
    let contact: Vec<&str> = seller
        .support_email
        .as_ref()
        .map(Email::as_str)
        .into_iter()
        .chain((!seller.support_phone.is_empty()).then_some(seller.support_phone.as_str()))
        .collect();
    // Last: the counter row is held from here to the commit.
    let number = q::next_number(conn, Series::Receipt)?;
    let receipt = ReceiptRow {
        id: checkout_id.as_str().to_string(),
        number,
        issued_at_ms: now,
        seller_name: seller.name.as_str().to_string(),
        seller_legal_name: seller.legal_name.clone(),
        seller_address: seller.address.clone(),
        seller_registration: seller.registration.clone(),
        seller_contact: contact.join(" · "),
        customer_email,
        billing_name: None,
        billing_country: taxed.and_then(|t| t.sale.billing_country),
        currency: CURRENCY.to_string(),
        total_cents: total,
        payment_method: PaymentMethod::of_provider(provider).as_str().to_string(),
        language: lang.code().to_string(),
    };
    q::insert_receipt(conn, &receipt, &lines)?;
    Ok(DocumentNumber::receipt(number))
}

/// Issues the credit note of succeeded refund `refund_id`, in the caller's transaction, for
/// the refunded amount and against the receipt of the refunded unit's checkout; returns its
/// number. Nothing when the refund has one already, or when its sale has no receipt (paid
/// before the shop issued them).
pub fn issue_credit_note(
    conn: &mut DbConn,
    refund_id: &str,
    now: i64,
) -> Result<Option<DocumentNumber>, DbError> {
    if let Some(issued) = q::credit_note_for_refund(conn, refund_id)? {
        return Ok(Some(DocumentNumber::credit_note(issued.number)));
    }
    let Some((purchase_id, amount)) = q::refund_of(conn, refund_id)? else {
        return Ok(None);
    };
    let Some(unit) = db::purchases::find(conn, &purchase_id)? else {
        return Ok(None);
    };
    let Some(receipt) = q::receipt_of(conn, unit.checkout_id.as_str())? else {
        tracing::info!(purchase.id = %purchase_id, "refund of a sale without a receipt: no credit note");
        return Ok(None);
    };
    let lang = Lang::parse(&receipt.language).unwrap_or_default();
    let description = plan_description(conn, &unit.plan_id, lang)?;
    // The tax the refund carries back, its share of the sale's.
    tax::record_credit(conn, &unit, refund_id, Cents::new(amount), now)?;
    // Last: the counter row is held from here to the commit.
    let number = q::next_number(conn, Series::CreditNote)?;
    q::insert_credit_note(
        conn,
        &CreditNoteRow {
            id: refund_id.to_string(),
            number,
            receipt_id: receipt.id,
            issued_at_ms: now,
            amount_cents: amount,
            currency: receipt.currency,
            description,
        },
    )?;
    Ok(Some(DocumentNumber::credit_note(number)))
}

/// A tax line's words in the receipt's language: `Tax 19% · Germany`, and `(included)` when
/// the price included it. A rate or place the provider did not report is left out.
fn tax_description(line: &SaleTaxLineRow, mode: TaxMode, lang: Lang) -> String {
    let mut text = lang.t("receipt-tax");
    if let Some(rate) = line.rate_bps.and_then(|bps| RateBps::new(bps).ok()) {
        text.push(' ');
        text.push_str(&rate.to_string());
    }
    if let Some(place) = &line.jurisdiction {
        text.push_str(" · ");
        text.push_str(countries::name_in(place, lang).unwrap_or(place));
    }
    if mode == TaxMode::Inclusive {
        text.push(' ');
        text.push_str(&lang.t("receipt-tax-included"));
    }
    text
}

/// A receipt as issued, with the credit notes against it.
#[derive(Debug, Clone)]
pub struct ReceiptDocument {
    pub receipt: ReceiptRow,
    pub lines: Vec<ReceiptLineRow>,
    pub credit_notes: Vec<CreditNoteRow>,
    /// The tax each credit note carried back, by the note's id.
    pub credit_note_taxes: Vec<(String, Cents)>,
}

impl ReceiptDocument {
    pub fn number(&self) -> DocumentNumber {
        DocumentNumber::receipt(self.receipt.number)
    }

    pub fn payment_method(&self) -> PaymentMethod {
        PaymentMethod::parse(&self.receipt.payment_method)
    }

    /// The lines that sold something, in order.
    pub fn items(&self) -> impl Iterator<Item = &ReceiptLineRow> {
        self.lines
            .iter()
            .filter(|line| LineKind::parse(&line.kind) == LineKind::Item)
    }

    /// The tax lines, in order: none while the shop charges no tax.
    pub fn taxes(&self) -> impl Iterator<Item = &ReceiptLineRow> {
        self.lines
            .iter()
            .filter(|line| LineKind::parse(&line.kind) == LineKind::Tax)
    }

    pub fn total(&self) -> Cents {
        Cents::new(self.receipt.total_cents)
    }

    /// The total before tax: the total less its tax lines.
    pub fn net(&self) -> Cents {
        let tax: i64 = self.taxes().map(|line| line.amount_cents).sum();
        Cents::new(self.receipt.total_cents - tax)
    }

    /// The tax credit note `id` carried back (zero on an untaxed sale).
    pub fn credit_note_tax(&self, id: &str) -> Cents {
        self.credit_note_taxes
            .iter()
            .find(|(note, _)| note == id)
            .map_or(Cents::ZERO, |(_, tax)| *tax)
    }
}

/// Whether checkout `checkout_id` has a receipt (a sale paid before receipts were issued has
/// none).
pub fn has_receipt(conn: &mut DbConn, checkout_id: &PurchaseId) -> Result<bool, DbError> {
    Ok(q::receipt_of(conn, checkout_id.as_str())?.is_some())
}

/// The receipt of checkout `checkout_id` as stored, with its credit notes.
pub fn read_receipt(
    conn: &mut DbConn,
    checkout_id: &PurchaseId,
) -> Result<Option<ReceiptDocument>, DbError> {
    let Some(receipt) = q::receipt_of(conn, checkout_id.as_str())? else {
        return Ok(None);
    };
    let lines = q::lines_of(conn, &receipt.id)?;
    let credit_notes = q::credit_notes_of(conn, &receipt.id)?;
    let ids: Vec<String> = credit_notes.iter().map(|note| note.id.clone()).collect();
    let mut credit_note_taxes: Vec<(String, Cents)> = Vec::new();
    for line in db::tax::credit_note_lines_of(conn, &ids)? {
        match credit_note_taxes
            .iter_mut()
            .find(|(id, _)| *id == line.credit_note_id)
        {
            Some((_, sum)) => *sum = Cents::new(sum.get() + line.tax_cents),
            None => credit_note_taxes.push((line.credit_note_id, Cents::new(line.tax_cents))),
        }
    }
    Ok(Some(ReceiptDocument {
        receipt,
        lines,
        credit_notes,
        credit_note_taxes,
    }))
}

/// The receipt of order `id` when `proof` opens it as its buyer's (see the module's note);
/// `None` otherwise, alike for an unknown id, a wrong token and an order not paid yet.
pub async fn receipt_for(
    orders: &Orders,
    id: &PurchaseId,
    proof: Proof,
    policy: LinkPolicy,
) -> Result<Option<ReceiptDocument>, DbError> {
    let id = id.clone();
    orders
        .db()
        .run(move |conn| {
            let now = now_ms();
            let purchase = match &proof {
                Proof::Link(token) => links::open(conn, &id, token, policy, now)?
                    .filter(|opened| opened.opens_checkout)
                    .map(|opened| opened.purchase),
                Proof::SignedIn(customer) => {
                    my_esims::open(conn, &id, customer, policy, now)?.map(|(purchase, _)| purchase)
                }
            };
            match purchase {
                Some(purchase) => read_receipt(conn, &purchase.checkout_id),
                None => Ok(None),
            }
        })
        .await
}
