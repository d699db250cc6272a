//! `/metrics` counts purchases by status from counts the database keeps as purchases are
//! written, not from a count of every purchase per scrape: after purchases are added, change
//! status (one of them twice, one back and forth) and are deleted (as the retention of
//! abandoned checkouts deletes them), the scraped numbers equal a count made afresh; and the
//! plans of the gauges' queries read no big table whole.

use std::collections::BTreeMap;

use diesel::prelude::*;
use diesel::sql_types::Text;
use storefront::db::schema::{purchase_events, purchases};
use storefront::db::{DbConn, DbError};

use crate::both_backends;
use crate::fixtures::purchase;
use crate::helpers::{Backend, spawn_app_with};

both_backends!(metrics_count_purchases_as_they_change_without_reading_them_all);

const TOKEN: &str = "metrics-token-0123456789abcdef-0123456789";

/// `(what, sql)`: every query `db::metrics::read_gauges` sends, with literal values.
const GAUGE_QUERIES: [(&str, &str); 4] = [
    (
        "purchases by status",
        "SELECT status, n FROM purchase_status_counts WHERE n > 0 ORDER BY status",
    ),
    (
        "jobs by state",
        "SELECT state, n FROM outbox_state_counts WHERE n > 0 ORDER BY state",
    ),
    (
        "the most overdue job",
        "SELECT MIN(run_at_ms) FROM outbox_jobs WHERE state = 'queued'",
    ),
    (
        "open alerts",
        "SELECT COUNT(*) FROM alerts WHERE resolved_at_ms IS NULL",
    ),
];

#[derive(QueryableByName)]
struct SqlitePlan {
    #[diesel(sql_type = Text)]
    detail: String,
}

#[derive(QueryableByName)]
struct PgPlan {
    #[diesel(sql_type = Text, column_name = "QUERY PLAN")]
    line: String,
}

fn plan(conn: &mut DbConn, sql: &str) -> Result<String, DbError> {
    Ok(match conn {
        DbConn::Sqlite(c) => diesel::sql_query(format!("EXPLAIN QUERY PLAN {sql}"))
            .load::<SqlitePlan>(c)?
            .into_iter()
            .map(|r| r.detail)
            .collect::<Vec<_>>()
            .join("\n"),
        DbConn::Postgres(c) => {
            diesel::sql_query("SET enable_seqscan = off").execute(c)?;
            let shown = diesel::sql_query(format!("EXPLAIN {sql}"))
                .load::<PgPlan>(c)?
                .into_iter()
                .map(|r| r.line)
                .collect::<Vec<_>>()
                .join("\n");
            diesel::sql_query("SET enable_seqscan = on").execute(c)?;
            shown
        }
    })
}

/// The `storefront_purchases{status="…"}` lines of a scrape.
fn scraped(body: &str) -> BTreeMap<String, i64> {
    body.lines()
        .filter_map(|l| l.strip_prefix("storefront_purchases{status=\""))
        .filter_map(|rest| {
            let (status, n) = rest.split_once("\"} ")?;
            Some((status.to_string(), n.trim().parse().ok()?))
        })
        .collect()
}

async fn metrics_count_purchases_as_they_change_without_reading_them_all(backend: Backend) {
    let Some(app) = spawn_app_with(backend, &[("STOREFRONT_METRICS_TOKEN", TOKEN)]).await else {
        return;
    };
    let scrape = async || {
        let res = app
            .client
            .get(app.url("/metrics"))
            .bearer_auth(TOKEN)
            .send()
            .await
            .expect("metrics");
        assert_eq!(res.status(), 200);
        scraped(&res.text().await.expect("body"))
    };
    let counted = async || {
        app.db
            .run(|conn| {
                let rows: Vec<(String, i64)> = purchases::table
                    .group_by(purchases::status)
                    .select((purchases::status, diesel::dsl::count_star()))
                    .load(conn)?;
                Ok::<_, DbError>(rows.into_iter().collect::<BTreeMap<_, _>>())
            })
            .await
            .expect("a count")
    };
    let before = scrape().await;

    app.db
        .run(|conn| {
            for (id, status) in [
                ("m1", "awaiting_payment"),
                ("m2", "awaiting_payment"),
                ("m3", "paid"),
                ("m4", "paid"),
                ("m5", "fulfilled"),
            ] {
                storefront::db::purchases::insert(
                    conn,
                    &purchase(id).status(status).build(),
                    "created",
                )?;
            }
            for (id, status) in [
                ("m3", "ordered"),
                ("m3", "fulfilled"),
                ("m4", "needs_attention"),
                ("m4", "paid"),
                ("m1", "payment_failed"),
                // Not a change: counted once.
                ("m5", "fulfilled"),
            ] {
                diesel::update(purchases::table.find(id))
                    .set(purchases::status.eq(status))
                    .execute(conn)?;
            }
            diesel::delete(purchase_events::table.filter(purchase_events::purchase_id.eq("m2")))
                .execute(conn)?;
            diesel::delete(purchases::table.find("m2")).execute(conn)?;
            Ok::<_, DbError>(())
        })
        .await
        .expect("purchases written");

    let after = scrape().await;
    assert_eq!(after, counted().await, "the scrape equals a fresh count");
    let grew = |status: &str| {
        after.get(status).copied().unwrap_or(0) - before.get(status).copied().unwrap_or(0)
    };
    assert_eq!(
        (
            grew("awaiting_payment"),
            grew("paid"),
            grew("fulfilled"),
            grew("payment_failed"),
            grew("needs_attention"),
        ),
        (0, 1, 2, 1, 0)
    );

    for (what, sql) in GAUGE_QUERIES {
        let shown = app
            .db
            .run(move |conn| plan(conn, sql))
            .await
            .expect("a plan");
        for table in ["purchases", "outbox_jobs", "alerts"] {
            let scans = shown.lines().any(|l| {
                let l = l.trim();
                l == format!("SCAN {table}")
                    || l.starts_with(&format!("SCAN {table} "))
                    || l.contains(&format!("Seq Scan on {table}"))
            });
            assert!(!scans, "{what} reads all of {table}:\n{shown}");
        }
    }
}
