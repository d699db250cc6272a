//! `/admin`: the state of the business on one page — wallet, sales, orders that need a person,
//! outbox health, open alerts and the last catalog sync.

use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;

use serde::Deserialize;

use super::{
    AdminPage, CsrfForm, CurrentAdmin, NoFields, client_addr, console_page, require_owner,
    see_other,
};
use crate::books::figures::{Chart, Figures, chart};
use crate::db::dashboard::CatchUp;
use crate::db::{self, wallet};
use crate::orders::actions;
use crate::orders::console;
use crate::wallet::supplier_account::Overview;
use crate::web::error::AppError;
use crate::web::{AppState, filters};

console_page!(DashboardPage => "dashboard");

#[derive(Template)]
#[template(path = "admin/dashboard.html")]
struct DashboardPage {
    /// The 30-day figures and their chart (owners).
    figures: Option<(Figures, Chart)>,
    dash: console::Dashboard,
    account: Overview,
    /// When the page was read: how old alerts and due jobs are.
    now: i64,
    /// Sales are paused because the supplier refuses the account, not because of the wallet.
    account_problem: bool,
    /// Paused for the supplier account with no placement left to prove it fixed: an owner
    /// resumes sales by hand.
    resume_by_hand: bool,
    flash: Option<&'static str>,
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
    // The three reads are independent, each on its own connection: the page waits for the
    // slowest, not for their sum.
    let books = state.books();
    let (dash, account, figures) = tokio::try_join!(
        async {
            console::dashboard(&state.orders, now)
                .await
                .map_err(AppError::from)
        },
        async { state.account.overview().await.map_err(AppError::from) },
        async {
            if !admin.is_owner() {
                return Ok(None);
            }
            let figures = books.dashboard_figures(now).await.map_err(AppError::from)?;
            let chart = chart(&figures.days);
            Ok::<_, AppError>(Some((figures, chart)))
        },
    )?;
    let account_problem = dash
        .wallet
        .as_ref()
        .is_some_and(|w| w.pause() == Some(wallet::PauseReason::AccountProblem));
    Ok(AdminPage::new(DashboardPage {
        figures,
        resume_by_hand: account_problem && dash.health.open_placements == 0,
        account_problem,
        flash: match query.done.as_deref() {
            Some("retry") => Some("Waiting placements are due now; workers are sending them."),
            _ => None,
        },
        dash,
        account,
        now,
    }))
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
