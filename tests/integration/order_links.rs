//! The private order links: a token of its own in every email, revoked by an owner from the
//! console (the browsers that opened it lose the page too), expiring after the order is done,
//! links sent before the random tokens still working, and a way back from the payment page
//! that carries no token.

use diesel::prelude::*;
use diesel_migrations::{EmbeddedMigrations, MigrationHarness, embed_migrations};
use storefront::db::schema::{order_link_tokens, purchase_events};
use storefront::db::{Db, DbConn, DbError, now_ms};
use storefront::orders::links::hash_token;
use storefront::staff::Role;
use storefront::web::order_cache::PAGE_TTL;

use crate::admin::{OWNER, SUPPORT, audit_rows, create, insert_purchase, login_as};
use crate::both_backends;
use crate::fixtures::purchase;
use crate::helpers::{Backend, Browser, TestApp, TestDb, spawn_app_on, spawn_shop_with};
use crate::journeys::{buy, decline, pay, purchase_id, sellable_plan, wait_fulfilled};

const SQLITE_MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations/sqlite");
const POSTGRES_MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations/postgres");
/// The migration that made link tokens random, revocable and expiring.
const LINKS_MIGRATION: &str = "20261123000015";

/// What the page for an unknown order says (the same for a revoked or expired link).
const HOW_TO_GET_IN: &str = "private link in the emails";

/// Waits for `count` emails linking to the order page of `id`; returns the links' tokens,
/// in the order written.
async fn wait_for_tokens(app: &TestApp, id: &str, count: usize) -> Vec<String> {
    let marker = format!("/orders/{id}?token=");
    app.wait_for_emails_about(id, count)
        .await
        .iter()
        .filter_map(|m| m.text.split(&marker).nth(1))
        .map(|rest| rest.chars().take_while(char::is_ascii_hexdigit).collect())
        .collect()
}

/// Opens the emailed link in `browser`: the answer to the link, then to the page it leads to.
async fn open_link(app: &TestApp, browser: &Browser, id: &str, token: &str) -> (u16, u16, String) {
    let link_status = browser
        .get(app, &format!("/orders/{id}?token={token}"))
        .await
        .status;
    let page = browser.get(app, &format!("/orders/{id}")).await;
    (link_status, page.status, page.body)
}

/// A purchase bought and paid through the demo provider, fulfilled: its id and the browser
/// that bought it.
async fn fulfilled_purchase(app: &TestApp) -> (String, Browser) {
    let plan = sellable_plan(app);
    let buyer = Browser::default();
    let order_path = pay(
        app,
        &buyer,
        &buy(app, &buyer, &plan, "ana@example.com")
            .await
            .assert_status(303)
            .location(),
    )
    .await
    .assert_status(303)
    .location();
    wait_fulfilled(app, &buyer, &order_path).await;
    (purchase_id(&order_path), buyer)
}

both_backends!(
    revoked_links_and_their_cookies_get_the_unknown_order_page,
    support_emails_a_new_link_for_a_paid_order,
    links_expire_after_the_order_is_done,
    a_link_sent_before_the_migration_still_works,
    a_change_made_elsewhere_reaches_an_ended_orders_page_within_its_ttl
);

/// An ended order's page is kept rendered in memory for `PAGE_TTL`; a change this process did
/// not make (another replica's console, an edit in the database) shows once that has passed.
async fn a_change_made_elsewhere_reaches_an_ended_orders_page_within_its_ttl(backend: Backend) {
    let Some((app, _upstream)) = spawn_shop_with(backend, 20, &[]).await else {
        return;
    };
    let (id, buyer) = fulfilled_purchase(&app).await;
    let path = format!("/orders/{id}");
    assert_eq!(buyer.get(&app, &path).await.status, 200);
    assert_eq!(
        buyer.get(&app, &path).await.status,
        200,
        "kept, and sent again"
    );
    let revoked = id.clone();
    app.db
        .run(move |conn| {
            diesel::update(
                order_link_tokens::table.filter(order_link_tokens::purchase_id.eq(revoked)),
            )
            .set(order_link_tokens::revoked_at_ms.eq(now_ms()))
            .execute(conn)
            .map_err(DbError::from)
        })
        .await
        .expect("revoke behind the shop's back");
    assert_eq!(
        Browser::default().get(&app, &path).await.status,
        404,
        "a browser without the token never gets the kept page"
    );
    tokio::time::sleep(PAGE_TTL).await;
    buyer.get(&app, &path).await.assert_status(404);
}

async fn revoked_links_and_their_cookies_get_the_unknown_order_page(backend: Backend) {
    let Some((app, _upstream)) = spawn_shop_with(backend, 20, &[]).await else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    create(&app.db, SUPPORT, Role::Support).await;
    let (id, buyer) = fulfilled_purchase(&app).await;
    let tokens = wait_for_tokens(&app, &id, 2).await;
    assert_ne!(tokens[0], tokens[1], "each email carries a link of its own");
    let phone = Browser::default();
    let (link, status, page) = open_link(&app, &phone, &id, &tokens[1]).await;
    assert_eq!((link, status), (303, 200), "{page}");
    assert!(page.contains("data-status=\"fulfilled\""));

    // Support may not revoke; the console offers the action to owners only.
    let support = login_as(&app, SUPPORT).await;
    support
        .act(&app, &id, "revoke-links", "forwarded")
        .await
        .assert_status(403);
    let console = support.get(&app, &format!("/admin/orders/{id}")).await.body;
    assert!(!console.contains("Revoke order links"), "{console}");
    let owner = login_as(&app, OWNER).await;
    let console = owner.get(&app, &format!("/admin/orders/{id}")).await.body;
    assert!(
        console.contains("Revoke order links (3 working)"),
        "{console}"
    );
    // Without the console's CSRF token nothing happens.
    owner
        .post(
            &app,
            &format!("/admin/orders/{id}/revoke-links"),
            &[("csrf_token", "forged"), ("reason", "x")],
        )
        .await
        .assert_status(403);
    assert_eq!(
        open_link(&app, &Browser::default(), &id, &tokens[0])
            .await
            .1,
        200
    );

    let done = owner
        .act(&app, &id, "revoke-links", "sent to the wrong address")
        .await
        .assert_redirect_to(format!("/admin/orders/{id}?done=revoke-links"))
        .location();
    let console = owner.get(&app, &done).await.body;
    assert!(console.contains("links are revoked"), "{console}");
    assert!(console.contains("(0 working, 3 revoked)"), "{console}");
    assert!(
        console.contains("Order links revoked by"),
        "on the timeline"
    );
    let audit = audit_rows(&app.db).await;
    let target = format!("purchase:{id}");
    assert!(
        audit
            .iter()
            .any(|(actor, action, on, details)| actor == OWNER
                && action == "order_revoke_links"
                && on.as_deref() == Some(target.as_str())
                && details.contains("sent to the wrong address")
                && details.contains("3 link(s) revoked")),
        "{audit:?}"
    );

    // Every link, and every browser that opened one (the phone, the buyer's own), gets the
    // page an unknown order gets.
    let unknown = Browser::default()
        .get(&app, "/orders/0123456789abcdef0123")
        .await
        .body;
    let before_request_id = |page: &str| {
        page.split("request id")
            .next()
            .unwrap_or_default()
            .to_string()
    };
    for (who, browser) in [("phone", &phone), ("buyer", &buyer)] {
        let answer = browser.get(&app, &format!("/orders/{id}")).await;
        assert_eq!(answer.status, 404, "{who}: {}", answer.body);
        let page = answer.body;
        assert!(page.contains(HOW_TO_GET_IN), "{who}: {page}");
        assert_eq!(
            before_request_id(&page),
            before_request_id(&unknown),
            "{who}"
        );
    }
    for token in &tokens {
        let page = Browser::default()
            .get(&app, &format!("/orders/{id}?token={token}"))
            .await
            .assert_status(404)
            .body;
        assert_eq!(before_request_id(&page), before_request_id(&unknown));
    }

    // The way back: a resent delivery email carries a new link that works.
    owner
        .act(&app, &id, "resend", "new link after revoking")
        .await
        .assert_status(303);
    let tokens = wait_for_tokens(&app, &id, 3).await;
    let fresh = &tokens[2];
    assert!(!tokens[..2].contains(fresh));
    let (link, status, page) = open_link(&app, &phone, &id, fresh).await;
    assert_eq!((link, status), (303, 200), "{page}");
}

async fn support_emails_a_new_link_for_a_paid_order(backend: Backend) {
    let Some((app, _upstream)) = spawn_shop_with(backend, 5, &[]).await else {
        return;
    };
    create(&app.db, SUPPORT, Role::Support).await;
    insert_purchase(
        &app.db,
        "refunded0000000000aa",
        "ana@example.com",
        "refunded",
        now_ms(),
    )
    .await;
    insert_purchase(
        &app.db,
        "unpaid00000000000aaa",
        "bo@example.com",
        "awaiting_payment",
        now_ms(),
    )
    .await;
    let support = login_as(&app, SUPPORT).await;

    let console = support
        .get(&app, "/admin/orders/unpaid00000000000aaa")
        .await
        .body;
    assert!(!console.contains("Email a new link"), "{console}");
    let page = support
        .act(&app, "unpaid00000000000aaa", "send-link", "asked by phone")
        .await
        .assert_status(409)
        .body;
    assert!(page.contains("never paid"), "{page}");

    let console = support
        .get(&app, "/admin/orders/refunded0000000000aa")
        .await
        .body;
    assert!(console.contains("Email a new link"), "{console}");
    support
        .act(&app, "refunded0000000000aa", "send-link", "asked by phone")
        .await
        .assert_redirect_to("/admin/orders/refunded0000000000aa?done=send-link");
    let token = wait_for_tokens(&app, "refunded0000000000aa", 1).await[0].clone();
    let (link, status, page) =
        open_link(&app, &Browser::default(), "refunded0000000000aa", &token).await;
    assert_eq!((link, status), (303, 200), "{page}");
    assert!(page.contains("data-status=\"refunded\""), "{page}");
    assert!(
        audit_rows(&app.db)
            .await
            .iter()
            .any(|(actor, action, _, _)| actor == SUPPORT && action == "order_send_link")
    );
}

async fn links_expire_after_the_order_is_done(backend: Backend) {
    let Some((app, _upstream)) =
        spawn_shop_with(backend, 20, &[("STOREFRONT_ORDER_LINK_DAYS", "2")]).await
    else {
        return;
    };
    let (id, buyer) = fulfilled_purchase(&app).await;
    let token = wait_for_tokens(&app, &id, 2).await[1].clone();
    let phone = Browser::default();
    assert_eq!(open_link(&app, &phone, &id, &token).await.1, 200);

    // Fulfilled a day and 23 hours ago: still open. (Rewriting the past behind the shop's back
    // is seen once the ended order's page, kept for a moment, has been dropped.)
    let day = 86_400_000_i64;
    move_fulfilment_back(&app.db, &id, 2 * day - 3_600_000).await;
    tokio::time::sleep(PAGE_TTL).await;
    assert_eq!(buyer.get(&app, &format!("/orders/{id}")).await.status, 200);
    assert_eq!(
        open_link(&app, &Browser::default(), &id, &token).await.1,
        200
    );

    // Two days and an hour: the link and both cookies get the unknown order's page.
    move_fulfilment_back(&app.db, &id, 2 * 3_600_000).await;
    tokio::time::sleep(PAGE_TTL).await;
    for browser in [&buyer, &phone] {
        let page = browser
            .get(&app, &format!("/orders/{id}"))
            .await
            .assert_status(404)
            .body;
        assert!(page.contains(HOW_TO_GET_IN), "{page}");
    }
    Browser::default()
        .get(&app, &format!("/orders/{id}?token={token}"))
        .await
        .assert_status(404);

    // An unpaid checkout's cookie ends the same way once the payment page has failed.
    let plan = sellable_plan(&app);
    let other = Browser::default();
    let order_path = decline(
        &app,
        &other,
        &buy(&app, &other, &plan, "bo@example.com").await.location(),
    )
    .await
    .assert_status(303)
    .location();
    assert_eq!(other.get(&app, &order_path).await.status, 200);
    let unpaid = purchase_id(&order_path);
    let events = unpaid.clone();
    app.db
        .run(move |conn| {
            diesel::update(purchase_events::table.filter(purchase_events::purchase_id.eq(events)))
                .set(purchase_events::at_ms.eq(purchase_events::at_ms - 3 * day))
                .execute(conn)
                .map_err(DbError::from)
        })
        .await
        .expect("age the timeline");
    tokio::time::sleep(PAGE_TTL).await;
    assert_eq!(other.get(&app, &order_path).await.status, 404);
}

/// Moves the moment `id` was fulfilled `by_ms` into the past.
async fn move_fulfilment_back(db: &Db, id: &str, by_ms: i64) {
    let id = id.to_string();
    let moved = db
        .run(move |conn| {
            diesel::update(
                purchase_events::table
                    .filter(purchase_events::purchase_id.eq(id))
                    .filter(purchase_events::to_status.eq("fulfilled")),
            )
            .set(purchase_events::at_ms.eq(purchase_events::at_ms - by_ms))
            .execute(conn)
            .map_err(DbError::from)
        })
        .await
        .expect("move the fulfilment");
    assert!(moved >= 1);
}

/// Applies the migrations before the one that made tokens random, one at a time.
fn migrate_up_to_links(conn: &mut DbConn) {
    match conn {
        DbConn::Sqlite(c) => {
            let pending = c.pending_migrations(SQLITE_MIGRATIONS).expect("pending");
            for m in pending {
                if m.name().version().to_string() == LINKS_MIGRATION {
                    return;
                }
                c.run_migration(&*m).expect("migration");
            }
        }
        DbConn::Postgres(c) => {
            let pending = c.pending_migrations(POSTGRES_MIGRATIONS).expect("pending");
            for m in pending {
                if m.name().version().to_string() == LINKS_MIGRATION {
                    return;
                }
                c.run_migration(&*m).expect("migration");
            }
        }
    }
    panic!("the order links migration is not among the migrations");
}

async fn a_link_sent_before_the_migration_still_works(backend: Backend) {
    let Some(test_db) = TestDb::new(backend) else {
        return;
    };
    let db = test_db.open();
    // As the shop left the database before: the checkout's hash on the purchase, and one link
    // made under a later secret key in `order_link_tokens`.
    let checkout_token = "7f".repeat(32);
    let later_token = "a0".repeat(32);
    let (checkout_hash, later_hash) = (hash_token(&checkout_token), hash_token(&later_token));
    db.run(move |conn| {
        migrate_up_to_links(conn);
        let mut row = purchase("legacy0000000000aaaa").status("paid").build();
        row.access_token_hash = checkout_hash;
        // The columns of that day only: later migrations fill in the rest.
        use storefront::db::schema::purchases as p;
        diesel::insert_into(p::table)
            .values((
                p::id.eq(&row.id),
                p::status.eq(&row.status),
                p::email.eq(&row.email),
                p::plan_id.eq(&row.plan_id),
                p::price_cents.eq(row.price_cents),
                p::cost_cents.eq(row.cost_cents),
                p::reference.eq(&row.reference),
                p::idempotency_key.eq(&row.idempotency_key),
                p::access_token_hash.eq(&row.access_token_hash),
                p::payment_provider.eq(&row.payment_provider),
                p::expires_at_ms.eq(row.expires_at_ms),
                p::created_at_ms.eq(row.created_at_ms),
                p::updated_at_ms.eq(row.updated_at_ms),
            ))
            .execute(conn)?;
        diesel::sql_query(format!(
            "INSERT INTO order_link_tokens (purchase_id, token_hash, created_at_ms) \
             VALUES ('legacy0000000000aaaa', '{later_hash}', {})",
            now_ms()
        ))
        .execute(conn)?;
        Ok::<_, DbError>(())
    })
    .await
    .expect("the database as it was");
    db.migrate().await.expect("the remaining migrations");
    let rows = db
        .run(|conn| {
            order_link_tokens::table
                .filter(order_link_tokens::purchase_id.eq("legacy0000000000aaaa"))
                .count()
                .get_result::<i64>(conn)
                .map_err(DbError::from)
        })
        .await
        .expect("rows");
    assert_eq!(rows, 2, "both old links are link tokens now");

    let app = spawn_app_on(test_db, db).await;
    let id = "legacy0000000000aaaa";
    for token in [&checkout_token, &later_token] {
        let (link, status, page) = open_link(&app, &Browser::default(), id, token).await;
        assert_eq!((link, status), (303, 200), "{page}");
        assert!(page.contains("data-status=\"paid\""), "{page}");
    }
    Browser::default()
        .get(&app, &format!("/orders/{id}?token={}", "0".repeat(64)))
        .await
        .assert_status(404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_payment_page_returns_to_the_order_page_without_a_token() {
    let (app, _upstream) = spawn_shop_with(Backend::Sqlite, 20, &[])
        .await
        .expect("sqlite");
    let plan = sellable_plan(&app);
    for answer in ["pay", "decline"] {
        let buyer = Browser::default();
        let pay_page = buy(&app, &buyer, &plan, "ana@example.com").await.location();
        assert!(!pay_page.contains("token"), "{pay_page}");
        let back = if answer == "pay" {
            pay(&app, &buyer, &pay_page).await
        } else {
            decline(&app, &buyer, &pay_page).await
        }
        .assert_status(303)
        .location();
        assert!(
            back.starts_with("/orders/") && !back.contains('?'),
            "{back}"
        );
        // The buyer's browser holds the cookie from checkout; another browser does not.
        let own = buyer.get(&app, &back).await;
        assert_eq!(own.status, 200, "{answer}: {}", own.body);
        let page = Browser::default()
            .get(&app, &back)
            .await
            .assert_status(404)
            .body;
        assert!(page.contains(HOW_TO_GET_IN), "{page}");
    }
}
