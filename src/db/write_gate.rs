//! One SQLite writer at a time within this process, handed over without sleeping.
//!
//! SQLite lets one connection write at a time. A connection that finds the write lock taken
//! waits in SQLite's busy handler, which polls by sleeping 1, 2, 5, 10, 15, 20, 25, … 100 ms
//! between tries: it is not woken when the lock is released, and a writer that arrives later
//! may take the lock first. With a burst of payments and the workers placing their orders at
//! the same time, a worker's claim could sleep through dozens of payments' commits.
//!
//! The writers of one process therefore queue on a [`WriteGate`] before `BEGIN IMMEDIATE`:
//! a condition variable wakes the next one the moment a transaction ends. SQLite's lock and
//! busy handler still arbitrate between processes (the CLI next to a running server); the
//! gate only orders this process's own writers. A writer that cannot enter within the busy
//! timeout goes on to SQLite's lock anyway, so the gate never turns a slow writer into a hang.
//!
//! The gate of the database a thread works on is found through a thread-local set by
//! [`crate::db::Db::run`] for the duration of the caller's closure, because the closure only
//! sees the connection.

use std::cell::RefCell;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

#[derive(Debug, Default)]
pub struct WriteGate {
    taken: Mutex<bool>,
    released: Condvar,
}

/// The gate held until dropped (or nothing, if it could not be entered in time).
pub struct Entered {
    gate: Option<Arc<WriteGate>>,
}

impl WriteGate {
    /// Waits up to `patience` for the gate.
    pub fn enter(self: &Arc<Self>, patience: Duration) -> Entered {
        let taken = self.taken.lock().unwrap_or_else(PoisonError::into_inner);
        let (mut taken, waited) = self
            .released
            .wait_timeout_while(taken, patience, |taken| *taken)
            .unwrap_or_else(PoisonError::into_inner);
        if waited.timed_out() && *taken {
            return Entered { gate: None };
        }
        *taken = true;
        Entered {
            gate: Some(Arc::clone(self)),
        }
    }
}

impl Entered {
    pub fn holds(&self) -> bool {
        self.gate.is_some()
    }
}

impl Drop for Entered {
    fn drop(&mut self) {
        if let Some(gate) = self.gate.take() {
            *gate.taken.lock().unwrap_or_else(PoisonError::into_inner) = false;
            gate.released.notify_one();
        }
    }
}

thread_local! {
    static CURRENT: RefCell<Option<Arc<WriteGate>>> = const { RefCell::new(None) };
}

/// Makes `gate` this thread's until the returned value is dropped.
pub fn scope(gate: Option<Arc<WriteGate>>) -> Scope {
    let previous = CURRENT.with(|current| current.replace(gate));
    Scope { previous }
}

pub struct Scope {
    previous: Option<Arc<WriteGate>>,
}

impl Drop for Scope {
    fn drop(&mut self) {
        let previous = self.previous.take();
        CURRENT.with(|current| *current.borrow_mut() = previous);
    }
}

/// Enters this thread's gate, if it has one.
pub fn enter_current(patience: Duration) -> Option<Entered> {
    let gate = CURRENT.with(|current| current.borrow().clone())?;
    Some(gate.enter(patience))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Instant;

    #[test]
    fn one_writer_at_a_time_and_the_next_is_woken_at_once() {
        let gate = Arc::new(WriteGate::default());
        let inside = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let (gate, inside, most) = (gate.clone(), inside.clone(), most.clone());
                std::thread::spawn(move || {
                    for _ in 0..200 {
                        let entered = gate.enter(Duration::from_secs(10));
                        assert!(entered.holds());
                        let now = inside.fetch_add(1, Ordering::SeqCst) + 1;
                        most.fetch_max(now, Ordering::SeqCst);
                        inside.fetch_sub(1, Ordering::SeqCst);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().expect("writer thread");
        }
        assert_eq!(most.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_writer_that_waited_its_patience_goes_on_without_the_gate() {
        let gate = Arc::new(WriteGate::default());
        let held = gate.enter(Duration::ZERO);
        assert!(held.holds());
        let started = Instant::now();
        let late = gate.enter(Duration::from_millis(30));
        assert!(!late.holds());
        assert!(started.elapsed() >= Duration::from_millis(30));
        drop(late);
        drop(held);
        assert!(gate.enter(Duration::ZERO).holds(), "released by its holder");
    }

    #[test]
    fn the_gate_belongs_to_the_thread_for_the_scope_only() {
        assert!(enter_current(Duration::ZERO).is_none());
        let gate = Arc::new(WriteGate::default());
        {
            let _scope = scope(Some(gate.clone()));
            let entered = enter_current(Duration::ZERO).expect("a gate in scope");
            assert!(entered.holds());
        }
        assert!(enter_current(Duration::ZERO).is_none());
    }
}
