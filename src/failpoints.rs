//! Named fail points at the outbox's crash boundaries, for crash tests (docs/failpoints.md).
//!
//! Built only with `--features failpoints` (the `fail` crate); without it [`failpoint!`]
//! expands to nothing and `fail` is not compiled. `storefront serve` arms them at start from
//! `STOREFRONT_FAILPOINTS`, `name=actions` pairs separated by `;`, in the `fail` crate's action
//! syntax:
//!
//! ```text
//! STOREFRONT_FAILPOINTS="after-claim=1*return"
//! STOREFRONT_FAILPOINTS="before-send=sleep(2000);after-result-commit=50%return"
//! ```
//!
//! `return` kills the process on the spot with SIGKILL, sent by the thread that reached the
//! point to its own process: no destructor, flush, shutdown or commit runs, and no other
//! thread gets to move the purchase on between the point and the death (see [`crash`]);
//! `sleep(ms)`, `panic`,
//! `print(msg)`, `pause`, `yield`, `delay(ms)`, `off` and the `N*` / `P%` / `->` modifiers
//! behave as the `fail` crate documents. A panic inside a request or a job is caught by the
//! runtime, so it does not crash the shop: use `return` for that.

/// Every fail point, in the order a purchase meets them.
pub const NAMES: [&str; 6] = [
    AFTER_PAYMENT_COMMIT,
    AFTER_CLAIM,
    BEFORE_SEND,
    AFTER_SEND_BEFORE_COMMIT,
    AFTER_RESULT_COMMIT,
    AFTER_INSTALLATION_FETCH,
];

/// The transaction marking a purchase paid and queueing `place_order` has committed.
pub const AFTER_PAYMENT_COMMIT: &str = "after-payment-commit";
/// An outbox job has been claimed (its lease committed), before it runs.
pub const AFTER_CLAIM: &str = "after-claim";
/// Just before `POST /orders` is sent.
pub const BEFORE_SEND: &str = "before-send";
/// A job's upstream calls have answered; its outcome's transaction has not started.
pub const AFTER_SEND_BEFORE_COMMIT: &str = "after-send-before-commit";
/// A job's outcome has been committed.
pub const AFTER_RESULT_COMMIT: &str = "after-result-commit";
/// `GET /esims/{id}/installation` has answered; the installation is not stored yet.
pub const AFTER_INSTALLATION_FETCH: &str = "after-installation-fetch";

/// The variable `storefront serve` reads at start.
pub const VAR: &str = "STOREFRONT_FAILPOINTS";

/// Marks a fail point: `failpoint!(crate::failpoints::AFTER_CLAIM)`. Does nothing unless built
/// with `--features failpoints` and armed through [`VAR`].
#[cfg(feature = "failpoints")]
macro_rules! failpoint {
    ($name:expr) => {{
        let _ = ::fail::eval($name, |_| $crate::failpoints::crash($name));
    }};
}

/// Marks a fail point (the `failpoints` feature is off: nothing).
#[cfg(not(feature = "failpoints"))]
macro_rules! failpoint {
    ($name:expr) => {{}};
}

pub(crate) use failpoint;

/// The `return` action: one line on stderr naming the point, then SIGKILL to this process.
///
/// The signal is sent from the thread standing at the point, so that thread never runs
/// another instruction of the job, and the kernel interrupts every other thread of the
/// process at once (microseconds, not the milliseconds a watching test would take to react),
/// so no worker, request or lease renewal gets anything done in between. (Blocking
/// the thread and leaving the kill to the test would not do: until the test reacts, an idle
/// worker's poll could claim and send the very order whose crash is being simulated.) SIGKILL
/// rather than `abort` because it is what an OOM kill, `docker kill` or a lost machine does:
/// no signal handler, no core file. `abort` remains as a fallback should the signal fail.
#[cfg(feature = "failpoints")]
pub fn crash(name: &str) {
    use rustix::process::{Signal, getpid, kill_process};
    // Standard error is unbuffered: the line is written before the signal.
    eprintln!("failpoint {name}: reached, killing the process (SIGKILL)");
    let _ = kill_process(getpid(), Signal::KILL);
    std::process::abort()
}

/// Splits `STOREFRONT_FAILPOINTS` into `(name, actions)` pairs; an unknown name or a pair
/// without `=` is refused so a typo cannot disarm a crash test silently.
pub fn parse(spec: &str) -> Result<Vec<(&str, &str)>, String> {
    let mut pairs = Vec::new();
    for pair in spec.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        let Some((name, actions)) = pair.split_once('=') else {
            return Err(format!("{pair:?} is not name=actions"));
        };
        let name = name.trim();
        if !NAMES.contains(&name) {
            return Err(format!(
                "unknown fail point {name:?}; known: {}",
                NAMES.join(", ")
            ));
        }
        pairs.push((name, actions.trim()));
    }
    Ok(pairs)
}

/// Arms the fail points named in `spec` (the value of [`VAR`]). Returns the names armed.
#[cfg(feature = "failpoints")]
pub fn configure(spec: &str) -> Result<Vec<String>, String> {
    let mut armed = Vec::new();
    for (name, actions) in parse(spec)? {
        fail::cfg(name, actions).map_err(|e| format!("{name}={actions}: {e}"))?;
        armed.push(name.to_string());
    }
    Ok(armed)
}

/// Without the feature nothing can be armed: a set variable is refused rather than ignored,
/// so a crash test run against the wrong build fails loudly.
#[cfg(not(feature = "failpoints"))]
pub fn configure(spec: &str) -> Result<Vec<String>, String> {
    parse(spec)?;
    Err("this build has no fail points: rebuild with `--features failpoints`".to_string())
}

/// Arms the fail points from the environment, if [`VAR`] is set and not empty.
pub fn configure_from_env() -> Result<Vec<String>, String> {
    match std::env::var(VAR) {
        Ok(spec) if !spec.trim().is_empty() => configure(&spec),
        Ok(_) | Err(std::env::VarError::NotPresent) => Ok(Vec::new()),
        Err(std::env::VarError::NotUnicode(_)) => Err("not valid UTF-8".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_split_on_semicolons_and_unknown_names_are_refused() {
        assert_eq!(
            parse(" after-claim=1*return ; before-send=sleep(10);").expect("parses"),
            vec![("after-claim", "1*return"), ("before-send", "sleep(10)")]
        );
        assert_eq!(parse("").expect("empty"), Vec::<(&str, &str)>::new());
        assert!(parse("after-claim").is_err());
        assert!(parse("after-clam=return").is_err());
    }

    #[cfg(not(feature = "failpoints"))]
    #[test]
    fn without_the_feature_arming_is_refused() {
        assert!(configure("after-claim=return").is_err());
    }

    #[cfg(feature = "failpoints")]
    #[test]
    fn with_the_feature_bad_actions_are_refused() {
        assert!(configure("after-result-commit=explode").is_err());
        assert_eq!(
            configure("after-result-commit=off").expect("armed"),
            vec!["after-result-commit".to_string()]
        );
    }
}
