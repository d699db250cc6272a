//! The catalog: synced from upstream into the database, served from an in-memory snapshot.
//!
//! No page view calls upstream. A sync fetches the whole catalog first and replaces the stored
//! one in a single transaction, so a failed or partial sync never replaces a good catalog. The
//! snapshot is rebuilt from the database (not from the fetch), so every replica serves the same
//! catalog whichever one ran the sync; replicas notice another's sync by its row, and another's
//! markup change by the pricing version, and reload: at once on PostgreSQL, where both changes
//! send a `NOTIFY` that wakes the check ([`Catalog::wake`]), and otherwise at the next check.

pub mod choice;
pub mod display_rates;
pub mod named;
pub mod pricing;
pub mod promo_codes;
pub mod region_names;
pub mod search;
pub mod snapshot;
pub mod sync;

use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

pub use choice::Origin;
pub use snapshot::{Destination, Found, PlanKind, ShopPlan, ShopRegion, Snapshot};
pub use sync::{SyncError, SyncReport};
use tokio::sync::watch;

use crate::db::catalog as catalog_store;
use crate::db::{Db, DbError, lease, now_ms};
use crate::upstream::PartnerClient;

const SYNC_LEASE: &str = "catalog_sync";
/// Audit action of the console's "sync now".
pub const CATALOG_SYNC_ACTION: &str = "catalog_sync";
/// Longer than any sync takes; a replica that dies mid-sync frees the lease after this.
const SYNC_LEASE_MS: i64 = 5 * 60 * 1000;
/// After a failed sync, try again this soon rather than after a whole refresh period.
const RETRY_AFTER_FAILURE_MS: i64 = 60 * 1000;
/// How often a replica looks for another replica's sync (and for a due sync of its own).
const TICK: Duration = Duration::from_secs(15);

/// The shared catalog: the current snapshot and how to rebuild it.
pub struct Catalog {
    db: Db,
    default_markup_bps: u32,
    current: RwLock<Arc<Snapshot>>,
    /// Wakes the periodic check early: another replica changed the catalog.
    woken: tokio::sync::Notify,
}

/// What [`Catalog::sync`] did.
#[derive(Debug)]
pub enum SyncOutcome {
    Synced(SyncReport),
    /// Another replica holds the sync lease.
    Skipped,
}

impl Catalog {
    /// An empty catalog; call [`Catalog::reload`] to read what the database holds.
    pub fn new(db: Db, default_markup_bps: u32) -> Self {
        Self {
            db,
            default_markup_bps,
            current: RwLock::new(Arc::new(Snapshot::default())),
            woken: tokio::sync::Notify::new(),
        }
    }

    /// Runs the periodic check now (another replica synced or changed a markup rule); a
    /// wake-up while the check runs is kept for right after it.
    pub fn wake(&self) {
        self.woken.notify_one();
    }

    /// The snapshot to serve this request from.
    pub fn snapshot(&self) -> Arc<Snapshot> {
        match self.current.read() {
            Ok(guard) => Arc::clone(&guard),
            // A writer panicked mid-swap; the Arc inside is still whole.
            Err(poisoned) => Arc::clone(&poisoned.into_inner()),
        }
    }

    /// Rebuilds the snapshot from the database (after a sync, or a pricing change).
    /// The console's "sync now": a sync on an owner's behalf, audited with what it did.
    /// Returns `synced`, `skipped` (another replica holds the lease) or `failed`.
    pub async fn sync_for(
        &self,
        client: &PartnerClient,
        by: &crate::staff::Admin,
        client_addr: &str,
    ) -> Result<&'static str, DbError> {
        let holder = format!("admin:{}:{}", by.user_id, std::process::id());
        let (slug, details) = match self.sync(client, &holder).await {
            Ok(SyncOutcome::Synced(report)) => (
                "synced",
                format!(
                    "synced: {} plans, {} countries, {} regions ({} skipped)",
                    report.plans, report.countries, report.regions, report.skipped_plans
                ),
            ),
            Ok(SyncOutcome::Skipped) => ("skipped", "skipped: another sync holds the lease".into()),
            Err(err) => ("failed", format!("failed: {err}")),
        };
        let (by, client_addr) = (by.clone(), client_addr.to_string());
        self.db
            .run(move |conn| {
                let now = now_ms();
                conn.write_tx(|conn| {
                    by.audit(
                        conn,
                        CATALOG_SYNC_ACTION,
                        Some("catalog"),
                        &client_addr,
                        &details,
                        now,
                    )
                })
            })
            .await?;
        Ok(slug)
    }

    /// The last `limit` catalog syncs, newest first.
    pub async fn sync_history(
        &self,
        limit: i64,
    ) -> Result<Vec<crate::db::catalog::SyncRow>, DbError> {
        self.db
            .run(move |conn| crate::db::catalog::sync_history(conn, limit))
            .await
    }

    /// The database the catalog is stored in.
    pub fn db(&self) -> &Db {
        &self.db
    }

    pub async fn reload(&self) -> Result<Arc<Snapshot>, DbError> {
        let stored = self.db.run(catalog_store::load_catalog).await?;
        let bps = self.default_markup_bps;
        let snapshot = Arc::new(
            tokio::task::spawn_blocking(move || Snapshot::build(&stored, bps))
                .await
                .map_err(|e| DbError::Task(e.to_string()))?,
        );
        match self.current.write() {
            Ok(mut guard) => *guard = Arc::clone(&snapshot),
            Err(poisoned) => *poisoned.into_inner() = Arc::clone(&snapshot),
        }
        Ok(snapshot)
    }

    /// Fetches the whole catalog and replaces the stored one, then reloads the snapshot. Under
    /// a lease, so replicas do not sync at once. A failure is recorded and changes nothing else.
    pub async fn sync(
        &self,
        client: &PartnerClient,
        holder: &str,
    ) -> Result<SyncOutcome, SyncError> {
        let (name, who) = (SYNC_LEASE, holder.to_string());
        let asked_ms = now_ms();
        let acquired = self
            .db
            .run(move |conn| lease::try_acquire(conn, name, &who, asked_ms, SYNC_LEASE_MS))
            .await?;
        if !acquired {
            return Ok(SyncOutcome::Skipped);
        }
        // Timed from the moment the lease is held, so recorded syncs never overlap.
        let started_ms = now_ms();
        let outcome = self.sync_holding_lease(client, started_ms).await;
        let who = holder.to_string();
        if let Err(err) = self
            .db
            .run(move |conn| lease::release(conn, name, &who))
            .await
        {
            tracing::warn!(error = %err, "could not release the catalog sync lease; it expires by itself");
        }
        outcome.map(SyncOutcome::Synced)
    }

    async fn sync_holding_lease(
        &self,
        client: &PartnerClient,
        started_ms: i64,
    ) -> Result<SyncReport, SyncError> {
        let clock = Instant::now();
        match sync::fetch(client, started_ms).await {
            Ok((fetched, skipped_plans)) => {
                let fetch = clock.elapsed();
                let (plans, countries, regions) = (
                    fetched.plans.len(),
                    fetched.countries.len(),
                    fetched.regions.len(),
                );
                self.db
                    .run(move |conn| {
                        catalog_store::replace_catalog(conn, &fetched, started_ms, now_ms())
                    })
                    .await?;
                let store = clock.elapsed() - fetch;
                self.reload().await?;
                let elapsed = clock.elapsed();
                let report = SyncReport {
                    plans,
                    countries,
                    regions,
                    skipped_plans,
                    elapsed,
                    fetch,
                    store,
                    reload: elapsed - fetch - store,
                };
                tracing::info!(
                    catalog.plans = plans,
                    catalog.countries = countries,
                    catalog.regions = regions,
                    catalog.skipped = skipped_plans,
                    elapsed_ms = millis(report.elapsed),
                    fetch_ms = millis(report.fetch),
                    store_ms = millis(report.store),
                    reload_ms = millis(report.reload),
                    "catalog synced"
                );
                Ok(report)
            }
            Err(err) => {
                tracing::warn!(error = %err, "catalog sync failed; the previous catalog stays");
                let message = err.to_string();
                self.db
                    .run(move |conn| {
                        catalog_store::record_sync(conn, started_ms, now_ms(), Err(&message))
                    })
                    .await?;
                // The snapshot shows the failed attempt (admin status); its plans are unchanged.
                self.reload().await?;
                Err(err)
            }
        }
    }

    /// Keeps the catalog fresh until `shutdown` turns true: syncs when a sync is due (at once
    /// on start if the catalog is stale), and reloads when another replica has synced.
    pub async fn run_periodic(
        self: Arc<Self>,
        client: PartnerClient,
        refresh: Duration,
        holder: String,
        mut shutdown: watch::Receiver<bool>,
    ) {
        let refresh_ms = i64::try_from(refresh.as_millis()).unwrap_or(i64::MAX);
        loop {
            if let Err(err) = self.tick(&client, refresh_ms, &holder).await {
                tracing::warn!(error = %err, "catalog maintenance failed; retrying later");
            }
            tokio::select! {
                _ = tokio::time::sleep(TICK.min(refresh)) => {}
                _ = self.woken.notified() => {}
                _ = shutdown.changed() => return,
            }
            if *shutdown.borrow() {
                return;
            }
        }
    }

    async fn tick(
        &self,
        client: &PartnerClient,
        refresh_ms: i64,
        holder: &str,
    ) -> Result<(), SyncError> {
        let latest = self.reload_if_changed().await?;
        let due = match latest {
            None => true,
            Some((_, true, finished)) => now_ms() - finished >= refresh_ms,
            Some((_, false, finished)) => {
                now_ms() - finished >= RETRY_AFTER_FAILURE_MS.min(refresh_ms)
            }
        };
        if due {
            match self.sync(client, holder).await {
                // Recorded and logged where it happened; the next tick tries again.
                Ok(_) | Err(SyncError::Upstream(_) | SyncError::Invalid(_)) => {}
                Err(err) => return Err(err),
            }
        }
        Ok(())
    }

    /// Reloads the snapshot when the database holds another catalog than the one served:
    /// another replica synced, or changed a markup rule. Returns the latest sync's id, whether
    /// it succeeded, and when it finished.
    pub async fn reload_if_changed(&self) -> Result<Option<(i64, bool, i64)>, DbError> {
        let (latest, pricing) = self
            .db
            .run(|conn| {
                let latest = catalog_store::latest_sync_outcome(conn)?;
                Ok::<_, DbError>((latest, crate::db::pricing::version(conn)?))
            })
            .await?;
        let snapshot = self.snapshot();
        let seen = snapshot.last_sync.as_ref().map(|s| s.id);
        if latest.map(|(id, _, _)| id) != seen || pricing != snapshot.pricing_version {
            self.reload().await?;
        }
        Ok(latest)
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
