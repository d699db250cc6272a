//! How a console page becomes a response, in one place (docs.rs's page trait is the model).
//!
//! A page struct declares its template (askama) and its nav entry ([`ConsolePage::SECTION`]);
//! a handler returns it as an [`AdminPage`], and the responder adds the rest: the chrome
//! around the content (the signed-in admin, the nav, the logout form), this browser's CSRF
//! token and cookie, the status, and the console's headers (never cached, never indexed,
//! never compressed). Page structs hold only their content: forms read the token from
//! [`Chrome`], which the layout takes from [`chrome`] while the page renders, the way the
//! shop's frame reads the support address.

use actix_web::body::BoxBody;
use actix_web::cookie::Cookie;
use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpMessage, HttpRequest, HttpResponse, Responder};
use askama::{DynTemplate, Template};

use super::state_of;
use crate::staff::Admin;
use crate::web::{csrf, pages};

/// A console page: its template and the nav entry it belongs to.
pub trait ConsolePage: Template + 'static {
    /// Which nav entry is current (`dashboard`, `orders`, …; `login` for the sign-in pages,
    /// which have no nav).
    const SECTION: &'static str;
}

/// Implements [`ConsolePage`] for page structs: `console_page!(UsersPage => "users");`.
macro_rules! console_page {
    ($($page:ty => $section:literal),+ $(,)?) => {
        $(impl $crate::web::admin::page::ConsolePage for $page {
            const SECTION: &'static str = $section;
        })+
    };
}
pub(crate) use console_page;

/// What every console page shows around its content.
#[derive(Clone, Default)]
pub struct Chrome {
    /// The signed-in admin's email; empty on the sign-in pages.
    pub email: String,
    pub is_owner: bool,
    /// This browser's CSRF token, for every form on the page.
    pub csrf_token: String,
    /// Which nav entry is current.
    pub section: &'static str,
    /// The zone the page shows its times in (`filters::when`).
    pub zone: crate::domain::clock::ConsoleZone,
}

tokio::task_local! {
    static CHROME: Chrome;
}

/// The chrome of the page being rendered; empty outside a render.
pub fn chrome() -> Chrome {
    CHROME.try_with(Chrome::clone).unwrap_or_default()
}

/// The time zone of the page being rendered; UTC outside a render.
pub fn zone() -> crate::domain::clock::ConsoleZone {
    CHROME
        .try_with(|chrome| chrome.zone.clone())
        .unwrap_or_default()
}

/// What a console handler answers: a page, rendered with its chrome by the responder, or a
/// response made elsewhere (a redirect).
pub struct AdminPage {
    answer: Answer,
}

enum Answer {
    Page {
        page: Box<dyn DynTemplate>,
        section: &'static str,
        status: StatusCode,
        retry_after: Option<i64>,
        cookie: Option<Cookie<'static>>,
    },
    Ready(HttpResponse),
}

impl AdminPage {
    /// `page` with 200.
    pub fn new<T: ConsolePage>(page: T) -> Self {
        Self::with_status(StatusCode::OK, page)
    }

    /// `page` with `status` (a refused form comes back with its 4xx).
    pub fn with_status<T: ConsolePage>(status: StatusCode, page: T) -> Self {
        Self {
            answer: Answer::Page {
                page: Box::new(page),
                section: T::SECTION,
                status,
                retry_after: None,
                cookie: None,
            },
        }
    }

    /// Tells the browser to come back after `secs` (a throttled form).
    pub fn retry_after(mut self, secs: i64) -> Self {
        if let Answer::Page { retry_after, .. } = &mut self.answer {
            *retry_after = Some(secs);
        }
        self
    }

    /// Sets `cookie` too (a session that was just replaced).
    pub fn with_cookie(mut self, new: Cookie<'static>) -> Self {
        if let Answer::Page { cookie, .. } = &mut self.answer {
            *cookie = Some(new);
        }
        self
    }
}

impl From<HttpResponse> for AdminPage {
    fn from(response: HttpResponse) -> Self {
        Self {
            answer: Answer::Ready(response),
        }
    }
}

impl Responder for AdminPage {
    type Body = BoxBody;

    fn respond_to(self, req: &HttpRequest) -> HttpResponse {
        let (page, section, status, retry_after, cookie) = match self.answer {
            Answer::Ready(response) => return response,
            Answer::Page {
                page,
                section,
                status,
                retry_after,
                cookie,
            } => (page, section, status, retry_after, cookie),
        };
        let state = match state_of(req) {
            Ok(state) => state,
            Err(err) => return actix_web::ResponseError::error_response(&err),
        };
        let issued = csrf::issue(req, &state.settings.secret_key, state.secure_cookies);
        let (email, is_owner) = req
            .extensions()
            .get::<Admin>()
            .map(|admin| (admin.email.clone(), admin.is_owner()))
            .unwrap_or_default();
        let chrome = Chrome {
            email,
            is_owner,
            csrf_token: issued.token,
            section,
            zone: state.identity.current().time_zone.clone(),
        };
        let rendered = CHROME.sync_scope(chrome, || page.dyn_render());
        let mut response = pages::html(status, rendered);
        console_headers(&mut response, issued.cookie);
        if let Some(secs) = retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        if let Some(cookie) = cookie {
            let _ = response.add_cookie(&cookie);
        }
        response
    }
}

/// Never cached, never indexed, never compressed, with the CSRF cookie when the browser has
/// none. Console pages show customers' data and secrets beside text a visitor can make vary
/// (the search box, notes), so compression could leak them (BREACH): the `Content-Encoding`
/// set here makes the compression middleware pass the body through as it is.
fn console_headers(response: &mut HttpResponse, cookie: Option<Cookie<'static>>) {
    crate::web::pages::keep_private(response.headers_mut());
    if let Some(cookie) = cookie {
        let _ = response.add_cookie(&cookie);
    }
}
