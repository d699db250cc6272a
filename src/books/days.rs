//! A period's books from the stored books of its days (`db::book_days`): the console reads a
//! row per day instead of reconciling every sale of the period again, so a month, a year or
//! three years cost about the same.
//!
//! A period's lines are the union of its days' lines: every line is on the day of its time
//! (`reconcile`'s rule), and reconciling a single day loads everything that day's lines need,
//! however old (the purchases and orders they name, all of an order's transactions, every
//! top-up and its credits). So the period's totals are the sum of its days' totals, its
//! notable lines and newest lines those of its days, in day order. The lines whose time cannot
//! be read are on no day: every period lists them, so they are never stored and are read from
//! the copy when it has any ([`db::book_days::has_undated`]).
//!
//! A day is reconciled again when its stored result is missing or stale (a write to what it
//! reads marked it), by the page that needs it or, ahead of the pages, by [`catch_up`] after
//! each refresh of the copy. The owner's explanations are not stored: they are applied when a
//! period is read, so a note changes no stored day.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::period::{DAY_MS, Period};
use super::reconcile::{self, Explanation, Line, Summary, Totals, is_notable};
use crate::db::book_explanations as explanations;
use crate::db::{Db, DbConn, DbError, book_days};

/// How many of a period's newest lines the console lists (and each day stores): a month of a
/// busy shop has tens of thousands, and every one of them is in the reconciliation CSV.
pub const NEWEST_LINES: usize = 100;

/// What a day stores besides its newest lines.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct DaySummary {
    /// How many lines the day has.
    lines: usize,
    /// Their money; the counts of differences are made when a period is read.
    totals: Totals,
    /// Its differences and credits from outside the shop, in time order.
    notable: Vec<Line>,
}

/// One day reconciled from the copy.
struct Day {
    summary: DaySummary,
    /// Every line on the day, in time order.
    lines: Vec<Line>,
    /// The lines on no day (their time cannot be read), which every period lists.
    undated: Vec<Line>,
}

impl Day {
    fn newest(&self) -> &[Line] {
        &self.lines[self.lines.len().saturating_sub(NEWEST_LINES)..]
    }
}

/// Reconciles the day starting at `day_ms` from the copy, without the owner's explanations,
/// and stores it unless a write marked the day meanwhile.
fn reconcile_day(conn: &mut DbConn, day_ms: i64) -> Result<Day, DbError> {
    let version = book_days::version(conn, day_ms)?;
    let period = Period::last_days(day_ms, 1);
    let (upstream, purchases, topups) = super::copy_sides(conn, period)?;
    let report = reconcile::reconcile(
        period,
        &upstream,
        &reconcile::Shop {
            purchases,
            topups,
            explanations: HashMap::new(),
        },
    );
    let (lines, undated): (Vec<Line>, Vec<Line>) =
        report.lines.into_iter().partition(|l| l.at_ms.is_some());
    let day = Day {
        summary: DaySummary {
            lines: lines.len(),
            totals: Totals::of(&lines),
            notable: lines.iter().filter(|l| is_notable(l)).cloned().collect(),
        },
        lines,
        undated,
    };
    let stored = serde_json::to_string(&day.summary)
        .and_then(|summary| Ok((summary, serde_json::to_string(day.newest())?)));
    match stored {
        Ok((summary, newest)) => {
            // A day not stored is reconciled again next time: nothing is lost.
            if let Err(err) = book_days::store(conn, day_ms, version, &summary, &newest) {
                tracing::warn!(error = %err, day_ms, "could not store a day of the books");
            }
        }
        Err(err) => tracing::warn!(error = %err, day_ms, "could not write a day of the books"),
    }
    Ok(day)
}

/// The day starts of `period`, oldest first.
pub fn days_of(period: Period) -> impl DoubleEndedIterator<Item = i64> {
    let start = period.start_ms();
    (0..(period.end_ms() - start) / DAY_MS).map(move |i| start + i * DAY_MS)
}

/// Whether the day starting at `day_ms` is within the books' `active` days
/// ([`book_days::active_days`]): no line is on a day outside them, so a period reaching far
/// before the shop's first sale or past its last costs nothing for those days.
fn is_active(active: Option<(i64, i64)>, day_ms: i64) -> bool {
    active.is_some_and(|(first, last)| (first..=last).contains(&day_ms))
}

/// The days of `period` the books have anything on, oldest first.
pub fn active_in(conn: &mut DbConn, period: Period) -> Result<Vec<i64>, DbError> {
    let active = book_days::active_days(conn)?;
    Ok(days_of(period).filter(|d| is_active(active, *d)).collect())
}

/// The owner's explanations, by line key.
pub fn explanations(conn: &mut DbConn) -> Result<HashMap<String, Explanation>, DbError> {
    Ok(explanations::all(conn)?
        .into_iter()
        .map(|(key, row)| (key, Explanation::from(row)))
        .collect())
}

/// Gives each difference among `lines` the owner's explanation, if there is one.
fn explain(lines: &mut [Line], explained: &HashMap<String, Explanation>) {
    for line in lines.iter_mut().filter(|l| l.is_mismatch()) {
        line.explanation = explained.get(&line.key).cloned();
    }
}

/// The books of `period` as the console shows them, from the stored days (reconciling again
/// those missing or stale) and the owner's explanations.
pub fn summary(conn: &mut DbConn, period: Period) -> Result<Summary, DbError> {
    let active = active_in(conn, period)?;
    every_day(summary_of(conn, period, &active, None)?)
}

/// The summary [`summary_of`] made without a deadline, which reconciles every day missing.
fn every_day(summary: Option<Summary>) -> Result<Summary, DbError> {
    summary.ok_or_else(|| DbError::Task("a day of the books was left uncounted".into()))
}

/// Whether a day not stored may still be reconciled: always without a deadline, else until it.
fn in_time(deadline: Option<Instant>) -> bool {
    deadline.is_none_or(|d| Instant::now() < d)
}

/// [`summary`] of `period`, whose days with anything on them are `active`; `None` when a day
/// not stored (a write marked it since it was counted) is met after `deadline`.
fn summary_of(
    conn: &mut DbConn,
    period: Period,
    active: &[i64],
    deadline: Option<Instant>,
) -> Result<Option<Summary>, DbError> {
    let explained = explanations(conn)?;
    let mut summary = Summary::new(period);
    // The newest lines of the days reconciled here, and the lines on no day.
    let mut fresh_newest: HashMap<i64, Vec<Line>> = HashMap::new();
    let mut undated = None;
    // A month of stored days at a time: a day's differences are kept only while they are
    // counted (the lists keep the first few), so memory does not grow with the period.
    for days in active.chunks(STORED_DAYS_READ) {
        let (Some(&first), Some(&last)) = (days.first(), days.last()) else {
            continue;
        };
        let mut stored: HashMap<i64, Option<String>> =
            book_days::days_in(conn, first, last.saturating_add(DAY_MS))?
                .into_iter()
                .map(|d| (d.day_ms, d.summary))
                .collect();
        for &day_ms in days {
            let kept = stored
                .remove(&day_ms)
                .flatten()
                .and_then(|json| serde_json::from_str::<DaySummary>(&json).ok());
            let day = match kept {
                Some(day) => day,
                None if !in_time(deadline) => return Ok(None),
                None => {
                    let day = reconcile_day(conn, day_ms)?;
                    fresh_newest.insert(day_ms, day.newest().to_vec());
                    undated.get_or_insert(day.undated);
                    day.summary
                }
            };
            summary.totals.add_money_of(&day.totals);
            summary.lines += day.lines;
            let mut notable = day.notable;
            explain(&mut notable, &explained);
            for line in &notable {
                summary.totals.count_difference(line);
                summary.keep_notable(line);
            }
        }
    }
    let undated = match undated {
        Some(lines) => lines,
        None if book_days::has_undated(conn)? => reconcile_day(conn, period.start_ms())?.undated,
        None => Vec::new(),
    };
    let mut undated_notable: Vec<Line> =
        undated.iter().filter(|l| is_notable(l)).cloned().collect();
    explain(&mut undated_notable, &explained);
    for line in &undated {
        summary.totals.add_money(line);
    }
    for line in &undated_notable {
        summary.totals.count_difference(line);
        summary.keep_notable(line);
    }
    summary.lines += undated.len();
    let Some(mut newest) = newest_of(conn, active, fresh_newest, deadline)? else {
        return Ok(None);
    };
    newest.extend(undated);
    let mut newest = newest.split_off(newest.len().saturating_sub(NEWEST_LINES));
    explain(&mut newest, &explained);
    summary.newest = newest;
    Ok(Some(summary))
}

/// How long a console page's read of the books may spend reconciling days not stored yet
/// ([`summary_within`]): the rest are counted in the background ([`DayFill`]) while the page
/// says how far that has got.
pub const PAGE_BUDGET: Duration = Duration::from_millis(60);

/// A period's books as a console page reads them.
#[derive(Debug, Clone, PartialEq)]
pub enum Read {
    /// Every day of the period is counted.
    Ready(Box<Summary>),
    /// Some of its days are still being counted: a shop upgraded from before the stored days,
    /// or whose copy of the supplier's history has just filled in years of it.
    Counting(Counting),
}

/// How far the counting of a period's days has got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counting {
    /// Days of the period counted and stored.
    pub counted: usize,
    /// Days of the period with anything on them.
    pub days: usize,
}

impl Counting {
    /// How much of the period is counted, in whole percent (99 until every day is).
    pub fn percent(&self) -> usize {
        if self.days == 0 {
            return 100;
        }
        (self.counted * 100 / self.days).min(99)
    }
}

/// The books of `period` when every day of it is stored after at most about `budget` spent
/// reconciling those that are not (newest first, each one stored); otherwise how many are
/// counted. A day is reconciled only while the time spent plus the slowest day so far stays
/// within the budget, but the first one always is unless `filling` (the period's days are
/// being counted in the background already), so every read makes progress; a day a write
/// marked while the period was read is reconciled only within the budget too.
pub fn summary_within(
    conn: &mut DbConn,
    period: Period,
    budget: Duration,
    filling: bool,
) -> Result<Read, DbError> {
    let active = active_in(conn, period)?;
    if let (Some(&first), Some(&last)) = (active.first(), active.last()) {
        let stale = book_days::stale_days(conn, first, last.saturating_add(DAY_MS))?;
        let started = Instant::now();
        let mut slowest = Duration::ZERO;
        let mut left = stale.len();
        for &day_ms in stale.iter().rev() {
            if (filling || left < stale.len()) && started.elapsed() + slowest > budget {
                break;
            }
            let one = Instant::now();
            reconcile_day(conn, day_ms)?;
            slowest = slowest.max(one.elapsed());
            left -= 1;
        }
        if left > 0 {
            return Ok(Read::Counting(Counting {
                counted: active.len().saturating_sub(left),
                days: active.len(),
            }));
        }
        // Days a write marked since they were listed are reconciled within the same budget.
        let deadline = started + budget;
        if let Some(summary) = summary_of(conn, period, &active, Some(deadline))? {
            return Ok(Read::Ready(Box::new(summary)));
        }
        let left = book_days::stale_days(conn, first, last.saturating_add(DAY_MS))?.len();
        return Ok(Read::Counting(Counting {
            counted: active.len().saturating_sub(left.max(1)),
            days: active.len(),
        }));
    }
    let summary = every_day(summary_of(conn, period, &active, None)?)?;
    Ok(Read::Ready(Box::new(summary)))
}

/// The periods this process is counting in the background for the console, so that a page
/// reloaded while its period is counted does not start the same work again.
#[derive(Debug, Clone, Default)]
pub struct DayFill(Arc<Mutex<HashSet<(i64, i64)>>>);

impl DayFill {
    /// Reconciles and stores the stale days of `period` in the background, newest first, in
    /// short calls of background work (`Db::background`), unless this process is at it
    /// already. The days the periodic catch-up ([`catch_up`]) reaches first it finds stored.
    pub fn start(&self, db: &Db, period: Period) {
        let key = (period.start_ms(), period.end_ms());
        if !self.lock().insert(key) {
            return;
        }
        let filling = Filling {
            fill: self.clone(),
            key,
        };
        let db = db.background();
        tokio::spawn(async move {
            let (start, end) = key;
            let days = move |first: i64, last: i64| {
                (start.max(first), end.min(last.saturating_add(DAY_MS)))
            };
            if let Err(err) = count_stale(&db, days).await {
                tracing::warn!(error = %err, "could not count the days of a period of the books");
            }
            drop(filling);
        });
    }

    /// Whether this process is counting the days of `period` in the background.
    pub fn is_filling(&self, period: Period) -> bool {
        self.lock().contains(&(period.start_ms(), period.end_ms()))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<(i64, i64)>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A period being filled: forgotten when the fill ends, however it ends.
struct Filling {
    fill: DayFill,
    key: (i64, i64),
}

impl Drop for Filling {
    fn drop(&mut self) {
        self.fill.lock().remove(&self.key);
    }
}

/// How many stored days [`summary`] reads at once.
const STORED_DAYS_READ: usize = 31;

/// The newest dated lines of the `active` days (at least [`NEWEST_LINES`] when they have as
/// many), from the last day backwards: those reconciled already, else the stored ones; `None`
/// when a day not stored is met after `deadline`.
fn newest_of(
    conn: &mut DbConn,
    active: &[i64],
    mut fresh: HashMap<i64, Vec<Line>>,
    deadline: Option<Instant>,
) -> Result<Option<Vec<Line>>, DbError> {
    let mut days: Vec<Vec<Line>> = Vec::new();
    let mut count = 0;
    for &day_ms in active.iter().rev() {
        if count >= NEWEST_LINES {
            break;
        }
        let lines = match fresh.remove(&day_ms) {
            Some(lines) => lines,
            None => match book_days::newest(conn, day_ms)?
                .and_then(|json| serde_json::from_str::<Vec<Line>>(&json).ok())
            {
                Some(lines) => lines,
                None if !in_time(deadline) => return Ok(None),
                None => reconcile_day(conn, day_ms)?.newest().to_vec(),
            },
        };
        count += lines.len();
        days.push(lines);
    }
    Ok(Some(days.into_iter().rev().flatten().collect()))
}

/// The lines of the day starting at `day_ms`, in time order, followed by the lines on no day
/// when `with_undated`, with the owner's `explained` notes: the reconciliation CSV's rows, a
/// day at a time.
pub fn day_lines(
    conn: &mut DbConn,
    day_ms: i64,
    with_undated: bool,
    explained: &HashMap<String, Explanation>,
) -> Result<Vec<Line>, DbError> {
    let day = reconcile_day(conn, day_ms)?;
    let mut lines = day.lines;
    if with_undated {
        lines.extend(day.undated);
    }
    explain(&mut lines, explained);
    Ok(lines)
}

/// How many days [`catch_up`] reconciles per database call, so that it never holds a
/// connection long.
const CATCH_UP_BATCH: usize = 10;

/// Reconciles and stores every day from the first the books have anything on up to the one
/// containing `now_ms` (or the last with anything on, if later) whose stored result is
/// missing or stale, newest first, and returns how many it did: after each refresh of the
/// copy, so that pages find their days stored.
pub async fn catch_up(db: &Db, now_ms: i64) -> Result<usize, DbError> {
    let until = Period::last_days(now_ms, 1).end_ms();
    count_stale(db, move |first, last| {
        (first, until.max(last.saturating_add(DAY_MS)))
    })
    .await
}

/// Reconciles and stores every stale day of the range `days` makes of the books' first and
/// last active day (`[from, until)` day starts), newest first, a few days per database call,
/// and returns how many it did.
async fn count_stale(
    db: &Db,
    days: impl FnOnce(i64, i64) -> (i64, i64) + Send + 'static,
) -> Result<usize, DbError> {
    let stale = db
        .run(move |conn| match book_days::active_days(conn)? {
            Some((first, last)) => {
                let (from, until) = days(first, last);
                book_days::stale_days(conn, from, until)
            }
            None => Ok(Vec::new()),
        })
        .await?;
    // Newest first: the owner reads this month before the years behind it.
    for batch in stale.rchunks(CATCH_UP_BATCH) {
        let batch = batch.to_vec();
        db.run(move |conn| {
            for day_ms in batch {
                reconcile_day(conn, day_ms)?;
            }
            Ok::<_, DbError>(())
        })
        .await?;
    }
    Ok(stale.len())
}
