//! The deterministic catalog: countries, regions and plans generated from a seed.
//!
//! The generator uses its own SplitMix64 instead of `rand`'s `StdRng`, whose output may change
//! between `rand` releases: the same seed and plan count must give the same plan set forever,
//! because partners record plan ids in their fixtures.
//!
//! The awkward shapes the spec allows are produced ON PURPOSE, and the first families are forced
//! to carry one of each (so even a small catalog has them): a plan priced 0, one priced at the
//! spec maximum, daily plans with several duration variants, null `scope`, null and empty
//! `networks`, null `networkType`, empty `fupPolicy`, regional and global plans whose
//! destination is not a country, and non-ASCII country names.

use super::wire::{Country, MAX_AMOUNT_CENTS, Plan, Region};

/// A tiny, stable PRNG (SplitMix64). Not for secrets: only for the reproducible catalog.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value in `0..n` (`n > 0`); the tiny modulo bias does not matter for a test catalog.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        let len = u64::try_from(items.len()).unwrap_or(u64::MAX);
        let index = usize::try_from(self.below(len)).unwrap_or(0);
        &items[index.min(items.len().saturating_sub(1))]
    }
}

/// (code, name, region slug). The first entry gets about half of all plans so that one country
/// page holds ≥ 100 plans when the catalog is large (benchmarks need it). The non-ASCII names
/// come next so that even small catalogs contain them.
const COUNTRIES: &[(&str, &str, &str)] = &[
    ("US", "United States", "north-america"),
    ("CW", "Curaçao", "caribbean"),
    ("CI", "Côte d'Ivoire", "africa"),
    ("RE", "Réunion", "africa"),
    ("TR", "Türkiye", "europe"),
    ("ST", "São Tomé and Príncipe", "africa"),
    ("AX", "Åland Islands", "europe"),
    ("FR", "France", "europe"),
    ("DE", "Germany", "europe"),
    ("GB", "United Kingdom", "europe"),
    ("ES", "Spain", "europe"),
    ("IT", "Italy", "europe"),
    ("JP", "Japan", "asia"),
    ("TH", "Thailand", "asia"),
    ("VN", "Viet Nam", "asia"),
    ("ID", "Indonesia", "asia"),
    ("AE", "United Arab Emirates", "middle-east"),
    ("MX", "Mexico", "latin-america"),
    ("BR", "Brazil", "latin-america"),
    ("CA", "Canada", "north-america"),
    ("AU", "Australia", "oceania"),
    ("ZA", "South Africa", "africa"),
    // Text a shop must escape and still show correctly: `&`, CJK.
    ("TT", "Trinidad & Tobago", "caribbean"),
    ("TW", "台灣 Taiwan", "asia"),
];

/// Countries that appear in coverage lists and regions but never get a local plan, so
/// `GET /countries` (only countries with active local plans) differs from "every code seen".
const COVERAGE_ONLY: &[(&str, &str)] = &[
    ("AD", "europe"),
    ("LI", "europe"),
    ("MO", "asia"),
    ("BQ", "caribbean"),
    ("KM", "africa"),
];

const REGIONS: &[(&str, &str)] = &[
    ("europe", "Europe"),
    ("asia", "Asia"),
    ("africa", "Africa"),
    ("north-america", "North America"),
    ("latin-america", "Latin America"),
    ("caribbean", "Caribbean"),
    ("middle-east", "Middle East"),
    ("oceania", "Oceania"),
];

const NETWORKS: &[&str] = &[
    "Vodafone",
    "Orange",
    "T-Mobile",
    "AT&T",
    "Telefónica",
    "NTT docomo",
    "dtac",
    "Türk Telekom",
    "Claro",
];

const FUP_TEXTS: &[&str] = &[
    "After the daily allowance is used, speed is reduced to 512 kbps until midnight (UTC+0).",
    "Speed is reduced to 128 kbps after 90% of the allowance.",
    "Fair use: tethering may be restricted by the local network.",
    // Markup-looking text must reach consumers as text, never as HTML.
    "Speeds <b>may</b> drop to 1 Mbps after 3 GB & video is limited to 480p <script>alert(1)</script>",
];

/// One plan as the sandbox keeps it: the wire shape plus the generation index used for stable
/// cursor pagination.
#[derive(Debug, Clone)]
pub struct CatalogPlan {
    pub index: usize,
    pub plan: Plan,
}

#[derive(Debug, Clone)]
pub struct Catalog {
    pub plans: Vec<CatalogPlan>,
    pub regions: Vec<Region>,
    /// Every local destination with its display name, in table order.
    pub country_names: Vec<(String, String)>,
}

impl Catalog {
    pub fn generate(seed: u64, count: usize) -> Self {
        let regions = regions();
        let mut rng = SplitMix64::new(seed);
        let mut plans: Vec<CatalogPlan> = Vec::with_capacity(count);
        let mut family: u64 = 0;
        let mut others = 0usize;
        while plans.len() < count {
            family += 1;
            let f = family - 1;
            let destination = if f.is_multiple_of(2) {
                Destination::Local(0)
            } else if f % 14 == 7 {
                let (slug, _) = REGIONS[others % REGIONS.len()];
                others += 1;
                Destination::Regional(slug)
            } else if f % 22 == 11 || f == 9 {
                Destination::Global
            } else {
                others += 1;
                Destination::Local(1 + (others - 1) % (COUNTRIES.len() - 1))
            };
            for plan in family_plans(&mut rng, family, f, &destination, &regions) {
                if plans.len() == count {
                    break;
                }
                plans.push(CatalogPlan {
                    index: plans.len(),
                    plan,
                });
            }
        }
        Self {
            plans,
            regions,
            country_names: COUNTRIES
                .iter()
                .map(|(code, name, _)| ((*code).to_string(), (*name).to_string()))
                .collect(),
        }
    }

    /// Countries with at least one plan that is local (a two-letter destination) and available.
    pub fn countries(&self, available: impl Fn(&str) -> bool) -> Vec<Country> {
        self.country_names
            .iter()
            .filter(|(code, _)| {
                self.plans
                    .iter()
                    .any(|p| &p.plan.country_code == code && available(&p.plan.id))
            })
            .map(|(code, name)| Country {
                country_code: code.clone(),
                country_name: name.clone(),
            })
            .collect()
    }
}

enum Destination {
    Local(usize),
    Regional(&'static str),
    Global,
}

fn regions() -> Vec<Region> {
    REGIONS
        .iter()
        .map(|(slug, name)| {
            let mut coverage: Vec<String> = COUNTRIES
                .iter()
                .filter(|(_, _, r)| r == slug)
                .map(|(code, _, _)| (*code).to_string())
                .chain(
                    COVERAGE_ONLY
                        .iter()
                        .filter(|(_, r)| r == slug)
                        .map(|(code, _)| (*code).to_string()),
                )
                .collect();
            coverage.sort();
            Region {
                slug: (*slug).to_string(),
                name: (*name).to_string(),
                coverage,
            }
        })
        .collect()
}

const SIZES_MB: &[i64] = &[1024, 2048, 3072, 5120, 10240, 20480, 51200, 500, 300, 1500];
const VALIDITIES: &[i64] = &[1, 3, 7, 15, 30, 90, 180];

/// The plans of one family: a single fixed plan, or a daily plan's base plus duration variants.
fn family_plans(
    rng: &mut SplitMix64,
    family: u64,
    f: u64,
    destination: &Destination,
    regions: &[Region],
) -> Vec<Plan> {
    let (country_code, country_name, scope, region, coverage) = match destination {
        Destination::Local(i) => {
            let (code, name, region) = COUNTRIES[*i];
            // Most local plans name their region; some do not (`region` null is allowed).
            let region = rng.chance(70).then(|| region.to_string());
            (
                code.to_string(),
                name.to_string(),
                Some("local".to_string()),
                region,
                vec![code.to_string()],
            )
        }
        Destination::Regional(slug) => {
            let r = regions
                .iter()
                .find(|r| r.slug == *slug)
                .expect("regional destinations come from the region table");
            (
                format!("{}-{}", slug[..2].to_uppercase(), r.coverage.len()),
                format!("{} ({} countries)", r.name, r.coverage.len()),
                Some("regional".to_string()),
                Some(slug.to_string()),
                r.coverage.clone(),
            )
        }
        Destination::Global => {
            let mut all: Vec<String> = regions.iter().flat_map(|r| r.coverage.clone()).collect();
            all.sort();
            all.dedup();
            (
                format!("GL-{}", all.len()),
                format!("Global ({} countries)", all.len()),
                Some("global".to_string()),
                None,
                all,
            )
        }
    };
    // Forced showcases on the first families, random shapes after them.
    let scope = if f == 6 || (f > 12 && rng.chance(8)) {
        None
    } else {
        scope
    };
    let networks = if f == 4 || (f > 12 && rng.chance(12)) {
        None
    } else if f == 5 || (f > 12 && rng.chance(10)) {
        Some(Vec::new())
    } else {
        let n = 1 + rng.below(3);
        let mut list: Vec<String> = (0..n).map(|_| (*rng.pick(NETWORKS)).to_string()).collect();
        list.sort();
        list.dedup();
        Some(list)
    };
    let network_type = if f == 7 || (f > 12 && rng.chance(15)) {
        None
    } else {
        Some((*rng.pick(&["4G", "5G", "LTE", "4G/5G"])).to_string())
    };
    let fup_policy = if f == 8 || rng.chance(30) {
        String::new()
    } else {
        (*rng.pick(FUP_TEXTS)).to_string()
    };
    let activation_type = (*rng.pick(&["first_install", "first_network"])).to_string();
    let daily = f == 3 || (f > 12 && rng.chance(20));
    let base_price = 50 + i64::try_from(rng.below(4_950)).unwrap_or(0);
    let price = match f {
        1 => 0,
        2 => MAX_AMOUNT_CENTS,
        _ => base_price,
    };
    let template = Plan {
        id: format!("p{family}-base"),
        country_code,
        country_name,
        scope,
        region,
        coverage,
        data_amount_mb: *rng.pick(SIZES_MB),
        validity_days: *rng.pick(VALIDITIES),
        price_cents: price,
        currency: "USD".to_string(),
        network_type,
        networks,
        activation_type,
        is_daily_plan: false,
        fup_policy,
        period_num: None,
    };
    if !daily {
        return vec![template];
    }
    let daily_mb = *rng.pick(&[500, 1024, 2048, 3072]);
    let base = Plan {
        is_daily_plan: true,
        data_amount_mb: daily_mb,
        validity_days: 1,
        ..template
    };
    let mut out = vec![base.clone()];
    for days in [7_i64, 15, 30] {
        out.push(Plan {
            id: format!("p{family}-{days}"),
            validity_days: days,
            period_num: Some(days),
            // Longer variants are cheaper per day, like real daily plans.
            price_cents: base.price_cents.saturating_mul(days) * 9 / 10,
            ..base.clone()
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_catalog_and_exact_count() {
        let a = Catalog::generate(7, 120);
        let b = Catalog::generate(7, 120);
        assert_eq!(a.plans.len(), 120);
        let ids = |c: &Catalog| c.plans.iter().map(|p| p.plan.clone()).collect::<Vec<_>>();
        assert_eq!(ids(&a), ids(&b));
        assert_ne!(ids(&a), ids(&Catalog::generate(8, 120)));
    }

    #[test]
    fn awkward_cases_are_present() {
        let c = Catalog::generate(1, 120);
        let plans: Vec<&Plan> = c.plans.iter().map(|p| &p.plan).collect();
        assert!(plans.iter().any(|p| p.price_cents == 0));
        assert!(plans.iter().any(|p| p.price_cents == MAX_AMOUNT_CENTS));
        assert!(plans.iter().any(|p| p.scope.is_none()));
        assert!(plans.iter().any(|p| p.networks.is_none()));
        assert!(plans.iter().any(|p| p.networks.as_deref() == Some(&[])));
        assert!(plans.iter().any(|p| p.network_type.is_none()));
        assert!(plans.iter().any(|p| p.fup_policy.is_empty()));
        assert!(plans.iter().any(|p| p.region.is_none()));
        assert!(plans.iter().any(|p| p.scope.as_deref() == Some("regional")));
        assert!(plans.iter().any(|p| p.scope.as_deref() == Some("global")));
        assert!(plans.iter().any(|p| p.data_amount_mb % 1024 != 0));
        assert!(
            plans
                .iter()
                .any(|p| p.id.ends_with("-7") && p.period_num == Some(7))
        );
        assert!(
            plans
                .iter()
                .any(|p| p.id.ends_with("-15") && p.period_num == Some(15))
        );
        assert!(
            plans
                .iter()
                .any(|p| p.is_daily_plan && p.id.ends_with("-base") && p.period_num.is_none())
        );
        assert!(plans.iter().any(|p| !p.country_name.is_ascii()));
        for p in &plans {
            assert!((0..=MAX_AMOUNT_CENTS).contains(&p.price_cents), "{}", p.id);
            assert!(super::super::validate::is_plan_id(&p.id), "{}", p.id);
        }
    }

    #[test]
    fn a_large_catalog_has_a_country_with_100_plans() {
        let c = Catalog::generate(1, 250);
        let us = c
            .plans
            .iter()
            .filter(|p| p.plan.country_code == "US")
            .count();
        assert!(us >= 100, "US has {us}");
    }

    #[test]
    fn countries_lists_only_local_destinations_with_available_plans() {
        let c = Catalog::generate(1, 120);
        let countries = c.countries(|_| true);
        assert!(countries.iter().all(|k| k.country_code.len() == 2));
        assert!(!countries.iter().any(|k| k.country_code == "AD"));
        let without_us = c.countries(|id| {
            !c.plans
                .iter()
                .any(|p| p.plan.id == id && p.plan.country_code == "US")
        });
        assert!(!without_us.iter().any(|k| k.country_code == "US"));
    }
}
