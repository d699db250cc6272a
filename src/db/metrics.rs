//! The shop-wide gauges `GET /metrics` reports, read in one connection so every replica
//! reports the same numbers, and never by reading a table that grows with every sale.
//!
//! Purchases that have not ended and outbox jobs still queued, running or dead are few at any
//! time; they are counted per scrape, each status by its index range
//! (`purchases_status_updated`, `outbox_jobs_due`). Purchases that have ended and jobs done
//! grow with the shop (a million after three years): they come from `metric_tallies`, which
//! [`tally`] refreshes every few minutes on one replica. Those series are as old as the tally,
//! and `/metrics` says when it was taken.
//!
//! The tally is a read followed by a short write of a few rows that no other transaction
//! touches, so it never holds a lock a payment or a job waits on (counts kept by triggers in
//! every status change would: two shared rows updated in varying order deadlock on
//! PostgreSQL).

use std::collections::BTreeMap;

use diesel::dsl;
use diesel::dsl::count_star;
use diesel::prelude::*;

use crate::db::schema::{alerts, metric_tallies, outbox_jobs, purchases};
use crate::db::{DbBackend, DbConn, DbError, outbox, wallet};
use crate::domain::purchase::PurchaseStatus;

/// `metric_tallies.kind` of the purchases that have ended, by status.
const PURCHASES: &str = "purchases";
/// `metric_tallies.kind` of the outbox jobs done.
const JOBS: &str = "outbox_jobs";

/// Outbox job states counted per scrape: those a job leaves, and dead ones, which a person
/// must look at (`docs/operations.md` alerts on them) and which stay few.
pub const LIVE_JOB_STATES: [&str; 3] = [outbox::QUEUED, outbox::RUNNING, outbox::DEAD];
/// Outbox job states taken from the tally.
pub const TALLIED_JOB_STATES: [&str; 1] = [outbox::DONE];

pub struct Gauges {
    /// Purchases by status, every status (0 where there are none); the ended ones as of
    /// `tallied_at_ms`, and absent until the first tally.
    pub purchases: Vec<(String, i64)>,
    /// Outbox jobs by state, likewise.
    pub jobs: Vec<(String, i64)>,
    /// When the tally behind the ended purchases and finished jobs was taken.
    pub tallied_at_ms: Option<i64>,
    /// When the most overdue queued job became due.
    pub oldest_due_ms: Option<i64>,
    pub open_alerts: i64,
    pub wallet: Option<wallet::WalletRow>,
}

/// The statuses a purchase leaves again, counted per scrape.
pub fn live_statuses() -> Vec<&'static str> {
    PurchaseStatus::ALL
        .into_iter()
        .filter(|s| !s.has_ended())
        .map(PurchaseStatus::as_str)
        .collect()
}

/// The statuses a purchase ends in, taken from the tally.
pub fn ended_statuses() -> Vec<&'static str> {
    PurchaseStatus::ALL
        .into_iter()
        .filter(|s| s.has_ended())
        .map(PurchaseStatus::as_str)
        .collect()
}

/// A count per value of the column `G` of table `T`, among the values in a list.
pub type Grouped<T, G> = dsl::IntoBoxed<
    'static,
    dsl::Select<
        dsl::GroupBy<dsl::Filter<T, dsl::EqAny<G, Vec<&'static str>>>, G>,
        (G, dsl::CountStar),
    >,
    DbBackend,
>;

/// Purchases per status among `statuses` (its plan is checked by a test: one index range
/// per status).
pub fn purchases_by_status_query(
    statuses: Vec<&'static str>,
) -> Grouped<purchases::table, purchases::status> {
    purchases::table
        .filter(purchases::status.eq_any(statuses))
        .group_by(purchases::status)
        .select((purchases::status, count_star()))
        .into_boxed()
}

/// Outbox jobs per state among `states` (its plan is checked by a test).
pub fn jobs_by_state_query(
    states: Vec<&'static str>,
) -> Grouped<outbox_jobs::table, outbox_jobs::state> {
    outbox_jobs::table
        .filter(outbox_jobs::state.eq_any(states))
        .group_by(outbox_jobs::state)
        .select((outbox_jobs::state, count_star()))
        .into_boxed()
}

/// Every label of `labels` with its count from `found` (0 when absent), in `labels`' order.
fn every_label(labels: &[&str], found: Vec<(String, i64)>) -> Vec<(String, i64)> {
    let found: BTreeMap<String, i64> = found.into_iter().collect();
    labels
        .iter()
        .map(|label| {
            (
                (*label).to_string(),
                found.get(*label).copied().unwrap_or(0),
            )
        })
        .collect()
}

pub fn read_gauges(conn: &mut DbConn) -> Result<Gauges, DbError> {
    let live = live_statuses();
    let mut purchases = every_label(&live, purchases_by_status_query(live.clone()).load(conn)?);
    let mut jobs = every_label(
        &LIVE_JOB_STATES,
        jobs_by_state_query(LIVE_JOB_STATES.to_vec()).load(conn)?,
    );
    let tallied: Vec<(String, String, i64, i64)> = metric_tallies::table
        .select((
            metric_tallies::kind,
            metric_tallies::label,
            metric_tallies::n,
            metric_tallies::as_of_ms,
        ))
        .order((metric_tallies::kind, metric_tallies::label))
        .load(conn)?;
    let tallied_at_ms = tallied.iter().map(|row| row.3).min();
    for (kind, label, n, _) in tallied {
        match kind.as_str() {
            PURCHASES => purchases.push((label, n)),
            JOBS => jobs.push((label, n)),
            _ => {}
        }
    }
    let oldest_due_ms = outbox_jobs::table
        .filter(outbox_jobs::state.eq(outbox::QUEUED))
        .select(diesel::dsl::min(outbox_jobs::run_at_ms))
        .first::<Option<i64>>(conn)?;
    let open_alerts = alerts::table
        .filter(alerts::resolved_at_ms.is_null())
        .count()
        .get_result(conn)?;
    Ok(Gauges {
        purchases,
        jobs,
        tallied_at_ms,
        oldest_due_ms,
        open_alerts,
        wallet: wallet::get(conn)?,
    })
}

/// Counts the ended purchases and the finished jobs and stores the counts as of `now_ms`.
/// The counting reads outside any write transaction; the write is a few rows of
/// `metric_tallies` only.
pub fn tally(conn: &mut DbConn, now_ms: i64) -> Result<(), DbError> {
    let ended = ended_statuses();
    let purchases = every_label(&ended, purchases_by_status_query(ended.clone()).load(conn)?);
    let jobs = every_label(
        &TALLIED_JOB_STATES,
        jobs_by_state_query(TALLIED_JOB_STATES.to_vec()).load(conn)?,
    );
    conn.write_tx(|conn| {
        for (kind, rows) in [(PURCHASES, &purchases), (JOBS, &jobs)] {
            for (label, n) in rows {
                crate::with_inner!(&mut *conn, |c| {
                    diesel::insert_into(metric_tallies::table)
                        .values((
                            metric_tallies::kind.eq(kind),
                            metric_tallies::label.eq(label),
                            metric_tallies::n.eq(n),
                            metric_tallies::as_of_ms.eq(now_ms),
                        ))
                        .on_conflict((metric_tallies::kind, metric_tallies::label))
                        .do_update()
                        .set((metric_tallies::n.eq(n), metric_tallies::as_of_ms.eq(now_ms)))
                        .execute(c)
                })?;
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_status_is_counted_live_or_tallied_once() {
        let mut all: Vec<&str> = live_statuses();
        all.extend(ended_statuses());
        all.sort_unstable();
        let mut expected: Vec<&str> = PurchaseStatus::ALL.iter().map(|s| s.as_str()).collect();
        expected.sort_unstable();
        assert_eq!(all, expected);
        assert!(ended_statuses().contains(&"fulfilled"));
        assert!(live_statuses().contains(&"paid"));
    }

    #[test]
    fn a_label_without_rows_counts_zero() {
        assert_eq!(
            every_label(&["a", "b"], vec![("b".to_string(), 3)]),
            vec![("a".to_string(), 0), ("b".to_string(), 3)]
        );
    }
}
