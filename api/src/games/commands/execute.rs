//! The execution protocol of a command: read the state, [`decide`], append with the
//! store's protocol, retry what a retry may cure (see the module documentation of
//! [`super`]). With an [`Idempotent`] key, the lookup of an earlier answer, the session
//! check and the storing of the new answer happen in the write's own transaction.

use crate::games::deadlines::Vacations;
use crate::ids::UserId;
use std::time::Duration;

use super::decide::decide;
use super::{CommandError, MAX_ATTEMPTS, Write, Written};
use crate::clock::Clock;
use crate::notifications;
use crate::store::cache::GameCache;
use crate::store::games as game_store;
use crate::store::idempotency::{self, Lookup};
use crate::store::{self, DbConnection, StoreError};

/// An idempotent write: the caller's key and the hash of its request, and the answer
/// rendered from what the write wrote (a pure function), stored under the key.
pub struct Idempotent<'a> {
    pub user_id: &'a UserId,
    pub key: &'a str,
    pub request_hash: &'a str,
    pub render: &'a dyn Fn(&mut DbConnection, &Written) -> Result<serde_json::Value, StoreError>,
}

/// What an idempotent write did: wrote (and stored its answer), or found the answer of
/// the same request stored before.
pub enum Done {
    Wrote(Written, serde_json::Value),
    Replayed(serde_json::Value),
}

/// A caller's own step, run in the write's transaction after the append (a refusal
/// rolls the whole write back).
pub type Step<'a> = &'a dyn Fn(&mut DbConnection, &Written) -> Result<(), CommandError>;

/// Runs a write (see the module documentation). Blocking: call it on a blocking thread.
pub fn execute(
    conn: &mut DbConnection,
    cache: &GameCache,
    clock: &dyn Clock,
    write: &Write,
) -> Result<Written, CommandError> {
    execute_with(conn, cache, clock, write, None)
}

/// [`execute`] with a step of the caller's in the write's transaction (the normal path).
pub fn execute_with(
    conn: &mut DbConnection,
    cache: &GameCache,
    clock: &dyn Clock,
    write: &Write,
    step: Option<Step<'_>>,
) -> Result<Written, CommandError> {
    match run(conn, cache, clock, write, None, step)? {
        Done::Wrote(written, _) => Ok(written),
        Done::Replayed(_) => Err(CommandError::Store(StoreError::Corrupt(
            "a write without a key was replayed".into(),
        ))),
    }
}

/// [`execute`] under an `Idempotency-Key`.
pub fn execute_idempotent(
    conn: &mut DbConnection,
    cache: &GameCache,
    clock: &dyn Clock,
    write: &Write,
    key: &Idempotent<'_>,
) -> Result<Done, CommandError> {
    run(conn, cache, clock, write, Some(key), None)
}

fn run(
    conn: &mut DbConnection,
    cache: &GameCache,
    clock: &dyn Clock,
    write: &Write,
    key: Option<&Idempotent<'_>>,
    step: Option<Step<'_>>,
) -> Result<Done, CommandError> {
    let create = write.command.creates_game();
    let mut last_failure = String::new();
    for attempt in 0..MAX_ATTEMPTS {
        if attempt > 0 {
            backoff(attempt);
        }
        if key.is_none() && step.is_none() && !create {
            match fast_path(conn, cache, clock, write) {
                Ok(Some(written)) => {
                    cache.put(written.state.clone());
                    return Ok(Done::Wrote(written, serde_json::Value::Null));
                }
                Ok(None) => {}
                Err(failure) => match settle(conn, write, failure) {
                    Ok(why) => {
                        last_failure = why;
                        continue;
                    }
                    Err(e) => return Err(e),
                },
            }
        }
        match attempt_in_transaction(conn, cache, clock, write, key, step) {
            Ok(Done::Wrote(written, answer)) => {
                cache.put(written.state.clone());
                return Ok(Done::Wrote(written, answer));
            }
            Ok(replayed) => return Ok(replayed),
            Err(failure) => last_failure = settle(conn, write, failure)?,
        }
        if create {
            break;
        }
    }
    tracing::warn!(
        game = %write.game_id,
        command = write.command.name(),
        %last_failure,
        "write gave up after {MAX_ATTEMPTS} attempts"
    );
    Err(CommandError::Busy(
        "the game is busy with concurrent writes; retry shortly".into(),
    ))
}

/// What a failed attempt means: `Ok(reason)` to try again, or the final error.
fn settle(conn: &mut DbConnection, write: &Write, failure: Retry) -> Result<String, CommandError> {
    match failure {
        Retry::Moved => match moved(conn, write) {
            Retry::Fail(e) => Err(e),
            Retry::Again(why) => Ok(why),
            Retry::Moved => Ok("the version moved".into()),
        },
        Retry::Again(why) => Ok(why),
        Retry::Fail(e) => Err(e),
    }
}

/// A short random pause before attempt `attempt` (1-based), growing with each attempt.
fn backoff(attempt: u32) {
    use rand::Rng;
    let cap_ms = 2u64.saturating_pow(attempt.min(6));
    let ms = rand::thread_rng().gen_range(0..=cap_ms);
    std::thread::sleep(Duration::from_millis(ms));
}

/// How one attempt failed.
enum Retry {
    /// Another write claimed the version first (see [`moved`]).
    Moved,
    /// Try again (the reason is logged if every attempt fails).
    Again(String),
    Fail(CommandError),
}

impl From<CommandError> for Retry {
    fn from(e: CommandError) -> Self {
        match e {
            CommandError::Store(StoreError::Transient(why)) => Retry::Again(why),
            other => Retry::Fail(other),
        }
    }
}

impl From<diesel::result::Error> for Retry {
    fn from(e: diesel::result::Error) -> Self {
        CommandError::from(e).into()
    }
}

/// Maps "the version moved" for this write: a conflict when it named its version, else
/// another attempt.
fn moved(conn: &mut DbConnection, write: &Write) -> Retry {
    tracing::debug!(game = %write.game_id, "version moved during a write");
    match write.expected {
        Some(expected) => match game_store::current_version(conn, &write.game_id) {
            Ok(current_version) => Retry::Fail(CommandError::VersionConflict {
                expected,
                current_version,
            }),
            Err(e) => CommandError::from(e).into(),
        },
        None if write.command.creates_game() => Retry::Fail(CommandError::Conflict(format!(
            "a game {} already exists",
            write.game_id
        ))),
        None => Retry::Again("the version moved".into()),
    }
}

/// One attempt of the normal path, in a transaction: the session check (the one check
/// of this path), the stored answer of the same request if any, the version check, the
/// decision, the append with its outbox rows, and the answer stored under the key.
fn attempt_in_transaction(
    conn: &mut DbConnection,
    cache: &GameCache,
    clock: &dyn Clock,
    write: &Write,
    key: Option<&Idempotent<'_>>,
    step: Option<Step<'_>>,
) -> Result<Done, Retry> {
    store::transaction(conn, |conn| -> Result<Done, Retry> {
        if let Some(session) = &write.session {
            // Only a player's write carries a session.
            let live = match write.actor.account() {
                Some(user) => {
                    game_store::session_is_live(conn, session, user).map_err(CommandError::from)?
                }
                None => false,
            };
            if !live {
                return Err(Retry::Fail(CommandError::SessionEnded));
            }
        }
        if let Some(key) = key {
            match idempotency::lookup(conn, key.user_id, key.key, key.request_hash)
                .map_err(CommandError::from)?
            {
                Lookup::New => {}
                Lookup::Replay(body) => return Ok(Done::Replayed(body)),
                Lookup::Reused => {
                    return Err(Retry::Fail(CommandError::IdempotencyKeyReused(
                        key.key.to_string(),
                    )));
                }
            }
        }
        let (version, before) = if write.command.creates_game() {
            (0, None)
        } else {
            let version =
                game_store::current_version(conn, &write.game_id).map_err(CommandError::from)?;
            if let Some(expected) = write.expected {
                if expected != version {
                    return Err(Retry::Fail(CommandError::VersionConflict {
                        expected,
                        current_version: version,
                    }));
                }
            }
            let state = game_store::state_at(conn, cache, &write.game_id, version, true)
                .map_err(CommandError::from)?;
            (version, Some(state))
        };
        let mut pending = decide(write, before.as_deref(), clock.now())?;
        if let Some(state) = before.as_deref().filter(|b| b.rated) {
            if pending.events.iter().any(|e| e.kind() == "ended") {
                // A rated game ends: lock its players' rating rows, then decide again at
                // the time read after the lock, so `ended_at` follows the order in which
                // the ratings change (see `ratings::lock_players`).
                crate::ratings::lock_players(conn, state, clock.now())
                    .map_err(CommandError::from)?;
                pending = decide(write, before.as_deref(), clock.now())?;
            }
        }
        let written = pending.into_written(before, version)?;
        if let (Some(q), Some(user)) = (&write.quotas, write.actor.account()) {
            crate::games::quotas::check(
                conn,
                q,
                &write.command,
                written.before.as_deref(),
                &written.state,
                user,
                clock.now(),
            )?;
        }
        match game_store::append(
            conn,
            version,
            &written.events,
            write.actor.account(),
            &written.state,
        ) {
            Ok(()) => {}
            Err(StoreError::VersionMoved) => return Err(Retry::Moved),
            Err(e) => return Err(CommandError::from(e).into()),
        }
        let deadline = Vacations::new(conn, clock.now())
            .of_state(&written.state)
            .map_err(CommandError::from)?;
        if written.ends_game() {
            crate::ratings::apply_ended(conn, &written.state).map_err(CommandError::from)?;
        }
        let notes = notifications::plan(written.wrote(deadline), write.actor.account());
        let notes = crate::games::conditional::quiet_turn(conn, &written.state, notes)
            .map_err(CommandError::from)?;
        store::outbox::enqueue(conn, &notes).map_err(CommandError::from)?;
        if let Some(step) = step {
            step(conn, &written)?;
        }
        let Some(key) = key else {
            return Ok(Done::Wrote(written, serde_json::Value::Null));
        };
        let answer = (key.render)(conn, &written).map_err(CommandError::from)?;
        idempotency::store(
            conn,
            key.user_id,
            key.key,
            key.request_hash,
            &answer,
            written.state.updated_at,
        )
        .map_err(|e| match e {
            // A twin request with the same key was written first: roll back; the caller
            // answers with the twin's stored answer.
            StoreError::VersionMoved => Retry::Fail(CommandError::Conflict(
                "a concurrent request with the same key was written first".into(),
            )),
            other => CommandError::from(other).into(),
        })?;
        Ok(Done::Wrote(written, answer))
    })
}

/// The one-statement write of the module documentation; `Ok(None)` when it does not
/// apply (or the command refused: the normal path then answers).
fn fast_path(
    conn: &mut DbConnection,
    cache: &GameCache,
    clock: &dyn Clock,
    write: &Write,
) -> Result<Option<Written>, Retry> {
    if !matches!(conn, DbConnection::Pg(_)) {
        return Ok(None);
    }
    // Seating a bot may leave a game to bots alone: its quota is checked on the normal path.
    if write.quotas.is_some() && matches!(write.command, super::Command::SeatBot { .. }) {
        return Ok(None);
    }
    let before = match write.expected {
        Some(expected) => cache
            .get_at_most(&write.game_id, expected)
            .filter(|s| s.version == expected),
        None => cache.latest(&write.game_id),
    };
    let Some(before) = before else {
        return Ok(None);
    };
    let Ok(pending) = decide(write, Some(&before), clock.now()) else {
        return Ok(None);
    };
    let version = before.version;
    // A rated game's end changes ratings in its own transaction: the normal path.
    let rated_end = before.rated && pending.events.iter().any(|e| e.kind() == "ended");
    if rated_end || !game_store::fits_one_statement(version, &pending.events) {
        return Ok(None);
    }
    let written = pending.into_written(Some(before), version)?;
    let guard = write.session.as_ref().zip(write.actor.account());
    let deadline = Vacations::new(conn, clock.now())
        .of_state(&written.state)
        .map_err(CommandError::from)?;
    // No `quiet_turn` read here: the statement itself leaves out a `your_turn` to a
    // player with conditional moves stored for the seat (see `append_in_one_statement`).
    let notes = notifications::plan(written.wrote(deadline), write.actor.account());
    let DbConnection::Pg(pg) = conn else {
        return Ok(None);
    };
    match game_store::append_in_one_statement(
        pg,
        version,
        &written.events,
        write.actor.account(),
        &written.state,
        guard,
        &notes,
    ) {
        Ok(true) => Ok(Some(written)),
        // Nothing written: the version moved, or the session ended.
        Ok(false)
            if guard.is_some_and(|(sid, uid)| {
                !game_store::session_is_live(conn, sid, uid).unwrap_or(true)
            }) =>
        {
            Err(Retry::Fail(CommandError::SessionEnded))
        }
        // Moved on: a stale client is answered by `moved`; a command without an expected
        // version goes down the normal path, which reads the current version.
        Ok(false) if write.expected.is_some() => Err(Retry::Moved),
        Ok(false) => Ok(None),
        Err(StoreError::VersionMoved) => Err(Retry::Moved),
        Err(e) => Err(CommandError::from(e).into()),
    }
}
