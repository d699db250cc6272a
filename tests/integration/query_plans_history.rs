//! The plans of the queries that read the local copy of the supplier's history
//! (`db::supplier_history`) and the stored days of the books (`db::book_days`): a period of the
//! books, a look-up by reference or id, the refresh's anchor, a page of the wallet CSV, the
//! marks a write leaves on the days it changes (in the payment's and the refresh's
//! transactions) and a period's stored days each read through an index, never the whole of
//! `supplier_orders`, `supplier_transactions`, `purchases` or `book_days`, and the wallet's pages come in the index's
//! order (no sort of the whole history per page). SQLite's `EXPLAIN QUERY PLAN` must not
//! `SCAN` either table nor sort (`TEMP B-TREE`); PostgreSQL, with sequential scans and sorts
//! priced out (an empty table gives the planner no reason to prefer an index), must not need a
//! `Seq Scan` on either, nor a `Sort` for the wallet's pages: each shows only where no index
//! can serve the query.
//!
//! The SQL below is what the functions named beside each query send, with literal values for
//! their binds.

use diesel::prelude::*;
use diesel::sql_types::Text;
use storefront::db::{DbConn, DbError};

use crate::both_backends;
use crate::helpers::{Backend, TestDb};

both_backends!(the_copy_of_the_supplier_history_is_read_by_index);

const FROM: &str = "1795305600000";
const UNTIL: &str = "1795392000000";

/// `(what, sql, whether its rows must come in index order)`.
fn queries() -> Vec<(&'static str, String, bool)> {
    vec![
        (
            "a period's orders (orders_in)",
            format!(
                "SELECT * FROM supplier_orders WHERE created_at_ms >= {FROM} AND created_at_ms < {UNTIL}"
            ),
            false,
        ),
        (
            "orders whose time cannot be read (orders_in)",
            "SELECT * FROM supplier_orders WHERE created_at_ms IS NULL".to_string(),
            false,
        ),
        (
            "orders named by id (orders_named)",
            "SELECT id FROM supplier_orders WHERE id IN ('ord_1', 'ord_2')".to_string(),
            false,
        ),
        (
            "orders named by reference (orders_named)",
            "SELECT id FROM supplier_orders WHERE reference IN ('sf-1', 'sf-2')".to_string(),
            false,
        ),
        (
            "the order of one reference (order_with_reference)",
            "SELECT * FROM supplier_orders WHERE reference = 'sf-1' LIMIT 1".to_string(),
            false,
        ),
        (
            "the newest order time (newest_orders)",
            "SELECT MAX(created_at_ms) FROM supplier_orders WHERE created_at_ms IS NOT NULL"
                .to_string(),
            false,
        ),
        (
            "the orders of the newest time (newest_orders)",
            format!("SELECT id FROM supplier_orders WHERE created_at_ms = {UNTIL} LIMIT 1000"),
            false,
        ),
        (
            "a period's transactions (transactions_in)",
            format!(
                "SELECT * FROM supplier_transactions WHERE created_at_ms >= {FROM} AND created_at_ms < {UNTIL}"
            ),
            false,
        ),
        (
            "transactions whose time cannot be read (transactions_in)",
            "SELECT * FROM supplier_transactions WHERE created_at_ms IS NULL".to_string(),
            false,
        ),
        (
            "transactions not loaded yet, read whole (transactions_for)",
            "SELECT * FROM supplier_transactions WHERE id IN (1, 2)".to_string(),
            false,
        ),
        (
            "transactions named by reference (transactions_for)",
            "SELECT id FROM supplier_transactions WHERE reference IN ('sf-1', 'ord_1')".to_string(),
            false,
        ),
        (
            "the newest transaction time (newest_transactions)",
            "SELECT MAX(created_at_ms) FROM supplier_transactions WHERE created_at_ms IS NOT NULL"
                .to_string(),
            false,
        ),
        (
            "the wallet CSV's first page (transactions_page)",
            "SELECT * FROM supplier_transactions WHERE created_at_ms IS NOT NULL \
             ORDER BY created_at_ms, id LIMIT 200"
                .to_string(),
            true,
        ),
        (
            "a later page of the wallet CSV (transactions_page)",
            format!(
                "SELECT * FROM supplier_transactions WHERE created_at_ms IS NOT NULL \
                 AND created_at_ms >= {FROM} AND (created_at_ms > {FROM} OR id > 4242) \
                 ORDER BY created_at_ms, id LIMIT 200"
            ),
            true,
        ),
        (
            "the wallet CSV's transactions whose time cannot be read (transactions_page)",
            "SELECT * FROM supplier_transactions WHERE created_at_ms IS NULL AND id > 4242 \
             ORDER BY id LIMIT 200"
                .to_string(),
            true,
        ),
        (
            "the orders naming a purchase (book_days::orders_days)",
            "SELECT created_at_ms FROM supplier_orders \
             WHERE id IN ('sf-1', 'ord_1') OR reference IN ('sf-1', 'ord_1')"
                .to_string(),
            false,
        ),
        (
            "the purchases an order names (book_days::purchases_named)",
            "SELECT reference, upstream_order_id, paid_at_ms, created_at_ms FROM purchases \
             WHERE reference IN ('sf-1', 'ord_1') OR upstream_order_id IN ('sf-1', 'ord_1')"
                .to_string(),
            false,
        ),
        (
            "the orders a transaction names (book_days::supplier_transactions_changed)",
            "SELECT id, reference, created_at_ms FROM supplier_orders \
             WHERE id = 'ord_1' OR reference = 'ord_1'"
                .to_string(),
            false,
        ),
        (
            "the credits of a top-up (book_days::transactions_days)",
            "SELECT created_at_ms FROM supplier_transactions \
             WHERE reference IN ('cs_1') AND kind = 'credit'"
                .to_string(),
            false,
        ),
        (
            "the first payment (book_days::active_days; the last likewise)",
            "SELECT MIN(paid_at_ms) FROM purchases WHERE paid_at_ms IS NOT NULL".to_string(),
            false,
        ),
        (
            "the last order (book_days::active_days; the first likewise)",
            "SELECT MAX(created_at_ms) FROM supplier_orders".to_string(),
            false,
        ),
        (
            "the first transaction (book_days::active_days; the last likewise)",
            "SELECT MIN(created_at_ms) FROM supplier_transactions".to_string(),
            false,
        ),
        (
            "a period's stored days (book_days::days_in)",
            format!(
                "SELECT day_ms, version, computed_version, summary FROM book_days \
                 WHERE day_ms >= {FROM} AND day_ms < {UNTIL} ORDER BY day_ms"
            ),
            true,
        ),
        (
            "a period's current days (book_days::stale_days)",
            format!(
                "SELECT day_ms FROM book_days WHERE day_ms >= {FROM} AND day_ms < {UNTIL} \
                 AND computed_version = version"
            ),
            false,
        ),
        (
            "a day's newest lines (book_days::newest)",
            format!(
                "SELECT version, computed_version, newest FROM book_days WHERE day_ms = {FROM}"
            ),
            false,
        ),
    ]
}

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

fn plan(conn: &mut DbConn, sql: &str) -> Result<Vec<String>, DbError> {
    Ok(match conn {
        DbConn::Sqlite(c) => diesel::sql_query(format!("EXPLAIN QUERY PLAN {sql}"))
            .load::<SqlitePlan>(c)?
            .into_iter()
            .map(|r| r.detail)
            .collect(),
        DbConn::Postgres(c) => {
            diesel::sql_query("SET enable_seqscan = off").execute(c)?;
            diesel::sql_query("SET enable_sort = off").execute(c)?;
            diesel::sql_query(format!("EXPLAIN {sql}"))
                .load::<PgPlan>(c)?
                .into_iter()
                .map(|r| r.line)
                .collect()
        }
    })
}

/// The first and last times, each read from the end of an index that starts with the time:
/// SQLite shows a walk of another index holding the column the same way (`SEARCH t USING
/// COVERING INDEX i`, no range), so the index is named.
const ENDS: &[(&str, &str)] = &[
    (
        "SELECT MIN(paid_at_ms) FROM purchases WHERE paid_at_ms IS NOT NULL",
        "purchases_paid_at",
    ),
    (
        "SELECT MAX(paid_at_ms) FROM purchases WHERE paid_at_ms IS NOT NULL",
        "purchases_paid_at",
    ),
    (
        "SELECT MIN(created_at_ms) FROM supplier_orders",
        "supplier_orders_created",
    ),
    (
        "SELECT MAX(created_at_ms) FROM supplier_transactions",
        "supplier_transactions_created_id",
    ),
];

async fn the_copy_of_the_supplier_history_is_read_by_index(backend: Backend) {
    let Some(test_db) = TestDb::new(backend) else {
        return;
    };
    let db = test_db.migrated().await;
    let mut faults = Vec::new();
    for (sql, index) in ENDS {
        let lines = db.run(move |conn| plan(conn, sql)).await.expect("a plan");
        if !lines.iter().any(|l| l.contains(index)) {
            faults.push(format!(
                "{sql} does not read {index}: {}",
                lines.join(" | ")
            ));
        }
    }
    for (what, sql, ordered) in queries() {
        let lines = db.run(move |conn| plan(conn, &sql)).await.expect("a plan");
        let shown = lines.join(" | ");
        for line in &lines {
            let step = line.trim();
            for table in [
                "supplier_orders",
                "supplier_transactions",
                "purchases",
                "book_days",
            ] {
                let scans = step == format!("SCAN {table}")
                    || step.starts_with(&format!("SCAN {table} "))
                    || step.contains(&format!("Seq Scan on {table}"));
                if scans {
                    faults.push(format!("{what} reads all of {table}: {shown}"));
                }
            }
            let sorts = step.contains("TEMP B-TREE")
                || step.starts_with("Sort ")
                || step.contains("-> Sort ");
            if ordered && sorts {
                faults.push(format!("{what} sorts the history: {shown}"));
            }
        }
    }
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}
