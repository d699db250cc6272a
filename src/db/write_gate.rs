//! One SQLite writer at a time within this process, handed over without sleeping, requests
//! before background work.
//!
//! SQLite lets one connection write at a time. A connection that finds the write lock taken
//! waits in SQLite's busy handler, which polls by sleeping 1, 2, 5, 10, 15, 20, 25, … 100 ms
//! between tries: it is not woken when the lock is released, and a writer that arrives later
//! may take the lock first. With a burst of payments and the workers placing their orders at
//! the same time, a worker's claim could sleep through dozens of payments' commits.
//!
//! The writers of one process therefore queue on a [`WriteGate`] before `BEGIN IMMEDIATE`:
//! the next one is woken the moment a transaction ends. SQLite's lock and busy handler still
//! arbitrate between processes (the CLI next to a running server); the gate only orders this
//! process's own writers. A writer that cannot enter within its patience goes on to SQLite's
//! lock anyway, so the gate never turns a slow writer into a hang.
//!
//! The gate of the database a thread works on is found through a thread-local set by
//! [`crate::db::Db::run`] for the duration of the caller's closure, because the closure only
//! sees the connection.
//!
//! Writers come in three classes ([`Class`]):
//!
//! - the workers placing paid orders upstream go first: a burst of payments must not hold up
//!   the purchases already paid for. So that a steady stream of them cannot shut web requests
//!   out, a waiting normal writer gets the gate after at most [`MAX_URGENT_STREAK`] of them in
//!   a row;
//! - web requests, and the rest of an order's work, come next;
//! - background work (reminders, expiring checkouts, the books' days, retention, tallies)
//!   goes last, and is paced: after a background transaction the gate stays closed to
//!   background writers for twice as long as that transaction held it, so background work
//!   holds the lock at most a third of the time and another process (the CLI) always finds it
//!   free soon. So
//!   that it still moves on a busy shop, a waiting background writer gets the gate after
//!   [`MAX_BACKGROUND_PASSED`] other writers went ahead of it.

use std::cell::RefCell;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// Urgent writers let in one after another while a normal writer waits, before it gets a turn.
pub const MAX_URGENT_STREAK: u32 = 4;

/// After a background transaction, background writers wait this many times as long as it held
/// the gate: background work holds the lock at most a third of the time, and leaves the CPU
/// it would spend on the next batch to requests for as long.
pub const BACKGROUND_REST_FACTOR: u32 = 2;

/// Other writers let in while a background writer waits, before it gets a turn.
pub const MAX_BACKGROUND_PASSED: u32 = 16;

/// How long a background writer waits for its turn before it goes on to SQLite's own lock: it
/// is meant to wait behind requests, so it is patient.
pub const BACKGROUND_PATIENCE: Duration = Duration::from_secs(30);

/// Which queue a writer waits in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// Placing paid orders upstream: let in first.
    Urgent,
    /// Web requests and the rest of an order's work.
    Normal,
    /// Work nobody waits on: let in last, and paced.
    Background,
}

impl Class {
    const ALL: [Self; 3] = [Self::Urgent, Self::Normal, Self::Background];

    fn index(self) -> usize {
        match self {
            Self::Urgent => 0,
            Self::Normal => 1,
            Self::Background => 2,
        }
    }

    /// The class's name in `/metrics`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Urgent => "placement",
            Self::Normal => "request",
            Self::Background => "background",
        }
    }
}

#[derive(Debug, Default)]
struct State {
    taken: bool,
    /// Writers waiting, by [`Class::index`].
    waiting: [usize; 3],
    /// Urgent writers let in since a normal writer last had the gate, counted only while
    /// normal writers were waiting.
    urgent_streak: u32,
    /// Writers of the other classes let in while a background writer waited.
    background_passed: u32,
    /// Background writers wait until then (see the module notes).
    background_rest_until: Option<Instant>,
}

impl State {
    fn waiting(&self, class: Class) -> usize {
        self.waiting[class.index()]
    }

    /// Whether an urgent writer must give way to a normal one that has waited long enough.
    fn normal_is_owed(&self) -> bool {
        self.waiting(Class::Normal) > 0 && self.urgent_streak >= MAX_URGENT_STREAK
    }

    fn background_rests(&self, now: Instant) -> bool {
        self.background_rest_until.is_some_and(|until| now < until)
    }

    /// Whether a background writer that waited long enough goes before everyone else.
    fn background_is_owed(&self, now: Instant) -> bool {
        self.waiting(Class::Background) > 0
            && self.background_passed >= MAX_BACKGROUND_PASSED
            && !self.background_rests(now)
    }

    fn must_wait(&self, class: Class, now: Instant) -> bool {
        if self.taken {
            return true;
        }
        let background_owed = self.background_is_owed(now);
        match class {
            Class::Urgent => self.normal_is_owed() || background_owed,
            Class::Normal => {
                (self.waiting(Class::Urgent) > 0 && !self.normal_is_owed()) || background_owed
            }
            Class::Background => {
                self.background_rests(now)
                    || (!background_owed
                        && (self.waiting(Class::Urgent) > 0 || self.waiting(Class::Normal) > 0))
            }
        }
    }

    fn let_in(&mut self, class: Class) {
        self.taken = true;
        let background_waits = self.waiting(Class::Background) > 0;
        match class {
            Class::Urgent => {
                if self.waiting(Class::Normal) > 0 {
                    self.urgent_streak += 1;
                }
            }
            Class::Normal => self.urgent_streak = 0,
            Class::Background => self.background_passed = 0,
        }
        if class != Class::Background && background_waits {
            self.background_passed = self.background_passed.saturating_add(1);
        }
    }
}

#[derive(Debug, Default)]
pub struct WriteGate {
    state: Mutex<State>,
    /// Every waiter is woken when the gate is released and checks whether it is its turn.
    turn: Condvar,
}

/// The gate held until dropped (or nothing, if it could not be entered in time).
pub struct Entered {
    held: Option<(Arc<WriteGate>, Class, Instant)>,
}

impl WriteGate {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits up to `patience` for the gate in `class`'s queue.
    pub fn enter(self: &Arc<Self>, class: Class, patience: Duration) -> Entered {
        let started = Instant::now();
        let deadline = started + patience;
        let mut state = self.lock();
        state.waiting[class.index()] += 1;
        loop {
            let now = Instant::now();
            if !state.must_wait(class, now) {
                break;
            }
            if now >= deadline {
                state.waiting[class.index()] -= 1;
                if state.taken {
                    return Entered { held: None };
                }
                // Free, but not this writer's turn: its patience is up, so it goes in.
                state.waiting[class.index()] += 1;
                break;
            }
            // A resting background writer is woken when the rest ends, not only on release.
            let mut wait = deadline - now;
            if let Some(until) = state.background_rest_until.filter(|until| *until > now) {
                wait = wait.min(until - now);
            }
            state = self
                .turn
                .wait_timeout(state, wait)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        state.waiting[class.index()] -= 1;
        state.let_in(class);
        Entered {
            held: Some((Arc::clone(self), class, Instant::now())),
        }
    }
}

impl Entered {
    pub fn holds(&self) -> bool {
        self.held.is_some()
    }
}

impl Drop for Entered {
    fn drop(&mut self) {
        if let Some((gate, class, since)) = self.held.take() {
            let mut state = gate.lock();
            state.taken = false;
            if class == Class::Background {
                let now = Instant::now();
                let held = now.duration_since(since);
                state.background_rest_until = Some(now + held * BACKGROUND_REST_FACTOR);
            }
            drop(state);
            gate.turn.notify_all();
        }
    }
}

thread_local! {
    static CURRENT: RefCell<Option<(Arc<WriteGate>, Class)>> = const { RefCell::new(None) };
    static CLASS: RefCell<Option<Class>> = const { RefCell::new(None) };
}

/// Makes `gate` this thread's, entered in `class`'s queue, until the returned value is dropped.
/// The class is the thread's also without a gate (PostgreSQL), for `/metrics`.
pub fn scope(gate: Option<Arc<WriteGate>>, class: Class) -> Scope {
    let previous = CURRENT.with(|current| current.replace(gate.map(|gate| (gate, class))));
    let previous_class = CLASS.with(|current| current.replace(Some(class)));
    Scope {
        previous,
        previous_class,
    }
}

pub struct Scope {
    previous: Option<(Arc<WriteGate>, Class)>,
    previous_class: Option<Class>,
}

impl Drop for Scope {
    fn drop(&mut self) {
        let previous = self.previous.take();
        CURRENT.with(|current| *current.borrow_mut() = previous);
        let previous_class = self.previous_class.take();
        CLASS.with(|current| *current.borrow_mut() = previous_class);
    }
}

/// The class of this thread's writers, if it runs inside [`crate::db::Db::run`].
pub fn current_class() -> Option<Class> {
    CLASS.with(|current| *current.borrow())
}

/// Enters this thread's gate, if it has one, waiting up to `patience` (background writers:
/// up to [`BACKGROUND_PATIENCE`]).
pub fn enter_current(patience: Duration) -> Option<Entered> {
    let (gate, class) = CURRENT.with(|current| current.borrow().clone())?;
    let patience = match class {
        Class::Background => patience.max(BACKGROUND_PATIENCE),
        Class::Urgent | Class::Normal => patience,
    };
    Some(gate.enter(class, patience))
}

/// How long write transactions held the database's write lock, per [`Class`], for `/metrics`:
/// a Prometheus histogram's buckets, count and sum.
#[derive(Debug)]
pub struct LockHolds {
    /// `[class][bucket]` counts of holds at most [`HOLD_BUCKETS_MS`] long (cumulative when
    /// read), plus the count and the sum in microseconds per class.
    inner: Mutex<[ClassHolds; 3]>,
}

/// Upper bounds of the lock-hold histogram's buckets, in milliseconds.
pub const HOLD_BUCKETS_MS: [u64; 9] = [1, 2, 5, 10, 25, 50, 100, 250, 1000];

#[derive(Debug, Default, Clone, Copy)]
pub struct ClassHolds {
    /// Holds no longer than each bucket's bound (not cumulative).
    pub buckets: [u64; HOLD_BUCKETS_MS.len()],
    pub count: u64,
    pub sum_us: u64,
}

/// The process's write-lock holds.
pub static LOCK_HOLDS: LockHolds = LockHolds {
    inner: Mutex::new(
        [ClassHolds {
            buckets: [0; HOLD_BUCKETS_MS.len()],
            count: 0,
            sum_us: 0,
        }; 3],
    ),
};

impl LockHolds {
    pub fn observe(&self, class: Class, held: Duration) {
        let micros = u64::try_from(held.as_micros()).unwrap_or(u64::MAX);
        let mut all = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let holds = &mut all[class.index()];
        holds.count += 1;
        holds.sum_us = holds.sum_us.saturating_add(micros);
        if let Some(bucket) = HOLD_BUCKETS_MS
            .iter()
            .position(|bound| micros <= bound * 1000)
        {
            holds.buckets[bucket] += 1;
        }
    }

    /// Each class with its holds so far.
    pub fn read(&self) -> Vec<(Class, ClassHolds)> {
        let all = *self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        Class::ALL
            .into_iter()
            .map(|class| (class, all[class.index()]))
            .collect()
    }
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
                if state.waiting(Class::Urgent) == urgent && state.waiting(Class::Normal) == normal
                {
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

    #[test]
    fn background_writers_go_after_requests_that_came_later() {
        let gate = Arc::new(WriteGate::default());
        let order = Arc::new(Mutex::new(Vec::new()));
        let held = gate.enter(Class::Normal, Duration::ZERO);
        let background = writer(&gate, &order, Class::Background, "background".into());
        let deadline = Instant::now() + Duration::from_secs(10);
        while gate.lock().waiting(Class::Background) == 0 {
            assert!(Instant::now() < deadline, "never queued");
            std::thread::sleep(Duration::from_millis(1));
        }
        let request = writer(&gate, &order, Class::Normal, "request".into());
        until_waiting(&gate, 0, 1);
        drop(held);
        request.join().expect("request");
        background.join().expect("background");
        assert_eq!(*order.lock().expect("order"), ["request", "background"]);
    }

    #[test]
    fn background_work_holds_the_gate_at_most_a_third_of_the_time() {
        let gate = Arc::new(WriteGate::default());
        let first = gate.enter(Class::Background, Duration::ZERO);
        assert!(first.holds());
        std::thread::sleep(Duration::from_millis(40));
        drop(first);
        let released = Instant::now();
        // A request goes in at once; the next background writer waits out the rest.
        assert!(gate.enter(Class::Normal, Duration::ZERO).holds());
        let second = gate.enter(Class::Background, Duration::from_secs(5));
        assert!(second.holds());
        assert!(
            released.elapsed() >= Duration::from_millis(75),
            "rested {:?}",
            released.elapsed()
        );
    }

    #[test]
    fn a_waiting_background_writer_gets_in_after_a_bounded_number_of_others() {
        let gate = Arc::new(WriteGate::default());
        let order = Arc::new(Mutex::new(Vec::new()));
        let held = gate.enter(Class::Normal, Duration::ZERO);
        let background = writer(&gate, &order, Class::Background, "background".into());
        let deadline = Instant::now() + Duration::from_secs(10);
        while gate.lock().waiting(Class::Background) == 0 {
            assert!(Instant::now() < deadline, "never queued");
            std::thread::sleep(Duration::from_millis(1));
        }
        let requests: Vec<_> = (0..30)
            .map(|n| writer(&gate, &order, Class::Normal, format!("request {n}")))
            .collect();
        until_waiting(&gate, 0, 30);
        drop(held);
        for r in requests {
            r.join().expect("request");
        }
        background.join().expect("background");
        let order = order.lock().expect("order");
        let at = order.iter().position(|name| name == "background");
        assert_eq!(at, Some(MAX_BACKGROUND_PASSED as usize), "{order:?}");
    }

    #[test]
    fn lock_holds_fall_into_their_buckets() {
        let holds = LockHolds {
            inner: Mutex::new([ClassHolds::default(); 3]),
        };
        holds.observe(Class::Background, Duration::from_micros(1_500));
        holds.observe(Class::Background, Duration::from_secs(3));
        let read = holds.read();
        let (class, background) = read[2];
        assert_eq!(class, Class::Background);
        assert_eq!(background.count, 2);
        assert_eq!(background.buckets[1], 1, "1.5 ms is at most 2 ms");
        assert_eq!(
            background.buckets.iter().sum::<u64>(),
            1,
            "3 s is over every bound"
        );
        assert_eq!(background.sum_us, 3_001_500);
    }
}
