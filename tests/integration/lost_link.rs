//! "Lost your link?": one email with fresh working links for an address with paid orders,
//! none for any other, the same answer either way, limits per address and per client, and
//! the CSRF token; the order pages' 404 and the help pages lead there.

use std::time::{Duration, Instant};

use storefront::db::lost_links::state_of;
use storefront::orders::lost_link::{KEEP_HANDLED_MS, forget_handled};

use crate::admin::insert_purchase;
use crate::both_backends;
use crate::fixtures::as_id;
use crate::helpers::{
    Answer, Backend, Browser, TestApp, TestDb, emails_in, hidden, spawn_app, wait_for,
};

const KNOWN: &str = "Lena@Example.com";
const UNKNOWN: &str = "nobody@example.com";

/// The emails so far that were written to `to`, with quoted-printable undone.
fn emails_to(app: &TestApp, to: &str) -> Vec<String> {
    emails_in(app.mail_dir.path())
        .into_iter()
        .filter(|email| email.is_to(to))
        .map(|email| email.text)
        .collect()
}

/// The link tokens for `id` in `text`.
fn tokens_for(text: &str, id: &str) -> Vec<String> {
    let marker = format!("/orders/{id}?token=");
    text.split(&marker)
        .skip(1)
        .map(|rest| rest.chars().take_while(char::is_ascii_hexdigit).collect())
        .collect()
}

/// Fills in and sends the form from `browser`: the answer to the POST.
async fn ask(app: &TestApp, browser: &Browser, email: &str) -> Answer {
    let form = browser.get(app, "/lost-link").await.assert_status(200).body;
    let token = hidden(&form, "csrf_token");
    browser
        .post(
            app,
            "/lost-link",
            &[("csrf_token", token.as_str()), ("email", email)],
        )
        .await
}

/// The body with what differs on every answer (request id, CSRF token) masked out.
fn masked(answer: &Answer) -> String {
    let mut body = answer.body.clone();
    if let Some(id) = answer.header("x-request-id") {
        body = body.replace(id, "REQUEST-ID");
    }
    if body.contains("name=\"csrf_token\" value=\"") {
        body = body.replace(&hidden(&body, "csrf_token"), "TOKEN");
    }
    body
}

/// Waits until the request for `email` was handled by the background sender.
async fn wait_handled(app: &TestApp, email: &str) -> String {
    let key = email.to_lowercase();
    wait_for(
        format!("the request for {email} to be handled"),
        async || {
            let lookup = key.clone();
            let state = app
                .db
                .run(move |c| state_of(c, &lookup))
                .await
                .expect("read request");
            match state.as_deref() {
                Some("pending") | None => Err(format!("{state:?}")),
                Some(done) => Ok(done.to_string()),
            }
        },
    )
    .await
}

async fn requested(app: &TestApp, email: &str) -> Option<String> {
    let lookup = email.to_lowercase();
    app.db
        .run(move |c| state_of(c, &lookup))
        .await
        .expect("read request")
}

/// Paid (in progress, refunded) and unpaid purchases of [`KNOWN`] (stored as typed at
/// checkout, another case); returns the paid ones' ids, newest first, and the unpaid ones'.
async fn orders_of_known(app: &TestApp) -> (Vec<String>, Vec<String>) {
    let stored = "lena@example.COM";
    let base = storefront::db::now_ms() - 86_400_000;
    insert_purchase(&app.db, "ll-paid-old", stored, "refunded", base).await;
    insert_purchase(&app.db, "ll-paid-new", stored, "paid", base + 60_000).await;
    insert_purchase(
        &app.db,
        "ll-unpaid",
        stored,
        "awaiting_payment",
        base + 120_000,
    )
    .await;
    insert_purchase(
        &app.db,
        "ll-declined",
        stored,
        "payment_failed",
        base + 180_000,
    )
    .await;
    insert_purchase(&app.db, "ll-other", "else@example.com", "paid", base).await;
    (
        vec!["ll-paid-new".into(), "ll-paid-old".into()],
        vec!["ll-unpaid".into(), "ll-declined".into(), "ll-other".into()],
    )
}

both_backends!(
    a_known_address_gets_working_links_and_an_unknown_one_nothing,
    the_answer_is_the_same_for_known_and_unknown_addresses,
    one_email_per_address_per_window_and_a_client_limit,
    a_request_without_the_csrf_token_is_refused_and_writes_nothing,
    the_order_404_and_the_help_pages_lead_to_the_form
);

async fn a_known_address_gets_working_links_and_an_unknown_one_nothing(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let (paid, unpaid) = orders_of_known(&app).await;

    ask(&app, &Browser::from_address("127.0.0.11"), KNOWN)
        .await
        .assert_status(200);
    assert_eq!(wait_handled(&app, KNOWN).await, "sent");
    let mail = &app.wait_for_email(KNOWN).await.text;
    assert_eq!(
        emails_to(&app, KNOWN).len(),
        1,
        "one email, whatever the number of orders"
    );
    assert!(mail.contains("Your order links"), "{mail}");
    for id in &unpaid {
        assert!(
            !mail.contains(&format!("/orders/{id}")),
            "{id} listed: {mail}"
        );
        assert!(
            !mail.contains(&as_id(id).order_number()),
            "{id} listed: {mail}"
        );
    }
    // Newest first, each with its order number, and a link that opens its page.
    let positions: Vec<usize> = paid
        .iter()
        .map(|id| {
            mail.find(&as_id(id).order_number())
                .expect("order number listed")
        })
        .collect();
    assert!(positions[0] < positions[1], "newest first: {mail}");
    for id in &paid {
        let tokens = tokens_for(mail, id);
        assert!(!tokens.is_empty(), "no link to {id}: {mail}");
        let phone = Browser::default();
        phone
            .get(&app, &format!("/orders/{id}?token={}", tokens[0]))
            .await
            .assert_status(303);
        phone
            .get(&app, &format!("/orders/{id}"))
            .await
            .assert_status(200);
    }

    ask(&app, &Browser::from_address("127.0.0.12"), UNKNOWN)
        .await
        .assert_status(200);
    assert_eq!(wait_handled(&app, UNKNOWN).await, "no_orders");
    assert!(emails_to(&app, UNKNOWN).is_empty());
    assert_eq!(app.emails().len(), 1, "nothing else was sent");

    // The addresses are kept a day, then forgotten.
    let now = storefront::db::now_ms();
    assert_eq!(forget_handled(&app.db, now).await.expect("forget"), 0);
    assert_eq!(
        forget_handled(&app.db, now + KEEP_HANDLED_MS + 1)
            .await
            .expect("forget"),
        2
    );
    assert_eq!(requested(&app, KNOWN).await, None);
    assert_eq!(requested(&app, UNKNOWN).await, None);
}

both_backends!(a_request_still_to_send_is_never_forgotten);

async fn a_request_still_to_send_is_never_forgotten(backend: Backend) {
    let Some(test_db) = TestDb::new(backend) else {
        return;
    };
    let db = test_db.migrated().await;
    let long_ago = storefront::db::now_ms() - 7 * KEEP_HANDLED_MS;
    db.run(move |c| {
        c.write_tx(|c| {
            storefront::db::lost_links::request(c, "waiting@example.com", "en", long_ago, 0)
        })
    })
    .await
    .expect("request");
    assert_eq!(
        forget_handled(&db, storefront::db::now_ms())
            .await
            .expect("forget"),
        0
    );
    let state = db
        .run(|c| state_of(c, "waiting@example.com"))
        .await
        .expect("state");
    assert_eq!(state.as_deref(), Some("pending"));
}

async fn the_answer_is_the_same_for_known_and_unknown_addresses(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let base = storefront::db::now_ms() - 86_400_000;
    const ROUNDS: usize = 7;
    for i in 0..ROUNDS {
        insert_purchase(
            &app.db,
            &format!("t-{i}"),
            &format!("k{i}@example.com"),
            "paid",
            base,
        )
        .await;
    }
    let mut known_ms = Vec::new();
    let mut unknown_ms = Vec::new();
    let mut first: Option<(u16, String)> = None;
    for i in 0..ROUNDS {
        for (email, times) in [
            (format!("k{i}@example.com"), &mut known_ms),
            (format!("u{i}@example.com"), &mut unknown_ms),
        ] {
            let browser = Browser::from_address(&format!(
                "127.0.1.{}",
                times.len() * 2 + usize::from(email.starts_with('u')) + 1
            ));
            let form = browser.get(&app, "/lost-link").await.body;
            let token = hidden(&form, "csrf_token");
            let started = Instant::now();
            let answer = browser
                .post(
                    &app,
                    "/lost-link",
                    &[("csrf_token", token.as_str()), ("email", email.as_str())],
                )
                .await;
            times.push(started.elapsed().as_secs_f64() * 1000.0);
            let seen = (answer.status, masked(&answer));
            match &first {
                None => first = Some(seen),
                Some(expected) => assert_eq!(&seen, expected, "{email} answered differently"),
            }
        }
    }
    let (status, body) = first.expect("answers");
    assert_eq!(status, 200);
    assert!(
        body.contains("If orders were paid for with that email address"),
        "{body}"
    );
    // The request only queues: no lookup, token or mail in it, so its time does not depend on
    // the address. Medians, with a bound for a busy machine.
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (known, unknown) = (median(&mut known_ms), median(&mut unknown_ms));
    assert!(
        (known - unknown).abs() < 25.0 + 0.5 * known.min(unknown),
        "known {known:.1} ms, unknown {unknown:.1} ms"
    );
    eprintln!("lost-link POST median: known {known:.2} ms, unknown {unknown:.2} ms");
    // The mail did go out afterwards, to the known addresses only.
    for i in 0..ROUNDS {
        assert_eq!(
            wait_handled(&app, &format!("k{i}@example.com")).await,
            "sent"
        );
        assert_eq!(
            wait_handled(&app, &format!("u{i}@example.com")).await,
            "no_orders"
        );
    }
    assert_eq!(app.emails().len(), ROUNDS);
}

async fn one_email_per_address_per_window_and_a_client_limit(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    orders_of_known(&app).await;
    let first = ask(&app, &Browser::from_address("127.0.0.21"), KNOWN).await;
    assert_eq!(wait_handled(&app, KNOWN).await, "sent");
    // Again within the window, from another connection and in another case: the same answer,
    // nothing queued.
    let second = ask(
        &app,
        &Browser::from_address("127.0.0.22"),
        "lena@example.com",
    )
    .await;
    assert_eq!(
        (second.status, masked(&second)),
        (first.status, masked(&first))
    );
    assert_eq!(requested(&app, KNOWN).await.as_deref(), Some("sent"));
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(emails_to(&app, KNOWN).len(), 1);

    // One client: five requests are answered, the sixth gets 429 with the form and queues
    // nothing.
    let client = Browser::from_address("127.0.0.23");
    for i in 0..5 {
        ask(&app, &client, &format!("c{i}@example.com"))
            .await
            .assert_status(200);
    }
    let Answer {
        body: page,
        headers,
        ..
    } = ask(&app, &client, "c5@example.com")
        .await
        .assert_status(429);
    assert!(
        page.contains("Too many requests from your connection"),
        "{page}"
    );
    assert!(
        page.contains("value=\"c5@example.com\""),
        "the typed address stays"
    );
    assert_eq!(headers["retry-after"], "900");
    assert_eq!(requested(&app, "c5@example.com").await, None);
    // Another client is not held back.
    ask(&app, &Browser::from_address("127.0.0.24"), "c5@example.com")
        .await
        .assert_status(200);
    assert!(requested(&app, "c5@example.com").await.is_some());
}

async fn a_request_without_the_csrf_token_is_refused_and_writes_nothing(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    orders_of_known(&app).await;
    let browser = Browser::from_address("127.0.0.31");
    browser.get(&app, "/lost-link").await.assert_status(200);
    for form in [
        vec![("email", KNOWN)],
        vec![("csrf_token", "forged"), ("email", KNOWN)],
    ] {
        browser
            .post(&app, "/lost-link", &form)
            .await
            .assert_status(403);
    }
    // Nor from a browser that never had the form.
    Browser::from_address("127.0.0.32")
        .post(&app, "/lost-link", &[("csrf_token", "x"), ("email", KNOWN)])
        .await
        .assert_status(403);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(requested(&app, KNOWN).await, None);
    assert!(app.emails().is_empty());
    // A malformed address is a 400 with the form, and writes nothing either.
    let page = ask(&app, &browser, "not an address")
        .await
        .assert_status(400)
        .body;
    assert!(
        page.contains("Enter the email address you used at checkout"),
        "{page}"
    );
}

async fn the_order_404_and_the_help_pages_lead_to_the_form(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    insert_purchase(&app.db, "ll-404", KNOWN, "paid", storefront::db::now_ms()).await;
    for path in [
        "/orders/no-such-order",
        "/orders/ll-404",
        "/orders/ll-404?token=wrong",
    ] {
        let page = Browser::default()
            .get(&app, path)
            .await
            .assert_status(404)
            .body;
        assert!(page.contains("href=\"/lost-link\""), "{path}: {page}");
    }
    for path in ["/help/installation", "/help/refunds"] {
        let page = Browser::default()
            .get(&app, path)
            .await
            .assert_status(200)
            .body;
        assert!(page.contains("href=\"/lost-link\""), "{path}: {page}");
    }
    let page = Browser::default().get(&app, "/lost-link").await.body;
    assert!(page.contains("<h1>Lost your link?</h1>"), "{page}");
}
