//! The `place_order` job: one `POST /orders` per attempt for a paid purchase.
//!
//! The body comes from the purchase row (`plan_id`, `cost_cents` as `expectedPriceCents`,
//! `reference`) and the key is `purchases.idempotency_key`, both persisted before the first
//! attempt. After an `Unknown` outcome (timeout, dropped connection, 5xx) the retry sends the
//! SAME key and body: a timeout is not a failure, the order may exist, and only a replay under
//! the same key lets upstream answer "this is the order you already have" instead of selling a
//! second eSIM. The key changes only after a definitive `price_changed`, which proves no order
//! exists under it, and at most [`MAX_REPRICES`] times.
//!
//! Refusals are told apart by `upstream::Refusal` (decided once, in `upstream::error`):
//! - `insufficient_balance` and account problems (401, 403, an unlisted 409 such as a
//!   purchasing suspension) wait: sales pause, owners get one alert, every placement is held
//!   back, and the job is sent again under the same key on a slow timer or when the owner
//!   retries. Never refunded: the purchase is not at fault.
//! - `idempotency_key_reused`, and an outcome still unknown after many attempts, are settled by
//!   reconciliation (`orders::reconcile`): an order found under the purchase's reference is
//!   adopted and tracked; a proven absence lets placement go on under the same key.
//! - A refused request (400, 404) ends placement: the purchase needs attention and, with
//!   `AUTO_REFUND`, the consumer is refunded.

use crate::db::outbox::LeasedJob;
use crate::db::purchases::TransitionError;
use crate::db::wallet::{self, PauseReason};
use crate::db::{DbConn, alerts, outbox as jobs, purchases, refunds};
use crate::domain::AlertKind;
use crate::domain::Cents;
use crate::domain::PurchaseId;
use crate::domain::purchase::{PurchaseEvent, PurchaseStatus};
use crate::orders::jobs::job::{
    Job, JobContext, JobFuture, JobKind, OutboxError, Verdict, attention, duration_ms, enqueue,
};
use crate::orders::jobs::refund::refund_failed_delivery;
use crate::orders::reconcile::{self, Lookup};
use crate::upstream::{
    ApiAmount, Class, IdempotencyKey, OrderReference, OrderRequest, PathId, PlanId, Refusal,
    UpstreamError,
};

/// Attempt outcomes that may have reached upstream: they count towards reconciliation.
const UNKNOWN_OUTCOMES: [&str; 2] = ["unknown", "lease_expired"];
/// Attempt outcomes after which unknown outcomes are counted afresh.
const RECONCILED: [&str; 1] = ["reconciled_absent"];
/// New key generations a purchase may get from `price_changed` before a person decides.
pub const MAX_REPRICES: i32 = 3;
/// Proven absences after `idempotency_key_reused` before a person decides.
const MAX_KEY_REUSED_LOOKUPS: i64 = 3;

/// Sends `POST /orders` for a paid purchase (same key and body on every retry).
pub(crate) struct PlaceOrder;

impl Job for PlaceOrder {
    fn kind(&self) -> JobKind {
        JobKind::PlaceOrder
    }

    fn run<'a>(&'a self, ctx: &'a JobContext, leased: &'a LeasedJob) -> JobFuture<'a> {
        Box::pin(place_order(ctx, leased))
    }
}

async fn place_order(ob: &JobContext, leased: &LeasedJob) -> Result<Verdict, OutboxError> {
    // The purchase and its refund, if any, in one trip to the pool.
    let (purchase, refund) = {
        let id = leased.job.purchase_id.clone();
        ob.db
            .run(move |c| {
                let purchase = purchases::find(c, &id)?;
                let refund = match &purchase {
                    Some(_) => refunds::refund_for(c, &id)?,
                    None => None,
                };
                Ok::<_, crate::db::DbError>((purchase, refund))
            })
            .await?
    };
    let Some(purchase) = purchase else {
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
    if purchase.status != PurchaseStatus::Paid {
        return Ok(Verdict::done(
            "skipped",
            format!("purchase is {}, not paid", purchase.status),
        ));
    }
    if refund.is_some_and(|r| r.is_open()) {
        return Ok(Verdict::done(
            "cancelled_refund",
            "the consumer is being refunded: no order is placed",
        ));
    }
    let purchase_id = purchase.id.clone();
    let (key, request) = match order_request(&purchase) {
        Ok(parts) => parts,
        Err(problem) => {
            let message = format!("cannot build the upstream order: {problem}");
            return Ok(stopped("invalid_request", purchase_id, message));
        }
    };

    crate::failpoints::failpoint!(crate::failpoints::BEFORE_SEND);
    let error = match ob.upstream.create_order(&key, &request).await {
        Ok(accepted) => {
            let note = format!(
                "upstream accepted order {} (reference {})",
                accepted.order_id, purchase.reference
            );
            return Ok(adopt(
                ob,
                "accepted",
                purchase_id,
                accepted.order_id,
                PurchaseEvent::OrderAccepted,
                note,
            ));
        }
        Err(error) => error,
    };

    match error.refusal() {
        Some(Refusal::PriceChanged) => price_changed(ob, leased, &purchase).await,
        Some(Refusal::InsufficientBalance) => Ok(insufficient_balance(ob, &purchase, &error)),
        Some(Refusal::Account) => Ok(account_problem(ob, &purchase, &error)),
        Some(Refusal::KeyReused) => reconcile(ob, leased, &purchase, Doubt::KeyReused).await,
        Some(Refusal::Request) => Ok(rejected(ob, &purchase, &error)),
        None => match error.class() {
            Class::RetryAfter(wait) => Ok(ob.rate_limited(&error, wait)),
            Class::Unknown | Class::Definitive => unknown(ob, leased, &purchase, &error).await,
        },
    }
}

fn order_request(purchase: &purchases::Purchase) -> Result<(IdempotencyKey, OrderRequest), String> {
    let key =
        IdempotencyKey::parse(purchase.idempotency_key.as_str()).map_err(|e| e.to_string())?;
    let request = OrderRequest {
        plan_id: PlanId::parse(purchase.plan_id.as_str()).map_err(|e| e.to_string())?,
        expected_price_cents: ApiAmount::try_from(purchase.cost_cents.get())
            .map_err(|e| e.to_string())?,
        reference: OrderReference::parse(purchase.reference.as_str()).map_err(|e| e.to_string())?,
    };
    Ok((key, request))
}

/// The upstream order exists (accepted now, or found by reconciliation): record it, track it,
/// and lift the shop-wide placement pauses it disproves. The order id is kept even when the
/// purchase can no longer move to `ordered` (refunded meanwhile): that is a loss the owner must
/// see, so it is recorded with an alert instead of being dropped.
fn adopt(
    ob: &JobContext,
    label: &'static str,
    purchase_id: PurchaseId,
    order_id: String,
    event: PurchaseEvent,
    note: String,
) -> Verdict {
    let first_poll = ob.backoff_at(&ob.config.tracking, 1);
    Verdict::done(label, format!("order {order_id}"))
        .with_effects(move |c, now| {
            purchases::set_upstream_order(c, &purchase_id, &order_id, now)?;
            match purchases::apply(c, &purchase_id, &event, &note, now) {
                Ok(_) => {}
                Err(TransitionError::Refused(refusal)) => {
                    let message = format!(
                        "upstream order {order_id} exists for a purchase that is {}: {}. It \
                         was paid from the wallet; book it as a loss or ask upstream support.",
                        refusal.status, refusal.reason
                    );
                    let status = refusal.status.as_str();
                    purchases::add_event(c, &purchase_id, Some(status), status, &message, now)?;
                    alerts::raise_alert(
                        c,
                        AlertKind::NeedsAttention,
                        Some(&purchase_id),
                        &message,
                        now,
                    )?;
                }
                Err(other) => return Err(other),
            }
            enqueue(c, &purchase_id, JobKind::TrackOrder, first_poll, now)?;
            // An accepted order proves the account can buy again: the pause it caused ends.
            // A pause for another reason (the wallet) stays.
            crate::db::alerts::resolve_shop_alerts(c, AlertKind::AccountProblem, now)?;
            wallet::resume_from(c, PauseReason::AccountProblem)?;
            alerts::resolve_alerts_of_kind(c, &purchase_id, AlertKind::PlacementUnknown, now)?;
            Ok(())
        })
        .refreshing_wallet()
}

/// Placement ended without an order: the purchase needs a person (refund, or retry it).
fn stopped(label: &'static str, purchase_id: PurchaseId, message: String) -> Verdict {
    Verdict::done(label, message.clone())
        .with_effects(move |c, now| stop(c, &purchase_id, &message, now))
}

fn stop(
    c: &mut DbConn,
    purchase_id: &PurchaseId,
    message: &str,
    now: i64,
) -> Result<(), TransitionError> {
    attention(
        c,
        purchase_id,
        &PurchaseEvent::PlacementStopped,
        AlertKind::NeedsAttention,
        message,
        now,
    )
}

/// Maybe ordered: retry later with the same key and body. After many unknown outcomes in a
/// row, look the order up by its reference instead of guessing.
async fn unknown(
    ob: &JobContext,
    leased: &LeasedJob,
    purchase: &purchases::Purchase,
    error: &UpstreamError,
) -> Result<Verdict, OutboxError> {
    let job_id = leased.job.id;
    let earlier = ob
        .db
        .run(move |c| jobs::count_attempts_since(c, job_id, &UNKNOWN_OUTCOMES, &RECONCILED))
        .await?;
    let unknowns = earlier.saturating_add(1);
    if unknowns < i64::from(ob.config.max_unknown_attempts) {
        let at = ob.backoff_at(&ob.config.retry, leased.job.attempts);
        return Ok(Verdict::retry("unknown", error.to_string(), at));
    }
    reconcile(ob, leased, purchase, Doubt::Unknown { unknowns }).await
}

/// Why placement asks upstream's order list.
#[derive(Debug, Clone, Copy)]
enum Doubt {
    /// This many attempts in a row ended without knowing.
    Unknown { unknowns: i64 },
    /// Upstream said the key was used with another body.
    KeyReused,
}

/// Looks the purchase's reference up in `GET /orders`: adopt a found order; after a proven
/// absence go on under the same key; while the listing cannot be read, wait on a slow timer
/// with the purchase flagged for the owner (never refunded: the order may exist).
async fn reconcile(
    ob: &JobContext,
    leased: &LeasedJob,
    purchase: &purchases::Purchase,
    doubt: Doubt,
) -> Result<Verdict, OutboxError> {
    let purchase_id = purchase.id.clone();
    let reference = purchase.reference.clone();
    let lookup = reconcile::find_by_reference(&ob.db, &ob.upstream, &reference).await;
    let slow = crate::db::now_ms().saturating_add(duration_ms(ob.config.reconcile_wait));
    match lookup {
        Ok(Lookup::Found(order)) => {
            let note = format!(
                "reconciled: upstream holds order {} under reference {reference} (status {})",
                order.id,
                order.status.as_str()
            );
            Ok(adopt(
                ob,
                "reconciled_found",
                purchase_id,
                order.id,
                PurchaseEvent::Reconciled { found: true },
                note,
            ))
        }
        Ok(Lookup::Absent) => match doubt {
            Doubt::Unknown { unknowns } => {
                let note = format!(
                    "reconciled after {unknowns} unknown outcomes: upstream lists no order \
                     with reference {reference}; placing it again under the same key"
                );
                Ok(
                    Verdict::retry("reconciled_absent", note.clone(), 0).with_effects(
                        move |c, now| {
                            let applied = purchases::apply(
                                c,
                                &purchase_id,
                                &PurchaseEvent::Reconciled { found: false },
                                &note,
                                now,
                            )?;
                            if !applied.moved() {
                                let status = applied.to.as_str();
                                purchases::add_event(
                                    c,
                                    &purchase_id,
                                    Some(status),
                                    status,
                                    &note,
                                    now,
                                )?;
                            }
                            alerts::resolve_alerts_of_kind(
                                c,
                                &purchase_id,
                                AlertKind::PlacementUnknown,
                                now,
                            )?;
                            Ok(())
                        },
                    ),
                )
            }
            Doubt::KeyReused => {
                let job_id = leased.job.id;
                let earlier = ob
                    .db
                    .run(move |c| jobs::count_attempts(c, job_id, &RECONCILED))
                    .await?;
                if earlier.saturating_add(1) >= MAX_KEY_REUSED_LOOKUPS {
                    let message = format!(
                        "upstream keeps answering idempotency_key_reused for key {} but lists \
                         no order with reference {reference}; ask upstream support before \
                         refunding (an order may exist)",
                        purchase.idempotency_key
                    );
                    return Ok(stopped("key_reused_unresolved", purchase_id, message));
                }
                let detail = format!(
                    "idempotency_key_reused, and no order with reference {reference} is listed; \
                     trying again under the same key"
                );
                Ok(Verdict::retry(
                    "reconciled_absent",
                    detail,
                    ob.backoff_at(&ob.config.retry, leased.job.attempts),
                ))
            }
        },
        Err(reconcile::LookupError::Db(error)) => Err(error.into()),
        Ok(Lookup::NotListed { .. }) | Err(reconcile::LookupError::Upstream(_)) => {
            let why = match lookup {
                Err(reconcile::LookupError::Upstream(error)) => {
                    if let Class::RetryAfter(wait) = error.class() {
                        return Ok(ob.rate_limited(&error, wait));
                    }
                    format!("upstream's order list cannot be read now ({error})")
                }
                _ => format!(
                    "neither the shop's copy of upstream's orders nor the newest {} pages of \
                     upstream's order list show it",
                    reconcile::LOOKUP_PAGES
                ),
            };
            let message = format!(
                "the outcome of placing reference {reference} is unknown ({}) and {why}; it is \
                 looked up again every {} minutes. Do not refund or reorder: the order may \
                 exist.",
                match doubt {
                    Doubt::Unknown { unknowns } => format!("{unknowns} unknown outcomes"),
                    Doubt::KeyReused => "idempotency_key_reused".to_string(),
                },
                ob.config.reconcile_wait.as_secs() / 60
            );
            Ok(
                Verdict::retry("reconcile_failed", message.clone(), slow).with_effects(
                    move |c, now| {
                        purchases::apply(
                            c,
                            &purchase_id,
                            &PurchaseEvent::PlacementWaiting,
                            "",
                            now,
                        )?;
                        alerts::raise_alert(
                            c,
                            AlertKind::PlacementUnknown,
                            Some(&purchase_id),
                            &message,
                            now,
                        )?;
                        Ok(())
                    },
                ),
            )
        }
    }
}

/// No order exists under this key. Re-read the plan; within the margin guard and the re-price
/// cap, retry at the new cost under a new key generation, otherwise the admin decides (refund,
/// or retry placement once the price is back).
async fn price_changed(
    ob: &JobContext,
    leased: &LeasedJob,
    purchase: &purchases::Purchase,
) -> Result<Verdict, OutboxError> {
    let purchase_id = purchase.id.clone();
    let plan = match PathId::parse(purchase.plan_id.as_str()) {
        Ok(path) => ob.upstream.plan(&path).await,
        Err(e) => {
            let message = format!("price changed and the plan id cannot be re-read: {e}");
            return Ok(stopped("price_changed", purchase_id, message));
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
                    stopped("plan_gone", purchase_id, message)
                }
            });
        }
    };
    let new_cost = plan.price_cents.cents().get();
    let margin = purchase.price_cents.get().saturating_sub(new_cost);
    let min_margin = ob.config.min_margin.get();
    let numbers = format!(
        "paid {}, cost when sold {}, upstream cost now {}, margin at that cost {}",
        purchase.price_cents,
        purchase.cost_cents,
        crate::domain::Cents::new(new_cost),
        crate::domain::Cents::new(margin),
    );
    if margin < min_margin {
        let message = format!(
            "upstream cost changed: {numbers}, below the margin guard of {}; no order was \
             placed. Refund the consumer, or retry placement if the price comes back.",
            crate::domain::Cents::new(min_margin)
        );
        return Ok(stopped("price_changed_below_margin", purchase_id, message));
    }
    if purchase.key_generation >= MAX_REPRICES {
        let message = format!(
            "upstream cost changed again after {MAX_REPRICES} re-prices: {numbers}; no order \
             was placed. Refund the consumer, or retry placement once the price is stable."
        );
        return Ok(stopped("price_changed_cap", purchase_id, message));
    }
    let generation = purchase.key_generation;
    let old_key = purchase.idempotency_key.clone();
    let new_key = IdempotencyKey::generate().as_str().to_string();
    let note = format!(
        "the supplier's cost changed from {} to {} (margin {}): ordering again at the new \
         cost under a new order key (old key {old_key}, new key {new_key})",
        purchase.cost_cents,
        Cents::new(new_cost),
        Cents::new(margin)
    );
    let status = purchase.status.as_str();
    // Due at once: the new key has never been sent.
    Ok(
        Verdict::retry("price_changed_repriced", note.clone(), 0).with_effects(move |c, now| {
            if purchases::reprice(c, &purchase_id, generation, new_cost, &new_key, now)? {
                purchases::add_event(c, &purchase_id, Some(status), status, &note, now)?;
            }
            Ok(())
        }),
    )
}

/// A refusal that waits for the owner: the job is sent again under the same key at `at`,
/// every other placement is held back until then too, new sales pause and owners get one
/// alert of `alert_kind`.
fn wait_for_owner(
    label: &'static str,
    error: &UpstreamError,
    purchase_id: PurchaseId,
    at: i64,
    (pause, alert_kind): (PauseReason, AlertKind),
    message: String,
) -> Verdict {
    Verdict::retry(label, error.to_string(), at).with_effects(move |c, now| {
        purchases::apply(c, &purchase_id, &PurchaseEvent::PlacementWaiting, "", now)?;
        wallet::pause_for(c, Some(pause))?;
        jobs::defer_kind(c, JobKind::PlaceOrder.as_str(), at, now)?;
        alerts::raise_alert(c, alert_kind, None, &message, now)?;
        Ok(())
    })
}

/// No order; the wallet cannot pay for it.
fn insufficient_balance(
    ob: &JobContext,
    purchase: &purchases::Purchase,
    error: &UpstreamError,
) -> Verdict {
    let wait = duration_ms(ob.config.insufficient_balance_wait);
    let at = crate::db::now_ms().saturating_add(wait);
    // The balance read shows the owner how short the wallet is.
    wait_for_owner(
        "insufficient_balance",
        error,
        purchase.id.clone(),
        at,
        (
            PauseReason::InsufficientBalance,
            AlertKind::InsufficientBalance,
        ),
        "The upstream wallet cannot pay for paid orders: top it up. New sales are paused; \
         waiting orders are retried automatically."
            .to_string(),
    )
    .refreshing_wallet()
}

/// The account cannot buy (expired or wrong key, a missing scope, a suspension): no order
/// exists and none of the shop's paid orders can be placed until the owner fixes it.
fn account_problem(
    ob: &JobContext,
    purchase: &purchases::Purchase,
    error: &UpstreamError,
) -> Verdict {
    let wait = duration_ms(ob.config.account_problem_wait);
    let at = crate::db::now_ms().saturating_add(wait);
    let message = format!(
        "The supplier refuses orders from this account ({}). Paid orders wait and are placed \
         under their own keys once it is fixed: renew the API key, grant the orders:write \
         scope or settle the account with the supplier, then use \"Retry waiting placements\" \
         on the dashboard (they are also tried every {} minutes). New sales are paused; \
         nothing is refunded.",
        describe(error),
        ob.config.account_problem_wait.as_secs() / 60
    );
    wait_for_owner(
        "account_problem",
        error,
        purchase.id.clone(),
        at,
        (PauseReason::AccountProblem, AlertKind::AccountProblem),
        message,
    )
}

/// Status and code, the way an owner recognises them.
fn describe(error: &UpstreamError) -> String {
    let status = error
        .status()
        .map_or_else(|| "no status".to_string(), |s| s.as_u16().to_string());
    match error.code() {
        Some(code) => format!("HTTP {status} {code}"),
        None => format!("HTTP {status}"),
    }
}

/// The request itself was refused: no order exists. The admin decides, or the consumer is
/// refunded at once when `AUTO_REFUND` is on.
fn rejected(ob: &JobContext, purchase: &purchases::Purchase, error: &UpstreamError) -> Verdict {
    let message = format!("upstream refused the order, none was placed: {error}");
    let unit = purchase.clone();
    let auto_refund = ob.config.auto_refund;
    Verdict::done("rejected", message.clone()).with_effects(move |c, now| {
        stop(c, &unit.id, &message, now)?;
        if auto_refund {
            refund_failed_delivery(c, &unit, &message, now)?;
        }
        Ok(())
    })
}
