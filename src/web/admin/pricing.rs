//! `/admin/pricing` (owners): markup rules by scope (default, region, country, plan). A rule is
//! previewed first — cost, current price, new price and margin of every plan it would price —
//! then saved; saving reloads the catalog so the shop shows the new prices at once. Every
//! change is in the audit log with the rule before and after. Price-ladder inversions (a bigger
//! plan cheaper than a smaller one) are listed for the owner to judge.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, web};
use askama::Template;
use serde::Deserialize;

use super::{
    AdminPage, Confirmable, CsrfForm, CurrentAdmin, Question, client_addr, console_page,
    require_owner, see_other,
};
use crate::catalog::named::scope_suggestions;
use crate::catalog::pricing::{self, Preview, RuleForm, describe, parse_rule, rule_from_row};
use crate::catalog::snapshot::Snapshot;
use crate::domain::pricing::MarkupRule;
use crate::staff::Admin;
use crate::web::AppState;
use crate::web::error::AppError;
use crate::web::filters;

/// A plan as the shop titles it, or its id when it left the catalog.
fn plan_name(snap: &Snapshot, id: &str) -> String {
    snap.plan(id)
        .map_or_else(|| id.to_string(), |p| p.title(crate::i18n::Lang::En))
}

struct RuleView {
    kind: String,
    value: String,
    text: String,
    updated_at_ms: i64,
}

struct InversionView {
    destination: String,
    bigger: String,
    /// The plan as the shop names it ("5 GB for 30 days"), beside its id.
    bigger_title: String,
    bigger_price: String,
    smaller: String,
    smaller_title: String,
    smaller_price: String,
}

#[derive(Template)]
#[template(path = "admin/pricing.html")]
struct PricingPage {
    default_percent: String,
    rules: Vec<RuleView>,
    form: RuleForm,
    error: Option<String>,
    preview: Option<Preview>,
    saved: bool,
    inversions: Vec<InversionView>,
    /// Inversions beyond the ones listed.
    more_inversions: usize,
    /// Country codes and region slugs with their names, for the scope field's suggestions.
    suggestions: Vec<(String, String)>,
}

/// Inversions listed on the page; the rest are counted.
const INVERSIONS_LISTED: usize = 100;

#[derive(Deserialize)]
pub struct PricingQuery {
    saved: Option<String>,
}

console_page!(PricingPage => "pricing");

impl PricingPage {
    /// The page with the rules in force and `form` as typed; nothing previewed or refused.
    async fn load(state: &AppState, form: RuleForm) -> Result<Self, AppError> {
        let rows = pricing::rules(&state.catalog).await?;
        let snap = state.catalog.snapshot();
        let bps = state.settings.default_markup_bps;
        Ok(Self {
            suggestions: scope_suggestions(&snap),
            default_percent: format!("{}.{:02}%", bps / 100, bps % 100),
            rules: rows
                .iter()
                .map(|row| RuleView {
                    kind: row.scope_kind.clone(),
                    value: row.scope_value.clone(),
                    text: rule_from_row(row).map_or_else(
                        || format!("{} {} (invalid)", row.scope_kind, row.scope_value),
                        |r| describe(&r),
                    ),
                    updated_at_ms: row.updated_at_ms,
                })
                .collect(),
            form,
            error: None,
            preview: None,
            saved: false,
            more_inversions: snap.inversions().len().saturating_sub(INVERSIONS_LISTED),
            inversions: snap
                .inversions()
                .iter()
                .take(INVERSIONS_LISTED)
                .map(|i| InversionView {
                    destination: snap
                        .country_name(&i.destination)
                        .unwrap_or(&i.destination)
                        .to_string(),
                    bigger_title: plan_name(&snap, &i.bigger_plan),
                    bigger: i.bigger_plan.clone(),
                    bigger_price: i.bigger_price.to_string(),
                    smaller_title: plan_name(&snap, &i.smaller_plan),
                    smaller: i.smaller_plan.clone(),
                    smaller_price: i.smaller_price.to_string(),
                })
                .collect(),
        })
    }
}

pub async fn page(
    state: web::Data<AppState>,
    CurrentAdmin(admin): CurrentAdmin,
    query: web::Query<PricingQuery>,
) -> Result<AdminPage, AppError> {
    require_owner(&admin)?;
    let form = RuleForm {
        scope_kind: "default".into(),
        ..RuleForm::default()
    };
    Ok(AdminPage::new(PricingPage {
        saved: query.saved.is_some(),
        ..PricingPage::load(&state, form).await?
    }))
}

/// A submitted rule (its form token already checked by [`CsrfForm`]), checked for an owner, and
/// previewed against the rules in force. `Err` is the answer to send instead: the form again
/// with the reason (400).
async fn checked_rule(
    state: &AppState,
    admin: &Admin,
    form: RuleForm,
) -> Result<Result<(RuleForm, MarkupRule, Preview), AdminPage>, AppError> {
    require_owner(admin)?;
    let snap = state.catalog.snapshot();
    let rule = match parse_rule(&form, &snap) {
        Ok(rule) => rule,
        Err(message) => {
            let page = PricingPage {
                error: Some(message),
                ..PricingPage::load(state, form).await?
            };
            return Ok(Err(AdminPage::with_status(StatusCode::BAD_REQUEST, page)));
        }
    };
    let preview = pricing::preview(&state.catalog, &rule).await?;
    Ok(Ok((form, rule, preview)))
}

pub async fn preview_rule(
    state: web::Data<AppState>,
    CurrentAdmin(admin): CurrentAdmin,
    CsrfForm(form): CsrfForm<RuleForm>,
) -> Result<AdminPage, AppError> {
    let (form, _, preview) = match checked_rule(&state, &admin, form).await? {
        Ok(checked) => checked,
        Err(refused) => return Ok(refused),
    };
    Ok(AdminPage::new(PricingPage {
        preview: Some(preview),
        ..PricingPage::load(&state, form).await?
    }))
}

pub async fn save(
    state: web::Data<AppState>,
    req: HttpRequest,
    CurrentAdmin(admin): CurrentAdmin,
    CsrfForm(form): CsrfForm<RuleForm>,
) -> Result<AdminPage, AppError> {
    let (form, rule, check) = match checked_rule(&state, &admin, form).await? {
        Ok(checked) => checked,
        Err(refused) => return Ok(refused),
    };
    if check.below_cost {
        let page = PricingPage {
            error: Some("This rule would sell plans below cost; it was not saved.".into()),
            preview: Some(check),
            ..PricingPage::load(&state, form).await?
        };
        return Ok(AdminPage::with_status(StatusCode::CONFLICT, page));
    }
    pricing::save_rule(&state.catalog, &admin, &client_addr(&req), rule).await?;
    Ok(see_other("/admin/pricing?saved=1").into())
}

#[derive(Deserialize)]
pub struct DeleteForm {
    #[serde(default)]
    scope_kind: String,
    #[serde(default)]
    scope_value: String,
}

/// What removing the rule of scope `kind`/`value` does, asked before it is done.
fn removal_question(snap: &Snapshot, kind: &str, value: &str) -> Question {
    let (rule, falls_back) = match kind {
        "default" => (
            "the default rule".to_string(),
            "the built-in markup".to_string(),
        ),
        "country" => (
            format!("the rule for {}", snap.country_name(value).unwrap_or(value)),
            "their region's rule or the default".to_string(),
        ),
        "region" => (
            format!("the rule for the region {value}"),
            "the default rule".to_string(),
        ),
        _ => (
            format!("the rule for plan {value}"),
            "its country's, region's or the default rule".to_string(),
        ),
    };
    Question {
        title: format!("Remove {rule}?"),
        consequence: format!(
            "The plans it prices go back to {falls_back} at once, and the shop shows their new prices. A removed rule can be added again, but it is not restored by itself."
        ),
        button: "Remove the rule",
        back: "/admin/pricing".to_string(),
    }
}

pub async fn delete(
    state: web::Data<AppState>,
    req: HttpRequest,
    CurrentAdmin(admin): CurrentAdmin,
    form: Confirmable<DeleteForm>,
) -> Result<AdminPage, AppError> {
    require_owner(&admin)?;
    let question = removal_question(
        &state.catalog.snapshot(),
        &form.form().scope_kind,
        &form.form().scope_value,
    );
    let form = match form.confirmed(question) {
        Ok(form) => form,
        Err(ask) => return Ok(*ask),
    };
    let deleted = pricing::delete_rule(
        &state.catalog,
        &admin,
        &client_addr(&req),
        form.scope_kind,
        form.scope_value,
    )
    .await?;
    if !deleted {
        return Err(AppError::NotFound);
    }
    Ok(see_other("/admin/pricing?saved=1").into())
}
