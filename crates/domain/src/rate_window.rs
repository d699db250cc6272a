//! Fixed-window request counting, the one rule behind every per-client limit: the shop's own
//! limits on checkouts, sign-ins and "lost your link" (`web::rate_limit`), and the sandbox
//! upstream's per-key limit that answers 429 with `Retry-After`.
//!
//! A window opens at a key's first request and lasts `window`; the first `limit` requests in
//! it are allowed, later ones refused until it ends. Idle keys are forgotten once the table
//! grows past [`FixedWindows::FORGET_ABOVE`] keys, so memory stays bounded under a flood of
//! new keys.

use std::collections::HashMap;
use std::hash::Hash;
use std::time::{Duration, Instant};

#[derive(Debug)]
pub struct FixedWindows<K> {
    limit: u32,
    window: Duration,
    keys: HashMap<K, (Instant, u32)>,
}

/// A refused request: the window it fell in ends after `retry_after`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OverLimit {
    pub retry_after: Duration,
}

impl<K: Hash + Eq> FixedWindows<K> {
    /// Above this many keys, a request first drops every key whose window has ended.
    pub const FORGET_ABOVE: usize = 10_000;

    pub fn new(limit: u32, window: Duration) -> Self {
        Self {
            limit,
            window,
            keys: HashMap::new(),
        }
    }

    /// Counts one request of `key` at `now`.
    pub fn hit(&mut self, key: K, now: Instant) -> Result<(), OverLimit> {
        if self.keys.len() > Self::FORGET_ABOVE {
            let window = self.window;
            self.keys
                .retain(|_, (start, _)| now.saturating_duration_since(*start) < window);
        }
        let entry = self.keys.entry(key).or_insert((now, 0));
        if now.saturating_duration_since(entry.0) >= self.window {
            *entry = (now, 0);
        }
        entry.1 = entry.1.saturating_add(1);
        if entry.1 <= self.limit {
            Ok(())
        } else {
            let elapsed = now.saturating_duration_since(entry.0);
            Err(OverLimit {
                retry_after: self.window.saturating_sub(elapsed),
            })
        }
    }

    /// Forgets every key's count (a changed limit starts afresh).
    pub fn clear(&mut self) {
        self.keys.clear();
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allows_the_limit_then_refuses_until_the_window_ends() {
        let start = Instant::now();
        let mut windows = FixedWindows::new(3, Duration::from_secs(60));
        assert!((0..3).all(|_| windows.hit("a", start).is_ok()));
        let later = start + Duration::from_secs(20);
        assert_eq!(
            windows.hit("a", later),
            Err(OverLimit {
                retry_after: Duration::from_secs(40)
            })
        );
        assert!(windows.hit("b", later).is_ok(), "limits are per key");
        assert!(windows.hit("a", start + Duration::from_secs(60)).is_ok());
    }

    #[test]
    fn a_flood_of_new_keys_forgets_the_idle_ones() {
        let start = Instant::now();
        let mut windows = FixedWindows::new(1, Duration::from_secs(1));
        for key in 0..=FixedWindows::<u32>::FORGET_ABOVE {
            assert!(windows.hit(key as u32, start).is_ok());
        }
        let later = start + Duration::from_secs(2);
        assert!(windows.hit(u32::MAX, later).is_ok());
        assert_eq!(windows.len(), 1, "only the live window is kept");
    }
}
