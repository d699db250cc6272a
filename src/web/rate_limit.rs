//! A per-client limit on expensive or abusable requests (checkout, "lost your link", console
//! sign-in forms). Sign-ins are also throttled per account in the database (`staff`); this
//! limit comes first, so a flood of them never reaches the database's write lock. Clients are counted by [`ClientKey`]: an IPv4
//! address, or an IPv6 /64.
//!
//! It lives in each process: with several replicas a client gets the limit once per replica.
//! That makes it a first line only, against request floods; what must hold across replicas
//! (how much wallet credit one client's unpaid checkouts may hold) is counted in the database
//! by the checkout itself. It needs no shared store and forgets idle clients.

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::domain::ClientKey;
use crate::domain::rate_window::FixedWindows;

pub struct RateLimiter {
    clients: Mutex<FixedWindows<ClientKey>>,
}

impl RateLimiter {
    pub fn new(limit: u32, window: Duration) -> Self {
        Self {
            clients: Mutex::new(FixedWindows::new(limit, window)),
        }
    }

    /// Counts one request from `client`; false when it is over the limit for this window.
    /// A lock poisoned by a panic elsewhere still counts: the limit never fails open.
    pub fn allow(&self, client: ClientKey) -> bool {
        let mut clients = self.clients.lock().unwrap_or_else(PoisonError::into_inner);
        clients.hit(client, Instant::now()).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use std::net::IpAddr;

    use super::*;

    fn key(s: &str) -> ClientKey {
        ClientKey::of(s.parse::<IpAddr>().expect("ip"))
    }

    #[test]
    fn allows_the_limit_then_refuses_until_the_window_passes() {
        let limiter = RateLimiter::new(3, Duration::from_millis(50));
        let (a, b) = (key("10.0.0.1"), key("10.0.0.2"));
        assert!((0..3).all(|_| limiter.allow(a)));
        assert!(!limiter.allow(a));
        assert!(limiter.allow(b), "limits are per client");
        std::thread::sleep(Duration::from_millis(60));
        assert!(limiter.allow(a));
    }

    #[test]
    fn one_ipv6_64_shares_one_budget() {
        let limiter = RateLimiter::new(2, Duration::from_secs(60));
        assert!(limiter.allow(key("2001:db8:1:2::1")));
        assert!(limiter.allow(key("2001:db8:1:2::2")));
        assert!(
            !limiter.allow(key("2001:db8:1:2:dead:beef:0:3")),
            "a fresh address in the same /64 is the same client"
        );
        assert!(
            limiter.allow(key("2001:db8:1:3::1")),
            "the next /64 is another"
        );
        assert!(limiter.allow(key("::ffff:10.9.9.9")));
        assert!(limiter.allow(key("10.9.9.9")));
        assert!(
            !limiter.allow(key("10.9.9.9")),
            "a mapped address is its IPv4 address"
        );
    }
}
