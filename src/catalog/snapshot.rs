//! The read model every shop page uses: plans with consumer prices applied, indexed by id,
//! country and region, and the destinations and regions a consumer browses and searches.
//! Built from the database, swapped in whole; readers hold an `Arc` and never wait for a sync.
//!
//! One rule decides what is on sale, [`ShopPlan::is_sellable`], and every list, count and
//! from-price is built from sellable plans only. A plan that is not on sale keeps its page
//! (purchases refer to it) but is listed nowhere.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};

use crate::catalog::search::{Rank, SearchIndex, Target};
use crate::db::catalog::{PlanRow, StoredCatalog, SyncRow};
use crate::db::region_names::RegionNameRow;
use crate::domain::currency::{DisplayPrice, Rate};
use crate::domain::plan::{self, Activation};
use crate::domain::pricing::{
    self, LadderEntry, LadderInversion, MarkupRule, PlanKey, PriceBook, RuleScope,
};
use crate::domain::{Cents, countries};
use crate::i18n::Lang;

/// How plans are grouped for the consumer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PlanKind {
    Local,
    Regional,
    Global,
}

/// A plan as the shop shows and sells it.
#[derive(Debug, Clone)]
pub struct ShopPlan {
    pub id: String,
    /// Upstream's catalog destination code: the country of a local plan, an opaque code of
    /// upstream's ("EU-9", "GL-29") for a regional or global one. Pricing rules match on it.
    pub country_code: String,
    /// The destination as the shop names it: the country of a local plan, the region's name
    /// for a regional plan ("Europe"), "Global" for a global one. Upstream's own label
    /// ("Europe (9 countries)") stays only on a regional plan that no known region names.
    pub country_name: String,
    pub kind: PlanKind,
    pub region: Option<String>,
    /// The country codes covered, upper case, sorted, each once.
    pub coverage: Vec<String>,
    pub data_mb: i64,
    pub validity_days: i64,
    pub is_daily: bool,
    pub period_num: Option<i64>,
    /// What the partner pays upstream. Never rendered on a public page.
    pub cost: Cents,
    /// What the consumer would pay; `None` when no price could be computed. A price does not
    /// make a plan sellable: see [`ShopPlan::is_sellable`].
    pub price: Option<Cents>,
    pub network_type: Option<String>,
    pub networks: Option<Vec<String>>,
    pub activation: Activation,
    pub fup_policy: String,
    pub available: bool,
    sellable: bool,
    /// `country_name` in each shop language ([`Lang`] order).
    names: [String; 3],
    /// Texts every list shows, written once per snapshot rather than once per page view: in
    /// English here, in the other languages in `translated` ([`ShopPlan::labels_in`]).
    pub labels: PlanLabels,
    translated: [PlanLabels; 2],
}

/// The ready-made texts of a plan card.
#[derive(Debug, Clone, Default)]
pub struct PlanLabels {
    /// The destination as named in this language: `Japón`, `Europa`, `Global`.
    pub name: String,
    /// `/plans/{id}` with the id percent-encoded.
    pub href: String,
    pub data: String,
    pub validity: String,
    /// `$12.99`, or empty when the plan is not priced.
    pub price: String,
    /// `9 countries`, `1 country`: how many countries the plan covers.
    pub coverage: String,
    /// `5G · NTT docomo, SoftBank`: what upstream reported of the networks; empty when
    /// nothing. What most often tells two plans of the same size apart.
    pub network: String,
    /// `Starts when installed`; empty when the activation policy is not known.
    pub starts: String,
    /// The fair-use text, shortened for a card; empty when upstream gave none.
    pub fair_use: String,
    /// A daily plan's price is for the whole trip: `total for 7 days`. Empty for other plans
    /// and one-day plans.
    pub price_note: String,
    /// A daily plan's price for one day, `$5.24/day`; empty when `price_note` is.
    pub per_day: String,
    /// A daily plan's data over the trip: `7 GB in total`. Empty for other plans.
    pub total_data: String,
    /// The price in each display currency the owner set a rate for (`≈ €23.40`, with the
    /// rate's date); empty when none is set or the plan is not priced.
    pub fx: Vec<DisplayPrice>,
}

/// How much of a fair-use text a plan card shows; the plan page shows all of it.
const CARD_FAIR_USE_CHARS: usize = 90;

impl ShopPlan {
    fn with_labels(mut self) -> Self {
        self.labels = self.make_labels(Lang::En);
        self.translated = [self.make_labels(Lang::Es), self.make_labels(Lang::De)];
        self
    }

    /// The ready-made texts of this plan's card in `lang`.
    pub fn labels_in(&self, lang: Lang) -> &PlanLabels {
        match lang {
            Lang::En => &self.labels,
            Lang::Es => &self.translated[0],
            Lang::De => &self.translated[1],
        }
    }

    fn make_labels(&self, lang: Lang) -> PlanLabels {
        let several_days = self.is_daily && self.validity_days > 1;
        PlanLabels {
            name: self.names[lang as usize].clone(),
            href: format!("/plans/{}", path_segment(&self.id)),
            data: self.data_label(lang),
            validity: self.validity_label(lang),
            price: self.price.map(|p| lang.money(p)).unwrap_or_default(),
            coverage: lang.ta("countries-count", &[("count", self.coverage.len().into())]),
            network: [
                self.network_type_label().map(str::to_string),
                self.networks_label(),
            ]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" · "),
            starts: self
                .activation
                .short()
                .map(|id| lang.t(id))
                .unwrap_or_default(),
            fair_use: self
                .fair_use()
                .map(|f| plan::shorten(&f, CARD_FAIR_USE_CHARS).into_owned())
                .unwrap_or_default(),
            price_note: if several_days {
                lang.ta(
                    "price-total-for",
                    &[(
                        "days",
                        plan::describe_validity(lang, self.validity_days).into(),
                    )],
                )
            } else {
                String::new()
            },
            per_day: self
                .price_per_day()
                .map(|day| lang.ta("per-day", &[("amount", lang.money(day).into())]))
                .unwrap_or_default(),
            fx: Vec::new(),
            total_data: if several_days {
                lang.ta(
                    "data-in-total",
                    &[("data", lang.data(self.total_data_mb()).into())],
                )
            } else {
                String::new()
            },
        }
    }

    /// Fills each language's display prices (`≈ €23.40`) from the owner's `rates`; an
    /// unpriced plan shows none.
    fn show_display_prices(&mut self, rates: &[Rate]) {
        let Some(price) = self.price else {
            return;
        };
        let shown = |lang: Lang| -> Vec<DisplayPrice> {
            rates.iter().map(|r| r.show_in(lang, price)).collect()
        };
        self.labels.fx = shown(Lang::En);
        self.translated[0].fx = shown(Lang::Es);
        self.translated[1].fx = shown(Lang::De);
    }

    /// `France · 5 GB for 30 days`, `Francia · 5 GB durante 30 días`: the plan named in `lang`.
    pub fn title(&self, lang: Lang) -> String {
        format!("{} · {}", self.names[lang as usize], self.allowance(lang))
    }

    pub fn allowance(&self, lang: Lang) -> String {
        plan::describe_allowance(lang, self.data_mb, self.validity_days, self.is_daily)
    }
    pub fn data_label(&self, lang: Lang) -> String {
        let data = lang.data(self.data_mb);
        if self.is_daily {
            lang.ta("per-day", &[("amount", data.into())])
        } else {
            data
        }
    }
    pub fn validity_label(&self, lang: Lang) -> String {
        plan::describe_validity(lang, self.validity_days)
    }
    /// The data over the whole validity (a daily allowance times the days).
    pub fn total_data_mb(&self) -> i64 {
        plan::total_data_mb(self.data_mb, self.validity_days, self.is_daily)
    }
    /// Upstream's fair-use text as words; `None` when it gave none.
    pub fn fair_use(&self) -> Option<Cow<'_, str>> {
        plan::describe_fair_use(&self.fup_policy)
    }
    /// "5G"; `None` when not reported.
    pub fn network_type_label(&self) -> Option<&str> {
        plan::describe_network_type(self.network_type.as_deref())
    }
    /// "NTT docomo, SoftBank"; `None` when none are listed.
    pub fn networks_label(&self) -> Option<String> {
        plan::describe_networks(self.networks.as_deref())
    }
    /// A daily plan's price for one day; `None` for other plans and one-day plans. The
    /// price itself is already the total for the whole validity.
    pub fn price_per_day(&self) -> Option<Cents> {
        self.price
            .filter(|_| self.is_daily)
            .and_then(|p| plan::per_day(p, self.validity_days))
    }
    /// A plan the shop sells now: listed upstream, and priced in USD at an amount a card
    /// payment can charge ([`pricing::card_chargeable`]). The one rule every list, count and
    /// from-price uses.
    pub fn is_sellable(&self) -> bool {
        self.sellable
    }

    /// What the shop keeps of its price over the cost; `None` with no price.
    pub fn margin(&self) -> Option<Cents> {
        self.price
            .map(|price| Cents::new(price.get().saturating_sub(self.cost.get())))
    }

    /// Why the plan is not on sale, in the owner's words; `None` when it is.
    pub fn not_sold_because(&self) -> Option<&'static str> {
        if self.sellable {
            return None;
        }
        Some(match self.price {
            _ if !self.available => "withdrawn upstream",
            None => "no price",
            Some(price) if price < pricing::MIN_CARD_CHARGE => {
                "price below the smallest card charge ($0.50)"
            }
            Some(price) if price > pricing::MAX_CARD_CHARGE => {
                "price above the largest card charge ($999,999.99)"
            }
            Some(_) => "not chargeable",
        })
    }
}

/// Percent-encodes one path segment (plan ids are opaque and used exactly as given).
pub fn path_segment(segment: &str) -> String {
    url::form_urlencoded::byte_serialize(segment.as_bytes()).collect()
}

/// A country a consumer can pick: something on sale is local to it or covers it.
#[derive(Debug, Clone)]
pub struct Destination {
    /// ISO 3166-1 alpha-2, upper case.
    pub code: String,
    /// The English name (upstream's, else the ISO table's).
    pub name: String,
    /// The name in each shop language ([`Lang`] order): CLDR's in Spanish and German.
    pub names: [String; 3],
    pub search_key: String,
    /// Local plans on sale.
    pub local_plans: usize,
    /// Lowest consumer price among them.
    pub from_price: Option<Cents>,
    /// Regional and global plans on sale that cover it.
    pub covering_plans: usize,
    /// Lowest consumer price among them.
    pub covering_from: Option<Cents>,
}

impl Destination {
    /// The country's name in `lang`.
    pub fn name_in(&self, lang: Lang) -> &str {
        &self.names[lang as usize]
    }
}

#[derive(Debug, Clone)]
pub struct ShopRegion {
    pub slug: String,
    /// Upstream's (English) name.
    pub name: String,
    /// The name in each shop language ([`Lang`] order): CLDR's for a continent or subregion
    /// it knows, else upstream's.
    pub names: [String; 3],
    pub search_key: String,
    /// The region's country codes, upper case, sorted, each once.
    pub coverage: Vec<String>,
    /// Regional plans of this region on sale; local plans of its countries are not counted.
    pub plans: usize,
    /// Lowest consumer price among them.
    pub from_price: Option<Cents>,
}

impl ShopRegion {
    /// The region's name in `lang`.
    pub fn name_in(&self, lang: Lang) -> &str {
        &self.names[lang as usize]
    }
}

/// A region's name in every shop language: the owner's own name for that language where set
/// (`own`, from the console), else CLDR's name of the area upstream calls `english`, else
/// `english` as upstream gives it. Every page, title and email names a region through this.
pub fn region_names(english: &str, own: &[RegionNameRow]) -> [String; 3] {
    Lang::ALL.map(|lang| {
        own.iter()
            .find(|row| row.lang == lang.code())
            .map(|row| row.name.clone())
            .or_else(|| countries::region_name_in(english, lang).map(str::to_string))
            .unwrap_or_else(|| english.to_string())
    })
}

/// A search result.
#[derive(Debug, Clone, Copy)]
pub enum Found<'a> {
    Destination(&'a Destination),
    Region(&'a ShopRegion),
}

#[derive(Debug, Default)]
pub struct Snapshot {
    plans: Vec<ShopPlan>,
    by_id: HashMap<String, usize>,
    /// Local plans on sale by destination.
    by_country: HashMap<String, Vec<usize>>,
    /// Regional and global plans on sale by each country they cover.
    covering: HashMap<String, Vec<usize>>,
    /// Regional plans on sale by region slug.
    by_region: HashMap<String, Vec<usize>>,
    destinations: Vec<Destination>,
    /// Indexes into `destinations` sorted by name in each language ([`Lang`] order).
    destination_order: [Vec<usize>; 3],
    destination_index: HashMap<String, usize>,
    /// Every name of every destination and listed region, for [`Snapshot::search`].
    search_index: SearchIndex,
    regions: Vec<ShopRegion>,
    /// Upstream's destination codes of regional and global plans ("EU-9"), upper case, to
    /// the page that lists such plans: old or guessed `/countries/EU-9` links lead there.
    listings: HashMap<String, String>,
    inversions: Vec<LadderInversion>,
    /// Each plan's family ([`crate::catalog::choice`]) by plan index, as an index into
    /// `families`.
    pub(super) family_of: Vec<usize>,
    /// The plans on sale of each family, shortest first.
    pub(super) families: Vec<Vec<usize>>,
    book: Option<PriceBook>,
    /// The owner's display-only exchange rates, by currency code.
    rates: Vec<Rate>,
    pub last_sync: Option<SyncRow>,
    pub last_good_sync: Option<SyncRow>,
    /// The pricing version the prices were computed under.
    pub pricing_version: i64,
    /// Unique per built snapshot (0: the empty one before the first load), so what is derived
    /// from one snapshot (rendered pages) is never served from another.
    generation: u64,
}

/// The generation of the next snapshot built.
static NEXT_GENERATION: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

fn json_list(raw: &str) -> Vec<String> {
    serde_json::from_str(raw).unwrap_or_default()
}

/// Country codes as the shop keys them: trimmed, upper case, sorted, each once.
fn country_codes(raw: &str) -> Vec<String> {
    let mut codes: Vec<String> = json_list(raw)
        .iter()
        .map(|c| c.trim().to_ascii_uppercase())
        .filter(|c| !c.is_empty())
        .collect();
    codes.sort();
    codes.dedup();
    codes
}

/// Two ASCII letters: what can be a country page.
fn is_country_code(code: &str) -> bool {
    code.len() == 2 && code.bytes().all(|b| b.is_ascii_uppercase())
}

fn rules_from_rows(stored: &StoredCatalog) -> Vec<MarkupRule> {
    stored
        .rules
        .iter()
        .filter_map(|row| {
            let scope = RuleScope::from_parts(&row.scope_kind, &row.scope_value).ok()?;
            let rule = MarkupRule::new(
                scope,
                row.markup_bps,
                Cents::new(row.fixed_cents),
                row.price_ending,
                Cents::new(row.min_margin_cents),
            );
            if let Err(err) = &rule {
                tracing::error!(rule.id = row.id, error = %err, "stored markup rule is invalid; ignored");
            }
            rule.ok()
        })
        .collect()
}

/// The stored display rates that are valid; an invalid row is logged and left out.
fn display_rates(stored: &StoredCatalog) -> Vec<Rate> {
    stored
        .display_rates
        .iter()
        .filter_map(|row| {
            let rate = Rate::new(&row.currency, row.micros_per_usd, &row.rate_date);
            if let Err(err) = &rate {
                tracing::error!(currency = %row.currency, error = %err, "stored display rate is invalid; ignored");
            }
            rate.ok()
        })
        .collect()
}

/// What kind of plan a stored row is. `scope` null means unknown, not global (spec 2.4): then
/// what the plan covers and whether its destination is a country decide.
fn plan_kind(row: &PlanRow, coverage: &[String]) -> PlanKind {
    match row.scope.as_deref() {
        Some("local") => PlanKind::Local,
        Some("global") => PlanKind::Global,
        Some("regional") => PlanKind::Regional,
        _ if coverage.len() <= 1
            && is_country_code(&row.country_code.trim().to_ascii_uppercase()) =>
        {
            PlanKind::Local
        }
        _ if row.region.is_some() => PlanKind::Regional,
        _ => PlanKind::Global,
    }
}

/// The destination a plan is shown under: the country of a local plan, the region's name for
/// a regional one (`region`: its names from [`region_names`]), "Global" for a global one.
/// Upstream's own label of a multi-country destination ("Europe (9 countries)") is not used.
pub fn destination_name(row: &PlanRow, region: Option<&[String; 3]>) -> String {
    destination_name_in(row, region, Lang::En)
}

/// [`destination_name`] in `lang`: a country by its code (CLDR's name in Spanish and German,
/// upstream's in English), a region by its name in `lang`.
pub fn destination_name_in(row: &PlanRow, region: Option<&[String; 3]>, lang: Lang) -> String {
    match plan_kind(row, &country_codes(&row.coverage)) {
        PlanKind::Local => match lang {
            Lang::En => row.country_name.clone(),
            _ => countries::name_in(row.country_code.trim(), lang)
                .map_or_else(|| row.country_name.clone(), str::to_string),
        },
        PlanKind::Regional => match region {
            Some(names) => names[lang as usize].clone(),
            None => row.country_name.clone(),
        },
        PlanKind::Global => lang.t("destination-global"),
    }
}

fn shop_plan(
    row: &PlanRow,
    book: &PriceBook,
    region_names: &HashMap<&str, [String; 3]>,
) -> ShopPlan {
    let coverage = country_codes(&row.coverage);
    let kind = plan_kind(row, &coverage);
    let region = row
        .region
        .as_deref()
        .and_then(|slug| region_names.get(slug));
    let names = Lang::ALL.map(|lang| destination_name_in(row, region, lang));
    let country_name = names[0].clone();
    let key = PlanKey {
        plan_id: &row.id,
        country_code: &row.country_code,
        region: row.region.as_deref(),
    };
    let cost = Cents::new(row.cost_cents);
    let price = match book.price(key, cost) {
        Ok(price) => Some(price),
        Err(err) => {
            tracing::warn!(plan.id = %row.id, error = %err, "plan cannot be priced; not sold");
            None
        }
    };
    // A currency other than USD cannot be sold at a USD price.
    let price = price.filter(|_| row.currency == "USD");
    ShopPlan {
        id: row.id.clone(),
        country_code: row.country_code.clone(),
        country_name,
        kind,
        region: row.region.clone(),
        coverage,
        data_mb: row.data_mb,
        validity_days: row.validity_days,
        is_daily: row.is_daily,
        period_num: row.period_num,
        cost,
        price,
        network_type: row.network_type.clone(),
        networks: row.networks.as_deref().map(json_list),
        activation: Activation::parse(&row.activation_type),
        fup_policy: row.fup_policy.clone(),
        available: row.available,
        sellable: row.available && price.is_some_and(pricing::card_chargeable),
        names,
        labels: PlanLabels::default(),
        translated: Default::default(),
    }
    .with_labels()
}

/// The rule for plans no owner's rule prices: the configured default markup (none when that is
/// out of range).
pub(crate) fn default_rule(default_markup_bps: u32) -> MarkupRule {
    MarkupRule::default_markup(default_markup_bps)
        .unwrap_or_else(|_| MarkupRule::default_markup(0).expect("0 bps is valid"))
}

impl Snapshot {
    pub fn build(stored: &StoredCatalog, default_markup_bps: u32) -> Self {
        let book = PriceBook::new(default_rule(default_markup_bps), rules_from_rows(stored));
        let names_of_region: HashMap<&str, [String; 3]> = stored
            .regions
            .iter()
            .filter(|r| r.available)
            .map(|r| {
                let own: Vec<RegionNameRow> = stored
                    .region_names
                    .iter()
                    .filter(|n| n.slug == r.slug)
                    .cloned()
                    .collect();
                (r.slug.as_str(), region_names(&r.name, &own))
            })
            .collect();
        let rates = display_rates(stored);
        let plans: Vec<ShopPlan> = stored
            .plans
            .iter()
            .map(|row| {
                let mut plan = shop_plan(row, &book, &names_of_region);
                plan.show_display_prices(&rates);
                plan
            })
            .collect();

        let mut snap = Snapshot {
            generation: NEXT_GENERATION.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            last_sync: stored.last_sync.clone(),
            pricing_version: stored.pricing_version,
            last_good_sync: stored.last_good_sync.clone(),
            rates,
            ..Snapshot::default()
        };
        for (i, plan) in plans.iter().enumerate() {
            snap.by_id.insert(plan.id.clone(), i);
            if !plan.is_sellable() {
                continue;
            }
            match plan.kind {
                PlanKind::Local => {
                    let code = plan.country_code.trim().to_ascii_uppercase();
                    if is_country_code(&code) {
                        snap.by_country.entry(code).or_default().push(i);
                    }
                }
                PlanKind::Regional | PlanKind::Global => {
                    for code in plan.coverage.iter().filter(|c| is_country_code(c)) {
                        snap.covering.entry(code.clone()).or_default().push(i);
                    }
                    if let (PlanKind::Regional, Some(region)) = (plan.kind, &plan.region) {
                        snap.by_region.entry(region.clone()).or_default().push(i);
                    }
                }
            }
        }
        let from_price = |indexes: Option<&Vec<usize>>| {
            indexes.and_then(|ix| ix.iter().filter_map(|&i| plans[i].price).min())
        };

        // A country is named by upstream's /countries, else by its local plans, else by the
        // ISO table (regional and global plans name their countries by code alone).
        let mut names: HashMap<String, &str> = HashMap::new();
        for country in stored.countries.iter().filter(|c| c.available) {
            names
                .entry(country.code.trim().to_ascii_uppercase())
                .or_insert(&country.name);
        }
        for plan in plans.iter().filter(|p| p.kind == PlanKind::Local) {
            names
                .entry(plan.country_code.trim().to_ascii_uppercase())
                .or_insert(&plan.country_name);
        }
        let codes: BTreeSet<&String> = snap.by_country.keys().chain(snap.covering.keys()).collect();
        snap.destinations = codes
            .into_iter()
            .map(|code| {
                let name = names
                    .get(code)
                    .copied()
                    .or_else(|| countries::name(code))
                    .unwrap_or(code)
                    .to_string();
                let local = snap.by_country.get(code);
                let covering = snap.covering.get(code);
                let names = Lang::ALL.map(|lang| match lang {
                    Lang::En => name.clone(),
                    _ => {
                        countries::name_in(code, lang).map_or_else(|| name.clone(), str::to_string)
                    }
                });
                Destination {
                    names,
                    search_key: plan::search_key(&name),
                    local_plans: local.map_or(0, Vec::len),
                    from_price: from_price(local),
                    covering_plans: covering.map_or(0, Vec::len),
                    covering_from: from_price(covering),
                    code: code.clone(),
                    name,
                }
            })
            .collect();
        snap.destinations
            .sort_by(|a, b| a.search_key.cmp(&b.search_key));
        snap.destination_order = Lang::ALL.map(|lang| {
            let mut order: Vec<usize> = (0..snap.destinations.len()).collect();
            order.sort_by_cached_key(|&i| plan::search_key(snap.destinations[i].name_in(lang)));
            order
        });
        snap.destination_index = snap
            .destinations
            .iter()
            .enumerate()
            .map(|(i, d)| (d.code.clone(), i))
            .collect();

        snap.regions = stored
            .regions
            .iter()
            .filter(|r| r.available)
            .map(|r| ShopRegion {
                slug: r.slug.clone(),
                names: names_of_region
                    .get(r.slug.as_str())
                    .cloned()
                    .unwrap_or_else(|| region_names(&r.name, &[])),
                name: r.name.clone(),
                search_key: plan::search_key(&r.name),
                coverage: country_codes(&r.coverage),
                plans: snap.by_region.get(&r.slug).map_or(0, Vec::len),
                from_price: from_price(snap.by_region.get(&r.slug)),
            })
            .collect();
        snap.regions.sort_by(|a, b| a.name.cmp(&b.name));
        snap.search_index = SearchIndex::build(
            snap.destinations
                .iter()
                .map(|d| (d.code.as_str(), d.names.as_slice())),
            snap.listed_regions().map(|r| r.names.as_slice()),
        );

        let ladder: Vec<LadderEntry<'_>> = plans
            .iter()
            .filter(|p| p.is_sellable() && p.kind == PlanKind::Local)
            .filter_map(|p| {
                Some(LadderEntry {
                    plan_id: &p.id,
                    destination: &p.country_code,
                    is_daily: p.is_daily,
                    data_mb: p.data_mb,
                    validity_days: p.validity_days,
                    price: p.price?,
                })
            })
            .collect();
        snap.inversions = crate::domain::pricing::ladder_inversions(&ladder);
        (snap.family_of, snap.families) = super::choice::families(&plans);
        snap.plans = plans;
        snap.book = Some(book);

        let listings: HashMap<String, String> = snap
            .plans
            .iter()
            .filter(|p| p.kind != PlanKind::Local)
            .map(|p| (p.country_code.trim().to_ascii_uppercase(), p))
            .filter(|(code, _)| !code.is_empty() && !snap.destination_index.contains_key(code))
            .map(|(code, p)| (code, snap.listing_href(p)))
            .collect();
        snap.listings = listings;
        snap
    }

    /// Which snapshot this is: equal generations are the same snapshot.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    pub fn plan(&self, id: &str) -> Option<&ShopPlan> {
        self.by_id.get(id).map(|&i| &self.plans[i])
    }

    /// Where the plan `id` is in [`Snapshot::plans`].
    pub(super) fn by_id_index(&self, id: &str) -> Option<usize> {
        self.by_id.get(id).copied()
    }

    /// What `plan` would sell for if its cost were `cost` (a live re-read at checkout);
    /// `None` when the shop would not sell it at that cost: no price, or one no card payment
    /// can charge.
    pub fn price_for(&self, plan: &ShopPlan, cost: Cents) -> Option<Cents> {
        let key = PlanKey {
            plan_id: &plan.id,
            country_code: &plan.country_code,
            region: plan.region.as_deref(),
        };
        self.book
            .as_ref()?
            .price(key, cost)
            .ok()
            .filter(|price| pricing::card_chargeable(*price))
    }

    /// `usd` in each display currency the owner set a rate for, written in `lang` (never
    /// what is charged).
    pub fn display_prices(&self, usd: Cents, lang: Lang) -> Vec<DisplayPrice> {
        self.rates.iter().map(|r| r.show_in(lang, usd)).collect()
    }

    /// The display rates the catalog was built with.
    pub fn display_rates(&self) -> &[Rate] {
        &self.rates
    }

    /// Every plan, on sale or not (the admin's view).
    pub fn plans(&self) -> &[ShopPlan] {
        &self.plans
    }

    /// The console's plan list: the plans of `country` and of `region` (each optional), in
    /// natural id order. `Err` says which filter the catalog does not know.
    pub fn plans_in(
        &self,
        country: Option<&str>,
        region: Option<&str>,
    ) -> Result<Vec<&ShopPlan>, String> {
        if let Some(c) = country
            && self.country_name(c).is_none()
            && !self.plans.iter().any(|p| p.country_code == c)
        {
            return Err(format!("There is no country {c:?} in the catalog."));
        }
        if let Some(r) = region
            && self.region(r).is_none()
        {
            return Err(format!("There is no region {r:?} in the catalog."));
        }
        let mut matching: Vec<_> = self
            .plans
            .iter()
            .filter(|p| country.is_none_or(|c| p.country_code == c))
            .filter(|p| region.is_none_or(|r| p.region.as_deref() == Some(r)))
            .collect();
        matching.sort_by(|a, b| super::named::natural_order(&a.id, &b.id));
        Ok(matching)
    }

    /// The local plans on sale for `country` (upper-case code).
    pub fn local_plans(&self, country: &str) -> Vec<&ShopPlan> {
        self.indexed(self.by_country.get(country))
    }

    /// Regional and global plans on sale whose coverage includes `country`.
    pub fn covering_plans(&self, country: &str) -> Vec<&ShopPlan> {
        self.indexed(self.covering.get(country))
    }

    /// The regional plans on sale of the region `slug`: plans for several of its countries,
    /// never a single country's local plan that upstream files under the region.
    pub fn region_plans(&self, slug: &str) -> Vec<&ShopPlan> {
        self.indexed(self.by_region.get(slug))
    }

    fn indexed(&self, indexes: Option<&Vec<usize>>) -> Vec<&ShopPlan> {
        indexes
            .map(|ix| ix.iter().map(|&i| &self.plans[i]).collect())
            .unwrap_or_default()
    }

    /// Every country with something on sale, by name.
    pub fn destinations(&self) -> &[Destination] {
        &self.destinations
    }

    pub fn destination(&self, code: &str) -> Option<&Destination> {
        self.destination_index
            .get(code)
            .map(|&i| &self.destinations[i])
    }

    /// Every country with something on sale, by its name in `lang`.
    pub fn destinations_in(&self, lang: Lang) -> impl Iterator<Item = &Destination> {
        self.destination_order[lang as usize]
            .iter()
            .map(|&i| &self.destinations[i])
    }

    /// The name of a country with something on sale.
    pub fn country_name(&self, code: &str) -> Option<&str> {
        self.destination(code).map(|d| d.name.as_str())
    }

    /// The name to show for any country code: the destination's, the ISO table's, or the code.
    pub fn any_country_name<'a>(&'a self, code: &'a str) -> &'a str {
        self.country_name(code)
            .or_else(|| countries::name(code))
            .unwrap_or(code)
    }

    /// The name in `lang` to show for any country code: the destination's, the ISO table's
    /// (CLDR's in Spanish and German), or the code.
    pub fn any_country_name_in<'a>(&'a self, code: &'a str, lang: Lang) -> &'a str {
        match self.destination(code) {
            Some(d) => d.name_in(lang),
            None => countries::name_in(code, lang).unwrap_or(code),
        }
    }

    /// The regions with a regional plan on sale, by their name in `lang`.
    pub fn listed_regions_in(&self, lang: Lang) -> Vec<&ShopRegion> {
        let mut regions: Vec<&ShopRegion> = self.listed_regions().collect();
        regions.sort_by_cached_key(|r| plan::search_key(r.name_in(lang)));
        regions
    }

    /// Every region upstream lists, whether or not a regional plan of it is on sale.
    pub fn regions(&self) -> &[ShopRegion] {
        &self.regions
    }

    /// The regions with a regional plan on sale: the ones worth offering to a consumer.
    pub fn listed_regions(&self) -> impl Iterator<Item = &ShopRegion> {
        self.regions.iter().filter(|r| r.plans > 0)
    }

    pub fn region(&self, slug: &str) -> Option<&ShopRegion> {
        self.regions.iter().find(|r| r.slug == slug)
    }

    /// The page that lists `plan` (and its kind): its country's page, its region's page, or
    /// the list of countries for a global plan, which each covered country's page lists.
    pub fn listing_href(&self, plan: &ShopPlan) -> String {
        match plan.kind {
            PlanKind::Local => format!(
                "/countries/{}",
                path_segment(&plan.country_code.trim().to_ascii_uppercase())
            ),
            PlanKind::Regional => match plan.region.as_deref().and_then(|s| self.region(s)) {
                Some(region) => format!("/regions/{}", path_segment(&region.slug)),
                None => "/regions".to_string(),
            },
            PlanKind::Global => "/countries".to_string(),
        }
    }

    /// Where upstream's destination code of a regional or global plan ("EU-9", any case) is
    /// listed, when it is not a country of its own.
    pub fn listing_for_code(&self, code: &str) -> Option<&str> {
        self.listings
            .get(&code.trim().to_ascii_uppercase())
            .map(String::as_str)
    }

    pub fn inversions(&self) -> &[LadderInversion] {
        &self.inversions
    }

    /// Destinations and listed regions matching `query` in any shop language
    /// ([`crate::catalog::search`]): best match first, then by their name in `lang`.
    pub fn search(&self, query: &str, lang: Lang) -> Vec<Found<'_>> {
        let listed: Vec<&ShopRegion> = self.listed_regions().collect();
        let mut hits: Vec<(Rank, String, Found<'_>)> = self
            .search_index
            .find(query)
            .into_iter()
            .filter_map(|(rank, target)| {
                let found = match target {
                    Target::Destination(i) => Found::Destination(self.destinations.get(i)?),
                    Target::Region(i) => Found::Region(listed.get(i)?),
                };
                let name = match found {
                    Found::Destination(d) => d.name_in(lang),
                    Found::Region(r) => r.name_in(lang),
                };
                Some((rank, plan::search_key(name), found))
            })
            .collect();
        hits.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
        hits.into_iter().map(|(_, _, found)| found).collect()
    }

    /// Up to `n` of the world's most visited countries that have something on sale, most
    /// visited first ([`countries::MOST_VISITED`]).
    pub fn popular(&self, n: usize) -> Vec<&Destination> {
        countries::MOST_VISITED
            .iter()
            .filter_map(|code| self.destination(code))
            .take(n)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::catalog::{CountryRow, RegionRow};

    /// A plan row: `scope` and `region` as upstream sends them, cost in cents.
    fn row(id: &str, code: &str, scope: &str, region: Option<&str>, coverage: &[&str]) -> PlanRow {
        PlanRow {
            id: id.to_string(),
            country_code: code.to_string(),
            country_name: format!("{code} (upstream)"),
            scope: Some(scope.to_string()),
            region: region.map(str::to_string),
            coverage: serde_json::to_string(coverage).expect("json"),
            data_mb: 1024,
            validity_days: 7,
            cost_cents: 1000,
            currency: "USD".to_string(),
            network_type: None,
            networks: None,
            activation_type: "first_install".to_string(),
            is_daily: false,
            fup_policy: String::new(),
            period_num: None,
            available: true,
            first_seen_ms: 0,
            updated_at_ms: 0,
        }
    }

    #[test]
    fn destinations_are_named_by_the_shop_not_by_upstream_labels() {
        let local = row("l", "FR", "local", Some("europe"), &["FR"]);
        let regional = row("r", "EU-9", "regional", Some("europe"), &["FR", "DE"]);
        let global = row("g", "GL-29", "global", None, &["FR", "DE", "JP"]);
        let europe = region_names("Europe", &[]);
        assert_eq!(destination_name(&local, Some(&europe)), "FR (upstream)");
        assert_eq!(destination_name(&regional, Some(&europe)), "Europe");
        // A region /regions did not name keeps upstream's label rather than none.
        assert_eq!(destination_name(&regional, None), "EU-9 (upstream)");
        assert_eq!(destination_name(&global, Some(&europe)), "Global");
    }

    fn cost(mut plan: PlanRow, cents: i64) -> PlanRow {
        plan.cost_cents = cents;
        plan
    }

    fn catalog() -> StoredCatalog {
        let country = |code: &str, name: &str| CountryRow {
            code: code.to_string(),
            name: name.to_string(),
            available: true,
            updated_at_ms: 0,
        };
        let region = |slug: &str, name: &str, coverage: &[&str]| RegionRow {
            slug: slug.to_string(),
            name: name.to_string(),
            coverage: serde_json::to_string(coverage).expect("json"),
            available: true,
            updated_at_ms: 0,
        };
        StoredCatalog {
            countries: vec![
                country("IT", "Italy"),
                country("ES", "Spain"),
                country("CA", "Canada"),
                country("CW", "Curaçao"),
            ],
            regions: vec![
                region("europe", "Europe", &["AD", "ES", "IT"]),
                region("caribbean", "Caribbean", &["CW", "TT"]),
                region("middle-east", "Middle East", &["AE"]),
            ],
            plans: vec![
                // A local plan filed under its region: never a regional plan.
                cost(row("p1-base", "IT", "local", Some("europe"), &["IT"]), 100),
                row("p2-base", "ES", "local", Some("europe"), &["ES"]),
                row("p3-base", "CA", "local", None, &["CA"]),
                cost(row("p4-base", "CW", "local", Some("caribbean"), &["CW"]), 0),
                cost(row("p5-base", "CW", "local", None, &["CW"]), 2000),
                cost(
                    row("p6-base", "CW", "local", None, &["CW"]),
                    9_007_199_254_740_991,
                ),
                cost(
                    row(
                        "p7-base",
                        "EU-3",
                        "regional",
                        Some("europe"),
                        &["AD", "ES", "IT"],
                    ),
                    3000,
                ),
                row("p8-base", "GL-4", "global", None, &["ad", "IT", "ID", "IT"]),
                row("p9-base", "ME-1", "regional", Some("middle-east"), &["AE"]),
                // Scope unknown: one country, but a region's destination, not a country's.
                PlanRow {
                    scope: None,
                    ..row("p10-base", "ME-1", "", Some("middle-east"), &["AE"])
                },
            ],
            ..StoredCatalog::default()
        }
    }

    fn ids(plans: &[&ShopPlan]) -> Vec<String> {
        let mut ids: Vec<String> = plans.iter().map(|p| p.id.clone()).collect();
        ids.sort();
        ids
    }

    #[test]
    fn a_region_lists_its_regional_plans_and_prices_from_them_only() {
        let snap = Snapshot::build(&catalog(), 2500);
        assert_eq!(ids(&snap.region_plans("europe")), ["p7-base"]);
        let europe = snap.region("europe").expect("europe");
        assert_eq!(europe.plans, 1);
        // 3000 + 25 %: the Italian plan at 125 does not set the region's price.
        assert_eq!(europe.from_price, Some(Cents::new(3750)));
        // The Caribbean has local plans only: no regional plan, not offered as a region.
        assert_eq!(snap.region("caribbean").map(|r| r.plans), Some(0));
        let listed: Vec<&str> = snap.listed_regions().map(|r| r.slug.as_str()).collect();
        assert_eq!(listed, ["europe", "middle-east"]);
    }

    #[test]
    fn only_prices_a_card_can_charge_are_on_sale_and_counted() {
        let snap = Snapshot::build(&catalog(), 2500);
        let free = snap.plan("p4-base").expect("kept for its page");
        let absurd = snap.plan("p6-base").expect("kept for its page");
        assert!(!free.is_sellable() && !absurd.is_sellable());
        assert!(snap.plan("p5-base").is_some_and(ShopPlan::is_sellable));
        let curacao = snap.destination("CW").expect("Curaçao");
        assert_eq!(curacao.local_plans, 1);
        assert_eq!(curacao.from_price, Some(Cents::new(2500)));
        assert_eq!(ids(&snap.local_plans("CW")), ["p5-base"]);
        // Re-priced at checkout: an amount no card can charge is no price.
        let plan = snap.plan("p5-base").expect("plan");
        assert_eq!(
            snap.price_for(plan, Cents::new(2000)),
            Some(Cents::new(2500))
        );
        assert_eq!(snap.price_for(plan, Cents::ZERO), None);
        assert_eq!(snap.price_for(plan, Cents::new(100_000_000)), None);
    }

    #[test]
    fn every_covered_country_is_a_named_destination() {
        let snap = Snapshot::build(&catalog(), 2500);
        let codes: Vec<&str> = snap
            .destinations()
            .iter()
            .map(|d| d.code.as_str())
            .collect();
        // Named by /countries, or by the ISO table; sorted by name. TT is in a region but
        // nothing on sale covers it; CA has a local plan.
        assert_eq!(codes, ["AD", "CA", "CW", "ID", "IT", "ES", "AE"]);
        let indonesia = snap.destination("ID").expect("covered by the global plan");
        assert_eq!(indonesia.name, "Indonesia");
        assert_eq!((indonesia.local_plans, indonesia.covering_plans), (0, 1));
        assert_eq!(snap.country_name("AD"), Some("Andorra"));
        assert_eq!(snap.destination("TT").map(|d| d.code.as_str()), None);
        assert_eq!(snap.any_country_name("TT"), "Trinidad and Tobago");
        // Coverage is keyed upper case, each country once.
        assert_eq!(ids(&snap.covering_plans("IT")), ["p7-base", "p8-base"]);
        assert_eq!(
            snap.plan("p8-base").map(|p| p.coverage.clone()),
            Some(vec!["AD".to_string(), "ID".to_string(), "IT".to_string()])
        );
    }

    #[test]
    fn non_local_plans_are_named_and_listed_by_region_or_as_global() {
        let snap = Snapshot::build(&catalog(), 2500);
        let regional = snap.plan("p7-base").expect("plan");
        assert_eq!(regional.country_name, "Europe");
        assert_eq!(regional.labels.coverage, "3 countries");
        assert_eq!(regional.labels_in(Lang::De).coverage, "3 Länder");
        assert_eq!(snap.listing_href(regional), "/regions/europe");
        let global = snap.plan("p8-base").expect("plan");
        assert_eq!(global.country_name, "Global");
        assert_eq!(snap.listing_href(global), "/countries");
        assert_eq!(
            snap.plan("p9-base").map(|p| p.labels.coverage.as_str()),
            Some("1 country")
        );
        assert_eq!(
            ids(&snap.region_plans("middle-east")),
            ["p10-base", "p9-base"]
        );
        let local = snap.plan("p1-base").expect("plan");
        assert_eq!(snap.listing_href(local), "/countries/IT");
        // Upstream's destination codes of non-local plans lead to their listing.
        assert_eq!(snap.listing_for_code("eu-3"), Some("/regions/europe"));
        assert_eq!(snap.listing_for_code("GL-4"), Some("/countries"));
        assert_eq!(snap.listing_for_code("IT"), None);
    }

    #[test]
    fn search_ranks_exact_codes_then_name_prefixes_then_substrings() {
        let snap = Snapshot::build(&catalog(), 2500);
        let names = |query: &str| -> Vec<String> {
            snap.search(query, Lang::En)
                .into_iter()
                .map(|found| match found {
                    Found::Destination(d) => d.name.clone(),
                    Found::Region(r) => format!("region {}", r.name),
                })
                .collect()
        };
        // "ad" is inside "Canada", but it is Andorra's code.
        assert_eq!(names("AD"), ["Andorra", "Canada"]);
        assert_eq!(names(" andorra "), ["Andorra"]);
        assert_eq!(names("indo"), ["Indonesia"]);
        assert_eq!(names("CURACAO"), ["Curaçao"]);
        assert_eq!(names("europe"), ["region Europe"]);
        assert_eq!(names("es"), ["Spain", "Indonesia", "United Arab Emirates"]);
        assert_eq!(
            names("i"),
            [
                "Indonesia",
                "Italy",
                "region Middle East",
                "Spain",
                "United Arab Emirates"
            ]
        );
        // Other names of a country find it first, whatever upstream calls it.
        assert_eq!(names("UAE"), ["United Arab Emirates"]);
        assert_eq!(names("emirates"), ["United Arab Emirates"]);
        // The Caribbean has no regional plan on sale: not offered.
        assert!(names("caribbean").is_empty());
        assert!(names("  ").is_empty());
    }

    /// A catalog where every ISO country is on sale (one global plan covers them all) and
    /// Europe and the Middle East have regional plans.
    fn world() -> Snapshot {
        let all: Vec<&str> = countries::ISO_3166_1.iter().map(|(c, _)| *c).collect();
        let mut stored = catalog();
        stored.plans = vec![
            row("world", "GL-249", "global", None, &all),
            row(
                "eu",
                "EU-3",
                "regional",
                Some("europe"),
                &["AD", "ES", "IT"],
            ),
            row("me", "ME-1", "regional", Some("middle-east"), &["AE"]),
        ];
        Snapshot::build(&stored, 2500)
    }

    fn first_found(snap: &Snapshot, query: &str, lang: Lang) -> Option<String> {
        snap.search(query, lang).first().map(|found| match found {
            Found::Destination(d) => d.code.clone(),
            Found::Region(r) => r.slug.clone(),
        })
    }

    #[test]
    fn countries_and_regions_are_named_in_the_language_of_the_page() {
        let snap = world();
        let de = snap.destination("DE").expect("Germany");
        assert_eq!(
            Lang::ALL.map(|l| de.name_in(l)),
            ["Germany", "Alemania", "Deutschland"]
        );
        let europe = snap.region("europe").expect("Europe");
        assert_eq!(
            Lang::ALL.map(|l| europe.name_in(l)),
            ["Europe", "Europa", "Europa"]
        );
        // No CLDR counterpart: upstream's name in every language.
        let me = snap.region("middle-east").expect("Middle East");
        assert_eq!(me.name_in(Lang::De), "Middle East");
        // Lists follow the page's alphabet: Deutschland among the D's in German.
        let german: Vec<&str> = snap
            .destinations_in(Lang::De)
            .map(|d| d.code.as_str())
            .collect();
        let pos = |code: &str| german.iter().position(|c| *c == code);
        assert!(
            pos("DK") < pos("DE") && pos("DE") < pos("DJ"),
            "Dänemark, Deutschland, Dschibuti"
        );
        let plan = snap.plan("eu").expect("plan");
        assert_eq!(plan.title(Lang::Es), "Europa · 1 GB durante 7 días");
        assert_eq!(plan.labels_in(Lang::De).name, "Europa");
        assert_eq!(
            snap.plan("world")
                .map(|p| p.labels_in(Lang::De).name.clone())
                .as_deref(),
            Some("Weltweit")
        );
        assert_eq!(
            snap.any_country_name_in("TT", Lang::Es),
            "Trinidad y Tobago"
        );
    }

    /// What travellers type, per language, and the country (or region) that must come first.
    const QUERIES: [(Lang, &[(&str, &str)]); 3] = [
        (
            Lang::En,
            &[
                ("Japan", "JP"),
                ("japna", "JP"),
                ("JP", "JP"),
                ("japanese", "JP"),
                ("usa", "US"),
                ("USA", "US"),
                ("America", "US"),
                ("United States", "US"),
                ("uk", "GB"),
                ("England", "GB"),
                ("Britain", "GB"),
                ("british", "GB"),
                ("Holland", "NL"),
                ("Netherlands", "NL"),
                ("dutch", "NL"),
                ("German", "DE"),
                ("Germany", "DE"),
                ("Gremany", "DE"),
                ("french", "FR"),
                ("France", "FR"),
                ("Spain", "ES"),
                ("spanish", "ES"),
                ("italy", "IT"),
                ("Itlay", "IT"),
                ("Turkey", "TR"),
                ("Türkiye", "TR"),
                ("Mexico", "MX"),
                ("mexcio", "MX"),
                ("Brazil", "BR"),
                ("Thailand", "TH"),
                ("Thai", "TH"),
                ("Vietnam", "VN"),
                ("Korea", "KR"),
                ("South Korea", "KR"),
                ("swiss", "CH"),
                ("Switzerland", "CH"),
                ("Australia", "AU"),
                ("Austria", "AT"),
                ("Portugal", "PT"),
                ("Greek", "GR"),
                ("Egypt", "EG"),
                ("Morocco", "MA"),
                ("UAE", "AE"),
                ("Dubai", "AE"),
                ("Curacao", "CW"),
                ("Ivory Coast", "CI"),
                ("Czech Republic", "CZ"),
                ("canadian", "CA"),
                ("Chinese", "CN"),
                ("Hong Kong", "HK"),
                ("Bali", "ID"),
                ("ireland", "IE"),
                ("new zealand", "NZ"),
                ("Singapore", "SG"),
                ("europe", "europe"),
                ("middle east", "middle-east"),
            ],
        ),
        (
            Lang::Es,
            &[
                ("Japón", "JP"),
                ("japon", "JP"),
                ("japonés", "JP"),
                ("Alemania", "DE"),
                ("alemán", "DE"),
                ("Alemnia", "DE"),
                ("Estados Unidos", "US"),
                ("EEUU", "US"),
                ("EE. UU.", "US"),
                ("estadounidense", "US"),
                ("Reino Unido", "GB"),
                ("Inglaterra", "GB"),
                ("británico", "GB"),
                ("Holanda", "NL"),
                ("Países Bajos", "NL"),
                ("España", "ES"),
                ("espana", "ES"),
                ("español", "ES"),
                ("Francia", "FR"),
                ("francés", "FR"),
                ("Italia", "IT"),
                ("italiano", "IT"),
                ("Turquía", "TR"),
                ("turquia", "TR"),
                ("México", "MX"),
                ("mejico", "MX"),
                ("Brasil", "BR"),
                ("Tailandia", "TH"),
                ("Suiza", "CH"),
                ("Suecia", "SE"),
                ("Noruega", "NO"),
                ("Dinamarca", "DK"),
                ("Grecia", "GR"),
                ("Egipto", "EG"),
                ("Marruecos", "MA"),
                ("Emiratos", "AE"),
                ("Corea del Sur", "KR"),
                ("Canadá", "CA"),
                ("Irlanda", "IE"),
                ("Portgal", "PT"),
                ("Croacia", "HR"),
                ("Rusia", "RU"),
                ("Sudáfrica", "ZA"),
                ("Nueva Zelanda", "NZ"),
                ("Singapur", "SG"),
                ("Perú", "PE"),
                ("Costa de Marfil", "CI"),
                ("Bélgica", "BE"),
                ("Hungría", "HU"),
                ("Polonia", "PL"),
                ("Europa", "europe"),
            ],
        ),
        (
            Lang::De,
            &[
                ("Deutschland", "DE"),
                ("deutsch", "DE"),
                ("Deutchland", "DE"),
                ("Türkei", "TR"),
                ("Tuerkei", "TR"),
                ("turkei", "TR"),
                ("Spanien", "ES"),
                ("spanisch", "ES"),
                ("Vereinigte Staaten", "US"),
                ("USA", "US"),
                ("Amerika", "US"),
                ("Großbritannien", "GB"),
                ("Vereinigtes Königreich", "GB"),
                ("England", "GB"),
                ("Niederlande", "NL"),
                ("Holland", "NL"),
                ("Frankreich", "FR"),
                ("Frankriech", "FR"),
                ("französisch", "FR"),
                ("Italien", "IT"),
                ("Japan", "JP"),
                ("japanisch", "JP"),
                ("Japna", "JP"),
                ("Österreich", "AT"),
                ("Oesterreich", "AT"),
                ("Schweiz", "CH"),
                ("Griechenland", "GR"),
                ("Ägypten", "EG"),
                ("Marokko", "MA"),
                ("Kroatien", "HR"),
                ("Tschechien", "CZ"),
                ("Polen", "PL"),
                ("Dänemark", "DK"),
                ("Schweden", "SE"),
                ("Norwegen", "NO"),
                ("Mexiko", "MX"),
                ("Brasilien", "BR"),
                ("Kanada", "CA"),
                ("Südkorea", "KR"),
                ("Thailand", "TH"),
                ("Indonesien", "ID"),
                ("Russland", "RU"),
                ("Irland", "IE"),
                ("Island", "IS"),
                ("Neuseeland", "NZ"),
                ("Südafrika", "ZA"),
                ("Elfenbeinküste", "CI"),
                ("Vereinigte Arabische Emirate", "AE"),
                ("Europa", "europe"),
            ],
        ),
    ];

    #[test]
    fn travellers_find_their_country_in_their_own_language() {
        let snap = world();
        for (lang, queries) in QUERIES {
            assert!(queries.len() >= 40, "{lang:?}: {} queries", queries.len());
            let wrong: Vec<String> = queries
                .iter()
                .filter_map(|(query, expected)| {
                    let first = first_found(&snap, query, lang);
                    (first.as_deref() != Some(*expected))
                        .then(|| format!("{query:?} → {first:?}, not {expected}"))
                })
                .collect();
            assert!(wrong.is_empty(), "{lang:?}: {wrong:#?}");
        }
    }

    #[test]
    fn search_results_rank_exact_over_prefix_over_typos_and_are_named_in_the_page_language() {
        let snap = world();
        let names = |query: &str, lang: Lang| -> Vec<String> {
            snap.search(query, lang)
                .into_iter()
                .map(|found| match found {
                    Found::Destination(d) => d.name_in(lang).to_string(),
                    Found::Region(r) => r.name_in(lang).to_string(),
                })
                .collect()
        };
        // One spelling, one country: what the search page turns into a redirect.
        assert_eq!(names("Deutschland", Lang::De), ["Deutschland"]);
        assert_eq!(names("japna", Lang::Es), ["Japón"]);
        assert_eq!(names("Alemania", Lang::En), ["Germany"]);
        // An exact name first, then the names it starts, then the ones it is inside.
        let guinea = names("Guinea", Lang::En);
        assert_eq!(guinea.first().map(String::as_str), Some("Guinea"));
        assert!(guinea.contains(&"Guinea-Bissau".to_string()));
        assert!(guinea.contains(&"Papua New Guinea".to_string()));
        // A typo is guessed only when nothing is spelled that way.
        assert_eq!(names("Gambia", Lang::En), ["Gambia"]);
        assert_eq!(names("Gambai", Lang::En), ["Gambia"]);
        // Too short to guess.
        assert!(names("jpan", Lang::En).is_empty());
    }

    #[test]
    fn popular_destinations_are_the_most_visited_countries_on_sale() {
        let snap = Snapshot::build(&catalog(), 2500);
        let popular: Vec<&str> = snap.popular(3).iter().map(|d| d.code.as_str()).collect();
        assert_eq!(popular, ["ES", "IT", "AE"]);
    }
}
