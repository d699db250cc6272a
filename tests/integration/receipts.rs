//! Receipts and credit notes: every paid checkout gets a receipt numbered 1, 2, 3, … with no
//! gap and no repeat, however many payments arrive at once and on however many replicas; a
//! payment that does not go through uses no number; a receipt keeps the shop's details as
//! they were when it was issued; a refund gets a credit note of its own series naming the
//! receipt and the amount refunded.

use diesel::prelude::*;
use futures_util::future::join_all;
use storefront::db::identity::{IdentityTexts, save_texts};
use storefront::db::schema::{credit_notes, receipts};
use storefront::db::{Db, DbError, now_ms, purchases};
use storefront::domain::database_url::DatabaseUrl;
use storefront::orders::confirm::{self, Applied};
use storefront::orders::receipts::{ReceiptDocument, issue_receipt, read_receipt};
use storefront::payments::{EventKind, PaymentEvent};
use storefront::sandbox::Outcome;
use storefront::shop::Identity;

use crate::both_backends;
use crate::fixtures::{self, as_id};
use crate::helpers::{Backend, Browser, TestApp, TestDb, spawn_shop_with, wait_for};
use crate::journeys::{answer, buy, open_pay_page, pay, sellable_plan};
use storefront::orders::my_esims::{issue_sign_in, sign_in_url};

both_backends!(
    receipt_numbers_have_no_gaps_under_concurrent_payments_on_two_replicas,
    a_receipt_keeps_what_it_said_and_a_rolled_back_payment_takes_no_number,
    a_refund_gets_a_credit_note_against_its_receipt,
    the_receipt_page_opens_for_the_buyer_only,
);

/// Checkouts on one shop, several at once: no limit on checkouts per client.
const MANY_CHECKOUTS: &[(&str, &str)] = &[("STOREFRONT_CHECKOUT_RATE_LIMIT", "1000")];

/// Every receipt number issued, ascending, with its checkout.
async fn receipt_numbers(db: &Db) -> Vec<(i64, String)> {
    db.run(|c| {
        Ok::<_, DbError>(
            receipts::table
                .select((receipts::number, receipts::id))
                .order(receipts::number)
                .load::<(i64, String)>(c)?,
        )
    })
    .await
    .expect("receipt numbers")
}

/// A checkout of one unit (`id`, 1299) awaiting payment through session `cs_{id}`.
async fn awaiting_payment(db: &Db, id: &str) {
    let id = id.to_string();
    db.run(move |conn| {
        conn.write_tx(|conn| {
            let row = fixtures::purchase(&id)
                .price(1299)
                .cost(1000)
                .reference(format!("sf-{id}"))
                .idempotency_key(format!("key-{id}-0000"))
                .build();
            purchases::insert(conn, &row, "checkout started")?;
            purchases::set_payment_session(conn, &as_id(&id), &format!("cs_{id}"))
        })
    })
    .await
    .expect("a checkout");
}

fn paid(id: &str, amount: i64) -> PaymentEvent {
    PaymentEvent {
        id: format!("evt_{id}"),
        kind: EventKind::Paid {
            session_id: format!("cs_{id}"),
            purchase_id: None,
            amount: storefront::domain::Cents::new(amount),
            payment_reference: Some(format!("pi_{id}")),
            tax: Default::default(),
        },
    }
}

async fn receipt_of(db: &Db, checkout: &str) -> Option<ReceiptDocument> {
    let checkout = as_id(checkout);
    db.run(move |c| read_receipt(c, &checkout))
        .await
        .expect("a receipt read")
}

/// A shopper's checkout of a cheap plan on `app`: the demo payment page's path.
async fn checked_out(app: &TestApp, shopper: &Browser, email: &str) -> String {
    let plan = sellable_plan(app);
    let pay_page = buy(app, shopper, &plan, email)
        .await
        .assert_status(303)
        .location();
    pay_page
        .strip_prefix(&app.address)
        .unwrap_or(&pay_page)
        .to_string()
}

async fn receipt_numbers_have_no_gaps_under_concurrent_payments_on_two_replicas(backend: Backend) {
    let Some((app, _upstream)) = spawn_shop_with(backend, 5, MANY_CHECKOUTS).await else {
        return;
    };
    // A second replica: its own pool on the same database, applying payments of its own.
    let url = DatabaseUrl::parse(&app.database_url()).expect("database url");
    let replica = Db::open(&url, 4).expect("a second pool");
    const SHOP_PAYS: usize = 8;
    const REPLICA_PAYS: usize = 8;
    let ids: Vec<String> = (0..REPLICA_PAYS)
        .map(|n| format!("replica{n:02}00000000aaaa"))
        .collect();
    for id in &ids {
        awaiting_payment(&replica, id).await;
    }
    // The shop's buyers check out one after another, then all press Pay at once (two
    // decline), while the second replica applies its own payments and the shop's workers
    // place the paid orders.
    let mut shoppers = Vec::new();
    for n in 0..SHOP_PAYS + 2 {
        let shopper = Browser::default();
        let pay_path = checked_out(&app, &shopper, &format!("buyer{n}@example.com")).await;
        let page = open_pay_page(&app, &shopper, &pay_path).await;
        shoppers.push((shopper, page));
    }
    let web = join_all(shoppers.iter().enumerate().map(|(n, (shopper, page))| {
        let choice = if n % 5 == 4 { "decline" } else { "pay" };
        answer(&app, shopper, &page.session, &page.token, choice)
    }));
    let direct = join_all(ids.iter().map(|id| {
        let (replica, event) = (replica.clone(), paid(id, 1299));
        async move {
            replica
                .run(move |c| confirm::apply(c, "demo", &event))
                .await
                .expect("the payment applies")
        }
    }));
    let (answers, applied) = tokio::join!(web, direct);
    for answer in answers {
        answer.assert_status(303);
    }
    assert!(applied.iter().all(|a| matches!(a, Applied::Paid { .. })));

    let numbers = receipt_numbers(&app.db).await;
    let expected: Vec<i64> =
        (1..=i64::try_from(SHOP_PAYS + REPLICA_PAYS).expect("small")).collect();
    assert_eq!(
        numbers.iter().map(|(n, _)| *n).collect::<Vec<_>>(),
        expected,
        "one receipt per paid checkout, numbered without gaps: {numbers:?}"
    );
    for id in &ids {
        assert_eq!(
            numbers
                .iter()
                .filter(|(_, checkout)| checkout == id)
                .count(),
            1,
            "{id} has one receipt"
        );
    }
    // A duplicate of a payment issues nothing more.
    let again = paid(&ids[0], 1299);
    let applied = replica
        .run(move |c| confirm::apply(c, "demo", &again))
        .await
        .expect("a duplicate");
    assert_eq!(applied, Applied::Duplicate);
    assert_eq!(
        receipt_numbers(&app.db).await.len(),
        SHOP_PAYS + REPLICA_PAYS
    );
}

async fn a_receipt_keeps_what_it_said_and_a_rolled_back_payment_takes_no_number(backend: Backend) {
    let Some(test_db) = TestDb::new(backend) else {
        return;
    };
    let db = test_db.migrated().await;
    let texts = |name: &str| IdentityTexts {
        name: name.into(),
        accent: "#0b5fff".into(),
        support_email: "help@alpine.example".into(),
        support_phone: "+41 44 000 00 00".into(),
        legal_name: format!("{name} GmbH"),
        address: "Bahnhofstrasse 1\n8001 Zürich".into(),
        registration: "CHE-123.456.789 MWST".into(),
    };
    let before = texts("Alpine eSIM");
    db.run(move |c| c.write_tx(|c| save_texts(c, &before, now_ms())))
        .await
        .expect("identity saved");

    // A payment whose transaction fails after its receipt was numbered leaves no trace.
    awaiting_payment(&db, "rolledback0000000aaaa").await;
    let rolled_back = db
        .run(|c| {
            c.write_tx(|c| {
                let id = as_id("rolledback0000000aaaa");
                purchases::set_paid(c, &id, Some("pi_x"), now_ms())?;
                issue_receipt(c, &id, "demo", &Identity::built_in(), now_ms())?;
                Err::<(), DbError>(DbError::Task("the payment could not be recorded".into()))
            })
        })
        .await;
    assert!(rolled_back.is_err());
    assert!(receipt_numbers(&db).await.is_empty());

    awaiting_payment(&db, "frozen000000000aaaaa").await;
    let event = paid("frozen000000000aaaaa", 1299);
    db.run(move |c| confirm::apply(c, "stripe", &event))
        .await
        .expect("paid");
    // The owner renames the shop and moves afterwards.
    let after = texts("Summit Mobile");
    db.run(move |c| c.write_tx(|c| save_texts(c, &after, now_ms())))
        .await
        .expect("identity saved");

    let receipt = receipt_of(&db, "frozen000000000aaaaa")
        .await
        .expect("the paid checkout has a receipt");
    assert_eq!(receipt.number().to_string(), "R-000001");
    assert_eq!(receipt.receipt.seller_name, "Alpine eSIM");
    assert_eq!(receipt.receipt.seller_legal_name, "Alpine eSIM GmbH");
    assert_eq!(receipt.receipt.seller_registration, "CHE-123.456.789 MWST");
    assert_eq!(
        receipt.receipt.seller_contact,
        "help@alpine.example · +41 44 000 00 00"
    );
    assert_eq!(receipt.receipt.customer_email, "ana@example.com");
    assert_eq!(receipt.receipt.payment_method, "stripe");
    assert_eq!(receipt.receipt.currency, "USD");
    assert_eq!(receipt.total().get(), 1299);
    let items: Vec<_> = receipt.items().collect();
    assert_eq!(items.len(), 1);
    assert_eq!((items[0].quantity, items[0].amount_cents), (1, 1299));
    assert_eq!(receipt.taxes().count(), 0);
}

async fn a_refund_gets_a_credit_note_against_its_receipt(backend: Backend) {
    let Some((app, upstream)) = spawn_shop_with(backend, 5, MANY_CHECKOUTS).await else {
        return;
    };
    let plan = sellable_plan(&app);
    upstream
        .sandbox
        .set_plan_outcome(&plan.id, Outcome::Failed)
        .expect("outcome");
    let shopper = Browser::default();
    let pay_path = checked_out(&app, &shopper, "unlucky@example.com").await;
    let order_path = pay(&app, &shopper, &pay_path)
        .await
        .assert_status(303)
        .location();
    let checkout = order_path.trim_start_matches("/orders/").to_string();
    let notes = wait_for("the refund's credit note", async || {
        let notes = app
            .db
            .run(|c| {
                Ok::<_, DbError>(
                    credit_notes::table
                        .select((
                            credit_notes::number,
                            credit_notes::receipt_id,
                            credit_notes::amount_cents,
                        ))
                        .load::<(i64, String, i64)>(c)?,
                )
            })
            .await
            .expect("credit notes");
        if notes.is_empty() {
            Err("no credit note yet".to_string())
        } else {
            Ok(notes)
        }
    })
    .await;
    let receipt = receipt_of(&app.db, &checkout)
        .await
        .expect("the paid checkout has a receipt");
    assert_eq!(notes, vec![(1, checkout.clone(), receipt.total().get())]);
    assert_eq!(receipt.credit_notes.len(), 1);
    // The refund job ran once more (a redelivered outcome): still one credit note.
    app.drain_outbox().await;
    assert_eq!(
        receipt_of(&app.db, &checkout)
            .await
            .expect("receipt")
            .credit_notes
            .len(),
        1
    );
}

/// The issued document on a receipt page (the page's header and footer show the shop as it is
/// now).
fn document(page: &str) -> &str {
    let start = page
        .find("<article class=\"document\">")
        .unwrap_or_else(|| panic!("no receipt document in {page}"));
    let end = page[start..]
        .find("</article>")
        .map_or(page.len(), |e| start + e);
    &page[start..end]
}

/// The receipt's PDF as `browser` gets it from `path`, read back as text by a real PDF reader
/// (poppler's `pdftotext`, which .ci/run installs).
async fn pdf_text(app: &TestApp, browser: &Browser, path: &str) -> String {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let res = app
        .client
        .get(app.url(path))
        .header("cookie", browser.cookie_header())
        .send()
        .await
        .expect("get the PDF");
    assert_eq!(res.status().as_u16(), 200, "GET {path}");
    let header = |name: &str| {
        res.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    assert_eq!(header("content-type").as_deref(), Some("application/pdf"));
    assert_eq!(header("cache-control").as_deref(), Some("no-store"));
    let bytes = res.bytes().await.expect("the PDF's bytes");
    assert!(bytes.starts_with(b"%PDF-"), "not a PDF");
    let mut reader = Command::new("pdftotext")
        .args(["-layout", "-enc", "UTF-8", "-", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("pdftotext (poppler-utils) reads the receipt's PDF");
    reader
        .stdin
        .take()
        .expect("stdin")
        .write_all(&bytes)
        .expect("the PDF written to pdftotext");
    let out = reader.wait_with_output().expect("pdftotext ran");
    assert!(
        out.status.success(),
        "pdftotext could not read the receipt: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("text")
}

/// A browser signed in to "My eSIMs" as `email`.
async fn signed_in_as(app: &TestApp, email: &str) -> Browser {
    let email = email.to_lowercase();
    let token = app
        .db
        .run(move |c| c.write_tx(|c| issue_sign_in(c, &email, now_ms())))
        .await
        .expect("sign-in token");
    let url = sign_in_url(
        &url::Url::parse("http://shop.invalid").expect("url"),
        &token,
    );
    let browser = Browser::default();
    crate::my_esims::press_sign_in(
        app,
        &browser,
        &format!("{}?{}", url.path(), url.query().unwrap_or_default()),
    )
    .await
    .assert_redirect_to("/my-esims");
    browser
}

async fn the_receipt_page_opens_for_the_buyer_only(backend: Backend) {
    let Some((app, _upstream)) = spawn_shop_with(backend, 5, MANY_CHECKOUTS).await else {
        return;
    };
    let alpine = IdentityTexts {
        name: "Alpine eSIM".into(),
        accent: "#0b5fff".into(),
        support_email: "help@alpine.example".into(),
        support_phone: String::new(),
        legal_name: "Alpine Travel GmbH".into(),
        address: "Bahnhofstrasse 1\n8001 Zürich".into(),
        registration: "CHE-123.456.789 MWST".into(),
    };
    let saved = alpine.clone();
    app.db
        .run(move |c| c.write_tx(|c| save_texts(c, &saved, now_ms())))
        .await
        .expect("identity saved");

    let buyer = Browser::default();
    let pay_path = checked_out(&app, &buyer, "mia@example.com").await;
    let order_path = pay(&app, &buyer, &pay_path)
        .await
        .assert_status(303)
        .location();
    let receipt_path = format!("{order_path}/receipt");

    // The buyer's browser (the checkout's cookie): the order page links the receipt.
    let order = buyer.get(&app, &order_path).await.assert_status(200).body;
    assert!(
        order.contains(&format!("href=\"{receipt_path}\"")),
        "{order}"
    );
    let page = buyer.get(&app, &receipt_path).await.assert_status(200);
    assert_eq!(page.header("cache-control"), Some("no-store"));
    let doc = document(&page.body).to_string();
    assert!(doc.contains("R-000001"), "{doc}");
    assert!(doc.contains("Alpine Travel GmbH"), "{doc}");
    assert!(doc.contains("CHE-123.456.789 MWST"), "{doc}");
    assert!(doc.contains("mia@example.com"), "{doc}");
    assert!(doc.contains("No tax was charged on this sale."), "{doc}");
    assert!(doc.contains("Demo payment"), "{doc}");
    // The same receipt as a PDF, linked from the page, for the same browser only.
    let pdf_path = format!("{receipt_path}.pdf");
    assert!(page.body.contains(&format!("href=\"{pdf_path}\"")));
    let pdf = pdf_text(&app, &buyer, &pdf_path).await;
    for words in [
        "Receipt R-000001",
        "Alpine Travel GmbH",
        "Bahnhofstrasse 1",
        "8001 Zürich",
        "CHE-123.456.789 MWST",
        "mia@example.com",
        "Total paid",
        "No tax was charged on this sale.",
        "Demo payment",
    ] {
        assert!(pdf.contains(words), "{words:?} not in the PDF:\n{pdf}");
    }
    let total = doc
        .split("class=\"total\"")
        .nth(1)
        .and_then(|rest| rest.split("class=\"num\">").nth(1))
        .and_then(|rest| rest.split('<').next())
        .expect("the page's total")
        .to_string();
    assert!(
        pdf.contains(&total),
        "the total {total} not in the PDF:\n{pdf}"
    );

    // The owner renames the company: the issued receipt still names the seller it was sold by.
    let renamed = IdentityTexts {
        name: "Summit Mobile".into(),
        legal_name: "Summit Mobile AG".into(),
        ..alpine
    };
    app.db
        .run(move |c| c.write_tx(|c| save_texts(c, &renamed, now_ms())))
        .await
        .expect("identity saved");
    let again = buyer.get(&app, &receipt_path).await.assert_status(200).body;
    assert_eq!(document(&again), doc, "an issued receipt never changes");
    assert!(!document(&again).contains("Summit"));
    let pdf_again = pdf_text(&app, &buyer, &pdf_path).await;
    assert!(pdf_again.contains("Alpine Travel GmbH") && !pdf_again.contains("Summit"));

    // Anyone else: the order pages' 404, with a wrong token too.
    let stranger = Browser::default();
    stranger.get(&app, &receipt_path).await.assert_status(404);
    stranger.get(&app, &pdf_path).await.assert_status(404);
    stranger
        .get(&app, &format!("{receipt_path}?token={}", "ab".repeat(32)))
        .await
        .assert_status(404);
    signed_in_as(&app, "otto@example.com")
        .await
        .get(&app, &receipt_path)
        .await
        .assert_status(404);

    // The payment email links the receipt; its link opens it in another browser.
    let email = app.wait_for_email("mia@example.com").await;
    let marker = format!("{receipt_path}?token=");
    let rest = email
        .text
        .split(&marker)
        .nth(1)
        .unwrap_or_else(|| panic!("no receipt link in {}", email.text));
    let token: String = rest.chars().take_while(char::is_ascii_hexdigit).collect();
    let laptop = Browser::default();
    laptop
        .get(&app, &format!("{marker}{token}"))
        .await
        .assert_redirect_to(&receipt_path);
    let opened = laptop
        .get(&app, &receipt_path)
        .await
        .assert_status(200)
        .body;
    assert_eq!(document(&opened), doc);

    // "My eSIMs" of the buyer's address lists the receipt and opens it.
    let phone = signed_in_as(&app, "Mia@Example.com").await;
    let list = phone.get(&app, "/my-esims").await.assert_status(200).body;
    assert!(list.contains(&format!("href=\"{receipt_path}\"")), "{list}");
    let mine = phone.get(&app, &receipt_path).await.assert_status(200).body;
    assert_eq!(document(&mine), doc);
}
