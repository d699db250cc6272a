//! Tax on sales: the owner turns it on in the console, a Stripe purchase records what Stripe
//! Tax reports (against the tests' double of Stripe), a demo purchase takes the owner's rate
//! for the billing country, tax added on top makes the charge price + tax, prices that
//! include tax charge the price, and the receipt shows net, tax and total. With tax off
//! nothing changes. A refund's credit note carries its share of the tax back; a refund of a
//! sale with tax on top gives the tax back with the price, and tax is never margin.

use diesel::prelude::*;
use storefront::db::schema::{credit_note_tax_lines, sale_tax_lines, sale_taxes};
use storefront::db::tax::{SaleTaxLineRow, SaleTaxRow};
use storefront::db::{Db, DbError, checkouts, now_ms, refunds};
use storefront::domain::Cents;
use storefront::domain::purchase::RefundCause;
use storefront::orders::confirm::{self, Applied};
use storefront::orders::receipts::{issue_credit_note, read_receipt};
use storefront::payments::{EventKind, PaidTax, PaymentEvent, ProviderTax};
use storefront::staff::Role;

use crate::admin::{self, OWNER, login_as};
use crate::both_backends;
use crate::fixtures::as_id;
use crate::helpers::{
    Backend, Browser, TestApp, TestDb, checkout_of, client_builder, spawn_shop_with,
};
use crate::journeys::{buy, open_pay_page, purchase_id, sellable_plan};
use crate::stripe::{FakeStripe, FakeTax, KEY, WHSEC};

both_backends!(
    the_owner_sets_tax_and_bad_values_are_refused_by_field,
    a_stripe_tax_purchase_records_what_stripe_reports_and_the_receipt_shows_it,
    a_demo_purchase_takes_the_owners_rate_and_tax_on_top_is_charged,
    prices_that_include_tax_charge_the_price,
    with_tax_off_nothing_changes,
    an_answer_without_a_breakdown_is_recorded_with_the_place_unknown,
    a_partial_refund_carries_its_share_of_the_tax_back,
    tax_added_on_top_comes_back_with_the_refund_and_is_never_margin,
);

/// An owner signed in on `app`.
async fn owner(app: &TestApp) -> Browser {
    admin::create(&app.db, OWNER, Role::Owner).await;
    login_as(app, OWNER).await
}

/// The owner sets the mode (`off`, `inclusive`, `exclusive`) on `/admin/tax`.
pub(crate) async fn set_mode(app: &TestApp, owner: &Browser, mode: &str) {
    let token = owner.csrf(app).await;
    owner
        .post(app, "/admin/tax", &[("csrf_token", &token), ("mode", mode)])
        .await
        .assert_redirect_to("/admin/tax?saved=mode");
}

/// The owner keeps `percent` for `country`.
pub(crate) async fn set_rate(app: &TestApp, owner: &Browser, country: &str, percent: &str) {
    let token = owner.csrf(app).await;
    owner
        .post(
            app,
            "/admin/tax/rates",
            &[
                ("csrf_token", &token),
                ("country", country),
                ("rate", percent),
            ],
        )
        .await
        .assert_redirect_to("/admin/tax?saved=rate#rates");
}

async fn sale_of(db: &Db, checkout: &str) -> Option<(SaleTaxRow, Vec<SaleTaxLineRow>)> {
    let checkout = checkout.to_string();
    db.run(move |c| {
        let sale = sale_taxes::table
            .find(&checkout)
            .select(SaleTaxRow::as_select())
            .first(c)
            .optional()?;
        let lines = sale_tax_lines::table
            .filter(sale_tax_lines::checkout_id.eq(&checkout))
            .order(sale_tax_lines::line_no)
            .select(SaleTaxLineRow::as_select())
            .load(c)?;
        Ok::<_, DbError>(sale.map(|s| (s, lines)))
    })
    .await
    .expect("the sale's tax")
}

/// The issued receipt on a receipt page.
fn document(page: &str) -> &str {
    let start = page
        .find("<article class=\"document\">")
        .expect("a receipt");
    &page[start..]
}

async fn the_owner_sets_tax_and_bad_values_are_refused_by_field(backend: Backend) {
    let Some((app, _upstream)) = spawn_shop_with(backend, 5, &[]).await else {
        return;
    };
    let owner = owner(&app).await;
    let page = owner.get(&app, "/admin/tax").await.assert_status(200).body;
    assert!(
        page.contains("data-tax-mode=\"off\""),
        "off by default: {page}"
    );
    assert!(page.contains("Prices include tax"), "{page}");

    set_mode(&app, &owner, "exclusive").await;
    let page = owner.get(&app, "/admin/tax").await.body;
    assert!(page.contains("data-tax-mode=\"exclusive\""), "{page}");
    set_rate(&app, &owner, "de", "19").await;
    set_rate(&app, &owner, "FR", "20").await;
    set_rate(&app, &owner, "DE", "7.7").await;
    let page = owner.get(&app, "/admin/tax").await.body;
    assert!(
        page.contains("Germany (DE)") && page.contains("7.7%"),
        "{page}"
    );
    assert!(
        page.contains("France (FR)") && page.contains("20%"),
        "{page}"
    );

    let token = owner.csrf(&app).await;
    for (country, rate, field) in [
        ("XX", "19", "Country:"),
        ("Germany", "19", "Country:"),
        ("DE", "101", "Rate:"),
        ("DE", "-1", "Rate:"),
        ("DE", "19.555", "Rate:"),
        ("DE", "", "Rate:"),
    ] {
        let answer = owner
            .post(
                &app,
                "/admin/tax/rates",
                &[("csrf_token", &token), ("country", country), ("rate", rate)],
            )
            .await
            .assert_status(400);
        assert!(
            answer.body.contains(field),
            "{country} {rate}: {}",
            answer.body
        );
        assert!(
            answer.body.contains("Nothing was saved."),
            "{}",
            answer.body
        );
    }
    let answer = owner
        .post(
            &app,
            "/admin/tax",
            &[("csrf_token", &token), ("mode", "sometimes")],
        )
        .await
        .assert_status(400);
    assert!(answer.body.contains("Prices:"), "{}", answer.body);
    // Without the form's token nothing is written.
    owner
        .post(&app, "/admin/tax", &[("mode", "off")])
        .await
        .assert_status(403);
    let page = owner.get(&app, "/admin/tax").await.body;
    assert!(page.contains("data-tax-mode=\"exclusive\""), "{page}");

    let token = owner.csrf(&app).await;
    owner
        .post(
            &app,
            "/admin/tax/rates/FR/remove",
            &[("csrf_token", &token)],
        )
        .await
        .assert_redirect_to("/admin/tax?saved=removed#rates");
    let page = owner.get(&app, "/admin/tax").await.body;
    assert!(!page.contains("France (FR)"), "{page}");

    // Every change is in the audit log, in the owner's words.
    let audit = admin::audit_rows(&app.db).await;
    let actions: Vec<&str> = audit.iter().map(|(_, a, _, _)| a.as_str()).collect();
    assert_eq!(
        actions.iter().filter(|a| a.starts_with("tax_")).count(),
        5,
        "{actions:?}"
    );
    assert!(
        audit.iter().any(
            |(_, a, _, d)| a == "tax_rate_set" && d.contains("Germany: before 19%; after 7.7%")
        )
    );

    // Support staff do not reach it.
    admin::create(&app.db, admin::SUPPORT, Role::Support).await;
    let support = login_as(&app, admin::SUPPORT).await;
    support.get(&app, "/admin/tax").await.assert_status(403);
}

/// A shop taking payments through the Stripe double.
async fn stripe_shop(
    backend: Backend,
    fake: &FakeStripe,
) -> Option<(TestApp, storefront::sandbox::SandboxHandle)> {
    let api_base = fake.base.as_str().trim_end_matches('/').to_string();
    spawn_shop_with(
        backend,
        20,
        &[
            ("STOREFRONT_PAYMENTS", "stripe"),
            ("STOREFRONT_STRIPE_SECRET_KEY", KEY),
            ("STOREFRONT_STRIPE_WEBHOOK_SECRET", WHSEC),
            ("STOREFRONT_STRIPE_API_BASE", api_base.as_str()),
        ],
    )
    .await
}

/// Stripe delivers a signed event to the shop's webhook.
async fn deliver(app: &TestApp, (signature, body): (String, Vec<u8>)) {
    let res = app
        .client
        .post(app.url("/webhooks/stripe"))
        .header("stripe-signature", signature)
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .expect("the webhook");
    assert_eq!(res.status().as_u16(), 200);
}

async fn a_stripe_tax_purchase_records_what_stripe_reports_and_the_receipt_shows_it(
    backend: Backend,
) {
    let fake = FakeStripe::start().await;
    let Some((app, _upstream)) = stripe_shop(backend, &fake).await else {
        return;
    };
    fake.compute_tax(FakeTax {
        country: "DE".into(),
        bps: 1900,
        breakdown: true,
    });
    let owner = owner(&app).await;
    set_mode(&app, &owner, "exclusive").await;

    let plan = sellable_plan(&app);
    let price = plan.price.expect("priced").get();
    let buyer = Browser::default();
    buy(&app, &buyer, &plan, "ana@example.com")
        .await
        .assert_status(303);
    let created: Vec<_> = fake
        .requests()
        .into_iter()
        .filter(|r| r.path == "/v1/checkout/sessions")
        .collect();
    assert_eq!(created.len(), 1);
    let sent = |name: &str| {
        created[0]
            .form
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    assert_eq!(sent("automatic_tax[enabled]").as_deref(), Some("true"));
    assert_eq!(
        sent("line_items[0][price_data][tax_behavior]").as_deref(),
        Some("exclusive")
    );
    assert_eq!(
        sent("billing_address_collection").as_deref(),
        Some("required")
    );
    assert_eq!(
        sent("line_items[0][price_data][unit_amount]"),
        Some(price.to_string()),
        "Stripe is asked for the price; Stripe Tax adds the tax"
    );
    let checkout = sent("client_reference_id").expect("the checkout");
    let session = format!("cs_test_fake{}", 1);
    let tax = (price * 1900 * 2 + 10_000) / 20_000;
    assert_eq!(
        fake.session(&session)["amount_total"],
        serde_json::json!(price + tax)
    );

    deliver(&app, fake.pay(&session, "DE")).await;
    let (sale, lines) = sale_of(&app.db, &checkout).await.expect("the sale's tax");
    assert_eq!(sale.source, "provider");
    assert_eq!(sale.mode, "exclusive");
    assert_eq!(sale.billing_country.as_deref(), Some("DE"));
    assert_eq!(sale.country.as_deref(), Some("DE"));
    assert_eq!(sale.client_country, None);
    assert_eq!(
        (sale.net_cents, sale.tax_cents, sale.gross_cents),
        (price, tax, price + tax)
    );
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0].jurisdiction.as_deref(), Some("DE"));
    assert_eq!(lines[0].rate_bps, Some(1900));
    assert_eq!((lines[0].taxable_cents, lines[0].tax_cents), (price, tax));
    // The shop asked Stripe for the breakdown the event did not carry.
    assert!(
        fake.requests()
            .iter()
            .any(|r| r.path == format!("/v1/checkout/sessions/{session}")
                && r.query.contains("total_details.breakdown"))
    );

    // The purchase is paid (the charge, price + tax, matched) and its receipt shows the tax.
    let receipt = buyer
        .get(&app, &format!("/orders/{checkout}/receipt"))
        .await
        .assert_status(200)
        .body;
    let doc = document(&receipt);
    let money = |cents: i64| format!("${}.{:02}", cents / 100, cents % 100);
    assert!(doc.contains("Total before tax"), "{doc}");
    assert!(doc.contains("Tax 19% · Germany"), "{doc}");
    assert!(doc.contains(&money(tax)), "{doc}");
    assert!(doc.contains(&money(price + tax)), "{doc}");
    assert!(!doc.contains("No tax was charged"), "{doc}");
    let stored = app
        .db
        .run({
            let id = as_id(&checkout);
            move |c| read_receipt(c, &id)
        })
        .await
        .expect("read")
        .expect("a receipt");
    assert_eq!(stored.total().get(), price + tax);
    assert_eq!(stored.net().get(), price);
    assert_eq!(stored.receipt.billing_country.as_deref(), Some("DE"));

    // The books of the day show net, tax and gross.
    let books = owner
        .get(&app, "/admin/books")
        .await
        .assert_status(200)
        .body;
    assert!(books.contains("data-tax-sales=\"1\""), "{books}");
    assert!(
        books.contains(&format!("data-net-cents=\"{price}\"")),
        "{books}"
    );
    assert!(
        books.contains(&format!("data-tax-cents=\"{tax}\"")),
        "{books}"
    );
    assert!(
        books.contains(&format!("data-gross-cents=\"{}\"", price + tax)),
        "{books}"
    );

    // The quarter's report: Germany at 19 %, the taxable amount and the tax.
    let quarter = storefront::domain::tax::Quarter::containing(now_ms()).to_string();
    let report = owner
        .get(&app, &format!("/admin/tax/report?quarter={quarter}"))
        .await
        .assert_status(200)
        .body;
    assert!(
        report.contains("Germany (DE)") && report.contains("19%"),
        "{report}"
    );
    assert!(
        report.contains(&money(tax)) && report.contains(&money(price)),
        "{report}"
    );
    let csv = owner
        .get(&app, &format!("/admin/tax/report.csv?quarter={quarter}"))
        .await
        .assert_status(200);
    assert_eq!(csv.header("content-type"), Some("text/csv; charset=utf-8"));
    let rows: Vec<&str> = csv.body.lines().collect();
    assert_eq!(rows.len(), 2, "{}", csv.body);
    assert_eq!(
        rows[1],
        format!(
            "{quarter},DE,Germany,19,1900,{price},{},{tax},{},{price},{tax},0,0",
            Cents::new(price).plain(),
            Cents::new(tax).plain()
        )
    );
    // Another quarter has nothing; a quarter that is none is refused by its field.
    let empty = owner
        .get(&app, "/admin/tax/report?quarter=2020-Q1")
        .await
        .assert_status(200)
        .body;
    assert!(
        empty.contains("No tax was charged or credited in 2020-Q1."),
        "{empty}"
    );
    let bad = owner
        .get(&app, "/admin/tax/report?quarter=2026-Q5")
        .await
        .assert_status(400)
        .body;
    assert!(bad.contains("Quarter:"), "{bad}");
}

/// Pays the demo payment page at `pay_path` as a buyer billed in Germany; returns the page
/// as shown with the country chosen and the order page's path.
async fn pay_in_germany(app: &TestApp, buyer: &Browser, pay_path: &str) -> (String, String) {
    let page = open_pay_page(app, buyer, &format!("{pay_path}?country=DE")).await;
    let order = buyer
        .post(
            app,
            &format!(
                "/demo-pay/{}/pay",
                page.session.trim_end_matches("?country=DE")
            ),
            &[("csrf_token", &page.token), ("billing_country", "DE")],
        )
        .await
        .assert_status(303)
        .location();
    (page.html, order)
}

/// `buyer` buys `plan` as `email`, pays billed in Germany and waits for the eSIM; returns
/// the purchase id.
pub(crate) async fn delivered_in_germany(
    app: &TestApp,
    buyer: &Browser,
    plan: &storefront::catalog::ShopPlan,
    email: &str,
) -> String {
    let to = buy(app, buyer, plan, email)
        .await
        .assert_status(303)
        .location();
    let pay_path = to.strip_prefix(&app.address).unwrap_or(&to).to_string();
    let (_, order) = pay_in_germany(app, buyer, &pay_path).await;
    crate::journeys::wait_fulfilled(app, buyer, &order).await;
    purchase_id(&order)
}

async fn a_demo_purchase_takes_the_owners_rate_and_tax_on_top_is_charged(backend: Backend) {
    // The tests' requests come from 127.0.0.1: here the proxy that names the client's country.
    let Some((app, _upstream)) = spawn_shop_with(
        backend,
        5,
        &[
            ("STOREFRONT_TRUSTED_PROXIES", "127.0.0.1"),
            ("STOREFRONT_CLIENT_COUNTRY_HEADER", "CF-IPCountry"),
        ],
    )
    .await
    else {
        return;
    };
    let owner = owner(&app).await;
    set_mode(&app, &owner, "exclusive").await;
    set_rate(&app, &owner, "DE", "19").await;

    let plan = sellable_plan(&app);
    let price = plan.price.expect("priced").get();
    let tax = (price * 1900 * 2 + 10_000) / 20_000;
    let buyer = Browser::with_client(
        client_builder(&[("CF-IPCountry", "at")])
            .build()
            .expect("client"),
    );
    let to = buy(&app, &buyer, &plan, "ana@example.com")
        .await
        .assert_status(303)
        .location();
    let pay_path = to.strip_prefix(&app.address).unwrap_or(&to).to_string();
    // The page asks for the billing country first and offers no Pay without it.
    let page = open_pay_page(&app, &buyer, &pay_path).await;
    assert!(page.html.contains("name=\"country\""), "{}", page.html);
    assert!(
        !page
            .html
            .contains(&format!("/demo-pay/{}/pay", page.session))
    );
    buyer
        .post(
            &app,
            &format!("/demo-pay/{}/pay", page.session),
            &[("csrf_token", &page.token)],
        )
        .await
        .assert_status(400);
    // With Germany chosen: the price, 19 % tax and their sum.
    let (html, order) = pay_in_germany(&app, &buyer, &pay_path).await;
    let money = |cents: i64| format!("${}.{:02}", cents / 100, cents % 100);
    assert!(
        html.contains(&format!("Pay {}", money(price + tax))),
        "{html}"
    );
    assert!(html.contains("Tax 19%"), "{html}");
    let checkout = purchase_id(&order);
    let page = buyer.get(&app, &order).await.body;
    assert!(
        !page.contains("data-status=\"awaiting_payment\""),
        "paid: {page}"
    );
    assert!(
        page.contains(&money(price + tax)),
        "the order page says what was paid, tax included: {page}"
    );

    let (sale, lines) = sale_of(&app.db, &checkout).await.expect("the sale's tax");
    assert_eq!(sale.source, "table");
    assert_eq!(
        (sale.net_cents, sale.tax_cents, sale.gross_cents),
        (price, tax, price + tax),
        "the charge is the price plus the tax"
    );
    assert_eq!(sale.billing_country.as_deref(), Some("DE"));
    assert_eq!(
        sale.client_country.as_deref(),
        Some("AT"),
        "the trusted proxy's word on the client's country is kept beside the billing country"
    );
    assert_eq!(lines.len(), 1);
    assert_eq!(
        (lines[0].jurisdiction.as_deref(), lines[0].rate_bps),
        (Some("DE"), Some(1900))
    );
    // The purchase's own price (what cost, holds and margin read) is the price before tax.
    let unit = app
        .db
        .run({
            let id = as_id(&checkout);
            move |c| storefront::db::purchases::find(c, &id)
        })
        .await
        .expect("read")
        .expect("the purchase");
    assert_eq!(unit.price_cents.get(), price);

    let receipt = buyer
        .get(&app, &format!("/orders/{checkout}/receipt"))
        .await
        .assert_status(200)
        .body;
    let doc = document(&receipt);
    assert!(doc.contains("Tax 19% · Germany"), "{doc}");
    assert!(doc.contains(&money(price + tax)), "{doc}");
}

async fn prices_that_include_tax_charge_the_price(backend: Backend) {
    let Some((app, _upstream)) = spawn_shop_with(backend, 5, &[]).await else {
        return;
    };
    let owner = owner(&app).await;
    set_mode(&app, &owner, "inclusive").await;
    set_rate(&app, &owner, "FR", "20").await;
    let plan = sellable_plan(&app);
    let price = plan.price.expect("priced").get();
    let tax = (price * 2000 * 2 + 12_000) / 24_000;
    let buyer = Browser::default();
    let to = buy(&app, &buyer, &plan, "ana@example.com")
        .await
        .assert_status(303)
        .location();
    let pay_path = to.strip_prefix(&app.address).unwrap_or(&to).to_string();
    let page = open_pay_page(&app, &buyer, &format!("{pay_path}?country=FR")).await;
    let session = pay_path.rsplit('/').next().expect("session").to_string();
    let money = |cents: i64| format!("${}.{:02}", cents / 100, cents % 100);
    assert!(
        page.html.contains(&format!("Pay {}", money(price))),
        "{}",
        page.html
    );
    let order = buyer
        .post(
            &app,
            &format!("/demo-pay/{session}/pay"),
            &[("csrf_token", &page.token), ("billing_country", "FR")],
        )
        .await
        .assert_status(303)
        .location();
    let checkout = purchase_id(&order);
    let (sale, _) = sale_of(&app.db, &checkout).await.expect("the sale's tax");
    assert_eq!(
        (sale.net_cents, sale.tax_cents, sale.gross_cents),
        (price - tax, tax, price)
    );
    let receipt = buyer
        .get(&app, &format!("/orders/{checkout}/receipt"))
        .await
        .body;
    let doc = document(&receipt);
    assert!(
        doc.contains("Tax 20% · France (included in the price)"),
        "{doc}"
    );
    assert!(doc.contains(&money(price - tax)), "{doc}");
}

async fn with_tax_off_nothing_changes(backend: Backend) {
    let Some((app, _upstream)) = spawn_shop_with(backend, 5, &[]).await else {
        return;
    };
    let owner = owner(&app).await;
    // Rates kept, but tax off: nothing asked, nothing recorded.
    set_rate(&app, &owner, "DE", "19").await;
    let plan = sellable_plan(&app);
    let price = plan.price.expect("priced").get();
    let buyer = Browser::default();
    let to = buy(&app, &buyer, &plan, "ana@example.com")
        .await
        .assert_status(303)
        .location();
    let pay_path = to.strip_prefix(&app.address).unwrap_or(&to).to_string();
    let page = open_pay_page(&app, &buyer, &pay_path).await;
    assert!(!page.html.contains("name=\"country\""), "{}", page.html);
    let order = buyer
        .post(
            &app,
            &format!("/demo-pay/{}/pay", page.session),
            &[("csrf_token", &page.token)],
        )
        .await
        .assert_status(303)
        .location();
    let checkout = purchase_id(&order);
    assert!(sale_of(&app.db, &checkout).await.is_none());
    let doc = buyer
        .get(&app, &format!("/orders/{checkout}/receipt"))
        .await
        .body;
    assert!(
        document(&doc).contains("No tax was charged on this sale."),
        "{doc}"
    );
    let stored = app
        .db
        .run({
            let id = as_id(&checkout);
            move |c| read_receipt(c, &id)
        })
        .await
        .expect("read")
        .expect("a receipt");
    assert_eq!(stored.total().get(), price);
    assert_eq!(stored.taxes().count(), 0);

    // A checkout started before the owner turns tax on stays untaxed when paid after.
    let late = Browser::default();
    let to = buy(&app, &late, &plan, "ben@example.com")
        .await
        .assert_status(303)
        .location();
    set_mode(&app, &owner, "exclusive").await;
    let pay_path = to.strip_prefix(&app.address).unwrap_or(&to).to_string();
    let page = open_pay_page(&app, &late, &pay_path).await;
    assert!(!page.html.contains("name=\"country\""), "{}", page.html);
    let order = late
        .post(
            &app,
            &format!("/demo-pay/{}/pay", page.session),
            &[("csrf_token", &page.token)],
        )
        .await
        .assert_status(303)
        .location();
    assert!(sale_of(&app.db, &purchase_id(&order)).await.is_none());
}

/// A checkout of `units` at 12.99 awaiting payment through `session`, started under `mode`.
async fn taxed_checkout(db: &Db, checkout: &str, units: i32, session: &str, mode: &str) {
    checkout_of(db, checkout, units, session).await;
    let (id, mode) = (as_id(checkout), mode.to_string());
    db.run(move |c| {
        c.write_tx(|c| {
            checkouts::insert(
                c,
                &checkouts::NewCheckout {
                    id: id.clone(),
                    access_token_hash: format!("hash-{id}"),
                    unit_count: units,
                    created_at_ms: now_ms(),
                },
            )?;
            checkouts::set_tax_mode(c, &id, Some(&mode), None)
        })
    })
    .await
    .expect("the checkout");
}

fn stripe_paid(session: &str, amount: i64, tax: PaidTax) -> PaymentEvent {
    PaymentEvent {
        id: format!("evt_{session}"),
        kind: EventKind::Paid {
            session_id: session.into(),
            purchase_id: None,
            amount: Cents::new(amount),
            payment_reference: Some(format!("pi_{session}")),
            tax,
        },
    }
}

async fn apply(db: &Db, event: PaymentEvent) -> Applied {
    db.run(move |c| confirm::apply(c, "stripe", &event))
        .await
        .expect("applied")
}

async fn an_answer_without_a_breakdown_is_recorded_with_the_place_unknown(backend: Backend) {
    let Some(test_db) = TestDb::new(backend) else {
        return;
    };
    let db = test_db.migrated().await;
    // Stripe reports 2.47 of tax on top of 12.99, with no breakdown and no address.
    taxed_checkout(
        &db,
        "nobreakdown00000aaaa",
        1,
        "cs_nobreakdown",
        "exclusive",
    )
    .await;
    let tax = PaidTax {
        billing_country: None,
        computed: Some(ProviderTax {
            amount: Cents::new(247),
            lines: Vec::new(),
        }),
    };
    let applied = apply(&db, stripe_paid("cs_nobreakdown", 1299 + 247, tax)).await;
    assert!(matches!(applied, Applied::Paid { .. }), "{applied:?}");
    let (sale, lines) = sale_of(&db, "nobreakdown00000aaaa")
        .await
        .expect("recorded");
    assert_eq!(
        (sale.net_cents, sale.tax_cents, sale.gross_cents),
        (1299, 247, 1546)
    );
    assert_eq!(
        (sale.country.clone(), sale.billing_country.clone()),
        (None, None)
    );
    assert_eq!(lines.len(), 1);
    assert_eq!(
        (lines[0].jurisdiction.clone(), lines[0].rate_bps),
        (None, None)
    );
    assert_eq!(lines[0].tax_cents, 247);
    let receipt = db
        .run(|c| read_receipt(c, &as_id("nobreakdown00000aaaa")))
        .await
        .expect("read")
        .expect("a receipt");
    let taxes: Vec<_> = receipt.taxes().collect();
    assert_eq!(taxes.len(), 1);
    assert_eq!(taxes[0].description, "Tax", "no rate or place is made up");
    assert_eq!(receipt.total().get(), 1546);

    // A charge that is not price + reported tax is held for the owner, not recorded.
    taxed_checkout(&db, "mismatch000000aaaaaa", 1, "cs_mismatch", "exclusive").await;
    let tax = PaidTax {
        billing_country: Some("DE".into()),
        computed: Some(ProviderTax {
            amount: Cents::new(247),
            lines: Vec::new(),
        }),
    };
    let applied = apply(&db, stripe_paid("cs_mismatch", 1299, tax)).await;
    assert_eq!(applied, Applied::Recorded);
    assert!(sale_of(&db, "mismatch000000aaaaaa").await.is_none());

    // A session that reports no tax at all while tax is on: recorded as none, untaxed.
    taxed_checkout(&db, "notaxreported0aaaaaa", 1, "cs_notax", "inclusive").await;
    let tax = PaidTax {
        billing_country: Some("ZZ".into()),
        computed: Some(ProviderTax::default()),
    };
    let applied = apply(&db, stripe_paid("cs_notax", 1299, tax)).await;
    assert!(matches!(applied, Applied::Paid { .. }), "{applied:?}");
    let (sale, lines) = sale_of(&db, "notaxreported0aaaaaa")
        .await
        .expect("recorded");
    assert_eq!((sale.tax_cents, sale.gross_cents), (0, 1299));
    assert_eq!(
        sale.billing_country, None,
        "a country that is no country is not kept"
    );
    assert!(lines.is_empty());
}

async fn a_partial_refund_carries_its_share_of_the_tax_back(backend: Backend) {
    let Some(test_db) = TestDb::new(backend) else {
        return;
    };
    let db = test_db.migrated().await;
    // Three eSIMs at 12.99, prices including 19 % as Stripe reports it.
    taxed_checkout(&db, "refunded0000000aaaaa", 3, "cs_refunded", "inclusive").await;
    let tax = PaidTax {
        billing_country: Some("DE".into()),
        computed: Some(ProviderTax {
            amount: Cents::new(622),
            lines: vec![storefront::domain::tax::TaxLine {
                jurisdiction: Some("DE".into()),
                rate: Some(storefront::domain::tax::RateBps::new(1900).expect("rate")),
                taxable: Cents::new(3275),
                tax: Cents::new(622),
            }],
        }),
    };
    let applied = apply(&db, stripe_paid("cs_refunded", 3 * 1299, tax)).await;
    assert!(matches!(applied, Applied::Paid { .. }), "{applied:?}");
    // One of the three is refunded: 12.99 of 38.97.
    let note = db
        .run(|c| {
            c.write_tx(|c| {
                let unit = storefront::db::purchases::find(c, &as_id("refunded0000000aaaaa-2"))?
                    .ok_or(DbError::Query(diesel::result::Error::NotFound))?;
                let row = refunds::ensure_refund(
                    c,
                    &unit,
                    "test",
                    RefundCause::OnRequest,
                    false,
                    now_ms(),
                )?;
                refunds::set_refund_status(c, &row.id, "succeeded", Some("re_1"), now_ms())?;
                issue_credit_note(c, &row.id, now_ms())
            })
        })
        .await
        .expect("credit note")
        .expect("issued");
    assert_eq!(note.to_string(), "CN-000001");
    let lines = db
        .run(|c| {
            Ok::<_, DbError>(
                credit_note_tax_lines::table
                    .select((
                        credit_note_tax_lines::country,
                        credit_note_tax_lines::rate_bps,
                        credit_note_tax_lines::taxable_cents,
                        credit_note_tax_lines::tax_cents,
                    ))
                    .load::<(Option<String>, Option<i32>, i64, i64)>(c)?,
            )
        })
        .await
        .expect("lines");
    // The second eSIM's share: two thirds of 6.22 (4.1466… → 4.15) less the first's third
    // (2.0733… → 2.07) is 2.08; of 32.75, 21.8333… → 21.83 less 10.9166… → 10.92 is 10.91.
    assert_eq!(lines, vec![(Some("DE".into()), Some(1900), 1091, 208)]);
    let receipt = db
        .run(|c| read_receipt(c, &as_id("refunded0000000aaaaa")))
        .await
        .expect("read")
        .expect("a receipt");
    let id = receipt.credit_notes[0].id.clone();
    assert_eq!(receipt.credit_note_tax(&id).get(), 208);

    // The quarter of the refund declares the sale less the credit note.
    let quarter = storefront::domain::tax::Quarter::containing(now_ms());
    let report = db
        .run(move |c| {
            Ok::<_, DbError>((
                storefront::db::tax::sold_by_country_rate(c, quarter.start_ms(), quarter.end_ms())?,
                storefront::db::tax::credited_by_country_rate(
                    c,
                    quarter.start_ms(),
                    quarter.end_ms(),
                )?,
            ))
        })
        .await
        .expect("the quarter");
    assert_eq!(
        (report.0[0].taxable_cents, report.0[0].tax_cents),
        (3275, 622)
    );
    assert_eq!(
        (report.1[0].taxable_cents, report.1[0].tax_cents),
        (1091, 208)
    );
    // A quarter later, nothing.
    let next = storefront::domain::tax::Quarter::containing(quarter.end_ms());
    let later = db
        .run(move |c| {
            storefront::db::tax::credited_by_country_rate(c, next.start_ms(), next.end_ms())
        })
        .await
        .expect("the next quarter");
    assert!(later.is_empty());
}

/// The `data-…-cents="N"` value after `marker` in `page`.
fn cents_after(page: &str, marker: &str, attribute: &str) -> i64 {
    page.split(marker)
        .nth(1)
        .and_then(|rest| rest.split(&format!("{attribute}=\"")).nth(1))
        .and_then(|rest| rest.split('"').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{attribute} after {marker:?}: {page}"))
}

async fn tax_added_on_top_comes_back_with_the_refund_and_is_never_margin(backend: Backend) {
    // A country header from a client that is not the trusted proxy is not evidence.
    let Some((app, _upstream)) = spawn_shop_with(
        backend,
        5,
        &[
            ("STOREFRONT_TRUSTED_PROXIES", "10.0.0.0/8"),
            ("STOREFRONT_CLIENT_COUNTRY_HEADER", "CF-IPCountry"),
        ],
    )
    .await
    else {
        return;
    };
    crate::checkout::age_wallet(&app.db).await;
    let owner = owner(&app).await;
    set_mode(&app, &owner, "exclusive").await;
    set_rate(&app, &owner, "DE", "19").await;
    let plan = sellable_plan(&app);
    let (price, cost) = (plan.price.expect("priced").get(), plan.cost.get());
    let tax = (price * 1900 * 2 + 10_000) / 20_000;
    assert!(tax > 0, "a plan whose tax is at least a cent");

    // Two sales in Germany, both delivered; the second is refunded, its cost kept.
    let mut sold = Vec::new();
    for email in ["ana@example.com", "ben@example.com"] {
        let buyer = Browser::with_client(
            client_builder(&[("CF-IPCountry", "AT")])
                .build()
                .expect("client"),
        );
        sold.push(delivered_in_germany(&app, &buyer, &plan, email).await);
    }
    let (kept, refunded) = (&sold[0], &sold[1]);
    let (sale, _) = sale_of(&app.db, kept).await.expect("the sale's tax");
    assert_eq!(
        (sale.billing_country.as_deref(), sale.client_country),
        (Some("DE"), None)
    );
    let page = owner
        .get(&app, &format!("/admin/orders/{refunded}"))
        .await
        .assert_status(200)
        .body;
    let gross = price + tax;
    let money = |cents: i64| format!("${}.{:02}", cents / 100, cents % 100);
    assert!(
        page.contains(&format!("Refund {} and keep the cost", money(gross))),
        "the owner is offered the price with its tax: {page}"
    );
    owner
        .act(
            &app,
            refunded,
            "refund-keep-cost",
            "the traveller cancelled",
        )
        .await
        .assert_status(303);
    crate::helpers::wait_for(format!("order {refunded} to be refunded"), async || {
        let page = owner
            .get(&app, &format!("/admin/orders/{refunded}"))
            .await
            .body;
        if page.contains("data-status=\"refunded\"") {
            Ok(())
        } else {
            Err(page)
        }
    })
    .await;

    // The refund gave back what the buyer paid, tax included, and its credit note carries
    // all of the tax back.
    let id = as_id(refunded);
    let (refund, credited) = app
        .db
        .run(move |c| {
            let refund = refunds::refund_for(c, &id)?
                .ok_or(DbError::Query(diesel::result::Error::NotFound))?;
            let credited: Vec<i64> = credit_note_tax_lines::table
                .filter(credit_note_tax_lines::credit_note_id.eq(&refund.id))
                .select(credit_note_tax_lines::tax_cents)
                .load(c)?;
            Ok::<_, DbError>((refund, credited))
        })
        .await
        .expect("the refund");
    assert_eq!(
        (refund.amount_cents, refund.status.as_str()),
        (gross, "succeeded")
    );
    assert_eq!(credited, vec![tax]);
    // The buyer's emails say what was paid and what came back: the price with its tax.
    let emails = app.wait_for_emails("ben@example.com", 3).await;
    let says = |start: &str| {
        emails
            .iter()
            .find(|e| e.text.contains(start))
            .map(|e| e.text.clone())
            .unwrap_or_else(|| panic!("an email saying {start:?}: {emails:?}"))
    };
    let paid = says("We received your payment of");
    assert!(
        paid.contains(&format!("We received your payment of {}", money(gross))),
        "{paid}"
    );
    let back = says("We refunded");
    assert!(
        back.contains(&format!("We refunded {}", money(gross))),
        "{back}"
    );

    // The margin: what was paid, less refunds, less the tax kept, less the cost. The kept
    // sale's tax is not the shop's; the refunded sale lost its cost, not its tax.
    let kept_page = owner
        .get(&app, &format!("/admin/orders/{kept}"))
        .await
        .assert_status(200)
        .body;
    assert_eq!(
        cents_after(&kept_page, "<dt>Margin</dt>", "data-margin-cents"),
        price - cost
    );
    assert_eq!(
        cents_after(&kept_page, "<dt>Tax</dt>", "data-tax-cents"),
        tax
    );
    let page = owner
        .get(&app, &format!("/admin/orders/{refunded}"))
        .await
        .body;
    assert_eq!(
        cents_after(&page, "<dt>Margin</dt>", "data-margin-cents"),
        -cost
    );

    // The orders CSV splits each eSIM's money into net, tax and gross.
    let csv = owner
        .get(&app, "/admin/books/orders.csv")
        .await
        .assert_status(200)
        .body;
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let header = reader.headers().expect("header").clone();
    let column = |name: &str| header.iter().position(|h| h == name).expect(name);
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.expect("row")).collect();
    let row = rows
        .iter()
        .find(|r| &r[column("purchase_id")] == kept.as_str())
        .expect("the kept sale's row");
    assert_eq!(
        (
            &row[column("net_cents")],
            &row[column("tax_cents")],
            &row[column("gross_cents")],
            &row[column("margin_cents")],
        ),
        (
            price.to_string().as_str(),
            tax.to_string().as_str(),
            gross.to_string().as_str(),
            (price - cost).to_string().as_str(),
        )
    );

    // The dashboard and the books add up the same, and name the tax kept.
    let total = (price - cost) + (-cost);
    let dashboard = owner.get(&app, "/admin").await.assert_status(200).body;
    assert_eq!(
        cents_after(&dashboard, "Today (UTC)", "data-margin-cents"),
        total
    );
    let today = time::OffsetDateTime::now_utc().date().to_string();
    let books = crate::books::books_after_refresh(&app, &owner, &today)
        .await
        .body;
    assert_eq!(
        cents_after(&books, "<dt>Margin</dt>", "data-margin-cents"),
        total
    );
    assert_eq!(
        cents_after(&books, "<dt>Tax in it", "data-tax-kept-cents"),
        tax
    );
    let day = storefront::domain::takings::utc_day_start(now_ms());
    let (stored, counted) = app
        .db
        .run(move |c| {
            Ok::<_, DbError>((
                storefront::db::daily_sales::days(c, day, 1)?,
                storefront::db::daily_sales::recount(c, day)?,
            ))
        })
        .await
        .expect("the day");
    assert_eq!(stored, vec![counted]);
    assert_eq!(
        (counted.takings.paid.get(), counted.takings.tax.get()),
        (2 * gross, tax)
    );
}
