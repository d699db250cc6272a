//! The Stripe provider against a local fake of the Stripe endpoints it uses (never the
//! internet), and its webhook verification and event mapping on bodies shaped like Stripe's.
//!
//! The fake records every request (method, path, headers, decoded form) and honours
//! `Idempotency-Key` the way Stripe does: the same key answers the same object again.

use crate::fixtures::as_id;
use std::collections::HashMap;
use std::net::TcpListener;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use serde_json::{Value, json};
use storefront::config::{Secret, StripeSettings};
use storefront::domain::{Cents, Email};
use storefront::payments::signature::{self, SignatureError};
use storefront::payments::stripe::StripeProvider;
use storefront::payments::{
    CheckoutRequest, EventKind, PaymentError, PaymentProvider, RefundStatus, SessionState,
};
use url::Url;

pub(crate) const KEY: &str = "sk_test_51FakeSecretKeyForTheStorefrontTests";
pub(crate) const WHSEC: &str = "whsec_fake_webhook_secret_for_tests";

// ---- the fake ---------------------------------------------------------------------------

#[derive(Debug, Clone)]
pub(crate) struct Recorded {
    method: String,
    pub(crate) path: String,
    /// The query string, as sent.
    pub(crate) query: String,
    headers: HashMap<String, String>,
    pub(crate) form: Vec<(String, String)>,
    raw_body: String,
}

impl Recorded {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(String::as_str)
    }
}

#[derive(Default)]
struct FakeState {
    requests: Vec<Recorded>,
    /// Idempotency-Key → the answer first given for it.
    idempotent: HashMap<String, (u16, Value)>,
    sessions: HashMap<String, Value>,
    /// The next request is answered with this, whatever it asked.
    next_answer: Option<(u16, Value)>,
    /// `Stripe-Should-Retry` on the next answer.
    next_should_retry: Option<bool>,
    next_delay: Option<Duration>,
    refund_status: String,
    counter: u64,
    /// What Stripe Tax computes for sessions created with `automatic_tax[enabled]`.
    tax: Option<FakeTax>,
    /// Each taxed session's `total_details.breakdown.taxes`, given only when a read expands
    /// `total_details.breakdown` (as Stripe does).
    breakdowns: HashMap<String, Value>,
}

/// Stripe Tax as the double plays it: one rate for one country, applied to every taxed
/// session; `breakdown` false answers expanded reads without a breakdown.
#[derive(Debug, Clone)]
pub(crate) struct FakeTax {
    pub(crate) country: String,
    pub(crate) bps: i64,
    pub(crate) breakdown: bool,
}

#[derive(Clone)]
pub(crate) struct FakeStripe {
    pub(crate) base: Url,
    state: Arc<Mutex<FakeState>>,
}

impl FakeStripe {
    pub(crate) async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let state = Arc::new(Mutex::new(FakeState {
            refund_status: "succeeded".into(),
            ..FakeState::default()
        }));
        let served = Arc::clone(&state);
        let server = HttpServer::new(move || {
            App::new()
                .app_data(web::Data::from(Arc::clone(&served)))
                .default_service(web::to(handle))
        })
        .listen(listener)
        .expect("listen")
        .workers(1)
        .disable_signals()
        .shutdown_timeout(1)
        .run();
        tokio::spawn(server);
        Self {
            base: Url::parse(&format!("http://127.0.0.1:{port}")).expect("url"),
            state,
        }
    }

    fn state(&self) -> MutexGuard<'_, FakeState> {
        self.state.lock().expect("fake state")
    }

    pub(crate) fn requests(&self) -> Vec<Recorded> {
        self.state().requests.clone()
    }

    /// Stripe Tax from now on computes `tax` for sessions that ask for it.
    pub(crate) fn compute_tax(&self, tax: FakeTax) {
        self.state().tax = Some(tax);
    }

    /// A created session as the double holds it.
    pub(crate) fn session(&self, id: &str) -> Value {
        self.state()
            .sessions
            .get(id)
            .cloned()
            .expect("known session")
    }

    /// The customer pays session `id` with a billing address in `country`: the session
    /// becomes paid, and the signed `checkout.session.completed` event Stripe would send is
    /// returned as `(signature header, body)`. Like Stripe's, the event carries
    /// `total_details.amount_tax` but no breakdown.
    pub(crate) fn pay(&self, id: &str, country: &str) -> (String, Vec<u8>) {
        let mut state = self.state();
        state.counter += 1;
        let intent = format!("pi_fake{}", state.counter);
        let event_id = format!("evt_fake{}", state.counter);
        let session = state.sessions.get_mut(id).expect("known session");
        session["status"] = json!("complete");
        session["payment_status"] = json!("paid");
        session["payment_intent"] = json!(intent);
        session["customer_details"] = json!({
            "address": { "country": country, "city": null, "line1": null, "postal_code": null },
            "email": "ana@example.com",
            "name": "Ana",
            "tax_exempt": "none",
            "tax_ids": []
        });
        let event = json!({
            "id": event_id,
            "object": "event",
            "type": "checkout.session.completed",
            "data": { "object": session.clone() },
        });
        let body = serde_json::to_vec(&event).expect("json");
        (
            signature::sign(WHSEC.as_bytes(), &body, SystemTime::now()),
            body,
        )
    }

    fn answer_next(&self, status: u16, body: Value) {
        self.state().next_answer = Some((status, body));
    }

    fn set_session(&self, id: &str, status: &str, payment_status: &str) {
        let mut state = self.state();
        let session = state.sessions.get_mut(id).expect("known session");
        session["status"] = json!(status);
        session["payment_status"] = json!(payment_status);
    }

    fn provider(&self) -> StripeProvider {
        StripeProvider::new(&settings(self.base.clone(), KEY)).expect("provider builds")
    }
}

fn stripe_error(kind: &str, code: Option<&str>, message: &str) -> Value {
    json!({ "error": { "type": kind, "code": code, "message": message } })
}

async fn handle(
    req: HttpRequest,
    body: web::Bytes,
    state: web::Data<Mutex<FakeState>>,
) -> HttpResponse {
    let raw_body = String::from_utf8_lossy(&body).into_owned();
    let recorded = Recorded {
        method: req.method().to_string(),
        path: req.path().to_string(),
        headers: req
            .headers()
            .iter()
            .map(|(k, v)| {
                (
                    k.as_str().to_ascii_lowercase(),
                    v.to_str().unwrap_or("<binary>").to_string(),
                )
            })
            .collect(),
        form: url::form_urlencoded::parse(&body).into_owned().collect(),
        query: req.query_string().to_string(),
        raw_body,
    };
    let (delay, should_retry, answer) = {
        let mut state = state.lock().expect("fake state");
        state.requests.push(recorded.clone());
        (
            state.next_delay.take(),
            state.next_should_retry.take(),
            answer(&mut state, &recorded),
        )
    };
    if let Some(delay) = delay {
        tokio::time::sleep(delay).await;
    }
    let (status, body) = answer;
    let mut response =
        HttpResponse::build(actix_web::http::StatusCode::from_u16(status).expect("status"));
    if let Some(retry) = should_retry {
        response.insert_header(("Stripe-Should-Retry", retry.to_string()));
    }
    response.json(body)
}

/// What Stripe would answer, enough of it for the provider.
fn answer(state: &mut FakeState, req: &Recorded) -> (u16, Value) {
    if let Some(next) = state.next_answer.take() {
        return next;
    }
    let bearer = req.header("authorization").unwrap_or_default();
    if bearer != format!("Bearer {KEY}") {
        // Deliberately echoes the key it was given (Stripe masks it): the provider must
        // scrub it whatever Stripe says.
        return (
            401,
            stripe_error(
                "invalid_request_error",
                None,
                &format!("Invalid API Key provided: {bearer}"),
            ),
        );
    }
    let key = req.header("idempotency-key").map(str::to_string);
    if let Some(key) = &key
        && let Some(previous) = state.idempotent.get(key)
    {
        return previous.clone();
    }
    let form: HashMap<&str, &str> = req
        .form
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let result = match (req.method.as_str(), req.path.as_str()) {
        ("POST", "/v1/checkout/sessions") => {
            state.counter += 1;
            let id = format!("cs_test_fake{}", state.counter);
            let unit = form
                .get("line_items[0][price_data][unit_amount]")
                .and_then(|v| v.parse::<i64>().ok());
            let quantity = form
                .get("line_items[0][quantity]")
                .and_then(|v| v.parse::<i64>().ok())
                .unwrap_or(1);
            let subtotal = unit.map(|u| u * quantity);
            let taxed = form.get("automatic_tax[enabled]") == Some(&"true");
            let (amount_tax, amount_total) = match (&state.tax, subtotal) {
                (Some(tax), Some(subtotal)) if taxed => {
                    let exclusive =
                        form.get("line_items[0][price_data][tax_behavior]") == Some(&"exclusive");
                    // Half up, as Stripe rounds.
                    let divisor = if exclusive { 10_000 } else { 10_000 + tax.bps };
                    let amount = (2 * subtotal * tax.bps + divisor) / (2 * divisor);
                    let taxable = if exclusive {
                        subtotal
                    } else {
                        subtotal - amount
                    };
                    if tax.breakdown {
                        state.breakdowns.insert(
                            id.clone(),
                            json!([{
                                "amount": amount,
                                "taxable_amount": taxable,
                                "taxability_reason": "standard_rated",
                                "rate": {
                                    "id": "txr_fake",
                                    "object": "tax_rate",
                                    "country": tax.country,
                                    "state": null,
                                    "jurisdiction": tax.country,
                                    "display_name": "VAT",
                                    "inclusive": !exclusive,
                                    // Stripe writes the percentage as a decimal number.
                                    "percentage": tax.bps as f64 / 100.0,
                                    "tax_type": "vat"
                                }
                            }]),
                        );
                    }
                    (amount, subtotal + if exclusive { amount } else { 0 })
                }
                (_, subtotal) => (0, subtotal.unwrap_or(0)),
            };
            let session = json!({
                "id": id,
                "object": "checkout.session",
                "amount_subtotal": subtotal,
                "amount_total": unit.map(|_| amount_total),
                "automatic_tax": { "enabled": taxed, "status": if taxed { "complete" } else { "" } },
                "total_details": { "amount_discount": 0, "amount_shipping": 0, "amount_tax": amount_tax },
                "currency": form.get("line_items[0][price_data][currency]"),
                "client_reference_id": form.get("client_reference_id"),
                "metadata": { "purchase_id": form.get("metadata[purchase_id]") },
                "mode": "payment",
                "payment_intent": null,
                "payment_status": "unpaid",
                "status": "open",
                "success_url": form.get("success_url"),
                "url": format!("https://checkout.stripe.com/c/pay/{id}#fidkdWxOYHwnPyd1blpxYHZxWjA0"),
            });
            state.sessions.insert(id, session.clone());
            (200, session)
        }
        ("GET", path) if path.starts_with("/v1/checkout/sessions/") => {
            let id = &path["/v1/checkout/sessions/".len()..];
            let expand = url::form_urlencoded::parse(req.query.as_bytes())
                .any(|(k, v)| k == "expand[]" && v == "total_details.breakdown");
            match state.sessions.get(id) {
                Some(session) => {
                    let mut session = session.clone();
                    if expand {
                        let taxes = state.breakdowns.get(id).cloned();
                        if let Some(taxes) = taxes {
                            session["total_details"]["breakdown"] =
                                json!({ "discounts": [], "taxes": taxes });
                        }
                    }
                    (200, session)
                }
                None => (
                    404,
                    stripe_error(
                        "invalid_request_error",
                        Some("resource_missing"),
                        &format!("No such checkout.session: '{id}'"),
                    ),
                ),
            }
        }
        ("POST", "/v1/refunds") => {
            state.counter += 1;
            (
                200,
                json!({
                    "id": format!("re_fake{}", state.counter),
                    "object": "refund",
                    "amount": form.get("amount").and_then(|v| v.parse::<i64>().ok()),
                    "currency": "usd",
                    "payment_intent": form.get("payment_intent"),
                    "status": state.refund_status,
                }),
            )
        }
        _ => (
            404,
            stripe_error(
                "invalid_request_error",
                None,
                &format!("Unrecognized request URL ({} {})", req.method, req.path),
            ),
        ),
    };
    if let Some(key) = key {
        state.idempotent.insert(key, result.clone());
    }
    result
}

// ---- fixtures ---------------------------------------------------------------------------

fn settings(api_base: Url, key: &str) -> StripeSettings {
    StripeSettings {
        secret_key: Secret::new(key.to_string()),
        webhook_secret: Secret::new(WHSEC.to_string()),
        api_base,
    }
}

fn checkout_request(purchase_id: &str, key: &str) -> CheckoutRequest {
    CheckoutRequest {
        purchase_id: as_id(purchase_id),
        amount: Cents::new(1299),
        quantity: 1,
        email: Email::parse("ana@example.com").expect("email"),
        description: "France · 5 GB for 30 days".to_string(),
        success_url: Url::parse(&format!("https://shop.example/orders/{purchase_id}"))
            .expect("url"),
        cancel_url: Url::parse(&format!("https://shop.example/orders/{purchase_id}")).expect("url"),
        idempotency_key: key.to_string(),
        expires_at_unix: None,
        tax: Default::default(),
    }
}

fn assert_no_secret(error: &PaymentError) {
    let shown = format!("{error} / {error:?}");
    assert!(!shown.contains(KEY), "the secret key leaked: {shown}");
    assert!(
        !shown.contains("51FakeSecretKey"),
        "part of the key leaked: {shown}"
    );
}

// ---- session creation -------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_creation_sends_exactly_stripes_parameters_and_headers() {
    let fake = FakeStripe::start().await;
    let stripe = fake.provider();
    let session = stripe
        .create_checkout(&checkout_request("pu_1", "checkout-pu_1-1"))
        .await
        .expect("session");
    assert_eq!(session.id, "cs_test_fake1");
    assert_eq!(session.redirect_url.host_str(), Some("checkout.stripe.com"));
    assert!(session.redirect_url.path().ends_with("/cs_test_fake1"));

    let requests = fake.requests();
    assert_eq!(requests.len(), 1);
    let sent = &requests[0];
    assert_eq!(sent.method, "POST");
    assert_eq!(sent.path, "/v1/checkout/sessions");
    assert_eq!(
        sent.header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    assert_eq!(sent.header("idempotency-key"), Some("checkout-pu_1-1"));
    assert_eq!(
        sent.header("content-type"),
        Some("application/x-www-form-urlencoded")
    );
    let form: Vec<(&str, &str)> = sent
        .form
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(
        form,
        vec![
            ("mode", "payment"),
            ("line_items[0][price_data][currency]", "usd"),
            ("line_items[0][price_data][unit_amount]", "1299"),
            (
                "line_items[0][price_data][product_data][name]",
                "France · 5 GB for 30 days"
            ),
            ("line_items[0][quantity]", "1"),
            ("client_reference_id", "pu_1"),
            ("metadata[purchase_id]", "pu_1"),
            ("payment_intent_data[metadata][purchase_id]", "pu_1"),
            ("customer_email", "ana@example.com"),
            (
                "success_url",
                "https://shop.example/orders/pu_1?session_id={CHECKOUT_SESSION_ID}"
            ),
            ("cancel_url", "https://shop.example/orders/pu_1"),
        ]
    );
    // On the wire the braces are form-escaped like every other reserved character; Stripe
    // decodes the form and sees the literal template.
    assert!(
        sent.raw_body
            .contains("session_id%3D%7BCHECKOUT_SESSION_ID%7D"),
        "{}",
        sent.raw_body
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_idempotency_key_returns_the_same_session() {
    let fake = FakeStripe::start().await;
    let stripe = fake.provider();
    let request = checkout_request("pu_2", "checkout-pu_2-1");
    let first = stripe.create_checkout(&request).await.expect("first");
    let again = stripe.create_checkout(&request).await.expect("retry");
    assert_eq!(first, again);

    let other = stripe
        .create_checkout(&checkout_request("pu_2", "checkout-pu_2-2"))
        .await
        .expect("new key");
    assert_ne!(first.id, other.id);

    let keys: Vec<_> = fake
        .requests()
        .iter()
        .map(|r| r.header("idempotency-key").map(str::to_string))
        .collect();
    assert_eq!(
        keys,
        vec![
            Some("checkout-pu_2-1".to_string()),
            Some("checkout-pu_2-1".to_string()),
            Some("checkout-pu_2-2".to_string()),
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn amounts_below_stripes_minimum_are_refused_without_a_call() {
    let fake = FakeStripe::start().await;
    let stripe = fake.provider();
    assert_eq!(stripe.minimum_charge(), Cents::new(50));
    assert_eq!(stripe.name(), "stripe");
    assert_eq!(stripe.signature_header(), "stripe-signature");
    let mut request = checkout_request("pu_3", "k");
    request.amount = Cents::new(49);
    let error = stripe.create_checkout(&request).await.expect_err("refused");
    assert!(matches!(error, PaymentError::Refused(_)), "{error:?}");
    assert!(fake.requests().is_empty());
}

// ---- errors -----------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stripe_4xx_is_refused_with_its_message_and_5xx_is_unavailable() {
    let fake = FakeStripe::start().await;
    let stripe = fake.provider();

    fake.answer_next(
        400,
        stripe_error(
            "invalid_request_error",
            Some("parameter_invalid_integer"),
            &format!("Invalid integer: abc (request made with {KEY})"),
        ),
    );
    let error = stripe
        .create_checkout(&checkout_request("pu_4", "k4"))
        .await
        .expect_err("400");
    match &error {
        PaymentError::Refused(message) => {
            assert!(message.starts_with("Invalid integer: abc"), "{message}")
        }
        other => panic!("expected Refused, got {other:?}"),
    }
    assert_no_secret(&error);

    fake.answer_next(
        500,
        stripe_error("api_error", None, "Something went wrong on Stripe's end."),
    );
    let error = stripe
        .create_checkout(&checkout_request("pu_4", "k4b"))
        .await
        .expect_err("500");
    assert!(matches!(error, PaymentError::Unavailable(_)), "{error:?}");
    assert_no_secret(&error);

    // Not JSON at all, from a proxy in between.
    fake.answer_next(503, json!("upstream connect error"));
    let error = stripe.session_state("cs_test_x").await.expect_err("503");
    assert!(matches!(error, PaymentError::Unavailable(_)), "{error:?}");

    fake.answer_next(
        429,
        stripe_error("invalid_request_error", Some("rate_limit"), "Too many"),
    );
    let error = stripe
        .refund("pi_1", Cents::new(100), "r")
        .await
        .expect_err("429");
    assert!(matches!(error, PaymentError::Unavailable(_)), "{error:?}");

    fake.answer_next(
        409,
        stripe_error(
            "invalid_request_error",
            Some("lock_timeout"),
            "This object cannot be accessed right now because another API request or Stripe process is currently accessing it.",
        ),
    );
    let error = stripe
        .refund("pi_1", Cents::new(100), "r")
        .await
        .expect_err("409");
    assert!(matches!(error, PaymentError::Unavailable(_)), "{error:?}");

    fake.answer_next(
        409,
        stripe_error(
            "idempotency_error",
            None,
            "Keys for idempotent requests can only be used with the same parameters they were first used with.",
        ),
    );
    let error = stripe
        .refund("pi_1", Cents::new(100), "r")
        .await
        .expect_err("409");
    assert!(matches!(error, PaymentError::Refused(_)), "{error:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stripe_should_retry_overrides_the_status_code() {
    let fake = FakeStripe::start().await;
    let stripe = fake.provider();
    fake.answer_next(500, stripe_error("api_error", None, "Do not retry this."));
    fake.state().next_should_retry = Some(false);
    let error = stripe.session_state("cs_test_x").await.expect_err("500");
    assert!(matches!(error, PaymentError::Refused(_)), "{error:?}");

    fake.answer_next(400, stripe_error("invalid_request_error", None, "Busy."));
    fake.state().next_should_retry = Some(true);
    let error = stripe.session_state("cs_test_x").await.expect_err("400");
    assert!(matches!(error, PaymentError::Unavailable(_)), "{error:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_key_is_refused_without_leaking_it() {
    let fake = FakeStripe::start().await;
    let wrong = "sk_test_51FakeSecretKeyButWrong";
    let stripe = StripeProvider::new(&settings(fake.base.clone(), wrong)).expect("builds");
    let error = stripe
        .create_checkout(&checkout_request("pu_5", "k5"))
        .await
        .expect_err("401");
    assert!(matches!(error, PaymentError::Refused(_)), "{error:?}");
    let shown = format!("{error} / {error:?} / {stripe:?}");
    assert!(!shown.contains(wrong), "{shown}");
    assert!(shown.contains("[redacted]"), "{shown}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timeouts_and_unreachable_stripe_are_unavailable() {
    let fake = FakeStripe::start().await;
    let stripe = StripeProvider::with_timeouts(
        &settings(fake.base.clone(), KEY),
        Duration::from_secs(2),
        Duration::from_millis(300),
    )
    .expect("builds");
    fake.state().next_delay = Some(Duration::from_secs(2));
    let error = stripe
        .create_checkout(&checkout_request("pu_6", "k6"))
        .await
        .expect_err("timeout");
    assert!(matches!(error, PaymentError::Unavailable(_)), "{error:?}");
    assert_no_secret(&error);

    // A port nobody listens on.
    let closed = {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.local_addr().expect("addr").port()
    };
    let nowhere = Url::parse(&format!("http://127.0.0.1:{closed}")).expect("url");
    let stripe = StripeProvider::new(&settings(nowhere, KEY)).expect("builds");
    let error = stripe
        .session_state("cs_test_1")
        .await
        .expect_err("refused");
    assert!(matches!(error, PaymentError::Unavailable(_)), "{error:?}");
    assert_no_secret(&error);
}

#[test]
fn bad_settings_are_refused_without_echoing_the_key() {
    let base = Url::parse("https://api.stripe.com").expect("url");
    for key in ["", "   ", "pk_test_publishable", "sk_test_bad\nheader"] {
        let error = StripeProvider::new(&settings(base.clone(), key)).expect_err(key);
        let shown = format!("{error} / {error:?}");
        assert!(key.trim().is_empty() || !shown.contains(key), "{shown}");
    }
    let mut empty_whsec = settings(base, KEY);
    empty_whsec.webhook_secret = Secret::new(String::new());
    assert!(StripeProvider::new(&empty_whsec).is_err());
}

// ---- session state ----------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_state_follows_payment_status_and_expiry() {
    let fake = FakeStripe::start().await;
    let stripe = fake.provider();
    let session = stripe
        .create_checkout(&checkout_request("pu_7", "k7"))
        .await
        .expect("session");
    let cases = [
        ("open", "unpaid", SessionState::Open),
        // Completed with a delayed method: not paid yet.
        ("complete", "unpaid", SessionState::Open),
        ("complete", "paid", SessionState::Paid),
        ("expired", "unpaid", SessionState::Failed),
    ];
    for (status, payment_status, expected) in cases {
        fake.set_session(&session.id, status, payment_status);
        assert_eq!(
            stripe.session_state(&session.id).await.expect("state"),
            expected,
            "{status}/{payment_status}"
        );
    }
    let last = fake.requests().pop().expect("a request");
    assert_eq!(last.method, "GET");
    assert_eq!(last.path, format!("/v1/checkout/sessions/{}", session.id));
    assert_eq!(last.header("idempotency-key"), None);

    let error = stripe
        .session_state("cs_test_unknown")
        .await
        .expect_err("404");
    assert!(matches!(error, PaymentError::Refused(ref m) if m.contains("No such")));

    let before = fake.requests().len();
    let error = stripe
        .session_state("../refunds")
        .await
        .expect_err("bad id");
    assert!(matches!(error, PaymentError::Refused(_)));
    assert_eq!(fake.requests().len(), before, "nothing was sent");
}

// ---- refunds ----------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refunds_send_their_idempotency_key_and_map_stripes_status() {
    let fake = FakeStripe::start().await;
    let stripe = fake.provider();
    let refund = stripe
        .refund("pi_3Fake", Cents::new(1299), "refund-pu_8-1")
        .await
        .expect("refund");
    assert_eq!(refund.status, RefundStatus::Succeeded);
    let again = stripe
        .refund("pi_3Fake", Cents::new(1299), "refund-pu_8-1")
        .await
        .expect("retry");
    assert_eq!(refund, again, "the same key never refunds twice");

    let requests = fake.requests();
    assert_eq!(requests.len(), 2);
    for sent in &requests {
        assert_eq!(sent.method, "POST");
        assert_eq!(sent.path, "/v1/refunds");
        assert_eq!(sent.header("idempotency-key"), Some("refund-pu_8-1"));
        assert_eq!(
            sent.header("authorization"),
            Some(format!("Bearer {KEY}").as_str())
        );
        assert_eq!(
            sent.form,
            vec![
                ("payment_intent".to_string(), "pi_3Fake".to_string()),
                ("amount".to_string(), "1299".to_string()),
            ]
        );
    }

    for (i, (status, expected)) in [
        ("pending", RefundStatus::Pending),
        ("requires_action", RefundStatus::Pending),
        ("failed", RefundStatus::Failed),
        ("canceled", RefundStatus::Failed),
    ]
    .into_iter()
    .enumerate()
    {
        fake.state().refund_status = status.to_string();
        let refund = stripe
            .refund("pi_3Fake", Cents::new(100), &format!("refund-status-{i}"))
            .await
            .expect("refund");
        assert_eq!(refund.status, expected, "{status}");
    }

    let before = fake.requests().len();
    for amount in [0, -5] {
        let error = stripe
            .refund("pi_3Fake", Cents::new(amount), "refund-bad")
            .await
            .expect_err("non-positive");
        assert!(matches!(error, PaymentError::Refused(_)));
    }
    assert_eq!(fake.requests().len(), before, "nothing was sent");
}

// ---- webhooks: signatures ---------------------------------------------------------------

fn at(secs: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(secs)
}

const NOW: u64 = 1_750_000_000;

fn webhook_provider() -> StripeProvider {
    // Verification needs no network; the base is never called.
    StripeProvider::new(&settings(
        Url::parse("http://127.0.0.1:9").expect("url"),
        KEY,
    ))
    .expect("builds")
}

fn signature_error(
    result: Result<storefront::payments::PaymentEvent, PaymentError>,
) -> SignatureError {
    match result {
        Err(PaymentError::Signature(e)) => e,
        other => panic!("expected a signature error, got {other:?}"),
    }
}

#[test]
fn the_webhook_acceptance_matrix() {
    let stripe = webhook_provider();
    let body = session_event(
        "evt_1",
        "checkout.session.completed",
        "complete",
        "paid",
        "usd",
    );
    let body = body.as_slice();
    let now = at(NOW);

    // Valid.
    let header = signature::sign(WHSEC.as_bytes(), body, at(NOW - 10));
    let event = stripe
        .verify_event(Some(&header), body, now)
        .expect("a valid signature verifies");
    assert_eq!(event.id, "evt_1");

    // Signed with another secret.
    let forged = signature::sign(b"whsec_someone_else", body, now);
    assert_eq!(
        signature_error(stripe.verify_event(Some(&forged), body, now)),
        SignatureError::Mismatch
    );

    // Stale: more than 300 s old, and as far in the future.
    let old = signature::sign(WHSEC.as_bytes(), body, at(NOW - 301));
    assert_eq!(
        signature_error(stripe.verify_event(Some(&old), body, now)),
        SignatureError::Stale
    );
    let future = signature::sign(WHSEC.as_bytes(), body, at(NOW + 301));
    assert_eq!(
        signature_error(stripe.verify_event(Some(&future), body, now)),
        SignatureError::Stale
    );
    // 300 s exactly is still inside the tolerance.
    let edge = signature::sign(WHSEC.as_bytes(), body, at(NOW - 300));
    assert!(stripe.verify_event(Some(&edge), body, now).is_ok());

    // Tampered body: the amount changed after signing.
    let tampered = String::from_utf8_lossy(body).replace("1299", "9999");
    assert_ne!(tampered.as_bytes(), body);
    assert_eq!(
        signature_error(stripe.verify_event(Some(&header), tampered.as_bytes(), now)),
        SignatureError::Mismatch
    );
    // Re-serialised JSON (same meaning, other bytes) does not verify either: raw body only.
    let reserialised =
        serde_json::to_vec_pretty(&serde_json::from_slice::<Value>(body).expect("json"))
            .expect("json");
    assert_eq!(
        signature_error(stripe.verify_event(Some(&header), &reserialised, now)),
        SignatureError::Mismatch
    );

    // Two v1 values (a secret being rolled): only the second matches.
    let good_v1 = header.split("v1=").nth(1).expect("v1");
    let t = header
        .split(',')
        .next()
        .and_then(|p| p.strip_prefix("t="))
        .expect("t");
    let rolled = format!("t={t},v1={},v1={good_v1}", "ab".repeat(32));
    assert!(stripe.verify_event(Some(&rolled), body, now).is_ok());

    // Missing header.
    assert_eq!(
        signature_error(stripe.verify_event(None, body, now)),
        SignatureError::Missing
    );
    // Garbage header.
    assert_eq!(
        signature_error(stripe.verify_event(Some("v1=zz"), body, now)),
        SignatureError::Malformed
    );
}

// ---- webhooks: event mapping ------------------------------------------------------------

/// A Checkout Session event as Stripe sends it (API version 2024-06-20 shape, trimmed of
/// fields nobody reads but keeping plenty the provider must ignore).
fn session_event(
    id: &str,
    kind: &str,
    status: &str,
    payment_status: &str,
    currency: &str,
) -> Vec<u8> {
    let event = json!({
        "id": id,
        "object": "event",
        "api_version": "2024-06-20",
        "created": NOW,
        "data": {
            "object": {
                "id": "cs_test_a1B2c3D4e5",
                "object": "checkout.session",
                "after_expiration": null,
                "allow_promotion_codes": null,
                "amount_subtotal": 1299,
                "amount_total": 1299,
                "automatic_tax": { "enabled": false, "liability": null, "status": null },
                "billing_address_collection": null,
                "cancel_url": "https://shop.example/orders/pu_9",
                "client_reference_id": "pu_9",
                "created": NOW - 60,
                "currency": currency,
                "customer": null,
                "customer_creation": "if_required",
                "customer_details": {
                    "address": null,
                    "email": "ana@example.com",
                    "name": "Ana",
                    "phone": null,
                    "tax_exempt": "none",
                    "tax_ids": []
                },
                "customer_email": "ana@example.com",
                "expires_at": NOW + 86_340,
                "invoice": null,
                "livemode": false,
                "locale": null,
                "metadata": { "purchase_id": "pu_9" },
                "mode": "payment",
                "payment_intent": "pi_3PqFake0123456789",
                "payment_method_types": ["card", "us_bank_account"],
                "payment_status": payment_status,
                "status": status,
                "success_url": "https://shop.example/orders/pu_9?session_id={CHECKOUT_SESSION_ID}",
                "total_details": { "amount_discount": 0, "amount_shipping": 0, "amount_tax": 0 },
                "ui_mode": "hosted",
                "url": null
            }
        },
        "livemode": false,
        "pending_webhooks": 1,
        "request": { "id": null, "idempotency_key": null },
        "type": kind
    });
    serde_json::to_vec(&event).expect("json")
}

fn signed_kind(stripe: &StripeProvider, body: &[u8]) -> Result<EventKind, PaymentError> {
    let header = signature::sign(WHSEC.as_bytes(), body, at(NOW));
    stripe
        .verify_event(Some(&header), body, at(NOW))
        .map(|e| e.kind)
}

fn paid_pu_9() -> EventKind {
    EventKind::Paid {
        session_id: "cs_test_a1B2c3D4e5".into(),
        purchase_id: Some("pu_9".into()),
        amount: Cents::new(1299),
        payment_reference: Some("pi_3PqFake0123456789".into()),
        tax: Default::default(),
    }
}

#[test]
fn checkout_session_events_map_to_paid_failed_or_other() {
    let stripe = webhook_provider();
    let kind = |kind: &str, status: &str, payment_status: &str| {
        signed_kind(
            &stripe,
            &session_event("evt_s", kind, status, payment_status, "usd"),
        )
        .expect("maps")
    };

    assert_eq!(
        kind("checkout.session.completed", "complete", "paid"),
        paid_pu_9()
    );
    // A bank debit was chosen: completed but the money is not there yet.
    assert_eq!(
        kind("checkout.session.completed", "complete", "unpaid"),
        EventKind::Other {
            kind: "checkout.session.completed".into()
        }
    );
    assert_eq!(
        kind(
            "checkout.session.async_payment_succeeded",
            "complete",
            "paid"
        ),
        paid_pu_9()
    );
    assert!(matches!(
        kind("checkout.session.async_payment_failed", "complete", "unpaid"),
        EventKind::Failed { ref session_id, ref purchase_id, .. }
            if session_id == "cs_test_a1B2c3D4e5" && purchase_id.as_deref() == Some("pu_9")
    ));
    assert_eq!(
        kind("checkout.session.expired", "expired", "unpaid"),
        EventKind::Failed {
            session_id: "cs_test_a1B2c3D4e5".into(),
            purchase_id: Some("pu_9".into()),
            reason: "expired".into(),
        }
    );
}

#[test]
fn the_purchase_id_falls_back_to_metadata() {
    let stripe = webhook_provider();
    let mut event: Value = serde_json::from_slice(&session_event(
        "evt_m",
        "checkout.session.completed",
        "complete",
        "paid",
        "usd",
    ))
    .expect("json");
    event["data"]["object"]["client_reference_id"] = Value::Null;
    let body = serde_json::to_vec(&event).expect("json");
    assert_eq!(signed_kind(&stripe, &body).expect("maps"), paid_pu_9());

    // The two disagree: someone else edited the session.
    event["data"]["object"]["client_reference_id"] = json!("pu_other");
    let body = serde_json::to_vec(&event).expect("json");
    assert!(matches!(
        signed_kind(&stripe, &body),
        Err(PaymentError::Malformed(_))
    ));
}

#[test]
fn a_paid_session_in_another_currency_never_counts_as_paid() {
    let stripe = webhook_provider();
    for kind in [
        "checkout.session.completed",
        "checkout.session.async_payment_succeeded",
    ] {
        let body = session_event("evt_eur", kind, "complete", "paid", "eur");
        let result = signed_kind(&stripe, &body);
        assert!(
            matches!(result, Err(PaymentError::Malformed(ref m)) if m.contains("eur")),
            "{kind}: {result:?}"
        );
    }
    // Upper case is still USD.
    let body = session_event(
        "evt_usd",
        "checkout.session.completed",
        "complete",
        "paid",
        "USD",
    );
    assert_eq!(signed_kind(&stripe, &body).expect("maps"), paid_pu_9());
}

#[test]
fn refunds_and_disputes_map_to_their_payment_intent() {
    let stripe = webhook_provider();
    let refunded = json!({
        "id": "evt_3PqRefund",
        "object": "event",
        "api_version": "2024-06-20",
        "created": NOW,
        "data": {
            "object": {
                "id": "ch_3PqFake",
                "object": "charge",
                "amount": 1299,
                "amount_captured": 1299,
                "amount_refunded": 1299,
                "balance_transaction": "txn_3PqFake",
                "captured": true,
                "currency": "usd",
                "customer": null,
                "description": null,
                "disputed": false,
                "livemode": false,
                "metadata": { "purchase_id": "pu_9" },
                "paid": true,
                "payment_intent": "pi_3PqFake0123456789",
                "payment_method": "pm_1Fake",
                "refunded": true,
                "status": "succeeded"
            },
            "previous_attributes": { "amount_refunded": 0, "refunded": false }
        },
        "livemode": false,
        "pending_webhooks": 1,
        "request": { "id": "req_Fake", "idempotency_key": "refund-pu_9-1" },
        "type": "charge.refunded"
    });
    let body = serde_json::to_vec(&refunded).expect("json");
    assert_eq!(
        signed_kind(&stripe, &body).expect("maps"),
        EventKind::Refunded {
            payment_reference: "pi_3PqFake0123456789".into(),
            amount: Cents::new(1299),
        }
    );

    let disputed = json!({
        "id": "evt_1Dispute",
        "object": "event",
        "api_version": "2024-06-20",
        "created": NOW,
        "data": {
            "object": {
                "id": "dp_1Fake",
                "object": "dispute",
                "amount": 1299,
                "balance_transactions": [],
                "charge": "ch_3PqFake",
                "created": NOW,
                "currency": "usd",
                "evidence_details": { "due_by": NOW + 7 * 86_400, "has_evidence": false,
                                      "past_due": false, "submission_count": 0 },
                "is_charge_refundable": true,
                "livemode": false,
                "metadata": {},
                "payment_intent": "pi_3PqFake0123456789",
                "reason": "fraudulent",
                "status": "needs_response"
            }
        },
        "livemode": false,
        "pending_webhooks": 1,
        "request": { "id": null, "idempotency_key": null },
        "type": "charge.dispute.created"
    });
    let body = serde_json::to_vec(&disputed).expect("json");
    assert_eq!(
        signed_kind(&stripe, &body).expect("maps"),
        EventKind::Disputed {
            payment_reference: "pi_3PqFake0123456789".into(),
        }
    );
}

#[test]
fn unknown_event_types_are_verified_but_other() {
    let stripe = webhook_provider();
    let body = serde_json::to_vec(&json!({
        "id": "evt_1Unknown",
        "object": "event",
        "api_version": "2024-06-20",
        "created": NOW,
        "data": { "object": { "id": "cus_1", "object": "customer", "email": null } },
        "livemode": false,
        "pending_webhooks": 1,
        "request": { "id": null, "idempotency_key": null },
        "type": "customer.created"
    }))
    .expect("json");
    let header = signature::sign(WHSEC.as_bytes(), &body, at(NOW));
    let event = stripe
        .verify_event(Some(&header), &body, at(NOW))
        .expect("verified");
    assert_eq!(event.id, "evt_1Unknown");
    assert_eq!(
        event.kind,
        EventKind::Other {
            kind: "customer.created".into()
        }
    );

    // Verified but not an event at all.
    let body = b"[1,2,3]";
    let header = signature::sign(WHSEC.as_bytes(), body, at(NOW));
    assert!(matches!(
        stripe.verify_event(Some(&header), body, at(NOW)),
        Err(PaymentError::Malformed(_))
    ));
}

// ---- the shop's checkout through Stripe -------------------------------------------------

/// A checkout in a shop paying through Stripe: the session Stripe is asked for returns the
/// buyer to the plain order page (no private token anywhere in the request), the buyer's
/// browser opens it with the cookie set at checkout, and another browser gets the page that
/// points to the emailed link.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_shop_gives_stripe_return_urls_without_the_order_token() {
    let fake = FakeStripe::start().await;
    let api_base = fake.base.as_str().trim_end_matches('/').to_string();
    let (app, _upstream) = crate::helpers::spawn_shop_with(
        crate::helpers::Backend::Sqlite,
        20,
        &[
            ("STOREFRONT_PAYMENTS", "stripe"),
            ("STOREFRONT_STRIPE_SECRET_KEY", KEY),
            ("STOREFRONT_STRIPE_WEBHOOK_SECRET", WHSEC),
            ("STOREFRONT_STRIPE_API_BASE", api_base.as_str()),
        ],
    )
    .await
    .expect("sqlite");
    let plan = crate::journeys::sellable_plan(&app);
    let buyer = crate::helpers::Browser::default();
    let to = crate::journeys::buy(&app, &buyer, &plan, "ana@example.com")
        .await
        .assert_status(303)
        .location();
    assert!(
        to.starts_with("https://checkout.stripe.com/"),
        "the buyer is sent to Stripe"
    );

    let sessions: Vec<Recorded> = fake
        .requests()
        .into_iter()
        .filter(|r| r.path == "/v1/checkout/sessions")
        .collect();
    assert_eq!(sessions.len(), 1);
    let sent = &sessions[0];
    let field = |name: &str| {
        sent.form
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    let purchase_id = field("client_reference_id");
    let cookie = buyer
        .cookie(&format!("order_{purchase_id}"))
        .expect("the order cookie is set with the redirect to Stripe");
    let order_page = app.url(&format!("/orders/{purchase_id}"));
    assert_eq!(
        field("success_url"),
        format!("{order_page}?session_id={{CHECKOUT_SESSION_ID}}")
    );
    assert_eq!(field("cancel_url"), order_page);
    assert!(
        !sent.raw_body.contains(&cookie) && !sent.raw_body.contains("token"),
        "{}",
        sent.raw_body
    );

    // Back from Stripe as it sends the buyer (the template replaced by the session id).
    let back = format!("/orders/{purchase_id}?session_id=cs_test_fake1");
    let page = buyer.get(&app, &back).await.assert_status(200).body;
    assert!(page.contains("data-status=\"awaiting_payment\""), "{page}");
    let page = crate::helpers::Browser::default()
        .get(&app, &back)
        .await
        .assert_status(404)
        .body;
    assert!(page.contains("private link in the emails"), "{page}");
    // Cancelled: the same page, without the session id.
    buyer
        .get(&app, &format!("/orders/{purchase_id}"))
        .await
        .assert_status(200);
}

/// A promotion code through Stripe: the session is for the discounted price, and says so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stripe_is_asked_for_the_discounted_price() {
    let fake = FakeStripe::start().await;
    let api_base = fake.base.as_str().trim_end_matches('/').to_string();
    let (app, _upstream) = crate::helpers::spawn_shop_with(
        crate::helpers::Backend::Sqlite,
        20,
        &[
            ("STOREFRONT_PAYMENTS", "stripe"),
            ("STOREFRONT_STRIPE_SECRET_KEY", KEY),
            ("STOREFRONT_STRIPE_WEBHOOK_SECRET", WHSEC),
            ("STOREFRONT_STRIPE_API_BASE", api_base.as_str()),
        ],
    )
    .await
    .expect("sqlite");
    let plan = crate::journeys::sellable_plan(&app);
    let list = plan.price.expect("priced").get();
    // 10% off every plan.
    crate::promo::add_code(&app, "TENOFF", 1_000, None).await;
    let buyer = crate::helpers::Browser::default();
    crate::promo::buy_with_code(&app, &buyer, &plan, "ana@example.com", "tenoff")
        .await
        .assert_status(303);
    let sessions: Vec<Recorded> = fake
        .requests()
        .into_iter()
        .filter(|r| r.path == "/v1/checkout/sessions")
        .collect();
    assert_eq!(sessions.len(), 1);
    let field = |name: &str| {
        sessions[0]
            .form
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    assert_eq!(
        field("line_items[0][price_data][unit_amount]"),
        (list - list / 10).to_string(),
        "Stripe charges the discounted price"
    );
    assert!(
        sessions[0].raw_body.contains("TENOFF"),
        "the payment page names the code: {}",
        sessions[0].raw_body
    );
}
