//! A new owner makes the shop theirs: name, colour, logo and company details set in the
//! console (owner only, audited, a low-contrast colour and a non-image refused), then seen by
//! a traveller in the page title, header, footer, theme and the order email.

use storefront::staff::Role;

use crate::admin::{Browser, OWNER, SUPPORT, audit_rows, create, login_as};
use crate::both_backends;
use crate::helpers::{Answer, Backend, TestApp, spawn_shop};
use crate::journeys::{pay, sellable_plan};

both_backends!(an_owner_s_identity_reaches_every_page_and_the_order_email,);

/// A 1×1 PNG.
pub(crate) const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x60, 0x60, 0xf8, 0x0f,
    0x00, 0x01, 0x04, 0x01, 0x00, 0x5f, 0xe5, 0xc3, 0x4b, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e,
    0x44, 0xae, 0x42, 0x60, 0x82,
];

/// The details a new owner gives, as the console's form sends them.
pub(crate) fn details<'a>(token: &'a str, accent: &'a str) -> Vec<(&'a str, &'a str)> {
    vec![
        ("csrf_token", token),
        ("name", "Globe Data"),
        ("accent", accent),
        ("support_email", "help@globedata.example"),
        ("support_phone", "+353 1 555 0100"),
        ("legal_name", "Globe Data Travel Ltd"),
        ("address", "1 Harbour Road\r\nDublin D02 X285"),
        ("registration", "VAT IE1234567T"),
    ]
}

/// Sends `file` as the logo upload form does (`multipart/form-data`, token first).
pub(crate) async fn upload_logo(
    app: &TestApp,
    owner: &Browser,
    token: &str,
    name: &str,
    file: &[u8],
) -> Answer {
    let boundary = "----storefront-test-boundary";
    let mut body = Vec::new();
    body.extend_from_slice(
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"csrf_token\"\r\n\r\n{token}\r\n"
        )
        .as_bytes(),
    );
    body.extend_from_slice(
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
        )
        .as_bytes(),
    );
    body.extend_from_slice(file);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    let res = app
        .client
        .post(app.url("/admin/identity/logo"))
        .header("cookie", owner.cookie_header())
        .header(
            "content-type",
            format!("multipart/form-data; boundary={boundary}"),
        )
        .body(body)
        .send()
        .await
        .expect("upload");
    owner.remember(&res);
    Answer::read("POST /admin/identity/logo".into(), res).await
}

/// Sets the identity a new owner would: details, then a PNG logo.
pub(crate) async fn set_identity(app: &TestApp, owner: &Browser) {
    let token = owner.csrf(app).await;
    owner
        .post(app, "/admin/identity", &details(&token, "#7a1f5c"))
        .await
        .assert_redirect_to("/admin/identity?saved=details");
    upload_logo(app, owner, &token, "logo.png", PNG)
        .await
        .assert_redirect_to("/admin/identity?saved=logo");
}

async fn an_owner_s_identity_reaches_every_page_and_the_order_email(backend: Backend) {
    let Some((app, _upstream)) = spawn_shop(backend, 40).await else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    create(&app.db, SUPPORT, Role::Support).await;

    // Before: the built-in name, no company.
    let home = app.get("/").await.text().await.expect("home");
    assert!(home.contains("<span>eSIM shop</span>"), "{home}");

    // Support may not change who the shop is.
    let support = login_as(&app, SUPPORT).await;
    support
        .get(&app, "/admin/identity")
        .await
        .assert_status(403);
    let token = support.csrf(&app).await;
    support
        .post(&app, "/admin/identity", &details(&token, "#7a1f5c"))
        .await
        .assert_status(403);

    let owner = login_as(&app, OWNER).await;
    let page = owner
        .get(&app, "/admin/identity")
        .await
        .assert_status(200)
        .body;
    assert!(page.contains("value=\"eSIM shop\""), "{page}");
    let token = owner.csrf(&app).await;

    // A colour white text cannot be read on is refused, and nothing is saved.
    let refused = owner
        .post(&app, "/admin/identity", &details(&token, "#ffcc00"))
        .await
        .assert_status(400)
        .body;
    assert!(
        refused.contains("contrast of 1.5:1 with white"),
        "{refused}"
    );
    assert!(refused.contains("Nothing was saved"), "{refused}");
    // What the owner typed stays in the form.
    assert!(
        refused.contains("value=\"Globe Data Travel Ltd\""),
        "{refused}"
    );
    let home = app.get("/").await.text().await.expect("home");
    assert!(!home.contains("Globe Data"), "{home}");

    // A file that is not a PNG or an SVG is refused.
    let gif = upload_logo(&app, &owner, &token, "logo.gif", b"GIF89a\x01\x00\x01\x00")
        .await
        .assert_status(400)
        .body;
    assert!(
        gif.contains("The logo must be a PNG or an SVG image"),
        "{gif}"
    );

    set_identity(&app, &owner).await;
    let page = owner.get(&app, "/admin/identity?saved=logo").await.body;
    assert!(page.contains("Logo saved"), "{page}");
    assert!(page.contains("src=\"/brand/logo."), "{page}");

    // The traveller sees the shop's name in the title and header, its logo, colour and
    // company details.
    let home = app.get("/").await.text().await.expect("home");
    assert!(home.contains("<title>Globe Data · "), "{home}");
    assert!(home.contains("<span>Globe Data</span>"), "{home}");
    assert!(!home.contains("eSIM shop<"), "{home}");
    assert!(
        home.contains("Globe Data Travel Ltd · 1 Harbour Road, Dublin D02 X285 · VAT IE1234567T"),
        "{home}"
    );
    assert!(home.contains("+353 1 555 0100"), "{home}");
    assert!(home.contains("mailto:help@globedata.example"), "{home}");
    let logo = attribute_after(&home, "<img class=\"logo\" src=\"");
    let served = app.get(&logo).await;
    assert_eq!(served.status(), 200);
    assert_eq!(served.headers()["content-type"], "image/png");
    assert_eq!(served.headers()["x-content-type-options"], "nosniff");
    assert!(
        served.headers()["content-security-policy"]
            .to_str()
            .expect("ascii")
            .starts_with("default-src 'none'")
    );
    assert_eq!(served.bytes().await.expect("logo").as_ref(), PNG);
    // The favicon is the logo.
    assert!(home.contains(&format!(
        "<link rel=\"icon\" href=\"{logo}\" type=\"image/png\">"
    )));
    let theme = attribute_after(&home, "<link rel=\"stylesheet\" href=\"/brand/");
    let css = app
        .get(&format!("/brand/{theme}"))
        .await
        .text()
        .await
        .expect("css");
    assert!(css.contains("--accent: #7a1f5c"), "{css}");
    // Plan pages (cached per catalog) show the new name too.
    let plan = sellable_plan(&app);
    let plan_page = app
        .get(&format!("/plans/{}", plan.id))
        .await
        .text()
        .await
        .expect("plan");
    assert!(plan_page.contains("<span>Globe Data</span>"), "{plan_page}");

    // The order email is sent in the shop's name, with its company details.
    let shopper = Browser::default();
    let pay_page = crate::journeys::buy(&app, &shopper, &plan, "traveller@example.com")
        .await
        .assert_status(303)
        .location();
    let pay_page = pay_page.strip_prefix(&app.address).unwrap_or(&pay_page);
    pay(&app, &shopper, pay_page).await.assert_status(303);
    let email = app.wait_for_email("traveller@example.com").await;
    assert!(
        email
            .header("from")
            .is_some_and(|f| f.starts_with("\"Globe Data\" <")),
        "{}",
        email.raw
    );
    assert!(
        email
            .header("reply-to")
            .is_some_and(|r| r.contains("help@globedata.example")),
        "{}",
        email.raw
    );
    assert!(
        email
            .header("subject")
            .is_some_and(|s| s.contains("Globe Data")),
        "{}",
        email.raw
    );
    assert!(
        email.text.contains("Globe Data Travel Ltd"),
        "{}",
        email.text
    );
    assert!(
        email.text.contains("1 Harbour Road, Dublin D02 X285"),
        "{}",
        email.text
    );
    assert!(email.text.contains("VAT IE1234567T"), "{}", email.text);
    assert!(
        email.text.contains("background-color:#7a1f5c"),
        "{}",
        email.text
    );

    // The audit log says who changed what.
    let rows = audit_rows(&app.db).await;
    let saved = rows
        .iter()
        .find(|(actor, action, ..)| actor == OWNER && action == "shop_identity_saved")
        .expect("identity audited");
    assert!(
        saved.3.contains("name: eSIM shop → Globe Data"),
        "{saved:?}"
    );
    assert!(
        rows.iter().any(|(_, action, ..)| action == "shop_logo_set"),
        "{rows:?}"
    );
}

/// An SVG logo cannot run script, even opened on its own.
#[tokio::test]
async fn an_svg_logo_is_served_so_it_cannot_run_script() {
    let Some((app, _upstream)) = spawn_shop(Backend::Sqlite, 5).await else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    let owner = login_as(&app, OWNER).await;
    let token = owner.csrf(&app).await;
    let svg = br#"<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script><rect width="10" height="10"/></svg>"#;
    upload_logo(&app, &owner, &token, "logo.svg", svg)
        .await
        .assert_redirect_to("/admin/identity?saved=logo");
    let home = app.get("/").await.text().await.expect("home");
    let logo = attribute_after(&home, "<img class=\"logo\" src=\"");
    assert!(logo.ends_with(".svg"), "{logo}");
    let served = app.get(&logo).await;
    assert_eq!(served.headers()["content-type"], "image/svg+xml");
    assert_eq!(served.headers()["x-content-type-options"], "nosniff");
    let csp = served.headers()["content-security-policy"]
        .to_str()
        .expect("ascii")
        .to_string();
    assert!(csp.contains("default-src 'none'"), "{csp}");
    assert!(!csp.contains("script-src"), "{csp}");
    // Too large is refused with the limit named.
    let mut big = PNG.to_vec();
    big.resize(300 * 1024, 0);
    let refused = upload_logo(&app, &owner, &token, "big.png", &big)
        .await
        .assert_status(400)
        .body;
    assert!(refused.contains("larger than 256 KB"), "{refused}");
}

/// The value of the attribute that starts right after `marker` in `html`.
fn attribute_after(html: &str, marker: &str) -> String {
    html.split(marker)
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_else(|| panic!("no {marker} in {html}"))
        .to_string()
}
