//! How a visitor chooses among plans: the duration variants of one configurable daily plan
//! form a family shown as one choice, and a plan page remembers which listing it was opened
//! from. Both rules are computed from the snapshot alone.

use std::collections::{HashMap, HashSet};

use crate::catalog::snapshot::{PlanKind, ShopPlan, Snapshot, path_segment};
use crate::domain::plan::Activation;

/// What makes two plans the same product apart from their duration: everything upstream says
/// about a plan except its `id`, `validityDays`, `periodNum` and price (spec 2.4). Only daily
/// plans come in duration variants; every other plan is a family of its own.
#[derive(PartialEq, Eq, Hash)]
pub(crate) struct FamilyKey<'a> {
    kind: PlanKind,
    country_code: String,
    region: Option<&'a str>,
    coverage: &'a [String],
    data_mb: i64,
    network_type: Option<&'a str>,
    networks: Option<&'a [String]>,
    activation: &'a Activation,
    fup_policy: &'a str,
}

impl<'a> FamilyKey<'a> {
    /// The family `plan` belongs to, or `None` for a plan that has no duration variants.
    pub(crate) fn of(plan: &'a ShopPlan) -> Option<Self> {
        plan.is_daily.then(|| Self {
            kind: plan.kind,
            country_code: plan.country_code.trim().to_ascii_uppercase(),
            region: plan.region.as_deref(),
            coverage: &plan.coverage,
            data_mb: plan.data_mb,
            network_type: plan.network_type.as_deref(),
            networks: plan.networks.as_deref(),
            activation: &plan.activation,
            fup_policy: &plan.fup_policy,
        })
    }
}

/// The listing a plan page was opened from, which its breadcrumb leads back to. It travels in
/// the plan's link as `?from=` ([`Origin::query`]) and is only ever taken from there through
/// [`Snapshot::origin`], which accepts a listing that really lists the plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A country's page (upper-case code).
    Country(String),
    /// A region's page (its slug).
    Region(String),
    /// The page of global plans.
    Global,
    /// The list of regions: a regional plan of a region upstream no longer lists.
    Regions,
}

impl Origin {
    /// The `from` value naming this origin: `country-DE`, `region-europe`, `global`.
    pub fn value(&self) -> String {
        match self {
            Origin::Country(code) => format!("country-{}", path_segment(code)),
            Origin::Region(slug) => format!("region-{}", path_segment(slug)),
            Origin::Global => "global".to_string(),
            Origin::Regions => "regions".to_string(),
        }
    }

    /// `?from=…` for a link to a plan opened from this listing.
    pub fn query(&self) -> String {
        format!("?from={}", self.value())
    }

    /// The page of this listing.
    pub fn href(&self) -> String {
        match self {
            Origin::Country(code) => format!("/countries/{}", path_segment(code)),
            Origin::Region(slug) => format!("/regions/{}", path_segment(slug)),
            Origin::Global => GLOBAL_HREF.to_string(),
            Origin::Regions => "/regions".to_string(),
        }
    }

    fn parse(value: &str) -> Option<Self> {
        if value == "global" {
            return Some(Origin::Global);
        }
        if let Some(code) = value.strip_prefix("country-") {
            return Some(Origin::Country(code.to_string()));
        }
        value
            .strip_prefix("region-")
            .map(|slug| Origin::Region(slug.to_string()))
    }
}

/// The page that lists every global plan.
pub const GLOBAL_HREF: &str = "/global";

impl Snapshot {
    /// Where a plan page opened with `?from=value` was opened from: that listing when it
    /// exists and lists `plan`, else the plan's own listing (its country, its region, or the
    /// global plans). Whatever `value` is, the answer is one of the few listings of the plan.
    pub fn origin(&self, plan: &ShopPlan, value: Option<&str>) -> Origin {
        value
            .and_then(Origin::parse)
            .filter(|origin| self.lists(origin, plan))
            .unwrap_or_else(|| self.own_origin(plan))
    }

    /// The listing `plan` belongs to by itself.
    pub fn own_origin(&self, plan: &ShopPlan) -> Origin {
        match plan.kind {
            PlanKind::Local => Origin::Country(plan.country_code.trim().to_ascii_uppercase()),
            PlanKind::Regional => match plan.region.as_deref().and_then(|s| self.region(s)) {
                Some(region) => Origin::Region(region.slug.clone()),
                None => Origin::Regions,
            },
            PlanKind::Global => Origin::Global,
        }
    }

    /// Whether the page of `origin` lists `plan`.
    fn lists(&self, origin: &Origin, plan: &ShopPlan) -> bool {
        match origin {
            Origin::Country(code) => {
                self.destination(code).is_some()
                    && match plan.kind {
                        PlanKind::Local => plan.country_code.trim().eq_ignore_ascii_case(code),
                        _ => plan.coverage.iter().any(|c| c == code),
                    }
            }
            Origin::Region(slug) => {
                plan.kind == PlanKind::Regional
                    && plan.region.as_deref() == Some(slug.as_str())
                    && self.region(slug).is_some()
            }
            Origin::Global => plan.kind == PlanKind::Global,
            Origin::Regions => false,
        }
    }
}

/// Each plan's family as an index into the families, and the plans on sale of each family,
/// shortest first. Computed once per snapshot.
pub(super) fn families(plans: &[ShopPlan]) -> (Vec<usize>, Vec<Vec<usize>>) {
    let mut by_key: HashMap<FamilyKey<'_>, usize> = HashMap::new();
    let mut families: Vec<Vec<usize>> = Vec::new();
    let family_of = plans
        .iter()
        .enumerate()
        .map(|(i, plan)| {
            let family = match FamilyKey::of(plan) {
                Some(key) => *by_key.entry(key).or_insert_with(|| {
                    families.push(Vec::new());
                    families.len() - 1
                }),
                None => {
                    families.push(Vec::new());
                    families.len() - 1
                }
            };
            if plan.is_sellable() {
                families[family].push(i);
            }
            family
        })
        .collect();
    for members in &mut families {
        members.sort_by_key(|&i| (plans[i].validity_days, plans[i].id.clone()));
    }
    (family_of, families)
}

/// One card of a plan list: a plan, or a daily plan with the other durations it comes in.
pub struct Choice<'a> {
    /// The plan the card shows first (the one the list's sort or duration filter picked).
    pub chosen: &'a ShopPlan,
    /// Every plan on sale of the family, shortest first; just `chosen` for most plans.
    pub family: Vec<&'a ShopPlan>,
}

impl Snapshot {
    /// The plans on sale of `plan`'s family, shortest first (only `plan` itself when it has
    /// no duration variants on sale).
    pub fn family<'a>(&'a self, plan: &'a ShopPlan) -> Vec<&'a ShopPlan> {
        let members = self
            .by_id_index(&plan.id)
            .and_then(|i| self.family_of.get(i))
            .and_then(|&f| self.families.get(f));
        match members {
            Some(members) if !members.is_empty() => {
                members.iter().map(|&i| &self.plans()[i]).collect()
            }
            _ => vec![plan],
        }
    }

    /// `plans` (sorted and filtered as a list shows them) as cards: each family once, where
    /// its first plan in `plans` stands, with that plan chosen.
    pub fn choices<'a>(&'a self, plans: Vec<&'a ShopPlan>) -> Vec<Choice<'a>> {
        let mut seen = HashSet::new();
        plans
            .into_iter()
            .filter_map(|plan| {
                let family = self
                    .by_id_index(&plan.id)
                    .and_then(|i| self.family_of.get(i));
                if let Some(&f) = family
                    && !seen.insert(f)
                {
                    return None;
                }
                Some(Choice {
                    chosen: plan,
                    family: self.family(plan),
                })
            })
            .collect()
    }
}

impl Snapshot {
    /// The global plans on sale.
    pub fn global_plans(&self) -> Vec<&ShopPlan> {
        self.plans()
            .iter()
            .filter(|p| p.kind == PlanKind::Global && p.is_sellable())
            .collect()
    }
}
