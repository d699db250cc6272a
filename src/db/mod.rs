//! The one query layer over SQLite and PostgreSQL.
//!
//! [`DbConn`] is a diesel `MultiConnection`: the backend is chosen by the URL scheme and every
//! query is written once. Where the SQL must differ (write-locking, upserts, job claims) the
//! function matches on the variant and keeps both arms side by side.
//!
//! Diesel is synchronous, so [`Db::run`] moves each unit of work onto tokio's blocking pool with
//! one pooled connection. Times that are compared or leased on are `i64` unix milliseconds:
//! SQLite and PostgreSQL disagree about timestamp text and precision, integers they agree on.

pub mod alert_mail;
pub mod alerts;
pub mod book_days;
pub mod book_explanations;
pub mod books;
pub mod catalog;
pub mod checkouts;
mod column;
pub mod customer_orders;
pub mod customer_sessions;
pub mod daily_sales;
pub mod dashboard;
pub mod display_rates;
pub mod holds;
pub mod identity;
pub mod installations;
pub mod lease;
pub mod legal;
pub mod listen;
pub mod login_attempts;
pub mod lost_links;
mod low_priority;
pub mod metrics;
pub mod order_links;
pub mod order_search;
pub mod outbox;
pub mod payment_events;
pub mod pricing;
pub mod promo;
pub mod purchases;
pub mod receipts;
pub mod refunds;
pub mod region_names;
pub mod reminder_addresses;
pub mod retention;
pub mod schema;
pub mod settings;
pub mod staff;
pub mod supplier_account;
pub mod supplier_history;
pub mod tax;
pub mod topups;
pub mod totp;
pub mod travellers;
pub mod wallet;
pub mod write_gate;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use diesel::connection::{AnsiTransactionManager, SimpleConnection, TransactionManager};
use diesel::prelude::*;
use diesel::r2d2::{self, Pool, PooledConnection};
use diesel::{PgConnection, SqliteConnection};
use diesel_migrations::{EmbeddedMigrations, MigrationHarness, embed_migrations};

use crate::domain::database_url::DatabaseUrl;

const SQLITE_MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations/sqlite");
const POSTGRES_MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations/postgres");

/// Key of the session-level advisory lock that serialises migrations across replicas.
const MIGRATION_LOCK_KEY: i64 = 0x5354_4f52_4546_524e; // "STOREFRN"

/// How long a request waits for a free connection before the answer is 503.
const POOL_TIMEOUT: Duration = Duration::from_secs(5);

/// How long a read that has a fallback (readiness, the sales-paused flag a page shows) waits
/// for a connection: with the database gone it must not hold a page for [`POOL_TIMEOUT`].
pub const QUICK_POOL_TIMEOUT: Duration = Duration::from_millis(800);

/// SQLite's message for `SQLITE_FULL` (`sqlite3_errstr`).
const SQLITE_FULL_MESSAGE: &str = "database or disk is full";

/// What PostgreSQL's messages about a full disk end with (`strerror(ENOSPC)`).
const POSTGRES_DISK_FULL_MESSAGE: &str = "No space left on device";

/// How long SQLite waits on another writer's lock before giving up.
const SQLITE_BUSY_TIMEOUT_MS: u32 = 5_000;

/// How long a command (`storefront admin create-user` beside a running shop) waits for the
/// write lock: it waits its turn behind a busy shop rather than fail.
pub const COMMAND_BUSY_TIMEOUT: Duration = Duration::from_secs(60);

/// Runs the same diesel code on the backend's own connection, for the queries that do not
/// compile through the multi connection (upserts, multi-row inserts, `SKIP LOCKED`).
///
/// `with_inner!(conn, |c| diesel::insert_into(t).values(&rows).execute(c))`
#[macro_export]
macro_rules! with_inner {
    ($conn:expr, |$c:ident| $body:expr) => {
        match $conn {
            $crate::db::DbConn::Sqlite($c) => $body,
            $crate::db::DbConn::Postgres($c) => $body,
        }
    };
}

/// One connection to either backend.
#[derive(diesel::MultiConnection)]
pub enum DbConn {
    Postgres(PgConnection),
    Sqlite(SqliteConnection),
}

/// The backend of [`DbConn`]: what a boxed query is built for.
pub type DbBackend = <DbConn as diesel::Connection>::Backend;

/// The rows of `T` a boxed query over `table` selects.
pub type SelectOf<T> = diesel::dsl::SqlTypeOf<diesel::dsl::AsSelect<T, DbBackend>>;

#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("cannot open the database {target}: {reason}")]
    Open { target: String, reason: String },
    #[error("no database connection became free in time")]
    PoolTimeout,
    #[error("database query failed: {0}")]
    Query(#[from] diesel::result::Error),
    #[error("database migration failed: {0}")]
    Migration(String),
    #[error("database task did not finish: {0}")]
    Task(String),
}

impl DbError {
    /// A row that was asked for does not exist (diesel's `NotFound`): the client's 404.
    pub fn is_not_found(&self) -> bool {
        matches!(self, Self::Query(diesel::result::Error::NotFound))
    }

    /// A unique index refused the write (two requests raced for the same value).
    pub fn is_unique_violation(&self) -> bool {
        matches!(
            self,
            Self::Query(diesel::result::Error::DatabaseError(
                diesel::result::DatabaseErrorKind::UniqueViolation,
                _,
            ))
        )
    }

    /// The database refused a text value it cannot store: PostgreSQL takes no NUL character in
    /// any text (SQLite stores it), whether written or only compared in a query. Only input
    /// from outside carries one, so the sender is told, not the operator. PostgreSQL reports
    /// it as `invalid byte sequence for encoding "UTF8": 0x00` (SQLSTATE 22021), which diesel
    /// passes on as an unclassified error with that message; the byte stays `0x00` in every
    /// translation of the message.
    pub fn is_unstorable_text(&self) -> bool {
        match self {
            Self::Query(diesel::result::Error::DatabaseError(
                diesel::result::DatabaseErrorKind::Unknown,
                info,
            )) => info.message().contains("0x00"),
            Self::Query(diesel::result::Error::InvalidCString(_)) => true,
            _ => false,
        }
    }

    /// The database cannot be reached or written right now (no free connection, cannot open,
    /// connection closed, the disk full): a 503 worth retrying, not a bug.
    pub fn is_unavailable(&self) -> bool {
        use diesel::result::{DatabaseErrorKind, Error};
        match self {
            Self::PoolTimeout | Self::Open { .. } => true,
            Self::Query(Error::DatabaseError(DatabaseErrorKind::ClosedConnection, _)) => true,
            // A full disk reaches diesel as an unknown error. SQLITE_FULL's text is SQLite's
            // own; PostgreSQL's (SQLSTATE 53100, which diesel does not pass on) quotes the
            // system's ENOSPC, "could not extend file \"…\": No space left on device", in the
            // server's `lc_messages` language: with another language it stays a 500.
            Self::Query(Error::DatabaseError(DatabaseErrorKind::Unknown, info)) => {
                info.message() == SQLITE_FULL_MESSAGE
                    || info.message().contains(POSTGRES_DISK_FULL_MESSAGE)
            }
            _ => false,
        }
    }
}

/// Which backend a pool talks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// Opens connections for r2d2, picking the backend from the URL scheme (diesel's stock
/// manager tries each backend in turn, and SQLite accepts any string as a file name).
#[derive(Debug)]
pub struct ConnectionManager {
    url: DatabaseUrl,
    /// SQLite's `busy_timeout` on each connection.
    busy_timeout_ms: u32,
    /// Whether the last attempt to open a connection worked; see [`Db::run_within`].
    reachable: Arc<AtomicBool>,
}

impl r2d2::ManageConnection for ConnectionManager {
    type Connection = DbConn;
    type Error = r2d2::Error;

    fn connect(&self) -> Result<DbConn, r2d2::Error> {
        let opened = self.open();
        self.reachable.store(opened.is_ok(), Ordering::Relaxed);
        opened
    }

    fn is_valid(&self, conn: &mut DbConn) -> Result<(), r2d2::Error> {
        conn.batch_execute("SELECT 1")
            .map_err(r2d2::Error::QueryError)
    }

    fn has_broken(&self, _conn: &mut DbConn) -> bool {
        false
    }
}

impl ConnectionManager {
    fn open(&self) -> Result<DbConn, r2d2::Error> {
        match &self.url {
            DatabaseUrl::Postgres(url) => PgConnection::establish(url.expose())
                .map(DbConn::Postgres)
                .map_err(r2d2::Error::ConnectionError),
            DatabaseUrl::Sqlite(path) => {
                let mut conn = SqliteConnection::establish(&path.to_string_lossy())
                    .map_err(r2d2::Error::ConnectionError)?;
                conn.batch_execute(&format!(
                    "PRAGMA foreign_keys = ON; PRAGMA busy_timeout = {}; \
                     PRAGMA synchronous = NORMAL;",
                    self.busy_timeout_ms
                ))
                .map_err(r2d2::Error::QueryError)?;
                Ok(DbConn::Sqlite(conn))
            }
        }
    }
}

impl DbConn {
    pub fn backend(&self) -> Backend {
        match self {
            Self::Postgres(_) => Backend::Postgres,
            Self::Sqlite(_) => Backend::Sqlite,
        }
    }

    /// Runs `f` in a transaction that intends to write.
    ///
    /// On SQLite it starts with `BEGIN IMMEDIATE`, taking the write lock up front: a deferred
    /// transaction that reads and then writes fails with "database is locked" under concurrent
    /// writers whatever the busy timeout. Within a [`Db::run`], this process's writers first
    /// queue on the database's [`write_gate::WriteGate`]. On PostgreSQL it is an ordinary
    /// transaction.
    #[track_caller]
    pub fn write_tx<T, E, F>(&mut self, f: F) -> Result<T, E>
    where
        F: FnOnce(&mut DbConn) -> Result<T, E>,
        E: From<diesel::result::Error>,
    {
        let caller = std::panic::Location::caller();
        let DbConn::Sqlite(inner) = self else {
            let begun = std::time::Instant::now();
            let outcome = self.transaction(f);
            observe_write(caller, begun.elapsed());
            return outcome;
        };
        // Held until the transaction has ended (see `write_gate`).
        let _gate = write_gate::enter_current(Duration::from_millis(SQLITE_BUSY_TIMEOUT_MS.into()));
        AnsiTransactionManager::begin_transaction_sql(inner, "BEGIN IMMEDIATE")?;
        let begun = std::time::Instant::now();
        let outcome = f(self);
        let DbConn::Sqlite(inner) = self else {
            unreachable!("a connection does not change its backend");
        };
        let ended = match outcome {
            Ok(value) => AnsiTransactionManager::commit_transaction(inner).map(|()| Ok(value)),
            Err(e) => AnsiTransactionManager::rollback_transaction(inner).map(|()| Err(e)),
        };
        observe_write(caller, begun.elapsed());
        ended?
    }

    /// Applies every pending migration and returns the versions applied.
    ///
    /// On PostgreSQL this holds a session-level advisory lock, so replicas starting together
    /// apply each migration once (the harness commits per migration, so a transaction-level
    /// lock would not cover the whole run).
    pub fn run_migrations(&mut self) -> Result<Vec<String>, DbError> {
        let applied = match self {
            DbConn::Postgres(pg) => {
                diesel::sql_query("SELECT pg_advisory_lock($1)")
                    .bind::<diesel::sql_types::BigInt, _>(MIGRATION_LOCK_KEY)
                    .execute(pg)?;
                let outcome = pg
                    .run_pending_migrations(POSTGRES_MIGRATIONS)
                    .map(|versions| versions.iter().map(ToString::to_string).collect::<Vec<_>>());
                let unlocked = diesel::sql_query("SELECT pg_advisory_unlock($1)")
                    .bind::<diesel::sql_types::BigInt, _>(MIGRATION_LOCK_KEY)
                    .execute(pg);
                let applied = outcome.map_err(|e| DbError::Migration(e.to_string()))?;
                unlocked?;
                applied
            }
            DbConn::Sqlite(sqlite) => sqlite
                .run_pending_migrations(SQLITE_MIGRATIONS)
                .map(|versions| versions.iter().map(ToString::to_string).collect())
                .map_err(|e| DbError::Migration(e.to_string()))?,
        };
        let days = daily_sales::rebuild_if_empty(self)?;
        if days > 0 {
            tracing::info!(days, "daily sales counted from the purchases");
        }
        Ok(applied)
    }

    /// True when the embedded migrations hold one this database has not applied.
    pub fn has_pending_migrations(&mut self) -> Result<bool, DbError> {
        match self {
            DbConn::Postgres(pg) => pg.has_pending_migration(POSTGRES_MIGRATIONS),
            DbConn::Sqlite(sqlite) => sqlite.has_pending_migration(SQLITE_MIGRATIONS),
        }
        .map_err(|e| DbError::Migration(e.to_string()))
    }
}

/// The shared connection pool.
#[derive(Clone)]
pub struct Db {
    pool: Pool<ConnectionManager>,
    url: DatabaseUrl,
    backend: Backend,
    reachable: Arc<AtomicBool>,
    /// SQLite only: this process's writers queue here before taking the database's lock.
    write_gate: Option<Arc<write_gate::WriteGate>>,
    /// The queue this handle's writers wait in at the write gate.
    class: write_gate::Class,
    /// SQLite's `busy_timeout` of this pool's connections.
    busy_timeout_ms: u32,
    /// Whether a write transaction over [`SLOW_WRITE`] is logged: the shop's are; a
    /// command's are not (its standard error is its answer to the operator).
    names_slow_writes: bool,
}

impl std::fmt::Debug for Db {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Db")
            .field("backend", &self.backend)
            .finish_non_exhaustive()
    }
}

impl Db {
    /// Opens a pool. For SQLite the parent folder is created and WAL mode is switched on once,
    /// on a single connection, before the pool opens its own (several connections switching at
    /// once race for the lock).
    pub fn open(url: &DatabaseUrl, max_connections: u32) -> Result<Self, DbError> {
        Self::open_waiting(url, max_connections, SQLITE_BUSY_TIMEOUT_MS).map(|db| Self {
            names_slow_writes: true,
            ..db
        })
    }

    /// [`Db::open`] for a command run beside a running shop: on SQLite its writes wait up to
    /// [`COMMAND_BUSY_TIMEOUT`] for the shop's writers instead of failing after a few seconds.
    pub fn open_for_command(url: &DatabaseUrl, max_connections: u32) -> Result<Self, DbError> {
        let wait = u32::try_from(COMMAND_BUSY_TIMEOUT.as_millis()).unwrap_or(u32::MAX);
        Self::open_waiting(url, max_connections, wait)
    }

    fn open_waiting(
        url: &DatabaseUrl,
        max_connections: u32,
        busy_timeout_ms: u32,
    ) -> Result<Self, DbError> {
        let open_error = |reason: String| DbError::Open {
            target: url.to_string(),
            reason,
        };
        let backend = match url {
            DatabaseUrl::Sqlite(path) => {
                prepare_sqlite_file(path).map_err(open_error)?;
                Backend::Sqlite
            }
            DatabaseUrl::Postgres(_) => Backend::Postgres,
        };
        let reachable = Arc::new(AtomicBool::new(true));
        let pool = build_pool(url, backend, &reachable, max_connections, busy_timeout_ms)?;
        Ok(Self {
            pool,
            url: url.clone(),
            backend,
            reachable,
            write_gate: (backend == Backend::Sqlite).then(Arc::default),
            class: write_gate::Class::Normal,
            busy_timeout_ms,
            names_slow_writes: false,
        })
    }

    /// A handle on the same database with `max_connections` connections of its own, for the
    /// shop's background work on paid purchases (the outbox workers, and the upstream gate
    /// they read before every call): however many web requests wait for a connection of
    /// the shared pool, this work does not wait behind them.
    pub fn for_background(&self, max_connections: u32) -> Result<Self, DbError> {
        Ok(Self {
            pool: build_pool(
                &self.url,
                self.backend,
                &self.reachable,
                max_connections,
                self.busy_timeout_ms,
            )?,
            url: self.url.clone(),
            backend: self.backend,
            reachable: Arc::clone(&self.reachable),
            write_gate: self.write_gate.clone(),
            class: self.class,
            busy_timeout_ms: self.busy_timeout_ms,
            names_slow_writes: self.names_slow_writes,
        })
    }

    /// This handle (same pool) with its SQLite writers queued in `class` at this process's
    /// write gate (see [`write_gate`]): [`write_gate::Class::Urgent`] for the workers placing
    /// paid orders upstream, [`write_gate::Class::Background`] for work nobody waits on.
    pub fn with_write_class(&self, class: write_gate::Class) -> Self {
        Self {
            class,
            ..self.clone()
        }
    }

    /// This handle for background work: its writers go after requests' and are paced.
    pub fn background(&self) -> Self {
        self.with_write_class(write_gate::Class::Background)
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// A connection for work that is already on a blocking thread (the CLI, tests).
    pub fn get(&self) -> Result<PooledConnection<ConnectionManager>, DbError> {
        self.pool.get().map_err(|_| DbError::PoolTimeout)
    }

    /// Runs `f` with one pooled connection on tokio's blocking pool. Never ask for a second
    /// connection inside `f`: pass this one down instead.
    pub async fn run<T, E, F>(&self, f: F) -> Result<T, E>
    where
        F: FnOnce(&mut DbConn) -> Result<T, E> + Send + 'static,
        T: Send + 'static,
        E: From<DbError> + Send + 'static,
    {
        self.run_within(POOL_TIMEOUT, f).await
    }

    /// [`Db::run`], waiting at most `wait` for a connection (a free one, or a new one when the
    /// database is unreachable) before giving up with [`DbError::PoolTimeout`]. While the
    /// last attempt to open a connection failed (the database is down, not merely busy) the
    /// wait is at most [`QUICK_POOL_TIMEOUT`], so every request answers its 503 at once
    /// instead of piling up; the pool keeps reconnecting in the background meanwhile.
    pub async fn run_within<T, E, F>(&self, wait: Duration, f: F) -> Result<T, E>
    where
        F: FnOnce(&mut DbConn) -> Result<T, E> + Send + 'static,
        T: Send + 'static,
        E: From<DbError> + Send + 'static,
    {
        let wait = if self.reachable.load(Ordering::Relaxed) {
            wait
        } else {
            wait.min(QUICK_POOL_TIMEOUT)
        };
        let pool = self.pool.clone();
        let (gate, class) = (self.write_gate.clone(), self.class);
        let names_slow_writes = self.names_slow_writes;
        let work = move || {
            let mut conn = pool.get_timeout(wait).map_err(|_| DbError::PoolTimeout)?;
            let _gate = write_gate::scope(gate, class);
            let _named = NamesSlowWrites::scope(names_slow_writes);
            f(&mut conn)
        };
        // Background work leaves the CPU to requests as well as the write lock, and on
        // PostgreSQL the server's time too.
        if class == write_gate::Class::Background {
            let rest = match self.backend {
                Backend::Postgres => low_priority::POSTGRES_REST,
                Backend::Sqlite => 0,
            };
            return low_priority::run_on_background(work, rest).await;
        }
        tokio::task::spawn_blocking(work)
            .await
            .map_err(|e| E::from(DbError::Task(e.to_string())))?
    }

    pub async fn migrate(&self) -> Result<Vec<String>, DbError> {
        self.run(|conn| conn.run_migrations()).await
    }

    /// Readiness: the database answers and every embedded migration is applied. Gives up
    /// after [`QUICK_POOL_TIMEOUT`] without a connection, so a probe learns of an outage at once.
    pub async fn check_ready(&self) -> Result<(), DbError> {
        self.run_within(QUICK_POOL_TIMEOUT, |conn| {
            conn.batch_execute("SELECT 1")?;
            if conn.has_pending_migrations()? {
                return Err(DbError::Migration("migrations are pending".into()));
            }
            Ok(())
        })
        .await
    }
}

fn build_pool(
    url: &DatabaseUrl,
    backend: Backend,
    reachable: &Arc<AtomicBool>,
    max_connections: u32,
    busy_timeout_ms: u32,
) -> Result<Pool<ConnectionManager>, DbError> {
    Pool::builder()
        .max_size(max_connections.max(1))
        .connection_timeout(POOL_TIMEOUT)
        // A PostgreSQL connection can be dropped by the server or the network while it
        // waits in the pool, so it answers `SELECT 1` before each use. A SQLite
        // connection is a file handle of this process: nothing can take it away, and the
        // check would be one more statement parsed on every trip to the pool.
        .test_on_check_out(backend == Backend::Postgres)
        .build(ConnectionManager {
            url: url.clone(),
            busy_timeout_ms,
            reachable: Arc::clone(reachable),
        })
        .map_err(|e| DbError::Open {
            target: url.to_string(),
            reason: e.to_string(),
        })
}

fn prepare_sqlite_file(path: &Path) -> Result<(), String> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create folder {}: {e}", parent.display()))?;
    }
    let mut conn =
        SqliteConnection::establish(&path.to_string_lossy()).map_err(|e| e.to_string())?;
    conn.batch_execute(&format!(
        "PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}; PRAGMA journal_mode = WAL;"
    ))
    .map_err(|e| e.to_string())
}

/// A write transaction held longer than this is named in the log: the lock it held (SQLite's
/// one writer, or PostgreSQL's row locks) kept every other writer of those rows waiting.
pub const SLOW_WRITE: Duration = Duration::from_millis(50);

thread_local! {
    /// Whether this thread's slow write transactions are logged ([`Db::run`] sets it).
    static NAMES_SLOW_WRITES: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// [`NAMES_SLOW_WRITES`] for the life of the value, then as it was.
struct NamesSlowWrites(bool);

impl NamesSlowWrites {
    fn scope(names: bool) -> Self {
        Self(NAMES_SLOW_WRITES.with(|cell| cell.replace(names)))
    }
}

impl Drop for NamesSlowWrites {
    fn drop(&mut self) {
        NAMES_SLOW_WRITES.with(|cell| cell.set(self.0));
    }
}

/// Counts a write transaction of `held` begun at `caller` in `/metrics`
/// ([`write_gate::LOCK_HOLDS`]) and warns when it held the lock over [`SLOW_WRITE`].
fn observe_write(caller: &'static std::panic::Location<'static>, held: Duration) {
    let class = write_gate::current_class().unwrap_or(write_gate::Class::Normal);
    write_gate::LOCK_HOLDS.observe(class, held);
    if held > SLOW_WRITE && NAMES_SLOW_WRITES.with(std::cell::Cell::get) {
        tracing::warn!(
            held_ms = u64::try_from(held.as_millis()).unwrap_or(u64::MAX),
            work = %format_args!("{}:{}", caller.file(), caller.line()),
            class = class.as_str(),
            "a write transaction held the database's write lock for long"
        );
    }
}

/// Milliseconds since the Unix epoch: the one time format the database compares on.
pub fn now_ms() -> i64 {
    ms_of(std::time::SystemTime::now())
}

/// `t` as milliseconds since the Unix epoch, as the database stores times (0 before 1970).
pub fn ms_of(t: std::time::SystemTime) -> i64 {
    let since = t.duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    i64::try_from(since.as_millis()).unwrap_or(i64::MAX)
}

/// The channel other replicas hear a catalog change on (a sync, a markup rule), so they reload
/// their snapshot at once; see `db::listen`.
pub const CATALOG_CHANNEL: &str = "storefront_catalog";

/// `NOTIFY` on [`CATALOG_CHANNEL`], delivered when the caller's transaction commits. Nothing on
/// SQLite: one file has no other replicas to tell.
pub fn announce_catalog_change(conn: &mut DbConn) -> Result<(), DbError> {
    if let DbConn::Postgres(pg) = conn {
        diesel::sql_query("SELECT pg_notify($1, '')")
            .bind::<diesel::sql_types::Text, _>(CATALOG_CHANNEL)
            .execute(pg)?;
    }
    Ok(())
}

impl AsRef<Db> for Db {
    fn as_ref(&self) -> &Db {
        self
    }
}
