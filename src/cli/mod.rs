//! The `storefront` command line. `main.rs` calls [`main`]; each subcommand reads only the
//! settings it needs, so `migrate` works with nothing but a database URL.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::config::{self, ConfigError, Settings, Source};
use crate::db::{Db, DbError};
use crate::telemetry;
use crate::web::Application;

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
    /// Run the shop: apply pending database migrations, then serve HTTP on STOREFRONT_BIND
    /// until SIGTERM or Ctrl-C (in-flight requests are allowed to finish).
    Serve,
    /// Apply pending database migrations to STOREFRONT_DATABASE_URL and exit. Safe to run
    /// while other replicas start: on PostgreSQL migrations run under a lock.
    Migrate,
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
}

impl CliError {
    fn exit_code(&self) -> u8 {
        match self {
            Self::Config(_) => 2,
            Self::Db(_) | Self::Io(_) => 1,
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
            runtime.block_on(serve(settings))
        }
        Command::Migrate => {
            let url = config::database_url(&source)?;
            runtime.block_on(async {
                let db = Db::open(&url, 1)?;
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

async fn serve(settings: Settings) -> Result<(), CliError> {
    let pool_size = u32::try_from(settings.workers)
        .unwrap_or(u32::MAX)
        .saturating_add(8);
    let db = Db::open(&settings.database_url, pool_size)?;
    let applied = db.migrate().await?;
    if !applied.is_empty() {
        tracing::info!(migrations = ?applied, "applied database migrations");
    }
    let bind = settings.bind;
    let public_url = settings.public_url.to_string();
    let app = Application::build(settings, db)
        .await
        .map_err(|e| CliError::Io(e.to_string()))?;
    tracing::info!(bind = %bind, port = app.port(), public_url, "storefront is serving");
    app.run_until_stopped()
        .await
        .map_err(|e| CliError::Io(format!("server stopped with an error: {e}")))?;
    tracing::info!("storefront stopped");
    Ok(())
}
