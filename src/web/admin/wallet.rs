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
use crate::upstream::UpstreamError;
use crate::upstream::types::Cursor;
use crate::wallet::topup::{PayLink, new_nonce, parse_amount, valid_nonce};
use crate::wallet::{
    ShownBalance, ThresholdPolicy, TopupAnswer, TopupRefusal, TransactionLine, WalletError,
    upstream_trouble,
};
use crate::web::error::AppError;
use crate::web::{AppState, filters};

#[derive(Template)]
#[template(path = "admin/wallet.html")]
struct WalletPage {
    balance: Option<ShownBalance>,
    balance_error: Option<String>,
    /// Why new sales are paused, in words; `None` while they run.
    pause: Option<String>,
    runway: String,
    threshold: Cents,
    pause_below: bool,
    below_threshold: bool,
    transactions: Vec<TransactionLine>,
    transactions_error: Option<String>,
    paged: bool,
    older_href: Option<String>,
    topups: Vec<TopupProgressRow>,
    form: FormState,
    notice: Option<&'static str>,
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
    let threshold = overview.policy.threshold_cents;
    let trouble = |what: &str, err: &UpstreamError| {
        format!("Could not read the {what}. {}", upstream_trouble(err))
    };
    let next = overview
        .transactions
        .as_ref()
        .ok()
        .and_then(|p| p.next_cursor.as_ref());
    Ok(WalletPage {
        balance: overview.shown_balance(),
        balance_error: overview
            .live
            .as_ref()
            .err()
            .map(|e| trouble("live balance", e)),
        pause: overview.pause().map(|reason| reason.explain(threshold)),
        threshold: Cents::new(threshold),
        pause_below: overview.policy.pause_below,
        below_threshold: overview.below_threshold,
        transactions: overview.lines(!paged),
        transactions_error: overview
            .transactions
            .as_ref()
            .err()
            .map(|e| trouble("transactions", e)),
        paged,
        older_href: next.map(|c| {
            let query = url::form_urlencoded::Serializer::new(String::new())
                .append_pair("cursor", c.as_str())
                .finish();
            format!("/admin/wallet?{query}")
        }),
        runway: overview.runway,
        topups: overview.topups,
        form,
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
        } => (
            match refusal {
                TopupRefusal::Upstream(_) => StatusCode::SERVICE_UNAVAILABLE,
                TopupRefusal::Link(_) => StatusCode::BAD_GATEWAY,
            },
            FormState {
                nonce: form.nonce,
                amount: Cents::new(amount_cents).plain(),
                error: Some(refusal.explain(id)),
            },
        ),
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
                upstream_trouble(&err)
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
