//! A mistyped address is not a dead end: the checkout asks "did you mean name@gmail.com?"
//! (a button of the form, no script needed) and lets the traveller keep what they typed, and
//! the console corrects a stored address and sends a working link to the new one.

use storefront::staff::Role;

use crate::admin::{SUPPORT, audit_rows, create, login_as};
use crate::both_backends;
use crate::helpers::{Backend, Browser, TestApp, hidden, spawn_shop_with};
use crate::journeys::{buy, pay, purchase_id, sellable_plan, wait_fulfilled};

both_backends!(
    a_mistyped_domain_is_questioned_and_the_suggestion_or_the_typed_address_goes_through,
    support_corrects_a_stored_address_and_the_new_one_gets_a_working_link
);

/// Sends the plan page's form of `page` again with `extra` fields.
async fn resend(
    app: &TestApp,
    browser: &Browser,
    page: &str,
    plan_id: &str,
    email: &str,
    extra: &[(&str, &str)],
) -> crate::helpers::Answer {
    let token = hidden(page, "csrf_token");
    let price = hidden(page, "expected_price_cents");
    let mut form = vec![
        ("csrf_token", token.as_str()),
        ("plan_id", plan_id),
        ("email", email),
        ("confirm_device", "yes"),
        ("accept_terms", "yes"),
        ("expected_price_cents", price.as_str()),
    ];
    form.extend_from_slice(extra);
    browser.post(app, "/checkout", &form).await
}

async fn a_mistyped_domain_is_questioned_and_the_suggestion_or_the_typed_address_goes_through(
    backend: Backend,
) {
    let Some((app, _upstream)) = spawn_shop_with(backend, 20, &[]).await else {
        return;
    };
    let plan = sellable_plan(&app);
    let traveller = Browser::default();
    let asked = buy(&app, &traveller, &plan, "name@gmial.con")
        .await
        .assert_status(200)
        .body;
    assert!(asked.contains("Did you mean name@gmail.com?"), "{asked}");
    assert!(
        asked.contains(r#"name="use_email" value="name@gmail.com""#),
        "the suggestion is a button of the form: {asked}"
    );
    assert!(
        asked.contains(r#"checked"#),
        "the device confirmation stays ticked: {asked}"
    );
    assert!(app.emails().is_empty());

    // "Use name@gmail.com": the checkout starts with the meant address.
    let order_path = pay(
        &app,
        &traveller,
        &resend(
            &app,
            &traveller,
            &asked,
            &plan.id,
            "name@gmial.con",
            &[
                ("email_kept", "name@gmial.con"),
                ("use_email", "name@gmail.com"),
            ],
        )
        .await
        .assert_status(303)
        .location(),
    )
    .await
    .assert_status(303)
    .location();
    wait_fulfilled(&app, &traveller, &order_path).await;
    let mail = app.wait_for_email("name@gmail.com").await;
    assert!(
        mail.text.contains(&purchase_id(&order_path)),
        "{}",
        mail.text
    );

    // Sending the questioned address again unchanged keeps it; a different one is checked anew.
    let other = Browser::default();
    let asked = buy(&app, &other, &plan, "jo@hotmial.com")
        .await
        .assert_status(200)
        .body;
    assert!(asked.contains("Did you mean jo@hotmail.com?"), "{asked}");
    let again = resend(
        &app,
        &other,
        &asked,
        &plan.id,
        "jo@yaho.com",
        &[("email_kept", "jo@hotmial.com")],
    )
    .await
    .assert_status(200)
    .body;
    assert!(again.contains("Did you mean jo@yahoo.com?"), "{again}");
    resend(
        &app,
        &other,
        &again,
        &plan.id,
        "jo@yaho.com",
        &[("email_kept", "jo@yaho.com")],
    )
    .await
    .assert_status(303);

    // An ordinary address is never questioned.
    buy(&app, &Browser::default(), &plan, "name@example.com")
        .await
        .assert_status(303);
}

async fn support_corrects_a_stored_address_and_the_new_one_gets_a_working_link(backend: Backend) {
    let Some((app, _upstream)) = spawn_shop_with(backend, 20, &[]).await else {
        return;
    };
    create(&app.db, SUPPORT, Role::Support).await;
    let plan = sellable_plan(&app);
    let traveller = Browser::default();
    let asked = buy(&app, &traveller, &plan, "ana@gmial.con").await.body;
    let order_path = pay(
        &app,
        &traveller,
        &resend(
            &app,
            &traveller,
            &asked,
            &plan.id,
            "ana@gmial.con",
            &[("email_kept", "ana@gmial.con")],
        )
        .await
        .assert_status(303)
        .location(),
    )
    .await
    .location();
    wait_fulfilled(&app, &traveller, &order_path).await;
    let id = purchase_id(&order_path);
    let lost = app.wait_for_email("ana@gmial.con").await;
    let marker = format!("/orders/{id}?token=");
    let token_of = |text: &str| -> String {
        text.split(&marker)
            .nth(1)
            .map(|rest| rest.chars().take_while(char::is_ascii_hexdigit).collect())
            .unwrap_or_default()
    };
    let old_token = token_of(&lost.text);

    let support = login_as(&app, SUPPORT).await;
    let console = support.get(&app, &format!("/admin/orders/{id}")).await.body;
    assert!(console.contains("Correct the customer"), "{console}");
    let token = support.csrf(&app).await;
    let path = format!("/admin/orders/{id}/correct-email");

    // No reason: refused, the typed address kept in the form.
    let refused = support
        .post(
            &app,
            &path,
            &[
                ("csrf_token", &token),
                ("email", "ana@gmail.com"),
                ("reason", " "),
            ],
        )
        .await
        .assert_status(400)
        .body;
    assert!(refused.contains("Give a reason"), "{refused}");
    assert!(refused.contains(r#"value="ana@gmail.com""#), "{refused}");

    support
        .post(
            &app,
            &path,
            &[
                ("csrf_token", &token),
                ("email", "ana@gmail.com"),
                ("reason", "customer phoned, typo in the domain"),
            ],
        )
        .await
        .assert_redirect_to(format!("/admin/orders/{id}?done=correct-email"));
    let console = support.get(&app, &format!("/admin/orders/{id}")).await.body;
    assert!(console.contains("ana@gmail.com"), "{console}");

    // The new address gets the delivery email with a link that opens the order.
    let mail = app.wait_for_email("ana@gmail.com").await;
    let new_token = token_of(&mail.text);
    assert!(!new_token.is_empty(), "{}", mail.text);
    let phone = Browser::default();
    phone
        .get(&app, &format!("/orders/{id}?token={new_token}"))
        .await
        .assert_status(303);
    let page = phone
        .get(&app, &format!("/orders/{id}"))
        .await
        .assert_status(200);
    assert!(
        page.body.contains("data-status=\"fulfilled\""),
        "{}",
        page.body
    );
    // The link that went to the mistyped address no longer opens anything.
    Browser::default()
        .get(&app, &format!("/orders/{id}?token={old_token}"))
        .await
        .assert_status(404);

    let audit = audit_rows(&app.db).await;
    let entry = audit
        .iter()
        .find(|(_, action, _, _)| action == "order_email_corrected")
        .expect("an audit entry");
    assert_eq!(entry.0, SUPPORT);
    assert!(entry.3.contains("customer phoned"), "{}", entry.3);
}
