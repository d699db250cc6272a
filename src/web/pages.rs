//! Rendering askama pages into responses, the page structs shared by every area, and what the
//! shared frame (`base.html`) shows from the settings.
//!
//! The frame is rendered inside every shop page, whatever its struct, so the settings it shows
//! are not fields: they are scoped to the request by the middleware
//! ([`with_support_email`]) and read by the template ([`support_email`]), the way the request
//! id reaches error pages.

use actix_web::HttpResponse;
use actix_web::cookie::Cookie;
use actix_web::http::StatusCode;
use actix_web::http::header::{CACHE_CONTROL, CONTENT_TYPE, HeaderValue};
use askama::Template;

use crate::domain::Email;

tokio::task_local! {
    static SUPPORT_EMAIL: Option<Email>;
}

/// Runs `fut` (one request) with the shop's support address, if it has one, visible to the
/// pages it renders.
pub async fn with_support_email<F: Future>(support: Option<Email>, fut: F) -> F::Output {
    SUPPORT_EMAIL.scope(support, fut).await
}

/// The address customers can write to (`STOREFRONT_SUPPORT_EMAIL`), for the footer and the
/// help pages; `None` when the shop has none, or outside a request.
pub fn support_email() -> Option<String> {
    SUPPORT_EMAIL
        .try_with(|support| support.as_ref().map(|e| e.as_str().to_string()))
        .ok()
        .flatten()
}

/// Renders `page` with `status`. A template that fails to render is a bug: the answer is a
/// bare 500 rather than a half-written page.
pub fn render<T: Template>(status: StatusCode, page: &T) -> HttpResponse {
    html(status, page.render())
}

/// The answer for a page rendered to `rendered`, with `status`; a failed render is a bare 500.
pub fn html(status: StatusCode, rendered: askama::Result<String>) -> HttpResponse {
    match rendered {
        Ok(body) => {
            let mut response = HttpResponse::build(status).body(body);
            response.headers_mut().insert(
                CONTENT_TYPE,
                HeaderValue::from_static("text/html; charset=utf-8"),
            );
            response
        }
        Err(err) => {
            tracing::error!(error = %err, "template failed to render");
            HttpResponse::InternalServerError()
                .content_type("text/plain; charset=utf-8")
                .body("internal error")
        }
    }
}

/// Answers carry the CSRF cookie when the browser has none yet, and are private: the form
/// holds a per-browser token.
pub fn private_page<T: Template>(
    status: StatusCode,
    page: &T,
    cookie: Option<Cookie<'static>>,
) -> HttpResponse {
    let mut response = render(status, page);
    response
        .headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static("private, no-store"));
    if let Some(cookie) = cookie {
        let _ = response.add_cookie(&cookie);
    }
    response
}

/// Every error answer, from 400 to 503.
#[derive(Template)]
#[template(path = "errors/error.html")]
pub struct ErrorPage<'a> {
    pub status: u16,
    pub title: String,
    pub message: &'a str,
    pub request_id: &'a str,
    /// Offer "Lost your link?" (the order pages' 404).
    pub lost_link: bool,
}

/// Headers of a page that holds private data beside text a visitor can make vary (console
/// pages, the private order page): never stored, never indexed, never compressed — a body
/// compressed with a secret in it could leak the secret (BREACH). A `Content-Encoding` already
/// set makes the compression middleware pass the body through as it is.
pub fn keep_private(headers: &mut actix_web::http::header::HeaderMap) {
    use actix_web::http::header::{self, HeaderName, HeaderValue};
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::CONTENT_ENCODING,
        HeaderValue::from_static("identity"),
    );
    headers.insert(
        HeaderName::from_static("x-robots-tag"),
        HeaderValue::from_static("noindex"),
    );
}
