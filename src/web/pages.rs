//! Rendering askama pages into responses, and the page structs shared by every area.

use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use actix_web::http::header::{CONTENT_TYPE, HeaderValue};
use askama::Template;

/// Renders `page` with `status`. A template that fails to render is a bug: the answer is a
/// bare 500 rather than a half-written page.
pub fn render<T: Template>(status: StatusCode, page: &T) -> HttpResponse {
    match page.render() {
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

/// Every error answer, from 400 to 503.
#[derive(Template)]
#[template(path = "errors/error.html")]
pub struct ErrorPage<'a> {
    pub status: u16,
    pub title: &'a str,
    pub message: &'a str,
    pub request_id: &'a str,
}
