//! `/unsubscribe/{token}`: the link in every reminder of an unfinished checkout. Opening it
//! shows one button; only the POST unsubscribes (mail scanners fetch links). Mail clients
//! that offer one-click unsubscribing (RFC 8058, the email's `List-Unsubscribe-Post` header)
//! POST `List-Unsubscribe=One-Click` from their servers, without the page's cookie: the token
//! in the address is then the proof, and unsubscribing is all it can do.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use serde::Deserialize;

use crate::i18n;
use crate::orders::checkout_reminder;
use crate::web::error::AppError;
use crate::web::{AppState, csrf, pages};

#[derive(Template)]
#[template(path = "shop/unsubscribe.html", blocks = ["title", "description"])]
struct UnsubscribePage {
    /// The form, or `None` once unsubscribed.
    form: Option<UnsubscribeForm>,
}

struct UnsubscribeForm {
    action: String,
    csrf_token: String,
}

#[derive(Deserialize)]
pub struct UnsubscribeFields {
    #[serde(default)]
    csrf_token: String,
    #[serde(rename = "List-Unsubscribe")]
    one_click: Option<String>,
}

pub async fn show(
    state: web::Data<AppState>,
    req: HttpRequest,
    token: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let token = token.into_inner();
    if !checkout_reminder::link_exists(&state.orders, &token).await? {
        return Err(AppError::NotFound);
    }
    let issued = csrf::issue(&req, &state.settings.secret_key, state.secure_cookies);
    let page = UnsubscribePage {
        form: Some(UnsubscribeForm {
            action: format!("/unsubscribe/{token}"),
            csrf_token: issued.token,
        }),
    };
    Ok(pages::private_page(StatusCode::OK, &page, issued.cookie))
}

pub async fn submit(
    state: web::Data<AppState>,
    req: HttpRequest,
    token: web::Path<String>,
    form: Option<web::Form<UnsubscribeFields>>,
) -> Result<HttpResponse, AppError> {
    let form = form.map(web::Form::into_inner);
    let one_click = form
        .as_ref()
        .and_then(|f| f.one_click.as_deref())
        .is_some_and(|v| v == "One-Click");
    let csrf_token = form.map(|f| f.csrf_token).unwrap_or_default();
    if !one_click
        && !csrf::verify_any(
            &req,
            state.settings.accepted_secret_keys(),
            state.secure_cookies,
            &csrf_token,
        )
    {
        return Err(AppError::Forbidden(i18n::t("form-expired")));
    }
    if !checkout_reminder::unsubscribe(&state.orders, &token.into_inner()).await? {
        return Err(AppError::NotFound);
    }
    Ok(pages::private_page(
        StatusCode::OK,
        &UnsubscribePage { form: None },
        None,
    ))
}
