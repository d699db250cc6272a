//! The audit log stays bounded: a flood of console sign-ins writes a bounded number of rows
//! (the per-client limit refuses the excess before anything is written, and throttled
//! attempts share one entry per client and window), and the daily prune deletes what is
//! older than `STOREFRONT_AUDIT_RETENTION_DAYS` but keeps money actions for a year.

use diesel::prelude::*;
use storefront::db::schema::{admin_audit, admin_login_attempts, leases};
use storefront::db::staff::{NewAudit, append_audit};
use storefront::db::{Db, DbError, now_ms};
use storefront::staff::{Role, action};

use crate::admin::{Browser, OWNER, PASSWORD, create};
use crate::both_backends;
use crate::helpers::{
    Answer, Backend, TestDb, spawn_app, spawn_app_on_with, spawn_app_with, wait_for,
};

both_backends!(
    a_flood_of_sign_ins_with_fresh_emails_writes_a_bounded_number_of_rows,
    the_per_client_limit_refuses_sign_ins_before_anything_is_written,
    the_daily_prune_keeps_money_actions_for_a_year_and_the_rest_for_the_retention,
);

const DAY_MS: i64 = 24 * 60 * 60 * 1000;

/// `(action, repeats)` of every audit row, oldest first.
async fn entries(db: &Db) -> Vec<(String, i64)> {
    db.run(|conn| {
        Ok::<_, DbError>(
            admin_audit::table
                .order(admin_audit::id)
                .select((admin_audit::action, admin_audit::repeats))
                .load(conn)?,
        )
    })
    .await
    .expect("audit")
}

async fn attempts(db: &Db) -> i64 {
    db.run(|conn| Ok::<_, DbError>(admin_login_attempts::table.count().get_result(conn)?))
        .await
        .expect("attempts")
}

/// One address guessing a new email each time: past the throttle, every refusal is counted in
/// one entry for the client, so the log grows by the 20 failures the throttle lets through and
/// one entry, however long the flood goes on.
async fn a_flood_of_sign_ins_with_fresh_emails_writes_a_bounded_number_of_rows(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let flooder = Browser::default();
    for i in 1..=60 {
        let status = flooder
            .login(&app, &format!("guess{i}@example.com"), "not the password")
            .await
            .status;
        let expected = if i <= 20 { 401 } else { 429 };
        assert_eq!(status, expected, "attempt {i}");
    }
    let rows = entries(&app.db).await;
    let failed = rows.iter().filter(|r| r.0 == "login_failed").count();
    let throttled: Vec<i64> = rows
        .iter()
        .filter(|r| r.0 == "login_throttled")
        .map(|r| r.1)
        .collect();
    assert_eq!(failed, 20);
    assert_eq!(
        throttled,
        vec![40],
        "one entry for the client and window, counting the 40 refusals"
    );
    assert_eq!(rows.len(), 21, "{rows:?}");
}

/// With the limit at 10 a minute, the 11th sign-in form from one client is refused at once —
/// even with the right password — and leaves no trace in the database; another client is not
/// affected.
async fn the_per_client_limit_refuses_sign_ins_before_anything_is_written(backend: Backend) {
    let Some(app) = spawn_app_with(backend, &[("STOREFRONT_LOGIN_RATE_LIMIT", "10")]).await else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    let before = entries(&app.db).await.len();
    let flooder = Browser::from_address("127.0.0.2");
    for i in 1..=10 {
        assert_eq!(
            flooder
                .login(&app, &format!("guess{i}@example.com"), "not the password")
                .await
                .status,
            401,
            "attempt {i}"
        );
    }
    let (written, reserved) = (entries(&app.db).await.len(), attempts(&app.db).await);
    assert_eq!((written - before, reserved), (10, 10));
    for i in 11..=30 {
        let answer = flooder
            .login(&app, &format!("guess{i}@example.com"), "not the password")
            .await;
        assert_eq!(answer.status, 429, "attempt {i}");
        let Answer {
            body: page,
            headers,
            ..
        } = answer;
        assert!(page.contains("Too many sign-in attempts"), "{page}");
        assert_eq!(headers["retry-after"], "60");
    }
    assert_eq!(flooder.login(&app, OWNER, PASSWORD).await.status, 429);
    assert_eq!(
        (entries(&app.db).await.len(), attempts(&app.db).await),
        (written, reserved),
        "nothing written for the refused sign-ins"
    );
    let owner = Browser::from_address("127.0.0.3");
    assert_eq!(owner.login(&app, OWNER, PASSWORD).await.status, 303);
}

/// Rows written `days_ago` days ago with `action`.
async fn write_aged(db: &Db, rows: Vec<(&'static str, i64)>) {
    let now = now_ms();
    db.run(move |conn| {
        conn.write_tx(|conn| {
            for (act, days_ago) in &rows {
                append_audit(
                    conn,
                    &NewAudit {
                        at_ms: now - days_ago * DAY_MS,
                        user_id: None,
                        actor: "owner@example.com",
                        action: act,
                        target: None,
                        client_addr: "127.0.0.1",
                        details: &format!("{days_ago} days ago"),
                    },
                )?;
            }
            Ok::<_, DbError>(())
        })
    })
    .await
    .expect("aged rows");
}

/// `(action, details)` of every row, oldest first.
async fn kept(db: &Db) -> Vec<(String, String)> {
    db.run(|conn| {
        Ok::<_, DbError>(
            admin_audit::table
                .order((admin_audit::at_ms, admin_audit::id))
                .select((admin_audit::action, admin_audit::details))
                .load(conn)?,
        )
    })
    .await
    .expect("audit")
}

/// A shop keeping its log 30 days starts with a year and a half of entries: the prune that runs
/// at start keeps the last 30 days of everything and the last year of money actions, and
/// deletes the rest (more than one batch of it).
async fn the_daily_prune_keeps_money_actions_for_a_year_and_the_rest_for_the_retention(
    backend: Backend,
) {
    let Some(test_db) = TestDb::new(backend) else {
        return;
    };
    let db = test_db.migrated().await;
    let mut rows = vec![
        (action::LOGIN, 2),
        (action::LOGIN_FAILED, 29),
        (action::LOGIN, 31),
        (action::USER_CREATED, 200),
        (action::ORDER_REFUND, 200),
        (action::PRICING_RULE_SAVED, 300),
        (action::WALLET_TOPUP_CREATED, 364),
        (action::ORDER_REFUND, 366),
        (action::PROMO_CODE_CHANGED, 500),
    ];
    // Old enough to go, and more than one batch of it.
    rows.extend((0..1_200).map(|i| (action::LOGIN_FAILED, 40 + i % 300)));
    write_aged(&db, rows).await;

    let app = spawn_app_on_with(test_db, db, &[("STOREFRONT_AUDIT_RETENTION_DAYS", "30")]).await;
    let expected = vec![
        (action::WALLET_TOPUP_CREATED, 364),
        (action::PRICING_RULE_SAVED, 300),
        (action::ORDER_REFUND, 200),
        (action::LOGIN_FAILED, 29),
        (action::LOGIN, 2),
    ]
    .into_iter()
    .map(|(a, d)| (a.to_string(), format!("{d} days ago")))
    .collect::<Vec<_>>();
    wait_for("the prune", async || {
        let left = kept(&app.db).await;
        if left == expected {
            Ok(())
        } else {
            Err(format!("{:?}", left.iter().take(12).collect::<Vec<_>>()))
        }
    })
    .await;

    // The day's prune has run: its lease is held until tomorrow, so no replica prunes again.
    let lease_until: i64 = app
        .db
        .run(|conn| {
            Ok::<_, DbError>(
                leases::table
                    .filter(leases::name.eq("audit_prune"))
                    .select(leases::expires_at_ms)
                    .first(conn)?,
            )
        })
        .await
        .expect("lease");
    assert!(lease_until > now_ms() + DAY_MS - 60_000, "{lease_until}");
}
