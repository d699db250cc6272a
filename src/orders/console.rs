//! What the admin console reads about orders, each page's data in one trip to the pool: the
//! order search (its fields as typed, and which creation times a range of UTC days covers), one order with everything the owner needs to judge it (timeline, jobs and
//! their attempts, refund, alerts, links, the facts the transition table needs to offer the
//! actions), the dashboard's state of the business, and the shop-wide gauges `/metrics`
//! reports. Installation values are never part of it: of the ICCID only the last four digits.

use crate::db::alerts::{self, Alert};
use crate::db::catalog::SyncRow;
use crate::db::daily_sales::{self, Sales};
use crate::db::dashboard::{self as q, Capped, OutboxHealth};
use crate::db::metrics::Gauges;
use crate::db::order_links::LinkCounts;
use crate::db::order_search;
pub use crate::db::order_search::{Abandoned, Cursor, OrderFilter, OrdersPage, Page};
use crate::db::outbox::{self, Attempt, Job};
use crate::db::purchases::{self, Purchase, PurchaseEvent};
use crate::db::refunds::{self, RefundRow};
use crate::db::wallet::{self, WalletRow};
use crate::db::{Db, DbError, lease, metrics, now_ms};
use crate::domain::PurchaseId;
use crate::domain::purchase::{PlacementFacts, PurchaseStatus};
use crate::orders::Orders;
use crate::orders::actions;

const DAY_MS: i64 = 86_400_000;

/// A page of the order search: up to `size` purchases, whether newer and older ones surround
/// them, and how many abandoned checkouts match but are left out.
#[tracing::instrument(skip_all, fields(size = size))]
pub async fn orders_page(
    orders: &Orders,
    filter: OrderFilter,
    page: Page,
    size: i64,
) -> Result<OrdersPage, DbError> {
    let db = orders.db();
    db.run(move |conn| order_search::orders_page(conn, &filter, &page, size))
        .await
}

/// The order search's fields, as typed: the console's list and the orders CSV read the same.
#[derive(Debug, Clone)]
pub struct Search {
    pub text: Option<String>,
    pub status: Option<String>,
    /// First day, `YYYY-MM-DD` (UTC).
    pub from: Option<String>,
    /// Last day, `YYYY-MM-DD` (UTC), included whole.
    pub to: Option<String>,
}

/// A query value with surrounding space removed, at most `max` characters; empty is absent.
fn typed(value: Option<&str>, max: usize) -> Option<String> {
    value
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(|v| v.chars().take(max).collect())
}

impl Search {
    /// The search as typed; an unknown status is refused with the words to show.
    pub fn parse(
        text: Option<&str>,
        status: Option<&str>,
        from: Option<&str>,
        to: Option<&str>,
    ) -> Result<Self, String> {
        let status = typed(status, usize::MAX);
        if let Some(s) = &status
            && s != ABANDONED
            && PurchaseStatus::parse(s).is_none()
        {
            return Err(format!("There is no order status {s:?}."));
        }
        Ok(Self {
            text: typed(text, 254),
            status,
            from: typed(from, 40),
            to: typed(to, 40),
        })
    }

    /// The database filter, at `now_ms` (which checkouts count as abandoned).
    pub fn filter(&self, now_ms: i64) -> Result<OrderFilter, DateRefusal> {
        let (created_from_ms, created_before_ms) =
            created_range(self.from.as_deref(), self.to.as_deref())?;
        // Abandoned checkouts are left out unless asked for, by name or by a status they have.
        let abandoned = match self.status.as_deref() {
            None => Abandoned::Hide,
            Some(ABANDONED) => Abandoned::Only,
            Some(_) => Abandoned::Include,
        };
        Ok(OrderFilter {
            query: self.text.clone(),
            status: self.status.clone().filter(|s| s != ABANDONED),
            created_from_ms,
            created_before_ms,
            abandoned,
            now_ms,
        })
    }
}

/// The status filter's value for abandoned checkouts, which the list otherwise leaves out.
pub const ABANDONED: &str = "abandoned";

/// Which date field a refused range is about, so the page marks that field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DateField {
    From,
    To,
    Both,
}

/// A date range the search cannot use, with the field to mark and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DateRefusal {
    pub field: DateField,
    pub message: String,
}

/// A day as `<input type="date">` sends it: `YYYY-MM-DD`.
fn parse_day(raw: &str) -> Option<time::Date> {
    time::Date::parse(
        raw,
        &time::macros::format_description!("[year]-[month]-[day]"),
    )
    .ok()
}

/// Unix milliseconds at 00:00 UTC of `day`.
fn day_start_ms(day: time::Date) -> i64 {
    day.midnight().assume_utc().unix_timestamp() * 1000
}

fn not_a_day(field: DateField, label: &str, raw: &str) -> DateRefusal {
    let shown: String = raw.chars().take(20).collect();
    DateRefusal {
        field,
        message: format!(
            "The {label} date “{shown}” is not a date. Pick one with the date picker, or type it as YYYY-MM-DD, like 2026-11-22."
        ),
    }
}

/// The creation times a `from`/`to` pair of UTC days covers, in unix milliseconds: from the
/// start of `from` up to, not including, the start of the day after `to`, so that `to`
/// includes its whole day. Either end may be open.
fn created_range(
    from: Option<&str>,
    to: Option<&str>,
) -> Result<(Option<i64>, Option<i64>), DateRefusal> {
    let from_day = from
        .map(|raw| parse_day(raw).ok_or_else(|| not_a_day(DateField::From, "“from”", raw)))
        .transpose()?;
    let to_day = to
        .map(|raw| parse_day(raw).ok_or_else(|| not_a_day(DateField::To, "“to”", raw)))
        .transpose()?;
    if let (Some(first), Some(last)) = (from_day, to_day)
        && first > last
    {
        return Err(DateRefusal {
            field: DateField::Both,
            message: format!(
                "The “from” date ({first}) is after the “to” date ({last}), so no order can match. Swap them, or change one."
            ),
        });
    }
    // The last representable day has no next day: nothing is created after it anyway.
    let before = to_day.and_then(|d| d.next_day()).map(day_start_ms);
    Ok((from_day.map(day_start_ms), before))
}

/// One order as the console shows it.
pub struct OrderDetail {
    pub purchase: Purchase,
    pub events: Vec<PurchaseEvent>,
    /// Its outbox jobs, each with its attempts.
    pub jobs: Vec<(Job, Vec<Attempt>)>,
    pub refund: Option<RefundRow>,
    /// Its share of its order's tax (zero when untaxed).
    pub tax: crate::domain::tax::UnitTax,
    pub alerts: Vec<Alert>,
    pub iccid_last4: Option<String>,
    /// What the transition table needs to know to offer refunds and a re-drive.
    pub facts: PlacementFacts,
    pub links: LinkCounts,
    /// Every unit of its checkout, this one included, first to last: one eSIM each, bought
    /// with one payment, each its own upstream order.
    pub units: Vec<Purchase>,
}

impl OrderDetail {
    /// The order's money, with its refund when one is under way or done.
    pub fn takings(&self) -> crate::domain::takings::Takings {
        let refunded = self
            .refund
            .as_ref()
            .filter(|r| r.is_open())
            .map_or(crate::domain::Cents::ZERO, |r| {
                crate::domain::Cents::new(r.amount_cents)
            });
        self.purchase.takings(self.tax, refunded)
    }

    /// What the buyer was charged for this eSIM, tax added on top included: what a refund
    /// gives back.
    pub fn charged(&self) -> crate::domain::Cents {
        self.tax.charged(self.purchase.price_cents)
    }
}

/// The order `id`, or `None` when there is none.
#[tracing::instrument(skip_all, fields(purchase.id = %id))]
pub async fn order_detail(orders: &Orders, id: PurchaseId) -> Result<Option<OrderDetail>, DbError> {
    let db = orders.db();
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
            tax: crate::db::tax::unit_tax(conn, &id)?,
            alerts: alerts::alerts_for_purchase(conn, &id)?,
            iccid_last4: crate::db::installations::iccid_last4(conn, &id)?,
            facts: actions::placement_facts(conn, &purchase)?,
            links: crate::db::order_links::counts(conn, &id)?,
            units: purchases::units_of(conn, &purchase.checkout_id)?,
            purchase,
        }))
    })
    .await
}

/// The dashboard's state of the business at `now_ms`.
pub struct Dashboard {
    pub wallet: Option<WalletRow>,
    /// Today, the last 7 and the last 30 UTC days (today included), with their labels.
    pub sales: [(&'static str, Sales); 3],
    pub health: OutboxHealth,
    /// Orders that need a person, at most `ATTENTION_LIMIT`, newest first.
    pub attention: Vec<Purchase>,
    /// Purchases in `needs_attention`, counted up to a cap.
    pub attention_total: Capped,
    /// The newest open alerts, at most `ALERTS_LIMIT`.
    pub alerts: Vec<Alert>,
    /// Open alerts, counted up to a cap.
    pub alerts_total: Capped,
    pub last_sync: Option<SyncRow>,
}

impl Dashboard {
    /// Whether tax was kept on any sale of the last 30 days: the sales table then shows it.
    pub fn shows_tax(&self) -> bool {
        self.sales.iter().any(|(_, s)| s.takings.tax.get() != 0)
    }
}

/// Orders needing attention listed on the dashboard: a screenful, whatever needs attention.
const ATTENTION_LIMIT: i64 = 20;
/// Open alerts listed on the dashboard.
const ALERTS_LIMIT: i64 = 10;

#[tracing::instrument(skip_all)]
pub async fn dashboard(orders: &Orders, now_ms: i64) -> Result<Dashboard, DbError> {
    let db = orders.db();
    db.run(move |conn| {
        let today = crate::domain::takings::utc_day_start(now_ms);
        let days = daily_sales::days(conn, today - 29 * DAY_MS, 30)?;
        let last = |n: usize| daily_sales::total(&days[days.len().saturating_sub(n)..]);
        Ok(Dashboard {
            wallet: wallet::get(conn)?,
            sales: [
                ("Today (UTC)", last(1)),
                ("Last 7 days", last(7)),
                ("Last 30 days", last(30)),
            ],
            health: q::outbox_health(conn, now_ms)?,
            attention: q::needing_attention(conn, ATTENTION_LIMIT)?,
            attention_total: q::needs_attention_count(conn)?,
            alerts: alerts::newest_open_alerts(conn, ALERTS_LIMIT)?,
            alerts_total: q::open_alerts_count(conn)?,
            last_sync: crate::db::catalog::last_sync(conn)?,
        })
    })
    .await
}

/// The shop-wide gauges, read in one connection so every replica reports the same numbers.
#[tracing::instrument(skip_all)]
pub async fn gauges(orders: &Orders) -> Result<Gauges, DbError> {
    let db = orders.db();
    db.run(crate::db::metrics::read_gauges).await
}

/// How often the ended purchases and the finished jobs are counted for `/metrics`
/// (`db::metrics`): one replica counts, under a lease this long.
pub const TALLY_EVERY: std::time::Duration = std::time::Duration::from_secs(5 * 60);
/// How often a replica asks whether the tally is due.
const TALLY_CHECK_EVERY: std::time::Duration = std::time::Duration::from_secs(60);
const TALLY_LEASE: &str = "metric_tally";

/// Refreshes the `/metrics` tally every [`TALLY_EVERY`] across all replicas until `shutdown`
/// turns true. A fresh shop counts at once: the lease is free.
pub async fn run_tallies(db: Db, mut shutdown: tokio::sync::watch::Receiver<bool>) {
    let every_ms = i64::try_from(TALLY_EVERY.as_millis()).unwrap_or(i64::MAX);
    loop {
        // A holder of its own per check: the lease is taken only once it has expired, by
        // whichever replica asks first.
        let holder = format!("{}:{}", std::process::id(), rand::random::<u64>());
        let now = now_ms();
        let due = db
            .run(move |conn| lease::try_acquire(conn, TALLY_LEASE, &holder, now, every_ms))
            .await;
        match due {
            Ok(true) => {
                if let Err(err) = db.run(move |conn| metrics::tally(conn, now)).await {
                    tracing::warn!(error = %err, "could not count the ended orders for /metrics");
                }
            }
            Ok(false) => {}
            Err(err) => tracing::warn!(error = %err, "could not check the /metrics tally lease"),
        }
        tokio::select! {
            _ = tokio::time::sleep(TALLY_CHECK_EVERY) => {}
            _ = shutdown.changed() => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2026-03-10T00:00:00Z.
    const MARCH_10: i64 = 1_773_100_800_000;
    const DAY: i64 = 86_400_000;

    #[test]
    fn a_date_range_covers_whole_utc_days() {
        assert_eq!(created_range(None, None), Ok((None, None)));
        assert_eq!(
            created_range(Some("2026-03-10"), Some("2026-03-10")),
            Ok((Some(MARCH_10), Some(MARCH_10 + DAY)))
        );
        assert_eq!(
            created_range(Some("2026-03-10"), None),
            Ok((Some(MARCH_10), None))
        );
        assert_eq!(
            created_range(None, Some("2026-03-10")),
            Ok((None, Some(MARCH_10 + DAY)))
        );
        // The last day of a month and of a leap February roll over.
        assert_eq!(
            created_range(None, Some("2028-02-29")).map(|r| r.1),
            created_range(Some("2028-03-01"), None).map(|r| r.0)
        );
    }

    #[test]
    fn bad_dates_and_reversed_ranges_are_refused_with_the_field() {
        for bad in [
            "2026-02-30",
            "2026-13-01",
            "10/03/2026",
            "yesterday",
            "2026-3-1",
        ] {
            let refusal = created_range(Some(bad), None).unwrap_err();
            assert_eq!(refusal.field, DateField::From, "{bad}");
            assert!(refusal.message.contains(bad), "{}", refusal.message);
            assert!(refusal.message.contains("YYYY-MM-DD"));
            assert_eq!(
                created_range(None, Some(bad)).unwrap_err().field,
                DateField::To
            );
        }
        let reversed = created_range(Some("2026-03-11"), Some("2026-03-10")).unwrap_err();
        assert_eq!(reversed.field, DateField::Both);
        assert!(
            reversed.message.contains("is after"),
            "{}",
            reversed.message
        );
    }
}
