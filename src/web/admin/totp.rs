//! The console's second factor: `/admin/login/totp` (the code after the password),
//! `/admin/account/totp` (enrolment, recovery codes) and the owners' controls on the users pages
//! (requiring TOTP for all, resetting an account's TOTP). The rules live in
//! [`crate::staff::totp`]; these handlers parse the form and show the outcome.
//!
//! The secret appears in clear on one page only, the enrolment page (until it is confirmed), and
//! the recovery codes on the page that issues them; both are `no-store` like every console page.
//! Only a POST creates a secret.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, web};
use askama::Template;
use serde::Deserialize;

use super::{
    AdminPage, AnyStageAdmin, Confirmable, CsrfForm, CurrentAdmin, NoFields, Question, TOO_FAST,
    client_addr, console_page, require_owner, see_other, session_cookie, sign_in_limited, too_fast,
    with_session,
};
use crate::staff::throttle::RETRY_AFTER_SECS;
use crate::staff::totp::{self, TotpError, TotpKeys};
use crate::staff::{Admin, Stage};
use crate::web::AppState;
use crate::web::error::AppError;

fn keys(state: &AppState) -> TotpKeys {
    TotpKeys::derive(
        &state.settings.secret_key,
        &state.settings.previous_secret_keys,
    )
}

const THROTTLED: &str = "Too many wrong codes. Wait 15 minutes, then try again.";

// ---- the second step of a login -------------------------------------------------------------

#[derive(Template)]
#[template(path = "admin/login_totp.html")]
struct CodePage {
    email: String,
    error: Option<&'static str>,
}

console_page!(CodePage => "login", TotpPage => "account");

fn code_page_of(admin: &Admin, status: StatusCode, error: Option<&'static str>) -> AdminPage {
    let page = CodePage {
        email: admin.email.clone(),
        error,
    };
    AdminPage::with_status(status, page)
}

/// Where a session in `stage` belongs.
pub fn home_of(stage: Stage) -> &'static str {
    match stage {
        Stage::Full => "/admin",
        Stage::Totp => "/admin/login/totp",
        Stage::Enrol => "/admin/account/totp",
    }
}

pub async fn code_page(AnyStageAdmin(admin): AnyStageAdmin) -> AdminPage {
    if admin.stage != Stage::Totp {
        return see_other(home_of(admin.stage)).into();
    }
    code_page_of(&admin, StatusCode::OK, None)
}

#[derive(Deserialize)]
pub struct CodeForm {
    #[serde(default)]
    code: String,
}

pub async fn submit_code(
    state: web::Data<AppState>,
    req: HttpRequest,
    AnyStageAdmin(admin): AnyStageAdmin,
    CsrfForm(form): CsrfForm<CodeForm>,
) -> Result<AdminPage, AppError> {
    if admin.stage != Stage::Totp {
        return Ok(see_other(home_of(admin.stage)).into());
    }
    if sign_in_limited(&state, &req) {
        return Ok(too_fast(code_page_of(
            &admin,
            StatusCode::TOO_MANY_REQUESTS,
            Some(TOO_FAST),
        )));
    }
    let code: String = form.code.trim().chars().take(64).collect();
    if code.is_empty() {
        return Ok(code_page_of(
            &admin,
            StatusCode::BAD_REQUEST,
            Some("Enter the code from your authenticator app, or a recovery code."),
        ));
    }
    let client = client_addr(&req);
    match totp::complete_login(&state.staff, &keys(&state), &admin, &client, &code).await {
        Ok((token, how)) => {
            tracing::info!(
                admin.id = admin.user_id,
                "admin signed in with a second factor"
            );
            let location = match how {
                totp::SecondFactor::Code => "/admin".to_string(),
                totp::SecondFactor::RecoveryCode(left) => {
                    format!("/admin/account/totp?recovery_left={left}")
                }
            };
            Ok(with_session(&state, Some(&token), &location).into())
        }
        Err(TotpError::WrongCode) => Ok(code_page_of(
            &admin,
            StatusCode::UNAUTHORIZED,
            Some("That code is wrong or was already used. Wait for the next code and try again."),
        )),
        Err(TotpError::Throttled) => {
            Ok(
                code_page_of(&admin, StatusCode::TOO_MANY_REQUESTS, Some(THROTTLED))
                    .retry_after(RETRY_AFTER_SECS),
            )
        }
        Err(err) => Err(err.into()),
    }
}

// ---- enrolment and recovery codes -----------------------------------------------------------

/// What the account page for TOTP shows.
enum View {
    /// Not set up: a button that starts enrolment.
    Off,
    /// Enrolment started: the secret to scan, and the form for its first code.
    Enrol {
        secret_base32: String,
        qr_svg: String,
    },
    /// TOTP is on.
    On { recovery_codes_left: i64 },
    /// Recovery codes just issued, shown this once.
    Codes(Vec<String>),
}

#[derive(Template)]
#[template(path = "admin/account_totp.html")]
struct TotpPage {
    /// Enrolment is all this session may do.
    enrol_only: bool,
    view: View,
    flash: Option<String>,
    error: Option<&'static str>,
    digits: usize,
}

fn totp_page_of(
    admin: &Admin,
    status: StatusCode,
    view: View,
    flash: Option<String>,
    error: Option<&'static str>,
) -> AdminPage {
    let page = TotpPage {
        enrol_only: admin.stage == Stage::Enrol,
        view,
        flash,
        error,
        digits: totp::DIGITS,
    };
    AdminPage::with_status(status, page)
}

/// The page for the account as it is: on, enrolling (the same secret as before), or off.
async fn current_view(state: &AppState, admin: &Admin) -> Result<View, AppError> {
    let status = totp::status(&state.staff, admin.user_id).await?;
    if status.on {
        return Ok(View::On {
            recovery_codes_left: status.recovery_codes_left,
        });
    }
    Ok(
        match totp::pending_enrolment(&state.staff, &keys(state), admin).await? {
            Some(enrolment) => View::Enrol {
                secret_base32: enrolment.secret_base32.expose().clone(),
                qr_svg: enrolment.qr_svg.expose().clone(),
            },
            None => View::Off,
        },
    )
}

#[derive(Deserialize)]
pub struct TotpQuery {
    recovery_left: Option<i64>,
}

pub async fn account_page(
    state: web::Data<AppState>,
    AnyStageAdmin(admin): AnyStageAdmin,
    query: web::Query<TotpQuery>,
) -> Result<AdminPage, AppError> {
    if admin.stage == Stage::Totp {
        return Ok(see_other(home_of(admin.stage)).into());
    }
    let view = current_view(&state, &admin).await?;
    let flash = query.recovery_left.map(|left| {
        format!(
            "You signed in with a recovery code; it no longer works. {left} recovery code(s) left."
        )
    });
    Ok(totp_page_of(&admin, StatusCode::OK, view, flash, None))
}

/// Starts enrolment with a fresh secret (replacing one not confirmed yet), then shows it.
pub async fn start(
    state: web::Data<AppState>,
    req: HttpRequest,
    AnyStageAdmin(admin): AnyStageAdmin,
    _: CsrfForm<NoFields>,
) -> Result<AdminPage, AppError> {
    if admin.stage == Stage::Totp {
        return Ok(see_other(home_of(admin.stage)).into());
    }
    match totp::start_enrolment(&state.staff, &keys(&state), &admin, &client_addr(&req)).await {
        Ok(_) | Err(TotpError::AlreadyOn) => Ok(see_other("/admin/account/totp").into()),
        Err(err) => Err(err.into()),
    }
}

pub async fn confirm(
    state: web::Data<AppState>,
    req: HttpRequest,
    AnyStageAdmin(admin): AnyStageAdmin,
    CsrfForm(form): CsrfForm<CodeForm>,
) -> Result<AdminPage, AppError> {
    if admin.stage == Stage::Totp {
        return Ok(see_other(home_of(admin.stage)).into());
    }
    let client = client_addr(&req);
    let code: String = form.code.trim().chars().take(64).collect();
    match totp::confirm_enrolment(&state.staff, &keys(&state), &admin, &client, &code).await {
        Ok((codes, token)) => {
            tracing::info!(admin.id = admin.user_id, "admin turned TOTP on");
            // The session was replaced by a full one: the page renders for it.
            let admin = Admin {
                session_hash: token.hash(),
                stage: Stage::Full,
                ..admin
            };
            let page = totp_page_of(
                &admin,
                StatusCode::OK,
                View::Codes(codes.expose().to_vec()),
                Some("Two-factor sign-in is on. Your other sessions were ended.".into()),
                None,
            );
            Ok(page.with_cookie(session_cookie(&state, token.expose())))
        }
        Err(TotpError::AlreadyOn) => Ok(see_other("/admin/account/totp").into()),
        Err(err @ (TotpError::WrongCode | TotpError::Throttled)) => {
            // The same secret again: the app already holds it.
            let view = current_view(&state, &admin).await?;
            let page = |status, message| totp_page_of(&admin, status, view, None, Some(message));
            Ok(match err {
                TotpError::Throttled => {
                    page(StatusCode::TOO_MANY_REQUESTS, THROTTLED).retry_after(RETRY_AFTER_SECS)
                }
                _ => page(
                    StatusCode::BAD_REQUEST,
                    "That code did not match. Check the time on your phone, wait for the next code and try again.",
                ),
            })
        }
        Err(err) => Err(err.into()),
    }
}

pub async fn renew_codes(
    state: web::Data<AppState>,
    req: HttpRequest,
    CurrentAdmin(admin): CurrentAdmin,
    _: CsrfForm<NoFields>,
) -> Result<AdminPage, AppError> {
    match totp::renew_recovery_codes(&state.staff, &admin, &client_addr(&req)).await {
        Ok(codes) => Ok(totp_page_of(
            &admin,
            StatusCode::OK,
            View::Codes(codes.expose().to_vec()),
            Some("New recovery codes issued; the old ones no longer work.".into()),
            None,
        )),
        Err(TotpError::NotOn) => Ok(see_other("/admin/account/totp").into()),
        Err(err) => Err(err.into()),
    }
}

// ---- owners ---------------------------------------------------------------------------------

#[derive(Deserialize)]
pub struct RequireForm {
    #[serde(default)]
    required: String,
}

pub async fn set_required(
    state: web::Data<AppState>,
    req: HttpRequest,
    CurrentAdmin(admin): CurrentAdmin,
    CsrfForm(form): CsrfForm<RequireForm>,
) -> Result<actix_web::HttpResponse, AppError> {
    let required = match form.required.as_str() {
        "on" => true,
        "off" => false,
        _ => return Err(AppError::BadRequest("Choose on or off.".into())),
    };
    totp::set_required_for_all(&state.staff, &admin, required, &client_addr(&req)).await?;
    tracing::info!(
        admin.id = admin.user_id,
        totp.required = required,
        "TOTP requirement changed"
    );
    Ok(see_other(if required {
        "/admin/users?done=totp-required"
    } else {
        "/admin/users?done=totp-optional"
    }))
}

pub async fn reset(
    state: web::Data<AppState>,
    req: HttpRequest,
    CurrentAdmin(admin): CurrentAdmin,
    path: web::Path<String>,
    form: Confirmable<NoFields>,
) -> Result<AdminPage, AppError> {
    let id: i64 = path.parse().map_err(|_| AppError::NotFound)?;
    require_owner(&admin)?;
    if let Err(ask) = form.confirmed(Question {
        title: "Reset two-factor sign-in for this account?".to_string(),
        consequence: "Its authenticator and recovery codes stop working and every session of the account ends. At its next login it sets up a new authenticator.".to_string(),
        button: "Reset two-factor sign-in",
        back: format!("/admin/users/{id}"),
    }) {
        return Ok(*ask);
    }
    totp::reset(&state.staff, &admin, id, &client_addr(&req)).await?;
    tracing::info!(
        admin.id = admin.user_id,
        user.id = id,
        "TOTP of an account reset"
    );
    if id == admin.user_id {
        // One's own sessions ended with it.
        return Ok(see_other("/admin/login").into());
    }
    Ok(see_other(&format!("/admin/users/{id}?done=totp-reset")).into())
}
