//! Time, injected: commands take the time of their events from a [`Clock`], so tests can
//! drive deadlines without waiting.

use std::sync::Mutex;

use chrono::{NaiveDateTime, SubsecRound, TimeDelta, Utc};

/// A source of the current time (UTC, microsecond precision, as the store keeps it).
pub trait Clock: Send + Sync + std::fmt::Debug {
    fn now(&self) -> NaiveDateTime;
}

/// The machine's clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> NaiveDateTime {
        Utc::now().naive_utc().trunc_subsecs(6)
    }
}

/// A clock that moves only when told to (for tests).
#[derive(Debug)]
pub struct ManualClock(Mutex<NaiveDateTime>);

impl ManualClock {
    pub fn new(start: NaiveDateTime) -> ManualClock {
        ManualClock(Mutex::new(start.trunc_subsecs(6)))
    }

    /// Moves the clock forward (or back, with a negative delta).
    pub fn advance(&self, by: TimeDelta) {
        let mut t = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        *t += by;
    }

    pub fn set(&self, to: NaiveDateTime) {
        *self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = to.trunc_subsecs(6);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> NaiveDateTime {
        *self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manual_clock_moves_only_when_told() {
        let start = SystemClock.now();
        let c = ManualClock::new(start);
        assert_eq!(c.now(), start);
        c.advance(TimeDelta::hours(25));
        assert_eq!(c.now(), start + TimeDelta::hours(25));
    }
}
