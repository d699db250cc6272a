//! The catalog: synced from upstream into the database, served from an in-memory snapshot.
//!
//! No page view calls upstream. A sync fetches the whole catalog first and replaces the stored
//! one in a single transaction, so a failed or partial sync never replaces a good catalog. The
//! snapshot is rebuilt from the database (not from the fetch), so every replica serves the same
//! catalog whichever one ran the sync.

pub mod snapshot;
pub mod store;

use std::sync::{Arc, RwLock};

pub use snapshot::{Destination, PlanKind, ShopPlan, ShopRegion, Snapshot};

use crate::db::{Db, DbError};

/// The shared catalog: the current snapshot and how to rebuild it.
pub struct Catalog {
    db: Db,
    default_markup_bps: u32,
    current: RwLock<Arc<Snapshot>>,
}

impl Catalog {
    /// An empty catalog; call [`Catalog::reload`] to read what the database holds.
    pub fn new(db: Db, default_markup_bps: u32) -> Self {
        Self {
            db,
            default_markup_bps,
            current: RwLock::new(Arc::new(Snapshot::default())),
        }
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
    pub async fn reload(&self) -> Result<Arc<Snapshot>, DbError> {
        let stored = self.db.run(store::load_catalog).await?;
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
}
