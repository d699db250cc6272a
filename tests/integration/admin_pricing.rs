//! The admin console's pricing page: markup rules previewed, saved, shown on the shop at
//! once, removed and audited, owner-only, with out-of-range values explained in the form's
//! units.

use storefront::staff::Role;

use crate::admin::{Browser, OWNER, SUPPORT, audit_rows, create, hidden, login_as};
use crate::both_backends;
use crate::helpers::{Backend, spawn_app, spawn_shop};

both_backends!(a_markup_rule_is_previewed_saved_shown_on_the_shop_and_audited,);

/// A markup typed into the "Markup (%)" field is explained in percent, not basis points.
#[tokio::test]
async fn an_out_of_range_markup_is_explained_in_the_form_s_units() {
    let app = spawn_app(Backend::Sqlite).await.expect("sqlite");
    create(&app.db, OWNER, Role::Owner).await;
    let owner = login_as(&app, OWNER).await;
    let page = owner.get(&app, "/admin/pricing").await.body;
    let token = hidden(&page, "csrf_token");
    for (markup, fixed) in [("1000000", ""), ("1000.01", ""), ("25", "20000")] {
        for action in ["preview", "save"] {
            let page = owner
                .post(
                    &app,
                    &format!("/admin/pricing/{action}"),
                    &[
                        ("csrf_token", &token),
                        ("scope_kind", "default"),
                        ("scope_value", ""),
                        ("markup_percent", markup),
                        ("fixed", fixed),
                        ("min_margin", ""),
                        ("ending", ""),
                    ],
                )
                .await
                .assert_status(400)
                .body;
            let expected = if fixed.is_empty() {
                "Markup must be from 0 to 1000 (%)."
            } else {
                "The fixed amount must be from 0.00 to 10000.00 dollars."
            };
            assert!(page.contains(expected), "{action} {markup}: {page}");
            assert!(!page.contains("basis points"), "{page}");
            assert!(!page.contains("100000000"), "{page}");
        }
    }
    // 1000 % is the top of the range, and is accepted.
    owner
        .post(
            &app,
            "/admin/pricing/preview",
            &[
                ("csrf_token", &token),
                ("scope_kind", "default"),
                ("scope_value", ""),
                ("markup_percent", "1000"),
                ("fixed", ""),
                ("min_margin", ""),
                ("ending", ""),
            ],
        )
        .await
        .assert_status(200);
}

async fn a_markup_rule_is_previewed_saved_shown_on_the_shop_and_audited(backend: Backend) {
    let Some((app, _upstream)) = spawn_shop(backend, 120).await else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    create(&app.db, SUPPORT, Role::Support).await;
    let plan = app
        .catalog
        .snapshot()
        .plans()
        .iter()
        .find(|p| p.is_sellable() && p.cost.get() >= 100)
        .expect("a plan")
        .clone();
    let doubled = storefront::domain::Cents::new(plan.cost.get() * 2).to_string();
    let form = |token: &str| -> Vec<(String, String)> {
        vec![
            ("csrf_token".into(), token.to_string()),
            ("scope_kind".into(), "plan".into()),
            ("scope_value".into(), plan.id.clone()),
            ("markup_percent".into(), "100".into()),
            ("fixed".into(), "".into()),
            ("min_margin".into(), "".into()),
            ("ending".into(), "".into()),
        ]
    };
    let as_pairs = |v: &[(String, String)]| -> Vec<(String, String)> { v.to_vec() };

    // Support may not see or change pricing; the nav does not offer it.
    let support = login_as(&app, SUPPORT).await;
    let dashboard = support.get(&app, "/admin").await.body;
    assert!(!dashboard.contains("href=\"/admin/pricing\""));
    assert_eq!(support.get(&app, "/admin/pricing").await.status, 403);
    let token = support.csrf(&app).await;
    let fields = as_pairs(&form(&token));
    let pairs: Vec<(&str, &str)> = fields
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(
        support
            .post(&app, "/admin/pricing/save", &pairs)
            .await
            .status,
        403
    );

    let owner = login_as(&app, OWNER).await;
    // Without a valid token nothing is saved.
    let fields = as_pairs(&form("bad"));
    let pairs: Vec<(&str, &str)> = fields
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(
        owner.post(&app, "/admin/pricing/save", &pairs).await.status,
        403
    );

    let page = owner
        .get(&app, "/admin/pricing")
        .await
        .assert_status(200)
        .body;
    assert!(page.contains("Price-ladder inversions"));
    let token = hidden(&page, "csrf_token");
    let fields = as_pairs(&form(&token));
    let pairs: Vec<(&str, &str)> = fields
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let preview = owner
        .post(&app, "/admin/pricing/preview", &pairs)
        .await
        .assert_status(200)
        .body;
    assert!(
        preview.contains("1 plan would be priced by this rule"),
        "{preview}"
    );
    assert!(
        preview.contains(&plan.cost.to_string()),
        "the cost is shown"
    );
    assert!(preview.contains(&doubled), "the new price is shown");
    let shop_page = owner.get(&app, &format!("/plans/{}", plan.id)).await.body;
    assert!(!shop_page.contains(&doubled), "a preview changes nothing");
    // The list page showing the plan is rendered once per catalog snapshot and kept.
    let list_path = match plan.kind {
        storefront::catalog::PlanKind::Local => format!("/countries/{}", plan.country_code),
        _ => format!("/regions/{}", plan.region.clone().expect("a region")),
    };
    let card_price = |html: &str, price: &str| {
        html.split(&format!("href=\"/plans/{}?", plan.id))
            .nth(1)
            .and_then(|card| card.split("</li>").next())
            .is_some_and(|card| card.contains(price))
    };
    let list_before = Browser::default()
        .get(&app, &list_path)
        .await
        .assert_status(200)
        .body;
    let old_price = plan.price.expect("price").to_string();
    assert!(
        card_price(&list_before, &old_price),
        "{list_path}: {list_before}"
    );

    owner
        .post(&app, "/admin/pricing/save", &pairs)
        .await
        .assert_redirect_to("/admin/pricing?saved=1");
    let shop_page = Browser::default()
        .get(&app, &format!("/plans/{}", plan.id))
        .await
        .body;
    assert!(shop_page.contains(&doubled), "the shop shows the new price");
    let list_after = Browser::default().get(&app, &list_path).await.body;
    assert!(
        card_price(&list_after, &doubled),
        "{list_path} shows the new price at once"
    );

    // A scope that does not exist is refused with a reason.
    let mut bad = as_pairs(&form(&token));
    bad[2].1 = "no-such-plan".into();
    let pairs: Vec<(&str, &str)> = bad.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let page = owner
        .post(&app, "/admin/pricing/preview", &pairs)
        .await
        .assert_status(400)
        .body;
    assert!(page.contains("There is no plan"));

    // Removing the rule restores the old price.
    owner
        .post(
            &app,
            "/admin/pricing/delete",
            &[
                ("csrf_token", &token),
                ("confirmed", "yes"),
                ("scope_kind", "plan"),
                ("scope_value", &plan.id),
            ],
        )
        .await
        .assert_status(303);
    let shop_page = Browser::default()
        .get(&app, &format!("/plans/{}", plan.id))
        .await
        .body;
    assert!(!shop_page.contains(&doubled));
    assert!(shop_page.contains(&plan.price.expect("price").to_string()));
    let list_restored = Browser::default().get(&app, &list_path).await.body;
    assert!(card_price(&list_restored, &old_price), "{list_path}");
    assert!(!card_price(&list_restored, &doubled), "{list_path}");

    let rows = audit_rows(&app.db).await;
    let pricing: Vec<_> = rows
        .iter()
        .filter(|r| r.1.starts_with("pricing_"))
        .collect();
    assert_eq!(pricing.len(), 2);
    assert_eq!(pricing[0].1, "pricing_rule_saved");
    assert!(
        pricing[0].3.starts_with("before: none; after: plan "),
        "{:?}",
        pricing[0]
    );
    assert!(pricing[0].3.contains("100.00%"));
    assert_eq!(pricing[1].1, "pricing_rule_deleted");
    let audit = owner.get(&app, "/admin/audit").await.body;
    assert!(audit.contains("pricing_rule_saved"));
}

/// A country is named as people name it: its code in any case, or its name; a region by its
/// name too. The rule is stored under the code or slug.
#[tokio::test]
async fn a_rule_s_country_or_region_is_found_by_name_or_lower_case_code() {
    let (app, _upstream) = spawn_shop(Backend::Sqlite, 120).await.expect("sqlite");
    create(&app.db, OWNER, Role::Owner).await;
    let owner = login_as(&app, OWNER).await;
    let snap = app.catalog.snapshot();
    let local = snap
        .plans()
        .iter()
        .find(|p| p.is_sellable())
        .expect("a plan")
        .clone();
    let region = snap.regions().first().expect("a region").clone();
    let page = owner.get(&app, "/admin/pricing").await.body;
    assert!(
        page.contains("<datalist id=\"scope-suggestions\">"),
        "{page}"
    );
    let token = hidden(&page, "csrf_token");
    let code_lower = local.country_code.to_lowercase();
    for (kind, typed, stored) in [
        ("country", code_lower.as_str(), local.country_code.as_str()),
        (
            "country",
            local.country_name.as_str(),
            local.country_code.as_str(),
        ),
        ("region", region.name.as_str(), region.slug.as_str()),
    ] {
        let preview = owner
            .post(
                &app,
                "/admin/pricing/preview",
                &[
                    ("csrf_token", &token),
                    ("scope_kind", kind),
                    ("scope_value", typed),
                    ("markup_percent", "30"),
                    ("fixed", ""),
                    ("min_margin", ""),
                    ("ending", ""),
                ],
            )
            .await
            .assert_status(200)
            .body;
        assert!(
            preview.contains(&format!("{kind} {stored}")),
            "{kind} {typed} is stored as {stored}: {preview}"
        );
    }
    let refused = owner
        .post(
            &app,
            "/admin/pricing/preview",
            &[
                ("csrf_token", &token),
                ("scope_kind", "country"),
                ("scope_value", "Atlantis"),
                ("markup_percent", "30"),
                ("fixed", ""),
                ("min_margin", ""),
                ("ending", ""),
            ],
        )
        .await
        .assert_status(400)
        .body;
    assert!(refused.contains("There is no country"), "{refused}");
}
