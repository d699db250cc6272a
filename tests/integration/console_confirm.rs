//! An owner's click on Remove or Disable asks first: the console answers with a page that
//! says what will happen, changes nothing yet, and only the button on that page (a plain form,
//! so it works without JavaScript) carries the action out.

use storefront::staff::Role;

use storefront::domain::purchase::order_number;

use crate::admin::{OWNER, create, insert_purchase, login_as};
use crate::both_backends;
use crate::helpers::{Backend, hidden, spawn_shop};

both_backends!(removing_a_rule_or_disabling_a_code_asks_first);

/// The hidden fields of the confirmation page's form, as the browser sends them back.
fn confirm_form(page: &str) -> Vec<(String, String)> {
    let form = page
        .split("<form class=\"confirm-actions\"")
        .nth(1)
        .and_then(|rest| rest.split("</form>").next())
        .expect("the confirmation form");
    form.split("<input type=\"hidden\" ")
        .skip(1)
        .map(|input| {
            let attr = |name: &str| {
                input
                    .split(&format!("{name}=\""))
                    .nth(1)
                    .and_then(|rest| rest.split('"').next())
                    .unwrap_or_default()
                    .to_string()
            };
            (attr("name"), attr("value"))
        })
        .collect()
}

async fn removing_a_rule_or_disabling_a_code_asks_first(backend: Backend) {
    let Some((app, _upstream)) = spawn_shop(backend, 5).await else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    let owner = login_as(&app, OWNER).await;
    let token = owner.csrf(&app).await;
    owner
        .post(
            &app,
            "/admin/pricing/save",
            &[
                ("csrf_token", &token),
                ("scope_kind", "default"),
                ("scope_value", ""),
                ("markup_percent", "40"),
            ],
        )
        .await
        .assert_status(303);
    let pricing = owner.get(&app, "/admin/pricing").await.body;
    assert!(pricing.contains("40.00%"), "{pricing}");

    // Remove asks, and the rule is still there.
    let ask = owner
        .post(
            &app,
            "/admin/pricing/delete",
            &[
                ("csrf_token", &hidden(&pricing, "csrf_token")),
                ("scope_kind", "default"),
                ("scope_value", ""),
            ],
        )
        .await
        .assert_status(200)
        .body;
    assert!(ask.contains("Remove the default rule?"), "{ask}");
    assert!(ask.contains("href=\"/admin/pricing\">Cancel</a>"), "{ask}");
    let pricing = owner.get(&app, "/admin/pricing").await.body;
    assert!(pricing.contains("40.00%"), "nothing removed yet: {pricing}");

    // The page's own button removes it.
    let fields = confirm_form(&ask);
    assert!(
        fields.contains(&("confirmed".into(), "yes".into())),
        "{fields:?}"
    );
    assert!(
        fields.contains(&("scope_kind".into(), "default".into())),
        "{fields:?}"
    );
    let fields: Vec<(&str, &str)> = fields
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    owner
        .post(&app, "/admin/pricing/delete", &fields)
        .await
        .assert_redirect_to("/admin/pricing?saved=1");
    let pricing = owner.get(&app, "/admin/pricing").await.body;
    assert!(!pricing.contains("40.00%"), "{pricing}");

    // Disabling a promotion code asks the same way.
    let token = owner.csrf(&app).await;
    owner
        .post(
            &app,
            "/admin/promo-codes",
            &[
                ("csrf_token", &token),
                ("code", "SPRING"),
                ("kind", "percent"),
                ("value", "5"),
                ("scope_kind", "all"),
            ],
        )
        .await
        .assert_status(303);
    let ask = owner
        .post(
            &app,
            "/admin/promo-codes/SPRING/disable",
            &[("csrf_token", &token)],
        )
        .await
        .assert_status(200)
        .body;
    assert!(ask.contains("Disable the promotion code SPRING?"), "{ask}");
    let list = owner.get(&app, "/admin/promo-codes").await.body;
    assert!(
        list.contains("/admin/promo-codes/SPRING/disable"),
        "still active"
    );
    let fields = confirm_form(&ask);
    let fields: Vec<(&str, &str)> = fields
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    owner
        .post(&app, "/admin/promo-codes/SPRING/disable", &fields)
        .await
        .assert_redirect_to("/admin/promo-codes?saved=1");
    let list = owner.get(&app, "/admin/promo-codes").await.body;
    assert!(list.contains("/admin/promo-codes/SPRING/enable"), "{list}");

    // A refund asks too, with the reason kept for the page's button.
    let id = "00112233445566778899";
    insert_purchase(
        &app.db,
        id,
        "buyer@example.com",
        "fulfilled",
        1_773_185_400_000,
    )
    .await;
    let token = owner.csrf(&app).await;
    let ask = owner
        .post(
            &app,
            &format!("/admin/orders/{id}/refund"),
            &[("csrf_token", &token), ("reason", "trip cancelled")],
        )
        .await
        .assert_status(200)
        .body;
    assert!(
        ask.contains(&format!("Refund order {}?", order_number(id))),
        "{ask}"
    );
    assert!(
        confirm_form(&ask).contains(&("reason".into(), "trip cancelled".into())),
        "{ask}"
    );
    let order = owner.get(&app, &format!("/admin/orders/{id}")).await.body;
    assert!(
        order.contains("data-status=\"fulfilled\""),
        "not refunded yet"
    );
}
