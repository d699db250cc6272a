//! `/admin/login` and `POST /admin/logout`. A failed login never says whether the email or
//! the password was wrong; too many failures answer 429 for a while (see
//! [`crate::staff::throttle`]). Before any of that, one client may send only
//! `STOREFRONT_LOGIN_RATE_LIMIT` sign-in forms a minute: the rest are refused with nothing
//! written ([`sign_in_limited`]). An account with TOTP goes on to `/admin/login/totp`.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use serde::Deserialize;

use super::{
    AdminPage, AnyStageAdmin, CsrfForm, NoFields, TOO_FAST, client_addr, console_page, see_other,
    session_token, sign_in_limited, too_fast, with_session,
};
use crate::staff::{self, LoginOutcome};
use crate::web::AppState;
use crate::web::error::AppError;

#[derive(Template)]
#[template(path = "admin/login.html")]
struct LoginPage {
    email: String,
    error: Option<&'static str>,
}

console_page!(LoginPage => "login");

const FAILED: &str = "Wrong email or password.";
const THROTTLED: &str = "Too many failed attempts. Wait 15 minutes, then try again.";

fn render(status: StatusCode, email: String, error: Option<&'static str>) -> AdminPage {
    AdminPage::with_status(status, LoginPage { email, error })
}

pub async fn login_page(
    state: web::Data<AppState>,
    req: HttpRequest,
) -> Result<AdminPage, AppError> {
    if let Some(token) = session_token(&req, state.secure_cookies)
        && let Some(admin) = staff::authenticate(&state.staff, token).await?
    {
        return Ok(see_other(super::totp::home_of(admin.stage)).into());
    }
    Ok(render(StatusCode::OK, String::new(), None))
}

#[derive(Deserialize)]
pub struct LoginForm {
    #[serde(default)]
    email: String,
    #[serde(default)]
    password: String,
}

pub async fn login(
    state: web::Data<AppState>,
    req: HttpRequest,
    CsrfForm(form): CsrfForm<LoginForm>,
) -> Result<AdminPage, AppError> {
    let email: String = form.email.trim().chars().take(254).collect();
    if sign_in_limited(&state, &req) {
        return Ok(too_fast(render(
            StatusCode::TOO_MANY_REQUESTS,
            email,
            Some(TOO_FAST),
        )));
    }
    if email.is_empty() || form.password.is_empty() {
        return Ok(render(
            StatusCode::BAD_REQUEST,
            email,
            Some("Enter your email and password."),
        ));
    }
    if form.password.chars().count() > staff::password::MAX_CHARS {
        return Ok(render(StatusCode::UNAUTHORIZED, email, Some(FAILED)));
    }
    let previous = session_token(&req, state.secure_cookies);
    let client = client_addr(&req);
    let outcome = staff::login(&state.staff, &email, form.password, &client, previous).await?;
    match outcome {
        LoginOutcome::Success { admin, token } => {
            tracing::info!(
                admin.id = admin.user_id,
                session.stage = admin.stage.as_str(),
                "admin password accepted"
            );
            Ok(with_session(&state, Some(&token), super::totp::home_of(admin.stage)).into())
        }
        LoginOutcome::Failed => Ok(render(StatusCode::UNAUTHORIZED, email, Some(FAILED))),
        LoginOutcome::Throttled => {
            Ok(
                render(StatusCode::TOO_MANY_REQUESTS, email, Some(THROTTLED))
                    .retry_after(staff::throttle::RETRY_AFTER_SECS),
            )
        }
    }
}

pub async fn logout(
    state: web::Data<AppState>,
    req: HttpRequest,
    AnyStageAdmin(admin): AnyStageAdmin,
    _: CsrfForm<NoFields>,
) -> Result<HttpResponse, AppError> {
    let user_id = admin.user_id;
    staff::logout(&state.staff, admin, &client_addr(&req)).await?;
    tracing::info!(admin.id = user_id, "admin signed out");
    Ok(with_session(&state, None, "/admin/login"))
}
