//! Reminders before a deadline: due work like timeouts ([`super::due`]), run by the same
//! worker on the same connection.
//!
//! Each player chooses offsets (`reminder_offsets_secs`, default 24 h and 1 h). For the
//! turn of a timed game (a version), the reminder of offset `o` is due at
//! `deadline - o` (the deadline with the player's vacations), if that is after the turn
//! started (a 24 h reminder on a 1 h turn is pointless). It is a `reminder` notification
//! with the stable id (game, version, offset), inserted with `ON CONFLICT DO NOTHING`:
//! at most one per turn and offset, however many instances run.
//!
//! A small table, `reminder_schedule`, keeps per game the version it was computed for and
//! when its next reminder is due. Each pass (1) schedules the games whose version moved,
//! (2) claims the due rows (`FOR UPDATE SKIP LOCKED`, a lease), writes their reminders and
//! computes the next time.

use chrono::{NaiveDateTime, TimeDelta};
use serde_json::json;

use crate::ids::{GameId, UserId};
use crate::model::game_state::GameState;
use crate::notifications::vacation::paused_deadline_of;
use crate::notifications::{settings, stable_id, vacation};
use crate::store::cache::GameCache;
use crate::store::games::{self as game_store};
use crate::store::reminders::{self as schedule, Reminder};
use crate::store::{DbConnection, StoreError};

fn insert_reminder(
    conn: &mut DbConnection,
    state: &GameState,
    turn: &Turn,
    offset: i64,
    now: NaiveDateTime,
) -> Result<usize, StoreError> {
    let version = state.version.to_string();
    let id = stable_id(&[state.id.as_str(), &version, "reminder", &offset.to_string()]);
    let payload = json!({
        "game_id": state.id, "version": state.version, "seat": state.to_move(),
        "deadline": turn.deadline.and_utc(), "offset_secs": offset,
    })
    .to_string();
    schedule::insert_reminder(
        conn,
        &Reminder {
            id: &id,
            user: &turn.user,
            game: &state.id,
            version: state.version,
            payload: &payload,
            at: now,
        },
    )
}

/// The reminders of a turn: (offset, when), for offsets that fall inside the turn.
pub fn plan(
    turn_started: NaiveDateTime,
    deadline: NaiveDateTime,
    offsets: &[i64],
) -> Vec<(i64, NaiveDateTime)> {
    offsets
        .iter()
        .map(|&o| (o, deadline - TimeDelta::seconds(o)))
        .filter(|(_, at)| *at > turn_started)
        .collect()
}

struct Turn {
    user: UserId,
    deadline: NaiveDateTime,
    reminders: Vec<(i64, NaiveDateTime)>,
}

fn turn_of(
    conn: &mut DbConnection,
    state: &GameState,
    now: NaiveDateTime,
) -> Result<Option<Turn>, StoreError> {
    let (Some(user), Some(start)) = (state.to_move_user(), state.clocks.turn_started) else {
        return Ok(None);
    };
    if state.deadline().is_none() {
        return Ok(None);
    }
    let pauses = vacation::pauses(conn, user, now)?;
    let Some(deadline) = paused_deadline_of(state, &pauses) else {
        return Ok(None);
    };
    let offsets = settings::load(conn, user)?.reminder_offsets_secs;
    Ok(Some(Turn {
        user: user.clone(),
        deadline,
        reminders: plan(start, deadline, &offsets),
    }))
}

/// Schedules one game's current turn; with `fire`, writes the reminders due by `now`.
fn handle(
    conn: &mut DbConnection,
    games: &GameCache,
    id: &GameId,
    now: NaiveDateTime,
    fire: bool,
) -> Result<usize, StoreError> {
    let state = game_store::current_state(conn, games, id)?;
    let turn = turn_of(conn, &state, now)?;
    let mut written = 0;
    let next = match &turn {
        None => None,
        Some(t) => {
            if fire {
                for (offset, at) in &t.reminders {
                    if *at <= now && now < t.deadline {
                        written += insert_reminder(conn, &state, t, *offset, now)?;
                    }
                }
            }
            t.reminders
                .iter()
                .map(|(_, at)| *at)
                .filter(|at| !fire || *at > now)
                .min()
        }
    };
    schedule::upsert(conn, id, state.version, next)?;
    Ok(written)
}

/// One pass at `now`, on the due-work worker's connection; returns the reminders written.
pub fn pass(
    conn: &mut DbConnection,
    games: &GameCache,
    now: NaiveDateTime,
    lease: TimeDelta,
) -> usize {
    let mut written = 0;
    match schedule::unscheduled(conn) {
        Ok(ids) => {
            for id in ids {
                if let Err(e) = handle(conn, games, &id, now, false) {
                    tracing::warn!(game = %id, error = %e, "scheduling reminders failed");
                }
            }
        }
        Err(e) => tracing::warn!(error = %e, "finding games to remind failed"),
    }
    match schedule::claim(conn, now, now + lease) {
        Ok(ids) => {
            for id in ids {
                match handle(conn, games, &id, now, true) {
                    Ok(n) => written += n,
                    Err(e) => tracing::warn!(game = %id, error = %e, "reminders failed"),
                }
            }
        }
        Err(e) => tracing::warn!(error = %e, "claiming reminders failed"),
    }
    if written > 0 {
        tracing::info!(written, "reminders written");
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_inside_the_turn_only() {
        let t0 = chrono::DateTime::from_timestamp(1_800_000_000, 0)
            .unwrap()
            .naive_utc();
        let d = t0 + TimeDelta::hours(30);
        let p = plan(t0, d, &[86_400, 3_600, 200_000]);
        assert_eq!(
            p,
            vec![
                (86_400, t0 + TimeDelta::hours(6)),
                (3_600, t0 + TimeDelta::hours(29))
            ]
        );
    }
}
