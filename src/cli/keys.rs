//! `storefront keys`: the secret key's life. `generate` prints a new key; `rotate` re-seals
//! every installation and every console account's TOTP secret still under a previous key
//! (`STOREFRONT_PREVIOUS_SECRET_KEYS`) with the current one (`STOREFRONT_SECRET_KEY`), so the
//! previous keys can then be dropped. The
//! operator's steps are in docs/architecture.md ("Rotating the secret key").

use crate::config::{ConfigError, DatabaseUrl, PREFIX, PREVIOUS_SECRET_KEYS, SecretKey};
use crate::db::Db;
use crate::orders::installation::{self, InstallationError, InstallationKeys};
use crate::staff::{self, totp::TotpKeys};

use super::CliError;

/// Prints a fresh key in the format `STOREFRONT_SECRET_KEY` takes. Standard output only: the
/// key is never logged.
pub fn generate() {
    println!("{}", SecretKey::generate().to_hex().expose());
}

/// Re-encrypts the installations of each previous key under the current key and reports per
/// key; fails (exit 1) if any installation is left under a key other than the current one.
pub async fn rotate(
    url: DatabaseUrl,
    current: SecretKey,
    previous: Vec<SecretKey>,
) -> Result<(), CliError> {
    if previous.is_empty() {
        return Err(CliError::Config(ConfigError {
            var: format!("{PREFIX}{PREVIOUS_SECRET_KEYS}"),
            problem: "is required by `keys rotate`: list the keys to rotate away from \
                      (STOREFRONT_SECRET_KEY is the key rotated to)"
                .into(),
        }));
    }
    let keys = InstallationKeys::derive(&current, &previous);
    let db = Db::open_for_command(&url, 2)?;
    db.migrate().await?;

    let mut unreadable: Vec<(String, Vec<String>)> = Vec::new();
    for (n, old) in keys.previous().iter().enumerate() {
        let (old, new) = (old.clone(), keys.current().clone());
        let rotation = db
            .run(move |conn| installation::rotate(conn, &old, &new))
            .await
            .map_err(rotate_error)?;
        let id = keys.previous()[n].id().to_string();
        println!(
            "{id} (previous key {} of {}): {} installations re-encrypted",
            n + 1,
            keys.previous().len(),
            rotation.reencrypted
        );
        if !rotation.unreadable.is_empty() {
            let purchases = rotation
                .unreadable
                .iter()
                .map(ToString::to_string)
                .collect();
            unreadable.push((id, purchases));
        }
    }

    let census = db
        .run(installation::rows_per_key)
        .await
        .map_err(rotate_error)?;
    let under_current = census
        .iter()
        .find(|(id, _)| id == keys.current().id())
        .map_or(0, |(_, count)| *count);
    println!(
        "{} (current key): {under_current} installations",
        keys.current().id()
    );

    let totp = staff::totp::rotate(&db, &TotpKeys::derive(&current, &previous))
        .await
        .map_err(|e| match e {
            staff::totp::TotpError::Db(db) => CliError::Db(db),
            other => CliError::Io(other.to_string()),
        })?;
    println!(
        "console TOTP secrets: {} re-sealed under the current key",
        totp.resealed
    );

    let mut problems = Vec::new();
    if !totp.unreadable.is_empty() {
        problems.push(format!(
            "the TOTP secrets of {} console account(s) (ids {}) do not open with any key given: \
             add their key to STOREFRONT_PREVIOUS_SECRET_KEYS, or reset their two-factor sign-in \
             (`storefront admin reset-totp`)",
            totp.unreadable.len(),
            totp.unreadable
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    for (id, purchases) in &unreadable {
        problems.push(format!(
            "{} installations under {id} do not decrypt with it and were left as they are \
             (purchases {})",
            purchases.len(),
            purchases.join(", ")
        ));
    }
    for (id, count) in census.iter().filter(|(id, _)| id != keys.current().id()) {
        let skipped = unreadable
            .iter()
            .find(|(key, _)| key == id)
            .map_or(0, |(_, p)| i64::try_from(p.len()).unwrap_or(i64::MAX));
        let count = count.saturating_sub(skipped);
        if count == 0 {
            continue;
        }
        if keys.previous().iter().any(|k| k.id() == id) {
            problems.push(format!(
                "{count} installations were sealed under {id} while rotating: a replica still \
                 runs with it as STOREFRONT_SECRET_KEY; run `keys rotate` again once every \
                 replica has the new key"
            ));
        } else {
            problems.push(format!(
                "{count} installations are sealed under {id}, which no key given derives: add \
                 the key they were sealed with to STOREFRONT_PREVIOUS_SECRET_KEYS and run again"
            ));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(CliError::Incomplete(format!(
            "rotation incomplete, keep STOREFRONT_PREVIOUS_SECRET_KEYS for now: {}",
            problems.join("; ")
        )))
    }
}

fn rotate_error(err: InstallationError) -> CliError {
    match err {
        InstallationError::Db(db) => CliError::Db(db),
        other => CliError::Io(other.to_string()),
    }
}
