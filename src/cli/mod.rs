//! The `storefront` command line. `main.rs` calls [`main`]; each subcommand reads only the
//! settings it needs, so `migrate` works with nothing but a database URL.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser, Subcommand};

use crate::app::{Application, StartError};
use crate::catalog::{Catalog, SyncOutcome};
use crate::config::{self, ConfigError, Settings, Source};
use crate::db::{Db, DbError};
use crate::sandbox::{self, SandboxConfig, WebhookConfig};
use crate::telemetry;
use crate::upstream::PartnerClient;

mod admin;
mod demo;
mod healthcheck;
mod keys;
mod reconcile;

/// Connections of `serve`'s shared pool: web requests, the catalog sync, the account watch and
/// the other periodic work.
const WEB_CONNECTIONS: u32 = 10;

#[derive(Debug, Parser)]
#[command(
    name = "storefront",
    version,
    about = "Your own eSIM shop on top of the Reseller eSIM Partner API.",
    long_about = "Your own eSIM shop on top of the Reseller eSIM Partner API.\n\n\
        Settings come from STOREFRONT_* environment variables (see README.md), optionally \
        layered over a TOML file given with --config. A missing or malformed setting stops \
        the command with exit code 2 and one line naming the variable."
)]
pub struct Cli {
    /// Also read settings from this TOML file; environment variables win over it.
    #[arg(long, global = true, value_name = "FILE")]
    config: Option<PathBuf>,

    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Try the whole shop on this machine: SQLite under ./data, the built-in sandbox upstream,
    /// demo payments and mail written to ./data/mail. Serves http://127.0.0.1:8080 (or
    /// STOREFRONT_BIND) until Ctrl-C; data is kept across restarts.
    Demo {
        /// Folder for the database, the generated secret key and the mail.
        #[arg(long, value_name = "DIR", default_value = "data")]
        data: PathBuf,
    },
    /// Run the shop: apply pending database migrations, then serve HTTP on STOREFRONT_BIND
    /// until SIGTERM or Ctrl-C (in-flight requests are allowed to finish).
    Serve,
    /// Ask the shop listening on STOREFRONT_BIND (a wildcard address is asked on loopback) for
    /// GET /healthz: exit 0 on 200, 1 otherwise, within 3 seconds. The container image's
    /// HEALTHCHECK.
    Healthcheck,
    /// Apply pending database migrations to STOREFRONT_DATABASE_URL and exit. Safe to run
    /// while other replicas start: on PostgreSQL migrations run under a lock.
    Migrate,
    /// Catalog maintenance.
    #[command(subcommand)]
    Catalog(CatalogCommand),
    /// Serve a simulated Partner API for testing your integration, with fault injection.
    #[command(
        long_about = "Serve a simulated Partner API for testing your integration.\n\n\
        The simulator answers every endpoint of the Reseller eSIM Partner API under \
        http://ADDR/api/v1 with the spec's validation, a generated catalog, a funded sandbox \
        wallet ($500.00) and orders that move paid -> provisioning -> fulfilled on their own. \
        Point your integration's base URL at it and use KEY as its bearer key (KEY has every \
        scope, environment `sandbox`).\n\n\
        A control API under http://ADDR/_sandbox (same bearer key) lets your tests inject \
        faults (500 after commit, timeouts, dropped connections, 429 and 503 bursts, latency), \
        change prices, hide plans, choose order outcomes, move the wallet and read stats. \
        See docs/sandbox.md.\n\n\
        Everything is in memory and synthetic: eSIM profiles cannot be installed and no money \
        moves. Runs until SIGTERM or Ctrl-C. Needs no STOREFRONT_* settings."
    )]
    Sandbox(SandboxArgs),
    /// Admin console accounts.
    #[command(subcommand)]
    Admin(AdminCommand),
    /// The secret key: generate a new one, rotate stored data to it.
    #[command(subcommand)]
    Keys(KeysCommand),
    /// Match the shop's books for a period of UTC days against the supplier's wallet
    /// transactions and orders: every debit has a purchase, every placed purchase one debit,
    /// releases and refunds and top-ups match. Needs STOREFRONT_DATABASE_URL and
    /// STOREFRONT_UPSTREAM_BASE_URL / _API_KEY. Exits 0 when the books match, 1 with one
    /// mismatch a line (or when the supplier cannot be read), 2 on bad arguments.
    Reconcile {
        /// First day, YYYY-MM-DD (UTC).
        #[arg(long, value_name = "YYYY-MM-DD")]
        from: String,
        /// Last day, YYYY-MM-DD (UTC), included whole.
        #[arg(long, value_name = "YYYY-MM-DD")]
        to: String,
    },
}

#[derive(Debug, Subcommand)]
enum KeysCommand {
    /// Print a new random secret key (64 hex characters) for STOREFRONT_SECRET_KEY.
    Generate,
    /// Re-encrypt every stored installation sealed under a key listed in
    /// STOREFRONT_PREVIOUS_SECRET_KEYS with STOREFRONT_SECRET_KEY, and print how many rows
    /// changed per key. Needs STOREFRONT_DATABASE_URL too (pending migrations are applied
    /// first). Safe to interrupt and to run again; exits 1 while any installation is still
    /// under another key. Run it once every replica has the new key: see "Rotating the
    /// secret key" in docs/architecture.md.
    Rotate,
}

#[derive(Debug, Subcommand)]
enum AdminCommand {
    /// Create an admin account in STOREFRONT_DATABASE_URL (pending migrations are applied
    /// first). The password is read as one line from standard input, or asked for twice when
    /// standard input is a terminal: at least 12 characters and not a commonly used password.
    /// The account starts without two-factor sign-in (TOTP): it sets it up in the console under
    /// "Your account", and must do so right after its first login when an owner requires TOTP
    /// for every account.
    CreateUser {
        /// The account's email address (its login).
        #[arg(long, value_name = "EMAIL")]
        email: String,
        /// `owner` (everything) or `support` (orders and notes only).
        #[arg(long, value_name = "ROLE", value_parser = ["owner", "support"])]
        role: String,
    },
    /// Remove an account's two-factor sign-in (TOTP secret and recovery codes) and end its
    /// sessions, for an owner who lost both their phone and their recovery codes (in the
    /// console, another owner does this from the users page). Audited as done by `cli`.
    ResetTotp {
        /// The account's email address.
        #[arg(long, value_name = "EMAIL")]
        email: String,
    },
}

#[derive(Debug, Subcommand)]
enum CatalogCommand {
    /// Fetch the whole catalog from the Partner API now and replace the stored one (all or
    /// nothing: a failed sync leaves the current catalog). Needs STOREFRONT_DATABASE_URL and
    /// STOREFRONT_UPSTREAM_BASE_URL / _API_KEY; running shops pick the result up within
    /// seconds.
    Sync,
}

#[derive(Debug, clap::Args)]
struct SandboxArgs {
    /// Address to listen on, e.g. 127.0.0.1:8787 (use 0.0.0.0:PORT inside a container).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8787")]
    bind: SocketAddr,
    /// The bearer key your integration will send (`Authorization: Bearer KEY`).
    #[arg(long, value_name = "KEY")]
    key: String,
    /// Catalog seed: the same seed and plan count always give the same plans and ids.
    #[arg(long, value_name = "N", default_value_t = 1)]
    seed: u64,
    /// Number of plans in the generated catalog (the first country gets about half).
    #[arg(long, value_name = "N", default_value_t = 120)]
    plans: usize,
    /// Send order status changes to this URL as signed JSON POSTs (hints; poll for truth).
    #[arg(long, value_name = "URL", requires = "webhook_secret")]
    webhook_url: Option<url::Url>,
    /// HMAC-SHA256 secret for the X-Sandbox-Signature header of webhooks.
    #[arg(long, value_name = "S", requires = "webhook_url")]
    webhook_secret: Option<String>,
}

/// Why a command stopped; decides the exit code.
#[derive(Debug, thiserror::Error)]
enum CliError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Db(#[from] DbError),
    #[error("{0}")]
    Io(String),
    /// The command's input was refused (a weak password, a malformed email).
    #[error("{0}")]
    Input(String),
    /// The command did what it could, and says what is left.
    #[error("{0}")]
    Incomplete(String),
}

impl From<StartError> for CliError {
    /// A refused pair of settings is a configuration error (exit 2), named like the others.
    fn from(err: StartError) -> Self {
        match err {
            StartError::UnsafePair(pair) => Self::Config(ConfigError {
                var: pair.var().to_string(),
                problem: pair.problem().to_string(),
            }),
            other => Self::Io(other.to_string()),
        }
    }
}

impl CliError {
    fn exit_code(&self) -> u8 {
        match self {
            Self::Config(_) | Self::Input(_) => 2,
            Self::Db(_) | Self::Io(_) | Self::Incomplete(_) => 1,
        }
    }
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("{err}");
            ExitCode::from(err.exit_code())
        }
    }
}

fn run(cli: Cli) -> Result<(), CliError> {
    let source = Source::load(cli.config.as_deref())?;
    telemetry::init(config::log_format(&source)?);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::Io(format!("cannot start the async runtime: {e}")))?;
    match cli.command {
        Command::Serve => {
            let settings = Settings::from_source(&source)?;
            let armed = crate::failpoints::configure_from_env().map_err(|problem| ConfigError {
                var: crate::failpoints::VAR.into(),
                problem,
            })?;
            if !armed.is_empty() {
                tracing::warn!(failpoints = ?armed, "fail points armed: this is a crash test");
            }
            if let config::MailTransport::Smtp(url) = &settings.mail.transport {
                // The SMTP URL's finer rules (TLS mode, port) live with the mail module.
                crate::mail::SmtpEndpoint::parse(url.expose()).map_err(|e| ConfigError {
                    var: "STOREFRONT_SMTP_URL".into(),
                    problem: e.to_string(),
                })?;
            }
            runtime.block_on(serve(settings))
        }
        Command::Sandbox(args) => {
            if args.key.trim().is_empty() {
                return Err(CliError::Io("--key must not be empty".to_string()));
            }
            let mut config = SandboxConfig::new(args.key);
            config.seed = args.seed;
            config.plans = args.plans;
            config.webhook = args
                .webhook_url
                .zip(args.webhook_secret)
                .map(|(url, secret)| WebhookConfig {
                    url: url.to_string(),
                    secret,
                });
            let bind = args.bind;
            runtime
                .block_on(sandbox::serve(bind, config))
                .map_err(|e| CliError::Io(format!("sandbox on {bind}: {e}")))
        }
        Command::Demo { data } => {
            let bind = demo::bind_from(&source)?;
            runtime.block_on(demo::run(data, bind))
        }
        Command::Catalog(CatalogCommand::Sync) => {
            let url = config::database_url(&source)?;
            let upstream = config::upstream_settings(&source)?;
            let bps = config::default_markup_bps(&source)?;
            runtime.block_on(catalog_sync(url, upstream, bps))
        }
        Command::Admin(AdminCommand::CreateUser { email, role }) => {
            let url = config::database_url(&source)?;
            runtime.block_on(admin::create_user(url, &email, &role))
        }
        Command::Admin(AdminCommand::ResetTotp { email }) => {
            let url = config::database_url(&source)?;
            runtime.block_on(admin::reset_totp(url, &email))
        }
        Command::Keys(KeysCommand::Generate) => {
            keys::generate();
            Ok(())
        }
        Command::Keys(KeysCommand::Rotate) => {
            let url = config::database_url(&source)?;
            let (current, previous) = config::secret_keys(&source)?;
            runtime.block_on(keys::rotate(url, current, previous))
        }
        Command::Reconcile { from, to } => {
            let period = crate::books::Period::parse(&from, &to)
                .map_err(|e| CliError::Input(e.to_string()))?;
            let url = config::database_url(&source)?;
            let upstream = config::upstream_settings(&source)?;
            runtime.block_on(reconcile::run(url, upstream, period))
        }
        Command::Healthcheck => healthcheck::run(config::bind(&source)?),
        Command::Migrate => {
            let url = config::database_url(&source)?;
            runtime.block_on(async {
                let db = Db::open_for_command(&url, 1)?;
                let applied = db.migrate().await?;
                if applied.is_empty() {
                    println!("{url}: up to date");
                } else {
                    println!("{url}: applied {}", applied.join(", "));
                }
                Ok(())
            })
        }
    }
}

/// How long a command's database work may take before it says that it waits.
const SAY_WAITING_AFTER: std::time::Duration = std::time::Duration::from_secs(2);

/// Runs a command's database `work`; when it has not finished after [`SAY_WAITING_AFTER`]
/// (a running shop holds the database), says once on standard error that it waits its turn,
/// up to [`crate::db::COMMAND_BUSY_TIMEOUT`], instead of leaving the operator guessing.
pub(crate) async fn patiently<T>(work: impl std::future::Future<Output = T>) -> T {
    let mut work = std::pin::pin!(work);
    tokio::select! {
        done = &mut work => return done,
        () = tokio::time::sleep(SAY_WAITING_AFTER) => {}
    }
    eprintln!(
        "the database is busy (the shop is writing to it); waiting for its turn, up to {} s",
        crate::db::COMMAND_BUSY_TIMEOUT.as_secs()
    );
    work.await
}

async fn catalog_sync(
    url: config::DatabaseUrl,
    upstream: config::UpstreamSettings,
    default_markup_bps: u32,
) -> Result<(), CliError> {
    let client = PartnerClient::from_settings(&upstream).map_err(|e| {
        CliError::Config(ConfigError {
            var: "STOREFRONT_UPSTREAM_BASE_URL".into(),
            problem: e.to_string(),
        })
    })?;
    let db = Db::open_for_command(&url, 2)?;
    db.migrate().await?;
    let holder = format!("cli:{}", std::process::id());
    client.share_gate(Arc::new(
        crate::orders::upstream_gate::SharedUpstreamGate::new(db.clone(), &holder),
    ));
    let catalog = Catalog::new(db, default_markup_bps);
    match catalog.sync(&client, &holder).await {
        Ok(SyncOutcome::Synced(report)) => {
            println!(
                "synced {} plans, {} countries, {} regions in {} ms \
                 (fetch {} ms, store {} ms, snapshot {} ms){}",
                report.plans,
                report.countries,
                report.regions,
                report.elapsed.as_millis(),
                report.fetch.as_millis(),
                report.store.as_millis(),
                report.reload.as_millis(),
                if report.skipped_plans > 0 {
                    format!(
                        " ({} plans skipped: ids the order endpoint would refuse)",
                        report.skipped_plans
                    )
                } else {
                    String::new()
                }
            );
            Ok(())
        }
        Ok(SyncOutcome::Skipped) => Err(CliError::Io(
            "another process is syncing the catalog right now; try again in a few minutes".into(),
        )),
        Err(err) => Err(CliError::Io(err.to_string())),
    }
}

async fn serve(settings: Settings) -> Result<(), CliError> {
    // Web requests and the shop's periodic work; the outbox workers have a pool of their own
    // (`app::background_connections`).
    let db = Db::open(&settings.database_url, WEB_CONNECTIONS)?;
    let applied = db.migrate().await?;
    if !applied.is_empty() {
        tracing::info!(migrations = ?applied, "applied database migrations");
    }
    let bind = settings.bind;
    let public_url = settings.public_url.to_string();
    let app = Application::build(settings, db).await?;
    tracing::info!(bind = %bind, port = app.port(), public_url, "storefront is serving");
    app.run_until_stopped()
        .await
        .map_err(|e| CliError::Io(format!("server stopped with an error: {e}")))?;
    tracing::info!("storefront stopped");
    Ok(())
}
