//! Every paid order reaches an honest end on a bad day: upstream refusals that wait (an account
//! problem), outcomes that stay unknown through an outage, key reuse, the re-price cap, and
//! the owner's refund before placement. Outbox-level stories against the sandbox, on both
//! backends; the console's side is in `lifecycle_console.rs`.

use std::time::Duration;

use diesel::prelude::*;
use storefront::db::schema::{purchases as purchases_t, refunds as refunds_t};
use storefront::db::{DbError, now_ms, refunds};
use storefront::domain::purchase::{PurchaseEvent, PurchaseStatus};
use storefront::orders::actions;
use storefront::orders::outbox::JobKind;
use storefront::sandbox::{Fault, OrderRefusal};

use crate::both_backends;
use crate::fixtures::as_id;
use crate::helpers::Backend;
use crate::outbox::{Env, WITHIN, env};

both_backends!(
    an_expired_key_holds_every_paid_order_until_it_is_fixed,
    a_long_outage_is_reconciled_by_reference_and_never_refunded,
    an_order_created_behind_errors_is_adopted_not_bought_again,
    an_order_the_copy_holds_is_adopted_while_upstream_cannot_list,
    idempotency_key_reuse_is_reconciled_not_refunded,
    repricing_stops_after_three_new_keys_with_the_numbers,
    a_refund_before_placement_cancels_it_in_the_same_transaction,
    a_refund_is_refused_while_the_outcome_is_unknown,
);

async fn refund_rows(env: &Env) -> i64 {
    env.q(|c| Ok(refunds_t::table.count().get_result(c)?)).await
}

/// The idempotency keys of `ids`, in id order.
async fn keys_of(env: &Env, ids: &[String]) -> Vec<String> {
    let ids = ids.to_vec();
    env.q(move |c| {
        Ok(purchases_t::table
            .filter(purchases_t::id.eq_any(ids))
            .select(purchases_t::idempotency_key)
            .order(purchases_t::id)
            .load(c)?)
    })
    .await
}

/// Paid purchases of distinct cheap plans.
async fn paid(env: &Env, n: usize) -> Vec<String> {
    let mut ids = Vec::new();
    for i in 0..n {
        let (plan, cost) = env.plan(i);
        ids.push(env.paid_purchase(&plan, cost, cost + 500).await);
    }
    ids
}

async fn an_expired_key_holds_every_paid_order_until_it_is_fixed(backend: Backend) {
    let Some(env) = env(backend, |c| {
        c.auto_refund = true;
        c.account_problem_wait = Duration::from_secs(3600);
    })
    .await
    else {
        return;
    };
    env.upstream
        .sandbox
        .inject(Fault::RefuseOrders(Some(OrderRefusal::KeyExpired)));
    let ids = paid(&env, 3).await;
    env.outbox.run_due_once().await.expect("runs");
    for id in &ids {
        let purchase = env.purchase(id).await;
        assert_eq!(purchase.status, PurchaseStatus::Paid, "not ended: {id}");
        let place = env.job(id, JobKind::PlaceOrder).await;
        assert_eq!(place.state, "queued", "waits under its key");
        assert!(
            place.run_at_ms > now_ms() + 1_800_000,
            "held back, not hammered"
        );
    }
    assert_eq!(
        refund_rows(&env).await,
        0,
        "nothing refunded, even with AUTO_REFUND"
    );
    let alerts = env.alerts().await;
    let account: Vec<_> = alerts
        .iter()
        .filter(|a| a.kind == "account_problem")
        .collect();
    assert_eq!(account.len(), 1, "one alert for the owner: {alerts:?}");
    assert!(account[0].message.contains("401"), "{}", account[0].message);
    assert!(account[0].purchase_id.is_none());
    let keys = keys_of(&env, &ids).await;
    let paused = env.q(storefront::db::wallet::get).await;
    assert!(paused.is_some_and(|w| w.sales_paused), "new sales pause");

    // The owner renews the key and retries the waiting placements.
    env.upstream.sandbox.inject(Fault::RefuseOrders(None));
    let retried = env
        .q(|c| {
            c.write_tx(|c| {
                actions::retry_waiting_placements(c, now_ms())
                    .map_err(|e| DbError::Task(e.to_string()))
            })
        })
        .await;
    assert_eq!(retried, 3);
    let workers = env.workers(2);
    for id in &ids {
        env.wait_status(id, PurchaseStatus::Fulfilled, WITHIN).await;
    }
    workers.stop().await;
    env.assert_one_order_per_reference(3);
    assert_eq!(
        keys,
        keys_of(&env, &ids).await,
        "placed under the same keys"
    );
    assert!(
        !env.alerts()
            .await
            .iter()
            .any(|a| a.kind == "account_problem"),
        "the alert ends when an order is accepted again"
    );
    let wallet = env.q(storefront::db::wallet::get).await;
    assert!(wallet.is_some_and(|w| !w.sales_paused), "sales resume");
}

async fn a_long_outage_is_reconciled_by_reference_and_never_refunded(backend: Backend) {
    let Some(env) = env(backend, |c| {
        c.max_unknown_attempts = 3;
        c.auto_refund = true;
        c.reconcile_wait = Duration::from_secs(3600);
    })
    .await
    else {
        return;
    };
    env.upstream.sandbox.inject(Fault::UnavailableBurst(10_000));
    let id = paid(&env, 1).await.remove(0);
    env.outbox
        .drain(Duration::from_secs(5))
        .await
        .expect("drains");
    let purchase = env.purchase(&id).await;
    assert_eq!(
        purchase.status,
        PurchaseStatus::Paid,
        "still waiting, not ended"
    );
    let place = env.job(&id, JobKind::PlaceOrder).await;
    assert_eq!(place.state, "queued", "never dead: {place:?}");
    let outcomes: Vec<String> = env.outcomes(place.id).await;
    assert_eq!(outcomes, ["unknown", "unknown", "reconcile_failed"]);
    assert_eq!(refund_rows(&env).await, 0);
    let alert = env.alert_for(&id).await.expect("the owner sees it");
    assert_eq!(alert.kind, "placement_unknown");
    assert!(
        alert.message.contains(&purchase.reference),
        "{}",
        alert.message
    );
    let attention = env
        .q(|c| storefront::db::dashboard::needing_attention(c, 10))
        .await;
    assert!(
        attention.iter().any(|p| p.id == id),
        "listed as needing attention"
    );

    // The outage ends: placement goes on under the same key (a replay would return the order
    // had the outage hidden one).
    env.upstream.sandbox.clear_faults();
    let key = purchase.idempotency_key.clone();
    let pid = id.clone();
    env.q(move |c| storefront::db::outbox::make_due_now(c, &as_id(&pid), now_ms()))
        .await;
    let workers = env.workers(1);
    let done = env
        .wait_status(&id, PurchaseStatus::Fulfilled, WITHIN)
        .await;
    workers.stop().await;
    assert_eq!(done.idempotency_key, key);
    env.assert_one_order_per_reference(1);
    assert!(
        !env.alerts()
            .await
            .iter()
            .any(|a| a.kind == "placement_unknown"),
        "resolved once settled"
    );
}

async fn an_order_created_behind_errors_is_adopted_not_bought_again(backend: Backend) {
    let Some(env) = env(backend, |c| c.max_unknown_attempts = 2).await else {
        return;
    };
    // Every POST /orders commits the order and then answers 500: only the order list can
    // tell that it exists.
    env.upstream.sandbox.inject(Fault::FailAfterCommit(10_000));
    let id = paid(&env, 1).await.remove(0);
    let workers = env.workers(1);
    let purchase = env
        .wait_status(&id, PurchaseStatus::Fulfilled, WITHIN)
        .await;
    workers.stop().await;
    env.assert_one_order_per_reference(1);
    let place = env.job(&id, JobKind::PlaceOrder).await;
    assert_eq!(place.outcome.as_deref(), Some("reconciled_found"));
    let order = env
        .upstream
        .sandbox
        .order(purchase.upstream_order_id.as_deref().expect("adopted"))
        .expect("the upstream order");
    assert_eq!(order.reference, purchase.reference);
}

/// The first attempt makes the order upstream but its answer is lost; then upstream goes down,
/// order list included. The shop's copy of the supplier's history, refreshed in between, holds
/// the order, so the look-up by reference adopts it from the copy: no refund, no second
/// order, no wait for the outage to end.
async fn an_order_the_copy_holds_is_adopted_while_upstream_cannot_list(backend: Backend) {
    use storefront::books::history::{self, Pass};
    // Retries wait a minute, so the one after the lost answer cannot come due (and find the
    // order upstream) while `run_due_once` is still running on a slow machine: the test
    // makes it due when the upstream is down.
    let Some(env) = env(backend, |c| {
        c.max_unknown_attempts = 2;
        c.retry.base = Duration::from_secs(60);
        c.retry.cap = Duration::from_secs(60);
    })
    .await
    else {
        return;
    };
    env.upstream.sandbox.inject(Fault::FailAfterCommit(10_000));
    let id = paid(&env, 1).await.remove(0);
    env.outbox.run_due_once().await.expect("runs");
    let place = env.job(&id, JobKind::PlaceOrder).await;
    assert_eq!(env.outcomes(place.id).await, ["unknown"]);

    env.upstream.sandbox.clear_faults();
    history::refresh(&env.db, &env.client, Pass::Incremental)
        .await
        .expect("the copy is refreshed");
    env.upstream.sandbox.inject(Fault::UnavailableBurst(10_000));
    let pid = id.clone();
    env.q(move |c| storefront::db::outbox::make_due_now(c, &as_id(&pid), now_ms()))
        .await;
    env.outbox.run_due_once().await.expect("runs");

    assert_eq!(
        env.outcomes(place.id).await,
        ["unknown", "reconciled_found"]
    );
    let purchase = env.purchase(&id).await;
    let order = env
        .upstream
        .sandbox
        .order(purchase.upstream_order_id.as_deref().expect("adopted"))
        .expect("the upstream order");
    assert_eq!(order.reference, purchase.reference);
    env.assert_one_order_per_reference(1);
    assert_eq!(refund_rows(&env).await, 0);
}

async fn idempotency_key_reuse_is_reconciled_not_refunded(backend: Backend) {
    // Retries wait a minute and the test makes each one due itself: with the fast test
    // backoff a slow machine ran the retries inside one `run_due_once` until the lookups gave
    // up.
    let Some(env) = env(backend, |c| {
        c.auto_refund = true;
        c.retry.base = Duration::from_secs(60);
        c.retry.cap = Duration::from_secs(60);
    })
    .await
    else {
        return;
    };
    env.upstream
        .sandbox
        .inject(Fault::RefuseOrders(Some(OrderRefusal::KeyReused)));
    let id = paid(&env, 1).await.remove(0);
    env.outbox.run_due_once().await.expect("runs");
    let place = env.job(&id, JobKind::PlaceOrder).await;
    let outcomes: Vec<String> = env.outcomes(place.id).await;
    assert!(
        !outcomes.is_empty() && outcomes.iter().all(|o| o == "reconciled_absent"),
        "looked up, not refused: {outcomes:?}"
    );
    assert_eq!(refund_rows(&env).await, 0);
    env.upstream.sandbox.clear_faults();
    let pid = id.clone();
    env.q(move |c| storefront::db::outbox::make_due_now(c, &as_id(&pid), now_ms()))
        .await;
    let workers = env.workers(1);
    env.wait_status(&id, PurchaseStatus::Fulfilled, WITHIN)
        .await;
    workers.stop().await;
    env.assert_one_order_per_reference(1);

    // Upstream that keeps claiming reuse while listing nothing: a person decides, with no
    // refund (an order may exist).
    env.upstream
        .sandbox
        .inject(Fault::RefuseOrders(Some(OrderRefusal::KeyReused)));
    let (plan, cost) = env.plan(1);
    let stuck = env.paid_purchase(&plan, cost, cost + 500).await;
    // Each lookup made due in turn, as many as it takes to give up (and a few more, which
    // would show a lookup that never gives up).
    let mut purchase = env.purchase(&stuck).await;
    for _ in 0..10 {
        let pid = stuck.clone();
        env.q(move |c| storefront::db::outbox::make_due_now(c, &as_id(&pid), now_ms()))
            .await;
        env.outbox.run_due_once().await.expect("runs");
        purchase = env.purchase(&stuck).await;
        if purchase.status == PurchaseStatus::NeedsAttention {
            break;
        }
    }
    assert_eq!(purchase.status, PurchaseStatus::NeedsAttention);
    assert!(purchase.upstream_order_id.is_none());
    assert_eq!(
        env.job(&stuck, JobKind::PlaceOrder)
            .await
            .outcome
            .as_deref(),
        Some("key_reused_unresolved")
    );
    assert_eq!(refund_rows(&env).await, 0, "never refunded on key reuse");
}

async fn repricing_stops_after_three_new_keys_with_the_numbers(backend: Backend) {
    let Some(env) = env(backend, |_| {}).await else {
        return;
    };
    let (plan, cost) = env.plan(0);
    let id = env.paid_purchase(&plan, cost, cost + 5_000).await;
    // Three re-prices already happened; the price moves once more.
    let pid = id.clone();
    env.q(move |c| {
        diesel::update(purchases_t::table.find(&pid))
            .set(purchases_t::key_generation.eq(3))
            .execute(c)?;
        Ok(())
    })
    .await;
    env.upstream
        .sandbox
        .set_plan_price(&plan, cost + 1)
        .expect("price");
    env.outbox.run_due_once().await.expect("runs");
    let purchase = env.purchase(&id).await;
    assert_eq!(purchase.status, PurchaseStatus::NeedsAttention);
    assert_eq!(purchase.key_generation, 3, "no fourth key");
    let place = env.job(&id, JobKind::PlaceOrder).await;
    assert_eq!(place.outcome.as_deref(), Some("price_changed_cap"));
    let alert = env.alert_for(&id).await.expect("alerted");
    for figure in [
        storefront::domain::Cents::new(cost + 5_000).to_string(),
        storefront::domain::Cents::new(cost).to_string(),
        storefront::domain::Cents::new(cost + 1).to_string(),
        storefront::domain::Cents::new(4_999).to_string(),
    ] {
        assert!(
            alert.message.contains(&figure),
            "{figure} in {}",
            alert.message
        );
    }
    env.assert_one_order_per_reference(0);
}

async fn a_refund_before_placement_cancels_it_in_the_same_transaction(backend: Backend) {
    let Some(env) = env(backend, |_| {}).await else {
        return;
    };
    // The wallet is empty: the placement waits on insufficient_balance.
    env.upstream.sandbox.set_balance(0).expect("balance");
    let id = paid(&env, 1).await.remove(0);
    env.outbox.run_due_once().await.expect("runs");
    assert_eq!(env.job(&id, JobKind::PlaceOrder).await.state, "queued");

    let pid = id.clone();
    let requested = env
        .q(move |c| {
            c.write_tx(|c| {
                actions::refund(c, &as_id(&pid), "customer changed plans", false, now_ms())
                    .map_err(|e| DbError::Task(e.to_string()))
            })
        })
        .await;
    assert!(requested.placement_cancelled);
    let place = env.job(&id, JobKind::PlaceOrder).await;
    assert_eq!(place.state, "done");
    assert_eq!(place.outcome.as_deref(), Some("cancelled_refund"));

    // The refund goes through; the owner tops up and retries: nothing is placed for this
    // purchase.
    env.outbox
        .drain(Duration::from_secs(5))
        .await
        .expect("drains");
    env.upstream.sandbox.set_balance(50_000).expect("balance");
    let pid = id.clone();
    let retry = env
        .q(move |c| {
            c.write_tx(|c| {
                Ok::<_, DbError>(
                    actions::retry(c, &as_id(&pid), "after top-up", now_ms())
                        .map_err(|e| e.to_string()),
                )
            })
        })
        .await;
    // Retry only nudges what is still open (the refund email); it never re-drives placement.
    assert!(
        !matches!(retry, Ok(actions::Retried::Redriven)),
        "no placement after a refund: {retry:?}"
    );
    let pid = id.clone();
    let redrive = env
        .q(move |c| {
            let purchase = storefront::db::purchases::find(c, &as_id(&pid))?.expect("purchase");
            let facts = actions::placement_facts(c, &purchase)?;
            Ok(purchase.status.on(&PurchaseEvent::AdminRedrive { facts }))
        })
        .await;
    let refused = redrive.expect_err("the table refuses a re-drive");
    assert!(refused.reason.contains("refund"), "{refused}");
    env.outbox
        .drain(Duration::from_secs(2))
        .await
        .expect("drains");
    let purchase = env.purchase(&id).await;
    assert_eq!(purchase.status, PurchaseStatus::Refunded);
    assert!(purchase.upstream_order_id.is_none());
    env.assert_one_order_per_reference(0);
    let pid = id.clone();
    let refund = env
        .q(move |c| refunds::refund_for(c, &as_id(&pid)))
        .await
        .expect("one refund");
    assert_eq!(refund.status, "succeeded");
    assert_eq!(refund.cause, "on_request");
    assert!(!refund.keeps_cost);
    assert_eq!(refund_rows(&env).await, 1);
}

async fn a_refund_is_refused_while_the_outcome_is_unknown(backend: Backend) {
    // The retry after the unknown outcome waits a minute, so it cannot come due (and settle the
    // outcome) while `run_due_once` is still running the other jobs on a slow machine.
    let Some(env) = env(backend, |config| {
        config.retry.base = Duration::from_secs(60);
        config.retry.cap = Duration::from_secs(60);
    })
    .await
    else {
        return;
    };
    env.upstream.sandbox.inject(Fault::UnavailableBurst(1));
    let id = paid(&env, 1).await.remove(0);
    env.outbox.run_due_once().await.expect("runs");
    let pid = id.clone();
    let refused = env
        .q(move |c| {
            c.write_tx(|c| {
                Ok::<_, DbError>(
                    actions::refund(c, &as_id(&pid), "customer asked", false, now_ms())
                        .map_err(|e| e.to_string()),
                )
            })
        })
        .await
        .expect_err("the supplier may hold an order");
    assert!(refused.contains("unknown outcome"), "{refused}");
    assert_eq!(refund_rows(&env).await, 0);
    assert_eq!(env.job(&id, JobKind::PlaceOrder).await.state, "queued");
    // Once settled by upstream, the order goes ahead as usual.
    let pid = id.clone();
    env.q(move |c| storefront::db::outbox::make_due_now(c, &as_id(&pid), now_ms()))
        .await;
    let workers = env.workers(1);
    env.wait_status(&id, PurchaseStatus::Fulfilled, WITHIN)
        .await;
    workers.stop().await;
    env.assert_one_order_per_reference(1);
}
