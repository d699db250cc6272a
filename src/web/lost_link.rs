//! "Lost your link?" (`/lost-link`): a customer asks for their order links, and a sign-in link
//! to "My eSIMs", by the email used. It is also "My eSIMs"' sign-in form. The handler parses
//! the form and calls `orders::lost_link`; the lookup and the email happen in the background,
//! so the answer is the same whatever the address.
//!
//! A client (IPv4 address or IPv6 /64) may send [`PER_CLIENT_LIMIT`] requests per
//! [`PER_CLIENT_WINDOW`] in this process; beyond that it gets a 429 with the form. That says
//! nothing about any address: it only counts the client's own requests.

use std::time::Duration;

use actix_web::http::StatusCode;
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use serde::Deserialize;

use crate::domain::Email;
use crate::i18n;
use crate::web::error::AppError;
use crate::web::{AppState, csrf, pages};

/// Requests one client may send per [`PER_CLIENT_WINDOW`].
pub const PER_CLIENT_LIMIT: u32 = 5;
pub const PER_CLIENT_WINDOW: Duration = Duration::from_secs(15 * 60);

#[derive(Template)]
#[template(path = "shop/lost_link.html", blocks = ["title", "description"])]
struct LostLinkPage {
    /// The request was taken (whether or not an email will go out).
    sent: bool,
    csrf_token: String,
    email: String,
    error: Option<String>,
    /// Said above the form (an emailed sign-in link that no longer works).
    notice: Option<String>,
}

#[derive(Deserialize)]
pub struct LostLinkForm {
    #[serde(default)]
    email: String,
    #[serde(default)]
    csrf_token: String,
}

fn form_page(
    state: &AppState,
    req: &HttpRequest,
    status: StatusCode,
    email: String,
    error: Option<String>,
) -> HttpResponse {
    form_with_notice(state, req, status, email, error, None)
}

/// The form with `notice` above it, answered with `status`: where "My eSIMs" sends a sign-in
/// link that no longer works.
pub(crate) fn sign_in_form(
    state: &AppState,
    req: &HttpRequest,
    status: StatusCode,
    notice: Option<String>,
) -> HttpResponse {
    form_with_notice(state, req, status, String::new(), None, notice)
}

fn form_with_notice(
    state: &AppState,
    req: &HttpRequest,
    status: StatusCode,
    email: String,
    error: Option<String>,
    notice: Option<String>,
) -> HttpResponse {
    let issued = csrf::issue(req, &state.settings.secret_key, state.secure_cookies);
    let page = LostLinkPage {
        sent: false,
        csrf_token: issued.token,
        email,
        error,
        notice,
    };
    pages::private_page(status, &page, issued.cookie)
}

pub async fn show(state: web::Data<AppState>, req: HttpRequest) -> HttpResponse {
    form_page(&state, &req, StatusCode::OK, String::new(), None)
}

pub async fn submit(
    state: web::Data<AppState>,
    req: HttpRequest,
    // A body that is not a form has no token: it gets the CSRF answer (403), not a 400.
    form: Option<web::Form<LostLinkForm>>,
) -> Result<HttpResponse, AppError> {
    let form = form.map(web::Form::into_inner);
    let token = form.as_ref().map(|f| f.csrf_token.as_str()).unwrap_or("");
    if !csrf::verify_any(
        &req,
        state.settings.accepted_secret_keys(),
        state.secure_cookies,
        token,
    ) {
        return Err(AppError::Forbidden(i18n::t("form-expired")));
    }
    let typed = form.map(|f| f.email).unwrap_or_default();
    if !state
        .lost_link_limiter
        .allow(crate::web::client_addr::client_key(&req))
    {
        let mut response = form_page(
            &state,
            &req,
            StatusCode::TOO_MANY_REQUESTS,
            typed,
            Some(i18n::t("lost-link-too-many")),
        );
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, header::HeaderValue::from_static("900"));
        return Ok(response);
    }
    let Ok(email) = Email::parse(typed.trim()) else {
        return Ok(form_page(
            &state,
            &req,
            StatusCode::BAD_REQUEST,
            typed,
            Some(i18n::t("lost-link-email-invalid")),
        ));
    };
    // The email is written in the language of this request.
    if crate::orders::lost_link::request(&state.orders, &email, i18n::current()).await? {
        state.lost_link_wake.notify_one();
    }
    let page = LostLinkPage {
        sent: true,
        csrf_token: String::new(),
        email: String::new(),
        error: None,
        notice: None,
    };
    Ok(pages::private_page(StatusCode::OK, &page, None))
}
