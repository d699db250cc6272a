//! `GET /metrics`: Prometheus text for the operator. Request counters live in this process;
//! business gauges (purchases by status, outbox depth, wallet, alerts) are read from the
//! database, so every replica reports the same shop-wide numbers. Ended purchases and
//! finished jobs come from a tally taken every 5 minutes (`db::metrics`): a scrape never
//! counts a table that grows with every sale.
//!
//! Those gauges tell a competitor how the shop sells and what the wallet holds, so the endpoint
//! is off (404) unless `STOREFRONT_METRICS_TOKEN` is set, and then answers only a request
//! carrying `Authorization: Bearer <token>`; any other gets 401. A 401 rather than a 404 tells
//! an operator whose scraper is misconfigured that the token is the problem, and hides
//! nothing: the route is documented.

use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::config::Secret;
use crate::db;
use crate::web::AppState;
use crate::web::error::AppError;
use actix_web::http::header::AUTHORIZATION;
use actix_web::{HttpRequest, HttpResponse, web};

/// Responses served by this process, by status class (1xx … 5xx).
static RESPONSES: [AtomicU64; 5] = [const { AtomicU64::new(0) }; 5];

/// Counts one response; called by the request middleware.
pub fn record_response(status: u16) {
    if let Some(counter) = usize::from(status / 100)
        .checked_sub(1)
        .and_then(|i| RESPONSES.get(i))
    {
        counter.fetch_add(1, Ordering::Relaxed);
    }
}

/// Checks the request's bearer token against the configured one (in constant time).
fn authorize(req: &HttpRequest, expected: Option<&Secret<String>>) -> Result<(), AppError> {
    let expected = expected.ok_or(AppError::NotFound)?;
    if bears_token(req, Some(expected)) {
        Ok(())
    } else {
        Err(AppError::Unauthorized)
    }
}

/// Whether the request carries `Authorization: Bearer <STOREFRONT_METRICS_TOKEN>` (compared in
/// constant time): the operator's credential, also for `/readyz`'s detailed view. Never true
/// while no token is set.
pub fn bears_token(req: &HttpRequest, expected: Option<&Secret<String>>) -> bool {
    let Some(expected) = expected else {
        return false;
    };
    req.headers()
        .get(AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.trim().split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, token)| token.trim())
        .is_some_and(|token| expected.matches(token.as_bytes()))
}

pub async fn metrics(
    state: web::Data<AppState>,
    req: HttpRequest,
) -> Result<HttpResponse, AppError> {
    authorize(&req, state.settings.metrics_token.as_ref())?;
    let gauges = crate::orders::console::gauges(&state.orders).await?;
    let snap = state.catalog.snapshot();
    let now = db::now_ms();
    let mut out = String::with_capacity(2048);
    let _ = writeln!(
        out,
        "# HELP storefront_http_responses_total Responses served by this process."
    );
    let _ = writeln!(out, "# TYPE storefront_http_responses_total counter");
    for (i, counter) in RESPONSES.iter().enumerate() {
        let _ = writeln!(
            out,
            "storefront_http_responses_total{{class=\"{}xx\"}} {}",
            i + 1,
            counter.load(Ordering::Relaxed)
        );
    }
    let _ = writeln!(out, "# HELP storefront_purchases Purchases by status.");
    let _ = writeln!(out, "# TYPE storefront_purchases gauge");
    for (status, n) in &gauges.purchases {
        let _ = writeln!(out, "storefront_purchases{{status=\"{status}\"}} {n}");
    }
    let _ = writeln!(out, "# HELP storefront_outbox_jobs Outbox jobs by state.");
    let _ = writeln!(out, "# TYPE storefront_outbox_jobs gauge");
    for (job_state, n) in &gauges.jobs {
        let _ = writeln!(out, "storefront_outbox_jobs{{state=\"{job_state}\"}} {n}");
    }
    if let Some(at) = gauges.tallied_at_ms {
        let _ = writeln!(
            out,
            "# HELP storefront_tally_timestamp_seconds Unix time the ended purchases and finished jobs above were counted (every 5 minutes; the others are counted per scrape)."
        );
        let _ = writeln!(out, "# TYPE storefront_tally_timestamp_seconds gauge");
        let _ = writeln!(out, "storefront_tally_timestamp_seconds {}", at / 1000);
    }
    let overdue = gauges.oldest_due_ms.map_or(0, |due| (now - due).max(0));
    let _ = writeln!(
        out,
        "# HELP storefront_outbox_overdue_seconds How long the most overdue queued job has waited past its due time."
    );
    let _ = writeln!(out, "# TYPE storefront_outbox_overdue_seconds gauge");
    let _ = writeln!(out, "storefront_outbox_overdue_seconds {}", overdue / 1000);
    let _ = writeln!(
        out,
        "# HELP storefront_alerts_open Alerts waiting for an admin."
    );
    let _ = writeln!(out, "# TYPE storefront_alerts_open gauge");
    let _ = writeln!(out, "storefront_alerts_open {}", gauges.open_alerts);
    if let Some(wallet) = &gauges.wallet {
        let _ = writeln!(
            out,
            "# HELP storefront_wallet_available_cents Last known upstream wallet credit."
        );
        let _ = writeln!(out, "# TYPE storefront_wallet_available_cents gauge");
        let _ = writeln!(
            out,
            "storefront_wallet_available_cents {}",
            wallet.available_cents
        );
        let _ = writeln!(out, "# TYPE storefront_sales_paused gauge");
        let _ = writeln!(
            out,
            "storefront_sales_paused {}",
            u8::from(wallet.sales_paused)
        );
    }
    let sellable = snap.plans().iter().filter(|p| p.is_sellable()).count();
    let _ = writeln!(
        out,
        "# HELP storefront_catalog_plans Plans on sale in this replica's catalog."
    );
    let _ = writeln!(out, "# TYPE storefront_catalog_plans gauge");
    let _ = writeln!(out, "storefront_catalog_plans {sellable}");
    if let Some(sync) = &snap.last_good_sync {
        let _ = writeln!(
            out,
            "# HELP storefront_catalog_last_sync_seconds Unix time of the last good catalog sync."
        );
        let _ = writeln!(out, "# TYPE storefront_catalog_last_sync_seconds gauge");
        let _ = writeln!(
            out,
            "storefront_catalog_last_sync_seconds {}",
            sync.finished_at_ms / 1000
        );
    }
    let _ = writeln!(
        out,
        "# HELP storefront_page_cache_hits_total Shop pages answered from this process's page caches."
    );
    let _ = writeln!(out, "# TYPE storefront_page_cache_hits_total counter");
    let _ = writeln!(
        out,
        "# HELP storefront_page_cache_renders_total Shop pages rendered because no stored copy was at hand."
    );
    let _ = writeln!(out, "# TYPE storefront_page_cache_renders_total counter");
    let _ = writeln!(
        out,
        "# HELP storefront_page_cache_bytes Bytes of pages the page caches keep now."
    );
    let _ = writeln!(out, "# TYPE storefront_page_cache_bytes gauge");
    for (cache, stats) in [
        ("catalog", state.pages.stats()),
        ("plan", state.plan_pages.stats()),
    ] {
        let _ = writeln!(
            out,
            "storefront_page_cache_hits_total{{cache=\"{cache}\"}} {}",
            stats.hits
        );
        let _ = writeln!(
            out,
            "storefront_page_cache_renders_total{{cache=\"{cache}\"}} {}",
            stats.renders
        );
        let _ = writeln!(
            out,
            "storefront_page_cache_bytes{{cache=\"{cache}\"}} {}",
            stats.bytes
        );
    }
    write_lock_holds(&mut out);
    Ok(HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4; charset=utf-8")
        .body(out))
}

/// `storefront_db_write_lock_seconds`: how long this process's write transactions held the
/// database's write lock, by the class of work (`placement`, `request`, `background`; see
/// `db::write_gate`). A class whose upper buckets fill holds other writers back.
fn write_lock_holds(out: &mut String) {
    use crate::db::write_gate::{HOLD_BUCKETS_MS, LOCK_HOLDS};
    let _ = writeln!(
        out,
        "# HELP storefront_db_write_lock_seconds How long write transactions held the database's write lock, by class of work."
    );
    let _ = writeln!(out, "# TYPE storefront_db_write_lock_seconds histogram");
    for (class, holds) in LOCK_HOLDS.read() {
        let class = class.as_str();
        let mut cumulative = 0;
        for (bound, n) in HOLD_BUCKETS_MS.iter().zip(holds.buckets) {
            cumulative += n;
            let _ = writeln!(
                out,
                "storefront_db_write_lock_seconds_bucket{{class=\"{class}\",le=\"{}\"}} {cumulative}",
                *bound as f64 / 1000.0
            );
        }
        let _ = writeln!(
            out,
            "storefront_db_write_lock_seconds_bucket{{class=\"{class}\",le=\"+Inf\"}} {}",
            holds.count
        );
        let _ = writeln!(
            out,
            "storefront_db_write_lock_seconds_sum{{class=\"{class}\"}} {}",
            holds.sum_us as f64 / 1_000_000.0
        );
        let _ = writeln!(
            out,
            "storefront_db_write_lock_seconds_count{{class=\"{class}\"}} {}",
            holds.count
        );
    }
}
