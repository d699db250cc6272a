//! Shared test fixtures: fresh databases on both backends (PostgreSQL ones on the server of
//! [`crate::postgres`]), and the app spawned on port 0.
//!
//! Without a PostgreSQL server the PostgreSQL variants fail, unless the developer opted out
//! with `STOREFRONT_TEST_SKIP=postgres` (see `skips.rs`); never under `CI=true`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use diesel::prelude::*;
use diesel::{Connection, PgConnection};
use rand::RngCore;
use storefront::app::Application;
use storefront::catalog::Catalog;
use storefront::config::{DatabaseUrl, Settings, Source};
use storefront::db::Db;
use storefront::orders::outbox::Outbox;
use storefront::sandbox::{self, SandboxConfig, SandboxHandle};

use crate::postgres::postgres_server;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// Generates `mod NAME { sqlite(); postgres(); }` test pairs around `async fn NAME(Backend)`.
#[macro_export]
macro_rules! both_backends {
    ($($name:ident),* $(,)?) => {
        $(
            mod $name {
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn sqlite() {
                    super::$name($crate::helpers::Backend::Sqlite).await
                }
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn postgres() {
                    super::$name($crate::helpers::Backend::Postgres).await
                }
            }
        )*
    };
}

pub fn init_logs() {
    if std::env::var_os("TEST_LOG").is_some() {
        storefront::telemetry::init(storefront::config::LogFormat::Pretty);
    }
}

/// A loopback port free right now, for a process the test starts.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port()
}

/// The storefront binary with no `STOREFRONT_*` variable of the test's own environment.
pub fn binary() -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_storefront"));
    for (key, _) in std::env::vars() {
        if key.starts_with("STOREFRONT_") {
            cmd.env_remove(key);
        }
    }
    cmd
}

/// The value of the signed-out form cookie (`csrf`) a response sets.
pub fn csrf_cookie(headers: &reqwest::header::HeaderMap) -> String {
    headers
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find_map(|v| v.strip_prefix("csrf="))
        .and_then(|v| v.split(';').next())
        .expect("csrf cookie")
        .to_string()
}

pub fn random_suffix() -> String {
    let mut bytes = [0u8; 6];
    rand::rng().fill_bytes(&mut bytes);
    hex::encode(bytes)
}

/// Units `{checkout}`, `{checkout}-2`, … of one checkout, awaiting payment at 12.99 each (cost
/// 10.00), with `session` recorded on the first: a checkout as the shop writes it.
pub async fn checkout_of(db: &Db, checkout: &str, units: i32, session: &str) {
    checkout_of_plan(db, checkout, units, session, ("plan_1", 1299, 1000)).await;
}

/// [`checkout_of`] for `(plan, price, cost)`, each unit with an idempotency key of its own;
/// returns the units' ids, first to last.
pub async fn checkout_of_plan(
    db: &Db,
    checkout: &str,
    units: i32,
    session: &str,
    (plan, price, cost): (&str, i64, i64),
) -> Vec<String> {
    use storefront::db::purchases;
    use storefront::upstream::IdempotencyKey;

    let ids: Vec<String> = (1..=units)
        .map(|index| {
            if index == 1 {
                checkout.to_string()
            } else {
                format!("{checkout}-{index}")
            }
        })
        .collect();
    let rows: Vec<_> = ids
        .iter()
        .zip(1..)
        .map(|(id, index)| {
            let mut row = crate::fixtures::purchase(id)
                .plan(plan)
                .price(price)
                .cost(cost)
                .reference(format!("sf-{id}"))
                .idempotency_key(IdempotencyKey::generate().as_str())
                .build();
            row.checkout_id = crate::fixtures::as_id(checkout);
            row.unit_index = index;
            row
        })
        .collect();
    let (checkout, session) = (checkout.to_string(), session.to_string());
    db.run(move |conn| {
        conn.write_tx(|conn| {
            for row in &rows {
                purchases::insert(conn, row, "checkout started")?;
            }
            purchases::set_payment_session(conn, &crate::fixtures::as_id(&checkout), &session)
        })
    })
    .await
    .expect("the checkout's units");
    ids
}

/// The buyer presses Pay for `amount` on the demo provider's page of `session` (checkout
/// `checkout`), and the signed event it makes is verified and applied as the webhook would.
pub async fn pay_on_demo_page(
    db: &Db,
    payments: &storefront::payments::Provider,
    checkout: &str,
    session: &str,
    amount: i64,
) -> storefront::orders::confirm::Applied {
    use storefront::payments::demo::DemoAnswer;
    use storefront::payments::{PaymentProvider, Provider, SessionState};

    let Provider::Demo(demo) = payments else {
        panic!("the demo provider");
    };
    let now = std::time::SystemTime::now();
    let (signature, body) = demo
        .settle(
            session,
            DemoAnswer::Pay,
            &crate::fixtures::as_id(checkout),
            storefront::domain::Cents::new(amount),
            None,
            SessionState::Open,
            now,
        )
        .expect("the payment page takes the answer");
    let event = payments
        .verify_event(Some(&signature), &body, now)
        .expect("the event verifies");
    db.run(move |conn| storefront::orders::confirm::apply(conn, "demo", &event))
        .await
        .expect("the payment applies")
}

/// A fresh, empty database that disappears with the value.
pub struct TestDb {
    pub url: DatabaseUrl,
    /// The URL as text, for passing to the binary.
    pub url_text: String,
    _dir: Option<tempfile::TempDir>,
    drop_pg: Option<(String, String)>,
}

impl TestDb {
    /// `None` only when PostgreSQL is missing and the run opted out of it (the skip is
    /// reported); missing otherwise, the test fails.
    pub fn new(backend: Backend) -> Option<Self> {
        init_logs();
        match backend {
            Backend::Sqlite => {
                let dir = tempfile::tempdir().expect("temp dir");
                let url_text = format!("sqlite://{}", dir.path().join("shop.db").display());
                Some(Self {
                    url: DatabaseUrl::parse(&url_text).expect("sqlite url"),
                    url_text,
                    _dir: Some(dir),
                    drop_pg: None,
                })
            }
            Backend::Postgres => {
                let server = postgres_server()?;
                let name = format!("t_{}", random_suffix());
                let mut admin = PgConnection::establish(&server.admin_url)
                    .expect("connect to the test PostgreSQL server");
                diesel::sql_query(format!("CREATE DATABASE {name}"))
                    .execute(&mut admin)
                    .expect("create test database");
                let url_text = server.database_url(&name);
                Some(Self {
                    url: DatabaseUrl::parse(&url_text).expect("postgres url"),
                    url_text,
                    _dir: None,
                    drop_pg: server.external.then(|| (server.admin_url.clone(), name)),
                })
            }
        }
    }

    pub fn open(&self) -> Db {
        Db::open(&self.url, 4).expect("open test database")
    }

    /// A migrated pool.
    pub async fn migrated(&self) -> Db {
        let db = self.open();
        db.migrate().await.expect("migrations apply");
        db
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        // Databases on a private cluster vanish with it; on a shared server, clean up.
        if let Some((admin_url, name)) = self.drop_pg.take()
            && let Ok(mut admin) = PgConnection::establish(&admin_url)
        {
            let _ = diesel::sql_query(format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                .execute(&mut admin);
        }
    }
}

/// Settings as an operator would give them, with the database and any overrides.
pub fn settings_for(db: &TestDb, overrides: &[(&str, &str)]) -> Settings {
    let mut pairs: Vec<(String, String)> = vec![
        ("STOREFRONT_DATABASE_URL".into(), db.url_text.clone()),
        ("STOREFRONT_BIND".into(), "127.0.0.1:0".into()),
        ("STOREFRONT_PUBLIC_URL".into(), "http://127.0.0.1".into()),
        (
            "STOREFRONT_UPSTREAM_BASE_URL".into(),
            "http://127.0.0.1:9/api/v1".into(),
        ),
        ("STOREFRONT_UPSTREAM_API_KEY".into(), "sk_test_key".into()),
        ("STOREFRONT_SECRET_KEY".into(), "ab".repeat(32)),
        ("STOREFRONT_PAYMENTS".into(), "demo".into()),
        (
            "STOREFRONT_MAIL_DIR".into(),
            "/tmp/storefront-test-mail".into(),
        ),
        ("STOREFRONT_MAIL_FROM".into(), "shop@example.com".into()),
        ("STOREFRONT_CHECKOUT_RATE_LIMIT".into(), "1000".into()),
        // Tests sign in many times from one address; the limit's own test sets it back.
        ("STOREFRONT_LOGIN_RATE_LIMIT".into(), "1000".into()),
    ];
    for (key, value) in overrides {
        pairs.retain(|(k, _)| k != key);
        pairs.push(((*key).to_string(), (*value).to_string()));
    }
    Settings::from_source(&Source::from_pairs(pairs)).expect("valid test settings")
}

/// The app serving on a free port, with its database.
pub struct TestApp {
    pub address: String,
    pub client: reqwest::Client,
    pub catalog: Arc<Catalog>,
    pub db: Db,
    /// The app's outbox, for [`TestApp::drain_outbox`].
    pub outbox: Outbox,
    /// Where this app writes its email (one `.eml` per message).
    pub mail_dir: tempfile::TempDir,
    /// Stops the app ([`TestApp::stop`]).
    stop: actix_web::dev::ServerHandle,
    running: tokio::task::JoinHandle<std::io::Result<()>>,
    _test_db: TestDb,
}

impl TestApp {
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.address)
    }

    /// Stops the app as SIGTERM does and waits until it has stopped; gives back its
    /// database, to work on while no shop runs or to start the app on again.
    pub async fn stop(self) -> (TestDb, Db) {
        self.stop.stop(true).await;
        self.running
            .await
            .expect("the app's task ends")
            .expect("the app stops cleanly");
        (self._test_db, self.db)
    }

    /// The database URL as an operator would give it to the binary.
    pub fn database_url(&self) -> String {
        self._test_db.url_text.clone()
    }

    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.client
            .get(self.url(path))
            .send()
            .await
            .expect("request reaches the app")
    }

    /// The value of one `/metrics` series (`name{labels}`, as written there), read with the
    /// operator's bearer `token`.
    pub async fn metric(&self, token: &str, series: &str) -> u64 {
        let text = self
            .client
            .get(self.url("/metrics"))
            .bearer_auth(token)
            .send()
            .await
            .expect("metrics")
            .text()
            .await
            .expect("body");
        let prefix = format!("{series} ");
        text.lines()
            .find_map(|l| l.strip_prefix(prefix.as_str()))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or_else(|| panic!("{series} in /metrics:\n{text}"))
    }
}

/// Spawns the app on a migrated fresh database; `None` as for [`TestDb::new`].
pub async fn spawn_app(backend: Backend) -> Option<TestApp> {
    let test_db = TestDb::new(backend)?;
    let db = test_db.migrated().await;
    Some(spawn_app_on(test_db, db).await)
}

/// [`spawn_app`] with settings of its own.
pub async fn spawn_app_with(backend: Backend, overrides: &[(&str, &str)]) -> Option<TestApp> {
    let test_db = TestDb::new(backend)?;
    let db = test_db.migrated().await;
    Some(spawn_with(test_db, db, overrides).await)
}

/// Spawns the app on a database as it is (migrated or not).
pub async fn spawn_app_on(test_db: TestDb, db: Db) -> TestApp {
    spawn_with(test_db, db, &[]).await
}

/// [`spawn_app_on`] with settings of its own.
pub async fn spawn_app_on_with(test_db: TestDb, db: Db, overrides: &[(&str, &str)]) -> TestApp {
    spawn_with(test_db, db, overrides).await
}

async fn spawn_with(test_db: TestDb, db: Db, overrides: &[(&str, &str)]) -> TestApp {
    // Links the app builds (payment pages, order pages) must point at its real address.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port();
    let bind = format!("127.0.0.1:{port}");
    let public_url = format!("http://{bind}");
    let mail_dir = tempfile::tempdir().expect("mail dir");
    let mail_path = mail_dir.path().display().to_string();
    let mut all: Vec<(&str, &str)> = vec![
        ("STOREFRONT_BIND", bind.as_str()),
        ("STOREFRONT_PUBLIC_URL", public_url.as_str()),
        ("STOREFRONT_MAIL_DIR", mail_path.as_str()),
    ];
    all.extend_from_slice(overrides);
    let settings = settings_for(&test_db, &all);
    let app = Application::build(settings, db.clone())
        .await
        .expect("build app");
    let address = format!("http://127.0.0.1:{}", app.port());
    let catalog = Arc::clone(app.catalog());
    let outbox = app.outbox().clone();
    let stop = app.stop_handle();
    let running = tokio::spawn(app.run_until_stopped());
    TestApp {
        address,
        catalog,
        db,
        outbox,
        mail_dir,
        stop,
        running,
        client: reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("client"),
        _test_db: test_db,
    }
}

/// A sandbox upstream with `plans` plans and fast order progress, and its API key.
pub async fn spawn_sandbox(plans: usize) -> (SandboxHandle, String) {
    let key = format!("sk_test_{}", random_suffix());
    let mut config = SandboxConfig::new(key.clone());
    config.plans = plans;
    config.paid_delay = Duration::from_millis(20);
    config.provisioning_delay = Duration::from_millis(20);
    (sandbox::spawn(config).await.expect("sandbox starts"), key)
}

/// The app on a fresh migrated database, its upstream a fresh sandbox, after its first
/// catalog sync.
pub async fn spawn_shop(backend: Backend, plans: usize) -> Option<(TestApp, SandboxHandle)> {
    spawn_shop_with(backend, plans, &[]).await
}

/// [`spawn_shop`] with settings of its own (an empty value unsets a default).
pub async fn spawn_shop_with(
    backend: Backend,
    plans: usize,
    overrides: &[(&str, &str)],
) -> Option<(TestApp, SandboxHandle)> {
    let test_db = TestDb::new(backend)?;
    let db = test_db.migrated().await;
    let (upstream, key) = spawn_sandbox(plans).await;
    let mut settings = vec![
        ("STOREFRONT_UPSTREAM_BASE_URL", upstream.base_url.as_str()),
        ("STOREFRONT_UPSTREAM_API_KEY", key.as_str()),
    ];
    settings.extend_from_slice(overrides);
    let app = spawn_with(test_db, db, &settings).await;
    // A plain loop rather than `wait_until`: callers spawn this future, and a future holding
    // an async closure is not provably `Send` for every lifetime.
    let started = Instant::now();
    while app.catalog.snapshot().plans().is_empty() {
        assert!(
            started.elapsed() < BACKGROUND_WAIT,
            "first catalog sync did not finish"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Some((app, upstream))
}

/// How long a test waits for the app's background work (an email, the outbox, a page that
/// changes) before it fails: generous, since a loaded two-core machine runs the suite.
pub const BACKGROUND_WAIT: Duration = Duration::from_secs(30);

/// Polls `check` until it gives a value, and returns it; `Err` says what it saw instead.
/// Fails after [`BACKGROUND_WAIT`] with `what` and the last thing seen.
#[track_caller]
pub fn wait_for<'a, T>(
    what: impl std::fmt::Display + 'a,
    mut check: impl AsyncFnMut() -> Result<T, String> + 'a,
) -> impl Future<Output = T> + 'a {
    let caller = std::panic::Location::caller();
    async move {
        let started = Instant::now();
        loop {
            let seen = match check().await {
                Ok(value) => return value,
                Err(seen) => seen,
            };
            assert!(
                started.elapsed() < BACKGROUND_WAIT,
                "waited {BACKGROUND_WAIT:?} at {caller} for {what}; last seen: {seen}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// [`wait_for`] a condition.
#[track_caller]
pub fn wait_until<'a>(
    what: impl std::fmt::Display + 'a,
    mut check: impl AsyncFnMut() -> bool + 'a,
) -> impl Future<Output = ()> + 'a {
    wait_for(what, async move || {
        if check().await {
            Ok(())
        } else {
            Err("not yet".to_string())
        }
    })
}

/// An email the app wrote (one `.eml` file in its mail folder).
#[derive(Debug, Clone)]
pub struct Email {
    /// The file as written.
    pub raw: String,
    /// The file with quoted-printable soft breaks and `=3D` escapes undone, so links and
    /// sentences read as sent whichever part holds them.
    pub text: String,
}

impl Email {
    fn read(path: &std::path::Path) -> Option<Self> {
        let raw = std::fs::read_to_string(path).ok()?;
        let text = raw
            .replace("=\r\n", "")
            .replace("=\n", "")
            .replace("=3D", "=");
        Some(Self { raw, text })
    }

    /// The value of header `name` (the first line of it).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.raw
            .lines()
            .take_while(|line| !line.is_empty())
            .find_map(|line| {
                let (key, value) = line.split_once(':')?;
                key.eq_ignore_ascii_case(name).then(|| value.trim())
            })
    }

    /// Whether the email is addressed to `address` (any case).
    pub fn is_to(&self, address: &str) -> bool {
        self.header("to")
            .is_some_and(|to| to.to_lowercase().contains(&address.to_lowercase()))
    }
}

/// The emails in `dir` (a mail folder), in the order written (their names start with the
/// time they were written).
pub fn emails_in(dir: &std::path::Path) -> Vec<Email> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map(|dir| dir.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|x| x == "eml"));
    files.sort();
    files.iter().filter_map(|p| Email::read(p)).collect()
}

/// Waits until `dir` holds at least `n` emails `matching`; returns all those, oldest first.
pub async fn wait_for_emails_in(
    dir: &std::path::Path,
    n: usize,
    what: &str,
    matching: impl Fn(&Email) -> bool,
) -> Vec<Email> {
    wait_for(format!("{n} emails {what}"), async || {
        let found: Vec<Email> = emails_in(dir).into_iter().filter(&matching).collect();
        if found.len() >= n {
            Ok(found)
        } else {
            Err(format!("{} of them", found.len()))
        }
    })
    .await
}

impl TestApp {
    /// The emails written so far, as raw `.eml` texts.
    pub fn emails(&self) -> Vec<String> {
        emails_in(self.mail_dir.path())
            .into_iter()
            .map(|email| email.raw)
            .collect()
    }

    /// Waits for the first email to `to`; returns it.
    pub async fn wait_for_email(&self, to: &str) -> Email {
        self.wait_for_emails(to, 1).await.remove(0)
    }

    /// Waits until `n` emails to `to` were written; returns all emails to `to`, oldest first.
    pub async fn wait_for_emails(&self, to: &str, n: usize) -> Vec<Email> {
        wait_for_emails_in(self.mail_dir.path(), n, &format!("to {to}"), |email| {
            email.is_to(to)
        })
        .await
    }

    /// Waits until `n` emails link to the order page of `purchase_id`; returns them all.
    pub async fn wait_for_emails_about(&self, purchase_id: &str, n: usize) -> Vec<Email> {
        let link = format!("/orders/{purchase_id}?token=");
        wait_for_emails_in(
            self.mail_dir.path(),
            n,
            &format!("about {purchase_id}"),
            |email| email.text.contains(&link),
        )
        .await
    }

    /// Runs the outbox's due jobs, beside the app's own workers, until no job is queued or
    /// running; returns how many this call ran. Fails when jobs are still open after
    /// [`BACKGROUND_WAIT`] (a job waiting for a later retry, say).
    pub async fn drain_outbox(&self) -> usize {
        let ran = self
            .outbox
            .drain(BACKGROUND_WAIT)
            .await
            .expect("the outbox runs");
        let open = self
            .db
            .run(storefront::db::outbox::next_due_at)
            .await
            .expect("read the outbox");
        assert_eq!(open, None, "jobs still open after {BACKGROUND_WAIT:?}");
        ran
    }
}

/// A browser's cookie jar, enough for one host.
#[derive(Clone, Default)]
pub struct Browser {
    cookies: Arc<Mutex<HashMap<String, String>>>,
    /// Its own HTTP client (another source address, extra headers); the app's otherwise.
    client: Option<reqwest::Client>,
}

/// A client like the app's, with `headers` on every request.
pub fn client_builder(headers: &[(&'static str, &str)]) -> reqwest::ClientBuilder {
    let mut map = reqwest::header::HeaderMap::new();
    for (name, value) in headers {
        map.append(*name, value.parse().expect("header value"));
    }
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .default_headers(map)
}

/// The shop's answer to one request, as a test reads it: status, headers and body text,
/// with the request it answers for failure messages.
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: u16,
    pub body: String,
    pub headers: reqwest::header::HeaderMap,
    /// Method and path, e.g. `POST /admin/login`.
    pub request: String,
}

impl Answer {
    pub(crate) async fn read(request: String, res: reqwest::Response) -> Self {
        let (status, headers) = (res.status().as_u16(), res.headers().clone());
        Self {
            status,
            headers,
            body: res.text().await.expect("body"),
            request,
        }
    }

    /// Asserts the status; failures show the request and the start of the body.
    #[track_caller]
    pub fn assert_status(self, expected: u16) -> Self {
        assert_eq!(
            self.status,
            expected,
            "{} answered {} instead of {expected}: {}",
            self.request,
            self.status,
            self.body_excerpt()
        );
        self
    }

    /// Asserts a `303 See Other` to `to` (a path, or a full URL where the shop sends one).
    #[track_caller]
    pub fn assert_redirect_to(self, to: impl AsRef<str>) -> Self {
        let to = to.as_ref();
        assert_eq!(
            (self.status, self.header("location")),
            (303, Some(to)),
            "{} did not redirect to {to}: {}",
            self.request,
            self.body_excerpt()
        );
        self
    }

    /// The `Location` of a redirect.
    #[track_caller]
    pub fn location(&self) -> String {
        match self.header("location") {
            Some(to) => to.to_string(),
            None => panic!(
                "{} answered {} without a Location",
                self.request, self.status
            ),
        }
    }

    /// The first value of header `name`, if any and readable.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The value of the hidden form field `name` in the body.
    #[track_caller]
    pub fn hidden(&self, name: &str) -> String {
        hidden(&self.body, name)
    }

    fn body_excerpt(&self) -> &str {
        let end = self
            .body
            .char_indices()
            .nth(2000)
            .map_or(self.body.len(), |(i, _)| i);
        &self.body[..end]
    }
}

impl Browser {
    /// A browser whose connections come from `addr` (any of 127.0.0.0/8 works on loopback).
    pub fn from_address(addr: &str) -> Self {
        Self::with_client(
            client_builder(&[])
                .local_address(addr.parse::<std::net::IpAddr>().expect("ip"))
                .build()
                .expect("client"),
        )
    }

    pub fn with_client(client: reqwest::Client) -> Self {
        Self {
            cookies: Arc::default(),
            client: Some(client),
        }
    }

    /// The same browser (its cookies) as another device would send it: `user_agent` on every
    /// request.
    pub fn as_device(&self, user_agent: &str) -> Self {
        Self {
            cookies: Arc::clone(&self.cookies),
            client: Some(
                client_builder(&[("user-agent", user_agent)])
                    .build()
                    .expect("client"),
            ),
        }
    }

    fn http<'a>(&'a self, app: &'a TestApp) -> &'a reqwest::Client {
        self.client.as_ref().unwrap_or(&app.client)
    }

    pub fn cookie_header(&self) -> String {
        let jar = self.cookies.lock().expect("jar");
        jar.iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("; ")
    }

    pub fn cookie(&self, name: &str) -> Option<String> {
        self.cookies.lock().expect("jar").get(name).cloned()
    }

    pub fn set_cookie(&self, name: &str, value: &str) {
        self.cookies
            .lock()
            .expect("jar")
            .insert(name.to_string(), value.to_string());
    }

    pub fn remember(&self, res: &reqwest::Response) {
        let mut jar = self.cookies.lock().expect("jar");
        for value in res.headers().get_all("set-cookie") {
            let text = value.to_str().expect("ascii");
            let pair = text.split(';').next().unwrap_or(text);
            if let Some((name, value)) = pair.split_once('=') {
                if value.is_empty() {
                    jar.remove(name.trim());
                } else {
                    jar.insert(name.trim().to_string(), value.trim().to_string());
                }
            }
        }
    }

    pub async fn get(&self, app: &TestApp, path: &str) -> Answer {
        let res = self
            .http(app)
            .get(if path.starts_with("http") {
                path.to_string()
            } else {
                app.url(path)
            })
            .header("cookie", self.cookie_header())
            .send()
            .await
            .expect("get");
        self.remember(&res);
        Answer::read(format!("GET {path}"), res).await
    }

    pub async fn post(&self, app: &TestApp, path: &str, form: &[(&str, &str)]) -> Answer {
        let body: String = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(form)
            .finish();
        let res = self
            .http(app)
            .post(app.url(path))
            .header("cookie", self.cookie_header())
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body)
            .send()
            .await
            .expect("post");
        self.remember(&res);
        Answer::read(format!("POST {path}"), res).await
    }
}

/// The value of the hidden form field `name` in `html`.
pub fn hidden(html: &str, name: &str) -> String {
    let marker = format!("name=\"{name}\" value=\"");
    html.split(&marker)
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_else(|| panic!("no hidden {name} in {html}"))
        .to_string()
}

/// The `Location` of a redirect.
pub fn location(headers: &reqwest::header::HeaderMap) -> String {
    headers["location"].to_str().expect("ascii").to_string()
}
