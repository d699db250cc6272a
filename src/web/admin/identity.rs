//! `/admin/identity` (owners): the shop's name, accent colour, logo, contact and company
//! details, as customers see them on every page and email. The rules are `shop::identity` and
//! `domain::brand`.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, web};
use askama::Template;
use serde::Deserialize;

use super::{
    AdminPage, Confirmable, CsrfForm, CsrfUpload, CurrentAdmin, NoFields, Question, SavedQuery,
    client_addr, console_page, require_owner, see_other,
};
use crate::domain::brand::{AA_CONTRAST, Logo, MAX_LOGO_BYTES};
use crate::shop::{IdentityError, IdentityForm};
use crate::web::AppState;
use crate::web::error::AppError;

#[derive(Template)]
#[template(path = "admin/identity.html")]
struct IdentityPage {
    form: IdentityForm,
    logo_href: Option<String>,
    error: Option<String>,
    logo_error: Option<String>,
    /// The console's time zone name and every name to choose from.
    time_zone: String,
    zones: Vec<String>,
    zone_error: Option<String>,
    saved: Option<&'static str>,
}

console_page!(IdentityPage => "identity");

impl IdentityPage {
    fn new(state: &AppState, form: Option<IdentityForm>) -> Self {
        let identity = state.identity.current();
        Self {
            form: form.unwrap_or_else(|| identity.form()),
            logo_href: identity.logo_href(),
            error: None,
            logo_error: None,
            time_zone: identity.time_zone.name().to_string(),
            zones: crate::domain::clock::ConsoleZone::all_names(),
            zone_error: None,
            saved: None,
        }
    }

    fn max_logo_kb(&self) -> usize {
        MAX_LOGO_BYTES / 1024
    }

    fn min_contrast(&self) -> f64 {
        AA_CONTRAST
    }
}

pub async fn page(
    state: web::Data<AppState>,
    CurrentAdmin(admin): CurrentAdmin,
    query: web::Query<SavedQuery>,
) -> Result<AdminPage, AppError> {
    require_owner(&admin)?;
    let mut page = IdentityPage::new(&state, None);
    page.saved = query.notice(&[
        (
            "details",
            "Saved. Every page and new email shows the new details now.",
        ),
        ("logo", "Logo saved. The header shows it now."),
        ("logo-removed", "Logo removed."),
        (
            "time-zone",
            "Time zone saved. Console pages show their times in it now.",
        ),
    ]);
    Ok(AdminPage::new(page))
}

pub async fn save(
    state: web::Data<AppState>,
    req: HttpRequest,
    CurrentAdmin(admin): CurrentAdmin,
    CsrfForm(form): CsrfForm<IdentityForm>,
) -> Result<AdminPage, AppError> {
    require_owner(&admin)?;
    match state.identity.save(&admin, &client_addr(&req), &form).await {
        Ok(()) => Ok(see_other("/admin/identity?saved=details").into()),
        Err(IdentityError::Database(err)) => Err(err.into()),
        Err(refused) => {
            let mut page = IdentityPage::new(&state, Some(form));
            page.error = Some(super::refused(refused, "Nothing was saved."));
            Ok(AdminPage::with_status(StatusCode::BAD_REQUEST, page))
        }
    }
}

#[derive(Deserialize)]
pub struct TimeZoneForm {
    #[serde(default)]
    time_zone: String,
}

pub async fn set_time_zone(
    state: web::Data<AppState>,
    req: HttpRequest,
    CurrentAdmin(admin): CurrentAdmin,
    CsrfForm(form): CsrfForm<TimeZoneForm>,
) -> Result<AdminPage, AppError> {
    require_owner(&admin)?;
    match state
        .identity
        .set_time_zone(&admin, &client_addr(&req), &form.time_zone)
        .await
    {
        Ok(()) => Ok(see_other("/admin/identity?saved=time-zone#time-zone").into()),
        Err(IdentityError::Database(err)) => Err(err.into()),
        Err(refused) => {
            let mut page = IdentityPage::new(&state, None);
            page.zone_error = Some(super::refused(refused, "The time zone was not changed."));
            Ok(AdminPage::with_status(StatusCode::BAD_REQUEST, page))
        }
    }
}

pub async fn upload_logo(
    state: web::Data<AppState>,
    req: HttpRequest,
    CurrentAdmin(admin): CurrentAdmin,
    upload: CsrfUpload,
) -> Result<AdminPage, AppError> {
    require_owner(&admin)?;
    let logo = Logo::parse(upload.file.unwrap_or_default());
    let outcome = match logo {
        Ok(logo) => {
            state
                .identity
                .set_logo(&admin, &client_addr(&req), logo)
                .await
        }
        Err(err) => Err(err.into()),
    };
    match outcome {
        Ok(()) => Ok(see_other("/admin/identity?saved=logo").into()),
        Err(IdentityError::Database(err)) => Err(err.into()),
        Err(refused) => {
            let mut page = IdentityPage::new(&state, None);
            page.logo_error = Some(super::refused(refused, "The logo was not changed."));
            Ok(AdminPage::with_status(StatusCode::BAD_REQUEST, page))
        }
    }
}

pub async fn remove_logo(
    state: web::Data<AppState>,
    req: HttpRequest,
    CurrentAdmin(admin): CurrentAdmin,
    form: Confirmable<NoFields>,
) -> Result<AdminPage, AppError> {
    require_owner(&admin)?;
    if let Err(ask) = form.confirmed(Question {
        title: "Remove the logo?".to_string(),
        consequence: "The header shows the shop name alone and browsers show the standard icon. To show a logo again, upload it again.".to_string(),
        button: "Remove the logo",
        back: "/admin/identity".to_string(),
    }) {
        return Ok(*ask);
    }
    if !state
        .identity
        .remove_logo(&admin, &client_addr(&req))
        .await?
    {
        return Err(AppError::NotFound);
    }
    Ok(see_other("/admin/identity?saved=logo-removed").into())
}
