//! The owner's markup rules as the console changes them: each save or delete is one
//! transaction with its audit entry (the rule before and after), and the catalog is reloaded
//! at once so the shop sells at the new prices (other replicas follow through the pricing
//! version, see [`super::Catalog`]).

use crate::catalog::Catalog;
use crate::catalog::Snapshot;
use crate::catalog::named::{Named, named_scope};
use crate::db::pricing::RuleRow;
use crate::db::pricing::{self as q, RuleValues};
use crate::db::{DbError, now_ms};
use crate::domain::Cents;
use crate::domain::pricing::{MarkupRule, PlanKey, PriceBook, PricingError, RuleScope};
use crate::i18n::Lang;
use crate::staff::Admin;
use serde::Deserialize;

/// Audit actions of the pricing page.
pub mod action {
    pub use crate::staff::action::{
        PRICING_RULE_DELETED as RULE_DELETED, PRICING_RULE_SAVED as RULE_SAVED,
    };
}

/// A rule as the audit log and the console word it: `country FR: 25.00% + $0.50, …`.
pub fn describe(rule: &MarkupRule) -> String {
    let bps = rule.markup_bps();
    let mut text = format!("{}: {}.{:02}%", rule.scope(), bps / 100, bps % 100);
    if rule.fixed() != Cents::ZERO {
        text.push_str(&format!(" + {}", rule.fixed()));
    }
    if let Some(e) = rule.ending() {
        text.push_str(&format!(", prices end in .{e:02}"));
    }
    if rule.min_margin() != Cents::ZERO {
        text.push_str(&format!(", margin at least {}", rule.min_margin()));
    }
    text
}

/// The stored rule as a rule; `None` for a row no longer valid (it is ignored when pricing).
pub fn rule_from_row(row: &RuleRow) -> Option<MarkupRule> {
    MarkupRule::new(
        RuleScope::from_parts(&row.scope_kind, &row.scope_value).ok()?,
        row.markup_bps,
        Cents::new(row.fixed_cents),
        row.price_ending,
        Cents::new(row.min_margin_cents),
    )
    .ok()
}

/// Plans a preview lists; its count covers all of them.
pub const PREVIEW_LINES: usize = 200;

/// What saving a rule would do: every plan it would price, at its new price.
#[derive(Debug)]
pub struct Preview {
    /// The rule in words ([`describe`]).
    pub rule: String,
    /// How many plans it would price; the first [`PREVIEW_LINES`] are in `lines`.
    pub affected: usize,
    pub lines: Vec<PreviewLine>,
    /// Whether any of those plans would sell below cost (such a rule is not saved).
    pub below_cost: bool,
}

/// A plan in a [`Preview`].
#[derive(Debug)]
pub struct PreviewLine {
    pub plan_id: String,
    /// The plan as the shop titles it, in English (the console's language).
    pub title: String,
    pub cost: Cents,
    pub current: Option<Cents>,
    /// `None` when the rule cannot price the plan.
    pub new_price: Option<Cents>,
    pub below_cost: bool,
}

impl PreviewLine {
    pub fn margin(&self) -> Option<Cents> {
        self.new_price
            .map(|p| Cents::new(p.get() - self.cost.get()))
    }
}

/// The preview of `rule` against the rules in force: the plans of the current catalog whose
/// price it would decide (those of its scope that no more specific rule prices).
pub async fn preview(catalog: &Catalog, rule: &MarkupRule) -> Result<Preview, DbError> {
    let rows = rules(catalog).await?;
    let snap = catalog.snapshot();
    let fallback = super::snapshot::default_rule(catalog.default_markup_bps);
    let others = rows
        .iter()
        .filter_map(rule_from_row)
        .filter(|r| r.scope() != rule.scope());
    let book = PriceBook::new(fallback, others.chain([rule.clone()]).collect());
    let mut preview = Preview {
        rule: describe(rule),
        affected: 0,
        lines: Vec::new(),
        below_cost: false,
    };
    for plan in snap.plans() {
        let key = PlanKey {
            plan_id: &plan.id,
            country_code: &plan.country_code,
            region: plan.region.as_deref(),
        };
        if book.rule_for(key).scope() != rule.scope() {
            continue;
        }
        preview.affected += 1;
        let new_price = rule.price(plan.cost).ok();
        let below_cost = new_price.is_none_or(|p| p < plan.cost);
        preview.below_cost |= below_cost;
        if preview.lines.len() < PREVIEW_LINES {
            preview.lines.push(PreviewLine {
                plan_id: plan.id.clone(),
                title: plan.title(Lang::En),
                cost: plan.cost,
                current: plan.price,
                new_price,
                below_cost,
            });
        }
    }
    Ok(preview)
}

/// The markup rules in force, as stored.
pub async fn rules(catalog: &Catalog) -> Result<Vec<RuleRow>, DbError> {
    catalog.db().run(q::rules).await
}

/// Saves `rule` (replacing the rule of its scope) for `by`, audited, and reloads the catalog.
/// The caller has checked it (preview, margin floor).
pub async fn save_rule(
    catalog: &Catalog,
    by: &Admin,
    client_addr: &str,
    rule: MarkupRule,
) -> Result<(), DbError> {
    let (by, client) = (by.clone(), client_addr.to_string());
    let after = describe(&rule);
    catalog
        .db()
        .run(move |conn| {
            let now = now_ms();
            conn.write_tx(|conn| {
                let scope = rule.scope();
                let before = q::find(conn, scope.kind(), scope.value())?
                    .and_then(|row| rule_from_row(&row))
                    .map_or_else(|| "none".to_string(), |r| describe(&r));
                q::save(
                    conn,
                    RuleValues {
                        scope_kind: scope.kind(),
                        scope_value: scope.value(),
                        markup_bps: rule.markup_bps(),
                        fixed_cents: rule.fixed().get(),
                        price_ending: rule.ending(),
                        min_margin_cents: rule.min_margin().get(),
                    },
                    now,
                )?;
                by.audit(
                    conn,
                    action::RULE_SAVED,
                    Some(&format!("pricing:{scope}")),
                    &client,
                    &format!("before: {before}; after: {after}"),
                    now,
                )
            })
        })
        .await?;
    catalog.reload().await?;
    Ok(())
}

/// Deletes the rule of scope `kind`/`value` for `by`, audited, and reloads the catalog.
/// Returns whether there was one.
pub async fn delete_rule(
    catalog: &Catalog,
    by: &Admin,
    client_addr: &str,
    kind: String,
    value: String,
) -> Result<bool, DbError> {
    let (by, client) = (by.clone(), client_addr.to_string());
    let deleted = catalog
        .db()
        .run(move |conn| {
            let now = now_ms();
            conn.write_tx(|conn| {
                let Some(row) = q::find(conn, &kind, &value)? else {
                    return Ok::<_, DbError>(false);
                };
                let before = rule_from_row(&row).map_or_else(
                    || format!("{} {}", row.scope_kind, row.scope_value),
                    |r| describe(&r),
                );
                q::delete(conn, &kind, &value, now)?;
                by.audit(
                    conn,
                    action::RULE_DELETED,
                    Some(&format!("pricing:{} {}", row.scope_kind, row.scope_value)),
                    &client,
                    &format!("before: {before}; after: none"),
                    now,
                )?;
                Ok(true)
            })
        })
        .await?;
    if deleted {
        catalog.reload().await?;
    }
    Ok(deleted)
}

#[derive(Deserialize, Default, Clone)]
/// A markup rule as the console's form types it: percent and dollars as text.
pub struct RuleForm {
    #[serde(default)]
    pub scope_kind: String,
    #[serde(default)]
    pub scope_value: String,
    #[serde(default)]
    pub markup_percent: String,
    #[serde(default)]
    pub fixed: String,
    #[serde(default)]
    pub ending: String,
    #[serde(default)]
    pub min_margin: String,
}

/// An optional amount or percentage as typed (`12`, `12.5`, `$1,234.56`) in hundredths; empty
/// is zero. The reading is [`Cents`]'s, so every form in the console takes the same text.
pub fn hundredths(raw: &str) -> Option<i64> {
    if raw.trim().is_empty() {
        return Some(0);
    }
    raw.parse::<Cents>().ok().map(Cents::get)
}

/// The rule a form describes, checked against the catalog (the scope must exist).
pub fn parse_rule(form: &RuleForm, snap: &Snapshot) -> Result<MarkupRule, String> {
    let named = named_scope(
        snap,
        &form.scope_kind,
        &form.scope_value,
        "default",
        "Choose what the rule applies to.",
    )?;
    let scope = match named {
        None => RuleScope::Default,
        Some(Named::Region(slug)) => RuleScope::Region(slug),
        Some(Named::Country(code)) => RuleScope::Country(code),
        Some(Named::Plan(id)) => RuleScope::Plan(id),
    };
    let bps = hundredths(&form.markup_percent).ok_or("Markup is a percentage like 25 or 12.5.")?;
    let fixed = hundredths(&form.fixed).ok_or("The fixed amount is dollars like 0.50.")?;
    let margin = hundredths(&form.min_margin).ok_or("The minimum margin is dollars like 1.00.")?;
    let ending = match form.ending.trim() {
        "" => None,
        raw => Some(
            raw.parse::<i64>()
                .map_err(|_| "The price ending is cents, 0 to 99, like 99.")?,
        ),
    };
    MarkupRule::new(scope, bps, Cents::new(fixed), ending, Cents::new(margin))
        .map_err(|e| rule_problem(&e).to_string())
}

/// A rule the domain refuses, in the words and units of the form (percent and dollars, not
/// basis points and cents).
fn rule_problem(err: &PricingError) -> &'static str {
    match err {
        PricingError::MarkupOutOfRange(_) => "Markup must be from 0 to 1000 (%).",
        PricingError::FixedOutOfRange(_) => {
            "The fixed amount must be from 0.00 to 10000.00 dollars."
        }
        PricingError::MarginOutOfRange(_) => {
            "The minimum margin must be from 0.00 to 10000.00 dollars."
        }
        PricingError::EndingOutOfRange(_) => "The price ending is cents, 0 to 99, like 99.",
        PricingError::CostOutOfRange(_) | PricingError::InvalidScope(_) => {
            "This rule cannot be saved. Check the values and try again."
        }
    }
}

#[cfg(test)]
mod tests {
    use super::hundredths;

    #[test]
    fn amounts_parse_to_hundredths() {
        assert_eq!(hundredths(""), Some(0));
        assert_eq!(hundredths("25"), Some(2500));
        assert_eq!(hundredths("12.5"), Some(1250));
        assert_eq!(hundredths("$1,234.56"), Some(123_456));
        assert_eq!(hundredths(".5"), None, "as the wallet reads it: 0.5");
        assert_eq!(hundredths("1,00"), None);
        assert_eq!(hundredths("1.234"), None);
        assert_eq!(hundredths("-1"), None);
        assert_eq!(hundredths("."), None);
        assert_eq!(hundredths("abc"), None);
    }
}
