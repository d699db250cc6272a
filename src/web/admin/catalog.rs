//! `/admin/catalog`: the state of the catalog sync and its history, and the plans with their
//! cost, price and margin, filtered by country or region and paged. Everyone signed in may
//! read it; "sync now" is for owners and is audited with its outcome.

use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use serde::Deserialize;

use super::{
    AdminPage, CsrfForm, CurrentAdmin, NoFields, Pager, client_addr, console_page, non_empty,
    require_owner, see_other,
};
use crate::domain::Cents;
use crate::domain::clock;
use crate::web::AppState;
use crate::web::error::AppError;

const PAGE_SIZE: u32 = 50;
const HISTORY: i64 = 10;

#[derive(Deserialize)]
pub struct CatalogQuery {
    country: Option<String>,
    region: Option<String>,
    page: Option<u32>,
    sync: Option<String>,
}

struct Choice {
    value: String,
    label: String,
    selected: bool,
}

struct PlanRow {
    id: String,
    href: String,
    title: String,
    destination: String,
    cost: String,
    price: String,
    margin: String,
    sellable: bool,
    /// Why a plan is not on sale (empty when it is).
    not_sold_because: &'static str,
}

struct SyncView {
    ok: bool,
    started: String,
    took: String,
    summary: String,
}

console_page!(CatalogPage => "catalog");

#[derive(Template)]
#[template(path = "admin/catalog.html")]
struct CatalogPage {
    notice: Option<&'static str>,
    failed: bool,
    history: Vec<SyncView>,
    countries: Vec<Choice>,
    regions: Vec<Choice>,
    rows: Vec<PlanRow>,
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
    if let Some(c) = &country
        && snap.country_name(c).is_none()
        && !snap.plans().iter().any(|p| &p.country_code == c)
    {
        return Err(AppError::BadRequest(format!(
            "There is no country {c:?} in the catalog."
        )));
    }
    if let Some(r) = &region
        && snap.region(r).is_none()
    {
        return Err(AppError::BadRequest(format!(
            "There is no region {r:?} in the catalog."
        )));
    }
    let history = state.catalog.sync_history(HISTORY).await?;
    let mut matching: Vec<_> = snap
        .plans()
        .iter()
        .filter(|p| country.as_ref().is_none_or(|c| &p.country_code == c))
        .filter(|p| region.as_ref().is_none_or(|r| p.region.as_ref() == Some(r)))
        .collect();
    matching.sort_by(|a, b| crate::catalog::named::natural_order(&a.id, &b.id));
    let skip = usize::try_from(pager.offset(PAGE_SIZE)).unwrap_or(usize::MAX);
    let rows = matching
        .iter()
        .skip(skip)
        .take(PAGE_SIZE as usize)
        .map(|p| PlanRow {
            id: p.id.clone(),
            href: format!("/plans/{}", p.id),
            title: crate::web::shop::plan_title(p, crate::i18n::Lang::En),
            destination: p.country_name.clone(),
            cost: p.cost.to_string(),
            price: p.price.map(|c| c.to_string()).unwrap_or_default(),
            margin: p
                .price
                .map(|c| Cents::new(c.get().saturating_sub(p.cost.get())).to_string())
                .unwrap_or_else(|| "not sold".into()),
            sellable: p.is_sellable(),
            not_sold_because: p.not_sold_because().unwrap_or_default(),
        })
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
        history: history
            .into_iter()
            .map(|s| SyncView {
                ok: s.ok,
                started: clock::minute_ms(s.started_at_ms),
                took: {
                    let ms = s.finished_at_ms.saturating_sub(s.started_at_ms).max(0);
                    format!("{}.{} s", ms / 1000, ms % 1000 / 100)
                },
                summary: if s.ok {
                    format!(
                        "{} plans, {} countries, {} regions",
                        s.plan_count, s.country_count, s.region_count
                    )
                } else {
                    s.error.unwrap_or_else(|| "failed".into())
                },
            })
            .collect(),
        countries: snap
            .destinations()
            .iter()
            .map(|d| Choice {
                selected: country.as_deref() == Some(d.code.as_str()),
                value: d.code.clone(),
                label: format!("{} ({})", d.name, d.code),
            })
            .collect(),
        regions: snap
            .regions()
            .iter()
            .map(|r| Choice {
                selected: region.as_deref() == Some(r.slug.as_str()),
                value: r.slug.clone(),
                label: r.name.clone(),
            })
            .collect(),
        rows,
        matching: matching.len(),
        page: pager.number,
        newer_href: pager.previous_href("/admin/catalog", &filters),
        older_href: pager.next_href("/admin/catalog", &filters, has_more),
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
