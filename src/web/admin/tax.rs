//! `/admin/tax` (owners): whether the shop charges tax and how its prices relate to it, and
//! the rate per customer country used with payment providers that do not compute tax
//! themselves. The rules are `orders::tax` and `domain::tax`.

use actix_web::http::{StatusCode, header};
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use serde::Deserialize;

use super::{
    AdminPage, CsrfForm, CurrentAdmin, NoFields, SavedQuery, client_addr, console_page,
    require_owner, see_other,
};
use crate::books::csv;
use crate::domain::tax::{Quarter, TaxMode};
use crate::orders::tax::{self, TaxSettingError, mode_words};
use crate::payments::PaymentProvider;
use crate::web::AppState;
use crate::web::error::AppError;
use crate::web::filters;

#[derive(Deserialize, Default, Clone)]
pub struct ModeForm {
    #[serde(default)]
    mode: String,
}

#[derive(Deserialize, Default, Clone)]
pub struct RateForm {
    #[serde(default)]
    country: String,
    /// A percentage: `19`, `7.7`.
    #[serde(default)]
    rate: String,
}

struct RateView {
    code: String,
    name: &'static str,
    rate: String,
    updated_at_ms: i64,
}

#[derive(Template)]
#[template(path = "admin/tax.html")]
struct TaxPage {
    mode: &'static str,
    mode_words: &'static str,
    is_stripe: bool,
    rates: Vec<RateView>,
    form: RateForm,
    mode_error: Option<String>,
    rate_error: Option<String>,
    saved: Option<&'static str>,
}

console_page!(TaxPage => "tax");

impl TaxPage {
    async fn load(state: &AppState) -> Result<Self, AppError> {
        let settings = tax::settings(&state.orders).await?;
        Ok(Self {
            mode: settings.mode.as_str(),
            mode_words: mode_words(settings.mode),
            is_stripe: state.payments.name() == "stripe",
            rates: settings
                .rates
                .into_iter()
                .map(|(country, rate, updated_at_ms)| RateView {
                    name: country.name(),
                    code: country.as_str().to_string(),
                    rate: rate.to_string(),
                    updated_at_ms,
                })
                .collect(),
            form: RateForm::default(),
            mode_error: None,
            rate_error: None,
            saved: None,
        })
    }

    fn is_mode(&self, mode: &str) -> bool {
        self.mode == mode
    }

    fn modes(&self) -> [(&'static str, &'static str, &'static str); 3] {
        [
            (
                TaxMode::Off.as_str(),
                "No tax",
                "The shop charges and records no tax. Receipts say no tax was charged.",
            ),
            (
                TaxMode::Inclusive.as_str(),
                "Prices include tax",
                "Customers pay the price shown. The tax is worked out of it and shown on the receipt.",
            ),
            (
                TaxMode::Exclusive.as_str(),
                "Tax added on top",
                "The price shown is before tax. The tax of the customer's country is added when they pay.",
            ),
        ]
    }
}

pub async fn page(
    state: web::Data<AppState>,
    CurrentAdmin(admin): CurrentAdmin,
    query: web::Query<SavedQuery>,
) -> Result<AdminPage, AppError> {
    require_owner(&admin)?;
    let mut page = TaxPage::load(&state).await?;
    page.saved = query.notice(&[
        (
            "mode",
            "Saved. New checkouts use this setting now; checkouts already started keep theirs.",
        ),
        ("rate", "Rate saved. New checkouts use it now."),
        ("removed", "Rate removed."),
    ]);
    Ok(AdminPage::new(page))
}

/// A refused form: the page again, 400, with the message by its field.
async fn refused(
    state: &AppState,
    err: TaxSettingError,
    form: Option<RateForm>,
) -> Result<AdminPage, AppError> {
    let reason = match err {
        TaxSettingError::Invalid(reason) => reason,
        TaxSettingError::Database(db) => return Err(db.into()),
    };
    let mut page = TaxPage::load(state).await?;
    let message = super::refused(&reason, "Nothing was saved.");
    match form {
        Some(form) => {
            page.form = form;
            page.rate_error = Some(message);
        }
        None => page.mode_error = Some(message),
    }
    Ok(AdminPage::with_status(StatusCode::BAD_REQUEST, page))
}

pub async fn set_mode(
    state: web::Data<AppState>,
    req: HttpRequest,
    CurrentAdmin(admin): CurrentAdmin,
    CsrfForm(form): CsrfForm<ModeForm>,
) -> Result<AdminPage, AppError> {
    require_owner(&admin)?;
    match tax::set_mode(&state.orders, &admin, &client_addr(&req), &form.mode).await {
        Ok(()) => Ok(see_other("/admin/tax?saved=mode").into()),
        Err(err) => refused(&state, err, None).await,
    }
}

pub async fn set_rate(
    state: web::Data<AppState>,
    req: HttpRequest,
    CurrentAdmin(admin): CurrentAdmin,
    CsrfForm(form): CsrfForm<RateForm>,
) -> Result<AdminPage, AppError> {
    require_owner(&admin)?;
    match tax::set_rate(
        &state.orders,
        &admin,
        &client_addr(&req),
        &form.country,
        &form.rate,
    )
    .await
    {
        Ok(_) => Ok(see_other("/admin/tax?saved=rate#rates").into()),
        Err(err) => refused(&state, err, Some(form)).await,
    }
}

pub async fn remove_rate(
    state: web::Data<AppState>,
    req: HttpRequest,
    CurrentAdmin(admin): CurrentAdmin,
    country: web::Path<String>,
    CsrfForm(_): CsrfForm<NoFields>,
) -> Result<AdminPage, AppError> {
    require_owner(&admin)?;
    match tax::remove_rate(&state.orders, &admin, &client_addr(&req), &country).await {
        Ok(true) => Ok(see_other("/admin/tax?saved=removed#rates").into()),
        Ok(false) | Err(TaxSettingError::Invalid(_)) => Err(AppError::NotFound),
        Err(TaxSettingError::Database(db)) => Err(db.into()),
    }
}

struct ReportLineView {
    country: String,
    rate: String,
    taxable: String,
    tax: String,
    credited_tax: String,
}

#[derive(Template)]
#[template(path = "admin/tax_report.html")]
struct TaxReportPage {
    quarter: String,
    previous: String,
    lines: Vec<ReportLineView>,
    taxable: String,
    tax: String,
    credited_tax: String,
}

console_page!(TaxReportPage => "tax");

#[derive(Deserialize)]
pub struct QuarterQuery {
    quarter: Option<String>,
}

impl QuarterQuery {
    /// The quarter asked for, this quarter when none is.
    fn quarter(&self) -> Result<Quarter, AppError> {
        match self.quarter.as_deref().filter(|q| !q.trim().is_empty()) {
            None => Ok(Quarter::containing(crate::db::now_ms())),
            Some(raw) => Quarter::parse(raw).ok_or_else(|| {
                AppError::BadRequest(
                    "Quarter: write it as the year and the quarter, like 2026-Q4.".to_string(),
                )
            }),
        }
    }
}

/// A country's name and code in the owner's words; "Not reported" when unknown.
fn country_words(country: Option<&str>) -> String {
    match country {
        Some(code) => match crate::domain::countries::name(code) {
            Some(name) => format!("{name} ({code})"),
            None => code.to_string(),
        },
        None => "Not reported".to_string(),
    }
}

pub async fn report(
    state: web::Data<AppState>,
    CurrentAdmin(admin): CurrentAdmin,
    query: web::Query<QuarterQuery>,
) -> Result<AdminPage, AppError> {
    require_owner(&admin)?;
    let quarter = query.quarter()?;
    let report = tax::quarter_report(&state.orders, quarter).await?;
    Ok(AdminPage::new(TaxReportPage {
        quarter: quarter.to_string(),
        previous: quarter.previous().to_string(),
        lines: report
            .lines
            .iter()
            .map(|line| ReportLineView {
                country: country_words(line.country.as_deref()),
                rate: line
                    .rate
                    .map_or_else(|| "Not reported".to_string(), |r| r.to_string()),
                taxable: line.taxable().to_string(),
                tax: line.tax().to_string(),
                credited_tax: line.credited_tax.to_string(),
            })
            .collect(),
        taxable: report.taxable().to_string(),
        tax: report.tax().to_string(),
        credited_tax: report.credited_tax().to_string(),
    }))
}

pub async fn report_csv(
    state: web::Data<AppState>,
    CurrentAdmin(admin): CurrentAdmin,
    query: web::Query<QuarterQuery>,
) -> Result<HttpResponse, AppError> {
    require_owner(&admin)?;
    let quarter = query.quarter()?;
    let report = tax::quarter_report(&state.orders, quarter).await?;
    let name = quarter.to_string();
    let mut body = String::from(csv::TAX_REPORT_HEADER);
    for line in &report.lines {
        body.push_str(&csv::tax_report_row(&name, line));
    }
    let mut response = HttpResponse::Ok()
        .content_type("text/csv; charset=utf-8")
        .insert_header((
            header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"tax-{name}.csv\""),
        ))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .body(body);
    response.headers_mut().insert(
        header::CONTENT_ENCODING,
        header::HeaderValue::from_static("identity"),
    );
    Ok(response)
}
