//! "My eSIMs" (`/my-esims`): the signed-in customer's eSIMs, newest first, each linking to its
//! order page, with "Sign out" and "Sign out everywhere". The emailed sign-in link
//! (`/my-esims/sign-in?token=…`) opens a page with one button; pressing it exchanges the
//! token for the session cookie and leaves by a 303 (a mail scanner fetching the link spends
//! nothing). Without a session the list sends the visitor to the sign-in form, which is the
//! "Lost your link?" form. The rules (lifetimes, what a session opens) are `orders::my_esims`'s.

use actix_web::cookie::{Cookie, SameSite};
use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use serde::Deserialize;

use crate::db::customer_orders::After;
use crate::domain::PurchaseId;
use crate::i18n;
use crate::orders::my_esims::{self, Customer, Secret};
use crate::web::error::AppError;
use crate::web::orders::status_headline;
use crate::web::{AppState, csrf, lost_link, pages};

/// The customer whose session this browser holds, if any (an ended or unknown session is
/// none).
pub(crate) async fn signed_in(
    state: &AppState,
    req: &HttpRequest,
) -> Result<Option<Customer>, AppError> {
    let Some(cookie) = session_secret(state, req) else {
        return Ok(None);
    };
    Ok(my_esims::session(&state.orders, &cookie).await?)
}

fn session_secret(state: &AppState, req: &HttpRequest) -> Option<Secret> {
    req.cookie(my_esims::cookie_name(state.secure_cookies))
        .and_then(|c| Secret::parse(c.value()))
}

/// The session cookie: HttpOnly, SameSite=Lax, Secure on HTTPS, for the whole shop (the order
/// pages read it too), kept no longer than a session can live.
fn session_cookie(value: &str, secure: bool) -> Cookie<'static> {
    Cookie::build(my_esims::cookie_name(secure), value.to_string())
        .path("/")
        .http_only(true)
        .secure(secure)
        .same_site(SameSite::Lax)
        .max_age(actix_web::cookie::time::Duration::milliseconds(
            my_esims::SESSION_ABSOLUTE_MS,
        ))
        .finish()
}

fn see_other(location: &str) -> HttpResponse {
    let mut response = HttpResponse::SeeOther()
        .insert_header((header::LOCATION, location))
        .finish();
    pages::keep_private(response.headers_mut());
    response.headers_mut().insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    response
}

#[derive(Deserialize)]
pub struct SignInQuery {
    token: Option<String>,
}

#[derive(Deserialize)]
pub struct SignInForm {
    #[serde(default)]
    csrf_token: String,
    #[serde(default)]
    token: String,
}

#[derive(Template)]
#[template(path = "shop/my_esims_sign_in.html", blocks = ["title", "description"])]
struct SignInPage {
    csrf_token: String,
    token: String,
}

/// The sign-in form again, saying the link no longer works (410): the token is unknown, used
/// or expired.
fn link_no_longer_works(state: &AppState, req: &HttpRequest) -> HttpResponse {
    let mut response = lost_link::sign_in_form(
        state,
        req,
        StatusCode::GONE,
        Some(i18n::t("my-esims-link-used")),
    );
    response.headers_mut().insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    response
}

/// The emailed link: a working token gets a page with one button that signs in
/// (`POST /my-esims/sign-in`), leaving the token unused until it is pressed, so a mail
/// scanner or a link preview fetching the link does not spend it. Any other token gets the
/// sign-in form, which says the link no longer works.
pub async fn sign_in_page(
    state: web::Data<AppState>,
    req: HttpRequest,
    query: web::Query<SignInQuery>,
) -> Result<HttpResponse, AppError> {
    let Some(token) = query.token.as_deref().and_then(Secret::parse) else {
        return Ok(link_no_longer_works(&state, &req));
    };
    if !my_esims::sign_in_is_open(&state.orders, &token).await? {
        return Ok(link_no_longer_works(&state, &req));
    }
    let issued = csrf::issue(&req, &state.settings.secret_key, state.secure_cookies);
    let page = SignInPage {
        csrf_token: issued.token,
        token: token.expose().to_string(),
    };
    let mut response = pages::private_page(StatusCode::OK, &page, issued.cookie);
    response.headers_mut().insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    Ok(response)
}

/// The button on that page: a working token becomes a session cookie and a 303 to the list.
pub async fn sign_in(
    state: web::Data<AppState>,
    req: HttpRequest,
    // A body that is not a form has no CSRF token: it gets the CSRF answer (403), not a 400.
    form: Option<web::Form<SignInForm>>,
) -> Result<HttpResponse, AppError> {
    let form = form.map(web::Form::into_inner);
    let csrf_token = form.as_ref().map(|f| f.csrf_token.as_str()).unwrap_or("");
    if !csrf::verify_any(
        &req,
        state.settings.accepted_secret_keys(),
        state.secure_cookies,
        csrf_token,
    ) {
        return Err(AppError::Forbidden(i18n::t("form-expired")));
    }
    let session = match form.as_ref().and_then(|f| Secret::parse(&f.token)) {
        Some(token) => my_esims::sign_in(&state.orders, &token).await?,
        None => None,
    };
    let Some(session) = session else {
        return Ok(link_no_longer_works(&state, &req));
    };
    let mut response = see_other("/my-esims");
    let _ = response.add_cookie(&session_cookie(session.expose(), state.secure_cookies));
    Ok(response)
}

#[derive(Deserialize)]
pub struct ListQuery {
    /// Where the page starts: `{created_at_ms}.{purchase id}` of the previous page's last row.
    after: Option<String>,
}

fn parse_after(raw: &str) -> Option<After> {
    let (at, id) = raw.split_once('.')?;
    Some(After {
        created_at_ms: at.parse().ok()?,
        id: PurchaseId::parse(id).ok()?,
    })
}

fn after_param(after: &After) -> String {
    format!("{}.{}", after.created_at_ms, after.id)
}

/// One eSIM as the list shows it.
struct Row {
    href: String,
    destination: String,
    allowance: String,
    date: String,
    /// `2026-11-23 06:00Z`, for `<time datetime>`.
    datetime: String,
    order_number: String,
    /// The purchase status (`fulfilled`), for `data-status`.
    status: &'static str,
    /// A message id: the status in the customer's words.
    status_text: &'static str,
    /// The receipt's page, once issued.
    receipt_href: Option<String>,
}

#[derive(Template)]
#[template(path = "shop/my_esims.html", blocks = ["title", "description"])]
struct MyEsimsPage {
    email: String,
    rows: Vec<Row>,
    /// The next (older) page, when there is one.
    older_href: Option<String>,
    /// This is a later page: a way back to the newest.
    later_page: bool,
    csrf_token: String,
}

pub async fn list(
    state: web::Data<AppState>,
    req: HttpRequest,
    query: web::Query<ListQuery>,
) -> Result<HttpResponse, AppError> {
    let after = match query.after.as_deref() {
        Some(raw) => {
            Some(parse_after(raw).ok_or_else(|| AppError::BadRequest(i18n::t("error-bad-input")))?)
        }
        None => None,
    };
    let Some(customer) = signed_in(&state, &req).await? else {
        // The footer links here: a visitor without a session gets the sign-in form itself.
        return Ok(crate::web::lost_link::show(state, req).await);
    };
    let lang = i18n::current();
    let later_page = after.is_some();
    let found = my_esims::list(&state.orders, &customer, after, lang).await?;
    let rows = found
        .esims
        .into_iter()
        .map(|e| Row {
            href: format!("/orders/{}", e.id),
            receipt_href: e.receipt.then(|| format!("/orders/{}/receipt", e.id)),
            destination: e.destination,
            allowance: e.allowance,
            date: lang.date(e.created_at_ms),
            datetime: i18n::format::machine_date_time(e.created_at_ms),
            order_number: e.id.order_number(),
            status: e.status.as_str(),
            status_text: status_headline(e.status),
        })
        .collect();
    let issued = csrf::issue(&req, &state.settings.secret_key, state.secure_cookies);
    let page = MyEsimsPage {
        email: customer.email().to_string(),
        rows,
        older_href: found
            .next
            .map(|next| format!("/my-esims?after={}", after_param(&next))),
        later_page,
        csrf_token: issued.token,
    };
    let mut response = pages::private_page(StatusCode::OK, &page, issued.cookie);
    pages::keep_private(response.headers_mut());
    Ok(response)
}

#[derive(Deserialize)]
pub struct SignOutForm {
    #[serde(default)]
    csrf_token: String,
}

/// `POST /my-esims/sign-out` (this browser) and `/my-esims/sign-out-everywhere` (every session
/// of the address): the session ends, the cookie goes, and the visitor lands on the home page.
async fn end(
    state: &AppState,
    req: &HttpRequest,
    form: Option<web::Form<SignOutForm>>,
    everywhere: bool,
) -> Result<HttpResponse, AppError> {
    let token = form.as_ref().map(|f| f.csrf_token.as_str()).unwrap_or("");
    if !csrf::verify_any(
        req,
        state.settings.accepted_secret_keys(),
        state.secure_cookies,
        token,
    ) {
        return Err(AppError::Forbidden(i18n::t("form-expired")));
    }
    if let Some(session) = session_secret(state, req) {
        if everywhere {
            my_esims::sign_out_everywhere(&state.orders, &session).await?;
        } else {
            my_esims::sign_out(&state.orders, &session).await?;
        }
    }
    let mut response = see_other("/");
    let mut gone = session_cookie("", state.secure_cookies);
    gone.make_removal();
    let _ = response.add_cookie(&gone);
    Ok(response)
}

pub async fn sign_out(
    state: web::Data<AppState>,
    req: HttpRequest,
    form: Option<web::Form<SignOutForm>>,
) -> Result<HttpResponse, AppError> {
    end(&state, &req, form, false).await
}

pub async fn sign_out_everywhere(
    state: web::Data<AppState>,
    req: HttpRequest,
    form: Option<web::Form<SignOutForm>>,
) -> Result<HttpResponse, AppError> {
    end(&state, &req, form, true).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_cursor_reads_back_and_nothing_else_does() {
        let after = After {
            created_at_ms: 1_700_000_000_000,
            id: PurchaseId::parse("ab-12_cd").expect("id"),
        };
        assert_eq!(parse_after(&after_param(&after)), Some(after));
        for bad in ["", "12", "x.ab", "12.", "12.a b", ".ab"] {
            assert_eq!(parse_after(bad), None, "{bad}");
        }
    }
}
