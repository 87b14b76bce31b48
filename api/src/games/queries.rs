//! The read use cases of games: a game's state at a version, its summary, pages of its
//! log with what each action did, the lists (lobby, a player's games, games awaiting a
//! move). Each is one `store::run`: the routes call these and render the answer.

use std::sync::Arc;

use domain::Step;

use chrono::NaiveDateTime;

use super::Ctx;
use super::deadlines::{Vacations, show_effective};
use crate::ids::{GameId, UserId};
use crate::model::events::Status;
use crate::model::game_state::{FoldError, GameState};
use crate::store::game_lists::{self, GamesWithPlayers, Keyset};
use crate::store::games as game_store;
use crate::store::{self, StoreError};

/// The rows the reads answer with: plain data of the read model.
pub use crate::store::game_lists::{GamesWithPlayers as GameList, Keyset as ListPosition};
pub use crate::store::games::{EventRow, GameRow, PlayerRow, parse_bots_column, seat_of};

/// Why a read found nothing to answer.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("no game {0}")]
    NotFound(String),
    /// `?at=` beyond the game's version.
    #[error("the game has no version {at} yet: it is at version {current}")]
    NotYet { at: i64, current: i64 },
    /// `?at=` below 1.
    #[error("must be 1 to the game's version, {current}")]
    BadVersion { current: i64 },
    #[error(transparent)]
    Store(StoreError),
}

impl From<StoreError> for ReadError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::NotFound(id) => ReadError::NotFound(id),
            other => ReadError::Store(other),
        }
    }
}

impl From<store::RunError> for ReadError {
    fn from(e: store::RunError) -> Self {
        ReadError::Store(e.into())
    }
}

/// A game's state at version `at` (its current one without), its current version, and
/// for the current version the effective deadline ([`super::deadlines`]; a past
/// version's is the log's).
pub async fn state_at(
    ctx: Ctx<'_>,
    id: GameId,
    at: Option<i64>,
) -> Result<(Arc<GameState>, i64, Option<NaiveDateTime>), ReadError> {
    let cache = ctx.cache.clone();
    let now = ctx.clock.now();
    store::run(ctx.pool, move |conn| {
        let current = game_store::current_version(conn, &id)?;
        let version = match at {
            None => current,
            Some(n) if (1..=current).contains(&n) => n,
            Some(n) if n > current => return Err(ReadError::NotYet { at: n, current }),
            Some(_) => return Err(ReadError::BadVersion { current }),
        };
        let state = game_store::state_at(conn, &cache, &id, version, version == current)?;
        let deadline = if version == current {
            Vacations::new(conn, now).of_state(&state)?
        } else {
            state.deadline()
        };
        Ok((state, current, deadline))
    })
    .await
}

/// A game's current state.
pub async fn current_state(ctx: Ctx<'_>, id: GameId) -> Result<Arc<GameState>, ReadError> {
    let cache = ctx.cache.clone();
    store::run(ctx.pool, move |conn| {
        Ok(game_store::current_state(conn, &cache, &id)?)
    })
    .await
}

/// A game's current version.
pub async fn current_version(ctx: Ctx<'_>, id: GameId) -> Result<i64, ReadError> {
    store::run(ctx.pool, move |conn| {
        Ok(game_store::current_version(conn, &id)?)
    })
    .await
}

/// A game's projection row and its players.
pub async fn summary(ctx: Ctx<'_>, id: GameId) -> Result<(GameRow, Vec<PlayerRow>), ReadError> {
    let now = ctx.clock.now();
    store::run(ctx.pool, move |conn| {
        let (row, players) = game_lists::summary(conn, &id)?;
        let mut rows = [row];
        show_effective(conn, now, &mut rows)?;
        let [row] = rows;
        Ok((row, players))
    })
    .await
}

/// A game's current state and its players (the record).
pub async fn state_with_players(
    ctx: Ctx<'_>,
    id: GameId,
) -> Result<(Arc<GameState>, Vec<PlayerRow>), ReadError> {
    let cache = ctx.cache.clone();
    store::run(ctx.pool, move |conn| {
        let state = game_store::current_state(conn, &cache, &id)?;
        let (_, players) = game_lists::summary(conn, &id)?;
        let players = super::record::players_for_record(conn, &state, players)?;
        Ok((state, players))
    })
    .await
}

/// A page of a game's log after version `after`: the game's version, and each event with
/// what it did (the rules engine's step, for actions).
pub async fn events_page(
    ctx: Ctx<'_>,
    id: GameId,
    after: i64,
    limit: i64,
) -> Result<(i64, Vec<(EventRow, Option<Step>)>), ReadError> {
    let cache = ctx.cache.clone();
    store::run(ctx.pool, move |conn| {
        let (version, rows) = game_lists::events_page(conn, &id, after, limit)?;
        // Fold the page onto the state before it (a checkpoint away at most) to tell
        // what each action did.
        let mut state = match after {
            a if a > 0 && a <= version => {
                Some((*game_store::state_at(conn, &cache, &id, a, a == version)?).clone())
            }
            _ => None,
        };
        let mut items = Vec::with_capacity(rows.len());
        for row in rows {
            let event = row.event()?;
            let step = GameState::fold(&mut state, &id, &event, row.created_at).map_err(
                |e: FoldError| StoreError::Corrupt(format!("game {id} event {}: {e}", row.seq)),
            )?;
            items.push((row, step));
        }
        Ok((version, items))
    })
    .await
}

/// The events of a game after `after`, at most `limit` (a stream's poll).
pub async fn events_after(
    ctx: Ctx<'_>,
    id: GameId,
    after: i64,
    limit: i64,
) -> Result<Vec<EventRow>, ReadError> {
    store::run(ctx.pool, move |conn| {
        Ok(game_store::load_events(
            conn,
            &id,
            after,
            i64::MAX,
            Some(limit),
        )?)
    })
    .await
}

/// The lobby: public games in `status`, newest first (`limit + 1` rows).
pub async fn lobby(
    ctx: Ctx<'_>,
    status: Status,
    after: Option<Keyset>,
    limit: i64,
) -> Result<GamesWithPlayers, ReadError> {
    let now = ctx.clock.now();
    store::run(ctx.pool, move |conn| {
        let (mut rows, players) = game_lists::lobby(conn, status, after, limit)?;
        show_effective(conn, now, &mut rows)?;
        Ok((rows, players))
    })
    .await
}

/// A player's games, newest first, optionally in one status (`limit + 1` rows).
pub async fn games_of(
    ctx: Ctx<'_>,
    user_id: UserId,
    status: Option<Status>,
    after: Option<Keyset>,
    limit: i64,
) -> Result<GamesWithPlayers, ReadError> {
    let now = ctx.clock.now();
    store::run(ctx.pool, move |conn| {
        let (mut rows, players) = game_lists::games_of(conn, &user_id, status, after, limit)?;
        show_effective(conn, now, &mut rows)?;
        Ok((rows, players))
    })
    .await
}

/// The most games of one player sorted in memory by their effective deadlines (while its
/// vacations move them: the stored order is the log's).
pub const MAX_SORTED: i64 = 2_000;

/// Where a row sorts in `turn=mine` (and its cursor): the effective deadline (the row's
/// `due_at` as read here), or for a game without one `turn_order_at`.
pub fn turn_order_key(row: &GameRow) -> NaiveDateTime {
    match (&row.time_control, row.due_at) {
        (Some(_), Some(d)) => d.max(row.turn_order_at),
        _ => row.turn_order_at,
    }
}

/// A player's games awaiting their move, soonest effective deadline first (`limit + 1`
/// rows).
pub async fn awaiting_move_of(
    ctx: Ctx<'_>,
    user_id: UserId,
    after: Option<Keyset>,
    limit: i64,
) -> Result<GamesWithPlayers, ReadError> {
    let now = ctx.clock.now();
    store::run(ctx.pool, move |conn| {
        let away = !crate::store::vacations::pauses(conn, &user_id, now)?.is_empty();
        if !away {
            // No vacation: the effective deadlines are the log's, in the stored order.
            let (mut rows, players) = game_lists::awaiting_move_of(conn, &user_id, after, limit)?;
            show_effective(conn, now, &mut rows)?;
            return Ok((rows, players));
        }
        let (mut rows, mut players) =
            game_lists::awaiting_move_of(conn, &user_id, None, MAX_SORTED)?;
        show_effective(conn, now, &mut rows)?;
        rows.sort_by(|a, b| (turn_order_key(a), &a.id).cmp(&(turn_order_key(b), &b.id)));
        if let Some((t, id)) = &after {
            rows.retain(|r| (turn_order_key(r), &r.id) > (*t, id));
        }
        rows.truncate(usize::try_from(limit + 1).unwrap_or(usize::MAX));
        players.retain(|p| rows.iter().any(|r| r.id == p.game_id));
        Ok((rows, players))
    })
    .await
}
