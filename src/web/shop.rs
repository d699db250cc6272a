//! The consumer pages: home and search, destinations, regions, plans and help. Every page reads
//! the in-memory catalog snapshot; none calls upstream or the database.

use actix_web::http::StatusCode;
use actix_web::http::header::{CACHE_CONTROL, HeaderValue, LOCATION};
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use serde::Deserialize;

use crate::catalog::choice::{Choice, GLOBAL_HREF};
use crate::catalog::snapshot::path_segment;
use crate::catalog::{Destination, Found, Origin, PlanKind, ShopPlan, ShopRegion, Snapshot};
use crate::domain::currency::DisplayPrice;
use crate::domain::units::Quantity;
use crate::domain::{Cents, plan};
use crate::i18n::{self, Lang};
use crate::payments::PaymentProvider;
use crate::shop::Document;
use crate::web::error::AppError;
use crate::web::{AppState, csrf, page_cache, pages, seo};

/// A catalog page of the current snapshot, rendered once and then answered from
/// [`crate::web::page_cache`] until the snapshot changes or the page is evicted. `key` names
/// the page and every option that changes it, normalised (see [`ListOptions::parse`]).
fn cached_page<T: Template>(
    state: &AppState,
    req: &HttpRequest,
    snap: &Snapshot,
    key: &str,
    build: impl FnOnce() -> T,
) -> Result<HttpResponse, AppError> {
    // One page per language, each language within its own budget; the page shows the shop's
    // identity too, so a new one is a new page.
    let language = i18n::current().code();
    let key = format!(
        "{}/{key}{}",
        pages::identity().version,
        crate::web::seo::cache_variant()
    );
    let page = state
        .pages
        .get_or_render(snap.generation(), language, &key, || {
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
    pub href: String,
    pub data: &'a str,
    pub validity: &'a str,
    pub price: &'a str,
    pub kind: String,
    /// A local plan (the card names no kind or coverage).
    pub local: bool,
    /// `9 countries`, `1 country`.
    pub coverage: &'a str,
    /// What tells plans of the same size apart; each empty when upstream did not say.
    pub network: &'a str,
    pub starts: &'a str,
    pub fair_use: &'a str,
    /// A daily plan's price is the trip's: `total for 7 days`, and `$5.24/day`.
    pub price_note: &'a str,
    pub per_day: &'a str,
    /// A daily plan's data over the trip: `7 GB in total`.
    pub total_data: &'a str,
    /// The price in the owner's display currencies.
    pub fx: &'a [DisplayPrice],
}

impl<'a> PlanCard<'a> {
    /// `plan`'s card in the current language.
    pub(crate) fn new(plan: &'a ShopPlan) -> Self {
        let lang = i18n::current();
        let labels = plan.labels_in(lang);
        Self {
            href: labels.href.clone(),
            data: &labels.data,
            validity: &labels.validity,
            price: &labels.price,
            kind: lang.t(kind_label(plan.kind)),
            local: plan.kind == PlanKind::Local,
            coverage: &labels.coverage,
            network: &labels.network,
            starts: &labels.starts,
            fair_use: &labels.fair_use,
            price_note: &labels.price_note,
            per_day: &labels.per_day,
            total_data: &labels.total_data,
            fx: &labels.fx,
        }
    }
}

/// A card of a plan list: one plan, or a daily plan with a radio button per duration.
pub struct ChoiceCard<'a> {
    pub card: PlanCard<'a>,
    /// The durations to choose from; empty for a plan that comes in one duration.
    pub options: Vec<DayChoice>,
    /// The `from` value the day picker sends on.
    pub from: String,
}

/// One duration of a daily plan's day picker.
pub struct DayChoice {
    pub id: String,
    /// The duration's page (with the listing it is chosen from).
    pub href: String,
    pub days: String,
    pub price: String,
    pub checked: bool,
}

impl<'a> ChoiceCard<'a> {
    /// The card of `choice` in a list opened from `origin`: its link carries the origin.
    fn new(choice: Choice<'a>, origin: &Origin) -> Self {
        let lang = i18n::current();
        let mut card = PlanCard::new(choice.chosen);
        card.href.push_str(&origin.query());
        let options = if choice.family.len() > 1 {
            choice
                .family
                .iter()
                .map(|p| DayChoice {
                    id: p.id.clone(),
                    href: format!("{}{}", p.labels.href, origin.query()),
                    days: plan::describe_validity(lang, p.validity_days),
                    price: p.labels_in(lang).price.clone(),
                    checked: p.id == choice.chosen.id,
                })
                .collect()
        } else {
            Vec::new()
        };
        Self {
            card,
            options,
            from: origin.value(),
        }
    }
}

/// A titled part of a plan list: the first few cards, and the rest folded away (a
/// `<details>` element, no script needed), so a long list stays a few screens high.
pub struct PlanSection<'a> {
    pub id: &'static str,
    pub heading: String,
    pub shown: Vec<ChoiceCard<'a>>,
    pub folded: Vec<ChoiceCard<'a>>,
}

/// How many cards a section shows before folding the rest away.
const SECTION_SHOWS: usize = 2;

impl<'a> PlanSection<'a> {
    fn new(
        id: &'static str,
        heading: &'static str,
        snap: &'a Snapshot,
        plans: Vec<&'a ShopPlan>,
        origin: &Origin,
    ) -> Self {
        let mut shown: Vec<ChoiceCard<'a>> = snap
            .choices(plans)
            .into_iter()
            .map(|c| ChoiceCard::new(c, origin))
            .collect();
        let folded = shown.split_off(shown.len().min(SECTION_SHOWS));
        let count = shown.len() + folded.len();
        Self {
            id,
            heading: i18n::ta(heading, "count", count),
            shown,
            folded,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.shown.is_empty()
    }

    /// "Show 12 more".
    pub fn more_label(&self) -> String {
        i18n::ta("list-show-more", "count", self.folded.len())
    }
}

/// The kind of plan, as a message id.
pub(crate) fn kind_label(kind: PlanKind) -> &'static str {
    match kind {
        PlanKind::Local => i18n::msg("kind-local"),
        PlanKind::Regional => i18n::msg("kind-regional"),
        PlanKind::Global => i18n::msg("kind-global"),
    }
}

/// `France · 5 GB for 30 days`, in `lang`.
pub(crate) fn plan_title(plan: &ShopPlan, lang: Lang) -> String {
    plan.title(lang)
}

/// A destination or region as a link in a list: where it goes, its name, and what is on sale.
pub struct DestinationLink {
    pub href: String,
    pub name: String,
    pub code: String,
    pub detail: String,
}

impl DestinationLink {
    fn new(d: &Destination) -> Self {
        let lang = i18n::current();
        let detail = match (d.local_plans, d.from_price, d.covering_from) {
            (0, _, Some(price)) => {
                lang.ta("dest-covering-from", &[("price", lang.money(price).into())])
            }
            (0, _, None) => lang.t("dest-covering"),
            (n, Some(price), _) => lang.ta(
                "dest-plans-from",
                &[("count", n.into()), ("price", lang.money(price).into())],
            ),
            (n, None, _) => lang.ta("dest-plans", &[("count", n.into())]),
        };
        Self {
            href: format!("/countries/{}", path_segment(&d.code)),
            name: d.name_in(lang).to_string(),
            code: d.code.clone(),
            detail,
        }
    }

    fn region(r: &ShopRegion) -> Self {
        let lang = i18n::current();
        let countries = lang.ta("countries-count", &[("count", r.coverage.len().into())]);
        let detail = match r.from_price {
            Some(price) => lang.ta(
                "region-countries-from",
                &[
                    ("countries", countries.into()),
                    ("price", lang.money(price).into()),
                ],
            ),
            None => countries,
        };
        Self {
            href: format!("/regions/{}", path_segment(&r.slug)),
            name: r.name_in(lang).to_string(),
            code: String::new(),
            detail,
        }
    }

    fn found(found: Found<'_>) -> Self {
        match found {
            Found::Destination(d) => Self::new(d),
            Found::Region(r) => {
                let mut link = Self::region(r);
                link.detail = i18n::ta("search-regional-plans", "detail", &link.detail);
                link
            }
        }
    }
}

#[derive(Template)]
#[template(path = "shop/home.html", blocks = ["title", "description"])]
struct HomePage {
    popular: Vec<DestinationLink>,
    regions: Vec<DestinationLink>,
    empty: bool,
    /// The shop as an `Organization` and its `WebSite`.
    structured: String,
}

pub async fn home(state: web::Data<AppState>, req: HttpRequest) -> Result<HttpResponse, AppError> {
    let snap = state.catalog.snapshot();
    cached_page(&state, &req, &snap, "home", || HomePage {
        popular: snap
            .popular(8)
            .into_iter()
            .map(DestinationLink::new)
            .collect(),
        regions: snap
            .listed_regions_in(i18n::current())
            .into_iter()
            .map(DestinationLink::region)
            .collect(),
        empty: snap.destinations().is_empty(),
        structured: seo::json_ld(&seo::shop_organization()),
    })
}

#[derive(Deserialize)]
pub struct SearchQuery {
    #[serde(default)]
    q: String,
}

#[derive(Template)]
#[template(path = "shop/search.html", blocks = ["title", "description"])]
struct SearchPage {
    query: String,
    results: Vec<DestinationLink>,
}

/// A search with exactly one match goes straight to that destination (303: the answer depends
/// on the catalog of the moment); otherwise the results page.
pub async fn search(state: web::Data<AppState>, query: web::Query<SearchQuery>) -> HttpResponse {
    let snap = state.catalog.snapshot();
    let q: String = query.q.chars().take(80).collect();
    let results: Vec<DestinationLink> = snap
        .search(&q, i18n::current())
        .into_iter()
        .map(DestinationLink::found)
        .collect();
    if let [only] = results.as_slice() {
        return HttpResponse::SeeOther()
            .insert_header((LOCATION, only.href.as_str()))
            .insert_header((
                CACHE_CONTROL,
                HeaderValue::from_static("public, max-age=60"),
            ))
            .finish();
    }
    catalog_page(&SearchPage { results, query: q })
}

#[derive(Template)]
#[template(path = "shop/countries.html", blocks = ["title", "description"])]
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
            .destinations_in(i18n::current())
            .map(DestinationLink::new)
            .collect(),
    })
}

#[derive(Template)]
#[template(path = "shop/regions.html", blocks = ["title", "description"])]
struct RegionsPage {
    regions: Vec<DestinationLink>,
}

pub async fn regions(
    state: web::Data<AppState>,
    req: HttpRequest,
) -> Result<HttpResponse, AppError> {
    let snap = state.catalog.snapshot();
    cached_page(&state, &req, &snap, "regions", || RegionsPage {
        regions: snap
            .listed_regions_in(i18n::current())
            .into_iter()
            .map(DestinationLink::region)
            .collect(),
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
    /// The options `query` asks for, normalised before they name a cached page: an unknown
    /// sort is the default one, and a duration that none of the page's plans has (`plans`,
    /// asked only when a duration is given) is no filter at all, so `?days=` with endless
    /// values names one page, not endless ones.
    fn parse<'a>(query: &ListQuery, plans: impl FnOnce() -> Vec<&'a ShopPlan>) -> Self {
        let sort = match query.sort.as_deref() {
            Some("data") => Sort::Data,
            Some("validity") => Sort::Validity,
            _ => Sort::Price,
        };
        let days = query
            .days
            .as_deref()
            .and_then(|d| d.trim().parse::<i64>().ok())
            .filter(|d| *d > 0)
            .filter(|d| plans().iter().any(|p| p.validity_days == *d));
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
    pub label: String,
    pub selected: bool,
}

pub struct DaysOption {
    pub value: String,
    pub label: String,
    pub selected: bool,
}

fn sort_options(current: Sort) -> Vec<SortOption> {
    [
        (Sort::Price, "price", "sort-price"),
        (Sort::Data, "data", "sort-data"),
        (Sort::Validity, "validity", "sort-validity"),
    ]
    .into_iter()
    .map(|(sort, value, label)| SortOption {
        value,
        label: i18n::t(label),
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
        label: i18n::t("any-duration"),
        selected: current.is_none(),
    })
    .chain(all.into_iter().map(|d| DaysOption {
        value: d.to_string(),
        label: crate::domain::plan::describe_validity(i18n::current(), d),
        selected: current == Some(d),
    }))
    .collect()
}

#[derive(Template)]
#[template(path = "shop/country.html", blocks = ["title", "description"])]
struct CountryPage<'a> {
    name: String,
    code: String,
    /// Daily and total-data local plans, then regional and global ones that cover the
    /// country; a section without plans is left out.
    sections: Vec<PlanSection<'a>>,
    sorts: Vec<SortOption>,
    days: Vec<DaysOption>,
    filtered: bool,
    /// The country has no local plan on sale at all (not merely none of this duration).
    no_local_plans: bool,
    head: seo::ListingHead,
    no_local: bool,
    no_covering: bool,
}

pub async fn country(
    state: web::Data<AppState>,
    req: HttpRequest,
    code: web::Path<String>,
    query: web::Query<ListQuery>,
) -> Result<HttpResponse, AppError> {
    let snap = state.catalog.snapshot();
    let asked = code.into_inner();
    let code = asked.to_ascii_uppercase();
    let Some(destination) = snap.destination(&code) else {
        // Upstream's code of a regional or global plan ("EU-9") is not a country: its plans
        // are listed elsewhere.
        return match snap.listing_for_code(&code) {
            Some(listing) => Ok(moved_permanently(listing)),
            None => Err(AppError::NotFound),
        };
    };
    if asked != code {
        let canonical = format!("/countries/{}", path_segment(&code));
        return Ok(moved_permanently(&match req.query_string() {
            "" => canonical,
            query => format!("{canonical}?{query}"),
        }));
    }
    let name = destination.name_in(i18n::current()).to_string();
    let options = ListOptions::parse(&query, || {
        let mut both = snap.local_plans(&code);
        both.extend(snap.covering_plans(&code));
        both
    });
    let key = format!("country/{code}?{}", options.key());
    cached_page(&state, &req, &snap, &key, || {
        let origin = Origin::Country(code.clone());
        let local_all = snap.local_plans(&code);
        let covering_all = snap.covering_plans(&code);
        let mut both: Vec<&ShopPlan> = local_all.clone();
        both.extend(covering_all.iter().copied());
        let local = options.apply(local_all.clone());
        let covering = options.apply(covering_all);
        let (daily, total): (Vec<&ShopPlan>, Vec<&ShopPlan>) =
            local.into_iter().partition(|p| p.is_daily);
        let (global, regional): (Vec<&ShopPlan>, Vec<&ShopPlan>) = covering
            .into_iter()
            .partition(|p| p.kind == PlanKind::Global);
        let sections: Vec<PlanSection<'_>> = [
            ("daily", "section-daily", daily),
            ("total", "section-total", total),
            ("regional", "section-regional", regional),
            ("global", "section-global", global),
        ]
        .into_iter()
        .map(|(id, heading, plans)| PlanSection::new(id, heading, &snap, plans, &origin))
        .collect();
        let lang = i18n::current();
        let href = format!("/countries/{}", path_segment(&code));
        let head = seo::ListingHead::new(
            &name,
            &[
                (&lang.t("crumb-home"), "/"),
                (&lang.t("countries-title"), "/countries"),
                (&name, &href),
            ],
            &both,
        );
        CountryPage {
            head,
            days: days_options(&both, options.days),
            sorts: sort_options(options.sort),
            no_local_plans: local_all.is_empty(),
            no_local: sections[0].is_empty() && sections[1].is_empty(),
            no_covering: sections[2].is_empty() && sections[3].is_empty(),
            sections: sections.into_iter().filter(|s| !s.is_empty()).collect(),
            filtered: options.days.is_some(),
            name,
            code: code.clone(),
        }
    })
}

/// A permanent redirect to the canonical address of a page.
fn moved_permanently(location: &str) -> HttpResponse {
    HttpResponse::MovedPermanently()
        .insert_header((LOCATION, location))
        .finish()
}

#[derive(Template)]
#[template(path = "shop/region.html", blocks = ["title", "description"])]
struct RegionPage<'a> {
    name: String,
    /// How many countries the region covers.
    coverage_count: usize,
    countries: Vec<CountryLink>,
    plans: PlanSection<'a>,
    sorts: Vec<SortOption>,
    days: Vec<DaysOption>,
    filtered: bool,
    slug: String,
    head: seo::ListingHead,
}

/// A country of a region: its page when something is on sale there, and its local plans.
pub struct CountryLink {
    pub name: String,
    pub href: Option<String>,
    pub detail: String,
}

pub async fn region(
    state: web::Data<AppState>,
    req: HttpRequest,
    slug: web::Path<String>,
    query: web::Query<ListQuery>,
) -> Result<HttpResponse, AppError> {
    let snap = state.catalog.snapshot();
    let Some(region) = snap.region(&slug) else {
        // `/regions/Europe` is `/regions/europe`.
        let lower = slug.to_ascii_lowercase();
        return match snap.region(&lower) {
            Some(region) => Ok(moved_permanently(&format!(
                "/regions/{}",
                path_segment(&region.slug)
            ))),
            None => Err(AppError::NotFound),
        };
    };
    let options = ListOptions::parse(&query, || snap.region_plans(&region.slug));
    let key = format!("region/{}?{}", region.slug, options.key());
    cached_page(&state, &req, &snap, &key, || {
        let lang = i18n::current();
        let all = snap.region_plans(&region.slug);
        let mut countries: Vec<CountryLink> = region
            .coverage
            .iter()
            .map(|code| match snap.destination(code) {
                Some(d) => CountryLink {
                    name: d.name_in(lang).to_string(),
                    href: Some(format!("/countries/{}", path_segment(&d.code))),
                    detail: match (d.local_plans, d.from_price) {
                        (0, _) => lang.t("local-plans-none"),
                        (n, Some(price)) => lang.ta(
                            "local-plans-from",
                            &[("count", n.into()), ("price", lang.money(price).into())],
                        ),
                        (n, None) => lang.ta("local-plans", &[("count", n.into())]),
                    },
                },
                None => CountryLink {
                    name: snap.any_country_name_in(code, lang).to_string(),
                    href: None,
                    detail: String::new(),
                },
            })
            .collect();
        countries.sort_by_cached_key(|c| plan::search_key(&c.name));
        let name = region.name_in(lang);
        let href = format!("/regions/{}", path_segment(&region.slug));
        let head = seo::ListingHead::new(
            name,
            &[
                (&lang.t("crumb-home"), "/"),
                (&lang.t("nav-regions"), "/regions"),
                (name, &href),
            ],
            &all,
        );
        RegionPage {
            head,
            name: name.to_string(),
            coverage_count: region.coverage.len(),
            countries,
            days: days_options(&all, options.days),
            sorts: sort_options(options.sort),
            plans: PlanSection::new(
                "regional",
                "section-regional",
                &snap,
                options.apply(all),
                &Origin::Region(region.slug.clone()),
            ),
            filtered: options.days.is_some(),
            slug: path_segment(&region.slug),
        }
    })
}

#[derive(Template)]
#[template(path = "shop/global.html", blocks = ["title", "description"])]
struct GlobalPage<'a> {
    head: seo::ListingHead,
    plans: PlanSection<'a>,
    sorts: Vec<SortOption>,
    days: Vec<DaysOption>,
    filtered: bool,
}

/// Every global plan on sale, linked from the Regions page.
pub async fn global(
    state: web::Data<AppState>,
    req: HttpRequest,
    query: web::Query<ListQuery>,
) -> Result<HttpResponse, AppError> {
    let snap = state.catalog.snapshot();
    let options = ListOptions::parse(&query, || snap.global_plans());
    let key = format!("global?{}", options.key());
    cached_page(&state, &req, &snap, &key, || {
        let all = snap.global_plans();
        let lang = i18n::current();
        let name = lang.t("global-title");
        let head = seo::ListingHead::new(
            &name,
            &[
                (&lang.t("crumb-home"), "/"),
                (&lang.t("nav-regions"), "/regions"),
                (&name, GLOBAL_HREF),
            ],
            &all,
        );
        GlobalPage {
            head,
            days: days_options(&all, options.days),
            sorts: sort_options(options.sort),
            plans: PlanSection::new(
                "global",
                "section-global",
                &snap,
                options.apply(all),
                &Origin::Global,
            ),
            filtered: options.days.is_some(),
        }
    })
}

/// What a day picker sends: the chosen plan, and the listing it was on.
#[derive(Deserialize)]
pub struct ChooseQuery {
    plan: String,
    from: Option<String>,
}

/// A day picker submitted without script: on to the chosen plan's page (303: the plan is the
/// visitor's choice, not a page of its own), the origin checked against the catalog.
pub async fn choose(
    state: web::Data<AppState>,
    query: web::Query<ChooseQuery>,
) -> Result<HttpResponse, AppError> {
    let snap = state.catalog.snapshot();
    let plan = snap.plan(&query.plan).ok_or(AppError::NotFound)?;
    let origin = snap.origin(plan, query.from.as_deref());
    let location = format!("{}{}", plan.labels.href, origin.query());
    Ok(HttpResponse::SeeOther()
        .insert_header((LOCATION, location))
        .finish())
}

/// The names of the countries `codes` in the current language, sorted by name.
pub(crate) fn coverage_names(snap: &Snapshot, codes: &[String]) -> Vec<String> {
    let lang = i18n::current();
    let mut names: Vec<String> = codes
        .iter()
        .map(|code| snap.any_country_name_in(code, lang).to_string())
        .collect();
    names.sort_by_cached_key(|name| plan::search_key(name));
    names
}

#[derive(Template)]
#[template(path = "shop/help_compatibility.html", blocks = ["title", "description"])]
struct CompatibilityPage;

#[derive(Template)]
#[template(path = "shop/help_installation.html", blocks = ["title", "description"])]
struct InstallationPage;

#[derive(Template)]
#[template(path = "shop/help_refunds.html", blocks = ["title", "description"])]
struct RefundsPage {
    /// `STOREFRONT_AUTO_REFUND`: an order the supplier refuses is refunded without waiting
    /// for the shop.
    auto_refund: bool,
}

pub async fn help(
    state: web::Data<AppState>,
    topic: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    Ok(match topic.as_str() {
        "compatibility" => catalog_page(&CompatibilityPage),
        "installation" => catalog_page(&InstallationPage),
        "refunds" => catalog_page(&RefundsPage {
            auto_refund: state.settings.auto_refund,
        }),
        _ => return Err(AppError::NotFound),
    })
}

/// A legal text: terms, privacy notice, refund and withdrawal policy or imprint.
#[derive(Template)]
#[template(path = "shop/legal.html", blocks = ["title", "description"])]
struct LegalPage {
    slug: &'static str,
    title: String,
    /// Sanitised HTML ([`crate::shop::legal::render_markdown`]).
    body: String,
    /// False while the owner has not reviewed the text: a banner says it is a draft.
    reviewed: bool,
    /// When the owner last changed it.
    updated: Option<String>,
}

/// The routes of the legal texts, one per [`Document`].
const LEGAL_ROUTE: &str = "/{document:terms|privacy|refunds-and-withdrawal|imprint}";

pub async fn legal(
    state: web::Data<AppState>,
    req: HttpRequest,
    document: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let document = Document::parse(&document).ok_or(AppError::NotFound)?;
    let snap = state.catalog.snapshot();
    let key = format!("legal/{}@{}", document.slug(), state.legal.generation());
    cached_page(&state, &req, &snap, &key, || {
        let lang = i18n::current();
        let text = state.legal.text(document, lang, &pages::identity());
        LegalPage {
            slug: document.slug(),
            title: lang.t(document.title_id()),
            body: text.html(),
            reviewed: text.reviewed,
            updated: text.updated_at_ms.map(|ms| lang.date(ms)),
        }
    })
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/", web::get().to(home))
        .route("/search", web::get().to(search))
        .route("/countries", web::get().to(countries))
        .route("/countries/{code}", web::get().to(country))
        .route("/regions", web::get().to(regions))
        .route("/regions/{slug}", web::get().to(region))
        .route(GLOBAL_HREF, web::get().to(global))
        .route("/plans/choose", web::get().to(choose))
        .route("/plans/{id}", web::get().to(plan))
        .route("/help/{topic}", web::get().to(help))
        .route(LEGAL_ROUTE, web::get().to(legal));
}

// ---- the plan page, with its checkout form ------------------------------------------------

/// The checkout form as the plan page shows it.
pub struct BuyForm {
    pub csrf_token: String,
    pub email: String,
    /// Everything wrong with the last submission, in the order of the fields.
    pub errors: Vec<FieldError>,
    pub expected_price_cents: i64,
    /// The promotion code field as typed.
    pub promo_code: String,
    /// "My phone supports eSIM" was ticked.
    pub device_confirmed: bool,
    /// "I agree to the terms" was ticked.
    pub terms_accepted: bool,
    /// The address the visitor probably meant (`name@gmail.com` for `name@gmial.con`), offered
    /// as a button beside the field.
    pub email_suggestion: Option<String>,
    /// Every number of eSIMs the owner's cap allows, the chosen one selected.
    pub quantities: Vec<QuantityChoice>,
    /// One row per eSIM the cap allows, as typed.
    pub travellers: Vec<TravellerFields>,
    /// "When do you leave?" as typed (`YYYY-MM-DD` from a date input).
    pub trip_date: String,
    /// "Email me a reminder if I don't finish" was ticked.
    pub remind_unfinished: bool,
}

/// One choice of the checkout's number of eSIMs, with what it costs in all.
pub struct QuantityChoice {
    pub value: u32,
    /// The total for this many, `$38.97`.
    pub total: String,
    /// The submit button's words for this many (`Continue to payment · $38.97`).
    pub continue_label: String,
    pub selected: bool,
}

/// The optional name and email of the traveller of eSIM `index`, as typed.
pub struct TravellerFields {
    pub index: u32,
    pub name: String,
    pub email: String,
}

impl TravellerFields {
    /// `eSIM 2`.
    pub fn legend(&self) -> String {
        i18n::ta("checkout-traveller-legend", "n", i64::from(self.index))
    }
}

impl BuyForm {
    /// The form for `plan` with `quantity` eSIMs chosen of at most `cap`, and `travellers`
    /// as typed (`(name, email)` per eSIM).
    fn new(
        plan: &ShopPlan,
        csrf_token: String,
        typed: Typed,
        errors: Vec<FieldError>,
        cap: Quantity,
    ) -> Self {
        let lang = i18n::current();
        let each = plan.price.unwrap_or(Cents::ZERO);
        let quantities = (1..=cap.get())
            .filter_map(Quantity::new)
            .map(|q| {
                let total = lang.money(q.times(each));
                QuantityChoice {
                    value: q.get(),
                    continue_label: lang.ta("plan-continue", &[("price", total.clone().into())]),
                    total,
                    selected: q == typed.quantity,
                }
            })
            .collect();
        let mut rows = typed.travellers.into_iter();
        let travellers = (1..=cap.get())
            .map(|index| {
                let (name, email) = rows.next().unwrap_or_default();
                TravellerFields { index, name, email }
            })
            .collect();
        Self {
            csrf_token,
            email: typed.email,
            errors,
            expected_price_cents: plan.price.map_or(0, Cents::get),
            promo_code: typed.promo_code,
            device_confirmed: typed.device_confirmed,
            terms_accepted: typed.terms_accepted,
            email_suggestion: typed.email_suggestion,
            quantities,
            travellers,
            trip_date: typed.trip_date,
            remind_unfinished: typed.remind_unfinished,
        }
    }

    /// The chosen number's total and button words.
    fn chosen(&self) -> Option<&QuantityChoice> {
        self.quantities.iter().find(|q| q.selected)
    }

    /// Whether the several-eSIMs part shows unfolded: more than one eSIM chosen, something
    /// typed in the travellers' rows, or a problem with one of its fields.
    fn travellers_open(&self) -> bool {
        self.quantities.iter().any(|q| q.selected && q.value > 1)
            || self
                .travellers
                .iter()
                .any(|row| !row.name.trim().is_empty() || !row.email.trim().is_empty())
            || self.errors.iter().any(|e| {
                e.field
                    .as_deref()
                    .is_some_and(|f| f.starts_with("traveller_") || f == "quantity")
            })
    }
}

/// What the visitor sent in the checkout form, shown again with its errors: every field as
/// it was, so fixing one problem does not undo the rest.
pub struct Typed {
    pub email: String,
    pub promo_code: String,
    pub device_confirmed: bool,
    pub terms_accepted: bool,
    /// See [`BuyForm::email_suggestion`].
    pub email_suggestion: Option<String>,
    pub quantity: Quantity,
    /// `(name, email)` per eSIM.
    pub travellers: Vec<(String, String)>,
    /// The departure day field as typed.
    pub trip_date: String,
    /// The reminder of an unfinished checkout was asked for.
    pub remind_unfinished: bool,
}

impl Typed {
    /// A first visit's form: nothing typed, one eSIM.
    pub fn blank() -> Self {
        Self {
            email: String::new(),
            promo_code: String::new(),
            device_confirmed: false,
            terms_accepted: false,
            email_suggestion: None,
            quantity: Quantity::ONE,
            travellers: Vec::new(),
            trip_date: String::new(),
            remind_unfinished: false,
        }
    }
}

impl BuyForm {
    /// The message for the field with id `field`, if it has one.
    pub fn error_for(&self, field: &str) -> Option<&str> {
        self.errors
            .iter()
            .find(|e| e.field.as_deref() == Some(field))
            .map(|e| e.message.as_str())
    }
}

/// One problem with the checkout form: about a field (its element id, which the error
/// summary links to), or about the whole submission.
pub struct FieldError {
    pub field: Option<String>,
    pub message: String,
}

impl FieldError {
    pub fn field(id: &'static str, message: &str) -> Self {
        Self::field_owned(id.to_string(), message)
    }

    /// About a field whose id is made per row (`traveller_email_2`).
    pub fn field_owned(id: String, message: &str) -> Self {
        Self {
            field: Some(id),
            message: message.to_string(),
        }
    }

    pub fn general(message: &str) -> Self {
        Self {
            field: None,
            message: message.to_string(),
        }
    }
}

#[derive(Template)]
#[template(path = "shop/plan.html", blocks = ["title", "description"])]
struct PlanPage {
    /// The `<title>` and description written for search results, and the page's structured
    /// data (a `Product` with its `Offer`, and the breadcrumb).
    head_title: String,
    description: String,
    structured: String,
    /// The checkout form's `plan_id`; not shown.
    id: String,
    country_name: String,
    /// Home › Countries › the country, or Home › Regions › the region (or the global plans):
    /// the listing the plan was opened from.
    crumbs: Vec<Crumb>,
    /// Every duration the plan comes in (a daily plan's family), this one marked; empty for
    /// a plan of one duration.
    durations: Vec<DurationLink>,
    /// `Local`, `Regional` or `Global`: which lead and crumbs the page shows.
    kind: &'static str,
    allowance: String,
    validity: String,
    price: String,
    sellable: bool,
    online: bool,
    /// New sales are paused (the wallet): the buy box says so instead of offering checkout.
    paused: bool,
    is_daily: bool,
    /// `total for 7 days` and `$5.24/day` for a daily plan of several days, else empty.
    price_note: String,
    per_day: String,
    /// `7 GB in total` for a daily plan of several days, else empty.
    total_data: String,
    activation: &'static str,
    /// Each `None` when upstream did not give it: the page leaves the row out.
    fair_use: Option<String>,
    network_type: Option<String>,
    networks: Option<String>,
    coverage: Vec<String>,
    form: BuyForm,
    /// The price in the owner's display currencies.
    fx: Vec<DisplayPrice>,
}

/// A link of the breadcrumb.
pub struct Crumb {
    pub href: String,
    pub label: String,
}

/// Another duration of the same daily plan, on the plan page.
pub struct DurationLink {
    pub href: String,
    pub days: String,
    pub price: String,
    pub current: bool,
}

/// The breadcrumb of a plan page opened from `origin`.
fn crumbs(snap: &Snapshot, origin: &Origin) -> Vec<Crumb> {
    let lang = i18n::current();
    let crumb = |href: &str, id: &str| Crumb {
        href: href.to_string(),
        label: lang.t(id),
    };
    let (list, name) = match origin {
        Origin::Country(code) => (
            crumb("/countries", "countries-title"),
            snap.any_country_name_in(code, lang).to_string(),
        ),
        Origin::Region(slug) => (
            crumb("/regions", "nav-regions"),
            snap.region(slug)
                .map_or_else(|| slug.clone(), |r| r.name_in(lang).to_string()),
        ),
        Origin::Global => (crumb("/regions", "nav-regions"), lang.t("global-title")),
        Origin::Regions => return vec![crumb("/", "crumb-home"), crumb("/regions", "nav-regions")],
    };
    vec![
        crumb("/", "crumb-home"),
        list,
        Crumb {
            href: origin.href(),
            label: name,
        },
    ]
}

/// The plan page of `plan` opened from `origin`, with `form`, as the template renders it.
fn plan_page(
    state: &AppState,
    snap: &Snapshot,
    plan: &ShopPlan,
    origin: &Origin,
    paused: bool,
    form: BuyForm,
) -> PlanPage {
    let lang = i18n::current();
    let labels = plan.labels_in(lang);
    let family = snap.family(plan);
    let crumbs = crumbs(snap, origin);
    let mut trail: Vec<(&str, &str)> = crumbs
        .iter()
        .map(|c| (c.label.as_str(), c.href.as_str()))
        .collect();
    let allowance = plan.allowance(lang);
    trail.push((&allowance, &labels.href));
    let structured = seo::json_ld(&[
        seo::plan_product(plan, lang, !paused),
        seo::breadcrumbs(&trail),
    ]);
    PlanPage {
        head_title: seo::plan_search_title(plan, lang),
        description: seo::description(plan, lang),
        structured,
        id: plan.id.clone(),
        country_name: labels.name.clone(),
        crumbs,
        durations: if family.len() > 1 {
            family
                .into_iter()
                .map(|p| DurationLink {
                    href: format!("{}{}", p.labels.href, origin.query()),
                    days: plan::describe_validity(lang, p.validity_days),
                    price: p.labels_in(lang).price.clone(),
                    current: p.id == plan.id,
                })
                .collect()
        } else {
            Vec::new()
        },
        kind: match plan.kind {
            PlanKind::Local => "Local",
            PlanKind::Regional => "Regional",
            PlanKind::Global => "Global",
        },
        allowance,
        validity: plan.validity_label(lang),
        price: labels.price.clone(),
        sellable: plan.is_sellable(),
        online: plan
            .price
            .is_some_and(|p| p >= state.payments.minimum_charge()),
        paused,
        is_daily: plan.is_daily,
        price_note: labels.price_note.clone(),
        per_day: labels.per_day.clone(),
        total_data: labels.total_data.clone(),
        activation: plan.activation.describe(),
        fair_use: plan.fair_use().map(|f| f.into_owned()),
        network_type: plan.network_type_label().map(str::to_string),
        networks: plan.networks_label(),
        coverage: if plan.kind == PlanKind::Local {
            Vec::new()
        } else {
            coverage_names(snap, &plan.coverage)
        },
        form,
        fx: labels.fx.clone(),
    }
}

/// The plan page with what the visitor typed and what was wrong with it (a checkout that
/// could not start), rendered for this answer only.
pub(crate) fn render_plan(
    state: &AppState,
    req: &HttpRequest,
    plan: &ShopPlan,
    status: StatusCode,
    typed: Typed,
    errors: Vec<FieldError>,
) -> HttpResponse {
    let snap = state.catalog.snapshot();
    let issued = csrf::issue(req, &state.settings.secret_key, state.secure_cookies);
    let form = BuyForm::new(
        plan,
        issued.token,
        typed,
        errors,
        state.settings.max_esims_per_order,
    );
    let origin = snap.own_origin(plan);
    let page = plan_page(state, &snap, plan, &origin, state.sales.paused(), form);
    pages::private_page(status, &page, issued.cookie)
}

/// The plan page as a first visit sees it: the same for every visitor of this snapshot (and
/// pause state) but for the form's CSRF token, so it comes from [`crate::web::page_cache`]
/// rendered and compressed once, and only the token (one HMAC) is made per request.
/// `?from=` of a plan page: the listing it was opened from ([`Snapshot::origin`]).
#[derive(Deserialize)]
pub struct PlanQuery {
    from: Option<String>,
}

pub async fn plan(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    query: web::Query<PlanQuery>,
) -> Result<HttpResponse, AppError> {
    let snap = state.catalog.snapshot();
    let plan = snap.plan(&id).ok_or(AppError::NotFound)?;
    state.wallet().refresh_sales_state(&state.sales).await;
    // The buy box says "temporarily unavailable" while sales are paused: one page per state.
    let paused = state.sales.paused();
    // Whatever `from` says, the key names one of the plan's few listings.
    let origin = snap.origin(plan, query.from.as_deref());
    let key = format!(
        "{}/plan/{}?paused={paused}&from={}{}",
        pages::identity().version,
        plan.id,
        origin.value(),
        crate::web::seo::cache_variant()
    );
    let page =
        state
            .plan_pages
            .get_or_render(snap.generation(), i18n::current().code(), &key, || {
                let form = BuyForm::new(
                    plan,
                    page_cache::SLOT.to_string(),
                    Typed::blank(),
                    Vec::new(),
                    state.settings.max_esims_per_order,
                );
                plan_page(&state, &snap, plan, &origin, paused, form)
                    .render()
                    .map_err(AppError::internal)
            })?;
    let issued = csrf::issue(&req, &state.settings.secret_key, state.secure_cookies);
    let mut response = page.respond(&req, &issued.token, StatusCode::OK);
    // The form holds a per-browser token.
    response
        .headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static("private, no-store"));
    if let Some(cookie) = issued.cookie {
        let _ = response.add_cookie(&cookie);
    }
    Ok(response)
}
