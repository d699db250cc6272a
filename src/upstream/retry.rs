//! Timing rules of the client: the exponential backoff between GET attempts and the
//! `Retry-After` gate that holds back every request of the API key after a 429.
//!
//! The gate is per key, not per request, because the spec's rate limit is: after a 429 nothing
//! at all may go upstream before the named time. It lives behind the client's `Arc`, so every
//! clone shares it. It keeps a wall-clock copy of the opening time for the outbox to persist.

use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

use rand::Rng;

use super::error::{Class, ErrorKind, UpstreamError};

/// Exponential backoff with "equal jitter": attempt `n` waits a random time in
/// `[ceiling(n) / 2, ceiling(n)]`, where `ceiling(n) = min(cap, base * 2^n)`. The lower half is
/// fixed so retries really spread out; the random half keeps replicas from retrying in step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backoff {
    pub base: Duration,
    pub cap: Duration,
}

impl Backoff {
    /// The largest wait before retry number `attempt` (0 = the first retry).
    pub fn ceiling(&self, attempt: u32) -> Duration {
        let factor = 1u32.checked_shl(attempt.min(31)).unwrap_or(u32::MAX);
        self.base.saturating_mul(factor).min(self.cap)
    }

    pub fn delay(&self, attempt: u32, rng: &mut impl Rng) -> Duration {
        let ceiling = self.ceiling(attempt);
        let floor = ceiling / 2;
        let spread = u64::try_from((ceiling - floor).as_millis()).unwrap_or(u64::MAX);
        floor + Duration::from_millis(rng.random_range(0..=spread))
    }
}

/// The shared `Retry-After` gate.
#[derive(Debug, Default)]
pub struct RateGate {
    closed_until: Mutex<Option<(Instant, SystemTime)>>,
}

impl RateGate {
    /// Closes the gate for `wait` from now; never shortens an existing closure (two 429s
    /// answered out of order must not reopen the gate early).
    pub fn close_for(&self, wait: Duration) {
        let now = Instant::now();
        let Some(until) = now.checked_add(wait) else {
            return;
        };
        let wall = SystemTime::now()
            .checked_add(wait)
            .unwrap_or_else(SystemTime::now);
        let mut slot = self.lock();
        match *slot {
            Some((existing, _)) if existing >= until => {}
            _ => *slot = Some((until, wall)),
        }
    }

    /// How long until the gate opens; `None` when it is open.
    pub fn remaining(&self) -> Option<Duration> {
        let now = Instant::now();
        let mut slot = self.lock();
        match *slot {
            Some((until, _)) if until > now => Some(until - now),
            Some(_) => {
                *slot = None;
                None
            }
            None => None,
        }
    }

    /// Closes the gate until the wall-clock time `until` (a closure another replica shared);
    /// a time already past changes nothing.
    pub fn close_until(&self, until: SystemTime) {
        if let Ok(wait) = until.duration_since(SystemTime::now()) {
            self.close_for(wait);
        }
    }

    /// The wall-clock time the gate opens, `None` when open: what the outbox persists.
    pub fn opens_at(&self) -> Option<SystemTime> {
        self.remaining()?;
        self.lock().map(|(_, wall)| wall)
    }

    /// Closes the gate when `result` is a 429 from upstream. Every attempt's result passes
    /// through here, GET or POST.
    pub fn observe<T>(&self, result: &Result<T, UpstreamError>) {
        if let Err(error) = result
            && error.kind() == ErrorKind::RateLimited
            && let Some(wait) = error.retry_after()
        {
            self.close_for(wait);
        }
    }

    /// Waits until the gate is open, or fails at once with `RetryAfter` when that would take
    /// longer than `max_wait`. Re-checked after each sleep: another request may have met a
    /// new 429 meanwhile.
    pub async fn wait(&self, max_wait: Duration) -> Result<(), UpstreamError> {
        while let Some(wait) = self.remaining() {
            if wait > max_wait {
                return Err(gate_closed(wait));
            }
            tokio::time::sleep(wait).await;
        }
        Ok(())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<(Instant, SystemTime)>> {
        // The guarded value is a plain timestamp that is always valid, so a panic elsewhere
        // while holding the lock cannot leave it inconsistent.
        self.closed_until
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Where the processes of one shop share the `Retry-After` gate (the database). A 429 is a
/// fact about the API key, so every replica and every path must hold back, not only the one
/// that met it: the client reads the shared closure before each request and publishes each
/// 429 it meets. Both are best effort: a store that cannot be reached leaves the client with
/// its own process's gate.
pub trait SharedGate: Send + Sync {
    /// When the shared gate opens, if it is closed now.
    fn opens_at(&self) -> GateFuture<'_, Option<SystemTime>>;
    /// Closes the shared gate until `until`, never shortening a longer closure.
    fn close_until(&self, until: SystemTime) -> GateFuture<'_, ()>;
}

/// What [`SharedGate`]'s methods return.
pub type GateFuture<'a, T> = std::pin::Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The error of a request held back by the gate: nothing was sent.
pub(crate) fn gate_closed(wait: Duration) -> UpstreamError {
    UpstreamError::new(
        ErrorKind::GateClosed,
        Class::RetryAfter(wait),
        format!(
            "not sent: rate-limited by an earlier 429 for another {} ms",
            wait.as_millis()
        ),
    )
}

/// How GETs are retried (POSTs never are).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GetRetry {
    /// Attempts including the first; at least 1.
    pub max_attempts: u32,
    pub backoff: Backoff,
    /// Longest wait for the gate; a longer `Retry-After` is returned to the caller instead.
    pub max_gate_wait: Duration,
}

/// Runs `attempt` until it succeeds, fails `Definitive`ly, names a `Retry-After` longer than
/// the caller should wait, or `max_attempts` is used up; the last error is returned as it was.
/// Every attempt first waits for the gate. `attempt` is expected to feed its result to
/// [`RateGate::observe`] (the client's `send_once` does).
pub(crate) async fn retry_get<T, F, Fut>(
    policy: GetRetry,
    gate: &RateGate,
    mut attempt: F,
) -> Result<T, UpstreamError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, UpstreamError>>,
{
    let mut made = 0;
    loop {
        gate.wait(policy.max_gate_wait).await?;
        let error = match attempt().await {
            Ok(value) => return Ok(value),
            Err(error) => error,
        };
        made += 1;
        let give_up = match error.class() {
            Class::Definitive => true,
            Class::RetryAfter(wait) => wait > policy.max_gate_wait,
            Class::Unknown => false,
        };
        if give_up || made >= policy.max_attempts {
            return Err(error);
        }
        // Drawn in its own statement: the thread-local RNG must not live across the await,
        // or the request future stops being `Send`.
        let delay = policy.backoff.delay(made - 1, &mut rand::rng());
        tokio::time::sleep(delay).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    const BACKOFF: Backoff = Backoff {
        base: Duration::from_millis(200),
        cap: Duration::from_secs(5),
    };

    #[test]
    fn ceiling_doubles_then_caps() {
        assert_eq!(BACKOFF.ceiling(0), Duration::from_millis(200));
        assert_eq!(BACKOFF.ceiling(1), Duration::from_millis(400));
        assert_eq!(BACKOFF.ceiling(4), Duration::from_millis(3200));
        assert_eq!(BACKOFF.ceiling(5), Duration::from_secs(5));
        assert_eq!(BACKOFF.ceiling(u32::MAX), Duration::from_secs(5));
    }

    #[test]
    fn jitter_actually_varies() {
        let mut rng = StdRng::seed_from_u64(7);
        let delays: std::collections::HashSet<_> =
            (0..20).map(|_| BACKOFF.delay(6, &mut rng)).collect();
        assert!(delays.len() > 1);
    }

    proptest! {
        #[test]
        fn ceiling_is_monotone_and_capped(a in 0u32..200, b in 0u32..200) {
            let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
            prop_assert!(BACKOFF.ceiling(lo) <= BACKOFF.ceiling(hi));
            prop_assert!(BACKOFF.ceiling(hi) <= BACKOFF.cap);
        }

        #[test]
        fn delay_stays_within_its_jitter_range(attempt in 0u32..100, seed in any::<u64>()) {
            let mut rng = StdRng::seed_from_u64(seed);
            let d = BACKOFF.delay(attempt, &mut rng);
            let ceiling = BACKOFF.ceiling(attempt);
            prop_assert!(d >= ceiling / 2, "{d:?} below half of {ceiling:?}");
            prop_assert!(d <= ceiling, "{d:?} above {ceiling:?}");
        }
    }

    #[test]
    fn gate_is_open_until_closed_and_reopens() {
        let gate = RateGate::default();
        assert_eq!(gate.remaining(), None);
        assert_eq!(gate.opens_at(), None);
        gate.close_for(Duration::from_millis(30));
        assert!(gate.remaining().is_some());
        let opens = gate.opens_at().expect("closed");
        assert!(opens > SystemTime::now());
        std::thread::sleep(Duration::from_millis(40));
        assert_eq!(gate.remaining(), None);
        assert_eq!(gate.opens_at(), None);
    }

    fn retry_policy(max_attempts: u32) -> GetRetry {
        GetRetry {
            max_attempts,
            backoff: Backoff {
                base: Duration::from_millis(1),
                cap: Duration::from_millis(4),
            },
            max_gate_wait: Duration::from_millis(200),
        }
    }

    fn failure(status: u16, retry_after: Option<&str>) -> UpstreamError {
        let mut headers = reqwest::header::HeaderMap::new();
        if let Some(value) = retry_after {
            headers.insert(
                reqwest::header::RETRY_AFTER,
                reqwest::header::HeaderValue::from_str(value).expect("header"),
            );
        }
        let raw = super::super::error::RawResponse {
            status: reqwest::StatusCode::from_u16(status).expect("status"),
            headers,
            body: Vec::new(),
        };
        super::super::error::classify_failure(&raw, SystemTime::now())
    }

    /// Runs `retry_get` over a scripted list of outcomes; returns the result and the count.
    async fn scripted(
        policy: GetRetry,
        gate: &RateGate,
        outcomes: Vec<Result<u32, UpstreamError>>,
    ) -> (Result<u32, UpstreamError>, usize) {
        let calls = std::cell::Cell::new(0usize);
        let result = retry_get(policy, gate, || {
            let n = calls.get();
            calls.set(n + 1);
            let outcome = outcomes
                .get(n)
                .cloned()
                .unwrap_or_else(|| Err(failure(599, None)));
            gate.observe(&outcome);
            async move { outcome }
        })
        .await;
        (result, calls.get())
    }

    #[tokio::test]
    async fn unknown_is_retried_until_success() {
        let gate = RateGate::default();
        let (result, calls) = scripted(
            retry_policy(3),
            &gate,
            vec![Err(failure(503, None)), Err(failure(502, None)), Ok(7)],
        )
        .await;
        assert_eq!(result.ok(), Some(7));
        assert_eq!(calls, 3);
    }

    #[tokio::test]
    async fn attempts_are_capped_and_the_last_error_returned() {
        let gate = RateGate::default();
        let (result, calls) = scripted(
            retry_policy(2),
            &gate,
            vec![Err(failure(500, None)), Err(failure(503, None)), Ok(1)],
        )
        .await;
        assert_eq!(calls, 2);
        assert_eq!(
            result.expect_err("capped").status().map(|s| s.as_u16()),
            Some(503)
        );
    }

    #[tokio::test]
    async fn definitive_is_not_retried() {
        let gate = RateGate::default();
        let (result, calls) =
            scripted(retry_policy(5), &gate, vec![Err(failure(404, None)), Ok(1)]).await;
        assert_eq!(calls, 1);
        assert!(result.expect_err("404").is_definitive());
    }

    #[tokio::test]
    async fn a_429_closes_the_gate_and_the_retry_waits_for_it() {
        let gate = RateGate::default();
        let started = Instant::now();
        let (result, calls) = scripted(
            retry_policy(3),
            &gate,
            vec![Err(failure(429, Some("0"))), Ok(5)],
        )
        .await;
        assert_eq!((result.ok(), calls), (Some(5), 2));
        assert!(started.elapsed() < Duration::from_secs(1));
    }

    #[tokio::test]
    async fn a_long_retry_after_is_returned_not_waited_for() {
        let gate = RateGate::default();
        let (result, calls) = scripted(
            retry_policy(3),
            &gate,
            vec![Err(failure(429, Some("120"))), Ok(5)],
        )
        .await;
        assert_eq!(calls, 1);
        let err = result.expect_err("429");
        assert_eq!(err.kind(), ErrorKind::RateLimited);
        assert_eq!(err.class(), Class::RetryAfter(Duration::from_secs(120)));
        assert!(gate.remaining().expect("closed") > Duration::from_secs(100));
        // The next call does not send at all while the gate is closed.
        let (result, calls) = scripted(retry_policy(3), &gate, vec![Ok(1)]).await;
        assert_eq!(calls, 0);
        assert_eq!(result.expect_err("gate").kind(), ErrorKind::GateClosed);
    }

    #[tokio::test]
    async fn a_short_gate_is_waited_out() {
        let gate = RateGate::default();
        gate.close_for(Duration::from_millis(50));
        let started = Instant::now();
        let (result, calls) = scripted(retry_policy(1), &gate, vec![Ok(3)]).await;
        assert_eq!((result.ok(), calls), (Some(3), 1));
        assert!(started.elapsed() >= Duration::from_millis(45));
    }

    #[test]
    fn gate_is_never_shortened() {
        let gate = RateGate::default();
        gate.close_for(Duration::from_secs(60));
        gate.close_for(Duration::from_secs(1));
        assert!(gate.remaining().expect("closed") > Duration::from_secs(50));
        gate.close_for(Duration::from_secs(120));
        assert!(gate.remaining().expect("closed") > Duration::from_secs(100));
    }
}
