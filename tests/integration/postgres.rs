//! The PostgreSQL server the PostgreSQL variants of the tests create their databases on.
//!
//! `STOREFRONT_TEST_POSTGRES_URL` (a server where the tests may create databases) when set;
//! otherwise a private cluster is started once per test run from the binaries in
//! `/usr/lib/postgresql/*/bin` (as the `postgres` user when the tests run as root) and stopped
//! by a watchdog when the test process exits. Without either, [`postgres_server`] fails the
//! test, or answers `None` when the developer opted out (`STOREFRONT_TEST_SKIP=postgres`,
//! see [`crate::skips`]).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, OnceLock};

use crate::helpers::random_suffix;
use crate::skips::{self, Needed};

pub struct PgServer {
    pub admin_url: String,
    /// A server the tests did not start: their databases are dropped after use.
    pub external: bool,
    _child: Option<Mutex<Child>>,
}

impl PgServer {
    pub fn database_url(&self, name: &str) -> String {
        let mut url = url::Url::parse(&self.admin_url).expect("admin url");
        url.set_path(&format!("/{name}"));
        url.to_string()
    }
}

pub fn postgres_server() -> Option<&'static PgServer> {
    static SERVER: OnceLock<Option<PgServer>> = OnceLock::new();
    let server = SERVER.get_or_init(start_postgres).as_ref();
    if server.is_none() {
        skips::missing(
            Needed::Postgres,
            "PostgreSQL binaries not found under /usr/lib/postgresql/*/bin and \
             STOREFRONT_TEST_POSTGRES_URL is not set",
        );
    }
    server
}

fn start_postgres() -> Option<PgServer> {
    if let Ok(url) = std::env::var("STOREFRONT_TEST_POSTGRES_URL") {
        return Some(PgServer {
            admin_url: url,
            external: true,
            _child: None,
        });
    }
    Some(start_private_cluster(&find_postgres_bin()?))
}

fn find_postgres_bin() -> Option<PathBuf> {
    let mut candidates: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let version = entry.file_name().to_str()?.parse::<u32>().ok()?;
            let bin = entry.path().join("bin");
            bin.join("initdb").exists().then_some((version, bin))
        })
        .collect();
    candidates.sort();
    candidates.pop().map(|(_, bin)| bin)
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "0")
}

/// Starts a cluster owned by a watchdog shell that stops it and removes its folder as soon as
/// this test process exits (its stdin closes), however the process ends.
fn start_private_cluster(bin: &Path) -> PgServer {
    let dir = std::env::temp_dir().join(format!("storefront-pg-{}", random_suffix()));
    std::fs::create_dir_all(&dir).expect("create cluster folder");
    let root = is_root();
    if root {
        // initdb refuses to run as root: the cluster belongs to the `postgres` user.
        let status = Command::new("chown")
            .arg("postgres:")
            .arg(&dir)
            .status()
            .expect("chown cluster folder");
        assert!(
            status.success(),
            "chown of {} to postgres failed",
            dir.display()
        );
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port();
    let script = r#"
        set -e
        "$BIN/initdb" -D "$DIR/data" -A trust -U postgres --no-sync >"$DIR/initdb.log" 2>&1
        "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w -o "-p $PORT -k $DIR -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=1000" start >/dev/null
        echo ready
        cat >/dev/null || true
        "$BIN/pg_ctl" -D "$DIR/data" -m immediate stop >/dev/null 2>&1 || true
        rm -rf "$DIR"
    "#;
    let mut command = if root {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--", "sh", "-c", script]);
        c
    } else {
        let mut c = Command::new("sh");
        c.args(["-c", script]);
        c
    };
    command
        .env("BIN", bin)
        .env("DIR", &dir)
        .env("PORT", port.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    let mut child = command.spawn().expect("start the PostgreSQL watchdog");
    let stdout = child.stdout.take().expect("watchdog stdout");
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("read from watchdog");
    if line.trim() != "ready" {
        let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap_or_default();
        let log = format!("{}{}", read("initdb.log"), read("server.log"));
        panic!("the private PostgreSQL cluster did not start:\n{log}");
    }
    PgServer {
        admin_url: format!("postgres://postgres@127.0.0.1:{port}/postgres"),
        external: false,
        _child: Some(Mutex::new(child)),
    }
}
