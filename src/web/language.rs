//! Which language a consumer page is written in: `?lang=xx` (the switcher's links, which also
//! sets the `lang` cookie, so no script is needed), else the `lang` cookie, else the best of
//! `Accept-Language`, else English. The console (`/admin`) is always English.
//!
//! Answers written in a negotiated language say so to caches with
//! `Vary: Accept-Language, Cookie`: a shared cache then keeps one copy per header value and
//! never hands a German page to an English browser. `?lang=` is in the URL itself; its answer,
//! which sets the cookie, is never stored by a shared cache.

use actix_web::cookie::{Cookie, SameSite};
use actix_web::dev::ServiceRequest;
use actix_web::http::header::{self, HeaderValue};

use crate::i18n::Lang;

/// The cookie that remembers a choice made with the switcher.
pub const COOKIE: &str = "lang";

/// How long the choice is remembered.
const COOKIE_DAYS: i64 = 365;

/// The language of one request, and how it was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Choice {
    pub lang: Lang,
    /// Chosen with `?lang=`: the answer sets the cookie.
    pub from_query: bool,
    /// A consumer page (not the console, not an API): its answer varies by language.
    pub negotiated: bool,
}

/// The language `req` is answered in.
pub fn choose(req: &ServiceRequest) -> Choice {
    let path = req.path();
    if path == "/admin" || path.starts_with("/admin/") {
        return Choice {
            lang: Lang::En,
            from_query: false,
            negotiated: false,
        };
    }
    let from_query = named_in(req.query_string());
    let lang = from_query
        .or_else(|| req.cookie(COOKIE).and_then(|c| Lang::parse(c.value())))
        .or_else(|| {
            req.headers()
                .get(header::ACCEPT_LANGUAGE)
                .and_then(|v| v.to_str().ok())
                .and_then(Lang::negotiate)
        })
        .unwrap_or_default();
    Choice {
        lang,
        from_query: from_query.is_some(),
        negotiated: true,
    }
}

/// The language a query string names with `lang=`, if any.
pub fn named_in(query: &str) -> Option<Lang> {
    query
        .split('&')
        .filter_map(|pair| pair.strip_prefix("lang="))
        .find_map(Lang::parse)
}

/// The cookie that remembers `lang`.
pub fn cookie(lang: Lang, secure: bool) -> Cookie<'static> {
    Cookie::build(COOKIE, lang.code())
        .path("/")
        .http_only(true)
        .secure(secure)
        .same_site(SameSite::Lax)
        .max_age(actix_web::cookie::time::Duration::days(COOKIE_DAYS))
        .finish()
}

/// Adds what an answer in a negotiated language needs: for a page, `Vary`; for a `?lang=`
/// choice, the cookie, with the answer kept out of shared caches. Assets, redirects and JSON
/// are the same in every language and do not vary.
pub fn finish(headers: &mut header::HeaderMap, choice: Choice, secure: bool) {
    if !choice.negotiated {
        return;
    }
    let page = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/html"));
    if page {
        let vary = match headers.get(header::VARY).and_then(|v| v.to_str().ok()) {
            Some(existing) if !existing.is_empty() => {
                format!("{existing}, Accept-Language, Cookie")
            }
            _ => "Accept-Language, Cookie".to_string(),
        };
        if let Ok(value) = HeaderValue::from_str(&vary) {
            headers.insert(header::VARY, value);
        }
    }
    if choice.from_query {
        if let Ok(value) = HeaderValue::from_str(&cookie(choice.lang, secure).to_string()) {
            headers.append(header::SET_COOKIE, value);
        }
        let public = headers
            .get(header::CACHE_CONTROL)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.contains("public"));
        if public {
            headers.insert(
                header::CACHE_CONTROL,
                HeaderValue::from_static("private, max-age=60"),
            );
        }
    }
}

/// The switcher's links: each language and where it leads. On a page got with GET, the same
/// page (`?lang=de`: the other query parameters are dropped, so a cached page never carries
/// a visitor's query); on the answer to a form (a checkout problem), the home page, since the
/// form's address cannot be opened by a link.
pub fn switcher() -> Vec<(Lang, String)> {
    let same_page = crate::web::seo::same_page();
    Lang::ALL
        .into_iter()
        .map(|lang| {
            let href = if same_page {
                format!("?lang={}", lang.code())
            } else {
                format!("/?lang={}", lang.code())
            };
            (lang, href)
        })
        .collect()
}
