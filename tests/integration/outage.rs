//! The database goes away under a running shop, then comes back.
//!
//! PostgreSQL: a cluster of the test's own is stopped for 10 s while purchases are bought and
//! paid against a real `storefront serve` process. SQLite: the database lives on a small tmpfs
//! that is filled up mid-run, then emptied. Either way `/readyz` says 503 at once, the catalog
//! pages keep answering from memory, checkout answers a plain 503 page quickly, nothing paid is
//! lost or bought twice, and the shop recovers by itself.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::consumer::{buy_and_pay, hidden};
use crate::helpers::{csrf_cookie, free_port, random_suffix, spawn_sandbox};

/// Purchases bought while the database goes away and comes back.
const PURCHASES: usize = 16;
/// How long PostgreSQL stays down.
const OUTAGE: Duration = Duration::from_secs(10);
/// How soon `/readyz` must say 503 once the database is gone.
const READY_TURNS: Duration = Duration::from_secs(2);
/// The longest a checkout may take to answer while the database is known to be gone (far
/// below the pool's 5 s wait for a connection when the database is merely busy).
const CHECKOUT_ANSWERS: Duration = Duration::from_secs(3);

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "0")
}

/// A PostgreSQL cluster of this test alone, so it can be stopped without harming the others.
struct Cluster {
    bin: PathBuf,
    dir: PathBuf,
    port: u16,
    root: bool,
}

impl Cluster {
    fn start() -> Option<Self> {
        Self::start_in(&std::env::temp_dir())
    }

    /// A cluster whose files live under `parent`.
    fn start_in(parent: &Path) -> Option<Self> {
        let bin = std::fs::read_dir("/usr/lib/postgresql")
            .ok()?
            .filter_map(Result::ok)
            .map(|e| e.path().join("bin"))
            .filter(|b| b.join("initdb").exists())
            .max()?;
        let dir = parent.join(format!("storefront-outage-{}", random_suffix()));
        std::fs::create_dir_all(&dir).expect("cluster folder");
        let root = is_root();
        if root {
            let chown = Command::new("chown").arg("postgres:").arg(&dir).status();
            assert!(chown.is_ok_and(|s| s.success()), "chown cluster folder");
        }
        let cluster = Self {
            bin,
            dir,
            port: free_port(),
            root,
        };
        let data = cluster.dir.join("data");
        let initdb = cluster
            .as_postgres(&cluster.bin.join("initdb"))
            .arg("-D")
            .arg(&data)
            .args(["-A", "trust", "-U", "postgres", "--no-sync"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("run initdb");
        assert!(initdb.success(), "initdb failed");
        cluster.pg_ctl_start();
        Some(cluster)
    }

    fn as_postgres(&self, program: &Path) -> Command {
        if self.root {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(program);
            c
        } else {
            Command::new(program)
        }
    }

    fn pg_ctl(&self) -> Command {
        let mut c = self.as_postgres(&self.bin.join("pg_ctl"));
        c.arg("-D").arg(self.dir.join("data"));
        c
    }

    fn pg_ctl_start(&self) {
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off \
             -c full_page_writes=off -c max_connections=100",
            self.port,
            self.dir.display()
        );
        let status = self
            .pg_ctl()
            .arg("-l")
            .arg(self.dir.join("server.log"))
            .args(["-w", "-o", &options, "start"])
            .stdout(Stdio::null())
            .status()
            .expect("pg_ctl start");
        assert!(status.success(), "PostgreSQL did not start");
    }

    /// Stops the server the way an operator or a crash would: connections cut at once.
    fn stop(&self) {
        let status = self
            .pg_ctl()
            .args(["-m", "fast", "-w", "stop"])
            .stdout(Stdio::null())
            .status()
            .expect("pg_ctl stop");
        assert!(status.success(), "PostgreSQL did not stop");
    }

    fn url(&self, database: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{database}", self.port)
    }

    /// Runs `sql` in `database` with `psql`, which must succeed.
    fn psql(&self, database: &str, sql: &str) {
        let status = Command::new("psql")
            .args(["-X", "-q", &self.url(database), "-c", sql])
            .status()
            .expect("psql");
        assert!(status.success(), "psql: {sql}");
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = self
            .pg_ctl()
            .args(["-m", "immediate", "stop"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// `storefront serve` as its own process, on `database_url`.
struct Serve {
    child: Child,
    port: u16,
    log: PathBuf,
}

impl Serve {
    fn start(dir: &Path, database_url: &str, upstream: &str, key: &str) -> Self {
        let port = free_port();
        let log = dir.join("serve.log");
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_storefront"));
        for (name, _) in std::env::vars() {
            if name.starts_with("STOREFRONT_") {
                cmd.env_remove(name);
            }
        }
        let child = cmd
            .arg("serve")
            .env("STOREFRONT_DATABASE_URL", database_url)
            .env("STOREFRONT_BIND", format!("127.0.0.1:{port}"))
            .env("STOREFRONT_PUBLIC_URL", format!("http://127.0.0.1:{port}"))
            .env("STOREFRONT_UPSTREAM_BASE_URL", upstream)
            .env("STOREFRONT_UPSTREAM_API_KEY", key)
            .env("STOREFRONT_SECRET_KEY", "cd".repeat(32))
            .env("STOREFRONT_PAYMENTS", "demo")
            .env("STOREFRONT_MAIL_DIR", dir.join("mail"))
            .env("STOREFRONT_MAIL_FROM", "shop@example.com")
            .env("STOREFRONT_CHECKOUT_RATE_LIMIT", "10000")
            .env("STOREFRONT_LOG_FORMAT", "json")
            .env("RUST_LOG", "info")
            .stdout(Stdio::null())
            .stderr(File::create(&log).expect("log"))
            .spawn()
            .expect("start serve");
        Self { child, port, log }
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(15))
        .build()
        .expect("client")
}

/// Waits for the shop's first catalog sync and returns a plan it sells.
async fn first_plan(client: &reqwest::Client, shop: &Serve) -> String {
    let started = Instant::now();
    loop {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the shop never stocked its catalog:\n{}",
            shop.log()
        );
        if let Ok(res) = client.get(shop.url("/countries/US")).send().await
            && let Ok(html) = res.text().await
            && let Some(href) = html.split("href=\"/plans/").nth(1)
        {
            return href.split(['"', '?']).next().expect("plan id").to_string();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Polls `/readyz` until it answers `want`; the time it took, or `None` past `within`.
async fn readyz_turns(
    client: &reqwest::Client,
    shop: &Serve,
    want: u16,
    within: Duration,
) -> Option<Duration> {
    let started = Instant::now();
    while started.elapsed() < within {
        if let Ok(res) = client.get(shop.url("/readyz")).send().await
            && res.status().as_u16() == want
        {
            return Some(started.elapsed());
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    None
}

/// What a person sees on the catalog and at checkout while the database is gone.
async fn assert_degraded_but_clear(client: &reqwest::Client, shop: &Serve, plan: &str) {
    for path in ["/", "/countries/US", &format!("/plans/{plan}")] {
        let started = Instant::now();
        let res = client
            .get(shop.url(path))
            .send()
            .await
            .unwrap_or_else(|e| panic!("GET {path} during the outage: {e}"));
        assert_eq!(
            res.status(),
            200,
            "GET {path} needs no database, yet answered {} during the outage",
            res.status()
        );
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "GET {path} took {:?} during the outage",
            started.elapsed()
        );
    }
    // A checkout with a valid form: the plan page's cookie and token.
    let (res, took) = checkout(client, shop, plan, "outage@example.com").await;
    let status = res.status().as_u16();
    let retry_after = res.headers().contains_key("retry-after");
    let body = res.text().await.unwrap_or_default();
    assert_eq!(
        status, 503,
        "checkout during the outage answered {status}:\n{body}"
    );
    assert!(took < CHECKOUT_ANSWERS, "checkout took {took:?} to answer");
    eprintln!("outage: checkout answered 503 in {took:?}");
    assert!(retry_after, "the 503 says when to retry");
    assert!(
        body.contains("Temporarily unavailable") && body.contains("try again"),
        "the 503 page says what happened: {body}"
    );
    for leak in [
        "panicked",
        "diesel",
        "DatabaseError",
        "connection refused",
        "postgres",
    ] {
        assert!(
            !body.to_lowercase().contains(&leak.to_lowercase()),
            "the 503 page shows internals ({leak}): {body}"
        );
    }
}

/// Every purchase fulfilled, each exactly once upstream.
async fn assert_all_fulfilled_once(
    client: &reqwest::Client,
    shop: &Serve,
    upstream: &storefront::sandbox::SandboxHandle,
    purchases: &[(String, String)],
    within: Duration,
) {
    let started = Instant::now();
    for (id, cookie) in purchases {
        loop {
            assert!(
                started.elapsed() < within,
                "purchase {id} not fulfilled {within:?} after the database came back:\n{}",
                shop.log()
            );
            if let Ok(res) = client
                .get(shop.url(&format!("/orders/{id}")))
                .header("cookie", cookie)
                .send()
                .await
                && let Ok(html) = res.text().await
                && html.contains("data-status=\"fulfilled\"")
            {
                break;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
    let stats = upstream.sandbox.stats();
    assert!(stats.duplicate_purchases.is_empty(), "{stats:?}");
    assert_eq!(stats.orders, purchases.len(), "{stats:?}");
    for (id, _) in purchases {
        assert_eq!(
            stats.orders_by_reference.get(&format!("sf-{id}")),
            Some(&1),
            "purchase {id}: {stats:?}"
        );
    }
    assert!(stats.ledger_invariant_holds, "{stats:?}");
}

/// Buyers spread over `spread`, each retrying through the outage like a person pressing reload.
fn start_buyers(
    client: &reqwest::Client,
    shop: &Serve,
    plan: &str,
    spread: Duration,
) -> Vec<tokio::task::JoinHandle<(String, String)>> {
    let gap = spread / u32::try_from(PURCHASES).unwrap_or(1);
    (0..PURCHASES)
        .map(|n| {
            let (client, base, plan) = (client.clone(), shop.url(""), plan.to_string());
            tokio::spawn(async move {
                tokio::time::sleep(gap * u32::try_from(n).unwrap_or(0)).await;
                buy_and_pay(&client, &base, &plan, n).await
            })
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn postgres_stopped_for_ten_seconds_mid_run_loses_nothing_and_the_shop_recovers_by_itself() {
    crate::helpers::init_logs();
    let Some(cluster) = Cluster::start() else {
        crate::skips::missing(
            crate::skips::Needed::Postgres,
            "PostgreSQL binaries not found under /usr/lib/postgresql/*/bin",
        );
        return;
    };
    cluster.psql("postgres", "CREATE DATABASE shop");
    let dir = tempfile::tempdir().expect("dir");
    let (upstream, key) = spawn_sandbox(150).await;
    let shop = Serve::start(dir.path(), &cluster.url("shop"), &upstream.base_url, &key);
    let client = client();
    let plan = first_plan(&client, &shop).await;
    assert!(
        readyz_turns(&client, &shop, 200, Duration::from_secs(10))
            .await
            .is_some(),
        "ready before the outage"
    );

    // Orders take a few seconds upstream, so the purchases paid first are still being tracked
    // when the database goes.
    upstream
        .sandbox
        .set_provisioning_delays(Duration::from_secs(2), Duration::from_secs(2));
    let buyers = start_buyers(&client, &shop, &plan, Duration::from_secs(8));
    tokio::time::sleep(Duration::from_secs(2)).await;

    // Down.
    tokio::task::block_in_place(|| cluster.stop());
    let down_at = Instant::now();
    let turned = readyz_turns(&client, &shop, 503, READY_TURNS).await;
    assert!(
        turned.is_some_and(|t| t <= READY_TURNS),
        "/readyz did not turn 503 within {READY_TURNS:?} of the database stopping: {turned:?}"
    );
    eprintln!("outage: /readyz said 503 after {turned:?}");
    assert_degraded_but_clear(&client, &shop, &plan).await;
    let left = OUTAGE.saturating_sub(down_at.elapsed());
    tokio::time::sleep(left).await;

    // Up again.
    tokio::task::block_in_place(|| cluster.pg_ctl_start());
    let back = readyz_turns(&client, &shop, 200, Duration::from_secs(15)).await;
    assert!(
        back.is_some(),
        "/readyz never turned 200 again:\n{}",
        shop.log()
    );
    eprintln!("outage: /readyz said 200 again {back:?} after the restart");
    let restarted = Instant::now();

    let mut purchases = Vec::new();
    for buyer in buyers {
        purchases.push(buyer.await.expect("buyer"));
    }
    assert_all_fulfilled_once(
        &client,
        &shop,
        &upstream,
        &purchases,
        Duration::from_secs(60),
    )
    .await;
    eprintln!(
        "outage: {} purchases fulfilled once each, the last {:?} after the restart",
        purchases.len(),
        restarted.elapsed()
    );

    // The listening connection came back by itself.
    let started = Instant::now();
    loop {
        let out = Command::new("psql")
            .args([
                "-X",
                "-A",
                "-t",
                &cluster.url("shop"),
                "-c",
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'storefront listener'",
            ])
            .output()
            .expect("psql");
        if String::from_utf8_lossy(&out.stdout).trim() == "1" {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the LISTEN connection did not come back:\n{}",
            shop.log()
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let log = shop.log();
    assert!(
        log.contains("dependency unavailable"),
        "the outage is in the log as a 503's cause"
    );
    // The workers' failures: one line when it starts and one when it ends, not one per
    // worker and attempt.
    assert_eq!(
        log.matches("outbox workers failed").count(),
        1,
        "the outage is logged once by the workers:\n{log}"
    );
    assert!(log.contains("outbox workers recovered"), "{log}");
    assert!(
        !log.contains("request failed"),
        "a request failed with a 500 during the outage:\n{log}"
    );
}

/// A small tmpfs of the test's own, unmounted when dropped.
struct SmallDisk {
    dir: tempfile::TempDir,
}

impl SmallDisk {
    /// `None` when this machine cannot mount one (not root, no `CAP_SYS_ADMIN`).
    fn mount(megabytes: u32) -> Option<Self> {
        let dir = tempfile::tempdir().expect("mount point");
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={megabytes}m"), "tmpfs"])
            .arg(dir.path())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        mounted.then_some(Self { dir })
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Writes a filler file until the disk refuses; returns its size.
    fn fill(&self) -> u64 {
        use std::io::Write;
        let mut filler = File::create(self.filler()).expect("filler");
        let chunk = vec![0u8; 64 * 1024];
        let mut written = 0u64;
        while filler.write_all(&chunk).is_ok() {
            written += chunk.len() as u64;
        }
        // The last partial chunk may have left a few bytes free: take them too.
        while filler.write_all(&[0u8]).is_ok() {
            written += 1;
        }
        written
    }

    fn free(&self) {
        std::fs::remove_file(self.filler()).expect("remove filler");
    }

    fn filler(&self) -> PathBuf {
        self.dir.path().join("filler")
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount")
            .arg("-l")
            .arg(self.dir.path())
            .status();
    }
}

fn sqlite3(db: &Path, sql: &str) -> String {
    let out = Command::new("sqlite3")
        .arg(db)
        .arg(sql)
        .output()
        .expect("sqlite3");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
        + String::from_utf8_lossy(&out.stderr).trim()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sqlite_disk_full_mid_run_answers_a_clear_503_corrupts_nothing_and_recovers() {
    crate::helpers::init_logs();
    let Some(disk) = SmallDisk::mount(24) else {
        eprintln!(
            "\n!!!!!!!! cannot mount a tmpfs here (needs root with CAP_SYS_ADMIN): the SQLite \
             disk-full test is NOT being run !!!!!!!!\n"
        );
        return;
    };
    let db_path = disk.path().join("shop.db");
    let logs = tempfile::tempdir().expect("dir");
    let (upstream, key) = spawn_sandbox(150).await;
    let shop = Serve::start(
        logs.path(),
        &format!("sqlite://{}", db_path.display()),
        &upstream.base_url,
        &key,
    );
    let client = client();
    let plan = first_plan(&client, &shop).await;

    upstream
        .sandbox
        .set_provisioning_delays(Duration::from_secs(1), Duration::from_secs(1));
    let buyers = start_buyers(&client, &shop, &plan, Duration::from_secs(6));
    tokio::time::sleep(Duration::from_secs(2)).await;

    // Full: the write-ahead log folded back into the file first, so the next write must grow it.
    let checkpoint = sqlite3(&db_path, "PRAGMA wal_checkpoint(TRUNCATE);");
    let filled = disk.fill();
    eprintln!("disk full: checkpoint {checkpoint}, {filled} bytes of filler");
    let full_at = Instant::now();
    // Checkout answers a plain 503 (a write the disk refuses), quickly.
    let mut refused = false;
    while full_at.elapsed() < Duration::from_secs(4) && !refused {
        let res = client
            .get(shop.url(&format!("/plans/{plan}")))
            .send()
            .await
            .expect("plan page");
        assert_eq!(res.status(), 200, "the plan page needs no writes");
        refused = checkout_status(&client, &shop, &plan).await == 503;
    }
    assert!(refused, "no checkout was refused while the disk was full");
    assert_degraded_but_clear(&client, &shop, &plan).await;
    tokio::time::sleep(Duration::from_secs(3)).await;

    // Space again.
    disk.free();
    let mut purchases = Vec::new();
    for buyer in buyers {
        purchases.push(buyer.await.expect("buyer"));
    }
    assert_all_fulfilled_once(
        &client,
        &shop,
        &upstream,
        &purchases,
        Duration::from_secs(60),
    )
    .await;
    assert_eq!(
        checkout_status(&client, &shop, &plan).await,
        303,
        "checkout works again"
    );
    let log = shop.log();
    assert!(
        log.contains("database or disk is full") && log.contains("dependency unavailable"),
        "the log says the disk is full"
    );
    assert!(
        !log.contains("request failed"),
        "a request failed with a 500 while the disk was full:\n{log}"
    );
    drop(shop);
    assert_eq!(sqlite3(&db_path, "PRAGMA integrity_check;"), "ok");
}

/// One checkout of `plan` with a valid form (the plan page's cookie and token), and how long
/// the `POST /checkout` took to answer.
async fn checkout(
    client: &reqwest::Client,
    shop: &Serve,
    plan: &str,
    email: &str,
) -> (reqwest::Response, Duration) {
    let page = client
        .get(shop.url(&format!("/plans/{plan}")))
        .send()
        .await
        .expect("plan page");
    let csrf = csrf_cookie(page.headers());
    let html = page.text().await.expect("plan html");
    let form = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs([
            (
                "csrf_token",
                hidden(&html, "csrf_token").expect("token").as_str(),
            ),
            ("plan_id", plan),
            ("email", email),
            ("confirm_device", "yes"),
            ("accept_terms", "yes"),
            (
                "expected_price_cents",
                hidden(&html, "expected_price_cents")
                    .expect("price")
                    .as_str(),
            ),
        ])
        .finish();
    let started = Instant::now();
    let res = client
        .post(shop.url("/checkout"))
        .header("cookie", format!("csrf={csrf}"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form)
        .send()
        .await
        .expect("checkout answers");
    (res, started.elapsed())
}

/// The status of one checkout of `plan` with a valid form.
async fn checkout_status(client: &reqwest::Client, shop: &Serve, plan: &str) -> u16 {
    checkout(client, shop, plan, "disk@example.com")
        .await
        .0
        .status()
        .as_u16()
}

/// PostgreSQL on a full disk: a write fails as "unavailable" (the shop's 503), not as a bug,
/// and works again once there is room.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_disk_full_is_unavailable_and_recovers() {
    use diesel::RunQueryDsl;
    use storefront::config::DatabaseUrl;
    use storefront::db::{Db, DbError};

    let Some(disk) = SmallDisk::mount(128) else {
        eprintln!(
            "\n!!!!!!!! cannot mount a tmpfs here (needs root with CAP_SYS_ADMIN): the \
             PostgreSQL disk-full test is NOT being run !!!!!!!!\n"
        );
        return;
    };
    let Some(cluster) = Cluster::start_in(disk.path()) else {
        eprintln!("no PostgreSQL here: the PostgreSQL disk-full test is NOT being run");
        return;
    };
    cluster.psql("postgres", "CREATE DATABASE shop");
    let url = DatabaseUrl::parse(&cluster.url("shop")).expect("url");
    let db = Db::open(&url, 2).expect("open");
    db.migrate().await.expect("migrate");
    cluster.psql("shop", "CREATE TABLE filler (x TEXT)");
    let write = |n: usize| {
        let db = db.clone();
        async move {
            db.run(move |conn| {
                conn.write_tx(|conn| {
                    diesel::sql_query(format!(
                        "INSERT INTO filler (x) SELECT '{n}' || \
                         string_agg(md5(random()::text), '') FROM generate_series(1, 2000)"
                    ))
                    .execute(conn)
                    .map_err(DbError::from)
                })
            })
            .await
        }
    };
    write(0).await.expect("a write with room");

    disk.fill();
    let mut refused = None;
    for n in 1..=200 {
        if let Err(err) = write(n).await {
            refused = Some(err);
            break;
        }
    }
    let err = refused.expect("the full disk refused a write");
    assert!(
        err.is_unavailable(),
        "a full disk is unavailable, not a bug: {err}"
    );
    assert!(err.to_string().contains("No space left on device"), "{err}");

    disk.free();
    write(1_000)
        .await
        .expect("a write once there is room again");
}
