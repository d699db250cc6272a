//! `/admin`: the state of the business on one page — wallet, sales, orders that need a person,
//! outbox health, open alerts and the last catalog sync.

use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;

use serde::Deserialize;

use super::{
    AdminPage, CsrfForm, CurrentAdmin, NoFields, client_addr, console_page, require_owner,
    see_other,
};
use crate::db::{self, wallet};
use crate::domain::Cents;
use crate::domain::clock;
use crate::orders::actions;
use crate::orders::console;
use crate::web::AppState;
use crate::web::error::AppError;

struct WalletView {
    available: String,
    reserved: String,
    low_balance: bool,
    sales_paused: bool,
    /// Paused because the supplier refuses the account, not because of the wallet.
    account_problem: bool,
    refreshed: String,
}

struct SalesRow {
    label: &'static str,
    count: i64,
    revenue: String,
    cost: String,
    kept_cost: String,
    margin: String,
}

struct AttentionRow {
    href: String,
    id: String,
    status: String,
    status_label: String,
    email: String,
    price: String,
    updated: String,
}

struct AlertRow {
    kind: String,
    message: String,
    href: Option<String>,
    age: String,
}

struct AccountWarningView {
    level: &'static str,
    text: String,
}

struct AccountFactsView {
    name: String,
    id: String,
    email: String,
    environment: String,
    scopes: String,
    expiry: String,
    webhooks: &'static str,
    checked: String,
}

struct SyncView {
    ok: bool,
    finished: String,
    summary: String,
}

struct DayRow {
    label: String,
    date: String,
    orders: i64,
    sales: String,
    margin: String,
}

struct DestinationRow {
    name: String,
    orders: i64,
    sales: String,
}

/// The 30-day figures (owners): the chart's geometry and its table, destinations, conversion.
struct FiguresView {
    chart: crate::books::figures::Chart,
    days: Vec<DayRow>,
    total_sales: String,
    total_margin: String,
    destinations: Vec<DestinationRow>,
    started: i64,
    paid: i64,
    conversion: String,
    abandoned: i64,
    abandoned_href: String,
}

fn figures_view(f: crate::books::figures::Figures) -> FiguresView {
    use crate::books::figures::{chart, day_label};
    FiguresView {
        chart: chart(&f.days),
        total_sales: f.total_sales().to_string(),
        total_margin: f.total_margin().to_string(),
        conversion: f.conversion(),
        days: f
            .days
            .iter()
            .map(|d| DayRow {
                label: day_label(d.date),
                date: d.date.to_string(),
                orders: d.orders,
                sales: d.sales.to_string(),
                margin: d.margin.to_string(),
            })
            .collect(),
        abandoned_href: format!(
            "/admin/orders?status=abandoned&from={}",
            f.days
                .first()
                .map(|d| d.date.to_string())
                .unwrap_or_default()
        ),
        destinations: f
            .destinations
            .into_iter()
            .map(|d| DestinationRow {
                name: d.name,
                orders: d.orders,
                sales: d.sales.to_string(),
            })
            .collect(),
        started: f.started,
        paid: f.paid,
        abandoned: f.abandoned,
    }
}

console_page!(DashboardPage => "dashboard");

#[derive(Template)]
#[template(path = "admin/dashboard.html")]
struct DashboardPage {
    figures: Option<FiguresView>,
    wallet: Option<WalletView>,
    sales: Vec<SalesRow>,
    attention: Vec<AttentionRow>,
    pending_jobs: i64,
    oldest_due: Option<String>,
    dead_jobs: i64,
    /// Placements held back for later; an owner can make them due now.
    waiting_placements: i64,
    /// Paused for the supplier account with no placement left to prove it fixed: an owner
    /// resumes sales by hand.
    resume_by_hand: bool,
    flash: Option<&'static str>,
    alerts: Vec<AlertRow>,
    sync: Option<SyncView>,
    account: Option<AccountFactsView>,
    account_warnings: Vec<AccountWarningView>,
}

fn money(cents: i64) -> String {
    Cents::new(cents).to_string()
}

#[derive(Deserialize)]
pub struct DashboardQuery {
    done: Option<String>,
}

pub async fn dashboard(
    state: web::Data<AppState>,
    CurrentAdmin(admin): CurrentAdmin,
    query: web::Query<DashboardQuery>,
) -> Result<AdminPage, AppError> {
    let now = db::now_ms();
    let console::Dashboard {
        wallet: wallet_row,
        sales,
        health,
        attention,
        alerts,
        last_sync: sync,
    } = console::dashboard(&state.orders, now).await?;
    let account = state.account.overview().await?;
    let figures = if admin.is_owner() {
        Some(figures_view(state.books().dashboard_figures(now).await?))
    } else {
        None
    };
    let account_problem = wallet_row
        .as_ref()
        .is_some_and(|w| w.pause() == Some(wallet::PauseReason::AccountProblem));
    let page = DashboardPage {
        figures,
        wallet: wallet_row.map(|w| WalletView {
            available: money(w.available_cents),
            reserved: money(w.reserved_cents),
            low_balance: w.low_balance,
            sales_paused: w.sales_paused,
            account_problem: w.pause() == Some(wallet::PauseReason::AccountProblem),
            refreshed: if w.refreshed_at_ms > 0 {
                clock::minute_ms(w.refreshed_at_ms)
            } else {
                "never".to_string()
            },
        }),
        sales: sales
            .into_iter()
            .map(|(label, s)| SalesRow {
                label,
                count: s.count,
                revenue: money(s.revenue_cents),
                cost: money(s.cost_cents),
                kept_cost: money(s.kept_cost_cents),
                margin: money(s.margin_cents()),
            })
            .collect(),
        attention: attention
            .into_iter()
            .map(|p| AttentionRow {
                href: format!("/admin/orders/{}", p.id),
                status_label: crate::domain::purchase::PurchaseStatus::label_of(&p.status),
                status: p.status.clone(),
                email: p.email.clone(),
                price: money(p.price_cents),
                updated: clock::minute_ms(p.updated_at_ms),
                id: p.id,
            })
            .collect(),
        pending_jobs: health.pending,
        oldest_due: health.oldest_due_ms.map(|due| clock::age(now - due)),
        dead_jobs: health.dead,
        waiting_placements: health.waiting_placements,
        resume_by_hand: account_problem && health.open_placements == 0,
        flash: match query.done.as_deref() {
            Some("retry") => Some("Waiting placements are due now; workers are sending them."),
            _ => None,
        },
        alerts: alerts
            .into_iter()
            .map(|a| AlertRow {
                kind: a.kind,
                message: a.message,
                href: a.purchase_id.map(|id| format!("/admin/orders/{id}")),
                age: clock::age(now - a.created_at_ms),
            })
            .collect(),
        sync: sync.map(|s| SyncView {
            ok: s.ok,
            finished: clock::minute_ms(s.finished_at_ms),
            summary: if s.ok {
                format!(
                    "{} plans, {} countries, {} regions",
                    s.plan_count, s.country_count, s.region_count
                )
            } else {
                s.error.unwrap_or_else(|| "failed".to_string())
            },
        }),
        account_warnings: account
            .warnings
            .into_iter()
            .map(|w| AccountWarningView {
                level: w.level.as_str(),
                text: w.text,
            })
            .collect(),
        account: account.facts.map(|f| AccountFactsView {
            expiry: match f.key_expires_at_ms {
                Some(ms) => clock::minute_ms(ms),
                None => format!("unknown expiry ({:?})", f.key_expires_at),
            },
            name: f.name,
            id: f.id,
            email: f.email,
            environment: f.environment.as_str().to_string(),
            scopes: if f.scopes.is_empty() {
                "none".to_string()
            } else {
                f.scopes.join(", ")
            },
            webhooks: if f.webhook_enabled { "on" } else { "off" },
            checked: clock::minute_ms(f.checked_at_ms),
        }),
    };
    Ok(AdminPage::new(page))
}

/// "Retry waiting placements": after the owner topped up or fixed the account, every held-back
/// placement is sent now, each under its own stored key. Audited.
pub async fn retry_placements(
    state: web::Data<AppState>,
    req: HttpRequest,
    CurrentAdmin(admin): CurrentAdmin,
    _: CsrfForm<NoFields>,
) -> Result<HttpResponse, AppError> {
    require_owner(&admin)?;
    actions::retry_waiting_placements_for(&state.orders, &admin, &client_addr(&req)).await?;
    state.outbox.waker().wake();
    Ok(see_other("/admin?done=retry"))
}
