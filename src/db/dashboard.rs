//! The console dashboard's read model across tables: top destinations and checkouts of a
//! window (its money is in `daily_sales`), the outbox's health, and the purchases a person
//! must look at. Read-only; nothing here reads an
//! installation's encrypted values.

use diesel::dsl::{exists, not};
use diesel::prelude::*;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::sql_types::{BigInt, Nullable};

use crate::db::purchases::Purchase;
use crate::db::schema::{alerts, catalog_plans, outbox_jobs, purchases};
use crate::db::{DbBackend, DbConn, DbError, SelectOf, outbox};
use crate::domain::job::JobKind;

/// Statuses of a sale that was not given back: what the top destinations count.
const SOLD: &[&str] = &[
    "paid",
    "ordered",
    "provisioning",
    "fulfilled",
    "needs_attention",
];

/// A plan's sales in a window: plan id, its destination's name (when the catalog table still
/// has the plan), orders and what they charged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanSales {
    pub plan_id: String,
    pub destination: Option<String>,
    pub orders: i64,
    pub sales_cents: i64,
}

/// Sales per plan of the purchases paid in `[from_ms, until_ms)` and not given back, read
/// by the `paid_at_ms` index.
pub fn plan_sales(
    conn: &mut DbConn,
    from_ms: i64,
    until_ms: i64,
) -> Result<Vec<PlanSales>, DbError> {
    // Grouped by status too and the sold ones kept here: with the status in the query, a
    // database without statistics may read it by the status index (every sale ever) instead of
    // the window of `purchases_paid_at`, which covers this query.
    let by_status: Vec<(String, String, i64, Option<i64>)> = purchases::table
        .filter(purchases::paid_at_ms.ge(from_ms))
        .filter(purchases::paid_at_ms.lt(until_ms))
        .group_by((purchases::plan_id, purchases::status))
        .select((
            purchases::plan_id,
            purchases::status,
            diesel::dsl::count_star(),
            diesel::dsl::sql::<Nullable<BigInt>>("CAST(SUM(price_cents) AS BIGINT)"),
        ))
        .load(conn)?;
    let mut sold: std::collections::BTreeMap<String, (i64, i64)> =
        std::collections::BTreeMap::new();
    for (plan_id, status, orders, sales) in by_status {
        if SOLD.contains(&status.as_str()) {
            let entry = sold.entry(plan_id).or_default();
            entry.0 = entry.0.saturating_add(orders);
            entry.1 = entry.1.saturating_add(sales.unwrap_or(0));
        }
    }
    let rows: Vec<(String, i64, Option<i64>)> = sold
        .into_iter()
        .map(|(plan_id, (orders, sales))| (plan_id, orders, Some(sales)))
        .collect();
    let ids: Vec<&str> = rows.iter().map(|(id, _, _)| id.as_str()).collect();
    let mut names = std::collections::HashMap::new();
    for chunk in ids.chunks(500) {
        names.extend(
            catalog_plans::table
                .filter(catalog_plans::id.eq_any(chunk))
                .select((catalog_plans::id, catalog_plans::country_name))
                .load::<(String, String)>(conn)?,
        );
    }
    Ok(rows
        .into_iter()
        .map(|(plan_id, orders, sales)| PlanSales {
            destination: names.get(&plan_id).cloned(),
            plan_id,
            orders,
            sales_cents: sales.unwrap_or(0),
        })
        .collect())
}

/// Checkouts started in `[from_ms, until_ms)`, and how many of them were paid, read by the
/// `created_at_ms` index. A checkout of several eSIMs counts once: by its first unit, paid
/// with the others by one payment.
pub fn checkouts(conn: &mut DbConn, from_ms: i64, until_ms: i64) -> Result<(i64, i64), DbError> {
    let (started, paid): (i64, i64) = purchases::table
        .filter(purchases::created_at_ms.ge(from_ms))
        .filter(purchases::created_at_ms.lt(until_ms))
        .filter(purchases::unit_index.eq(1))
        .select((
            diesel::dsl::count_star(),
            diesel::dsl::count(purchases::paid_at_ms),
        ))
        .first(conn)?;
    Ok((started, paid))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OutboxHealth {
    /// Queued or running jobs.
    pub pending: i64,
    /// When the most overdue queued job became due, if one is due.
    pub oldest_due_ms: Option<i64>,
    /// Jobs that stopped, counted up to [`DEAD_COUNTED`].
    pub dead: Capped,
    /// Placements queued for later (held back by a wallet or account problem, or backing off).
    pub waiting_placements: i64,
    /// Placements queued (whenever due) or running.
    pub open_placements: i64,
    /// Jobs that finished (done or dead) in the last [`DRAIN_WINDOW_MS`]: the drain rate.
    pub finished_recently: i64,
}

/// The window the drain rate is counted over.
pub const DRAIN_WINDOW_MS: i64 = 10 * 60 * 1000;

impl OutboxHealth {
    /// Whether more jobs finished in the drain window than [`FINISHED_COUNTED`]: the pace
    /// is then at least the one shown, and the time to catch up at most.
    pub fn finished_beyond_count(&self) -> bool {
        self.finished_recently >= FINISHED_COUNTED
    }

    /// Whether more jobs wait than [`PENDING_COUNTED`]: the backlog is at least the count.
    pub fn pending_beyond_count(&self) -> bool {
        self.pending >= PENDING_COUNTED
    }

    /// How long the waiting jobs take at the recent pace ([`OutboxHealth::drain_ms`]), and
    /// whether the counts' caps make it a bound; `None` when nothing waits, nothing
    /// finished lately, or both counts reached their caps (nothing is known then).
    pub fn catch_up_in(&self) -> Option<CatchUp> {
        let ms = self.drain_ms()?;
        match (self.pending_beyond_count(), self.finished_beyond_count()) {
            (false, false) => Some(CatchUp::About(ms)),
            (true, false) => Some(CatchUp::AtLeast(ms)),
            (false, true) => Some(CatchUp::AtMost(ms)),
            (true, true) => None,
        }
    }

    /// Jobs finished per minute over the drain window.
    pub fn per_minute(&self) -> i64 {
        self.finished_recently / (DRAIN_WINDOW_MS / 60_000)
    }

    /// How long the waiting jobs take at the recent pace, in milliseconds; `None` when
    /// nothing waits or nothing finished lately.
    pub fn drain_ms(&self) -> Option<i64> {
        (self.pending > 0 && self.finished_recently > 0).then(|| {
            self.pending
                .saturating_mul(DRAIN_WINDOW_MS)
                .checked_div(self.finished_recently)
                .unwrap_or(0)
        })
    }
}

/// How long the waiting jobs take to catch up with, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CatchUp {
    About(i64),
    /// More jobs wait than were counted.
    AtLeast(i64),
    /// More jobs finished lately than were counted.
    AtMost(i64),
}

/// The most waiting jobs [`outbox_health`] counts: a backlog of hundreds of thousands is
/// shown as "more than" this, at the cost of counting this many.
pub const PENDING_COUNTED: i64 = 50_000;

pub fn outbox_health(conn: &mut DbConn, now_ms: i64) -> Result<OutboxHealth, DbError> {
    let [waiting_placements, open_placements] =
        health_counts(now_ms).map(|query| query.get_result::<i64>(conn));
    Ok(OutboxHealth {
        pending: CountOf(pending_query()).get_result(conn)?,
        oldest_due_ms: oldest_due_query(now_ms).get_result(conn)?,
        dead: Capped {
            n: CountOf(dead_query()).get_result(conn)?,
            cap: DEAD_COUNTED,
        },
        waiting_placements: waiting_placements?,
        open_placements: open_placements?,
        finished_recently: CountOf(finished_since_query(now_ms.saturating_sub(DRAIN_WINDOW_MS)))
            .get_result(conn)?,
    })
}

/// `SELECT COUNT(*) FROM (query)`: how many rows `query` gives, counted where they are. A
/// capped count is a query with a `LIMIT`; counted here, not by loading its rows, it costs
/// PostgreSQL a few milliseconds for 50,000 where sending their ids took 170.
#[derive(Debug, Clone)]
pub struct CountOf<Q>(pub Q);

impl<Q: QueryFragment<DbBackend>> QueryFragment<DbBackend> for CountOf<Q> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DbBackend>) -> QueryResult<()> {
        out.push_sql("SELECT COUNT(*) FROM (");
        self.0.walk_ast(out.reborrow())?;
        out.push_sql(") AS counted");
        Ok(())
    }
}

impl<Q> QueryId for CountOf<Q> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<Q> Query for CountOf<Q> {
    type SqlType = BigInt;
}

impl<Q> RunQueryDsl<DbConn> for CountOf<Q> {}

/// The condition of the partial index `outbox_jobs_finished`, written out (a bound parameter
/// states nothing to the planner).
const FINISHED_STATES_SQL: &str = "state IN ('done', 'dead')";

/// The most finished jobs [`outbox_health`] counts: a backlog dropped as too late finishes
/// thousands a second, and counting them all would cost the dashboard as much.
pub const FINISHED_COUNTED: i64 = 10_000;

/// The ids of up to [`FINISHED_COUNTED`] jobs finished (done or dead) since `since_ms`, by
/// their last change ([`outbox_health`] counts them with [`CountOf`]; its plan is checked by a
/// test): one range of `outbox_jobs_finished`, read no further than the cap.
pub fn finished_since_query(since_ms: i64) -> JobCount {
    outbox_jobs::table
        .filter(diesel::dsl::sql::<diesel::sql_types::Bool>(
            FINISHED_STATES_SQL,
        ))
        .filter(outbox_jobs::updated_at_ms.ge(since_ms))
        .select(outbox_jobs::id)
        .limit(FINISHED_COUNTED)
        .into_boxed()
}

/// A count read no further than a cap: `n` rows, or more than that when `n` reached the cap.
/// The dashboard counts what can grow without bound this way, so it costs the same for ten
/// thousand open alerts as for a million.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Capped {
    pub n: i64,
    pub cap: i64,
}

impl Capped {
    /// Whether the count reached its cap: there are at least `n`, perhaps many more.
    pub fn beyond(&self) -> bool {
        self.n >= self.cap
    }
}

/// The most orders needing attention, and the most open alerts, the dashboard counts.
pub const ATTENTION_COUNTED: i64 = 10_000;

/// Purchases in `needs_attention`, up to [`ATTENTION_COUNTED`]: the dashboard lists the
/// newest only.
pub fn needs_attention_count(conn: &mut DbConn) -> Result<Capped, DbError> {
    Ok(Capped {
        n: CountOf(needs_attention_count_query()).get_result(conn)?,
        cap: ATTENTION_COUNTED,
    })
}

/// The ids [`needs_attention_count`] counts (its plan is checked by a test).
pub fn needs_attention_count_query()
-> purchases::BoxedQuery<'static, DbBackend, diesel::sql_types::Text> {
    purchases::table
        .filter(purchases::status.eq("needs_attention"))
        .select(purchases::id)
        .limit(ATTENTION_COUNTED)
        .into_boxed()
}

/// Open alerts, up to [`ATTENTION_COUNTED`].
pub fn open_alerts_count(conn: &mut DbConn) -> Result<Capped, DbError> {
    Ok(Capped {
        n: CountOf(open_alerts_count_query()).get_result(conn)?,
        cap: ATTENTION_COUNTED,
    })
}

/// The ids [`open_alerts_count`] counts (its plan is checked by a test).
pub fn open_alerts_count_query() -> alerts::BoxedQuery<'static, DbBackend, BigInt> {
    alerts::table
        .filter(alerts::resolved_at_ms.is_null())
        .select(alerts::id)
        .limit(ATTENTION_COUNTED)
        .into_boxed()
}

/// A count of outbox jobs, boxed so that its plan can be checked.
pub type JobCount = outbox_jobs::BoxedQuery<'static, DbBackend, BigInt>;

/// The ids of up to [`PENDING_COUNTED`] queued or running jobs ([`outbox_health`] counts them
/// with [`CountOf`]; its plan is checked by a test).
pub fn pending_query() -> JobCount {
    outbox_jobs::table
        .filter(outbox_jobs::state.eq_any([outbox::QUEUED, outbox::RUNNING]))
        .select(outbox_jobs::id)
        .limit(PENDING_COUNTED)
        .into_boxed()
}

/// The most stopped jobs [`outbox_health`] counts: past a thousand, the number no longer
/// changes what an owner does (open the orders needing attention), and counting twenty
/// thousand took the dashboard's longest read.
pub const DEAD_COUNTED: i64 = 1_000;

/// The ids of up to [`DEAD_COUNTED`] stopped jobs ([`outbox_health`] counts them with
/// [`CountOf`]; its plan is checked by a test).
pub fn dead_query() -> JobCount {
    outbox_jobs::table
        .filter(outbox_jobs::state.eq(outbox::DEAD))
        .select(outbox_jobs::id)
        .limit(DEAD_COUNTED)
        .into_boxed()
}

/// [`outbox_health`]'s other counts, in the order of its fields: waiting placements, open
/// placements (their plans are checked by a test).
pub fn health_counts(now_ms: i64) -> [JobCount; 2] {
    let place = JobKind::PlaceOrder.as_str();
    [
        outbox_jobs::table
            .filter(outbox_jobs::kind.eq(place))
            .filter(outbox_jobs::state.eq(outbox::QUEUED))
            .filter(outbox_jobs::run_at_ms.gt(now_ms))
            .count()
            .into_boxed(),
        outbox::open_of_kind_query(place),
    ]
}

/// When the most overdue queued job became due ([`outbox_health`]; its plan is checked by a
/// test).
pub fn oldest_due_query(
    now_ms: i64,
) -> outbox_jobs::BoxedQuery<'static, DbBackend, Nullable<BigInt>> {
    outbox_jobs::table
        .filter(outbox_jobs::state.eq(outbox::QUEUED))
        .filter(outbox_jobs::run_at_ms.le(now_ms))
        .select(diesel::dsl::min(outbox_jobs::run_at_ms))
        .into_boxed()
}

/// Purchases a person must look at: those with an open alert, and those in `needs_attention`
/// unless an admin resolved their alerts after the purchase last changed. Newest first.
///
/// The two kinds are read apart, each by its own index (open alerts by `alerts_open`, then
/// their purchases by id; `needs_attention` by `purchases_status_updated`), and merged here:
/// the newest `limit` of the union are among the newest `limit` of each.
pub fn needing_attention(conn: &mut DbConn, limit: i64) -> Result<Vec<Purchase>, DbError> {
    let mut found = with_open_alert_query(limit).load(conn)?;
    found.extend(unresolved_attention_query(limit).load(conn)?);
    found.sort_by(|a, b| (b.updated_at_ms, b.id.as_str()).cmp(&(a.updated_at_ms, a.id.as_str())));
    found.dedup_by(|a, b| a.id == b.id);
    found.truncate(usize::try_from(limit).unwrap_or(0));
    Ok(found)
}

/// Purchases with one of the newest open alerts, newest change first, at most `limit`
/// ([`needing_attention`]'s first half; its plan is checked by a test).
pub fn with_open_alert_query(
    limit: i64,
) -> purchases::BoxedQuery<'static, DbBackend, SelectOf<Purchase>> {
    // The purchases of the newest open alerts, read backwards along `alerts_open`: however
    // many alerts are open, a few index entries (an order may have several).
    let open = alerts::table
        .filter(alerts::resolved_at_ms.is_null())
        .filter(alerts::purchase_id.is_not_null())
        .order(alerts::id.desc())
        .limit(limit.saturating_mul(3))
        .select(alerts::purchase_id);
    purchases::table
        .filter(purchases::id.nullable().eq_any(open))
        .order((purchases::updated_at_ms.desc(), purchases::id.desc()))
        .limit(limit)
        .select(Purchase::as_select())
        .into_boxed()
}

/// The newest `limit` purchases in `needs_attention` whose alerts were not resolved since they
/// last changed ([`needing_attention`]'s second half; its plan is checked by a test).
pub fn unresolved_attention_query(
    limit: i64,
) -> purchases::BoxedQuery<'static, DbBackend, SelectOf<Purchase>> {
    let resolved_since_change = alerts::table
        .filter(alerts::purchase_id.eq(purchases::id.nullable()))
        .filter(alerts::resolved_at_ms.ge(purchases::updated_at_ms.nullable()));
    purchases::table
        .filter(purchases::status.eq("needs_attention"))
        .filter(not(exists(resolved_since_change)))
        .order((purchases::updated_at_ms.desc(), purchases::id.desc()))
        .limit(limit)
        .select(Purchase::as_select())
        .into_boxed()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn health(pending: i64, finished_recently: i64) -> OutboxHealth {
        OutboxHealth {
            pending,
            finished_recently,
            ..OutboxHealth::default()
        }
    }

    #[test]
    fn the_time_to_catch_up_says_which_way_a_capped_count_leans() {
        // 1,000 waiting at 100 in ten minutes: 100 minutes.
        assert_eq!(
            health(1_000, 100).catch_up_in(),
            Some(CatchUp::About(100 * 60_000))
        );
        // More wait than were counted: at least that long.
        let long = health(PENDING_COUNTED, 100).catch_up_in();
        assert!(matches!(long, Some(CatchUp::AtLeast(_))), "{long:?}");
        // More finished than were counted: at most that long.
        let quick = health(1_000, FINISHED_COUNTED).catch_up_in();
        assert!(matches!(quick, Some(CatchUp::AtMost(_))), "{quick:?}");
        // Both capped, or nothing finished, or nothing waits: no estimate.
        assert_eq!(
            health(PENDING_COUNTED, FINISHED_COUNTED).catch_up_in(),
            None
        );
        assert_eq!(health(1_000, 0).catch_up_in(), None);
        assert_eq!(health(0, 100).catch_up_in(), None);
    }
}
