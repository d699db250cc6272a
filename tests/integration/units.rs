//! Several eSIMs in one order: the units of one checkout share one payment. A verified
//! payment pays every unit and queues one placement per unit at once; the wrong amount pays
//! none; a refund the provider reports is written on every unit's timeline. Each unit is its
//! own upstream order: through upstream faults every unit is bought once, a unit upstream
//! fails is refunded its share of the payment once, and the others are delivered.

use std::time::{Duration, Instant};
use storefront::db::purchases::{self, Purchase};
use storefront::db::{Db, DbError};
use storefront::domain::job::JobKind;
use storefront::domain::purchase::PurchaseStatus;
use storefront::orders::confirm::{self, Applied};

use storefront::db::{outbox as jobs, refunds};
use storefront::domain::Cents;
use storefront::payments::{EventKind, PaymentError, PaymentEvent, PaymentProvider};
use storefront::sandbox::{Fault, Outcome};

use crate::both_backends;
use crate::fixtures::as_id;
use crate::helpers::{
    Backend, TestDb, checkout_of, checkout_of_plan, pay_on_demo_page, random_suffix,
};

both_backends!(
    one_payment_pays_every_unit_of_its_checkout_once,
    twenty_checkouts_of_three_through_upstream_faults,
    the_console_shows_every_unit_of_an_order_and_finds_each,
    the_owner_refunds_one_esim_of_an_order_and_the_others_go_on,
);

fn paid(event: &str, session: &str, amount: i64) -> PaymentEvent {
    PaymentEvent {
        id: event.into(),
        kind: EventKind::Paid {
            session_id: session.into(),
            purchase_id: None,
            amount: storefront::domain::Cents::new(amount),
            payment_reference: Some(format!("pi_{session}")),
            tax: Default::default(),
        },
    }
}

async fn deliver(db: &Db, event: PaymentEvent) -> Applied {
    db.run(move |conn| confirm::apply(conn, "demo", &event))
        .await
        .expect("the event applies")
}

async fn units(db: &Db, checkout: &str) -> Vec<(Purchase, Vec<String>, Vec<String>)> {
    let checkout = as_id(checkout);
    db.run(move |conn| {
        purchases::units_of(conn, &checkout)?
            .into_iter()
            .map(|unit| {
                let jobs = storefront::db::outbox::jobs_for_purchase(conn, &unit.id)?
                    .into_iter()
                    .map(|job| job.kind)
                    .collect();
                let notes = purchases::events(conn, &unit.id)?
                    .into_iter()
                    .map(|e| e.note)
                    .collect();
                Ok::<_, DbError>((unit, jobs, notes))
            })
            .collect()
    })
    .await
    .expect("the units")
}

async fn one_payment_pays_every_unit_of_its_checkout_once(backend: Backend) {
    let Some(test_db) = TestDb::new(backend) else {
        return;
    };
    let db = test_db.open();
    db.migrate().await.expect("migrations");
    checkout_of(&db, "family0000000000aaaa", 3, "cs_family").await;
    checkout_of(&db, "short00000000000aaaa", 2, "cs_short").await;

    // The total of the three, once: every unit paid, one placement each, one receipt.
    let applied = deliver(&db, paid("evt_1", "cs_family", 3 * 1299)).await;
    assert!(matches!(applied, Applied::Paid { .. }), "{applied:?}");
    assert_eq!(
        deliver(&db, paid("evt_1", "cs_family", 3 * 1299)).await,
        Applied::Duplicate
    );
    assert_eq!(
        deliver(&db, paid("evt_again", "cs_family", 3 * 1299)).await,
        Applied::Recorded,
        "a second payment event of the same session moves nothing"
    );
    let family = units(&db, "family0000000000aaaa").await;
    assert_eq!(family.len(), 3);
    let place = JobKind::PlaceOrder.as_str();
    for (index, (unit, jobs, _)) in family.iter().enumerate() {
        assert_eq!(unit.unit_index, i32::try_from(index + 1).expect("small"));
        assert_eq!(unit.status, PurchaseStatus::Paid, "unit {}", unit.id);
        assert!(unit.paid_at_ms.is_some());
        assert_eq!(unit.payment_reference.as_deref(), Some("pi_cs_family"));
        assert_eq!(
            jobs.iter().filter(|kind| kind.as_str() == place).count(),
            1,
            "one placement for unit {}",
            unit.id
        );
    }
    let receipts = family
        .iter()
        .flat_map(|(_, jobs, _)| jobs)
        .filter(|kind| kind.as_str() == JobKind::EmailPaymentReceived.as_str())
        .count();
    assert_eq!(receipts, 1, "one receipt for the order");

    // One unit's price for two units: nothing is paid, nothing is placed.
    let applied = deliver(&db, paid("evt_2", "cs_short", 1299)).await;
    assert_eq!(applied, Applied::Recorded);
    for (unit, jobs, _) in units(&db, "short00000000000aaaa").await {
        assert_ne!(unit.status, PurchaseStatus::Paid);
        assert!(jobs.is_empty(), "{jobs:?}");
    }

    // A refund made outside the shop is about the whole payment: every unit's timeline says so.
    let refund = PaymentEvent {
        id: "evt_3".into(),
        kind: EventKind::Refunded {
            payment_reference: "pi_cs_family".into(),
            amount: storefront::domain::Cents::new(1299),
        },
    };
    assert_eq!(deliver(&db, refund).await, Applied::Recorded);
    for (unit, _, notes) in units(&db, "family0000000000aaaa").await {
        assert!(
            notes
                .iter()
                .any(|n| n.contains("provider reports a refund")),
            "unit {}: {notes:?}",
            unit.id
        );
    }
}

/// Twenty checkouts of three eSIMs, paid one after the other while upstream misbehaves: orders
/// committed but answered 500 or cut off, bursts of 503 and 429, and some units whose upstream
/// order ends `failed` (checkout 9 loses two of its three).
async fn twenty_checkouts_of_three_through_upstream_faults(backend: Backend) {
    let Some(env) = crate::outbox::env(backend, |_| {}).await else {
        return;
    };
    let sandbox = &env.upstream.sandbox;
    sandbox.set_balance(1_000_000).expect("fund the wallet");
    let plans = env.cheap_plans();
    let run = random_suffix();
    let faults = [
        Fault::FailAfterCommit(3),
        Fault::DropAfterCommit(2),
        Fault::UnavailableBurst(4),
        Fault::RateLimitBurst {
            count: 2,
            retry_after_secs: 1,
        },
    ];
    let workers = env.workers(2);
    let mut checkouts = Vec::new();
    let mut failing = Vec::new();
    for k in 0..20usize {
        let (plan, cost) = plans[k % plans.len()].clone();
        let price = cost + 400;
        let checkout = format!("multi{k:02}{run}");
        let session = format!("demo_cs_{checkout}");
        let units = checkout_of_plan(&env.db, &checkout, 3, &session, (&plan, price, cost)).await;
        let doomed: Vec<usize> = match k {
            9 => vec![0, 2],
            k if k % 3 == 0 => vec![(k / 3) % 3],
            _ => Vec::new(),
        };
        for &unit in &doomed {
            sandbox.set_reference_outcome(&format!("sf-{}", units[unit]), Outcome::Failed);
            failing.push(units[unit].clone());
        }
        if k % 5 == 0 {
            sandbox.inject(faults[(k / 5) % faults.len()]);
        }
        let applied =
            pay_on_demo_page(&env.db, &env.payments, &checkout, &session, 3 * price).await;
        assert!(
            matches!(applied, Applied::Paid { .. }),
            "{checkout}: {applied:?}"
        );
        env.outbox.waker().wake();
        checkouts.push((checkout, units, price));
    }
    let all: Vec<String> = checkouts
        .iter()
        .flat_map(|(_, units, _)| units.clone())
        .collect();
    let started = Instant::now();
    loop {
        let ids = all.clone();
        let (settled, busy) = env
            .q(move |c| {
                let (mut settled, mut busy) = (0, 0);
                // Emails wait a minute at a time here (no mail transport): not work to wait for.
                let soon = storefront::db::now_ms() + 1_000;
                for id in &ids {
                    let unit = purchases::find(c, &as_id(id))?.expect("the unit");
                    if matches!(
                        unit.status,
                        PurchaseStatus::Fulfilled | PurchaseStatus::Refunded
                    ) {
                        settled += 1;
                    }
                    busy += jobs::jobs_for_purchase(c, &unit.id)?
                        .iter()
                        .filter(|j| {
                            j.state == jobs::RUNNING
                                || (j.state == jobs::QUEUED && j.run_at_ms < soon)
                        })
                        .count();
                }
                Ok::<_, DbError>((settled, busy))
            })
            .await;
        if settled == all.len() && busy == 0 {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "{settled} of {} units settled; {busy} jobs busy",
            all.len()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    workers.stop().await;

    // Sixty upstream orders, one per unit: no unit bought twice, none left out.
    let stats = sandbox.stats();
    assert!(
        stats.duplicate_purchases.is_empty(),
        "bought twice: {:?}",
        stats.duplicate_purchases
    );
    assert_eq!(stats.orders, 60, "one upstream order per unit");
    assert!(stats.ledger_invariant_holds, "{stats:?}");
    let orders = sandbox.orders();
    for (checkout, units, price) in &checkouts {
        let mut refunded = 0;
        for id in units {
            let unit = env.purchase(id).await;
            let placed: Vec<_> = orders
                .iter()
                .filter(|o| o.reference == unit.reference)
                .collect();
            assert_eq!(placed.len(), 1, "{id}: {placed:?}");
            let pid = id.clone();
            let refund = env.q(move |c| refunds::refund_for(c, &as_id(&pid))).await;
            let refund_jobs = env
                .jobs(id)
                .await
                .into_iter()
                .filter(|j| j.kind == JobKind::Refund.as_str())
                .count();
            if failing.contains(id) {
                assert_eq!(unit.status, PurchaseStatus::Refunded, "{id}");
                let refund = refund.unwrap_or_else(|| panic!("{id} has no refund"));
                assert_eq!(refund.amount_cents, *price, "{id}: its share, no more");
                assert_eq!(refund.status, "succeeded", "{id}");
                assert_eq!(refund.cause, "delivery_failed", "{id}");
                assert!(refund.reason.contains("failed"), "{id}: {}", refund.reason);
                assert_eq!(refund_jobs, 1, "{id}: refunded once");
                let pid = id.clone();
                let notes: Vec<String> = env
                    .q(move |c| purchases::events(c, &as_id(&pid)))
                    .await
                    .into_iter()
                    .map(|e| e.note)
                    .collect();
                assert!(
                    notes.iter().any(|n| n.contains("this eSIM's share")),
                    "{id}: {notes:#?}"
                );
                refunded += price;
            } else {
                assert_eq!(unit.status, PurchaseStatus::Fulfilled, "{id}");
                assert_eq!(placed[0].status, "fulfilled", "{id}");
                assert!(unit.esim_id.is_some(), "{id} delivered without an eSIM");
                assert!(refund.is_none(), "{id} refunded: {refund:?}");
                assert_eq!(refund_jobs, 0, "{id}");
            }
        }
        // The payment provider holds the same account: with a share refunded, giving back the
        // whole payment again is refused; what is left of it is not.
        let payment = format!("demo_pay_demo_cs_{checkout}");
        if refunded > 0 {
            let whole = env
                .payments
                .refund(
                    &payment,
                    Cents::new(3 * price),
                    &format!("whole-{checkout}"),
                )
                .await;
            assert!(
                matches!(whole, Err(PaymentError::Refused(_))),
                "{checkout}: {whole:?}"
            );
            env.payments
                .refund(
                    &payment,
                    Cents::new(3 * price - refunded),
                    &format!("rest-{checkout}"),
                )
                .await
                .expect("the rest of the payment can still be refunded");
        }
    }

    // The books count units: 60 sold in 20 checkouts, the failed units' shares refunded,
    // and the supplier paid for the delivered units only.
    let paid_total: i64 = checkouts.iter().map(|(_, _, price)| 3 * price).sum();
    let mut refunded_total = 0;
    let mut cost_total = 0;
    for (_, units, price) in &checkouts {
        for id in units {
            if failing.contains(id) {
                refunded_total += price;
            } else {
                cost_total += price - 400;
            }
        }
    }
    let first = env.purchase(&checkouts[0].1[0]).await;
    let paid_at = first.paid_at_ms.expect("paid");
    let (day, (started, paid)) = env
        .q(move |c| {
            let day_ms = storefront::domain::takings::utc_day_start(paid_at);
            Ok::<_, DbError>((
                storefront::db::daily_sales::recount(c, day_ms)?,
                storefront::db::dashboard::checkouts(
                    c,
                    day_ms,
                    day_ms + storefront::domain::takings::DAY_MS,
                )?,
            ))
        })
        .await;
    assert_eq!(day.orders, 60, "eSIMs sold");
    assert_eq!(day.takings.paid, Cents::new(paid_total));
    assert_eq!(day.takings.refunded, Cents::new(refunded_total));
    assert_eq!(day.takings.supplier_cost, Cents::new(cost_total));
    assert_eq!(
        (started, paid),
        (20, 20),
        "conversion counts checkouts, not their eSIMs"
    );

    // The provider reports the shop's own refund of a share: it goes on the timelines and
    // refunds nothing again.
    let (checkout, units, price) = &checkouts[0];
    let before = env.q(refunds_count).await;
    let event = PaymentEvent {
        id: format!("evt_share_{checkout}"),
        kind: EventKind::Refunded {
            payment_reference: format!("demo_pay_demo_cs_{checkout}"),
            amount: Cents::new(*price),
        },
    };
    assert_eq!(deliver(&env.db, event).await, Applied::Recorded);
    assert_eq!(env.q(refunds_count).await, before);
    assert!(
        env.alerts()
            .await
            .iter()
            .all(|a| a.kind != storefront::domain::AlertKind::PaymentRefunded.as_str()),
        "{:?}",
        env.alerts().await
    );
    for id in units {
        let pid = id.clone();
        let notes: Vec<String> = env
            .q(move |c| purchases::events(c, &as_id(&pid)))
            .await
            .into_iter()
            .map(|e| e.note)
            .collect();
        if failing.contains(id) {
            assert!(
                notes.iter().any(|n| n.contains("the shop's own refund")),
                "{id}: {notes:#?}"
            );
        }
    }
}

fn refunds_count(c: &mut storefront::db::DbConn) -> Result<i64, DbError> {
    use diesel::prelude::*;
    Ok(storefront::db::schema::refunds::table
        .count()
        .get_result(c)?)
}

/// The console's page of one eSIM of several names the order by the buyer's number, lists the
/// checkout's other eSIMs with their states and links to each; the order search finds each
/// unit by its supplier order id or its reference, and all of them by the order number.
async fn the_console_shows_every_unit_of_an_order_and_finds_each(backend: Backend) {
    use crate::admin::{OWNER, create, login_as};
    use storefront::staff::Role;

    let Some(app) = crate::helpers::spawn_app(backend).await else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    let checkout = "family0000000000cccc";
    checkout_of(&app.db, checkout, 3, "cs_console").await;
    let second = format!("{checkout}-2");
    let third = format!("{checkout}-3");
    // The units as the outbox could leave them: delivered, ordered upstream, failed upstream.
    let states = [
        (checkout.to_string(), "fulfilled", Some("ord_first")),
        (second.clone(), "ordered", Some("ord_second")),
        (third.clone(), "failed", None),
    ];
    app.db
        .run(move |c| {
            use diesel::prelude::*;
            use storefront::db::schema::purchases as p;
            let now = storefront::db::now_ms();
            for (id, status, order) in &states {
                diesel::update(p::table.find(id))
                    .set((
                        p::status.eq(*status),
                        p::upstream_order_id.eq(*order),
                        p::paid_at_ms.eq(Some(now)),
                    ))
                    .execute(c)?;
            }
            Ok::<_, DbError>(())
        })
        .await
        .expect("the units' states");
    let number = storefront::domain::purchase::order_number(checkout);
    let owner = login_as(&app, OWNER).await;

    let page = owner
        .get(&app, &format!("/admin/orders/{second}"))
        .await
        .assert_status(200)
        .body;
    assert!(
        page.contains(&format!("<h1>Order {number} · eSIM 2 of 3</h1>")),
        "{page}"
    );
    assert!(page.contains(r#"<span aria-current="page">eSIM 2 of 3 (this page)</span>"#));
    for (id, status, label) in [
        (checkout, "fulfilled", "eSIM 1 of 3"),
        (third.as_str(), "failed", "eSIM 3 of 3"),
    ] {
        assert!(
            page.contains(&format!(
                r#"<tr data-unit="{id}" data-unit-status="{status}"><td data-label="eSIM"><a href="/admin/orders/{id}">{label}</a>"#
            )),
            "{id} is listed as {status} with its link: {page}"
        );
    }
    assert!(page.contains("<code>ord_first</code>"));

    for (query, unit) in [
        ("ord_second", second.as_str()),
        ("ord_first", checkout),
        (&format!("sf-{third}") as &str, third.as_str()),
    ] {
        let list = owner
            .get(&app, &format!("/admin/orders?q={query}"))
            .await
            .assert_status(200)
            .body;
        assert!(
            list.contains(&format!(r#"href="/admin/orders/{unit}""#)),
            "{query} finds {unit}: {list}"
        );
        assert!(list.contains(&number), "{query}: named by the order number");
    }
    let list = owner
        .get(&app, &format!("/admin/orders?q={number}"))
        .await
        .assert_status(200)
        .body;
    for unit in [checkout, second.as_str(), third.as_str()] {
        assert!(
            list.contains(&format!(r#"href="/admin/orders/{unit}""#)),
            "the order number finds {unit}"
        );
    }
}

/// The owner's refunds act on one eSIM of three: a refund before placement cancels that
/// eSIM's placement only and gives back its price; "refund and keep the cost" on a delivered
/// eSIM gives back its price and books its cost as a loss; the third is delivered untouched.
async fn the_owner_refunds_one_esim_of_an_order_and_the_others_go_on(backend: Backend) {
    use storefront::orders::actions;

    let Some(env) = crate::outbox::env(backend, |_| {}).await else {
        return;
    };
    let (plan, cost) = env.plan(0);
    let price = cost + 400;
    let checkout = format!("owner{}", random_suffix());
    let session = format!("demo_cs_{checkout}");
    let units = checkout_of_plan(&env.db, &checkout, 3, &session, (&plan, price, cost)).await;
    pay_on_demo_page(&env.db, &env.payments, &checkout, &session, 3 * price).await;
    let refund = |id: &str, keep_cost: bool| {
        let id = id.to_string();
        env.q(move |c| {
            c.write_tx(|c| {
                actions::refund(c, &as_id(&id), "the traveller stays home", keep_cost, 0)
                    .map_err(|e| DbError::Task(e.to_string()))
            })
        })
    };

    // Before any worker ran: the second eSIM's placement is cancelled with its refund.
    let asked = refund(&units[1], false).await;
    assert!(asked.placement_cancelled, "{asked:?}");
    assert_eq!(
        asked.amount,
        Cents::new(price),
        "its price, not the order's"
    );
    let workers = env.workers(2);
    let within = Duration::from_secs(30);
    env.wait_status(&units[1], PurchaseStatus::Refunded, within)
        .await;
    env.wait_status(&units[0], PurchaseStatus::Fulfilled, within)
        .await;
    env.wait_status(&units[2], PurchaseStatus::Fulfilled, within)
        .await;
    let kept = refund(&units[2], true).await;
    assert!(kept.keeps_cost && !kept.placement_cancelled, "{kept:?}");
    env.wait_status(&units[2], PurchaseStatus::Refunded, within)
        .await;
    workers.stop().await;

    let orders = env.upstream.sandbox.orders();
    let placed = |id: &str| {
        let reference = format!("sf-{id}");
        orders.iter().filter(|o| o.reference == reference).count()
    };
    assert_eq!(
        (placed(&units[0]), placed(&units[1]), placed(&units[2])),
        (1, 0, 1),
        "the refunded eSIM was never ordered; the others once each"
    );
    assert_eq!(
        env.purchase(&units[0]).await.status,
        PurchaseStatus::Fulfilled
    );
    for (id, keeps_cost) in [(&units[1], false), (&units[2], true)] {
        let pid = id.clone();
        let row = env
            .q(move |c| refunds::refund_for(c, &as_id(&pid)))
            .await
            .unwrap_or_else(|| panic!("{id} has a refund"));
        assert_eq!(
            (row.amount_cents, row.status.as_str(), row.keeps_cost),
            (price, "succeeded", keeps_cost),
            "{id}"
        );
    }
    // Two shares of the payment are back: the provider takes no refund of the whole again.
    let whole = env
        .payments
        .refund(
            &format!("demo_pay_{session}"),
            Cents::new(2 * price),
            "the-rest-twice",
        )
        .await;
    assert!(matches!(whole, Err(PaymentError::Refused(_))), "{whole:?}");
    // The day: three sold, two refunded, the supplier paid for the delivered and the kept one.
    let paid_at = env.purchase(&units[0]).await.paid_at_ms.expect("paid");
    let day = env
        .q(move |c| {
            storefront::db::daily_sales::recount(
                c,
                storefront::domain::takings::utc_day_start(paid_at),
            )
        })
        .await;
    assert_eq!(day.orders, 3);
    assert_eq!(day.takings.paid, Cents::new(3 * price));
    assert_eq!(day.takings.refunded, Cents::new(2 * price));
    assert_eq!(day.takings.supplier_cost, Cents::new(2 * cost));
}
