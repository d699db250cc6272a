//! Several eSIMs in one order: the units of one checkout share one payment. A verified
//! payment pays every unit and queues one placement per unit at once; the wrong amount pays
//! none; a refund the provider reports is written on every unit's timeline.

use storefront::db::purchases::{self, Purchase};
use storefront::db::{Db, DbError};
use storefront::domain::job::JobKind;
use storefront::domain::purchase::PurchaseStatus;
use storefront::orders::confirm::{self, Applied};
use storefront::payments::{EventKind, PaymentEvent};

use crate::both_backends;
use crate::fixtures::{self, as_id};
use crate::helpers::{Backend, TestDb};

both_backends!(one_payment_pays_every_unit_of_its_checkout_once,);

/// Units `{checkout}`, `{checkout}-2`, … of one checkout, awaiting payment at 1299 each,
/// with `session` recorded on the first.
async fn checkout_of(db: &Db, checkout: &str, units: i32, session: &str) {
    let (checkout, session) = (checkout.to_string(), session.to_string());
    db.run(move |conn| {
        conn.write_tx(|conn| {
            for index in 1..=units {
                let id = if index == 1 {
                    checkout.clone()
                } else {
                    format!("{checkout}-{index}")
                };
                let mut row = fixtures::purchase(&id)
                    .price(1299)
                    .cost(1000)
                    .reference(format!("sf-{id}"))
                    .idempotency_key(format!("key-{id}-0000"))
                    .build();
                row.checkout_id = as_id(&checkout);
                row.unit_index = index;
                purchases::insert(conn, &row, "checkout started")?;
            }
            purchases::set_payment_session(conn, &as_id(&checkout), &session)
        })
    })
    .await
    .expect("the checkout's units");
}

fn paid(event: &str, session: &str, amount: i64) -> PaymentEvent {
    PaymentEvent {
        id: event.into(),
        kind: EventKind::Paid {
            session_id: session.into(),
            purchase_id: None,
            amount: storefront::domain::Cents::new(amount),
            payment_reference: Some(format!("pi_{session}")),
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
