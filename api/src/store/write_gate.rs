//! The embedded SQLite database's one writer at a time: every write transaction of an
//! instance ([`super::transaction`]) waits for its turn here, in the order it asked, before
//! `BEGIN IMMEDIATE`, so that SQLite never makes a writer wait on its file lock. That lock
//! is waited for by polling (`busy_timeout` sleeps 1, 2, 5, ... up to 100 ms between
//! tries), which under load left one move waiting 637 ms while others got through first;
//! here the next writer starts the moment the previous one commits. Readers are not
//! queued (WAL: they never wait for a writer).
//!
//! Each write is still its own transaction: one that fails rolls back alone and answers
//! its own error; the others are untouched.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The queue of one database's writers (shared by the connections of its pool).
#[derive(Debug, Default)]
pub struct WriteGate {
    state: Mutex<State>,
    turn: Condvar,
}

#[derive(Debug, Default)]
struct State {
    /// A writer holds the turn.
    busy: bool,
    /// Writers waiting, first come first.
    queue: VecDeque<u64>,
    next: u64,
    /// Turns given so far (for the tests).
    given: u64,
}

/// A writer's turn; the next one's begins when it is dropped.
#[derive(Debug)]
pub struct Turn<'a> {
    gate: &'a WriteGate,
}

/// No turn within the wait (another writer held it all along).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Waited(pub Duration);

impl WriteGate {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Waits (at most `within`) for the turn, after every writer that asked before.
    pub fn enter(&self, within: Duration) -> Result<Turn<'_>, Waited> {
        let start = Instant::now();
        let mut s = self.lock();
        let me = s.next;
        s.next += 1;
        if !s.busy && s.queue.is_empty() {
            s.busy = true;
            s.given += 1;
            return Ok(Turn { gate: self });
        }
        s.queue.push_back(me);
        loop {
            if !s.busy && s.queue.front() == Some(&me) {
                s.queue.pop_front();
                s.busy = true;
                s.given += 1;
                return Ok(Turn { gate: self });
            }
            let left = within.saturating_sub(start.elapsed());
            if left.is_zero() {
                s.queue.retain(|w| *w != me);
                // The one behind may be first now.
                self.turn.notify_all();
                return Err(Waited(start.elapsed()));
            }
            s = self
                .turn
                .wait_timeout(s, left)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }

    /// Writers waiting now.
    pub fn waiting(&self) -> usize {
        self.lock().queue.len()
    }

    /// Turns given so far.
    pub fn turns(&self) -> u64 {
        self.lock().given
    }
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        self.gate.lock().busy = false;
        self.gate.turn.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn writers_get_their_turn_in_the_order_they_asked() {
        let gate = Arc::new(WriteGate::default());
        let first = gate.enter(Duration::from_secs(5)).unwrap();
        let order = Arc::new(Mutex::new(Vec::new()));
        let mut handles = Vec::new();
        for i in 0..8 {
            let (g, order) = (gate.clone(), order.clone());
            handles.push(std::thread::spawn(move || {
                let _turn = g.enter(Duration::from_secs(5)).unwrap();
                order.lock().unwrap().push(i);
            }));
            // Each asks after the one before is queued.
            while gate.waiting() < i + 1 {
                std::thread::yield_now();
            }
        }
        drop(first);
        for h in handles {
            h.join().unwrap();
        }
        assert_eq!(*order.lock().unwrap(), (0..8).collect::<Vec<_>>());
        assert_eq!(gate.turns(), 9);
    }

    #[test]
    fn a_writer_that_gives_up_does_not_block_the_next() {
        let gate = Arc::new(WriteGate::default());
        let held = gate.enter(Duration::from_secs(1)).unwrap();
        let g = gate.clone();
        let patient = std::thread::spawn(move || {
            // Asks after the impatient one below and outlives its wait.
            while g.waiting() < 1 {
                std::thread::yield_now();
            }
            g.enter(Duration::from_secs(5)).map(|_| ()).is_ok()
        });
        let waited = gate.enter(Duration::from_millis(50)).unwrap_err();
        assert!(waited.0 >= Duration::from_millis(50));
        drop(held);
        assert!(patient.join().unwrap(), "the next writer got its turn");
        assert_eq!(gate.waiting(), 0);
    }

    #[test]
    fn a_writer_that_panics_gives_its_turn_back() {
        let gate = Arc::new(WriteGate::default());
        let g = gate.clone();
        let _ = std::thread::spawn(move || {
            let _turn = g.enter(Duration::from_secs(1)).unwrap();
            panic!("a write failed badly");
        })
        .join();
        assert!(gate.enter(Duration::from_millis(100)).is_ok());
    }
}
