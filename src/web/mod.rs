//! The HTTP face of the shop: actix-web handlers, middleware, error mapping and pages.
//!
//! Handlers stay thin: parse, call a capability, render. [`serve`] runs the routes on a
//! listener that startup (`crate::app`) bound and hands over with the shared [`AppState`].

mod admin;
pub mod assets;
mod brand;
mod checkout;
pub mod client_addr;
pub mod csrf;
pub mod error;
pub mod filters;
pub mod language;
pub mod lost_link;
mod metrics;
mod middleware;
mod my_esims;
mod ops;
pub mod order_cache;
mod orders;
pub mod page_cache;
pub mod pager;
pub mod pages;
pub mod rate_limit;
mod receipt;
pub mod request_id;
pub mod seo;
pub mod share_card;
mod shop;
pub mod sitemap;
mod trip;
mod unsubscribe;
mod webhooks;

use std::net::TcpListener;
use std::sync::Arc;

use actix_web::dev::Server;
use actix_web::{App, HttpResponse, HttpServer, web};

use crate::catalog::Catalog;
use crate::config::Settings;
use crate::db::Db;
use crate::orders::installation::InstallationKeys;
use crate::orders::outbox::Outbox;
use crate::payments::Provider;
use crate::upstream::PartnerClient;
use crate::wallet::SupplierAccount;
use crate::web::rate_limit::RateLimiter;
pub use error::AppError;

/// What every handler can reach.
pub struct AppState {
    /// The database, for the services built below ([`AppState::wallet`], [`AppState::books`]);
    /// handlers reach it only through capability services.
    pub(crate) db: Db,
    /// The console's accounts, sessions and audit log.
    pub staff: crate::staff::Staff,
    /// Purchases: the console's reads and actions, the order page, payment events.
    pub orders: crate::orders::Orders,
    pub settings: Arc<Settings>,
    pub catalog: Arc<Catalog>,
    /// The shop's name, colour, logo and company details, as every page shows them.
    pub identity: Arc<crate::shop::ShopIdentity>,
    /// The terms, privacy notice, refund and withdrawal policy and imprint.
    pub legal: Arc<crate::shop::ShopLegal>,
    pub upstream: PartnerClient,
    pub payments: Arc<Provider>,
    /// Cookies carry `Secure` (and the `__Host-` prefix) when the shop is served over HTTPS.
    pub secure_cookies: bool,
    pub checkout_limiter: RateLimiter,
    /// Console sign-in forms (password and code) per client, checked before any write.
    pub login_limiter: RateLimiter,
    /// Per-client limit of "Lost your link?" requests.
    pub lost_link_limiter: RateLimiter,
    /// Per-client limit of the buyer's "Send this eSIM to someone" forms.
    pub send_unit_limiter: RateLimiter,
    /// Wakes this process's "Lost your link?" sender after a request was queued.
    pub lost_link_wake: Arc<tokio::sync::Notify>,
    /// Asks this process's refresh of the supplier's history to run now.
    pub history_wake: crate::books::history::Wake,
    /// The checkout service, built once at start.
    pub checkout: crate::orders::checkout::Checkout,
    /// The outbox: its waker starts this process's workers at once after a commit that
    /// queued work.
    pub outbox: Outbox,
    /// Rendered catalog pages of the current snapshot.
    pub pages: page_cache::PageCache,
    /// Plan pages of the current snapshot, with a slot for the form's CSRF token.
    pub plan_pages: page_cache::SlottedCache,
    /// Rendered share cards (PNG), by address.
    pub share_cards: share_card::ShareCards,
    /// Opens stored installations, under the current secret key or a previous one.
    pub installation_keys: InstallationKeys,
    /// What the order page derived from opened installations, briefly (see `order_cache`).
    pub installs: order_cache::InstallCache,
    /// Rendered pages of ended orders, for a moment (see `order_cache`).
    pub order_pages: order_cache::PageCache,
    /// Whether new sales are paused, as the plan pages show it.
    pub sales: crate::wallet::SalesState,
    /// The supplier account: whether checkout may sell, and what the console shows.
    pub account: Arc<SupplierAccount>,
    /// The periods of the books this process is counting for the console.
    pub book_fill: crate::books::days::DayFill,
}

impl AppState {
    /// The supplier wallet's capabilities, over this process's database, upstream client and
    /// the owners' mail transport.
    pub fn wallet(&self) -> crate::wallet::Wallet<'_> {
        let upstream_settings = &self.settings.upstream;
        crate::wallet::Wallet {
            db: &self.db,
            upstream: &self.upstream,
            upstream_base: &upstream_settings.base_url,
            notifier: self.outbox.inner.notifier.as_ref(),
        }
    }

    /// The owner's books, over this process's database and upstream client.
    pub fn books(&self) -> crate::books::Books<'_> {
        crate::books::Books {
            db: &self.db,
            upstream: &self.upstream,
        }
    }
}

/// Serves every route on `listener` with `state`, each response through the middleware
/// (request id, log line, security headers, cache policy) and compression (of bodies from
/// 1 KiB up: smaller ones go as they are). After SIGTERM,
/// in-flight requests get `grace_secs` to finish.
pub fn serve(
    state: web::Data<AppState>,
    listener: TcpListener,
    grace_secs: u64,
) -> std::io::Result<Server> {
    Ok(HttpServer::new(move || {
        App::new()
            .app_data(state.clone())
            .configure(configure)
            .wrap(actix_web::middleware::from_fn(
                middleware::small_bodies_plain,
            ))
            .wrap(actix_web::middleware::Compress::default())
            .wrap(actix_web::middleware::from_fn(middleware::around_request))
    })
    .listen(listener)?
    .shutdown_timeout(grace_secs)
    .run())
}

/// Every route of the shop, and the answers for malformed input and unknown paths.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.app_data(web::PathConfig::default().error_handler(|err, _| error::bad_input(err)))
        .app_data(web::QueryConfig::default().error_handler(|err, _| error::bad_input(err)))
        .app_data(web::FormConfig::default().error_handler(|err, _| error::bad_input(err)))
        .app_data(web::JsonConfig::default().error_handler(|err, _| error::bad_input(err)))
        .route("/healthz", web::get().to(ops::healthz))
        .route("/readyz", web::get().to(ops::readyz))
        .route("/metrics", web::get().to(metrics::metrics))
        .configure(assets::configure)
        .configure(brand::configure)
        .configure(shop::configure)
        .configure(sitemap::configure)
        .configure(share_card::configure)
        .configure(admin::configure)
        .route("/checkout", web::post().to(checkout::checkout))
        .route("/lost-link", web::get().to(lost_link::show))
        .route("/lost-link", web::post().to(lost_link::submit))
        .route("/unsubscribe/{token}", web::get().to(unsubscribe::show))
        .route("/unsubscribe/{token}", web::post().to(unsubscribe::submit))
        .route("/my-esims", web::get().to(my_esims::list))
        .route("/my-esims/sign-in", web::get().to(my_esims::sign_in_page))
        .route("/my-esims/sign-in", web::post().to(my_esims::sign_in))
        .route("/my-esims/sign-out", web::post().to(my_esims::sign_out))
        .route(
            "/my-esims/sign-out-everywhere",
            web::post().to(my_esims::sign_out_everywhere),
        )
        .route(
            "/demo-pay/{session}",
            web::get().to(checkout::demo_pay_page),
        )
        .route(
            "/demo-pay/{session}/{action}",
            web::post().to(checkout::demo_pay_action),
        )
        .service(
            web::scope("/orders")
                .wrap(actix_web::middleware::from_fn(order_not_found))
                .route("/{id}", web::get().to(orders::order))
                .route("/{id}/receipt", web::get().to(receipt::receipt))
                .route("/{id}/receipt.pdf", web::get().to(receipt::receipt_pdf))
                .route("/{id}/trip", web::get().to(trip::show))
                .route("/{id}/trip", web::post().to(trip::save))
                .route(
                    "/{id}/units/{index}/send",
                    web::post().to(orders::send_unit),
                )
                .default_service(web::to(not_found)),
        )
        .route("/webhooks/stripe", web::post().to(webhooks::stripe))
        .route(
            "/webhooks/upstream/{token}",
            web::post().to(webhooks::upstream),
        )
        .default_service(web::to(not_found));
}

/// No route answered: a GET for a variant of an address (`/countries/JP/`) is sent to the
/// address (301, query kept); anything else is a 404.
async fn not_found(req: actix_web::HttpRequest) -> Result<HttpResponse, AppError> {
    if req.method() == actix_web::http::Method::GET
        && let Some(path) = seo::folded(req.path())
    {
        let location = match req.query_string() {
            "" => path.to_string(),
            query => format!("{path}?{query}"),
        };
        return Ok(HttpResponse::MovedPermanently()
            .insert_header((actix_web::http::header::LOCATION, location))
            .finish());
    }
    Err(AppError::NotFound)
}

/// Every 404 under `/orders` becomes [`AppError::OrderNotFound`]: the same page whether the
/// order exists or not, saying how to open one's own (the private link in the email).
async fn order_not_found(
    req: actix_web::dev::ServiceRequest,
    next: actix_web::middleware::Next<impl actix_web::body::MessageBody + 'static>,
) -> Result<actix_web::dev::ServiceResponse<actix_web::body::BoxBody>, actix_web::Error> {
    use actix_web::ResponseError;
    let res = next.call(req).await?;
    if res.status() == actix_web::http::StatusCode::NOT_FOUND {
        let (req, _) = res.into_parts();
        return Ok(actix_web::dev::ServiceResponse::new(
            req,
            AppError::OrderNotFound.error_response(),
        ));
    }
    Ok(res.map_into_boxed_body())
}
