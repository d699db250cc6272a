//! The printable receipt of an order, `/orders/{id}/receipt`. It opens for the same proofs as
//! the buyer's order page (`orders::receipts::receipt_for`): the buyer's link token (from the
//! payment email, exchanged for the order's cookie at once so it leaves the address bar), that
//! cookie, or a "My eSIMs" session of the buyer's address. Anything else is the order pages'
//! 404. The page shows the receipt as issued: nothing on it is read from live settings.

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;

use crate::db::receipts::ReceiptLineRow;
use crate::domain::receipt::PaymentMethod;
use crate::domain::{Cents, PurchaseId};
use crate::i18n::{self, Lang};
use crate::orders::links::LinkPolicy;
use crate::orders::page::Proof;
use crate::orders::receipts::{ReceiptDocument, receipt_for};
use crate::web::error::AppError;
use crate::web::orders::{TokenQuery, order_cookie_name, token_to_cookie};
use crate::web::{AppState, pages};

mod metrics;
mod pdf;

/// A line as the page shows it, amounts formatted in the page's language.
struct LineView {
    description: String,
    quantity: i32,
    unit_price: String,
    /// Empty without a discount.
    discount: String,
    amount: String,
}

impl LineView {
    fn of(line: &ReceiptLineRow, lang: Lang) -> Self {
        Self {
            description: line.description.clone(),
            quantity: line.quantity,
            unit_price: lang.money(Cents::new(line.unit_price_cents)),
            discount: if line.discount_cents == 0 {
                String::new()
            } else {
                format!("−{}", lang.money(Cents::new(line.discount_cents)))
            },
            amount: lang.money(Cents::new(line.amount_cents)),
        }
    }
}

#[derive(Template)]
#[template(path = "orders/receipt.html", blocks = ["title", "description"])]
struct ReceiptPage {
    number: String,
    date: String,
    /// `2026-11-23`, for `<time datetime>`.
    datetime: String,
    order_number: String,
    order_href: String,
    seller_name: String,
    seller_legal_name: String,
    seller_address: Vec<String>,
    seller_registration: String,
    seller_contact: String,
    customer_email: String,
    billing_name: Option<String>,
    billing_country: Option<String>,
    items: Vec<LineView>,
    /// The total before tax, shown when the sale was taxed.
    net: Option<String>,
    /// `(description, amount)`; empty while the shop charges no tax.
    taxes: Vec<(String, String)>,
    total: String,
    currency: String,
    /// A message id.
    method: &'static str,
    /// Credit notes against the receipt, as sentences.
    credit_notes: Vec<String>,
}

impl ReceiptPage {
    fn of(doc: &ReceiptDocument, checkout: &PurchaseId, lang: Lang) -> Self {
        let r = &doc.receipt;
        Self {
            number: doc.number().to_string(),
            date: lang.date(r.issued_at_ms),
            datetime: i18n::format::machine_date_time(r.issued_at_ms)
                .chars()
                .take(10)
                .collect(),
            order_number: checkout.order_number(),
            order_href: format!("/orders/{checkout}"),
            seller_name: r.seller_name.clone(),
            seller_legal_name: r.seller_legal_name.clone(),
            seller_address: r.seller_address.lines().map(str::to_string).collect(),
            seller_registration: r.seller_registration.clone(),
            seller_contact: r.seller_contact.clone(),
            customer_email: r.customer_email.clone(),
            billing_name: r.billing_name.clone(),
            billing_country: r.billing_country.clone(),
            items: doc.items().map(|line| LineView::of(line, lang)).collect(),
            taxes: doc
                .taxes()
                .map(|line| {
                    (
                        line.description.clone(),
                        lang.money(Cents::new(line.amount_cents)),
                    )
                })
                .collect(),
            net: doc.taxes().next().map(|_| lang.money(doc.net())),
            total: lang.money(doc.total()),
            currency: r.currency.clone(),
            method: match doc.payment_method() {
                PaymentMethod::Demo => i18n::msg("receipt-method-demo"),
                PaymentMethod::Card => i18n::msg("receipt-method-card"),
            },
            credit_notes: doc
                .credit_notes
                .iter()
                .map(|note| {
                    let tax = doc.credit_note_tax(&note.id);
                    let sentence = lang.ta(
                        "receipt-credit-note",
                        &[
                            (
                                "number",
                                crate::domain::receipt::DocumentNumber::credit_note(note.number)
                                    .to_string()
                                    .into(),
                            ),
                            ("date", lang.date(note.issued_at_ms).into()),
                            ("amount", lang.money(Cents::new(note.amount_cents)).into()),
                            ("description", note.description.clone().into()),
                        ],
                    );
                    if tax == Cents::ZERO {
                        sentence
                    } else {
                        let carried = lang.ta(
                            "receipt-credit-note-tax",
                            &[("tax", lang.money(tax).into())],
                        );
                        format!("{sentence} {carried}")
                    }
                })
                .collect(),
        }
    }
}

/// The receipt of order `id` when the request proves it may see it (see the module's note).
async fn proven_receipt(
    state: &AppState,
    req: &HttpRequest,
    id: &PurchaseId,
    policy: LinkPolicy,
) -> Result<Option<ReceiptDocument>, AppError> {
    if let Some(token) = req.cookie(&order_cookie_name(id)) {
        let token = token.value().to_string();
        if let Some(doc) = receipt_for(&state.orders, id, Proof::Link(token), policy).await? {
            return Ok(Some(doc));
        }
    }
    if let Some(customer) = crate::web::my_esims::signed_in(state, req).await? {
        return Ok(receipt_for(&state.orders, id, Proof::SignedIn(customer), policy).await?);
    }
    Ok(None)
}

pub async fn receipt(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    query: web::Query<TokenQuery>,
) -> Result<HttpResponse, AppError> {
    let id = PurchaseId::parse(id.into_inner()).map_err(|_| AppError::NotFound)?;
    let policy = LinkPolicy::days(state.settings.order_link_days);
    // The emailed link: a buyer's token that opens the receipt goes into the order's cookie.
    if let Some(token) = query.token() {
        let proof = Proof::Link(token.to_string());
        if receipt_for(&state.orders, &id, proof, policy)
            .await?
            .is_none()
        {
            return Err(AppError::NotFound);
        }
        return Ok(token_to_cookie(
            &id,
            token,
            &format!("/orders/{id}/receipt"),
            state.secure_cookies,
        ));
    }
    let page = proven_page(&state, &req, &id, policy).await?;
    let mut response = pages::html(StatusCode::OK, page.render());
    private(response.headers_mut());
    Ok(response)
}

/// The receipt's page for a request that proves it may see it (the cookie or a session; the
/// emailed token has been exchanged by `receipt` before), else the order pages' 404.
async fn proven_page(
    state: &AppState,
    req: &HttpRequest,
    id: &PurchaseId,
    policy: LinkPolicy,
) -> Result<ReceiptPage, AppError> {
    let doc = proven_receipt(state, req, id, policy)
        .await?
        .ok_or(AppError::NotFound)?;
    let checkout = PurchaseId::parse(doc.receipt.id.clone()).map_err(|_| AppError::NotFound)?;
    Ok(ReceiptPage::of(&doc, &checkout, i18n::current()))
}

/// A receipt is the buyer's alone: never cached on the way, never named to another site.
fn private(headers: &mut header::HeaderMap) {
    pages::keep_private(headers);
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
}

/// `/orders/{id}/receipt.pdf`: the same receipt as a PDF document, for the same proofs.
pub async fn receipt_pdf(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let id = PurchaseId::parse(id.into_inner()).map_err(|_| AppError::NotFound)?;
    let policy = LinkPolicy::days(state.settings.order_link_days);
    let page = proven_page(&state, &req, &id, policy).await?;
    let file = format!("receipt-{}.pdf", page.number);
    let mut response = HttpResponse::Ok()
        .content_type("application/pdf")
        .insert_header((
            header::CONTENT_DISPOSITION,
            format!("inline; filename=\"{file}\""),
        ))
        .body(pdf::render(&page));
    private(response.headers_mut());
    Ok(response)
}
