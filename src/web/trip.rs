//! The buyer's "When do you leave?" form, `/orders/{id}/trip`: opened with the buyer's link
//! cookie only (the same 404 as an unknown order for anything else); the rule and the
//! reminder's scheduling are `orders::trip`'s.

use actix_web::http::StatusCode;
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use serde::Deserialize;

use crate::domain::PurchaseId;
use crate::i18n;
use crate::orders::links::LinkPolicy;
use crate::orders::trip::{self, TripError};
use crate::web::error::AppError;
use crate::web::orders::order_cookie_name;
use crate::web::{AppState, csrf, pages};

#[derive(Template)]
#[template(path = "orders/trip.html", blocks = ["title", "description"])]
struct TripPage {
    order_href: String,
    action: String,
    csrf_token: String,
    /// The field's value: the stored date, or what was typed.
    value: String,
    /// Whether a date is stored (the page then offers to remove it).
    has_date: bool,
    error: Option<String>,
}

#[derive(Deserialize)]
pub struct TripFields {
    #[serde(default)]
    csrf_token: String,
    #[serde(default)]
    trip_date: String,
    /// The "Remove the date" button.
    remove: Option<String>,
}

/// The buyer's link token from this browser's cookie for order `id`.
fn buyer_token(req: &HttpRequest, id: &PurchaseId) -> Result<String, AppError> {
    req.cookie(&order_cookie_name(id))
        .map(|c| c.value().to_string())
        .ok_or(AppError::NotFound)
}

fn parse_id(raw: String) -> Result<PurchaseId, AppError> {
    PurchaseId::parse(raw).map_err(|_| AppError::NotFound)
}

fn page(
    state: &AppState,
    req: &HttpRequest,
    id: &PurchaseId,
    status: StatusCode,
    value: String,
    has_date: bool,
    error: Option<String>,
) -> HttpResponse {
    let issued = csrf::issue(req, &state.settings.secret_key, state.secure_cookies);
    let page = TripPage {
        order_href: format!("/orders/{id}"),
        action: format!("/orders/{id}/trip"),
        csrf_token: issued.token,
        value,
        has_date,
        error,
    };
    let mut response = pages::private_page(status, &page, issued.cookie);
    crate::web::pages::keep_private(response.headers_mut());
    response
}

pub async fn show(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let id = parse_id(id.into_inner())?;
    let token = buyer_token(&req, &id)?;
    let policy = LinkPolicy::days(state.settings.order_link_days);
    let date = trip::buyer_trip(&state.orders, &id, &token, policy).await?;
    Ok(page(
        &state,
        &req,
        &id,
        StatusCode::OK,
        date.map(|d| d.iso()).unwrap_or_default(),
        date.is_some(),
        None,
    ))
}

pub async fn save(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    form: web::Form<TripFields>,
) -> Result<HttpResponse, AppError> {
    let form = form.into_inner();
    if !csrf::verify_any(
        &req,
        state.settings.accepted_secret_keys(),
        state.secure_cookies,
        &form.csrf_token,
    ) {
        return Err(AppError::Forbidden(i18n::t("form-expired")));
    }
    let id = parse_id(id.into_inner())?;
    let token = buyer_token(&req, &id)?;
    let policy = LinkPolicy::days(state.settings.order_link_days);
    let raw = if form.remove.is_some() {
        ""
    } else {
        form.trip_date.as_str()
    };
    let waker = state.outbox.waker();
    match trip::change_trip(&state.orders, &waker, &id, &token, policy, raw).await {
        Ok(_) => {
            // The order page shows the date: this process's kept copy is stale now.
            state.order_pages.forget(&id);
            Ok(HttpResponse::SeeOther()
                .insert_header((header::LOCATION, format!("/orders/{id}")))
                .finish())
        }
        Err(TripError::Date(refused)) => {
            // The form again, with what was typed and why it was refused; the stored date
            // stays as it was.
            let has_date = trip::buyer_trip(&state.orders, &id, &token, policy)
                .await?
                .is_some();
            Ok(page(
                &state,
                &req,
                &id,
                StatusCode::BAD_REQUEST,
                form.trip_date,
                has_date,
                Some(i18n::t(refused.message_id())),
            ))
        }
        Err(err) => Err(err.into()),
    }
}
