//! One full catalog sync: every page of `/plans` (100 a page), `/countries` and `/regions`,
//! fetched completely before anything is written, then stored in one transaction.

use std::collections::HashMap;
use std::time::Duration;

use crate::db::DbError;
use crate::db::catalog::{CountryRow, FetchedCatalog, PlanRow, RegionRow};
use crate::upstream::{PageLimit, PartnerClient, Plan, PlanFilter, UpstreamError};

#[derive(Debug, thiserror::Error)]
pub enum SyncError {
    #[error("fetching the catalog failed: {0}")]
    Upstream(#[from] UpstreamError),
    #[error(transparent)]
    Db(#[from] DbError),
    #[error("the upstream catalog is unusable: {0}")]
    Invalid(String),
}

/// What a sync did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyncReport {
    pub plans: usize,
    pub countries: usize,
    pub regions: usize,
    /// Plans left out because they cannot be ordered (an id the order endpoint would refuse).
    pub skipped_plans: usize,
    pub elapsed: Duration,
    /// Of `elapsed`: fetching every page, writing the catalog, rebuilding the snapshot.
    pub fetch: Duration,
    pub store: Duration,
    pub reload: Duration,
}

/// Fetches the whole catalog. Any failure fails the whole fetch.
pub async fn fetch(
    client: &PartnerClient,
    now_ms: i64,
) -> Result<(FetchedCatalog, usize), SyncError> {
    let limit = PageLimit::new(100).map_err(|e| SyncError::Invalid(e.to_string()))?;
    let (countries, regions, plans) = tokio::try_join!(
        client.countries(),
        client.regions(),
        client
            .plans_pager(&PlanFilter::default(), limit)
            .collect_all(),
    )?;
    let mut skipped = 0;
    // The last copy of an id wins: a page boundary that moved during paging can repeat a plan.
    let mut by_id: HashMap<String, PlanRow> = HashMap::with_capacity(plans.len());
    for plan in plans {
        if let Err(err) = plan.plan_id() {
            tracing::warn!(plan.id = %plan.id, error = %err, "plan id cannot be ordered; plan skipped");
            skipped += 1;
            continue;
        }
        let row = plan_row(plan, now_ms)?;
        by_id.insert(row.id.clone(), row);
    }
    let mut plans: Vec<PlanRow> = by_id.into_values().collect();
    plans.sort_by(|a, b| a.id.cmp(&b.id));
    let mut countries: Vec<CountryRow> = countries
        .into_iter()
        .map(|c| CountryRow {
            code: c.country_code,
            name: c.country_name,
            available: true,
            updated_at_ms: now_ms,
        })
        .collect();
    countries.sort_by(|a, b| a.code.cmp(&b.code));
    countries.dedup_by(|a, b| a.code == b.code);
    let mut regions: Vec<RegionRow> = regions
        .into_iter()
        .map(|r| {
            Ok(RegionRow {
                coverage: json(&r.coverage)?,
                slug: r.slug,
                name: r.name,
                available: true,
                updated_at_ms: now_ms,
            })
        })
        .collect::<Result<_, SyncError>>()?;
    regions.sort_by(|a, b| a.slug.cmp(&b.slug));
    regions.dedup_by(|a, b| a.slug == b.slug);
    Ok((
        FetchedCatalog {
            countries,
            regions,
            plans,
        },
        skipped,
    ))
}

fn json(list: &[String]) -> Result<String, SyncError> {
    serde_json::to_string(list).map_err(|e| SyncError::Invalid(e.to_string()))
}

fn plan_row(plan: Plan, now_ms: i64) -> Result<PlanRow, SyncError> {
    let data_mb = i64::try_from(plan.data_amount_mb).map_err(|_| {
        SyncError::Invalid(format!("plan {} has an impossible data amount", plan.id))
    })?;
    Ok(PlanRow {
        coverage: json(&plan.coverage)?,
        networks: plan.networks.as_deref().map(json).transpose()?,
        cost_cents: plan.price_cents.cents().get(),
        data_mb,
        validity_days: i64::from(plan.validity_days),
        period_num: plan.period_num.map(i64::from),
        id: plan.id,
        country_code: plan.country_code,
        country_name: plan.country_name,
        scope: plan.scope,
        region: plan.region,
        currency: plan.currency,
        network_type: plan.network_type,
        activation_type: plan.activation_type,
        is_daily: plan.is_daily_plan,
        fup_policy: plan.fup_policy,
        available: true,
        first_seen_ms: now_ms,
        updated_at_ms: now_ms,
    })
}
