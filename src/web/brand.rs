//! The shop's own theme and logo, served from the identity in memory (so from any replica):
//! `/brand/theme.{tag}.css` sets the accent colour as a CSS custom property (pages stay free
//! of inline style), `/brand/logo.{tag}.{png|svg}` is the owner's logo. The tag is a hash of
//! the content, so the current one is cached for good; an older tag gets the current content,
//! uncached.
//!
//! An SVG can carry script. It is shown on pages through `<img>` (which runs none), and opened
//! on its own it arrives with a policy that allows no script, no loads and no plugins, as
//! `image/svg+xml` that the browser must not sniff as anything else.

use actix_web::http::header;
use actix_web::{HttpResponse, web};

use crate::web::AppState;
use crate::web::error::AppError;

const FOREVER: &str = "public, max-age=31536000, immutable";
const NOT_CURRENT: &str = "no-cache";
/// An image that cannot run anything, even opened on its own.
const LOGO_CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/brand/{name}", web::get().to(serve));
}

async fn serve(
    state: web::Data<AppState>,
    name: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let identity = state.identity.current();
    let requested = name.into_inner();
    if let Some(tag) = requested
        .strip_prefix("theme.")
        .and_then(|rest| rest.strip_suffix(".css"))
    {
        return Ok(HttpResponse::Ok()
            .insert_header((header::CONTENT_TYPE, "text/css; charset=utf-8"))
            .insert_header((header::CACHE_CONTROL, cache(identity.is_current_theme(tag))))
            .body(identity.theme_css()));
    }
    let logo = identity.logo.as_ref().ok_or(AppError::NotFound)?;
    let tag = requested
        .strip_prefix("logo.")
        .and_then(|rest| rest.strip_suffix(&format!(".{}", logo.kind().as_str())))
        .ok_or(AppError::NotFound)?;
    Ok(HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, logo.kind().content_type()))
        .insert_header((header::CACHE_CONTROL, cache(identity.is_current_logo(tag))))
        .insert_header((header::CONTENT_SECURITY_POLICY, LOGO_CSP))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .insert_header((header::CONTENT_DISPOSITION, "inline"))
        .body(logo.bytes().to_vec()))
}

fn cache(current: bool) -> &'static str {
    if current { FOREVER } else { NOT_CURRENT }
}
