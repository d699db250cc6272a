//! The console's second factor: TOTP (RFC 6238: SHA-1, 6 digits, 30-second steps, one step of
//! clock skew either way) and ten single-use recovery codes.
//!
//! The secret is sealed at rest with ChaCha20-Poly1305 under a key derived from the shop's
//! secret key (not the key itself, and not the installations' key), the account id as associated
//! data, so a row copied onto another account does not open. It is shown in clear once, on the
//! enrolment page, as our own QR code and as base32 text; nothing logs it and `Debug` redacts it.
//! Recovery codes (80 random bits each) are stored as SHA-256 only and shown once.
//!
//! A code is accepted only for a time step newer than the last one accepted for the account,
//! recorded in the same conditional `UPDATE` that accepts it: a code seen over a shoulder or in a
//! proxy log cannot be used again, not even on another replica. Wrong codes are throttled like
//! passwords ([`super::throttle`]): reserved before they are checked.
//!
//! An owner may require TOTP for every console account (the `require_totp` shop setting): an
//! account without it is then sent to enrolment after its password and can do nothing else.

use crate::staff::Staff;
use std::collections::HashMap;
use std::fmt;

use rand::RngCore;
use sha2::{Digest, Sha256};
use totp_rs::{Algorithm, TOTP};

use super::session::SessionToken;
use super::throttle::{self, Reservation};
use super::{Admin, Stage, action};
use crate::config::{Secret, SecretKey};
use crate::db::login_attempts::{Kind, Outcome};
use crate::db::staff::{self as q, SessionRow};
use crate::db::totp::{self as t, TotpRow};
use crate::db::{Db, DbConn, DbError, now_ms, settings};
use crate::sealing::{SealKey, SealKeys};

/// Seconds per time step.
pub const STEP_SECS: u64 = 30;
/// Steps accepted either side of the server's clock.
pub const SKEW_STEPS: u64 = 1;
pub const DIGITS: usize = 6;
/// Recovery codes issued at once.
pub const RECOVERY_CODES: usize = 10;
/// The issuer authenticator apps show beside the account.
const ISSUER: &str = "storefront console";
/// The shop setting that requires TOTP for every console account (1 on, 0 or absent off).
pub const REQUIRE_SETTING: &str = "require_totp";

const SECRET_BYTES: usize = 20;

#[derive(Debug, thiserror::Error)]
pub enum TotpError {
    #[error("TOTP is already on for this account")]
    AlreadyOn,
    #[error("TOTP is not on for this account")]
    NotOn,
    #[error("the code is wrong or was already used")]
    WrongCode,
    #[error("too many wrong codes")]
    Throttled,
    #[error("only an owner can do this")]
    NotOwner,
    #[error("there is no such account")]
    NotFound,
    /// Requiring TOTP for everyone while the owner has none would end the owner's own session.
    #[error("turn TOTP on for your own account first")]
    OwnerWithout,
    /// The stored secret does not open (tampered, or sealed under a key no longer configured).
    #[error("the stored TOTP secret of account {0} cannot be opened")]
    Unreadable(i64),
    #[error("the TOTP secret could not be sealed")]
    Seal,
    #[error(transparent)]
    Db(#[from] DbError),
}

impl From<diesel::result::Error> for TotpError {
    fn from(e: diesel::result::Error) -> Self {
        Self::Db(DbError::Query(e))
    }
}

/// One key that seals TOTP secrets, derived from a secret key.
/// The keys of a running shop: new secrets are sealed under the current one; secrets sealed
/// under a previous key (`STOREFRONT_PREVIOUS_SECRET_KEYS`) still open and are re-sealed under
/// the current key at their next use.
#[derive(Clone)]
pub struct TotpKeys(SealKeys);

impl fmt::Debug for TotpKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TotpKeys")
            .field("current", &self.0.current().id())
            .finish_non_exhaustive()
    }
}

impl TotpKeys {
    pub fn derive(current: &SecretKey, previous: &[SecretKey]) -> Self {
        Self(SealKeys::derive(
            current,
            previous,
            b"storefront totp secret encryption key v1",
            b"storefront totp key id v1",
        ))
    }
}

fn aad(user_id: i64) -> String {
    format!("admin_totp:{user_id}")
}

/// `(key id, nonce, ciphertext)` of `secret` for the account.
fn seal(key: &SealKey, user_id: i64, secret: &[u8]) -> Result<(String, String, String), TotpError> {
    let (nonce, ciphertext) = key
        .seal(secret, aad(user_id).as_bytes())
        .map_err(|_| TotpError::Seal)?;
    Ok((key.id().to_string(), nonce, ciphertext))
}

/// The secret of a row, and whether it was sealed under a previous key.
fn open(keys: &TotpKeys, row: &TotpRow) -> Result<(Secret<Vec<u8>>, bool), TotpError> {
    let unreadable = || TotpError::Unreadable(row.user_id);
    let key = keys.0.by_id(&row.key_id).ok_or_else(unreadable)?;
    let secret = key
        .open(&row.nonce, &row.ciphertext, aad(row.user_id).as_bytes())
        .map_err(|_| unreadable())?;
    Ok((secret, key.id() != keys.0.current().id()))
}

fn totp(secret: &[u8]) -> TOTP {
    TOTP::new_unchecked(Algorithm::SHA1, DIGITS, 0, STEP_SECS, secret.to_vec())
}

/// The code of time step `step` for `secret` (what an authenticator app shows then).
pub fn code_at_step(secret: &[u8], step: u64) -> String {
    totp(secret).generate(step * STEP_SECS)
}

/// The time step of `code` within one step of `now_secs`, if it is one.
pub fn matching_step(secret: &[u8], code: &str, now_secs: u64) -> Option<u64> {
    let code = code.trim();
    if code.len() != DIGITS || !code.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let current = now_secs / STEP_SECS;
    let totp = totp(secret);
    // Every candidate is computed and compared in full, whichever matches.
    let mut found = None;
    for step in current.saturating_sub(SKEW_STEPS)..=current + SKEW_STEPS {
        let expected = totp.generate(step * STEP_SECS);
        let same = expected
            .bytes()
            .zip(code.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0;
        if same && found.is_none() {
            found = Some(step);
        }
    }
    found
}

/// Base32 (RFC 4648, no padding), as authenticator apps take it.
pub fn base32(secret: &[u8]) -> String {
    match totp_rs::Secret::Raw(secret.to_vec()).to_encoded() {
        totp_rs::Secret::Encoded(text) => text,
        totp_rs::Secret::Raw(_) => unreachable!("to_encoded encodes"),
    }
}

/// Text typed as a recovery code, normalised (`ABCD-efgh ijkl…` → `abcdefghijkl…`); `None`
/// when it cannot be one.
fn normalise_recovery_code(raw: &str) -> Option<String> {
    let code: String = raw
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .map(|c| c.to_ascii_lowercase())
        .collect();
    (code.len() == 16
        && code
            .bytes()
            .all(|b| b.is_ascii_lowercase() || (b'2'..=b'7').contains(&b)))
    .then_some(code)
}

fn recovery_hash(user_id: i64, normalised: &str) -> String {
    hex::encode(Sha256::digest(format!("{user_id}:{normalised}").as_bytes()))
}

/// Ten fresh codes (`abcd-efgh-ijkl-mnop`, 80 random bits each) and their hashes.
fn new_recovery_codes(user_id: i64) -> (RecoveryCodes, Vec<String>) {
    let mut codes = Vec::with_capacity(RECOVERY_CODES);
    let mut hashes = Vec::with_capacity(RECOVERY_CODES);
    for _ in 0..RECOVERY_CODES {
        let mut bytes = [0u8; 10];
        rand::rng().fill_bytes(&mut bytes);
        let plain = base32(&bytes).to_ascii_lowercase();
        hashes.push(recovery_hash(user_id, &plain));
        let grouped = plain
            .as_bytes()
            .chunks(4)
            .map(|c| String::from_utf8_lossy(c).into_owned())
            .collect::<Vec<_>>()
            .join("-");
        codes.push(grouped);
    }
    (RecoveryCodes(codes), hashes)
}

/// Recovery codes in clear, for the one page that shows them. `Debug` redacts.
pub struct RecoveryCodes(Vec<String>);

impl RecoveryCodes {
    pub fn expose(&self) -> &[String] {
        &self.0
    }
}

impl fmt::Debug for RecoveryCodes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RecoveryCodes({} redacted)", self.0.len())
    }
}

/// What the enrolment page shows: the secret as base32 text and as an `otpauth://` URI drawn
/// as a QR code. `Debug` redacts.
pub struct Enrolment {
    pub secret_base32: Secret<String>,
    pub qr_svg: Secret<String>,
}

impl fmt::Debug for Enrolment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Enrolment(<redacted>)")
    }
}

/// The `otpauth://totp/…` URI authenticator apps read from the QR code.
fn otpauth_uri(secret_base32: &str, account: &str) -> String {
    let enc = |s: &str| -> String {
        url::form_urlencoded::byte_serialize(s.as_bytes())
            .collect::<String>()
            .replace('+', "%20")
    };
    format!(
        "otpauth://totp/{}:{}?secret={secret_base32}&issuer={}&algorithm=SHA1&digits={DIGITS}&period={STEP_SECS}",
        enc(ISSUER),
        enc(account),
        enc(ISSUER),
    )
}

fn render_qr(text: &str) -> Result<String, TotpError> {
    let svg = qrcode::QrCode::new(text.as_bytes())
        .map_err(|_| TotpError::Seal)?
        .render::<qrcode::render::svg::Color<'_>>()
        .min_dimensions(200, 200)
        .quiet_zone(true)
        .build();
    Ok(match svg.find("<svg") {
        Some(start) => svg[start..].to_string(),
        None => svg,
    })
}

fn now_secs() -> u64 {
    u64::try_from(now_ms() / 1000).unwrap_or(0)
}

/// An account's TOTP state as its pages show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Status {
    pub on: bool,
    pub recovery_codes_left: i64,
}

pub async fn status(staff: &Staff, user_id: i64) -> Result<Status, DbError> {
    let db = staff.db();
    db.run(move |conn| {
        let on = t::find(conn, user_id)?.is_some_and(|row| row.confirmed_at_ms.is_some());
        Ok(Status {
            on,
            recovery_codes_left: t::recovery_codes_left(conn, user_id)?,
        })
    })
    .await
}

/// The TOTP state of each account in `user_ids`, for the users pages.
pub async fn states(staff: &Staff, user_ids: Vec<i64>) -> Result<HashMap<i64, bool>, DbError> {
    let db = staff.db();
    db.run(move |conn| Ok(t::states(conn, &user_ids)?.into_iter().collect()))
        .await
}

/// Whether an account has confirmed TOTP.
pub fn is_on(conn: &mut DbConn, user_id: i64) -> Result<bool, DbError> {
    Ok(t::find(conn, user_id)?.is_some_and(|row| row.confirmed_at_ms.is_some()))
}

/// Whether an owner requires TOTP for every console account.
pub fn required_for_all(conn: &mut DbConn) -> Result<bool, DbError> {
    Ok(settings::setting(conn, REQUIRE_SETTING)?.unwrap_or(0) == 1)
}

pub async fn is_required_for_all(staff: &Staff) -> Result<bool, DbError> {
    let db = staff.db();
    db.run(required_for_all).await
}

/// Starts (or restarts) enrolment: a fresh secret, stored sealed and unconfirmed until
/// [`confirm_enrolment`] sees a code from it.
pub async fn start_enrolment(
    staff: &impl AsRef<Db>,
    keys: &TotpKeys,
    admin: &Admin,
    client_addr: &str,
) -> Result<Enrolment, TotpError> {
    let db = staff.as_ref();
    let mut secret = [0u8; SECRET_BYTES];
    rand::rng().fill_bytes(&mut secret);
    let (key_id, nonce, ciphertext) = seal(keys.0.current(), admin.user_id, &secret)?;
    let (me, client) = (admin.clone(), client_addr.to_string());
    let started = db
        .run(move |conn| {
            let now = now_ms();
            conn.write_tx(|conn| {
                if !t::start_enrolment(conn, me.user_id, &key_id, &nonce, &ciphertext, now)? {
                    return Ok::<_, DbError>(false);
                }
                me.audit(
                    conn,
                    action::TOTP_ENROLMENT_STARTED,
                    None,
                    &client,
                    "new TOTP secret shown for enrolment",
                    now,
                )?;
                Ok(true)
            })
        })
        .await?;
    if !started {
        return Err(TotpError::AlreadyOn);
    }
    enrolment(&secret, &admin.email)
}

fn enrolment(secret: &[u8], account: &str) -> Result<Enrolment, TotpError> {
    let text = base32(secret);
    let qr = render_qr(&otpauth_uri(&text, account))?;
    Ok(Enrolment {
        secret_base32: Secret::new(text),
        qr_svg: Secret::new(qr),
    })
}

/// The enrolment started and not confirmed yet, to show again (a reload, a mistyped code);
/// `None` when there is none.
pub async fn pending_enrolment(
    staff: &Staff,
    keys: &TotpKeys,
    admin: &Admin,
) -> Result<Option<Enrolment>, TotpError> {
    let db = staff.db();
    let user_id = admin.user_id;
    let Some(row) = db
        .run(move |conn| t::find(conn, user_id))
        .await?
        .filter(|row| row.confirmed_at_ms.is_none())
    else {
        return Ok(None);
    };
    let (secret, _) = open(keys, &row)?;
    enrolment(secret.expose(), &admin.email).map(Some)
}

/// A new full session replacing every session of the account (this browser's included).
fn replace_sessions(
    conn: &mut DbConn,
    user_id: i64,
    client: &str,
    now: i64,
) -> Result<(SessionToken, usize), DbError> {
    let token = SessionToken::generate();
    let ended = q::delete_user_sessions(conn, user_id)?;
    q::insert_session(
        conn,
        &SessionRow {
            id_hash: token.hash(),
            user_id,
            created_at_ms: now,
            last_seen_ms: now,
            client_addr: client.to_string(),
            stage: Stage::Full.as_str().to_string(),
        },
    )?;
    Ok((token, ended))
}

/// Confirms enrolment with a code from the new secret: TOTP is on from now, the recovery codes
/// are issued (shown once), and every session of the account is replaced by a new full one.
pub async fn confirm_enrolment(
    staff: &impl AsRef<Db>,
    keys: &TotpKeys,
    admin: &Admin,
    client_addr: &str,
    code: &str,
) -> Result<(RecoveryCodes, SessionToken), TotpError> {
    let db = staff.as_ref();
    let reservation = reserve(db, admin, client_addr).await?;
    let user_id = admin.user_id;
    let row = db.run(move |conn| t::find(conn, user_id)).await?;
    let Some(row) = row.filter(|r| r.confirmed_at_ms.is_none()) else {
        reservation.release(db).await?;
        return Err(TotpError::AlreadyOn);
    };
    let (secret, _) = open(keys, &row)?;
    let step = matching_step(secret.expose(), code, now_secs());
    let (codes, hashes) = new_recovery_codes(user_id);
    let (me, client) = (admin.clone(), client_addr.to_string());
    let done = db
        .run(move |conn| {
            let now = now_ms();
            conn.write_tx(|conn| {
                let accepted = match step {
                    Some(step) => t::accept_step(conn, user_id, step_i64(step), true, now)?,
                    None => false,
                };
                if !accepted {
                    me.audit(
                        conn,
                        action::TOTP_FAILED,
                        None,
                        &client,
                        "wrong code while confirming enrolment",
                        now,
                    )?;
                    reservation.settle_in(conn, Outcome::Failed)?;
                    return Ok::<_, DbError>(None);
                }
                t::replace_recovery_codes(conn, user_id, &hashes, now)?;
                let (token, ended) = replace_sessions(conn, user_id, &client, now)?;
                me.audit(
                    conn,
                    action::TOTP_ENABLED,
                    None,
                    &client,
                    &format!(
                        "TOTP on; {RECOVERY_CODES} recovery codes issued; {ended} session(s) replaced"
                    ),
                    now,
                )?;
                reservation.settle_in(conn, Outcome::Success)?;
                Ok(Some(token))
            })
        })
        .await?;
    done.map(|token| (codes, token)).ok_or(TotpError::WrongCode)
}

fn step_i64(step: u64) -> i64 {
    i64::try_from(step).unwrap_or(i64::MAX)
}

async fn reserve(db: &Db, admin: &Admin, client_addr: &str) -> Result<Reservation, TotpError> {
    match throttle::reserve(db, Kind::Totp, &admin.email, client_addr).await? {
        Some(reservation) => Ok(reservation),
        None => Err(TotpError::Throttled),
    }
}

/// How a second-factor login was completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecondFactor {
    Code,
    /// With a recovery code; this many are left.
    RecoveryCode(i64),
}

/// Completes a login waiting for its second factor (`admin` is the pending session's): a
/// current code, or an unused recovery code. On success the pending session is replaced by a
/// full one (a new id).
pub async fn complete_login(
    staff: &Staff,
    keys: &TotpKeys,
    admin: &Admin,
    client_addr: &str,
    input: &str,
) -> Result<(SessionToken, SecondFactor), TotpError> {
    let db = staff.db();
    let reservation = reserve(db, admin, client_addr).await?;
    let user_id = admin.user_id;
    let Some(row) = db.run(move |conn| t::find(conn, user_id)).await? else {
        reservation.release(db).await?;
        return Err(TotpError::NotOn);
    };
    if row.confirmed_at_ms.is_none() {
        reservation.release(db).await?;
        return Err(TotpError::NotOn);
    }
    let (secret, stale_key) = open(keys, &row)?;
    // Six digits are a code; anything else can only be a recovery code.
    let step = matching_step(secret.expose(), input, now_secs());
    let recovery = normalise_recovery_code(input).map(|c| recovery_hash(user_id, &c));
    let resealed = if stale_key {
        Some(seal(keys.0.current(), user_id, secret.expose())?)
    } else {
        None
    };
    let (me, client, pending_hash) = (
        admin.clone(),
        client_addr.to_string(),
        admin.session_hash.clone(),
    );
    let done = db
        .run(move |conn| {
            let now = now_ms();
            conn.write_tx(|conn| {
                let how = if let Some(step) = step {
                    t::accept_step(conn, user_id, step_i64(step), false, now)?
                        .then_some(SecondFactor::Code)
                } else if let Some(hash) = &recovery {
                    if t::use_recovery_code(conn, user_id, hash, now)? {
                        Some(SecondFactor::RecoveryCode(t::recovery_codes_left(
                            conn, user_id,
                        )?))
                    } else {
                        None
                    }
                } else {
                    None
                };
                let Some(how) = how else {
                    me.audit(
                        conn,
                        action::TOTP_FAILED,
                        None,
                        &client,
                        "wrong, reused or expired code at login",
                        now,
                    )?;
                    reservation.settle_in(conn, Outcome::Failed)?;
                    return Ok::<_, DbError>(None);
                };
                if let Some((key_id, nonce, ciphertext)) = &resealed {
                    t::reseal(conn, user_id, key_id, nonce, ciphertext)?;
                }
                q::delete_session(conn, &pending_hash)?;
                let token = SessionToken::generate();
                q::insert_session(
                    conn,
                    &SessionRow {
                        id_hash: token.hash(),
                        user_id,
                        created_at_ms: now,
                        last_seen_ms: now,
                        client_addr: client.clone(),
                        stage: Stage::Full.as_str().to_string(),
                    },
                )?;
                q::set_last_login(conn, user_id, now)?;
                let details = match how {
                    SecondFactor::Code => "signed in with password and TOTP code".to_string(),
                    SecondFactor::RecoveryCode(left) => {
                        format!("signed in with password and a recovery code ({left} left)")
                    }
                };
                me.audit(conn, action::LOGIN, None, &client, &details, now)?;
                reservation.settle_in(conn, Outcome::Success)?;
                Ok(Some((token, how)))
            })
        })
        .await?;
    done.ok_or(TotpError::WrongCode)
}

/// Replaces the signed-in admin's recovery codes (the old ones stop working).
pub async fn renew_recovery_codes(
    staff: &Staff,
    admin: &Admin,
    client_addr: &str,
) -> Result<RecoveryCodes, TotpError> {
    let db = staff.db();
    let user_id = admin.user_id;
    let (codes, hashes) = new_recovery_codes(user_id);
    let (me, client) = (admin.clone(), client_addr.to_string());
    let renewed = db
        .run(move |conn| {
            let now = now_ms();
            conn.write_tx(|conn| {
                if !is_on(conn, user_id)? {
                    return Ok::<_, DbError>(false);
                }
                t::replace_recovery_codes(conn, user_id, &hashes, now)?;
                me.audit(
                    conn,
                    action::TOTP_RECOVERY_CODES_RENEWED,
                    None,
                    &client,
                    &format!("{RECOVERY_CODES} new recovery codes; the old ones no longer work"),
                    now,
                )?;
                Ok(true)
            })
        })
        .await?;
    if renewed {
        Ok(codes)
    } else {
        Err(TotpError::NotOn)
    }
}

/// An owner turns another account's TOTP off (a lost phone): its secret and recovery codes are
/// deleted and its sessions end; it enrols again (at once, when TOTP is required for all).
pub async fn reset(
    staff: &Staff,
    owner: &Admin,
    user_id: i64,
    client_addr: &str,
) -> Result<(), TotpError> {
    let db = staff.db();
    if !owner.is_owner() {
        return Err(TotpError::NotOwner);
    }
    let (me, client) = (owner.clone(), client_addr.to_string());
    db.run(move |conn| {
        let now = now_ms();
        conn.write_tx(|conn| {
            let Some(user) = q::find_user(conn, user_id)? else {
                return Err(TotpError::NotFound);
            };
            if !t::remove(conn, user_id)? {
                return Err(TotpError::NotOn);
            }
            let ended = q::delete_user_sessions(conn, user_id)?;
            me.audit(
                conn,
                action::TOTP_RESET,
                Some(&format!("user:{user_id}")),
                &client,
                &format!(
                    "TOTP and recovery codes of {} removed; {ended} session(s) ended",
                    user.email
                ),
                now,
            )?;
            Ok(())
        })
    })
    .await
}

/// Removes an account's TOTP from the command line (the last owner lost their phone and their
/// recovery codes). Returns whether it had one.
pub async fn reset_from_cli(db: &Db, email: &str) -> Result<Option<bool>, DbError> {
    let email = email.to_string();
    db.run(move |conn| {
        let now = now_ms();
        conn.write_tx(|conn| {
            let Some(user) = q::find_user_by_email(conn, &email)? else {
                return Ok(None);
            };
            let had = t::remove(conn, user.id)?;
            let ended = q::delete_user_sessions(conn, user.id)?;
            q::append_audit(
                conn,
                &q::NewAudit {
                    at_ms: now,
                    user_id: None,
                    actor: "cli",
                    action: action::TOTP_RESET,
                    target: Some(&format!("user:{}", user.id)),
                    client_addr: "local",
                    details: &format!(
                        "TOTP and recovery codes of {email} removed; {ended} session(s) ended"
                    ),
                },
            )?;
            Ok(Some(had))
        })
    })
    .await
}

/// What [`rotate`] did with the TOTP secrets.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rotation {
    /// Secrets re-sealed under the current key.
    pub resealed: usize,
    /// Accounts whose secret is sealed under a key not given, or does not open: left as they
    /// are (an owner, or `admin reset-totp`, can reset them).
    pub unreadable: Vec<i64>,
}

/// Re-seals every TOTP secret not under the current key (`storefront keys rotate`), in one
/// short transaction: there is one row per console account.
pub async fn rotate(db: &Db, keys: &TotpKeys) -> Result<Rotation, TotpError> {
    let keys = keys.clone();
    db.run(move |conn| {
        conn.write_tx(|conn| {
            let mut rotation = Rotation::default();
            for row in t::not_under_key(conn, keys.0.current().id())? {
                match open(&keys, &row) {
                    Ok((secret, _)) => {
                        let (key_id, nonce, ciphertext) =
                            seal(keys.0.current(), row.user_id, secret.expose())?;
                        t::reseal(conn, row.user_id, &key_id, &nonce, &ciphertext)?;
                        rotation.resealed += 1;
                    }
                    Err(_) => rotation.unreadable.push(row.user_id),
                }
            }
            Ok(rotation)
        })
    })
    .await
}

/// An owner requires TOTP for every console account, or stops requiring it. Requiring it ends
/// the sessions of every account without TOTP (they enrol at their next login); the owner must
/// have TOTP on first.
pub async fn set_required_for_all(
    staff: &Staff,
    owner: &Admin,
    required: bool,
    client_addr: &str,
) -> Result<(), TotpError> {
    let db = staff.db();
    if !owner.is_owner() {
        return Err(TotpError::NotOwner);
    }
    let (me, client) = (owner.clone(), client_addr.to_string());
    db.run(move |conn| {
        let now = now_ms();
        conn.write_tx(|conn| {
            let details = if required {
                if !is_on(conn, me.user_id)? {
                    return Err(TotpError::OwnerWithout);
                }
                let without = t::active_users_without_totp(conn)?;
                let ended = q::delete_sessions_of(conn, &without)?;
                format!(
                    "TOTP required for every console account; {} account(s) without it, {ended} session(s) ended",
                    without.len()
                )
            } else {
                "TOTP no longer required for every console account".to_string()
            };
            settings::set_setting(conn, REQUIRE_SETTING, i64::from(required), now)?;
            me.audit(
                conn,
                if required {
                    action::TOTP_REQUIRED
                } else {
                    action::TOTP_NOT_REQUIRED
                },
                None,
                &client,
                &details,
                now,
            )?;
            Ok(())
        })
    })
    .await
}

/// The stage a session starts in after a right password.
pub fn stage_after_password(conn: &mut DbConn, user_id: i64) -> Result<Stage, DbError> {
    if is_on(conn, user_id)? {
        Ok(Stage::Totp)
    } else if required_for_all(conn)? {
        Ok(Stage::Enrol)
    } else {
        Ok(Stage::Full)
    }
}

/// How long a session may wait for its second factor.
pub const PENDING_MS: i64 = 10 * 60 * 1000;

/// Whether a session in `stage` created at `created_ms` is still alive at `now_ms`, on top of
/// the usual timeouts: one waiting for its code lives [`PENDING_MS`]; full and enrolment
/// sessions only have the usual ones.
pub fn pending_alive(stage: Stage, created_ms: i64, now_ms: i64) -> bool {
    stage != Stage::Totp || now_ms - created_ms < PENDING_MS
}

#[cfg(test)]
mod tests {
    use super::*;

    // RFC 6238 appendix B, SHA-1: the 20-byte ASCII secret "12345678901234567890".
    const RFC_SECRET: &[u8] = b"12345678901234567890";

    #[test]
    fn codes_match_the_rfc_test_vectors() {
        // T = 59 s → 94287082 (8 digits); the 6-digit code is its last six.
        assert_eq!(code_at_step(RFC_SECRET, 59 / STEP_SECS), "287082");
        assert_eq!(
            code_at_step(RFC_SECRET, 1_111_111_109 / STEP_SECS),
            "081804"
        );
        assert_eq!(
            code_at_step(RFC_SECRET, 2_000_000_000 / STEP_SECS),
            "279037"
        );
    }

    #[test]
    fn one_step_of_skew_either_way_and_no_more() {
        let now = 1_800_000_015;
        let step = now / STEP_SECS;
        for (offset, accepted) in [(-2i64, false), (-1, true), (0, true), (1, true), (2, false)] {
            let at = step.checked_add_signed(offset).expect("step");
            let code = code_at_step(RFC_SECRET, at);
            assert_eq!(
                matching_step(RFC_SECRET, &code, now),
                accepted.then_some(at),
                "offset {offset}"
            );
        }
        assert_eq!(matching_step(RFC_SECRET, "12345", now), None);
        assert_eq!(matching_step(RFC_SECRET, "abcdef", now), None);
    }

    #[test]
    fn secrets_open_only_for_their_account_and_key() {
        let a = TotpKeys::derive(&SecretKey::generate(), &[]);
        let b = TotpKeys::derive(&SecretKey::generate(), &[]);
        let (key_id, nonce, ciphertext) =
            seal(a.0.current(), 7, b"twenty bytes secret!").expect("seal");
        let row = |user_id| TotpRow {
            user_id,
            key_id: key_id.clone(),
            nonce: nonce.clone(),
            ciphertext: ciphertext.clone(),
            created_at_ms: 0,
            confirmed_at_ms: None,
            last_step: None,
        };
        let (secret, stale) = open(&a, &row(7)).expect("opens");
        assert_eq!(secret.expose(), b"twenty bytes secret!");
        assert!(!stale);
        assert!(open(&a, &row(8)).is_err(), "another account's row");
        assert!(open(&b, &row(7)).is_err(), "another key");
        assert!(!ciphertext.contains(&hex::encode(b"twenty bytes secret!")));
    }

    #[test]
    fn recovery_codes_are_random_grouped_and_typed_loosely() {
        let (codes, hashes) = new_recovery_codes(3);
        assert_eq!(codes.expose().len(), RECOVERY_CODES);
        assert_eq!(hashes.len(), RECOVERY_CODES);
        let first = &codes.expose()[0];
        assert_eq!(first.len(), 19, "{first}");
        let typed = format!(" {} ", first.to_uppercase().replace('-', " "));
        let normalised = normalise_recovery_code(&typed).expect("normalises");
        assert_eq!(recovery_hash(3, &normalised), hashes[0]);
        assert_ne!(
            recovery_hash(4, &normalised),
            hashes[0],
            "bound to the account"
        );
        assert_eq!(normalise_recovery_code("123456"), None);
        assert!(!format!("{codes:?}").contains(first.as_str()));
    }

    #[test]
    fn the_otpauth_uri_names_the_issuer_and_account() {
        let uri = otpauth_uri("ABC", "owner@example.com");
        assert_eq!(
            uri,
            "otpauth://totp/storefront%20console:owner%40example.com?secret=ABC&issuer=storefront%20console&algorithm=SHA1&digits=6&period=30"
        );
    }
}
