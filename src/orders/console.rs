//! What the admin console reads about orders, each page's data in one trip to the pool: the
//! order search, one order with everything the owner needs to judge it (timeline, jobs and
//! their attempts, refund, alerts, links, the facts the transition table needs to offer the
//! actions), the dashboard's state of the business, and the shop-wide gauges `/metrics`
//! reports. Installation values are never part of it: of the ICCID only the last four digits.

use crate::db::admin::{self as q, OutboxHealth, Sales};
pub use crate::db::admin::{Abandoned, OrderFilter};
use crate::db::alerts::{self, Alert};
use crate::db::catalog::SyncRow;
use crate::db::metrics::Gauges;
use crate::db::order_links::LinkCounts;
use crate::db::outbox::{self, Attempt, Job};
use crate::db::purchases::{self, Purchase, PurchaseEvent};
use crate::db::refunds::{self, RefundRow};
use crate::db::wallet::{self, WalletRow};
use crate::db::{Db, DbError};
use crate::domain::purchase::PlacementFacts;
use crate::orders::actions;

const DAY_MS: i64 = 86_400_000;

/// A page of the order search: the purchases (up to `limit`) and how many abandoned checkouts
/// match but are left out.
pub async fn orders_page(
    db: &Db,
    filter: OrderFilter,
    offset: i64,
    limit: i64,
) -> Result<(Vec<Purchase>, i64), DbError> {
    db.run(move |conn| q::orders_page(conn, &filter, offset, limit))
        .await
}

/// One order as the console shows it.
pub struct OrderDetail {
    pub purchase: Purchase,
    pub events: Vec<PurchaseEvent>,
    /// Its outbox jobs, each with its attempts.
    pub jobs: Vec<(Job, Vec<Attempt>)>,
    pub refund: Option<RefundRow>,
    pub alerts: Vec<Alert>,
    pub iccid_last4: Option<String>,
    /// What the transition table needs to know to offer refunds and a re-drive.
    pub facts: PlacementFacts,
    pub links: LinkCounts,
}

/// The order `id`, or `None` when there is none.
pub async fn order_detail(db: &Db, id: String) -> Result<Option<OrderDetail>, DbError> {
    db.run(move |conn| {
        let Some(purchase) = purchases::find(conn, &id)? else {
            return Ok(None);
        };
        let mut jobs = Vec::new();
        for job in outbox::jobs_for_purchase(conn, &id)? {
            let attempts = outbox::attempts(conn, job.id)?;
            jobs.push((job, attempts));
        }
        Ok(Some(OrderDetail {
            events: purchases::events(conn, &id)?,
            jobs,
            refund: refunds::refund_for(conn, &id)?,
            alerts: alerts::alerts_for_purchase(conn, &id)?,
            iccid_last4: crate::db::installations::iccid_last4(conn, &id)?,
            facts: actions::placement_facts(conn, &purchase)?,
            links: crate::db::order_links::counts(conn, &id)?,
            purchase,
        }))
    })
    .await
}

/// The dashboard's state of the business at `now_ms`.
pub struct Dashboard {
    pub wallet: Option<WalletRow>,
    /// Today (UTC), the last 7 and the last 30 days, with their labels.
    pub sales: [(&'static str, Sales); 3],
    pub health: OutboxHealth,
    /// Orders that need a person, at most `ATTENTION_LIMIT`.
    pub attention: Vec<Purchase>,
    pub alerts: Vec<Alert>,
    pub last_sync: Option<SyncRow>,
}

/// Orders needing attention listed on the dashboard.
const ATTENTION_LIMIT: i64 = 20;

pub async fn dashboard(db: &Db, now_ms: i64) -> Result<Dashboard, DbError> {
    db.run(move |conn| {
        let today = now_ms - now_ms.rem_euclid(DAY_MS);
        Ok(Dashboard {
            wallet: wallet::get(conn)?,
            sales: [
                ("Today (UTC)", q::sales_since(conn, today)?),
                ("Last 7 days", q::sales_since(conn, now_ms - 7 * DAY_MS)?),
                ("Last 30 days", q::sales_since(conn, now_ms - 30 * DAY_MS)?),
            ],
            health: q::outbox_health(conn, now_ms)?,
            attention: q::needing_attention(conn, ATTENTION_LIMIT)?,
            alerts: alerts::open_alerts(conn)?,
            last_sync: crate::db::catalog::last_sync(conn)?,
        })
    })
    .await
}

/// The shop-wide gauges, read in one connection so every replica reports the same numbers.
pub async fn gauges(db: &Db) -> Result<Gauges, DbError> {
    db.run(crate::db::metrics::read_gauges).await
}
