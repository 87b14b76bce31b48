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
//!
//! # Fair and concurrent
//!
//! Claimed games are worked on concurrently, up to `DJAMBI_DUE_CONCURRENCY` at once; a
//! claim's lease (`DJAMBI_DUE_LEASE`, short) is renewed every third of it while its work
//! runs, so a crashed instance's games are taken over within one lease. Computer players
//! search on [`super::bot_pool`]'s threads (never a request thread, never the database's
//! blocking pool), games with people first. A game of bots alone plays ONE move per claim,
//! then is due again only after `1 / DJAMBI_BOT_ONLY_PLIES_PER_SEC`, and when the bot-only
//! search threads are busy it yields (is postponed) instead of waiting: one busy game never
//! holds up another. Deadlines (timeouts) never wait for a search; the reminders run on
//! their own loop. The worker sleeps until the next due time (read from the `due_at`
//! index, one query) or `DJAMBI_DUE_INTERVAL`, whichever is sooner, and is woken when any
//! game changes (the live signals, `crate::live`).

use std::time::Duration;

use std::sync::Arc;

use chrono::{NaiveDateTime, TimeDelta};

use crate::clock::Clock;
use crate::games::bots::{self, BotSettings};
use crate::games::commands::{self, Actor, Command, CommandError, Write};
use crate::ids::GameId;
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
    /// How long a claimed game is held (`DJAMBI_DUE_LEASE`), renewed while it is worked on.
    pub lease: Duration,
    /// Games worked on at once (`DJAMBI_DUE_CONCURRENCY`).
    pub concurrency: usize,
    /// Where the bots search.
    pub searches: Arc<super::bot_pool::BotPool>,
    /// The least time between two moves of a bot-only game.
    pub bot_only_gap: Duration,
    /// Woken when a game changed (see `crate::live`).
    pub wake: Arc<tokio::sync::Notify>,
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
    id: &GameId,
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
            game_id: id.clone(),
            command,
            actor: Actor::System,
            expected: Some(state.version),
            session: None,
            quotas: None,
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

/// Handles one claimed game on the concurrent path: a bot's turn is searched on the bot
/// pool, a deadline is written at once. `Ok(true)` if something was written.
pub async fn handle_game(work: &DueWork, id: &GameId) -> Result<bool, CommandError> {
    let (games, i) = (work.games.clone(), id.clone());
    let state = store::run(&work.pool, move |conn| {
        Ok::<_, CommandError>(game_store::current_state(conn, &games, &i)?)
    })
    .await?;
    let now = work.clock.now();
    if state.bot_to_move().is_none() {
        // A deadline: the one synchronous path, no search in it.
        let (w, i) = (work.clone(), id.clone());
        return store::run(&work.pool, move |conn| handle(conn, &w, &*w.clock, &i)).await;
    }
    let only_bots = state.only_bots_active();
    let (version, last_event) = (state.version, state.updated_at);
    if only_bots && work.searches.background_full() {
        // Yield: the bot-only search threads are busy; try again a little later.
        postpone(work, id, version, now, work.bot_only_gap).await;
        return Ok(false);
    }
    let settings = work.bots;
    let decided = work
        .searches
        .run(!only_bots, move || {
            bots::bot_command(&state, now, &settings)
        })
        .await;
    let Some(command) = decided.flatten() else {
        if !only_bots {
            // Not yet: the bot's delay runs from the last event.
            let at = state_time_plus(last_event, work.bots.delay);
            // (No move at all after the delay: look again in a second, not at once.)
            let at = if at > now {
                at
            } else {
                state_time_plus(now, Duration::from_secs(1))
            };
            let (i, pool) = (id.clone(), work.pool.clone());
            let _ = store::run(&pool, move |conn| {
                store::due::postpone(conn, &i, version, at).map_err(CommandError::from)
            })
            .await;
        }
        return Ok(false);
    };
    let write = Write {
        game_id: id.clone(),
        command,
        actor: Actor::System,
        expected: Some(version),
        session: None,
        quotas: None,
    };
    let (w, clock) = (work.clone(), work.clock.clone());
    let written = store::run(&work.pool, move |conn| {
        match commands::execute(conn, &w.games, &*clock, &write) {
            Ok(written) => Ok(Some(written.state.version)),
            Err(CommandError::VersionConflict { .. } | CommandError::Conflict(_)) => Ok(None),
            Err(e) => Err(e),
        }
    })
    .await?;
    let Some(new_version) = written else {
        return Ok(false);
    };
    tracing::info!(game = %id, version = new_version, "bot move written");
    if only_bots {
        postpone(work, id, new_version, work.clock.now(), work.bot_only_gap).await;
    }
    Ok(true)
}

/// `now + delay`, saturating.
fn state_time_plus(now: NaiveDateTime, delay: Duration) -> NaiveDateTime {
    TimeDelta::from_std(delay)
        .ok()
        .and_then(|d| now.checked_add_signed(d))
        .unwrap_or(now)
}

/// Makes a game due again only after `gap` (if it is still at `version`).
async fn postpone(work: &DueWork, id: &GameId, version: i64, now: NaiveDateTime, gap: Duration) {
    let (i, at) = (id.clone(), state_time_plus(now, gap));
    let done = store::run(&work.pool, move |conn| {
        store::due::postpone(conn, &i, version, at)
    })
    .await;
    if let Err(e) = done {
        tracing::warn!(game = %id, error = %e, "postponing a game failed");
    }
}

/// Works on one claimed game, renewing its lease meanwhile, then releases it (a failure
/// keeps the lease: the game is tried again when it runs out).
async fn work_on(work: DueWork, id: GameId) {
    let lease = TimeDelta::from_std(work.lease).unwrap_or(TimeDelta::seconds(6));
    let renewing = {
        let (w, i) = (work.clone(), id.clone());
        tokio::spawn(async move {
            let every = (w.lease / 3).max(Duration::from_millis(100));
            loop {
                tokio::time::sleep(every).await;
                let (i2, until) = (i.clone(), w.clock.now() + lease);
                let renewed =
                    store::run(&w.pool, move |conn| store::due::renew(conn, &i2, until)).await;
                if !matches!(renewed, Ok(true)) {
                    tracing::warn!(game = %i, "the lease of a due game was lost");
                    return;
                }
            }
        })
    };
    let result = handle_game(&work, &id).await;
    renewing.abort();
    match result {
        Ok(_) => {
            let i = id.clone();
            match store::run(&work.pool, move |conn| store::due::release(conn, &i)).await {
                // The pass that the write itself woke may have run before this release and
                // passed the game over as leased (its next bot turn included), then slept
                // for `DJAMBI_DUE_INTERVAL`: a bot answered after 5 s instead of its delay.
                Ok(_) => work.wake.notify_one(),
                Err(e) => tracing::warn!(game = %id, error = %e, "releasing a due game failed"),
            }
        }
        Err(e) => tracing::warn!(game = %id, error = %e, "due command failed"),
    }
}

/// One pass: claim and handle due games until none is left (one after the other, on the
/// caller's connection; the server runs the concurrent loop of [`spawn`] instead).
pub fn pass(conn: &mut DbConnection, work: &DueWork, lease: TimeDelta) -> Pass {
    let clock = work.clock.clone();
    let mut done = Pass::default();
    let tended = crate::games::conditional::pass(conn, &work.games, &*clock, BATCH);
    done.written += tended.played;
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

/// Starts the worker on the server's runtime: claims what is due (at once: overdue
/// deadlines of the time no server ran), works on each claimed game concurrently (see the
/// module documentation), sleeps until the next due time, a game change or
/// `work.every`, until the server stops. The reminders run on a loop of their own.
pub fn spawn(work: DueWork, shutdown: &Shutdown) {
    let every = work.every.max(Duration::from_millis(1));
    let Ok(lease) = TimeDelta::from_std(work.lease) else {
        return;
    };
    let reminders = work.clone();
    shutdown.spawn_periodic("reminders", every, move || {
        let work = reminders.clone();
        async move {
            let pool = work.pool.clone();
            let done = store::run(&pool, move |conn| {
                super::reminders::pass(conn, &work.games, work.clock.now(), lease);
                Ok::<_, store::RunError>(())
            })
            .await;
            if let Err(e) = done {
                tracing::warn!(error = %e, "reminders pass could not run");
            }
            Pace::Rest
        }
    });
    let stop = shutdown.token();
    /// The shortest time between two passes started by wakes.
    const WAKE_GAP: Duration = Duration::from_millis(100);
    shutdown.spawn("due", async move {
        let slots = Arc::new(tokio::sync::Semaphore::new(work.concurrency.max(1)));
        let mut woken_at: Option<std::time::Instant> = None;
        while !stop.is_cancelled() {
            // A wake (a game changed) starts a pass at most every WAKE_GAP: under many
            // moves a second, each batch of signals used to cost a claim and a read.
            if let Some(at) = woken_at.take() {
                let gap = WAKE_GAP.saturating_sub(at.elapsed());
                if !gap.is_zero() {
                    tokio::time::sleep(gap).await;
                }
            }
            let free = slots.available_permits();
            let mut claimed = 0;
            if free > 0 {
                let now = work.clock.now();
                let claim = store::run(&work.pool, move |conn| {
                    store::due::claim(conn, now, lease, free as i64)
                })
                .await;
                let ids = claim.unwrap_or_else(|e| {
                    tracing::warn!(error = %e, "claiming due games failed");
                    Vec::new()
                });
                claimed = ids.len();
                for id in ids {
                    let Ok(permit) = slots.clone().acquire_owned().await else {
                        return;
                    };
                    let w = work.clone();
                    tokio::spawn(async move {
                        work_on(w, id).await;
                        drop(permit);
                    });
                }
            }
            // Conditional answers: no delay, one per tree per pass, the longest waiting
            // games first (a game full of trees cannot starve the others).
            let (games, clock) = (work.games.clone(), work.clock.clone());
            let tended = store::run(&work.pool, move |conn| {
                Ok::<_, store::RunError>(crate::games::conditional::pass(
                    conn, &games, &*clock, BATCH,
                ))
            })
            .await;
            if let Ok(t) = tended {
                if t.played > 0 {
                    tracing::debug!(played = t.played, "conditional answers written");
                }
            }
            // More may be due at once: go on while claims fill the free places.
            let rest = if free == 0 {
                Duration::from_millis(20)
            } else if claimed == free {
                continue;
            } else {
                let now = work.clock.now();
                let next = store::run(&work.pool, move |conn| store::due::next_due(conn, now))
                    .await
                    .ok()
                    .flatten();
                match next {
                    Some(at) if at <= now => Duration::from_millis(20),
                    Some(at) => (at - now).to_std().unwrap_or(every).min(every),
                    None => every,
                }
            };
            let wait = std::pin::pin!(tokio::time::sleep(rest.max(Duration::from_millis(5))));
            let woken = std::pin::pin!(work.wake.notified());
            let stopped = std::pin::pin!(stop.cancelled());
            let passed = std::time::Instant::now();
            if let futures_util::future::Either::Right((
                futures_util::future::Either::Right(_),
                _,
            )) = futures_util::future::select(stopped, futures_util::future::select(wait, woken))
                .await
            {
                woken_at = Some(passed);
            }
        }
    });
}
