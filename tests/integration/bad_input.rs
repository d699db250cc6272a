//! Bad input from outside, generated: forms, query strings, path segments, cookies and webhook
//! bodies sent to a running shop. Every request must get a 4xx with a message or a handled
//! answer (2xx, 3xx), never a 5xx and never a dropped connection (what a panicking handler
//! leaves behind), and a refused request writes nothing: the rows of the tables a request can
//! write are counted before and after it. [`handled`] is the one judge of every answer.
//!
//! Each surface is one property with `STOREFRONT_FUZZ_CASES` cases (default 500, the CI form;
//! the console's sign-in form a tenth, as each attempt hashes a password), on both backends;
//! `scripts/fuzz` runs the long form. The upstream's answers are fuzzed here over the wire (a
//! scripted HTTP server answering the client) and at unit level in `src/upstream/bad_answers.rs`.

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime};

use diesel::prelude::*;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use reqwest::header::{CONTENT_TYPE, COOKIE, HeaderValue};
use storefront::db::schema::{
    admin_audit, admin_recovery_codes, admin_sessions, admin_totp, admin_users, checkout_holds,
    installations, markup_rules, order_link_tokens, outbox_jobs, payment_events, purchase_events,
    purchases, refunds, shop_settings, topups,
};
use storefront::db::{Db, DbError};
use storefront::payments::signature;
use storefront::staff::Role;

use crate::admin::{OWNER, create, insert_purchase, login_as};
use crate::helpers::{Backend, Browser, TestApp, hidden, spawn_app_with, spawn_shop_with};

/// Generated cases per surface: the CI form unless `STOREFRONT_FUZZ_CASES` says otherwise.
fn cases() -> u32 {
    std::env::var("STOREFRONT_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(500)
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

/// Runs `check` on `cases()` values of `strategy`; panics with the smallest failing value.
/// Prints the run's time and how often each status came back (how deep the cases reached;
/// 0 counts the cases skipped before sending).
fn run<S: Strategy>(
    surface: &str,
    cases: u32,
    strategy: S,
    check: impl Fn(S::Value) -> Result<u16, TestCaseError>,
) where
    S::Value: std::fmt::Debug,
{
    let started = std::time::Instant::now();
    let statuses = std::sync::Mutex::new(BTreeMap::<u16, u32>::new());
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        // Cases are cheap: shrink to the smallest request that still fails.
        max_shrink_iters: 500,
        ..Config::default()
    });
    let outcome = runner.run(&strategy, |value| {
        let status = check(value)?;
        *statuses
            .lock()
            .expect("statuses")
            .entry(status)
            .or_default() += 1;
        Ok(())
    });
    let statuses = statuses.into_inner().expect("statuses");
    eprintln!(
        "bad input, {surface}: {cases} cases in {:.1} s; statuses {statuses:?}",
        started.elapsed().as_secs_f64()
    );
    if let Err(failure) = outcome {
        panic!("{surface}: {failure}");
    }
}

/// `mod NAME { fn sqlite(); fn postgres(); }` around `fn NAME(Backend)`.
macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[test]
            fn sqlite() {
                super::$name(crate::helpers::Backend::Sqlite)
            }
            #[test]
            fn postgres() {
                super::$name(crate::helpers::Backend::Postgres)
            }
        }
    )*};
}

on_both_backends!(
    nul_characters_are_refused_with_a_message,
    shop_pages_answer_any_path_query_and_cookie,
    checkout_forms_are_refused_with_a_message_and_write_nothing,
    console_forms_of_a_signed_in_owner_are_refused_with_a_message,
    console_login_forms_are_refused_with_a_message,
    stripe_webhooks_never_fail_and_garbage_never_pays,
    upstream_webhooks_answer_any_token_and_body,
);

// ---- the judge ------------------------------------------------------------------------------

/// Rows of every table a request from outside can write, by table.
pub(crate) type Counts = BTreeMap<&'static str, i64>;

/// The row counts of the tables a request may write (not the login throttle's attempts, which a
/// refused login records by design, nor the workers' own bookkeeping).
pub(crate) async fn counts(db: &Db) -> Counts {
    db.run(|conn| {
        let mut all = Counts::new();
        macro_rules! count {
            ($($table:ident),*) => {$(
                all.insert(stringify!($table), $table::table.count().get_result::<i64>(conn)?);
            )*};
        }
        count!(
            purchases,
            purchase_events,
            payment_events,
            refunds,
            installations,
            outbox_jobs,
            checkout_holds,
            markup_rules,
            order_link_tokens,
            admin_users,
            admin_sessions,
            admin_totp,
            admin_recovery_codes,
            admin_audit,
            topups,
            shop_settings
        );
        Ok::<_, DbError>(all)
    })
    .await
    .expect("row counts")
}

/// An answer as the judge sees it: status, content type and body.
pub(crate) struct Seen {
    pub status: u16,
    pub content_type: String,
    pub body: String,
}

/// Sends `request` and reads the whole answer; `Err` when no answer came back.
pub(crate) async fn send(
    request: impl std::future::IntoFuture<Output = reqwest::Result<reqwest::Response>>,
) -> Result<Seen, String> {
    let res = request.await.map_err(|e| format!("{e:?}"))?;
    let status = res.status().as_u16();
    let content_type = res
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let body = res.text().await.map_err(|e| format!("body: {e:?}"))?;
    Ok(Seen {
        status,
        content_type,
        body,
    })
}

/// The one judge: an answer came back (a panic drops the connection), it is not a 5xx, a 4xx
/// says what was wrong (an HTML page with a heading, or a machine endpoint's text), and a
/// refused request changed no row count (but for the tables in `may_grow`). Returns the status.
pub(crate) fn handled(
    what: &str,
    answer: Result<Seen, String>,
    before: &Counts,
    after: &Counts,
    may_grow: &[&str],
) -> Result<u16, TestCaseError> {
    let seen = answer.map_err(|e| TestCaseError::fail(format!("{what}: no answer: {e}")))?;
    let head: String = seen.body.chars().take(600).collect();
    if seen.status >= 500 {
        return Err(TestCaseError::fail(format!(
            "{what}: answered {}: {head}",
            seen.status
        )));
    }
    if (400..500).contains(&seen.status) {
        let explained = if seen.content_type.starts_with("text/html") {
            seen.body.contains("<h1") && !seen.body.contains("Something went wrong")
        } else {
            !seen.body.trim().is_empty()
        };
        if !explained {
            return Err(TestCaseError::fail(format!(
                "{what}: {} without a message: {head}",
                seen.status
            )));
        }
        let changed: Vec<String> = before
            .iter()
            .filter(|(table, n)| after.get(*table) != Some(n) && !may_grow.contains(table))
            .map(|(table, n)| format!("{table} {n} -> {:?}", after.get(table)))
            .collect();
        if !changed.is_empty() {
            return Err(TestCaseError::fail(format!(
                "{what}: refused with {} but wrote rows: {}",
                seen.status,
                changed.join(", ")
            )));
        }
    }
    Ok(seen.status)
}

/// Sends `request` to `app` and judges the answer with the row counts around it.
async fn judged(
    app: &TestApp,
    what: &str,
    request: reqwest::RequestBuilder,
) -> Result<u16, TestCaseError> {
    judged_allowing(app, what, request, &[]).await
}

/// [`judged`], where a refusal may add rows to `may_grow` (the audit log of refused sign-ins).
async fn judged_allowing(
    app: &TestApp,
    what: &str,
    request: reqwest::RequestBuilder,
    may_grow: &[&str],
) -> Result<u16, TestCaseError> {
    let (client, built) = request.build_split();
    let built = built.map_err(|e| TestCaseError::fail(format!("request not built: {e}")))?;
    let reads_only = built.method() == reqwest::Method::GET;
    let before = counts(&app.db).await;
    let answer = send(client.execute(built)).await;
    let after = counts(&app.db).await;
    let what: String = what.chars().take(700).collect();
    let status = handled(&what, answer, &before, &after, may_grow)?;
    if status < 400 && !reads_only && before != after {
        settle(&app.db, after).await;
    }
    Ok(status)
}

/// Waits until the workers have done what an accepted request queued (the row counts hold
/// still for 60 ms, at most 3 s), so their writes are not taken for the next request's.
async fn settle(db: &Db, mut last: Counts) {
    let started = std::time::Instant::now();
    let mut still_since = started;
    while started.elapsed() < Duration::from_secs(3) {
        tokio::time::sleep(Duration::from_millis(15)).await;
        let now = counts(db).await;
        if now != last {
            last = now;
            still_since = std::time::Instant::now();
        } else if still_since.elapsed() >= Duration::from_millis(60) {
            return;
        }
    }
}

// ---- generators ------------------------------------------------------------------------------

/// Text a person or a script might type into anything: empty, blanks, numbers at and past
/// every limit, markup, SQL, control characters, very long, or anything at all.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => any::<String>(),
        2 => "[ -~]{0,40}",
        2 => prop::sample::select(vec![
            "", " ", "0", "-0", "-1", "1", "00", "1.5", "1e3", "NaN", "inf", "+5", "٣",
            "9223372036854775807", "-9223372036854775808", "9223372036854775808",
            "99999999999999999999999", "4294967296", "18446744073709551616", "0x10",
            "<script>alert(1)</script>", "' OR 1=1 --", "\"; DROP TABLE purchases; --",
            "../../etc/passwd", "%00", "%zz", "\u{0}", "\u{202e}", "\u{feff}", "🙂",
            "a@b", "a@example.com", "@example.com", "name@example.com ",
            "owner@example.com", "yes", "on", "true", "default", "country", "region", "plan",
        ])
        .prop_map(str::to_string),
        1 => (1usize..20_000).prop_map(|n| "x".repeat(n)),
        1 => any::<i64>().prop_map(|n| n.to_string()),
    ]
}

/// A value from `known` (so the request reaches past "not found") or any [`text`].
fn one_of_or_text(known: Vec<String>) -> impl Strategy<Value = String> {
    prop_oneof![2 => prop::sample::select(known), 1 => text()]
}

/// A valid form token most of the time (the form's other fields are what is under test), any
/// text otherwise.
fn token(valid: &str) -> BoxedStrategy<String> {
    prop_oneof![6 => Just(valid.to_string()), 1 => text()].boxed()
}

/// A form: the named fields (each possibly absent), then extra fields of any name.
fn form(
    fields: Vec<(&'static str, BoxedStrategy<String>)>,
) -> BoxedStrategy<Vec<(String, String)>> {
    let named: Vec<_> = fields
        .into_iter()
        .map(|(name, value)| prop::option::weighted(0.85, value).prop_map(move |v| (name, v)))
        .collect();
    (named, prop::collection::vec((text(), text()), 0..3))
        .prop_map(|(named, extra)| {
            named
                .into_iter()
                .filter_map(|(name, v)| v.map(|v| (name.to_string(), v)))
                .chain(extra)
                .collect()
        })
        .boxed()
}

fn encode(pairs: &[(String, String)]) -> String {
    url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish()
}

/// A body as sent: a well-formed form, or raw bytes under any content type.
#[derive(Debug, Clone)]
enum Body {
    Form(Vec<(String, String)>),
    Raw(Option<String>, Vec<u8>),
}

fn body(form: BoxedStrategy<Vec<(String, String)>>) -> impl Strategy<Value = Body> {
    prop_oneof![
        8 => form.prop_map(Body::Form),
        1 => (
            prop::option::of(prop::sample::select(vec![
                "application/x-www-form-urlencoded".to_string(),
                "application/json".into(),
                "text/plain".into(),
                "multipart/form-data; boundary=x".into(),
                "application/x-www-form-urlencoded; charset=latin1".into(),
            ])),
            prop::collection::vec(any::<u8>(), 0..300),
        )
            .prop_map(|(ct, bytes)| Body::Raw(ct, bytes)),
    ]
}

fn with_body(request: reqwest::RequestBuilder, body: &Body) -> reqwest::RequestBuilder {
    match body {
        Body::Form(pairs) => request
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(encode(pairs)),
        Body::Raw(ct, bytes) => {
            let request = match ct {
                Some(ct) => request.header(CONTENT_TYPE, ct.as_str()),
                None => request,
            };
            request.body(bytes.clone())
        }
    }
}

/// A path segment as it goes on the wire: percent-encoded text, or raw characters that
/// stay as typed (`%zz`, `..`, an encoded slash).
fn segment(known: Vec<String>) -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(known).prop_map(|s| {
            url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>()
        }),
        2 => text().prop_map(|s| {
            url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>()
        }),
        1 => "[a-zA-Z0-9._~%+-]{0,30}",
        1 => prop::sample::select(vec![
            "..".to_string(), ".".into(), "%2e%2e".into(), "%2F".into(), "%00".into(),
            "%".into(), "%zz".into(), "%C0%AF".into(), "%FF%FE".into(), "a%20b".into(),
        ]),
    ]
}

/// A query string: known keys and any keys, with any values; sometimes raw bytes.
fn query(keys: &'static [&'static str]) -> impl Strategy<Value = String> {
    let keys: Vec<String> = keys.iter().map(|k| (*k).to_string()).collect();
    prop_oneof![
        4 => prop::collection::vec((one_of_or_text(keys), text()), 0..4)
            .prop_map(|pairs| encode(&pairs)),
        1 => "[!-~]{0,40}".prop_map(|raw| raw.replace('#', "%23")),
    ]
}

/// A `Cookie` header value: cookies the shop reads (order links, the console session, the CSRF
/// cookie) and any others, with any visible value; sometimes raw bytes.
fn cookies(names: Vec<String>) -> impl Strategy<Value = Option<Vec<u8>>> {
    let mut all = vec![
        "admin".to_string(),
        "__Host-admin".into(),
        "csrf".into(),
        "__Host-csrf".into(),
        "order_".into(),
        "order_pu_x".into(),
    ];
    all.extend(names);
    prop::option::weighted(
        0.6,
        prop_oneof![
            4 => prop::collection::vec(
                (one_of_or_text(all), "[!-~&&[^;]]{0,80}"),
                1..4,
            )
            .prop_map(|pairs| {
                pairs
                    .into_iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join("; ")
                    .into_bytes()
            }),
            1 => prop::collection::vec(32u8..=255, 0..120),
        ],
    )
}

fn cookie_header(
    request: reqwest::RequestBuilder,
    raw: &Option<Vec<u8>>,
) -> reqwest::RequestBuilder {
    match raw.as_ref().and_then(|b| HeaderValue::from_bytes(b).ok()) {
        Some(value) => request.header(COOKIE, value),
        None => request,
    }
}

// ---- the shop --------------------------------------------------------------------------------

/// Settings for a shop under fuzzing: a checkout limit no run reaches (its 429 is tested
/// elsewhere; here it would hide the handler behind it).
const SHOP: &[(&str, &str)] = &[("STOREFRONT_CHECKOUT_RATE_LIMIT", "1000000")];

/// A seeded order the generated requests aim at (with a wrong or missing token).
const ORDER: &str = "pu_fuzz_order";

#[derive(Debug, Clone)]
struct ShopGet {
    template: &'static str,
    segment: String,
    query: String,
    cookies: Option<Vec<u8>>,
}

fn shop_pages_answer_any_path_query_and_cookie(backend: Backend) {
    let rt = runtime();
    let Some((app, _upstream)) = rt.block_on(spawn_shop_with(backend, 30, SHOP)) else {
        return;
    };
    rt.block_on(insert_purchase(
        &app.db,
        ORDER,
        "ana@example.com",
        "fulfilled",
        0,
    ));
    let snap = app.catalog.snapshot();
    let plans: Vec<String> = snap.plans().iter().take(10).map(|p| p.id.clone()).collect();
    let countries: Vec<String> = snap
        .plans()
        .iter()
        .take(10)
        .map(|p| p.country_code.clone())
        .collect();
    let regions: Vec<String> = snap.regions().iter().map(|r| r.slug.clone()).collect();
    let words = |w: &[&str]| w.iter().map(|s| (*s).to_string()).collect::<Vec<_>>();
    // Each route with segments that exist, so most cases reach the page's query handling.
    let routes: Vec<(&'static str, Vec<String>)> = vec![
        ("/countries/{}", countries.clone()),
        (
            "/regions/{}",
            if regions.is_empty() {
                words(&["europe"])
            } else {
                regions
            },
        ),
        ("/plans/{}", plans),
        ("/orders/{}", vec![ORDER.to_string()]),
        (
            "/help/{}",
            words(&["compatibility", "installation", "refunds"]),
        ),
        ("/static/{}", words(&["app.css", "app.js"])),
        ("/demo-pay/{}", words(&["ds_1"])),
        (
            "/{}",
            words(&[
                "search",
                "countries",
                "regions",
                "robots.txt",
                "favicon.svg",
            ]),
        ),
    ];
    let strategy = (
        prop::sample::select(routes)
            .prop_flat_map(|(template, known)| (Just(template), segment(known))),
        query(&["q", "sort", "days", "token", "page"]),
        cookies(vec![format!("order_{ORDER}")]),
    )
        .prop_map(|((template, segment), query, cookies)| ShopGet {
            template,
            segment,
            query,
            cookies,
        });
    run(
        &format!("shop pages, {backend:?}"),
        cases(),
        strategy,
        |case| {
            let path = case.template.replace("{}", &case.segment);
            let url = format!("{}{}?{}", app.address, path, case.query);
            let Ok(url) = reqwest::Url::parse(&url) else {
                return Ok(0);
            };
            let request = cookie_header(app.client.get(url), &case.cookies);
            rt.block_on(judged(&app, &format!("GET {path}?{}", case.query), request))
        },
    );
}

#[derive(Debug, Clone)]
struct CheckoutCase {
    body: Body,
    cookies: Option<Vec<u8>>,
    /// Send the CSRF cookie of the browser whose token the form may carry.
    with_csrf_cookie: bool,
}

fn checkout_forms_are_refused_with_a_message_and_write_nothing(backend: Backend) {
    let rt = runtime();
    let Some((app, _upstream)) = rt.block_on(spawn_shop_with(backend, 30, SHOP)) else {
        return;
    };
    let plans: Vec<_> = app
        .catalog
        .snapshot()
        .plans()
        .iter()
        .filter(|p| p.is_sellable())
        .take(5)
        .cloned()
        .collect();
    let browser = Browser::default();
    let page = rt
        .block_on(browser.get(&app, &format!("/plans/{}", plans[0].id)))
        .body;
    let csrf = hidden(&page, "csrf_token");
    let csrf_cookie = format!("csrf={}", browser.cookie("csrf").expect("csrf cookie"));
    let prices: Vec<String> = plans
        .iter()
        .filter_map(|p| p.price.map(|c| c.get().to_string()))
        .collect();
    let fields = form(vec![
        (
            "plan_id",
            one_of_or_text(plans.iter().map(|p| p.id.clone()).collect()).boxed(),
        ),
        (
            "email",
            one_of_or_text(vec!["buyer@example.com".into(), "x@y.z".into()]).boxed(),
        ),
        ("expected_price_cents", one_of_or_text(prices).boxed()),
        ("confirm_device", one_of_or_text(vec!["yes".into()]).boxed()),
        ("accept_terms", one_of_or_text(vec!["yes".into()]).boxed()),
        ("csrf_token", token(&csrf)),
    ]);
    let strategy = (body(fields), cookies(vec![]), prop::bool::weighted(0.8)).prop_map(
        |(body, cookies, with_csrf_cookie)| CheckoutCase {
            body,
            cookies,
            with_csrf_cookie,
        },
    );
    run(
        &format!("checkout form, {backend:?}"),
        cases(),
        strategy,
        |case| {
            let mut cookie = case
                .cookies
                .clone()
                .and_then(|c| String::from_utf8(c).ok())
                .unwrap_or_default();
            if case.with_csrf_cookie {
                if !cookie.is_empty() {
                    cookie.push_str("; ");
                }
                cookie.push_str(&csrf_cookie);
            }
            let request = cookie_header(
                app.client.post(app.url("/checkout")),
                &Some(cookie.into_bytes()),
            );
            let request = with_body(request, &case.body);
            rt.block_on(judged(
                &app,
                &format!("POST /checkout {:?}", case.body),
                request,
            ))
        },
    );
}

// ---- the console ------------------------------------------------------------------------------

#[derive(Debug, Clone)]
struct ConsoleCase {
    post: bool,
    template: &'static str,
    id: String,
    action: String,
    query: String,
    body: Body,
}

fn console_forms_of_a_signed_in_owner_are_refused_with_a_message(backend: Backend) {
    let rt = runtime();
    let Some((app, _upstream)) = rt.block_on(spawn_shop_with(backend, 30, SHOP)) else {
        return;
    };
    rt.block_on(create(&app.db, OWNER, Role::Owner));
    rt.block_on(create(&app.db, "second@example.com", Role::Support));
    rt.block_on(insert_purchase(
        &app.db,
        ORDER,
        "ana@example.com",
        "fulfilled",
        0,
    ));
    rt.block_on(insert_purchase(
        &app.db,
        "pu_fuzz_paid",
        "bo@example.com",
        "paid",
        0,
    ));
    let owner = rt.block_on(login_as(&app, OWNER));
    let csrf = rt.block_on(owner.csrf(&app));
    let session = owner.cookie_header();
    let snap = app.catalog.snapshot();
    let mut scopes: Vec<String> = snap.plans().iter().take(5).map(|p| p.id.clone()).collect();
    scopes.extend(snap.plans().iter().take(5).map(|p| p.country_code.clone()));
    let value =
        |known: &[&str]| one_of_or_text(known.iter().map(|s| (*s).to_string()).collect()).boxed();
    let fields = form(vec![
        ("csrf_token", token(&csrf)),
        ("reason", value(&["a reason", "customer asked"])),
        (
            "scope_kind",
            value(&["default", "country", "region", "plan"]),
        ),
        ("scope_value", one_of_or_text(scopes).boxed()),
        ("markup_percent", value(&["10", "0", "12.5", "-5", "1000"])),
        ("fixed", value(&["0", "0.50", "1", "-1"])),
        ("ending", value(&["", "99", "0.99", "none"])),
        ("min_margin", value(&["0", "0.25", "1"])),
        ("email", value(&["new@example.com", "second@example.com"])),
        ("role", value(&["owner", "support"])),
        ("password", value(&["a long new passphrase", "short"])),
        ("password_again", value(&["a long new passphrase"])),
        ("current_password", value(&["not the password"])),
        ("code", value(&["000000", "123456"])),
        ("required", value(&["on", "off"])),
        ("nonce", value(&["n1"])),
        ("amount", value(&["100", "0.01", "-3", "1000000"])),
        ("threshold", value(&["10", "0", "-1"])),
        ("pause_below", value(&["yes"])),
    ]);
    let routes: Vec<(bool, &'static str)> = vec![
        (true, "/admin/orders/{id}/{action}"),
        (true, "/admin/orders/{id}/{action}"),
        (true, "/admin/orders/{id}/{action}"),
        (false, "/admin/orders/{id}"),
        (false, "/admin/orders"),
        (true, "/admin/pricing/preview"),
        (true, "/admin/pricing/save"),
        (true, "/admin/pricing/delete"),
        (false, "/admin/pricing"),
        (true, "/admin/users"),
        (false, "/admin/users"),
        (false, "/admin/users/{id}"),
        (true, "/admin/users/{id}/{action}"),
        (true, "/admin/users/{id}/reset-totp"),
        (true, "/admin/users/totp-required"),
        (true, "/admin/wallet/topup"),
        (true, "/admin/wallet/threshold"),
        (false, "/admin/wallet/topups/{id}"),
        (false, "/admin/wallet"),
        (true, "/admin/account/password"),
        (true, "/admin/account/totp"),
        (false, "/admin/account"),
        (false, "/admin/audit"),
        (false, "/admin/catalog"),
        (true, "/admin/catalog/sync"),
        (true, "/admin/placements/retry"),
        (false, "/admin"),
    ];
    let strategy = (
        prop::sample::select(routes),
        segment(vec![
            ORDER.into(),
            "pu_fuzz_paid".into(),
            "2".into(),
            "3".into(),
        ]),
        segment(
            [
                "note",
                "resend",
                "send-link",
                "resolve",
                "retry",
                "refund",
                "refund-keep-cost",
                "revoke-links",
                "disable",
                "enable",
                "role",
                "password",
            ]
            .map(String::from)
            .to_vec(),
        ),
        query(&[
            "q",
            "status",
            "from",
            "to",
            "before",
            "page",
            "country",
            "region",
            "cursor",
            "done",
            "saved",
            "recovery_left",
        ]),
        body(fields),
    )
        .prop_map(|((post, template), id, action, query, body)| ConsoleCase {
            post,
            template,
            id,
            action,
            query,
            body,
        });
    run(
        &format!("console forms, {backend:?}"),
        cases(),
        strategy,
        |case| {
            // The owner's own account (id 1) is never the target: signing oneself out or demoting
            // oneself would end the run's session, not test a form.
            if case.id == "1"
                || (case.post && case.template == "/admin/users" && case.body_email_is_owner())
            {
                return Ok(0);
            }
            let path = case
                .template
                .replace("{id}", &case.id)
                .replace("{action}", &case.action);
            let url = format!("{}{}?{}", app.address, path, case.query);
            let Ok(url) = reqwest::Url::parse(&url) else {
                return Ok(0);
            };
            let request = if case.post {
                with_body(app.client.post(url), &case.body)
            } else {
                app.client.get(url)
            };
            let request = request.header(COOKIE, session.as_str());
            let method = if case.post { "POST" } else { "GET" };
            // A wrong current password or TOTP code is audited by design, like a refused sign-in.
            let may_grow: &[&str] = if case.post && case.template.starts_with("/admin/account/") {
                &["admin_audit"]
            } else {
                &[]
            };
            let what = format!("{method} {path}?{} {:?}", case.query, case.body);
            rt.block_on(judged_allowing(&app, &what, request, may_grow))
        },
    );
}

impl ConsoleCase {
    fn body_email_is_owner(&self) -> bool {
        matches!(&self.body, Body::Form(pairs) if pairs.iter().any(|(k, v)| k == "email" && v.trim().eq_ignore_ascii_case(OWNER)))
    }
}

fn console_login_forms_are_refused_with_a_message(backend: Backend) {
    let rt = runtime();
    let Some((app, _upstream)) = rt.block_on(spawn_shop_with(backend, 5, SHOP)) else {
        return;
    };
    rt.block_on(create(&app.db, OWNER, Role::Owner));
    let browser = Browser::default();
    let csrf = rt.block_on(browser.csrf(&app));
    let csrf_cookie = browser.cookie_header();
    let fields = form(vec![
        ("email", one_of_or_text(vec![OWNER.into()]).boxed()),
        (
            "password",
            one_of_or_text(vec!["not the password".into()]).boxed(),
        ),
        ("csrf_token", token(&csrf)),
    ]);
    // Every attempt costs a password hash: a tenth of the cases of the other surfaces.
    let strategy = (
        body(fields),
        prop::sample::select(vec!["/admin/login", "/admin/login/totp"]),
    );
    run(
        &format!("console login, {backend:?}"),
        (cases() / 10).max(20),
        strategy,
        |(body, path)| {
            let request = with_body(app.client.post(app.url(path)), &body)
                .header(COOKIE, csrf_cookie.as_str());
            // A refused sign-in is audited by design (once per account, client and window).
            rt.block_on(judged_allowing(
                &app,
                &format!("POST {path} {body:?}"),
                request,
                &["admin_audit"],
            ))
        },
    );
}

// ---- webhooks ---------------------------------------------------------------------------------

const WHSEC: &str = "whsec_fuzz_webhook_secret";
const UPSTREAM_TOKEN: &str = "upstream-webhook-token-for-the-fuzz-tests";
/// The seeded purchase the Stripe events aim at, awaiting a payment of 5.00.
const AWAITING: &str = "pu_fuzz_awaiting";

async fn webhook_app(backend: Backend) -> Option<TestApp> {
    let app = spawn_app_with(
        backend,
        &[
            ("STOREFRONT_PAYMENTS", "stripe"),
            ("STOREFRONT_STRIPE_SECRET_KEY", "sk_test_fuzz"),
            ("STOREFRONT_STRIPE_WEBHOOK_SECRET", WHSEC),
            ("STOREFRONT_STRIPE_API_BASE", "http://127.0.0.1:9"),
            ("STOREFRONT_UPSTREAM_WEBHOOK_TOKEN", UPSTREAM_TOKEN),
        ],
    )
    .await?;
    insert_purchase(
        &app.db,
        AWAITING,
        "ana@example.com",
        "awaiting_payment",
        storefront::db::now_ms(),
    )
    .await;
    Some(app)
}

/// Any JSON value, nested a few levels.
fn json() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::Value;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(
                one_of_or_text(
                    [
                        "id",
                        "type",
                        "data",
                        "object",
                        "amount_total",
                        "currency",
                        "status",
                        "payment_status",
                        "client_reference_id",
                        "metadata",
                        "purchase_id",
                        "payment_intent",
                        "amount_refunded",
                        "orderId",
                        "order_id",
                        "order",
                    ]
                    .map(String::from)
                    .to_vec()
                ),
                inner,
                0..6
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A Stripe event of a type the shop reads, its fields well-formed or not, aimed at the
/// seeded purchase (or another) with an amount or currency that must not pay it.
fn stripe_event() -> impl Strategy<Value = serde_json::Value> {
    (
        prop::sample::select(vec![
            "checkout.session.completed",
            "checkout.session.async_payment_succeeded",
            "charge.refunded",
            "charge.dispute.created",
            "payment_intent.succeeded",
        ]),
        one_of_or_text(vec!["evt_1".into(), "evt_2".into()]),
        one_of_or_text(vec!["cs_1".into()]),
        prop::option::of(one_of_or_text(vec![AWAITING.into(), "pu_other".into()])),
        prop_oneof![
            // Never the purchase's price (500) in USD: such an event would rightly pay it.
            (
                any::<i64>(),
                prop::sample::select(vec!["eur", "EUR", "", "us"])
            )
                .prop_map(|(a, c)| (serde_json::json!(a), serde_json::json!(c))),
            (
                any::<i64>().prop_filter("not the price", |a| *a != 500),
                Just("usd")
            )
                .prop_map(|(a, c)| (serde_json::json!(a), serde_json::json!(c))),
            (json(), json()),
        ],
        prop::option::of(one_of_or_text(vec!["paid".into(), "unpaid".into()])),
        prop::option::of(json()),
    )
        .prop_map(
            |(kind, id, session, purchase, (amount, currency), paid, intent)| {
                serde_json::json!({
                    "id": id,
                    "type": kind,
                    "data": {"object": {
                        "id": session,
                        "status": "complete",
                        "payment_status": paid,
                        "amount_total": amount,
                        "amount_refunded": amount,
                        "currency": currency,
                        "client_reference_id": purchase,
                        "metadata": {"purchase_id": purchase},
                        "payment_intent": intent,
                    }}
                })
            },
        )
}

#[derive(Debug, Clone)]
enum Signature {
    Missing,
    Text(String),
    /// Signed with the right secret, `age` seconds ago (stale past five minutes).
    Valid {
        age: u64,
    },
    WrongSecret,
}

fn stripe_webhooks_never_fail_and_garbage_never_pays(backend: Backend) {
    let rt = runtime();
    let Some(app) = rt.block_on(webhook_app(backend)) else {
        return;
    };
    let strategy = (
        prop_oneof![
            2 => stripe_event().prop_map(|v| v.to_string().into_bytes()),
            2 => json().prop_map(|v| v.to_string().into_bytes()),
            1 => prop::collection::vec(any::<u8>(), 0..400),
            1 => json().prop_map(|v| {
                // Truncated JSON.
                let text = v.to_string();
                text.as_bytes()[..text.len() / 2].to_vec()
            }),
        ],
        prop_oneof![
            1 => Just(Signature::Missing),
            1 => "[ -~]{0,120}".prop_map(Signature::Text),
            1 => prop::sample::select(vec![
                "t=,v1=", "t=1,v1=zz", "v1=00", "t=99999999999999999999,v1=00",
                "t=-5,v1=ab", ",,,", "t=1750000000", "=,=,=",
            ]).prop_map(|s| Signature::Text(s.into())),
            5 => prop_oneof![Just(0u64), 0u64..2_000].prop_map(|age| Signature::Valid { age }),
            1 => Just(Signature::WrongSecret),
        ],
    );
    run(
        &format!("stripe webhook, {backend:?}"),
        cases(),
        strategy,
        |(body, signature)| {
            let now = SystemTime::now();
            let header = match &signature {
                Signature::Missing => None,
                Signature::Text(text) => Some(text.clone()),
                Signature::Valid { age } => Some(signature::sign(
                    WHSEC.as_bytes(),
                    &body,
                    now - Duration::from_secs(*age),
                )),
                Signature::WrongSecret => Some(signature::sign(b"whsec_other", &body, now)),
            };
            let mut request = app
                .client
                .post(app.url("/webhooks/stripe"))
                .header(CONTENT_TYPE, "application/json")
                .body(body.clone());
            if let Some(header) = header {
                request = request.header("stripe-signature", header);
            }
            let what = format!(
                "stripe webhook {signature:?} {}",
                String::from_utf8_lossy(&body)
            );
            rt.block_on(async {
                let before = seeded_status(&app.db).await;
                let status = judged(&app, &what, request).await?;
                let after = seeded_status(&app.db).await;
                prop_assert_eq!(&before, &after, "{} changed the purchase", what);
                Ok(status)
            })
        },
    );
}

/// Status and payment fields of the seeded purchase.
async fn seeded_status(db: &Db) -> (String, Option<String>) {
    db.run(|conn| {
        Ok::<_, DbError>(
            purchases::table
                .find(AWAITING)
                .select((purchases::status, purchases::payment_reference))
                .first::<(String, Option<String>)>(conn)?,
        )
    })
    .await
    .expect("seeded purchase")
}

fn upstream_webhooks_answer_any_token_and_body(backend: Backend) {
    let rt = runtime();
    let Some(app) = rt.block_on(webhook_app(backend)) else {
        return;
    };
    let strategy = (
        prop_oneof![
            4 => Just(UPSTREAM_TOKEN.to_string()),
            1 => segment(vec!["x".repeat(40)]),
        ],
        prop_oneof![
            3 => json().prop_map(|v| v.to_string().into_bytes()),
            1 => (text(), json()).prop_map(|(id, v)| {
                serde_json::json!({"type": "order.status_changed", "orderId": id, "status": v})
                    .to_string()
                    .into_bytes()
            }),
            1 => prop::collection::vec(any::<u8>(), 0..400),
        ],
    );
    run(
        &format!("upstream webhook, {backend:?}"),
        cases(),
        strategy,
        |(token, body)| {
            let request = app
                .client
                .post(app.url(&format!("/webhooks/upstream/{token}")))
                .header(CONTENT_TYPE, "application/json")
                .body(body.clone());
            let what = format!(
                "upstream webhook {token} {}",
                String::from_utf8_lossy(&body)
            );
            rt.block_on(judged(&app, &what, request))
        },
    );
}

/// Inputs that once answered 500 on PostgreSQL (which stores no NUL in text), run every time
/// whatever the generators draw.
fn nul_characters_are_refused_with_a_message(backend: Backend) {
    let rt = runtime();
    let Some(app) = rt.block_on(webhook_app(backend)) else {
        return;
    };
    rt.block_on(async {
        let url = format!("/webhooks/upstream/{UPSTREAM_TOKEN}");
        for (what, request) in [
            (
                "GET /demo-pay/%00",
                app.client.get(app.url("/demo-pay/%00")),
            ),
            ("GET /orders/%00", app.client.get(app.url("/orders/%00"))),
            (
                "upstream webhook naming order NUL",
                app.client
                    .post(app.url(&url))
                    .body(r#"{"orderId":"\u0000","status":"fulfilled"}"#),
            ),
        ] {
            // SQLite stores the character (so a lookup finds nothing); PostgreSQL refuses it.
            judged(&app, what, request)
                .await
                .unwrap_or_else(|e| panic!("{e}"));
        }
    });
}

// ---- the upstream's answers, over the wire ------------------------------------------------------

/// How the generated answer's body is framed.
#[derive(Debug, Clone)]
enum Framing {
    /// `Content-Length` says the body's length.
    Exact,
    /// `Content-Length` says more than is sent before the connection closes.
    Short(usize),
    /// No `Content-Length`: the body ends when the connection closes.
    UntilClose,
}

#[derive(Debug, Clone)]
struct WireAnswer {
    status: u16,
    reason: String,
    retry_after: Option<Vec<u8>>,
    content_type: Option<String>,
    framing: Framing,
    body: Vec<u8>,
}

fn wire_answer() -> impl Strategy<Value = WireAnswer> {
    (
        prop_oneof![
            4 => prop::sample::select(vec![200u16, 201, 202, 204, 400, 401, 403, 404, 409, 429, 500, 503]),
            1 => 100u16..1000,
        ],
        "[ -~]{0,20}",
        prop::option::of(prop_oneof![
            3 => prop_oneof![
                any::<u64>().prop_map(|n| n.to_string()),
                (0u32..120).prop_map(|n| n.to_string()),
                any::<i64>().prop_map(|n| n.to_string()),
                "[0-9]{20,40}",
                Just("Fri, 31 Dec 9999 23:59:59 GMT".to_string()),
                Just("Sun, 06 Nov 1994 08:49:37 GMT".to_string()),
                "[ -~]{0,30}",
            ].prop_map(String::into_bytes),
            // Any bytes a header value may hold (a control character would make the whole
            // answer unreadable, a transport failure rather than a 429).
            1 => prop::collection::vec(prop_oneof![32u8..127, 128u8..=255], 0..30),
        ]),
        prop::option::of(prop::sample::select(vec![
            "application/json".to_string(),
            "text/html".into(),
            "application/json; charset=latin1".into(),
        ])),
        prop_oneof![
            4 => Just(Framing::Exact),
            1 => (1usize..1000).prop_map(Framing::Short),
            1 => Just(Framing::UntilClose),
        ],
        prop_oneof![
            3 => json().prop_map(|v| v.to_string().into_bytes()),
            2 => stripe_event().prop_map(|v| v.to_string().into_bytes()),
            1 => prop::collection::vec(any::<u8>(), 0..300),
        ],
    )
        .prop_map(|(status, reason, retry_after, content_type, framing, body)| WireAnswer {
            status,
            reason,
            retry_after,
            content_type,
            framing,
            body,
        })
}

impl WireAnswer {
    fn bytes(&self) -> Vec<u8> {
        let mut out = format!(
            "HTTP/1.1 {} {}\r\nConnection: close\r\n",
            self.status, self.reason
        )
        .into_bytes();
        if let Some(value) = &self.retry_after {
            out.extend_from_slice(b"Retry-After: ");
            out.extend_from_slice(value);
            out.extend_from_slice(b"\r\n");
        }
        if let Some(ct) = &self.content_type {
            out.extend_from_slice(format!("Content-Type: {ct}\r\n").as_bytes());
        }
        match self.framing {
            Framing::Exact => {
                out.extend_from_slice(format!("Content-Length: {}\r\n", self.body.len()).as_bytes())
            }
            Framing::Short(more) => out.extend_from_slice(
                format!("Content-Length: {}\r\n", self.body.len() + more).as_bytes(),
            ),
            Framing::UntilClose => {}
        }
        out.extend_from_slice(b"\r\n");
        out.extend_from_slice(&self.body);
        out
    }
}

/// A server that answers every request with the bytes in `next`, then closes the connection.
async fn scripted_server(next: std::sync::Arc<std::sync::Mutex<Vec<u8>>>) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let address = listener.local_addr().expect("address");
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let answer = next.lock().expect("answer").clone();
            tokio::spawn(async move {
                // Read the request head (and a small body) before answering.
                let mut seen = Vec::new();
                let mut buf = [0u8; 4096];
                while !seen.windows(4).any(|w| w == b"\r\n\r\n") {
                    match socket.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => seen.extend_from_slice(&buf[..n]),
                    }
                }
                let _ = socket.write_all(&answer).await;
                let _ = socket.shutdown().await;
            });
        }
    });
    format!("http://{address}/api/v1")
}

/// The upstream client over a real connection: any status line, `Retry-After`, framing
/// (short, until close) and body ends in a value or a classified error, in bounded time.
#[test]
fn upstream_answers_over_the_wire_are_classified() {
    use storefront::config::Secret;
    use storefront::domain::Cents;
    use storefront::upstream::{
        ApiAmount, Class, IdempotencyKey, OrderReference, OrderRequest, PartnerClient, PathId,
        PlanId, UpstreamClientConfig,
    };
    let rt = runtime();
    let next = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let base = rt.block_on(scripted_server(next.clone()));
    let mut config = UpstreamClientConfig::new(
        reqwest::Url::parse(&base).expect("base"),
        Secret::new("sk_test_fuzz".to_string()),
    );
    config.max_get_attempts = 1;
    config.request_timeout = Duration::from_secs(5);
    config.max_gate_wait = Duration::ZERO;
    let id = PathId::parse("p1").expect("id");
    let order = OrderRequest {
        plan_id: PlanId::parse("p1-base").expect("plan"),
        expected_price_cents: ApiAmount::new(Cents::new(500)).expect("amount"),
        reference: OrderReference::parse("sf-fuzz").expect("reference"),
    };
    let fresh = std::cell::RefCell::new(PartnerClient::new(config.clone()).expect("client"));
    let client = &fresh;
    run(
        "upstream answers over the wire",
        cases(),
        (wire_answer(), 0usize..6),
        |(answer, call)| {
            *next.lock().expect("answer") = answer.bytes();
            let client = client.borrow().clone();
            let started = std::time::Instant::now();
            let class = rt.block_on(async {
                let class =
                    |r: Result<(), storefront::upstream::UpstreamError>| r.err().map(|e| e.class());
                match call {
                    0 => class(client.account().await.map(drop)),
                    1 => class(client.balance().await.map(drop)),
                    2 => class(client.plan(&id).await.map(drop)),
                    3 => class(client.order(&id).await.map(drop)),
                    4 => class(client.installation(&id).await.map(drop)),
                    _ => class(
                        client
                            .create_order(&IdempotencyKey::generate(), &order)
                            .await
                            .map(drop),
                    ),
                }
            });
            if matches!(class, Some(Class::RetryAfter(_))) {
                // The gate is closed now: a fresh client for what follows (building one costs
                // its TLS setup, so only then).
                *fresh.borrow_mut() = PartnerClient::new(config.clone()).expect("client");
            }
            prop_assert!(started.elapsed() < Duration::from_secs(6), "{answer:?}");
            if answer.status == 429 {
                prop_assert!(matches!(class, Some(Class::RetryAfter(_))), "{class:?}");
            }
            // Counted by class: 200 a value, 400 definitive, 429 rate-limited, 500 unknown.
            Ok(match class {
                None => 200,
                Some(Class::Definitive) => 400,
                Some(Class::RetryAfter(_)) => 429,
                Some(Class::Unknown) => 500,
            })
        },
    );
}

/// A 429 whose body breaks off (shorter than its `Content-Length`) is still a 429: its
/// `Retry-After` closes the gate, so the next call is not sent. It once came back `Unknown`,
/// leaving the gate open.
#[test]
fn a_429_whose_body_breaks_off_still_closes_the_gate() {
    use storefront::config::Secret;
    use storefront::upstream::{Class, ErrorKind, PartnerClient, UpstreamClientConfig};
    let rt = runtime();
    let next = std::sync::Arc::new(std::sync::Mutex::new(
        b"HTTP/1.1 429 Too Many Requests\r\nConnection: close\r\nRetry-After: 7\r\nContent-Length: 100\r\n\r\n{\"error\":"
            .to_vec(),
    ));
    let base = rt.block_on(scripted_server(next));
    let mut config = UpstreamClientConfig::new(
        reqwest::Url::parse(&base).expect("base"),
        Secret::new("sk_test_fuzz".to_string()),
    );
    config.max_get_attempts = 1;
    config.max_gate_wait = Duration::ZERO;
    let client = PartnerClient::new(config).expect("client");
    rt.block_on(async {
        let first = client.balance().await.expect_err("429");
        assert_eq!(
            first.class(),
            Class::RetryAfter(Duration::from_secs(7)),
            "{first}"
        );
        let second = client.balance().await.expect_err("gate closed");
        assert_eq!(second.kind(), ErrorKind::GateClosed, "{second}");
    });
}
