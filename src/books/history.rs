//! The local copy of the supplier's order and wallet-transaction listings, so that the books
//! reconcile a period from the rows of that period (by index) instead of walking the
//! supplier's whole history on every run.
//!
//! **Refreshing without knowing the list order.** The spec does not say in which order
//! `GET /orders` and `GET /balance/transactions` list their items, so the refresh never relies
//! on one. Every item listed is stored by its id (an order is updated when its status or eSIM
//! changed; a transaction never changes), and a page counts as bringing something new when it
//! stored anything. A refresh stops before the end of a listing only when all of these hold:
//! the page brought nothing new, the *anchor* — the newest item the copy held before this
//! refresh (by the supplier's time, then id) — has been listed in this pass, and at least one
//! item was listed after it. Newest first, that stops one page past the anchor; oldest first,
//! every item after the anchor is new, so the refresh reads on to the end; in any other order it
//! may stop early, which the full pass repairs: the first refresh, and one at least every
//! `STOREFRONT_SUPPLIER_FULL_PASS_DAYS` (a week by default), reads every page (and brings in
//! old orders whose status changed).
//!
//! **What a full pass costs.** Pages hold 100 items (the most the spec allows). A shop with
//! 1,000,000 orders has about 2,000,000 wallet transactions (a reservation and a settlement
//! or release per order, plus credits): 10,000 + 20,000 = 30,000 requests per full pass, 30
//! times the client's page cap for other listings, where an incremental refresh reads 2 to 4
//! pages (about 1,000 requests a day at one every 5 minutes). Daily, the full passes would
//! be 30 times the incremental refreshes' share of the shared rate-limit budget; weekly they
//! are about 4,300 requests a day.
//!
//! Pages go through the client's pager (with a page cap of its own, [`PAGE_CAP`], as each page
//! is stored when read) and the shared `Retry-After` gate, so
//! the refresh spends the same rate-limit budget as every other upstream call. [`run`] refreshes
//! every [`REFRESH_EVERY`], and when the console asks ([`Wake`]), under a lease, so one replica
//! at a time does it for the shop. Pages read the copy as it is ([`as_of`] says how fresh);
//! no request waits for the supplier.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{Notify, watch};

use super::BooksError;
use super::period::upstream_time_ms;
use crate::db::supplier_history::{self as q, OrderRow, TransactionRow};
use crate::db::{Db, DbError, lease, now_ms};
use crate::domain::Cents;
use crate::upstream::{
    ApiAmount, BalanceTransaction, Order, OrderStatus, PageLimit, PartnerClient,
};

/// How often [`run`] refreshes the copy.
pub const REFRESH_EVERY: Duration = Duration::from_secs(5 * 60);
/// The lease held while a refresh runs, given back when it ends; it lapses on its own only when
/// its holder died, so it is long enough for a full pass of a long history.
const LEASE: &str = "supplier_history_refresh";
const LEASE_MS: i64 = 30 * 60 * 1000;
/// Items per page asked for (the most the spec allows).
const PAGE: u32 = 100;
/// Pages a refresh may read from one listing: ten million items, far past the client's cap
/// for other listings, since every page is stored as it is read.
const PAGE_CAP: u32 = 100_000;

const ORDERS: &str = "orders";
const TRANSACTIONS: &str = "transactions";

/// What one listing's refresh did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Refreshed {
    /// Pages read.
    pub pages: u32,
    /// Items stored that were new, or (orders) changed.
    pub new: usize,
    /// Whether every page was read.
    pub full: bool,
}

/// Both listings' refreshes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Refresh {
    pub orders: Refreshed,
    pub transactions: Refreshed,
}

impl OrderRow {
    fn of(o: &Order) -> Self {
        Self {
            id: o.id.clone(),
            reference: o.reference.clone(),
            status: o.status.as_str().to_string(),
            price_cents: o.price_cents.cents().get(),
            currency: o.currency.clone(),
            created_at: o.created_at.clone(),
            created_at_ms: upstream_time_ms(&o.created_at),
            esim_id: o.esim_id.clone(),
        }
    }

    /// The order as upstream listed it; `None` for a price no order can have (never stored).
    pub fn order(&self) -> Option<Order> {
        Some(Order {
            id: self.id.clone(),
            reference: self.reference.clone(),
            status: OrderStatus::parse(&self.status),
            price_cents: ApiAmount::try_from(self.price_cents).ok()?,
            currency: self.currency.clone(),
            created_at: self.created_at.clone(),
            esim_id: self.esim_id.clone(),
        })
    }
}

impl TransactionRow {
    fn of(t: &BalanceTransaction) -> Self {
        Self {
            id: t.id,
            kind: t.kind.clone(),
            available_delta_cents: t.available_delta_cents.get(),
            reserved_delta_cents: t.reserved_delta_cents.get(),
            reference: t.reference.clone(),
            created_at: t.created_at.clone(),
            created_at_ms: upstream_time_ms(&t.created_at),
        }
    }

    /// The transaction as upstream listed it.
    pub fn transaction(&self) -> BalanceTransaction {
        BalanceTransaction {
            id: self.id,
            kind: self.kind.clone(),
            available_delta_cents: Cents::new(self.available_delta_cents),
            reserved_delta_cents: Cents::new(self.reserved_delta_cents),
            reference: self.reference.clone(),
            created_at: self.created_at.clone(),
        }
    }
}

/// Whether a refresh may stop after a page (see the module's comment).
#[derive(Debug, Default)]
struct StopRule<K> {
    /// The stored items with the newest time; empty for an empty copy.
    anchor: Vec<K>,
    anchor_seen: bool,
    listed_after_anchor: usize,
}

impl<K: PartialEq> StopRule<K> {
    fn new(anchor: Vec<K>) -> Self {
        Self {
            anchor,
            anchor_seen: false,
            listed_after_anchor: 0,
        }
    }

    /// Items of the anchor never count as listed after it: with several sharing the newest
    /// time, the ones listed after the first are not proof that the listing went past them.
    fn saw(&mut self, key: &K) {
        if self.anchor.contains(key) {
            self.anchor_seen = true;
        } else if self.anchor_seen {
            self.listed_after_anchor += 1;
        }
    }

    fn may_stop(&self, page_new: usize) -> bool {
        page_new == 0 && self.anchor_seen && self.listed_after_anchor > 0
    }
}

/// How far a refresh reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pass {
    /// Until the stop rule holds (a full pass only for an empty copy): before a reconciliation.
    Incremental,
    /// A full pass when the last one is older than the period given: the background job.
    Scheduled { full_pass_every: Duration },
    /// Every page.
    Full,
}

/// Refreshes both listings as `pass` says.
pub async fn refresh(db: &Db, upstream: &PartnerClient, pass: Pass) -> Result<Refresh, BooksError> {
    let now = now_ms();
    let (orders_state, transactions_state, newest_order, newest_transaction) = db
        .run(|conn| {
            Ok::<_, DbError>((
                q::sync_state(conn, ORDERS)?,
                q::sync_state(conn, TRANSACTIONS)?,
                q::newest_orders(conn)?,
                q::newest_transactions(conn)?,
            ))
        })
        .await?;
    let due = |state: Option<(i64, i64)>| match pass {
        Pass::Full => true,
        Pass::Incremental => state.is_none(),
        Pass::Scheduled { full_pass_every } => {
            let every = i64::try_from(full_pass_every.as_millis()).unwrap_or(i64::MAX);
            state.is_none_or(|(_, full)| now.saturating_sub(full) >= every)
        }
    };
    let limit = PageLimit::new(PAGE).unwrap_or_default();

    let full = due(orders_state) || newest_order.is_empty();
    let mut pager = upstream.orders_pager(limit).with_page_cap(PAGE_CAP);
    let mut rule = StopRule::new(newest_order);
    let mut orders = Refreshed::default();
    loop {
        let Some(page) = pager.next_page().await? else {
            orders.full = true;
            break;
        };
        orders.pages += 1;
        let rows: Vec<OrderRow> = page.iter().map(OrderRow::of).collect();
        let added = db
            .run(move |conn| conn.write_tx(|conn| q::upsert_orders(conn, &rows)))
            .await?;
        orders.new += added;
        for o in &page {
            rule.saw(&o.id);
        }
        if !full && rule.may_stop(added) {
            break;
        }
    }
    let done = orders.full;
    db.run(move |conn| conn.write_tx(|conn| q::mark_refreshed(conn, ORDERS, now, done)))
        .await?;

    let full = due(transactions_state) || newest_transaction.is_empty();
    let mut pager = upstream
        .balance_transactions_pager(limit)
        .with_page_cap(PAGE_CAP);
    let mut rule = StopRule::new(newest_transaction);
    let mut transactions = Refreshed::default();
    loop {
        let Some(page) = pager.next_page().await? else {
            transactions.full = true;
            break;
        };
        transactions.pages += 1;
        let rows: Vec<TransactionRow> = page.iter().map(TransactionRow::of).collect();
        let added = db
            .run(move |conn| conn.write_tx(|conn| q::insert_new_transactions(conn, &rows)))
            .await?;
        transactions.new += added;
        for t in &page {
            rule.saw(&t.id);
        }
        if !full && rule.may_stop(added) {
            break;
        }
    }
    let done = transactions.full;
    db.run(move |conn| conn.write_tx(|conn| q::mark_refreshed(conn, TRANSACTIONS, now, done)))
        .await?;
    Ok(Refresh {
        orders,
        transactions,
    })
}

/// Asks this process's [`run`] to refresh the copy now rather than at its next period: the
/// console's "Refresh now". Requests made while a refresh runs fold into one more refresh
/// after it.
#[derive(Debug, Clone, Default)]
pub struct Wake(Arc<Notify>);

impl Wake {
    pub fn ask(&self) {
        self.0.notify_one();
    }
}

/// The copied order with `reference`, if the copy holds one.
pub async fn copied_order(db: &Db, reference: &str) -> Result<Option<Order>, DbError> {
    let reference = reference.to_string();
    let row = db
        .run(move |conn| q::order_with_reference(conn, &reference))
        .await?;
    Ok(row.and_then(|r| r.order()))
}

/// When the copy was last refreshed: the older of the two listings' last refresh (the
/// time the refresh started, so nothing listed after it is claimed). `None` until both
/// were refreshed once.
pub async fn as_of(db: &Db) -> Result<Option<i64>, DbError> {
    db.run(|conn| {
        let orders = q::sync_state(conn, ORDERS)?;
        let transactions = q::sync_state(conn, TRANSACTIONS)?;
        Ok(orders.zip(transactions).map(|((o, _), (t, _))| o.min(t)))
    })
    .await
}

/// Refreshes the copy about every [`REFRESH_EVERY`] and whenever `wake` asks, with a full
/// pass at least every `full_pass_every`, until `shutdown`. A refresh runs under a lease held only while it runs, so replicas never
/// refresh at the same time; a periodic one is skipped when another replica refreshed less
/// than a period ago, and an asked one always runs (after the one in progress, if any). The
/// first periodic refresh waits one period after start, so a starting shop spends its first
/// requests on the catalog and its orders.
pub async fn run(
    db: Db,
    upstream: PartnerClient,
    wake: Wake,
    full_pass_every: Duration,
    mut shutdown: watch::Receiver<bool>,
) {
    let holder = format!("{}:{}", std::process::id(), rand::random::<u64>());
    // The books of days never stored (a shop upgraded from before `book_days`) are made at
    // start, in the background.
    catch_up_books(&db).await;
    loop {
        let asked = tokio::select! {
            _ = tokio::time::sleep(REFRESH_EVERY) => false,
            _ = wake.0.notified() => true,
            _ = shutdown.changed() => return,
        };
        if !asked {
            match as_of(&db).await {
                Ok(Some(at)) if now_ms().saturating_sub(at) < RECENT_MS => continue,
                Ok(_) => {}
                Err(err) => {
                    tracing::warn!(error = %err, "could not read the history refresh state");
                    continue;
                }
            }
        }
        refresh_under_lease(&db, &upstream, &holder, asked, full_pass_every).await;
        catch_up_books(&db).await;
    }
}

/// Brings the stored books of every day up to date with the copy and the shop
/// ([`super::days::catch_up`]), so that the console reads them instead of reconciling.
async fn catch_up_books(db: &Db) {
    match super::days::catch_up(db, now_ms()).await {
        Ok(0) => {}
        Ok(days) => tracing::debug!(days, "days of the books stored"),
        Err(err) => tracing::warn!(error = %err, "could not store the days of the books"),
    }
}

/// A periodic refresh is skipped when the copy is younger than this: another replica did it.
const RECENT_MS: i64 = 4 * 60 * 1000;

async fn refresh_under_lease(
    db: &Db,
    upstream: &PartnerClient,
    holder: &str,
    asked: bool,
    full_pass_every: Duration,
) {
    // An asked refresh waits for one running on another replica, a little, then gives up
    // (the copy is being refreshed anyway).
    let tries = if asked { 60 } else { 1 };
    let mut taken = false;
    for _ in 0..tries {
        let (h, now) = (holder.to_string(), now_ms());
        match db
            .run(move |conn| lease::try_acquire(conn, LEASE, &h, now, LEASE_MS))
            .await
        {
            Ok(true) => {
                taken = true;
                break;
            }
            Ok(false) if tries > 1 => tokio::time::sleep(Duration::from_secs(1)).await,
            Ok(false) => {}
            Err(err) => {
                tracing::warn!(error = %err, "could not check the history refresh lease");
                return;
            }
        }
    }
    if !taken {
        return;
    }
    match refresh(db, upstream, Pass::Scheduled { full_pass_every }).await {
        Ok(done) => tracing::debug!(
            orders.pages = done.orders.pages,
            orders.new = done.orders.new,
            transactions.pages = done.transactions.pages,
            transactions.new = done.transactions.new,
            "supplier history refreshed"
        ),
        Err(err) => tracing::warn!(error = %err, "could not refresh the supplier history"),
    }
    let h = holder.to_string();
    if let Err(err) = db.run(move |conn| lease::release(conn, LEASE, &h)).await {
        tracing::warn!(error = %err, "could not give the history refresh lease back");
    }
}

#[cfg(test)]
mod tests {
    use super::StopRule;

    fn walk(anchor: &[i64], pages: &[(&[i64], usize)]) -> usize {
        let mut rule = StopRule::new(anchor.to_vec());
        for (n, (items, new)) in pages.iter().enumerate() {
            for i in *items {
                rule.saw(i);
            }
            if rule.may_stop(*new) {
                return n + 1;
            }
        }
        pages.len()
    }

    #[test]
    fn newest_first_stops_one_page_past_the_anchor_at_most() {
        // Known up to 5; 8, 7, 6 are new.
        let pages: &[(&[i64], usize)] = &[(&[8, 7, 6], 3), (&[5, 4, 3], 0), (&[2, 1], 0)];
        assert_eq!(walk(&[5], pages), 2);
        // The anchor last on its page: one more page, then stop.
        let pages: &[(&[i64], usize)] = &[(&[7, 6, 5], 2), (&[4, 3, 2], 0), (&[1], 0)];
        assert_eq!(walk(&[5], pages), 2);
    }

    #[test]
    fn oldest_first_reads_to_the_end() {
        // The anchor ends a page and everything after it is new.
        let pages: &[(&[i64], usize)] = &[(&[1, 2, 3], 0), (&[4, 5], 0), (&[6, 7], 2)];
        assert_eq!(walk(&[5], pages), 3);
        // Nothing new at all: the anchor is the last item, so every page is read.
        let pages: &[(&[i64], usize)] = &[(&[1, 2, 3], 0), (&[4, 5], 0)];
        assert_eq!(walk(&[5], pages), 2);
    }

    #[test]
    fn items_sharing_the_newest_time_are_all_the_anchor() {
        // 3, 4 and 5 share the newest stored time. Listed oldest first, a page that ends
        // among them has shown nothing past the anchor yet: the next page brings 6 and 7.
        let pages: &[(&[i64], usize)] = &[(&[1, 2, 3], 0), (&[4, 5], 0), (&[6, 7], 2), (&[8], 1)];
        assert_eq!(walk(&[3, 4, 5], pages), 4);
        // Listed newest first, the stop comes one page past the group.
        let pages: &[(&[i64], usize)] = &[(&[7, 6, 4], 2), (&[5, 3, 2], 0), (&[1], 0)];
        assert_eq!(walk(&[3, 4, 5], pages), 2);
    }

    #[test]
    fn without_an_anchor_nothing_stops_early() {
        let pages: &[(&[i64], usize)] = &[(&[1, 2], 0), (&[3, 4], 0)];
        assert_eq!(walk(&[], pages), 2);
    }
}
