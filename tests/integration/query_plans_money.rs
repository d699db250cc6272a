//! The plans of the queries behind the dashboard's money and the books' period: each reads
//! through an index, never a full scan of `purchases` or `refunds`. SQLite's
//! `EXPLAIN QUERY PLAN` must not say `SCAN purchases`/`SCAN refunds`; PostgreSQL, with
//! sequential scans turned off, must not need a `Seq Scan` on either. On SQLite the
//! dashboard's windows of purchases are answered by a covering index.
//!
//! The SQL below is what `db::daily_sales`, `db::dashboard` (destinations, checkouts) and
//! `db::books::paid_or_placed_in` and the period reads of `db::tax` send, with literal values
//! for their binds.

use diesel::prelude::*;
use diesel::sql_types::Text;
use storefront::db::{DbConn, DbError};

use crate::both_backends;
use crate::helpers::{Backend, TestDb};

both_backends!(the_dashboard_money_and_the_books_period_read_by_index);

const DAY: &str = "1795305600000";
const NEXT: &str = "1795392000000";

fn queries() -> Vec<(&'static str, String)> {
    vec![
        (
            "a day's purchases with their refunds (daily_sales::recount)",
            format!(
                "SELECT purchases.price_cents, purchases.cost_cents, refunds.amount_cents, refunds.status \
                 FROM purchases LEFT OUTER JOIN refunds ON refunds.purchase_id = purchases.id \
                 WHERE purchases.paid_at_ms >= {DAY} AND purchases.paid_at_ms < {NEXT}"
            ),
        ),
        (
            "the stored days (daily_sales::days)",
            format!("SELECT * FROM daily_sales WHERE day_ms >= {DAY} AND day_ms < {NEXT}"),
        ),
        (
            "the window's destinations (dashboard::plan_sales)",
            format!(
                "SELECT plan_id, status, COUNT(*), SUM(price_cents) FROM purchases \
                 WHERE paid_at_ms >= {DAY} AND paid_at_ms < {NEXT} GROUP BY plan_id, status"
            ),
        ),
        (
            "the window's checkouts (dashboard::checkouts)",
            format!(
                "SELECT COUNT(*), COUNT(paid_at_ms) FROM purchases \
                 WHERE created_at_ms >= {DAY} AND created_at_ms < {NEXT} AND unit_index = 1"
            ),
        ),
        (
            "the books' purchases placed and never paid (books::paid_or_placed_in)",
            format!(
                "SELECT * FROM purchases WHERE created_at_ms >= {DAY} AND created_at_ms < {NEXT} \
                 AND paid_at_ms IS NULL AND upstream_order_id IS NOT NULL"
            ),
        ),
        (
            "the books' purchases named by upstream (books::paid_or_placed_in)",
            "SELECT * FROM purchases WHERE upstream_order_id IN ('ord_1', 'ord_2')".to_string(),
        ),
        (
            "a period's taxed sales by country and rate (tax::sold_by_country_rate)",
            format!(
                "SELECT sale_taxes.country, sale_tax_lines.rate_bps, CAST(SUM(sale_tax_lines.taxable_cents) AS BIGINT), \
                 CAST(SUM(sale_tax_lines.tax_cents) AS BIGINT) \
                 FROM sale_taxes JOIN sale_tax_lines ON sale_tax_lines.checkout_id = sale_taxes.checkout_id \
                 WHERE sale_taxes.paid_at_ms >= {DAY} AND sale_taxes.paid_at_ms < {NEXT} \
                 GROUP BY sale_taxes.country, sale_tax_lines.rate_bps ORDER BY sale_taxes.country, sale_tax_lines.rate_bps"
            ),
        ),
        (
            "a period's credit notes' tax (tax::credited_by_country_rate)",
            format!(
                "SELECT country, rate_bps, CAST(SUM(taxable_cents) AS BIGINT), \
                 CAST(SUM(tax_cents) AS BIGINT) FROM credit_note_tax_lines \
                 WHERE issued_at_ms >= {DAY} AND issued_at_ms < {NEXT} \
                 GROUP BY country, rate_bps ORDER BY country, rate_bps"
            ),
        ),
        (
            "a period's tax totals (tax::totals)",
            format!(
                "SELECT COUNT(*), COALESCE(SUM(net_cents), 0), COALESCE(SUM(tax_cents), 0), \
                 COALESCE(SUM(gross_cents), 0) FROM sale_taxes \
                 WHERE paid_at_ms >= {DAY} AND paid_at_ms < {NEXT}"
            ),
        ),
        (
            "the books' refunds of those purchases",
            "SELECT purchase_id, SUM(amount_cents) FROM refunds WHERE status <> 'failed' \
             AND purchase_id IN ('a', 'b') GROUP BY purchase_id"
                .to_string(),
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
            diesel::sql_query(format!("EXPLAIN {sql}"))
                .load::<PgPlan>(c)?
                .into_iter()
                .map(|r| r.line)
                .collect::<Vec<_>>()
                .join("\n")
        }
    })
}

async fn the_dashboard_money_and_the_books_period_read_by_index(backend: Backend) {
    let Some(test_db) = TestDb::new(backend) else {
        return;
    };
    let db = test_db.migrated().await;
    for (what, sql) in queries() {
        let shown = plan_of(&db, sql).await;
        for table in [
            "purchases",
            "refunds",
            "daily_sales",
            "sale_taxes",
            "sale_tax_lines",
            "credit_note_tax_lines",
        ] {
            let scans = match backend {
                Backend::Sqlite => shown.lines().any(|l| {
                    l.trim() == format!("SCAN {table}") || l.starts_with(&format!("SCAN {table} "))
                }),
                Backend::Postgres => shown.contains(&format!("Seq Scan on {table}")),
            };
            assert!(!scans, "{what} scans {table}:\n{shown}");
        }
        // The dashboard's two windows of `purchases` come from the index alone (a fetch per
        // purchase from the table was most of the dashboard at a million), with or without
        // statistics (this database has none).
        if backend == Backend::Sqlite && what.contains("(dashboard::") {
            assert!(
                shown.contains("USING COVERING INDEX"),
                "{what} reads the table:\n{shown}"
            );
        }
    }
}

async fn plan_of(db: &storefront::db::Db, sql: String) -> String {
    db.run(move |conn| plan(conn, &sql)).await.expect("a plan")
}
