//! Endpoints for the platform that runs the shop: liveness and readiness.

use actix_web::{HttpResponse, web};
use serde::Serialize;

use crate::web::AppState;

/// Alive: the process answers. Touches nothing else, so a slow database never gets a healthy
/// process restarted.
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/plain; charset=utf-8")
        .body("ok\n")
}

#[derive(Serialize)]
struct Readiness {
    ready: bool,
    database: &'static str,
    /// From the last catalog sync attempt, not a live call: a probe every few seconds must not
    /// spend the API key's rate limit. Reported, but not part of `ready`: with the upstream
    /// down the shop still serves its catalog and keeps paid work in the outbox, so taking
    /// every replica out of the load balancer would only make things worse.
    upstream: &'static str,
}

/// Ready: the database answers and every migration this binary embeds is applied.
pub async fn readyz(state: web::Data<AppState>) -> HttpResponse {
    let database = match state.db.check_ready().await {
        Ok(()) => "ok",
        Err(err) => {
            tracing::warn!(error = %err, "readiness check failed");
            "unavailable"
        }
    };
    let ready = database == "ok";
    let upstream = match state.catalog.snapshot().last_sync.as_ref() {
        None => "not yet contacted",
        Some(sync) if sync.ok => "ok",
        Some(_) => "last catalog sync failed",
    };
    let body = Readiness {
        ready,
        database,
        upstream,
    };
    if ready {
        HttpResponse::Ok().json(body)
    } else {
        HttpResponse::ServiceUnavailable().json(body)
    }
}
