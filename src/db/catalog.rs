//! The catalog tables: replacing the cached catalog after a sync, and reading it back.

use diesel::prelude::*;
use diesel::upsert::excluded;

use crate::db::pricing::RuleRow;
use crate::db::schema::{catalog_countries, catalog_plans, catalog_regions, catalog_syncs};
use crate::db::{DbConn, DbError};

/// Rows per multi-row statement: well under SQLite's and PostgreSQL's bind limits.
const CHUNK: usize = 500;

#[derive(Debug, Clone, PartialEq, Queryable, Insertable, Selectable)]
#[diesel(table_name = catalog_plans)]
pub struct PlanRow {
    pub id: String,
    pub country_code: String,
    pub country_name: String,
    pub scope: Option<String>,
    pub region: Option<String>,
    /// JSON array of country codes.
    pub coverage: String,
    pub data_mb: i64,
    pub validity_days: i64,
    pub cost_cents: i64,
    pub currency: String,
    pub network_type: Option<String>,
    /// JSON array, or NULL when upstream did not report networks.
    pub networks: Option<String>,
    pub activation_type: String,
    pub is_daily: bool,
    pub fup_policy: String,
    pub period_num: Option<i64>,
    pub available: bool,
    pub first_seen_ms: i64,
    pub updated_at_ms: i64,
}

#[derive(Debug, Clone, PartialEq, Queryable, Insertable)]
#[diesel(table_name = catalog_countries)]
pub struct CountryRow {
    pub code: String,
    pub name: String,
    pub available: bool,
    pub updated_at_ms: i64,
}

#[derive(Debug, Clone, PartialEq, Queryable, Insertable)]
#[diesel(table_name = catalog_regions)]
pub struct RegionRow {
    pub slug: String,
    pub name: String,
    /// JSON array of country codes.
    pub coverage: String,
    pub available: bool,
    pub updated_at_ms: i64,
}

#[derive(Debug, Clone, PartialEq, Queryable)]
pub struct SyncRow {
    pub id: i64,
    pub started_at_ms: i64,
    pub finished_at_ms: i64,
    pub ok: bool,
    pub plan_count: i64,
    pub country_count: i64,
    pub region_count: i64,
    pub error: Option<String>,
}

impl SyncRow {
    /// `412 plans, 180 countries, 6 regions`, or why it failed.
    pub fn summary(&self) -> String {
        if self.ok {
            format!(
                "{} plans, {} countries, {} regions",
                self.plan_count, self.country_count, self.region_count
            )
        } else {
            self.error.clone().unwrap_or_else(|| "failed".into())
        }
    }

    /// `2.4 s`: how long it ran, to a tenth of a second.
    pub fn took(&self) -> String {
        let ms = self
            .finished_at_ms
            .saturating_sub(self.started_at_ms)
            .max(0);
        format!("{}.{} s", ms / 1000, ms % 1000 / 100)
    }
}

/// A complete catalog as fetched from upstream, ready to replace the cached one.
#[derive(Debug, Default, Clone)]
pub struct FetchedCatalog {
    pub countries: Vec<CountryRow>,
    pub regions: Vec<RegionRow>,
    pub plans: Vec<PlanRow>,
}

/// Everything the in-memory snapshot is built from.
#[derive(Debug, Default, Clone)]
pub struct StoredCatalog {
    pub countries: Vec<CountryRow>,
    pub regions: Vec<RegionRow>,
    pub plans: Vec<PlanRow>,
    pub rules: Vec<RuleRow>,
    /// The owner's display-only exchange rates (they share the pricing version).
    pub display_rates: Vec<crate::db::display_rates::RateRow>,
    /// The owner's own region names (they share the pricing version).
    pub region_names: Vec<crate::db::region_names::RegionNameRow>,
    /// The pricing version `rules` belong to (`db::pricing::version`).
    pub pricing_version: i64,
    pub last_sync: Option<SyncRow>,
    pub last_good_sync: Option<SyncRow>,
}

/// The upsert of fetched plans, for one row or many. An upsert never changes `first_seen_ms`.
macro_rules! upsert_plans {
    ($values:expr) => {
        diesel::insert_into(catalog_plans::table)
            .values($values)
            .on_conflict(catalog_plans::id)
            .do_update()
            .set((
                catalog_plans::country_code.eq(excluded(catalog_plans::country_code)),
                catalog_plans::country_name.eq(excluded(catalog_plans::country_name)),
                catalog_plans::scope.eq(excluded(catalog_plans::scope)),
                catalog_plans::region.eq(excluded(catalog_plans::region)),
                catalog_plans::coverage.eq(excluded(catalog_plans::coverage)),
                catalog_plans::data_mb.eq(excluded(catalog_plans::data_mb)),
                catalog_plans::validity_days.eq(excluded(catalog_plans::validity_days)),
                catalog_plans::cost_cents.eq(excluded(catalog_plans::cost_cents)),
                catalog_plans::currency.eq(excluded(catalog_plans::currency)),
                catalog_plans::network_type.eq(excluded(catalog_plans::network_type)),
                catalog_plans::networks.eq(excluded(catalog_plans::networks)),
                catalog_plans::activation_type.eq(excluded(catalog_plans::activation_type)),
                catalog_plans::is_daily.eq(excluded(catalog_plans::is_daily)),
                catalog_plans::fup_policy.eq(excluded(catalog_plans::fup_policy)),
                catalog_plans::period_num.eq(excluded(catalog_plans::period_num)),
                catalog_plans::available.eq(true),
                catalog_plans::updated_at_ms.eq(excluded(catalog_plans::updated_at_ms)),
            ))
    };
}

macro_rules! upsert_countries {
    ($values:expr) => {
        diesel::insert_into(catalog_countries::table)
            .values($values)
            .on_conflict(catalog_countries::code)
            .do_update()
            .set((
                catalog_countries::name.eq(excluded(catalog_countries::name)),
                catalog_countries::available.eq(true),
                catalog_countries::updated_at_ms.eq(excluded(catalog_countries::updated_at_ms)),
            ))
    };
}

macro_rules! upsert_regions {
    ($values:expr) => {
        diesel::insert_into(catalog_regions::table)
            .values($values)
            .on_conflict(catalog_regions::slug)
            .do_update()
            .set((
                catalog_regions::name.eq(excluded(catalog_regions::name)),
                catalog_regions::coverage.eq(excluded(catalog_regions::coverage)),
                catalog_regions::available.eq(true),
                catalog_regions::updated_at_ms.eq(excluded(catalog_regions::updated_at_ms)),
            ))
    };
}

/// Replaces the cached catalog with `fetched` in one write transaction: what is fetched becomes
/// available (keeping when each plan was first seen), everything else becomes unavailable but
/// keeps its row, and the sync is recorded.
pub fn replace_catalog(
    conn: &mut DbConn,
    fetched: &FetchedCatalog,
    started_at_ms: i64,
    finished_at_ms: i64,
) -> Result<(), DbError> {
    conn.write_tx(|conn| {
        diesel::update(catalog_plans::table)
            .set(catalog_plans::available.eq(false))
            .execute(conn)?;
        diesel::update(catalog_countries::table)
            .set(catalog_countries::available.eq(false))
            .execute(conn)?;
        diesel::update(catalog_regions::table)
            .set(catalog_regions::available.eq(false))
            .execute(conn)?;
        // PostgreSQL takes one multi-row upsert per chunk. Diesel cannot build a multi-row
        // upsert for SQLite, and SQLite gains nothing from one: it runs in process, so a cached
        // single-row statement per plan costs microseconds.
        match &mut *conn {
            DbConn::Postgres(c) => {
                for chunk in fetched.plans.chunks(CHUNK) {
                    upsert_plans!(chunk).execute(c)?;
                }
                for chunk in fetched.countries.chunks(CHUNK) {
                    upsert_countries!(chunk).execute(c)?;
                }
                for chunk in fetched.regions.chunks(CHUNK) {
                    upsert_regions!(chunk).execute(c)?;
                }
            }
            DbConn::Sqlite(c) => {
                for row in &fetched.plans {
                    upsert_plans!(row).execute(c)?;
                }
                for row in &fetched.countries {
                    upsert_countries!(row).execute(c)?;
                }
                for row in &fetched.regions {
                    upsert_regions!(row).execute(c)?;
                }
            }
        }
        record_sync(
            conn,
            started_at_ms,
            finished_at_ms,
            Ok((
                fetched.plans.len(),
                fetched.countries.len(),
                fetched.regions.len(),
            )),
        )
    })
}

fn count(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// Records a sync attempt; a failed one leaves the cached catalog as it was.
pub fn record_sync(
    conn: &mut DbConn,
    started_at_ms: i64,
    finished_at_ms: i64,
    outcome: Result<(usize, usize, usize), &str>,
) -> Result<(), DbError> {
    let (ok, (plans, countries, regions), error) = match outcome {
        Ok(counts) => (true, counts, None),
        Err(e) => (false, (0, 0, 0), Some(e.to_string())),
    };
    diesel::insert_into(catalog_syncs::table)
        .values((
            catalog_syncs::started_at_ms.eq(started_at_ms),
            catalog_syncs::finished_at_ms.eq(finished_at_ms),
            catalog_syncs::ok.eq(ok),
            catalog_syncs::plan_count.eq(count(plans)),
            catalog_syncs::country_count.eq(count(countries)),
            catalog_syncs::region_count.eq(count(regions)),
            catalog_syncs::error.eq(error),
        ))
        .execute(conn)?;
    crate::db::announce_catalog_change(conn)
}

/// Everything the snapshot needs, read in one transaction so it is consistent. On PostgreSQL
/// the transaction is `REPEATABLE READ`: under the default `READ COMMITTED` each statement sees
/// its own moment, so a sync committing between the reads would give the plans from before it
/// and the sync row from after it, and the replica would take the old catalog for the new one
/// and never reload it.
pub fn load_catalog(conn: &mut DbConn) -> Result<StoredCatalog, DbError> {
    conn.transaction(|conn| {
        if let DbConn::Postgres(pg) = conn {
            diesel::sql_query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                .execute(pg)?;
        }
        Ok(StoredCatalog {
            countries: catalog_countries::table
                .order(catalog_countries::code)
                .load(conn)?,
            regions: catalog_regions::table
                .order(catalog_regions::slug)
                .load(conn)?,
            plans: catalog_plans::table
                .select(PlanRow::as_select())
                .order(catalog_plans::id)
                .load(conn)?,
            rules: crate::db::pricing::rules(conn)?,
            display_rates: crate::db::display_rates::list(conn)?,
            region_names: crate::db::region_names::list(conn)?,
            pricing_version: crate::db::pricing::version(conn)?,
            last_sync: catalog_syncs::table
                .order(catalog_syncs::id.desc())
                .first(conn)
                .optional()?,
            last_good_sync: catalog_syncs::table
                .filter(catalog_syncs::ok.eq(true))
                .order(catalog_syncs::id.desc())
                .first(conn)
                .optional()?,
        })
    })
}

/// The newest sync's id, whether it succeeded, and when it finished.
pub fn latest_sync_outcome(conn: &mut DbConn) -> Result<Option<(i64, bool, i64)>, DbError> {
    Ok(catalog_syncs::table
        .order(catalog_syncs::id.desc())
        .select((
            catalog_syncs::id,
            catalog_syncs::ok,
            catalog_syncs::finished_at_ms,
        ))
        .first(conn)
        .optional()?)
}

/// The newest catalog sync, good or failed.
pub fn last_sync(conn: &mut DbConn) -> Result<Option<SyncRow>, DbError> {
    Ok(catalog_syncs::table
        .order(catalog_syncs::id.desc())
        .first(conn)
        .optional()?)
}

/// The most recent catalog syncs, newest first.
pub fn sync_history(conn: &mut DbConn, limit: i64) -> Result<Vec<SyncRow>, DbError> {
    Ok(catalog_syncs::table
        .order(catalog_syncs::id.desc())
        .limit(limit)
        .load(conn)?)
}

/// A plan's region as stored: upstream's English name and the owner's own names.
#[derive(Debug, Clone)]
pub struct StoredRegionName {
    pub english: String,
    pub own: Vec<crate::db::region_names::RegionNameRow>,
}

/// A plan as last synced (it may have left the live catalog since), with its region's names.
pub fn stored_plan(
    conn: &mut DbConn,
    plan_id: &str,
) -> Result<Option<(PlanRow, Option<StoredRegionName>)>, DbError> {
    let row: Option<PlanRow> = catalog_plans::table
        .find(plan_id)
        .select(PlanRow::as_select())
        .first(conn)
        .optional()?;
    let Some(row) = row else {
        return Ok(None);
    };
    let region = match row.region.as_deref() {
        Some(slug) => catalog_regions::table
            .find(slug)
            .select(catalog_regions::name)
            .first::<String>(conn)
            .optional()?
            .map(|english| {
                crate::db::region_names::of_region(conn, slug)
                    .map(|own| StoredRegionName { english, own })
            })
            .transpose()?,
        None => None,
    };
    Ok(Some((row, region)))
}
