//! `game_analyses` and `game_analysis_moves` (`2026-12-02-000310_game_analyses`): the
//! engine's analyses of games, one per game and engine version, a work queue of their
//! own (`due_at`, `lease_until`, claimed like the other queues, see [`super::lease`]),
//! and one row per analysed move (kept as each is done, so that a restarted server goes
//! on where the last one stopped). The use cases are `crate::analysis`, the worker
//! `crate::workers::analysis`.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use super::lease::Queue;
use super::schema::{game_analyses, game_analysis_moves};
use super::{DbConnection, StoreError};
use crate::ids::{GameId, UserId};

/// An analysis row.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = game_analyses)]
pub struct AnalysisRow {
    pub id: String,
    pub game_id: GameId,
    pub engine_version: String,
    /// `queued`, `running`, `done` or `failed`.
    pub status: String,
    pub requested_by: Option<UserId>,
    pub requested_at: NaiveDateTime,
    pub game_version: i64,
    pub plies: i32,
    pub plies_done: i32,
    pub due_at: Option<NaiveDateTime>,
    pub lease_until: Option<NaiveDateTime>,
    pub finished_at: Option<NaiveDateTime>,
    pub last_values: Option<String>,
    pub error: Option<String>,
}

/// The analyses waiting for the worker.
const DUE_ANALYSES: Queue = Queue {
    table: "game_analyses",
    id: "id",
    due: "due_at",
    lease: "lease_until",
    only: "",
    order: "",
};

/// The analysis of `game` by `engine`, if any.
pub fn find(
    conn: &mut DbConnection,
    game: &GameId,
    engine: &str,
) -> Result<Option<AnalysisRow>, StoreError> {
    Ok(game_analyses::table
        .filter(game_analyses::game_id.eq(game))
        .filter(game_analyses::engine_version.eq(engine))
        .select(AnalysisRow::as_select())
        .first(conn)
        .optional()?)
}

/// An analysis by its id.
pub fn get(conn: &mut DbConnection, id: &str) -> Result<Option<AnalysisRow>, StoreError> {
    Ok(game_analyses::table
        .find(id)
        .select(AnalysisRow::as_select())
        .first(conn)
        .optional()?)
}

/// Inserts a new analysis; `false` when the game already has one by that engine (a
/// concurrent request came first).
pub fn insert(conn: &mut DbConnection, row: &AnalysisRow) -> Result<bool, StoreError> {
    match diesel::insert_into(game_analyses::table)
        .values(row)
        .execute(conn)
    {
        Ok(_) => Ok(true),
        Err(diesel::result::Error::DatabaseError(
            diesel::result::DatabaseErrorKind::UniqueViolation,
            _,
        )) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// How many analyses `user` asked for since `since`, and the time of the oldest of them.
pub fn requested_since(
    conn: &mut DbConnection,
    user: &UserId,
    since: NaiveDateTime,
) -> Result<(i64, Option<NaiveDateTime>), StoreError> {
    let times: Vec<NaiveDateTime> = game_analyses::table
        .filter(game_analyses::requested_by.eq(user))
        .filter(game_analyses::requested_at.gt(since))
        .select(game_analyses::requested_at)
        .order(game_analyses::requested_at.asc())
        .load(conn)?;
    Ok((times.len() as i64, times.first().copied()))
}

/// How many analyses wait or run, on the whole site.
pub fn pending(conn: &mut DbConnection) -> Result<i64, StoreError> {
    Ok(game_analyses::table
        .filter(game_analyses::status.eq_any(["queued", "running"]))
        .count()
        .get_result(conn)?)
}

/// Claims up to `limit` analyses due at `now` until `until`, and marks them running.
pub fn claim(
    conn: &mut DbConnection,
    now: NaiveDateTime,
    until: NaiveDateTime,
    limit: i64,
) -> Result<Vec<String>, StoreError> {
    let ids = DUE_ANALYSES.claim(conn, now, until, limit)?;
    if !ids.is_empty() {
        diesel::update(game_analyses::table.filter(game_analyses::id.eq_any(&ids)))
            .set(game_analyses::status.eq("running"))
            .execute(conn)?;
    }
    Ok(ids)
}

/// Renews a claim until `until`; false if the analysis is gone or no longer leased.
pub fn renew(conn: &mut DbConnection, id: &str, until: NaiveDateTime) -> Result<bool, StoreError> {
    Ok(diesel::update(
        game_analyses::table
            .find(id)
            .filter(game_analyses::lease_until.is_not_null()),
    )
    .set(game_analyses::lease_until.eq(Some(until)))
    .execute(conn)?
        > 0)
}

/// Gives a claim back (the server stops): the analysis is due again at once.
pub fn release(conn: &mut DbConnection, id: &str) -> Result<(), StoreError> {
    diesel::update(game_analyses::table.find(id))
        .set(game_analyses::lease_until.eq(None::<NaiveDateTime>))
        .execute(conn)?;
    Ok(())
}

/// The analysed moves of an analysis, in order: (ply, JSON body).
pub fn moves(conn: &mut DbConnection, id: &str) -> Result<Vec<(i32, String)>, StoreError> {
    Ok(game_analysis_moves::table
        .filter(game_analysis_moves::analysis_id.eq(id))
        .select((game_analysis_moves::ply, game_analysis_moves::body))
        .order(game_analysis_moves::ply.asc())
        .load(conn)?)
}

/// Stores the analysis of move `ply` (1-based) and the progress, renewing the claim.
pub fn save_move(
    conn: &mut DbConnection,
    id: &str,
    ply: i32,
    body: &str,
    until: NaiveDateTime,
) -> Result<(), StoreError> {
    super::transaction(conn, |conn| {
        diesel::delete(
            game_analysis_moves::table
                .filter(game_analysis_moves::analysis_id.eq(id))
                .filter(game_analysis_moves::ply.eq(ply)),
        )
        .execute(conn)?;
        diesel::insert_into(game_analysis_moves::table)
            .values((
                game_analysis_moves::analysis_id.eq(id),
                game_analysis_moves::ply.eq(ply),
                game_analysis_moves::body.eq(body),
            ))
            .execute(conn)?;
        diesel::update(game_analyses::table.find(id))
            .set((
                game_analyses::plies_done.eq(ply),
                game_analyses::lease_until.eq(Some(until)),
            ))
            .execute(conn)?;
        Ok::<_, StoreError>(())
    })
}

/// Marks an analysis done with the values of the final position, and deletes the
/// game's analyses by other engines (this one replaces them).
pub fn finish(
    conn: &mut DbConnection,
    id: &str,
    last_values: &str,
    now: NaiveDateTime,
) -> Result<(), StoreError> {
    super::transaction(conn, |conn| {
        let Some(row) = get(conn, id)? else {
            return Ok(());
        };
        diesel::update(game_analyses::table.find(id))
            .set((
                game_analyses::status.eq("done"),
                game_analyses::plies_done.eq(row.plies),
                game_analyses::finished_at.eq(Some(now)),
                game_analyses::due_at.eq(None::<NaiveDateTime>),
                game_analyses::lease_until.eq(None::<NaiveDateTime>),
                game_analyses::last_values.eq(Some(last_values)),
            ))
            .execute(conn)?;
        diesel::delete(
            game_analyses::table
                .filter(game_analyses::game_id.eq(&row.game_id))
                .filter(game_analyses::id.ne(id)),
        )
        .execute(conn)?;
        Ok::<_, StoreError>(())
    })
}

/// Marks an analysis failed (a game that does not replay: a bug); it is not retried.
pub fn fail(
    conn: &mut DbConnection,
    id: &str,
    error: &str,
    now: NaiveDateTime,
) -> Result<(), StoreError> {
    diesel::update(game_analyses::table.find(id))
        .set((
            game_analyses::status.eq("failed"),
            game_analyses::error.eq(Some(error)),
            game_analyses::finished_at.eq(Some(now)),
            game_analyses::due_at.eq(None::<NaiveDateTime>),
            game_analyses::lease_until.eq(None::<NaiveDateTime>),
        ))
        .execute(conn)?;
    Ok(())
}

/// Queues again, for `engine`, up to `limit` games analysed only by other engines (no
/// quota is charged: `requested_by` stays empty). Returns how many were queued.
pub fn requeue_stale(
    conn: &mut DbConnection,
    engine: &str,
    now: NaiveDateTime,
    limit: i64,
    new_id: &mut dyn FnMut() -> String,
) -> Result<usize, StoreError> {
    let stale: Vec<AnalysisRow> = game_analyses::table
        .filter(game_analyses::engine_version.ne(engine))
        .filter(game_analyses::status.eq("done"))
        .select(AnalysisRow::as_select())
        .order(game_analyses::finished_at.asc())
        .limit(limit)
        .load(conn)?;
    let mut queued = 0;
    for old in stale {
        if find(conn, &old.game_id, engine)?.is_some() {
            continue;
        }
        if insert(conn, &old.again(engine, now, new_id()))? {
            queued += 1;
        }
    }
    Ok(queued)
}

/// The game's finished analysis by another engine than `engine`, if any.
pub fn stale_of_game(
    conn: &mut DbConnection,
    game: &GameId,
    engine: &str,
) -> Result<Option<AnalysisRow>, StoreError> {
    Ok(game_analyses::table
        .filter(game_analyses::game_id.eq(game))
        .filter(game_analyses::engine_version.ne(engine))
        .filter(game_analyses::status.eq("done"))
        .select(AnalysisRow::as_select())
        .first(conn)
        .optional()?)
}

impl AnalysisRow {
    /// A queued analysis of the same game by `engine`, charged to no one.
    pub fn again(&self, engine: &str, now: NaiveDateTime, id: String) -> AnalysisRow {
        AnalysisRow {
            id,
            game_id: self.game_id.clone(),
            engine_version: engine.to_string(),
            status: "queued".into(),
            requested_by: None,
            requested_at: now,
            game_version: self.game_version,
            plies: self.plies,
            plies_done: 0,
            due_at: Some(now),
            lease_until: None,
            finished_at: None,
            last_values: None,
            error: None,
        }
    }
}

/// Deletes up to `limit` analyses (done or failed) finished before `cutoff`, with their
/// moves; returns how many.
pub fn prune(
    conn: &mut DbConnection,
    cutoff: NaiveDateTime,
    limit: i64,
) -> Result<usize, StoreError> {
    let ids: Vec<String> = game_analyses::table
        .filter(game_analyses::finished_at.lt(cutoff))
        .select(game_analyses::id)
        .limit(limit)
        .load(conn)?;
    if ids.is_empty() {
        return Ok(0);
    }
    super::transaction(conn, |conn| {
        diesel::delete(
            game_analysis_moves::table.filter(game_analysis_moves::analysis_id.eq_any(&ids)),
        )
        .execute(conn)?;
        Ok(
            diesel::delete(game_analyses::table.filter(game_analyses::id.eq_any(&ids)))
                .execute(conn)?,
        )
    })
}

/// The analyses a user asked for, oldest first (the account export).
pub fn requested_by(
    conn: &mut DbConnection,
    user: &UserId,
) -> Result<Vec<AnalysisRow>, StoreError> {
    Ok(game_analyses::table
        .filter(game_analyses::requested_by.eq(user))
        .order((game_analyses::requested_at.asc(), game_analyses::id.asc()))
        .select(AnalysisRow::as_select())
        .load(conn)?)
}
