//! What a test does when the PostgreSQL server or the browser it needs is missing on this
//! machine.
//!
//! It fails, loudly: a run that looks green while the PostgreSQL variants or the browser
//! journeys did not run would mislead. A developer without them opts out knowingly with
//! `STOREFRONT_TEST_SKIP=postgres,browser` (either or both); each test skipped then says so on
//! the terminal with the number skipped so far, written to standard error directly, because
//! libtest captures `eprintln!` in a passing test. Under `CI=true` the variable is ignored:
//! CI never skips.

use std::collections::BTreeSet;
use std::io::Write;
use std::process::Command;
use std::sync::{Mutex, PoisonError};

/// The variable listing what a developer's run may skip.
pub const SKIP_VAR: &str = "STOREFRONT_TEST_SKIP";

/// What a test needs beyond the Rust toolchain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needed {
    Postgres,
    Browser,
}

impl Needed {
    fn name(self) -> &'static str {
        match self {
            Self::Postgres => "postgres",
            Self::Browser => "browser",
        }
    }
}

fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// Whether this run may skip the tests needing `needed`.
fn opted_out(needed: Needed) -> bool {
    !under_ci()
        && std::env::var(SKIP_VAR).is_ok_and(|list| {
            list.split(',')
                .any(|item| item.trim().eq_ignore_ascii_case(needed.name()))
        })
}

/// Called when `needed` is missing (`why` says what was looked for). Fails the test unless
/// the run opted out of `needed`; then reports the skip and returns, and the caller's test
/// returns early.
pub fn missing(needed: Needed, why: &str) {
    let name = needed.name();
    if !opted_out(needed) {
        if under_ci() {
            panic!("{why}: these tests must run under CI=true ({SKIP_VAR} is ignored there)");
        }
        panic!(
            "{why}: these tests cannot run; install it, or set {SKIP_VAR}={name} to skip them knowingly"
        );
    }
    static SKIPPED: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());
    let test = std::thread::current()
        .name()
        .unwrap_or("a test")
        .to_string();
    let count = {
        let mut skipped = SKIPPED.lock().unwrap_or_else(PoisonError::into_inner);
        skipped.insert(test.clone());
        skipped.len()
    };
    let _ = writeln!(
        std::io::stderr().lock(),
        "SKIPPED {test} ({SKIP_VAR}={name}): {why}; {count} test(s) skipped so far"
    );
}

/// Runs one browser test of this binary in a child process with no browser on `PATH`.
fn browser_test_without_a_browser(env: &[(&str, &str)]) -> std::process::Output {
    let mut cmd = Command::new(std::env::current_exe().expect("this test binary"));
    cmd.args([
        "--exact",
        "browser::an_owner_reprices_tops_up_and_refunds_in_a_browser",
        "--test-threads=1",
    ])
    .env("PATH", "/nonexistent")
    .env_remove("CI")
    .env_remove(SKIP_VAR);
    for (key, value) in env {
        cmd.env(key, value);
    }
    cmd.output().expect("run the test binary")
}

#[test]
fn a_missing_browser_fails_its_tests_unless_the_developer_opts_out_and_never_under_ci() {
    let out = browser_test_without_a_browser(&[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        !out.status.success(),
        "a missing browser is a failure: {stdout}"
    );
    assert!(
        stdout.contains("STOREFRONT_TEST_SKIP=browser"),
        "the failure says how to opt out: {stdout}"
    );

    let out = browser_test_without_a_browser(&[(SKIP_VAR, "postgres, browser")]);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{stdout}{stderr}");
    assert!(
        stderr.contains(
            "SKIPPED browser::an_owner_reprices_tops_up_and_refunds_in_a_browser \
             (STOREFRONT_TEST_SKIP=browser)"
        ) && stderr.contains("1 test(s) skipped so far"),
        "the skip is on the terminal, not captured: {stderr}"
    );

    let out = browser_test_without_a_browser(&[(SKIP_VAR, "browser"), ("CI", "true")]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "CI never skips: {stdout}");
    assert!(stdout.contains("must run under CI=true"), "{stdout}");
}
