//! `/admin/wallet` (owners): the live upstream balance and its transactions, top-ups, the
//! runway estimate, the shop's own low-balance threshold and whether sales pause below it.
//!
//! A top-up must never pay twice. The page hands out a random form nonce; the first submission
//! stores a `topups` row under that nonce with a fresh Idempotency-Key, and every submission of
//! the same form (a double click, a retry after a timeout) finds that row and asks upstream with
//! the same key, so upstream answers with the same checkout session. Nothing is credited here:
//! the credit shows up in the balance once upstream has verified the payment.
//!
//! The form's answer is a console page for that top-up (`/admin/wallet/topups/{id}`), not a
//! redirect to upstream's checkout: the shop's CSP lets forms lead only to the shop itself (and
//! Stripe), and the checkout link is upstream's, on a host the shop cannot know in advance. The
//! page shows the link ("Continue to payment at HOST", checked by
//! [`crate::orders::wallet::checkout_link`]) and stays "pending" until the credit is seen.
//!
//! Each live balance read here is checked against the threshold the same way the wallet watcher
//! checks it ([`crate::orders::wallet::check_low_balance`]): once per crossing, emails retried
//! until sent.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use rand::RngCore;
use serde::Deserialize;

use super::{
    Chrome, CurrentAdmin, admin_page, check_csrf, client_addr, format_ms, format_upstream_time,
    require_owner, see_other,
};
use crate::accounts::Admin;
use crate::db::{self, DbError, admin as q, wallet};
use crate::domain::Cents;
use crate::orders::wallet::{
    PauseReason, check_low_balance, checkout_link, confirm_topups, link_host, save_threshold_policy,
};
use crate::upstream::types::{Cursor, IdempotencyKey, PageLimit, TopUpAmount};
use crate::upstream::{Balance, BalanceTransaction, Class, Page, UpstreamError};
use crate::web::AppState;
use crate::web::error::AppError;

const DAY_MS: i64 = 86_400_000;
const TRANSACTIONS_PER_PAGE: u32 = 25;
const RECENT_TOPUPS: i64 = 10;
/// The highest threshold the form takes ($1,000,000).
const MAX_THRESHOLD_CENTS: i64 = 100_000_000;

pub mod action {
    pub const TOPUP_CREATED: &str = "wallet_topup_created";
    pub const TOPUP_RESUBMITTED: &str = "wallet_topup_resubmitted";
    pub const TOPUP_FAILED: &str = "wallet_topup_failed";
}

/// Parses dollars as typed — `25`, `25.5`, `25.50`, `$1,000` — into cents, without floats.
/// `None` for anything else (empty, negative, more than two decimals, letters, absurd sizes).
pub fn parse_dollars(raw: &str) -> Option<i64> {
    let text = raw.trim();
    let text = text.strip_prefix('$').unwrap_or(text).trim_start();
    let (whole, frac) = match text.split_once('.') {
        Some((whole, frac)) if (1..=2).contains(&frac.len()) => (whole, frac),
        Some(_) => return None,
        None => (text, ""),
    };
    // Thousands separators only where they belong: `1,000`, not `1,00` or `,100`.
    let groups: Vec<&str> = whole.split(',').collect();
    let grouped_ok = groups.len() == 1
        || (!groups[0].is_empty()
            && groups[0].len() <= 3
            && groups[1..].iter().all(|g| g.len() == 3));
    let digits: String = groups.concat();
    if !grouped_ok
        || digits.is_empty()
        || digits.len() > 12
        || !digits
            .bytes()
            .chain(frac.bytes())
            .all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let whole: i64 = digits.parse().ok()?;
    let frac: i64 = match frac.len() {
        0 => 0,
        1 => frac.parse::<i64>().ok()? * 10,
        _ => frac.parse().ok()?,
    };
    whole.checked_mul(100)?.checked_add(frac)
}

/// `25.50` for a form field (no `$`, no separators).
fn plain_dollars(cents: i64) -> String {
    format!("{}.{:02}", cents / 100, cents % 100)
}

fn money(cents: i64) -> String {
    Cents::new(cents).to_string()
}

/// A form nonce: 128 random bits as 32 hex characters.
fn new_nonce() -> String {
    let mut bytes = [0u8; 16];
    rand::rng().fill_bytes(&mut bytes);
    hex::encode(bytes)
}

fn valid_nonce(nonce: &str) -> bool {
    nonce.len() == 32 && nonce.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Days of sales `available_cents` covers at the rate of `spent_7d_cents` per 7 days.
pub fn runway(available_cents: i64, spent_7d_cents: i64) -> String {
    if spent_7d_cents <= 0 {
        return "No purchases were placed upstream in the last 7 days: no rate to estimate from."
            .into();
    }
    if available_cents <= 0 {
        return "0 days: the balance covers no sales.".into();
    }
    // Tenths of a day, in integers: available / (spent / 7) * 10.
    let tenths = i128::from(available_cents) * 70 / i128::from(spent_7d_cents);
    format!(
        "About {}.{} days of sales at the last 7 days' rate ({} a day).",
        tenths / 10,
        tenths % 10,
        money(spent_7d_cents / 7)
    )
}

struct TxView {
    id: i64,
    kind: String,
    available: String,
    reserved: String,
    reference: String,
    created: String,
}

struct TopupView {
    id: i64,
    amount: String,
    created: String,
    /// "paid", "pending" or "not created".
    state: &'static str,
    error: Option<String>,
}

impl TopupView {
    fn new(t: &wallet::TopupProgressRow) -> Self {
        Self {
            id: t.id,
            amount: money(t.amount_cents),
            created: format_ms(t.created_at_ms),
            state: topup_state(t),
            error: t.last_error.clone(),
        }
    }
}

fn topup_state(t: &wallet::TopupProgressRow) -> &'static str {
    if t.confirmed_at_ms.is_some() {
        "paid"
    } else if t.checkout_url.is_some() {
        "pending"
    } else {
        "not created"
    }
}

#[derive(Template)]
#[template(path = "admin/wallet.html")]
struct WalletPage {
    chrome: Chrome,
    balance: Option<BalanceView>,
    balance_error: Option<String>,
    /// Why new sales are paused, in words; `None` while they run.
    pause: Option<String>,
    runway: String,
    threshold: String,
    threshold_field: String,
    pause_below: bool,
    below_threshold: bool,
    transactions: Vec<TxView>,
    transactions_error: Option<String>,
    paged: bool,
    older_href: Option<String>,
    topups: Vec<TopupView>,
    nonce: String,
    amount: String,
    error: Option<String>,
    notice: Option<&'static str>,
}

struct BalanceView {
    available: String,
    reserved: String,
    upstream_low: bool,
    /// "live", or when the last known figure was read.
    source: String,
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

/// The live balance, stored into the shared wallet row (which lifts a sales pause once more
/// credit shows up) and checked against the threshold.
async fn live_balance(state: &AppState) -> Result<Balance, UpstreamError> {
    let balance = state.upstream.balance().await?;
    let available = balance.available_cents.get();
    let reserved = balance.reserved_cents.cents().get();
    let low = balance.low_balance;
    if let Err(err) = state
        .db
        .run(move |conn| wallet::store(conn, available, reserved, low, db::now_ms()))
        .await
    {
        tracing::warn!(error = %err, "could not store the wallet balance");
    }
    Ok(balance)
}

fn tx_view(t: BalanceTransaction) -> TxView {
    TxView {
        id: t.id,
        kind: t.kind,
        available: money(t.available_delta_cents.get()),
        reserved: money(t.reserved_delta_cents.get()),
        reference: t.reference,
        created: format_upstream_time(&t.created_at),
    }
}

fn pause_message(reason: PauseReason, threshold: i64) -> String {
    match reason {
        PauseReason::InsufficientBalance => "New sales are paused: the provider refused an order \
            for lack of credit. They resume once a balance read shows enough credit for the \
            orders waiting, usually after a top-up."
            .into(),
        PauseReason::BelowThreshold => format!(
            "New sales are paused: the available balance is below your threshold of {} and you \
             chose to pause sales below it. They resume once a balance read shows at least {}.",
            money(threshold),
            money(threshold)
        ),
        PauseReason::AccountProblem => "New sales are paused: the supplier refuses orders from \
            this account (an expired key, a missing scope or a suspension; the dashboard's alert \
            says which). They resume once the supplier accepts an order again: fix the account, \
            then retry the waiting placements from the dashboard."
            .into(),
    }
}

fn upstream_message(err: &UpstreamError) -> String {
    match err.class() {
        Class::Definitive => format!("The provider refused the request ({err})."),
        Class::Unknown | Class::RetryAfter(_) => {
            format!("The provider did not answer in time ({err}).")
        }
    }
}

async fn render(
    state: &AppState,
    req: &HttpRequest,
    admin: &Admin,
    status: StatusCode,
    cursor: Option<Cursor>,
    form: FormState,
    notice: Option<&'static str>,
) -> Result<HttpResponse, AppError> {
    let live = live_balance(state).await;
    let limit = PageLimit::new(TRANSACTIONS_PER_PAGE).unwrap_or_default();
    let transactions: Result<Page<BalanceTransaction>, UpstreamError> = state
        .upstream
        .balance_transactions(cursor.as_ref(), limit)
        .await;
    if let Ok(page) = &transactions
        && let Err(err) = confirm_topups(&state.db, &page.data).await
    {
        tracing::warn!(error = %err, "could not record top-up credits");
    }
    let now = db::now_ms();
    let (row, spent_7d, policy, topups) = state
        .db
        .run(move |conn| {
            Ok::<_, DbError>((
                wallet::get(conn)?,
                q::placed_cost_since(conn, now - 7 * DAY_MS)?,
                wallet::threshold_policy(conn)?,
                wallet::recent_topups(conn, RECENT_TOPUPS)?,
            ))
        })
        .await?;
    let (balance, balance_error, available) = match &live {
        Ok(b) => (
            Some(BalanceView {
                available: money(b.available_cents.get()),
                reserved: money(b.reserved_cents.cents().get()),
                upstream_low: b.low_balance,
                source: "live".into(),
            }),
            None,
            Some(b.available_cents.get()),
        ),
        Err(err) => (
            row.as_ref()
                .filter(|w| w.refreshed_at_ms > 0)
                .map(|w| BalanceView {
                    available: money(w.available_cents),
                    reserved: money(w.reserved_cents),
                    upstream_low: w.low_balance,
                    source: format!("last known, read {}", format_ms(w.refreshed_at_ms)),
                }),
            Some(format!(
                "Could not read the live balance. {}",
                upstream_message(err)
            )),
            None,
        ),
    };
    let threshold = policy.threshold_cents;
    let below_threshold = match available {
        Some(cents) => {
            check_low_balance(&state.db, state.outbox.inner.notifier.as_ref(), cents).await?
        }
        None => row
            .as_ref()
            .is_some_and(|w| w.refreshed_at_ms > 0 && w.available_cents < threshold),
    };
    let runway_text = match available.or(row.as_ref().map(|w| w.available_cents)) {
        Some(cents) => runway(cents, spent_7d),
        None => "Unknown until the balance has been read.".into(),
    };
    let (transactions, transactions_error, older_href) = match transactions {
        Ok(page) => (
            page.data.into_iter().map(tx_view).collect(),
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
    let (chrome, cookie) = Chrome::new(state, req, admin, "wallet");
    let page = WalletPage {
        chrome,
        balance,
        balance_error,
        pause: row
            .as_ref()
            .and_then(wallet::WalletRow::pause)
            .map(|reason| pause_message(reason, threshold)),
        runway: runway_text,
        threshold: money(threshold),
        threshold_field: plain_dollars(threshold),
        pause_below: policy.pause_below,
        below_threshold,
        transactions,
        transactions_error,
        paged: cursor.is_some(),
        older_href,
        topups: topups.iter().map(TopupView::new).collect(),
        nonce: form.nonce,
        amount: form.amount,
        error: form.error,
        notice,
    };
    Ok(admin_page(status, &page, cookie))
}

pub async fn page(
    state: web::Data<AppState>,
    req: HttpRequest,
    CurrentAdmin(admin): CurrentAdmin,
    query: web::Query<WalletQuery>,
) -> Result<HttpResponse, AppError> {
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
    render(&state, &req, &admin, StatusCode::OK, cursor, form, notice).await
}

#[derive(Deserialize)]
pub struct TopupForm {
    #[serde(default)]
    csrf_token: String,
    #[serde(default)]
    nonce: String,
    #[serde(default)]
    amount: String,
}

/// Why a top-up form was not sent upstream.
fn parse_topup(raw: &str) -> Result<TopUpAmount, String> {
    let cents = parse_dollars(raw).ok_or_else(|| {
        "Enter the amount in dollars, like 25 or 25.50 (at most two decimals).".to_string()
    })?;
    TopUpAmount::new(Cents::new(cents)).map_err(|_| {
        format!(
            "A top-up is between {} and {}; {} is not.",
            money(TopUpAmount::MIN),
            money(TopUpAmount::MAX),
            money(cents)
        )
    })
}

pub async fn topup(
    state: web::Data<AppState>,
    req: HttpRequest,
    CurrentAdmin(admin): CurrentAdmin,
    form: web::Form<TopupForm>,
) -> Result<HttpResponse, AppError> {
    require_owner(&admin)?;
    check_csrf(&state, &req, &form.csrf_token)?;
    let form = form.into_inner();
    if !valid_nonce(&form.nonce) {
        return Err(AppError::BadRequest(
            "This form is incomplete. Reload the wallet page and try again.".into(),
        ));
    }
    let amount = match parse_topup(&form.amount) {
        Ok(amount) => amount,
        Err(message) => {
            let again = FormState {
                nonce: form.nonce,
                amount: form.amount.chars().take(40).collect(),
                error: Some(message),
            };
            return render(
                &state,
                &req,
                &admin,
                StatusCode::BAD_REQUEST,
                None,
                again,
                None,
            )
            .await;
        }
    };
    let nonce = form.nonce.clone();
    let user_id = admin.user_id;
    let (row, inserted) = state
        .db
        .run(move |conn| {
            let key = IdempotencyKey::generate();
            conn.write_tx(|conn| {
                q::topup_for_nonce(
                    conn,
                    &q::NewTopup {
                        nonce: &nonce,
                        idempotency_key: key.as_str(),
                        amount_cents: amount.cents().get(),
                        created_by: user_id,
                    },
                    db::now_ms(),
                )
            })
        })
        .await?;
    if row.amount_cents != amount.cents().get() {
        let again = FormState {
            nonce: new_nonce(),
            amount: plain_dollars(amount.cents().get()),
            error: Some(format!(
                "This form was already sent for {}. To top up {} instead, submit this fresh form.",
                money(row.amount_cents),
                money(amount.cents().get())
            )),
        };
        return render(
            &state,
            &req,
            &admin,
            StatusCode::CONFLICT,
            None,
            again,
            None,
        )
        .await;
    }
    let key = IdempotencyKey::parse(row.idempotency_key.clone())
        .map_err(|e| AppError::internal(format!("stored top-up key: {e}")))?;
    let answer = state
        .upstream
        .create_topup(&key, amount)
        .await
        .map_err(TopupRefusal::Upstream)
        .and_then(|session| {
            checkout_link(&session.checkout_url, &state.settings.upstream.base_url)
                .map(|link| (session.id, link))
                .map_err(TopupRefusal::Link)
        });
    let client = client_addr(&req);
    let target = format!("topup:{}", row.id);
    let amount_text = money(row.amount_cents);
    let (id, audit_admin) = (row.id, admin.clone());
    let recorded = match &answer {
        Ok((session, link)) => (
            Ok((session.clone(), link.to_string())),
            if inserted {
                action::TOPUP_CREATED
            } else {
                action::TOPUP_RESUBMITTED
            },
        ),
        Err(refusal) => (Err(refusal.to_string()), action::TOPUP_FAILED),
    };
    state
        .db
        .run(move |conn| {
            let now = db::now_ms();
            let (outcome, act) = recorded;
            conn.write_tx(|conn| {
                let details = match &outcome {
                    Ok((session, url)) => {
                        q::record_topup_outcome(conn, id, Ok((session, url)), now)?;
                        format!("{amount_text}, checkout session {session}")
                    }
                    Err(error) => {
                        q::record_topup_outcome(conn, id, Err(error), now)?;
                        format!("{amount_text}, not created: {error}")
                    }
                };
                audit_admin.audit(conn, act, Some(&target), &client, &details, now)
            })
        })
        .await?;
    let (status, message) = match answer {
        Ok(_) => return Ok(see_other(&format!("/admin/wallet/topups/{id}"))),
        Err(TopupRefusal::Upstream(err)) => {
            tracing::warn!(topup.id = id, error = %err, "upstream top-up not created");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                format!(
                    "{} Submit the same form again: it reuses the same key, so it cannot pay twice.",
                    upstream_message(&err)
                ),
            )
        }
        Err(TopupRefusal::Link(err)) => {
            tracing::warn!(topup.id = id, error = %err, "upstream top-up link refused");
            (
                StatusCode::BAD_GATEWAY,
                format!(
                    "The provider answered with a payment link the console will not open: {err} \
                     (it must be https). Nothing was paid. Ask the provider's support about top-up #{id}."
                ),
            )
        }
    };
    let again = FormState {
        nonce: form.nonce,
        amount: plain_dollars(row.amount_cents),
        error: Some(message),
    };
    render(&state, &req, &admin, status, None, again, None).await
}

/// Why a top-up form did not lead to a payment page.
#[derive(Debug, thiserror::Error)]
enum TopupRefusal {
    #[error(transparent)]
    Upstream(UpstreamError),
    #[error("unsafe payment link: {0}")]
    Link(crate::orders::wallet::UnsafeCheckoutLink),
}

#[derive(Template)]
#[template(path = "admin/topup.html")]
struct TopupPage {
    chrome: Chrome,
    id: i64,
    amount: String,
    created: String,
    /// "paid", "pending" or "not created".
    state: &'static str,
    /// When the credit was seen.
    confirmed: Option<String>,
    /// The checkout link and the host it leads to, while the top-up is pending.
    link: Option<(String, String)>,
    error: Option<String>,
    /// The live available balance.
    available: Option<String>,
    balance_error: Option<String>,
}

/// One top-up: the link to pay it on upstream's page, then "pending" until its credit shows in
/// the balance transactions. Each view reads the balance live (which may resume sales).
pub async fn topup_page(
    state: web::Data<AppState>,
    req: HttpRequest,
    CurrentAdmin(admin): CurrentAdmin,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    require_owner(&admin)?;
    let id = id.into_inner();
    let live = live_balance(&state).await;
    let limit = PageLimit::new(TRANSACTIONS_PER_PAGE).unwrap_or_default();
    let transactions = state.upstream.balance_transactions(None, limit).await;
    match &transactions {
        Ok(page) => {
            if let Err(err) = confirm_topups(&state.db, &page.data).await {
                tracing::warn!(error = %err, "could not record top-up credits");
            }
        }
        Err(err) => tracing::warn!(error = %err, "could not read the balance transactions"),
    }
    if let Ok(balance) = &live {
        check_low_balance(
            &state.db,
            state.outbox.inner.notifier.as_ref(),
            balance.available_cents.get(),
        )
        .await?;
    }
    let row = state
        .db
        .run(move |conn| wallet::topup(conn, id))
        .await?
        .ok_or(AppError::NotFound)?;
    let link = row
        .checkout_url
        .as_deref()
        .filter(|_| row.confirmed_at_ms.is_none())
        .and_then(|raw| url::Url::parse(raw).ok())
        .and_then(|url| checkout_link(&url, &state.settings.upstream.base_url).ok())
        .map(|url| (url.to_string(), link_host(&url)));
    let (chrome, cookie) = Chrome::new(&state, &req, &admin, "wallet");
    let page = TopupPage {
        chrome,
        id: row.id,
        amount: money(row.amount_cents),
        created: format_ms(row.created_at_ms),
        state: topup_state(&row),
        confirmed: row.confirmed_at_ms.map(format_ms),
        link,
        error: row.last_error,
        available: live.as_ref().ok().map(|b| money(b.available_cents.get())),
        balance_error: live.err().map(|err| {
            format!(
                "Could not read the live balance. {}",
                upstream_message(&err)
            )
        }),
    };
    Ok(admin_page(StatusCode::OK, &page, cookie))
}

#[derive(Deserialize)]
pub struct ThresholdForm {
    #[serde(default)]
    csrf_token: String,
    #[serde(default)]
    threshold: String,
    /// The "pause new sales below the threshold" checkbox: `yes` when ticked, absent if not.
    pause_below: Option<String>,
}

pub async fn threshold(
    state: web::Data<AppState>,
    req: HttpRequest,
    CurrentAdmin(admin): CurrentAdmin,
    form: web::Form<ThresholdForm>,
) -> Result<HttpResponse, AppError> {
    require_owner(&admin)?;
    check_csrf(&state, &req, &form.csrf_token)?;
    let cents = parse_dollars(&form.threshold)
        .filter(|c| *c <= MAX_THRESHOLD_CENTS)
        .ok_or_else(|| {
            AppError::BadRequest(format!(
                "The threshold is dollars like 100 or 250.50, at most {}.",
                money(MAX_THRESHOLD_CENTS)
            ))
        })?;
    let policy = wallet::ThresholdPolicy {
        threshold_cents: cents,
        pause_below: form.pause_below.as_deref() == Some("yes"),
    };
    save_threshold_policy(&state.db, admin, client_addr(&req), policy).await?;
    Ok(see_other("/admin/wallet?done=threshold"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn dollars_parse_to_cents() {
        assert_eq!(parse_dollars("25"), Some(2_500));
        assert_eq!(parse_dollars(" 25.50 "), Some(2_550));
        assert_eq!(parse_dollars("25.5"), Some(2_550));
        assert_eq!(parse_dollars("$1,000"), Some(100_000));
        assert_eq!(parse_dollars("1000.00"), Some(100_000));
        assert_eq!(parse_dollars("0.01"), Some(1));
        for bad in [
            "",
            "$",
            ".",
            "25.",
            ".5",
            "-10",
            "+10",
            "1.234",
            "1e3",
            "ten",
            "1,00",
            ",100",
            "12 5",
            "1.2.3",
            "9999999999999",
        ] {
            assert_eq!(parse_dollars(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn top_ups_are_ten_to_a_thousand_dollars() {
        assert!(parse_topup("10").is_ok());
        assert!(parse_topup("1,000.00").is_ok());
        assert!(
            parse_topup("9.99")
                .unwrap_err()
                .contains("between $10.00 and $1,000.00")
        );
        assert!(parse_topup("1000.01").is_err());
        assert!(parse_topup("abc").unwrap_err().contains("like 25 or 25.50"));
    }

    #[test]
    fn runway_uses_integer_days() {
        assert!(runway(50_000, 0).contains("no rate"));
        assert!(runway(-5, 700).starts_with("0 days"));
        // $70 over 7 days is $10 a day: $500 lasts 50 days.
        assert!(runway(50_000, 7_000).starts_with("About 50.0 days"));
        assert!(runway(1_500, 7_000).starts_with("About 1.5 days"));
        assert!(runway(i64::MAX, 1).starts_with("About "));
    }

    proptest! {
        #[test]
        fn formatted_amounts_parse_back(cents in 0i64..1_000_000_000) {
            prop_assert_eq!(parse_dollars(&plain_dollars(cents)), Some(cents));
            prop_assert_eq!(parse_dollars(&Cents::new(cents).to_string()), Some(cents));
        }
    }
}
