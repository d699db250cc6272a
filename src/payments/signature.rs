//! Webhook signatures in Stripe's scheme, used by both providers so the demo runs the same
//! verification as production: a header `t=<unix seconds>,v1=<hex>[,v1=<hex>…]` where each
//! `v1` is HMAC-SHA256 over `"<t>.<raw body>"`. Any one matching `v1` is enough (a secret being
//! rolled has two), the timestamp must be within the tolerance of now, and comparisons are
//! constant-time.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// How far a signature's timestamp may be from now, either way.
pub const TOLERANCE: Duration = Duration::from_secs(300);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    #[error("no signature header")]
    Missing,
    #[error("the signature header is malformed")]
    Malformed,
    #[error("the signature timestamp is outside the tolerance")]
    Stale,
    #[error("no signature matches")]
    Mismatch,
}

fn mac(secret: &[u8], timestamp: i64, body: &[u8]) -> Hmac<Sha256> {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC takes keys of any length");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    mac
}

fn unix_seconds(at: SystemTime) -> i64 {
    match at.duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
        Err(e) => -i64::try_from(e.duration().as_secs()).unwrap_or(i64::MAX),
    }
}

/// The header value for `body` signed at `at`.
pub fn sign(secret: &[u8], body: &[u8], at: SystemTime) -> String {
    let t = unix_seconds(at);
    let tag = mac(secret, t, body).finalize().into_bytes();
    format!("t={t},v1={}", hex::encode(tag))
}

/// Checks `header` against `body` at time `now`.
pub fn verify(
    secret: &[u8],
    header: Option<&str>,
    body: &[u8],
    now: SystemTime,
) -> Result<(), SignatureError> {
    let header = header.ok_or(SignatureError::Missing)?;
    let mut timestamp = None;
    let mut candidates = Vec::new();
    for part in header.split(',') {
        let (key, value) = part
            .trim()
            .split_once('=')
            .ok_or(SignatureError::Malformed)?;
        match key {
            "t" => {
                timestamp = Some(
                    value
                        .parse::<i64>()
                        .map_err(|_| SignatureError::Malformed)?,
                )
            }
            "v1" => candidates.push(hex::decode(value).map_err(|_| SignatureError::Malformed)?),
            // Other schemes (v0, future ones) are ignored, as Stripe advises.
            _ => {}
        }
    }
    let t = timestamp.ok_or(SignatureError::Malformed)?;
    if candidates.is_empty() {
        return Err(SignatureError::Malformed);
    }
    let tolerance = i64::try_from(TOLERANCE.as_secs()).unwrap_or(i64::MAX);
    if unix_seconds(now).saturating_sub(t).abs() > tolerance {
        return Err(SignatureError::Stale);
    }
    let expected = mac(secret, t, body);
    if candidates
        .iter()
        .any(|candidate| expected.clone().verify_slice(candidate).is_ok())
    {
        Ok(())
    } else {
        Err(SignatureError::Mismatch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &[u8] = b"whsec_test_secret";
    const BODY: &[u8] = br#"{"id":"evt_1","type":"checkout.session.completed"}"#;

    fn at(secs: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(secs)
    }

    #[test]
    fn a_fresh_signature_verifies() {
        let header = sign(SECRET, BODY, at(1_700_000_000));
        assert_eq!(
            verify(SECRET, Some(&header), BODY, at(1_700_000_100)),
            Ok(())
        );
    }

    #[test]
    fn wrong_secret_tampered_body_stale_and_missing_are_refused() {
        let header = sign(SECRET, BODY, at(1_700_000_000));
        let now = at(1_700_000_000);
        assert_eq!(
            verify(b"other", Some(&header), BODY, now),
            Err(SignatureError::Mismatch)
        );
        assert_eq!(
            verify(SECRET, Some(&header), b"{\"id\":\"evt_2\"}", now),
            Err(SignatureError::Mismatch)
        );
        assert_eq!(
            verify(SECRET, Some(&header), BODY, at(1_700_000_301)),
            Err(SignatureError::Stale)
        );
        assert_eq!(
            verify(SECRET, Some(&header), BODY, at(1_699_999_699)),
            Err(SignatureError::Stale)
        );
        assert_eq!(
            verify(SECRET, None, BODY, now),
            Err(SignatureError::Missing)
        );
        assert_eq!(
            verify(SECRET, Some("garbage"), BODY, now),
            Err(SignatureError::Malformed)
        );
        assert_eq!(
            verify(SECRET, Some("t=1700000000"), BODY, now),
            Err(SignatureError::Malformed)
        );
    }

    #[test]
    fn any_one_of_several_v1_values_may_match() {
        let good = sign(SECRET, BODY, at(1_700_000_000));
        let good_v1 = good.split("v1=").nth(1).expect("v1");
        let header = format!("t=1700000000,v1={},v0=abc,v1={good_v1}", "00".repeat(32));
        assert_eq!(
            verify(SECRET, Some(&header), BODY, at(1_700_000_000)),
            Ok(())
        );
    }

    #[test]
    fn matches_an_independently_computed_tag() {
        // printf '1700000000.body' | openssl dgst -sha256 -hmac key
        let expected =
            "t=1700000000,v1=47b6ce0fca59474308e2921c247cb2493dce6b8101d90ac05bd0c6a37d0e046e";
        assert_eq!(sign(b"key", b"body", at(1_700_000_000)), expected);
        assert_eq!(
            verify(b"key", Some(expected), b"body", at(1_700_000_000)),
            Ok(())
        );
    }
}
