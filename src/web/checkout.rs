//! Buying: `POST /checkout` (the plan page's form; the page itself is `web::shop`) and the demo
//! provider's hosted payment page. Handlers parse and render; the sale itself is `orders::checkout`.

use std::collections::HashMap;
use std::time::SystemTime;

use actix_web::http::StatusCode;
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use serde::Deserialize;

use crate::catalog::ShopPlan;
use crate::domain::promo::normalise_code;
use crate::domain::units::{Quantity, QuantityError, Traveller, TravellerError};
use crate::domain::{Cents, Email};
use crate::i18n::{self, Lang};
use crate::orders::checkout::{CheckoutError, CheckoutForm};
use crate::orders::confirm;
use crate::orders::trip::TripAsk;
use crate::payments::Provider;
use crate::web::error::AppError;
use crate::web::orders::{order_cookie, promo_line};
use crate::web::shop::{FieldError, Typed, plan_title, render_plan};
use crate::web::{AppState, csrf, pages};

#[derive(Deserialize)]
pub struct CheckoutFields {
    plan_id: String,
    #[serde(default)]
    email: String,
    #[serde(default)]
    csrf_token: String,
    /// "my device supports eSIM and is not carrier-locked"
    confirm_device: Option<String>,
    /// "I agree to the terms", with the withdrawal notice beside it.
    accept_terms: Option<String>,
    expected_price_cents: Option<String>,
    /// The language the plan page was written in: the purchase's emails use it.
    lang: Option<String>,
    /// An optional promotion code.
    #[serde(default)]
    promo_code: String,
    /// The suggested address, when the visitor pressed "Use name@gmail.com": it replaces
    /// `email`.
    use_email: Option<String>,
    /// The address the last answer questioned: sent again unchanged, it is kept as typed.
    email_kept: Option<String>,
    /// How many eSIMs (1 to the owner's cap); absent means one.
    #[serde(default)]
    quantity: String,
    /// "Email me a reminder if I don't finish", unticked unless the buyer ticks it.
    remind_unfinished: Option<String>,
    /// "When do you leave?": an optional departure day, `YYYY-MM-DD`.
    #[serde(default)]
    trip_date: String,
    /// `traveller_name_N` and `traveller_email_N` for eSIM N, both optional.
    #[serde(flatten)]
    travellers: HashMap<String, String>,
}

impl CheckoutFields {
    /// The traveller rows as typed, `(name, email)` for eSIMs 1 to `rows`.
    fn traveller_rows(&self, rows: u32) -> Vec<(String, String)> {
        (1..=rows)
            .map(|n| {
                let field = |kind: &str| {
                    self.travellers
                        .get(&format!("traveller_{kind}_{n}"))
                        .cloned()
                        .unwrap_or_default()
                };
                (field("name"), field("email"))
            })
            .collect()
    }
}

#[derive(Template)]
#[template(path = "shop/checkout_problem.html", blocks = ["title", "description"])]
struct ProblemPage<'a> {
    title: String,
    message: String,
    plan_href: String,
    country_href: String,
    country_name: String,
    /// A form to confirm a changed price.
    confirm: Option<ConfirmPrice>,
    alternatives: Vec<crate::web::shop::PlanCard<'a>>,
}

struct ConfirmPrice {
    csrf_token: String,
    plan_id: String,
    email: String,
    new_price: String,
    new_price_cents: i64,
    /// The promotion code the buyer entered, kept for the second try.
    promo_code: String,
}

pub async fn checkout(
    state: web::Data<AppState>,
    req: HttpRequest,
    form: web::Form<CheckoutFields>,
) -> Result<HttpResponse, AppError> {
    let form = form.into_inner();
    if !csrf::verify_any(
        &req,
        state.settings.accepted_secret_keys(),
        state.secure_cookies,
        &form.csrf_token,
    ) {
        return Err(AppError::Forbidden(i18n::t("form-expired")));
    }
    let client = crate::web::client_addr::client_key(&req);
    let snap = state.catalog.snapshot();
    let plan = snap.plan(&form.plan_id).ok_or(AppError::NotFound)?;
    let cap = state.settings.max_esims_per_order;
    let quantity = Quantity::parse(&form.quantity, cap);
    let rows = form.traveller_rows(cap.get());
    // Whatever goes wrong, the form comes back as it was sent.
    let typed = |email: &str, email_suggestion: Option<&Email>| Typed {
        email: email.to_string(),
        promo_code: form.promo_code.clone(),
        device_confirmed: form.confirm_device.is_some(),
        terms_accepted: form.accept_terms.is_some(),
        email_suggestion: email_suggestion.map(|e| e.as_str().to_string()),
        quantity: quantity.map_or(Quantity::ONE, |q| q),
        travellers: rows.clone(),
        trip_date: form.trip_date.clone(),
        remind_unfinished: form.remind_unfinished.is_some(),
    };
    if !state.checkout_limiter.allow(client) {
        // The form stays, with what was typed: waiting a moment and sending it again works.
        let mut response = render_plan(
            &state,
            &req,
            plan,
            StatusCode::TOO_MANY_REQUESTS,
            typed(&form.email, None),
            vec![FieldError::general(&i18n::t("checkout-too-many"))],
        );
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, header::HeaderValue::from_static("60"));
        return Ok(response);
    }
    // Every problem with the form at once, in the order of its fields.
    let chosen_email = form.use_email.as_deref().unwrap_or(&form.email).trim();
    let email = Email::parse(chosen_email).ok();
    // A likely typo is asked about once: the suggestion taken, or the same address sent again
    // after the question, goes through.
    let suggestion = email
        .as_ref()
        .filter(|e| {
            form.use_email.is_none()
                && form.email_kept.as_deref().map(str::trim) != Some(e.as_str())
        })
        .and_then(Email::suggestion);
    let mut errors = Vec::new();
    if email.is_none() {
        errors.push(FieldError::field(
            "email",
            &i18n::t("checkout-email-invalid"),
        ));
    }
    if let Err(err) = quantity {
        errors.push(FieldError::field(
            "quantity",
            &match err {
                QuantityError::NotANumber => i18n::t("checkout-quantity-not-number"),
                QuantityError::OutOfRange { max } => {
                    i18n::ta("checkout-quantity-range", "max", i64::from(max.get()))
                }
            },
        ));
    }
    // Rows beyond the number of eSIMs chosen are left out (the page hides them with scripts
    // on; without, they stay visible and the hint says so).
    let mut travellers = Vec::new();
    for (n, (name, email)) in (1_u32..).zip(&rows) {
        if quantity.is_ok_and(|q| n > q.get()) {
            break;
        }
        match Traveller::parse(name, email) {
            Ok(traveller) => travellers.push(traveller),
            Err(TravellerError::Name) => errors.push(FieldError::field_owned(
                format!("traveller_name_{n}"),
                &i18n::ta2(
                    "checkout-traveller-name-invalid",
                    "n",
                    i64::from(n),
                    "max",
                    crate::domain::units::NAME_MAX_CHARS,
                ),
            )),
            Err(TravellerError::Email) => errors.push(FieldError::field_owned(
                format!("traveller_email_{n}"),
                &i18n::ta("checkout-traveller-email-invalid", "n", i64::from(n)),
            )),
        }
    }
    let trip = TripAsk::parse(
        &form.trip_date,
        &state.identity.current().time_zone,
        crate::db::now_ms(),
    )
    .unwrap_or_else(|err| {
        errors.push(FieldError::field("trip_date", &i18n::t(err.message_id())));
        None
    });
    if form.confirm_device.is_none() {
        errors.push(FieldError::field(
            "confirm_device",
            &i18n::t("checkout-confirm-device"),
        ));
    }
    let promo_code = match form.promo_code.trim() {
        "" => None,
        raw => match normalise_code(raw) {
            Ok(code) => Some(code),
            Err(_) => {
                errors.push(FieldError::field(
                    "promo_code",
                    &i18n::t("promo-bad-format"),
                ));
                None
            }
        },
    };
    if form.accept_terms.is_none() {
        errors.push(FieldError::field(
            "accept_terms",
            &i18n::t("checkout-accept-terms"),
        ));
    }
    let (Some(email), Ok(quantity)) = (email.filter(|_| errors.is_empty()), quantity) else {
        return Ok(render_plan(
            &state,
            &req,
            plan,
            StatusCode::BAD_REQUEST,
            typed(chosen_email, suggestion.as_ref()),
            errors,
        ));
    };
    if suggestion.is_some() {
        return Ok(render_plan(
            &state,
            &req,
            plan,
            StatusCode::OK,
            typed(email.as_str(), suggestion.as_ref()),
            Vec::new(),
        ));
    }
    let expected_price = match form.expected_price_cents.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(raw) => Some(Cents::new(raw.parse::<i64>().map_err(|_| {
            AppError::BadRequest(i18n::t("checkout-price-not-number"))
        })?)),
    };
    let language = form
        .lang
        .as_deref()
        .and_then(Lang::parse)
        .unwrap_or_else(i18n::current);
    let started = state
        .checkout
        .start(
            &snap,
            CheckoutForm {
                plan_id: plan.id.clone(),
                email: email.clone(),
                expected_price,
                client,
                language,
                promo_code,
                // The terms the buyer was shown: those of the language the page was written in.
                terms: state.legal.terms_consent(language),
                quantity,
                travellers,
                trip,
                remind_unfinished: form.remind_unfinished.is_some(),
                client_country: crate::web::client_addr::client_country(&req),
            },
        )
        .await;
    match started {
        Ok(started) => {
            let cookie = order_cookie(&started.purchase_id, &started.token, state.secure_cookies);
            let mut response = HttpResponse::SeeOther()
                .insert_header((header::LOCATION, started.redirect_url.as_str()))
                .finish();
            let _ = response.add_cookie(&cookie);
            Ok(response)
        }
        // The form again, the code's problem beside its field.
        Err(CheckoutError::Promo(refusal)) => Ok(render_plan(
            &state,
            &req,
            plan,
            StatusCode::CONFLICT,
            typed(email.as_str(), None),
            vec![FieldError::field(
                "promo_code",
                &i18n::t(refusal.message_id()),
            )],
        )),
        Err(err) => problem(&state, &req, plan, email, form.promo_code, err),
    }
}

fn problem(
    state: &AppState,
    req: &HttpRequest,
    plan: &ShopPlan,
    email: Email,
    promo_code: String,
    err: CheckoutError,
) -> Result<HttpResponse, AppError> {
    let snap = state.catalog.snapshot();
    let alternatives = || {
        snap.local_plans(&plan.country_code)
            .into_iter()
            .filter(|p| p.id != plan.id)
            .take(6)
            .map(crate::web::shop::PlanCard::new)
            .collect()
    };
    let lang = i18n::current();
    let (title, message, confirm, alternatives, cookie) = match err {
        CheckoutError::UnknownPlan => return Err(AppError::NotFound),
        CheckoutError::PlanGone => (
            lang.t("problem-gone-title"),
            lang.t("problem-gone"),
            None,
            alternatives(),
            None,
        ),
        CheckoutError::PriceChanged { new_price } => {
            let issued = csrf::issue(req, &state.settings.secret_key, state.secure_cookies);
            (
                lang.t("problem-price-title"),
                lang.ta("problem-price", &[("price", lang.money(new_price).into())]),
                Some(ConfirmPrice {
                    csrf_token: issued.token,
                    plan_id: plan.id.clone(),
                    email: email.as_str().to_string(),
                    new_price: lang.money(new_price),
                    new_price_cents: new_price.get(),
                    promo_code: promo_code.trim().to_string(),
                }),
                Vec::new(),
                issued.cookie,
            )
        }
        CheckoutError::NotSellable => (
            lang.t("problem-not-sellable-title"),
            lang.t("problem-not-sellable"),
            None,
            alternatives(),
            None,
        ),
        CheckoutError::WalletShort => (
            lang.t("temporarily-unavailable"),
            lang.t("problem-wallet-short"),
            None,
            Vec::new(),
            None,
        ),
        CheckoutError::SalesHeld(held) => {
            tracing::warn!(reason = %held, "sale refused: the supplier account is not confirmed");
            (
                lang.t("temporarily-unavailable"),
                lang.t("problem-sales-held"),
                None,
                Vec::new(),
                None,
            )
        }
        CheckoutError::UpstreamUnavailable
        | CheckoutError::RateLimited
        | CheckoutError::Payment(_) => {
            return Err(AppError::Unavailable(err.to_string()));
        }
        CheckoutError::Promo(refusal) => (
            lang.t("promo-problem-title"),
            lang.ta(
                "promo-problem",
                &[("reason", lang.t(refusal.message_id()).into())],
            ),
            None,
            Vec::new(),
            None,
        ),
        CheckoutError::Db(db) => return Err(db.into()),
        CheckoutError::Transition(err) => return Err(err.into()),
    };
    let page = ProblemPage {
        title,
        message,
        plan_href: format!("/plans/{}", plan.id),
        country_href: format!("/countries/{}", plan.country_code),
        country_name: plan.labels_in(lang).name.clone(),
        confirm,
        alternatives,
    };
    Ok(pages::private_page(StatusCode::CONFLICT, &page, cookie))
}

#[derive(Template)]
#[template(path = "payments/demo_pay.html", blocks = ["title", "description"])]
struct DemoPayPage {
    session: String,
    amount: String,
    /// `3 eSIMs × $12.99` when the checkout buys more than one.
    units_line: Option<String>,
    description: String,
    email: String,
    open: bool,
    order_href: String,
    csrf_token: String,
    /// `(code, "CODE: $2.00 off $20.00")` when a promotion code was used.
    promo: Option<(String, String)>,
    /// The amount in the owner's display currencies (what is charged stays USD).
    fx: Vec<crate::domain::currency::DisplayPrice>,
    /// While the shop charges tax: the billing country to choose, and the tax it brings.
    tax: Option<DemoTax>,
}

impl DemoPayPage {
    /// Whether Pay is offered: always without tax, once a country is chosen with it.
    fn ready_to_pay(&self) -> bool {
        self.tax.as_ref().is_none_or(|t| t.chosen.is_some())
    }
}

/// The demo page's tax part: a billing country is chosen first (a plain GET form, so the
/// page works without JavaScript), then the amount with its tax is shown and paid.
struct DemoTax {
    /// `(code, name)` of every country, in the page's language.
    countries: Vec<(&'static str, &'static str)>,
    /// The chosen country's code, once chosen.
    chosen: Option<String>,
    /// `Price before tax` and `Tax 19%` lines, once a country is chosen.
    lines: Vec<(String, String)>,
}

/// The demo page's billing country (`?country=DE`), asked while the shop charges tax.
#[derive(Deserialize)]
pub struct DemoPayQuery {
    #[serde(default)]
    country: Option<String>,
}

/// What the demo page charges for `checkout` with billing country `country`: the price, or
/// (tax on, a country chosen) the price with the tax of the shop's table, and the lines that
/// show it. `None` while tax is on and no valid country is chosen.
async fn demo_amount(
    state: &AppState,
    checkout: &crate::orders::checkout::SessionCheckout,
    country: Option<&str>,
    lang: crate::i18n::Lang,
) -> Result<Option<(Cents, Option<String>, Vec<(String, String)>)>, AppError> {
    use crate::domain::tax::{CountryCode, TaxMode};
    if !checkout.tax.is_on() {
        return Ok(Some((checkout.total, None, Vec::new())));
    }
    let Some(country) = country.and_then(|c| CountryCode::parse(c).ok()) else {
        return Ok(None);
    };
    let quote = state.checkout.tax_quote(checkout, country.clone()).await?;
    let lines = match (quote.rate, checkout.tax) {
        (None, _) => vec![(lang.t("pay-tax-none"), String::new())],
        (Some(rate), TaxMode::Inclusive) => vec![(
            lang.ta("pay-tax-included", &[("rate", rate.to_string().into())]),
            lang.money(quote.split.tax),
        )],
        (Some(rate), _) => vec![
            (lang.t("pay-before-tax"), lang.money(quote.split.net)),
            (
                lang.ta("pay-tax", &[("rate", rate.to_string().into())]),
                lang.money(quote.split.tax),
            ),
        ],
    };
    Ok(Some((
        quote.split.gross,
        Some(country.as_str().to_string()),
        lines,
    )))
}

fn demo_provider(state: &AppState) -> Result<&crate::payments::demo::DemoProvider, AppError> {
    match state.payments.as_ref() {
        Provider::Demo(demo) => Ok(demo),
        Provider::Stripe(_) => Err(AppError::NotFound),
    }
}

pub async fn demo_pay_page(
    state: web::Data<AppState>,
    req: HttpRequest,
    session: web::Path<String>,
    query: web::Query<DemoPayQuery>,
) -> Result<HttpResponse, AppError> {
    let demo = demo_provider(&state)?;
    let session = session.into_inner();
    let checkout = state
        .checkout
        .checkout_for_session(session.clone())
        .await?
        .ok_or(AppError::NotFound)?;
    let purchase = &checkout.first;
    let snap = state.catalog.snapshot();
    let description = snap
        .plan(&purchase.plan_id)
        .map(|p| plan_title(p, i18n::current()))
        .unwrap_or_else(|| purchase.plan_id.clone());
    let issued = csrf::issue(&req, &state.settings.secret_key, state.secure_cookies);
    let lang = i18n::current();
    let quoted = demo_amount(&state, &checkout, query.country.as_deref(), lang).await?;
    let amount = quoted
        .as_ref()
        .map_or(checkout.total, |(amount, _, _)| *amount);
    let tax = checkout.tax.is_on().then(|| {
        let (chosen, lines) = quoted
            .clone()
            .map(|(_, chosen, lines)| (chosen, lines))
            .unwrap_or_default();
        let mut countries: Vec<(&'static str, &'static str)> = crate::domain::countries::ISO_3166_1
            .iter()
            .map(|(code, english)| {
                (
                    *code,
                    crate::domain::countries::name_in(code, lang).unwrap_or(english),
                )
            })
            .collect();
        countries.sort_by(|a, b| a.1.cmp(b.1));
        DemoTax {
            countries,
            chosen,
            lines,
        }
    });
    let page = DemoPayPage {
        amount: lang.money(amount),
        units_line: (checkout.count > 1).then(|| {
            lang.ta(
                "pay-units-line",
                &[
                    ("count", i64::from(checkout.count).into()),
                    ("price", lang.money(purchase.price_cents).into()),
                ],
            )
        }),
        description,
        email: purchase.email.masked(),
        open: demo.is_open(
            &session,
            crate::payments::demo::recorded_state(purchase.status),
            SystemTime::now(),
        ),
        order_href: format!("/orders/{}", purchase.id),
        csrf_token: issued.token,
        promo: promo_line(purchase),
        fx: snap.display_prices(amount, lang),
        tax,
        session,
    };
    Ok(pages::private_page(StatusCode::OK, &page, issued.cookie))
}

#[derive(Deserialize)]
pub struct DemoPayForm {
    #[serde(default)]
    csrf_token: String,
    /// The billing country the page carried over (while the shop charges tax).
    #[serde(default)]
    billing_country: Option<String>,
}

/// Pay or Decline on the demo page: a signed event goes through the same verification and
/// handling as a provider webhook, then the consumer returns to the order page.
pub async fn demo_pay_action(
    state: web::Data<AppState>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    // A body that is not a form has no token: it gets the CSRF answer (403), not a 400.
    form: Option<web::Form<DemoPayForm>>,
) -> Result<HttpResponse, AppError> {
    let demo = demo_provider(&state)?;
    let (token, billing_country) = form
        .map(|f| {
            let f = f.into_inner();
            (f.csrf_token, f.billing_country)
        })
        .unwrap_or_default();
    if !csrf::verify_any(
        &req,
        state.settings.accepted_secret_keys(),
        state.secure_cookies,
        &token,
    ) {
        return Err(AppError::Forbidden(i18n::t("form-expired")));
    }
    let (session, action) = path.into_inner();
    let answer = crate::payments::demo::DemoAnswer::parse(&action).ok_or(AppError::NotFound)?;
    let checkout = state
        .checkout
        .checkout_for_session(session.clone())
        .await?
        .ok_or(AppError::NotFound)?;
    let purchase = &checkout.first;
    let now = SystemTime::now();
    let lang = i18n::current();
    // While the shop charges tax, a payment names its billing country and pays the tax the
    // table gives it; Decline needs none.
    let (amount, country) = match (
        answer,
        demo_amount(&state, &checkout, billing_country.as_deref(), lang).await?,
    ) {
        (_, Some((amount, country, _))) => (amount, country),
        (crate::payments::demo::DemoAnswer::Decline, None) => (checkout.total, None),
        (crate::payments::demo::DemoAnswer::Pay, None) => {
            return Err(AppError::BadRequest(lang.t("pay-country-needed")));
        }
    };
    // A settled session answers 409 here, before any event exists.
    let (signature, body) = demo.settle(
        &session,
        answer,
        &purchase.id,
        amount,
        country.as_deref(),
        crate::payments::demo::recorded_state(purchase.status),
        now,
    )?;
    if let Err(err) = deliver_event(&state, Some(&signature), &body, now).await {
        demo.reopen(&session);
        return Err(err);
    }
    Ok(HttpResponse::SeeOther()
        .insert_header((header::LOCATION, format!("/orders/{}", purchase.id)))
        .finish())
}

/// Verifies and applies one provider event: the webhook endpoint and the demo page share it.
pub async fn deliver_event(
    state: &AppState,
    signature: Option<&str>,
    body: &[u8],
    now: SystemTime,
) -> Result<confirm::Applied, AppError> {
    let waker = state.outbox.waker();
    Ok(confirm::deliver(&state.orders, &state.payments, &waker, signature, body, now).await?)
}
