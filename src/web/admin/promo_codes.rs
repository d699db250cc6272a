//! `/admin/promo-codes` (owners): the promotion codes with their uses, a form to create one
//! and a button to disable (or enable again) each; `/admin/promo-codes/{code}` changes a code's
//! last day and caps. A code that would sell a plan in its scope below cost plus
//! the minimum margin is refused with the list of those plans. The rules are
//! `catalog::promo_codes`.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use serde::Deserialize;

use super::pricing::{Named, hundredths, named_scope, scope_suggestions};
use super::{
    AdminPage, CsrfForm, CurrentAdmin, NoFields, client_addr, console_page, format_ms, refusal,
    require_owner, see_other,
};
use crate::catalog::Snapshot;
use crate::catalog::promo_codes::{self, Limits, NewCode, PromoCodeError};
use crate::domain::Cents;
use crate::domain::promo::{Discount, PromoScope, normalise_code};
use crate::web::AppState;
use crate::web::error::AppError;

#[derive(Deserialize, Default, Clone)]
pub struct CodeForm {
    #[serde(default)]
    code: String,
    /// `percent` or `amount`.
    #[serde(default)]
    kind: String,
    /// `10` or `12.5` (percent), `5.00` (dollars).
    #[serde(default)]
    value: String,
    /// `YYYY-MM-DD` (UTC), empty for now.
    #[serde(default)]
    starts: String,
    /// The last day it may be used, `YYYY-MM-DD` (UTC), empty for no end.
    #[serde(default)]
    ends: String,
    #[serde(default)]
    max_uses: String,
    #[serde(default)]
    max_uses_per_email: String,
    /// `all`, `country`, `region` or `plan`.
    #[serde(default)]
    scope_kind: String,
    #[serde(default)]
    scope_value: String,
}

const DAY_MS: i64 = 86_400_000;

/// Midnight UTC at the start of `YYYY-MM-DD`, in Unix milliseconds.
fn day_start_ms(raw: &str) -> Option<i64> {
    let day = crate::domain::currency::parse_date(raw).ok()?;
    let date = time::Date::parse(
        &day,
        &time::macros::format_description!("[year]-[month]-[day]"),
    )
    .ok()?;
    let secs = date.midnight().assume_utc().unix_timestamp();
    secs.checked_mul(1000)
}

/// `YYYY-MM-DD` (UTC) of the day that ends at the exclusive end `end_ms`: the last day a code
/// may be used, as the forms ask for it.
fn last_day(end_ms: i64) -> String {
    let secs = end_ms.saturating_sub(DAY_MS).div_euclid(1000);
    time::OffsetDateTime::from_unix_timestamp(secs)
        .map(|t| {
            t.date()
                .format(&time::macros::format_description!("[year]-[month]-[day]"))
                .unwrap_or_default()
        })
        .unwrap_or_default()
}

/// The exclusive end of the last day `raw` (`YYYY-MM-DD`, UTC; empty for no end).
fn parse_last_day(raw: &str) -> Result<Option<i64>, String> {
    match raw.trim() {
        "" => Ok(None),
        raw => Ok(Some(
            day_start_ms(raw).ok_or("The last day is a date like 2026-12-31.")? + DAY_MS,
        )),
    }
}

/// The code a console address names; one that cannot be a code is not found.
fn code_in_path(raw: &str) -> Result<String, AppError> {
    normalise_code(raw).map_err(|_| AppError::NotFound)
}

fn optional_count(raw: &str, what: &str) -> Result<Option<i64>, String> {
    match raw.trim() {
        "" => Ok(None),
        text => match text.parse::<i64>() {
            Ok(n) if n > 0 => Ok(Some(n)),
            _ => Err(format!(
                "{what} is a whole number of uses, 1 or more, or empty for no cap."
            )),
        },
    }
}

/// The code a form describes; `Err` says what to fix.
fn parse_code(form: &CodeForm, snap: &Snapshot, now_ms: i64) -> Result<NewCode, String> {
    let code = normalise_code(&form.code)
        .map_err(|_| "The code is 3 to 32 letters, digits, '-' or '_'.".to_string())?;
    let amount =
        hundredths(&form.value).ok_or("The discount is a number like 10, 12.5 or 5.00.")?;
    let discount = match form.kind.as_str() {
        "percent" => Discount::percent(amount).map_err(|_| "A percentage is 0.01 to 100.")?,
        "amount" => Discount::amount(Cents::new(amount))
            .map_err(|_| "An amount off is 0.01 to 10000.00 dollars.")?,
        _ => return Err("Choose a percentage or an amount off.".into()),
    };
    let starts_at_ms = match form.starts.trim() {
        "" => now_ms,
        raw => day_start_ms(raw).ok_or("The first day is a date like 2026-12-01.")?,
    };
    let ends_at_ms = parse_last_day(&form.ends)?;
    if ends_at_ms.is_some_and(|end| end <= starts_at_ms) {
        return Err("The last day comes before the first.".into());
    }
    let named = named_scope(
        snap,
        &form.scope_kind,
        &form.scope_value,
        "all",
        "Choose which plans the code applies to.",
    )?;
    let scope = match named {
        None => PromoScope::All,
        Some(Named::Country(code)) => PromoScope::Country(code),
        Some(Named::Region(slug)) => PromoScope::Region(slug),
        Some(Named::Plan(id)) => PromoScope::Plan(id),
    };
    Ok(NewCode {
        code,
        discount,
        starts_at_ms,
        ends_at_ms,
        max_uses: optional_count(&form.max_uses, "The total cap")?,
        max_uses_per_email: optional_count(&form.max_uses_per_email, "The cap per email")?,
        scope,
    })
}

struct CodeView {
    code: String,
    discount: String,
    scope: String,
    window: String,
    used: i64,
    cap: String,
    per_email: String,
    reserved: i64,
    status: &'static str,
    enabled: bool,
}

fn view(c: promo_codes::CodeSummary) -> CodeView {
    CodeView {
        window: format!(
            "{} → {}",
            format_ms(c.row.starts_at_ms),
            c.row.ends_at_ms.map_or_else(|| "no end".into(), format_ms)
        ),
        cap: c
            .row
            .max_uses
            .map_or_else(|| "no cap".into(), |n| n.to_string()),
        per_email: c
            .row
            .max_uses_per_email
            .map_or_else(|| "no cap".into(), |n| n.to_string()),
        used: c.row.used_count,
        reserved: c.reserved,
        status: if c.row.disabled_at_ms.is_some() {
            "disabled"
        } else if c.active {
            "active"
        } else {
            "outside its dates"
        },
        enabled: c.row.disabled_at_ms.is_none(),
        code: c.row.code,
        discount: c.discount,
        scope: c.scope,
    }
}

#[derive(Template)]
#[template(path = "admin/promo_codes.html")]
struct PromoCodesPage {
    codes: Vec<CodeView>,
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

impl CodeForm {
    /// The empty form for a new code.
    fn new_code() -> Self {
        Self {
            kind: "percent".into(),
            scope_kind: "all".into(),
            ..Self::default()
        }
    }
}

impl PromoCodesPage {
    /// The codes with `form` as typed and `error` beside it.
    async fn load(
        state: &AppState,
        form: CodeForm,
        error: Option<String>,
    ) -> Result<Self, AppError> {
        let codes = promo_codes::list(&state.catalog).await?;
        Ok(Self {
            codes: codes.into_iter().map(view).collect(),
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

/// The edit form: what may change on an existing code.
#[derive(Deserialize, Default, Clone)]
pub struct LimitsForm {
    /// The last day it may be used, `YYYY-MM-DD` (UTC), empty for no end.
    #[serde(default)]
    ends: String,
    #[serde(default)]
    max_uses: String,
    #[serde(default)]
    max_uses_per_email: String,
}

impl LimitsForm {
    fn parse(&self) -> Result<Limits, String> {
        Ok(Limits {
            ends_at_ms: parse_last_day(&self.ends)?,
            max_uses: optional_count(&self.max_uses, "The total cap")?,
            max_uses_per_email: optional_count(&self.max_uses_per_email, "The cap per email")?,
        })
    }
}

#[derive(Template)]
#[template(path = "admin/promo_code.html")]
struct PromoCodePage {
    code: CodeView,
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
    let form = form.unwrap_or_else(|| LimitsForm {
        ends: summary.row.ends_at_ms.map(last_day).unwrap_or_default(),
        max_uses: summary
            .row
            .max_uses
            .map(|n| n.to_string())
            .unwrap_or_default(),
        max_uses_per_email: summary
            .row
            .max_uses_per_email
            .map(|n| n.to_string())
            .unwrap_or_default(),
    });
    Ok(PromoCodePage {
        code: view(summary),
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
    _: CsrfForm<NoFields>,
) -> Result<HttpResponse, AppError> {
    require_owner(&admin)?;
    let code = code_in_path(&code)?;
    promo_codes::disable(&state.catalog, &admin, &client_addr(&req), code).await?;
    Ok(see_other("/admin/promo-codes?saved=1"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_are_utc_midnights() {
        assert_eq!(day_start_ms("1970-01-02"), Some(DAY_MS));
        assert_eq!(day_start_ms("2026-02-30"), None);
        assert_eq!(optional_count("", "cap"), Ok(None));
        assert_eq!(optional_count(" 5 ", "cap"), Ok(Some(5)));
        assert!(optional_count("0", "cap").is_err());
        assert_eq!(
            last_day(day_start_ms("2026-12-31").expect("day") + DAY_MS),
            "2026-12-31"
        );
        assert_eq!(parse_last_day(""), Ok(None));
        assert_eq!(
            parse_last_day("1970-01-01"),
            Ok(Some(DAY_MS)),
            "the end is the midnight after the last day"
        );
    }
}
