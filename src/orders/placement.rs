//! The `place_order` job: DESIGN purchase flow step 4, one `POST /orders` per attempt.
//!
//! The body comes from the purchase row (`plan_id`, `cost_cents` as `expectedPriceCents`,
//! `reference`) and the key is `purchases.idempotency_key`, both persisted before the first
//! attempt. After an `Unknown` outcome (timeout, dropped connection, 5xx) the retry sends the
//! SAME key and body: a timeout is not a failure, the order may exist, and only a replay under
//! the same key lets upstream answer "this is the order you already have" instead of selling a
//! second eSIM. The key changes only after a definitive `price_changed`, which proves no order
//! exists under it.

use crate::db::outbox::LeasedJob;
use crate::db::{fulfilment, purchases};
use crate::domain::purchase::PurchaseStatus;
use crate::orders::outbox::{
    Inner, JobKind, OutboxError, Verdict, alert, duration_ms, enqueue, needs_attention,
};
use crate::upstream::{
    ApiAmount, Class, ErrorCode, IdempotencyKey, OrderReference, OrderRequest, PathId, PlanId,
    UpstreamError,
};

/// Attempt outcomes that may have reached upstream: they count towards giving up.
const UNKNOWN_OUTCOMES: [&str; 2] = ["unknown", "lease_expired"];

pub(crate) async fn place_order(ob: &Inner, leased: &LeasedJob) -> Result<Verdict, OutboxError> {
    let Some(purchase) = ob.purchase(&leased.job.purchase_id).await? else {
        return Ok(Verdict::done(
            "purchase_missing",
            "the purchase row is gone",
        ));
    };
    if let Some(order_id) = &purchase.upstream_order_id {
        return Ok(Verdict::done(
            "already_ordered",
            format!("upstream order {order_id} is already recorded"),
        ));
    }
    if purchase.status() != PurchaseStatus::Paid {
        return Ok(Verdict::done(
            "skipped",
            format!("purchase is {}, not paid", purchase.status),
        ));
    }
    let purchase_id = purchase.id.clone();
    let (key, request) = match order_request(&purchase) {
        Ok(parts) => parts,
        Err(problem) => {
            let message = format!("cannot build the upstream order: {problem}");
            return Ok(
                Verdict::done("invalid_request", message.clone()).with_effects(move |c, now| {
                    needs_attention(c, &purchase_id, alert::NEEDS_ATTENTION, &message, now)
                }),
            );
        }
    };

    crate::failpoints::failpoint!(crate::failpoints::BEFORE_SEND);
    let error = match ob.upstream.create_order(&key, &request).await {
        Ok(accepted) => {
            let order_id = accepted.order_id;
            let first_poll = ob.backoff_at(&ob.config.tracking, 1);
            let note = format!(
                "upstream accepted order {order_id} (reference {}, key generation {})",
                purchase.reference, purchase.key_generation
            );
            let detail = format!("order {order_id}");
            return Ok(Verdict::done("accepted", detail)
                .with_effects(move |c, now| {
                    fulfilment::set_upstream_order(c, &purchase_id, &order_id, now)?;
                    purchases::transition(c, &purchase_id, PurchaseStatus::Ordered, &note, now)?;
                    enqueue(c, &purchase_id, JobKind::TrackOrder, first_poll, now)?;
                    Ok(())
                })
                .refreshing_wallet());
        }
        Err(error) => error,
    };

    match error.class() {
        Class::RetryAfter(wait) => Ok(ob.rate_limited(&error, wait)),
        Class::Unknown => unknown(ob, leased, &purchase, &error).await,
        Class::Definitive => match error.code() {
            Some(ErrorCode::PriceChanged) => price_changed(ob, leased, &purchase).await,
            Some(ErrorCode::InsufficientBalance) => Ok(insufficient_balance(ob, &error)),
            _ => Ok(rejected(ob, &purchase, &error)),
        },
    }
}

fn order_request(purchase: &purchases::Purchase) -> Result<(IdempotencyKey, OrderRequest), String> {
    let key =
        IdempotencyKey::parse(purchase.idempotency_key.as_str()).map_err(|e| e.to_string())?;
    let request = OrderRequest {
        plan_id: PlanId::parse(purchase.plan_id.as_str()).map_err(|e| e.to_string())?,
        expected_price_cents: ApiAmount::try_from(purchase.cost_cents)
            .map_err(|e| e.to_string())?,
        reference: OrderReference::parse(purchase.reference.as_str()).map_err(|e| e.to_string())?,
    };
    Ok((key, request))
}

/// Maybe ordered: retry later with the same key and body, or, after too many tries, hand it to
/// the admin with what support needs. Never refunded automatically.
async fn unknown(
    ob: &Inner,
    leased: &LeasedJob,
    purchase: &purchases::Purchase,
    error: &UpstreamError,
) -> Result<Verdict, OutboxError> {
    let job_id = leased.job.id;
    let earlier = ob
        .db
        .run(move |c| crate::db::outbox::count_attempts(c, job_id, &UNKNOWN_OUTCOMES))
        .await?;
    let unknowns = earlier.saturating_add(1);
    if unknowns < i64::from(ob.config.max_unknown_attempts) {
        let at = ob.backoff_at(&ob.config.retry, leased.job.attempts);
        return Ok(Verdict::retry("unknown", error.to_string(), at));
    }
    let message = format!(
        "order outcome still unknown after {unknowns} attempts; the order may exist upstream. \
         Ask upstream support about reference {} (Idempotency-Key {}); do not reorder or \
         refund before they answer. Last error: {error}",
        purchase.reference, purchase.idempotency_key
    );
    let purchase_id = purchase.id.clone();
    Ok(
        Verdict::dead("unknown_exhausted", message.clone()).with_effects(move |c, now| {
            needs_attention(c, &purchase_id, alert::NEEDS_ATTENTION, &message, now)
        }),
    )
}

/// No order exists under this key. Re-read the plan; within the margin guard, retry at the new
/// cost under a new key generation, otherwise the admin decides (refund or absorb).
async fn price_changed(
    ob: &Inner,
    leased: &LeasedJob,
    purchase: &purchases::Purchase,
) -> Result<Verdict, OutboxError> {
    let purchase_id = purchase.id.clone();
    let plan = match PathId::parse(purchase.plan_id.as_str()) {
        Ok(path) => ob.upstream.plan(&path).await,
        Err(e) => {
            let message = format!("price changed and the plan id cannot be re-read: {e}");
            return Ok(
                Verdict::done("price_changed", message.clone()).with_effects(move |c, now| {
                    needs_attention(c, &purchase_id, alert::NEEDS_ATTENTION, &message, now)
                }),
            );
        }
    };
    let plan = match plan {
        Ok(plan) => plan,
        Err(error) => {
            return Ok(match error.class() {
                Class::RetryAfter(wait) => ob.rate_limited(&error, wait),
                // The order is not placed; the next attempt meets the 409 again and re-reads.
                Class::Unknown => Verdict::retry(
                    "price_check_failed",
                    error.to_string(),
                    ob.backoff_at(&ob.config.retry, leased.job.attempts),
                ),
                Class::Definitive => {
                    let message =
                        format!("price changed and the plan can no longer be read: {error}");
                    Verdict::done("plan_gone", message.clone()).with_effects(move |c, now| {
                        needs_attention(c, &purchase_id, alert::NEEDS_ATTENTION, &message, now)
                    })
                }
            });
        }
    };
    let new_cost = plan.price_cents.cents().get();
    let margin = purchase.price_cents.saturating_sub(new_cost);
    let min_margin = ob.config.min_margin.get();
    if margin < min_margin {
        let message = format!(
            "upstream cost changed from {} to {new_cost} cents; the sale price {} leaves a \
             margin of {margin} cents, below the guard of {min_margin}: no order was placed. \
             Refund the consumer or absorb the difference.",
            purchase.cost_cents, purchase.price_cents
        );
        return Ok(
            Verdict::done("price_changed_below_margin", message.clone()).with_effects(
                move |c, now| {
                    needs_attention(c, &purchase_id, alert::NEEDS_ATTENTION, &message, now)
                },
            ),
        );
    }
    let generation = purchase.key_generation;
    let old_key = purchase.idempotency_key.clone();
    let new_key = IdempotencyKey::generate().as_str().to_string();
    let note = format!(
        "upstream cost changed from {} to {new_cost} cents (margin {margin} cents): retrying \
         under key generation {} (old key {old_key}, new key {new_key})",
        purchase.cost_cents,
        generation.saturating_add(1)
    );
    let status = purchase.status.clone();
    // Due at once: the new key has never been sent.
    Ok(
        Verdict::retry("price_changed_repriced", note.clone(), 0).with_effects(move |c, now| {
            if fulfilment::reprice(c, &purchase_id, generation, new_cost, &new_key, now)? {
                purchases::add_event(c, &purchase_id, Some(&status), &status, &note, now)?;
            }
            Ok(())
        }),
    )
}

/// No order; the wallet cannot pay for it. The job waits for a top-up, sales pause, and the
/// admin is alerted once (an open alert is not repeated).
fn insufficient_balance(ob: &Inner, error: &UpstreamError) -> Verdict {
    let wait = duration_ms(ob.config.insufficient_balance_wait);
    let at = crate::db::now_ms().saturating_add(wait);
    Verdict::retry("insufficient_balance", error.to_string(), at)
        .with_effects(|c, now| {
            crate::db::wallet::set_sales_paused(c, true)?;
            fulfilment::raise_alert(
                c,
                alert::INSUFFICIENT_BALANCE,
                None,
                "The upstream wallet cannot pay for paid orders: top it up. New sales are \
                 paused; waiting orders are retried automatically.",
                now,
            )?;
            Ok(())
        })
        .refreshing_wallet()
}

/// Any other definitive refusal: no order exists. The admin decides, or the consumer is
/// refunded at once when `AUTO_REFUND` is on.
fn rejected(ob: &Inner, purchase: &purchases::Purchase, error: &UpstreamError) -> Verdict {
    let message = format!("upstream refused the order, none was placed: {error}");
    let purchase_id = purchase.id.clone();
    let amount = purchase.price_cents;
    let auto_refund = ob.config.auto_refund;
    Verdict::done("rejected", message.clone()).with_effects(move |c, now| {
        needs_attention(c, &purchase_id, alert::NEEDS_ATTENTION, &message, now)?;
        if auto_refund {
            fulfilment::ensure_refund(c, &purchase_id, amount, &message, now)?;
            enqueue(c, &purchase_id, JobKind::Refund, now, now)?;
        }
        Ok(())
    })
}
