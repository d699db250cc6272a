//! `/admin/users` (owners): the console's accounts, paged, and a form to add one;
//! `/admin/users/{id}`: one account, with its role, disable/enable, password reset and its
//! two-factor state (reset by an owner in [`super::totp`]).
//!
//! The rules (who may do what, the last active owner, ending sessions, the audit entry) live
//! in [`crate::staff::users`]; this module parses the forms and shows the outcome. A form
//! that is refused comes back with its message and, when adding an account, the email and
//! role as typed (never the password).

use std::collections::HashMap;

use actix_web::{HttpRequest, web};
use askama::Template;
use serde::Deserialize;

use super::{
    AdminPage, Confirmable, CsrfForm, CurrentAdmin, Pager, Question, client_addr, console_page,
    refusal, require_owner, see_other,
};
use crate::db::staff::UserSummary;
use crate::staff::totp;
use crate::staff::users::{self, Action, Change, UserForm};
use crate::staff::{self, Admin, Role};
use crate::web::AppState;
use crate::web::error::AppError;
use crate::web::filters;

const PAGE_SIZE: u32 = 50;

struct UserView {
    href: String,
    email: String,
    role: &'static str,
    active: bool,
    /// When the account was disabled; `None` while it is active.
    disabled_at_ms: Option<i64>,
    created_at_ms: i64,
    last_login_ms: Option<i64>,
    is_you: bool,
    /// `on`, `enrolling` or `off`.
    totp: &'static str,
}

fn view(user: UserSummary, me: &Admin, totp: &HashMap<i64, bool>) -> UserView {
    let role = Role::parse(&user.role).map_or("unknown", Role::as_str);
    UserView {
        href: format!("/admin/users/{}", user.id),
        role,
        active: user.disabled_at_ms.is_none(),
        disabled_at_ms: user.disabled_at_ms,
        created_at_ms: user.created_at_ms,
        last_login_ms: user.last_login_ms,
        is_you: user.id == me.user_id,
        totp: match totp.get(&user.id) {
            Some(true) => "on",
            Some(false) => "enrolling",
            None => "off",
        },
        email: user.email,
    }
}

/// The add-an-account form as it is shown again after a refusal.
#[derive(Default)]
struct NewUserForm {
    email: String,
    owner: bool,
    error: Option<String>,
}

#[derive(Template)]
#[template(path = "admin/users.html")]
struct UsersPage {
    users: Vec<UserView>,
    /// The page number, from 1.
    page: u32,
    newer_href: Option<String>,
    older_href: Option<String>,
    form: NewUserForm,
    min_chars: usize,
    /// Whether every console account must use TOTP.
    totp_required: bool,
    flash: Option<&'static str>,
}

console_page!(UsersPage => "users", UserPage => "users");

#[derive(Deserialize)]
pub struct ListQuery {
    page: Option<u32>,
    done: Option<String>,
}

async fn list_page(
    state: &AppState,
    admin: &Admin,
    pager: Pager,
    form: NewUserForm,
    flash: Option<&'static str>,
) -> Result<UsersPage, AppError> {
    let offset = i64::try_from(pager.offset(PAGE_SIZE)).unwrap_or(i64::MAX);
    let mut found = users::summaries(&state.staff, offset, i64::from(PAGE_SIZE) + 1).await?;
    let has_more = found.len() > PAGE_SIZE as usize;
    found.truncate(PAGE_SIZE as usize);
    let totp_states = totp::states(&state.staff, found.iter().map(|u| u.id).collect()).await?;
    let totp_required = totp::is_required_for_all(&state.staff).await?;
    Ok(UsersPage {
        users: found
            .into_iter()
            .map(|u| view(u, admin, &totp_states))
            .collect(),
        totp_required,
        flash,
        page: pager.number,
        newer_href: pager.previous_href("/admin/users", &[]),
        older_href: pager.next_href("/admin/users", &[], has_more),
        form,
        min_chars: staff::password::MIN_CHARS,
    })
}

pub async fn list(
    state: web::Data<AppState>,
    CurrentAdmin(admin): CurrentAdmin,
    query: web::Query<ListQuery>,
) -> Result<AdminPage, AppError> {
    require_owner(&admin)?;
    let page = list_page(
        &state,
        &admin,
        Pager::from_query(query.page),
        NewUserForm::default(),
        match query.done.as_deref() {
            Some("totp-required") => Some(
                "Two-factor sign-in is now required: accounts without it were signed out and set it up at their next login.",
            ),
            Some("totp-optional") => Some("Two-factor sign-in is no longer required for everyone."),
            _ => None,
        },
    )
    .await?;
    Ok(AdminPage::new(page))
}

pub async fn create(
    state: web::Data<AppState>,
    req: HttpRequest,
    CurrentAdmin(admin): CurrentAdmin,
    CsrfForm(form): CsrfForm<UserForm>,
) -> Result<AdminPage, AppError> {
    require_owner(&admin)?;
    match users::create(&state.staff, &admin, &client_addr(&req), &form).await {
        Ok(id) => {
            tracing::info!(
                admin.id = admin.user_id,
                user.id = id,
                "admin account created"
            );
            Ok(see_other(&format!("/admin/users/{id}?done=created")).into())
        }
        Err(err) => {
            let (status, message) = refusal(err)?;
            // The email and role as typed, never the password.
            let typed = NewUserForm {
                email: form.email.trim().chars().take(254).collect(),
                owner: form.role == Role::Owner.as_str(),
                error: Some(message),
            };
            let page = list_page(&state, &admin, Pager::from_query(None), typed, None);
            Ok(AdminPage::with_status(status, page.await?))
        }
    }
}

#[derive(Template)]
#[template(path = "admin/user.html")]
struct UserPage {
    id: i64,
    user: UserView,
    flash: Option<&'static str>,
    error: Option<String>,
    min_chars: usize,
}

#[derive(Deserialize)]
pub struct DetailQuery {
    done: Option<String>,
}

fn flash_text(done: Option<&str>) -> Option<&'static str> {
    Some(match done? {
        "created" => {
            "Account created. Give the person their password over a safe channel; they can change it under “Your account”."
        }
        "role" => "Role changed. It applies from the account's next page view.",
        "disable" => "Account disabled: its sessions were ended and it cannot log in.",
        "enable" => "Account enabled: it can log in again.",
        "password" => "Password reset: the account's sessions were ended.",
        "unchanged" => "Nothing to change: the account already was that way.",
        "totp-reset" => {
            "Two-factor sign-in reset: the account's sessions were ended; it sets up a new authenticator at its next login."
        }
        _ => return None,
    })
}

/// The id in `/admin/users/{id}`; anything else is no such page.
fn parse_id(raw: &str) -> Result<i64, AppError> {
    raw.parse().map_err(|_| AppError::NotFound)
}

async fn detail_page(
    state: &AppState,
    admin: &Admin,
    id: i64,
    flash: Option<&'static str>,
    error: Option<String>,
) -> Result<UserPage, AppError> {
    let user = users::summary(&state.staff, id)
        .await?
        .ok_or(AppError::NotFound)?;
    let totp_states = totp::states(&state.staff, vec![id]).await?;
    Ok(UserPage {
        id,
        user: view(user, admin, &totp_states),
        flash,
        error,
        min_chars: staff::password::MIN_CHARS,
    })
}

pub async fn detail(
    state: web::Data<AppState>,
    CurrentAdmin(admin): CurrentAdmin,
    id: web::Path<String>,
    query: web::Query<DetailQuery>,
) -> Result<AdminPage, AppError> {
    require_owner(&admin)?;
    let id = parse_id(&id)?;
    let flash = flash_text(query.done.as_deref());
    Ok(AdminPage::new(
        detail_page(&state, &admin, id, flash, None).await?,
    ))
}

pub async fn action(
    state: web::Data<AppState>,
    req: HttpRequest,
    CurrentAdmin(admin): CurrentAdmin,
    path: web::Path<(String, String)>,
    form: Confirmable<UserForm>,
) -> Result<AdminPage, AppError> {
    require_owner(&admin)?;
    let (id, slug) = path.into_inner();
    let id = parse_id(&id)?;
    let act = Action::parse(&slug).ok_or(AppError::NotFound)?;
    let form = if matches!(act, Action::Disable) {
        match form.confirmed(Question {
            title: "Disable this account?".to_string(),
            consequence: "Its sessions end at once and it cannot sign in until an owner enables it again. Its audit entries stay.".to_string(),
            button: "Disable the account",
            back: format!("/admin/users/{id}"),
        }) {
            Ok(form) => form,
            Err(ask) => return Ok(*ask),
        }
    } else {
        form.into_form()
    };
    let outcome = users::change(&state.staff, &admin, &client_addr(&req), id, act, &form).await;
    match outcome {
        Ok(Change::Done { sessions_ended }) => {
            tracing::info!(
                admin.id = admin.user_id,
                user.id = id,
                user.action = act.slug(),
                sessions.ended = sessions_ended,
                "admin account changed"
            );
            // Demoting or disabling oneself leaves this page out of reach.
            if id == admin.user_id && matches!(act, Action::Role | Action::Disable) {
                return Ok(see_other("/admin").into());
            }
            Ok(see_other(&format!("/admin/users/{id}?done={}", act.slug())).into())
        }
        Ok(Change::Unchanged) => Ok(see_other(&format!("/admin/users/{id}?done=unchanged")).into()),
        Err(err) => {
            let (status, message) = refusal(err)?;
            let page = detail_page(&state, &admin, id, None, Some(message)).await?;
            Ok(AdminPage::with_status(status, page))
        }
    }
}
