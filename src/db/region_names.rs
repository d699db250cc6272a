//! The owner's own region names (`region_names`), one per region and shop language. A change
//! raises the pricing version in the same transaction, so every replica rebuilds its catalog
//! snapshot and the pages that name the region.

use diesel::prelude::*;

use crate::db::schema::region_names;
use crate::db::{DbConn, DbError};

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = region_names)]
pub struct RegionNameRow {
    pub slug: String,
    /// A shop language's code (`en`, `de`, `es`).
    pub lang: String,
    pub name: String,
    pub updated_at_ms: i64,
}

/// Every stored name, by region then language.
pub fn list(conn: &mut DbConn) -> Result<Vec<RegionNameRow>, DbError> {
    Ok(region_names::table
        .select(RegionNameRow::as_select())
        .order((region_names::slug, region_names::lang))
        .load(conn)?)
}

/// The stored names of one region.
pub fn of_region(conn: &mut DbConn, slug: &str) -> Result<Vec<RegionNameRow>, DbError> {
    Ok(region_names::table
        .filter(region_names::slug.eq(slug))
        .select(RegionNameRow::as_select())
        .order(region_names::lang)
        .load(conn)?)
}

/// Sets the name of `slug` in `lang` (`None` removes it), in the caller's transaction, and
/// raises the pricing version. Returns whether anything changed.
pub fn set(
    conn: &mut DbConn,
    slug: &str,
    lang: &str,
    name: Option<&str>,
    now_ms: i64,
) -> Result<bool, DbError> {
    let key = region_names::table.find((slug, lang));
    let changed = match name {
        Some(name) => crate::with_inner!(&mut *conn, |c| {
            diesel::insert_into(region_names::table)
                .values((
                    region_names::slug.eq(slug),
                    region_names::lang.eq(lang),
                    region_names::name.eq(name),
                    region_names::updated_at_ms.eq(now_ms),
                ))
                .on_conflict((region_names::slug, region_names::lang))
                .do_update()
                .set((
                    region_names::name.eq(name),
                    region_names::updated_at_ms.eq(now_ms),
                ))
                .execute(c)
        })?,
        None => diesel::delete(key).execute(conn)?,
    };
    if changed > 0 {
        crate::db::pricing::bump_version(conn, now_ms)?;
    }
    Ok(changed > 0)
}
