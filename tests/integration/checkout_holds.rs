//! Sales a visitor cannot block: unpaid checkouts hold little wallet credit for little time,
//! an IPv6 /64 counts as one client for the holds, the checkout rate limit and the login
//! throttle, and no checkout sends anything upstream while upstream rate-limits the shop.

use std::sync::Arc;
use std::time::Duration;

use diesel::prelude::*;
use storefront::catalog::ShopPlan;
use storefront::db::schema::{checkout_holds, purchases};
use storefront::db::{Db, DbError, now_ms};
use storefront::orders::checkout::{
    LIVE_READS_PER_MINUTE, MAX_HOLDS_PER_CLIENT, MAX_HOLDS_PER_EMAIL,
};
use storefront::sandbox::Fault;

use crate::admin::{OWNER, PASSWORD, create};
use crate::both_backends;
use crate::checkout::{age_catalog, age_wallet};
use crate::helpers::{
    Answer, Backend, Browser, TestApp, client_builder, spawn_app_with, spawn_shop, spawn_shop_with,
    wait_for, wait_until,
};
use crate::journeys::{answer, buy, open_pay_page, purchase_id, sellable_plan};

/// A browser behind the shop's trusted proxy, which reports it as `addr`.
fn via(addr: &str) -> Browser {
    Browser::with_client(
        client_builder(&[("x-forwarded-for", addr)])
            .build()
            .expect("client"),
    )
}

/// Holds still running, by client key or by email key: (count, cents).
async fn running_holds(db: &Db, client: Option<&str>, email: Option<&str>) -> (usize, i64) {
    let (client, email) = (client.map(str::to_string), email.map(str::to_string));
    let costs: Vec<i64> = db
        .run(move |conn| {
            let mut query = checkout_holds::table
                .filter(checkout_holds::expires_at_ms.gt(now_ms()))
                .select(checkout_holds::cost_cents)
                .into_boxed();
            if let Some(client) = client {
                query = query.filter(checkout_holds::client_key.eq(client));
            }
            if let Some(email) = email {
                query = query.filter(checkout_holds::email_key.eq(email));
            }
            query.load(conn).map_err(DbError::from)
        })
        .await
        .expect("holds");
    (costs.len(), costs.iter().sum())
}

/// Runs one checkout per (browser, email) at once; returns the answers' statuses.
async fn checkouts_at_once(
    app: &Arc<TestApp>,
    plan: &ShopPlan,
    buyers: Vec<(Browser, String)>,
) -> Vec<u16> {
    let tasks: Vec<_> = buyers
        .into_iter()
        .map(|(browser, email)| {
            let (app, plan) = (Arc::clone(app), plan.clone());
            tokio::spawn(async move { buy(&app, &browser, &plan, &email).await.status })
        })
        .collect();
    let mut statuses = Vec::new();
    for task in tasks {
        statuses.push(task.await.expect("task"));
    }
    statuses
}

/// Pays `checkout` (its answer, a redirect to the demo page); returns the purchase id.
async fn pay(app: &TestApp, browser: &Browser, checkout: &Answer) -> String {
    let demo = open_pay_page(app, browser, &checkout.location()).await;
    assert_eq!(demo.status, 200);
    let back = answer(app, browser, &demo.session, &demo.token, "pay")
        .await
        .assert_status(303)
        .location();
    purchase_id(&back)
}

both_backends!(unpaid_checkouts_cannot_lock_a_paying_customer_out);

async fn unpaid_checkouts_cannot_lock_a_paying_customer_out(backend: Backend) {
    let Some((app, upstream)) =
        spawn_shop_with(backend, 150, &[("STOREFRONT_TRUSTED_PROXIES", "127.0.0.1")]).await
    else {
        return;
    };
    let plan = sellable_plan(&app);
    let cost = plan.cost.get();
    upstream.sandbox.set_balance(cost * 100).expect("balance");
    age_wallet(&app.db).await;
    let app = Arc::new(app);

    // 50 unpaid checkouts from one IPv4 address and 50 from fresh addresses inside one IPv6
    // /64, all at once, each with its own email. Every one gets its payment page.
    let mut buyers: Vec<(Browser, String)> = (0..50)
        .map(|i| (Browser::default(), format!("v4-{i}@example.com")))
        .collect();
    buyers.extend((0..50).map(|i| {
        (
            via(&format!("2001:db8:5:6:{i:x}:{i:x}::1")),
            format!("v6-{i}@example.com"),
        )
    }));
    let statuses = checkouts_at_once(&app, &plan, buyers).await;
    assert!(statuses.iter().all(|s| *s == 303), "{statuses:?}");
    // Each of the two clients holds credit for its newest checkouts only.
    let v4 = running_holds(&app.db, Some("127.0.0.1"), None).await;
    let v6 = running_holds(&app.db, Some("2001:db8:5:6::/64"), None).await;
    assert_eq!(v4, (MAX_HOLDS_PER_CLIENT, cost * 3), "one IPv4 client");
    assert_eq!(v6, (MAX_HOLDS_PER_CLIENT, cost * 3), "one IPv6 /64");

    // One email from many addresses is capped the same way.
    for i in 0..5 {
        let browser = via(&format!("198.51.100.{}", 10 + i));
        let email = format!("Same+{i}@Example.com");
        assert_eq!(buy(&app, &browser, &plan, &email).await.status, 303);
    }
    let same = running_holds(&app.db, None, Some("same@example.com")).await;
    assert_eq!(same.0, MAX_HOLDS_PER_EMAIL);

    // The wallet drops to five and a half plans. The holds still running (more than the
    // wallet: uncapped, they alone would refuse every sale) count only up to their share.
    let (_, held) = running_holds(&app.db, None, None).await;
    let balance = cost * 5 + cost / 2;
    assert!(held > balance, "held {held}, wallet {balance}");
    upstream.sandbox.set_balance(balance).expect("balance");
    age_wallet(&app.db).await;
    let buyers: Vec<(Browser, String)> = (50..100)
        .map(|i| (Browser::default(), format!("v4-{i}@example.com")))
        .collect();
    let statuses = checkouts_at_once(&app, &plan, buyers).await;
    assert!(statuses.iter().all(|s| *s == 303), "{statuses:?}");

    // A customer from elsewhere buys, pays, and gets the eSIM ordered upstream.
    let payer = Browser::from_address("127.0.0.2");
    let answer = buy(&app, &payer, &plan, "payer@example.com").await;
    let status = answer.status;
    assert_eq!(status, 303, "{}", answer.body);
    let purchase_id = pay(&app, &payer, &answer).await;
    wait_for("the paying customer's order to be placed", async || {
        let stats = upstream.sandbox.stats();
        if stats
            .orders_by_reference
            .contains_key(&format!("sf-{purchase_id}"))
        {
            Ok(())
        } else {
            Err(format!("{stats:?}"))
        }
    })
    .await;
    let unpaid: i64 = app
        .db
        .run(|conn| {
            purchases::table
                .filter(purchases::status.eq("awaiting_payment"))
                .count()
                .get_result(conn)
                .map_err(DbError::from)
        })
        .await
        .expect("count");
    assert_eq!(unpaid, 155, "every unpaid checkout is still payable");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_checkout_reaches_upstream_while_it_rate_limits_the_shop() {
    let (app, upstream) = spawn_shop(Backend::Sqlite, 150).await.expect("sqlite");
    let plan = sellable_plan(&app);
    let sent = || upstream.sandbox.stats().api_requests;
    let browser = Browser::default();
    // The wallet is read once (the first checkout, or the shop's own watch).
    assert_eq!(
        buy(&app, &browser, &plan, "first@example.com").await.status,
        303
    );

    // Right after a sync the catalog is the live price: checkouts send nothing.
    let before = sent();
    for i in 0..5 {
        assert_eq!(
            buy(&app, &browser, &plan, &format!("f{i}@example.com"))
                .await
                .status,
            303
        );
    }
    assert_eq!(
        sent(),
        before,
        "a fresh catalog is not re-read per checkout"
    );

    // An older catalog is re-read live, one request per checkout...
    age_catalog(&app, Duration::from_secs(5 * 60)).await;
    assert_eq!(
        buy(&app, &browser, &plan, "live@example.com").await.status,
        303
    );
    assert_eq!(sent(), before + 1);

    // ...until upstream answers 429: that checkout still sells from the catalog, and from then
    // on nothing is sent, not even the re-read of a stale wallet.
    upstream.sandbox.inject(Fault::RateLimitBurst {
        count: 1000,
        retry_after_secs: 120,
    });
    assert_eq!(
        buy(&app, &browser, &plan, "met429@example.com")
            .await
            .status,
        303
    );
    let limited = sent();
    assert_eq!(limited, before + 2, "the one request that met the 429");
    age_wallet(&app.db).await;
    for i in 0..20 {
        assert_eq!(
            buy(&app, &browser, &plan, &format!("g{i}@example.com"))
                .await
                .status,
            303
        );
    }
    assert_eq!(
        sent(),
        limited,
        "a checkout reached upstream behind a closed gate"
    );

    // A catalog too old to vouch for: the sale is refused as temporarily unavailable, still
    // without asking upstream.
    age_catalog(&app, Duration::from_secs(2 * 3600)).await;
    buy(&app, &browser, &plan, "old@example.com")
        .await
        .assert_status(503);
    assert_eq!(sent(), limited);
}

/// A flood of checkouts from many clients, with a catalog too old to be the live price:
/// each process re-reads at most its budget, then sells from the catalog, so the flood never
/// spends the upstream rate limit that paid orders need.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_checkout_flood_spends_only_the_live_read_budget() {
    let (app, upstream) = spawn_shop(Backend::Sqlite, 150).await.expect("sqlite");
    let plan = sellable_plan(&app);
    age_catalog(&app, Duration::from_secs(5 * 60)).await;
    // The shop's watch reads the wallet on start, so the first checkout spends one live read
    // (the price) rather than two.
    wallet_read(&app.db).await;
    assert_eq!(
        buy(&app, &Browser::default(), &plan, "w@example.com")
            .await
            .status,
        303
    );
    let before = upstream.sandbox.stats().api_requests;
    let budget = u64::from(LIVE_READS_PER_MINUTE) - 1;
    for i in 0..budget + 10 {
        let browser = Browser::from_address(&format!("127.0.2.{}", i + 1));
        let email = format!("flood{i}@example.com");
        assert_eq!(buy(&app, &browser, &plan, &email).await.status, 303);
    }
    assert_eq!(upstream.sandbox.stats().api_requests - before, budget);
}

/// Waits for the shop's first balance read (its wallet watch reads on start).
async fn wallet_read(db: &Db) {
    wait_until("the wallet's first read", async || {
        let row = db
            .run(storefront::db::wallet::get)
            .await
            .expect("wallet row");
        row.is_some_and(|w| w.refreshed_at_ms > 0)
    })
    .await;
}

/// `n` sales at once, each from its own address.
async fn sales_at_once(app: &Arc<TestApp>, plan: &ShopPlan, n: u8, tag: &str) {
    let buyers = (0..n)
        .map(|i| {
            let browser = Browser::from_address(&format!("127.0.3.{}", i + 1));
            (browser, format!("{tag}{i}@example.com"))
        })
        .collect();
    let statuses = checkouts_at_once(app, plan, buyers).await;
    assert!(statuses.iter().all(|s| *s == 303), "{statuses:?}");
}

/// Checkouts that find the stored balance a minute old share one `GET /balance`, through the
/// same reader as the rest of the shop; while the balance read fails (a brownout) they sell on
/// the stored balance instead of each retrying it, so a checkout flood cannot push the shop,
/// paid placements included, into the supplier's rate limit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn checkouts_with_a_stale_balance_share_one_balance_read() {
    let (app, upstream) = spawn_shop(Backend::Sqlite, 150).await.expect("sqlite");
    let plan = sellable_plan(&app);
    wallet_read(&app.db).await;
    let app = Arc::new(app);
    let sent = || upstream.sandbox.stats().api_requests;

    // The catalog was just synced (the price is live), the balance is a minute old.
    age_wallet(&app.db).await;
    let before = sent();
    sales_at_once(&app, &plan, 20, "stale").await;
    assert_eq!(sent() - before, 1, "one balance read for the whole burst");

    // The balance read fails on every try now: one read (with its retries) for the burst.
    age_wallet(&app.db).await;
    upstream.sandbox.inject(Fault::UnavailableBurst(1000));
    let before = sent();
    sales_at_once(&app, &plan, 20, "brownout").await;
    let brownout = sent() - before;
    assert!(
        (1..=3).contains(&brownout),
        "one balance read and its retries, not one per checkout: {brownout} requests"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_checkout_rate_limit_counts_an_ipv6_64_once() {
    let (app, _upstream) = spawn_shop_with(
        Backend::Sqlite,
        120,
        &[
            ("STOREFRONT_TRUSTED_PROXIES", "127.0.0.1"),
            ("STOREFRONT_CHECKOUT_RATE_LIMIT", "3"),
        ],
    )
    .await
    .expect("sqlite");
    let plan = sellable_plan(&app);
    for i in 1..=3 {
        let browser = via(&format!("2001:db8:9:9::{i}"));
        assert_eq!(
            buy(&app, &browser, &plan, "a@example.com").await.status,
            303
        );
    }
    let fresh_address = via("2001:db8:9:9:ffff:1234:5678:9abc");
    let answer = buy(&app, &fresh_address, &plan, "kept@example.com").await;
    assert_eq!(
        answer.status, 429,
        "a new address in the same /64 is the same client"
    );
    let Answer {
        body: page,
        headers,
        ..
    } = answer;
    // The plan page with its form and what was typed, saying to wait: not a dead end.
    assert!(page.contains("Too many checkout attempts"), "{page}");
    assert!(page.contains("value=\"kept@example.com\""), "{page}");
    assert!(page.contains("action=\"/checkout\""), "{page}");
    assert_eq!(headers["retry-after"], "60");
    let next_network = via("2001:db8:9:a::1");
    assert_eq!(
        buy(&app, &next_network, &plan, "a@example.com")
            .await
            .status,
        303
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_failures_from_one_ipv6_64_share_one_throttle() {
    let app = spawn_app_with(
        Backend::Sqlite,
        &[("STOREFRONT_TRUSTED_PROXIES", "127.0.0.1")],
    )
    .await
    .expect("sqlite");
    create(&app.db, OWNER, storefront::staff::Role::Owner).await;
    for i in 1..=5 {
        let guesser = via(&format!("2001:db8:77:1:{i:x}::{i:x}"));
        assert_eq!(guesser.login(&app, OWNER, "guess").await.status, 401);
    }
    via("2001:db8:77:1:abcd::1")
        .login(&app, OWNER, PASSWORD)
        .await
        .assert_status(429);
    // The owner, from another network, is not held up; the log shows full addresses.
    assert_eq!(
        via("2001:db8:77:2::1")
            .login(&app, OWNER, PASSWORD)
            .await
            .status,
        303
    );
    let addrs: Vec<String> = app
        .db
        .run(|conn| {
            storefront::db::schema::admin_audit::table
                .filter(storefront::db::schema::admin_audit::action.eq("login_failed"))
                .select(storefront::db::schema::admin_audit::client_addr)
                .load(conn)
                .map_err(DbError::from)
        })
        .await
        .expect("audit");
    assert!(
        addrs.contains(&"2001:db8:77:1:3::3".to_string()),
        "{addrs:?}"
    );
}
