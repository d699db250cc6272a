//! A per-client-address limit on expensive or abusable requests (checkout; logins are
//! throttled in the database instead, see `accounts`). It lives in each process: with several
//! replicas a client gets the limit once per replica, which still bounds abuse; it needs no
//! shared store and forgets idle clients.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

pub struct RateLimiter {
    limit: u32,
    window: Duration,
    clients: Mutex<HashMap<IpAddr, (Instant, u32)>>,
}

impl RateLimiter {
    pub fn new(limit: u32, window: Duration) -> Self {
        Self {
            limit,
            window,
            clients: Mutex::new(HashMap::new()),
        }
    }

    /// Counts one request from `client`; false when it is over the limit for this window.
    pub fn allow(&self, client: IpAddr) -> bool {
        let now = Instant::now();
        let Ok(mut clients) = self.clients.lock() else {
            return true;
        };
        if clients.len() > 10_000 {
            let window = self.window;
            clients.retain(|_, (start, _)| now.duration_since(*start) < window);
        }
        let entry = clients.entry(client).or_insert((now, 0));
        if now.duration_since(entry.0) >= self.window {
            *entry = (now, 0);
        }
        entry.1 += 1;
        entry.1 <= self.limit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allows_the_limit_then_refuses_until_the_window_passes() {
        let limiter = RateLimiter::new(3, Duration::from_millis(50));
        let a: IpAddr = "10.0.0.1".parse().expect("ip");
        let b: IpAddr = "10.0.0.2".parse().expect("ip");
        assert!((0..3).all(|_| limiter.allow(a)));
        assert!(!limiter.allow(a));
        assert!(limiter.allow(b), "limits are per client");
        std::thread::sleep(Duration::from_millis(60));
        assert!(limiter.allow(a));
    }
}
