//! Correspondence time control: the time a seat has for its move, kept from the log.
//!
//! A game's time control is chosen at creation and stored in its `created` event:
//! `per_move_secs` (clients offer 1 to 14 days) and, optionally, `max_bank_secs`, the most
//! unused time a seat may bank. Without a cap every turn lasts exactly `per_move_secs`.
//!
//! The rule, folded from the log by [`SeatClocks`]:
//!
//! - when the game starts, every seat has `per_move_secs` for its first turn;
//! - a turn starts at the time of the event that made its seat the seat to move (the
//!   start, the previous move, or a resignation or timeout that passed the turn on);
//! - the seat to move must act before `turn start + its time`: that instant is the
//!   game's **deadline**. After it the server appends `timed_out` (the effect of a
//!   resignation, RULES.md section 7);
//! - a seat that moves banks what it did not use, up to `max_bank_secs`: its next time
//!   is `per_move_secs + min(unused, max_bank_secs)`; without a cap nothing is banked
//!   and every turn lasts `per_move_secs`. With `{"per_move_secs": 60,
//!   "max_bank_secs": 60}`, moving at once gives 120 s for the next turn; with a cap of
//!   120, moving after 3 s gives 60 + 57 = 117 s; a seat that used its whole time (or
//!   more) has `per_move_secs` again;
//! - resignations of other seats and draw offers do not touch the clocks.
//!
//! Every time is the time of an event, so the deadline is a pure function of the log.

use chrono::{NaiveDateTime, TimeDelta};
use domain::Seat;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The shortest and longest time per move the API accepts.
pub const MIN_PER_MOVE_SECS: i64 = 60;
pub const MAX_PER_MOVE_SECS: i64 = 30 * 86_400;
/// The largest bank the API accepts.
pub const MAX_BANK_SECS: i64 = 90 * 86_400;

/// A game's time control.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"per_move_secs": 259200, "max_bank_secs": 604800}))]
pub struct TimeControl {
    /// Seconds for each move (clients offer 1 to 14 days: 86400 to 1209600).
    #[schema(minimum = 60, maximum = 2592000)]
    pub per_move_secs: i64,
    /// The most time (seconds) a seat may bank by moving early; `null`: no banking, each
    /// move has exactly `per_move_secs`.
    #[serde(default)]
    #[schema(minimum = 60, maximum = 7776000)]
    pub max_bank_secs: Option<i64>,
}

impl TimeControl {
    /// Checks the bounds; the message names the field.
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        if !(MIN_PER_MOVE_SECS..=MAX_PER_MOVE_SECS).contains(&self.per_move_secs) {
            return Err((
                "time_control.per_move_secs",
                format!("must be {MIN_PER_MOVE_SECS} to {MAX_PER_MOVE_SECS} seconds"),
            ));
        }
        if let Some(cap) = self.max_bank_secs {
            if cap < self.per_move_secs || cap > MAX_BANK_SECS {
                return Err((
                    "time_control.max_bank_secs",
                    format!("must be at least per_move_secs and at most {MAX_BANK_SECS} seconds"),
                ));
            }
        }
        Ok(())
    }

    /// The most time a seat may bank (0 without banking).
    pub fn bank_cap_secs(&self) -> i64 {
        self.max_bank_secs.unwrap_or(0).max(0)
    }

    /// The time for a turn after leaving `unused` seconds of the previous one.
    pub fn next_turn_secs(&self, unused: i64) -> i64 {
        self.per_move_secs + unused.clamp(0, self.bank_cap_secs())
    }

    /// The most a seat may have for one turn: `per_move_secs` plus a full bank.
    pub fn cap_secs(&self) -> i64 {
        self.per_move_secs + self.bank_cap_secs()
    }
}

/// The seats' clocks at one version of a game.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SeatClocks {
    /// Seconds each seat has for its current or next turn (index: [`Seat::index`]).
    pub time_secs: [i64; 4],
    /// When the current turn started (`None` before the start and after the end).
    pub turn_started: Option<NaiveDateTime>,
}

impl SeatClocks {
    /// The clocks when the game starts at `at`.
    pub fn started(tc: &TimeControl, at: NaiveDateTime) -> SeatClocks {
        SeatClocks {
            time_secs: [tc.per_move_secs; 4],
            turn_started: Some(at),
        }
    }

    /// `seat` moved at `at`: charge the time it used, credit the next move's.
    pub fn moved(&mut self, tc: &TimeControl, seat: Seat, at: NaiveDateTime) {
        let used = self
            .turn_started
            .map_or(0, |t| (at - t).num_seconds().max(0));
        let left = (self.time_secs[seat.index()] - used).max(0);
        self.time_secs[seat.index()] = tc.next_turn_secs(left);
        self.turn_started = Some(at);
    }

    /// A new turn starts at `at` without a move (the seat to move resigned or timed out).
    pub fn turn_passed(&mut self, at: NaiveDateTime) {
        self.turn_started = Some(at);
    }

    /// The game is over: no more deadlines.
    pub fn stop(&mut self) {
        self.turn_started = None;
    }

    /// When `seat`, to move, must have acted.
    pub fn deadline(&self, seat: Seat) -> Option<NaiveDateTime> {
        self.turn_started
            .map(|t| t + TimeDelta::seconds(self.time_secs[seat.index()]))
    }
}

/// The deadline of a turn that started at `start` with `secs` on the clock, when the
/// clock does not run during `pauses` (the player's vacations, any order, may overlap).
pub fn paused_deadline(
    start: NaiveDateTime,
    secs: i64,
    pauses: &[(NaiveDateTime, NaiveDateTime)],
) -> NaiveDateTime {
    let mut p: Vec<_> = pauses.iter().filter(|(s, e)| s < e).copied().collect();
    p.sort();
    let mut t = start;
    let mut left = TimeDelta::seconds(secs);
    for (s, e) in p {
        if e <= t {
            continue;
        }
        if s > t {
            let run = (s - t).min(left);
            t += run;
            left -= run;
            if left <= TimeDelta::zero() {
                return t;
            }
        }
        t = t.max(e);
    }
    t + left
}

/// The effective deadline of a turn that started at `started` and whose deadline in the
/// log is `deadline`, when its player is away during `pauses`: the one deadline every
/// view, payload, mail and the `turn=mine` order show (computed when read).
pub fn effective_deadline(
    started: NaiveDateTime,
    deadline: NaiveDateTime,
    pauses: &[(NaiveDateTime, NaiveDateTime)],
) -> NaiveDateTime {
    paused_deadline(started, (deadline - started).num_seconds().max(0), pauses)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(h: i64) -> NaiveDateTime {
        chrono::DateTime::from_timestamp(1_800_000_000, 0)
            .unwrap()
            .naive_utc()
            + TimeDelta::hours(h)
    }

    #[test]
    fn unused_time_is_banked_up_to_the_cap() {
        let tc = TimeControl {
            per_move_secs: 24 * 3600,
            max_bank_secs: Some(48 * 3600),
        };
        let mut c = SeatClocks::started(&tc, t(0));
        assert_eq!(c.deadline(Seat::Red), Some(t(24)));
        c.moved(&tc, Seat::Red, t(2)); // 22 h left + 24 h, capped at 48 h... 46 h
        assert_eq!(c.time_secs[Seat::Red.index()], 46 * 3600);
        assert_eq!(c.deadline(Seat::Blue), Some(t(26)));
        c.moved(&tc, Seat::Blue, t(30)); // late: nothing left, 24 h next time
        assert_eq!(c.time_secs[Seat::Blue.index()], 24 * 3600);
        c.turn_passed(t(31));
        assert_eq!(c.deadline(Seat::Red), Some(t(31 + 46)));
    }

    /// The README's worked examples and the edges: the cap bounds the bank, not the
    /// whole clock.
    #[test]
    fn the_cap_bounds_the_bank_not_the_clock() {
        let secs = |s: i64| t(0) + TimeDelta::seconds(s);
        let next = |per_move: i64, cap: Option<i64>, moves_after: &[i64]| {
            let tc = TimeControl {
                per_move_secs: per_move,
                max_bank_secs: cap,
            };
            let mut c = SeatClocks::started(&tc, t(0));
            let mut at = 0;
            for used in moves_after {
                at += used;
                c.moved(&tc, Seat::Red, secs(at));
            }
            c.time_secs[Seat::Red.index()]
        };
        // Moving at once with a 60 s bank: 60 + 60.
        assert_eq!(next(60, Some(60), &[0]), 120);
        // A cap of 120, moving after 3 s: 60 + 57.
        assert_eq!(next(60, Some(120), &[3]), 117);
        // The bank fills up to the cap and no further: 60+60, then 60 + min(120, 120).
        assert_eq!(next(60, Some(120), &[0, 0]), 180);
        assert_eq!(next(60, Some(120), &[0, 0, 0]), 180);
        // Using exactly all of one's time, or more, leaves no bank.
        assert_eq!(next(60, Some(120), &[60]), 60);
        assert_eq!(next(60, Some(120), &[61]), 60);
        // One second unused banks one second.
        assert_eq!(next(60, Some(120), &[59]), 61);
        // Spending from the bank: 120 s on the clock, 100 used, 20 banked.
        assert_eq!(next(60, Some(120), &[0, 100]), 80);
        // Without a cap nothing is banked.
        assert_eq!(next(60, None, &[0]), 60);
        let tc = TimeControl {
            per_move_secs: 60,
            max_bank_secs: Some(120),
        };
        assert_eq!(tc.cap_secs(), 180);
    }

    #[test]
    fn vacations_stop_the_clock() {
        assert_eq!(paused_deadline(t(0), 24 * 3600, &[]), t(24));
        // A vacation from hour 2 to 50 adds 48 h.
        assert_eq!(paused_deadline(t(0), 24 * 3600, &[(t(2), t(50))]), t(72));
        // One that started before the turn counts from the turn's start.
        assert_eq!(paused_deadline(t(10), 3600, &[(t(0), t(20))]), t(21));
        // One after the deadline changes nothing; overlapping ones merge.
        assert_eq!(paused_deadline(t(0), 3600, &[(t(5), t(9))]), t(1));
        assert_eq!(
            paused_deadline(t(0), 2 * 3600, &[(t(1), t(4)), (t(3), t(6))]),
            t(7)
        );
    }

    #[test]
    fn without_a_cap_every_turn_has_the_same_time() {
        let tc = TimeControl {
            per_move_secs: 3600,
            max_bank_secs: None,
        };
        let mut c = SeatClocks::started(&tc, t(0));
        c.moved(&tc, Seat::Red, t(0));
        assert_eq!(c.time_secs[Seat::Red.index()], 3600);
        assert!(tc.check().is_ok());
        assert!(
            TimeControl {
                per_move_secs: 10,
                max_bank_secs: None
            }
            .check()
            .is_err()
        );
    }
}
