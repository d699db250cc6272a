//! Secrets at rest: ChaCha20-Poly1305 under keys derived from the shop's secret key.
//!
//! Each use (installations, console TOTP secrets) derives its own key and key id from
//! `STOREFRONT_SECRET_KEY` with labels of its own, so one use's rows never open under another's
//! key. A row stores the key id, a random 96-bit nonce and the ciphertext (both hex), and is
//! sealed with associated data naming what it belongs to, so a row copied onto another record
//! does not open. [`SealKeys`] holds the current key and the previous ones
//! (`STOREFRONT_PREVIOUS_SECRET_KEYS`) and finds a row's key by its id.

use std::fmt;

use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{ChaCha20Poly1305, Key, Nonce};
use hmac::{Hmac, Mac};
use rand::RngCore;
use sha2::Sha256;

use crate::config::{Secret, SecretKey};

const NONCE_LEN: usize = 12;

/// Why a value could not be sealed or opened. Deliberately without detail: a row that does not
/// open is tampered, truncated, moved or under an unknown key, and the caller names which row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SealError {
    #[error("the value could not be encrypted")]
    Seal,
    #[error("the value does not decrypt")]
    Open,
}

/// One derived key and its public id.
#[derive(Clone)]
pub struct SealKey {
    id: String,
    key: Secret<[u8; 32]>,
}

impl fmt::Debug for SealKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SealKey")
            .field("id", &self.id)
            .field("key", &"[redacted]")
            .finish()
    }
}

impl SealKey {
    /// The key HMAC(secret, `key_label`) and the id `v1:` + the first 8 bytes of
    /// HMAC(secret, `id_label`), in hex.
    pub fn derive(secret: &SecretKey, key_label: &[u8], id_label: &[u8]) -> Self {
        let derive = |label: &[u8]| -> [u8; 32] {
            // HMAC accepts keys of any length, so this cannot fail.
            let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(secret.bytes())
                .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
            mac.update(label);
            mac.finalize().into_bytes().into()
        };
        let key = derive(key_label);
        let id = derive(id_label);
        Self {
            id: format!("v1:{}", hex::encode(&id[..8])),
            key: Secret::new(key),
        }
    }

    /// Stored with each row; identifies the key without revealing it.
    pub fn id(&self) -> &str {
        &self.id
    }

    fn cipher(&self) -> ChaCha20Poly1305 {
        ChaCha20Poly1305::new(Key::from_slice(self.key.expose()))
    }

    /// `(nonce, ciphertext)` of `plaintext` bound to `aad`, both hex.
    pub fn seal(&self, plaintext: &[u8], aad: &[u8]) -> Result<(String, String), SealError> {
        let mut nonce = [0u8; NONCE_LEN];
        rand::rng().fill_bytes(&mut nonce);
        let ciphertext = self
            .cipher()
            .encrypt(
                Nonce::from_slice(&nonce),
                Payload {
                    msg: plaintext,
                    aad,
                },
            )
            .map_err(|_| SealError::Seal)?;
        Ok((hex::encode(nonce), hex::encode(ciphertext)))
    }

    /// The plaintext of a row sealed by [`SealKey::seal`] under this key and `aad`.
    pub fn open(
        &self,
        nonce_hex: &str,
        ciphertext_hex: &str,
        aad: &[u8],
    ) -> Result<Secret<Vec<u8>>, SealError> {
        let nonce = hex::decode(nonce_hex).map_err(|_| SealError::Open)?;
        if nonce.len() != NONCE_LEN {
            return Err(SealError::Open);
        }
        // Into a buffer of the right size: `hex::decode` collects byte by byte through an
        // iterator of results, a measurable share of an order page view for a QR-sized row.
        let mut ciphertext = vec![0; ciphertext_hex.len() / 2];
        hex::decode_to_slice(ciphertext_hex, &mut ciphertext).map_err(|_| SealError::Open)?;
        let plaintext = self
            .cipher()
            .decrypt(
                Nonce::from_slice(&nonce),
                Payload {
                    msg: &ciphertext,
                    aad,
                },
            )
            .map_err(|_| SealError::Open)?;
        Ok(Secret::new(plaintext))
    }
}

/// The keys of one use in a running shop: the current key seals every new row; previous keys
/// only open rows not re-sealed yet. A row names its key by id, so opening never tries keys in
/// turn.
#[derive(Debug, Clone)]
pub struct SealKeys {
    current: SealKey,
    previous: Vec<SealKey>,
}

impl SealKeys {
    pub fn derive(
        current: &SecretKey,
        previous: &[SecretKey],
        key_label: &[u8],
        id_label: &[u8],
    ) -> Self {
        Self {
            current: SealKey::derive(current, key_label, id_label),
            previous: previous
                .iter()
                .map(|secret| SealKey::derive(secret, key_label, id_label))
                .collect(),
        }
    }

    /// The key new rows are sealed under.
    pub fn current(&self) -> &SealKey {
        &self.current
    }

    /// The keys rows may still be sealed under until they are re-sealed, in the order given.
    pub fn previous(&self) -> &[SealKey] {
        &self.previous
    }

    /// The key a row names, if held here.
    pub fn by_id(&self, key_id: &str) -> Option<&SealKey> {
        std::iter::once(&self.current)
            .chain(&self.previous)
            .find(|k| k.id == key_id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(byte: u8) -> SealKey {
        SealKey::derive(&SecretKey::from_bytes([byte; 32]), b"k", b"i")
    }

    #[test]
    fn a_sealed_value_opens_only_with_its_key_and_associated_data() {
        let (nonce, ciphertext) = key(1).seal(b"activation", b"p1").expect("seal");
        let opened = key(1).open(&nonce, &ciphertext, b"p1").expect("open");
        assert_eq!(opened.expose().as_slice(), b"activation");
        assert_eq!(
            key(1).open(&nonce, &ciphertext, b"p2").err(),
            Some(SealError::Open)
        );
        assert_eq!(
            key(2).open(&nonce, &ciphertext, b"p1").err(),
            Some(SealError::Open)
        );
        assert_eq!(
            key(1).open("00", &ciphertext, b"p1").err(),
            Some(SealError::Open)
        );
        assert_eq!(
            key(1).open(&nonce, "zz", b"p1").err(),
            Some(SealError::Open)
        );
        let other_use = SealKey::derive(&SecretKey::from_bytes([1; 32]), b"k2", b"i2");
        assert_ne!(other_use.id(), key(1).id());
    }

    #[test]
    fn keys_are_found_by_id_and_never_printed() {
        let keys = SealKeys::derive(
            &SecretKey::from_bytes([1; 32]),
            &[SecretKey::from_bytes([2; 32])],
            b"k",
            b"i",
        );
        assert_eq!(keys.by_id(key(2).id()).map(SealKey::id), Some(key(2).id()));
        assert!(keys.by_id("v1:0000000000000000").is_none());
        assert!(!format!("{keys:?}").contains(&hex::encode(key(1).key.expose())));
    }
}
