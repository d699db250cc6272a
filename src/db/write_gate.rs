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
//!
//! Writers come in two classes. The workers placing paid orders upstream go first
//! ([`crate::db::Db::first_at_write_gate`]): a burst of payments must not hold up the
//! purchases already paid for. So that a steady stream of them cannot shut everyone else out,
//! a waiting writer of the other class gets the gate after at most [`MAX_URGENT_STREAK`]
//! urgent writers in a row.

use std::cell::RefCell;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// Urgent writers let in one after another while a normal writer waits, before it gets a turn.
pub const MAX_URGENT_STREAK: u32 = 4;

/// Which queue a writer waits in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// Web requests and everything else.
    Normal,
    /// Placing paid orders upstream: let in first.
    Urgent,
}

#[derive(Debug, Default)]
struct State {
    taken: bool,
    waiting_urgent: usize,
    waiting_normal: usize,
    /// Urgent writers let in since a normal writer last had the gate, counted only while
    /// normal writers were waiting.
    urgent_streak: u32,
}

impl State {
    /// Whether an urgent writer must give way to a normal one that has waited long enough.
    fn normal_is_owed(&self) -> bool {
        self.waiting_normal > 0 && self.urgent_streak >= MAX_URGENT_STREAK
    }

    fn must_wait(&self, class: Class) -> bool {
        self.taken
            || match class {
                Class::Urgent => self.normal_is_owed(),
                Class::Normal => self.waiting_urgent > 0 && !self.normal_is_owed(),
            }
    }
}

#[derive(Debug, Default)]
pub struct WriteGate {
    state: Mutex<State>,
    urgent_turn: Condvar,
    normal_turn: Condvar,
}

/// The gate held until dropped (or nothing, if it could not be entered in time).
pub struct Entered {
    gate: Option<Arc<WriteGate>>,
}

impl WriteGate {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits up to `patience` for the gate in `class`'s queue.
    pub fn enter(self: &Arc<Self>, class: Class, patience: Duration) -> Entered {
        let mut state = self.lock();
        let turn = match class {
            Class::Urgent => {
                state.waiting_urgent += 1;
                &self.urgent_turn
            }
            Class::Normal => {
                state.waiting_normal += 1;
                &self.normal_turn
            }
        };
        let (mut state, waited) = turn
            .wait_timeout_while(state, patience, |state| state.must_wait(class))
            .unwrap_or_else(PoisonError::into_inner);
        match class {
            Class::Urgent => state.waiting_urgent -= 1,
            Class::Normal => state.waiting_normal -= 1,
        }
        if waited.timed_out() && state.taken {
            return Entered { gate: None };
        }
        state.taken = true;
        match class {
            Class::Urgent if state.waiting_normal > 0 => state.urgent_streak += 1,
            Class::Urgent => {}
            Class::Normal => state.urgent_streak = 0,
        }
        Entered {
            gate: Some(Arc::clone(self)),
        }
    }

    /// Wakes one writer of the class whose turn it is, if the gate is free.
    fn wake_next(&self, state: &State) {
        if state.taken {
            return;
        }
        if state.waiting_urgent > 0 && !state.normal_is_owed() {
            self.urgent_turn.notify_one();
        } else if state.waiting_normal > 0 {
            self.normal_turn.notify_one();
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
            let mut state = gate.lock();
            state.taken = false;
            gate.wake_next(&state);
        }
    }
}

thread_local! {
    static CURRENT: RefCell<Option<(Arc<WriteGate>, Class)>> = const { RefCell::new(None) };
}

/// Makes `gate` this thread's, entered in `class`'s queue, until the returned value is dropped.
pub fn scope(gate: Option<Arc<WriteGate>>, class: Class) -> Scope {
    let previous = CURRENT.with(|current| current.replace(gate.map(|gate| (gate, class))));
    Scope { previous }
}

pub struct Scope {
    previous: Option<(Arc<WriteGate>, Class)>,
}

impl Drop for Scope {
    fn drop(&mut self) {
        let previous = self.previous.take();
        CURRENT.with(|current| *current.borrow_mut() = previous);
    }
}

/// Enters this thread's gate, if it has one.
pub fn enter_current(patience: Duration) -> Option<Entered> {
    let (gate, class) = CURRENT.with(|current| current.borrow().clone())?;
    Some(gate.enter(class, patience))
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
            .map(|n| {
                let (gate, inside, most) = (gate.clone(), inside.clone(), most.clone());
                let class = if n % 2 == 0 {
                    Class::Urgent
                } else {
                    Class::Normal
                };
                std::thread::spawn(move || {
                    for _ in 0..200 {
                        let entered = gate.enter(class, Duration::from_secs(10));
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
        let held = gate.enter(Class::Normal, Duration::ZERO);
        assert!(held.holds());
        let started = Instant::now();
        let late = gate.enter(Class::Normal, Duration::from_millis(30));
        assert!(!late.holds());
        assert!(started.elapsed() >= Duration::from_millis(30));
        drop(late);
        drop(held);
        assert!(
            gate.enter(Class::Normal, Duration::ZERO).holds(),
            "released by its holder"
        );
    }

    #[test]
    fn the_gate_belongs_to_the_thread_for_the_scope_only() {
        assert!(enter_current(Duration::ZERO).is_none());
        let gate = Arc::new(WriteGate::default());
        {
            let _scope = scope(Some(gate.clone()), Class::Normal);
            let entered = enter_current(Duration::ZERO).expect("a gate in scope");
            assert!(entered.holds());
        }
        assert!(enter_current(Duration::ZERO).is_none());
    }

    /// Waits (bounded) until `urgent` and `normal` writers queue on `gate`.
    fn until_waiting(gate: &WriteGate, urgent: usize, normal: usize) {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            {
                let state = gate.lock();
                if state.waiting_urgent == urgent && state.waiting_normal == normal {
                    return;
                }
            }
            assert!(Instant::now() < deadline, "writers never queued");
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Starts a writer of `class` that enters once and writes `name` into `order` inside.
    fn writer(
        gate: &Arc<WriteGate>,
        order: &Arc<Mutex<Vec<String>>>,
        class: Class,
        name: String,
    ) -> std::thread::JoinHandle<()> {
        let (gate, order) = (gate.clone(), order.clone());
        std::thread::spawn(move || {
            let entered = gate.enter(class, Duration::from_secs(10));
            assert!(entered.holds());
            order.lock().expect("order").push(name);
        })
    }

    #[test]
    fn urgent_writers_go_before_normal_writers_that_came_first() {
        let gate = Arc::new(WriteGate::default());
        let order = Arc::new(Mutex::new(Vec::new()));
        let held = gate.enter(Class::Normal, Duration::ZERO);
        let normal = writer(&gate, &order, Class::Normal, "normal".into());
        until_waiting(&gate, 0, 1);
        let urgent = writer(&gate, &order, Class::Urgent, "urgent".into());
        until_waiting(&gate, 1, 1);
        drop(held);
        normal.join().expect("normal writer");
        urgent.join().expect("urgent writer");
        assert_eq!(*order.lock().expect("order"), ["urgent", "normal"]);
    }

    #[test]
    fn a_waiting_normal_writer_gets_in_after_a_bounded_run_of_urgent_writers() {
        let gate = Arc::new(WriteGate::default());
        let order = Arc::new(Mutex::new(Vec::new()));
        let held = gate.enter(Class::Normal, Duration::ZERO);
        let normal = writer(&gate, &order, Class::Normal, "normal".into());
        until_waiting(&gate, 0, 1);
        let urgent: Vec<_> = (0..10)
            .map(|n| writer(&gate, &order, Class::Urgent, format!("urgent {n}")))
            .collect();
        until_waiting(&gate, 10, 1);
        drop(held);
        normal.join().expect("normal writer");
        for u in urgent {
            u.join().expect("urgent writer");
        }
        let order = order.lock().expect("order");
        assert_eq!(order.len(), 11);
        let normal_at = order.iter().position(|name| name == "normal");
        assert_eq!(normal_at, Some(MAX_URGENT_STREAK as usize), "{order:?}");
    }
}
