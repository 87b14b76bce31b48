//! Conditional moves: a seat's player stores a tree of the lines they expect (the model,
//! its checks and its match are [`crate::model::conditional`]); the server plays their
//! answer when the game reaches their turn along a line.
//!
//! - [`put`], [`get`], [`delete`]: the player's own tree (private: nobody else reads it,
//!   and no view of the game, its log, record or streams joins the table). Storing needs
//!   the game's version the tree was built at (`If-Match`); every line is checked on the
//!   game as it is then, and a refused tree stores nothing.
//! - [`tend`]: when a game moved past the version its trees were last matched at, each
//!   tree is matched against the actions since its base. A match on the seat's turn
//!   plays the answer through the one write path ([`commands::execute_with`]) as
//!   [`Command::ConditionalMove`] with the player as the actor and the version it was
//!   decided at; the tree's continuation replaces it in the same transaction (guarded by
//!   its revision: a tree replaced or deleted meanwhile rolls the move back). A mismatch
//!   (a move no line expected, a resignation, a timeout) discards the tree and tells the
//!   player. The due-work worker ([`crate::workers::due`]) runs it on every pass, woken
//!   by every game change, so the answer follows the write that made it the seat's turn
//!   at once; the trees are kept in the database, so a restart between the match and the
//!   move loses nothing.
//! - A race with the player's manual move is two writes at one version: exactly one
//!   wins. A manual move that differs from the line's answer is a mismatch: the tree is
//!   discarded.
//! - [`quiet_turn`]: the write that makes it the seat's turn sends no `your_turn` when
//!   the seat's player has a tree stored; the pass plays the answer, or, when the tree
//!   goes without an answer on that turn (a mismatch, a tree played to its end, deleted
//!   or replaced before the pass), sends that `your_turn` in the same transaction.

use chrono::NaiveDateTime;
use domain::{Action, Seat};
use serde_json::json;

use super::Ctx;
use super::commands::{self, Actor, Command, CommandError, Write, Written};
use crate::clock::Clock;
use crate::games::deadlines::Vacations;
use crate::ids::{GameId, UserId};
use crate::model::conditional::{LineError, Next, Tree, describe};
use crate::model::events::Status;
use crate::model::game_state::GameState;
use crate::notifications::stable_id;
use crate::store::cache::GameCache;
use crate::store::conditional_moves::{self as tree_store, TreeRow};
use crate::store::games as game_store;
use crate::store::outbox::NotificationRow;
use crate::store::{self, DbConnection, StoreError};

/// The notification kind of an answer played.
pub const PLAYED: &str = "conditional_played";
/// The notification kind of a tree discarded on a mismatch.
pub const DISCARDED: &str = "conditional_discarded";

/// Why a tree was not read, stored or deleted. Nothing changed in every case.
#[derive(Debug, thiserror::Error)]
pub enum ConditionalError {
    #[error("no game {0}")]
    NotFound(String),
    #[error("{0}")]
    Forbidden(String),
    #[error("the game's version the tree was built at is required (If-Match)")]
    PreconditionRequired,
    #[error("expected version {expected}, the game is at {current_version}")]
    VersionConflict { expected: i64, current_version: i64 },
    #[error("{0}")]
    GameNotStarted(String),
    #[error("{0}")]
    GameOver(String),
    #[error("{0}")]
    Conflict(String),
    /// A line that does not hold: which line, which ply, why.
    #[error(transparent)]
    Invalid(LineError),
    #[error(transparent)]
    Store(StoreError),
}

impl From<StoreError> for ConditionalError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::NotFound(id) => ConditionalError::NotFound(id),
            other => ConditionalError::Store(other),
        }
    }
}

impl From<store::RunError> for ConditionalError {
    fn from(e: store::RunError) -> Self {
        StoreError::from(e).into()
    }
}

/// A stored tree, as its player reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct TreeView {
    pub seat: Seat,
    /// The game's version the lines start from.
    pub base_version: i64,
    /// The lines in canonical text (see [`crate::model::conditional`]).
    pub lines: Vec<String>,
    pub updated_at: NaiveDateTime,
}

impl TreeView {
    fn of(row: &TreeRow, seat: Seat) -> TreeView {
        TreeView {
            seat,
            base_version: row.base_version,
            lines: row
                .lines
                .lines()
                .filter(|l| !l.is_empty())
                .map(str::to_string)
                .collect(),
            updated_at: row.updated_at,
        }
    }
}

/// The game's state, when `user` holds `seat` in it.
fn owned(
    conn: &mut DbConnection,
    cache: &GameCache,
    game: &GameId,
    user: &UserId,
    seat: Seat,
) -> Result<std::sync::Arc<GameState>, ConditionalError> {
    let state = game_store::current_state(conn, cache, game)?;
    if state.player(seat) != Some(user) {
        return Err(ConditionalError::Forbidden(format!(
            "seat {seat} is not yours: only its player reads or writes its conditional moves"
        )));
    }
    Ok(state)
}

/// The caller's tree for their seat (`None`: none stored).
pub async fn get(
    ctx: Ctx<'_>,
    user: UserId,
    game: GameId,
    seat: Seat,
) -> Result<Option<TreeView>, ConditionalError> {
    let cache = ctx.cache.clone();
    store::run(ctx.pool, move |conn| {
        owned(conn, &cache, &game, &user, seat)?;
        let row = tree_store::get(conn, &game, &seat.to_string())?;
        Ok(row.map(|r| TreeView::of(&r, seat)))
    })
    .await
}

/// Deletes the caller's tree for their seat; whether there was one.
pub async fn delete(
    ctx: Ctx<'_>,
    user: UserId,
    game: GameId,
    seat: Seat,
) -> Result<bool, ConditionalError> {
    let cache = ctx.cache.clone();
    let now = ctx.clock.now();
    store::run(ctx.pool, move |conn| {
        let state = owned(conn, &cache, &game, &user, seat)?;
        let Some(row) = tree_store::get(conn, &game, &seat.to_string())? else {
            return Ok(false);
        };
        // Deleted on the turn it held quiet, before the pass saw it: the turn is told.
        Ok(drop_tree(conn, &state, &row, now, None)?)
    })
    .await
}

/// Stores (replacing any) the caller's tree for their seat, built at version
/// `expected`: the lines are checked on the game at that version (see the module
/// documentation of [`crate::model::conditional`]).
pub async fn put(
    ctx: Ctx<'_>,
    user: UserId,
    game: GameId,
    seat: Seat,
    expected: Option<i64>,
    lines: Vec<String>,
) -> Result<TreeView, ConditionalError> {
    let cache = ctx.cache.clone();
    let now = ctx.clock.now();
    store::run(ctx.pool, move |conn| {
        store_tree(conn, &cache, now, &user, &game, seat, expected, &lines)
    })
    .await
}

/// [`put`] on a connection. Blocking.
#[allow(clippy::too_many_arguments)]
pub fn store_tree(
    conn: &mut DbConnection,
    cache: &GameCache,
    now: NaiveDateTime,
    user: &UserId,
    game: &GameId,
    seat: Seat,
    expected: Option<i64>,
    lines: &[String],
) -> Result<TreeView, ConditionalError> {
    let state = storable(conn, cache, game, user, seat)?;
    let expected = expected.ok_or(ConditionalError::PreconditionRequired)?;
    if expected != state.version {
        return Err(ConditionalError::VersionConflict {
            expected,
            current_version: state.version,
        });
    }
    let tree = Tree::check(&state.game, seat, lines).map_err(ConditionalError::Invalid)?;
    put_checked(conn, now, &state, &state, user, &tree)
}

/// Stores (replacing any) a tree read from a mail bound to version `base`, which the
/// game may have moved past since: the lines are checked on the game at `base` and
/// matched, by the next pass of [`tend`], against every action played since, as if
/// stored then. (A reply takes hours; a tree refused because a rival moved meanwhile
/// would send the player back to a position they have not seen.) Blocking.
#[allow(clippy::too_many_arguments)]
pub fn store_tree_since(
    conn: &mut DbConnection,
    cache: &GameCache,
    now: NaiveDateTime,
    user: &UserId,
    game: &GameId,
    seat: Seat,
    base: i64,
    lines: &[String],
) -> Result<TreeView, ConditionalError> {
    let state = storable(conn, cache, game, user, seat)?;
    if base > state.version || base < 1 {
        return Err(ConditionalError::VersionConflict {
            expected: base,
            current_version: state.version,
        });
    }
    let at = if base == state.version {
        state.clone()
    } else {
        game_store::state_at(conn, cache, game, base, false)?
    };
    if at.status != Status::Active || at.player(seat) != Some(user) {
        return Err(ConditionalError::Conflict(format!(
            "at version {base} the game was not under way with seat {seat} yours"
        )));
    }
    // What was played since already decides a line that no longer matches: said now,
    // rather than stored and discarded by the next pass.
    let tree = Tree::check(&at.game, seat, lines).map_err(ConditionalError::Invalid)?;
    let played = state.actions.get(at.actions.len()..).unwrap_or_default();
    match tree.next(played, state.to_move()) {
        Next::Discard { at: ply } => {
            return Err(ConditionalError::Conflict(format!(
                "the game has moved on: {}, which no line expected",
                describe(&at.game, played, ply)
            )));
        }
        Next::Exhausted => {
            return Err(ConditionalError::Conflict(
                "the game has moved past the end of every line".into(),
            ));
        }
        Next::Play(_) | Next::Wait => {}
    }
    put_checked(conn, now, &state, &at, user, &tree)
}

/// The game's state, when `user` holds `seat` in it, the game is under way and the seat
/// still plays.
fn storable(
    conn: &mut DbConnection,
    cache: &GameCache,
    game: &GameId,
    user: &UserId,
    seat: Seat,
) -> Result<std::sync::Arc<GameState>, ConditionalError> {
    let state = owned(conn, cache, game, user, seat)?;
    match state.status {
        Status::Open => {
            return Err(ConditionalError::GameNotStarted(
                "the game has not started".into(),
            ));
        }
        Status::Finished => return Err(ConditionalError::GameOver("the game is over".into())),
        Status::Active => {}
    }
    if !state.game.position().is_active(seat) {
        return Err(ConditionalError::Conflict(format!(
            "seat {seat} is out of the game"
        )));
    }
    Ok(state)
}

/// Stores `tree`, checked on the game at `base`, as its seat's tree, matched from `base`
/// on; `state` is the game now.
fn put_checked(
    conn: &mut DbConnection,
    now: NaiveDateTime,
    state: &GameState,
    base: &GameState,
    user: &UserId,
    tree: &Tree,
) -> Result<TreeView, ConditionalError> {
    let seat = tree.seat();
    let game = &state.id;
    let replaced = tree_store::get(conn, game, &seat.to_string())?;
    // A tree stored now is matched from the next version on: one replaced on the turn it
    // held quiet, before the pass saw it, leaves that turn to be told.
    let owed = match &replaced {
        Some(old) => owed_turn(conn, state, old, now)?,
        None => None,
    };
    let row = tree_store::put(
        conn,
        TreeRow {
            game_id: game.clone(),
            seat: seat.to_string(),
            user_id: user.clone(),
            base_version: base.version,
            base_actions: base.actions.len() as i64,
            checked_version: base.version,
            lines: tree.stored_text(&base.game),
            revision: 0,
            updated_at: now,
        },
    )?;
    store::outbox::enqueue_unsent(conn, &owed.into_iter().collect::<Vec<_>>())?;
    Ok(TreeView::of(&row, seat))
}

/// What [`tend`] did to one game's trees.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Tended {
    pub played: usize,
    pub discarded: usize,
}

/// Matches the trees of game `id` against what was played since their base (see the
/// module documentation); plays at most one answer per tree. Blocking.
pub fn tend(
    conn: &mut DbConnection,
    cache: &GameCache,
    clock: &dyn Clock,
    id: &GameId,
) -> Result<Tended, CommandError> {
    let mut done = Tended::default();
    for row in tree_store::of_game(conn, id)? {
        let state = game_store::current_state(conn, cache, id)?;
        if row.checked_version >= state.version {
            continue;
        }
        let seat: Option<Seat> = row.seat.parse().ok();
        let tree = seat.and_then(|s| Tree::from_stored(s, &row.lines));
        let base = row.base_actions as usize;
        let (Some(seat), Some(tree)) = (seat, tree) else {
            drop_tree(conn, &state, &row, clock.now(), None)?;
            continue;
        };
        let alive = state.status == Status::Active
            && state.player(seat) == Some(&row.user_id)
            && state.game.position().is_active(seat)
            && base <= state.actions.len();
        if !alive {
            // The game ended or the seat is out: nothing to answer, nobody to tell.
            drop_tree(conn, &state, &row, clock.now(), None)?;
            continue;
        }
        let played = &state.actions[base..];
        match tree.next(played, state.to_move()) {
            Next::Wait => {
                let checked = TreeRow {
                    checked_version: state.version,
                    ..row.clone()
                };
                tree_store::update_at(conn, row.revision, &checked)?;
            }
            Next::Exhausted => {
                drop_tree(conn, &state, &row, clock.now(), None)?;
            }
            Next::Discard { at } => {
                let base_state = game_store::state_at(conn, cache, id, row.base_version, false)?;
                let why = describe(&base_state.game, played, at);
                let note = notice(
                    &state,
                    &row.user_id,
                    DISCARDED,
                    json!({"seat": seat, "because": why}),
                    clock.now(),
                );
                let discarded = drop_tree(conn, &state, &row, clock.now(), Some(note))?;
                if discarded {
                    tracing::info!(game = %id, %seat, "conditional moves discarded");
                    done.discarded += 1;
                }
            }
            Next::Play(mv) => {
                if play(conn, cache, clock, &state, &row, &tree, seat, mv)? {
                    done.played += 1;
                }
            }
        }
    }
    Ok(done)
}

/// Plays a matched answer through the one write path, advancing the tree in the same
/// transaction; false when overtaken (another write first, or the tree changed).
#[allow(clippy::too_many_arguments)]
fn play(
    conn: &mut DbConnection,
    cache: &GameCache,
    clock: &dyn Clock,
    state: &GameState,
    row: &TreeRow,
    tree: &Tree,
    seat: Seat,
    mv: domain::Move,
) -> Result<bool, CommandError> {
    let write = Write {
        game_id: state.id.clone(),
        command: Command::ConditionalMove { seat, mv },
        actor: Actor::Player(row.user_id.clone()),
        expected: Some(state.version),
        session: None,
        quotas: None,
    };
    let base = row.base_actions as usize;
    let mut line: Vec<Action> = state.actions[base..].to_vec();
    line.push(Action::Move(mv));
    let text = state.game.position().move_text(&mv).to_string();
    let step: commands::WriteStep<'_> =
        &|conn: &mut DbConnection, written: &Written| -> Result<(), CommandError> {
            let after = &written.state;
            let kept = match tree
                .advance(&line)
                .filter(|_| after.status == Status::Active)
            {
                Some(rest) => {
                    // On the seat's turn again (a ruler of two seats): match at once.
                    let checked = if after.to_move() == Some(seat) {
                        after.version - 1
                    } else {
                        after.version
                    };
                    let next = TreeRow {
                        base_version: after.version,
                        base_actions: after.actions.len() as i64,
                        checked_version: checked,
                        lines: rest.stored_text(&after.game),
                        updated_at: after.updated_at,
                        ..row.clone()
                    };
                    tree_store::update_at(conn, row.revision, &next)?
                }
                None => tree_store::delete_at(conn, &row.game_id, &row.seat, row.revision)?,
            };
            if !kept {
                return Err(CommandError::Conflict(
                    "the conditional moves changed meanwhile".into(),
                ));
            }
            let note = notice(
                after,
                &row.user_id,
                PLAYED,
                json!({"seat": seat, "move": text}),
                after.updated_at,
            );
            store::outbox::enqueue(conn, &[note])?;
            Ok(())
        };
    match commands::execute_with(conn, cache, clock, &write, Some(step)) {
        Ok(written) => {
            tracing::info!(game = %state.id, %seat, version = written.state.version,
                "conditional move written");
            Ok(true)
        }
        // A manual move (or any write) came first, or the tree was replaced: the next
        // pass matches again on the new state.
        Err(
            CommandError::VersionConflict { .. }
            | CommandError::Conflict(_)
            | CommandError::NotYourTurn(_),
        ) => Ok(false),
        // The answer no longer holds (it cannot, checked when stored): drop the tree.
        Err(CommandError::IllegalMove { .. } | CommandError::Forbidden(_)) => {
            drop_tree(conn, state, row, clock.now(), None)?;
            Ok(false)
        }
        Err(e) => Err(e),
    }
}

/// A notification row of this module's kinds.
fn notice(
    state: &GameState,
    user: &UserId,
    kind: &str,
    mut payload: serde_json::Value,
    at: NaiveDateTime,
) -> NotificationRow {
    let version = state.version.to_string();
    if let serde_json::Value::Object(m) = &mut payload {
        m.insert("game_id".into(), json!(state.id));
        m.insert("version".into(), json!(state.version));
    }
    NotificationRow {
        id: stable_id(&[state.id.as_str(), &version, kind, user.as_str(), "0"]),
        user_id: user.clone(),
        kind: kind.to_string(),
        game_id: Some(state.id.clone()),
        version: Some(state.version),
        payload: payload.to_string(),
        created_at: at,
        read_at: None,
    }
}

/// Drops the `your_turn` of `notes` when the player of the seat to move has a tree
/// stored: [`tend`], which the write wakes, plays its answer or sends that `your_turn`
/// ([`owed_turn`]). Deciding on the tree's presence alone, not on its match, lets the
/// one-statement append of PostgreSQL decide it inside its statement
/// ([`game_store::append_in_one_statement`]): a move pays no read of the trees.
pub fn quiet_turn(
    conn: &mut DbConnection,
    state: &GameState,
    mut notes: Vec<NotificationRow>,
) -> Result<Vec<NotificationRow>, StoreError> {
    let (Some(seat), Some(user)) = (state.to_move(), state.to_move_user()) else {
        return Ok(notes);
    };
    let is_turn = |n: &NotificationRow| n.kind == "your_turn" && n.user_id == user;
    if !notes.iter().any(is_turn) {
        return Ok(notes);
    }
    if tree_store::get(conn, &state.id, &seat.to_string())?.is_some_and(|row| row.user_id == user) {
        notes.retain(|n| !is_turn(n));
    }
    Ok(notes)
}

/// The `your_turn` that the write handing the turn to `row`'s seat held back (see
/// [`quiet_turn`]), when the tree is gone without an answer on that turn: `None` when it
/// is not the turn of the tree's player, or [`tend`] already matched the tree at this
/// version (the write that handed the turn came before the tree).
fn owed_turn(
    conn: &mut DbConnection,
    state: &GameState,
    row: &TreeRow,
    now: NaiveDateTime,
) -> Result<Option<NotificationRow>, StoreError> {
    let on_turn = state.status == Status::Active
        && state.to_move().is_some_and(|s| s.to_string() == row.seat)
        && state.to_move_user() == Some(&row.user_id)
        && row.checked_version < state.version;
    if !on_turn {
        return Ok(None);
    }
    let deadline = Vacations::new(conn, now).of_state(state)?;
    Ok(crate::notifications::turn_notice(state, deadline))
}

/// Deletes `row` (at its revision) and sends the `your_turn` it held back, if any, in one
/// transaction; false when the tree changed meanwhile (nothing done).
fn drop_tree(
    conn: &mut DbConnection,
    state: &GameState,
    row: &TreeRow,
    now: NaiveDateTime,
    also: Option<NotificationRow>,
) -> Result<bool, StoreError> {
    store::transaction(conn, |conn| {
        if !tree_store::delete_at(conn, &row.game_id, &row.seat, row.revision)? {
            return Ok(false);
        }
        store::outbox::enqueue(conn, &also.into_iter().collect::<Vec<_>>())?;
        // A tree stored from a mail's older version, on a turn already told: told once.
        let owed: Vec<NotificationRow> = owed_turn(conn, state, row, now)?.into_iter().collect();
        store::outbox::enqueue_unsent(conn, &owed)?;
        Ok(true)
    })
}

/// One pass over the games whose trees wait for a match (at most `limit`, the longest
/// waiting first, one answer per tree: a game full of trees cannot starve the others).
pub fn pass(conn: &mut DbConnection, cache: &GameCache, clock: &dyn Clock, limit: i64) -> Tended {
    let mut done = Tended::default();
    let ids = match tree_store::pending(conn, limit) {
        Ok(ids) => ids,
        Err(e) => {
            tracing::warn!(error = %e, "reading the pending conditional moves failed");
            return done;
        }
    };
    for id in ids {
        match tend(conn, cache, clock, &id) {
            Ok(t) => {
                done.played += t.played;
                done.discarded += t.discarded;
            }
            Err(e) => tracing::warn!(game = %id, error = %e, "conditional moves failed"),
        }
    }
    done
}
