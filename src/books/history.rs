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
//! [`FULL_PASS_EVERY_MS`], reads every page (and brings in old orders whose status changed).
//!
//! Pages go through the client's pager (with a page cap of its own, [`PAGE_CAP`], as each page
//! is stored when read) and the shared `Retry-After` gate, so
//! the refresh spends the same rate-limit budget as every other upstream call. [`run`] refreshes
//! every [`REFRESH_EVERY`] under a lease, so one replica does it for the shop.

use std::time::Duration;

use tokio::sync::watch;

use super::BooksError;
use super::period::upstream_time_ms;
use crate::db::supplier_history::{self as q, OrderRow, TransactionRow};
use crate::db::{Db, DbError, lease, now_ms};
use crate::domain::Cents;
use crate::upstream::{
    ApiAmount, BalanceTransaction, Order, OrderStatus, PageLimit, PartnerClient,
};

/// A full pass at least this often (24 hours).
pub const FULL_PASS_EVERY_MS: i64 = 24 * 60 * 60 * 1000;
/// How often [`run`] refreshes the copy.
pub const REFRESH_EVERY: Duration = Duration::from_secs(5 * 60);
/// The lease whose holder refreshes; held for a little less than the refresh period.
const LEASE: &str = "supplier_history_refresh";
const LEASE_MS: i64 = 4 * 60 * 1000;
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
    /// A full pass when the last one is older than [`FULL_PASS_EVERY_MS`]: the background job.
    Scheduled,
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
        Pass::Scheduled => {
            state.is_none_or(|(_, full)| now.saturating_sub(full) >= FULL_PASS_EVERY_MS)
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

/// Refreshes the copy every [`REFRESH_EVERY`], on whichever replica takes the lease, until
/// `shutdown`. The first refresh waits one period after start, so a starting shop spends its
/// first requests on the catalog and its orders; a reconciliation asked for earlier refreshes
/// the copy itself.
pub async fn run(db: Db, upstream: PartnerClient, mut shutdown: watch::Receiver<bool>) {
    loop {
        tokio::select! {
            _ = tokio::time::sleep(REFRESH_EVERY) => {}
            _ = shutdown.changed() => return,
        }
        let holder = format!("{}:{}", std::process::id(), rand::random::<u64>());
        let now = now_ms();
        let due = db
            .run(move |conn| lease::try_acquire(conn, LEASE, &holder, now, LEASE_MS))
            .await;
        match due {
            Ok(true) => match refresh(&db, &upstream, Pass::Scheduled).await {
                Ok(done) => tracing::debug!(
                    orders.pages = done.orders.pages,
                    orders.new = done.orders.new,
                    transactions.pages = done.transactions.pages,
                    transactions.new = done.transactions.new,
                    "supplier history refreshed"
                ),
                Err(err) => {
                    tracing::warn!(error = %err, "could not refresh the supplier history");
                }
            },
            Ok(false) => {}
            Err(err) => tracing::warn!(error = %err, "could not check the history refresh lease"),
        }
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
