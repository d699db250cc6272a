//! Every console route for each kind of visitor: anonymous (sent to the login page), support
//! (orders and the catalog, no money, no owner actions) and an owner. Support's pages show no
//! wallet, cost or margin.

use storefront::staff::Role;

use crate::admin::{Browser, OWNER, SUPPORT, create, login_as};
use crate::helpers::{Answer, Backend, TestApp, spawn_shop};

/// A console account the owner's rows act on (disable, reset TOTP).
const THIRD: &str = "third@shop.example";

/// (method, path, anonymous, support, owner): the answer each gets. `{id}` is a fulfilled
/// purchase, `{uid}` a third console account. A POST carries only a valid form token and a
/// reason (and `required=off`, which changes nothing), so an owner's 400/404/409 means
/// "authorised, then refused on its merits", and 200 on an action that cannot be undone in a
/// click is its confirmation page. Rows that
/// act on the visitor's own session come last (logout ends it).
const MATRIX: &[(&str, &str, u16, u16, u16)] = &[
    ("GET", "/admin", 303, 200, 200),
    ("GET", "/admin/", 303, 200, 200),
    ("GET", "/admin/login", 200, 303, 303),
    ("GET", "/admin/login/totp", 303, 303, 303),
    ("POST", "/admin/login/totp", 303, 303, 303),
    ("GET", "/admin/orders", 303, 200, 200),
    ("GET", "/admin/orders/{id}", 303, 200, 200),
    ("GET", "/admin/catalog", 303, 200, 200),
    ("GET", "/admin/account", 303, 200, 200),
    ("GET", "/admin/account/totp", 303, 200, 200),
    ("GET", "/admin/audit", 303, 403, 200),
    ("GET", "/admin/pricing", 303, 403, 200),
    ("GET", "/admin/wallet", 303, 403, 200),
    ("GET", "/admin/promo-codes", 303, 403, 200),
    ("GET", "/admin/currencies", 303, 403, 200),
    ("GET", "/admin/wallet/topups/1", 303, 403, 404),
    ("GET", "/admin/books", 303, 403, 200),
    ("POST", "/admin/books/explain", 303, 403, 404),
    // The supplier's side of a fresh shop has not been copied yet: the owner is told so.
    ("GET", "/admin/books/reconciliation.csv", 303, 403, 409),
    ("GET", "/admin/books/orders.csv", 303, 403, 200),
    ("GET", "/admin/books/wallet.csv", 303, 403, 409),
    // After the exports: the refresh it asks for copies the supplier's side.
    ("POST", "/admin/books/refresh", 303, 403, 303),
    ("GET", "/admin/users", 303, 403, 200),
    ("GET", "/admin/users/{uid}", 303, 403, 200),
    ("POST", "/admin/orders/{id}/note", 303, 303, 303),
    ("POST", "/admin/orders/{id}/resend", 303, 303, 303),
    ("POST", "/admin/orders/{id}/send-link", 303, 303, 303),
    ("POST", "/admin/orders/{id}/correct-email", 303, 400, 400),
    ("POST", "/admin/orders/{id}/resolve", 303, 403, 303),
    ("POST", "/admin/orders/{id}/retry", 303, 403, 409),
    ("POST", "/admin/orders/{id}/refund", 303, 403, 200),
    ("POST", "/admin/orders/{id}/refund-keep-cost", 303, 403, 200),
    ("POST", "/admin/orders/{id}/revoke-links", 303, 403, 200),
    ("POST", "/admin/orders/{id}/no-such-action", 303, 404, 404),
    ("POST", "/admin/placements/retry", 303, 403, 303),
    ("POST", "/admin/catalog/sync", 303, 403, 303),
    ("POST", "/admin/pricing/preview", 303, 403, 400),
    ("POST", "/admin/pricing/save", 303, 403, 400),
    ("POST", "/admin/pricing/delete", 303, 403, 200),
    ("POST", "/admin/wallet/topup", 303, 403, 400),
    ("POST", "/admin/promo-codes", 303, 403, 400),
    ("GET", "/admin/promo-codes/NO-SUCH-CODE", 303, 403, 404),
    ("POST", "/admin/promo-codes/NO-SUCH-CODE", 303, 403, 404),
    (
        "POST",
        "/admin/promo-codes/NO-SUCH-CODE/enable",
        303,
        403,
        404,
    ),
    (
        "POST",
        "/admin/promo-codes/NO-SUCH-CODE/disable",
        303,
        403,
        200,
    ),
    ("POST", "/admin/currencies", 303, 403, 400),
    ("POST", "/admin/currencies/EUR/clear", 303, 403, 200),
    ("GET", "/admin/tax", 303, 403, 200),
    ("POST", "/admin/tax", 303, 403, 400),
    ("POST", "/admin/tax/rates", 303, 403, 400),
    ("POST", "/admin/tax/rates/DE/remove", 303, 403, 404),
    ("GET", "/admin/tax/report", 303, 403, 200),
    ("GET", "/admin/tax/report.csv", 303, 403, 200),
    ("GET", "/admin/identity", 303, 403, 200),
    ("POST", "/admin/identity", 303, 403, 400),
    ("POST", "/admin/identity/time-zone", 303, 403, 400),
    ("POST", "/admin/identity/logo", 303, 403, 400),
    ("POST", "/admin/identity/logo/remove", 303, 403, 200),
    ("GET", "/admin/catalog/regions", 303, 403, 200),
    ("GET", "/admin/legal", 303, 403, 200),
    ("GET", "/admin/legal/terms/de", 303, 403, 200),
    ("GET", "/admin/legal/no-such-text/de", 303, 403, 404),
    ("POST", "/admin/legal/terms/de", 303, 403, 400),
    ("POST", "/admin/legal/terms/de/review", 303, 403, 303),
    (
        "POST",
        "/admin/catalog/regions/no-such-region",
        303,
        403,
        404,
    ),
    ("POST", "/admin/wallet/threshold", 303, 403, 400),
    ("POST", "/admin/users", 303, 403, 400),
    ("POST", "/admin/users/totp-required", 303, 403, 303),
    ("POST", "/admin/users/{uid}/reset-totp", 303, 403, 200),
    ("POST", "/admin/users/{uid}/disable", 303, 403, 200),
    ("POST", "/admin/account/password", 303, 400, 400),
    ("POST", "/admin/account/totp/start", 303, 303, 303),
    ("POST", "/admin/account/totp", 303, 400, 400),
    ("POST", "/admin/account/totp/recovery-codes", 303, 303, 303),
    ("POST", "/admin/login", 400, 400, 400),
    ("POST", "/admin/logout", 303, 303, 303),
];

/// The console's route table as `src/web/admin/mod.rs` declares it: `(method, template)`.
pub(crate) fn declared_routes() -> Vec<(String, String)> {
    let source = include_str!("../../src/web/admin/mod.rs");
    let start = source.find("pub fn configure").expect("configure()");
    let end = start + source[start..].find("\n}\n").expect("end of configure()");
    let mut routes = Vec::new();
    let mut rest = &source[start..end];
    // The path of the `web::resource("…")` whose `.route(web::…)`s follow.
    let mut resource = String::new();
    loop {
        let next_route = rest.find(".route(");
        let next_resource = rest.find("web::resource(\"");
        match (next_route, next_resource) {
            (Some(r), Some(s)) if s < r => {
                rest = &rest[s + "web::resource(\"".len()..];
                let close = rest.find('"').expect("end of path");
                resource = rest[..close].to_string();
                rest = &rest[close..];
            }
            (Some(r), _) => {
                rest = &rest[r + ".route(".len()..];
                let args = rest.trim_start();
                let (path, after) = if let Some(literal) = args.strip_prefix('"') {
                    let close = literal.find('"').expect("end of path");
                    (literal[..close].to_string(), &literal[close..])
                } else {
                    (resource.clone(), args)
                };
                let method = if after
                    .trim_start_matches(|c: char| c != 'w')
                    .starts_with("web::get()")
                {
                    "GET"
                } else {
                    "POST"
                };
                routes.push((method.to_string(), path));
            }
            (None, _) => break,
        }
    }
    routes
}

/// Every console page a signed-in owner can open, as declared: the GET routes but the CSV
/// downloads and the sign-in steps, each `{…}` route by the address `addresses` gives it
/// (`(template, address)`); a page with parts the caller did not give fails the test, so a
/// new page is never skipped silently.
pub(crate) fn console_pages(addresses: &[(&str, String)]) -> Vec<String> {
    let mut pages: Vec<String> = Vec::new();
    for (method, template) in declared_routes() {
        if method != "GET" || template.ends_with(".csv") || template.starts_with("/admin/login") {
            continue;
        }
        if !template.contains('{') {
            pages.push(template);
            continue;
        }
        let given: Vec<String> = addresses
            .iter()
            .filter(|(t, _)| *t == template)
            .map(|(_, address)| address.clone())
            .collect();
        assert!(
            !given.is_empty(),
            "give the console page {template} an address to open"
        );
        pages.extend(given);
    }
    pages.dedup();
    pages
}

/// Whether the concrete `path` is an instance of the route `template` (`{x}` matches any
/// one segment).
fn instance_of(path: &str, template: &str) -> bool {
    let (p, t): (Vec<_>, Vec<_>) = (path.split('/').collect(), template.split('/').collect());
    p.len() == t.len()
        && p.iter()
            .zip(&t)
            .all(|(p, t)| p == t || (t.starts_with('{') && !p.is_empty()))
}

#[test]
fn the_matrix_covers_every_console_route() {
    let routes = declared_routes();
    assert!(routes.len() >= 30, "parsed {} routes", routes.len());
    for (method, template) in &routes {
        let covered = MATRIX.iter().any(|(m, path, ..)| {
            m == method
                && instance_of(path, template)
                && !template_is_more_specific(path, template, &routes)
        });
        assert!(
            covered,
            "{method} {template} is missing from the role matrix"
        );
    }
}

/// True when `path` is better matched by another declared route than `template` (e.g.
/// `/admin/users/{uid}/reset-totp` is its own route, not an `{action}`).
fn template_is_more_specific(path: &str, template: &str, routes: &[(String, String)]) -> bool {
    let literal = |t: &str| t.split('/').filter(|s| !s.starts_with('{')).count();
    routes.iter().any(|(_, other)| {
        other != template && instance_of(path, other) && literal(other) > literal(template)
    })
}

async fn answer(app: &TestApp, who: &Browser, method: &str, path: &str) -> (u16, String) {
    if method == "GET" {
        let answer = who.get(app, path).await;
        if answer.status == 303 {
            return (answer.status, answer.location());
        }
        return (answer.status, answer.body);
    }
    let token = who.csrf(app).await;
    let answer = who
        .post(
            app,
            path,
            &[
                ("csrf_token", &token),
                ("reason", "checking roles"),
                ("required", "off"),
            ],
        )
        .await;
    if answer.status == 303 {
        return (answer.status, answer.location());
    }
    (answer.status, answer.body)
}

#[tokio::test]
async fn every_console_route_answers_each_role_as_it_should() {
    let (app, _upstream) = spawn_shop(Backend::Sqlite, 30).await.expect("sqlite");
    create(&app.db, OWNER, Role::Owner).await;
    create(&app.db, SUPPORT, Role::Support).await;
    create(&app.db, THIRD, Role::Support).await;
    let third_id = crate::admin_users::user_id(&app.db, THIRD)
        .await
        .to_string();
    let purchase_id = crate::journeys::buy_and_wait_fulfilled(&app).await;
    let anonymous = Browser::default();
    let support = login_as(&app, SUPPORT).await;
    let owner = login_as(&app, OWNER).await;
    // Every row is tried before failing, so one run names every wrong answer.
    let mut wrong = Vec::new();
    for &(method, template, anon, support_expected, owner_expected) in MATRIX {
        let path = template
            .replace("{id}", &purchase_id)
            .replace("{uid}", &third_id);
        let (status, body) = answer(&app, &anonymous, method, &path).await;
        if status != anon {
            wrong.push(format!("anonymous {method} {path}: {status}, not {anon}"));
        } else if status == 303 && !body.ends_with("/admin/login") {
            wrong.push(format!(
                "anonymous {method} {path} → {body}, not the login page"
            ));
        }
        let (status, _) = answer(&app, &support, method, &path).await;
        if status != support_expected {
            wrong.push(format!(
                "support {method} {path}: {status}, not {support_expected}"
            ));
        }
        let (status, _) = answer(&app, &owner, method, &path).await;
        if status != owner_expected {
            wrong.push(format!(
                "owner {method} {path}: {status}, not {owner_expected}"
            ));
        }
    }
    assert!(wrong.is_empty(), "wrong answers:\n{}", wrong.join("\n"));
}

/// What a console form with a missing or wrong token is told.
const FORGED: &str = "This form has expired";
/// What a support account is told when it asks for an owner's action.
const OWNERS_ONLY: &str = "This needs an owner account";

/// A forged form is refused as forged before anything else is looked at, the role included:
/// every POST support may not make answers a missing or foreign token with the CSRF refusal,
/// not with "owners only" (which would tell a forging page what the victim may do).
#[tokio::test]
async fn a_forged_console_form_is_refused_as_forged_before_the_role_is_checked() {
    let (app, _upstream) = spawn_shop(Backend::Sqlite, 30).await.expect("sqlite");
    create(&app.db, SUPPORT, Role::Support).await;
    let support = login_as(&app, SUPPORT).await;
    // A token minted for another browser: what a forging page could get.
    let foreign = Browser::default().csrf(&app).await;

    let mut wrong = Vec::new();
    for &(method, template, _, support_expected, _) in MATRIX {
        if method != "POST" || support_expected != 403 {
            continue;
        }
        let path = template.replace("{id}", "p-forged").replace("{uid}", "1");
        for (what, token) in [("no token", None), ("a foreign token", Some(&foreign))] {
            let mut form = vec![("reason", "forged"), ("required", "off")];
            if let Some(token) = token {
                form.push(("csrf_token", token.as_str()));
            }
            let Answer { status, body, .. } = support.post(&app, &path, &form).await;
            if status != 403 || !body.contains(FORGED) || body.contains(OWNERS_ONLY) {
                wrong.push(format!(
                    "{path} with {what}: {status}, forged refusal shown: {}",
                    body.contains(FORGED)
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "wrong answers:\n{}", wrong.join("\n"));

    // With its own token, the same form is refused for the role.
    let own = support.csrf(&app).await;
    let page = support
        .post(&app, "/admin/pricing/save", &[("csrf_token", &own)])
        .await
        .assert_status(403)
        .body;
    assert!(page.contains(OWNERS_ONLY), "{page}");
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
        let seen_by_support = support.get(&app, &path).await.body;
        let seen_by_owner = owner.get(&app, &path).await.body;
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
