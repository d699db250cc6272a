//! The admin wallet and catalog over HTTP against the sandbox upstream: live balance and
//! transactions, top-ups that cannot pay twice, refused amounts, the owner-only rule, the
//! low-balance alert raised once per crossing and its email retried until a real SMTP server
//! takes it, the catalog page with its "sync now", and resending an order's delivery email.

use diesel::prelude::*;
use storefront::db::schema::{alert_emails, alerts, purchases, topups};
use storefront::db::{Db, DbError};
use storefront::domain::job::JobKind;
use storefront::staff::Role;

use crate::admin::{
    Browser, OWNER, PASSWORD, SUPPORT, audit_rows, buy_and_wait_fulfilled, create, hidden,
    insert_purchase,
};
use crate::both_backends;
use crate::fixtures::as_id;
use crate::helpers::{Answer, Backend, TestApp, spawn_shop, spawn_shop_with};
use crate::mail::{SmtpServer, parse_eml, part};

both_backends!(
    a_top_up_submitted_twice_creates_one_payment_credited_only_when_paid,
    refused_amounts_send_nothing_and_support_is_kept_out,
    the_low_balance_alert_is_raised_once_per_crossing,
    the_low_balance_email_is_retried_until_the_mail_server_takes_it,
    the_catalog_lists_plans_with_margins_and_owners_sync_it,
    support_resends_the_delivery_email_once_while_one_is_open,
);

async fn topup_count(db: &Db) -> i64 {
    db.run(|conn| Ok::<_, DbError>(topups::table.count().get_result(conn)?))
        .await
        .expect("count")
}

async fn owner_on_wallet(app: &TestApp) -> Browser {
    create(&app.db, OWNER, Role::Owner).await;
    let owner = Browser::default();
    assert_eq!(owner.login(app, OWNER, PASSWORD).await.status, 303);
    owner
}

async fn a_top_up_submitted_twice_creates_one_payment_credited_only_when_paid(backend: Backend) {
    let Some((app, upstream)) = spawn_shop(backend, 40).await else {
        return;
    };
    let sandbox = &upstream.sandbox;
    sandbox.set_balance(45_678).expect("set balance");
    let owner = owner_on_wallet(&app).await;

    let Answer {
        body: page,
        headers,
        ..
    } = owner.get(&app, "/admin/wallet").await.assert_status(200);
    assert_eq!(headers["cache-control"], "no-store");
    assert!(page.contains("$456.78"), "the live balance: {page}");
    assert!(page.contains("adjustment"), "the transactions: {page}");
    assert!(page.contains("href=\"/admin/wallet\""), "in the nav");
    assert!(page.contains("credit appears after the payment is verified"));
    let transactions_before = sandbox.stats().transactions;

    // Upstream refused a paid order of $470.00 for lack of funds, and sales were paused:
    // only credit covering the order waiting lifts that.
    insert_purchase(
        &app.db,
        "waiting-1",
        "buyer@example.com",
        "paid",
        storefront::db::now_ms(),
    )
    .await;
    app.db
        .run(|conn| {
            diesel::update(purchases::table.find("waiting-1"))
                .set(purchases::cost_cents.eq(47_000_i64))
                .execute(conn)?;
            storefront::db::wallet::set_sales_paused(conn, true)
        })
        .await
        .expect("pause");
    let page = owner.get(&app, "/admin/wallet").await.body;
    assert!(page.contains("New sales are paused"));

    // The same form, sent twice (a double click): one row, one key, one checkout session.
    let token = hidden(&page, "csrf_token");
    let nonce = hidden(&page, "nonce");
    let form = [
        ("csrf_token", token.as_str()),
        ("nonce", nonce.as_str()),
        ("amount", "25.50"),
    ];
    let (first, second) = tokio::join!(
        owner.post(&app, "/admin/wallet/topup", &form),
        owner.post(&app, "/admin/wallet/topup", &form),
    );
    let third = owner.post(&app, "/admin/wallet/topup", &form).await;
    assert_eq!((first.status, second.status, third.status), (303, 303, 303));
    // The answer is the console's page for the top-up (the CSP keeps forms on the shop);
    // it links to upstream's hosted checkout and says the top-up is pending.
    let progress = first.location();
    assert!(progress.starts_with("/admin/wallet/topups/"), "{progress}");
    assert_eq!(second.location(), progress, "the same top-up");
    assert_eq!(third.location(), progress, "a retry gets the same top-up");
    let page = owner.get(&app, &progress).await.assert_status(200).body;
    assert!(page.contains("data-topup-status=\"pending\""), "{page}");
    let checkout = page
        .split("href=\"")
        .filter_map(|rest| rest.split('"').next())
        .find(|href| href.contains("/_sandbox/checkout/"))
        .expect("a link to the hosted checkout")
        .to_string();
    let host = checkout
        .trim_start_matches("http://")
        .split('/')
        .next()
        .expect("host");
    assert!(
        page.contains(&format!("Continue to payment at {host}")),
        "{page}"
    );
    assert!(
        checkout.starts_with(&format!("{}/_sandbox/checkout/cs_", upstream.origin)),
        "{checkout}"
    );
    assert_eq!(topup_count(&app.db).await, 1);

    // Nothing is credited until the hosted page is paid.
    assert_eq!(sandbox.balance().available_cents, 45_678);
    assert_eq!(sandbox.stats().transactions, transactions_before);
    let page = owner.get(&app, "/admin/wallet").await.body;
    assert!(
        page.contains("$456.78") && page.contains("$25.50"),
        "{page}"
    );

    let paid = app
        .client
        .post(format!("{checkout}/pay"))
        .send()
        .await
        .expect("pay");
    assert_eq!(paid.status().as_u16(), 303);
    // Paying the same session again credits nothing more.
    let again = app
        .client
        .post(format!("{checkout}/pay"))
        .send()
        .await
        .expect("pay again");
    assert!(again.status().as_u16() < 500);
    assert_eq!(sandbox.balance().available_cents, 45_678 + 2_550);
    assert_eq!(sandbox.stats().transactions, transactions_before + 1);
    assert!(sandbox.stats().ledger_invariant_holds);

    let page = owner.get(&app, "/admin/wallet").await.body;
    assert!(page.contains("$482.28"), "the credit shows: {page}");
    assert!(page.contains("credit"));
    // Transaction times read like every other time in the console: a date in words, UTC in
    // the tooltip.
    let cell = page
        .split("<td class=\"when\" data-label=\"When\">")
        .last()
        .and_then(|rest| rest.split("</td>").next())
        .expect("a transaction time");
    let title = cell
        .split("title=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("a tooltip");
    assert!(
        title.len() == "2026-11-22 06:00 UTC".len() && title.ends_with(" UTC"),
        "{cell}"
    );
    let shown = cell
        .split('>')
        .nth(1)
        .and_then(|rest| rest.split('<').next())
        .unwrap_or_default();
    assert!(
        shown.ends_with(" UTC") && shown.contains(", ") && !shown.starts_with("20"),
        "{cell}"
    );
    assert!(
        !page.contains("New sales are paused"),
        "credit covering the orders waiting resumes sales"
    );
    let page = owner.get(&app, &progress).await.body;
    assert!(page.contains("data-topup-status=\"paid\""), "{page}");
    assert!(page.contains("$482.28"), "the credit shows: {page}");
    let paused = app
        .db
        .run(storefront::db::wallet::get)
        .await
        .expect("wallet")
        .expect("row")
        .sales_paused;
    assert!(!paused);

    let rows = audit_rows(&app.db).await;
    let topup_actions: Vec<&str> = rows
        .iter()
        .filter(|r| r.1.starts_with("wallet_topup"))
        .map(|r| r.1.as_str())
        .collect();
    assert_eq!(topup_actions.len(), 3, "{topup_actions:?}");
    assert_eq!(
        topup_actions
            .iter()
            .filter(|a| **a == "wallet_topup_created")
            .count(),
        1
    );
    assert!(
        rows.iter()
            .all(|r| !r.1.starts_with("wallet_topup") || r.3.contains("$25.50"))
    );
    let audit = owner.get(&app, "/admin/audit").await.body;
    assert!(audit.contains("wallet_topup_created"));
}

async fn refused_amounts_send_nothing_and_support_is_kept_out(backend: Backend) {
    let Some((app, upstream)) = spawn_shop(backend, 40).await else {
        return;
    };
    let owner = owner_on_wallet(&app).await;
    create(&app.db, SUPPORT, Role::Support).await;
    let transactions = upstream.sandbox.stats().transactions;

    let page = owner.get(&app, "/admin/wallet").await.body;
    let token = hidden(&page, "csrf_token");
    let nonce = hidden(&page, "nonce");
    for (amount, message) in [
        ("9.99", "between $10.00 and $1,000.00"),
        ("1000.01", "between $10.00 and $1,000.00"),
        ("0", "between $10.00 and $1,000.00"),
        ("-25", "like 25 or 25.50"),
        ("25.555", "like 25 or 25.50"),
        ("25,5", "like 25 or 25.50"),
        ("ten", "like 25 or 25.50"),
        ("", "like 25 or 25.50"),
        ("1e3", "like 25 or 25.50"),
    ] {
        let page = owner
            .post(
                &app,
                "/admin/wallet/topup",
                &[
                    ("csrf_token", &token),
                    ("nonce", &nonce),
                    ("amount", amount),
                ],
            )
            .await
            .assert_status(400)
            .body;
        assert!(page.contains(message), "{amount:?}: {page}");
        assert_eq!(hidden(&page, "nonce"), nonce, "the same form comes back");
    }
    // Without a valid nonce or CSRF token nothing happens either.
    owner
        .post(
            &app,
            "/admin/wallet/topup",
            &[("csrf_token", &token), ("nonce", "x"), ("amount", "25")],
        )
        .await
        .assert_status(400);
    owner
        .post(
            &app,
            "/admin/wallet/topup",
            &[
                ("csrf_token", "forged"),
                ("nonce", &nonce),
                ("amount", "25"),
            ],
        )
        .await
        .assert_status(403);
    assert_eq!(topup_count(&app.db).await, 0);
    assert_eq!(upstream.sandbox.stats().transactions, transactions);
    assert!(
        audit_rows(&app.db)
            .await
            .iter()
            .all(|r| !r.1.starts_with("wallet_")),
        "nothing was done"
    );

    // The form, once used for $25, is not reused for another amount.
    let used = |amount: &'static str| {
        [
            ("csrf_token", token.clone()),
            ("nonce", nonce.clone()),
            ("amount", amount.to_string()),
        ]
    };
    let first = used("25");
    let first: Vec<(&str, &str)> = first.iter().map(|(k, v)| (*k, v.as_str())).collect();
    assert_eq!(
        owner.post(&app, "/admin/wallet/topup", &first).await.status,
        303
    );
    let second = used("30");
    let second: Vec<(&str, &str)> = second.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let page = owner
        .post(&app, "/admin/wallet/topup", &second)
        .await
        .assert_status(409)
        .body;
    assert!(page.contains("already sent for $25.00"), "{page}");
    assert_ne!(hidden(&page, "nonce"), nonce, "a fresh form");
    assert_eq!(topup_count(&app.db).await, 1);

    // Support: no wallet, no top-up, no threshold.
    let support = Browser::default();
    assert_eq!(support.login(&app, SUPPORT, PASSWORD).await.status, 303);
    assert_eq!(support.get(&app, "/admin/wallet").await.status, 403);
    let dashboard = support.get(&app, "/admin").await.body;
    assert!(!dashboard.contains("href=\"/admin/wallet\""));
    let token = support.csrf(&app).await;
    support
        .post(
            &app,
            "/admin/wallet/topup",
            &[
                ("csrf_token", &token),
                ("nonce", &"ab".repeat(16)),
                ("amount", "25"),
            ],
        )
        .await
        .assert_status(403);
    support
        .post(
            &app,
            "/admin/wallet/threshold",
            &[("csrf_token", &token), ("threshold", "1")],
        )
        .await
        .assert_status(403);
    assert_eq!(topup_count(&app.db).await, 1);
}

/// `(open, total)` low-balance alerts.
async fn low_balance_alerts(db: &Db) -> (i64, i64) {
    db.run(|conn| {
        let open = alerts::table
            .filter(alerts::kind.eq("low_balance"))
            .filter(alerts::resolved_at_ms.is_null())
            .count()
            .get_result(conn)?;
        let total = alerts::table
            .filter(alerts::kind.eq("low_balance"))
            .count()
            .get_result(conn)?;
        Ok::<_, DbError>((open, total))
    })
    .await
    .expect("alerts")
}

fn alert_emails(app: &TestApp) -> usize {
    app.emails()
        .iter()
        .filter(|m| m.contains("Low wallet balance"))
        .count()
}

async fn the_low_balance_alert_is_raised_once_per_crossing(backend: Backend) {
    let Some((app, upstream)) = spawn_shop(backend, 40).await else {
        return;
    };
    let sandbox = &upstream.sandbox;
    let owner = owner_on_wallet(&app).await;

    // The threshold is the shop's own, audited before/after.
    let token = owner.csrf(&app).await;
    for bad in ["-1", "lots", "2000000"] {
        owner
            .post(
                &app,
                "/admin/wallet/threshold",
                &[("csrf_token", &token), ("threshold", bad)],
            )
            .await
            .assert_status(400);
    }
    owner
        .post(
            &app,
            "/admin/wallet/threshold",
            &[("csrf_token", &token), ("threshold", "150")],
        )
        .await
        .assert_redirect_to("/admin/wallet?done=threshold");
    let rows = audit_rows(&app.db).await;
    assert!(rows.iter().any(|r| r.1 == "wallet_threshold_set"
        && r.3 == "before: $100.00, alert only; after: $150.00, alert only"));

    // $500 is above: no alert.
    let page = owner.get(&app, "/admin/wallet?done=threshold").await.body;
    assert!(page.contains("Threshold saved."));
    assert!(page.contains("value=\"150.00\""));
    assert_eq!(low_balance_alerts(&app.db).await, (0, 0));

    // Below: one alert and one email, however often the page is viewed.
    sandbox.set_balance(12_000).expect("balance");
    for _ in 0..3 {
        let page = owner
            .get(&app, "/admin/wallet")
            .await
            .assert_status(200)
            .body;
        assert!(page.contains("below your low-balance threshold of $150.00"));
    }
    assert_eq!(low_balance_alerts(&app.db).await, (1, 1));
    assert_eq!(alert_emails(&app), 1);
    let dashboard = owner.get(&app, "/admin").await.body;
    assert!(
        dashboard.contains("Supplier balance running low"),
        "{dashboard}"
    );

    // Back above: resolved, no email.
    sandbox.set_balance(20_000).expect("balance");
    let page = owner.get(&app, "/admin/wallet").await.body;
    assert!(!page.contains("below your low-balance threshold"));
    assert_eq!(low_balance_alerts(&app.db).await, (0, 1));

    // A second crossing alerts again, once.
    sandbox.set_balance(1_000).expect("balance");
    owner.get(&app, "/admin/wallet").await;
    owner.get(&app, "/admin/wallet").await;
    assert_eq!(low_balance_alerts(&app.db).await, (1, 2));
    assert_eq!(alert_emails(&app), 2);
}

/// `(state, attempts, last error)` of every alert email, oldest first.
async fn alert_email_rows(db: &Db) -> Vec<(String, i32, Option<String>)> {
    db.run(|conn| {
        Ok::<_, DbError>(
            alert_emails::table
                .order(alert_emails::id)
                .select((
                    alert_emails::state,
                    alert_emails::attempts,
                    alert_emails::last_error,
                ))
                .load(conn)?,
        )
    })
    .await
    .expect("alert emails")
}

async fn the_low_balance_email_is_retried_until_the_mail_server_takes_it(backend: Backend) {
    if !SmtpServer::available() {
        return;
    }
    // The shop mails through SMTP on a port where nothing listens yet: the server is down.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port();
    let smtp_url = format!("smtp://127.0.0.1:{port}?tls=none");
    let Some((app, upstream)) = spawn_shop_with(
        backend,
        40,
        &[
            ("STOREFRONT_SMTP_URL", smtp_url.as_str()),
            ("STOREFRONT_MAIL_DIR", ""),
        ],
    )
    .await
    else {
        return;
    };
    let owner = owner_on_wallet(&app).await;

    // The crossing is recorded; the email fails and waits for its retry.
    upstream.sandbox.set_balance(1_000).expect("balance");
    let page = owner
        .get(&app, "/admin/wallet")
        .await
        .assert_status(200)
        .body;
    assert!(page.contains("below your low-balance threshold"), "{page}");
    assert_eq!(low_balance_alerts(&app.db).await, (1, 1));
    let rows = alert_email_rows(&app.db).await;
    assert_eq!(rows.len(), 1, "one email, to the one owner: {rows:?}");
    assert_eq!((rows[0].0.as_str(), rows[0].1), ("pending", 1));
    let error = rows[0].2.clone().unwrap_or_default();
    assert!(error.contains("could not reach the SMTP server"), "{error}");
    // Looking again before the retry is due neither raises nor sends anything.
    owner.get(&app, "/admin/wallet").await;
    assert_eq!(low_balance_alerts(&app.db).await, (1, 1));
    assert_eq!(
        alert_email_rows(&app.db).await[0].1,
        1,
        "no new attempt yet"
    );

    // The mail server comes back; a minute later the retry is due, and one email arrives.
    let Some(server) = SmtpServer::start_on(port) else {
        return;
    };
    assert!(server.received().is_empty());
    app.db
        .run(|conn| {
            diesel::update(alert_emails::table)
                .set(alert_emails::next_attempt_ms.eq(alert_emails::next_attempt_ms - 61_000))
                .execute(conn)?;
            Ok::<_, DbError>(())
        })
        .await
        .expect("a minute later");
    owner.get(&app, "/admin/wallet").await;
    let received = server.received();
    assert_eq!(received.len(), 1, "{received:?}");
    let mail = parse_eml(&received[0]);
    assert_eq!(mail["envelope_to"], OWNER);
    let subject = mail["subject"].as_str().unwrap_or_default();
    assert!(
        subject.starts_with("[Alert] Low wallet balance"),
        "{subject}"
    );
    let text = part(&mail, "text/plain");
    assert!(text.contains("$10.00"), "the balance it fell to: {text}");
    assert!(
        text.contains("/admin/wallet"),
        "a link to the wallet: {text}"
    );
    let rows = alert_email_rows(&app.db).await;
    assert_eq!((rows[0].0.as_str(), rows[0].1), ("sent", 2));

    // Later checks without a new crossing send nothing more, due or not.
    app.db
        .run(|conn| {
            diesel::update(alert_emails::table)
                .set(alert_emails::next_attempt_ms.eq(0_i64))
                .execute(conn)?;
            Ok::<_, DbError>(())
        })
        .await
        .expect("all due");
    owner.get(&app, "/admin/wallet").await;
    owner.get(&app, "/admin/wallet").await;
    assert_eq!(server.received().len(), 1);
    assert_eq!(low_balance_alerts(&app.db).await, (1, 1));
    assert_eq!(alert_email_rows(&app.db).await.len(), 1);

    // A crossing whose email is still failing when the balance recovers: the stale email is
    // dropped, not sent once the server is back.
    drop(server);
    upstream.sandbox.set_balance(50_000).expect("balance");
    owner.get(&app, "/admin/wallet").await;
    upstream.sandbox.set_balance(2_000).expect("balance");
    owner.get(&app, "/admin/wallet").await;
    assert_eq!(low_balance_alerts(&app.db).await, (1, 2));
    upstream.sandbox.set_balance(50_000).expect("balance");
    let Some(server) = SmtpServer::start_on(port) else {
        return;
    };
    app.db
        .run(|conn| {
            diesel::update(alert_emails::table)
                .set(alert_emails::next_attempt_ms.eq(0_i64))
                .execute(conn)?;
            Ok::<_, DbError>(())
        })
        .await
        .expect("all due");
    owner.get(&app, "/admin/wallet").await;
    assert_eq!(low_balance_alerts(&app.db).await, (0, 2));
    let states: Vec<String> = alert_email_rows(&app.db)
        .await
        .into_iter()
        .map(|r| r.0)
        .collect();
    assert_eq!(states, ["sent", "dropped"]);
    assert!(server.received().is_empty());
}

async fn sync_count(db: &Db) -> i64 {
    db.run(|conn| {
        Ok::<_, DbError>(
            storefront::db::schema::catalog_syncs::table
                .count()
                .get_result(conn)?,
        )
    })
    .await
    .expect("count")
}

async fn the_catalog_lists_plans_with_margins_and_owners_sync_it(backend: Backend) {
    let Some((app, _upstream)) = spawn_shop(backend, 120).await else {
        return;
    };
    let owner = owner_on_wallet(&app).await;
    create(&app.db, SUPPORT, Role::Support).await;
    let snap = app.catalog.snapshot();
    let plan = snap
        .plans()
        .iter()
        .find(|p| p.price.is_some() && p.country_code == "US")
        .expect("a priced US plan")
        .clone();
    let price = plan.price.expect("price");
    let margin = storefront::domain::Cents::new(price.get() - plan.cost.get()).to_string();

    let page = owner
        .get(&app, "/admin/catalog?country=US")
        .await
        .assert_status(200)
        .body;
    assert!(page.contains("href=\"/admin/catalog\""), "in the nav");
    let row = page
        .split(&format!("<tr data-plan=\"{}\">", plan.id))
        .nth(1)
        .and_then(|rest| rest.split("</tr>").next())
        .unwrap_or_else(|| panic!("no row for {} in {page}", plan.id));
    assert!(row.contains(&plan.cost.to_string()), "{row}");
    assert!(row.contains(&price.to_string()), "{row}");
    assert!(row.contains(&margin), "{row}");
    let other = snap
        .plans()
        .iter()
        .find(|p| p.country_code != "US")
        .expect("a plan elsewhere");
    assert!(
        !page.contains(&format!("data-plan=\"{}\"", other.id)),
        "filtered"
    );
    assert!(page.contains("Next →"), "more than a page of US plans");
    // Page numbers are the same in the address and on the page.
    assert!(page.contains("Page 1"), "{page}");
    assert!(
        page.contains("href=\"/admin/catalog?country=US&#38;page=2\">Next →")
            || page.contains("href=\"/admin/catalog?country=US&amp;page=2\">Next →"),
        "{page}"
    );
    let second = owner
        .get(&app, "/admin/catalog?country=US&page=2")
        .await
        .body;
    assert!(second.contains("Page 2"), "{second}");
    assert!(
        second.contains("href=\"/admin/catalog?country=US\">← Previous"),
        "{second}"
    );
    assert!(
        !second.contains(&format!("data-plan=\"{}\"", plan.id)),
        "a new page of plans"
    );
    if let Some(region) = snap.regions().first() {
        let page = owner
            .get(&app, &format!("/admin/catalog?region={}", region.slug))
            .await
            .assert_status(200)
            .body;
        assert!(!page.contains(&format!("data-plan=\"{}\"", plan.id)));
    }
    assert_eq!(
        owner.get(&app, "/admin/catalog?country=ZZ").await.status,
        400
    );

    // Sync now: a new history row, reported and audited.
    let before = sync_count(&app.db).await;
    let page = owner.get(&app, "/admin/catalog").await.body;
    assert!(page.contains("Sync now"));
    let token = hidden(&page, "csrf_token");
    owner
        .post(&app, "/admin/catalog/sync", &[("csrf_token", &token)])
        .await
        .assert_redirect_to("/admin/catalog?sync=synced");
    assert_eq!(sync_count(&app.db).await, before + 1);
    let page = owner.get(&app, "/admin/catalog?sync=synced").await.body;
    assert!(page.contains("Catalog synced."));
    assert!(
        page.contains("120 plans") || page.contains(" plans, "),
        "{page}"
    );
    let rows = audit_rows(&app.db).await;
    assert!(
        rows.iter()
            .any(|r| r.1 == "catalog_sync" && r.0 == OWNER && r.3.starts_with("synced: "))
    );

    // Support reads, but cannot sync.
    let support = Browser::default();
    assert_eq!(support.login(&app, SUPPORT, PASSWORD).await.status, 303);
    let page = support
        .get(&app, "/admin/catalog")
        .await
        .assert_status(200)
        .body;
    assert!(!page.contains("Sync now"));
    let token = support.csrf(&app).await;
    assert_eq!(
        support
            .post(&app, "/admin/catalog/sync", &[("csrf_token", &token)])
            .await
            .status,
        403
    );
    assert_eq!(sync_count(&app.db).await, before + 1);
}

/// `(all, open)` email jobs of `kind` for the purchase.
async fn email_jobs(db: &Db, purchase_id: &str, kind: &str) -> (i64, i64) {
    let (id, kind) = (purchase_id.to_string(), kind.to_string());
    db.run(move |conn| {
        use storefront::db::schema::outbox_jobs as j;
        let all = j::table
            .filter(j::purchase_id.eq(&id))
            .filter(j::kind.eq(&kind))
            .count()
            .get_result(conn)?;
        let open = j::table
            .filter(j::purchase_id.eq(&id))
            .filter(j::kind.like("email_%"))
            .filter(j::state.eq_any(["queued", "running"]))
            .count()
            .get_result(conn)?;
        Ok::<_, DbError>((all, open))
    })
    .await
    .expect("jobs")
}

async fn support_resends_the_delivery_email_once_while_one_is_open(backend: Backend) {
    let Some((app, _upstream)) = spawn_shop(backend, 150).await else {
        return;
    };
    create(&app.db, SUPPORT, Role::Support).await;
    let purchase_id = buy_and_wait_fulfilled(&app).await;
    app.drain_outbox().await;
    let sent = app.emails().len();
    assert!(sent >= 1, "the delivery email was sent");
    assert_eq!(
        email_jobs(&app.db, &purchase_id, JobKind::EmailEsimReady.as_str())
            .await
            .0,
        1
    );

    let support = Browser::default();
    assert_eq!(support.login(&app, SUPPORT, PASSWORD).await.status, 303);
    let page = support
        .get(&app, &format!("/admin/orders/{purchase_id}"))
        .await
        .body;
    assert!(page.contains("Resend delivery email"), "{page}");
    assert_eq!(
        support.act(&app, &purchase_id, "resend", " ").await.status,
        400,
        "a reason is required"
    );
    support
        .act(&app, &purchase_id, "resend", "customer lost the email")
        .await
        .assert_redirect_to(format!("/admin/orders/{purchase_id}?done=resend"));
    app.drain_outbox().await;
    assert_eq!(app.emails().len(), sent + 1, "one more email, not two");
    assert_eq!(
        email_jobs(&app.db, &purchase_id, JobKind::EmailEsimReady.as_str())
            .await
            .0,
        2
    );

    // While a delivery email is still open (here: one backing off after a failed send), a
    // click queues nothing more, and says so.
    let id = purchase_id.clone();
    app.db
        .run(move |conn| {
            let now = storefront::db::now_ms();
            storefront::orders::outbox::enqueue(
                conn,
                &as_id(&id),
                storefront::orders::outbox::JobKind::EmailEsimReady,
                now + 3_600_000,
                now,
            )
        })
        .await
        .expect("queue");
    let flash = support
        .act(&app, &purchase_id, "resend", "customer asked again")
        .await
        .assert_status(303)
        .location();
    assert_eq!(
        flash,
        format!("/admin/orders/{purchase_id}?done=resend_open")
    );
    let page = support.get(&app, &flash).await.body;
    assert!(page.contains("already queued: nothing more was added"));
    assert_eq!(
        email_jobs(&app.db, &purchase_id, JobKind::EmailEsimReady.as_str()).await,
        (3, 1)
    );

    // Only a fulfilled order has a delivery email.
    insert_purchase(
        &app.db,
        "unpaid",
        "ana@example.com",
        "awaiting_payment",
        storefront::db::now_ms(),
    )
    .await;
    let page = support.get(&app, "/admin/orders/unpaid").await.body;
    assert!(!page.contains("Resend delivery email"));
    assert_eq!(
        support
            .act(&app, "unpaid", "resend", "why not")
            .await
            .status,
        409
    );

    let rows = audit_rows(&app.db).await;
    let resends: Vec<&str> = rows
        .iter()
        .filter(|r| r.1 == "order_resend_email")
        .map(|r| r.3.as_str())
        .collect();
    assert_eq!(
        resends,
        [
            "customer lost the email (delivery email queued)",
            "customer asked again (a delivery email was already queued; nothing added)",
        ]
    );
    assert!(
        rows.iter()
            .all(|r| r.1 != "order_resend_email" || r.0 == SUPPORT)
    );
}

/// The wallet's transactions lead to the shop's orders they paid for, and the first page shows
/// the available credit after each one, ending at the live balance.
#[tokio::test]
async fn wallet_transactions_link_their_orders_and_show_a_running_balance() {
    let (app, upstream) = spawn_shop(Backend::Sqlite, 60).await.expect("sqlite");
    crate::admin::create(&app.db, crate::admin::OWNER, Role::Owner).await;
    let purchase_id = crate::journeys::buy_and_wait_fulfilled(&app).await;
    let owner = crate::admin::login_as(&app, crate::admin::OWNER).await;
    let page = owner
        .get(&app, "/admin/wallet")
        .await
        .assert_status(200)
        .body;
    assert!(
        page.contains(&format!("href=\"/admin/orders/{purchase_id}\"")),
        "the reservation links its order: {page}"
    );
    assert!(page.contains("Available after"), "{page}");
    let live =
        storefront::domain::Cents::new(upstream.sandbox.balance().available_cents).to_string();
    let first_row = page
        .split("Available after</th>")
        .nth(1)
        .and_then(|rest| rest.split("<tbody>").nth(1))
        .and_then(|rest| rest.split("</tr>").next())
        .unwrap_or_default();
    assert!(
        first_row.contains(&live),
        "the newest transaction ends at the live balance {live}: {first_row}"
    );
}
