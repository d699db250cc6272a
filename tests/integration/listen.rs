//! Waking across replicas: on PostgreSQL a job committed by one process is run by another
//! process's idle workers at once (LISTEN/NOTIFY), not after their poll interval, also after
//! the listening connection was cut; on SQLite there is no listener and nothing changes.
//!
//! Each "replica" is an outbox with its own connection pool on the same database. The idle
//! one polls only every 60 s, so a job it runs within a couple of seconds was announced.

use std::sync::Arc;
use std::time::{Duration, Instant};

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text};
use storefront::config::{Secret, SecretKey};
use storefront::db::outbox::{self as jobs, Job};
use storefront::db::purchases;
use storefront::db::{Db, DbConn, DbError, now_ms};
use storefront::domain::Cents;
use storefront::orders::installation::InstallationKey;
use storefront::orders::outbox::{JobKind, Outbox, OutboxConfig, enqueue};
use storefront::payments::Provider;
use storefront::payments::demo::DemoProvider;
use storefront::upstream::PartnerClient;
use tokio::sync::watch;
use url::Url;

use crate::both_backends;
use crate::fixtures::as_id;
use crate::fixtures::purchase;
use crate::helpers::{Backend, TestDb, random_suffix};

/// Longer than any test here waits: a job run sooner was not found by polling.
const POLL: Duration = Duration::from_secs(60);
/// How soon an announced job must run on the other replica.
const AT_ONCE: Duration = Duration::from_secs(3);

fn replica(db: &Db) -> Outbox {
    let mut config = OutboxConfig::new(Cents::ZERO, false);
    config.poll_interval = POLL;
    // The jobs here never reach upstream; nothing listens at this address.
    let client = PartnerClient::new(storefront::upstream::UpstreamClientConfig::new(
        Url::parse("http://127.0.0.1:9/api/v1").expect("url"),
        Secret::new("sk_unused".to_string()),
    ))
    .expect("client");
    let payments = Arc::new(Provider::Demo(DemoProvider::new(
        &SecretKey::from_bytes([9; 32]),
        Url::parse("http://127.0.0.1:1").expect("url"),
    )));
    Outbox::new(
        db.clone(),
        client,
        payments,
        InstallationKey::derive(&SecretKey::from_bytes([3; 32])),
        config,
    )
}

/// A purchase (without an eSIM yet) and, in the same transaction, a `fetch_installation` job
/// for it: a job that finishes at once (`no_esim`) without calling upstream. Committed on
/// `db` without waking anyone in this process.
async fn commit_job(db: &Db) -> String {
    let id = format!("pur_{}", random_suffix());
    let now = now_ms();
    let new = purchase(&id)
        .status("paid")
        .created(now)
        .expires_in(60_000)
        .build();
    let pid = id.clone();
    db.run(move |c| {
        c.write_tx(|c| {
            purchases::insert(c, &new, "checkout")?;
            enqueue(c, &as_id(&pid), JobKind::FetchInstallation, now, now)?;
            Ok::<_, DbError>(())
        })
    })
    .await
    .expect("commit");
    id
}

async fn job(db: &Db, purchase_id: &str) -> Job {
    let id = purchase_id.to_string();
    db.run(move |c| jobs::jobs_for_purchase(c, &as_id(&id)))
        .await
        .expect("jobs")
        .into_iter()
        .next()
        .expect("the job")
}

/// How long until the job of `purchase_id` is done, failing after `within`.
async fn done_within(db: &Db, purchase_id: &str, within: Duration) -> Duration {
    let started = Instant::now();
    loop {
        let job = job(db, purchase_id).await;
        if job.state == jobs::DONE {
            assert_eq!(job.outcome.as_deref(), Some("no_esim"), "{job:?}");
            return started.elapsed();
        }
        assert!(
            started.elapsed() < within,
            "the other replica did not run the job within {within:?}: {job:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The backend pid of the listening connection on this database, once there is one.
fn listener_pid(conn: &mut DbConn) -> Result<Option<i64>, DbError> {
    #[derive(QueryableByName)]
    struct Pid {
        #[diesel(sql_type = BigInt)]
        pid: i64,
    }
    let found: Option<Pid> = diesel::sql_query(
        "SELECT pid::bigint AS pid FROM pg_stat_activity \
         WHERE datname = current_database() AND application_name = $1",
    )
    .bind::<Text, _>(storefront::db::listen::APPLICATION_NAME)
    .get_result(conn)
    .optional()?;
    Ok(found.map(|p| p.pid))
}

async fn wait_for_listener(db: &Db, other_than: Option<i64>) -> i64 {
    let started = Instant::now();
    loop {
        if let Some(pid) = db.run(listener_pid).await.expect("pg_stat_activity")
            && Some(pid) != other_than
        {
            return pid;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "no listening connection (other than {other_than:?}) appeared"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

both_backends!(a_job_committed_by_one_replica_wakes_another_at_once);

async fn a_job_committed_by_one_replica_wakes_another_at_once(backend: Backend) {
    let Some(test_db) = TestDb::new(backend) else {
        return;
    };
    let writer = test_db.migrated().await;
    let idle_db = test_db.open();
    let idle = replica(&idle_db);
    let (stop, stopped) = watch::channel(false);
    let workers = idle.spawn(2, stopped.clone());
    let listener = idle.listen_for_other_replicas(&test_db.url, stopped);

    if backend == Backend::Sqlite {
        assert!(listener.is_none(), "SQLite has nothing to listen to");
        // Other processes' jobs wait for the poll (60 s here).
        tokio::time::sleep(Duration::from_millis(500)).await;
        let id = commit_job(&writer).await;
        tokio::time::sleep(Duration::from_secs(1)).await;
        assert_eq!(job(&writer, &id).await.state, jobs::QUEUED);
    } else {
        let listener = listener.expect("PostgreSQL gets a listener");
        let first = wait_for_listener(&writer, None).await;
        // Let the workers go idle on their 60 s poll.
        tokio::time::sleep(Duration::from_millis(500)).await;
        let id = commit_job(&writer).await;
        let took = done_within(&writer, &id, AT_ONCE).await;
        assert!(took < AT_ONCE, "{took:?}");

        // Cut the listening connection: the listener reconnects and wakes on the next job.
        writer
            .run(move |c| {
                diesel::sql_query("SELECT pg_terminate_backend($1::int)")
                    .bind::<BigInt, _>(first)
                    .execute(c)
                    .map_err(DbError::from)
            })
            .await
            .expect("terminate the listener's backend");
        wait_for_listener(&writer, Some(first)).await;
        tokio::time::sleep(Duration::from_millis(500)).await;
        let id = commit_job(&writer).await;
        done_within(&writer, &id, AT_ONCE).await;

        let _ = stop.send(true);
        tokio::time::timeout(Duration::from_secs(2), listener)
            .await
            .expect("the listener stops on shutdown")
            .expect("listener task");
        let started = Instant::now();
        while writer
            .run(listener_pid)
            .await
            .expect("pg_stat_activity")
            .is_some()
        {
            assert!(
                started.elapsed() < Duration::from_secs(5),
                "the listening connection is closed on shutdown"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    let _ = stop.send(true);
    for worker in workers {
        tokio::time::timeout(Duration::from_secs(5), worker)
            .await
            .expect("worker stops")
            .expect("worker task");
    }
}

/// A markup rule saved by one replica reaches another's snapshot at once on PostgreSQL, not at
/// its next catalog check (every 15 s).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_markup_change_on_one_replica_reloads_another_at_once() {
    let Some(test_db) = TestDb::new(Backend::Postgres) else {
        return;
    };
    let writer = test_db.migrated().await;
    let storefront::config::DatabaseUrl::Postgres(url) = test_db.url.clone() else {
        panic!("a PostgreSQL test database");
    };
    let other = Arc::new(storefront::catalog::Catalog::new(test_db.open(), 0));
    other.reload().await.expect("reload");
    let (stop, stopped) = watch::channel(false);
    // Nothing answers here: the first check's sync fails, is recorded, and is not due again
    // for a minute.
    let client = PartnerClient::new(storefront::upstream::UpstreamClientConfig::new(
        Url::parse("http://127.0.0.1:9/api/v1").expect("url"),
        Secret::new("sk_unused".to_string()),
    ))
    .expect("client");
    let periodic = tokio::spawn(Arc::clone(&other).run_periodic(
        client,
        Duration::from_secs(3600),
        "other".to_string(),
        stopped.clone(),
    ));
    let woken = Arc::clone(&other);
    let listener = storefront::db::listen::spawn(
        url,
        &[storefront::db::CATALOG_CHANNEL],
        move |_| woken.wake(),
        stopped,
    );
    wait_for_listener(&writer, None).await;
    // Let the first check (and its failed sync) finish.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let before = other.snapshot().pricing_version;

    writer
        .run(|conn| {
            conn.write_tx(|conn| {
                storefront::db::pricing::save(
                    conn,
                    storefront::db::pricing::RuleValues {
                        scope_kind: "default",
                        scope_value: "",
                        markup_bps: 3000,
                        fixed_cents: 0,
                        price_ending: None,
                        min_margin_cents: 0,
                    },
                    now_ms(),
                )
            })
        })
        .await
        .expect("save a rule");
    let started = Instant::now();
    while other.snapshot().pricing_version == before {
        assert!(
            started.elapsed() < AT_ONCE,
            "the other replica still serves pricing version {before}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let _ = stop.send(true);
    let _ = tokio::time::timeout(Duration::from_secs(2), listener).await;
    let _ = tokio::time::timeout(Duration::from_secs(2), periodic).await;
}
