//! `storefront demo`: the whole shop on one machine with nothing to set up — SQLite under the
//! data folder, the sandbox upstream inside this process, demo payments and mail written as
//! `.eml` files. The secret key is generated once and kept in the data folder, so encrypted
//! data and sessions survive restarts.

use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rand::RngCore;

use crate::app::Application;
use crate::config::{self, SecretKey, Settings, Source};
use crate::db::Db;
use crate::sandbox::{self, SandboxConfig};
use crate::staff;

use super::CliError;

/// How long start-up waits for the first catalog sync before serving anyway.
const FIRST_SYNC_WAIT: Duration = Duration::from_secs(20);

pub async fn run(data_dir: PathBuf, mut bind: SocketAddr) -> Result<(), CliError> {
    if bind.port() == 0 {
        // The public URL (links in emails) needs the real port, so choose it now.
        bind = std::net::TcpListener::bind(bind)
            .and_then(|l| l.local_addr())
            .map_err(|e| CliError::Io(format!("cannot listen on {bind}: {e}")))?;
    }
    std::fs::create_dir_all(&data_dir)
        .map_err(|e| CliError::Io(format!("cannot create {}: {e}", data_dir.display())))?;
    let secret_key = load_or_create_secret_key(&data_dir.join("secret.key"))?;

    let mut key = [0u8; 16];
    rand::rng().fill_bytes(&mut key);
    let sandbox_key = format!("sk_sandbox_{}", hex::encode(key));
    let upstream = sandbox::spawn(SandboxConfig::new(sandbox_key.clone()))
        .await
        .map_err(|e| CliError::Io(format!("cannot start the built-in sandbox: {e}")))?;

    let public_url = public_url(bind);
    let database_url = format!("sqlite://{}", data_dir.join("storefront.db").display());
    let mail_dir = data_dir.join("mail");
    let source = Source::from_pairs([
        ("STOREFRONT_DATABASE_URL", database_url.clone()),
        ("STOREFRONT_BIND", bind.to_string()),
        ("STOREFRONT_PUBLIC_URL", public_url.clone()),
        ("STOREFRONT_UPSTREAM_BASE_URL", upstream.base_url.clone()),
        ("STOREFRONT_UPSTREAM_API_KEY", sandbox_key),
        ("STOREFRONT_SECRET_KEY", secret_key),
        ("STOREFRONT_PAYMENTS", "demo".to_string()),
        ("STOREFRONT_MAIL_DIR", mail_dir.display().to_string()),
        // A bare address: the sender is named after the shop, as everywhere else.
        ("STOREFRONT_MAIL_FROM", "shop@demo.invalid".to_string()),
        (
            "STOREFRONT_SUPPORT_EMAIL",
            "support@demo.invalid".to_string(),
        ),
    ]);
    let settings = Settings::from_source(&source)?;

    let db = Db::open(&settings.database_url, 8)?;
    db.migrate().await?;
    let admin_line = ensure_demo_owner(&db).await?;
    let app = Application::build(settings, db).await?;
    wait_for_catalog(&app).await;

    // Written with errors ignored: a closed stdout (piped into `head`, a supervisor that
    // stopped reading) must not take the shop down, as `println!` would by panicking.
    let banner = format!(
        "storefront demo is running\n  shop:      {public_url}\n  console:   {public_url}/admin\n  upstream:  {} (built-in sandbox, synthetic eSIMs)\n  database:  {database_url}\n  mail:      {} (one .eml file per message)\n  payments:  demo (test mode, no money moves)\n{admin_line}\nPress Ctrl-C to stop.\n",
        upstream.base_url,
        mail_dir.display()
    );
    let mut stdout = std::io::stdout();
    let _ = stdout.write_all(banner.as_bytes());
    let _ = stdout.flush();

    app.run_until_stopped()
        .await
        .map_err(|e| CliError::Io(format!("server stopped with an error: {e}")))
}

/// The demo's owner account.
const DEMO_OWNER: &str = "owner@demo.invalid";

/// Creates the demo's owner account on first start with a random password, and says how to
/// log in: the password only the time it is created (it is stored only as a hash).
async fn ensure_demo_owner(db: &Db) -> Result<String, CliError> {
    let email = staff::admin_email(DEMO_OWNER)
        .map_err(|e| CliError::Io(format!("demo owner email: {e}")))?;
    if staff::user_exists(db, &email).await? {
        return Ok(format!(
            "admin: {} (password printed on first start)",
            email.as_str()
        ));
    }
    let mut bytes = [0u8; 12];
    rand::rng().fill_bytes(&mut bytes);
    let password = hex::encode(bytes);
    let new = staff::NewPassword::parse(&password)
        .map_err(|e| CliError::Io(format!("demo owner password: {e}")))?;
    staff::create_user(db, &email, staff::Role::Owner, new, "demo")
        .await
        .map_err(|e| CliError::Io(format!("cannot create the demo owner: {e}")))?;
    Ok(format!("admin: {} password: {password}", email.as_str()))
}

/// The origin of the demo's links: the listen address, or `localhost` on its port when it
/// listens on every address (as in a container, where `0.0.0.0` is no address to open).
fn public_url(bind: SocketAddr) -> String {
    if bind.ip().is_unspecified() {
        format!("http://localhost:{}", bind.port())
    } else {
        format!("http://{bind}")
    }
}

/// The address the demo listens on: `STOREFRONT_BIND` if set, else 127.0.0.1:8080.
pub fn bind_from(source: &Source) -> Result<SocketAddr, CliError> {
    Ok(config::bind(source)?)
}

async fn wait_for_catalog(app: &Application) {
    let started = Instant::now();
    while app.catalog().snapshot().plans().is_empty() && started.elapsed() < FIRST_SYNC_WAIT {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    if app.catalog().snapshot().plans().is_empty() {
        tracing::warn!("the first catalog sync has not finished; pages fill in when it does");
    }
}

/// Reads the demo's secret key, creating it (owner-only) on first start.
fn load_or_create_secret_key(path: &Path) -> Result<String, CliError> {
    let io = |e: std::io::Error| CliError::Io(format!("{}: {e}", path.display()));
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(text.trim().to_string()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let key = SecretKey::generate().to_hex().expose().clone();
            let mut options = std::fs::OpenOptions::new();
            options.write(true).create_new(true);
            #[cfg(unix)]
            {
                use std::os::unix::fs::OpenOptionsExt;
                options.mode(0o600);
            }
            let mut file = options.open(path).map_err(io)?;
            file.write_all(format!("{key}\n").as_bytes()).map_err(io)?;
            Ok(key)
        }
        Err(e) => Err(io(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_name_an_address_a_browser_can_open() {
        let any: SocketAddr = "0.0.0.0:8080".parse().unwrap();
        assert_eq!(public_url(any), "http://localhost:8080");
        let any6: SocketAddr = "[::]:9000".parse().unwrap();
        assert_eq!(public_url(any6), "http://localhost:9000");
        let one: SocketAddr = "127.0.0.1:8081".parse().unwrap();
        assert_eq!(public_url(one), "http://127.0.0.1:8081");
    }
}
