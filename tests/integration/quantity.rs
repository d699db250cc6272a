//! Several eSIMs in one checkout, through the shop's own forms: the plan page's number of
//! eSIMs makes one checkout of that many units, each its own upstream order, paid together in
//! one payment of their total; the wallet and the checkout's hold cover every unit; a
//! promotion code's cap per email counts units; a form the shop cannot take comes back with
//! its problem named and nothing written.

use diesel::prelude::*;
use storefront::catalog::ShopPlan;
use storefront::db::purchases::{self, Purchase};
use storefront::db::schema::{checkout_holds, checkouts, purchases as purchases_table};
use storefront::db::{Db, DbError};
use storefront::domain::Cents;
use storefront::domain::purchase::PurchaseStatus;
use storefront::i18n::Lang;

use crate::both_backends;
use crate::checkout::age_wallet;
use crate::fixtures::as_id;
use crate::helpers::{Answer, Backend, Browser, TestApp, hidden, spawn_shop_with, wait_for};
use crate::journeys::{answer, open_pay_page, purchase_id, sellable_plan};
use storefront::sandbox::SandboxHandle;

both_backends!(
    three_esims_are_three_units_paid_in_one_payment_of_three_prices,
    the_wallet_and_the_hold_cover_every_esim_of_a_checkout,
    a_code_capped_at_two_uses_per_email_refuses_three_esims_and_takes_two,
    a_number_of_esims_or_a_traveller_the_shop_cannot_take_is_named_on_the_page,
);

/// Opens the plan page and sends its form for `quantity` eSIMs with `extra` fields
/// (travellers, a promotion code).
pub(crate) async fn buy_many(
    app: &TestApp,
    browser: &Browser,
    plan: &ShopPlan,
    email: &str,
    quantity: &str,
    extra: &[(&str, &str)],
) -> Answer {
    let page = browser
        .get(app, &format!("/plans/{}", plan.id))
        .await
        .assert_status(200)
        .body;
    let (token, price) = (
        hidden(&page, "csrf_token"),
        hidden(&page, "expected_price_cents"),
    );
    let mut form = vec![
        ("csrf_token", token.as_str()),
        ("plan_id", plan.id.as_str()),
        ("email", email),
        ("quantity", quantity),
        ("confirm_device", "yes"),
        ("accept_terms", "yes"),
        ("expected_price_cents", price.as_str()),
    ];
    form.extend_from_slice(extra);
    browser.post(app, "/checkout", &form).await
}

/// Every purchase row of checkout `checkout`, in unit order.
pub(crate) async fn units(db: &Db, checkout: &str) -> Vec<Purchase> {
    let checkout = as_id(checkout);
    db.run(move |conn| purchases::units_of(conn, &checkout))
        .await
        .expect("units")
}

async fn count_rows(db: &Db) -> (i64, i64) {
    db.run(|conn| {
        let purchases = purchases_table::table.count().get_result(conn)?;
        let checkouts = checkouts::table.count().get_result(conn)?;
        Ok::<_, DbError>((purchases, checkouts))
    })
    .await
    .expect("counts")
}

/// `(unit_count, hold cents)` of checkout `id`.
async fn checkout_and_hold(db: &Db, id: &str) -> (i32, i64) {
    let id = id.to_string();
    db.run(move |conn| {
        let units = checkouts::table
            .find(&id)
            .select(checkouts::unit_count)
            .first(conn)?;
        let held = checkout_holds::table
            .filter(checkout_holds::purchase_id.eq(&id))
            .select(checkout_holds::cost_cents)
            .first(conn)?;
        Ok::<_, DbError>((units, held))
    })
    .await
    .expect("checkout and hold")
}

/// A shop whose wallet covers a hundred of `plan`, a plan with room for a discount.
async fn shop(
    backend: Backend,
    overrides: &[(&str, &str)],
) -> Option<(TestApp, SandboxHandle, ShopPlan)> {
    let (app, upstream) = spawn_shop_with(backend, 30, overrides).await?;
    let plan = crate::promo::roomy_plan(&app);
    upstream
        .sandbox
        .set_balance(plan.cost.get() * 100)
        .expect("balance");
    age_wallet(&app.db).await;
    Some((app, upstream, plan))
}

async fn three_esims_are_three_units_paid_in_one_payment_of_three_prices(backend: Backend) {
    let Some((app, _upstream, plan)) = shop(backend, &[]).await else {
        return;
    };
    let price = plan.price.expect("priced");
    let buyer = Browser::default();
    let pay_page = buy_many(
        &app,
        &buyer,
        &plan,
        "family@example.com",
        "3",
        &[
            ("traveller_name_2", "Ben"),
            ("traveller_email_2", "ben@example.com"),
            ("traveller_name_3", "Cleo"),
        ],
    )
    .await
    .assert_status(303)
    .location();

    // The payment page asks for the three together, once.
    let pay = open_pay_page(&app, &buyer, &pay_page).await;
    assert_eq!(pay.status, 200);
    let total = Lang::En.money(Cents::new(price.get() * 3));
    assert!(pay.html.contains(&total), "total {total}: {}", pay.html);
    assert!(
        pay.html
            .contains(&format!("3 eSIMs × {}", Lang::En.money(price))),
        "{}",
        pay.html
    );

    let order = answer(&app, &buyer, &pay.session, &pay.token, "pay")
        .await
        .assert_status(303)
        .location();
    let checkout = purchase_id(&order);
    let units = units(&app.db, &checkout).await;
    assert_eq!(units.len(), 3, "three units");
    assert_eq!(checkout_and_hold(&app.db, &checkout).await.0, 3);
    let mut references: Vec<_> = units.iter().map(|u| u.reference.clone()).collect();
    let mut keys: Vec<_> = units.iter().map(|u| u.idempotency_key.clone()).collect();
    references.sort();
    references.dedup();
    keys.sort();
    keys.dedup();
    assert_eq!((references.len(), keys.len()), (3, 3), "each its own order");
    for (n, unit) in (1..).zip(&units) {
        assert_eq!(unit.unit_index, n);
        assert_eq!(unit.price_cents, price);
        // Paid only because the one payment was the three prices together.
        assert_ne!(unit.status, PurchaseStatus::AwaitingPayment, "{}", unit.id);
        assert!(unit.paid_at_ms.is_some(), "unit {n} paid");
    }
    let travellers = {
        let checkout = as_id(&checkout);
        app.db
            .run(move |conn| storefront::db::travellers::of_checkout(conn, &checkout))
            .await
            .expect("travellers")
    };
    let named: Vec<_> = travellers
        .iter()
        .map(|t| {
            let index = units
                .iter()
                .find(|u| u.id == t.purchase_id)
                .map(|u| u.unit_index);
            (index, t.name.clone(), t.email.clone())
        })
        .collect();
    assert_eq!(named.len(), 2, "{named:?}");
    assert!(named.contains(&(Some(2), Some("Ben".into()), Some("ben@example.com".into()))));
    assert!(named.contains(&(Some(3), Some("Cleo".into()), None)));

    // Each unit is placed upstream on its own.
    wait_for("three upstream orders", async || {
        let placed = units_now(&app.db, &checkout)
            .await
            .iter()
            .filter(|u| u.upstream_order_id.is_some())
            .count();
        if placed == 3 {
            Ok(())
        } else {
            Err(format!("{placed} placed"))
        }
    })
    .await;
}

async fn units_now(db: &Db, checkout: &str) -> Vec<Purchase> {
    units(db, checkout).await
}

async fn the_wallet_and_the_hold_cover_every_esim_of_a_checkout(backend: Backend) {
    let Some((app, upstream)) = spawn_shop_with(backend, 30, &[]).await else {
        return;
    };
    let plan = sellable_plan(&app);
    let cost = plan.cost.get();
    upstream.sandbox.set_balance(cost * 100).expect("balance");
    age_wallet(&app.db).await;

    // A hold for the whole checkout: three eSIMs hold three costs.
    let pay_page = buy_many(&app, &Browser::default(), &plan, "a@example.com", "3", &[])
        .await
        .assert_status(303)
        .location();
    let pay = open_pay_page(&app, &Browser::default(), &pay_page).await;
    let session = pay.session.clone();
    let checkout = app
        .db
        .run(move |conn| purchases::find_by_session(conn, &session))
        .await
        .expect("read")
        .expect("the checkout's first unit")
        .id;
    assert_eq!(
        checkout_and_hold(&app.db, checkout.as_str()).await,
        (3, cost * 3)
    );

    // A wallet that covers two and a half eSIMs (the running hold counts for at most its
    // share) sells two and refuses three.
    upstream
        .sandbox
        .set_balance(cost * 2 + cost / 2 + cost * 3 / 4)
        .expect("balance");
    age_wallet(&app.db).await;
    let before = count_rows(&app.db).await;
    let refused = buy_many(&app, &Browser::default(), &plan, "b@example.com", "3", &[])
        .await
        .assert_status(409);
    assert!(
        refused.body.contains("We cannot sell this plan right now"),
        "{}",
        refused.body
    );
    assert_eq!(count_rows(&app.db).await, before, "nothing written");
    buy_many(&app, &Browser::default(), &plan, "c@example.com", "2", &[])
        .await
        .assert_status(303);
}

async fn a_code_capped_at_two_uses_per_email_refuses_three_esims_and_takes_two(backend: Backend) {
    let Some((app, _upstream, plan)) = shop(backend, &[]).await else {
        return;
    };
    let mut row = crate::promo::code_row("FAMILY10", 1_000, None);
    row.max_uses_per_email = Some(2);
    crate::promo::insert_code(&app, row).await;

    let before = count_rows(&app.db).await;
    let refused = buy_many(
        &app,
        &Browser::default(),
        &plan,
        "family@example.com",
        "3",
        &[("promo_code", "FAMILY10")],
    )
    .await
    .assert_status(409);
    assert!(
        refused
            .body
            .contains("This promotion code covers fewer eSIMs than you chose"),
        "{}",
        refused.body
    );
    assert_eq!(count_rows(&app.db).await, before, "nothing written");

    let buyer = Browser::default();
    let pay_page = buy_many(
        &app,
        &buyer,
        &plan,
        "family@example.com",
        "2",
        &[("promo_code", "FAMILY10")],
    )
    .await
    .assert_status(303)
    .location();
    let pay = open_pay_page(&app, &buyer, &pay_page).await;
    let list = plan.price.expect("priced");
    let order = answer(&app, &buyer, &pay.session, &pay.token, "pay")
        .await
        .assert_status(303)
        .location();
    let units = units(&app.db, &purchase_id(&order)).await;
    assert_eq!(units.len(), 2);
    for unit in &units {
        assert!(unit.price_cents < list, "a discount on each eSIM");
        assert_eq!(unit.price_cents, units[0].price_cents);
        assert_eq!(unit.promo_code.as_deref(), Some("FAMILY10"));
        assert!(
            unit.paid_at_ms.is_some(),
            "paid: the payment was both prices"
        );
    }
    // Both uses counted: the address has none left.
    buy_many(
        &app,
        &Browser::default(),
        &plan,
        "family@example.com",
        "1",
        &[("promo_code", "FAMILY10")],
    )
    .await
    .assert_status(409);
}

async fn a_number_of_esims_or_a_traveller_the_shop_cannot_take_is_named_on_the_page(
    backend: Backend,
) {
    let Some((app, _upstream, plan)) =
        shop(backend, &[("STOREFRONT_MAX_ESIMS_PER_ORDER", "4")]).await
    else {
        return;
    };
    // The page offers what the owner allows.
    let page = Browser::default()
        .get(&app, &format!("/plans/{}", plan.id))
        .await
        .assert_status(200)
        .body;
    assert!(page.contains("<option value=\"4\""), "{page}");
    assert!(!page.contains("<option value=\"5\""), "{page}");

    let before = count_rows(&app.db).await;
    for (quantity, extra, message) in [
        ("0", vec![], "Choose between 1 and 4 eSIMs."),
        ("5", vec![], "Choose between 1 and 4 eSIMs."),
        ("11", vec![], "Choose between 1 and 4 eSIMs."),
        ("three", vec![], "Choose the number of eSIMs from the list."),
        (
            "2",
            vec![("traveller_email_2", "ben@")],
            "The email for eSIM 2 is not a valid address",
        ),
    ] {
        let answer = buy_many(
            &app,
            &Browser::default(),
            &plan,
            "buyer@example.com",
            quantity,
            &extra,
        )
        .await
        .assert_status(400);
        assert!(
            answer.body.contains(message),
            "quantity {quantity:?}: {}",
            answer.body
        );
        // What was typed comes back.
        assert!(answer.body.contains("buyer@example.com"));
    }
    assert_eq!(count_rows(&app.db).await, before, "nothing written");
}

/// Stripe's hosted page charges the total: one line of `quantity` eSIMs at the unit price.
#[test]
fn stripe_charges_the_unit_price_times_the_number_of_esims() {
    let page = url::Url::parse("https://shop.example/orders/pu_1").expect("url");
    let request = storefront::payments::CheckoutRequest {
        purchase_id: as_id("pu_1"),
        amount: Cents::new(1299),
        quantity: 3,
        email: storefront::domain::Email::parse("ana@example.com").expect("email"),
        description: "France · 5 GB for 30 days".to_string(),
        success_url: page.clone(),
        cancel_url: page,
        idempotency_key: "checkout-pu_1".to_string(),
        expires_at_unix: None,
        tax: Default::default(),
    };
    let form = storefront::payments::stripe::checkout_form(&request);
    let field = |name: &str| {
        form.iter()
            .find(|(key, _)| *key == name)
            .map(|(_, value)| value.as_str())
    };
    assert_eq!(
        field("line_items[0][price_data][unit_amount]"),
        Some("1299")
    );
    assert_eq!(field("line_items[0][quantity]"), Some("3"));
}
