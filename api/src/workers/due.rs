//! Work the clock makes due: a worker in every server process finds the games whose
//! `due_at` (the deadline of the seat to move, or when a computer player is to move the
//! time of the last event; computed by [`crate::store::games::GameRow::of`]) has passed and runs
//! the command [`crate::games::bots::bot_command`] or [`due_command`] decides for each, through
//! the one write path ([`commands::execute`]) as [`Actor::System`].
//!
//! Several instances on one PostgreSQL database share the work: a pass *claims* due games
//! with one statement, `UPDATE games SET due_lease_until = now + lease WHERE id IN (SELECT
//! id ... WHERE due_at <= now AND lease free ... FOR UPDATE SKIP LOCKED)`, so each game
//! goes to one instance at a time; the lease (a column outside the projection, which
//! appends never touch) is released after the game was handled, or runs out if the
//! instance died. SQLite runs one instance; its claim is the same statement without
//! `SKIP LOCKED` (writers are serialised anyway).
//!
//! Races with players are settled by the append protocol, not by the lease: the command
//! carries the version it was decided at (`expected`), so if a move commits first the
//! timeout fails with a version conflict and is dropped; if the timeout commits first, the
//! move meets a moved version (412) or is decided again on the new state and refused. Of
//! the two, whichever commits first wins and the other writes nothing.
//!
//! Nothing is lost while no server runs: the due games are in the database, and the
//! first pass runs as soon as a server starts.

use std::time::Duration;

use std::sync::Arc;

use chrono::{NaiveDateTime, TimeDelta};

use crate::clock::Clock;
use crate::games::bots::{self, BotSettings};
use crate::games::commands::{self, Actor, Command, CommandError, Write};
use crate::model::game_state::GameState;
use crate::notifications::vacation::paused_deadline_of;
use crate::shutdown::{Pace, Shutdown};
use crate::store::cache::GameCache;
use crate::store::games::{self as game_store};
use crate::store::{self, DbConnection, DbPool};

/// What the due-work worker needs: the store, the clock, the game cache the commands
/// share with the requests, the computer players' settings, and its pace.
#[derive(Debug, Clone)]
pub struct DueWork {
    pub pool: DbPool,
    pub clock: Arc<dyn Clock>,
    pub games: Arc<GameCache>,
    pub bots: BotSettings,
    /// How often a pass runs (`DJAMBI_DUE_INTERVAL`).
    pub every: Duration,
    /// How long a claimed game is held (`DJAMBI_DUE_LEASE`).
    pub lease: Duration,
}

/// Games claimed by one statement.
pub const BATCH: i64 = 100;

/// What is due in a game at `now`, if anything. Pure: the worker calls it on the game's
/// current state; more kinds of due work (a computer player's move) go here.
pub fn due_command(state: &GameState, now: NaiveDateTime) -> Option<Command> {
    due_command_paused(state, now, &[])
}

/// [`due_command`] when the player to move has `pauses` (vacations): its clock does not
/// run during them ([`crate::model::timing::paused_deadline`]).
pub fn due_command_paused(
    state: &GameState,
    now: NaiveDateTime,
    pauses: &[(NaiveDateTime, NaiveDateTime)],
) -> Option<Command> {
    let seat = state.to_move()?;
    let deadline = paused_deadline_of(state, pauses)?;
    (deadline <= now).then_some(Command::TimeOut { seat })
}

/// What one pass did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Pass {
    pub claimed: usize,
    /// Commands written.
    pub written: usize,
    /// Commands another write overtook (a move committed first): nothing written.
    pub overtaken: usize,
    pub failed: usize,
}

/// Handles one claimed game: `Ok(true)` if a command was written, `Ok(false)` if nothing
/// was due any more or another write came first. Bot moves due one after the other (a
/// game with only bots left) are played in a row under the same claim, up to
/// [`bots::RUN_MOVES`] moves or [`bots::RUN_BUDGET`].
pub fn handle(
    conn: &mut DbConnection,
    work: &DueWork,
    clock: &dyn Clock,
    id: &str,
) -> Result<bool, CommandError> {
    let settings = &work.bots;
    let started = std::time::Instant::now();
    let (mut wrote, mut moves) = (false, 0);
    loop {
        let state = game_store::current_state(conn, &work.games, id)?;
        let now = clock.now();
        let bot = bots::bot_command(&state, now, settings);
        let bot_turn = bot.is_some();
        let command = match bot {
            Some(command) => command,
            None => {
                let pauses = match state.to_move_user() {
                    Some(u) => crate::notifications::vacation::pauses(conn, u, now)?,
                    None => Vec::new(),
                };
                let Some(command) = due_command_paused(&state, now, &pauses) else {
                    // On vacation: the deadline moved; look again then, not at every pass
                    // (unless a computer player owes an answer to a draw offer: soon).
                    if let Some(d) = paused_deadline_of(&state, &pauses)
                        .filter(|_| state.bot_to_answer_draw().is_none())
                    {
                        store::due::postpone(conn, id, state.version, d)?;
                    }
                    return Ok(wrote);
                };
                command
            }
        };
        let write = Write {
            game_id: id.to_string(),
            command,
            actor: Actor::System,
            expected: Some(state.version),
            session: None,
        };
        match commands::execute(conn, &work.games, clock, &write) {
            Ok(written) => {
                tracing::info!(game = %id, version = written.state.version, "due command written");
                wrote = true;
            }
            // A player's write committed first: it wins, this decision is void.
            Err(CommandError::VersionConflict { .. } | CommandError::Conflict(_)) => {
                return Ok(wrote);
            }
            Err(e) => return Err(e),
        }
        moves += 1;
        if !bot_turn || moves >= bots::RUN_MOVES || started.elapsed() >= bots::RUN_BUDGET {
            return Ok(true);
        }
    }
}

/// One pass: claim and handle due games until none is left.
pub fn pass(conn: &mut DbConnection, work: &DueWork, lease: TimeDelta) -> Pass {
    let clock = work.clock.clone();
    let mut done = Pass::default();
    loop {
        let ids = match store::due::claim(conn, clock.now(), lease, BATCH) {
            Ok(ids) => ids,
            Err(e) => {
                tracing::warn!(error = %e, "claiming due games failed");
                return done;
            }
        };
        done.claimed += ids.len();
        for id in &ids {
            match handle(conn, work, &*clock, id) {
                Ok(true) => done.written += 1,
                Ok(false) => done.overtaken += 1,
                Err(e) => {
                    // The lease stays: the game is tried again when it runs out.
                    tracing::warn!(game = %id, error = %e, "due command failed");
                    done.failed += 1;
                    continue;
                }
            }
            if let Err(e) = store::due::release(conn, id) {
                tracing::warn!(game = %id, error = %e, "releasing a due game failed");
            }
        }
        if (ids.len() as i64) < BATCH {
            return done;
        }
    }
}

/// Starts the worker on the server's runtime: a pass at once (overdue deadlines of the
/// time no server ran), then one every `work.every`, until the server stops. Each pass
/// also runs the reminders ([`super::reminders`]) on the same connection.
pub fn spawn(work: DueWork, shutdown: &Shutdown) {
    let every = work.every.max(Duration::from_millis(1));
    let Ok(lease) = TimeDelta::from_std(work.lease) else {
        return;
    };
    shutdown.spawn_periodic("due", every, move || {
        let work = work.clone();
        async move {
            let pool = work.pool.clone();
            let result = store::run(&pool, move |conn| {
                let p = pass(conn, &work, lease);
                super::reminders::pass(conn, &work.games, work.clock.now(), lease);
                Ok::<_, store::RunError>(p)
            })
            .await;
            match result {
                Ok(p) if p.claimed > 0 => tracing::debug!(?p, "due pass"),
                Ok(_) => {}
                Err(e) => tracing::warn!(error = %e, "due pass could not run"),
            }
            Pace::Rest
        }
    });
}
