//! Timing rules of the client: the exponential backoff between GET attempts and the
//! `Retry-After` gate that holds back every request of the API key after a 429.
//!
//! The gate is per key, not per request, because the spec's rate limit is: after a 429 nothing
//! at all may go upstream before the named time. It lives behind the client's `Arc`, so every
//! clone shares it. It keeps a wall-clock copy of the opening time for the outbox to persist.

use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

use rand::Rng;

/// Exponential backoff with "equal jitter": attempt `n` waits a random time in
/// `[ceiling(n) / 2, ceiling(n)]`, where `ceiling(n) = min(cap, base * 2^n)`. The lower half is
/// fixed so retries really spread out; the random half keeps replicas from retrying in step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backoff {
    pub base: Duration,
    pub cap: Duration,
}

impl Backoff {
    /// The largest wait before retry number `attempt` (0 = the first retry).
    pub fn ceiling(&self, attempt: u32) -> Duration {
        let factor = 1u32.checked_shl(attempt.min(31)).unwrap_or(u32::MAX);
        self.base.saturating_mul(factor).min(self.cap)
    }

    pub fn delay(&self, attempt: u32, rng: &mut impl Rng) -> Duration {
        let ceiling = self.ceiling(attempt);
        let floor = ceiling / 2;
        let spread = u64::try_from((ceiling - floor).as_millis()).unwrap_or(u64::MAX);
        floor + Duration::from_millis(rng.random_range(0..=spread))
    }
}

/// The shared `Retry-After` gate.
#[derive(Debug, Default)]
pub struct RateGate {
    closed_until: Mutex<Option<(Instant, SystemTime)>>,
}

impl RateGate {
    /// Closes the gate for `wait` from now; never shortens an existing closure (two 429s
    /// answered out of order must not reopen the gate early).
    pub fn close_for(&self, wait: Duration) {
        let now = Instant::now();
        let Some(until) = now.checked_add(wait) else {
            return;
        };
        let wall = SystemTime::now()
            .checked_add(wait)
            .unwrap_or_else(SystemTime::now);
        let mut slot = self.lock();
        match *slot {
            Some((existing, _)) if existing >= until => {}
            _ => *slot = Some((until, wall)),
        }
    }

    /// How long until the gate opens; `None` when it is open.
    pub fn remaining(&self) -> Option<Duration> {
        let now = Instant::now();
        let mut slot = self.lock();
        match *slot {
            Some((until, _)) if until > now => Some(until - now),
            Some(_) => {
                *slot = None;
                None
            }
            None => None,
        }
    }

    /// The wall-clock time the gate opens, `None` when open: what the outbox persists.
    pub fn opens_at(&self) -> Option<SystemTime> {
        self.remaining()?;
        self.lock().map(|(_, wall)| wall)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<(Instant, SystemTime)>> {
        // The guarded value is a plain timestamp that is always valid, so a panic elsewhere
        // while holding the lock cannot leave it inconsistent.
        self.closed_until
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    const BACKOFF: Backoff = Backoff {
        base: Duration::from_millis(200),
        cap: Duration::from_secs(5),
    };

    #[test]
    fn ceiling_doubles_then_caps() {
        assert_eq!(BACKOFF.ceiling(0), Duration::from_millis(200));
        assert_eq!(BACKOFF.ceiling(1), Duration::from_millis(400));
        assert_eq!(BACKOFF.ceiling(4), Duration::from_millis(3200));
        assert_eq!(BACKOFF.ceiling(5), Duration::from_secs(5));
        assert_eq!(BACKOFF.ceiling(u32::MAX), Duration::from_secs(5));
    }

    #[test]
    fn jitter_actually_varies() {
        let mut rng = StdRng::seed_from_u64(7);
        let delays: std::collections::HashSet<_> =
            (0..20).map(|_| BACKOFF.delay(6, &mut rng)).collect();
        assert!(delays.len() > 1);
    }

    proptest! {
        #[test]
        fn ceiling_is_monotone_and_capped(a in 0u32..200, b in 0u32..200) {
            let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
            prop_assert!(BACKOFF.ceiling(lo) <= BACKOFF.ceiling(hi));
            prop_assert!(BACKOFF.ceiling(hi) <= BACKOFF.cap);
        }

        #[test]
        fn delay_stays_within_its_jitter_range(attempt in 0u32..100, seed in any::<u64>()) {
            let mut rng = StdRng::seed_from_u64(seed);
            let d = BACKOFF.delay(attempt, &mut rng);
            let ceiling = BACKOFF.ceiling(attempt);
            prop_assert!(d >= ceiling / 2, "{d:?} below half of {ceiling:?}");
            prop_assert!(d <= ceiling, "{d:?} above {ceiling:?}");
        }
    }

    #[test]
    fn gate_is_open_until_closed_and_reopens() {
        let gate = RateGate::default();
        assert_eq!(gate.remaining(), None);
        assert_eq!(gate.opens_at(), None);
        gate.close_for(Duration::from_millis(30));
        assert!(gate.remaining().is_some());
        let opens = gate.opens_at().expect("closed");
        assert!(opens > SystemTime::now());
        std::thread::sleep(Duration::from_millis(40));
        assert_eq!(gate.remaining(), None);
        assert_eq!(gate.opens_at(), None);
    }

    #[test]
    fn gate_is_never_shortened() {
        let gate = RateGate::default();
        gate.close_for(Duration::from_secs(60));
        gate.close_for(Duration::from_secs(1));
        assert!(gate.remaining().expect("closed") > Duration::from_secs(50));
        gate.close_for(Duration::from_secs(120));
        assert!(gate.remaining().expect("closed") > Duration::from_secs(100));
    }
}
