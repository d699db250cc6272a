//! `/admin/account`: the signed-in admin's own account, and changing its password with the
//! current one. A changed password ends every session of the account; this browser gets a new
//! session at once, so a session id that leaked before the change is worth nothing after it.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, web};
use askama::Template;
use serde::Deserialize;

use super::{AdminPage, CsrfForm, CurrentAdmin, client_addr, console_page, refusal, with_session};
use crate::staff::{self, Admin, NewPassword, users};
use crate::web::AppState;
use crate::web::error::AppError;

#[derive(Template)]
#[template(path = "admin/account.html")]
struct AccountPage {
    email: String,
    role: &'static str,
    flash: Option<&'static str>,
    error: Option<String>,
    min_chars: usize,
}

console_page!(AccountPage => "account");

impl AccountPage {
    fn of(admin: &Admin, flash: Option<&'static str>, error: Option<String>) -> Self {
        Self {
            email: admin.email.clone(),
            role: admin.role.as_str(),
            flash,
            error,
            min_chars: staff::password::MIN_CHARS,
        }
    }
}

#[derive(Deserialize)]
pub struct AccountQuery {
    done: Option<String>,
}

pub async fn page(CurrentAdmin(admin): CurrentAdmin, query: web::Query<AccountQuery>) -> AdminPage {
    let flash = match query.done.as_deref() {
        Some("password") => {
            Some("Password changed. Your other sessions were ended; this browser stays signed in.")
        }
        _ => None,
    };
    AdminPage::new(AccountPage::of(&admin, flash, None))
}

/// The password form. Passwords are never logged, echoed or audited.
#[derive(Deserialize)]
pub struct PasswordForm {
    #[serde(default)]
    current_password: String,
    #[serde(default)]
    password: String,
    #[serde(default)]
    password_again: String,
}

pub async fn change_password(
    state: web::Data<AppState>,
    req: HttpRequest,
    CurrentAdmin(admin): CurrentAdmin,
    CsrfForm(form): CsrfForm<PasswordForm>,
) -> Result<AdminPage, AppError> {
    let refused = |message: String| {
        AdminPage::with_status(
            StatusCode::BAD_REQUEST,
            AccountPage::of(&admin, None, Some(message)),
        )
    };
    if form.current_password.is_empty()
        || form.current_password.chars().count() > staff::password::MAX_CHARS
    {
        return Ok(refused("Enter your current password.".into()));
    }
    let new = match NewPassword::typed_twice(&form.password, &form.password_again) {
        Ok(new) => new,
        Err(message) => return Ok(refused(message)),
    };
    let client = client_addr(&req);
    match users::change_own_password(&state.staff, &admin, &client, form.current_password, new)
        .await
    {
        Ok(token) => {
            tracing::info!(admin.id = admin.user_id, "admin changed their password");
            Ok(with_session(&state, Some(&token), "/admin/account?done=password").into())
        }
        Err(err) => {
            let (status, message) = refusal(err)?;
            let page = AdminPage::with_status(status, AccountPage::of(&admin, None, Some(message)));
            Ok(if status == StatusCode::TOO_MANY_REQUESTS {
                page.retry_after(60)
            } else {
                page
            })
        }
    }
}
