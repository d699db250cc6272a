//! Every console route for each kind of visitor: anonymous (sent to the login page), support
//! (orders and the catalog, no money, no owner actions) and an owner. Support's pages show no
//! wallet, cost or margin.

use storefront::accounts::Role;

use crate::admin::{Browser, OWNER, SUPPORT, create, login_as};
use crate::helpers::{Backend, TestApp, location, spawn_shop};

/// (method, path, anonymous, support, owner): the answer each gets.
const MATRIX: &[(&str, &str, u16, u16, u16)] = &[
    ("GET", "/admin", 303, 200, 200),
    ("GET", "/admin/orders", 303, 200, 200),
    ("GET", "/admin/orders/{id}", 303, 200, 200),
    ("GET", "/admin/catalog", 303, 200, 200),
    ("GET", "/admin/account", 303, 200, 200),
    ("GET", "/admin/audit", 303, 403, 200),
    ("GET", "/admin/pricing", 303, 403, 200),
    ("GET", "/admin/wallet", 303, 403, 200),
    ("GET", "/admin/users", 303, 403, 200),
    ("POST", "/admin/orders/{id}/note", 303, 303, 303),
    ("POST", "/admin/orders/{id}/resolve", 303, 403, 303),
    ("POST", "/admin/orders/{id}/refund", 303, 403, 409),
    ("POST", "/admin/placements/retry", 303, 403, 303),
    ("POST", "/admin/catalog/sync", 303, 403, 303),
    ("POST", "/admin/pricing/delete", 303, 403, 404),
    ("POST", "/admin/wallet/threshold", 303, 403, 400),
];

async fn answer(app: &TestApp, who: &Browser, method: &str, path: &str) -> (u16, String) {
    if method == "GET" {
        let (status, page, headers) = who.get(app, path).await;
        if status == 303 {
            return (status, location(&headers));
        }
        return (status, page);
    }
    let token = who.csrf(app).await;
    let (status, page, headers) = who
        .post(
            app,
            path,
            &[("csrf_token", &token), ("reason", "checking roles")],
        )
        .await;
    if status == 303 {
        return (status, location(&headers));
    }
    (status, page)
}

#[tokio::test]
async fn every_console_route_answers_each_role_as_it_should() {
    let (app, _upstream) = spawn_shop(Backend::Sqlite, 30).await.expect("sqlite");
    create(&app.db, OWNER, Role::Owner).await;
    create(&app.db, SUPPORT, Role::Support).await;
    let purchase_id = crate::journeys::buy_and_wait_fulfilled(&app).await;
    let anonymous = Browser::default();
    let support = login_as(&app, SUPPORT).await;
    let owner = login_as(&app, OWNER).await;
    for &(method, template, anon, support_expected, owner_expected) in MATRIX {
        let path = template.replace("{id}", &purchase_id);
        let (status, body) = answer(&app, &anonymous, method, &path).await;
        assert_eq!(status, anon, "anonymous {method} {path}");
        if status == 303 {
            assert!(
                body.ends_with("/admin/login"),
                "anonymous {method} {path} → {body}"
            );
        }
        let (status, _) = answer(&app, &support, method, &path).await;
        assert_eq!(status, support_expected, "support {method} {path}");
        let (status, _) = answer(&app, &owner, method, &path).await;
        assert_eq!(status, owner_expected, "owner {method} {path}");
    }
}

#[tokio::test]
async fn support_sees_no_wallet_cost_or_margin() {
    let (app, _upstream) = spawn_shop(Backend::Sqlite, 30).await.expect("sqlite");
    create(&app.db, OWNER, Role::Owner).await;
    create(&app.db, SUPPORT, Role::Support).await;
    let purchase_id = crate::journeys::buy_and_wait_fulfilled(&app).await;
    let support = login_as(&app, SUPPORT).await;
    let owner = login_as(&app, OWNER).await;
    for path in [
        "/admin".to_string(),
        "/admin/catalog".to_string(),
        format!("/admin/orders/{purchase_id}"),
    ] {
        let (_, seen_by_support, _) = support.get(&app, &path).await;
        let (_, seen_by_owner, _) = owner.get(&app, &path).await;
        for money in [">Margin<", ">Cost<", "id=\"wallet\""] {
            assert!(
                !seen_by_support.contains(money),
                "support sees {money} on {path}"
            );
        }
        assert!(
            seen_by_owner.contains(">Margin<"),
            "the owner still sees the margin on {path}"
        );
    }
}
