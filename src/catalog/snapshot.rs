//! The read model every shop page uses: plans with consumer prices applied, indexed by id,
//! country and region, and search keys for destinations. Built from the database, swapped in
//! whole; readers hold an `Arc` and never wait for a sync.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

use crate::catalog::store::{PlanRow, StoredCatalog, SyncRow};
use crate::domain::Cents;
use crate::domain::plan::{self, Activation};
use crate::domain::pricing::{
    self, LadderEntry, LadderInversion, MarkupRule, PlanKey, PriceBook, RuleScope,
};

/// How plans are grouped for the consumer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlanKind {
    Local,
    Regional,
    Global,
}

/// A plan as the shop shows and sells it.
#[derive(Debug, Clone)]
pub struct ShopPlan {
    pub id: String,
    pub country_code: String,
    pub country_name: String,
    pub kind: PlanKind,
    pub region: Option<String>,
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
    /// Texts every list shows, written once per snapshot rather than once per page view.
    pub labels: PlanLabels,
}

/// The ready-made texts of a plan card.
#[derive(Debug, Clone, Default)]
pub struct PlanLabels {
    /// `/plans/{id}` with the id percent-encoded.
    pub href: String,
    pub allowance: String,
    pub data: String,
    pub validity: String,
    /// `$12.99`, or empty when the plan is not priced.
    pub price: String,
}

impl ShopPlan {
    fn with_labels(mut self) -> Self {
        self.labels = PlanLabels {
            href: format!(
                "/plans/{}",
                url::form_urlencoded::byte_serialize(self.id.as_bytes()).collect::<String>()
            ),
            allowance: self.allowance(),
            data: self.data_label(),
            validity: self.validity_label(),
            price: self.price.map(|p| p.to_string()).unwrap_or_default(),
        };
        self
    }

    pub fn allowance(&self) -> String {
        plan::describe_allowance(self.data_mb, self.validity_days, self.is_daily)
    }
    pub fn data_label(&self) -> String {
        let data = plan::format_data(self.data_mb);
        if self.is_daily {
            format!("{data}/day")
        } else {
            data
        }
    }
    pub fn validity_label(&self) -> String {
        plan::describe_validity(self.validity_days)
    }
    /// The data over the whole validity (a daily allowance times the days).
    pub fn total_data_mb(&self) -> i64 {
        plan::total_data_mb(self.data_mb, self.validity_days, self.is_daily)
    }
    pub fn fair_use(&self) -> Cow<'_, str> {
        plan::describe_fair_use(&self.fup_policy)
    }
    pub fn network_type_label(&self) -> &str {
        plan::describe_network_type(self.network_type.as_deref())
    }
    pub fn networks_label(&self) -> String {
        plan::describe_networks(self.networks.as_deref())
    }
    /// A plan the shop sells now: listed upstream, and priced in USD at an amount a card
    /// payment can charge ([`pricing::card_chargeable`]). The one rule every list, count and
    /// from-price uses.
    pub fn is_sellable(&self) -> bool {
        self.available && self.price.is_some_and(pricing::card_chargeable)
    }
}

#[derive(Debug, Clone)]
pub struct Destination {
    pub code: String,
    pub name: String,
    pub search_key: String,
    /// Local plans on sale.
    pub local_plans: usize,
    /// Lowest consumer price among them.
    pub from_price: Option<Cents>,
}

#[derive(Debug, Clone)]
pub struct ShopRegion {
    pub slug: String,
    pub name: String,
    pub coverage: Vec<String>,
    pub plans: usize,
    pub from_price: Option<Cents>,
}

#[derive(Debug, Default)]
pub struct Snapshot {
    plans: Vec<ShopPlan>,
    by_id: HashMap<String, usize>,
    /// Local plans by catalog destination.
    by_country: HashMap<String, Vec<usize>>,
    /// Regional and global plans by each country they cover.
    covering: HashMap<String, Vec<usize>>,
    by_region: HashMap<String, Vec<usize>>,
    destinations: Vec<Destination>,
    regions: Vec<ShopRegion>,
    inversions: Vec<LadderInversion>,
    book: Option<PriceBook>,
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

fn shop_plan(row: &PlanRow, book: &PriceBook) -> ShopPlan {
    let coverage = json_list(&row.coverage);
    let kind = match row.scope.as_deref() {
        Some("local") => PlanKind::Local,
        Some("global") => PlanKind::Global,
        Some("regional") => PlanKind::Regional,
        // `scope` null means unknown, not global (spec 2.4): decide by what the plan covers.
        _ if coverage.len() <= 1 => PlanKind::Local,
        _ if row.region.is_some() => PlanKind::Regional,
        _ => PlanKind::Global,
    };
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
    ShopPlan {
        id: row.id.clone(),
        country_code: row.country_code.clone(),
        country_name: row.country_name.clone(),
        kind,
        region: row.region.clone(),
        coverage,
        data_mb: row.data_mb,
        validity_days: row.validity_days,
        is_daily: row.is_daily,
        period_num: row.period_num,
        cost,
        // A currency other than USD cannot be sold at a USD price.
        price: price.filter(|_| row.currency == "USD"),
        network_type: row.network_type.clone(),
        networks: row.networks.as_deref().map(json_list),
        activation: Activation::parse(&row.activation_type),
        fup_policy: row.fup_policy.clone(),
        available: row.available,
        labels: PlanLabels::default(),
    }
    .with_labels()
}

impl Snapshot {
    pub fn build(stored: &StoredCatalog, default_markup_bps: u32) -> Self {
        let fallback = MarkupRule::default_markup(default_markup_bps)
            .unwrap_or_else(|_| MarkupRule::default_markup(0).expect("0 bps is valid"));
        let book = PriceBook::new(fallback, rules_from_rows(stored));
        let plans: Vec<ShopPlan> = stored
            .plans
            .iter()
            .map(|row| shop_plan(row, &book))
            .collect();

        let mut snap = Snapshot {
            generation: NEXT_GENERATION.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            last_sync: stored.last_sync.clone(),
            pricing_version: stored.pricing_version,
            last_good_sync: stored.last_good_sync.clone(),
            ..Snapshot::default()
        };
        for (i, plan) in plans.iter().enumerate() {
            snap.by_id.insert(plan.id.clone(), i);
            if !plan.is_sellable() {
                continue;
            }
            match plan.kind {
                PlanKind::Local => snap
                    .by_country
                    .entry(plan.country_code.clone())
                    .or_default()
                    .push(i),
                PlanKind::Regional | PlanKind::Global => {
                    for code in &plan.coverage {
                        snap.covering.entry(code.clone()).or_default().push(i);
                    }
                }
            }
            if let Some(region) = &plan.region {
                snap.by_region.entry(region.clone()).or_default().push(i);
            }
        }
        let from_price = |indexes: Option<&Vec<usize>>| {
            indexes.and_then(|ix| ix.iter().filter_map(|&i| plans[i].price).min())
        };
        let mut names: BTreeMap<String, String> = stored
            .countries
            .iter()
            .filter(|c| c.available)
            .map(|c| (c.code.clone(), c.name.clone()))
            .collect();
        // A destination with local plans on sale is listed even if /countries missed it.
        for plan in &plans {
            if plan.kind == PlanKind::Local && plan.is_sellable() {
                names
                    .entry(plan.country_code.clone())
                    .or_insert_with(|| plan.country_name.clone());
            }
        }
        snap.destinations = names
            .into_iter()
            .map(|(code, name)| Destination {
                search_key: plan::search_key(&name),
                local_plans: snap.by_country.get(&code).map_or(0, Vec::len),
                from_price: from_price(snap.by_country.get(&code)),
                code,
                name,
            })
            .collect();
        snap.destinations
            .sort_by(|a, b| a.search_key.cmp(&b.search_key));
        snap.regions = stored
            .regions
            .iter()
            .filter(|r| r.available)
            .map(|r| ShopRegion {
                slug: r.slug.clone(),
                name: r.name.clone(),
                coverage: json_list(&r.coverage),
                plans: snap.by_region.get(&r.slug).map_or(0, Vec::len),
                from_price: from_price(snap.by_region.get(&r.slug)),
            })
            .collect();
        snap.regions.sort_by(|a, b| a.name.cmp(&b.name));
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
        snap.plans = plans;
        snap.book = Some(book);
        snap
    }

    /// Which snapshot this is: equal generations are the same snapshot.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    pub fn plan(&self, id: &str) -> Option<&ShopPlan> {
        self.by_id.get(id).map(|&i| &self.plans[i])
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

    pub fn plans(&self) -> &[ShopPlan] {
        &self.plans
    }

    pub fn local_plans(&self, country: &str) -> Vec<&ShopPlan> {
        self.indexed(self.by_country.get(country))
    }

    /// Regional and global plans whose coverage includes `country`.
    pub fn covering_plans(&self, country: &str) -> Vec<&ShopPlan> {
        self.indexed(self.covering.get(country))
    }

    pub fn region_plans(&self, slug: &str) -> Vec<&ShopPlan> {
        self.indexed(self.by_region.get(slug))
    }

    fn indexed(&self, indexes: Option<&Vec<usize>>) -> Vec<&ShopPlan> {
        indexes
            .map(|ix| ix.iter().map(|&i| &self.plans[i]).collect())
            .unwrap_or_default()
    }

    pub fn destinations(&self) -> &[Destination] {
        &self.destinations
    }

    pub fn destination(&self, code: &str) -> Option<&Destination> {
        self.destinations.iter().find(|d| d.code == code)
    }

    pub fn country_name(&self, code: &str) -> Option<&str> {
        self.destination(code).map(|d| d.name.as_str())
    }

    pub fn regions(&self) -> &[ShopRegion] {
        &self.regions
    }

    pub fn region(&self, slug: &str) -> Option<&ShopRegion> {
        self.regions.iter().find(|r| r.slug == slug)
    }

    pub fn inversions(&self) -> &[LadderInversion] {
        &self.inversions
    }

    /// Destinations whose name or code matches `query`, ignoring case and accents; names that
    /// start with the query come first.
    pub fn search(&self, query: &str) -> Vec<&Destination> {
        let key = plan::search_key(query.trim());
        if key.is_empty() {
            return Vec::new();
        }
        let mut hits: Vec<(bool, &Destination)> = self
            .destinations
            .iter()
            .filter(|d| d.search_key.contains(&key) || d.code.eq_ignore_ascii_case(&key))
            .map(|d| {
                (
                    !(d.search_key.starts_with(&key) || d.code.eq_ignore_ascii_case(&key)),
                    d,
                )
            })
            .collect();
        hits.sort_by(|a, b| {
            a.0.cmp(&b.0)
                .then_with(|| a.1.search_key.cmp(&b.1.search_key))
        });
        hits.into_iter().map(|(_, d)| d).collect()
    }

    /// The destinations with the most local plans on sale.
    pub fn popular(&self, n: usize) -> Vec<&Destination> {
        let mut all: Vec<&Destination> = self
            .destinations
            .iter()
            .filter(|d| d.local_plans > 0)
            .collect();
        all.sort_by(|a, b| {
            b.local_plans
                .cmp(&a.local_plans)
                .then_with(|| a.name.cmp(&b.name))
        });
        all.truncate(n);
        all
    }
}
