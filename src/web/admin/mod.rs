//! The admin console under `/admin`: login and logout, the dashboard, orders, pricing,
//! promotion codes, display currencies, the shop's identity, the wallet, the books (reconciliation and CSV
//! exports), the catalog, the audit log, user
//! management and each admin's own account page.
//!
//! Every page but the login form needs a live session ([`CurrentAdmin`]); without one the
//! answer is a 303 to `/admin/login`. Every POST takes its form as a [`CsrfForm`], which checks
//! the CSRF token before the handler runs (so before any role check, read or write), and every
//! action is written to the audit log in the same transaction as its effect. Owner-only
//! actions answer 403 to support accounts. Every page is answered as an [`AdminPage`], which
//! adds the chrome, the CSRF cookie, the status and the console's headers ([`page`]); what a
//! page shows comes from one capability call (`orders::console`, `staff::users`, …).

mod account;
mod audit;
mod books;
mod catalog;
mod confirm;
mod currencies;
mod dashboard;
mod identity;
mod legal;
mod login;
mod orders;
mod page;
mod pricing;
mod promo_codes;
mod tax;
mod totp;
mod users;
mod wallet;

use std::future::Future;
use std::pin::Pin;

use actix_web::cookie::{Cookie, SameSite};
use actix_web::http::StatusCode;
use actix_web::http::header;
use actix_web::{FromRequest, HttpMessage, HttpRequest, HttpResponse, ResponseError, web};

use crate::staff::{self, Admin, SessionToken, Stage, session};
use crate::web::error::AppError;
use crate::web::{AppState, csrf};

/// The client's address as the audit log and the login throttle see it.
use crate::web::client_addr::client_addr;
use crate::web::pager::{Pager, list_href};
pub use confirm::{Confirmable, Question};
use page::console_page;
pub use page::{AdminPage, chrome, zone};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/admin", web::get().to(dashboard::dashboard))
        .route("/admin/", web::get().to(dashboard::dashboard))
        .route("/admin/login", web::get().to(login::login_page))
        .route("/admin/login", web::post().to(login::login))
        .route("/admin/login/totp", web::get().to(totp::code_page))
        .route("/admin/login/totp", web::post().to(totp::submit_code))
        .route("/admin/logout", web::post().to(login::logout))
        .route(
            "/admin/placements/retry",
            web::post().to(dashboard::retry_placements),
        )
        .route("/admin/orders", web::get().to(orders::list))
        .route("/admin/orders/{id}", web::get().to(orders::detail))
        .route(
            "/admin/orders/{id}/correct-email",
            web::post().to(orders::correct_email),
        )
        .route(
            "/admin/orders/{id}/{action}",
            web::post().to(orders::action),
        )
        .route("/admin/audit", web::get().to(audit::audit))
        .route("/admin/books", web::get().to(books::page))
        .route("/admin/books/explain", web::post().to(books::explain))
        .route("/admin/books/refresh", web::post().to(books::refresh))
        .route(
            "/admin/books/reconciliation.csv",
            web::get().to(books::reconciliation_csv),
        )
        .route("/admin/books/orders.csv", web::get().to(books::orders_csv))
        .route("/admin/books/wallet.csv", web::get().to(books::wallet_csv))
        .route("/admin/pricing", web::get().to(pricing::page))
        .route(
            "/admin/pricing/preview",
            web::post().to(pricing::preview_rule),
        )
        .route("/admin/pricing/save", web::post().to(pricing::save))
        .route("/admin/pricing/delete", web::post().to(pricing::delete))
        .route("/admin/promo-codes", web::get().to(promo_codes::page))
        .route("/admin/promo-codes", web::post().to(promo_codes::create))
        .route(
            "/admin/promo-codes/{code}",
            web::get().to(promo_codes::edit_page),
        )
        .route(
            "/admin/promo-codes/{code}",
            web::post().to(promo_codes::change),
        )
        .route(
            "/admin/promo-codes/{code}/disable",
            web::post().to(promo_codes::disable),
        )
        .route(
            "/admin/promo-codes/{code}/enable",
            web::post().to(promo_codes::enable),
        )
        .route("/admin/catalog/regions", web::get().to(catalog::regions))
        .route(
            "/admin/catalog/regions/{slug}",
            web::post().to(catalog::save_region),
        )
        .route("/admin/currencies", web::get().to(currencies::page))
        .route("/admin/currencies", web::post().to(currencies::set))
        .route(
            "/admin/currencies/{currency}/clear",
            web::post().to(currencies::clear),
        )
        .route("/admin/tax", web::get().to(tax::page))
        .route("/admin/tax", web::post().to(tax::set_mode))
        .route("/admin/tax/rates", web::post().to(tax::set_rate))
        .route("/admin/tax/report", web::get().to(tax::report))
        .route("/admin/tax/report.csv", web::get().to(tax::report_csv))
        .route(
            "/admin/tax/rates/{country}/remove",
            web::post().to(tax::remove_rate),
        )
        .route("/admin/identity", web::get().to(identity::page))
        .route("/admin/identity", web::post().to(identity::save))
        .route(
            "/admin/identity/time-zone",
            web::post().to(identity::set_time_zone),
        )
        .route(
            "/admin/identity/logo",
            web::post().to(identity::upload_logo),
        )
        .route(
            "/admin/identity/logo/remove",
            web::post().to(identity::remove_logo),
        )
        .route("/admin/legal", web::get().to(legal::list))
        .service(
            // A legal text is longer than the console's other forms allow.
            web::resource("/admin/legal/{document}/{lang}")
                .app_data(
                    web::FormConfig::default()
                        .limit(legal::FORM_LIMIT)
                        .error_handler(|err, _| crate::web::error::bad_input(err)),
                )
                .route(web::get().to(legal::edit))
                .route(web::post().to(legal::save)),
        )
        .route(
            "/admin/legal/{document}/{lang}/review",
            web::post().to(legal::review),
        )
        .route("/admin/catalog", web::get().to(catalog::page))
        .route("/admin/catalog/sync", web::post().to(catalog::sync_now))
        .route("/admin/wallet", web::get().to(wallet::page))
        .route("/admin/wallet/topup", web::post().to(wallet::topup))
        .route(
            "/admin/wallet/topups/{id}",
            web::get().to(wallet::topup_page),
        )
        .route("/admin/wallet/threshold", web::post().to(wallet::threshold))
        .route("/admin/users", web::get().to(users::list))
        .route("/admin/users", web::post().to(users::create))
        .route(
            "/admin/users/totp-required",
            web::post().to(totp::set_required),
        )
        .route("/admin/users/{id}/reset-totp", web::post().to(totp::reset))
        .route("/admin/users/{id}", web::get().to(users::detail))
        .route("/admin/users/{id}/{action}", web::post().to(users::action))
        .route("/admin/account", web::get().to(account::page))
        .route(
            "/admin/account/password",
            web::post().to(account::change_password),
        )
        .route("/admin/account/totp", web::get().to(totp::account_page))
        .route("/admin/account/totp", web::post().to(totp::confirm))
        .route("/admin/account/totp/start", web::post().to(totp::start))
        .route(
            "/admin/account/totp/recovery-codes",
            web::post().to(totp::renew_codes),
        );
}

/// The signed-in admin with a full session. Extracting it with no live session answers 303 to
/// the login page; a session still waiting for its TOTP code or for enrolment is sent there.
pub struct CurrentAdmin(pub Admin);

/// The admin behind a live session at any stage: for the second step of a login, enrolment and
/// logout.
pub struct AnyStageAdmin(pub Admin);

/// A session that may only enter its code or enrol: go there.
#[derive(Debug, thiserror::Error)]
#[error("second factor required")]
struct StageRequired(&'static str);

impl ResponseError for StageRequired {
    fn status_code(&self) -> StatusCode {
        StatusCode::SEE_OTHER
    }

    fn error_response(&self) -> HttpResponse {
        HttpResponse::SeeOther()
            .insert_header((header::LOCATION, self.0))
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .finish()
    }
}

/// No live session: go and log in.
#[derive(Debug, thiserror::Error)]
#[error("login required")]
pub struct LoginRequired;

impl ResponseError for LoginRequired {
    fn status_code(&self) -> StatusCode {
        StatusCode::SEE_OTHER
    }

    fn error_response(&self) -> HttpResponse {
        HttpResponse::SeeOther()
            .insert_header((header::LOCATION, "/admin/login"))
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .finish()
    }
}

fn state_of(req: &HttpRequest) -> Result<web::Data<AppState>, AppError> {
    req.app_data::<web::Data<AppState>>()
        .cloned()
        .ok_or_else(|| AppError::internal("application state is missing"))
}

/// The session token the browser presented, if it has the right shape.
fn session_token(req: &HttpRequest, secure: bool) -> Option<SessionToken> {
    req.cookie(session::cookie_name(secure))
        .and_then(|c| SessionToken::from_cookie(c.value()))
}

async fn any_stage(req: HttpRequest) -> Result<Admin, actix_web::Error> {
    let state = state_of(&req)?;
    let Some(token) = session_token(&req, state.secure_cookies) else {
        return Err(LoginRequired.into());
    };
    match staff::authenticate(&state.staff, token).await {
        Ok(Some(admin)) => {
            // For the page's chrome: see [`AdminPage`].
            req.extensions_mut().insert(admin.clone());
            Ok(admin)
        }
        Ok(None) => Err(LoginRequired.into()),
        Err(err) => Err(AppError::from(err).into()),
    }
}

impl FromRequest for AnyStageAdmin {
    type Error = actix_web::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self, Self::Error>>>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move { any_stage(req).await.map(Self) })
    }
}

impl FromRequest for CurrentAdmin {
    type Error = actix_web::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self, Self::Error>>>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move {
            let admin = any_stage(req).await?;
            match admin.stage {
                Stage::Full => Ok(Self(admin)),
                stage => Err(StageRequired(totp::home_of(stage)).into()),
            }
        })
    }
}

/// 403 unless the admin is an owner.
fn require_owner(admin: &Admin) -> Result<(), AppError> {
    if admin.is_owner() {
        Ok(())
    } else {
        Err(AppError::Forbidden(
            "This needs an owner account. Ask an owner to do it.".into(),
        ))
    }
}

/// 403 unless the form's CSRF token matches this browser's session (signed in) or CSRF cookie
/// (the login form): see [`csrf`]. Called only by [`CsrfForm`].
fn check_csrf(state: &AppState, req: &HttpRequest, token: &str) -> Result<(), AppError> {
    // Previous keys too: a form rendered by a replica on the other key verifies mid-rotation.
    let keys = state.settings.accepted_secret_keys();
    if csrf::verify_any(req, keys, state.secure_cookies, token) {
        Ok(())
    } else {
        Err(AppError::Forbidden(
            "This form has expired. Go back, reload the page and try again.".into(),
        ))
    }
}

/// The form field that carries the CSRF token.
const CSRF_FIELD: &str = "csrf_token";

/// A console form of type `T` whose CSRF token has been checked. Every console POST takes its
/// form through this extractor, so the token is checked before the handler's body runs (and so
/// before any role check, read or write); a missing or wrong token answers 403 "This form has
/// expired". The body is read as urlencoded pairs under the app's `FormConfig` (size limit,
/// content type, the bad-input answer), the token taken from them, and only then are the
/// pairs read as `T`, which need not declare the token.
pub struct CsrfForm<T>(pub T);

/// The form of a button that carries nothing but its CSRF token.
#[derive(serde::Deserialize)]
pub struct NoFields {}

impl<T: serde::de::DeserializeOwned + 'static> FromRequest for CsrfForm<T> {
    type Error = actix_web::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self, Self::Error>>>>;

    fn from_request(req: &HttpRequest, payload: &mut actix_web::dev::Payload) -> Self::Future {
        let pairs = web::Form::<Vec<(String, String)>>::from_request(req, payload);
        let req = req.clone();
        Box::pin(async move {
            let web::Form(pairs) = pairs.await?;
            Ok(Self(checked_form(&req, &pairs)?))
        })
    }
}

/// The form `T` read from a console form's `pairs` once their CSRF token is checked, for both
/// form extractors.
fn checked_form<T: serde::de::DeserializeOwned>(
    req: &HttpRequest,
    pairs: &[(String, String)],
) -> Result<T, actix_web::Error> {
    checked_token(req, pairs)?;
    let encoded = serde_urlencoded::to_string(pairs).map_err(crate::web::error::bad_input)?;
    serde_urlencoded::from_str(&encoded).map_err(crate::web::error::bad_input)
}

/// Checks the CSRF token among a form's `pairs`, for both form extractors.
fn checked_token(req: &HttpRequest, pairs: &[(String, String)]) -> Result<(), AppError> {
    let state = state_of(req)?;
    let token = pairs
        .iter()
        .find(|(name, _)| name == CSRF_FIELD)
        .map_or("", |(_, value)| value.as_str());
    check_csrf(&state, req, token)
}

/// The largest file a console upload takes (the largest logo, with room to say it is too
/// large rather than cutting the request off).
const UPLOAD_FILE_LIMIT: usize = crate::domain::brand::MAX_LOGO_BYTES + 1;
/// The largest text field of an upload, and how many parts it may have.
const UPLOAD_TEXT_LIMIT: usize = 4 * 1024;
const UPLOAD_MAX_PARTS: usize = 8;

/// A console upload (`multipart/form-data`, a file field named `file`) whose CSRF token has
/// been checked, like [`CsrfForm`]. `file` is `None` when no file was chosen, and holds at
/// most [`UPLOAD_FILE_LIMIT`] bytes: a larger file is cut there, for its owner to refuse, and
/// nothing after it is read, so the form must send its token before the file.
pub struct CsrfUpload {
    pub file: Option<Vec<u8>>,
}

impl FromRequest for CsrfUpload {
    type Error = actix_web::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self, Self::Error>>>>;

    fn from_request(req: &HttpRequest, payload: &mut actix_web::dev::Payload) -> Self::Future {
        let is_multipart = req
            .headers()
            .get(actix_web::http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("multipart/form-data"));
        if !is_multipart {
            // A plain form chose no file; its token is still checked first, like any form's.
            let pairs = web::Form::<Vec<(String, String)>>::from_request(req, payload);
            let req = req.clone();
            return Box::pin(async move {
                let web::Form(pairs) = pairs.await?;
                checked_token(&req, &pairs)?;
                Ok(Self { file: None })
            });
        }
        let multipart = actix_multipart::Multipart::new(req.headers(), payload.take());
        let req = req.clone();
        Box::pin(async move {
            let (pairs, file) = read_upload(multipart).await?;
            checked_token(&req, &pairs)?;
            Ok(Self { file })
        })
    }
}

async fn read_upload(
    mut multipart: actix_multipart::Multipart,
) -> Result<(Vec<(String, String)>, Option<Vec<u8>>), actix_web::Error> {
    use futures_util::StreamExt;
    let mut pairs = Vec::new();
    let mut file = None;
    let mut parts = 0;
    while let Some(field) = multipart.next().await {
        parts += 1;
        if parts > UPLOAD_MAX_PARTS {
            return Err(crate::web::error::bad_input("too many parts"));
        }
        let mut field = field.map_err(crate::web::error::bad_input)?;
        let name = field.name().unwrap_or_default().to_string();
        let is_file = name == "file";
        let limit = if is_file {
            UPLOAD_FILE_LIMIT
        } else {
            UPLOAD_TEXT_LIMIT
        };
        let mut bytes = Vec::new();
        while let Some(chunk) = field.next().await {
            let chunk = chunk.map_err(crate::web::error::bad_input)?;
            let room = limit.saturating_sub(bytes.len());
            bytes.extend_from_slice(&chunk[..chunk.len().min(room)]);
            if bytes.len() >= limit {
                break;
            }
        }
        if is_file {
            let cut = bytes.len() >= limit;
            file = Some(bytes).filter(|b| !b.is_empty());
            if cut {
                // Too large: the rest is not read (the form sends its token first).
                break;
            }
        } else if bytes.len() >= limit {
            return Err(crate::web::error::bad_input("text part too long"));
        } else {
            let value = String::from_utf8(bytes).map_err(crate::web::error::bad_input)?;
            pairs.push((name, value));
        }
    }
    Ok((pairs, file))
}

/// A refusal a page shows beside its form (a 4xx with a message for the person); anything
/// else stays an error for the error page.
fn refusal(err: impl Into<AppError>) -> Result<(StatusCode, String), AppError> {
    let err = err.into();
    match err {
        AppError::BadRequest(_) | AppError::Conflict(_) | AppError::TooManyRequests => {
            Ok((err.status_code(), err.public_message()))
        }
        other => Err(other),
    }
}

/// A refusal's reason as the sentence a form shows: capitalised, then `outcome` ("Nothing was
/// saved.").
fn refused(reason: impl std::fmt::Display, outcome: &str) -> String {
    let reason = reason.to_string();
    let mut chars = reason.chars();
    let first: String = chars
        .next()
        .into_iter()
        .flat_map(char::to_uppercase)
        .collect();
    format!("{first}{}. {outcome}", chars.as_str())
}

/// The session cookie for `token` (empty: one to remove): HttpOnly, SameSite=Lax, Secure on
/// HTTPS.
fn session_cookie(state: &AppState, token: &str) -> Cookie<'static> {
    Cookie::build(
        session::cookie_name(state.secure_cookies),
        token.to_string(),
    )
    .path("/")
    .http_only(true)
    .secure(state.secure_cookies)
    .same_site(SameSite::Lax)
    .finish()
}

/// A 303 to `location` that gives this browser the session `token`, or with `None` ends its
/// session cookie.
fn with_session(state: &AppState, token: Option<&SessionToken>, location: &str) -> HttpResponse {
    let mut cookie = session_cookie(state, token.map_or("", SessionToken::expose));
    if token.is_none() {
        cookie.make_removal();
    }
    let mut response = see_other(location);
    let _ = response.add_cookie(&cookie);
    response
}

/// What a sign-in refused by the per-client limit says.
pub(crate) const TOO_FAST: &str =
    "Too many sign-in attempts from your network. Wait a minute, then try again.";
/// What a sign-in refused by the per-client limit answers in `Retry-After`: its window.
const TOO_FAST_RETRY_AFTER_SECS: i64 = 60;

/// Counts one sign-in form (password or code) from the request's client; true when it is over
/// the per-client limit and must be refused before anything is read or written.
pub(crate) fn sign_in_limited(state: &AppState, req: &HttpRequest) -> bool {
    !state
        .login_limiter
        .allow(crate::web::client_addr::client_key(req))
}

/// `page` told to come back when the per-client limit's window has passed.
pub(crate) fn too_fast(page: AdminPage) -> AdminPage {
    page.retry_after(TOO_FAST_RETRY_AFTER_SECS)
}

fn see_other(location: &str) -> HttpResponse {
    HttpResponse::SeeOther()
        .insert_header((header::LOCATION, location))
        .finish()
}

/// `?saved=KEY`: where a console form sends the owner after saving, so the page says what
/// was saved.
#[derive(serde::Deserialize)]
pub struct SavedQuery {
    saved: Option<String>,
}

impl SavedQuery {
    /// The notice of `notices` (key, words) whose key the address names, if any.
    fn notice(&self, notices: &[(&str, &'static str)]) -> Option<&'static str> {
        let saved = self.saved.as_deref()?;
        notices
            .iter()
            .find(|(key, _)| *key == saved)
            .map(|(_, words)| *words)
    }
}

/// A form or query value with surrounding space removed; empty means absent.
fn non_empty(value: Option<String>) -> Option<String> {
    value
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
}
