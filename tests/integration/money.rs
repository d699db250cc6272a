//! One margin everywhere: paid − refunded − tax − supplier cost. Orders in each state a sale can
//! end in (fulfilled, refunded keeping the cost, refunded with the cost given back by
//! upstream, sold with a promotion code) show the same margin on the console's order page,
//! in the orders CSV, on the dashboard and in the books; the daily roll-up the dashboard
//! reads, kept up by those payments and refunds, equals a fresh count of the purchases.

use std::collections::HashMap;

use storefront::catalog::ShopPlan;
use storefront::db::{daily_sales, now_ms};
use storefront::domain::takings::utc_day_start;
use storefront::sandbox::Outcome;
use storefront::staff::Role;

use crate::admin::{Browser, OWNER, create, login_as};
use crate::both_backends;
use crate::checkout::age_wallet;
use crate::helpers::{Answer, Backend, TestApp, spawn_shop, wait_for};
use crate::journeys::{buy, pay, purchase_id, sellable_plan, wait_fulfilled};
use crate::promo::{add_code, buy_with_code};

both_backends!(one_margin_on_the_order_page_the_csv_the_dashboard_and_the_books);

/// Buys `plan` (with `code` when given), pays, and returns the buyer's browser and the
/// order's private path.
async fn bought(app: &TestApp, plan: &ShopPlan, code: Option<&str>) -> (Browser, String) {
    let shopper = Browser::default();
    let checkout = match code {
        Some(code) => buy_with_code(app, &shopper, plan, "buyer@example.com", code).await,
        None => buy(app, &shopper, plan, "buyer@example.com").await,
    };
    let pay_path = checkout.assert_status(303).location();
    let pay_path = pay_path.strip_prefix(&app.address).unwrap_or(&pay_path);
    let order_path = pay(app, &shopper, pay_path)
        .await
        .assert_status(303)
        .location();
    (shopper, order_path)
}

async fn fulfilled(app: &TestApp, plan: &ShopPlan, code: Option<&str>) -> String {
    let (shopper, order_path) = bought(app, plan, code).await;
    wait_fulfilled(app, &shopper, &order_path).await;
    purchase_id(&order_path)
}

/// The `data-margin-cents` of the first element after `marker` in `page`.
fn margin_after(page: &str, marker: &str) -> i64 {
    page.split(marker)
        .nth(1)
        .and_then(|rest| rest.split("data-margin-cents=\"").nth(1))
        .and_then(|rest| rest.split('"').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("a margin after {marker:?}: {page}"))
}

async fn wait_refunded(app: &TestApp, owner: &Browser, id: &str) {
    wait_for(format!("order {id} to be refunded"), async || {
        let page = owner.get(app, &format!("/admin/orders/{id}")).await.body;
        if page.contains("data-status=\"refunded\"") {
            Ok(())
        } else {
            Err(page)
        }
    })
    .await;
}

async fn csv_by_id(app: &TestApp, owner: &Browser) -> HashMap<String, HashMap<String, String>> {
    let Answer { body, .. } = owner
        .get(app, "/admin/books/orders.csv")
        .await
        .assert_status(200);
    let mut reader = csv::Reader::from_reader(body.as_bytes());
    let header: Vec<String> = reader
        .headers()
        .expect("header")
        .iter()
        .map(str::to_string)
        .collect();
    reader
        .records()
        .map(|r| {
            let row: HashMap<String, String> = header
                .iter()
                .cloned()
                .zip(r.expect("a row").iter().map(str::to_string))
                .collect();
            (row["purchase_id"].clone(), row)
        })
        .collect()
}

async fn one_margin_on_the_order_page_the_csv_the_dashboard_and_the_books(backend: Backend) {
    let Some((app, upstream)) = spawn_shop(backend, 30).await else {
        return;
    };
    age_wallet(&app.db).await;
    create(&app.db, OWNER, Role::Owner).await;
    let owner = login_as(&app, OWNER).await;
    let plan = sellable_plan(&app);
    let (price, cost) = (plan.price.expect("a price").get(), plan.cost.get());
    let failing = app
        .catalog
        .snapshot()
        .plans()
        .iter()
        .find(|p| {
            p.id != plan.id
                && p.is_sellable()
                && p.price.is_some_and(|c| c.get() >= 100)
                && p.cost.get() < 20_000
        })
        .expect("a second plan")
        .clone();
    upstream
        .sandbox
        .set_plan_outcome(&failing.id, Outcome::Failed)
        .expect("outcome");
    add_code(&app, "TENOFF", 1_000, None).await;

    // Paid and fulfilled.
    let sold = fulfilled(&app, &plan, None).await;
    // Refunded, the upstream order kept: the cost is a loss.
    let kept = fulfilled(&app, &plan, None).await;
    owner
        .act(&app, &kept, "refund-keep-cost", "the traveller cancelled")
        .await
        .assert_status(303);
    wait_refunded(&app, &owner, &kept).await;
    // Refunded after upstream failed the order: the cost came back.
    let returned = purchase_id(&bought(&app, &failing, None).await.1);
    wait_refunded(&app, &owner, &returned).await;
    // Sold 10 % off.
    let discounted = fulfilled(&app, &plan, Some("TENOFF")).await;

    let csv = csv_by_id(&app, &owner).await;
    let discounted_price: i64 = csv[&discounted]["price_cents"].parse().expect("cents");
    assert!(discounted_price < price, "the code took money off");
    let expected = [
        (&sold, price - cost),
        (&kept, -cost),
        (&returned, 0),
        (&discounted, discounted_price - cost),
    ];
    for (id, margin) in expected {
        let page = owner
            .get(&app, &format!("/admin/orders/{id}"))
            .await
            .assert_status(200)
            .body;
        assert_eq!(
            margin_after(&page, "<dt>Margin</dt>"),
            margin,
            "the order page of {id}"
        );
        assert_eq!(
            csv[id]["margin_cents"],
            margin.to_string(),
            "the CSV row of {id}"
        );
    }

    // The promotion, the plan and its country are in the CSV.
    let row = &csv[&discounted];
    assert_eq!(row["promo_code"], "TENOFF");
    assert_eq!(
        row["discount_cents"],
        (price - discounted_price).to_string()
    );
    assert!(!row["plan_name"].is_empty(), "{row:?}");
    assert!(row["country"].contains(&plan.country_code), "{row:?}");
    assert_eq!(csv[&sold]["promo_code"], "");
    assert_eq!(csv[&sold]["discount_cents"], "");

    // The dashboard's today and the books of today add up the same margins.
    let total: i64 = expected.iter().map(|(_, m)| m).sum();
    let dashboard = owner.get(&app, "/admin").await.assert_status(200).body;
    assert_eq!(
        margin_after(&dashboard, "Today (UTC)"),
        total,
        "the dashboard's sales table"
    );
    let today = time::OffsetDateTime::now_utc().date().to_string();
    let books = crate::books::books_after_refresh(&app, &owner, &today)
        .await
        .body;
    assert_eq!(margin_after(&books, "<dt>Margin</dt>"), total, "the books");

    // The stored day, kept up by the payments and refunds above, equals a count of today's
    // purchases made afresh.
    let day = utc_day_start(now_ms());
    let (stored, counted) = app
        .db
        .run(move |conn| {
            Ok::<_, storefront::db::DbError>((
                daily_sales::days(conn, day, 1)?,
                daily_sales::recount(conn, day)?,
            ))
        })
        .await
        .expect("read the day");
    assert_eq!(stored, vec![counted]);
    assert_eq!(counted.orders, 4);
    assert_eq!(counted.takings.margin().get(), total);
}
