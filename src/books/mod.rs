//! The owner's books: reconciliation of the shop's purchases and top-ups against upstream's
//! wallet transactions and orders (`reconcile.rs`), the CSV exports (`csv.rs`, the wallet's
//! running balances in `ledger.rs`) and the dashboard's 30-day figures with their chart
//! (`figures.rs`), over periods of UTC days (`period.rs`). The children import one another,
//! never this file; this file holds the capabilities that read the database and upstream.
//!
//! The reconciliation reads the supplier's orders and transactions from a local copy
//! (`history.rs`: refreshed in the background, correct whatever the listing order): the
//! console reads it as it stands, `storefront reconcile` refreshes it first. Upstream pages go
//! through the client's pager, its page cap and its shared `Retry-After` gate.

pub mod csv;
pub mod days;
pub mod figures;
pub mod history;
pub mod ledger;
pub mod period;
pub mod reconcile;

use crate::db::book_explanations::{self as explanations, ExplanationRow};
use crate::db::order_search::Cursor;
use crate::db::{Db, DbError, books as q, supplier_history as h};
use crate::staff::{Admin, action};
use crate::upstream::{BalanceTransaction, PageLimit, PartnerClient, UpstreamError};

pub use ledger::RunningTransaction;
pub use period::{Period, PeriodError, parse_day, upstream_time_ms};
pub use reconcile::{Explanation, Line, LineKind, Report, Summary};

#[derive(Debug, thiserror::Error)]
pub enum BooksError {
    #[error(transparent)]
    Db(#[from] DbError),
    #[error("the supplier's API could not be read: {0}")]
    Upstream(#[from] UpstreamError),
}

/// Why an explanation was not saved.
#[derive(Debug, thiserror::Error)]
pub enum ExplainError {
    #[error("only an owner can explain the books")]
    NotOwner,
    #[error("that line of the books is not known")]
    UnknownLine,
    #[error("write a note that says why the two sides differ")]
    NoteRequired,
    #[error("the note is longer than {NOTE_MAX_CHARS} characters")]
    NoteTooLong,
    #[error(transparent)]
    Db(#[from] DbError),
}

/// The longest note an explanation may have.
pub const NOTE_MAX_CHARS: usize = 1_000;

impl From<ExplanationRow> for Explanation {
    fn from(row: ExplanationRow) -> Self {
        Self {
            note: row.note,
            by: row.explained_by,
            at_ms: row.explained_at_ms,
        }
    }
}

/// A period's books read from the local copy of the supplier's history: its [`Summary`], or
/// for the console a [`days::Read`].
#[derive(Debug, Clone, PartialEq)]
pub struct Copied<T = Summary> {
    /// When the copy was last refreshed ([`history::as_of`]).
    pub as_of_ms: i64,
    pub summary: T,
}

impl<T> Copied<T> {
    /// Whether `period` reaches past the copy's time, so its latest sales and top-ups may show
    /// as differences until the next refresh.
    pub fn lags(&self, period: Period) -> bool {
        period.end_ms() > self.as_of_ms
    }
}

/// The books' capabilities over the database and the upstream client.
pub struct Books<'a> {
    pub db: &'a Db,
    pub upstream: &'a PartnerClient,
}

impl Books<'_> {
    /// The reconciliation of `period`: refreshes the local copy of the supplier's listings
    /// (incrementally, [`history::Pass::Incremental`]), then matches the copy's rows of the
    /// period (and the older ones they name) against the shop's purchases, top-ups and the
    /// owner's explanations. Reads by index only, however long the history.
    pub async fn reconcile(&self, period: Period) -> Result<Report, BooksError> {
        history::refresh(self.db, self.upstream, history::Pass::Incremental).await?;
        self.reconcile_from_copy(period).await
    }

    /// The books of `period` from the local copy as it stands, without a request to the
    /// supplier: what the console shows, read from the stored books of its days
    /// ([`days::summary`]). `None` until the copy was first refreshed.
    pub async fn summary_as_copied(&self, period: Period) -> Result<Option<Copied>, BooksError> {
        let Some(as_of_ms) = history::as_of(self.db).await? else {
            return Ok(None);
        };
        let summary = self.db.run(move |conn| days::summary(conn, period)).await?;
        Ok(Some(Copied { as_of_ms, summary }))
    }

    /// The books of `period` for a console page: as [`Books::summary_as_copied`] when every
    /// day of it is stored or can be reconciled within [`days::PAGE_BUDGET`]; otherwise how
    /// far the counting has got, with the rest of its days counted in the background by
    /// `fill` meanwhile. So a page answers at once however many days were never counted.
    pub async fn summary_for_console(
        &self,
        period: Period,
        fill: &days::DayFill,
    ) -> Result<Option<Copied<days::Read>>, BooksError> {
        let Some(as_of_ms) = history::as_of(self.db).await? else {
            return Ok(None);
        };
        // While the period is counted in the background, a page reconciles a day only when
        // it fits the budget: on PostgreSQL a busy day alone can take twice the budget.
        let filling = fill.is_filling(period);
        let summary = self
            .db
            .run(move |conn| days::summary_within(conn, period, days::PAGE_BUDGET, filling))
            .await?;
        if matches!(summary, days::Read::Counting(_)) {
            fill.start(self.db, period);
        }
        Ok(Some(Copied { as_of_ms, summary }))
    }

    /// Every line of `period` from the local copy as it stands, as the reconciliation CSV,
    /// made and sent a day at a time. `None` until the copy was first refreshed.
    pub async fn reconciliation_csv(
        &self,
        period: Period,
    ) -> Result<Option<CsvChunks>, BooksError> {
        if history::as_of(self.db).await?.is_none() {
            return Ok(None);
        }
        let db = self.db.clone();
        let (tx, rx) = tokio::sync::mpsc::channel(2);
        tokio::spawn(async move {
            if tx
                .send(Ok(csv::RECONCILIATION_HEADER.to_string()))
                .await
                .is_err()
            {
                return;
            }
            let read = db
                .run(move |conn| {
                    Ok::<_, DbError>((days::explanations(conn)?, days::active_in(conn, period)?))
                })
                .await;
            let (explained, active) = match read {
                Ok((explained, active)) => (std::sync::Arc::new(explained), active),
                Err(err) => {
                    let _ = tx.send(Err(err.into())).await;
                    return;
                }
            };
            // The lines on no day come after the last day's (a period with no day that has
            // anything on still lists them).
            let last = active.last().copied().unwrap_or(period.start_ms());
            for day_ms in if active.is_empty() {
                vec![last]
            } else {
                active
            } {
                let explained = explained.clone();
                let lines = db
                    .run(move |conn| days::day_lines(conn, day_ms, day_ms == last, &explained))
                    .await;
                let chunk = lines
                    .map(|lines| {
                        lines
                            .iter()
                            .map(csv::reconciliation_row)
                            .collect::<String>()
                    })
                    .map_err(BooksError::from);
                let failed = chunk.is_err();
                if tx.send(chunk).await.is_err() || failed {
                    return;
                }
            }
        });
        Ok(Some(rx))
    }

    /// The reconciliation of `period` from the local copy as it stands.
    pub async fn reconcile_from_copy(&self, period: Period) -> Result<Report, BooksError> {
        let (upstream, purchases, topups, explained) = self
            .db
            .run(move |conn| {
                let (upstream, purchases, topups) = copy_sides(conn, period)?;
                Ok::<_, DbError>((upstream, purchases, topups, explanations::all(conn)?))
            })
            .await?;
        Ok(self.matched(period, &upstream, purchases, topups, explained))
    }

    /// The reconciliation of `period` by walking upstream's transactions and orders whole:
    /// what [`Self::reconcile`] did before the local copy, kept as the measure the copy is
    /// checked against. Past the client's page cap it fails.
    pub async fn reconcile_walking_upstream(&self, period: Period) -> Result<Report, BooksError> {
        let transactions = self.all_transactions().await?;
        let orders = self
            .upstream
            .orders_pager(PageLimit::new(100).unwrap_or_default())
            .collect_all()
            .await?;
        let named: Vec<String> = orders
            .iter()
            .filter(|o| upstream_time_ms(&o.created_at).is_none_or(|at| period.contains_ms(at)))
            .flat_map(|o| [o.reference.clone(), o.id.clone()])
            .collect();
        let (from, until) = (period.start_ms(), period.end_ms());
        let (purchases, topups, explained) = self
            .db
            .run(move |conn| {
                Ok::<_, DbError>((
                    q::paid_or_placed_in(conn, from, until, &named)?,
                    q::topups(conn)?,
                    explanations::all(conn)?,
                ))
            })
            .await?;
        let upstream = reconcile::Upstream {
            transactions,
            orders,
        };
        Ok(self.matched(period, &upstream, purchases, topups, explained))
    }

    fn matched(
        &self,
        period: Period,
        upstream: &reconcile::Upstream,
        purchases: Vec<q::BookPurchase>,
        topups: Vec<q::BookTopup>,
        explained: std::collections::HashMap<String, ExplanationRow>,
    ) -> Report {
        let explanations = explained
            .into_iter()
            .map(|(key, row)| (key, Explanation::from(row)))
            .collect();
        reconcile::reconcile(
            period,
            upstream,
            &reconcile::Shop {
                purchases,
                topups,
                explanations,
            },
        )
    }

    /// Records the owner's explanation of the books' line `line_key` (a [`Line::key`]),
    /// replacing an earlier one, audited in the same transaction with the note before and
    /// after. From then on the line, if it is a mismatch, counts as explained, not open.
    #[tracing::instrument(skip_all, fields(admin.id = by.user_id))]
    pub async fn explain(
        &self,
        by: &Admin,
        client_addr: &str,
        line_key: &str,
        note: &str,
    ) -> Result<(), ExplainError> {
        if !by.is_owner() {
            return Err(ExplainError::NotOwner);
        }
        if !reconcile::is_line_key(line_key) {
            return Err(ExplainError::UnknownLine);
        }
        let note = note.trim();
        if note.is_empty() {
            return Err(ExplainError::NoteRequired);
        }
        if note.chars().count() > NOTE_MAX_CHARS {
            return Err(ExplainError::NoteTooLong);
        }
        let (by, client) = (by.clone(), client_addr.to_string());
        let row = ExplanationRow {
            line_key: line_key.to_string(),
            note: note.to_string(),
            explained_by: by.email.clone(),
            explained_at_ms: crate::db::now_ms(),
        };
        self.db
            .run(move |conn| {
                conn.write_tx(|conn| {
                    let before = explanations::find(conn, &row.line_key)?
                        .map_or_else(|| "none".to_string(), |old| old.note);
                    explanations::put(conn, &row)?;
                    by.audit(
                        conn,
                        action::BOOKS_MISMATCH_EXPLAINED,
                        Some(&format!("books:{}", row.line_key)),
                        &client,
                        &format!("note before: {before}; note now: {}", row.note),
                        row.explained_at_ms,
                    )
                })
            })
            .await?;
        Ok(())
    }

    async fn all_transactions(&self) -> Result<Vec<BalanceTransaction>, BooksError> {
        Ok(self
            .upstream
            .balance_transactions_pager(PageLimit::new(100).unwrap_or_default())
            .collect_all()
            .await?)
    }

    /// Every wallet transaction in the copy of the supplier's history, oldest first (by time,
    /// then id), with the balances after each counted from zero: the copy holds the whole
    /// history (its first refresh reads every page), opening credit included. Streamed a page
    /// at a time by keyset; `None` before the first copy. The balances are those of the copy's
    /// time ([`history::as_of`]).
    pub async fn wallet_csv(&self) -> Result<Option<CsvChunks>, BooksError> {
        if history::as_of(self.db).await?.is_none() {
            return Ok(None);
        }
        let db = self.db.clone();
        let (tx, rx) = tokio::sync::mpsc::channel(2);
        tokio::spawn(async move {
            if tx.send(Ok(csv::WALLET_HEADER.to_string())).await.is_err() {
                return;
            }
            let page = i64::try_from(CSV_PAGE).unwrap_or(500);
            let mut running = ledger::Running::default();
            let mut after = None;
            loop {
                let rows = db
                    .run(move |conn| h::transactions_page(conn, after, page))
                    .await
                    .map_err(BooksError::from);
                let (chunk, last) = match rows {
                    Ok(rows) => {
                        after = rows.last().map(|r| (r.created_at_ms, r.id));
                        let chunk = rows
                            .iter()
                            .map(|r| {
                                csv::wallet_row(&running.after(r.transaction(), r.created_at_ms))
                            })
                            .collect();
                        (Ok(chunk), rows.len() < CSV_PAGE)
                    }
                    Err(err) => (Err(err), true),
                };
                if tx.send(chunk).await.is_err() || last {
                    return;
                }
            }
        });
        Ok(Some(rx))
    }
}

/// Both sides of `period` from the local copy of the supplier's history: the period's orders
/// (or those whose time cannot be read) name the shop's purchases, which may be older; the
/// purchases paid in the period, the period's order movements and the shop's top-ups name the
/// rest. Read by index only.
fn copy_sides(
    conn: &mut crate::db::DbConn,
    period: Period,
) -> Result<(reconcile::Upstream, Vec<q::BookPurchase>, Vec<q::BookTopup>), DbError> {
    let (from, until) = (period.start_ms(), period.end_ms());
    let mut orders = h::orders_in(conn, from, until)?;
    let named: Vec<String> = orders
        .iter()
        .flat_map(|o| [o.reference.clone(), o.id.clone()])
        .collect();
    let purchases = q::paid_or_placed_in(conn, from, until, &named)?;
    let topups = q::topups(conn)?;
    let mut transactions = h::transactions_in(conn, from, until)?;
    let mut handles: Vec<String> = purchases
        .iter()
        .flat_map(|p| [Some(p.reference.clone()), p.upstream_order_id.clone()])
        .flatten()
        .collect();
    handles.extend(transactions.iter().map(|t| t.reference.clone()));
    let loaded: std::collections::HashSet<String> = orders.iter().map(|o| o.id.clone()).collect();
    orders.extend(h::orders_named(conn, &handles, &loaded)?);
    orders.sort_by(|a, b| a.id.cmp(&b.id));
    orders.dedup_by(|a, b| a.id == b.id);
    let mut references: Vec<String> = orders
        .iter()
        .flat_map(|o| [o.id.clone(), o.reference.clone()])
        .collect();
    references.extend(topups.iter().map(|t| t.session_id.clone()));
    let loaded: std::collections::HashSet<i64> = transactions.iter().map(|t| t.id).collect();
    transactions.extend(h::transactions_for(conn, &references, &loaded)?);
    transactions.sort_by_key(|t| t.id);
    transactions.dedup_by_key(|t| t.id);
    let upstream = reconcile::Upstream {
        transactions: transactions.iter().map(|t| t.transaction()).collect(),
        orders: orders.iter().filter_map(|o| o.order()).collect(),
    };
    Ok((upstream, purchases, topups))
}

/// A CSV body in chunks, as it is made: the header, then a page of rows per chunk. A chunk
/// that fails ends the body with the error, so a download stops visibly short instead of
/// looking complete.
pub type CsvChunks = tokio::sync::mpsc::Receiver<Result<String, BooksError>>;

/// Rows per chunk of a CSV body (and per database page of the orders export).
const CSV_PAGE: usize = 500;

/// The orders the console's search `filter` finds, newest first, read a page at a time while
/// the body is sent.
impl Books<'_> {
    /// The orders CSV of the console's search `filter`, streamed a page of rows at a time.
    pub fn orders_csv(&self, filter: crate::db::order_search::OrderFilter) -> CsvChunks {
        orders_csv(self.db.clone(), filter)
    }

    /// The dashboard's figures of the 30 days up to `now_ms`.
    pub async fn dashboard_figures(&self, now_ms: i64) -> Result<figures::Figures, DbError> {
        dashboard_figures(self.db, now_ms).await
    }
}

fn orders_csv(db: Db, filter: crate::db::order_search::OrderFilter) -> CsvChunks {
    let (tx, rx) = tokio::sync::mpsc::channel(2);
    tokio::spawn(async move {
        if tx.send(Ok(csv::ORDER_HEADER.to_string())).await.is_err() {
            return;
        }
        let page = i64::try_from(CSV_PAGE).unwrap_or(500);
        // Each page starts after the last row sent (keyset, not an offset), so every page is
        // one range of an index however far into the export it is.
        let mut after = None;
        let mut rows_csv = csv::OrderRows::default();
        loop {
            let f = filter.clone();
            let from = after.clone();
            let rows = db
                .run(move |conn| q::orders_export_page(conn, &f, from, page))
                .await
                .map_err(BooksError::from);
            let (chunk, last) = match rows {
                Ok(rows) => {
                    after = rows.last().map(|row| Cursor::of(&row.purchase));
                    (Ok(rows_csv.page(&rows)), rows.len() < CSV_PAGE)
                }
                Err(err) => (Err(err), true),
            };
            if tx.send(chunk).await.is_err() || last {
                return;
            }
        }
    });
    rx
}

/// The dashboard's figures for the `figures::DAYS` UTC days up to the one containing `now_ms`.
async fn dashboard_figures(db: &Db, now_ms: i64) -> Result<figures::Figures, DbError> {
    let period = Period::last_days(now_ms, figures::DAYS);
    db.run(move |conn| {
        let (start, end) = (period.start_ms(), period.end_ms());
        let (started, paid) = crate::db::dashboard::checkouts(conn, start, end)?;
        let filter = crate::db::order_search::OrderFilter {
            created_from_ms: Some(start),
            created_before_ms: Some(end),
            abandoned: crate::db::order_search::Abandoned::Only,
            now_ms,
            ..Default::default()
        };
        let inputs = figures::Inputs {
            days: crate::db::daily_sales::days(conn, start, figures::DAYS)?,
            plans: crate::db::dashboard::plan_sales(conn, start, end)?,
            started,
            paid,
            abandoned: crate::db::order_search::count_abandoned(conn, &filter)?,
        };
        Ok(figures::figures(&inputs, now_ms))
    })
    .await
}
