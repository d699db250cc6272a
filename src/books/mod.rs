//! The owner's books: reconciliation of the shop's purchases and top-ups against upstream's
//! wallet transactions and orders (`reconcile.rs`), the CSV exports (`csv.rs`) and the
//! dashboard's 30-day figures with their chart (`figures.rs`).
//!
//! Upstream lists are walked whole (their order is not promised, so no early stop is safe),
//! through the client's pager, its page cap and its shared `Retry-After` gate.

pub mod csv;
pub mod figures;
pub mod reconcile;

use time::Date;

use crate::db::{Db, DbError, books as q};
use crate::domain::Cents;
use crate::upstream::{BalanceTransaction, PageLimit, PartnerClient, UpstreamError};

pub use reconcile::{Line, LineKind, Report};

const DAY_MS: i64 = 86_400_000;

#[derive(Debug, thiserror::Error)]
pub enum BooksError {
    #[error(transparent)]
    Db(#[from] DbError),
    #[error("the supplier's API could not be read: {0}")]
    Upstream(#[from] UpstreamError),
}

/// Why a period was refused; the text is for the person who typed it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct PeriodError(pub String);

/// A period of whole UTC days, both ends included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Period {
    pub first: Date,
    pub last: Date,
}

/// `YYYY-MM-DD`.
pub fn parse_day(raw: &str) -> Option<Date> {
    Date::parse(
        raw.trim(),
        &time::macros::format_description!("[year]-[month]-[day]"),
    )
    .ok()
}

impl Period {
    /// The period from `from` to `to`, both `YYYY-MM-DD` and included.
    pub fn parse(from: &str, to: &str) -> Result<Self, PeriodError> {
        let shown = |raw: &str| raw.chars().take(20).collect::<String>();
        let first = parse_day(from).ok_or_else(|| {
            PeriodError(format!(
                "--from {:?} is not a date: write it as YYYY-MM-DD, like 2026-11-01",
                shown(from)
            ))
        })?;
        let last = parse_day(to).ok_or_else(|| {
            PeriodError(format!(
                "--to {:?} is not a date: write it as YYYY-MM-DD, like 2026-11-30",
                shown(to)
            ))
        })?;
        if first > last {
            return Err(PeriodError(format!(
                "the period starts ({first}) after it ends ({last}): swap the dates"
            )));
        }
        Ok(Self { first, last })
    }

    /// The UTC day containing `now_ms`, back to the day `days - 1` before it.
    pub fn last_days(now_ms: i64, days: i64) -> Self {
        let day = |ms: i64| {
            time::OffsetDateTime::from_unix_timestamp(ms.div_euclid(1000))
                .map(|t| t.date())
                .unwrap_or(Date::MIN)
        };
        Self {
            first: day(now_ms - (days - 1).max(0) * DAY_MS),
            last: day(now_ms),
        }
    }

    /// Unix milliseconds at the start of the first day.
    pub fn start_ms(&self) -> i64 {
        self.first.midnight().assume_utc().unix_timestamp() * 1000
    }

    /// Unix milliseconds at the start of the day after the last (excluded).
    pub fn end_ms(&self) -> i64 {
        self.last.midnight().assume_utc().unix_timestamp() * 1000 + DAY_MS
    }

    pub fn contains_ms(&self, ms: i64) -> bool {
        (self.start_ms()..self.end_ms()).contains(&ms)
    }
}

/// Unix milliseconds of an upstream timestamp (RFC 3339, though the spec shows no format);
/// `None` when it cannot be read.
pub fn upstream_time_ms(raw: &str) -> Option<i64> {
    let t = time::OffsetDateTime::parse(raw.trim(), &time::format_description::well_known::Rfc3339)
        .ok()?;
    i64::try_from(t.unix_timestamp_nanos() / 1_000_000).ok()
}

/// A wallet transaction with the balances after it, oldest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunningTransaction {
    pub transaction: BalanceTransaction,
    /// `createdAt` in unix milliseconds, when readable.
    pub at_ms: Option<i64>,
    pub available_after: Cents,
    pub reserved_after: Cents,
}

/// The books' capabilities over the database and the upstream client.
pub struct Books<'a> {
    pub db: &'a Db,
    pub upstream: &'a PartnerClient,
}

impl Books<'_> {
    /// The reconciliation of `period`: walks upstream's transactions and orders whole, reads
    /// the shop's purchases and top-ups, and matches them.
    pub async fn reconcile(&self, period: Period) -> Result<Report, BooksError> {
        let transactions = self.all_transactions().await?;
        let orders = self
            .upstream
            .orders_pager(PageLimit::new(100).unwrap_or_default())
            .collect_all()
            .await?;
        let (purchases, topups) = self
            .db
            .run(|conn| Ok::<_, DbError>((q::paid_or_placed(conn)?, q::topups(conn)?)))
            .await?;
        Ok(reconcile::reconcile(
            period,
            &reconcile::Upstream {
                transactions,
                orders,
            },
            &reconcile::Shop { purchases, topups },
        ))
    }

    async fn all_transactions(&self) -> Result<Vec<BalanceTransaction>, BooksError> {
        Ok(self
            .upstream
            .balance_transactions_pager(PageLimit::new(100).unwrap_or_default())
            .collect_all()
            .await?)
    }

    /// Every wallet transaction, oldest first (by time, then id), with running balances from
    /// the first: the listing is the wallet's whole history, so it starts at zero.
    pub async fn wallet_transactions(&self) -> Result<Vec<RunningTransaction>, BooksError> {
        Ok(running_balance(self.all_transactions().await?))
    }
}

/// A CSV body in chunks, as it is made: the header, then a page of rows per chunk. A chunk
/// that fails ends the body with the error, so a download stops visibly short instead of
/// looking complete.
pub type CsvChunks = tokio::sync::mpsc::Receiver<Result<String, BooksError>>;

/// Rows per chunk of a CSV body (and per database page of the orders export).
const CSV_PAGE: usize = 200;

/// The orders the console's search `filter` finds, newest first, read a page at a time while
/// the body is sent.
pub fn orders_csv(db: Db, filter: crate::db::admin::OrderFilter) -> CsvChunks {
    let (tx, rx) = tokio::sync::mpsc::channel(2);
    tokio::spawn(async move {
        if tx.send(Ok(csv::ORDER_HEADER.to_string())).await.is_err() {
            return;
        }
        let page = i64::try_from(CSV_PAGE).unwrap_or(200);
        let mut offset = 0_i64;
        loop {
            let f = filter.clone();
            let rows = db
                .run(move |conn| q::orders_export_page(conn, &f, offset, page))
                .await
                .map_err(BooksError::from);
            let (chunk, last) = match rows {
                Ok(rows) => (
                    Ok(rows.iter().map(|(p, r)| csv::order_row(p, *r)).collect()),
                    rows.len() < CSV_PAGE,
                ),
                Err(err) => (Err(err), true),
            };
            if tx.send(chunk).await.is_err() || last {
                return;
            }
            offset = offset.saturating_add(page);
        }
    });
    rx
}

/// Rows already made, sent as a CSV body a page at a time.
pub fn rows_csv(header: &'static str, rows: Vec<String>) -> CsvChunks {
    let (tx, rx) = tokio::sync::mpsc::channel(2);
    tokio::spawn(async move {
        if tx.send(Ok(header.to_string())).await.is_err() {
            return;
        }
        for chunk in rows.chunks(CSV_PAGE) {
            if tx.send(Ok(chunk.concat())).await.is_err() {
                return;
            }
        }
    });
    rx
}

/// The dashboard's figures for the `figures::DAYS` UTC days up to the one containing `now_ms`.
pub async fn dashboard_figures(db: &Db, now_ms: i64) -> Result<figures::Figures, DbError> {
    let period = Period::last_days(now_ms, figures::DAYS);
    db.run(move |conn| {
        let rows = q::figure_rows(conn, period.start_ms())?;
        let filter = crate::db::admin::OrderFilter {
            created_from_ms: Some(period.start_ms()),
            created_before_ms: Some(period.end_ms()),
            abandoned: crate::db::admin::Abandoned::Only,
            now_ms,
            ..Default::default()
        };
        let abandoned = crate::db::admin::count_abandoned(conn, &filter)?;
        Ok(figures::figures(&rows, abandoned, now_ms))
    })
    .await
}

/// Orders `transactions` oldest first (unreadable times after the readable ones, by id) and
/// adds the balances after each; the sums saturate rather than wrap on absurd deltas.
pub fn running_balance(transactions: Vec<BalanceTransaction>) -> Vec<RunningTransaction> {
    let mut timed: Vec<(Option<i64>, BalanceTransaction)> = transactions
        .into_iter()
        .map(|t| (upstream_time_ms(&t.created_at), t))
        .collect();
    timed.sort_by_key(|(at, t)| (at.is_none(), at.unwrap_or(0), t.id));
    let (mut available, mut reserved) = (0_i64, 0_i64);
    timed
        .into_iter()
        .map(|(at_ms, transaction)| {
            available = available.saturating_add(transaction.available_delta_cents.get());
            reserved = reserved.saturating_add(transaction.reserved_delta_cents.get());
            RunningTransaction {
                transaction,
                at_ms,
                available_after: Cents::new(available),
                reserved_after: Cents::new(reserved),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tx(id: i64, at: &str, available: i64, reserved: i64) -> BalanceTransaction {
        BalanceTransaction {
            id,
            kind: "x".into(),
            available_delta_cents: Cents::new(available),
            reserved_delta_cents: Cents::new(reserved),
            reference: "r".into(),
            created_at: at.into(),
        }
    }

    #[test]
    fn periods_are_whole_utc_days_and_refuse_nonsense() {
        let p = Period::parse("2026-11-01", "2026-11-01").expect("one day");
        assert_eq!(p.end_ms() - p.start_ms(), DAY_MS);
        assert!(p.contains_ms(p.start_ms()));
        assert!(!p.contains_ms(p.end_ms()));
        assert!(Period::parse("2026-11-02", "2026-11-01").is_err());
        assert!(Period::parse("2026-13-01", "2026-11-01").is_err());
        assert!(Period::parse("yesterday", "2026-11-01").is_err());
        let last = Period::last_days(p.start_ms() + 5, 30);
        assert_eq!(last.last, p.first);
        assert_eq!((last.last - last.first).whole_days(), 29);
    }

    #[test]
    fn the_running_balance_follows_time_not_listing_order() {
        let rows = running_balance(vec![
            tx(3, "2026-11-02T00:00:00Z", -100, 100),
            tx(1, "2026-11-01T00:00:00Z", 1000, 0),
            tx(4, "unreadable", 5, 0),
            tx(2, "2026-11-01T12:00:00+02:00", -1, 0),
        ]);
        let ids: Vec<i64> = rows.iter().map(|r| r.transaction.id).collect();
        assert_eq!(ids, [1, 2, 3, 4]);
        let after: Vec<(i64, i64)> = rows
            .iter()
            .map(|r| (r.available_after.get(), r.reserved_after.get()))
            .collect();
        assert_eq!(after, [(1000, 0), (999, 0), (899, 100), (904, 100)]);
    }
}
