//! Installation details and their storage, encrypted at rest (the `fetch_installation` job,
//! `orders::jobs::fetch_installation`, fetches them once and stores them through here).
//! [`InstallView`] is what the order page shows of them.
//!
//! The values (ICCID, activation code, universal link) are the consumer's private
//! credentials. The QR code is not stored: the order page draws it from the activation code
//! (rows written before carried a drawing of it, ~8 KB of the ~8.5 KB sealed; it is ignored when
//! read and dropped when a key rotation re-seals the row). They are fetched once, sealed with ChaCha20-Poly1305 under a key derived from
//! `STOREFRONT_SECRET_KEY` (a random 96-bit nonce per record, the purchase id as associated
//! data so a row copied onto another purchase does not decrypt), and the row names the key id
//! so keys can be rotated: [`InstallationKeys`] opens rows under the current key or any
//! previous one, and [`rotate`] re-seals a previous key's rows under the current key. Only
//! the last four digits of the ICCID are stored in clear, for support. Nothing here logs a
//! value; [`InstallationDetails`]'s `Debug` redacts.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::config::{Secret, SecretKey};
use crate::db::installations::{self, InstallationRow};
use crate::db::{DbConn, DbError};
use crate::domain::PurchaseId;
use crate::domain::esim::{apple_setup_link, parse_activation_code, safe_install_link};
use crate::sealing::SealKey;
use crate::upstream::Installation;

#[derive(Debug, thiserror::Error)]
pub enum InstallationError {
    #[error(transparent)]
    Db(#[from] DbError),
    /// The row was sealed under a key not held here (the secret key changed and the old one
    /// is not among the previous keys).
    #[error(
        "installation of purchase {purchase_id} is encrypted under key {row_key_id}, not {key_id}"
    )]
    WrongKey {
        purchase_id: PurchaseId,
        row_key_id: String,
        key_id: String,
    },
    /// The row does not decrypt or decode: tampered, truncated or moved to another purchase.
    #[error("installation of purchase {0} cannot be decrypted")]
    Corrupt(PurchaseId),
    #[error("installation could not be encrypted")]
    Seal,
}

impl From<diesel::result::Error> for InstallationError {
    fn from(e: diesel::result::Error) -> Self {
        Self::Db(DbError::Query(e))
    }
}

/// The encryption key for installations, derived from the shop's secret key (never the
/// secret itself, which also signs cookies), with a public id stored on each row.
#[derive(Clone)]
pub struct InstallationKey(SealKey);

impl InstallationKey {
    pub fn derive(secret: &SecretKey) -> Self {
        Self(SealKey::derive(
            secret,
            b"storefront installation encryption key v1",
            b"storefront installation key id v1",
        ))
    }

    /// Stored with each row; identifies the key without revealing it.
    pub fn id(&self) -> &str {
        self.0.id()
    }
}

impl fmt::Debug for InstallationKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InstallationKey")
            .field("id", &self.id())
            .field("key", &"[redacted]")
            .finish()
    }
}

/// The installation keys of a running shop: the current key seals every new row; previous
/// keys (from `STOREFRONT_PREVIOUS_SECRET_KEYS`) only open rows a rotation has not re-sealed
/// yet. A row names its key by id, so opening never tries keys in turn.
#[derive(Debug, Clone)]
pub struct InstallationKeys {
    current: InstallationKey,
    previous: Vec<InstallationKey>,
}

impl InstallationKeys {
    pub fn derive(current: &SecretKey, previous: &[SecretKey]) -> Self {
        Self {
            current: InstallationKey::derive(current),
            previous: previous.iter().map(InstallationKey::derive).collect(),
        }
    }

    /// The key new rows are sealed under.
    pub fn current(&self) -> &InstallationKey {
        &self.current
    }

    /// The keys rows may still be sealed under until they are rotated, in the order given.
    pub fn previous(&self) -> &[InstallationKey] {
        &self.previous
    }

    fn by_id(&self, key_id: &str) -> Option<&InstallationKey> {
        std::iter::once(&self.current)
            .chain(&self.previous)
            .find(|k| k.id() == key_id)
    }
}

/// Decrypted installation details, for the private order page only. `Debug` shows nothing
/// secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallationDetails {
    pub esim_id: String,
    pub iccid: Secret<String>,
    pub activation_code: Secret<String>,
    pub universal_link: Option<Secret<String>>,
    pub iccid_last4: String,
}

/// The sealed plaintext. Older rows also hold `qr_code_svg`, which reading ignores.
#[derive(Serialize, Deserialize)]
struct Sealed {
    iccid: String,
    activation_code: String,
    universal_link: Option<String>,
}

fn seal(
    key: &InstallationKey,
    purchase_id: &PurchaseId,
    plain: &Sealed,
) -> Result<(String, String), InstallationError> {
    let json = serde_json::to_vec(plain).map_err(|_| InstallationError::Seal)?;
    key.0
        .seal(&json, purchase_id.as_str().as_bytes())
        .map_err(|_| InstallationError::Seal)
}

fn open(key: &InstallationKey, row: &InstallationRow) -> Result<Sealed, InstallationError> {
    if row.key_id != key.id() {
        return Err(InstallationError::WrongKey {
            purchase_id: row.purchase_id.clone(),
            row_key_id: row.key_id.clone(),
            key_id: key.id().to_string(),
        });
    }
    let corrupt = || InstallationError::Corrupt(row.purchase_id.clone());
    let json = key
        .0
        .open(
            &row.nonce,
            &row.ciphertext,
            row.purchase_id.as_str().as_bytes(),
        )
        .map_err(|_| corrupt())?;
    serde_json::from_slice(json.expose()).map_err(|_| corrupt())
}

/// An inline SVG QR code of `activation_code` (no XML declaration: it goes inside HTML);
/// `None` for a code too long for a QR code (the buyer then types or pastes it).
pub fn render_qr(activation_code: &str) -> Option<String> {
    let svg = qrcode::QrCode::new(activation_code.trim().as_bytes())
        .ok()?
        .render::<qrcode::render::svg::Color<'_>>()
        .min_dimensions(240, 240)
        .quiet_zone(true)
        .build();
    Some(match svg.find("<svg") {
        Some(start) => svg[start..].to_string(),
        None => svg,
    })
}

fn last4(iccid: &str) -> String {
    let chars: Vec<char> = iccid.chars().collect();
    chars[chars.len().saturating_sub(4)..].iter().collect()
}

/// Seals `installation` into a row for `purchase_id`.
pub fn encrypt(
    key: &InstallationKey,
    purchase_id: &PurchaseId,
    installation: &Installation,
    now_ms: i64,
) -> Result<InstallationRow, InstallationError> {
    let plain = Sealed {
        iccid: installation.iccid.expose().clone(),
        activation_code: installation.activation_code.expose().clone(),
        // Upstream's SVG is neither shown nor kept: the order page draws its own QR code.
        universal_link: installation
            .universal_link
            .as_ref()
            .map(|l| l.expose().clone()),
    };
    let (nonce, ciphertext) = seal(key, purchase_id, &plain)?;
    Ok(InstallationRow {
        purchase_id: purchase_id.clone(),
        esim_id: installation.esim_id.clone(),
        key_id: key.id().to_string(),
        nonce,
        ciphertext,
        iccid_last4: last4(installation.iccid.expose()),
        created_at_ms: now_ms,
    })
}

/// The decrypted installation of a purchase, `None` when none is stored yet; only a row
/// sealed under `key` opens.
pub fn load_installation(
    conn: &mut DbConn,
    key: &InstallationKey,
    purchase_id: &PurchaseId,
) -> Result<Option<InstallationDetails>, InstallationError> {
    let Some(row) = installations::installation(conn, purchase_id)? else {
        return Ok(None);
    };
    let plain = open(key, &row)?;
    Ok(Some(details(row, plain)))
}

/// The decrypted installation of a purchase, `None` when none is stored yet, sealed under
/// any of `keys` (the current key or one not rotated away yet).
pub fn load_installation_with(
    conn: &mut DbConn,
    keys: &InstallationKeys,
    purchase_id: &PurchaseId,
) -> Result<Option<InstallationDetails>, InstallationError> {
    let Some(row) = installations::installation(conn, purchase_id)? else {
        return Ok(None);
    };
    let key = keys.by_id(&row.key_id).unwrap_or(&keys.current);
    let plain = open(key, &row)?;
    Ok(Some(details(row, plain)))
}

fn details(row: InstallationRow, plain: Sealed) -> InstallationDetails {
    InstallationDetails {
        esim_id: row.esim_id,
        iccid: Secret::new(plain.iccid),
        activation_code: Secret::new(plain.activation_code),
        universal_link: plain.universal_link.map(Secret::new),
        iccid_last4: row.iccid_last4,
    }
}

/// What the buyer needs to install the eSIM, derived from its [`InstallationDetails`] for the
/// order page (the only place it is shown). The order page keeps it briefly
/// (`web::order_cache`), so opening the installation is not repeated on every reload.
pub struct InstallView {
    /// Drawn by us from the activation code; never upstream markup. `None` when the code is
    /// too long for a QR code.
    pub qr_svg: Option<String>,
    pub activation_code: String,
    pub smdp_address: String,
    pub matching_id: String,
    pub install_link: Option<String>,
    /// When to install, from the plan's activation policy (a message id).
    pub activation: &'static str,
}

impl InstallView {
    /// The view of `details`, with `activation` (a message id) as the advice on when to install.
    pub fn from_details(details: &InstallationDetails, activation: &'static str) -> Self {
        let code = details.activation_code.expose().trim().to_string();
        // Drawn here, once per view derived (the order page keeps the view a minute).
        let qr_svg = render_qr(&code);
        let parts = parse_activation_code(&code);
        Self {
            qr_svg,
            smdp_address: parts
                .as_ref()
                .map(|p| p.smdp_address.clone())
                .unwrap_or_default(),
            matching_id: parts.map(|p| p.matching_id).unwrap_or_default(),
            // The supplier's link when it gives a safe one, else Apple's setup link built
            // from the code (Android has no web link to install from).
            install_link: details
                .universal_link
                .as_ref()
                .and_then(|l| safe_install_link(l.expose()).map(str::to_string))
                .or_else(|| apple_setup_link(&code)),
            activation_code: code,
            activation,
        }
    }
}

/// What [`rotate`] did with one old key's rows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rotation {
    /// Rows re-sealed under the new key.
    pub reencrypted: usize,
    /// Purchases whose row names the old key but does not decrypt with it (tampered or
    /// damaged): left as they are, for someone to look at.
    pub unreadable: Vec<PurchaseId>,
}

/// Re-encrypts every row sealed under `old` with `new` (fresh nonces), a page per short
/// transaction. Safe to interrupt and run again: each row changes in one commit, only if it
/// is still under `old`, so a second run finds only what the first did not reach (or what a
/// process still sealing under `old` wrote since). A row that does not decrypt is reported
/// and skipped, so one bad row cannot hold up the others.
pub fn rotate(
    conn: &mut DbConn,
    old: &InstallationKey,
    new: &InstallationKey,
) -> Result<Rotation, InstallationError> {
    const PAGE: i64 = 100;
    let mut rotation = Rotation::default();
    if old.id() == new.id() {
        return Ok(rotation);
    }
    let mut after = String::new();
    loop {
        let (seen, last) = conn.write_tx(|conn| {
            let rows = installations::installations_under_key(conn, old.id(), &after, PAGE)?;
            for row in &rows {
                let plain = match open(old, row) {
                    Ok(plain) => plain,
                    Err(InstallationError::Corrupt(purchase_id)) => {
                        rotation.unreadable.push(purchase_id);
                        continue;
                    }
                    Err(other) => return Err(other),
                };
                let (nonce, ciphertext) = seal(new, &row.purchase_id, &plain)?;
                if installations::reencrypt_installation(
                    conn,
                    &row.purchase_id,
                    old.id(),
                    new.id(),
                    &nonce,
                    &ciphertext,
                )? {
                    rotation.reencrypted += 1;
                }
            }
            Ok::<_, InstallationError>((rows.len(), rows.last().map(|r| r.purchase_id.to_string())))
        })?;
        match last {
            Some(last) if seen >= usize::try_from(PAGE).unwrap_or(usize::MAX) => after = last,
            _ => return Ok(rotation),
        }
    }
}

/// How many installations each key id seals: what a rotation has left to do.
pub fn rows_per_key(conn: &mut DbConn) -> Result<Vec<(String, i64)>, InstallationError> {
    Ok(installations::installations_per_key(conn)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(raw: &str) -> PurchaseId {
        PurchaseId::parse(raw).expect("a purchase id")
    }

    fn sample() -> Installation {
        Installation {
            esim_id: "esim_1".into(),
            iccid: Secret::new("8901234567890123456".into()),
            activation_code: Secret::new("LPA:1$smdp.example$MATCH-ID-1".into()),
            qr_code_svg: Secret::new("<svg/>".into()),
            universal_link: None,
        }
    }

    /// The stored installation is what the page needs, not a drawing: a few hundred bytes
    /// sealed. A row written with the QR drawing inside still opens.
    #[test]
    fn rows_keep_the_code_not_a_drawing_and_old_rows_with_one_still_open() {
        let key = InstallationKey::derive(&SecretKey::from_bytes([1; 32]));
        let row = encrypt(&key, &id("pur_1"), &sample(), 0).expect("seals");
        assert!(
            row.ciphertext.len() < 600,
            "{} bytes sealed",
            row.ciphertext.len()
        );
        let drawing = render_qr("LPA:1$smdp.example$MATCH-ID-1").expect("drawn");
        assert!(drawing.len() > 4_000, "a drawing is kilobytes");
        let old = serde_json::json!({
            "iccid": "8901234567890123456",
            "activation_code": "LPA:1$smdp.example$MATCH-ID-1",
            "qr_code_svg": drawing,
            "universal_link": null,
        });
        let (nonce, ciphertext) = key
            .0
            .seal(old.to_string().as_bytes(), b"pur_1")
            .expect("seals");
        let old_row = InstallationRow {
            nonce,
            ciphertext,
            ..row
        };
        let plain = open(&key, &old_row).expect("an old row opens");
        assert_eq!(plain.activation_code, "LPA:1$smdp.example$MATCH-ID-1");
        assert_eq!(plain.iccid, "8901234567890123456");
    }

    #[test]
    fn sealed_rows_open_only_with_their_key_and_purchase() {
        let key = InstallationKey::derive(&SecretKey::from_bytes([1; 32]));
        let other = InstallationKey::derive(&SecretKey::from_bytes([2; 32]));
        assert_ne!(key.id(), other.id());
        let row = encrypt(&key, &id("pur_1"), &sample(), 0).expect("seals");
        assert_eq!(row.iccid_last4, "3456");
        assert!(!row.ciphertext.contains("MATCH-ID"));
        let plain = open(&key, &row).expect("opens");
        assert_eq!(plain.activation_code, "LPA:1$smdp.example$MATCH-ID-1");
        assert!(matches!(
            open(&other, &row),
            Err(InstallationError::WrongKey { .. })
        ));
        let moved = InstallationRow {
            purchase_id: id("pur_2"),
            ..row.clone()
        };
        assert!(matches!(
            open(&key, &moved),
            Err(InstallationError::Corrupt(_))
        ));
        let again = encrypt(&key, &id("pur_1"), &sample(), 0).expect("seals");
        assert_ne!(again.nonce, row.nonce, "a fresh nonce per record");
        assert!(!format!("{key:?}").contains(&hex::encode([1u8; 4])));
    }

    #[test]
    fn a_keyring_finds_the_key_a_row_names() {
        let (a, b, c) = (
            SecretKey::from_bytes([1; 32]),
            SecretKey::from_bytes([2; 32]),
            SecretKey::from_bytes([3; 32]),
        );
        let keys = InstallationKeys::derive(&b, &[a.clone(), c]);
        assert_eq!(keys.current().id(), InstallationKey::derive(&b).id());
        let under_a = InstallationKey::derive(&a);
        assert_eq!(
            keys.by_id(under_a.id()).map(InstallationKey::id),
            Some(under_a.id())
        );
        let unknown = InstallationKey::derive(&SecretKey::from_bytes([4; 32]));
        assert!(keys.by_id(unknown.id()).is_none());
        let row = encrypt(&under_a, &id("pur_1"), &sample(), 0).expect("seals");
        let key = keys.by_id(&row.key_id).expect("previous key found");
        assert_eq!(
            open(key, &row).expect("opens").activation_code,
            "LPA:1$smdp.example$MATCH-ID-1"
        );
    }
}
