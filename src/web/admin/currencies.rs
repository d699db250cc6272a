//! `/admin/currencies` (owners): display-only exchange rates for a short list of currencies.
//! Consumer pages show each price also as "≈ €23.40" with the rate's date; what is charged
//! stays in USD. The rules are `catalog::display_rates` and `domain::currency`.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, web};
use askama::Template;
use serde::Deserialize;

use super::{
    AdminPage, Confirmable, CsrfForm, CurrentAdmin, NoFields, Question, client_addr, console_page,
    require_owner, see_other,
};
use crate::catalog::display_rates;
use crate::domain::Cents;
use crate::domain::currency::{CURRENCIES, Rate, parse_rate, symbol};
use crate::web::AppState;
use crate::web::error::AppError;
use crate::web::filters;

#[derive(Deserialize, Default, Clone)]
pub struct RateForm {
    #[serde(default)]
    currency: String,
    /// Units of the currency per US dollar, like `0.9245`.
    #[serde(default)]
    rate: String,
    /// `YYYY-MM-DD`, the day the rate was quoted.
    #[serde(default)]
    date: String,
}

struct CurrencyView {
    code: &'static str,
    /// `0.924500`, empty when no rate is set.
    rate: String,
    date: String,
    updated_at_ms: Option<i64>,
    /// What $10.00 shows as.
    example: String,
}

#[derive(Template)]
#[template(path = "admin/currencies.html")]
struct CurrenciesPage {
    currencies: Vec<CurrencyView>,
    form: RateForm,
    error: Option<String>,
    saved: bool,
}

console_page!(CurrenciesPage => "currencies");

#[derive(Deserialize)]
pub struct PageQuery {
    saved: Option<String>,
}

impl CurrenciesPage {
    async fn load(
        state: &AppState,
        form: RateForm,
        error: Option<String>,
    ) -> Result<Self, AppError> {
        let rows = display_rates::list(&state.catalog).await?;
        let currencies = CURRENCIES
            .iter()
            .map(|(code, _)| {
                let row = rows.iter().find(|r| r.currency == *code);
                let rate = row.and_then(|r| Rate::new(code, r.micros_per_usd, &r.rate_date).ok());
                CurrencyView {
                    code,
                    rate: rate.as_ref().map(Rate::rate_text).unwrap_or_default(),
                    date: rate
                        .as_ref()
                        .map(|r| r.date().to_string())
                        .unwrap_or_default(),
                    updated_at_ms: row.map(|r| r.updated_at_ms),
                    example: rate
                        .as_ref()
                        .map(|r| r.show(Cents::new(1_000)).text)
                        .unwrap_or_default(),
                }
            })
            .collect();
        Ok(Self {
            currencies,
            form,
            error,
            saved: false,
        })
    }
}

pub async fn page(
    state: web::Data<AppState>,
    CurrentAdmin(admin): CurrentAdmin,
    query: web::Query<PageQuery>,
) -> Result<AdminPage, AppError> {
    require_owner(&admin)?;
    let page = CurrenciesPage::load(&state, RateForm::default(), None).await?;
    Ok(AdminPage::new(CurrenciesPage {
        saved: query.saved.is_some(),
        ..page
    }))
}

pub async fn set(
    state: web::Data<AppState>,
    req: HttpRequest,
    CurrentAdmin(admin): CurrentAdmin,
    CsrfForm(form): CsrfForm<RateForm>,
) -> Result<AdminPage, AppError> {
    require_owner(&admin)?;
    let rate =
        parse_rate(&form.rate).and_then(|micros| Rate::new(&form.currency, micros, &form.date));
    match rate {
        Ok(rate) => {
            display_rates::set(&state.catalog, &admin, &client_addr(&req), rate).await?;
            Ok(see_other("/admin/currencies?saved=1").into())
        }
        Err(err) => {
            let message = super::refused(err, "Nothing was saved.");
            let page = CurrenciesPage::load(&state, form, Some(message)).await?;
            Ok(AdminPage::with_status(StatusCode::BAD_REQUEST, page))
        }
    }
}

pub async fn clear(
    state: web::Data<AppState>,
    req: HttpRequest,
    CurrentAdmin(admin): CurrentAdmin,
    currency: web::Path<String>,
    form: Confirmable<NoFields>,
) -> Result<AdminPage, AppError> {
    require_owner(&admin)?;
    let code = currency.into_inner().to_ascii_uppercase();
    if symbol(&code).is_none() {
        return Err(AppError::NotFound);
    }
    if let Err(ask) = form.confirmed(Question {
        title: format!("Clear the {code} rate?"),
        consequence: format!(
            "Prices stop showing in {code} at once; travellers who chose it see US dollars. To show {code} again, save a rate again."
        ),
        button: "Clear the rate",
        back: "/admin/currencies".to_string(),
    }) {
        return Ok(*ask);
    }
    if !display_rates::clear(&state.catalog, &admin, &client_addr(&req), code).await? {
        return Err(AppError::NotFound);
    }
    Ok(see_other("/admin/currencies?saved=1").into())
}
