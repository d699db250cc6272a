//! Static files compiled into the binary, so the shop runs from any working directory and
//! loads nothing from third parties. Each file is also served under a name carrying a hash of
//! its content (`style.3f2a9c1e.css`) with a year-long immutable cache; pages link that name,
//! so a new build never meets a stale stylesheet.
//!
//! The well-known files crawlers and browsers ask for live here too: `/robots.txt` (which names
//! the sitemap, `web::sitemap`), and the
//! icon at `/favicon.svg` (pages link the fingerprinted name). `/favicon.ico`, which browsers
//! try on their own, is a cacheable 204: the icon is SVG only, and an empty answer is better
//! than a 404 page per visit.

use std::sync::LazyLock;

use actix_web::http::header;
use actix_web::{HttpResponse, web};
use sha2::{Digest, Sha256};

use crate::web::error::AppError;

struct Asset {
    name: &'static str,
    content_type: &'static str,
    body: &'static str,
    fingerprinted: String,
}

fn asset(name: &'static str, content_type: &'static str, body: &'static str) -> Asset {
    let digest = Sha256::digest(body.as_bytes());
    let hash = hex::encode(&digest[..4]);
    let fingerprinted = match name.rsplit_once('.') {
        Some((stem, ext)) => format!("{stem}.{hash}.{ext}"),
        None => format!("{name}.{hash}"),
    };
    Asset {
        name,
        content_type,
        body,
        fingerprinted,
    }
}

static ASSETS: LazyLock<Vec<Asset>> = LazyLock::new(|| {
    vec![
        asset(
            "style.css",
            "text/css; charset=utf-8",
            include_str!("../../static/style.css"),
        ),
        asset(
            "order.js",
            "text/javascript; charset=utf-8",
            include_str!("../../static/order.js"),
        ),
        asset(
            "plans.js",
            "text/javascript; charset=utf-8",
            include_str!("../../static/plans.js"),
        ),
        asset(
            "receipt.css",
            "text/css; charset=utf-8",
            include_str!("../../static/receipt.css"),
        ),
        asset(
            "receipt.js",
            "text/javascript; charset=utf-8",
            include_str!("../../static/receipt.js"),
        ),
        asset(
            "favicon.svg",
            "image/svg+xml",
            include_str!("../../static/favicon.svg"),
        ),
    ]
});

/// Crawlers may read the catalog; private and per-purchase pages are none of their business
/// (they are `noindex` and unguessable anyway; this saves the requests).
const ROBOTS_TXT: &str = "User-agent: *\n\
                          Disallow: /admin\n\
                          Disallow: /orders\n\
                          Disallow: /checkout\n\
                          Disallow: /demo-pay\n\
                          Allow: /\n";

/// How long browsers and crawlers keep the unversioned well-known files.
const WELL_KNOWN_CACHE: &str = "public, max-age=86400";

/// The static routes: `/static/{name}` and the well-known files.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/static/{name}", web::get().to(serve))
        .route("/robots.txt", web::get().to(robots))
        .route("/favicon.svg", web::get().to(favicon))
        .route("/favicon.ico", web::get().to(favicon_ico));
}

/// The fingerprinted path of the asset `name` (its plain path if there is no such asset).
fn href(name: &str) -> String {
    ASSETS.iter().find(|a| a.name == name).map_or_else(
        || format!("/static/{name}"),
        |a| format!("/static/{}", a.fingerprinted),
    )
}

/// The path pages use for the stylesheet.
pub fn stylesheet_href() -> String {
    href("style.css")
}

/// The path of the order page's small script (reload while waiting, copy buttons).
pub fn order_script_href() -> String {
    href("order.js")
}

/// The path plan lists use for their day pickers' script.
pub fn plans_script_href() -> String {
    href("plans.js")
}

/// The receipt page's stylesheet (its layout on a phone and on paper).
pub fn receipt_stylesheet_href() -> String {
    href("receipt.css")
}

/// The receipt page's script (its Print button).
pub fn receipt_script_href() -> String {
    href("receipt.js")
}

/// The path pages use for the icon.
pub fn favicon_href() -> String {
    href("favicon.svg")
}

fn well_known(content_type: &'static str, body: &'static str) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, content_type))
        .insert_header((header::CACHE_CONTROL, WELL_KNOWN_CACHE))
        .body(body)
}

/// The rules, then where the sitemap is (an absolute address, as the protocol asks).
pub async fn robots(state: web::Data<crate::web::AppState>) -> HttpResponse {
    let origin = crate::web::sitemap::origin(&state);
    HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, "text/plain; charset=utf-8"))
        .insert_header((header::CACHE_CONTROL, WELL_KNOWN_CACHE))
        .body(format!("{ROBOTS_TXT}\nSitemap: {origin}/sitemap.xml\n"))
}

pub async fn favicon() -> HttpResponse {
    well_known("image/svg+xml", include_str!("../../static/favicon.svg"))
}

pub async fn favicon_ico() -> HttpResponse {
    HttpResponse::NoContent()
        .insert_header((header::CACHE_CONTROL, WELL_KNOWN_CACHE))
        .finish()
}

pub async fn serve(name: web::Path<String>) -> Result<HttpResponse, AppError> {
    let requested = name.as_str();
    let asset = ASSETS
        .iter()
        .find(|a| a.name == requested || a.fingerprinted == requested)
        .ok_or(AppError::NotFound)?;
    let cache = if asset.fingerprinted == requested {
        "public, max-age=31536000, immutable"
    } else {
        "public, max-age=3600"
    };
    Ok(HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, asset.content_type))
        .insert_header((header::CACHE_CONTROL, cache))
        .body(asset.body))
}
