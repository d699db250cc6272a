//! Every query behind the console's orders (the list and its searches, one order's page, the
//! orders CSV), the customer's "My eSIMs" list, the dashboard (what needs a person, open
//! alerts, the outbox's health), the wallet page (the runway's spend, the purchases its
//! transactions name) and `/metrics`' per-scrape counts is read by index: the
//! database's own plan for the query the code builds shows no full scan of the big tables, and
//! the list's pages come in index order (no sort of every matching row). An empty table would hide a missing index behind a cheap scan, so the plan,
//! not a timing, is what is checked: on SQLite `EXPLAIN QUERY PLAN`, on PostgreSQL `EXPLAIN`
//! with sequential scans priced out (`enable_seqscan = off`), so a scan shows only where no
//! index can serve the query.

use diesel::deserialize::{self, QueryableByName};
use diesel::prelude::*;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::row::NamedRow;
use diesel::sql_types::{Text, Untyped};
use storefront::db::order_search::{Cursor, Page};
use storefront::db::{DbBackend, DbConn, DbError};
use storefront::domain::PurchaseId;
use storefront::orders::console::Search;

use crate::both_backends;
use crate::helpers::{Backend, TestDb};

both_backends!(
    console_order_queries_read_by_index,
    the_outbox_claim_reads_by_index_when_nearly_every_job_is_done,
);

/// Tables that grow with every purchase: none of them may be read whole.
const BIG_TABLES: [&str; 6] = [
    "purchases",
    "outbox_jobs",
    "outbox_attempts",
    "purchase_events",
    "refunds",
    "alerts",
];

/// `query` behind `EXPLAIN QUERY PLAN` (SQLite) or `EXPLAIN` (PostgreSQL), binds kept.
struct Explain<Q> {
    prefix: &'static str,
    query: Q,
}

impl<Q: QueryFragment<DbBackend>> QueryFragment<DbBackend> for Explain<Q> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DbBackend>) -> QueryResult<()> {
        out.push_sql(self.prefix);
        self.query.walk_ast(out.reborrow())
    }
}

impl<Q> QueryId for Explain<Q> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<Q> Query for Explain<Q> {
    type SqlType = Untyped;
}

impl<Q, C> RunQueryDsl<C> for Explain<Q> {}

/// One line of a plan: SQLite's `detail` column, PostgreSQL's `QUERY PLAN`.
struct PlanLine(String);

impl QueryableByName<DbBackend> for PlanLine {
    fn build<'a>(row: &impl NamedRow<'a, DbBackend>) -> deserialize::Result<Self> {
        let line = NamedRow::get::<Text, String>(row, "detail")
            .or_else(|_| NamedRow::get::<Text, String>(row, "QUERY PLAN"))?;
        Ok(Self(line))
    }
}

/// The plan of `query` on `conn`, one line per step.
fn plan<Q>(conn: &mut DbConn, query: Q) -> Vec<String>
where
    Q: QueryFragment<DbBackend>,
{
    let prefix = match conn {
        DbConn::Sqlite(_) => "EXPLAIN QUERY PLAN ",
        DbConn::Postgres(_) => "EXPLAIN ",
    };
    let lines: Vec<PlanLine> = Explain { prefix, query }
        .load(conn)
        .unwrap_or_else(|e| panic!("explain failed: {e}"));
    lines.into_iter().map(|l| l.0).collect()
}

/// What is wrong with `plan` for the query `name`: a full scan of a big table, or (when
/// `ordered`) a sort of the rows found instead of reading them in the index's order.
fn faults(name: &str, plan: &[String], ordered: bool) -> Vec<String> {
    let shown = plan
        .iter()
        .map(|line| line.trim())
        .filter(|line| {
            !line.starts_with("JIT") && !line.contains("Functions:") && !line.contains("Options:")
        })
        .collect::<Vec<_>>()
        .join(" | ");
    let mut found = Vec::new();
    for line in plan {
        let step = line.trim();
        for table in BIG_TABLES {
            let sqlite_scan = step == format!("SCAN {table}")
                || (step.starts_with(&format!("SCAN {table} ")) && !step.contains("INDEX"));
            let pg_scan = step.contains(&format!("Seq Scan on {table} "))
                || step.ends_with(&format!("Seq Scan on {table}"));
            if sqlite_scan || pg_scan {
                found.push(format!("{name}: reads all of {table}: {shown}"));
            }
        }
        if ordered && step.contains("TEMP B-TREE") {
            found.push(format!("{name}: sorts every match: {shown}"));
        }
    }
    found
}

/// What is wrong with `plan` for a query that must go straight to its rows: on SQLite, a walk
/// through a whole index of a big table (`SCAN t USING INDEX`) rather than a search of one
/// range of it.
fn walks(name: &str, plan: &[String]) -> Vec<String> {
    let shown = plan.join(" | ");
    plan.iter()
        .map(|line| line.trim())
        .filter(|step| {
            BIG_TABLES
                .iter()
                .any(|table| step.starts_with(&format!("SCAN {table} USING")))
        })
        .map(|_| format!("{name}: walks a whole index: {shown}"))
        .collect()
}

/// The statistics SQLite's planner reads (`sqlite_stat1`) of a shop that has sold for years,
/// as `ANALYZE` wrote them on a database grown by `scripts/scale_db.py` to 300,000 purchases
/// over three years (every job done, every address at one domain, a tenth of checkouts
/// abandoned). An empty test database has no statistics and the planner then assumes every
/// index is selective; these show the plans an old shop gets. PostgreSQL reads its own
/// statistics, and sequential scans are priced out there instead.
const OLD_SHOP_STATISTICS: &[(&str, &str, &str)] = &[
    ("checkouts", "sqlite_autoindex_checkouts_1", "300000 1"),
    ("checkouts", "sqlite_autoindex_checkouts_2", "300000 1"),
    ("installations", "installations_key", "270000 270000 1"),
    (
        "installations",
        "sqlite_autoindex_installations_1",
        "270000 1",
    ),
    (
        "order_link_tokens",
        "sqlite_autoindex_order_link_tokens_1",
        "840000 3 1",
    ),
    ("outbox_attempts", "outbox_attempts_finished", "1350000 1 1"),
    ("outbox_attempts", "outbox_attempts_job", "1350000 1 1"),
    ("outbox_jobs", "outbox_jobs_due", "1350000 1350000 2"),
    ("outbox_jobs", "outbox_jobs_purchase", "1350000 5 1"),
    (
        "payment_events",
        "sqlite_autoindex_payment_events_1",
        "270000 1",
    ),
    ("purchase_events", "purchase_events_purchase", "1110000 4 1"),
    ("purchases", "purchases_checkout_unit", "300000 1 1"),
    ("purchases", "purchases_created", "300000 1 1"),
    ("purchases", "purchases_email", "300000 1"),
    ("purchases", "purchases_email_created", "300000 1 1 1"),
    ("purchases", "purchases_email_domain", "300000 300000 1 1"),
    ("purchases", "purchases_email_lower", "300000 1"),
    ("purchases", "purchases_order_key", "300000 1"),
    ("purchases", "purchases_paid_at", "270000 1"),
    ("purchases", "purchases_payment_reference", "300000 2"),
    ("purchases", "purchases_status_created", "300000 100000 1 1"),
    ("purchases", "purchases_status_expires", "300000 100000 1"),
    ("purchases", "purchases_status_updated", "300000 100000 1"),
    ("purchases", "sqlite_autoindex_purchases_1", "300000 1"),
    ("purchases", "sqlite_autoindex_purchases_2", "300000 1"),
    ("purchases", "sqlite_autoindex_purchases_3", "300000 1"),
    ("purchases", "sqlite_autoindex_purchases_4", "300000 2"),
    ("purchases", "sqlite_autoindex_purchases_5", "300000 1"),
    ("purchases", "sqlite_autoindex_purchases_6", "300000 1"),
    (
        "receipt_lines",
        "sqlite_autoindex_receipt_lines_1",
        "270000 1 1",
    ),
    ("receipts", "sqlite_autoindex_receipts_1", "270000 1"),
    ("receipts", "sqlite_autoindex_receipts_2", "270000 1"),
    (
        "supplier_orders",
        "sqlite_autoindex_supplier_orders_1",
        "270000 1",
    ),
    ("supplier_orders", "supplier_orders_created", "270000 54"),
    ("supplier_orders", "supplier_orders_reference", "270000 1"),
    (
        "supplier_transactions",
        "sqlite_autoindex_supplier_transactions_1",
        "542000 1",
    ),
    (
        "supplier_transactions",
        "supplier_transactions_created_id",
        "542000 78 1",
    ),
    (
        "supplier_transactions",
        "supplier_transactions_reference",
        "542000 2",
    ),
];

/// Gives this SQLite connection's planner [`OLD_SHOP_STATISTICS`].
fn old_shop_statistics(conn: &mut DbConn) -> Result<(), DbError> {
    diesel::sql_query("ANALYZE").execute(conn)?;
    diesel::sql_query("DELETE FROM sqlite_stat1").execute(conn)?;
    for (table, index, stat) in OLD_SHOP_STATISTICS {
        diesel::sql_query("INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES (?, ?, ?)")
            .bind::<Text, _>(*table)
            .bind::<Text, _>(*index)
            .bind::<Text, _>(*stat)
            .execute(conn)?;
    }
    // Reloads the statistics into this connection's planner.
    diesel::sql_query("ANALYZE sqlite_schema").execute(conn)?;
    Ok(())
}

fn search(
    text: Option<&str>,
    status: Option<&str>,
    from: Option<&str>,
    to: Option<&str>,
) -> Search {
    Search::parse(text, status, from, to).expect("a valid search")
}

async fn console_order_queries_read_by_index(backend: Backend) {
    let Some(test_db) = TestDb::new(backend) else {
        return;
    };
    let db = test_db.migrated().await;
    let faults = db
        .run(|conn| {
            match conn {
                DbConn::Postgres(_) => {
                    diesel::sql_query("SET enable_seqscan = off").execute(conn)?;
                }
                DbConn::Sqlite(_) => old_shop_statistics(conn)?,
            }
            let now_ms = 1_790_000_000_000;
            let id = PurchaseId::parse("3fa29c1e0b7d4411aa02").expect("id");
            let mut faults = Vec::new();
            let mut walked = Vec::new();
            let mut check = |name: &str, plan: Vec<String>, ordered: bool| {
                faults.extend(self::faults(name, &plan, ordered));
            };

            // The orders list and its searches, first pages.
            let lists = [
                ("the default list", search(None, None, None, None), true),
                ("one status", search(None, Some("paid"), None, None), true),
                (
                    "a date range",
                    search(None, None, Some("2026-03-01"), Some("2026-03-31")),
                    true,
                ),
                (
                    "abandoned checkouts",
                    search(None, Some("abandoned"), None, None),
                    false,
                ),
                (
                    "the start of an email",
                    search(Some("Zoe.Smith"), None, None, None),
                    false,
                ),
                (
                    "an email's domain",
                    search(Some("example.com"), None, None, None),
                    false,
                ),
                (
                    "an order number",
                    search(Some("SF-3FA2-9C1E"), None, None, None),
                    false,
                ),
                (
                    "a reference",
                    search(Some("sf-p07"), Some("paid"), None, None),
                    false,
                ),
            ];
            let at = Cursor {
                created_at_ms: now_ms - 86_400_000,
                id: id.clone(),
            };
            let pages = [
                ("", Page::First),
                (", an older page", Page::Older(at.clone())),
                (", a newer page", Page::Newer(at)),
            ];
            for (name, search, ordered) in lists {
                let filter = search.filter(now_ms).expect("a valid range");
                for (which, page) in &pages {
                    check(
                        &format!("{name}{which}"),
                        plan(
                            conn,
                            storefront::db::order_search::search_query(&filter, page, 26),
                        ),
                        ordered,
                    );
                }
                for (which, page) in &pages {
                    let probes = storefront::db::order_search::probe_queries(&filter, page);
                    for (i, probe) in probes.into_iter().enumerate() {
                        let plan = plan(conn, probe);
                        let name = format!("{name}{which}, its matches of kind {i}");
                        walked.extend(walks(&name, &plan));
                        check(&name, plan, false);
                    }
                }
                for (i, query) in storefront::db::order_search::not_listed_queries(&filter)
                    .into_iter()
                    .enumerate()
                {
                    let plan = plan(conn, query);
                    let name = format!("{name}, abandoned checkouts not listed ({i})");
                    walked.extend(walks(&name, &plan));
                    // With text, the matches are found by the text's index: every abandoned
                    // checkout of all time is not a range to read through.
                    if filter.query.is_some()
                        && plan.iter().any(|l| l.contains("purchases_status_expires"))
                    {
                        walked.push(format!("{name}: reads every abandoned checkout: {plan:?}"));
                    }
                    check(&name, plan, false);
                }
            }
            let chosen = plan(
                conn,
                storefront::db::order_search::chosen_query(
                    vec![id.to_string(), "p07".to_string()],
                    &Page::First,
                    26,
                ),
            );
            walked.extend(walks("the matches found, in order", &chosen));
            check("the matches found, in order", chosen, false);

            // One order's page.
            check(
                "the order",
                plan(conn, storefront::db::purchases::find_query(&id)),
                false,
            );
            check(
                "its timeline",
                plan(conn, storefront::db::purchases::events_query(&id)),
                false,
            );
            check(
                "its jobs",
                plan(conn, storefront::db::outbox::jobs_for_purchase_query(&id)),
                false,
            );
            check(
                "a job's attempts",
                plan(conn, storefront::db::outbox::attempts_query(7)),
                false,
            );
            check(
                "its refund",
                plan(conn, storefront::db::refunds::refund_for_query(&id)),
                false,
            );
            check(
                "its alerts",
                plan(conn, storefront::db::alerts::alerts_for_purchase_query(&id)),
                false,
            );
            check(
                "its links",
                plan(conn, storefront::db::order_links::counts_query(&id)),
                false,
            );

            // "My eSIMs": one address's purchases, newest first, first and later pages.
            let after = storefront::db::customer_orders::After {
                created_at_ms: now_ms - 86_400_000,
                id: id.clone(),
            };
            for (name, after) in [
                ("my eSIMs", None),
                ("my eSIMs, an older page", Some(&after)),
            ] {
                check(
                    name,
                    plan(
                        conn,
                        storefront::db::customer_orders::purchases_of_query(
                            "zoe@example.com",
                            after,
                            21,
                        ),
                    ),
                    true,
                );
            }
            check(
                "its installation",
                plan(conn, storefront::db::installations::iccid_last4_query(&id)),
                false,
            );

            // The dashboard: what needs a person, open alerts, the outbox's health.
            check(
                "orders needing attention: those with an open alert",
                plan(conn, storefront::db::dashboard::with_open_alert_query(20)),
                false,
            );
            check(
                "orders needing attention: needs_attention, not resolved since",
                plan(
                    conn,
                    storefront::db::dashboard::unresolved_attention_query(20),
                ),
                false,
            );
            check(
                "open alerts",
                plan(conn, storefront::db::alerts::open_alerts_query()),
                false,
            );
            check(
                "the newest open alerts",
                plan(conn, storefront::db::alerts::newest_open_alerts_query(10)),
                true,
            );
            check(
                "how many orders need attention",
                plan(
                    conn,
                    storefront::db::dashboard::CountOf(
                        storefront::db::dashboard::needs_attention_count_query(),
                    ),
                ),
                false,
            );
            check(
                "how many alerts are open",
                plan(
                    conn,
                    storefront::db::dashboard::CountOf(
                        storefront::db::dashboard::open_alerts_count_query(),
                    ),
                ),
                false,
            );
            check(
                "outbox health, jobs finished lately",
                plan(
                    conn,
                    storefront::db::dashboard::CountOf(
                        storefront::db::dashboard::finished_since_query(now_ms - 600_000),
                    ),
                ),
                false,
            );
            check(
                "outbox health, jobs waiting",
                plan(
                    conn,
                    storefront::db::dashboard::CountOf(storefront::db::dashboard::pending_query()),
                ),
                false,
            );
            check(
                "outbox health, jobs stopped",
                plan(
                    conn,
                    storefront::db::dashboard::CountOf(storefront::db::dashboard::dead_query()),
                ),
                false,
            );
            for (i, count) in storefront::db::dashboard::health_counts(now_ms)
                .into_iter()
                .enumerate()
            {
                check(
                    &format!("outbox health, count {i}"),
                    plan(conn, count),
                    false,
                );
            }
            check(
                "/metrics, orders still moving",
                plan(
                    conn,
                    storefront::db::metrics::purchases_by_status_query(
                        storefront::db::metrics::live_statuses(),
                    ),
                ),
                false,
            );
            check(
                "/metrics, jobs not done",
                plan(
                    conn,
                    storefront::db::metrics::jobs_by_state_query(
                        storefront::db::metrics::LIVE_JOB_STATES.to_vec(),
                    ),
                ),
                false,
            );
            check(
                "outbox health, the oldest due job",
                plan(conn, storefront::db::dashboard::oldest_due_query(now_ms)),
                false,
            );

            // The wallet page: the runway's spend and the purchases its transactions name.
            check(
                "the runway's last 7 days",
                plan(
                    conn,
                    storefront::db::wallet::placed_cost_since_query(now_ms - 7 * 86_400_000),
                ),
                false,
            );
            check(
                "purchases named by the wallet's transactions",
                plan(
                    conn,
                    storefront::db::purchases::named_by_references_query(&[
                        "ord_1".to_string(),
                        "sf-p07".to_string(),
                    ]),
                ),
                false,
            );

            // The orders CSV: pages of the list (above) and what their purchases had refunded.
            let ids = [id.clone(), PurchaseId::parse("p07").expect("id")];
            check(
                "the orders CSV's refunds",
                plan(conn, storefront::db::books::refunded_query(Some(&ids))),
                false,
            );
            check(
                "the dashboard's abandoned checkouts of a month",
                plan(
                    conn,
                    storefront::db::order_search::count_abandoned_query(
                        &search(None, None, Some("2026-03-01"), Some("2026-03-31"))
                            .filter(now_ms)
                            .expect("a valid range"),
                    ),
                ),
                false,
            );
            faults.extend(walked);
            Ok::<_, DbError>(faults)
        })
        .await
        .expect("plans");
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

/// The outbox workers' claim runs inside a write transaction several times a second, so a
/// scan or a sort there holds every other writer back. On a shop that has sold for years
/// nearly every job is `done`: SQLite's statistics then say the state tells no rows apart,
/// and without an index of their own the expired leases were looked for in every job ever run
/// (observed on a 1M-purchase database: 1.1 s per claim, and writers failing with "database
/// is locked"). After its mail server was down the same shop has a million due reminders: a
/// claim that sorted every due job by kind read them all on every claim. The statistics of
/// such a shop are written here, then each of the claim's looks is explained: each must read
/// its first row from an index, in the index's order.
async fn the_outbox_claim_reads_by_index_when_nearly_every_job_is_done(backend: Backend) {
    use diesel::sql_types::BigInt;
    use storefront::db::outbox::{
        CLAIM_EXPIRED_POSTGRES, CLAIM_EXPIRED_SQLITE, CLAIM_QUEUED_POSTGRES, CLAIM_QUEUED_SQLITE,
        Lane,
    };
    let Some(test_db) = TestDb::new(backend) else {
        return;
    };
    let db = test_db.migrated().await;
    let faults = db
        .run(|conn| {
            let (explain, looks) = match conn {
                DbConn::Postgres(_) => {
                    diesel::sql_query("SET enable_seqscan = off").execute(conn)?;
                    ("EXPLAIN ", [CLAIM_EXPIRED_POSTGRES, CLAIM_QUEUED_POSTGRES])
                }
                DbConn::Sqlite(_) => {
                    diesel::sql_query("ANALYZE").execute(conn)?;
                    diesel::sql_query("DELETE FROM sqlite_stat1 WHERE tbl = 'outbox_jobs'")
                        .execute(conn)?;
                    diesel::sql_query(
                        "INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES \
                         ('outbox_jobs', 'outbox_jobs_due', '4500900 2250450 2'), \
                         ('outbox_jobs', 'outbox_jobs_queued_kind', '1000000 500000 2 1'), \
                         ('outbox_jobs', 'outbox_jobs_finished', '4500900 2250450 2'), \
                         ('outbox_jobs', 'outbox_jobs_purchase', '4500900 5 1'), \
                         ('outbox_jobs', 'outbox_jobs_one_open', '4500900 5 1')",
                    )
                    .execute(conn)?;
                    // Reloads the statistics into this connection's planner.
                    diesel::sql_query("ANALYZE sqlite_schema").execute(conn)?;
                    (
                        "EXPLAIN QUERY PLAN ",
                        [CLAIM_EXPIRED_SQLITE, CLAIM_QUEUED_SQLITE],
                    )
                }
            };
            let mut faults = Vec::new();
            for &kind in Lane::Any.kinds() {
                for (name, look) in ["expired lease", "due job"].into_iter().zip(looks) {
                    let lines: Vec<PlanLine> = diesel::sql_query(format!("{explain}{look}"))
                        .bind::<Text, _>(kind.as_str())
                        .bind::<BigInt, _>(1_790_000_000_000_i64)
                        .load(conn)?;
                    let plan: Vec<String> = lines.into_iter().map(|l| l.0).collect();
                    faults.extend(self::faults(
                        &format!("the claim's look for a {kind} {name}"),
                        &plan,
                        true,
                    ));
                }
            }
            Ok::<_, DbError>(faults)
        })
        .await
        .expect("plans read");
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}
