//! Static files compiled into the binary, so the shop runs from any working directory and
//! loads nothing from third parties. Each file is also served under a name carrying a hash of
//! its content (`style.3f2a9c1e.css`) with a year-long immutable cache; pages link that name,
//! so a new build never meets a stale stylesheet.

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
    vec![asset(
        "style.css",
        "text/css; charset=utf-8",
        include_str!("../../static/style.css"),
    )]
});

/// The path pages use for the stylesheet.
pub fn stylesheet_href() -> String {
    ASSETS
        .iter()
        .find(|a| a.name == "style.css")
        .map(|a| format!("/static/{}", a.fingerprinted))
        .unwrap_or_else(|| "/static/style.css".to_string())
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
