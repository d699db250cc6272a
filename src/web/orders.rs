//! The consumer's private order page. Reachable only with the emailed token (exchanged at once
//! for a cookie, so the token leaves the address bar) or that cookie, while the token is
//! neither revoked nor expired (`orders::links`), or from a "My eSIMs" session of the buyer's
//! address (`orders::my_esims`); anything else is the same 404 as an unknown id, so the answer
//! says nothing about which ids exist. The payment provider returns the
//! buyer here without a token: the cookie set at checkout opens the page.

use std::sync::Arc;

use actix_web::cookie::{Cookie, SameSite};
use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::web::Bytes;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use serde::Deserialize;

use crate::db::now_ms;
use crate::domain::Cents;
use crate::domain::PurchaseId;
use crate::domain::esim::{Device, is_apple_setup_link};
use crate::domain::plan::UNKNOWN_INSTALL_ADVICE;
use crate::domain::purchase::{PurchaseStatus, checkout_status};
use crate::i18n::{self, msg};
use crate::orders::installation::InstallView;
use crate::orders::links::{self, LinkPolicy};
use crate::orders::page::{Proof, UnitPlace, purchase_for_link, read_order};
use crate::orders::send_unit::SendUnitError;
use crate::web::error::AppError;
use crate::web::order_cache::RenderedOrder;
use crate::web::shop::plan_title;
use crate::web::{AppState, pages};

#[derive(Deserialize)]
pub struct TokenQuery {
    token: Option<String>,
}

impl TokenQuery {
    /// The link token in the address, if any.
    pub(crate) fn token(&self) -> Option<&str> {
        self.token.as_deref()
    }
}

pub struct TimelineEntry {
    /// `23 Nov 2026, 06:00 UTC`, in the page's language.
    pub at: String,
    /// `2026-11-23 06:00Z`, for `<time datetime>`.
    pub datetime: String,
    /// A message id.
    pub text: &'static str,
    /// The eSIM it happened to ("eSIM 2 of 3 · Ben"), on the buyer's page of several.
    pub unit: Option<String>,
}

#[derive(Template)]
#[template(path = "orders/order.html", blocks = ["title", "description"])]
struct OrderPage {
    install: Option<Arc<InstallView>>,
    /// What the installation section shows first (see `domain::esim::Device`).
    device: Device,
    status: &'static str,
    /// Message ids.
    headline: &'static str,
    explanation: &'static str,
    refresh: bool,
    /// `SF-3FA2-9C1E`: what the customer quotes to support.
    order_number: String,
    order_href: String,
    /// An email with the private link exists (sent once the payment is confirmed).
    emailed: bool,
    plan: String,
    plan_href: String,
    price: String,
    /// `(code, line)` when the purchase used a promotion code.
    promo: Option<(String, String)>,
    email: String,
    timeline: Vec<TimelineEntry>,
    /// "eSIM 2 of 4 · Ben" when the page shows one unit of a checkout of several.
    place: Option<String>,
    /// Every unit, when the buyer's link opens a checkout of several eSIMs.
    units: Vec<UnitView>,
    /// The receipt's page, for the buyer once it is issued.
    receipt_href: Option<String>,
    /// The buyer's departure day, for the buyer's link only.
    trip: Option<TripLine>,
    /// The send forms' CSRF token (the buyer's page of several eSIMs only).
    csrf_token: String,
}

/// The order page's "Your trip" part: the date in words (`None` without one) and the form's
/// address.
struct TripLine {
    day: Option<String>,
    /// `2026-12-24`, for `data-trip`.
    iso: String,
    href: String,
}

/// One eSIM of the buyer's page.
struct UnitView {
    index: i32,
    /// "eSIM 2 of 4 · Ben".
    label: String,
    status: &'static str,
    /// A message id.
    headline: &'static str,
    install: Option<Arc<InstallView>>,
    /// Keeps the unit's element ids apart (`u2-`).
    prefix: String,
    /// Where its "Send this eSIM to someone" form posts.
    send_href: String,
    /// The address in that form (as typed, when it needs correcting).
    send_typed: String,
    /// The form's link was sent: says where.
    send_sent: Option<String>,
    /// A problem with the form to correct.
    send_error: Option<String>,
}

/// "eSIM 2 of 4", with the traveller's name when there is one.
fn unit_label(index: i32, count: usize, name: Option<&str>) -> String {
    UnitPlace {
        index,
        count,
        name: name.map(str::to_string),
    }
    .label(i18n::current())
}

impl OrderPage {
    /// Whether any installation view shows (its Copy buttons need the page's words).
    fn has_install(&self) -> bool {
        self.install.is_some() || self.units.iter().any(|u| u.install.is_some())
    }

    /// The one-tap install button, when this device can use the link: Apple's setup link
    /// only on an iPhone or a device that does not say what it is; the supplier's own links
    /// everywhere. `(href, is_apple)`.
    fn one_tap<'a>(&self, install: &'a InstallView) -> Option<(&'a str, bool)> {
        let link = install.install_link.as_deref()?;
        let apple = is_apple_setup_link(link);
        (!(apple && self.device == Device::Android)).then_some((link, apple))
    }

    /// On the buyer's page of several eSIMs, a fulfilled eSIM's view for the steps they all
    /// share (they are of one plan), shown once below the eSIMs.
    fn units_install(&self) -> Option<&InstallView> {
        self.units.iter().find_map(|u| u.install.as_deref())
    }

    /// On a computer the QR code comes first, for the phone beside it.
    fn qr_first(&self) -> bool {
        self.device == Device::Other
    }

    fn android_first(&self) -> bool {
        self.device == Device::Android
    }
}

/// The headline and explanation of a status, as message ids.
fn words(status: PurchaseStatus) -> (&'static str, &'static str) {
    use PurchaseStatus::*;
    match status {
        AwaitingPayment => (
            msg("status-awaiting-payment"),
            msg("status-awaiting-payment-text"),
        ),
        Paid => (msg("status-paid"), msg("status-paid-text")),
        Ordered | Provisioning => (msg("status-preparing"), msg("status-preparing-text")),
        Fulfilled => (msg("status-fulfilled"), msg("status-fulfilled-text")),
        PaymentFailed => (
            msg("status-payment-failed"),
            msg("status-payment-failed-text"),
        ),
        NeedsAttention => (
            msg("status-needs-attention"),
            msg("status-needs-attention-text"),
        ),
        Failed => (msg("status-failed"), msg("status-failed-text")),
        Refunded => (msg("status-refunded"), msg("status-refunded-text")),
    }
}

/// The status in the customer's words (a message id): the order page's headline, and what
/// "My eSIMs" shows beside each eSIM.
pub(crate) fn status_headline(status: PurchaseStatus) -> &'static str {
    words(status).0
}

fn event_text(to: &str) -> &'static str {
    PurchaseStatus::parse(to).map_or(msg("status-updated"), |s| words(s).0)
}

/// The name of the cookie that holds `purchase_id`'s link token in this browser.
pub(crate) fn order_cookie_name(purchase_id: &PurchaseId) -> String {
    format!("order_{purchase_id}")
}

/// The cookie that lets this browser open its order page without the token in the address:
/// set at checkout and when an emailed link is opened, sent only to that order's page.
pub fn order_cookie(purchase_id: &PurchaseId, token: &str, secure: bool) -> Cookie<'static> {
    Cookie::build(order_cookie_name(purchase_id), token.to_string())
        .path(format!("/orders/{purchase_id}"))
        .http_only(true)
        .secure(secure)
        .same_site(SameSite::Lax)
        .max_age(actix_web::cookie::time::Duration::days(400))
        .finish()
}

/// `(code, "CODE: $2.00 off $20.00")` in the current language when `purchase` used a
/// promotion code: the line the payment page and the order page show.
pub(crate) fn promo_line(purchase: &crate::db::purchases::Purchase) -> Option<(String, String)> {
    let (Some(code), Some(list), Some(off)) = (
        &purchase.promo_code,
        purchase.list_price_cents,
        purchase.discount_cents,
    ) else {
        return None;
    };
    let lang = i18n::current();
    Some((
        code.clone(),
        lang.ta(
            "promo-pay-line",
            &[
                ("code", code.into()),
                ("discount", lang.money(Cents::new(off)).into()),
                ("list", lang.money(Cents::new(list)).into()),
            ],
        ),
    ))
}

pub async fn order(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    query: web::Query<TokenQuery>,
) -> Result<HttpResponse, AppError> {
    let id = PurchaseId::parse(id.into_inner()).map_err(|_| AppError::NotFound)?;
    let policy = LinkPolicy::days(state.settings.order_link_days);
    // The token from the email: valid → keep it in a cookie and drop it from the address.
    if let Some(token) = query.token.as_deref() {
        if purchase_for_link(&state.orders, &id, token, policy)
            .await?
            .is_none()
        {
            return Err(AppError::NotFound);
        }
        return Ok(token_to_cookie(
            &id,
            token,
            &format!("/orders/{id}"),
            state.secure_cookies,
        ));
    }
    render_order(&state, &req, &id, None).await
}

/// The answer to an emailed link whose `token` opened order `id`: the token goes into the
/// order's cookie and the browser is sent on to `to`, the same page without it in the address
/// (nor in a `Referer`).
pub(crate) fn token_to_cookie(
    id: &PurchaseId,
    token: &str,
    to: &str,
    secure: bool,
) -> HttpResponse {
    let mut response = HttpResponse::SeeOther()
        .insert_header((header::LOCATION, to.to_string()))
        .insert_header((header::REFERRER_POLICY, "no-referrer"))
        .finish();
    let _ = response.add_cookie(&order_cookie(id, token, secure));
    response
}

/// What the buyer's "Send this eSIM to someone" form came to, shown in that eSIM's fold.
struct SendNotice {
    /// The eSIM's place in its checkout.
    index: i32,
    /// The address as typed (kept in the field when it needs correcting).
    typed: String,
    outcome: SendOutcome,
}

enum SendOutcome {
    /// Queued to this address.
    Sent(String),
    Invalid,
    TooMany,
    NotReady,
}

impl SendNotice {
    fn status(&self) -> StatusCode {
        match self.outcome {
            SendOutcome::Sent(_) => StatusCode::OK,
            SendOutcome::Invalid => StatusCode::BAD_REQUEST,
            SendOutcome::TooMany => StatusCode::TOO_MANY_REQUESTS,
            SendOutcome::NotReady => StatusCode::CONFLICT,
        }
    }
}

/// The order page `id` for this browser's link cookie or "My eSIMs" session, with the
/// outcome of a send form when it answers one.
async fn render_order(
    state: &web::Data<AppState>,
    req: &HttpRequest,
    id: &PurchaseId,
    send: Option<SendNotice>,
) -> Result<HttpResponse, AppError> {
    let id = id.clone();
    let policy = LinkPolicy::days(state.settings.order_link_days);
    let device = req
        .headers()
        .get(header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .map_or(Device::Other, Device::from_user_agent);
    let token = req
        .cookie(&order_cookie_name(&id))
        .map(|c| c.value().to_string());
    let token_digest = token.as_deref().map(links::token_digest);
    // An ended order's page rendered moments ago for this very token (see `order_cache`).
    if let Some(digest) = &token_digest
        && send.is_none()
        && let Some(kept) = state.order_pages.get(&id)
        && kept.opens_for(digest, i18n::current(), device, now_ms())
    {
        return Ok(order_response(
            HttpResponse::Ok()
                .content_type("text/html; charset=utf-8")
                .body(kept.body.clone()),
        ));
    }
    // A view derived within the cache's lifetime spares reading and opening the installation;
    // it is used only once the token or the session has proved the purchase below.
    let cached = state.installs.get(&id);
    let read = async |proof| {
        read_order(
            &state.orders,
            &state.installation_keys,
            &id,
            proof,
            policy,
            cached.is_none(),
        )
        .await
    };
    // The browser's link cookie first; else a "My eSIMs" session of the buyer's address.
    let mut opened_by_link = false;
    let mut record = None;
    if let Some(token) = token {
        record = read(Proof::Link(token)).await?;
        opened_by_link = record.is_some();
    }
    if record.is_none()
        && let Some(customer) = crate::web::my_esims::signed_in(state, req).await?
    {
        record = read(Proof::SignedIn(customer)).await?;
    }
    let record = record.ok_or(AppError::NotFound)?;
    // Only a page opened by a link token is kept for that token (see `order_cache`).
    let token_digest = token_digest.filter(|_| opened_by_link);
    let timeline: Vec<TimelineEntry> = record
        .timeline()
        .into_iter()
        .map(|line| TimelineEntry {
            at: i18n::current().date_time(line.event.at_ms),
            datetime: i18n::format::machine_date_time(line.event.at_ms),
            text: event_text(&line.event.to_status),
            unit: line.unit.map(|unit| {
                unit_label(
                    unit.purchase.unit_index,
                    record.units.len(),
                    unit.traveller.as_ref().and_then(|t| t.name.as_deref()),
                )
            }),
        })
        .collect();
    let purchase = record.purchase;
    let snap = state.catalog.snapshot();
    let activation_of = |plan_id: &str| {
        snap.plan(plan_id)
            .map_or(UNKNOWN_INSTALL_ADVICE, |p| p.activation.install_advice())
    };
    // The buyer's page of several eSIMs: each with its own view, the status the checkout's.
    let mut units: Vec<UnitView> = record
        .units
        .iter()
        .map(|unit| UnitView {
            index: unit.purchase.unit_index,
            label: unit_label(
                unit.purchase.unit_index,
                record.units.len(),
                unit.traveller.as_ref().and_then(|t| t.name.as_deref()),
            ),
            status: unit.purchase.status.as_str(),
            headline: words(unit.purchase.status).0,
            install: unit.installation.as_ref().map(|details| {
                Arc::new(InstallView::from_details(
                    details,
                    activation_of(&unit.purchase.plan_id),
                ))
            }),
            prefix: format!("u{}-", unit.purchase.unit_index),
            send_href: format!("/orders/{id}/units/{}/send", unit.purchase.unit_index),
            send_typed: String::new(),
            send_sent: None,
            send_error: None,
        })
        .collect();
    if let Some(send) = &send
        && let Some(unit) = units.iter_mut().find(|u| u.index == send.index)
    {
        let lang = i18n::current();
        let problem = match &send.outcome {
            SendOutcome::Sent(to) => {
                unit.send_sent = Some(lang.ta("order-send-sent", &[("email", to.into())]));
                None
            }
            SendOutcome::Invalid => Some("order-send-invalid"),
            SendOutcome::TooMany => Some("order-send-too-many"),
            SendOutcome::NotReady => Some("order-send-not-ready"),
        };
        if let Some(problem) = problem {
            unit.send_error = Some(lang.t(problem));
            unit.send_typed = send.typed.clone();
        }
    }
    // The send forms hold a per-browser token: issued only for the page that has them.
    let csrf = (!units.is_empty())
        .then(|| crate::web::csrf::issue(req, &state.settings.secret_key, state.secure_cookies));
    let statuses: Vec<PurchaseStatus> = record.units.iter().map(|u| u.purchase.status).collect();
    let status = checkout_status(&statuses).unwrap_or(purchase.status);
    let (headline, explanation) = words(status);
    let install = if !units.is_empty() {
        None
    } else if status == PurchaseStatus::Fulfilled {
        match (cached, record.installation) {
            (Some(view), _) => Some(view),
            (None, Some(details)) => {
                let activation = activation_of(&purchase.plan_id);
                let view = Arc::new(InstallView::from_details(&details, activation));
                state.installs.insert(&purchase.id, Arc::clone(&view));
                Some(view)
            }
            (None, None) => None,
        }
    } else {
        None
    };
    let lang = i18n::current();
    let plan = snap
        .plan(&purchase.plan_id)
        .map(|p| plan_title(p, lang))
        .unwrap_or_else(|| purchase.plan_id.clone());
    let page = OrderPage {
        install,
        device,
        status: status.as_str(),
        headline,
        explanation,
        refresh: status.refreshes_order_page(),
        plan,
        // The number the buyer has (the checkout's), also on a traveller's page of one unit.
        order_number: purchase.checkout_id.order_number(),
        order_href: format!("/orders/{}", purchase.id),
        emailed: status.was_paid(),
        plan_href: format!("/plans/{}", purchase.plan_id),
        // The buyer's page of several eSIMs shows what the checkout cost in all, tax added
        // on top included.
        price: lang.money(record.charged),
        promo: promo_line(&purchase),
        email: purchase.email.masked(),
        receipt_href: record
            .receipt
            .then(|| format!("/orders/{}/receipt", purchase.id)),
        // Asked for while the order may still be delivered.
        trip: record
            .trip
            .filter(|_| {
                !matches!(
                    status,
                    PurchaseStatus::PaymentFailed
                        | PurchaseStatus::Failed
                        | PurchaseStatus::Refunded
                )
            })
            .map(|date| TripLine {
                day: date.and_then(|d| lang.iso_day(&d.iso())),
                iso: date.map(|d| d.iso()).unwrap_or_default(),
                href: format!("/orders/{}/trip", purchase.id),
            }),
        csrf_token: csrf.as_ref().map(|c| c.token.clone()).unwrap_or_default(),
        timeline,
        place: record
            .place
            .as_ref()
            .map(|place| unit_label(place.index, place.count, place.name.as_deref())),
        units,
    };
    // A page with forms is never kept: its CSRF token is masked afresh for every answer.
    let keep = status.has_ended() && csrf.is_none();
    let response = match (page.render(), token_digest) {
        (Ok(body), Some(token_hash)) if keep => {
            let body = Bytes::from(body);
            state.order_pages.insert(
                &purchase.id,
                Arc::new(RenderedOrder {
                    token_hash,
                    lang,
                    device,
                    link_expires_at_ms: links::expires_at(status, &record.events, policy),
                    body: body.clone(),
                }),
            );
            HttpResponse::Ok()
                .content_type("text/html; charset=utf-8")
                .body(body)
        }
        (rendered, _) => {
            let mut response = pages::html(
                send.as_ref().map_or(StatusCode::OK, SendNotice::status),
                rendered,
            );
            if let Some(cookie) = csrf.and_then(|c| c.cookie) {
                let _ = response.add_cookie(&cookie);
            }
            if send
                .as_ref()
                .is_some_and(|s| matches!(s.outcome, SendOutcome::TooMany))
            {
                response
                    .headers_mut()
                    .insert(header::RETRY_AFTER, HeaderValue::from_static("900"));
            }
            response
        }
    };
    Ok(order_response(response))
}

#[derive(Deserialize)]
pub struct SendUnitForm {
    #[serde(default)]
    email: String,
    #[serde(default)]
    csrf_token: String,
}

/// "Send this eSIM to someone" (`POST /orders/{id}/units/{index}/send`): the buyer's page of
/// several eSIMs sends one eSIM's own private link to an address (`orders::send_unit`), and
/// answers with the page, the outcome in that eSIM's fold. Only the buyer's link cookie of the
/// checkout opens it; anything else is the order 404. Limited per client like "Lost your
/// link?".
pub async fn send_unit(
    state: web::Data<AppState>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    // A body that is not a form has no token: it gets the CSRF answer (403), not a 400.
    form: Option<web::Form<SendUnitForm>>,
) -> Result<HttpResponse, AppError> {
    let (id, index) = path.into_inner();
    let id = PurchaseId::parse(id).map_err(|_| AppError::NotFound)?;
    let index: i32 = index.parse().map_err(|_| AppError::NotFound)?;
    let form = form.map(web::Form::into_inner);
    let csrf_token = form.as_ref().map(|f| f.csrf_token.as_str()).unwrap_or("");
    if !crate::web::csrf::verify_any(
        &req,
        state.settings.accepted_secret_keys(),
        state.secure_cookies,
        csrf_token,
    ) {
        return Err(AppError::Forbidden(i18n::t("form-expired")));
    }
    let link = req
        .cookie(&order_cookie_name(&id))
        .map(|c| c.value().to_string())
        .ok_or(AppError::NotFound)?;
    let typed = form.map(|f| f.email).unwrap_or_default();
    let outcome = if !state
        .send_unit_limiter
        .allow(crate::web::client_addr::client_key(&req))
    {
        SendOutcome::TooMany
    } else if let Ok(to) = crate::domain::Email::parse(typed.trim()) {
        let policy = LinkPolicy::days(state.settings.order_link_days);
        match crate::orders::send_unit::send_unit(&state.orders, &id, &link, index, &to, policy)
            .await
        {
            Ok(()) => {
                state.outbox.waker().wake();
                SendOutcome::Sent(to.as_str().to_string())
            }
            Err(SendUnitError::NotFound) => return Err(AppError::NotFound),
            Err(SendUnitError::NotReady) => SendOutcome::NotReady,
            Err(SendUnitError::Db(err)) => return Err(err.into()),
        }
    } else {
        SendOutcome::Invalid
    };
    let send = SendNotice {
        index,
        typed,
        outcome,
    };
    render_order(&state, &req, &id, Some(send)).await
}

/// The order page's headers: never stored, never compressed, never indexed.
fn order_response(mut response: HttpResponse) -> HttpResponse {
    // The page holds the buyer's activation code next to text an attacker can make vary (the
    // timeline, the email).
    let headers = response.headers_mut();
    crate::web::pages::keep_private(headers);
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    response
}
