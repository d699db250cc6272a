//! The books' stored days answer exactly as reconciling the period again. Sales, their
//! supplier orders and transactions are spread over five days (one sale's settlement a day
//! after its order, an order placed by hand with no purchase); then the stored summary of the
//! five days and of each day, and the reconciliation CSV made a day at a time, are compared
//! with the whole period reconciled from the copy, and again after each kind of write that
//! changes what the books read: a refund transaction for an old order, a supplier status, a
//! new supplier order, a transaction whose time cannot be read, a top-up and its credit, 150
//! orders nobody bought (the console lists the first 100 differences and counts them all), and
//! the owner's note. Before each write the days are stored and current, so an answer equal to
//! the period's after it shows the write marked the right days.

use diesel::prelude::*;
use std::time::Duration;

use storefront::books::days::{self, Counting, DayFill, NEWEST_LINES, Read};
use storefront::books::history::{self, Pass};
use storefront::books::reconcile::NOTABLE_SHOWN;
use storefront::books::{Books, Period, csv};
use storefront::config::Secret;
use storefront::db::schema::{
    admin_users, book_days, purchases, supplier_orders, supplier_transactions,
};
use storefront::db::supplier_history::{
    OrderRow, TransactionRow, insert_new_transactions, upsert_orders,
};
use storefront::db::{DbConn, DbError, book_explanations, topups};
use storefront::domain::PurchaseId;
use storefront::staff::Role;
use storefront::upstream::{PartnerClient, UpstreamClientConfig};

use crate::both_backends;
use crate::helpers::{Backend, TestApp, random_suffix};
use crate::journeys::buy_and_wait_fulfilled;

both_backends!(stored_days_answer_as_the_period_reconciled_whatever_changes);

const DAY_MS: i64 = 86_400_000;

/// `ms` as upstream writes times.
pub(crate) fn rfc3339(ms: i64) -> String {
    time::OffsetDateTime::from_unix_timestamp(ms.div_euclid(1000))
        .expect("time")
        .format(&time::format_description::well_known::Rfc3339)
        .expect("format")
}

/// Moves the sale `id` (its payment and creation) and its copied supplier order back `days`
/// days, and its order's transactions back `transaction_days`: a setup written behind the
/// books' marks, which the caller clears after.
fn move_back(conn: &mut DbConn, id: &str, days: i64, transaction_days: i64) -> Result<(), DbError> {
    let (reference, order_id): (String, Option<String>) = purchases::table
        .find(id)
        .select((purchases::reference, purchases::upstream_order_id))
        .first(conn)?;
    diesel::update(purchases::table.find(id))
        .set((
            purchases::paid_at_ms.eq(purchases::paid_at_ms - days * DAY_MS),
            purchases::created_at_ms.eq(purchases::created_at_ms - days * DAY_MS),
        ))
        .execute(conn)?;
    let order_id = order_id.expect("placed");
    let at: Option<i64> = supplier_orders::table
        .find(&order_id)
        .select(supplier_orders::created_at_ms)
        .first(conn)?;
    let at = at.expect("a time") - days * DAY_MS;
    diesel::update(supplier_orders::table.find(&order_id))
        .set((
            supplier_orders::created_at_ms.eq(at),
            supplier_orders::created_at.eq(rfc3339(at)),
        ))
        .execute(conn)?;
    let transactions: Vec<(i64, Option<i64>)> = supplier_transactions::table
        .filter(supplier_transactions::reference.eq_any([&order_id, &reference]))
        .select((
            supplier_transactions::id,
            supplier_transactions::created_at_ms,
        ))
        .load(conn)?;
    for (tid, at) in transactions {
        let at = at.expect("a time") - transaction_days * DAY_MS;
        diesel::update(supplier_transactions::table.find(tid))
            .set((
                supplier_transactions::created_at_ms.eq(at),
                supplier_transactions::created_at.eq(rfc3339(at)),
            ))
            .execute(conn)?;
    }
    Ok(())
}

/// The stored summary of `period` equals the period reconciled whole, and so does the CSV
/// made a day at a time.
async fn same_as_reconciled(books: &Books<'_>, period: Period) {
    let stored = books
        .summary_as_copied(period)
        .await
        .expect("summary")
        .expect("copied")
        .summary;
    let whole = books.reconcile_from_copy(period).await.expect("reconcile");
    assert_eq!(stored, whole.summary(NEWEST_LINES), "{period:?}");
    let mut chunks = books
        .reconciliation_csv(period)
        .await
        .expect("csv")
        .expect("copied");
    let mut sent = String::new();
    while let Some(chunk) = chunks.recv().await {
        sent.push_str(&chunk.expect("a chunk"));
    }
    let expected: String = std::iter::once(csv::RECONCILIATION_HEADER.to_string())
        .chain(whole.lines.iter().map(csv::reconciliation_row))
        .collect();
    assert_eq!(sent, expected, "{period:?}");
}

/// The five days up to today, then each of them.
async fn every_period_same(books: &Books<'_>, today_ms: i64) {
    same_as_reconciled(books, Period::last_days(today_ms, 5)).await;
    for back in 0..5 {
        same_as_reconciled(books, Period::last_days(today_ms - back * DAY_MS, 1)).await;
    }
}

/// How many of the five days are stored and current.
async fn current_days(app: &TestApp, today_ms: i64) -> i64 {
    let from = Period::last_days(today_ms, 5).start_ms();
    app.db
        .run(move |conn| {
            Ok::<_, DbError>(
                book_days::table
                    .filter(book_days::day_ms.ge(from))
                    .filter(book_days::computed_version.eq(book_days::version.nullable()))
                    .count()
                    .get_result::<i64>(conn)?,
            )
        })
        .await
        .expect("count")
}

async fn write<F>(app: &TestApp, f: F)
where
    F: FnOnce(&mut DbConn) -> Result<(), DbError> + Send + 'static,
{
    app.db
        .run(move |conn| conn.write_tx(f))
        .await
        .expect("write");
}

async fn stored_days_answer_as_the_period_reconciled_whatever_changes(backend: Backend) {
    let Some((app, upstream, key)) = crate::supplier_history::shop(backend).await else {
        return;
    };
    let mut sold = Vec::new();
    for _ in 0..4 {
        sold.push(buy_and_wait_fulfilled(&app).await);
    }
    let plan = upstream
        .sandbox
        .plans()
        .into_iter()
        .min_by_key(|p| p.price_cents)
        .expect("a plan");
    let by_hand = reqwest::Client::new()
        .post(format!("{}/orders", upstream.base_url))
        .bearer_auth(&key)
        .header("Idempotency-Key", format!("manual-{}", random_suffix()))
        .json(&serde_json::json!({
            "planId": plan.id,
            "expectedPriceCents": plan.price_cents,
            "reference": "placed-by-hand",
        }))
        .send()
        .await
        .expect("sandbox answers");
    assert_eq!(by_hand.status().as_u16(), 202);
    let client = PartnerClient::new(UpstreamClientConfig::new(
        reqwest::Url::parse(&upstream.base_url).expect("base"),
        Secret::new(key.clone()),
    ))
    .expect("client");
    history::refresh(&app.db, &client, Pass::Full)
        .await
        .expect("refresh");
    let today_ms = storefront::db::now_ms();

    // Sale i on day -i; sale 3's transactions a day after its order; the order placed by hand
    // two days back. Then every stored day is dropped, as on a shop upgraded from before them.
    let setup = sold.clone();
    write(&app, move |conn| {
        for (i, id) in setup.iter().enumerate() {
            let back = i64::try_from(i).unwrap_or(0);
            let transactions_back = if i == 3 { 2 } else { back };
            move_back(conn, id, back, transactions_back)?;
        }
        let hand: (String, Option<i64>) = supplier_orders::table
            .filter(supplier_orders::reference.eq("placed-by-hand"))
            .select((supplier_orders::id, supplier_orders::created_at_ms))
            .first(conn)?;
        let at = hand.1.expect("a time") - 2 * DAY_MS;
        diesel::update(supplier_orders::table.find(&hand.0))
            .set((
                supplier_orders::created_at_ms.eq(at),
                supplier_orders::created_at.eq(rfc3339(at)),
            ))
            .execute(conn)?;
        diesel::delete(book_days::table).execute(conn)?;
        Ok(())
    })
    .await;
    let books = Books {
        db: &app.db,
        upstream: &client,
    };
    every_period_same(&books, today_ms).await;
    assert_eq!(current_days(&app, today_ms).await, 5, "every day stored");
    // Forty years: the days before the first sale and after the last are not reconciled (no
    // line can be on them), so none of them is stored.
    same_as_reconciled(
        &books,
        Period::parse("2000-01-01", "2039-12-31").expect("period"),
    )
    .await;
    let stored: i64 = app
        .db
        .run(|conn| Ok::<_, DbError>(book_days::table.count().get_result(conn)?))
        .await
        .expect("count");
    assert_eq!(stored, 5, "only the days with something on");
    // Read again: from the stored days.
    every_period_same(&books, today_ms).await;

    // A refund transaction today for sale 2's order (two days old).
    let sale2: PurchaseId = sold[2].parse().expect("id");
    let order2: String = app
        .db
        .run(move |conn| {
            Ok::<_, DbError>(
                purchases::table
                    .find(&sale2)
                    .select(purchases::upstream_order_id)
                    .first::<Option<String>>(conn)?
                    .expect("placed"),
            )
        })
        .await
        .expect("order");
    let now = storefront::db::now_ms();
    let refund = TransactionRow {
        id: 9_000_001,
        kind: "refund".into(),
        available_delta_cents: plan.price_cents,
        reserved_delta_cents: 0,
        reference: order2,
        created_at: rfc3339(now),
        created_at_ms: Some(now),
    };
    write(&app, move |conn| {
        insert_new_transactions(conn, &[refund]).map(drop)
    })
    .await;
    every_period_same(&books, today_ms).await;

    // The supplier's status of sale 1 (a day old), as the shop records it.
    assert_eq!(current_days(&app, today_ms).await, 5);
    let sale1: PurchaseId = sold[1].parse().expect("id");
    write(&app, move |conn| {
        storefront::db::purchases::set_upstream_status(conn, &sale1, "refunded", now)
    })
    .await;
    every_period_same(&books, today_ms).await;

    // A new supplier order four days back, with no purchase.
    assert_eq!(current_days(&app, today_ms).await, 5);
    let at = now - 4 * DAY_MS;
    let order = OrderRow {
        id: format!("ord_by_hand_{}", random_suffix()),
        reference: "by-hand-too".into(),
        status: "completed".into(),
        price_cents: 700,
        currency: "USD".into(),
        created_at: rfc3339(at),
        created_at_ms: Some(at),
        esim_id: None,
    };
    write(&app, move |conn| upsert_orders(conn, &[order]).map(drop)).await;
    every_period_same(&books, today_ms).await;

    // A transaction whose time cannot be read: listed in every period, stored in none.
    assert_eq!(current_days(&app, today_ms).await, 5);
    let undated = TransactionRow {
        id: 9_000_002,
        kind: "adjustment".into(),
        available_delta_cents: -5,
        reserved_delta_cents: 0,
        reference: "fee".into(),
        created_at: "last Tuesday".into(),
        created_at_ms: None,
    };
    write(&app, move |conn| {
        insert_new_transactions(conn, &[undated]).map(drop)
    })
    .await;
    every_period_same(&books, today_ms).await;

    // A top-up: its session, its credit three days back, then its confirmation.
    assert_eq!(current_days(&app, today_ms).await, 5);
    crate::admin::create(&app.db, "owner-days@example.com", Role::Owner).await;
    write(&app, move |conn| {
        let owner: i64 = admin_users::table.select(admin_users::id).first(conn)?;
        let (topup, _) = topups::topup_for_nonce(
            conn,
            &topups::NewTopup {
                nonce: "nonce-days",
                idempotency_key: "topup-days",
                amount_cents: 2_000,
                created_by: owner,
            },
            now,
        )?;
        topups::record_topup_outcome(conn, topup.id, Ok(("cs_days", "https://pay.invalid")), now)
    })
    .await;
    every_period_same(&books, today_ms).await;
    let at = now - 3 * DAY_MS;
    let credit = TransactionRow {
        id: 9_000_003,
        kind: "credit".into(),
        available_delta_cents: 2_000,
        reserved_delta_cents: 0,
        reference: "cs_days".into(),
        created_at: rfc3339(at),
        created_at_ms: Some(at),
    };
    write(&app, move |conn| {
        insert_new_transactions(conn, &[credit]).map(drop)
    })
    .await;
    every_period_same(&books, today_ms).await;
    write(&app, move |conn| {
        let id: i64 = storefront::db::schema::topups::table
            .select(storefront::db::schema::topups::id)
            .first(conn)?;
        topups::confirm_topup(conn, id, now).map(drop)
    })
    .await;
    every_period_same(&books, today_ms).await;

    // 150 orders placed by hand yesterday: the summary lists the first 100 open differences
    // and counts them all.
    let at = now - DAY_MS;
    let many: Vec<OrderRow> = (0..150)
        .map(|i| OrderRow {
            id: format!("ord_many_{i:03}"),
            reference: format!("many-{i:03}"),
            status: "completed".into(),
            price_cents: 100,
            currency: "USD".into(),
            created_at: rfc3339(at + i),
            created_at_ms: Some(at + i),
            esim_id: None,
        })
        .collect();
    write(&app, move |conn| upsert_orders(conn, &many).map(drop)).await;
    every_period_same(&books, today_ms).await;
    let crowded = books
        .summary_as_copied(Period::last_days(today_ms, 5))
        .await
        .expect("summary")
        .expect("copied")
        .summary;
    assert_eq!(crowded.open.len(), NOTABLE_SHOWN);
    assert!(crowded.totals.mismatches > 150, "{:?}", crowded.totals);
    assert_eq!(
        crowded.open_not_shown(),
        usize::try_from(crowded.totals.mismatches).expect("count") - NOTABLE_SHOWN
    );

    // The owner's note on a difference: read when the period is, no day is made again.
    let summary = books
        .summary_as_copied(Period::last_days(today_ms, 5))
        .await
        .expect("summary")
        .expect("copied")
        .summary;
    let open = summary
        .mismatches()
        .next()
        .expect("a difference")
        .key
        .clone();
    let stored_before = current_days(&app, today_ms).await;
    write(&app, move |conn| {
        book_explanations::put(
            conn,
            &book_explanations::ExplanationRow {
                line_key: open,
                note: "known".into(),
                explained_by: "owner-days@example.com".into(),
                explained_at_ms: now,
            },
        )
    })
    .await;
    assert_eq!(current_days(&app, today_ms).await, stored_before);
    every_period_same(&books, today_ms).await;
    let after = books
        .summary_as_copied(Period::last_days(today_ms, 5))
        .await
        .expect("summary")
        .expect("copied")
        .summary;
    assert_eq!(after.totals.explained, summary.totals.explained + 1);

    // Every stored day lost again, as on a shop upgraded from before them: a console page
    // reconciles what its budget allows (at least the newest day) and says how far the
    // counting got; the background fill counts the rest, and the page then reads the books.
    let period = Period::last_days(today_ms, 5);
    write(&app, |conn| {
        diesel::delete(book_days::table).execute(conn)?;
        Ok(())
    })
    .await;
    let read = app
        .db
        .run(move |conn| days::summary_within(conn, period, Duration::ZERO, false))
        .await
        .expect("read");
    let one_counted = Read::Counting(Counting {
        counted: 1,
        days: 5,
    });
    assert_eq!(read, one_counted);
    assert_eq!(
        current_days(&app, today_ms).await,
        1,
        "the newest day stored"
    );
    // While the background fill counts the period, a page over its budget counts nothing.
    let read = app
        .db
        .run(move |conn| days::summary_within(conn, period, Duration::ZERO, true))
        .await
        .expect("read");
    assert_eq!(read, one_counted);
    assert_eq!(current_days(&app, today_ms).await, 1, "no day counted");
    DayFill::default().start(&app.db, period);
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while current_days(&app, today_ms).await < 5 {
        assert!(
            std::time::Instant::now() < deadline,
            "the fill stored every day"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let console = books
        .summary_for_console(period, &DayFill::default())
        .await
        .expect("summary")
        .expect("copied");
    assert_eq!(console.summary, Read::Ready(Box::new(after)));
}
