//! Admin session tokens. The browser holds 256 random bits; the database holds only their
//! SHA-256, so a leaked database (or backup) does not hand out live sessions.

use std::fmt;

use rand::RngCore;
use sha2::{Digest, Sha256};

/// A session ends after this long without a request…
pub const IDLE_MS: i64 = 30 * 60 * 1000;
/// …and this long after login, however active.
pub const ABSOLUTE_MS: i64 = 12 * 60 * 60 * 1000;
/// `last_seen` is written at most this often, so page views are not all writes.
pub const TOUCH_EVERY_MS: i64 = 10 * 1000;

/// The cookie's name: `__Host-` (Secure, no Domain, Path=/) when the shop runs on HTTPS.
pub fn cookie_name(secure: bool) -> &'static str {
    if secure { "__Host-admin" } else { "admin" }
}

/// The cookie value. `Debug` never shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct SessionToken(String);

impl SessionToken {
    pub fn generate() -> Self {
        let mut bytes = [0u8; 32];
        rand::rng().fill_bytes(&mut bytes);
        Self(hex::encode(bytes))
    }

    /// A cookie value of the right shape; anything else is no session at all.
    pub fn from_cookie(value: &str) -> Option<Self> {
        (value.len() == 64 && value.bytes().all(|b| b.is_ascii_hexdigit()))
            .then(|| Self(value.to_ascii_lowercase()))
    }

    pub fn expose(&self) -> &str {
        &self.0
    }

    /// What the database stores and looks up.
    pub fn hash(&self) -> String {
        hex::encode(Sha256::digest(self.0.as_bytes()))
    }
}

impl fmt::Debug for SessionToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SessionToken(<redacted>)")
    }
}

/// Whether a session created at `created_ms` and last used at `last_seen_ms` is still alive.
pub fn is_alive(created_ms: i64, last_seen_ms: i64, now_ms: i64) -> bool {
    now_ms - last_seen_ms < IDLE_MS && now_ms - created_ms < ABSOLUTE_MS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_random_hex_and_stored_hashed() {
        let a = SessionToken::generate();
        let b = SessionToken::generate();
        assert_ne!(a, b);
        assert_eq!(a.expose().len(), 64);
        assert_eq!(a.hash().len(), 64);
        assert_ne!(a.hash(), a.expose());
        assert_eq!(SessionToken::from_cookie(a.expose()), Some(a.clone()));
        assert_eq!(SessionToken::from_cookie("abc"), None);
        assert!(!format!("{a:?}").contains(a.expose()));
    }

    #[test]
    fn the_cookie_is_host_prefixed_on_https_only() {
        assert_eq!(cookie_name(true), "__Host-admin");
        assert_eq!(cookie_name(false), "admin");
    }

    #[test]
    fn idle_and_absolute_timeouts() {
        let t0 = 1_000_000_000;
        assert!(is_alive(t0, t0, t0 + IDLE_MS - 1));
        assert!(!is_alive(t0, t0, t0 + IDLE_MS));
        assert!(is_alive(t0, t0 + ABSOLUTE_MS - 10, t0 + ABSOLUTE_MS - 1));
        assert!(!is_alive(t0, t0 + ABSOLUTE_MS - 10, t0 + ABSOLUTE_MS));
    }
}
