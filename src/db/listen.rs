//! A PostgreSQL `LISTEN` on a connection of its own, so a process learns at once about work
//! other replicas committed.
//!
//! The connection is not taken from the pool: it is held for the life of the process and
//! would starve requests, and a pooled connection may be handed to someone else between two
//! reads. It lives on a dedicated thread because diesel's connection is synchronous. Reading
//! it costs no round trip: [`PgConnection::notifications_iter`] only takes what the socket
//! already holds (`PQconsumeInput`, `PQnotifies`) and never blocks, so the thread reads every
//! [`TICK`] and sleeps in between. A `SELECT 1` every [`LIVENESS`] notices a connection the
//! server dropped without a word; a lost or refused connection is retried with a doubling
//! delay up to [`MAX_BACKOFF`]. Whatever happens here only delays a wake-up: the workers poll
//! anyway.

use std::thread;
use std::time::{Duration, Instant};

use diesel::connection::SimpleConnection;
use diesel::{Connection, PgConnection};
use tokio::sync::{oneshot, watch};
use tokio::task::JoinHandle;

use crate::domain::secret::Secret;

/// How often the socket is read for notifications.
pub const TICK: Duration = Duration::from_millis(50);
/// How often the connection is checked with a query.
pub const LIVENESS: Duration = Duration::from_secs(30);
/// The first delay before reconnecting; it doubles per failure in a row.
pub const FIRST_BACKOFF: Duration = Duration::from_millis(250);
/// The longest delay between reconnection attempts.
pub const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// How the listener shows up in `pg_stat_activity`.
pub const APPLICATION_NAME: &str = "storefront listener";

/// Listens on `channels` of the PostgreSQL database at `url` until `shutdown` turns true.
/// `on_wake` runs with the channel's name once per notification received, and for every
/// channel after each (re)connection, since whatever was sent while nobody listened is lost.
/// The returned handle finishes when the listener has stopped (within one [`TICK`], unless
/// it is busy connecting).
pub fn spawn(
    url: Secret<String>,
    channels: &'static [&'static str],
    on_wake: impl Fn(&str) + Send + 'static,
    shutdown: watch::Receiver<bool>,
) -> JoinHandle<()> {
    let (done, finished) = oneshot::channel::<()>();
    let channel = channels.join(",");
    let spawned = thread::Builder::new()
        .name("listen".to_string())
        .spawn(move || {
            run(&url, channels, &on_wake, &shutdown);
            let _ = done.send(());
        });
    if let Err(err) = spawned {
        tracing::warn!(error = %err, channels = %channel, "cannot start the listener thread; polling only");
    }
    // Resolves when the thread ends (or at once if it never started).
    tokio::spawn(async move {
        let _ = finished.await;
    })
}

/// Why a listening session ended.
enum Ended {
    Shutdown,
    Lost(String),
}

fn run(
    url: &Secret<String>,
    channels: &[&str],
    on_wake: &dyn Fn(&str),
    shutdown: &watch::Receiver<bool>,
) {
    let stopping = || *shutdown.borrow();
    let channel = channels.join(",");
    let mut failures: u32 = 0;
    while !stopping() {
        match connect(url, channels) {
            Ok(mut conn) => {
                if failures > 0 {
                    tracing::info!(channels = %channel, "listening again for other replicas' work");
                } else {
                    tracing::debug!(channels = %channel, "listening for other replicas' work");
                }
                failures = 0;
                for name in channels {
                    on_wake(name);
                }
                match listen(&mut conn, on_wake, &stopping) {
                    Ended::Shutdown => return,
                    Ended::Lost(reason) => tracing::warn!(
                        channels = %channel,
                        error = %reason,
                        "lost the listening connection; reconnecting (workers poll meanwhile)"
                    ),
                }
            }
            Err(reason) => tracing::warn!(
                channels = %channel,
                error = %reason,
                "cannot open the listening connection; retrying (workers poll meanwhile)"
            ),
        }
        failures = failures.saturating_add(1);
        sleep_unless(backoff(failures), &stopping);
    }
}

fn connect(url: &Secret<String>, channels: &[&str]) -> Result<PgConnection, String> {
    let mut conn = PgConnection::establish(url.expose()).map_err(|e| e.to_string())?;
    // The channels are ours, constant identifiers: nothing to quote.
    let listens: String = channels.iter().map(|c| format!("; LISTEN {c}")).collect();
    conn.batch_execute(&format!(
        "SET application_name = '{APPLICATION_NAME}'{listens}"
    ))
    .map_err(|e| e.to_string())?;
    Ok(conn)
}

fn listen(conn: &mut PgConnection, on_wake: &dyn Fn(&str), stopping: &dyn Fn() -> bool) -> Ended {
    let mut checked = Instant::now();
    loop {
        if stopping() {
            return Ended::Shutdown;
        }
        for received in conn.notifications_iter() {
            match received {
                Ok(notification) => on_wake(&notification.channel),
                Err(err) => return Ended::Lost(err.to_string()),
            }
        }
        if checked.elapsed() >= LIVENESS {
            if let Err(err) = conn.batch_execute("SELECT 1") {
                return Ended::Lost(err.to_string());
            }
            checked = Instant::now();
        }
        thread::sleep(TICK);
    }
}

/// The delay after `failures` failures in a row.
fn backoff(failures: u32) -> Duration {
    let doublings = failures.saturating_sub(1).min(16);
    FIRST_BACKOFF
        .saturating_mul(1 << doublings)
        .min(MAX_BACKOFF)
}

/// Sleeps for `total`, in [`TICK`]s, returning early when `stopping` turns true.
fn sleep_unless(total: Duration, stopping: &dyn Fn() -> bool) {
    let until = Instant::now() + total;
    while !stopping() {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return;
        }
        thread::sleep(left.min(TICK));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_from_the_first_delay_up_to_the_cap() {
        assert_eq!(backoff(1), FIRST_BACKOFF);
        assert_eq!(backoff(2), FIRST_BACKOFF * 2);
        assert_eq!(backoff(3), FIRST_BACKOFF * 4);
        assert_eq!(backoff(40), MAX_BACKOFF);
        assert_eq!(backoff(u32::MAX), MAX_BACKOFF);
    }
}
