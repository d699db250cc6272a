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

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    #[tokio::test]
    async fn a_wake_up_reloads_what_changed_and_shutdown_ends_the_loop() {
        let woken = Arc::new(Notify::new());
        let (stop, shutdown) = watch::channel(false);
        let stored = Arc::new(AtomicUsize::new(1));
        let served = Arc::new(AtomicUsize::new(1));
        let reloads = Arc::new(AtomicUsize::new(0));
        let task = tokio::spawn({
            let (woken, stored, served, reloads) = (
                Arc::clone(&woken),
                Arc::clone(&stored),
                Arc::clone(&served),
                Arc::clone(&reloads),
            );
            async move {
                follow(
                    "test",
                    &woken,
                    shutdown,
                    || async {
                        Ok::<_, String>(
                            stored.load(Ordering::SeqCst) != served.load(Ordering::SeqCst),
                        )
                    },
                    || async {
                        served.store(stored.load(Ordering::SeqCst), Ordering::SeqCst);
                        reloads.fetch_add(1, Ordering::SeqCst);
                        Ok::<_, String>(())
                    },
                )
                .await;
            }
        });
        // Nothing changed: a wake-up reloads nothing.
        woken.notify_one();
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(reloads.load(Ordering::SeqCst), 0);
        // Another replica stored version 2: the next wake-up serves it.
        stored.store(2, Ordering::SeqCst);
        woken.notify_one();
        tokio::time::timeout(Duration::from_secs(5), async {
            while served.load(Ordering::SeqCst) != 2 {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
        .await
        .expect("reloaded after the wake-up");
        assert_eq!(reloads.load(Ordering::SeqCst), 1);
        stop.send(true).expect("the loop listens");
        tokio::time::timeout(Duration::from_secs(5), task)
            .await
            .expect("the loop ends on shutdown")
            .expect("no panic");
    }
}
