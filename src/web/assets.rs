//! Static files compiled into the binary, so the shop runs from any working directory and
//! loads nothing from third parties.

use actix_web::http::header;
use actix_web::{HttpResponse, web};

use crate::web::error::AppError;

const ASSETS: &[(&str, &str, &str)] = &[(
    "style.css",
    "text/css; charset=utf-8",
    include_str!("../../static/style.css"),
)];

pub async fn serve(name: web::Path<String>) -> Result<HttpResponse, AppError> {
    let (_, content_type, body) = ASSETS
        .iter()
        .find(|(file, _, _)| *file == name.as_str())
        .ok_or(AppError::NotFound)?;
    Ok(HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, *content_type))
        .insert_header((header::CACHE_CONTROL, "public, max-age=3600"))
        .body(*body))
}
