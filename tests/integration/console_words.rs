//! The console speaks to an owner, not to an engineer: after purchases, refunds, a wallet
//! top-up and a promotion code, no console page shows a raw job name, a snake_case status,
//! alert or audit action code, or a millisecond timestamp; orders are named by the number
//! the customer quotes.

use storefront::domain::AlertKind;
use storefront::domain::purchase::{PurchaseStatus, order_number};
use storefront::orders::outbox::JobKind;
use storefront::staff::Role;

use crate::admin::{OWNER, create, login_as};
use crate::admin_roles::console_pages;
use crate::both_backends;
use crate::helpers::{Backend, hidden, spawn_shop_with};
use crate::journeys::buy_and_wait_fulfilled;

both_backends!(no_console_page_shows_raw_codes_or_millisecond_times);

/// The text a reader sees: the page without its tags (attributes such as `data-status` are
/// for scripts and tests) and without the words of `<code>` elements (ids shown as ids).
fn visible_text(html: &str) -> String {
    let mut text = String::new();
    let mut in_tag = false;
    let mut code_depth = 0usize;
    let mut tag = String::new();
    for c in html.chars() {
        match (in_tag, c) {
            (false, '<') => {
                in_tag = true;
                tag.clear();
            }
            (false, c) if code_depth == 0 => text.push(c),
            (false, _) => {}
            (true, '>') => {
                in_tag = false;
                if tag == "code" || tag.starts_with("code ") {
                    code_depth += 1;
                } else if tag == "/code" {
                    code_depth = code_depth.saturating_sub(1);
                }
                text.push(' ');
            }
            (true, c) => tag.push(c),
        }
    }
    text
}

/// Every raw name the console keeps in its database and must never print: the stored codes
/// that are not plain words (`place_order`, `needs_attention`, `wallet_topup_created`).
fn raw_names() -> Vec<String> {
    let mut names: Vec<&str> = JobKind::ALL.iter().map(|k| k.as_str()).collect();
    names.extend(PurchaseStatus::ALL.iter().map(|s| s.as_str()));
    names.extend(AlertKind::ALL.iter().map(|k| k.as_str()));
    names.extend([
        "wallet_topup_created",
        "order_refund",
        "order_note",
        "promo_code_created",
        "login_password_ok",
    ]);
    let mut names: Vec<String> = names
        .into_iter()
        .filter(|n| n.contains('_'))
        .map(str::to_string)
        .collect();
    names.push("key generation".to_string());
    names
}

/// A run of 13 digits: a millisecond timestamp of this century.
fn millisecond_number(text: &str) -> Option<String> {
    // A word of exactly 13 digits: digits inside an id (`ede39aa9480176242724`) are not a time.
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .find(|word| word.len() == 13 && word.chars().all(|c| c.is_ascii_digit()))
        .map(str::to_string)
}

async fn no_console_page_shows_raw_codes_or_millisecond_times(backend: Backend) {
    let Some((app, _upstream)) = spawn_shop_with(backend, 20, &[]).await else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    let kept = buy_and_wait_fulfilled(&app).await;
    let refunded = buy_and_wait_fulfilled(&app).await;
    let owner = login_as(&app, OWNER).await;
    owner
        .act(&app, &kept, "note", "customer asked about roaming")
        .await
        .assert_status(303);
    owner
        .act(
            &app,
            &refunded,
            "refund-keep-cost",
            "customer changed plans",
        )
        .await
        .assert_status(303);
    app.drain_outbox().await;

    // A promotion code with a last day and a top-up of the supplier wallet.
    let page = owner.get(&app, "/admin/promo-codes").await.body;
    owner
        .post(
            &app,
            "/admin/promo-codes",
            &[
                ("csrf_token", &hidden(&page, "csrf_token")),
                ("code", "WINTER"),
                ("kind", "percent"),
                ("value", "5"),
                ("ends", "2099-12-31"),
                ("max_uses", "50"),
                ("scope_kind", "all"),
            ],
        )
        .await
        .assert_status(303);
    let page = owner.get(&app, "/admin/wallet").await.body;
    let topup = owner
        .post(
            &app,
            "/admin/wallet/topup",
            &[
                ("csrf_token", &hidden(&page, "csrf_token")),
                ("nonce", &hidden(&page, "nonce")),
                ("amount", "25.50"),
            ],
        )
        .await
        .assert_status(303)
        .location();

    let users = owner.get(&app, "/admin/users").await.body;
    let user = users
        .split("href=\"/admin/users/")
        .filter_map(|rest| rest.split('"').next())
        .find(|id| !id.is_empty() && id.chars().all(|c| c.is_ascii_digit()))
        .map(|id| format!("/admin/users/{id}"))
        .expect("an account's page");
    // Every page the console declares, and a search by order number.
    let mut pages = console_pages(&[
        ("/admin/orders/{id}", format!("/admin/orders/{kept}")),
        ("/admin/orders/{id}", format!("/admin/orders/{refunded}")),
        (
            "/admin/promo-codes/{code}",
            "/admin/promo-codes/WINTER".into(),
        ),
        ("/admin/wallet/topups/{id}", topup),
        ("/admin/users/{id}", user),
        (
            "/admin/legal/{document}/{lang}",
            "/admin/legal/terms/de".into(),
        ),
    ]);
    pages.push(format!("/admin/orders?q={}", order_number(&kept)));
    let raw = raw_names();
    let mut found = Vec::new();
    for path in &pages {
        let answer = owner.get(&app, path).await;
        assert_eq!(answer.status, 200, "{path}: {}", answer.body);
        let text = visible_text(&answer.body);
        for name in raw.iter().filter(|name| text.contains(name.as_str())) {
            found.push(format!("{path}: {name}"));
        }
        if let Some(ms) = millisecond_number(&text) {
            found.push(format!("{path}: {ms}"));
        }
    }
    assert!(found.is_empty(), "raw names on console pages: {found:#?}");

    // Orders are named by the number the customer quotes, and found by it.
    let list = owner.get(&app, "/admin/orders").await.body;
    assert!(list.contains(&order_number(&kept)), "{list}");
    let found = owner
        .get(
            &app,
            &format!("/admin/orders?q={}", order_number(&refunded)),
        )
        .await
        .body;
    assert!(
        found.contains(&format!("/admin/orders/{refunded}")),
        "{found}"
    );
    let order = owner.get(&app, &format!("/admin/orders/{kept}")).await.body;
    assert!(
        order.contains("Placing the order with the supplier"),
        "{order}"
    );
    let audit = owner.get(&app, "/admin/audit").await.body;
    assert!(audit.contains("Wallet top-up created"), "{audit}");
    assert!(
        audit.contains(&format!("Order {}", order_number(&refunded))),
        "{audit}"
    );
}
