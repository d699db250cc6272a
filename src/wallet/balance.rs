//! Keeping the shared wallet row fresh from `GET /balance`, what the console's wallet page
//! shows, and whether new sales are paused.
//!
//! Sales pause for a reason stored in the wallet row ([`PauseReason`]) and resume only when a
//! balance read shows enough credit ([`crate::db::wallet::paused_after_read`]); the shop's plan
//! pages read the pause through [`SalesState`], a short-lived copy of the row.

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::{Notify, watch};
use tokio::task::JoinHandle;

use crate::db::topups::TopupProgressRow;
use crate::db::wallet::WalletRow;
use crate::db::{self, Db, DbError};
use crate::domain::Cents;
use crate::upstream::types::{Cursor, PageLimit};
use crate::upstream::{Balance, BalanceTransaction, Page, PartnerClient, UpstreamError};
use crate::wallet::threshold::{ThresholdPolicy, check_low_balance};
use crate::wallet::topup::confirm_topups;
use crate::wallet::{TRANSACTIONS_PER_PAGE, Wallet, WalletError, runway};

pub use crate::db::wallet::PauseReason;

const DAY_MS: i64 = 86_400_000;
/// Balance transactions per page of the wallet page (and read to confirm top-ups).
/// Top-ups the wallet page lists.
const RECENT_TOPUPS: i64 = 10;

/// Reads `GET /balance` into the shared wallet row; returns whether it was read. Best effort:
/// a failure is logged and only leaves the row older (checkout then decides on what is known,
/// or refuses when nothing is).
pub async fn refresh(db: &Db, upstream: &PartnerClient) -> bool {
    match upstream.balance().await {
        Ok(balance) => {
            store(db, &balance).await;
            true
        }
        Err(err) => {
            tracing::warn!(error = %err, "could not refresh the wallet balance");
            false
        }
    }
}

/// After a balance read failed, how long checkouts decide on the stored balance before one
/// of them asks upstream again (a brownout is not met by one read per checkout).
pub const BALANCE_RETRY_AFTER_FAILURE: Duration = Duration::from_secs(10);

/// The process's one reader of `GET /balance` for the shop's own paths, coalescing reads.
///
/// Accepted orders: an order's acceptance changes the balance, so the wallet row should be
/// read again soon, but a burst of acceptances needs one read, not one each, and a placement
/// worker must not wait for it: [`request`] only marks a read as wanted. While one read is in
/// flight, any number of requests cause exactly one more read after it (a `Notify` permit),
/// so the row always ends newer than the last acceptance.
///
/// Checkouts ([`refresh_if_older_than`]): a visitor's checkout needs a balance at most a
/// minute old, and waits for it. Reads go one at a time (the accepted orders' ones included);
/// a checkout that waited behind one finds the row fresh and sends nothing, so a burst of
/// checkouts costs one read. After a failed read the stored balance serves for
/// [`BALANCE_RETRY_AFTER_FAILURE`], and each read a checkout causes is taken from the
/// caller's budget of upstream reads, so a checkout flood during a balance brownout does not
/// become a flood of reads.
///
/// [`request`]: BalanceRefresher::request
/// [`refresh_if_older_than`]: BalanceRefresher::refresh_if_older_than
#[derive(Debug, Clone, Default)]
pub struct BalanceRefresher(Arc<RefresherState>);

#[derive(Debug, Default)]
struct RefresherState {
    wanted: Notify,
    running: AtomicBool,
    /// Held while a read is in flight; holds when the last read failed.
    reading: tokio::sync::Mutex<Option<Instant>>,
}

/// How long a checkout waits for a balance read already in flight before deciding on the
/// stored balance.
const JOIN_READ_WAIT: Duration = Duration::from_secs(1);

impl BalanceRefresher {
    /// Asks the background reader for a read. False when no reader runs (tests and one-off
    /// commands): the caller then reads itself.
    pub fn request(&self) -> bool {
        if !self.0.running.load(Ordering::Acquire) {
            return false;
        }
        self.0.wanted.notify_one();
        true
    }

    /// Makes the wallet row at most `max_age` old if it can, for a checkout: joins the read in
    /// flight, reads only when the row is still stale after it, not within
    /// [`BALANCE_RETRY_AFTER_FAILURE`] of a failed read, and only when `budget` grants it.
    /// Nothing is read while the row cannot be read from the database (the admission reads it
    /// in its own transaction anyway). Returns whether a read was sent.
    pub async fn refresh_if_older_than(
        &self,
        db: &Db,
        upstream: &PartnerClient,
        max_age: Duration,
        budget: impl FnOnce() -> bool,
    ) -> bool {
        let max_age_ms = i64::try_from(max_age.as_millis()).unwrap_or(i64::MAX);
        let stale = || async {
            match db.run(db::wallet::get).await {
                Ok(row) => row.is_none_or(|w| db::now_ms() - w.refreshed_at_ms >= max_age_ms),
                Err(err) => {
                    tracing::warn!(error = %err, "wallet row not read; balance not refreshed");
                    false
                }
            }
        };
        // Decided before waiting for the read in flight: a fresh row, or a database that
        // cannot be read (an outage, when that read may be stuck storing its result), costs
        // no wait. A read in flight is joined for at most JOIN_READ_WAIT, then the checkout
        // goes on with the stored value.
        if !stale().await {
            return false;
        }
        let Ok(mut failed_at) = tokio::time::timeout(JOIN_READ_WAIT, self.0.reading.lock()).await
        else {
            return false;
        };
        let resting = failed_at.is_some_and(|at| at.elapsed() < BALANCE_RETRY_AFTER_FAILURE);
        if resting || !stale().await || !budget() {
            return false;
        }
        *failed_at = (!refresh(db, upstream).await).then(Instant::now);
        true
    }

    /// Starts the background reader; it stops when `shutdown` turns true.
    pub fn spawn(
        &self,
        db: Db,
        upstream: PartnerClient,
        mut shutdown: watch::Receiver<bool>,
    ) -> JoinHandle<()> {
        let state = Arc::clone(&self.0);
        state.running.store(true, Ordering::Release);
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    () = state.wanted.notified() => {
                        let mut failed_at = state.reading.lock().await;
                        *failed_at = (!refresh(&db, &upstream).await).then(Instant::now);
                    }
                    changed = shutdown.changed() => {
                        if changed.is_err() || *shutdown.borrow() {
                            break;
                        }
                    }
                }
            }
            state.running.store(false, Ordering::Release);
        })
    }
}

/// Stores a balance read into the shared wallet row (which lifts a sales pause once enough
/// credit shows up). Best effort: a failure is logged.
async fn store(db: &Db, balance: &Balance) {
    let available = balance.available_cents.get();
    let reserved = balance.reserved_cents.cents().get();
    let low = balance.low_balance;
    if let Err(err) = db
        .run(move |conn| db::wallet::store(conn, available, reserved, low, db::now_ms()))
        .await
    {
        tracing::warn!(error = %err, "could not store the wallet balance");
    }
}

/// The wallet page's figures. Upstream trouble is an answer here, not a failure: the page
/// shows what is known beside it.
#[derive(Debug)]
pub struct WalletOverview {
    /// The live balance, already stored into the wallet row.
    pub live: Result<Balance, UpstreamError>,
    /// The wallet row as stored after that read (the last known figures when it failed).
    pub row: Option<WalletRow>,
    /// One page of balance transactions, newest first.
    pub transactions: Result<Page<BalanceTransaction>, UpstreamError>,
    pub policy: ThresholdPolicy,
    /// Whether available credit is below the threshold (live, or as last known).
    pub below_threshold: bool,
    /// Days of sales the balance covers, in words.
    pub runway: String,
    /// The newest top-ups first.
    pub topups: Vec<TopupProgressRow>,
    /// Shop purchases the page's transactions belong to: transaction reference → purchase id.
    pub purchases_by_reference: std::collections::HashMap<String, String>,
}

/// A balance as the wallet page shows it: live, or the last known figures.
#[derive(Debug)]
pub struct ShownBalance {
    pub available: Cents,
    pub reserved: Cents,
    pub upstream_low: bool,
    /// `None` for the live figures; when the last known ones were read.
    pub read_at_ms: Option<i64>,
}

/// A balance transaction with what the shop knows about it.
#[derive(Debug)]
pub struct TransactionLine {
    pub tx: BalanceTransaction,
    /// The shop's purchase, when the reference names one.
    pub order_id: Option<String>,
    /// Available credit right after this transaction (first page, live balance known).
    pub available_after: Option<Cents>,
}

impl WalletOverview {
    /// Why new sales are paused; `None` while they run.
    pub fn pause(&self) -> Option<PauseReason> {
        self.row.as_ref().and_then(WalletRow::pause)
    }

    /// The live balance, or when it could not be read the last one stored (if any was).
    pub fn shown_balance(&self) -> Option<ShownBalance> {
        match &self.live {
            Ok(b) => Some(ShownBalance {
                available: b.available_cents,
                reserved: b.reserved_cents.cents(),
                upstream_low: b.low_balance,
                read_at_ms: None,
            }),
            Err(_) => self
                .row
                .as_ref()
                .filter(|w| w.refreshed_at_ms > 0)
                .map(|w| ShownBalance {
                    available: Cents::new(w.available_cents),
                    reserved: Cents::new(w.reserved_cents),
                    upstream_low: w.low_balance,
                    read_at_ms: Some(w.refreshed_at_ms),
                }),
        }
    }

    /// The page's transactions, newest first. On the first page (`first_page`), with the live
    /// balance known, each also carries the available credit right after it: the live figure,
    /// minus the later transactions' changes.
    pub fn lines(&self, first_page: bool) -> Vec<TransactionLine> {
        let Ok(page) = &self.transactions else {
            return Vec::new();
        };
        let mut after = self
            .live
            .as_ref()
            .ok()
            .filter(|_| first_page)
            .map(|b| b.available_cents.get());
        page.data
            .iter()
            .map(|tx| {
                let available_after = after.map(Cents::new);
                after = after.map(|a| a.saturating_sub(tx.available_delta_cents.get()));
                TransactionLine {
                    tx: tx.clone(),
                    order_id: self.purchases_by_reference.get(&tx.reference).cloned(),
                    available_after,
                }
            })
            .collect()
    }
}

impl Wallet<'_> {
    /// Re-reads whether sales are paused into `sales` when its copy is stale.
    pub async fn refresh_sales_state(&self, sales: &SalesState) {
        sales.refresh_if_stale(self.db).await;
    }

    /// Reads the balance live (storing it, which may resume sales) and checks it against the
    /// threshold, as the watcher does; reads a page of transactions from `cursor` and records
    /// the top-up credits among them; then gathers what the wallet page shows.
    pub async fn overview(&self, cursor: Option<Cursor>) -> Result<WalletOverview, WalletError> {
        let live = self.live_balance().await;
        let limit = PageLimit::new(TRANSACTIONS_PER_PAGE).unwrap_or_default();
        let transactions = self
            .upstream
            .balance_transactions(cursor.as_ref(), limit)
            .await;
        if let Ok(page) = &transactions
            && let Err(err) = confirm_topups(self.db, &page.data).await
        {
            tracing::warn!(error = %err, "could not record top-up credits");
        }
        let now = db::now_ms();
        let references: Vec<String> = transactions
            .as_ref()
            .map(|page| page.data.iter().map(|t| t.reference.clone()).collect())
            .unwrap_or_default();
        let (row, spent_7d, policy, topups, named) = self
            .db
            .run(move |conn| {
                Ok::<_, DbError>((
                    db::wallet::get(conn)?,
                    db::wallet::placed_cost_since(conn, now - 7 * DAY_MS)?,
                    db::wallet::threshold_policy(conn)?,
                    db::topups::recent_topups(conn, RECENT_TOPUPS)?,
                    db::purchases::named_by_references(conn, &references)?,
                ))
            })
            .await?;
        let available = live.as_ref().ok().map(|b| b.available_cents.get());
        let below_threshold = match available {
            Some(cents) => check_low_balance(self.db, self.notifier, cents).await?,
            None => row.as_ref().is_some_and(|w| {
                w.refreshed_at_ms > 0 && w.available_cents < policy.threshold_cents
            }),
        };
        let runway = match available.or(row.as_ref().map(|w| w.available_cents)) {
            Some(cents) => runway::runway(cents, spent_7d),
            None => "Unknown until the balance has been read.".into(),
        };
        Ok(WalletOverview {
            live,
            row,
            transactions,
            policy,
            below_threshold,
            runway,
            topups,
            purchases_by_reference: named.into_iter().collect(),
        })
    }

    /// The live balance, stored into the shared wallet row.
    pub(crate) async fn live_balance(&self) -> Result<Balance, UpstreamError> {
        let balance = self.upstream.balance().await?;
        store(self.db, &balance).await;
        Ok(balance)
    }

    /// The wallet watcher's minute: the balance is re-read from upstream (so checkouts on any
    /// replica decide on a fresh balance), the low-balance alert is raised or resolved, and
    /// alert emails that failed before are retried. Best effort: failures are logged.
    pub async fn refresh_and_check(&self) {
        let _ = refresh(self.db, self.upstream).await;
        if let Ok(Some(wallet)) = self.db.run(db::wallet::get).await
            && let Err(err) =
                check_low_balance(self.db, self.notifier, wallet.available_cents).await
        {
            tracing::warn!(error = %err, "low-balance check failed");
        }
    }
}

/// How long a plan page trusts the last read of the pause. Checkout itself reads the row in
/// its own transaction, so a page a moment late can only show a form that is then refused.
const SALES_STATE_MAX_AGE: Duration = Duration::from_secs(2);

/// This process's copy of "are new sales paused?", re-read from the shared wallet row when
/// older than a couple of seconds, so plan pages show the pause on every replica without a
/// database read per view.
#[derive(Debug, Default)]
pub struct SalesState {
    last: Mutex<Option<(Instant, bool)>>,
}

impl SalesState {
    /// The pause as last read (`false` before the first read).
    pub fn paused(&self) -> bool {
        self.last
            .lock()
            .map(|last| last.is_some_and(|(_, paused)| paused))
            .unwrap_or(false)
    }

    /// Re-reads the wallet row when the copy is stale. A failed read keeps the last value (not
    /// paused when there is none) for another round: the checkout's own check still refuses a
    /// sale the wallet cannot take.
    pub async fn refresh_if_stale(&self, db: &Db) {
        let fresh = self
            .last
            .lock()
            .map(|last| last.is_some_and(|(at, _)| at.elapsed() < SALES_STATE_MAX_AGE))
            .unwrap_or(false);
        if fresh {
            return;
        }
        let read = db.run_within(db::QUICK_POOL_TIMEOUT, db::wallet::get).await;
        let paused = match read {
            Ok(row) => row.is_some_and(|w| w.sales_paused),
            Err(err) => {
                // Asked again only when this answer is stale too: with the database gone,
                // every page would otherwise wait for a connection.
                tracing::warn!(error = %err, "could not read whether sales are paused");
                self.last
                    .lock()
                    .ok()
                    .and_then(|last| last.map(|(_, paused)| paused))
                    .unwrap_or(false)
            }
        };
        if let Ok(mut last) = self.last.lock() {
            *last = Some((Instant::now(), paused));
        }
    }
}

impl PauseReason {
    /// Why sales are paused and what resumes them, in the owner's words (`threshold` is the
    /// owner's threshold, in cents).
    pub fn explain(self, threshold: i64) -> String {
        let money = |cents: i64| crate::domain::Cents::new(cents).to_string();
        match self {
            PauseReason::InsufficientBalance => {
                "New sales are paused: the provider refused an order \
            for lack of credit. They resume once a balance read shows enough credit for the \
            orders waiting, usually after a top-up."
                    .into()
            }
            PauseReason::BelowThreshold => format!(
                "New sales are paused: the available balance is below your threshold of {} and you \
             chose to pause sales below it. They resume once a balance read shows at least {}.",
                money(threshold),
                money(threshold)
            ),
            PauseReason::AccountProblem => {
                "New sales are paused: the supplier refuses orders from \
            this account (an expired key, a missing scope or a suspension; the dashboard's alert \
            says which). They resume once the supplier accepts an order again: fix the account, \
            then retry the waiting placements from the dashboard."
                    .into()
            }
        }
    }
}
