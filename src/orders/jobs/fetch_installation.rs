//! The `fetch_installation` job: reads `GET /esims/{id}/installation` once the order is
//! fulfilled, seals the details at once (`orders::installation`; only ciphertext reaches the
//! database) and moves the purchase to `fulfilled`, which queues the "eSIM ready" email.

use crate::db::outbox::LeasedJob;
use crate::db::purchases::TransitionError;
use crate::db::{DbConn, installations, purchases};
use crate::domain::AlertKind;
use crate::domain::PurchaseId;
use crate::domain::purchase::PurchaseEvent;
use crate::orders::installation::encrypt;
use crate::orders::jobs::job::{
    Job, JobContext, JobFuture, JobKind, OutboxError, Verdict, enqueue, needs_attention,
};
use crate::upstream::{Class, PathId};

/// `GET /esims/{id}/installation` once, store it encrypted, purchase → `fulfilled`.
pub(crate) struct FetchInstallation;

impl Job for FetchInstallation {
    fn kind(&self) -> JobKind {
        JobKind::FetchInstallation
    }

    fn run<'a>(&'a self, ctx: &'a JobContext, leased: &'a LeasedJob) -> JobFuture<'a> {
        Box::pin(fetch_installation(ctx, leased))
    }
}

async fn fetch_installation(ob: &JobContext, leased: &LeasedJob) -> Result<Verdict, OutboxError> {
    let Some(purchase) = ob.purchase(&leased.job.purchase_id).await? else {
        return Ok(Verdict::done(
            "purchase_missing",
            "the purchase row is gone",
        ));
    };
    let purchase_id = purchase.id.clone();
    let note = "installation details stored; ready to install".to_string();
    let already = {
        let id = purchase_id.clone();
        ob.db
            .run(move |c| installations::installation(c, &id))
            .await?
            .is_some()
    };
    if already {
        return Ok(
            Verdict::done("already_stored", "installation already stored")
                .with_effects(move |c, now| mark_fulfilled(c, &purchase_id, &note, now)),
        );
    }
    let Some(esim_id) = purchase.esim_id.clone() else {
        return Ok(Verdict::done("no_esim", "the purchase has no eSIM id"));
    };
    let exhausted =
        leased.job.attempts >= i32::try_from(ob.config.max_attempts).unwrap_or(i32::MAX);
    let fetched = match PathId::parse(esim_id.as_str()) {
        Ok(path) => ob.upstream.installation(&path).await,
        Err(e) => {
            let message = format!("eSIM id {esim_id:?} cannot be fetched: {e}");
            return Ok(
                Verdict::done("invalid_esim_id", message.clone()).with_effects(move |c, now| {
                    needs_attention(c, &purchase_id, AlertKind::NeedsAttention, &message, now)
                }),
            );
        }
    };
    let installation = match fetched {
        Ok(installation) => installation,
        Err(error) => {
            return Ok(match error.class() {
                Class::RetryAfter(wait) => ob.rate_limited(&error, wait),
                _ if exhausted => {
                    let message = format!(
                        "installation of eSIM {esim_id} could not be fetched after {} \
                         attempts: {error}",
                        leased.job.attempts
                    );
                    Verdict::dead("fetch_exhausted", message.clone()).with_effects(move |c, now| {
                        needs_attention(c, &purchase_id, AlertKind::NeedsAttention, &message, now)
                    })
                }
                _ => Verdict::retry(
                    "fetch_failed",
                    error.to_string(),
                    ob.backoff_at(&ob.config.retry, leased.job.attempts),
                ),
            });
        }
    };
    crate::failpoints::failpoint!(crate::failpoints::AFTER_INSTALLATION_FETCH);
    // Encrypted here, outside any transaction; only ciphertext crosses into the database.
    let row = encrypt(&ob.key, &purchase_id, &installation, crate::db::now_ms())?;
    drop(installation);
    Ok(
        Verdict::done("stored", format!("installation of eSIM {esim_id} stored")).with_effects(
            move |c, now| {
                installations::insert_installation(c, &row)?;
                mark_fulfilled(c, &purchase_id, &note, now)
            },
        ),
    )
}

fn mark_fulfilled(
    conn: &mut DbConn,
    purchase_id: &PurchaseId,
    note: &str,
    now: i64,
) -> Result<(), TransitionError> {
    if purchases::apply(
        conn,
        purchase_id,
        &PurchaseEvent::InstallationStored,
        note,
        now,
    )?
    .moved()
    {
        enqueue(conn, purchase_id, JobKind::EmailEsimReady, now, now)?;
    }
    Ok(())
}
