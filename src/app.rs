//! Startup: builds the shared state from the settings, spawns the background loops (catalog
//! sync, outbox workers, the PostgreSQL listener, unpaid-checkout expiry, the supplier account
//! and wallet watches, the daily audit and retention prunes, the refresh of the local copy of
//! the supplier's history) and hands the bound listener to [`crate::web`] to serve. The binary's
//! `serve` and `demo`, and the tests, start the shop through [`Application`].

use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;

use actix_web::dev::Server;
use actix_web::web::Data as ActixData;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::catalog::Catalog;
use crate::config::{Payments, Settings};
use crate::db::Db;
use crate::mail::Mailer;
use crate::orders::installation::{InstallationKey, InstallationKeys};
use crate::orders::notify::Notifier;
use crate::orders::outbox::{Outbox, OutboxConfig};
use crate::orders::upstream_gate::SharedUpstreamGate;
use crate::payments::Provider;
use crate::payments::demo::DemoProvider;
use crate::payments::stripe::StripeProvider;
use crate::upstream::{ClientBuildError, PartnerClient};
use crate::wallet::supplier_account::Policy;
use crate::wallet::{SupplierAccount, UnsafePair};
use crate::web::rate_limit::RateLimiter;
use crate::web::{self, AppState};

/// On PostgreSQL, one listening connection wakes this process when another replica commits
/// outbox work (its workers run it at once), changes the catalog (a sync or a markup change:
/// the snapshot reloads at once rather than at the next catalog check) or the shop's identity
/// or legal texts.
/// `None` on SQLite.
fn listen_for_other_replicas(
    url: &crate::config::DatabaseUrl,
    outbox: &Outbox,
    catalog: &Arc<Catalog>,
    (identity, legal): (
        &Arc<crate::shop::ShopIdentity>,
        &Arc<crate::shop::ShopLegal>,
    ),
    shutdown: watch::Receiver<bool>,
) -> Option<tokio::task::JoinHandle<()>> {
    let crate::config::DatabaseUrl::Postgres(url) = url else {
        return None;
    };
    let waker = outbox.waker();
    let catalog = Arc::clone(catalog);
    let identity = Arc::clone(identity);
    let legal = Arc::clone(legal);
    Some(crate::db::listen::spawn(
        url.clone(),
        &[
            crate::db::outbox::WAKE_CHANNEL,
            crate::db::CATALOG_CHANNEL,
            crate::db::identity::CHANNEL,
        ],
        move |channel| {
            if channel == crate::db::CATALOG_CHANNEL {
                catalog.wake();
            } else if channel == crate::db::identity::CHANNEL {
                identity.wake();
                legal.wake();
            } else {
                waker.wake();
            }
        },
        shutdown,
    ))
}

/// How long in-flight requests get to finish after SIGTERM before the server closes them.
const SHUTDOWN_GRACE_SECS: u64 = 25;
/// How long background work (catalog sync, outbox jobs in hand) gets to stop after the server
/// has stopped, all of it together.
const BACKGROUND_GRACE: Duration = Duration::from_secs(4);

/// Connections of the background pool for `workers` workers per lane: one per worker of the
/// placement and order lanes, one for the reminders' worker, one for the balance refresher,
/// one for the upstream gate's reads and lease renewals.
fn background_connections(workers: usize) -> u32 {
    u32::try_from(workers.saturating_mul(2))
        .unwrap_or(u32::MAX)
        .saturating_add(3)
}

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: std::net::SocketAddr,
        source: std::io::Error,
    },
    #[error("STOREFRONT_UPSTREAM_BASE_URL / STOREFRONT_UPSTREAM_API_KEY: {0}")]
    Upstream(#[from] ClientBuildError),
    #[error("STOREFRONT_STRIPE_SECRET_KEY / STOREFRONT_STRIPE_WEBHOOK_SECRET: {0}")]
    Payments(String),
    #[error("STOREFRONT_SMTP_URL / STOREFRONT_MAIL_DIR: {0}")]
    Mail(String),
    /// The supplier account and the payment settings must not be used together.
    #[error(transparent)]
    UnsafePair(#[from] UnsafePair),
    /// The background pool could not be opened.
    #[error(transparent)]
    Database(#[from] crate::db::DbError),
    /// The message catalogs compiled in are incomplete (a build that skipped the tests).
    #[error("message catalogs: {}", .0.join("; "))]
    Catalogs(Vec<String>),
}

pub struct Application {
    port: u16,
    catalog: Arc<Catalog>,
    server: Server,
    stop_background: watch::Sender<bool>,
    background: Vec<JoinHandle<()>>,
    /// Kept to release the leases of jobs still running when the workers are stopped.
    outbox: Outbox,
}

impl Application {
    /// Reads the supplier account (refusing an unsafe pair), binds `settings.bind`, loads the
    /// catalog the database holds and starts the background work (catalog sync, account
    /// watch). Nothing is served until [`Application::run_until_stopped`].
    pub async fn build(settings: Settings, db: Db) -> Result<Self, StartError> {
        crate::i18n::check().map_err(StartError::Catalogs)?;
        let client = PartnerClient::from_settings(&settings.upstream)?;
        // The workers finishing paid purchases never wait for a connection behind web
        // requests, nor behind them at SQLite's write gate (`Db::for_background`).
        let background_db = db.for_background(background_connections(settings.workers))?;
        // Every path of every replica holds back after a 429 (catalog, checkout, wallet, jobs).
        // The gate is read before every upstream call, the workers' included: it reads
        // through the background connections.
        client.share_gate(Arc::new(SharedUpstreamGate::new(
            background_db.clone(),
            &format!("serve:{}", std::process::id()),
        )));
        let account = Arc::new(SupplierAccount::new(
            db.clone(),
            client.clone(),
            Policy::from_settings(&settings),
        ));
        account.check_at_start().await?;
        let catalog = Arc::new(Catalog::new(db.clone(), settings.default_markup_bps));
        if let Err(err) = catalog.reload().await {
            // Not ready yet (e.g. migrations pending): serve an empty catalog, /readyz says 503.
            tracing::warn!(error = %err, "catalog could not be loaded at start");
        }
        let identity = Arc::new(crate::shop::ShopIdentity::new(db.clone(), &settings));
        if let Err(err) = identity.reload().await {
            tracing::warn!(error = %err, "shop identity could not be loaded at start");
        }
        let legal = Arc::new(crate::shop::ShopLegal::new(db.clone()));
        if let Err(err) = legal.reload().await {
            tracing::warn!(error = %err, "legal texts could not be loaded at start");
        }
        let addr = settings.bind;
        let listener =
            TcpListener::bind(addr).map_err(|source| StartError::Bind { addr, source })?;
        let port = listener
            .local_addr()
            .map_err(|source| StartError::Bind { addr, source })?
            .port();

        let payments = Arc::new(match &settings.payments {
            Payments::Demo => Provider::Demo(DemoProvider::new(
                &settings.secret_key,
                settings.public_url.clone(),
            )),
            Payments::Stripe(stripe) => Provider::Stripe(
                StripeProvider::new(stripe).map_err(|e| StartError::Payments(e.to_string()))?,
            ),
        });
        let mailer = Mailer::new(&settings.mail).map_err(|e| StartError::Mail(e.to_string()))?;
        let outbox = Outbox::new(
            background_db,
            client.clone(),
            Arc::clone(&payments),
            InstallationKey::derive(&settings.secret_key),
            OutboxConfig::new(settings.min_margin, settings.auto_refund),
        )
        .with_notifier(Notifier {
            mailer,
            public_url: settings.public_url.clone(),
            identity: Arc::clone(&identity),
        });

        let (stop_background, stopped) = watch::channel(false);
        let holder = format!("{}:{port}:{}", hostname(), std::process::id());
        let mut background = vec![tokio::spawn(Arc::clone(&catalog).run_periodic(
            client.clone(),
            Duration::from_secs(settings.catalog_refresh_secs),
            holder,
            stopped.clone(),
        ))];
        background.extend(outbox.spawn(settings.workers, stopped.clone()));
        let own_outbox = outbox.clone();
        background.extend(listen_for_other_replicas(
            &settings.database_url,
            &outbox,
            &catalog,
            (&identity, &legal),
            stopped.clone(),
        ));
        background.push(tokio::spawn(
            Arc::clone(&identity).run_periodic(stopped.clone()),
        ));
        background.push(tokio::spawn(
            Arc::clone(&legal).run_periodic(stopped.clone()),
        ));
        // Work nobody waits on writes after requests, paced (`db::write_gate`).
        let background_work = db.background();
        background.push(tokio::spawn(expire_unpaid_loop(
            background_work.clone(),
            stopped.clone(),
        )));
        background.push(tokio::spawn(Arc::clone(&account).watch(
            Duration::from_secs(settings.catalog_refresh_secs),
            stopped.clone(),
        )));

        let lost_link_wake = Arc::new(tokio::sync::Notify::new());
        background.push(tokio::spawn(crate::orders::lost_link::run(
            db.clone(),
            outbox.inner.notifier.clone(),
            Arc::clone(&lost_link_wake),
            stopped.clone(),
        )));
        background.push(tokio::spawn(crate::staff::audit::run_daily(
            background_work.clone(),
            settings.audit_retention_days,
            stopped.clone(),
        )));
        let history_wake = crate::books::history::Wake::default();
        background.push(tokio::spawn(crate::books::history::run(
            background_work.clone(),
            client.clone(),
            history_wake.clone(),
            Duration::from_secs(u64::from(settings.supplier_full_pass_days) * 86_400),
            stopped.clone(),
        )));
        background.push(tokio::spawn(crate::orders::console::run_tallies(
            background_work.clone(),
            stopped.clone(),
        )));
        background.push(tokio::spawn(crate::orders::retention::run_daily(
            background_work,
            crate::orders::retention::Retention {
                job_history_days: settings.job_history_days,
                abandoned_checkout_days: settings.abandoned_checkout_days,
                order_link_days: settings.order_link_days,
            },
            stopped.clone(),
        )));
        let checkout_limiter =
            RateLimiter::new(settings.checkout_rate_limit, Duration::from_secs(60));
        let login_limiter = RateLimiter::new(settings.login_rate_limit, Duration::from_secs(60));
        let installation_keys =
            InstallationKeys::derive(&settings.secret_key, &settings.previous_secret_keys);
        let checkout = crate::orders::checkout::Checkout {
            db: db.clone(),
            upstream: client.clone(),
            payments: Arc::clone(&payments),
            public_url: settings.public_url.clone(),
            account: Arc::clone(&account),
            live_reads: crate::orders::checkout::LiveReads::default(),
            balance: outbox.balance_reader().clone(),
            min_margin: settings.min_margin,
        };
        let state = ActixData::new(AppState {
            staff: crate::staff::Staff::new(db.clone()),
            orders: crate::orders::Orders::new(db.clone(), Arc::clone(&identity)),
            db,
            secure_cookies: settings.public_url.scheme() == "https",
            settings: Arc::new(settings),
            catalog: Arc::clone(&catalog),
            identity,
            legal,
            upstream: client,
            payments,
            checkout_limiter,
            login_limiter,
            lost_link_limiter: RateLimiter::new(
                crate::web::lost_link::PER_CLIENT_LIMIT,
                crate::web::lost_link::PER_CLIENT_WINDOW,
            ),
            // As many eSIM links as "Lost your link?" requests, per client.
            send_unit_limiter: RateLimiter::new(
                crate::web::lost_link::PER_CLIENT_LIMIT,
                crate::web::lost_link::PER_CLIENT_WINDOW,
            ),
            lost_link_wake,
            history_wake,
            checkout,
            outbox,
            pages: crate::web::page_cache::PageCache::default(),
            plan_pages: crate::web::page_cache::SlottedCache::default(),
            share_cards: crate::web::share_card::ShareCards::default(),
            installation_keys,
            installs: crate::web::order_cache::InstallCache::for_installs(),
            order_pages: crate::web::order_cache::PageCache::for_pages(),
            sales: crate::wallet::SalesState::default(),
            account,
            book_fill: crate::books::days::DayFill::default(),
        });
        background.push(tokio::spawn(sweep_installs(state.clone(), stopped.clone())));
        background.push(tokio::spawn(watch_wallet(state.clone(), stopped)));
        let server = web::serve(state, listener, SHUTDOWN_GRACE_SECS)
            .map_err(|source| StartError::Bind { addr, source })?;
        Ok(Self {
            port,
            catalog,
            server,
            stop_background,
            background,
            outbox: own_outbox,
        })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Stops the server as SIGTERM does (in-flight requests finish, then the background
    /// work stops): for an embedding (the tests) that runs the app and later stops it.
    pub fn stop_handle(&self) -> actix_web::dev::ServerHandle {
        self.server.handle()
    }

    /// The outbox whose workers this app runs (tests run its due jobs at will).
    pub fn outbox(&self) -> &Outbox {
        &self.outbox
    }

    /// The catalog this app serves (kept fresh by its background loop).
    pub fn catalog(&self) -> &Arc<Catalog> {
        &self.catalog
    }

    /// Serves until SIGTERM or SIGINT, then stops accepting, lets in-flight requests finish
    /// and stops the background work. A job still running after the grace is abandoned and
    /// its lease released, so another replica takes it over at once rather than when the
    /// lease lapses.
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        let served = self.server.await;
        let _ = self.stop_background.send(true);
        // One grace for all of them: they stop side by side.
        let deadline = tokio::time::Instant::now() + BACKGROUND_GRACE;
        for mut task in self.background {
            if tokio::time::timeout_at(deadline, &mut task).await.is_err() {
                tracing::warn!("background task did not stop in time");
                task.abort();
            }
        }
        match self.outbox.release_leases().await {
            Ok(0) => {}
            Ok(n) => tracing::info!(jobs = n, "released the leases of unfinished jobs"),
            Err(err) => {
                tracing::warn!(error = %err, "could not release job leases; they lapse by themselves")
            }
        }
        served
    }
}

/// Every minute: the wallet is re-read from upstream, the shop's low-balance alert is raised
/// or resolved, and alert emails that failed before are retried
/// ([`crate::wallet::Wallet::refresh_and_check`]).
async fn watch_wallet(state: ActixData<AppState>, mut shutdown: watch::Receiver<bool>) {
    loop {
        state.wallet().refresh_and_check().await;
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_secs(60)) => {}
            _ = shutdown.changed() => return,
        }
    }
}

/// Drops the order page's expired installation views and pages even when no page is viewed.
async fn sweep_installs(state: ActixData<AppState>, mut shutdown: watch::Receiver<bool>) {
    loop {
        tokio::select! {
            _ = tokio::time::sleep(crate::web::order_cache::PAGE_TTL) => {
                state.installs.sweep();
                state.order_pages.sweep();
            }
            _ = shutdown.changed() => return,
        }
    }
}

/// Every minute, purchases whose payment page expired unpaid become `payment_failed`. The
/// first sweep is a minute after start: pages and the console already tell an expired
/// checkout by its time, and the first minute of an old shop has background work enough.
async fn expire_unpaid_loop(db: Db, mut shutdown: watch::Receiver<bool>) {
    loop {
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_secs(60)) => {}
            _ = shutdown.changed() => return,
        }
        match db
            .run(|conn| crate::orders::checkout::expire_unpaid(conn, crate::db::now_ms()))
            .await
        {
            Ok(0) => {}
            Ok(n) => tracing::info!(purchases = n, "unpaid checkouts expired"),
            Err(err) => tracing::warn!(error = %err, "could not expire unpaid checkouts"),
        }
    }
}

fn hostname() -> String {
    std::fs::read_to_string("/etc/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_else(|_| "host".to_string())
}
