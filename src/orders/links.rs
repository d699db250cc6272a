//! The private link to a purchase's order page. Its token is an HMAC of the purchase id under a
//! key derived from the shop's secret key: unguessable without that key, never stored (only its
//! hash is, for lookup), and recomputable whenever an email must carry the link again.
//!
//! A purchase may have several valid tokens: the one made at checkout (its hash is
//! `purchases.access_token_hash`) and one per secret key the shop has used since. After the
//! secret key is rotated, an email about an older purchase carries the new key's token;
//! [`token_for_email`] registers its hash (`order_link_tokens`) before the email can leave,
//! while links already sent keep working through the hash stored at checkout. No key has to
//! be kept for old links, and no step of the rotation has to touch them.

use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};
use url::Url;

use crate::config::SecretKey;
use crate::db::purchases::{self, Purchase};
use crate::db::{DbConn, DbError};

/// The token of `purchase_id`'s private link (256 bits, hex).
pub fn order_token(secret: &SecretKey, purchase_id: &str) -> String {
    let mut mac =
        Hmac::<Sha256>::new_from_slice(secret.bytes()).expect("HMAC takes keys of any length");
    mac.update(b"storefront order link v1:");
    mac.update(purchase_id.as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

/// What is stored to find a purchase by its token.
pub fn hash_token(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// The token an email about `purchase` carries, made under the current `secret`. When the
/// purchase was created under another key its hash is registered first (once; idempotent),
/// so the link works on every replica as soon as the email is sent.
pub fn token_for_email(
    conn: &mut DbConn,
    secret: &SecretKey,
    purchase: &Purchase,
    now_ms: i64,
) -> Result<String, DbError> {
    let token = order_token(secret, &purchase.id);
    let hash = hash_token(&token);
    if hash != purchase.access_token_hash {
        conn.write_tx(|conn| purchases::add_link_token(conn, &purchase.id, &hash, now_ms))?;
    }
    Ok(token)
}

/// `{public_url}/orders/{id}?token=…`: the link emails carry.
pub fn order_url(public_url: &Url, purchase_id: &str, token: &str) -> Url {
    let mut url = public_url.clone();
    url.set_path(&format!("/orders/{purchase_id}"));
    url.query_pairs_mut().append_pair("token", token);
    url
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_per_purchase_and_per_key() {
        let a = SecretKey::from_bytes([1; 32]);
        let b = SecretKey::from_bytes([2; 32]);
        assert_eq!(order_token(&a, "p1"), order_token(&a, "p1"));
        assert_ne!(order_token(&a, "p1"), order_token(&a, "p2"));
        assert_ne!(order_token(&a, "p1"), order_token(&b, "p1"));
        assert_eq!(order_token(&a, "p1").len(), 64);
        let url = order_url(
            &Url::parse("https://shop.example").expect("url"),
            "p1",
            "t0k",
        );
        assert_eq!(url.as_str(), "https://shop.example/orders/p1?token=t0k");
    }
}
