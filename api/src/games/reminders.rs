//! Reminders before a deadline: due work like timeouts ([`super::due`]).
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
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Nullable, Text, Timestamp};
use serde_json::json;

use super::due::paused_deadline_of;
use super::state::GameState;
use crate::notifications::{settings, stable_id, vacation};
use crate::state::AppState;
use crate::store::DbConnection;
use crate::store::StoreError;
use crate::store::games::{self as game_store};
use crate::store::lease::Queue;

const BATCH: i64 = 100;

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
    user: String,
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
        user: user.to_string(),
        deadline,
        reminders: plan(start, deadline, &offsets),
    }))
}

fn upsert(
    conn: &mut DbConnection,
    game: &str,
    version: i64,
    at: Option<NaiveDateTime>,
) -> Result<(), StoreError> {
    let sql = "INSERT INTO reminder_schedule (game_id, version, remind_at, lease_until) \
               VALUES ($1, $2, $3, NULL) ON CONFLICT (game_id) DO UPDATE SET \
               version = excluded.version, remind_at = excluded.remind_at, lease_until = NULL \
               WHERE reminder_schedule.version <= excluded.version";
    match conn {
        DbConnection::Pg(c) => diesel::sql_query(sql)
            .bind::<Text, _>(game)
            .bind::<BigInt, _>(version)
            .bind::<Nullable<Timestamp>, _>(at)
            .execute(c)?,
        DbConnection::Sqlite(c) => diesel::sql_query(sql.replace('$', "?"))
            .bind::<Text, _>(game)
            .bind::<BigInt, _>(version)
            .bind::<Nullable<Timestamp>, _>(at)
            .execute(c)?,
    };
    Ok(())
}

fn insert_reminder(
    conn: &mut DbConnection,
    state: &GameState,
    turn: &Turn,
    offset: i64,
    now: NaiveDateTime,
) -> Result<usize, StoreError> {
    let version = state.version.to_string();
    let id = stable_id(&[&state.id, &version, "reminder", &offset.to_string()]);
    let payload = json!({
        "game_id": state.id, "version": state.version, "seat": state.to_move(),
        "deadline": turn.deadline.and_utc(), "offset_secs": offset,
    })
    .to_string();
    let sql = "INSERT INTO notifications (id, user_id, kind, game_id, version, payload, created_at) \
               VALUES ($1, $2, 'reminder', $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING";
    macro_rules! run {
        ($c:expr, $sql:expr) => {
            diesel::sql_query($sql)
                .bind::<Text, _>(&id)
                .bind::<Text, _>(&turn.user)
                .bind::<Text, _>(&state.id)
                .bind::<BigInt, _>(state.version)
                .bind::<Text, _>(&payload)
                .bind::<Timestamp, _>(now)
                .execute($c)?
        };
    }
    Ok(match conn {
        DbConnection::Pg(c) => run!(c, sql),
        DbConnection::Sqlite(c) => run!(c, sql.replace('$', "?")),
    })
}

#[derive(QueryableByName)]
struct Pending {
    #[diesel(sql_type = Text)]
    id: String,
}

/// Games whose schedule is missing or older than their version.
fn unscheduled(conn: &mut DbConnection) -> Result<Vec<String>, StoreError> {
    let sql = "SELECT g.id FROM games g LEFT JOIN reminder_schedule r ON r.game_id = g.id \
               WHERE g.due_at IS NOT NULL AND (r.game_id IS NULL OR r.version < g.version) \
               LIMIT 100";
    let rows: Vec<Pending> = match conn {
        DbConnection::Pg(c) => diesel::sql_query(sql).load(c)?,
        DbConnection::Sqlite(c) => diesel::sql_query(sql).load(c)?,
    };
    Ok(rows.into_iter().map(|r| r.id).collect())
}

/// The games whose next reminder is due.
const DUE_REMINDERS: Queue = Queue {
    table: "reminder_schedule",
    id: "game_id",
    due: "remind_at",
    lease: "lease_until",
    only: "",
};

fn claim(
    conn: &mut DbConnection,
    now: NaiveDateTime,
    until: NaiveDateTime,
) -> Result<Vec<String>, StoreError> {
    Ok(DUE_REMINDERS.claim(conn, now, until, BATCH)?)
}

/// Schedules one game's current turn; with `fire`, writes the reminders due by `now`.
fn handle(
    conn: &mut DbConnection,
    app: &AppState,
    id: &str,
    now: NaiveDateTime,
    fire: bool,
) -> Result<usize, StoreError> {
    let state = game_store::current_state(conn, &app.games, id)?;
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
    upsert(conn, id, state.version, next)?;
    Ok(written)
}

/// One pass; returns the reminders written.
pub fn pass(conn: &mut DbConnection, app: &AppState, lease: TimeDelta) -> usize {
    let now = app.clock.now();
    let mut written = 0;
    match unscheduled(conn) {
        Ok(ids) => {
            for id in ids {
                if let Err(e) = handle(conn, app, &id, now, false) {
                    tracing::warn!(game = %id, error = %e, "scheduling reminders failed");
                }
            }
        }
        Err(e) => tracing::warn!(error = %e, "finding games to remind failed"),
    }
    match claim(conn, now, now + lease) {
        Ok(ids) => {
            for id in ids {
                match handle(conn, app, &id, now, true) {
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
