//! Consumer prices from partner costs.
//!
//! A [`MarkupRule`] applies to a scope — the default, a region, a country or one plan — and the
//! most specific rule wins. A price is `cost + cost × bps / 10 000 (rounded up) + fixed`, raised
//! to at least `cost + min_margin`, then rounded UP to the rule's price ending (`.99`). Every
//! step only adds, so a consumer price is never below cost. Integer cents throughout, with
//! 128-bit intermediates so the largest upstream price (2^53 − 1) cannot overflow silently.

use std::fmt;

use super::Cents;

/// The largest amount the Partner API carries (2^53 − 1 cents).
pub const MAX_API_CENTS: i64 = 9_007_199_254_740_991;

/// The least a card payment can charge: Stripe's minimum charge in USD, $0.50 (Stripe API
/// reference, the `amount` of a PaymentIntent or Checkout Session).
pub const MIN_CARD_CHARGE: Cents = Cents::new(50);

/// The most a card payment can charge: Stripe's `amount` holds at most eight digits,
/// 99,999,999 cents ($999,999.99) in USD (same reference).
pub const MAX_CARD_CHARGE: Cents = Cents::new(99_999_999);

/// Whether a consumer price can be charged to a card at all. A price outside these bounds
/// (a free plan, upstream's 2^53 − 1 placeholder) is never offered, whatever the provider.
pub fn card_chargeable(price: Cents) -> bool {
    (MIN_CARD_CHARGE..=MAX_CARD_CHARGE).contains(&price)
}

/// Where a rule applies, from least to most specific.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RuleScope {
    Default,
    Region(String),
    Country(String),
    Plan(String),
}

impl RuleScope {
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Default => "default",
            Self::Region(_) => "region",
            Self::Country(_) => "country",
            Self::Plan(_) => "plan",
        }
    }

    pub fn value(&self) -> &str {
        match self {
            Self::Default => "",
            Self::Region(v) | Self::Country(v) | Self::Plan(v) => v,
        }
    }

    /// Rebuilds a scope from its stored `(kind, value)`.
    pub fn from_parts(kind: &str, value: &str) -> Result<Self, PricingError> {
        match (kind, value) {
            ("default", "") => Ok(Self::Default),
            ("region", v) if !v.is_empty() => Ok(Self::Region(v.to_string())),
            ("country", v) if !v.is_empty() => Ok(Self::Country(v.to_string())),
            ("plan", v) if !v.is_empty() => Ok(Self::Plan(v.to_string())),
            _ => Err(PricingError::InvalidScope(format!("{kind}:{value}"))),
        }
    }

    fn specificity(&self) -> u8 {
        match self {
            Self::Default => 0,
            Self::Region(_) => 1,
            Self::Country(_) => 2,
            Self::Plan(_) => 3,
        }
    }
}

impl fmt::Display for RuleScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Default => f.write_str("default"),
            other => write!(f, "{} {}", other.kind(), other.value()),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PricingError {
    #[error("markup must be 0 to 100000 basis points, got {0}")]
    MarkupOutOfRange(i64),
    #[error("fixed amount must be 0 to $10,000.00, got {0}")]
    FixedOutOfRange(Cents),
    #[error("minimum margin must be 0 to $10,000.00, got {0}")]
    MarginOutOfRange(Cents),
    #[error("price ending must be 0 to 99 cents, got {0}")]
    EndingOutOfRange(i64),
    #[error("cost must be 0 to {MAX_API_CENTS} cents, got {0}")]
    CostOutOfRange(i64),
    #[error("unknown rule scope {0}")]
    InvalidScope(String),
}

const MAX_RULE_CENTS: i64 = 1_000_000;

/// One markup rule, validated at construction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarkupRule {
    scope: RuleScope,
    markup_bps: i64,
    fixed: Cents,
    ending: Option<i64>,
    min_margin: Cents,
}

impl MarkupRule {
    pub fn new(
        scope: RuleScope,
        markup_bps: i64,
        fixed: Cents,
        ending: Option<i64>,
        min_margin: Cents,
    ) -> Result<Self, PricingError> {
        if !(0..=100_000).contains(&markup_bps) {
            return Err(PricingError::MarkupOutOfRange(markup_bps));
        }
        if !(0..=MAX_RULE_CENTS).contains(&fixed.get()) {
            return Err(PricingError::FixedOutOfRange(fixed));
        }
        if !(0..=MAX_RULE_CENTS).contains(&min_margin.get()) {
            return Err(PricingError::MarginOutOfRange(min_margin));
        }
        if let Some(e) = ending
            && !(0..=99).contains(&e)
        {
            return Err(PricingError::EndingOutOfRange(e));
        }
        Ok(Self {
            scope,
            markup_bps,
            fixed,
            ending,
            min_margin,
        })
    }

    /// The rule used where no other matches: a plain percentage.
    pub fn default_markup(markup_bps: u32) -> Result<Self, PricingError> {
        Self::new(
            RuleScope::Default,
            i64::from(markup_bps),
            Cents::ZERO,
            None,
            Cents::ZERO,
        )
    }

    pub fn scope(&self) -> &RuleScope {
        &self.scope
    }
    pub fn markup_bps(&self) -> i64 {
        self.markup_bps
    }
    pub fn fixed(&self) -> Cents {
        self.fixed
    }
    pub fn ending(&self) -> Option<i64> {
        self.ending
    }
    pub fn min_margin(&self) -> Cents {
        self.min_margin
    }

    /// The consumer price for a plan costing `cost`.
    pub fn price(&self, cost: Cents) -> Result<Cents, PricingError> {
        let c = cost.get();
        if !(0..=MAX_API_CENTS).contains(&c) {
            return Err(PricingError::CostOutOfRange(c));
        }
        let cost = i128::from(c);
        let markup = (cost * i128::from(self.markup_bps) + 9_999) / 10_000;
        let raw = cost + markup + i128::from(self.fixed.get());
        let floor = cost + i128::from(self.min_margin.get());
        let mut price = raw.max(floor);
        if let Some(ending) = self.ending.map(i128::from) {
            let cents = price.rem_euclid(100);
            price += if cents <= ending {
                ending - cents
            } else {
                100 - cents + ending
            };
        }
        // Bounded: cost ≤ 2^53, markup ≤ 10× cost, fixed and margin ≤ 10^6, ending < 100.
        i64::try_from(price)
            .map(Cents::new)
            .map_err(|_| PricingError::CostOutOfRange(c))
    }
}

/// What a plan offers pricing rules to match on.
#[derive(Debug, Clone, Copy)]
pub struct PlanKey<'a> {
    pub plan_id: &'a str,
    pub country_code: &'a str,
    pub region: Option<&'a str>,
}

/// A set of rules with exactly one default.
#[derive(Debug, Clone)]
pub struct PriceBook {
    default: MarkupRule,
    rules: Vec<MarkupRule>,
}

impl PriceBook {
    /// `rules` may hold a default rule; it replaces `fallback` (the configured default).
    pub fn new(fallback: MarkupRule, rules: Vec<MarkupRule>) -> Self {
        let mut default = fallback;
        let mut specific = Vec::with_capacity(rules.len());
        for rule in rules {
            if rule.scope == RuleScope::Default {
                default = rule;
            } else {
                specific.push(rule);
            }
        }
        Self {
            default,
            rules: specific,
        }
    }

    /// The most specific rule that applies to `plan`.
    pub fn rule_for(&self, plan: PlanKey<'_>) -> &MarkupRule {
        self.rules
            .iter()
            .filter(|rule| match &rule.scope {
                RuleScope::Default => true,
                RuleScope::Region(r) => plan.region == Some(r.as_str()),
                RuleScope::Country(c) => plan.country_code == c,
                RuleScope::Plan(p) => plan.plan_id == p,
            })
            .max_by_key(|rule| rule.scope.specificity())
            .unwrap_or(&self.default)
    }

    pub fn price(&self, plan: PlanKey<'_>, cost: Cents) -> Result<Cents, PricingError> {
        self.rule_for(plan).price(cost)
    }

    pub fn rules(&self) -> impl Iterator<Item = &MarkupRule> {
        std::iter::once(&self.default).chain(self.rules.iter())
    }
}

/// A plan as the price-ladder check sees it.
#[derive(Debug, Clone)]
pub struct LadderEntry<'a> {
    pub plan_id: &'a str,
    /// Plans are compared only within one destination.
    pub destination: &'a str,
    /// Daily allowances are compared only with daily allowances.
    pub is_daily: bool,
    pub data_mb: i64,
    pub validity_days: i64,
    pub price: Cents,
}

/// A plan offering at least as much data for at least as long as another, yet cheaper — which
/// makes the other one pointless to buy. Reported to the admin, never silently repriced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LadderInversion {
    pub destination: String,
    /// The plan with more (or equal) data and validity...
    pub bigger_plan: String,
    pub bigger_price: Cents,
    /// ...that costs less than this one.
    pub smaller_plan: String,
    pub smaller_price: Cents,
}

/// The inversions among `plans`: each plan outclassed by a cheaper one of the same destination
/// and kind is reported once, with the cheapest plan that outclasses it, so the list is never
/// longer than the catalog (all pairs would grow with its square). By destination, then plan.
pub fn ladder_inversions(plans: &[LadderEntry<'_>]) -> Vec<LadderInversion> {
    let mut sorted: Vec<&LadderEntry<'_>> = plans.iter().collect();
    sorted.sort_by(|a, b| {
        (a.destination, a.is_daily, a.plan_id).cmp(&(b.destination, b.is_daily, b.plan_id))
    });
    let mut found = Vec::new();
    for group in sorted.chunk_by(|a, b| a.destination == b.destination && a.is_daily == b.is_daily)
    {
        // Cheapest first: the first outclassing plan met is the cheapest one.
        let mut by_price = group.to_vec();
        by_price.sort_by(|a, b| (a.price, a.plan_id).cmp(&(b.price, b.plan_id)));
        for smaller in group {
            let cheapest = by_price
                .iter()
                .take_while(|bigger| bigger.price < smaller.price)
                .find(|bigger| outclasses(bigger, smaller));
            if let Some(bigger) = cheapest {
                found.push(LadderInversion {
                    destination: smaller.destination.to_string(),
                    bigger_plan: bigger.plan_id.to_string(),
                    bigger_price: bigger.price,
                    smaller_plan: smaller.plan_id.to_string(),
                    smaller_price: smaller.price,
                });
            }
        }
    }
    found
}

/// At least as much data for at least as long, and strictly more of one.
fn outclasses(bigger: &LadderEntry<'_>, smaller: &LadderEntry<'_>) -> bool {
    bigger.data_mb >= smaller.data_mb
        && bigger.validity_days >= smaller.validity_days
        && (bigger.data_mb > smaller.data_mb || bigger.validity_days > smaller.validity_days)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn rule(bps: i64, fixed: i64, ending: Option<i64>, margin: i64) -> MarkupRule {
        MarkupRule::new(
            RuleScope::Default,
            bps,
            Cents::new(fixed),
            ending,
            Cents::new(margin),
        )
        .expect("valid rule")
    }

    #[test]
    fn only_prices_a_card_can_charge_are_chargeable() {
        assert!(!card_chargeable(Cents::ZERO));
        assert!(!card_chargeable(Cents::new(49)));
        assert!(card_chargeable(Cents::new(50)));
        assert!(card_chargeable(Cents::new(99_999_999)));
        assert!(!card_chargeable(Cents::new(100_000_000)));
        assert!(!card_chargeable(Cents::new(MAX_API_CENTS)));
        assert!(!card_chargeable(Cents::new(-100)));
    }

    #[test]
    fn percentage_rounds_up_to_the_next_cent() {
        assert_eq!(
            rule(2500, 0, None, 0).price(Cents::new(1000)),
            Ok(Cents::new(1250))
        );
        assert_eq!(
            rule(2500, 0, None, 0).price(Cents::new(103)),
            Ok(Cents::new(129))
        );
        assert_eq!(
            rule(0, 0, None, 0).price(Cents::new(103)),
            Ok(Cents::new(103))
        );
    }

    #[test]
    fn fixed_margin_floor_and_ending_apply_in_order() {
        assert_eq!(
            rule(1000, 50, None, 0).price(Cents::new(1000)),
            Ok(Cents::new(1150))
        );
        assert_eq!(
            rule(0, 0, None, 300).price(Cents::new(1000)),
            Ok(Cents::new(1300))
        );
        assert_eq!(
            rule(2000, 0, Some(99), 0).price(Cents::new(1000)),
            Ok(Cents::new(1299))
        );
        assert_eq!(
            rule(0, 0, Some(99), 0).price(Cents::new(1299)),
            Ok(Cents::new(1299))
        );
        assert_eq!(
            rule(0, 0, Some(49), 0).price(Cents::new(1250)),
            Ok(Cents::new(1349))
        );
        assert_eq!(
            rule(0, 0, Some(0), 0).price(Cents::new(1201)),
            Ok(Cents::new(1300))
        );
        assert_eq!(
            rule(0, 0, Some(99), 0).price(Cents::ZERO),
            Ok(Cents::new(99))
        );
    }

    #[test]
    fn the_largest_api_price_does_not_overflow() {
        let price = rule(100_000, 1_000_000, Some(99), 1_000_000)
            .price(Cents::new(MAX_API_CENTS))
            .expect("fits");
        assert!(price.get() > MAX_API_CENTS);
        assert!(rule(0, 0, None, 0).price(Cents::new(-1)).is_err());
        assert!(
            rule(0, 0, None, 0)
                .price(Cents::new(MAX_API_CENTS + 1))
                .is_err()
        );
    }

    #[test]
    fn invalid_rules_are_refused() {
        let scope = || RuleScope::Default;
        assert!(MarkupRule::new(scope(), -1, Cents::ZERO, None, Cents::ZERO).is_err());
        assert!(MarkupRule::new(scope(), 100_001, Cents::ZERO, None, Cents::ZERO).is_err());
        assert!(MarkupRule::new(scope(), 0, Cents::new(-1), None, Cents::ZERO).is_err());
        assert!(MarkupRule::new(scope(), 0, Cents::ZERO, Some(100), Cents::ZERO).is_err());
        assert!(MarkupRule::new(scope(), 0, Cents::ZERO, None, Cents::new(-5)).is_err());
        assert!(RuleScope::from_parts("country", "").is_err());
        assert_eq!(
            RuleScope::from_parts("region", "europe"),
            Ok(RuleScope::Region("europe".into()))
        );
    }

    #[test]
    fn the_most_specific_rule_wins() {
        let make =
            |scope, bps| MarkupRule::new(scope, bps, Cents::ZERO, None, Cents::ZERO).expect("rule");
        let book = PriceBook::new(
            make(RuleScope::Default, 1000),
            vec![
                make(RuleScope::Region("europe".into()), 2000),
                make(RuleScope::Country("FR".into()), 3000),
                make(RuleScope::Plan("p7-base".into()), 4000),
            ],
        );
        let key = |plan_id, country_code, region| PlanKey {
            plan_id,
            country_code,
            region,
        };
        let cost = Cents::new(10_000);
        assert_eq!(
            book.price(key("p7-base", "FR", Some("europe")), cost),
            Ok(Cents::new(14_000))
        );
        assert_eq!(
            book.price(key("p8-base", "FR", Some("europe")), cost),
            Ok(Cents::new(13_000))
        );
        assert_eq!(
            book.price(key("p9-base", "DE", Some("europe")), cost),
            Ok(Cents::new(12_000))
        );
        assert_eq!(
            book.price(key("p9-base", "JP", None), cost),
            Ok(Cents::new(11_000))
        );
        let replaced = PriceBook::new(
            make(RuleScope::Default, 1000),
            vec![make(RuleScope::Default, 0)],
        );
        assert_eq!(replaced.price(key("p1-base", "JP", None), cost), Ok(cost));
    }

    #[test]
    fn ladder_inversions_are_found_per_destination_and_kind() {
        let entry = |plan_id, destination, is_daily, data_mb, validity_days, price| LadderEntry {
            plan_id,
            destination,
            is_daily,
            data_mb,
            validity_days,
            price: Cents::new(price),
        };
        let plans = [
            entry("small", "FR", false, 1024, 7, 900),
            entry("big", "FR", false, 3072, 7, 800),
            entry("other-country", "DE", false, 512, 7, 2000),
            entry("daily", "FR", true, 512, 7, 100),
            entry("equal", "FR", false, 1024, 7, 500),
        ];
        let found = ladder_inversions(&plans);
        let pairs: Vec<(&str, &str)> = found
            .iter()
            .map(|i| (i.bigger_plan.as_str(), i.smaller_plan.as_str()))
            .collect();
        // `big` dominates `small` and is cheaper; `equal` offers the same as `small` (no
        // strict gain), and daily plans and other destinations are separate ladders.
        assert_eq!(pairs, vec![("big", "small")]);
        assert_eq!(found[0].bigger_price, Cents::new(800));
        assert_eq!(found[0].smaller_price, Cents::new(900));
    }

    fn any_rule() -> impl Strategy<Value = MarkupRule> {
        (
            0i64..=100_000,
            0i64..=MAX_RULE_CENTS,
            proptest::option::of(0i64..=99),
            0i64..=MAX_RULE_CENTS,
        )
            .prop_map(|(bps, fixed, ending, margin)| rule(bps, fixed, ending, margin))
    }

    proptest! {
        #[test]
        fn price_is_never_below_cost_plus_margin(r in any_rule(), cost in 0i64..=MAX_API_CENTS) {
            let price = r.price(Cents::new(cost)).expect("in range");
            prop_assert!(price.get() >= cost);
            prop_assert!(price.get() >= cost + r.min_margin().get());
        }

        #[test]
        fn price_ends_as_the_rule_says(r in any_rule(), cost in 0i64..=10_000_000) {
            let price = r.price(Cents::new(cost)).expect("in range");
            if let Some(ending) = r.ending() {
                prop_assert_eq!(price.get() % 100, ending);
            }
        }

        #[test]
        fn a_higher_cost_never_gets_a_lower_price(r in any_rule(), a in 0i64..=MAX_API_CENTS, b in 0i64..=MAX_API_CENTS) {
            let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
            prop_assert!(r.price(Cents::new(lo)).expect("lo") <= r.price(Cents::new(hi)).expect("hi"));
        }

        #[test]
        fn ending_rounding_adds_less_than_a_dollar(bps in 0i64..=100_000, cost in 0i64..=10_000_000, ending in 0i64..=99) {
            let with = rule(bps, 0, Some(ending), 0).price(Cents::new(cost)).expect("with");
            let without = rule(bps, 0, None, 0).price(Cents::new(cost)).expect("without");
            prop_assert!(with >= without);
            prop_assert!(with.get() - without.get() < 100);
        }

        #[test]
        fn each_outclassed_plan_is_reported_once_with_its_cheapest_rival(
            plans in proptest::collection::vec((0i64..4, 1i64..4, 1i64..4, 0i64..5), 0..12)
        ) {
            let ids: Vec<String> = (0..plans.len()).map(|i| format!("p{i}")).collect();
            let entries: Vec<LadderEntry<'_>> = plans.iter().zip(&ids).map(|((d, data, days, price), id)| LadderEntry {
                plan_id: id,
                destination: if *d % 2 == 0 { "FR" } else { "DE" },
                is_daily: *d >= 2,
                data_mb: *data * 1024,
                validity_days: *days,
                price: Cents::new(*price),
            }).collect();
            let found = ladder_inversions(&entries);
            let mut expected = 0;
            for smaller in &entries {
                let rivals: Vec<&LadderEntry<'_>> = entries.iter().filter(|a| {
                    a.destination == smaller.destination && a.is_daily == smaller.is_daily
                        && a.data_mb >= smaller.data_mb && a.validity_days >= smaller.validity_days
                        && (a.data_mb > smaller.data_mb || a.validity_days > smaller.validity_days)
                        && a.price < smaller.price
                }).collect();
                let reported: Vec<&LadderInversion> =
                    found.iter().filter(|i| i.smaller_plan == smaller.plan_id).collect();
                if rivals.is_empty() {
                    prop_assert!(reported.is_empty());
                    continue;
                }
                expected += 1;
                prop_assert_eq!(reported.len(), 1);
                let cheapest = rivals.iter().map(|r| r.price).min().expect("a rival");
                prop_assert_eq!(reported[0].bigger_price, cheapest);
                prop_assert_eq!(reported[0].smaller_price, smaller.price);
                prop_assert!(rivals.iter().any(|r| r.plan_id == reported[0].bigger_plan && r.price == cheapest));
            }
            prop_assert_eq!(found.len(), expected);
        }
    }
}
