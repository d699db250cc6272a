//! How many paid purchases of this process may wait for their upstream order at once.
//!
//! A payment confirmation is cheap next to what follows it (the placement, the emails, the
//! installation), so a burst of confirmations, left alone, commits hundreds of payments before
//! the workers place the first orders, and every purchase of the burst waits for the whole
//! burst. The shop finishes what it was paid for first: a confirmation that finds
//! [`PER_WORKER`] × workers purchases of this process paid and not yet placed waits until one
//! of them is placed, then goes on. Nothing is refused and nothing waits for long:
//!
//! - a confirmation waits at most [`MOST_WAIT`], and goes on at once when no placement has
//!   finished for [`STALL`] (upstream slow or down: waiting would only delay the payment
//!   without placing anything sooner);
//! - a purchase whose placement this process does not run (another replica took the job)
//!   gives its place back after [`FORGET_AFTER`];
//! - without workers (the CLI, tests that run jobs one at a time) nothing waits.
//!
//! The wait happens before the confirmation's transaction, holding no connection; the
//! confirmation is recorded as before, only later.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use crate::domain::PurchaseId;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

/// Purchases waiting for their placement, per placement worker, before confirmations wait.
pub const PER_WORKER: usize = 2;
/// A confirmation goes on when no placement has finished for this long.
pub const STALL: Duration = Duration::from_millis(200);
/// The longest a confirmation waits.
pub const MOST_WAIT: Duration = Duration::from_secs(2);
/// A purchase not placed by this process within this long gives its place back.
pub const FORGET_AFTER: Duration = Duration::from_secs(10);

/// The bound and the purchases holding a place in it. Cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct PlacementBacklog(Arc<Inner>);

#[derive(Debug, Default)]
struct Inner {
    /// Set when this process starts its placement workers.
    places: OnceLock<Arc<Semaphore>>,
    held: Mutex<Held>,
    timing: Timing,
}

/// [`STALL`], [`MOST_WAIT`] and [`FORGET_AFTER`]; shorter in tests.
#[derive(Debug, Clone, Copy)]
struct Timing {
    stall: Duration,
    most_wait: Duration,
    forget_after: Duration,
}

impl Default for Timing {
    fn default() -> Self {
        Self {
            stall: STALL,
            most_wait: MOST_WAIT,
            forget_after: FORGET_AFTER,
        }
    }
}

#[derive(Debug, Default)]
struct Held {
    by_purchase: HashMap<PurchaseId, (Instant, OwnedSemaphorePermit)>,
    /// Placements that ended before their confirmation took its place (a worker can claim
    /// the job between the confirmation's commit and [`Admitted::hold`]), or for purchases
    /// this process never held (paid through another replica, retries).
    placed_unheld: HashMap<PurchaseId, Instant>,
    last_placed: Option<Instant>,
}

/// Placements remembered in `placed_unheld` before the old ones are dropped.
const UNHELD_KEPT: usize = 1024;

/// A place taken by a confirmation; give it to [`Admitted::hold`] once the purchase is paid.
/// Dropped unheld (the event was a duplicate, or not a payment), the place is free again.
#[derive(Debug)]
pub struct Admitted {
    permit: Option<OwnedSemaphorePermit>,
    backlog: PlacementBacklog,
}

impl PlacementBacklog {
    /// Bounds the backlog for `workers` placement workers. The first call wins.
    pub fn limit_for(&self, workers: usize) {
        let places = workers.max(1).saturating_mul(PER_WORKER);
        let _ = self.0.places.set(Arc::new(Semaphore::new(places)));
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Held> {
        self.0.held.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Takes a place for a confirmation about to be applied, waiting as the module says.
    pub async fn admit(&self) -> Admitted {
        let Some(places) = self.0.places.get() else {
            return self.admitted(None);
        };
        if let Ok(permit) = Arc::clone(places).try_acquire_owned() {
            return self.admitted(Some(permit));
        }
        let Timing {
            stall, most_wait, ..
        } = self.0.timing;
        let started = Instant::now();
        loop {
            self.forget_stale();
            let waited = started.elapsed();
            // Time since a placement last finished, counted from this confirmation's arrival.
            let since_placed = {
                let held = self.lock();
                held.last_placed
                    .map_or(waited, |at| at.elapsed().min(waited))
            };
            if waited >= most_wait || since_placed >= stall {
                return self.admitted(None);
            }
            let patience = (stall - since_placed).min(most_wait - waited);
            let acquire = Arc::clone(places).acquire_owned();
            match tokio::time::timeout(patience, acquire).await {
                Ok(Ok(permit)) => return self.admitted(Some(permit)),
                Ok(Err(_closed)) => return self.admitted(None),
                Err(_timed_out) => {}
            }
        }
    }

    fn admitted(&self, permit: Option<OwnedSemaphorePermit>) -> Admitted {
        Admitted {
            permit,
            backlog: self.clone(),
        }
    }

    /// The placement of `purchase_id` ended (placed, refused or to be retried later): its
    /// place, if it held one, is free.
    pub fn placed(&self, purchase_id: &PurchaseId) {
        let now = Instant::now();
        let forget_after = self.0.timing.forget_after;
        let mut held = self.lock();
        held.last_placed = Some(now);
        if held.by_purchase.remove(purchase_id).is_none() {
            if held.placed_unheld.len() >= UNHELD_KEPT {
                held.placed_unheld
                    .retain(|_, at| now.duration_since(*at) < forget_after);
                if held.placed_unheld.len() >= UNHELD_KEPT {
                    held.placed_unheld.clear();
                }
            }
            held.placed_unheld.insert(purchase_id.clone(), now);
        }
    }

    /// Frees the places of purchases held longer than [`FORGET_AFTER`].
    fn forget_stale(&self) {
        let forget_after = self.0.timing.forget_after;
        let mut held = self.lock();
        held.by_purchase
            .retain(|_, (since, _)| since.elapsed() < forget_after);
        held.placed_unheld
            .retain(|_, at| at.elapsed() < forget_after);
    }

    /// Purchases holding a place now.
    #[cfg(test)]
    fn waiting(&self) -> usize {
        self.lock().by_purchase.len()
    }
}

impl Admitted {
    /// `purchase_id` was paid: it keeps the place until its placement ends.
    pub fn hold(self, purchase_id: &PurchaseId) {
        self.hold_units(std::slice::from_ref(purchase_id));
    }

    /// The units of one checkout were paid: each waits for a placement of its own, so each
    /// takes a place. The first takes the place this confirmation waited for; the others
    /// take places still free, without waiting (the payment is already recorded), and the
    /// confirmations after them wait until enough units are placed.
    pub fn hold_units(mut self, units: &[PurchaseId]) {
        let Some(first) = self.permit.take() else {
            return;
        };
        let places = self.backlog.0.places.get().cloned();
        let mut held = self.backlog.lock();
        let mut permit = Some(first);
        for unit in units {
            let Some(place) = permit
                .take()
                .or_else(|| places.as_ref()?.clone().try_acquire_owned().ok())
            else {
                break;
            };
            // Already placed: the place is free again as `place` drops.
            if held.placed_unheld.remove(unit).is_none() {
                held.by_purchase
                    .insert(unit.clone(), (Instant::now(), place));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pid(raw: &str) -> PurchaseId {
        PurchaseId::parse(raw).expect("a purchase id")
    }

    const STALL: Duration = Duration::from_millis(300);
    const MOST_WAIT: Duration = Duration::from_millis(1200);
    const FORGET_AFTER: Duration = Duration::from_millis(1500);

    /// A backlog for one worker, on the short timing above.
    fn backlog_for_one_worker() -> PlacementBacklog {
        let backlog = PlacementBacklog(Arc::new(Inner {
            timing: Timing {
                stall: STALL,
                most_wait: MOST_WAIT,
                forget_after: FORGET_AFTER,
            },
            ..Inner::default()
        }));
        backlog.limit_for(1);
        backlog
    }

    #[tokio::test]
    async fn each_unit_of_a_paid_checkout_takes_a_place() {
        let backlog = backlog_for_one_worker();
        let units: Vec<PurchaseId> = ["c1", "c1-2", "c1-3"].map(pid).to_vec();
        backlog.admit().await.hold_units(&units);
        // One worker has PER_WORKER places: the checkout fills them, one unit each.
        assert_eq!(backlog.waiting(), PER_WORKER);
        let next = tokio::spawn({
            let backlog = backlog.clone();
            async move {
                let started = Instant::now();
                backlog.admit().await.hold(&pid("next"));
                started.elapsed()
            }
        });
        tokio::time::sleep(STALL / 3).await;
        backlog.placed(&pid("c1-2"));
        let waited = next.await.expect("joins");
        assert!(waited >= STALL / 3, "went on at once: {waited:?}");
        assert!(waited < STALL, "waited for the stall instead: {waited:?}");
        assert_eq!(backlog.waiting(), PER_WORKER);
    }

    #[tokio::test]
    async fn without_workers_nothing_waits() {
        let backlog = PlacementBacklog::default();
        for n in 0..100 {
            backlog.admit().await.hold(&pid(&format!("p{n}")));
        }
        assert_eq!(backlog.waiting(), 0);
    }

    #[tokio::test]
    async fn a_full_backlog_holds_a_confirmation_until_a_purchase_is_placed() {
        let backlog = backlog_for_one_worker();
        for n in 0..PER_WORKER {
            backlog.admit().await.hold(&pid(&format!("p{n}")));
        }
        assert_eq!(backlog.waiting(), PER_WORKER);
        let waiting = tokio::spawn({
            let backlog = backlog.clone();
            async move {
                let started = Instant::now();
                backlog.admit().await.hold(&pid("late"));
                started.elapsed()
            }
        });
        // Placements keep finishing, so the confirmation keeps waiting for its place.
        for _ in 0..3 {
            tokio::time::sleep(STALL / 6).await;
            backlog.placed(&pid("somebody-elses"));
            assert!(!waiting.is_finished());
        }
        backlog.placed(&pid("p0"));
        let waited = waiting.await.expect("confirmation");
        assert!(waited >= STALL / 2, "{waited:?}");
        assert!(backlog.lock().by_purchase.contains_key(&pid("late")));
        assert_eq!(backlog.waiting(), PER_WORKER);
    }

    #[tokio::test]
    async fn a_confirmation_goes_on_when_placements_stall() {
        let backlog = backlog_for_one_worker();
        for n in 0..PER_WORKER {
            backlog.admit().await.hold(&pid(&format!("p{n}")));
        }
        let started = Instant::now();
        backlog.admit().await.hold(&pid("unbounded"));
        let waited = started.elapsed();
        assert!(waited >= STALL && waited < MOST_WAIT, "{waited:?}");
        // It went on without a place: the backlog still holds only the first ones.
        assert_eq!(backlog.waiting(), PER_WORKER);
    }

    #[tokio::test]
    async fn no_confirmation_waits_longer_than_most_wait() {
        let backlog = backlog_for_one_worker();
        for n in 0..PER_WORKER {
            backlog.admit().await.hold(&pid(&format!("p{n}")));
        }
        let waiting = tokio::spawn({
            let backlog = backlog.clone();
            async move {
                let started = Instant::now();
                backlog.admit().await;
                started.elapsed()
            }
        });
        // Placements of other purchases finish all the time; none frees a place.
        while !waiting.is_finished() {
            tokio::time::sleep(STALL / 4).await;
            backlog.placed(&pid("another-replicas"));
        }
        let waited = waiting.await.expect("confirmation");
        assert!(
            waited >= MOST_WAIT && waited < MOST_WAIT + STALL,
            "{waited:?}"
        );
    }

    #[tokio::test]
    async fn a_purchase_placed_before_its_confirmation_held_a_place_frees_it() {
        let backlog = backlog_for_one_worker();
        let admitted = backlog.admit().await;
        // The worker claimed the job right after the commit and placed it at once.
        backlog.placed(&pid("quick"));
        admitted.hold(&pid("quick"));
        assert_eq!(backlog.waiting(), 0);
        assert!(backlog.lock().placed_unheld.is_empty());
    }

    #[tokio::test]
    async fn a_place_unheld_or_held_too_long_is_given_back() {
        let backlog = backlog_for_one_worker();
        // A duplicate event: admitted, never held.
        drop(backlog.admit().await);
        for n in 0..PER_WORKER {
            backlog.admit().await.hold(&pid(&format!("p{n}")));
        }
        // Another replica places these: this process never hears of them.
        tokio::time::sleep(FORGET_AFTER).await;
        let started = Instant::now();
        backlog.admit().await.hold(&pid("next"));
        assert!(started.elapsed() < STALL);
        assert_eq!(backlog.waiting(), 1);
    }
}
