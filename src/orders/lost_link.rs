//! "Lost your link?": a customer who lost the order emails asks for their links again by the
//! address they used.
//!
//! The request ([`request`]) only records, in one transaction, that an email to that address
//! is wanted (`lost_link_requests`); it looks at no order, mints no token and sends nothing,
//! so it takes the same work and the same answer whether the address bought anything or not.
//! The row also limits the address: a second request within [`PER_EMAIL_WINDOW_MS`] queues
//! nothing, on every replica.
//!
//! [`deliver_due`] (a background loop, woken at once after a request) does the lookup: for an
//! address with paid orders, it mints a fresh private link per order (newest first, at most
//! [`MAX_ORDERS`]) and a sign-in link to "My eSIMs" (`orders::my_esims`), and sends one email;
//! for any other address it sends nothing. Transient mail
//! failures are retried with backoff, like the owners' alert emails; delivery is at least once.

use crate::orders::Orders;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{Notify, watch};

use crate::db::lost_links::{self as q, FAILED, NO_ORDERS, PENDING, SENT};
use crate::db::{Db, DbError, now_ms};
use crate::domain::{Email, PurchaseId};
use crate::i18n::{self, Lang};
use crate::mail::{OrderLink, OutgoingEmail, Receipt};
use crate::orders::jobs::email::plan_description;
use crate::orders::links::{issue, order_url};
use crate::orders::my_esims;
use crate::orders::notify::Notifier;

/// One email per address per this long, however many requests.
pub const PER_EMAIL_WINDOW_MS: i64 = 15 * 60_000;
/// Orders listed in one email, newest first.
pub const MAX_ORDERS: i64 = 20;
/// How long one attempt may take before another process may try the same request again.
const CLAIM_MS: i64 = 5 * 60_000;
const FIRST_RETRY_MS: i64 = 60_000;
const MAX_RETRY_MS: i64 = 30 * 60_000;
/// Attempts before a transiently failing email is given up.
const MAX_ATTEMPTS: i32 = 8;
const BATCH: i64 = 20;
/// How often the loop looks for requests queued by other replicas.
const POLL: Duration = Duration::from_secs(5);
/// How long a handled request (and so its address) is kept: a day, for "I never got it"
/// questions, far longer than the per-address window it also serves.
pub const KEEP_HANDLED_MS: i64 = 24 * 60 * 60_000;
/// How often handled requests older than [`KEEP_HANDLED_MS`] are removed.
const FORGET_EVERY: Duration = Duration::from_secs(60 * 60);

/// Removes the handled requests older than [`KEEP_HANDLED_MS`] at `now_ms`.
pub async fn forget_handled(db: &Db, now_ms: i64) -> Result<usize, DbError> {
    let before = now_ms.saturating_sub(KEEP_HANDLED_MS);
    db.run(move |c| c.write_tx(|c| q::forget_handled(c, before)))
        .await
}

/// Records that `email` wants its order links, in an email written in `lang`; returns
/// whether an email was queued (false within the per-address window). The caller answers
/// the same either way.
pub async fn request(orders: &Orders, email: &Email, lang: Lang) -> Result<bool, DbError> {
    let db = orders.db();
    let key = email.as_str().to_lowercase();
    db.run(move |c| c.write_tx(|c| q::request(c, &key, lang.code(), now_ms(), PER_EMAIL_WINDOW_MS)))
        .await
}

fn retry_delay_ms(attempts: i32) -> i64 {
    let doublings = u32::try_from(attempts.saturating_sub(1).clamp(0, 16)).unwrap_or(16);
    FIRST_RETRY_MS
        .saturating_mul(1_i64 << doublings)
        .min(MAX_RETRY_MS)
}

/// What one attempt came to.
struct Outcome {
    state: &'static str,
    next_attempt_ms: i64,
    error: Option<String>,
}

impl Outcome {
    fn done(state: &'static str, error: Option<String>) -> Self {
        Self {
            state,
            next_attempt_ms: now_ms(),
            error,
        }
    }
}

async fn attempt(
    db: &Db,
    notifier: &Notifier,
    email: &str,
    attempts: i32,
    lang: Lang,
) -> Result<Outcome, DbError> {
    let Ok(to) = Email::parse(email) else {
        return Ok(Outcome::done(FAILED, Some("not a valid address".into())));
    };
    let lookup = email.to_string();
    let orders = db
        .run(move |c| {
            let purchases = q::paid_purchases(c, &lookup, MAX_ORDERS)?;
            purchases
                .into_iter()
                .map(|p| {
                    let plan = plan_description(c, &p.plan_id, lang)?;
                    Ok::<_, DbError>((p, plan))
                })
                .collect::<Result<Vec<_>, _>>()
        })
        .await?;
    if orders.is_empty() {
        return Ok(Outcome::done(NO_ORDERS, None));
    }
    // Fresh tokens, recorded before the email can leave (see `orders::links`), and a sign-in
    // link to "My eSIMs" (see `orders::my_esims`).
    let ids: Vec<PurchaseId> = orders.iter().map(|(p, _)| p.id.clone()).collect();
    let address = email.to_string();
    let (tokens, sign_in) = db
        .run(move |c| {
            c.write_tx(|c| {
                let now = now_ms();
                let tokens = ids
                    .iter()
                    .map(|id| issue(c, id, true, now))
                    .collect::<Result<Vec<_>, DbError>>()?;
                let sign_in = my_esims::issue_sign_in(c, &address, now)?;
                Ok::<_, DbError>((tokens, sign_in))
            })
        })
        .await?;
    let sign_in = my_esims::sign_in_url(&notifier.public_url, &sign_in);
    let links: Vec<OrderLink> = orders
        .iter()
        .zip(tokens)
        .map(|((p, plan), token)| OrderLink {
            receipt: Receipt::new(&p.id, plan.as_str(), p.price_cents, p.created_at_ms).with_promo(
                p.promo_code.as_deref(),
                p.list_price_cents,
                p.discount_cents,
            ),
            url: order_url(&notifier.public_url, &p.id, &token),
        })
        .collect();
    let message = i18n::sync_scope(lang, || {
        OutgoingEmail::lost_link(
            to,
            &notifier.identity.current().mail_brand(),
            &links,
            &sign_in,
        )
    });
    let message = match message {
        Some(Ok(message)) => message,
        Some(Err(err)) => return Ok(Outcome::done(FAILED, Some(err.to_string()))),
        None => return Ok(Outcome::done(NO_ORDERS, None)),
    };
    Ok(match notifier.mailer.send(&message).await {
        Ok(()) => Outcome::done(SENT, None),
        Err(err) if err.is_transient() && attempts < MAX_ATTEMPTS => Outcome {
            state: PENDING,
            next_attempt_ms: now_ms().saturating_add(retry_delay_ms(attempts)),
            error: Some(err.to_string()),
        },
        Err(err) => Outcome::done(FAILED, Some(err.to_string())),
    })
}

/// Handles the requests that are due; returns how many emails went out. Without a mail
/// transport nothing is looked up and the requests wait.
pub async fn deliver_due(db: &Db, notifier: Option<&Notifier>) -> Result<usize, DbError> {
    let Some(notifier) = notifier else {
        return Ok(0);
    };
    let due = db.run(|c| q::due(c, now_ms(), BATCH)).await?;
    let mut sent = 0;
    for (email, attempts, language) in due {
        let claim = email.clone();
        let claimed = db
            .run(move |c| {
                let now = now_ms();
                q::claim(c, &claim, now, now.saturating_add(CLAIM_MS))
            })
            .await?;
        if !claimed {
            continue;
        }
        let attempts = attempts.saturating_add(1);
        let lang = Lang::parse(&language).unwrap_or_default();
        let outcome = attempt(db, notifier, &email, attempts, lang).await?;
        match outcome.state {
            SENT => sent += 1,
            PENDING => tracing::warn!(
                attempts,
                error = outcome.error.as_deref().unwrap_or_default(),
                "order links email not sent; it will be retried"
            ),
            FAILED => tracing::error!(
                error = outcome.error.as_deref().unwrap_or_default(),
                "order links email refused for good"
            ),
            _ => {}
        }
        db.run(move |c| {
            q::record(
                c,
                &email,
                outcome.state,
                outcome.next_attempt_ms,
                outcome.error.as_deref(),
            )
        })
        .await?;
    }
    Ok(sent)
}

/// Runs [`deliver_due`] when woken (after a request in this process) and every few seconds
/// (requests taken by other replicas), until shutdown; every [`FORGET_EVERY`] it also removes
/// old handled requests and ended "My eSIMs" sessions and sign-in links.
pub async fn run(
    db: Db,
    notifier: Option<Notifier>,
    wake: Arc<Notify>,
    mut shutdown: watch::Receiver<bool>,
) {
    let mut forgotten_at: Option<tokio::time::Instant> = None;
    loop {
        if let Err(err) = deliver_due(&db, notifier.as_ref()).await {
            tracing::warn!(error = %err, "could not deliver the order links emails");
        }
        if forgotten_at.is_none_or(|at| at.elapsed() >= FORGET_EVERY) {
            if let Err(err) = my_esims::forget_ended(&db, now_ms()).await {
                tracing::warn!(error = %err, "could not forget ended customer sessions");
            }
            match forget_handled(&db, now_ms()).await {
                Ok(n) => {
                    forgotten_at = Some(tokio::time::Instant::now());
                    if n > 0 {
                        tracing::info!(requests = n, "forgot handled order link requests");
                    }
                }
                Err(err) => {
                    tracing::warn!(error = %err, "could not forget old order link requests")
                }
            }
        }
        tokio::select! {
            () = tokio::time::sleep(POLL) => {}
            () = wake.notified() => {}
            _ = shutdown.changed() => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_back_off_to_half_an_hour() {
        let minutes: Vec<i64> = (1..=7).map(|n| retry_delay_ms(n) / 60_000).collect();
        assert_eq!(minutes, [1, 2, 4, 8, 16, 30, 30]);
    }
}
