//! The upstream `Retry-After` gate is shared by every process of a shop through the database:
//! after one process meets a 429, another process's client (its own connection pool and its
//! own in-memory gate, as on another replica) sends nothing upstream until the gate opens.

use std::time::{Duration, Instant};

use storefront::config::Secret;
use storefront::db::outbox::upstream_gate_opens_at;
use storefront::db::{Db, now_ms};
use storefront::orders::upstream_gate::SharedUpstreamGate;
use storefront::sandbox::{self, Fault, SandboxConfig};
use storefront::upstream::{ErrorKind, PartnerClient, UpstreamClientConfig};
use url::Url;

use crate::both_backends;
use crate::helpers::{Backend, TestDb};

const KEY: &str = "sbx_shared_gate_it_key_01";

fn client(base_url: &str, db: Option<&Db>, name: &str) -> PartnerClient {
    let mut config = UpstreamClientConfig::new(
        Url::parse(base_url).expect("sandbox base URL"),
        Secret::new(KEY.to_string()),
    );
    config.max_get_attempts = 1;
    config.request_timeout = Duration::from_secs(5);
    let client = PartnerClient::new(config).expect("client builds");
    if let Some(db) = db {
        client.share_gate(std::sync::Arc::new(SharedUpstreamGate::new(
            db.clone(),
            name,
        )));
    }
    client
}

async fn a_429_met_by_one_process_holds_back_another(backend: Backend) {
    let Some(test_db) = TestDb::new(backend) else {
        return;
    };
    let db = test_db.migrated().await;
    // A second pool on the same database: another replica's view of it.
    let other_db = test_db.open();
    let handle = sandbox::spawn(SandboxConfig::new(KEY))
        .await
        .expect("sandbox binds");
    let first = client(&handle.base_url, Some(&db), "replica-a");
    let second = client(&handle.base_url, Some(&other_db), "replica-b");

    second
        .balance()
        .await
        .expect("nothing limits before the burst");
    handle.sandbox.inject(Fault::RateLimitBurst {
        count: 1,
        retry_after_secs: 30,
    });
    let err = first.balance().await.expect_err("the 429");
    assert_eq!(err.kind(), ErrorKind::RateLimited);

    // The closure reaches the database a moment after the answer (bounded wait).
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let shared = db
            .run(|conn| upstream_gate_opens_at(conn, now_ms()))
            .await
            .expect("read the gate");
        if shared.is_some_and(|at| at >= now_ms() + 25_000) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the 429 never reached the database"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    let before = handle.sandbox.stats().api_requests;
    let err = second.balance().await.expect_err("held back");
    assert_eq!(err.kind(), ErrorKind::GateClosed, "{err}");
    assert!(
        second.gate_opens_at().is_some(),
        "the other process's own gate is closed now too"
    );
    assert_eq!(
        handle.sandbox.stats().api_requests,
        before,
        "nothing reached upstream inside the Retry-After window"
    );

    assert_eq!(handle.sandbox.stats().requests_inside_retry_after, 0);

    // The sandbox itself is not limiting any more: a client that shares no gate goes through,
    // so what held the second one back was the shared gate.
    client(&handle.base_url, None, "loner")
        .balance()
        .await
        .expect("the burst was one answer");
}

both_backends!(a_429_met_by_one_process_holds_back_another);
