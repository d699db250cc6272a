//! The consumer pages: home and search, destinations, regions, plans and help. Every page reads
//! the in-memory catalog snapshot; none calls upstream or the database.

use actix_web::http::StatusCode;
use actix_web::http::header::{CACHE_CONTROL, HeaderValue};
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use serde::Deserialize;

use crate::catalog::{Destination, PlanKind, ShopPlan, ShopRegion, Snapshot};
use crate::domain::Cents;
use crate::web::AppState;
use crate::web::error::AppError;
use crate::web::pages;

/// A catalog page of the current snapshot, rendered once and then answered from
/// [`crate::web::page_cache`] until the snapshot changes. `key` names the page and every
/// option that changes it.
fn cached_page<T: Template>(
    state: &AppState,
    req: &HttpRequest,
    snap: &Snapshot,
    key: &str,
    build: impl FnOnce() -> T,
) -> Result<HttpResponse, AppError> {
    let page = state.pages.get_or_render(snap.generation(), key, || {
        build().render().map_err(AppError::internal)
    })?;
    Ok(page.respond(req))
}

/// Catalog pages hold nothing private: shared caches may keep them briefly.
fn catalog_page<T: Template>(page: &T) -> HttpResponse {
    let mut response = pages::render(StatusCode::OK, page);
    response.headers_mut().insert(
        CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=60"),
    );
    response
}

/// A plan as a card in a list: borrowed from the snapshot, nothing formatted per view.
pub struct PlanCard<'a> {
    pub href: &'a str,
    pub allowance: &'a str,
    pub data: &'a str,
    pub validity: &'a str,
    pub price: &'a str,
    pub kind: &'static str,
    pub coverage: usize,
}

impl<'a> PlanCard<'a> {
    pub(crate) fn new(plan: &'a ShopPlan) -> Self {
        Self {
            href: &plan.labels.href,
            allowance: &plan.labels.allowance,
            data: &plan.labels.data,
            validity: &plan.labels.validity,
            price: &plan.labels.price,
            kind: kind_label(plan.kind),
            coverage: plan.coverage.len(),
        }
    }
}

pub(crate) fn kind_label(kind: PlanKind) -> &'static str {
    match kind {
        PlanKind::Local => "Local",
        PlanKind::Regional => "Regional",
        PlanKind::Global => "Global",
    }
}

pub(crate) fn plan_title(plan: &ShopPlan) -> String {
    format!("{} · {}", plan.country_name, plan.allowance())
}

/// Percent-encodes a path segment (plan ids are opaque and used exactly as given).
fn urlencode(segment: &str) -> String {
    url::form_urlencoded::byte_serialize(segment.as_bytes()).collect()
}

pub struct DestinationLink {
    pub href: String,
    pub name: String,
    pub code: String,
    pub detail: String,
}

impl DestinationLink {
    fn new(d: &Destination) -> Self {
        let detail = match (d.local_plans, d.from_price) {
            (0, _) => "Regional and global plans".to_string(),
            (n, Some(price)) => format!("{n} plan{} from {price}", if n == 1 { "" } else { "s" }),
            (n, None) => format!("{n} plans"),
        };
        Self {
            href: format!("/countries/{}", d.code),
            name: d.name.clone(),
            code: d.code.clone(),
            detail,
        }
    }
}

pub struct RegionLink {
    pub href: String,
    pub name: String,
    pub detail: String,
}

impl RegionLink {
    fn new(r: &ShopRegion) -> Self {
        let countries = r.coverage.len();
        let detail = match r.from_price {
            Some(price) => format!("{countries} countries · from {price}"),
            None => format!("{countries} countries"),
        };
        Self {
            href: format!("/regions/{}", urlencode(&r.slug)),
            name: r.name.clone(),
            detail,
        }
    }
}

#[derive(Template)]
#[template(path = "shop/home.html")]
struct HomePage {
    popular: Vec<DestinationLink>,
    regions: Vec<RegionLink>,
    empty: bool,
}

pub async fn home(state: web::Data<AppState>, req: HttpRequest) -> Result<HttpResponse, AppError> {
    let snap = state.catalog.snapshot();
    cached_page(&state, &req, &snap, "home", || HomePage {
        popular: snap
            .popular(8)
            .into_iter()
            .map(DestinationLink::new)
            .collect(),
        regions: snap.regions().iter().map(RegionLink::new).collect(),
        empty: snap.destinations().is_empty(),
    })
}

#[derive(Deserialize)]
pub struct SearchQuery {
    #[serde(default)]
    q: String,
}

#[derive(Template)]
#[template(path = "shop/search.html")]
struct SearchPage {
    query: String,
    results: Vec<DestinationLink>,
}

pub async fn search(state: web::Data<AppState>, query: web::Query<SearchQuery>) -> HttpResponse {
    let snap = state.catalog.snapshot();
    let q: String = query.q.chars().take(80).collect();
    catalog_page(&SearchPage {
        results: snap
            .search(&q)
            .into_iter()
            .map(DestinationLink::new)
            .collect(),
        query: q,
    })
}

#[derive(Template)]
#[template(path = "shop/countries.html")]
struct CountriesPage {
    countries: Vec<DestinationLink>,
}

pub async fn countries(
    state: web::Data<AppState>,
    req: HttpRequest,
) -> Result<HttpResponse, AppError> {
    let snap = state.catalog.snapshot();
    cached_page(&state, &req, &snap, "countries", || CountriesPage {
        countries: snap
            .destinations()
            .iter()
            .map(DestinationLink::new)
            .collect(),
    })
}

#[derive(Template)]
#[template(path = "shop/regions.html")]
struct RegionsPage {
    regions: Vec<RegionLink>,
}

pub async fn regions(
    state: web::Data<AppState>,
    req: HttpRequest,
) -> Result<HttpResponse, AppError> {
    let snap = state.catalog.snapshot();
    cached_page(&state, &req, &snap, "regions", || RegionsPage {
        regions: snap.regions().iter().map(RegionLink::new).collect(),
    })
}

/// How a plan list is ordered and filtered (`?sort=price&days=7`).
#[derive(Deserialize, Default)]
pub struct ListQuery {
    sort: Option<String>,
    days: Option<String>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Sort {
    Price,
    Data,
    Validity,
}

struct ListOptions {
    sort: Sort,
    days: Option<i64>,
}

impl ListOptions {
    fn parse(query: &ListQuery) -> Self {
        let sort = match query.sort.as_deref() {
            Some("data") => Sort::Data,
            Some("validity") => Sort::Validity,
            _ => Sort::Price,
        };
        let days = query
            .days
            .as_deref()
            .and_then(|d| d.parse::<i64>().ok())
            .filter(|d| *d > 0);
        Self { sort, days }
    }

    /// Names these options in a page cache key.
    fn key(&self) -> String {
        let sort = match self.sort {
            Sort::Price => "price",
            Sort::Data => "data",
            Sort::Validity => "validity",
        };
        match self.days {
            Some(days) => format!("sort={sort}&days={days}"),
            None => format!("sort={sort}"),
        }
    }

    fn apply<'a>(&self, mut plans: Vec<&'a ShopPlan>) -> Vec<&'a ShopPlan> {
        if let Some(days) = self.days {
            plans.retain(|p| p.validity_days == days);
        }
        let price = |p: &ShopPlan| p.price.unwrap_or(Cents::new(i64::MAX));
        match self.sort {
            Sort::Price => plans.sort_by(|a, b| {
                price(a)
                    .cmp(&price(b))
                    .then(b.data_mb.cmp(&a.data_mb))
                    .then(a.id.cmp(&b.id))
            }),
            Sort::Data => plans.sort_by(|a, b| {
                b.total_data_mb()
                    .cmp(&a.total_data_mb())
                    .then(price(a).cmp(&price(b)))
                    .then(a.id.cmp(&b.id))
            }),
            Sort::Validity => plans.sort_by(|a, b| {
                b.validity_days
                    .cmp(&a.validity_days)
                    .then(price(a).cmp(&price(b)))
                    .then(a.id.cmp(&b.id))
            }),
        }
        plans
    }
}

pub struct SortOption {
    pub value: &'static str,
    pub label: &'static str,
    pub selected: bool,
}

pub struct DaysOption {
    pub value: String,
    pub label: String,
    pub selected: bool,
}

fn sort_options(current: Sort) -> Vec<SortOption> {
    [
        (Sort::Price, "price", "Lowest price"),
        (Sort::Data, "data", "Most data"),
        (Sort::Validity, "validity", "Longest validity"),
    ]
    .into_iter()
    .map(|(sort, value, label)| SortOption {
        value,
        label,
        selected: sort == current,
    })
    .collect()
}

fn days_options(plans: &[&ShopPlan], current: Option<i64>) -> Vec<DaysOption> {
    let mut all: Vec<i64> = plans.iter().map(|p| p.validity_days).collect();
    all.sort_unstable();
    all.dedup();
    std::iter::once(DaysOption {
        value: String::new(),
        label: "Any duration".into(),
        selected: current.is_none(),
    })
    .chain(all.into_iter().map(|d| DaysOption {
        value: d.to_string(),
        label: crate::domain::plan::describe_validity(d),
        selected: current == Some(d),
    }))
    .collect()
}

#[derive(Template)]
#[template(path = "shop/country.html")]
struct CountryPage<'a> {
    name: String,
    code: String,
    local: Vec<PlanCard<'a>>,
    covering: Vec<PlanCard<'a>>,
    sorts: Vec<SortOption>,
    days: Vec<DaysOption>,
    filtered: bool,
}

pub async fn country(
    state: web::Data<AppState>,
    req: HttpRequest,
    code: web::Path<String>,
    query: web::Query<ListQuery>,
) -> Result<HttpResponse, AppError> {
    let snap = state.catalog.snapshot();
    let code = code.into_inner().to_ascii_uppercase();
    let name = snap
        .country_name(&code)
        .ok_or(AppError::NotFound)?
        .to_string();
    let options = ListOptions::parse(&query);
    let key = format!("country/{code}?{}", options.key());
    cached_page(&state, &req, &snap, &key, || {
        let local_all = snap.local_plans(&code);
        let covering_all = snap.covering_plans(&code);
        let mut both: Vec<&ShopPlan> = local_all.clone();
        both.extend(covering_all.iter().copied());
        CountryPage {
            days: days_options(&both, options.days),
            sorts: sort_options(options.sort),
            local: options
                .apply(local_all)
                .into_iter()
                .map(PlanCard::new)
                .collect(),
            covering: options
                .apply(covering_all)
                .into_iter()
                .map(PlanCard::new)
                .collect(),
            filtered: options.days.is_some(),
            name,
            code: code.clone(),
        }
    })
}

#[derive(Template)]
#[template(path = "shop/region.html")]
struct RegionPage<'a> {
    name: String,
    coverage: Vec<String>,
    plans: Vec<PlanCard<'a>>,
    sorts: Vec<SortOption>,
    days: Vec<DaysOption>,
    slug: String,
}

pub async fn region(
    state: web::Data<AppState>,
    req: HttpRequest,
    slug: web::Path<String>,
    query: web::Query<ListQuery>,
) -> Result<HttpResponse, AppError> {
    let snap = state.catalog.snapshot();
    let region = snap.region(&slug).ok_or(AppError::NotFound)?;
    let options = ListOptions::parse(&query);
    let key = format!("region/{}?{}", region.slug, options.key());
    cached_page(&state, &req, &snap, &key, || {
        let all = snap.region_plans(&region.slug);
        RegionPage {
            name: region.name.clone(),
            coverage: coverage_names(&snap, &region.coverage),
            days: days_options(&all, options.days),
            sorts: sort_options(options.sort),
            plans: options.apply(all).into_iter().map(PlanCard::new).collect(),
            slug: region.slug.clone(),
        }
    })
}

pub(crate) fn coverage_names(snap: &Snapshot, codes: &[String]) -> Vec<String> {
    let mut names: Vec<String> = codes
        .iter()
        .map(|code| {
            snap.country_name(code)
                .map_or_else(|| code.clone(), str::to_string)
        })
        .collect();
    names.sort();
    names
}

#[derive(Template)]
#[template(path = "shop/help_compatibility.html")]
struct CompatibilityPage;

#[derive(Template)]
#[template(path = "shop/help_installation.html")]
struct InstallationPage;

#[derive(Template)]
#[template(path = "shop/help_refunds.html")]
struct RefundsPage;

pub async fn help(topic: web::Path<String>) -> Result<HttpResponse, AppError> {
    Ok(match topic.as_str() {
        "compatibility" => catalog_page(&CompatibilityPage),
        "installation" => catalog_page(&InstallationPage),
        "refunds" => catalog_page(&RefundsPage),
        _ => return Err(AppError::NotFound),
    })
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/", web::get().to(home))
        .route("/search", web::get().to(search))
        .route("/countries", web::get().to(countries))
        .route("/countries/{code}", web::get().to(country))
        .route("/regions", web::get().to(regions))
        .route("/regions/{slug}", web::get().to(region))
        .route("/plans/{id}", web::get().to(crate::web::checkout::plan))
        .route("/help/{topic}", web::get().to(help));
}
