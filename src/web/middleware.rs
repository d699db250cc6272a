//! What every response passes through: a request id, one log line, and the security headers and
//! cache policy that apply unless a handler chose its own. Its pages see the shop's identity
//! ([`pages::identity`]) and are written in the request's language
//! ([`language::choose`]).
//!
//! `HEAD` is served here too: the request is routed as the `GET` it mirrors, so every GET route
//! answers HEAD with the same status and headers (uptime monitors use HEAD). The body is not
//! sent: actix's HTTP/1 codec remembers the method it read off the wire and drops the body of
//! an answer to HEAD, keeping its `Content-Length`.

use std::time::Instant;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::http::header::{self, HeaderName, HeaderValue};
use actix_web::middleware::Next;
use actix_web::web;
use tracing::Instrument;

use crate::i18n;
use crate::web::request_id::{self, RequestId};
use crate::web::{AppState, language, pages, seo, sitemap};

/// `form-action` also names Stripe Checkout: browsers apply it to the redirect that follows a
/// form POST, and the checkout form's answer redirects there. Upstream's hosted top-up page,
/// on a host known only from its answer, is reached by a link on the console's top-up page
/// instead (links are not restricted by the CSP).
const CSP: &str = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; \
                   object-src 'none'; base-uri 'none'; frame-ancestors 'none'; \
                   form-action 'self' https://checkout.stripe.com";

/// Sent when the public URL is https: browsers then refuse plain http for the shop's host for
/// a year, so a network attacker cannot strip TLS from a later visit. Without
/// `includeSubDomains` (other hosts of the reseller's domain may not serve https, and the shop
/// cannot know) and without `preload` (a commitment baked into browsers that is slow to undo;
/// the operator's decision, with includeSubDomains, not the application's).
const HSTS: &str = "max-age=31536000";

/// Headers set on every answer unless the handler set them already.
const DEFAULTS: [(HeaderName, &str); 6] = [
    (header::CONTENT_SECURITY_POLICY, CSP),
    (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
    (header::X_FRAME_OPTIONS, "DENY"),
    (header::REFERRER_POLICY, "same-origin"),
    (header::CACHE_CONTROL, "no-store"),
    (
        HeaderName::from_static("permissions-policy"),
        "camera=(), microphone=(), geolocation=(), payment=()",
    ),
];

pub async fn around_request(
    mut req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let id = RequestId::generate();
    let https = req
        .app_data::<web::Data<AppState>>()
        .is_some_and(|state| state.settings.public_url.scheme() == "https");
    // The route pattern, never the raw path: paths can carry secrets (the upstream webhook
    // token), and query strings carry private order tokens.
    let route = req
        .match_pattern()
        .unwrap_or_else(|| "(unmatched)".to_string());
    let method = req.method().clone();
    if method == Method::HEAD {
        req.head_mut().method = Method::GET;
    }
    let quiet = matches!(
        route.as_str(),
        "/healthz"
            | "/readyz"
            | "/metrics"
            | "/static/{name}"
            | "/brand/{name}"
            | "/robots.txt"
            | "/sitemap.xml"
            | "/sitemaps/{name}"
            | "/favicon.svg"
            | "/favicon.ico"
    );
    let span = tracing::info_span!("request", request.id = %id, http.method = %method, http.route = %route);
    let started = Instant::now();
    let identity = req
        .app_data::<web::Data<AppState>>()
        .map_or_else(crate::web::pages::identity, |state| {
            state.identity.current()
        });

    let language = language::choose(&req);
    let here = seo::Here {
        origin: req
            .app_data::<web::Data<AppState>>()
            .map_or_else(|| "".into(), |state| sitemap::origin(state).into()),
        path: req.path().to_string(),
        same_page: matches!(method, Method::GET | Method::HEAD),
        lang_in_url: language.from_query,
        catalog: req
            .app_data::<web::Data<AppState>>()
            .map(|state| state.catalog.snapshot()),
    };
    let served = seo::scope(
        here,
        i18n::scope(
            language.lang,
            pages::with_identity(identity, next.call(req)),
        ),
    );
    let outcome = request_id::scope(id.clone(), served)
        .instrument(span.clone())
        .await;
    let mut res = outcome?;

    let status = res.status().as_u16();
    crate::web::metrics::record_response(status);
    let elapsed_ms = started.elapsed().as_secs_f64() * 1000.0;
    span.in_scope(|| {
        if quiet && status < 500 {
            tracing::debug!(http.status = status, elapsed_ms, "request finished");
        } else {
            tracing::info!(http.status = status, elapsed_ms, "request finished");
        }
    });

    let headers = res.headers_mut();
    language::finish(headers, language, https);
    if let Ok(value) = HeaderValue::from_str(id.as_str()) {
        headers.insert(HeaderName::from_static("x-request-id"), value);
    }
    for (name, value) in DEFAULTS {
        if !headers.contains_key(&name) {
            headers.insert(name, HeaderValue::from_static(value));
        }
    }
    if https {
        headers.insert(
            header::STRICT_TRANSPORT_SECURITY,
            HeaderValue::from_static(HSTS),
        );
    }
    Ok(res)
}

/// Bodies shorter than this are sent as they are: gzip's header and trailer alone are 18
/// bytes, so a tiny body gains nothing and costs a compressor per request.
pub const COMPRESS_FROM_BYTES: u64 = 1024;

/// Marks a response whose body is known to be shorter than [`COMPRESS_FROM_BYTES`] as not to
/// be compressed (`Content-Encoding: identity`, which the compression middleware passes
/// through, as it does for the console's pages). Sits inside the compression middleware.
pub async fn small_bodies_plain(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let mut res = next.call(req).await?;
    let small = matches!(
        res.response().body().size(),
        actix_web::body::BodySize::Sized(n) if n < COMPRESS_FROM_BYTES
    );
    if small && !res.headers().contains_key(header::CONTENT_ENCODING) {
        res.headers_mut().insert(
            header::CONTENT_ENCODING,
            HeaderValue::from_static("identity"),
        );
    }
    Ok(res)
}
