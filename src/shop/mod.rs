//! The shop as its owner presents it: its identity (name, colour, logo, company details) in
//! [`identity`], and its legal texts (terms, privacy, refunds and withdrawal, imprint) in
//! [`legal`]. Pages, emails and receipts read them from here.

pub mod identity;
pub mod legal;

pub use identity::{Identity, IdentityError, IdentityForm, ShopIdentity};
pub use legal::{Document, LegalError, LegalText, ShopLegal, TermsConsent};

use std::time::Duration;

use tokio::sync::{Notify, watch};

/// How often a replica compares the stored identity and texts with its own, besides `NOTIFY`.
const CHECK_EVERY: Duration = Duration::from_secs(15);

/// The loop that keeps what a replica serves from memory in step with the database: on each
/// wake-up (another replica's notification) and every [`CHECK_EVERY`], `changed` tells whether
/// the stored version differs from the served one, and `reload` reloads it; until `shutdown`
/// turns true. `what` names it in the log.
async fn follow<C, R, T, E1, E2>(
    what: &'static str,
    woken: &Notify,
    mut shutdown: watch::Receiver<bool>,
    changed: impl Fn() -> C,
    reload: impl Fn() -> R,
) where
    C: Future<Output = Result<bool, E1>>,
    R: Future<Output = Result<T, E2>>,
    E1: std::fmt::Display,
    E2: std::fmt::Display,
{
    loop {
        tokio::select! {
            _ = shutdown.changed() => return,
            () = woken.notified() => {}
            () = tokio::time::sleep(CHECK_EVERY) => {}
        }
        if *shutdown.borrow() {
            return;
        }
        match changed().await {
            Ok(true) => {
                if let Err(err) = reload().await {
                    tracing::warn!(error = %err, "{what} could not be reloaded");
                }
            }
            Ok(false) => {}
            Err(err) => tracing::warn!(error = %err, "{what}: the stored version is unreadable"),
        }
    }
}
