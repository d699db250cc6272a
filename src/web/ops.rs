//! Endpoints for the platform that runs the shop: liveness and readiness.
//!
//! `/readyz` is public (load balancers ask it without credentials), so its public answer says
//! only what a visitor could find out anyway: ready or not, and whether checkout is open. The
//! supplier account's environment, key expiry, missing scopes and the reason checkout is
//! refused (which names settings) go only to a request carrying the metrics bearer token, and
//! to the console's dashboard and the log.

use actix_web::{HttpRequest, HttpResponse, web};
use serde::Serialize;

use crate::wallet::supplier_account::Readiness;
use crate::web::AppState;

/// Alive: the process answers. Touches nothing else, so a slow database never gets a healthy
/// process restarted.
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/plain; charset=utf-8")
        .body("ok\n")
}

#[derive(Serialize)]
struct ReadinessBody {
    ready: bool,
    database: &'static str,
    /// From the last catalog sync attempt, not a live call: a probe every few seconds must not
    /// spend the API key's rate limit. Reported, but not part of `ready`: with the upstream
    /// down the shop still serves its catalog and keeps paid work in the outbox, so taking
    /// every replica out of the load balancer would only make things worse.
    upstream: &'static str,
    /// This process's last read of the supplier account. Reported, not part of `ready`: an
    /// expiring key or a missing scope is the owner's to fix, and a shop that cannot read the
    /// account still serves its pages (it holds checkout, see `checkout`).
    account: AccountView,
}

/// The account as the asker may see it.
#[derive(Serialize)]
#[serde(untagged)]
enum AccountView {
    /// Anyone: `open` or `refused`, nothing more.
    Public { checkout: &'static str },
    /// With the metrics bearer token.
    Detailed(AccountReadiness),
}

impl AccountView {
    fn new(readiness: Readiness, detailed: bool) -> Self {
        if detailed {
            Self::Detailed(readiness.into())
        } else {
            Self::Public {
                checkout: if readiness.checkout.is_ok() {
                    "open"
                } else {
                    "refused"
                },
            }
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AccountReadiness {
    /// `null` until the account has been read since start.
    environment: Option<String>,
    /// Verbatim from upstream.
    key_expires_at: Option<String>,
    missing_scopes: Vec<&'static str>,
    /// RFC 3339, UTC.
    last_checked: Option<String>,
    /// `open`, or why this process refuses checkout.
    checkout: String,
}

impl From<Readiness> for AccountReadiness {
    fn from(r: Readiness) -> Self {
        Self {
            environment: r.environment,
            key_expires_at: r.key_expires_at,
            missing_scopes: r.missing_scopes,
            last_checked: r
                .last_checked_ms
                .map(crate::domain::clock::rfc3339)
                .filter(|t| !t.is_empty()),
            checkout: match r.checkout {
                Ok(()) => "open".to_string(),
                Err(held) => format!("refused: {held}"),
            },
        }
    }
}

/// Ready: the database answers and every migration this binary embeds is applied.
pub async fn readyz(state: web::Data<AppState>, req: HttpRequest) -> HttpResponse {
    let detailed = crate::web::metrics::bears_token(&req, state.settings.metrics_token.as_ref());
    let database = match state.orders.check_ready().await {
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
    let body = ReadinessBody {
        ready,
        database,
        upstream,
        account: AccountView::new(state.account.readiness(), detailed),
    };
    if ready {
        HttpResponse::Ok().json(body)
    } else {
        HttpResponse::ServiceUnavailable().json(body)
    }
}
