//! What an operator and a load balancer see: liveness, readiness, request ids, error pages
//! and the headers every answer carries.

use crate::both_backends;
use crate::helpers::{
    Answer, Backend, Browser, TestDb, spawn_app, spawn_app_on, spawn_app_with, spawn_shop,
};

both_backends!(
    healthz_and_readyz_report_a_migrated_database,
    readyz_is_503_until_migrations_are_applied,
);

async fn healthz_and_readyz_report_a_migrated_database(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let health = app.get("/healthz").await;
    assert_eq!(health.status(), 200);
    assert_eq!(health.text().await.expect("body"), "ok\n");
    let ready = app.get("/readyz").await;
    assert_eq!(ready.status(), 200);
    let body: serde_json::Value = ready.json().await.expect("json");
    assert_eq!(body["ready"], true);
    assert_eq!(body["database"], "ok");
    assert!(body["upstream"].is_string(), "{body}");
}

async fn readyz_is_503_until_migrations_are_applied(backend: Backend) {
    let Some(test_db) = TestDb::new(backend) else {
        return;
    };
    let db = test_db.open();
    let app = spawn_app_on(test_db, db.clone()).await;
    assert_eq!(app.get("/healthz").await.status(), 200, "alive regardless");
    let ready = app.get("/readyz").await;
    assert_eq!(ready.status(), 503);
    let body: serde_json::Value = ready.json().await.expect("json");
    assert_eq!(body["ready"], false);
    db.migrate().await.expect("migrate");
    assert_eq!(app.get("/readyz").await.status(), 200);
}

#[tokio::test]
async fn unknown_paths_get_a_404_page_with_the_request_id() {
    let app = spawn_app(Backend::Sqlite).await.expect("sqlite");
    let res = app.get("/no/such/page?token=secret").await;
    assert_eq!(res.status(), 404);
    let id = res
        .headers()
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .expect("request id header")
        .to_string();
    assert_eq!(id.len(), 16);
    assert!(
        res.headers()["content-type"]
            .to_str()
            .expect("ascii")
            .starts_with("text/html"),
    );
    let body = res.text().await.expect("body");
    assert!(body.contains("Page not found"), "{body}");
    assert!(body.contains(&id), "the error page shows the request id");
    assert!(body.contains("<html lang=\"en\">"));
}

/// Long addresses reach the app (and get a request id) up to the HTTP parser's limit of
/// 65,534 bytes; beyond it actix answers a bare 400 before any middleware runs, as the README
/// says. Raw requests: reqwest itself refuses to build the longer one.
#[tokio::test]
async fn long_uris_get_a_request_id_up_to_the_parser_limit() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let app = spawn_app(Backend::Sqlite).await.expect("sqlite");
    let head_of = |uri_len: usize| {
        let address = app.address.trim_start_matches("http://").to_string();
        async move {
            let mut stream = tokio::net::TcpStream::connect(address)
                .await
                .expect("connect");
            let request = format!(
                "GET /{} HTTP/1.1\r\nHost: shop\r\nConnection: close\r\n\r\n",
                "a".repeat(uri_len - 1)
            );
            stream.write_all(request.as_bytes()).await.expect("write");
            let mut raw = Vec::new();
            stream.read_to_end(&mut raw).await.expect("read");
            let text = String::from_utf8_lossy(&raw).to_ascii_lowercase();
            text.split("\r\n\r\n")
                .next()
                .unwrap_or_default()
                .to_string()
        }
    };
    let head = head_of(65_534).await;
    assert!(head.starts_with("http/1.1 404"), "{head}");
    assert!(head.contains("x-request-id: "), "{head}");
    let head = head_of(65_535).await;
    assert!(head.starts_with("http/1.1 400"), "{head}");
    assert!(!head.contains("x-request-id"), "{head}");
}

#[tokio::test]
async fn every_answer_carries_security_headers_and_a_cache_policy() {
    let app = spawn_app(Backend::Sqlite).await.expect("sqlite");
    for path in ["/healthz", "/readyz", "/missing"] {
        let res = app.get(path).await;
        let h = res.headers();
        let csp = h["content-security-policy"].to_str().expect("ascii");
        assert!(csp.contains("default-src 'self'"), "{path}: {csp}");
        assert!(csp.contains("frame-ancestors 'none'"), "{path}: {csp}");
        assert_eq!(h["x-content-type-options"], "nosniff", "{path}");
        assert_eq!(h["x-frame-options"], "DENY", "{path}");
        assert_eq!(h["cache-control"], "no-store", "{path}");
        assert!(h.contains_key("referrer-policy"), "{path}");
    }
    let ids: std::collections::HashSet<String> = futures_ids(&app).await;
    assert_eq!(ids.len(), 5, "every request gets its own id");
}

async fn futures_ids(app: &crate::helpers::TestApp) -> std::collections::HashSet<String> {
    let mut ids = std::collections::HashSet::new();
    for _ in 0..5 {
        let res = app.get("/healthz").await;
        ids.insert(
            res.headers()["x-request-id"]
                .to_str()
                .expect("ascii")
                .to_string(),
        );
    }
    ids
}

/// Uptime monitors ask with HEAD: every GET route answers it with the GET's status and
/// headers and no body.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn head_answers_every_get_route_without_a_body() {
    let (app, _upstream) = spawn_shop(Backend::Sqlite, 60).await.expect("sqlite");
    let code = app.catalog.snapshot().destinations()[0].code.clone();
    let paths = [
        "/healthz".to_string(),
        "/".to_string(),
        format!("/countries/{code}"),
        "/static/style.css".to_string(),
        "/robots.txt".to_string(),
        "/no-such-page".to_string(),
    ];
    for path in &paths {
        let get = app.get(path).await;
        let head = app.client.head(app.url(path)).send().await.expect("head");
        assert_eq!(head.status(), get.status(), "{path}");
        for name in ["content-type", "content-length", "cache-control"] {
            assert_eq!(
                head.headers().get(name),
                get.headers().get(name),
                "{path}: {name}"
            );
        }
        assert!(head.headers().contains_key("x-request-id"), "{path}");
        let expected = if path == "/no-such-page" { 404 } else { 200 };
        assert_eq!(head.status(), expected, "{path}");
        assert!(head.bytes().await.expect("body").is_empty(), "{path}");
        assert!(!get.bytes().await.expect("body").is_empty(), "{path}");
    }
    // On the wire, not just as the client reads it: nothing follows the head.
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(app.address.trim_start_matches("http://"))
        .await
        .expect("connect");
    stream
        .write_all(b"HEAD /healthz HTTP/1.1\r\nHost: shop\r\nConnection: close\r\n\r\n")
        .await
        .expect("write");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.expect("read");
    let text = String::from_utf8(raw).expect("utf-8");
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    assert!(
        text.ends_with("\r\n\r\n"),
        "a body followed the head: {text:?}"
    );
    assert!(
        text.to_ascii_lowercase().contains("content-length: 3\r\n"),
        "{text}"
    );
}

/// Browsers are told to use https for a year only when the shop is served over https.
#[tokio::test]
async fn strict_transport_security_only_with_an_https_public_url() {
    let http = spawn_app(Backend::Sqlite).await.expect("sqlite");
    for path in ["/healthz", "/missing"] {
        let res = http.get(path).await;
        assert!(
            res.headers().get("strict-transport-security").is_none(),
            "{path}"
        );
    }
    let https = spawn_app_with(
        Backend::Sqlite,
        &[("STOREFRONT_PUBLIC_URL", "https://shop.example.com")],
    )
    .await
    .expect("sqlite");
    for path in ["/healthz", "/missing", "/admin/login"] {
        let res = https.get(path).await;
        assert_eq!(
            res.headers()["strict-transport-security"],
            "max-age=31536000",
            "{path}"
        );
    }
}

/// Input the app cannot read gets a 400 in plain words; the parser's message (our field names
/// and types) stays out of the page.
#[tokio::test]
async fn malformed_input_gets_a_plain_400_without_parser_details() {
    let app = spawn_app(Backend::Sqlite).await.expect("sqlite");
    let browser = Browser::default();
    let answers = [
        (
            "duplicate query field",
            browser.get(&app, "/search?q=a&q=b").await,
        ),
        (
            "form without plan_id",
            browser
                .post(
                    &app,
                    "/checkout",
                    &[("email", "a@example.com"), ("csrf_token", "x")],
                )
                .await,
        ),
    ];
    for (
        case,
        Answer {
            status,
            body: page,
            headers,
            ..
        },
    ) in answers
    {
        assert_eq!(status, 400, "{case}: {page}");
        assert!(
            page.contains("Some of the information sent was not valid. Go back and try again."),
            "{case}: {page}"
        );
        for leak in [
            "duplicate",
            "deserialize",
            "missing field",
            "plan_id",
            "Parse error",
        ] {
            assert!(
                !page.to_lowercase().contains(&leak.to_lowercase()),
                "{case}: {leak} in {page}"
            );
        }
        assert!(headers.contains_key("x-request-id"), "{case}");
    }
}

/// The demo payment buttons check the CSRF token before anything else: a POST without a form
/// gets the same 403 as one with a wrong token.
#[tokio::test]
async fn demo_pay_without_a_form_is_refused_like_a_bad_token() {
    let app = spawn_app(Backend::Sqlite).await.expect("sqlite");
    for action in ["pay", "decline"] {
        let url = app.url(&format!("/demo-pay/some-session/{action}"));
        let bare = app.client.post(&url).send().await.expect("post");
        assert_eq!(bare.status(), 403, "{action}");
        assert!(
            bare.text()
                .await
                .expect("body")
                .contains("This form has expired")
        );
        let json = app
            .client
            .post(&url)
            .header("content-type", "application/json")
            .body("{}")
            .send()
            .await
            .expect("post");
        assert_eq!(json.status(), 403, "{action}");
        let wrong = Browser::default()
            .post(
                &app,
                &format!("/demo-pay/some-session/{action}"),
                &[("csrf_token", "nope")],
            )
            .await;
        assert_eq!(wrong.status, 403, "{action}");
    }
}

/// Crawlers learn what to leave alone, and browsers find an icon instead of a 404 per visit.
#[tokio::test]
async fn robots_txt_and_the_icon_are_served() {
    let app = spawn_app(Backend::Sqlite).await.expect("sqlite");
    let robots = app.get("/robots.txt").await;
    assert_eq!(robots.status(), 200);
    assert!(
        robots.headers()["content-type"]
            .to_str()
            .expect("ascii")
            .starts_with("text/plain")
    );
    let text = robots.text().await.expect("body");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.first(), Some(&"User-agent: *"), "{text}");
    for private in ["/admin", "/orders", "/checkout"] {
        assert!(
            lines.contains(&format!("Disallow: {private}").as_str()),
            "{text}"
        );
    }
    assert!(lines.contains(&"Allow: /"), "{text}");
    assert!(
        !lines.contains(&"Disallow: /"),
        "the catalog stays crawlable: {text}"
    );

    let icon = app.get("/favicon.svg").await;
    assert_eq!(icon.status(), 200);
    assert_eq!(icon.headers()["content-type"], "image/svg+xml");
    assert!(icon.text().await.expect("body").starts_with("<svg"));
    let ico = app.get("/favicon.ico").await;
    assert_eq!(ico.status(), 204);
    assert!(
        ico.headers()["cache-control"]
            .to_str()
            .expect("ascii")
            .contains("max-age")
    );

    // Shop pages, error pages and the admin console link the icon, and the link works.
    for path in ["/", "/missing", "/admin/login"] {
        let page = app.get(path).await.text().await.expect("page");
        let href = page
            .split("<link rel=\"icon\" href=\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .unwrap_or_else(|| panic!("{path} links no icon: {page}"))
            .to_string();
        let linked = app.get(&href).await;
        assert_eq!(linked.status(), 200, "{path}: {href}");
        assert_eq!(linked.headers()["content-type"], "image/svg+xml");
    }
}

#[tokio::test]
async fn the_stylesheet_is_served_from_the_binary() {
    let app = spawn_app(Backend::Sqlite).await.expect("sqlite");
    let res = app.get("/static/style.css").await;
    assert_eq!(res.status(), 200);
    assert!(
        res.headers()["content-type"]
            .to_str()
            .expect("ascii")
            .starts_with("text/css")
    );
    assert!(
        res.headers()["cache-control"]
            .to_str()
            .expect("ascii")
            .contains("max-age")
    );
    assert!(res.text().await.expect("body").contains(":root"));
    assert_eq!(app.get("/static/../Cargo.toml").await.status(), 404);
    assert_eq!(app.get("/static/nope.js").await.status(), 404);
}

both_backends!(metrics_report_requests_and_shop_wide_gauges);

const METRICS_TOKEN: &str = "metrics-token-0123456789abcdef-0123456789";

async fn metrics_report_requests_and_shop_wide_gauges(backend: Backend) {
    let Some(app) = spawn_app_with(backend, &[("STOREFRONT_METRICS_TOKEN", METRICS_TOKEN)]).await
    else {
        return;
    };
    app.get("/healthz").await;
    app.get("/definitely-missing").await;
    let res = app
        .client
        .get(app.url("/metrics"))
        .bearer_auth(METRICS_TOKEN)
        .send()
        .await
        .expect("metrics");
    assert_eq!(res.status(), 200);
    assert!(
        res.headers()["content-type"]
            .to_str()
            .expect("ascii")
            .starts_with("text/plain")
    );
    let body = res.text().await.expect("body");
    let value = |line_start: &str| -> f64 {
        body.lines()
            .find(|l| l.starts_with(line_start))
            .and_then(|l| l.rsplit(' ').next())
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no {line_start} in {body}"))
    };
    assert!(value("storefront_http_responses_total{class=\"2xx\"}") >= 1.0);
    assert!(value("storefront_http_responses_total{class=\"4xx\"}") >= 1.0);
    assert_eq!(value("storefront_alerts_open"), 0.0);
    assert_eq!(value("storefront_catalog_plans"), 0.0);
    assert!(body.contains("# TYPE storefront_outbox_overdue_seconds gauge"));
}

both_backends!(metrics_count_live_orders_per_scrape_and_ended_ones_from_the_tally);

/// Orders still moving are counted at every scrape; ended ones (which grow with every sale)
/// come from the tally one replica takes every few minutes, as of when it was taken.
async fn metrics_count_live_orders_per_scrape_and_ended_ones_from_the_tally(backend: Backend) {
    let Some(app) = spawn_app_with(backend, &[("STOREFRONT_METRICS_TOKEN", METRICS_TOKEN)]).await
    else {
        return;
    };
    let scrape = || async {
        app.client
            .get(app.url("/metrics"))
            .bearer_auth(METRICS_TOKEN)
            .send()
            .await
            .expect("metrics")
            .text()
            .await
            .expect("body")
    };
    // A fresh shop's first tally is taken at start.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !scrape()
        .await
        .contains("storefront_tally_timestamp_seconds ")
    {
        assert!(
            std::time::Instant::now() < deadline,
            "no tally within 10 s: {}",
            scrape().await
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let now = storefront::db::now_ms();
    crate::admin::insert_purchase(
        &app.db,
        "metr0000000000000001",
        "a@example.com",
        "paid",
        now,
    )
    .await;
    crate::admin::insert_purchase(
        &app.db,
        "metr0000000000000002",
        "b@example.com",
        "fulfilled",
        now,
    )
    .await;
    let paid = "storefront_purchases{status=\"paid\"}";
    let fulfilled = "storefront_purchases{status=\"fulfilled\"}";
    let refunded = "storefront_purchases{status=\"refunded\"}";
    assert_eq!(app.metric(METRICS_TOKEN, paid).await, 1, "counted live");
    assert_eq!(
        app.metric(METRICS_TOKEN, fulfilled).await,
        0,
        "ended orders are as of the tally, taken before this one"
    );
    assert_eq!(app.metric(METRICS_TOKEN, refunded).await, 0);
    assert_eq!(
        app.metric(METRICS_TOKEN, "storefront_outbox_jobs{state=\"done\"}")
            .await,
        0
    );
    let later = now + 1_000;
    app.db
        .run(move |conn| storefront::db::metrics::tally(conn, later))
        .await
        .expect("tally");
    assert_eq!(app.metric(METRICS_TOKEN, fulfilled).await, 1);
    assert_eq!(app.metric(METRICS_TOKEN, paid).await, 1);
    assert_eq!(
        app.metric(METRICS_TOKEN, "storefront_tally_timestamp_seconds")
            .await,
        u64::try_from(later / 1000).expect("positive")
    );
}

/// What a competitor probing the shop sees of `/metrics`: nothing without the token.
#[tokio::test]
async fn metrics_need_the_bearer_token_and_are_off_without_one() {
    let app = spawn_app_with(
        Backend::Sqlite,
        &[("STOREFRONT_METRICS_TOKEN", METRICS_TOKEN)],
    )
    .await
    .expect("sqlite");
    let scrape = |auth: Option<String>| {
        let mut req = app.client.get(app.url("/metrics"));
        if let Some(value) = auth {
            req = req.header("authorization", value);
        }
        req.send()
    };
    let wrong = [
        None,
        Some("Bearer not-the-token".to_string()),
        Some(format!(
            "Bearer {}",
            &METRICS_TOKEN[..METRICS_TOKEN.len() - 1]
        )),
        Some(format!("Bearer {METRICS_TOKEN}x")),
        Some(format!("Basic {METRICS_TOKEN}")),
        Some(METRICS_TOKEN.to_string()),
    ];
    for auth in wrong {
        let res = scrape(auth.clone()).await.expect("metrics");
        assert_eq!(res.status(), 401, "{auth:?}");
        assert_eq!(
            res.headers()["www-authenticate"],
            "Bearer realm=\"metrics\""
        );
        let body = res.text().await.expect("body");
        assert!(!body.contains("storefront_"), "{auth:?}: {body}");
    }
    // The scheme is case-insensitive (RFC 7235).
    let res = scrape(Some(format!("bearer {METRICS_TOKEN}")))
        .await
        .expect("metrics");
    assert_eq!(res.status(), 200);
    assert!(
        res.text()
            .await
            .expect("body")
            .contains("storefront_alerts_open")
    );

    // Without a token configured the endpoint does not exist, whatever the request carries.
    let off = spawn_app(Backend::Sqlite).await.expect("sqlite");
    for auth in [None, Some(format!("Bearer {METRICS_TOKEN}"))] {
        let mut req = off.client.get(off.url("/metrics"));
        if let Some(value) = &auth {
            req = req.header("authorization", value);
        }
        let res = req.send().await.expect("metrics");
        assert_eq!(res.status(), 404, "{auth:?}");
        assert!(
            !res.text()
                .await
                .expect("body")
                .contains("storefront_wallet")
        );
    }
}

/// Compression pays from about a kilobyte: a tiny answer such as `/healthz` goes as it is even
/// to a client that takes gzip; a page of several kilobytes is compressed.
#[tokio::test]
async fn tiny_answers_are_not_compressed_and_pages_are() {
    let Some(app) = spawn_app(Backend::Sqlite).await else {
        return;
    };
    let gzip_get = |path: &str| {
        app.client
            .get(app.url(path))
            .header("accept-encoding", "gzip")
            .send()
    };
    let health = gzip_get("/healthz").await.expect("healthz");
    assert_eq!(health.status(), 200);
    assert_ne!(
        health
            .headers()
            .get("content-encoding")
            .map(|v| v.as_bytes()),
        Some(&b"gzip"[..]),
        "a 3-byte body is not worth a compressor"
    );
    assert_eq!(health.text().await.expect("body"), "ok\n");
    let help = gzip_get("/help/installation").await.expect("help");
    assert_eq!(help.status(), 200);
    assert_eq!(help.headers()["content-encoding"], "gzip");
}
