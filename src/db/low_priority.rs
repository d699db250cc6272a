//! The threads background work runs its database closures on: a few of this process's own,
//! at a lower CPU priority than the threads serving requests.
//!
//! The write gate ([`super::write_gate`]) puts background writers last at SQLite's lock, but
//! most of background work's time is CPU, not the lock: reconciling three years of the books'
//! days after an upgrade, or claiming and dropping a backlog of late reminders, keeps a core
//! busy for minutes. On tokio's blocking pool that work would share the cores equally with
//! the requests' queries, and every console page would take half as long again. Here it runs
//! on [`THREADS`] threads at nice [`NICE`] (Linux gives each thread its own nice value), so
//! the scheduler hands a core to a request's thread whenever one wants it, and the background
//! work gets what is left: about a tenth of a core while requests keep it busy.
//!
//! On PostgreSQL the nice value covers only this process's share: the queries run in the
//! server's backends, at the server's priority, and on a host shared with the shop they take
//! the cores from requests all the same. So there a thread rests after each closure for
//! [`POSTGRES_REST`] times as long as the closure took: background work keeps each of its
//! threads busy a third of the time at most, and the server serves requests in between.
//!
//! Closures are run in the order they were handed over, each on whichever thread is free. A
//! closure that panics answers [`DbError::Task`] and leaves its thread running.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Instant;

use super::DbError;

/// How many background closures run at once.
pub const THREADS: usize = 2;

/// The nice value of the background threads (the process runs at 0): the scheduler gives a
/// nice-0 thread about ten times the CPU of a nice-10 one when both want it.
pub const NICE: i32 = 10;

/// How long a background thread rests after a closure that ran on PostgreSQL, in multiples of
/// the time it took (see the module's documentation).
pub const POSTGRES_REST: u32 = 2;

type Work = Box<dyn FnOnce() + Send + 'static>;

/// The queue the threads take work from.
struct Threads {
    queue: Sender<Work>,
}

fn threads() -> &'static Threads {
    static THREADS_STARTED: OnceLock<Threads> = OnceLock::new();
    THREADS_STARTED.get_or_init(|| {
        let (queue, work) = channel::<Work>();
        let work = Arc::new(Mutex::new(work));
        for i in 0..THREADS {
            let work = Arc::clone(&work);
            let started = std::thread::Builder::new()
                .name(format!("background-{i}"))
                .spawn(move || run(&work));
            if let Err(err) = started {
                tracing::error!(error = %err, "could not start a background database thread");
            }
        }
        Threads { queue }
    })
}

/// A background thread: lowers its own priority, then runs work until the queue is gone.
fn run(work: &Mutex<Receiver<Work>>) {
    lower_priority();
    loop {
        let next = work.lock().unwrap_or_else(PoisonError::into_inner).recv();
        match next {
            Ok(job) => job(),
            Err(_) => return,
        }
    }
}

/// Sets this thread's nice value to [`NICE`]. Where that is not possible the thread runs at
/// the process's priority: background work is still paced by the write gate.
fn lower_priority() {
    #[cfg(target_os = "linux")]
    {
        let thread = rustix::thread::gettid();
        if let Err(err) = rustix::process::setpriority_process(Some(thread), NICE) {
            tracing::warn!(error = %err, "could not lower the priority of a background thread");
        }
    }
}

/// Runs `f` on a background thread and answers its result; [`DbError::Task`] when it panicked
/// or no background thread could take it. The thread then rests `rest` times as long as `f`
/// took before it takes more work (the caller has its answer meanwhile).
pub async fn run_on_background<T, E, F>(f: F, rest: u32) -> Result<T, E>
where
    F: FnOnce() -> Result<T, E> + Send + 'static,
    T: Send + 'static,
    E: From<DbError> + Send + 'static,
{
    let (answer, answered) = tokio::sync::oneshot::channel();
    let job: Work = Box::new(move || {
        let started = Instant::now();
        let result = catch_unwind(AssertUnwindSafe(f))
            .unwrap_or_else(|_| Err(E::from(DbError::Task("background work panicked".into()))));
        let took = started.elapsed();
        // The caller may have gone (its request was cancelled): nothing waits for the answer.
        let _ = answer.send(result);
        if rest > 0 {
            std::thread::sleep(took.saturating_mul(rest));
        }
    });
    if threads().queue.send(job).is_err() {
        return Err(E::from(DbError::Task(
            "no background database thread is running".into(),
        )));
    }
    answered.await.unwrap_or_else(|_| {
        Err(E::from(DbError::Task(
            "a background database thread stopped".into(),
        )))
    })
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn work_runs_at_the_lower_priority_and_a_panic_answers_an_error() {
        let nice = run_on_background(
            || {
                Ok::<_, DbError>(rustix::process::getpriority_process(Some(
                    rustix::thread::gettid(),
                )))
            },
            0,
        )
        .await
        .expect("ran");
        // Raised from whatever the test process runs at, never lowered back.
        assert!(nice.is_ok_and(|n| n >= NICE.min(19)), "{nice:?}");
        let panicked = run_on_background(|| -> Result<(), DbError> { panic!("boom") }, 0).await;
        assert!(matches!(panicked, Err(DbError::Task(_))), "{panicked:?}");
        // The thread that panicked still takes work.
        for _ in 0..THREADS * 2 {
            let answer = run_on_background(|| Ok::<_, DbError>(7), 0).await;
            assert!(matches!(answer, Ok(7)));
        }
    }

    #[tokio::test]
    async fn a_thread_rests_after_its_work_for_the_multiple_asked() {
        let work = Duration::from_millis(20);
        // Every thread busy for 20 ms, then resting for 60.
        let busy: Vec<_> = (0..THREADS)
            .map(|_| {
                tokio::spawn(run_on_background(
                    move || {
                        std::thread::sleep(work);
                        Ok::<_, DbError>(())
                    },
                    3,
                ))
            })
            .collect();
        for answer in busy {
            assert!(matches!(answer.await, Ok(Ok(()))));
        }
        let answered = Instant::now();
        let next = run_on_background(|| Ok::<_, DbError>(Instant::now()), 0)
            .await
            .expect("ran");
        // The answers came before the rest; the next work waited for a thread to finish it.
        assert!(
            next.duration_since(answered) >= Duration::from_millis(50),
            "{:?}",
            next.duration_since(answered)
        );
    }
}
