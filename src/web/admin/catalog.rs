//! `/admin/catalog`: the state of the catalog sync and its history, and the plans with their
//! cost, price and margin, filtered by country or region and paged. Everyone signed in may
//! read it; "sync now" is for owners and is audited with its outcome. `/admin/catalog/regions`
//! (owners): the regions' names in each shop language, the owner's own where CLDR's do not fit.

use std::sync::Arc;

use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use serde::Deserialize;

use super::{
    AdminPage, CsrfForm, CurrentAdmin, NoFields, Pager, client_addr, console_page, non_empty,
    require_owner, see_other,
};
use crate::catalog::region_names::{self, RegionNames};
use crate::catalog::snapshot::{ShopPlan, Snapshot};
use crate::db::catalog::SyncRow;
use crate::i18n::Lang;
use crate::web::error::AppError;
use crate::web::{AppState, filters};

const PAGE_SIZE: u32 = 50;
const HISTORY: i64 = 10;

#[derive(Deserialize)]
pub struct CatalogQuery {
    country: Option<String>,
    region: Option<String>,
    page: Option<u32>,
    sync: Option<String>,
}

console_page!(CatalogPage => "catalog");

#[derive(Template)]
#[template(path = "admin/catalog.html")]
struct CatalogPage {
    notice: Option<&'static str>,
    failed: bool,
    history: Vec<SyncRow>,
    /// The catalog: the filters' choices.
    snap: Arc<Snapshot>,
    country: Option<String>,
    region: Option<String>,
    rows: Vec<ShopPlan>,
    matching: usize,
    /// The page number, from 1.
    page: u32,
    newer_href: Option<String>,
    older_href: Option<String>,
}

pub async fn page(
    state: web::Data<AppState>,
    _: CurrentAdmin,
    query: web::Query<CatalogQuery>,
) -> Result<AdminPage, AppError> {
    let query = query.into_inner();
    let country = non_empty(query.country);
    let region = non_empty(query.region);
    let pager = Pager::from_query(query.page);
    let snap = state.catalog.snapshot();
    let matching = snap
        .plans_in(country.as_deref(), region.as_deref())
        .map_err(AppError::BadRequest)?;
    let history = state.catalog.sync_history(HISTORY).await?;
    let skip = usize::try_from(pager.offset(PAGE_SIZE)).unwrap_or(usize::MAX);
    let rows = matching
        .iter()
        .skip(skip)
        .take(PAGE_SIZE as usize)
        .map(|p| (*p).clone())
        .collect();
    let has_more = matching.len() > skip.saturating_add(PAGE_SIZE as usize);
    let filters = [
        ("country", country.as_deref()),
        ("region", region.as_deref()),
    ];
    let view = CatalogPage {
        notice: match query.sync.as_deref() {
            Some("synced") => Some("Catalog synced."),
            Some("skipped") => Some("Skipped: another replica is syncing the catalog right now."),
            Some("failed") => Some("The sync failed; the previous catalog stays. See the history."),
            _ => None,
        },
        failed: query.sync.as_deref() == Some("failed"),
        history,
        rows,
        matching: matching.len(),
        page: pager.number,
        newer_href: pager.previous_href("/admin/catalog", &filters),
        older_href: pager.next_href("/admin/catalog", &filters, has_more),
        country,
        region,
        snap,
    };
    Ok(AdminPage::new(view))
}

pub async fn sync_now(
    state: web::Data<AppState>,
    req: HttpRequest,
    CurrentAdmin(admin): CurrentAdmin,
    _: CsrfForm<NoFields>,
) -> Result<HttpResponse, AppError> {
    require_owner(&admin)?;
    let slug = state
        .catalog
        .sync_for(&state.upstream, &admin, &client_addr(&req))
        .await?;
    Ok(see_other(&format!("/admin/catalog?sync={slug}")))
}

console_page!(RegionsPage => "catalog");

#[derive(Template)]
#[template(path = "admin/regions.html")]
struct RegionsPage {
    regions: Vec<RegionNames>,
    saved: Option<String>,
    max_chars: usize,
}

#[derive(Deserialize)]
pub struct RegionsQuery {
    saved: Option<String>,
}

pub async fn regions(
    state: web::Data<AppState>,
    CurrentAdmin(admin): CurrentAdmin,
    query: web::Query<RegionsQuery>,
) -> Result<AdminPage, AppError> {
    require_owner(&admin)?;
    let regions = region_names::list(&state.catalog).await?;
    let saved = query
        .into_inner()
        .saved
        .and_then(|slug| regions.iter().find(|r| r.slug == slug))
        .map(|r| r.upstream.clone());
    Ok(AdminPage::new(RegionsPage {
        regions,
        saved,
        max_chars: region_names::MAX_CHARS,
    }))
}

/// One region's names, one field per shop language (named by its code).
#[derive(Deserialize)]
pub struct NamesForm {
    #[serde(flatten)]
    names: std::collections::HashMap<String, String>,
}

pub async fn save_region(
    state: web::Data<AppState>,
    req: HttpRequest,
    CurrentAdmin(admin): CurrentAdmin,
    slug: web::Path<String>,
    CsrfForm(form): CsrfForm<NamesForm>,
) -> Result<HttpResponse, AppError> {
    require_owner(&admin)?;
    let slug = slug.into_inner();
    let given = Lang::ALL
        .iter()
        .filter_map(|&lang| Some((lang, form.names.get(lang.code())?.clone())))
        .collect();
    region_names::save(&state.catalog, &admin, &client_addr(&req), &slug, given).await?;
    Ok(see_other(&format!(
        "/admin/catalog/regions?saved={slug}#{slug}"
    )))
}
