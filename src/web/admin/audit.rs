//! `/admin/audit` (owners): the audit log, newest first, paged by id so new entries never shift
//! a page under the reader. Targets link to the order or account they name.

use actix_web::web;
use askama::Template;
use serde::Deserialize;

use super::{AdminPage, CurrentAdmin, console_page, require_owner};
use crate::staff::audit::{self, Entry};
use crate::web::AppState;
use crate::web::error::AppError;
use crate::web::filters;

const PAGE_SIZE: usize = 50;

#[derive(Deserialize)]
pub struct AuditQuery {
    before: Option<i64>,
}

#[derive(Template)]
#[template(path = "admin/audit.html")]
struct AuditPage {
    rows: Vec<Entry>,
    older_href: Option<String>,
    paged: bool,
    retention_days: u32,
}

console_page!(AuditPage => "audit");

pub async fn audit(
    state: web::Data<AppState>,
    CurrentAdmin(admin): CurrentAdmin,
    query: web::Query<AuditQuery>,
) -> Result<AdminPage, AppError> {
    require_owner(&admin)?;
    let before = query.before;
    let (rows, more) = audit::page(&state.staff, before, PAGE_SIZE).await?;
    let older_href = more
        .then(|| rows.last().map(|r| format!("/admin/audit?before={}", r.id)))
        .flatten();
    Ok(AdminPage::new(AuditPage {
        rows,
        older_href,
        paged: before.is_some(),
        retention_days: state.settings.audit_retention_days,
    }))
}
