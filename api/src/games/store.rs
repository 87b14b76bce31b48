//! The game store: the append-only event log, the projection tables written in the same
//! transaction, and loading a game's state (through the cache or by replay).
//!
//! Optimistic concurrency: an append at expected version `v` inserts events `v+1..` (the
//! primary key `(game_id, seq)` makes a second writer of `v+1` fail with a unique
//! violation) and updates the projection `WHERE id = ? AND version = v` (0 rows: someone
//! else wrote first). Either way the transaction is rolled back and the caller gets a
//! `version-conflict` with the current version: of two racing writes exactly one is
//! written. No code path updates or deletes an event.

use std::sync::Arc;

use chrono::NaiveDateTime;
use diesel::prelude::*;
use domain::Seat;

use super::cache::GameCache;
use super::events::Event;
use super::state::GameState;
use crate::db::DbConnection;
use crate::error::ApiError;
use crate::schema::{game_events, game_players, games, users};

/// A row of `game_events`.
#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = game_events)]
pub struct EventRow {
    pub game_id: String,
    pub seq: i64,
    pub kind: String,
    pub payload: String,
    pub actor_id: Option<String>,
    pub created_at: NaiveDateTime,
}

impl EventRow {
    pub fn event(&self) -> Result<Event, ApiError> {
        Event::from_parts(&self.kind, &self.payload).map_err(|e| {
            ApiError::internal(format!("game {} event {}: {e}", self.game_id, self.seq))
        })
    }
}

/// A row of the `games` projection.
#[derive(Debug, Clone, Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = games, treat_none_as_null = true)]
pub struct GameRow {
    pub id: String,
    pub status: String,
    pub visibility: String,
    pub invite_code: Option<String>,
    pub ruleset: String,
    pub seats_in_play: String,
    pub hostage_seat: Option<String>,
    pub version: i64,
    pub ply: i32,
    pub to_move_seat: Option<String>,
    pub to_move_user_id: Option<String>,
    pub ruler_seat: Option<String>,
    pub result: Option<String>,
    pub created_by: String,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
}

impl GameRow {
    /// The projection of a state.
    pub fn of(state: &GameState) -> GameRow {
        let position = state.game.position();
        GameRow {
            id: state.id.clone(),
            status: state.status.as_str().into(),
            visibility: state.visibility.as_str().into(),
            invite_code: state.invite_code.clone(),
            ruleset: state.settings.ruleset.id().into(),
            seats_in_play: state.settings.seats.to_string(),
            hostage_seat: state.hostage_seat.map(|s| s.to_string()),
            version: state.version,
            ply: i32::try_from(position.ply()).unwrap_or(i32::MAX),
            to_move_seat: state.to_move().map(|s| s.to_string()),
            to_move_user_id: state.to_move_user().map(str::to_string),
            ruler_seat: position.ruler().map(|s| s.to_string()),
            result: state
                .result
                .as_ref()
                .and_then(|r| serde_json::to_string(r).ok()),
            created_by: state.created_by.clone(),
            created_at: state.created_at,
            updated_at: state.updated_at,
        }
    }
}

/// A row of `game_players` with the player's username.
#[derive(Debug, Clone)]
pub struct PlayerRow {
    pub game_id: String,
    pub seat: String,
    pub user_id: String,
    pub username: String,
}

pub fn find_row(conn: &mut DbConnection, id: &str) -> Result<Option<GameRow>, ApiError> {
    Ok(games::table
        .find(id)
        .select(GameRow::as_select())
        .first(conn)
        .optional()?)
}

/// The current version of a game, or 404.
pub fn current_version(conn: &mut DbConnection, id: &str) -> Result<i64, ApiError> {
    games::table
        .find(id)
        .select(games::version)
        .first::<i64>(conn)
        .optional()?
        .ok_or_else(|| not_found(id))
}

pub fn not_found(id: &str) -> ApiError {
    ApiError::NotFound(format!("no game {id}"))
}

/// The players (with usernames) of some games, by seat order within each game.
pub fn players_of(conn: &mut DbConnection, ids: &[String]) -> Result<Vec<PlayerRow>, ApiError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let rows: Vec<(String, String, String, String)> = game_players::table
        .inner_join(users::table)
        .filter(game_players::game_id.eq_any(ids))
        .select((
            game_players::game_id,
            game_players::seat,
            game_players::user_id,
            users::username,
        ))
        .load(conn)?;
    Ok(rows
        .into_iter()
        .map(|(game_id, seat, user_id, username)| PlayerRow {
            game_id,
            seat,
            user_id,
            username,
        })
        .collect())
}

/// Events `after+1 ..= upto` of a game, in order.
pub fn load_events(
    conn: &mut DbConnection,
    id: &str,
    after: i64,
    upto: i64,
) -> Result<Vec<EventRow>, ApiError> {
    Ok(game_events::table
        .filter(game_events::game_id.eq(id))
        .filter(game_events::seq.gt(after))
        .filter(game_events::seq.le(upto))
        .order(game_events::seq.asc())
        .select(EventRow::as_select())
        .load(conn)?)
}

/// Folds event rows onto a state (or starts one from event 1), checking their numbering.
fn fold(
    id: &str,
    mut state: Option<GameState>,
    rows: &[EventRow],
) -> Result<Option<GameState>, ApiError> {
    for row in rows {
        let expected = state.as_ref().map_or(1, |s| s.version + 1);
        if row.seq != expected {
            return Err(ApiError::internal(format!(
                "game {id}: event {} where {expected} was expected",
                row.seq
            )));
        }
        let event = row.event()?;
        let fold_error = |e: super::state::FoldError| {
            ApiError::internal(format!("game {id} event {}: {e}", row.seq))
        };
        match &mut state {
            None => {
                state = Some(GameState::created(id, &event, row.created_at).map_err(fold_error)?)
            }
            Some(s) => {
                s.apply(&event, row.created_at).map_err(fold_error)?;
            }
        }
    }
    Ok(state)
}

/// The state of game `id` at `version` (which the caller read from the projection, or
/// asked for with `?at=`): from the cache when it holds that version, else by folding the
/// missing events onto an older cached state, else by replaying the log from event 1.
/// States at the latest version read are put in the cache when `remember` is set.
pub fn state_at(
    conn: &mut DbConnection,
    cache: &GameCache,
    id: &str,
    version: i64,
    remember: bool,
) -> Result<Arc<GameState>, ApiError> {
    let base = cache.get_at_most(id, version);
    if let Some(s) = &base {
        if s.version == version {
            return Ok(s.clone());
        }
    }
    let after = base.as_ref().map_or(0, |s| s.version);
    let rows = load_events(conn, id, after, version)?;
    let state = fold(id, base.map(|s| (*s).clone()), &rows)?
        .filter(|s| s.version == version)
        .ok_or_else(|| {
            ApiError::internal(format!(
                "game {id}: the log does not reach version {version}"
            ))
        })?;
    let state = Arc::new(state);
    if remember {
        cache.put(state.clone());
    }
    Ok(state)
}

/// The state at the current version (from the projection), or 404.
pub fn current_state(
    conn: &mut DbConnection,
    cache: &GameCache,
    id: &str,
) -> Result<Arc<GameState>, ApiError> {
    let version = current_version(conn, id)?;
    state_at(conn, cache, id, version, true)
}

/// Why an append failed.
#[derive(Debug)]
pub enum AppendError {
    /// Another write got there first (unique violation on the log, or the projection's
    /// version moved). The transaction must be rolled back.
    Conflict,
    Other(ApiError),
}

impl From<diesel::result::Error> for AppendError {
    fn from(e: diesel::result::Error) -> Self {
        match e {
            diesel::result::Error::DatabaseError(
                diesel::result::DatabaseErrorKind::UniqueViolation,
                _,
            ) => AppendError::Conflict,
            other => AppendError::Other(other.into()),
        }
    }
}

/// Appends `events` (already folded into `new_state`) to a game at `expected` version
/// (0 for a new game), and writes the projection. Must run inside a transaction.
pub fn append(
    conn: &mut DbConnection,
    expected: i64,
    events: &[Event],
    actor_id: Option<&str>,
    new_state: &GameState,
) -> Result<(), AppendError> {
    let id = &new_state.id;
    if new_state.version != expected + events.len() as i64 {
        return Err(AppendError::Other(ApiError::internal(
            "append: the state does not match the events",
        )));
    }
    let now = new_state.updated_at;
    let rows: Vec<EventRow> = events
        .iter()
        .enumerate()
        .map(|(i, e)| EventRow {
            game_id: id.clone(),
            seq: expected + 1 + i as i64,
            kind: e.kind().into(),
            payload: e.payload_text(),
            actor_id: actor_id.map(str::to_string),
            created_at: now,
        })
        .collect();
    for row in &rows {
        diesel::insert_into(game_events::table)
            .values(row)
            .execute(conn)?;
    }
    let projection = GameRow::of(new_state);
    if expected == 0 {
        diesel::insert_into(games::table)
            .values(&projection)
            .execute(conn)?;
    } else {
        let n = diesel::update(
            games::table
                .filter(games::id.eq(id))
                .filter(games::version.eq(expected)),
        )
        .set(&projection)
        .execute(conn)?;
        if n != 1 {
            return Err(AppendError::Conflict);
        }
    }
    for event in events {
        match event {
            Event::SeatTaken { seat, user_id } => {
                diesel::insert_into(game_players::table)
                    .values((
                        game_players::game_id.eq(id),
                        game_players::seat.eq(seat.to_string()),
                        game_players::user_id.eq(user_id),
                        game_players::joined_at.eq(now),
                    ))
                    .execute(conn)?;
            }
            Event::SeatLeft { seat, .. } => {
                diesel::delete(
                    game_players::table
                        .filter(game_players::game_id.eq(id))
                        .filter(game_players::seat.eq(seat.to_string())),
                )
                .execute(conn)?;
            }
            _ => {}
        }
    }
    Ok(())
}

/// Parses a seat letter as stored in the projection.
pub fn seat_of(text: &str) -> Option<Seat> {
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => Seat::from_letter(c),
        _ => None,
    }
}

/// The PostgreSQL fast path of an append that touches no seat: the events and the
/// projection in ONE statement (a data-modifying CTE), so no explicit transaction is
/// needed: the `UPDATE ... WHERE version = expected` feeds the `INSERT`, so either both
/// happen or neither. Returns `Ok(false)` when the version had moved (nothing written).
pub fn append_pg_single_statement(
    conn: &mut diesel::PgConnection,
    expected: i64,
    events: &[Event],
    actor_id: &str,
    state: &GameState,
) -> Result<bool, AppendError> {
    use diesel::sql_types::{Array, BigInt, Integer, Nullable, Text, Timestamp};
    if state.version != expected + events.len() as i64
        || events.iter().any(|e| {
            matches!(
                e,
                Event::SeatTaken { .. } | Event::SeatLeft { .. } | Event::Created { .. }
            )
        })
    {
        return Err(AppendError::Other(ApiError::internal(
            "the single-statement append is for actions only",
        )));
    }
    let row = GameRow::of(state);
    let seqs: Vec<i64> = (1..=events.len() as i64).map(|i| expected + i).collect();
    let kinds: Vec<String> = events.iter().map(|e| e.kind().to_string()).collect();
    let payloads: Vec<String> = events.iter().map(Event::payload_text).collect();
    let inserted = diesel::sql_query(
        "WITH upd AS ( \
           UPDATE games SET status = $3, version = $4, ply = $5, to_move_seat = $6, \
             to_move_user_id = $7, ruler_seat = $8, result = $9, updated_at = $10 \
           WHERE id = $1 AND version = $2 RETURNING id) \
         INSERT INTO game_events (game_id, seq, kind, payload, actor_id, created_at) \
         SELECT upd.id, e.seq, e.kind, e.payload, $11, $10 \
         FROM upd CROSS JOIN unnest($12::bigint[], $13::text[], $14::text[]) AS e(seq, kind, payload)",
    )
    .bind::<Text, _>(&row.id)
    .bind::<BigInt, _>(expected)
    .bind::<Text, _>(&row.status)
    .bind::<BigInt, _>(row.version)
    .bind::<Integer, _>(row.ply)
    .bind::<Nullable<Text>, _>(&row.to_move_seat)
    .bind::<Nullable<Text>, _>(&row.to_move_user_id)
    .bind::<Nullable<Text>, _>(&row.ruler_seat)
    .bind::<Nullable<Text>, _>(&row.result)
    .bind::<Timestamp, _>(row.updated_at)
    .bind::<Text, _>(actor_id)
    .bind::<Array<BigInt>, _>(&seqs)
    .bind::<Array<Text>, _>(&kinds)
    .bind::<Array<Text>, _>(&payloads)
    .execute(conn)?;
    match inserted {
        0 => Ok(false),
        n if n == events.len() => Ok(true),
        n => Err(AppendError::Other(ApiError::internal(format!(
            "single-statement append wrote {n} of {} events",
            events.len()
        )))),
    }
}
