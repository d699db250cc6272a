//! The owner's promotion codes as the console manages them: list (with uses), create, change
//! the end and the caps, disable and enable again. Each change is one transaction with its
//! audit entry. What a code takes off and which plans it applies to never change once created
//! (receipts and the books name the code): a different offer is a new code.
//!
//! A code is refused at creation when its full discount would take any plan in its scope below
//! `cost + STOREFRONT_MIN_MARGIN_CENTS` at today's catalog ([`plans_below_floor`]); the refusal
//! names those plans. A plan whose cost rises later is not a reason to refuse a buyer: checkout
//! caps the discount at the floor (`domain::promo::apply`).

use crate::catalog::Catalog;
use crate::catalog::Snapshot;
use crate::catalog::named::{Named, named_scope};
use crate::catalog::pricing::hundredths;
use crate::db::promo::{self as q, CodeRow};
use crate::db::{DbError, now_ms};
use crate::domain::Cents;
use crate::domain::pricing::PlanKey;
use crate::domain::promo::{self, Discount, PromoScope, normalise_code};
use crate::staff::Admin;
use serde::Deserialize;

/// Audit actions of the promotion codes page.
pub mod action {
    pub use crate::staff::action::{
        PROMO_CODE_CHANGED as CODE_CHANGED, PROMO_CODE_CREATED as CODE_CREATED,
        PROMO_CODE_DISABLED as CODE_DISABLED, PROMO_CODE_ENABLED as CODE_ENABLED,
    };
}

/// A code as the owner asks for it, already parsed.
#[derive(Debug, Clone)]
pub struct NewCode {
    pub code: String,
    pub discount: Discount,
    pub starts_at_ms: i64,
    pub ends_at_ms: Option<i64>,
    pub max_uses: Option<i64>,
    pub max_uses_per_email: Option<i64>,
    pub scope: PromoScope,
}

/// What may change on an existing code: when it ends and how often it may be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Exclusive end, Unix ms; `None` for no end.
    pub ends_at_ms: Option<i64>,
    pub max_uses: Option<i64>,
    pub max_uses_per_email: Option<i64>,
}

impl Limits {
    fn of(row: &CodeRow) -> Self {
        Self {
            ends_at_ms: row.ends_at_ms,
            max_uses: row.max_uses,
            max_uses_per_email: row.max_uses_per_email,
        }
    }

    /// `last day 2026-12-31, at most 50 uses, unlimited per email` for the audit log.
    fn describe(&self) -> String {
        let cap = |n: Option<i64>, what: &str| {
            n.map_or_else(
                || format!("unlimited {what}"),
                |n| format!("at most {n} {what}"),
            )
        };
        format!(
            "{}, {}, {}",
            self.ends_at_ms.map_or_else(
                || "no end".to_string(),
                |end| format!("last day {}", last_day(end))
            ),
            cap(self.max_uses, "uses"),
            cap(self.max_uses_per_email, "per email")
        )
    }
}

/// A plan a code would sell below the floor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BelowFloor {
    pub plan_id: String,
    /// `France · 5 GB for 30 days`
    pub name: String,
    pub list: Cents,
    /// The price with the full discount.
    pub discounted: Cents,
    /// `cost + min margin`.
    pub floor: Cents,
}

#[derive(Debug, thiserror::Error)]
pub enum PromoCodeError {
    #[error("the code would sell {} plan(s) below cost plus the minimum margin", .0.len())]
    BelowFloor(Vec<BelowFloor>),
    #[error("no plan in the catalog matches {0}")]
    EmptyScope(PromoScope),
    #[error("a code {0} exists already")]
    Exists(String),
    #[error("no enabled code {0}")]
    Unknown(String),
    #[error("no code {0}")]
    NotFound(String),
    #[error("no disabled code {0}")]
    NotDisabled(String),
    #[error("the code ends before it starts")]
    EndsBeforeStart,
    #[error("the code was used {used} times already, more than the cap of {cap}")]
    CapBelowUses { used: i64, cap: i64 },
    #[error(transparent)]
    Db(#[from] DbError),
}

impl From<diesel::result::Error> for PromoCodeError {
    fn from(err: diesel::result::Error) -> Self {
        Self::Db(err.into())
    }
}

fn key(plan: &crate::catalog::ShopPlan) -> PlanKey<'_> {
    PlanKey {
        plan_id: &plan.id,
        country_code: &plan.country_code,
        region: plan.region.as_deref(),
    }
}

/// Every priced plan in `scope` that `discount` would take below `cost + min_margin` now.
pub fn plans_below_floor(
    snap: &Snapshot,
    discount: &Discount,
    scope: &PromoScope,
    min_margin: Cents,
) -> Vec<BelowFloor> {
    snap.plans()
        .iter()
        .filter(|plan| scope.covers(key(plan)))
        .filter_map(|plan| {
            let list = plan.price?;
            if !discount.breaks_floor(list, plan.cost, min_margin) {
                return None;
            }
            Some(BelowFloor {
                plan_id: plan.id.clone(),
                name: format!(
                    "{} · {}",
                    plan.country_name,
                    plan.allowance(crate::i18n::Lang::En)
                ),
                list,
                discounted: Cents::new(list.get() - discount.off(list).get()),
                floor: Cents::new(plan.cost.get().saturating_add(min_margin.get())),
            })
        })
        .collect()
}

/// `SPRING: 10.00% off, every plan, 2026-11-23 → …` for the audit log.
fn describe(new: &NewCode) -> String {
    let mut text = format!("{}: {} off {}", new.code, new.discount, new.scope);
    if let Some(cap) = new.max_uses {
        text.push_str(&format!(", at most {cap} uses"));
    }
    if let Some(cap) = new.max_uses_per_email {
        text.push_str(&format!(", {cap} per email"));
    }
    text.push_str(&format!(
        ", from {}",
        crate::domain::clock::minute_ms(new.starts_at_ms)
    ));
    if let Some(end) = new.ends_at_ms {
        text.push_str(&format!(", last day {}", last_day(end)));
    }
    text
}

/// Creates `new` for `by` after checking it against `snap`, audited.
pub async fn create(
    catalog: &Catalog,
    snap: &Snapshot,
    by: &Admin,
    client_addr: &str,
    new: NewCode,
    min_margin: Cents,
) -> Result<(), PromoCodeError> {
    let db = catalog.db();
    if !snap.plans().iter().any(|p| new.scope.covers(key(p))) {
        return Err(PromoCodeError::EmptyScope(new.scope));
    }
    let broken = plans_below_floor(snap, &new.discount, &new.scope, min_margin);
    if !broken.is_empty() {
        return Err(PromoCodeError::BelowFloor(broken));
    }
    let (by, client) = (by.clone(), client_addr.to_string());
    let details = describe(&new);
    db.run(move |conn| {
        let now = now_ms();
        conn.write_tx(|conn| {
            let row = CodeRow {
                code: new.code.clone(),
                kind: new.discount.kind().to_string(),
                value: new.discount.value(),
                starts_at_ms: new.starts_at_ms,
                ends_at_ms: new.ends_at_ms,
                max_uses: new.max_uses,
                max_uses_per_email: new.max_uses_per_email,
                scope_kind: new.scope.kind().to_string(),
                scope_value: new.scope.value().to_string(),
                used_count: 0,
                disabled_at_ms: None,
                created_at_ms: now,
                created_by: by.email.clone(),
            };
            if !q::insert(conn, &row)? {
                return Err(PromoCodeError::Exists(new.code.clone()));
            }
            by.audit(
                conn,
                action::CODE_CREATED,
                Some(&format!("promo:{}", new.code)),
                &client,
                &details,
                now,
            )?;
            Ok(())
        })
    })
    .await
}

/// Disables `code` for `by`, audited. Checkouts already started with it keep their price.
pub async fn disable(
    catalog: &Catalog,
    by: &Admin,
    client_addr: &str,
    code: String,
) -> Result<(), PromoCodeError> {
    let db = catalog.db();
    let (by, client) = (by.clone(), client_addr.to_string());
    db.run(move |conn| {
        let now = now_ms();
        conn.write_tx(|conn| {
            if !q::disable(conn, &code, now)? {
                return Err(PromoCodeError::Unknown(code.clone()));
            }
            by.audit(
                conn,
                action::CODE_DISABLED,
                Some(&format!("promo:{code}")),
                &client,
                "disabled",
                now,
            )?;
            Ok(())
        })
    })
    .await
}

/// Sets when `code` ends and its caps, for `by`, audited with the limits before and after.
/// Checkouts already holding a use keep it; a total cap below the uses already verified is
/// refused (it could not be honoured).
pub async fn change_limits(
    catalog: &Catalog,
    by: &Admin,
    client_addr: &str,
    code: String,
    limits: Limits,
) -> Result<(), PromoCodeError> {
    let db = catalog.db();
    let (by, client) = (by.clone(), client_addr.to_string());
    db.run(move |conn| {
        let now = now_ms();
        conn.write_tx(|conn| {
            q::lock(conn, &code)?;
            let row =
                q::find(conn, &code)?.ok_or_else(|| PromoCodeError::NotFound(code.clone()))?;
            if limits.ends_at_ms.is_some_and(|end| end <= row.starts_at_ms) {
                return Err(PromoCodeError::EndsBeforeStart);
            }
            if let Some(cap) = limits.max_uses.filter(|cap| *cap < row.used_count) {
                return Err(PromoCodeError::CapBelowUses {
                    used: row.used_count,
                    cap,
                });
            }
            let before = Limits::of(&row);
            if before == limits {
                return Ok(());
            }
            q::set_limits(
                conn,
                &code,
                limits.ends_at_ms,
                limits.max_uses,
                limits.max_uses_per_email,
            )?;
            by.audit(
                conn,
                action::CODE_CHANGED,
                Some(&format!("promo:{code}")),
                &client,
                &format!("{} → {}", before.describe(), limits.describe()),
                now,
            )?;
            Ok(())
        })
    })
    .await
}

/// Enables a disabled `code` again for `by`, audited, if it still keeps every plan in its
/// scope at or above the floor at today's catalog (costs may have risen since it was made).
pub async fn enable(
    catalog: &Catalog,
    snap: &Snapshot,
    by: &Admin,
    client_addr: &str,
    code: String,
    min_margin: Cents,
) -> Result<(), PromoCodeError> {
    let db = catalog.db();
    let lookup = code.clone();
    let row = db
        .run(move |conn| q::find(conn, &lookup))
        .await?
        .ok_or_else(|| PromoCodeError::NotFound(code.clone()))?;
    if row.disabled_at_ms.is_none() {
        return Err(PromoCodeError::NotDisabled(code));
    }
    if let (Ok(discount), Ok(scope)) = (
        Discount::from_parts(&row.kind, row.value),
        PromoScope::from_parts(&row.scope_kind, &row.scope_value),
    ) {
        let broken = plans_below_floor(snap, &discount, &scope, min_margin);
        if !broken.is_empty() {
            return Err(PromoCodeError::BelowFloor(broken));
        }
    }
    let (by, client) = (by.clone(), client_addr.to_string());
    db.run(move |conn| {
        let now = now_ms();
        conn.write_tx(|conn| {
            if !q::enable(conn, &code)? {
                return Err(PromoCodeError::NotDisabled(code.clone()));
            }
            by.audit(
                conn,
                action::CODE_ENABLED,
                Some(&format!("promo:{code}")),
                &client,
                "enabled",
                now,
            )?;
            Ok(())
        })
    })
    .await
}

/// A code as the console lists it.
#[derive(Debug, Clone)]
pub struct CodeSummary {
    pub row: CodeRow,
    /// `10.00% off` or `$5.00 off`; `invalid` for a row the shop cannot read.
    pub discount: String,
    pub scope: String,
    /// Checkouts holding a use right now (awaiting payment).
    pub reserved: i64,
    /// Enabled and inside its window.
    pub active: bool,
}

impl CodeSummary {
    /// `disabled`, `active`, or `outside its dates`.
    pub fn status(&self) -> &'static str {
        if self.row.disabled_at_ms.is_some() {
            "disabled"
        } else if self.active {
            "active"
        } else {
            "outside its dates"
        }
    }
}

/// Every code, newest first, with its verified uses and the uses reserved right now.
pub async fn list(catalog: &Catalog) -> Result<Vec<CodeSummary>, DbError> {
    catalog
        .db()
        .run(|conn| {
            let now = now_ms();
            q::list(conn)?
                .into_iter()
                .map(|row| {
                    let reserved = q::running_reservations(conn, &row.code, None, now)?;
                    let discount = Discount::from_parts(&row.kind, row.value)
                        .map_or_else(|_| "invalid".to_string(), |d| format!("{d} off"));
                    let scope = PromoScope::from_parts(&row.scope_kind, &row.scope_value)
                        .map_or_else(|_| "invalid".to_string(), |s| s.to_string());
                    let active = row.disabled_at_ms.is_none()
                        && promo::check_window(now, row.starts_at_ms, row.ends_at_ms).is_ok();
                    Ok(CodeSummary {
                        row,
                        discount,
                        scope,
                        reserved,
                        active,
                    })
                })
                .collect()
        })
        .await
}

#[derive(Deserialize, Default, Clone)]
/// A promotion code as the console's form types it.
pub struct CodeForm {
    #[serde(default)]
    pub code: String,
    /// `percent` or `amount`.
    #[serde(default)]
    pub kind: String,
    /// `10` or `12.5` (percent), `5.00` (dollars).
    #[serde(default)]
    pub value: String,
    /// `YYYY-MM-DD` (UTC), empty for now.
    #[serde(default)]
    pub starts: String,
    /// The last day it may be used, `YYYY-MM-DD` (UTC), empty for no end.
    #[serde(default)]
    pub ends: String,
    #[serde(default)]
    pub max_uses: String,
    #[serde(default)]
    pub max_uses_per_email: String,
    /// `all`, `country`, `region` or `plan`.
    #[serde(default)]
    pub scope_kind: String,
    #[serde(default)]
    pub scope_value: String,
}

const DAY_MS: i64 = 86_400_000;

/// Midnight UTC at the start of `YYYY-MM-DD`, in Unix milliseconds.
fn day_start_ms(raw: &str) -> Option<i64> {
    let day = crate::domain::currency::parse_date(raw).ok()?;
    let date = time::Date::parse(
        &day,
        &time::macros::format_description!("[year]-[month]-[day]"),
    )
    .ok()?;
    let secs = date.midnight().assume_utc().unix_timestamp();
    secs.checked_mul(1000)
}

/// `YYYY-MM-DD` (UTC) of the day that ends at the exclusive end `end_ms`: the last day a code
/// may be used, as the forms ask for it.
pub fn last_day(end_ms: i64) -> String {
    let secs = end_ms.saturating_sub(DAY_MS).div_euclid(1000);
    time::OffsetDateTime::from_unix_timestamp(secs)
        .map(|t| {
            t.date()
                .format(&time::macros::format_description!("[year]-[month]-[day]"))
                .unwrap_or_default()
        })
        .unwrap_or_default()
}

/// The exclusive end of the last day `raw` (`YYYY-MM-DD`, UTC; empty for no end).
fn parse_last_day(raw: &str) -> Result<Option<i64>, String> {
    match raw.trim() {
        "" => Ok(None),
        raw => Ok(Some(
            day_start_ms(raw).ok_or("The last day is a date like 2026-12-31.")? + DAY_MS,
        )),
    }
}

impl CodeForm {
    /// The empty form for a new code.
    pub fn new_code() -> Self {
        Self {
            kind: "percent".into(),
            scope_kind: "all".into(),
            ..Self::default()
        }
    }
}

fn optional_count(raw: &str, what: &str) -> Result<Option<i64>, String> {
    match raw.trim() {
        "" => Ok(None),
        text => match text.parse::<i64>() {
            Ok(n) if n > 0 => Ok(Some(n)),
            _ => Err(format!(
                "{what} is a whole number of uses, 1 or more, or empty for no cap."
            )),
        },
    }
}

/// The code a form describes; `Err` says what to fix.
pub fn parse_code(form: &CodeForm, snap: &Snapshot, now_ms: i64) -> Result<NewCode, String> {
    let code = normalise_code(&form.code)
        .map_err(|_| "The code is 3 to 32 letters, digits, '-' or '_'.".to_string())?;
    let amount =
        hundredths(&form.value).ok_or("The discount is a number like 10, 12.5 or 5.00.")?;
    let discount = match form.kind.as_str() {
        "percent" => Discount::percent(amount).map_err(|_| "A percentage is 0.01 to 100.")?,
        "amount" => Discount::amount(Cents::new(amount))
            .map_err(|_| "An amount off is 0.01 to 10000.00 dollars.")?,
        _ => return Err("Choose a percentage or an amount off.".into()),
    };
    let starts_at_ms = match form.starts.trim() {
        "" => now_ms,
        raw => day_start_ms(raw).ok_or("The first day is a date like 2026-12-01.")?,
    };
    let ends_at_ms = parse_last_day(&form.ends)?;
    if ends_at_ms.is_some_and(|end| end <= starts_at_ms) {
        return Err("The last day comes before the first.".into());
    }
    let named = named_scope(
        snap,
        &form.scope_kind,
        &form.scope_value,
        "all",
        "Choose which plans the code applies to.",
    )?;
    let scope = match named {
        None => PromoScope::All,
        Some(Named::Country(code)) => PromoScope::Country(code),
        Some(Named::Region(slug)) => PromoScope::Region(slug),
        Some(Named::Plan(id)) => PromoScope::Plan(id),
    };
    Ok(NewCode {
        code,
        discount,
        starts_at_ms,
        ends_at_ms,
        max_uses: optional_count(&form.max_uses, "The total cap")?,
        max_uses_per_email: optional_count(&form.max_uses_per_email, "The cap per email")?,
        scope,
    })
}

/// The edit form: what may change on an existing code.
#[derive(Deserialize, Default, Clone)]
pub struct LimitsForm {
    /// The last day it may be used, `YYYY-MM-DD` (UTC), empty for no end.
    #[serde(default)]
    pub ends: String,
    #[serde(default)]
    pub max_uses: String,
    #[serde(default)]
    pub max_uses_per_email: String,
}

impl LimitsForm {
    /// The form filled with the limits `code` has now.
    pub fn of(code: &CodeRow) -> Self {
        let count = |n: Option<i64>| n.map(|n| n.to_string()).unwrap_or_default();
        Self {
            ends: code.ends_at_ms.map(last_day).unwrap_or_default(),
            max_uses: count(code.max_uses),
            max_uses_per_email: count(code.max_uses_per_email),
        }
    }

    pub fn parse(&self) -> Result<Limits, String> {
        Ok(Limits {
            ends_at_ms: parse_last_day(&self.ends)?,
            max_uses: optional_count(&self.max_uses, "The total cap")?,
            max_uses_per_email: optional_count(&self.max_uses_per_email, "The cap per email")?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_are_utc_midnights() {
        assert_eq!(day_start_ms("1970-01-02"), Some(DAY_MS));
        assert_eq!(day_start_ms("2026-02-30"), None);
        assert_eq!(optional_count("", "cap"), Ok(None));
        assert_eq!(optional_count(" 5 ", "cap"), Ok(Some(5)));
        assert!(optional_count("0", "cap").is_err());
        assert_eq!(
            last_day(day_start_ms("2026-12-31").expect("day") + DAY_MS),
            "2026-12-31"
        );
        assert_eq!(parse_last_day(""), Ok(None));
        assert_eq!(
            parse_last_day("1970-01-01"),
            Ok(Some(DAY_MS)),
            "the end is the midnight after the last day"
        );
    }
}
