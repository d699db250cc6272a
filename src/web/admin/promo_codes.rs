//! `/admin/promo-codes` (owners): the promotion codes with their uses, a form to create one
//! and a button to disable (or enable again) each; `/admin/promo-codes/{code}` changes a code's
//! last day and caps. A code that would sell a plan in its scope below cost plus
//! the minimum margin is refused with the list of those plans. The rules are
//! `catalog::promo_codes`.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, web};
use askama::Template;
use serde::Deserialize;

use super::{
    AdminPage, Confirmable, CsrfForm, CurrentAdmin, NoFields, Question, client_addr, console_page,
    refusal, require_owner, see_other,
};
use crate::catalog::named::scope_suggestions;
use crate::catalog::promo_codes::{self, CodeForm, LimitsForm, PromoCodeError, parse_code};
use crate::domain::promo::normalise_code;
use crate::web::error::AppError;
use crate::web::{AppState, filters};

/// The code a console address names; one that cannot be a code is not found.
fn code_in_path(raw: &str) -> Result<String, AppError> {
    normalise_code(raw).map_err(|_| AppError::NotFound)
}

#[derive(Template)]
#[template(path = "admin/promo_codes.html")]
struct PromoCodesPage {
    codes: Vec<promo_codes::CodeSummary>,
    form: CodeForm,
    error: Option<String>,
    saved: bool,
    suggestions: Vec<(String, String)>,
    min_margin: String,
}

#[derive(Deserialize)]
pub struct PageQuery {
    saved: Option<String>,
}

console_page!(PromoCodesPage => "promo", PromoCodePage => "promo");

impl PromoCodesPage {
    /// The codes with `form` as typed and `error` beside it.
    async fn load(
        state: &AppState,
        form: CodeForm,
        error: Option<String>,
    ) -> Result<Self, AppError> {
        let codes = promo_codes::list(&state.catalog).await?;
        Ok(Self {
            codes,
            form,
            error,
            saved: false,
            suggestions: scope_suggestions(&state.catalog.snapshot()),
            min_margin: state.settings.min_margin.to_string(),
        })
    }
}

pub async fn page(
    state: web::Data<AppState>,
    CurrentAdmin(admin): CurrentAdmin,
    query: web::Query<PageQuery>,
) -> Result<AdminPage, AppError> {
    require_owner(&admin)?;
    Ok(AdminPage::new(PromoCodesPage {
        saved: query.saved.is_some(),
        ..PromoCodesPage::load(&state, CodeForm::new_code(), None).await?
    }))
}

pub async fn create(
    state: web::Data<AppState>,
    req: HttpRequest,
    CurrentAdmin(admin): CurrentAdmin,
    CsrfForm(form): CsrfForm<CodeForm>,
) -> Result<AdminPage, AppError> {
    require_owner(&admin)?;
    let snap = state.catalog.snapshot();
    let new = match parse_code(&form, &snap, crate::db::now_ms()) {
        Ok(new) => new,
        Err(message) => {
            let page = PromoCodesPage::load(&state, form, Some(message)).await?;
            return Ok(AdminPage::with_status(StatusCode::BAD_REQUEST, page));
        }
    };
    let created = promo_codes::create(
        &state.catalog,
        &snap,
        &admin,
        &client_addr(&req),
        new,
        state.settings.min_margin,
    )
    .await;
    match created {
        Ok(()) => Ok(see_other("/admin/promo-codes?saved=1").into()),
        Err(
            err @ (PromoCodeError::BelowFloor(_)
            | PromoCodeError::EmptyScope(_)
            | PromoCodeError::Exists(_)),
        ) => {
            let (status, message) = refusal(err)?;
            let page = PromoCodesPage::load(&state, form, Some(message)).await?;
            Ok(AdminPage::with_status(status, page))
        }
        Err(err) => Err(err.into()),
    }
}

#[derive(Template)]
#[template(path = "admin/promo_code.html")]
struct PromoCodePage {
    code: promo_codes::CodeSummary,
    form: LimitsForm,
    error: Option<String>,
}

/// The edit page of `code` with `form` in its fields (the code's own limits without one).
async fn edit_page_of(
    state: &AppState,
    code: &str,
    form: Option<LimitsForm>,
    error: Option<String>,
) -> Result<PromoCodePage, AppError> {
    let summary = promo_codes::list(&state.catalog)
        .await?
        .into_iter()
        .find(|c| c.row.code == code)
        .ok_or(AppError::NotFound)?;
    let form = form.unwrap_or_else(|| LimitsForm::of(&summary.row));
    Ok(PromoCodePage {
        code: summary,
        form,
        error,
    })
}

pub async fn edit_page(
    state: web::Data<AppState>,
    CurrentAdmin(admin): CurrentAdmin,
    code: web::Path<String>,
) -> Result<AdminPage, AppError> {
    require_owner(&admin)?;
    let code = code_in_path(&code)?;
    Ok(AdminPage::new(
        edit_page_of(&state, &code, None, None).await?,
    ))
}

pub async fn change(
    state: web::Data<AppState>,
    req: HttpRequest,
    CurrentAdmin(admin): CurrentAdmin,
    code: web::Path<String>,
    CsrfForm(form): CsrfForm<LimitsForm>,
) -> Result<AdminPage, AppError> {
    require_owner(&admin)?;
    let code = code_in_path(&code)?;
    let refused = match form.parse() {
        Ok(limits) => {
            let changed = promo_codes::change_limits(
                &state.catalog,
                &admin,
                &client_addr(&req),
                code.clone(),
                limits,
            )
            .await;
            match changed {
                Ok(()) => return Ok(see_other("/admin/promo-codes?saved=1").into()),
                Err(
                    err @ (PromoCodeError::EndsBeforeStart | PromoCodeError::CapBelowUses { .. }),
                ) => refusal(err)?,
                Err(err) => return Err(err.into()),
            }
        }
        Err(message) => (StatusCode::BAD_REQUEST, message),
    };
    let (status, message) = refused;
    let page = edit_page_of(&state, &code, Some(form), Some(message)).await?;
    Ok(AdminPage::with_status(status, page))
}

pub async fn enable(
    state: web::Data<AppState>,
    req: HttpRequest,
    CurrentAdmin(admin): CurrentAdmin,
    code: web::Path<String>,
    _: CsrfForm<NoFields>,
) -> Result<AdminPage, AppError> {
    require_owner(&admin)?;
    let code = code_in_path(&code)?;
    let snap = state.catalog.snapshot();
    let enabled = promo_codes::enable(
        &state.catalog,
        &snap,
        &admin,
        &client_addr(&req),
        code,
        state.settings.min_margin,
    )
    .await;
    match enabled {
        Ok(()) => Ok(see_other("/admin/promo-codes?saved=1").into()),
        Err(err @ (PromoCodeError::BelowFloor(_) | PromoCodeError::NotDisabled(_))) => {
            let (status, message) = refusal(err)?;
            let page = PromoCodesPage::load(&state, CodeForm::new_code(), Some(message)).await?;
            Ok(AdminPage::with_status(status, page))
        }
        Err(err) => Err(err.into()),
    }
}

pub async fn disable(
    state: web::Data<AppState>,
    req: HttpRequest,
    CurrentAdmin(admin): CurrentAdmin,
    code: web::Path<String>,
    form: Confirmable<NoFields>,
) -> Result<AdminPage, AppError> {
    require_owner(&admin)?;
    let code = code_in_path(&code)?;
    if let Err(ask) = form.confirmed(Question {
        title: format!("Disable the promotion code {code}?"),
        consequence: "Checkouts refuse it from now on; receipts and the books keep naming it. You can enable it again later.".to_string(),
        button: "Disable the code",
        back: format!("/admin/promo-codes/{code}"),
    }) {
        return Ok(*ask);
    }
    promo_codes::disable(&state.catalog, &admin, &client_addr(&req), code).await?;
    Ok(see_other("/admin/promo-codes?saved=1").into())
}
