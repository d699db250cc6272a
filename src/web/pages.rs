//! Rendering askama pages into responses, the page structs shared by every area, and what the
//! shared frame (`base.html`) shows from the settings.
//!
//! The frame is rendered inside every shop page, whatever its struct, so the shop's identity it
//! shows (name, logo, colour, company details, support address) is not a field: it is scoped
//! to the request by the middleware ([`with_identity`]) and read by the template
//! ([`identity`], [`support_email`]), the way the request id reaches error pages.

use actix_web::HttpResponse;
use actix_web::cookie::Cookie;
use actix_web::http::StatusCode;
use actix_web::http::header::{CACHE_CONTROL, CONTENT_TYPE, HeaderValue};
use askama::Template;

use std::sync::{Arc, LazyLock};

use crate::shop::Identity;

tokio::task_local! {
    static IDENTITY: Arc<Identity>;
}

/// The identity pages show outside a request (none do today; a safe fallback).
static BUILT_IN: LazyLock<Arc<Identity>> = LazyLock::new(|| Arc::new(Identity::built_in()));

/// Runs `fut` (one request) with the shop's identity visible to the pages it renders.
pub async fn with_identity<F: Future>(identity: Arc<Identity>, fut: F) -> F::Output {
    IDENTITY.scope(identity, fut).await
}

/// The shop's identity as this request sees it.
pub fn identity() -> Arc<Identity> {
    IDENTITY
        .try_with(Arc::clone)
        .unwrap_or_else(|_| Arc::clone(&BUILT_IN))
}

/// The address customers can write to (the identity's, else `STOREFRONT_SUPPORT_EMAIL`), for
/// the footer and the help pages; `None` when the shop has none.
pub fn support_email() -> Option<String> {
    identity()
        .support_email
        .as_ref()
        .map(|e| e.as_str().to_string())
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
#[template(path = "errors/error.html", blocks = ["title", "description"])]
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
