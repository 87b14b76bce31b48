//! The read side of the game tables: lists, summaries, pages of the log, and the
//! projection check. The use cases in `crate::games::queries` call these.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use crate::ids::{GameId, UserId};
use crate::model::events::{Status, Visibility};
use crate::model::game_state::GameState;
use crate::store::DbConnection;
use crate::store::StoreError;
use crate::store::games::{self as game_store, EventRow, GameRow, PlayerRow};
use crate::store::schema::{game_players, games};

/// A position in a list ordered by (time, id): the last item of the previous page.
pub type Keyset = (NaiveDateTime, GameId);

/// Games with their players.
pub type GamesWithPlayers = (Vec<GameRow>, Vec<PlayerRow>);

fn with_players(
    conn: &mut DbConnection,
    rows: Vec<GameRow>,
) -> Result<GamesWithPlayers, StoreError> {
    let ids: Vec<GameId> = rows.iter().map(|r| r.id.clone()).collect();
    let players = game_store::players_of(conn, &ids)?;
    Ok((rows, players))
}

/// The lobby: public games in `status`, newest first; `limit + 1` rows, so the caller
/// knows whether there is a next page.
pub fn lobby(
    conn: &mut DbConnection,
    status: Status,
    after: Option<Keyset>,
    limit: i64,
) -> Result<GamesWithPlayers, StoreError> {
    let mut query = games::table
        .filter(games::visibility.eq(Visibility::Public.as_str()))
        .filter(games::status.eq(status.as_str()))
        .order((games::created_at.desc(), games::id.desc()))
        .limit(limit + 1)
        .select(GameRow::as_select())
        .into_boxed();
    if let Some((t, id)) = after {
        query = query.filter(
            games::created_at
                .lt(t)
                .or(games::created_at.eq(t).and(games::id.lt(id))),
        );
    }
    let rows = query.load(conn)?;
    with_players(conn, rows)
}

/// A player's games, newest first, optionally in one status; `limit + 1` rows.
pub fn games_of(
    conn: &mut DbConnection,
    user_id: &UserId,
    status: Option<Status>,
    after: Option<Keyset>,
    limit: i64,
) -> Result<GamesWithPlayers, StoreError> {
    let mut query = games::table
        .inner_join(game_players::table)
        .filter(game_players::user_id.eq(user_id))
        .order((games::created_at.desc(), games::id.desc()))
        .limit(limit + 1)
        .select(GameRow::as_select())
        .into_boxed();
    if let Some(status) = status {
        query = query.filter(games::status.eq(status.as_str()));
    }
    if let Some((t, id)) = after {
        query = query.filter(
            games::created_at
                .lt(t)
                .or(games::created_at.eq(t).and(games::id.lt(id))),
        );
    }
    let rows = query.load(conn)?;
    with_players(conn, rows)
}

/// The active games waiting on `user_id`'s move, soonest deadline first, then the games
/// without a deadline, the one waiting longest first (by `turn_order_at`); `limit + 1`
/// rows.
pub fn awaiting_move_of(
    conn: &mut DbConnection,
    user_id: &UserId,
    after: Option<Keyset>,
    limit: i64,
) -> Result<GamesWithPlayers, StoreError> {
    let mut query = games::table
        .filter(games::to_move_user_id.eq(user_id))
        .filter(games::status.eq(Status::Active.as_str()))
        .order((games::turn_order_at.asc(), games::id.asc()))
        .limit(limit + 1)
        .select(GameRow::as_select())
        .into_boxed();
    if let Some((t, id)) = after {
        query = query.filter(
            games::turn_order_at
                .gt(t)
                .or(games::turn_order_at.eq(t).and(games::id.gt(id))),
        );
    }
    let rows = query.load(conn)?;
    with_players(conn, rows)
}

/// One game's projection row and players.
pub fn summary(
    conn: &mut DbConnection,
    id: &GameId,
) -> Result<(GameRow, Vec<PlayerRow>), StoreError> {
    let row =
        game_store::find_row(conn, id)?.ok_or_else(|| StoreError::NotFound(id.to_string()))?;
    let players = game_store::players_of(conn, std::slice::from_ref(&row.id))?;
    Ok((row, players))
}

/// A page of a game's log: the current version and events `after+1..`, at most `limit`.
pub fn events_page(
    conn: &mut DbConnection,
    id: &GameId,
    after: i64,
    limit: i64,
) -> Result<(i64, Vec<EventRow>), StoreError> {
    let version = game_store::current_version(conn, id)?;
    let rows = game_store::load_events(conn, id, after, version, Some(limit))?;
    Ok((version, rows))
}

/// How a game's projection differs from the replay of its log (empty: it does not).
pub fn projection_differences(
    conn: &mut DbConnection,
    id: &GameId,
) -> Result<Vec<String>, StoreError> {
    let stored =
        game_store::find_row(conn, id)?.ok_or_else(|| StoreError::NotFound(id.to_string()))?;
    let rows = game_store::load_events(conn, id, 0, i64::MAX, None)?;
    let Some(state) = game_store::fold(id, None, &rows, |_, _| {})? else {
        return Ok(vec!["the game has no events".into()]);
    };
    let mut differences = Vec::new();
    let mut replayed = GameRow::of(&state);
    if stored.turn_started_at.is_none() {
        // Written before the column existed: filled by the game's next write.
        replayed.turn_started_at = None;
    }
    if replayed != stored {
        differences.push(format!(
            "games row: stored {stored:?}, replayed {replayed:?}"
        ));
    }
    let seats: Vec<(String, UserId)> = seat_rows_of(&state);
    let stored_seats = game_store::seat_rows(conn, id)?;
    if seats != stored_seats {
        differences.push(format!(
            "game_players: stored {stored_seats:?}, replayed {seats:?}"
        ));
    }
    Ok(differences)
}

fn seat_rows_of(state: &GameState) -> Vec<(String, UserId)> {
    let mut seats: Vec<(String, UserId)> = domain::Seat::ALL
        .into_iter()
        .filter_map(|s| state.player(s).map(|u| (s.to_string(), u.clone())))
        .collect();
    seats.sort();
    seats
}

/// Among `ids`, the invite-only games `reader` (`None`: nobody signed in) did not play:
/// their id is the key to them, so lists built for this reader leave it out.
pub fn unlisted_for(
    conn: &mut DbConnection,
    ids: &[GameId],
    reader: Option<&UserId>,
) -> Result<std::collections::HashSet<GameId>, StoreError> {
    if ids.is_empty() {
        return Ok(Default::default());
    }
    let mut unlisted: std::collections::HashSet<GameId> = games::table
        .filter(games::id.eq_any(ids))
        .filter(games::visibility.ne(Visibility::Public.as_str()))
        .select(games::id)
        .load::<GameId>(conn)?
        .into_iter()
        .collect();
    if let (Some(reader), false) = (reader, unlisted.is_empty()) {
        let played: Vec<GameId> = game_players::table
            .filter(game_players::user_id.eq(reader))
            .filter(game_players::game_id.eq_any(unlisted.iter()))
            .select(game_players::game_id)
            .load(conn)?;
        for id in played {
            unlisted.remove(&id);
        }
    }
    Ok(unlisted)
}

/// The study games (imported records, without seats) a user created, oldest first (the
/// account export).
pub fn studies_of(conn: &mut DbConnection, user_id: &UserId) -> Result<Vec<GameRow>, StoreError> {
    Ok(games::table
        .filter(games::created_by.eq(user_id))
        .filter(games::kind.eq("study"))
        .order((games::created_at.asc(), games::id.asc()))
        .select(GameRow::as_select())
        .load(conn)?)
}
