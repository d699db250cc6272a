//! The admin console's orders: roles and CSRF on the order actions, searching and paging
//! the orders list (by text, status and UTC date range; abandoned checkouts left out unless
//! asked for), and a real order's page and its audited actions.

use diesel::prelude::*;
use storefront::db::schema::{alerts, outbox_jobs, purchase_events};
use storefront::db::{DbError, now_ms, purchases};
use storefront::domain::job::JobKind;
use storefront::staff::Role;

use crate::admin::{Browser, OWNER, SUPPORT, audit_rows, create, insert_purchase, login_as};
use crate::both_backends;
use crate::fixtures::as_id;
use crate::fixtures::purchase;
use crate::helpers::{Backend, spawn_app, spawn_shop, wait_for};
use crate::journeys::buy_and_wait_fulfilled;

both_backends!(
    support_gets_403_on_owner_actions_and_forms_need_csrf,
    orders_are_searched_and_paged,
    orders_are_found_by_utc_date_range_and_pages_keep_the_filters,
    abandoned_checkouts_are_left_out_of_the_list_until_asked_for,
    an_abandoned_checkout_of_three_esims_is_one_abandoned_checkout,
    a_real_order_is_shown_without_installation_values_and_actions_are_audited,
);

async fn support_gets_403_on_owner_actions_and_forms_need_csrf(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    create(&app.db, SUPPORT, Role::Support).await;
    insert_purchase(
        &app.db,
        "p1",
        "ana@example.com",
        "awaiting_payment",
        now_ms(),
    )
    .await;
    app.db
        .run(|conn| {
            storefront::db::alerts::raise_alert(
                conn,
                storefront::domain::AlertKind::NeedsAttention,
                Some(&as_id("p1")),
                "look",
                1,
            )
        })
        .await
        .expect("alert");

    let support = login_as(&app, SUPPORT).await;
    let page = support
        .get(&app, "/admin/orders/p1")
        .await
        .assert_status(200)
        .body;
    assert!(page.contains("Add note"));
    assert!(
        !page.contains("Mark resolved"),
        "support sees no owner forms"
    );
    assert!(
        !page.contains("href=\"/admin/audit\""),
        "nor the audit link"
    );
    assert_eq!(support.get(&app, "/admin/audit").await.status, 403);
    for action in ["retry", "refund", "resolve"] {
        support
            .act(&app, "p1", action, "because")
            .await
            .assert_status(403);
    }
    support
        .act(&app, "p1", "note", "customer called")
        .await
        .assert_redirect_to("/admin/orders/p1?done=note");

    // The owner's forms without a valid token change nothing.
    let owner = login_as(&app, OWNER).await;
    let before = audit_rows(&app.db).await.len();
    for token in ["", "00", &"ab".repeat(32)] {
        for action in ["note", "resolve", "refund"] {
            assert_eq!(
                owner
                    .post(
                        &app,
                        &format!("/admin/orders/p1/{action}"),
                        &[("csrf_token", token), ("reason", "forged")],
                    )
                    .await
                    .status,
                403,
                "{action} with {token:?}"
            );
        }
        assert_eq!(
            owner
                .post(&app, "/admin/logout", &[("csrf_token", token)])
                .await
                .status,
            403
        );
    }
    // A token from another browser does not fit this one's cookie either.
    let stranger_token = Browser::default().csrf(&app).await;
    assert_eq!(
        owner
            .post(
                &app,
                "/admin/orders/p1/resolve",
                &[("csrf_token", &stranger_token), ("reason", "forged")]
            )
            .await
            .status,
        403
    );
    assert_eq!(audit_rows(&app.db).await.len(), before);
    let (events, open_alerts) = app
        .db
        .run(|conn| {
            let events: i64 = purchase_events::table.count().get_result(conn)?;
            let open: i64 = alerts::table
                .filter(alerts::resolved_at_ms.is_null())
                .count()
                .get_result(conn)?;
            Ok::<_, DbError>((events, open))
        })
        .await
        .expect("counts");
    assert_eq!((events, open_alerts), (2, 1), "created + the support note");
    assert_eq!(
        owner.get(&app, "/admin").await.status,
        200,
        "still logged in"
    );

    // With the token, the owner resolves; a reason is required. Without one, the order page
    // comes back with the problem beside the reason field, not the shop's error page.
    let page = owner
        .act(&app, "p1", "resolve", "  ")
        .await
        .assert_status(400)
        .body;
    assert!(
        page.contains(&format!(
            "<h1>Order {}</h1>",
            storefront::domain::purchase::order_number("p1")
        )),
        "{page}"
    );
    assert!(!page.contains("Go to the home page"), "{page}");
    let field = page
        .split("<input id=\"resolve-reason\"")
        .nth(1)
        .and_then(|rest| rest.split('>').next())
        .expect("the reason field is on the page");
    assert!(
        field.contains("aria-invalid=\"true\"")
            && field.contains("aria-describedby=\"resolve-error\""),
        "{field}"
    );
    assert!(
        page.contains(
            "<p id=\"resolve-error\" class=\"error\">Give a reason: it goes into the audit log.</p>"
        ),
        "{page}"
    );
    // A reason that is too long is kept as typed, to be shortened rather than retyped.
    let long = format!("called back {}", "x".repeat(1000));
    let page = owner
        .act(&app, "p1", "resolve", &long)
        .await
        .assert_status(400)
        .body;
    assert!(page.contains(&format!("value=\"{long}\"")), "{page}");
    assert!(page.contains("1000 characters or fewer"), "{page}");
    owner
        .act(&app, "p1", "resolve", "handled by phone")
        .await
        .assert_status(303);
    let page = owner.get(&app, "/admin/orders/p1?done=resolve").await.body;
    assert!(page.contains("Alerts resolved."));
    assert!(
        page.contains("customer called"),
        "the note is on the timeline"
    );
    // Nothing to refund or retry on an unpaid order: the order page says why.
    let page = owner
        .act(&app, "p1", "refund", "why not")
        .await
        .assert_status(409)
        .body;
    assert!(
        page.contains(&format!(
            "<h1>Order {}</h1>",
            storefront::domain::purchase::order_number("p1")
        )),
        "{page}"
    );
    assert!(page.contains("It was never paid"), "{page}");
    assert_eq!(owner.act(&app, "p1", "retry", "why not").await.status, 409);
    assert_eq!(owner.act(&app, "nope", "note", "x").await.status, 404);

    let rows = audit_rows(&app.db).await;
    let tail: Vec<_> = rows
        .iter()
        .filter(|r| r.1.starts_with("order_"))
        .map(|r| (r.0.as_str(), r.1.as_str(), r.2.as_deref()))
        .collect();
    assert_eq!(
        tail,
        [
            (SUPPORT, "order_note", Some("purchase:p1")),
            (OWNER, "order_resolve", Some("purchase:p1")),
        ]
    );
    let audit = owner
        .get(&app, "/admin/audit")
        .await
        .assert_status(200)
        .body;
    assert!(audit.contains("order_resolve") && audit.contains("handled by phone"));
}

async fn orders_are_searched_and_paged(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    create(&app.db, SUPPORT, Role::Support).await;
    let start = now_ms() - 1_000_000;
    for i in 0..27 {
        let email = if i == 3 {
            "Zoe.Smith@Example.com".to_string()
        } else {
            format!("buyer{i}@example.com")
        };
        let status = if i == 5 { "needs_attention" } else { "paid" };
        insert_purchase(
            &app.db,
            &format!("p{i:02}"),
            &email,
            status,
            start + i * 1000,
        )
        .await;
    }
    let browser = login_as(&app, SUPPORT).await;
    let first = browser
        .get(&app, "/admin/orders")
        .await
        .assert_status(200)
        .body;
    assert_eq!(first.matches("href=\"/admin/orders/p").count(), 25);
    assert!(first.contains("/admin/orders/p26\""), "newest first");
    assert!(!first.contains("/admin/orders/p01\""));
    assert!(first.contains("$1,234.56"), "money is formatted");
    assert!(first.contains("Page 1"));
    let older = pager_href(&first, "Older →").expect("an older page");
    assert!(
        older.starts_with("/admin/orders?older=") && older.ends_with(".p02&page=2"),
        "the next page starts after the last order shown: {older}"
    );
    // An order placed while the owner reads page 1 does not push one of its rows onto page 2.
    insert_purchase(&app.db, "p27", "late@example.com", "paid", now_ms()).await;
    let second = browser.get(&app, &older).await.body;
    assert!(second.contains("Page 2"), "the address and the page agree");
    assert!(second.contains("href=\"/admin/orders\">← Newer"));
    assert_eq!(
        second.matches("href=\"/admin/orders/p").count(),
        2,
        "{second}"
    );
    assert!(second.contains("/admin/orders/p01\""));
    assert!(second.contains("/admin/orders/p00\""));
    // Going back from a later page lists the orders just before it.
    let third_back = browser
        .get(&app, &format!("/admin/orders?newer={start}.p00&page=3"))
        .await
        .assert_status(200)
        .body;
    assert_eq!(third_back.matches("href=\"/admin/orders/p").count(), 25);
    assert!(
        third_back.contains("/admin/orders/p25\"") && third_back.contains("/admin/orders/p01\"")
    );
    assert!(
        !third_back.contains("/admin/orders/p26\"") && !third_back.contains("/admin/orders/p00\"")
    );
    assert!(third_back.contains("Page 3"), "{third_back}");
    assert_eq!(
        browser
            .get(&app, "/admin/orders?older=yesterday")
            .await
            .status,
        400
    );

    let find = |query: &'static str| {
        let browser = browser.clone();
        let app = &app;
        async move {
            let page = browser
                .get(app, &format!("/admin/orders?{query}"))
                .await
                .assert_status(200)
                .body;
            page.matches("href=\"/admin/orders/p").count()
        }
    };
    assert_eq!(
        find("q=zoe.smith").await,
        1,
        "the start of the email, any case"
    );
    assert_eq!(find("q=sf-p07").await, 1, "the reference");
    assert_eq!(find("q=p08").await, 1, "the order id");
    assert_eq!(find("q=100%25").await, 0, "LIKE wildcards are literal");
    assert_eq!(find("status=needs_attention").await, 1);
    assert_eq!(find("q=example.com&status=needs_attention").await, 1);
    assert_eq!(
        browser.get(&app, "/admin/orders?status=bogus").await.status,
        400
    );

    // An upstream order id finds its purchase.
    app.db
        .run(|conn| {
            storefront::db::purchases::set_upstream_order(conn, &as_id("p09"), "ord_upstream_42", 1)
        })
        .await
        .expect("set order");
    assert_eq!(find("q=ord_upstream_42").await, 1);

    // The order number a customer quotes finds the order, however it is typed.
    insert_purchase(
        &app.db,
        "3fa29c1e0b7d4411aa02",
        "quoted@example.com",
        "paid",
        start,
    )
    .await;
    for typed in ["SF-3FA2-9C1E", "sf-3fa2-9c1e", "3FA2-9C1E"] {
        let page = browser
            .get(&app, &format!("/admin/orders?q={typed}"))
            .await
            .body;
        assert!(
            page.contains("href=\"/admin/orders/3fa29c1e0b7d4411aa02\""),
            "{typed}: {page}"
        );
        assert_eq!(page.matches("href=\"/admin/orders/p").count(), 0, "{typed}");
    }

    // The dashboard lists the order that needs attention.
    let dashboard = browser.get(&app, "/admin").await.body;
    assert!(
        dashboard.contains("href=\"/admin/orders/p05\""),
        "{dashboard}"
    );
}

/// The order links on an orders page, in order.
fn listed_orders(page: &str) -> Vec<String> {
    page.split("href=\"/admin/orders/")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .map(str::to_string)
        .collect()
}

/// The `href` of the pager link labelled `label`, unescaped.
fn pager_href(page: &str, label: &str) -> Option<String> {
    let before = page.split(&format!("\">{label}</a>")).next()?;
    (before.len() < page.len()).then(|| {
        before
            .rsplit("href=\"")
            .next()
            .unwrap_or_default()
            .replace("&#38;", "&")
            .replace("&amp;", "&")
    })
}

async fn orders_are_found_by_utc_date_range_and_pages_keep_the_filters(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    create(&app.db, SUPPORT, Role::Support).await;
    // 2026-03-10T00:00:00Z, and the edges of that UTC day.
    let march_10 = 1_773_100_800_000_i64;
    let day = 86_400_000_i64;
    for (id, at) in [
        ("d-before", march_10 - 1),
        ("d-first", march_10),
        ("d-last", march_10 + day - 1),
        ("d-after", march_10 + day),
    ] {
        insert_purchase(&app.db, id, &format!("{id}@example.com"), "paid", at).await;
    }
    // A busy day: more than a page of orders on 2026-03-05.
    for i in 0..27 {
        insert_purchase(
            &app.db,
            &format!("busy{i:02}"),
            "busy@example.com",
            if i % 2 == 0 { "paid" } else { "fulfilled" },
            march_10 - 5 * day + i * 60_000,
        )
        .await;
    }
    let browser = login_as(&app, SUPPORT).await;
    let page = browser
        .get(&app, "/admin/orders")
        .await
        .assert_status(200)
        .body;
    assert!(page.contains("type=\"date\""), "date pickers: {page}");
    assert!(page.contains("UTC"), "the page says which days");

    let find = |query: &'static str| {
        let browser = browser.clone();
        let app = &app;
        async move {
            let page = browser
                .get(app, &format!("/admin/orders?{query}"))
                .await
                .assert_status(200)
                .body;
            let mut ids = listed_orders(&page);
            ids.retain(|id| id.starts_with("d-"));
            ids
        }
    };
    assert_eq!(
        find("from=2026-03-10&to=2026-03-10").await,
        ["d-last", "d-first"],
        "the whole UTC day, its last millisecond included"
    );
    assert_eq!(
        find("from=2026-03-10").await,
        ["d-after", "d-last", "d-first"]
    );
    assert_eq!(
        find("to=2026-03-10").await,
        ["d-last", "d-first", "d-before"]
    );
    assert_eq!(find("from=2026-03-11&to=2026-03-11").await, ["d-after"]);
    assert_eq!(
        find("q=d-first&from=2026-03-10&to=2026-03-10").await,
        ["d-first"],
        "combined with the text search"
    );
    assert_eq!(find("from=2026-03-09&to=2026-03-09").await, ["d-before"]);
    assert!(find("from=2026-03-12").await.is_empty());

    // Bad dates and a reversed range: the orders page with a message, the filters kept.
    for (query, message, kept) in [
        ("from=2026-02-30", "“2026-02-30” is not a date", ""),
        (
            "to=31%2F12%2F2026&q=busy",
            "“31/12/2026” is not a date",
            "value=\"busy\"",
        ),
        (
            "from=2026-03-11&to=2026-03-10",
            "is after the “to” date",
            "value=\"2026-03-11\"",
        ),
    ] {
        let page = browser
            .get(&app, &format!("/admin/orders?{query}"))
            .await
            .assert_status(400)
            .body;
        assert!(page.contains("<h1>Orders</h1>"), "the orders page: {page}");
        assert!(page.contains("role=\"alert\""), "{page}");
        assert!(page.contains(message), "{query}: {page}");
        assert!(page.contains("aria-invalid=\"true\""), "{page}");
        assert!(page.contains(kept), "{query}: {page}");
        assert!(listed_orders(&page).is_empty(), "nothing listed: {page}");
    }

    // Paging through the busy day keeps every filter in the links.
    let first = browser
        .get(
            &app,
            "/admin/orders?q=busy&status=paid&from=2026-03-05&to=2026-03-05",
        )
        .await
        .body;
    assert_eq!(listed_orders(&first).len(), 14, "the paid half: {first}");
    assert!(pager_href(&first, "Older →").is_none(), "one page");
    let first = browser
        .get(&app, "/admin/orders?from=2026-03-05&to=2026-03-05")
        .await
        .body;
    assert_eq!(listed_orders(&first).len(), 25);
    let older = pager_href(&first, "Older →").expect("an older page");
    assert!(
        older.starts_with("/admin/orders?from=2026-03-05&to=2026-03-05&older=")
            && older.ends_with(".busy02&page=2"),
        "{older}"
    );
    let second = browser.get(&app, &older).await.body;
    assert_eq!(listed_orders(&second), ["busy01", "busy00"]);
    assert!(
        second.contains("value=\"2026-03-05\""),
        "the form keeps the dates"
    );
    assert_eq!(
        pager_href(&second, "← Newer").as_deref(),
        Some("/admin/orders?from=2026-03-05&to=2026-03-05")
    );
}

async fn a_real_order_is_shown_without_installation_values_and_actions_are_audited(
    backend: Backend,
) {
    let Some((app, _upstream)) = spawn_shop(backend, 150).await else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    let purchase_id = buy_and_wait_fulfilled(&app).await;
    let key = storefront::orders::installation::InstallationKey::derive(
        &storefront::config::SecretKey::parse(&"ab".repeat(32)).expect("key"),
    );
    let lookup = purchase_id.clone();
    let install = app
        .db
        .run(move |conn| {
            storefront::orders::installation::load_installation(conn, &key, &as_id(&lookup))
                .map_err(|e| DbError::Task(e.to_string()))
        })
        .await
        .expect("load")
        .expect("installed");
    let iccid = install.iccid.expose().clone();
    let code = install.activation_code.expose().clone();
    assert!(iccid.len() > 8);

    let owner = login_as(&app, OWNER).await;
    let page = owner
        .get(&app, &format!("/admin/orders/{purchase_id}"))
        .await
        .assert_status(200)
        .body;
    assert!(page.contains("data-status=\"fulfilled\""), "{page}");
    assert!(page.contains(&format!("…{}", &iccid[iccid.len() - 4..])));
    assert!(!page.contains(&iccid), "the full ICCID is never shown");
    assert!(!page.contains(&code), "the activation code is never shown");
    let matching = code.rsplit('$').next().unwrap_or_default();
    assert!(!page.contains(matching));
    assert!(!page.contains("<svg"), "no QR");
    assert!(
        page.contains("Placing the order with the supplier"),
        "the order's work is listed in words: {page}"
    );
    assert!(page.contains("Refund"));

    let dashboard = owner.get(&app, "/admin").await.body;
    assert!(dashboard.contains("Last 7 days"));
    let sales_table = dashboard
        .split("id=\"sales\"")
        .nth(1)
        .and_then(|rest| rest.split("</section>").next())
        .expect("the sales table");
    assert!(
        !sales_table.contains("<td class=\"num\">0</td><td class=\"num\">$0.00</td>"),
        "today's sale is counted: {dashboard}"
    );

    // Actions: note, retry (nothing queued: 409), refund, resolve.
    owner
        .act(&app, &purchase_id, "note", "checked by owner")
        .await
        .assert_status(303);
    assert_eq!(
        owner.act(&app, &purchase_id, "retry", "nudge").await.status,
        409
    );
    // The eSIM was bought from the wallet: a plain refund is refused and says why; the
    // explicit "refund and keep the cost" goes through.
    let refused = owner
        .act(&app, &purchase_id, "refund", "customer cancelled the trip")
        .await
        .assert_status(409)
        .body;
    assert!(refused.contains("Refund and keep the cost"), "{refused}");
    owner
        .act(
            &app,
            &purchase_id,
            "refund-keep-cost",
            "customer cancelled the trip",
        )
        .await
        .assert_redirect_to(format!("/admin/orders/{purchase_id}?done=refund-keep-cost"));
    assert_eq!(
        owner
            .act(&app, &purchase_id, "refund-keep-cost", "again")
            .await
            .status,
        409,
        "one refund at a time"
    );
    let status = owner
        .act(&app, &purchase_id, "resolve", "refunded")
        .await
        .status;
    assert_eq!(status, 303);

    // The demo provider refunds: the purchase ends refunded.
    wait_for("the purchase to be refunded", async || {
        let lookup = purchase_id.clone();
        let status = app
            .db
            .run(move |conn| purchases::find(conn, &as_id(&lookup)))
            .await
            .expect("find")
            .expect("purchase")
            .status;
        if status.as_str() == "refunded" {
            Ok(())
        } else {
            Err(status.to_string())
        }
    })
    .await;
    let refund_jobs: i64 = app
        .db
        .run(|conn| {
            Ok::<_, DbError>(
                outbox_jobs::table
                    .filter(outbox_jobs::kind.eq(JobKind::Refund.as_str()))
                    .count()
                    .get_result(conn)?,
            )
        })
        .await
        .expect("jobs");
    assert_eq!(refund_jobs, 1);
    let page = owner
        .get(&app, &format!("/admin/orders/{purchase_id}"))
        .await
        .body;
    assert!(page.contains("checked by owner"));
    assert!(
        page.contains("customer cancelled the trip"),
        "the refund reason"
    );
    assert!(!page.contains(&code) && !page.contains(&iccid));

    let rows = audit_rows(&app.db).await;
    let target = format!("purchase:{purchase_id}");
    let order_actions: Vec<&str> = rows
        .iter()
        .filter(|r| r.2.as_deref() == Some(target.as_str()))
        .map(|r| r.1.as_str())
        .collect();
    assert_eq!(
        order_actions,
        ["order_note", "order_refund", "order_resolve"]
    );
    assert!(
        rows.iter()
            .any(|r| r.1 == "order_refund" && r.3.contains("customer cancelled the trip"))
    );
}

/// Checkouts nobody paid whose payment page has closed pile up; the list leaves them out by
/// default, says how many it left out, and shows them (labelled) when asked, before and after
/// the expiry sweep moves them to `payment_failed`.
async fn abandoned_checkouts_are_left_out_of_the_list_until_asked_for(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    create(&app.db, SUPPORT, Role::Support).await;
    let now = now_ms();
    // (id, status, created, expires after creation)
    let rows = [
        ("a-paid", "paid", now - 7_200_000, 1_800_000),
        ("a-open", "awaiting_payment", now - 60_000, 1_800_000),
        ("a-gone1", "awaiting_payment", now - 7_200_000, 1_800_000),
        ("a-gone2", "awaiting_payment", now - 3_600_000, 1_800_000),
        ("a-declined", "payment_failed", now - 5_400_000, 1_800_000),
        ("a-declined-now", "payment_failed", now - 60_000, 1_800_000),
    ];
    for (id, status, created, expires) in rows {
        let new = purchase(id)
            .status(status)
            .email(&format!("{id}@example.com"))
            .created(created)
            .expires_in(expires)
            .build();
        app.db
            .run(move |conn| purchases::insert(conn, &new, "created"))
            .await
            .expect("insert");
    }
    let browser = login_as(&app, SUPPORT).await;
    let listed = |page: &str| -> Vec<String> {
        page.split("href=\"/admin/orders/")
            .skip(1)
            .filter_map(|rest| rest.split('"').next())
            .map(str::to_string)
            .collect()
    };
    let check = async |sweep: &str| {
        let page = browser
            .get(&app, "/admin/orders")
            .await
            .assert_status(200)
            .body;
        assert_eq!(
            listed(&page),
            ["a-open", "a-declined-now", "a-paid"],
            "{sweep}: the default list leaves the abandoned checkouts out"
        );
        assert!(
            page.contains("3 abandoned checkouts (never paid, payment page closed) are not listed"),
            "{sweep}: {page}"
        );
        assert!(!page.contains("Abandoned checkout<"), "{page}");
        assert!(page.contains("href=\"/admin/orders?status=abandoned\">Show abandoned checkouts"));

        let page = browser
            .get(&app, "/admin/orders?status=abandoned")
            .await
            .assert_status(200)
            .body;
        assert_eq!(
            listed(&page),
            ["a-gone2", "a-declined", "a-gone1"],
            "{sweep}: the filter shows them"
        );
        assert_eq!(
            page.matches(">Abandoned checkout</span>").count(),
            3,
            "{page}"
        );
        assert!(
            page.contains("value=\"abandoned\" selected"),
            "the filter stays chosen"
        );
        assert!(!page.contains("data-hidden-abandoned"));

        // A search narrows the note's count and its link keeps the search.
        let page = browser.get(&app, "/admin/orders?q=a-gone").await.body;
        assert!(listed(&page).is_empty(), "{page}");
        assert!(page.contains("2 abandoned checkouts"), "{page}");
        assert!(
            page.contains("href=\"/admin/orders?q=a-gone&#38;status=abandoned\""),
            "{page}"
        );
    };
    check("before the sweep").await;
    // Choosing an unpaid status lists its abandoned checkouts too, labelled.
    let page = browser
        .get(&app, "/admin/orders?status=awaiting_payment")
        .await
        .body;
    assert_eq!(listed(&page), ["a-open", "a-gone2", "a-gone1"]);
    assert_eq!(page.matches(">Abandoned checkout</span>").count(), 2);
    assert_eq!(page.matches(">Awaiting payment</span>").count(), 1);
    // Its own page says so too; a checkout still open does not.
    let page = browser.get(&app, "/admin/orders/a-gone1").await.body;
    assert!(page.contains(">Abandoned checkout</span>"), "{page}");
    let page = browser.get(&app, "/admin/orders/a-open").await.body;
    assert!(page.contains(">Awaiting payment</span>"), "{page}");

    let moved = app
        .db
        .run(move |conn| storefront::orders::checkout::expire_unpaid(conn, now_ms()))
        .await
        .expect("sweep");
    assert_eq!(moved, 2, "the sweep moves the two expired unpaid checkouts");
    check("after the sweep").await;
}

/// A checkout of three eSIMs nobody paid is one abandoned checkout on the orders list, not
/// three.
async fn an_abandoned_checkout_of_three_esims_is_one_abandoned_checkout(backend: Backend) {
    use storefront::db::schema::purchases as table;

    let Some(app) = spawn_app(backend).await else {
        return;
    };
    create(&app.db, SUPPORT, Role::Support).await;
    crate::helpers::checkout_of(&app.db, "three-gone", 3, "cs_three_gone").await;
    // Its payment page closed an hour ago.
    let closed = now_ms() - 3_600_000;
    app.db
        .run(move |conn| {
            diesel::update(table::table.filter(table::checkout_id.eq("three-gone")))
                .set(table::expires_at_ms.eq(closed))
                .execute(conn)
                .map_err(storefront::db::DbError::from)
        })
        .await
        .expect("closed");
    let browser = login_as(&app, SUPPORT).await;
    let page = browser
        .get(&app, "/admin/orders")
        .await
        .assert_status(200)
        .body;
    assert!(page.contains("data-hidden-abandoned=\"1\""), "{page}");
    assert!(
        page.contains("1 abandoned checkout (never paid, payment page closed) is not listed."),
        "{page}"
    );
}
