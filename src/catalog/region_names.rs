//! The owner's own region names, one per region and shop language, as the console changes
//! them. A region without one is named by CLDR (or as upstream names it): see
//! [`super::snapshot::region_names`], the one rule every page, title and email goes through.
//! A save is one transaction with its audit entry and a raised pricing version; then the
//! catalog is reloaded, and other replicas follow through the pricing version.

use crate::catalog::Catalog;
use crate::catalog::snapshot::region_names;
use crate::db::region_names as q;
use crate::db::{DbError, now_ms};
use crate::i18n::Lang;
use crate::staff::Admin;

/// The longest name the shop takes: a region's name is a heading and a card title.
pub const MAX_CHARS: usize = 60;

/// A region's names as the console shows them.
#[derive(Debug, Clone)]
pub struct RegionNames {
    pub slug: String,
    /// Upstream's English name.
    pub upstream: String,
    /// What the shop shows in each language, with whether it is the owner's own.
    pub names: Vec<(Lang, String, bool)>,
    /// The name each language falls back to without the owner's.
    pub defaults: Vec<(Lang, String)>,
}

#[derive(Debug, thiserror::Error)]
pub enum RegionNameError {
    #[error("there is no region {0:?} in the catalog")]
    UnknownRegion(String),
    #[error("a region's name is at most {MAX_CHARS} characters ({0} is longer)")]
    TooLong(&'static str),
    #[error("a region's name cannot contain line breaks or control characters ({0})")]
    Control(&'static str),
    #[error(transparent)]
    Db(#[from] DbError),
}

/// Every region listed in the shop, with its names.
pub async fn list(catalog: &Catalog) -> Result<Vec<RegionNames>, DbError> {
    let own = catalog.db().run(q::list).await?;
    let snap = catalog.snapshot();
    Ok(snap
        .listed_regions()
        .map(|region| {
            let mine: Vec<_> = own
                .iter()
                .filter(|row| row.slug == region.slug)
                .cloned()
                .collect();
            let shown = region_names(&region.name, &mine);
            let defaults = region_names(&region.name, &[]);
            RegionNames {
                slug: region.slug.clone(),
                upstream: region.name.clone(),
                names: Lang::ALL
                    .iter()
                    .map(|&lang| {
                        let is_own = mine.iter().any(|row| row.lang == lang.code());
                        (lang, shown[lang as usize].clone(), is_own)
                    })
                    .collect(),
                defaults: Lang::ALL
                    .iter()
                    .map(|&lang| (lang, defaults[lang as usize].clone()))
                    .collect(),
            }
        })
        .collect())
}

/// Saves the names of `slug` given per language: a name equal to the default (or empty)
/// removes the owner's own, so the region follows CLDR again. Audited with what changed;
/// returns whether anything did.
#[tracing::instrument(skip_all, fields(admin.id = by.user_id, region = slug))]
pub async fn save(
    catalog: &Catalog,
    by: &Admin,
    client_addr: &str,
    slug: &str,
    given: Vec<(Lang, String)>,
) -> Result<bool, RegionNameError> {
    let snap = catalog.snapshot();
    let region = snap
        .listed_regions()
        .find(|r| r.slug == slug)
        .ok_or_else(|| RegionNameError::UnknownRegion(slug.to_string()))?;
    let defaults = region_names(&region.name, &[]);
    let mut wanted: Vec<(Lang, Option<String>)> = Vec::new();
    for (lang, raw) in given {
        let name = raw.split_whitespace().collect::<Vec<_>>().join(" ");
        if name.chars().any(char::is_control) || raw.contains(['\r', '\n']) {
            return Err(RegionNameError::Control(lang.name()));
        }
        if name.chars().count() > MAX_CHARS {
            return Err(RegionNameError::TooLong(lang.name()));
        }
        let own = (!name.is_empty() && name != defaults[lang as usize]).then_some(name);
        wanted.push((lang, own));
    }
    let (by, client, slug, english) = (
        by.clone(),
        client_addr.to_string(),
        slug.to_string(),
        region.name.clone(),
    );
    let changed = catalog
        .db()
        .run(move |conn| {
            let now = now_ms();
            conn.write_tx(|conn| {
                let before = q::of_region(conn, &slug)?;
                let mut changes = Vec::new();
                for (lang, own) in &wanted {
                    let old = before.iter().find(|row| row.lang == lang.code());
                    if old.map(|row| &row.name) == own.as_ref() {
                        continue;
                    }
                    q::set(conn, &slug, lang.code(), own.as_deref(), now)?;
                    let shown = |name: Option<&String>| {
                        name.map_or_else(|| "the default".to_string(), |n| format!("“{n}”"))
                    };
                    changes.push(format!(
                        "{}: {} → {}",
                        lang.name(),
                        shown(old.map(|row| &row.name)),
                        shown(own.as_ref())
                    ));
                }
                if changes.is_empty() {
                    return Ok::<_, DbError>(false);
                }
                by.audit(
                    conn,
                    crate::staff::action::REGION_NAMES_SAVED,
                    Some(&format!("region:{slug}")),
                    &client,
                    &format!("{english}: {}", changes.join("; ")),
                    now,
                )?;
                Ok(true)
            })
        })
        .await?;
    if changed {
        catalog.reload().await?;
    }
    Ok(changed)
}
