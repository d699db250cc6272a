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
use crate::domain::pricing::{MarkupRule, PricingError, RuleScope};
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
