//! CSRF protection for every POST form, without server-side state: a random value in a
//! cookie, and in the form its HMAC under a key derived from the secret key. A cross-site page
//! can make the browser send the cookie but can neither read it nor compute the matching token.

use actix_web::HttpRequest;
use actix_web::cookie::{Cookie, SameSite};
use hmac::{Hmac, Mac};
use rand::RngCore;
use sha2::Sha256;

use crate::config::SecretKey;

/// The cookie's name; `__Host-` (Secure, no Domain, Path=/) when the shop runs on HTTPS.
pub fn cookie_name(secure: bool) -> &'static str {
    if secure { "__Host-csrf" } else { "csrf" }
}

/// The token for `cookie_value`.
fn token_for(key: &SecretKey, cookie_value: &str) -> String {
    let mut mac =
        Hmac::<Sha256>::new_from_slice(key.bytes()).expect("HMAC takes keys of any length");
    mac.update(b"storefront csrf v1:");
    mac.update(cookie_value.as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

/// A token for the form on this page, and the cookie to set when the browser has none yet.
pub struct Issued {
    pub token: String,
    pub cookie: Option<Cookie<'static>>,
}

pub fn issue(req: &HttpRequest, key: &SecretKey, secure: bool) -> Issued {
    let name = cookie_name(secure);
    if let Some(existing) = req.cookie(name).filter(|c| is_well_formed(c.value())) {
        return Issued {
            token: token_for(key, existing.value()),
            cookie: None,
        };
    }
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    let value = hex::encode(bytes);
    let cookie = Cookie::build(name, value.clone())
        .path("/")
        .http_only(true)
        .secure(secure)
        .same_site(SameSite::Lax)
        .finish();
    Issued {
        token: token_for(key, &value),
        cookie: Some(cookie),
    }
}

fn is_well_formed(value: &str) -> bool {
    value.len() == 64 && value.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Whether `form_token` matches this browser's cookie under `key` (constant-time).
pub fn verify(req: &HttpRequest, key: &SecretKey, secure: bool, form_token: &str) -> bool {
    verify_any(req, [key], secure, form_token)
}

/// Whether `form_token` matches this browser's cookie under any of `keys`: the current key
/// and the previous ones, so a form rendered by a replica still on the old key (or the new
/// one, mid-deploy) is accepted by any replica while a key change rolls out.
pub fn verify_any<'k>(
    req: &HttpRequest,
    keys: impl IntoIterator<Item = &'k SecretKey>,
    secure: bool,
    form_token: &str,
) -> bool {
    let Some(cookie) = req.cookie(cookie_name(secure)) else {
        return false;
    };
    if !is_well_formed(cookie.value()) {
        return false;
    }
    let Ok(given) = hex::decode(form_token) else {
        return false;
    };
    keys.into_iter().any(|key| {
        let mut mac =
            Hmac::<Sha256>::new_from_slice(key.bytes()).expect("HMAC takes keys of any length");
        mac.update(b"storefront csrf v1:");
        mac.update(cookie.value().as_bytes());
        mac.verify_slice(&given).is_ok()
    })
}
