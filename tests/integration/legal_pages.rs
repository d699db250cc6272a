//! The shop's legal pages: drafts with the owner's details filled in and a banner until the
//! owner reviews them, links in every page's footer in the page's language, the owner's edits
//! in the console (owner only, previewed, audited), seen by travellers at once.

use storefront::staff::Role;

use crate::admin::{Browser, OWNER, SUPPORT, audit_rows, create, login_as};
use crate::both_backends;
use crate::helpers::{Backend, TestApp, hidden, spawn_shop};
use crate::journeys::sellable_plan;
use crate::shop_identity::set_identity;

both_backends!(an_owner_reviews_and_edits_the_legal_pages_travellers_read,);

const DRAFT_EN: &str = "Draft: the shop owner has not reviewed this text yet.";
const DRAFT_DE: &str = "Entwurf: Der Shop-Betreiber hat diesen Text noch nicht geprüft.";

/// A page as a new visitor sees it; `lang` as `?lang=` when given.
async fn visit(app: &TestApp, path: &str) -> String {
    Browser::default()
        .get(app, path)
        .await
        .assert_status(200)
        .body
}

/// The page's `<main>`, without the frame around it.
fn main_of(html: &str) -> &str {
    html.split("<main")
        .nth(1)
        .and_then(|m| m.split("</main>").next())
        .unwrap_or("")
}

/// The page's footer.
fn footer_of(html: &str) -> &str {
    html.split("<footer").nth(1).unwrap_or("")
}

async fn an_owner_reviews_and_edits_the_legal_pages_travellers_read(backend: Backend) {
    let Some((app, _upstream)) = spawn_shop(backend, 40).await else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    create(&app.db, SUPPORT, Role::Support).await;

    // Every shop page links the four texts in its footer, in the page's language.
    let plan = sellable_plan(&app);
    for path in [
        "/".to_string(),
        "/countries".to_string(),
        format!("/plans/{}", plan.id),
        "/help/installation".to_string(),
        "/lost-link".to_string(),
    ] {
        let html = visit(&app, &path).await;
        let footer = footer_of(&html);
        for link in [
            "<a href=\"/terms\">Terms and conditions</a>",
            "<a href=\"/privacy\">Privacy notice</a>",
            "<a href=\"/refunds-and-withdrawal\">Refunds and withdrawal</a>",
            "<a href=\"/imprint\">Imprint</a>",
        ] {
            assert!(footer.contains(link), "{path}: {link} in {footer}");
        }
    }
    let german = visit(&app, "/?lang=de").await;
    assert!(
        footer_of(&german).contains("<a href=\"/imprint\">Impressum</a>"),
        "{german}"
    );
    assert!(footer_of(&german).contains("<a href=\"/terms\">AGB</a>"));
    let missing = Browser::default().get(&app, "/no-such-page").await;
    assert_eq!(missing.status, 404);
    assert!(footer_of(&missing.body).contains("<a href=\"/privacy\">"));

    // Before the owner says anything: drafts, with a banner, naming the shop and marking the
    // details still missing.
    for path in ["/terms", "/privacy", "/refunds-and-withdrawal", "/imprint"] {
        let html = visit(&app, path).await;
        assert!(main_of(&html).contains(DRAFT_EN), "{path}: {html}");
        assert_eq!(html.matches("<h1").count(), 1, "{path}");
    }
    let terms = visit(&app, "/terms").await;
    assert!(main_of(&terms).contains("eSIM shop"), "{terms}");
    assert!(main_of(&terms).contains("[address]"), "{terms}");
    assert!(
        main_of(&terms)
            .contains("you lose your right of withdrawal once the eSIM has been delivered"),
        "{terms}"
    );

    // The owner's company details fill the drafts in every language.
    let owner = login_as(&app, OWNER).await;
    set_identity(&app, &owner).await;
    let imprint = visit(&app, "/imprint?lang=de").await;
    let imprint = main_of(&imprint);
    assert!(imprint.contains("<h1>Impressum</h1>"), "{imprint}");
    assert!(imprint.contains(DRAFT_DE), "{imprint}");
    for detail in [
        "Globe Data Travel Ltd",
        "1 Harbour Road, Dublin D02 X285",
        "VAT IE1234567T",
        "help@globedata.example",
        "+353 1 555 0100",
    ] {
        assert!(imprint.contains(detail), "{detail} in {imprint}");
    }

    // Support may not see or change them.
    let support = login_as(&app, SUPPORT).await;
    support.get(&app, "/admin/legal").await.assert_status(403);
    let token = support.csrf(&app).await;
    support
        .post(
            &app,
            "/admin/legal/terms/de",
            &[("csrf_token", &token), ("body", "x"), ("action", "save")],
        )
        .await
        .assert_status(403);

    // The owner's list: four texts in three languages, all drafts.
    let list = owner
        .get(&app, "/admin/legal")
        .await
        .assert_status(200)
        .body;
    assert_eq!(list.matches("<tr data-legal=").count(), 12, "{list}");
    assert!(list.contains("12 of 12 texts are still"), "{list}");
    assert!(
        list.contains("<a href=\"/admin/legal/terms/de\">Terms and conditions</a>"),
        "{list}"
    );

    // A preview shows the text as customers would, without anything active, and saves nothing.
    let token = owner.csrf(&app).await;
    let edited = "# Geltung\r\n\r\nDiese **neuen Bedingungen** gelten für Globe Data.\r\n\r\n\
                  <script>alert(1)</script>\r\n\r\n[Hilfe](javascript:alert(2))";
    let preview = owner
        .post(
            &app,
            "/admin/legal/terms/de",
            &[
                ("csrf_token", &token),
                ("body", edited),
                ("action", "preview"),
            ],
        )
        .await
        .assert_status(200)
        .body;
    assert!(preview.contains("Preview (not saved yet)"), "{preview}");
    assert!(
        preview.contains("<h2>Geltung</h2>")
            && preview.contains("<strong>neuen Bedingungen</strong>"),
        "{preview}"
    );
    assert!(!preview.contains("<script>alert"), "{preview}");
    assert!(preview.contains(">Hilfe</a>"), "{preview}");
    assert!(!preview.contains("href=\"javascript"), "{preview}");
    assert!(
        !visit(&app, "/terms?lang=de")
            .await
            .contains("neuen Bedingungen")
    );

    // Saved: the German terms change at once, without the banner; the English ones do not.
    owner
        .post(
            &app,
            "/admin/legal/terms/de",
            &[("csrf_token", &token), ("body", edited), ("action", "save")],
        )
        .await
        .assert_redirect_to("/admin/legal/terms/de?saved=edited");
    let terms_de = visit(&app, "/terms?lang=de").await;
    let main = main_of(&terms_de);
    assert!(
        main.contains("<strong>neuen Bedingungen</strong>"),
        "{main}"
    );
    assert!(!main.contains(DRAFT_DE), "{main}");
    assert!(!main.contains("<script>alert"), "{main}");
    assert!(main.contains("Zuletzt geändert am"), "{main}");
    assert!(main_of(&visit(&app, "/terms").await).contains(DRAFT_EN));

    // A traveller buying in German is told, before paying, that the right of withdrawal ends
    // with delivery, and must agree to the (new) German terms.
    let shopper = Browser::default();
    let page = shopper
        .get(&app, &format!("/plans/{}?lang=de", plan.id))
        .await
        .assert_status(200)
        .body;
    assert!(
        page.contains("Sie verlieren Ihr Widerrufsrecht, sobald sie geliefert ist"),
        "{page}"
    );
    assert!(
        page.contains(
            "<label for=\"accept_terms\">Ich stimme den <a href=\"/terms\">AGB</a> zu.</label>"
        ),
        "{page}"
    );
    let shop_token = hidden(&page, "csrf_token");
    let price = hidden(&page, "expected_price_cents");
    let mut form = vec![
        ("csrf_token", shop_token.as_str()),
        ("plan_id", plan.id.as_str()),
        ("email", "reisende@example.com"),
        ("confirm_device", "yes"),
        ("expected_price_cents", price.as_str()),
        ("lang", "de"),
    ];
    let refused = shopper
        .post(&app, "/checkout", &form)
        .await
        .assert_status(400)
        .body;
    let summary = refused
        .split("class=\"error-summary\"")
        .nth(1)
        .and_then(|rest| rest.split("</div>").next())
        .expect("an error summary");
    assert!(
        summary.contains("<a href=\"#accept_terms\">Stimmen Sie den AGB zu, um fortzufahren.</a>"),
        "{summary}"
    );
    assert!(
        refused.contains("value=\"reisende@example.com\""),
        "{refused}"
    );
    assert!(refused.contains("aria-describedby=\"accept_terms-error withdrawal-notice\""));
    assert_eq!(purchases_with_consent(&app).await, Vec::new());
    form.push(("accept_terms", "yes"));
    shopper
        .post(&app, "/checkout", &form)
        .await
        .assert_status(303);
    let bought = purchases_with_consent(&app).await;
    let [(id, Some(2), Some(at))] = bought.as_slice() else {
        panic!("one purchase with consent to version 2: {bought:?}");
    };
    assert!(*at > 0);
    // The console's order page says what the buyer agreed to.
    let order = owner
        .get(&app, &format!("/admin/orders/{id}"))
        .await
        .assert_status(200)
        .body;
    assert!(
        order.contains("Agreed to version 2 (Deutsch) on "),
        "{order}"
    );

    // An empty text is refused, and the form keeps nothing unsaved away from the owner.
    let refused = owner
        .post(
            &app,
            "/admin/legal/terms/de",
            &[("csrf_token", &token), ("body", "  "), ("action", "save")],
        )
        .await
        .assert_status(400)
        .body;
    assert!(
        refused.contains("Not saved: the text is empty."),
        "{refused}"
    );

    // The English privacy notice is fine as drafted: marked as reviewed, its banner goes.
    owner
        .post(
            &app,
            "/admin/legal/privacy/en/review",
            &[("csrf_token", &token)],
        )
        .await
        .assert_redirect_to("/admin/legal/privacy/en?saved=reviewed");
    let privacy = visit(&app, "/privacy").await;
    assert!(!main_of(&privacy).contains(DRAFT_EN), "{privacy}");
    assert!(
        main_of(&privacy).contains("Globe Data Travel Ltd"),
        "{privacy}"
    );

    let list = owner.get(&app, "/admin/legal").await.body;
    assert!(list.contains("10 of 12 texts are still"), "{list}");
    let row = list
        .split("<tr data-legal=\"/admin/legal/terms/de\">")
        .nth(1)
        .and_then(|r| r.split("</tr>").next())
        .expect("the German terms' row");
    assert!(
        row.contains("Reviewed") && row.contains("data-label=\"Version\">2</td>"),
        "{row}"
    );

    // The audit log names what happened in words.
    let rows = audit_rows(&app.db).await;
    assert!(
        rows.iter()
            .any(|(actor, action, target, details)| actor == OWNER
                && action == "legal_text_edited"
                && target.as_deref() == Some("terms")
                && details.contains("Deutsch")),
        "{rows:?}"
    );
    let audit = owner.get(&app, "/admin/audit").await.body;
    assert!(audit.contains("Legal page edited"), "{audit}");
    assert!(audit.contains("Legal page marked as reviewed"), "{audit}");
}

/// Every purchase's id with the terms version and time of its buyer's consent.
async fn purchases_with_consent(app: &TestApp) -> Vec<(String, Option<i64>, Option<i64>)> {
    use diesel::prelude::*;
    use storefront::db::schema::purchases;
    app.db
        .run(|conn| {
            Ok::<_, storefront::db::DbError>(
                purchases::table
                    .select((
                        purchases::id,
                        purchases::terms_version,
                        purchases::terms_accepted_at_ms,
                    ))
                    .load(conn)?,
            )
        })
        .await
        .expect("purchases")
}
