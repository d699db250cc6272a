//! A wrapper that keeps secret values out of `Debug`, `Display` and logs.

use std::fmt;

use sha2::{Digest, Sha256};

/// A value that must never be printed. Reading it takes an explicit [`Secret::expose`].
#[derive(Clone, PartialEq, Eq)]
pub struct Secret<T>(T);

impl<T> Secret<T> {
    pub fn new(value: T) -> Self {
        Self(value)
    }

    /// The secret itself, for the one place that has to use it (a header, a key schedule).
    pub fn expose(&self) -> &T {
        &self.0
    }
}

impl Secret<String> {
    /// Whether `candidate` is this secret, in time that depends on neither: both sides are
    /// hashed first (so not even the length is compared early) and the digests are compared
    /// without a data-dependent branch. For tokens a client presents (metrics, webhooks).
    pub fn matches(&self, candidate: &[u8]) -> bool {
        let expected = Sha256::digest(self.0.as_bytes());
        let given = Sha256::digest(candidate);
        expected
            .iter()
            .zip(given.iter())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
    }
}

impl<T> fmt::Debug for Secret<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

impl<T> fmt::Display for Secret<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_and_display_hide_the_value() {
        let s = Secret::new("sk_live_abc".to_string());
        assert_eq!(format!("{s:?}"), "[redacted]");
        assert_eq!(format!("{s}"), "[redacted]");
        assert_eq!(s.expose(), "sk_live_abc");
    }

    #[test]
    fn matches_only_the_exact_value() {
        let s = Secret::new("sk_live_abc".to_string());
        assert!(s.matches(b"sk_live_abc"));
        assert!(!s.matches(b"sk_live_abd"));
        assert!(!s.matches(b"sk_live_ab"));
        assert!(!s.matches(b"sk_live_abcd"));
        assert!(!s.matches(b""));
    }
}
