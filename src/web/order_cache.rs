//! What the order page derives from a stored installation, kept briefly in memory.
//!
//! Opening a sealed installation (hex decoding, ChaCha20-Poly1305, JSON) and deriving what the
//! page shows from it (the activation code's parts, the install link) is the same work on
//! every view of a fulfilled order, and buyers reload that page. The first view does it and
//! keeps the result here, keyed by purchase id; later views within [`TTL`] take it from here
//! and skip the installation row entirely.
//!
//! The entries are the buyer's credentials in plaintext, so the cache is small and short-lived:
//! at most [`MAX_ENTRIES`] purchases, each dropped [`TTL`] after it was derived (whether or not
//! it was used since), by the next lookup or by [`InstallCache::sweep`], which the app runs
//! every [`TTL`], so no entry outlives twice the TTL even on an idle shop. Only a request that
//! already proved its order token reaches the cache. Nothing here is logged and `Debug` shows
//! only counts.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::web::orders::InstallView;

/// Purchases kept at most.
pub const MAX_ENTRIES: usize = 256;
/// How long a derived installation is kept after it was derived.
pub const TTL: Duration = Duration::from_secs(60);

#[derive(Default)]
pub struct InstallCache {
    inner: Mutex<Entries>,
}

#[derive(Default)]
struct Entries {
    by_purchase: HashMap<String, Entry>,
    /// Purchase ids in the order they were derived: the oldest, first to expire, in front.
    /// A slot whose `seq` is no longer its purchase's entry (replaced since) is skipped.
    order: VecDeque<Slot>,
    next_seq: u64,
}

struct Entry {
    seq: u64,
    view: Arc<InstallView>,
}

struct Slot {
    seq: u64,
    at: Instant,
    purchase_id: String,
}

impl Entries {
    /// Drops what has expired at `now`, oldest first.
    fn expire(&mut self, now: Instant) {
        while self
            .order
            .front()
            .is_some_and(|slot| now.duration_since(slot.at) >= TTL)
        {
            self.pop_oldest();
        }
    }

    /// Drops the oldest slot and its entry, unless a later insert replaced that entry.
    fn pop_oldest(&mut self) -> bool {
        let Some(slot) = self.order.pop_front() else {
            return false;
        };
        if self.is_current(&slot) {
            self.by_purchase.remove(&slot.purchase_id);
        }
        true
    }

    fn is_current(&self, slot: &Slot) -> bool {
        self.by_purchase
            .get(&slot.purchase_id)
            .is_some_and(|entry| entry.seq == slot.seq)
    }
}

impl InstallCache {
    /// The view of `purchase_id` derived less than [`TTL`] ago, if any.
    pub fn get(&self, purchase_id: &str) -> Option<Arc<InstallView>> {
        self.get_at(purchase_id, Instant::now())
    }

    fn get_at(&self, purchase_id: &str, now: Instant) -> Option<Arc<InstallView>> {
        let mut entries = self.lock();
        entries.expire(now);
        entries
            .by_purchase
            .get(purchase_id)
            .map(|entry| Arc::clone(&entry.view))
    }

    /// Keeps `view` for `purchase_id`; past [`MAX_ENTRIES`], the oldest entry makes room.
    pub fn insert(&self, purchase_id: &str, view: Arc<InstallView>) {
        self.insert_at(purchase_id, view, Instant::now());
    }

    fn insert_at(&self, purchase_id: &str, view: Arc<InstallView>, now: Instant) {
        let mut entries = self.lock();
        entries.expire(now);
        while entries.by_purchase.len() >= MAX_ENTRIES
            && !entries.by_purchase.contains_key(purchase_id)
            && entries.pop_oldest()
        {}
        let seq = entries.next_seq;
        entries.next_seq += 1;
        entries
            .by_purchase
            .insert(purchase_id.to_string(), Entry { seq, view });
        entries.order.push_back(Slot {
            seq,
            at: now,
            purchase_id: purchase_id.to_string(),
        });
        // Replaced entries leave stale slots behind; keep the queue from growing past a bound.
        if entries.order.len() > 2 * MAX_ENTRIES {
            let Entries {
                by_purchase, order, ..
            } = &mut *entries;
            order.retain(|slot| {
                by_purchase
                    .get(&slot.purchase_id)
                    .is_some_and(|entry| entry.seq == slot.seq)
            });
        }
    }

    /// Drops every expired entry now (run periodically, so an idle shop forgets them too).
    pub fn sweep(&self) {
        self.lock().expire(Instant::now());
    }

    /// How many purchases are kept now.
    pub fn len(&self) -> usize {
        self.lock().by_purchase.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Entries> {
        // A panic while holding the lock leaves maps that are still whole.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl fmt::Debug for InstallCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InstallCache")
            .field("entries", &self.len())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(code: &str) -> Arc<InstallView> {
        Arc::new(InstallView {
            qr_svg: String::new(),
            activation_code: code.to_string(),
            smdp_address: String::new(),
            matching_id: String::new(),
            install_link: None,
            activation: "",
        })
    }

    #[test]
    fn an_entry_is_served_until_its_ttl_and_then_forgotten() {
        let cache = InstallCache::default();
        let t0 = Instant::now();
        cache.insert_at("pur_1", view("LPA:1$a$b"), t0);
        let hit = cache
            .get_at("pur_1", t0 + TTL - Duration::from_millis(1))
            .expect("kept");
        assert_eq!(hit.activation_code, "LPA:1$a$b");
        assert!(cache.get_at("pur_2", t0).is_none());
        assert!(cache.get_at("pur_1", t0 + TTL).is_none());
        assert!(
            cache.is_empty(),
            "the plaintext is dropped, not only hidden"
        );
    }

    #[test]
    fn the_cache_never_holds_more_than_its_bound() {
        let cache = InstallCache::default();
        let t0 = Instant::now();
        for i in 0..MAX_ENTRIES + 20 {
            cache.insert_at(&format!("pur_{i}"), view("x"), t0);
        }
        assert_eq!(cache.len(), MAX_ENTRIES);
        // The oldest made room for the newest.
        assert!(cache.get_at("pur_0", t0).is_none());
        assert!(
            cache
                .get_at(&format!("pur_{}", MAX_ENTRIES + 19), t0)
                .is_some()
        );
        // Re-deriving one purchase many times neither grows the map nor the queue unboundedly.
        for _ in 0..4 * MAX_ENTRIES {
            cache.insert_at("pur_again", view("y"), t0);
        }
        assert_eq!(cache.len(), MAX_ENTRIES);
        assert!(cache.lock().order.len() <= 2 * MAX_ENTRIES + 1);
        assert_eq!(format!("{cache:?}"), "InstallCache { entries: 256, .. }");
    }
}
