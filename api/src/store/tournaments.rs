//! Tournaments: the event log (`tournament_events`, the truth), the `tournaments` row
//! (the projection lists read, and the version a write claims) and who is entered
//! (`tournament_players`). The append protocol is the game log's: claim the version
//! with `UPDATE … WHERE version = expected` (an insert for a new event), then insert the
//! events numbered after it, in one transaction; a claim that changes no row means
//! another write came first ([`StoreError::VersionMoved`]), and nothing is written.
//! Rows are plain text here: the use case ([`crate::tournaments`]) reads and folds them.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use crate::ids::{GameId, TournamentId, UserId};
use crate::store::schema::{games, tournament_events, tournament_players, tournaments};
use crate::store::{DbConnection, StoreError};

/// The projection row.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = tournaments)]
#[diesel(treat_none_as_null = true)]
pub struct TournamentRow {
    pub id: TournamentId,
    pub name: String,
    pub organiser_id: String,
    pub format: String,
    pub status: String,
    pub capacity: i32,
    pub players: i32,
    pub rounds_paired: i32,
    pub starts_at: Option<NaiveDateTime>,
    pub version: i64,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
}

/// One event as stored.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = tournament_events)]
pub struct EventRow {
    pub tournament_id: TournamentId,
    pub seq: i64,
    pub kind: String,
    pub payload: String,
    pub actor_id: Option<String>,
    pub created_at: NaiveDateTime,
}

/// An event to append: its `kind` and `payload` columns.
#[derive(Debug, Clone)]
pub struct NewEvent {
    pub kind: String,
    pub payload: String,
}

/// Entries changed by an append.
#[derive(Debug, Clone, Default)]
pub struct Entries {
    pub joined: Vec<String>,
    pub left: Vec<String>,
}

/// Appends `events` after version `expected` (0: a new tournament, inserting the
/// projection) and sets the projection to `row` (whose `version` is the new one). Must
/// run inside a transaction.
pub fn append(
    conn: &mut DbConnection,
    expected: i64,
    row: &TournamentRow,
    events: &[NewEvent],
    actor_id: Option<&str>,
    entries: &Entries,
) -> Result<(), StoreError> {
    if row.version != expected + events.len() as i64 {
        return Err(StoreError::Corrupt(format!(
            "tournament {}: version {} after {} events on {expected}",
            row.id,
            row.version,
            events.len()
        )));
    }
    if expected == 0 {
        diesel::insert_into(tournaments::table)
            .values(row)
            .execute(conn)?;
    } else {
        let claimed = diesel::update(
            tournaments::table
                .filter(tournaments::id.eq(&row.id))
                .filter(tournaments::version.eq(expected)),
        )
        .set(row)
        .execute(conn)?;
        if claimed != 1 {
            return Err(StoreError::VersionMoved);
        }
    }
    for (k, e) in events.iter().enumerate() {
        diesel::insert_into(tournament_events::table)
            .values(EventRow {
                tournament_id: row.id.clone(),
                seq: expected + 1 + k as i64,
                kind: e.kind.clone(),
                payload: e.payload.clone(),
                actor_id: actor_id.map(str::to_string),
                created_at: row.updated_at,
            })
            .execute(conn)?;
    }
    for user in &entries.joined {
        diesel::insert_into(tournament_players::table)
            .values((
                tournament_players::tournament_id.eq(&row.id),
                tournament_players::user_id.eq(user),
            ))
            .execute(conn)?;
    }
    for user in &entries.left {
        diesel::delete(
            tournament_players::table
                .filter(tournament_players::tournament_id.eq(&row.id))
                .filter(tournament_players::user_id.eq(user)),
        )
        .execute(conn)?;
    }
    Ok(())
}

/// A tournament's log, in order (empty: no such tournament).
pub fn load_events(
    conn: &mut DbConnection,
    id: &TournamentId,
) -> Result<Vec<EventRow>, StoreError> {
    Ok(tournament_events::table
        .filter(tournament_events::tournament_id.eq(id))
        .order(tournament_events::seq.asc())
        .select(EventRow::as_select())
        .load(conn)?)
}

pub fn find_row(
    conn: &mut DbConnection,
    id: &TournamentId,
) -> Result<Option<TournamentRow>, StoreError> {
    Ok(tournaments::table
        .find(id)
        .select(TournamentRow::as_select())
        .first(conn)
        .optional()?)
}

/// A page of the list, newest first; `status`: only those.
pub fn list(
    conn: &mut DbConnection,
    status: Option<&str>,
    limit: i64,
    offset: i64,
) -> Result<Vec<TournamentRow>, StoreError> {
    let mut q = tournaments::table
        .select(TournamentRow::as_select())
        .order((tournaments::created_at.desc(), tournaments::id.desc()))
        .limit(limit)
        .offset(offset)
        .into_boxed();
    if let Some(s) = status {
        q = q.filter(tournaments::status.eq(s.to_string()));
    }
    Ok(q.load(conn)?)
}

/// Events an organiser has not seen to their end (open or running).
pub fn live_count_of(conn: &mut DbConnection, organiser: &str) -> Result<i64, StoreError> {
    Ok(tournaments::table
        .filter(tournaments::organiser_id.eq(organiser))
        .filter(tournaments::status.eq_any(["open", "running"]))
        .count()
        .get_result(conn)?)
}

/// Open or running events (the clock looks at each).
pub fn live_ids(conn: &mut DbConnection, limit: i64) -> Result<Vec<TournamentId>, StoreError> {
    Ok(tournaments::table
        .filter(tournaments::status.eq_any(["open", "running"]))
        .order(tournaments::updated_at.asc())
        .select(tournaments::id)
        .limit(limit)
        .load(conn)?)
}

/// The open or running events a player is entered in.
pub fn live_ids_of_player(
    conn: &mut DbConnection,
    user: &UserId,
) -> Result<Vec<TournamentId>, StoreError> {
    Ok(tournament_players::table
        .inner_join(tournaments::table)
        .filter(tournament_players::user_id.eq(user))
        .filter(tournaments::status.eq_any(["open", "running"]))
        .select(tournaments::id)
        .load(conn)?)
}

/// Of `ids`, the games that exist, with their status and result column.
pub fn game_states(
    conn: &mut DbConnection,
    ids: &[GameId],
) -> Result<Vec<(GameId, String, Option<String>)>, StoreError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    Ok(games::table
        .filter(games::id.eq_any(ids))
        .select((games::id, games::status, games::result))
        .load(conn)?)
}

/// Usernames of some accounts.
pub fn usernames(
    conn: &mut DbConnection,
    ids: &[String],
) -> Result<Vec<(String, String)>, StoreError> {
    use crate::store::schema::users;
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    Ok(users::table
        .filter(users::id.eq_any(ids))
        .select((users::id, users::username))
        .load(conn)?)
}

/// The events a user organised or is entered in, oldest first, each with whether the
/// user is entered (the account export).
pub fn of_user(
    conn: &mut DbConnection,
    user: &UserId,
) -> Result<Vec<(TournamentRow, bool)>, StoreError> {
    let entered: Vec<TournamentId> = tournament_players::table
        .filter(tournament_players::user_id.eq(user))
        .select(tournament_players::tournament_id)
        .load(conn)?;
    let rows: Vec<TournamentRow> = tournaments::table
        .filter(
            tournaments::organiser_id
                .eq(user)
                .or(tournaments::id.eq_any(&entered)),
        )
        .order((tournaments::created_at.asc(), tournaments::id.asc()))
        .select(TournamentRow::as_select())
        .load(conn)?;
    Ok(rows
        .into_iter()
        .map(|row| {
            let is_entered = entered.contains(&row.id);
            (row, is_entered)
        })
        .collect())
}
