//! What the order page keeps briefly in memory: the views derived from stored installations,
//! and the rendered pages of orders that have reached their end.
//!
//! Opening a sealed installation (hex decoding, ChaCha20-Poly1305, JSON) and deriving what the
//! page shows from it (the activation code's parts, the install link) is the same work on
//! every view of a fulfilled order, and buyers reload that page. The first view does it and
//! keeps the result in an [`InstallCache`], keyed by purchase id; later views within
//! [`INSTALL_TTL`] take it from there and skip the installation row entirely.
//!
//! An order that has reached its end (fulfilled, refunded, failed, payment failed) changes
//! rarely, so its whole rendered page is kept for [`PAGE_TTL`] in a [`PageCache`], with the
//! hash of the link token that opened it and the link's expiry: a view within that time with
//! the same token answers from memory, without a trip to the database. A console action on the
//! order drops its page at once in this process; any other change (another replica's action,
//! a refund confirmed by the payment provider) shows within [`PAGE_TTL`].
//!
//! The entries hold the buyer's credentials in plaintext, so both caches are small and
//! short-lived: at most [`MAX_ENTRIES`] purchases each, every entry dropped its TTL after it
//! was made (whether or not it was used since), by the next lookup or by `sweep`, which the
//! app runs periodically, so no entry outlives twice its TTL even on an idle shop. Only a
//! request that already proved its order token reaches the installation cache; a page is
//! served only to the token whose hash it was stored with. Nothing here is logged and `Debug`
//! shows only counts.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actix_web::web::Bytes;

use crate::domain::PurchaseId;
use crate::domain::esim::Device;
use crate::i18n::Lang;
use crate::orders::installation::InstallView;

/// Purchases kept at most, per cache.
pub const MAX_ENTRIES: usize = 256;
/// How long a derived installation is kept after it was derived.
pub const INSTALL_TTL: Duration = Duration::from_secs(60);
/// How long the rendered page of an ended order is kept after it was rendered.
pub const PAGE_TTL: Duration = Duration::from_secs(2);

/// Installation views by purchase id, for [`INSTALL_TTL`].
pub type InstallCache = TimedCache<Arc<InstallView>>;
/// Rendered pages of ended orders by purchase id, for [`PAGE_TTL`].
pub type PageCache = TimedCache<Arc<RenderedOrder>>;

/// An ended order's page as sent, and what a later view must match to be sent it.
pub struct RenderedOrder {
    /// SHA-256 of the link token that opened the page.
    pub token_hash: [u8; 32],
    /// The language it was rendered in.
    pub lang: Lang,
    /// The kind of device it was laid out for.
    pub device: Device,
    /// When the order's links stop opening it (ms since the epoch), if they expire.
    pub link_expires_at_ms: Option<i64>,
    pub body: Bytes,
}

impl RenderedOrder {
    /// Whether this page may be sent to the holder of `token_hash` asking for `lang` from
    /// `device` at `now_ms`.
    pub fn opens_for(
        &self,
        token_hash: &[u8; 32],
        lang: Lang,
        device: Device,
        now_ms: i64,
    ) -> bool {
        self.lang == lang
            && self.device == device
            && constant_time_eq(&self.token_hash, token_hash)
            && self.link_expires_at_ms.is_none_or(|at| now_ms < at)
    }
}

fn constant_time_eq(a: &[u8; 32], b: &[u8; 32]) -> bool {
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// A map of purchase id to value, each entry kept for the cache's TTL, at most
/// [`MAX_ENTRIES`] of them.
pub struct TimedCache<V> {
    ttl: Duration,
    inner: Mutex<Entries<V>>,
}

struct Entries<V> {
    by_purchase: HashMap<PurchaseId, Entry<V>>,
    /// Purchase ids in the order they were derived: the oldest, first to expire, in front.
    /// A slot whose `seq` is no longer its purchase's entry (replaced since) is skipped.
    order: VecDeque<Slot>,
    next_seq: u64,
}

struct Entry<V> {
    seq: u64,
    value: V,
}

struct Slot {
    seq: u64,
    at: Instant,
    purchase_id: PurchaseId,
}

impl<V> Default for Entries<V> {
    fn default() -> Self {
        Self {
            by_purchase: HashMap::new(),
            order: VecDeque::new(),
            next_seq: 0,
        }
    }
}

impl<V> Entries<V> {
    /// Drops what has expired at `now` under `ttl`, oldest first.
    fn expire(&mut self, now: Instant, ttl: Duration) {
        while self
            .order
            .front()
            .is_some_and(|slot| now.duration_since(slot.at) >= ttl)
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
    pub fn for_installs() -> Self {
        Self::new(INSTALL_TTL)
    }
}

impl PageCache {
    pub fn for_pages() -> Self {
        Self::new(PAGE_TTL)
    }
}

impl<V: Clone> TimedCache<V> {
    pub fn new(ttl: Duration) -> Self {
        Self {
            ttl,
            inner: Mutex::new(Entries::default()),
        }
    }

    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// The value kept for `purchase_id` less than the TTL ago, if any.
    pub fn get(&self, purchase_id: &PurchaseId) -> Option<V> {
        self.get_at(purchase_id, Instant::now())
    }

    fn get_at(&self, purchase_id: &PurchaseId, now: Instant) -> Option<V> {
        let mut entries = self.lock();
        entries.expire(now, self.ttl);
        entries
            .by_purchase
            .get(purchase_id)
            .map(|entry| entry.value.clone())
    }

    /// Keeps `value` for `purchase_id`; past [`MAX_ENTRIES`], the oldest entry makes room.
    pub fn insert(&self, purchase_id: &PurchaseId, value: V) {
        self.insert_at(purchase_id, value, Instant::now());
    }

    /// Drops what is kept for `purchase_id` (it changed).
    pub fn forget(&self, purchase_id: &PurchaseId) {
        self.lock().by_purchase.remove(purchase_id);
    }

    fn insert_at(&self, purchase_id: &PurchaseId, value: V, now: Instant) {
        let mut entries = self.lock();
        entries.expire(now, self.ttl);
        while entries.by_purchase.len() >= MAX_ENTRIES
            && !entries.by_purchase.contains_key(purchase_id)
            && entries.pop_oldest()
        {}
        let seq = entries.next_seq;
        entries.next_seq += 1;
        entries
            .by_purchase
            .insert(purchase_id.clone(), Entry { seq, value });
        entries.order.push_back(Slot {
            seq,
            at: now,
            purchase_id: purchase_id.clone(),
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
        self.lock().expire(Instant::now(), self.ttl);
    }

    /// How many purchases are kept now.
    pub fn len(&self) -> usize {
        self.lock().by_purchase.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Entries<V>> {
        // A panic while holding the lock leaves maps that are still whole.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl<V: Clone> fmt::Debug for TimedCache<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TimedCache")
            .field("ttl", &self.ttl)
            .field("entries", &self.len())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(raw: &str) -> PurchaseId {
        PurchaseId::parse(raw).expect("a purchase id")
    }

    fn view(code: &str) -> Arc<InstallView> {
        Arc::new(InstallView {
            qr_svg: None,
            activation_code: code.to_string(),
            smdp_address: String::new(),
            matching_id: String::new(),
            install_link: None,
            activation: "",
        })
    }

    #[test]
    fn an_entry_is_served_until_its_ttl_and_then_forgotten() {
        let cache = InstallCache::for_installs();
        let t0 = Instant::now();
        cache.insert_at(&id("pur_1"), view("LPA:1$a$b"), t0);
        let hit = cache
            .get_at(&id("pur_1"), t0 + INSTALL_TTL - Duration::from_millis(1))
            .expect("kept");
        assert_eq!(hit.activation_code, "LPA:1$a$b");
        assert!(cache.get_at(&id("pur_2"), t0).is_none());
        assert!(cache.get_at(&id("pur_1"), t0 + INSTALL_TTL).is_none());
        assert!(
            cache.is_empty(),
            "the plaintext is dropped, not only hidden"
        );
    }

    #[test]
    fn the_cache_never_holds_more_than_its_bound() {
        let cache = InstallCache::for_installs();
        let t0 = Instant::now();
        for i in 0..MAX_ENTRIES + 20 {
            cache.insert_at(&id(&format!("pur_{i}")), view("x"), t0);
        }
        assert_eq!(cache.len(), MAX_ENTRIES);
        // The oldest made room for the newest.
        assert!(cache.get_at(&id("pur_0"), t0).is_none());
        assert!(
            cache
                .get_at(&id(&format!("pur_{}", MAX_ENTRIES + 19)), t0)
                .is_some()
        );
        // Re-deriving one purchase many times neither grows the map nor the queue unboundedly.
        for _ in 0..4 * MAX_ENTRIES {
            cache.insert_at(&id("pur_again"), view("y"), t0);
        }
        assert_eq!(cache.len(), MAX_ENTRIES);
        assert!(cache.lock().order.len() <= 2 * MAX_ENTRIES + 1);
        assert_eq!(
            format!("{cache:?}"),
            "TimedCache { ttl: 60s, entries: 256, .. }"
        );
    }

    fn page(token: &str, expires: Option<i64>) -> Arc<RenderedOrder> {
        Arc::new(RenderedOrder {
            token_hash: crate::orders::links::token_digest(token),
            lang: Lang::En,
            device: Device::Apple,
            link_expires_at_ms: expires,
            body: Bytes::from_static(b"<p>LPA:1$a$b</p>"),
        })
    }

    #[test]
    fn a_page_is_sent_only_to_its_token_in_its_language_and_layout_until_its_link_expires() {
        let kept = page("tok-a", Some(1_000));
        let a = crate::orders::links::token_digest("tok-a");
        let b = crate::orders::links::token_digest("tok-b");
        assert!(kept.opens_for(&a, Lang::En, Device::Apple, 999));
        assert!(
            !kept.opens_for(&b, Lang::En, Device::Apple, 999),
            "another token reads the database"
        );
        assert!(
            !kept.opens_for(&a, Lang::De, Device::Apple, 999),
            "another language is rendered afresh"
        );
        assert!(
            !kept.opens_for(&a, Lang::En, Device::Android, 999),
            "another kind of device gets its own layout"
        );
        assert!(
            !kept.opens_for(&a, Lang::En, Device::Apple, 1_000),
            "an expired link is refused"
        );
        assert!(page("tok-a", None).opens_for(&a, Lang::En, Device::Apple, i64::MAX));
    }

    #[test]
    fn a_page_lives_its_short_ttl_and_is_forgotten_on_change() {
        let cache = PageCache::for_pages();
        let t0 = Instant::now();
        cache.insert_at(&id("pur_1"), page("t", None), t0);
        assert!(cache.get_at(&id("pur_1"), t0 + PAGE_TTL / 2).is_some());
        assert!(cache.get_at(&id("pur_1"), t0 + PAGE_TTL).is_none());
        cache.insert_at(&id("pur_1"), page("t", None), t0);
        cache.forget(&id("pur_1"));
        assert!(cache.get_at(&id("pur_1"), t0).is_none());
        assert!(cache.is_empty());
    }
}
