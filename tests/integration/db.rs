//! The query layer behaves the same on SQLite and PostgreSQL: migrations, typed round trips,
//! constraint enforcement, and write transactions under concurrent writers.

use diesel::prelude::*;
use storefront::db::purchases::{self, NewPurchase};
use storefront::db::schema::{outbox_jobs, purchase_events};
use storefront::db::{Backend as DbBackend, DbConn, DbError};
use storefront::domain::job::JobKind;
use storefront::domain::purchase::PurchaseStatus;

use crate::both_backends;
use crate::fixtures;
use crate::fixtures::as_id;
use crate::helpers::{Backend, TestDb};

fn purchase(id: &str) -> NewPurchase {
    fixtures::purchase(id)
        .plan("p12-base")
        .price(1299)
        .cost(1000)
        .idempotency_key(format!("key-{id}-0000"))
        .build()
}

fn insert(conn: &mut DbConn, row: &NewPurchase) -> QueryResult<usize> {
    diesel::insert_into(storefront::db::schema::purchases::table)
        .values(row)
        .execute(conn)
}

both_backends!(
    migrations_apply_once_and_report_ready,
    rows_round_trip_with_exact_values,
    constraints_are_enforced,
    write_transactions_survive_concurrent_writers,
    failed_write_transactions_roll_back,
    a_stored_status_the_shop_does_not_know_is_an_error_to_read,
);

/// A purchase row whose status is none the shop knows (written past the schema's CHECK, as a
/// hand edit or a newer version would) fails to read with an error: it is neither guessed
/// into another status nor a panic.
async fn a_stored_status_the_shop_does_not_know_is_an_error_to_read(backend: Backend) {
    let Some(test_db) = TestDb::new(backend) else {
        return;
    };
    let db = test_db.migrated().await;
    let read = db
        .run(move |conn| {
            insert(conn, &purchase("pu1"))?;
            let bypass = match backend {
                Backend::Sqlite => "PRAGMA ignore_check_constraints = ON",
                Backend::Postgres => "ALTER TABLE purchases DROP CONSTRAINT purchases_status_check",
            };
            diesel::sql_query(bypass).execute(conn)?;
            diesel::sql_query("UPDATE purchases SET status = 'lost' WHERE id = 'pu1'")
                .execute(conn)?;
            Ok::<_, DbError>(purchases::find(conn, &as_id("pu1")))
        })
        .await
        .expect("row written");
    let err = read.expect_err("an unknown status is not read as some other status");
    assert!(
        matches!(
            err,
            DbError::Query(diesel::result::Error::DeserializationError(_))
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("field 'status'"), "{err}");
    assert!(
        format!("{err:?}").contains("UnknownStatus(\"lost\")"),
        "{err:?}"
    );
}

async fn migrations_apply_once_and_report_ready(backend: Backend) {
    let Some(test_db) = TestDb::new(backend) else {
        return;
    };
    let db = test_db.open();
    assert_eq!(
        db.backend(),
        match backend {
            Backend::Sqlite => DbBackend::Sqlite,
            Backend::Postgres => DbBackend::Postgres,
        }
    );
    assert!(
        matches!(db.check_ready().await, Err(DbError::Migration(_))),
        "an unmigrated database must not be ready"
    );
    let first = db.migrate().await.expect("first run");
    assert!(!first.is_empty(), "the first run applies the migrations");
    let second = db.migrate().await.expect("second run");
    assert!(
        second.is_empty(),
        "a second run applies nothing: {second:?}"
    );
    db.check_ready().await.expect("ready after migrating");
}

async fn rows_round_trip_with_exact_values(backend: Backend) {
    let Some(test_db) = TestDb::new(backend) else {
        return;
    };
    let db = test_db.migrated().await;
    let mut row = purchase("pu1");
    row.price_cents = 9_007_199_254_740_991;
    row.email = "ünïcode@example.com".into();
    let expected = row.clone();
    let loaded = db
        .run(move |conn| -> Result<_, DbError> {
            conn.write_tx(|conn| {
                insert(conn, &row)?;
                diesel::insert_into(purchase_events::table)
                    .values((
                        purchase_events::purchase_id.eq(&row.id),
                        purchase_events::at_ms.eq(row.created_at_ms),
                        purchase_events::from_status.eq(None::<String>),
                        purchase_events::to_status.eq("awaiting_payment"),
                        purchase_events::note.eq("created"),
                    ))
                    .execute(conn)?;
                diesel::insert_into(outbox_jobs::table)
                    .values((
                        outbox_jobs::kind.eq(JobKind::PlaceOrder.as_str()),
                        outbox_jobs::purchase_id.eq(&row.id),
                        outbox_jobs::state.eq("queued"),
                        outbox_jobs::run_at_ms.eq(row.created_at_ms),
                        outbox_jobs::created_at_ms.eq(row.created_at_ms),
                        outbox_jobs::updated_at_ms.eq(row.created_at_ms),
                    ))
                    .execute(conn)?;
                Ok::<_, DbError>(())
            })?;
            let loaded = purchases::find(conn, &as_id("pu1"))?.expect("inserted");
            assert!(purchases::find(conn, &as_id("nope"))?.is_none());
            let (attempts, state): (i32, String) = outbox_jobs::table
                .filter(outbox_jobs::purchase_id.eq("pu1"))
                .select((outbox_jobs::attempts, outbox_jobs::state))
                .first(conn)?;
            assert_eq!((attempts, state.as_str()), (0, "queued"));
            let events: i64 = purchase_events::table.count().get_result(conn)?;
            assert_eq!(events, 1);
            Ok(loaded)
        })
        .await
        .expect("round trip");
    assert_eq!(loaded.id, expected.id);
    assert_eq!(loaded.price_cents.get(), expected.price_cents);
    assert_eq!(loaded.email.as_str(), expected.email);
    assert_eq!(loaded.status, PurchaseStatus::AwaitingPayment);
    assert_eq!(loaded.upstream_order_id, None);
    assert_eq!(loaded.expires_at_ms, expected.expires_at_ms);
}

async fn constraints_are_enforced(backend: Backend) {
    let Some(test_db) = TestDb::new(backend) else {
        return;
    };
    let db = test_db.migrated().await;
    db.run(|conn| -> Result<(), DbError> {
        insert(conn, &purchase("a"))?;
        let mut same_reference = purchase("b");
        same_reference.reference = "ref-a".into();
        assert!(
            insert(conn, &same_reference).is_err(),
            "reference must be unique"
        );
        let mut same_key = purchase("c");
        same_key.idempotency_key = "key-a-0000".into();
        assert!(
            insert(conn, &same_key).is_err(),
            "idempotency key must be unique"
        );
        let mut bad_status = purchase("d");
        bad_status.status = "shipped".into();
        assert!(
            insert(conn, &bad_status).is_err(),
            "status must be a known one"
        );
        let mut negative = purchase("e");
        negative.price_cents = -1;
        assert!(
            insert(conn, &negative).is_err(),
            "prices are never negative"
        );
        let orphan = diesel::insert_into(purchase_events::table)
            .values((
                purchase_events::purchase_id.eq("no-such-purchase"),
                purchase_events::at_ms.eq(0_i64),
                purchase_events::to_status.eq("paid"),
                purchase_events::note.eq(""),
            ))
            .execute(conn);
        assert!(orphan.is_err(), "foreign keys are enforced");
        let job = |state: &str| {
            (
                outbox_jobs::kind.eq(JobKind::PlaceOrder.as_str()),
                outbox_jobs::purchase_id.eq("a"),
                outbox_jobs::state.eq(state.to_string()),
                outbox_jobs::run_at_ms.eq(0_i64),
                outbox_jobs::created_at_ms.eq(0_i64),
                outbox_jobs::updated_at_ms.eq(0_i64),
            )
        };
        diesel::insert_into(outbox_jobs::table)
            .values(job("queued"))
            .execute(conn)?;
        assert!(
            diesel::insert_into(outbox_jobs::table)
                .values(job("queued"))
                .execute(conn)
                .is_err(),
            "one open job per purchase and kind"
        );
        diesel::insert_into(outbox_jobs::table)
            .values(job("done"))
            .execute(conn)?;
        Ok(())
    })
    .await
    .expect("constraint checks");
}

/// Eight threads each read a count and then write in the same transaction, 25 times. On
/// SQLite a deferred transaction would fail with "database is locked"; every one must commit.
async fn write_transactions_survive_concurrent_writers(backend: Backend) {
    let Some(test_db) = TestDb::new(backend) else {
        return;
    };
    let db = test_db.migrated().await;
    db.run(|conn| insert(conn, &purchase("shared")).map_err(DbError::from))
        .await
        .expect("seed");
    let mut tasks = Vec::new();
    for worker in 0..8 {
        let db = db.clone();
        tasks.push(tokio::spawn(async move {
            for i in 0..25 {
                db.run(move |conn| {
                    conn.write_tx(|conn| {
                        let before: i64 = purchase_events::table.count().get_result(conn)?;
                        diesel::insert_into(purchase_events::table)
                            .values((
                                purchase_events::purchase_id.eq("shared"),
                                purchase_events::at_ms.eq(before),
                                purchase_events::to_status.eq("paid"),
                                purchase_events::note.eq(format!("{worker}/{i}")),
                            ))
                            .execute(conn)?;
                        Ok::<_, DbError>(())
                    })
                })
                .await?;
            }
            Ok::<_, DbError>(())
        }));
    }
    for task in tasks {
        task.await
            .expect("task")
            .expect("every write transaction commits");
    }
    let count = db
        .run(|conn| {
            purchase_events::table
                .count()
                .get_result::<i64>(conn)
                .map_err(DbError::from)
        })
        .await
        .expect("count");
    assert_eq!(count, 200);
}

async fn failed_write_transactions_roll_back(backend: Backend) {
    let Some(test_db) = TestDb::new(backend) else {
        return;
    };
    let db = test_db.migrated().await;
    let outcome = db
        .run(|conn| {
            conn.write_tx(|conn| {
                insert(conn, &purchase("rolled-back"))?;
                Err::<(), DbError>(DbError::Migration("abandon".into()))
            })
        })
        .await;
    assert!(outcome.is_err());
    let count = db
        .run(|conn| {
            storefront::db::schema::purchases::table
                .count()
                .get_result::<i64>(conn)
                .map_err(DbError::from)
        })
        .await
        .expect("count");
    assert_eq!(count, 0, "nothing of a failed transaction remains");
    // The connection is usable afterwards (no transaction left open on it).
    db.run(|conn| conn.write_tx(|conn| insert(conn, &purchase("after")).map_err(DbError::from)))
        .await
        .expect("next transaction");
}

/// Replicas starting together: four migrators race on one PostgreSQL database.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_migrators_on_postgres_all_succeed() {
    let Some(test_db) = TestDb::new(Backend::Postgres) else {
        return;
    };
    let mut tasks = Vec::new();
    for _ in 0..4 {
        let db = test_db.open();
        tasks.push(tokio::spawn(async move { db.migrate().await }));
    }
    let mut applied = 0;
    for task in tasks {
        applied += task
            .await
            .expect("task")
            .expect("migration under the lock")
            .len();
    }
    let expected = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/migrations/postgres"))
        .expect("migrations")
        .count();
    assert_eq!(applied, expected, "each migration applied exactly once");
}
