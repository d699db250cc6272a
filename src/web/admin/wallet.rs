//! `/admin/wallet` (owners): the live upstream balance and its transactions, top-ups, the
//! runway estimate, the shop's own low-balance threshold and whether sales pause below it.
//!
//! Each handler parses its form, calls one capability of [`crate::wallet::Wallet`] (which
//! reads upstream, applies the rules, and writes the change with its audit entry) and renders
//! the answer.
//!
//! A top-up form carries a random nonce, so a resubmitted form reuses its top-up's
//! Idempotency-Key ([`crate::wallet::topup`]). The form's answer is a console page for that
//! top-up (`/admin/wallet/topups/{id}`), not a redirect to upstream's checkout: the shop's CSP
//! lets forms lead only to the shop itself (and Stripe), and the checkout link is upstream's, on
//! a host the shop cannot know in advance. The page shows the link ("Continue to payment at
//! HOST", checked by [`crate::wallet::topup::checkout_link`]) and stays "pending" until the
//! credit is seen.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use serde::Deserialize;

use super::{
    AdminPage, CsrfForm, CurrentAdmin, client_addr, console_page, require_owner, see_other,
};
use crate::db::topups::TopupProgressRow;
use crate::domain::Cents;
use crate::upstream::types::Cursor;
use crate::upstream::{BalanceTransaction, Class, UpstreamError};
use crate::wallet::topup::{PayLink, new_nonce, parse_amount, valid_nonce};
use crate::wallet::{ThresholdPolicy, TopupAnswer, TopupRefusal, WalletError, WalletOverview};
use crate::web::error::AppError;
use crate::web::{AppState, filters};

/// A transaction of the page, with what the shop knows about it.
struct TxView {
    tx: BalanceTransaction,
    /// The shop's purchase, when the reference names one.
    order_id: Option<String>,
    /// Available credit right after this transaction (first page, live balance known).
    available_after: Option<Cents>,
}

#[derive(Template)]
#[template(path = "admin/wallet.html")]
struct WalletPage {
    balance: Option<BalanceView>,
    balance_error: Option<String>,
    /// Why new sales are paused, in words; `None` while they run.
    pause: Option<String>,
    runway: String,
    threshold: Cents,
    pause_below: bool,
    below_threshold: bool,
    transactions: Vec<TxView>,
    transactions_error: Option<String>,
    paged: bool,
    older_href: Option<String>,
    topups: Vec<TopupProgressRow>,
    nonce: String,
    amount: String,
    error: Option<String>,
    notice: Option<&'static str>,
}

struct BalanceView {
    available: Cents,
    reserved: Cents,
    upstream_low: bool,
    /// `None` for the live figure; when the last known figure was read.
    read_at_ms: Option<i64>,
}

#[derive(Deserialize)]
pub struct WalletQuery {
    cursor: Option<String>,
    done: Option<String>,
}

/// What the top-up form shows again after a refusal.
struct FormState {
    nonce: String,
    amount: String,
    error: Option<String>,
}

/// The page's transactions, newest first. On the first page, with the live balance known, each
/// row also shows the available credit right after it: the live figure, minus the later
/// transactions' changes.
fn tx_views(
    page: Vec<BalanceTransaction>,
    live_available: Option<i64>,
    purchases: &std::collections::HashMap<String, String>,
) -> Vec<TxView> {
    let mut after = live_available;
    page.into_iter()
        .map(|tx| {
            let available_after = after.map(Cents::new);
            after = after.map(|a| a.saturating_sub(tx.available_delta_cents.get()));
            let order_id = purchases.get(&tx.reference).cloned();
            TxView {
                tx,
                order_id,
                available_after,
            }
        })
        .collect()
}

fn upstream_message(err: &UpstreamError) -> String {
    match err.class() {
        Class::Definitive => format!("The provider refused the request ({err})."),
        Class::Unknown | Class::RetryAfter(_) => {
            format!("The provider did not answer in time ({err}).")
        }
    }
}

console_page!(WalletPage => "wallet", TopupPage => "wallet");

/// The wallet page from `cursor` on, with the top-up form in `form`.
async fn wallet_page(
    state: &AppState,
    cursor: Option<Cursor>,
    form: FormState,
    notice: Option<&'static str>,
) -> Result<WalletPage, AppError> {
    let paged = cursor.is_some();
    let overview = state.wallet().overview(cursor).await?;
    let pause = overview.pause();
    let WalletOverview {
        live,
        row,
        transactions,
        policy,
        below_threshold,
        runway,
        topups,
        purchases_by_reference,
    } = overview;
    let (balance, balance_error) = match &live {
        Ok(b) => (
            Some(BalanceView {
                available: b.available_cents,
                reserved: b.reserved_cents.cents(),
                upstream_low: b.low_balance,
                read_at_ms: None,
            }),
            None,
        ),
        Err(err) => (
            row.as_ref()
                .filter(|w| w.refreshed_at_ms > 0)
                .map(|w| BalanceView {
                    available: Cents::new(w.available_cents),
                    reserved: Cents::new(w.reserved_cents),
                    upstream_low: w.low_balance,
                    read_at_ms: Some(w.refreshed_at_ms),
                }),
            Some(format!(
                "Could not read the live balance. {}",
                upstream_message(err)
            )),
        ),
    };
    let threshold = policy.threshold_cents;
    let live_available = live
        .as_ref()
        .ok()
        .filter(|_| !paged)
        .map(|b| b.available_cents.get());
    let (transactions, transactions_error, older_href) = match transactions {
        Ok(page) => (
            tx_views(page.data, live_available, &purchases_by_reference),
            None,
            page.next_cursor.map(|c| {
                let query = url::form_urlencoded::Serializer::new(String::new())
                    .append_pair("cursor", c.as_str())
                    .finish();
                format!("/admin/wallet?{query}")
            }),
        ),
        Err(err) => (
            Vec::new(),
            Some(format!(
                "Could not read the transactions. {}",
                upstream_message(&err)
            )),
            None,
        ),
    };
    Ok(WalletPage {
        balance,
        balance_error,
        pause: pause.map(|reason| reason.explain(threshold)),
        runway,
        threshold: Cents::new(threshold),
        pause_below: policy.pause_below,
        below_threshold,
        transactions,
        transactions_error,
        paged,
        older_href,
        topups,
        nonce: form.nonce,
        amount: form.amount,
        error: form.error,
        notice,
    })
}

pub async fn page(
    state: web::Data<AppState>,
    CurrentAdmin(admin): CurrentAdmin,
    query: web::Query<WalletQuery>,
) -> Result<AdminPage, AppError> {
    require_owner(&admin)?;
    let query = query.into_inner();
    let cursor = match query.cursor.as_deref().filter(|c| !c.is_empty()) {
        Some(raw) => Some(
            Cursor::parse(raw)
                .map_err(|_| AppError::BadRequest("That page link is not valid.".into()))?,
        ),
        None => None,
    };
    let notice = match query.done.as_deref() {
        Some("threshold") => Some("Threshold saved."),
        _ => None,
    };
    let form = FormState {
        nonce: new_nonce(),
        amount: String::new(),
        error: None,
    };
    Ok(AdminPage::new(
        wallet_page(&state, cursor, form, notice).await?,
    ))
}

#[derive(Deserialize)]
pub struct TopupForm {
    #[serde(default)]
    nonce: String,
    #[serde(default)]
    amount: String,
}

pub async fn topup(
    state: web::Data<AppState>,
    req: HttpRequest,
    CurrentAdmin(admin): CurrentAdmin,
    CsrfForm(form): CsrfForm<TopupForm>,
) -> Result<AdminPage, AppError> {
    require_owner(&admin)?;
    if !valid_nonce(&form.nonce) {
        return Err(AppError::BadRequest(
            "This form is incomplete. Reload the wallet page and try again.".into(),
        ));
    }
    let amount = match parse_amount(&form.amount) {
        Ok(amount) => amount,
        Err(message) => {
            let again = FormState {
                nonce: form.nonce,
                amount: form.amount.chars().take(40).collect(),
                error: Some(message),
            };
            let page = wallet_page(&state, None, again, None).await?;
            return Ok(AdminPage::with_status(StatusCode::BAD_REQUEST, page));
        }
    };
    let asked_cents = amount.cents().get();
    let answer = state
        .wallet()
        .request_topup(admin.clone(), client_addr(&req), form.nonce.clone(), amount)
        .await?;
    let (status, again) = match answer {
        TopupAnswer::Created { id } => {
            return Ok(see_other(&format!("/admin/wallet/topups/{id}")).into());
        }
        TopupAnswer::OtherAmount { sent_cents } => (
            StatusCode::CONFLICT,
            FormState {
                nonce: new_nonce(),
                amount: Cents::new(asked_cents).plain(),
                error: Some(format!(
                    "This form was already sent for {}. To top up {} instead, submit this fresh form.",
                    Cents::new(sent_cents),
                    Cents::new(asked_cents)
                )),
            },
        ),
        TopupAnswer::Refused {
            id,
            amount_cents,
            refusal,
        } => {
            let (status, message) = match refusal {
                TopupRefusal::Upstream(err) => (
                    StatusCode::SERVICE_UNAVAILABLE,
                    format!(
                        "{} Submit the same form again: it reuses the same key, so it cannot pay twice.",
                        upstream_message(&err)
                    ),
                ),
                TopupRefusal::Link(err) => (
                    StatusCode::BAD_GATEWAY,
                    format!(
                        "The provider answered with a payment link the console will not open: {err} \
                         (it must be https). Nothing was paid. Ask the provider's support about top-up #{id}."
                    ),
                ),
            };
            (
                status,
                FormState {
                    nonce: form.nonce,
                    amount: Cents::new(amount_cents).plain(),
                    error: Some(message),
                },
            )
        }
    };
    let page = wallet_page(&state, None, again, None).await?;
    Ok(AdminPage::with_status(status, page))
}

#[derive(Template)]
#[template(path = "admin/topup.html")]
struct TopupPage {
    topup: TopupProgressRow,
    /// The checkout link, while the top-up is pending.
    link: Option<PayLink>,
    /// The live available balance.
    available: Option<Cents>,
    balance_error: Option<String>,
}

/// One top-up: the link to pay it on upstream's page, then "pending" until its credit shows in
/// the balance transactions. Each view reads the balance live (which may resume sales).
pub async fn topup_page(
    state: web::Data<AppState>,
    CurrentAdmin(admin): CurrentAdmin,
    id: web::Path<i64>,
) -> Result<AdminPage, AppError> {
    require_owner(&admin)?;
    let progress = state.wallet().topup_progress(id.into_inner()).await?;
    Ok(AdminPage::new(TopupPage {
        topup: progress.topup,
        link: progress.link,
        available: progress.live.as_ref().ok().map(|b| b.available_cents),
        balance_error: progress.live.err().map(|err| {
            format!(
                "Could not read the live balance. {}",
                upstream_message(&err)
            )
        }),
    }))
}

#[derive(Deserialize)]
pub struct ThresholdForm {
    #[serde(default)]
    threshold: String,
    /// The "pause new sales below the threshold" checkbox: `yes` when ticked, absent if not.
    pause_below: Option<String>,
}

pub async fn threshold(
    state: web::Data<AppState>,
    req: HttpRequest,
    CurrentAdmin(admin): CurrentAdmin,
    CsrfForm(form): CsrfForm<ThresholdForm>,
) -> Result<HttpResponse, AppError> {
    require_owner(&admin)?;
    let threshold_cents = form
        .threshold
        .parse::<Cents>()
        .map(Cents::get)
        .map_err(|_| WalletError::ThresholdNotValid)?;
    let policy = ThresholdPolicy {
        threshold_cents,
        pause_below: form.pause_below.as_deref() == Some("yes"),
    };
    state
        .wallet()
        .save_threshold_policy(admin, client_addr(&req), policy)
        .await?;
    Ok(see_other("/admin/wallet?done=threshold"))
}
