//! The HTTP face of the shop: actix-web handlers, middleware, error mapping and pages.
//!
//! Handlers stay thin: parse, call a capability, render. [`Application`] builds the server on a
//! bound listener (port 0 in tests) so callers learn the real port before it runs.

pub mod assets;
pub mod error;
mod middleware;
mod ops;
pub mod pages;
pub mod request_id;
mod shop;

use std::net::TcpListener;
use std::sync::Arc;

use actix_web::dev::Server;
use actix_web::{App, HttpResponse, HttpServer, web};

use crate::catalog::Catalog;
use crate::config::Settings;
use crate::db::Db;
pub use error::AppError;

/// What every handler can reach.
pub struct AppState {
    pub db: Db,
    pub settings: Arc<Settings>,
    pub catalog: Arc<Catalog>,
}

/// How long in-flight requests get to finish after SIGTERM before the server closes them.
const SHUTDOWN_GRACE_SECS: u64 = 25;

pub struct Application {
    port: u16,
    server: Server,
}

impl Application {
    /// Binds `settings.bind` and prepares the server; nothing is served until
    /// [`Application::run_until_stopped`].
    pub fn build(settings: Settings, db: Db, catalog: Arc<Catalog>) -> std::io::Result<Self> {
        let listener = TcpListener::bind(settings.bind)?;
        let port = listener.local_addr()?.port();
        let state = web::Data::new(AppState {
            db,
            settings: Arc::new(settings),
            catalog,
        });
        let server = HttpServer::new(move || {
            App::new()
                .app_data(state.clone())
                .configure(configure)
                .wrap(actix_web::middleware::Compress::default())
                .wrap(actix_web::middleware::from_fn(middleware::around_request))
        })
        .listen(listener)?
        .shutdown_timeout(SHUTDOWN_GRACE_SECS)
        .run();
        Ok(Self { port, server })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Serves until SIGTERM or SIGINT, then stops accepting and lets in-flight requests finish.
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        self.server.await
    }
}

/// Every route of the shop, and the answers for malformed input and unknown paths.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.app_data(web::PathConfig::default().error_handler(|err, _| error::bad_input(err)))
        .app_data(web::QueryConfig::default().error_handler(|err, _| error::bad_input(err)))
        .app_data(web::FormConfig::default().error_handler(|err, _| error::bad_input(err)))
        .app_data(web::JsonConfig::default().error_handler(|err, _| error::bad_input(err)))
        .route("/healthz", web::get().to(ops::healthz))
        .route("/readyz", web::get().to(ops::readyz))
        .route("/static/{name}", web::get().to(assets::serve))
        .configure(shop::configure)
        .default_service(web::to(not_found));
}

async fn not_found() -> Result<HttpResponse, AppError> {
    Err(AppError::NotFound)
}
