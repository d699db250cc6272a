//! `/admin/audit` (owners): the audit log, newest first, paged by id so new entries never shift
//! a page under the reader. Targets link to the order or account they name.

use actix_web::web;
use askama::Template;
use serde::Deserialize;

use super::{AdminPage, CurrentAdmin, console_page, require_owner};
use crate::domain::clock;
use crate::web::AppState;
use crate::web::error::AppError;

const PAGE_SIZE: i64 = 50;

#[derive(Deserialize)]
pub struct AuditQuery {
    before: Option<i64>,
}

struct Row {
    at: String,
    actor: String,
    /// The stored action (`wallet_topup_created`), kept as a data attribute.
    action: String,
    /// The action in words (`Wallet top-up created`).
    action_label: String,
    /// What the entry is about, as the console names it (`Order SF-3FA2-9C1E`).
    target: String,
    target_href: Option<String>,
    client_addr: String,
    details: String,
}

#[derive(Template)]
#[template(path = "admin/audit.html")]
struct AuditPage {
    rows: Vec<Row>,
    older_href: Option<String>,
    paged: bool,
    retention_days: u32,
}

console_page!(AuditPage => "audit");

/// Where an audit target can be looked at: a purchase's or an account's page.
fn target_href(target: &str) -> Option<String> {
    if let Some(id) = target.strip_prefix("purchase:") {
        return Some(format!("/admin/orders/{id}"));
    }
    target
        .strip_prefix("user:")
        .and_then(|id| id.parse::<i64>().ok())
        .map(|id| format!("/admin/users/{id}"))
}

/// How the page names an audit target: an order by its customer's order number.
fn target_name(target: &str) -> String {
    match target.strip_prefix("purchase:") {
        Some(id) => format!("Order {}", crate::domain::purchase::order_number(id)),
        None => target.to_string(),
    }
}

pub async fn audit(
    state: web::Data<AppState>,
    CurrentAdmin(admin): CurrentAdmin,
    query: web::Query<AuditQuery>,
) -> Result<AdminPage, AppError> {
    require_owner(&admin)?;
    let before = query.before;
    let mut rows = crate::staff::audit::page(&state.staff, before, PAGE_SIZE + 1).await?;
    let more = rows.len() > usize::try_from(PAGE_SIZE).unwrap_or(usize::MAX);
    rows.truncate(usize::try_from(PAGE_SIZE).unwrap_or(usize::MAX));
    let older_href = more
        .then(|| rows.last().map(|r| format!("/admin/audit?before={}", r.id)))
        .flatten();
    Ok(AdminPage::new(AuditPage {
        rows: rows
            .into_iter()
            .map(|r| {
                let target = r.target.unwrap_or_default();
                Row {
                    at: clock::minute_ms(r.at_ms),
                    actor: r.actor,
                    action_label: crate::staff::action::label(&r.action),
                    action: r.action,
                    target_href: target_href(&target),
                    target: target_name(&target),
                    client_addr: r.client_addr,
                    details: if r.repeats > 1 {
                        // Refusals of one client in one window share an entry; the actor is
                        // the first address typed.
                        format!(
                            "{} ({} times from this client in this window)",
                            r.details, r.repeats
                        )
                    } else {
                        r.details
                    },
                }
            })
            .collect(),
        older_href,
        paged: before.is_some(),
        retention_days: state.settings.audit_retention_days,
    }))
}
