//! CSRF protection for every POST form, without server-side state. The form carries an HMAC,
//! under a key derived from the secret key, of what ties it to this browser:
//!
//! - **a console session** when the browser presents an admin session cookie: the token is
//!   bound to that session (the HMAC of the session id's hash), so it is worthless in any other
//!   session, and a cookie planted by a sibling subdomain cannot make a matching pair;
//! - otherwise (the login form, the shop's checkout) **a random value in a cookie** (signed
//!   double submit): a cross-site page can make the browser send the cookie but can neither
//!   read it nor compute the matching token.
//!
//! Every POST is also refused when the browser says it comes from another origin
//! (`Sec-Fetch-Site: same-site` or `cross-site`), which stops a sibling subdomain on browsers
//! that send the header even before the token is checked.
//!
//! The token in a page is masked afresh for every response (a random mask, then the HMAC
//! XORed with it), so no two responses carry the same bytes and a compressed page that also
//! reflects attacker-chosen text does not leak it byte by byte (BREACH).

use actix_web::HttpRequest;
use actix_web::cookie::{Cookie, SameSite};
use actix_web::http::header::HeaderName;
use hmac::{Hmac, Mac};
use rand::RngCore;
use sha2::Sha256;

use crate::config::SecretKey;
use crate::staff::{SessionToken, session};

/// Bytes of the HMAC, and so of the mask.
const MAC_LEN: usize = 32;

/// The cookie's name; `__Host-` (Secure, no Domain, Path=/) when the shop runs on HTTPS.
pub fn cookie_name(secure: bool) -> &'static str {
    if secure { "__Host-csrf" } else { "csrf" }
}

/// What a form's token is bound to in this request.
enum Binding {
    /// The admin session the browser presents (its id's hash, as the database keeps it).
    Session(String),
    /// The browser's CSRF cookie value.
    Cookie(String),
}

impl Binding {
    /// The session when the request carries a session cookie of the right shape, else the
    /// CSRF cookie when it has one of the right shape.
    fn of(req: &HttpRequest, secure: bool) -> Option<Self> {
        if let Some(session) = req
            .cookie(session::cookie_name(secure))
            .and_then(|c| SessionToken::from_cookie(c.value()))
        {
            return Some(Self::Session(session.hash()));
        }
        req.cookie(cookie_name(secure))
            .filter(|c| is_well_formed(c.value()))
            .map(|c| Self::Cookie(c.value().to_string()))
    }

    fn mac(&self, key: &SecretKey) -> Hmac<Sha256> {
        let mut mac =
            Hmac::<Sha256>::new_from_slice(key.bytes()).expect("HMAC takes keys of any length");
        match self {
            Self::Session(hash) => {
                mac.update(b"storefront csrf session v1:");
                mac.update(hash.as_bytes());
            }
            Self::Cookie(value) => {
                mac.update(b"storefront csrf v1:");
                mac.update(value.as_bytes());
            }
        }
        mac
    }

    /// The form token: a fresh mask, then the HMAC XORed with it, hex-encoded.
    fn token(&self, key: &SecretKey) -> String {
        let tag = self.mac(key).finalize().into_bytes();
        let mut mask = [0u8; MAC_LEN];
        rand::rng().fill_bytes(&mut mask);
        let mut out = [0u8; 2 * MAC_LEN];
        out[..MAC_LEN].copy_from_slice(&mask);
        for (i, (t, m)) in tag.iter().zip(mask).enumerate() {
            out[MAC_LEN + i] = t ^ m;
        }
        hex::encode(out)
    }
}

/// A token for the form on this page, and the cookie to set when the browser has none yet.
pub struct Issued {
    pub token: String,
    pub cookie: Option<Cookie<'static>>,
}

pub fn issue(req: &HttpRequest, key: &SecretKey, secure: bool) -> Issued {
    if let Some(binding) = Binding::of(req, secure) {
        return Issued {
            token: binding.token(key),
            cookie: None,
        };
    }
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    let value = hex::encode(bytes);
    let cookie = Cookie::build(cookie_name(secure), value.clone())
        .path("/")
        .http_only(true)
        .secure(secure)
        .same_site(SameSite::Lax)
        .finish();
    Issued {
        token: Binding::Cookie(value).token(key),
        cookie: Some(cookie),
    }
}

fn is_well_formed(value: &str) -> bool {
    value.len() == 64 && value.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Whether the browser says this request was sent by a page of another origin. Browsers
/// without `Sec-Fetch-Site` rely on the token alone.
fn sent_from_another_origin(req: &HttpRequest) -> bool {
    req.headers()
        .get(HeaderName::from_static("sec-fetch-site"))
        .is_some_and(|site| site != "same-origin" && site != "none")
}

/// Whether `form_token` matches this browser's session or cookie under `key` (constant-time).
pub fn verify(req: &HttpRequest, key: &SecretKey, secure: bool, form_token: &str) -> bool {
    verify_any(req, [key], secure, form_token)
}

/// Whether `form_token` matches this browser's session or cookie under any of `keys`: the
/// current key and the previous ones, so a form rendered by a replica still on the old key (or
/// the new one, mid-deploy) is accepted by any replica while a key change rolls out.
pub fn verify_any<'k>(
    req: &HttpRequest,
    keys: impl IntoIterator<Item = &'k SecretKey>,
    secure: bool,
    form_token: &str,
) -> bool {
    if sent_from_another_origin(req) {
        return false;
    }
    let Some(binding) = Binding::of(req, secure) else {
        return false;
    };
    let Ok(given) = hex::decode(form_token) else {
        return false;
    };
    if given.len() != 2 * MAC_LEN {
        return false;
    }
    let (mask, masked) = given.split_at(MAC_LEN);
    let tag: Vec<u8> = masked.iter().zip(mask).map(|(t, m)| t ^ m).collect();
    keys.into_iter()
        .any(|key| binding.mac(key).verify_slice(&tag).is_ok())
}

#[cfg(test)]
mod tests {
    use actix_web::test::TestRequest;

    use super::*;

    fn key(byte: u8) -> SecretKey {
        SecretKey::from_bytes([byte; 32])
    }

    fn with_cookies(cookies: &[(&'static str, &str)]) -> TestRequest {
        cookies
            .iter()
            .fold(TestRequest::post(), |req, (name, value)| {
                req.cookie(Cookie::new(*name, value.to_string()))
            })
    }

    #[test]
    fn a_first_visit_gets_a_cookie_and_a_token_that_fits_it_only() {
        let first = TestRequest::get().to_http_request();
        let issued = issue(&first, &key(1), true);
        let cookie = issued.cookie.expect("a new cookie");
        assert_eq!(cookie.name(), "__Host-csrf");
        assert_eq!(cookie.http_only(), Some(true));
        assert_eq!(cookie.secure(), Some(true));

        let back = with_cookies(&[("__Host-csrf", cookie.value())]).to_http_request();
        assert!(verify(&back, &key(1), true, &issued.token));
        assert!(!verify(&back, &key(2), true, &issued.token), "another key");
        let other = with_cookies(&[("__Host-csrf", &"ab".repeat(32))]).to_http_request();
        assert!(
            !verify(&other, &key(1), true, &issued.token),
            "another cookie"
        );
        let none = TestRequest::post().to_http_request();
        assert!(!verify(&none, &key(1), true, &issued.token), "no cookie");
    }

    #[test]
    fn tokens_are_masked_afresh_and_every_mask_verifies() {
        let req = with_cookies(&[("csrf", &"cd".repeat(32))]).to_http_request();
        let a = issue(&req, &key(1), false);
        let b = issue(&req, &key(1), false);
        assert!(
            a.cookie.is_none() && b.cookie.is_none(),
            "the cookie is kept"
        );
        assert_ne!(a.token, b.token, "no two responses carry the same token");
        assert_eq!(a.token.len(), 128);
        assert!(verify(&req, &key(1), false, &a.token));
        assert!(verify(&req, &key(1), false, &b.token));
        // A changed byte, a short or unmasked token, or garbage is refused.
        let mut tampered = a.token.clone().into_bytes();
        tampered[100] = if tampered[100] == b'0' { b'1' } else { b'0' };
        let tampered = String::from_utf8(tampered).expect("hex");
        for bad in [
            tampered.as_str(),
            &a.token[64..],
            "",
            "zz",
            &"00".repeat(64),
        ] {
            assert!(!verify(&req, &key(1), false, bad), "{bad:?}");
        }
    }

    #[test]
    fn with_a_session_cookie_the_token_is_bound_to_the_session() {
        let session = SessionToken::generate();
        let planted = "ef".repeat(32);
        let signed_in = with_cookies(&[
            ("__Host-admin", session.expose()),
            ("__Host-csrf", &planted),
        ])
        .to_http_request();
        let issued = issue(&signed_in, &key(1), true);
        assert!(issued.cookie.is_none(), "no CSRF cookie needed");
        assert!(verify(&signed_in, &key(1), true, &issued.token));

        // A token for the CSRF cookie alone (as a sibling subdomain could plant, with the
        // token it got for that cookie) does not fit the session.
        let cookie_only = with_cookies(&[("__Host-csrf", &planted)]).to_http_request();
        let planted_token = issue(&cookie_only, &key(1), true).token;
        assert!(verify(&cookie_only, &key(1), true, &planted_token));
        assert!(!verify(&signed_in, &key(1), true, &planted_token));

        // Nor does another session's token.
        let other =
            with_cookies(&[("__Host-admin", SessionToken::generate().expose())]).to_http_request();
        let other_token = issue(&other, &key(1), true).token;
        assert!(!verify(&signed_in, &key(1), true, &other_token));
    }

    #[test]
    fn a_post_the_browser_says_came_from_another_origin_is_refused() {
        let cookie = "ab".repeat(32);
        let req = with_cookies(&[("csrf", &cookie)]).to_http_request();
        let token = issue(&req, &key(1), false).token;
        for (site, accepted) in [
            (None, true),
            (Some("same-origin"), true),
            (Some("none"), true),
            (Some("same-site"), false),
            (Some("cross-site"), false),
        ] {
            let mut sent = with_cookies(&[("csrf", &cookie)]);
            if let Some(site) = site {
                sent = sent.insert_header(("sec-fetch-site", site));
            }
            let sent = sent.to_http_request();
            assert_eq!(verify(&sent, &key(1), false, &token), accepted, "{site:?}");
        }
    }

    #[test]
    fn previous_keys_still_verify_during_a_rotation() {
        let req = with_cookies(&[("csrf", &"12".repeat(32))]).to_http_request();
        let old = issue(&req, &key(1), false).token;
        assert!(verify_any(&req, [&key(2), &key(1)], false, &old));
        assert!(!verify_any(&req, [&key(2), &key(3)], false, &old));
    }
}
