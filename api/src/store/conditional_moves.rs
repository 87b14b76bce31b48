//! `conditional_moves`: each seat's private tree of conditional moves (the model is
//! `crate::model::conditional`, the use cases `crate::games::conditional`). Only the
//! seat's player reads a row; no view of the game, its log or its record joins it.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use super::schema::{conditional_moves, games};
use super::{DbConnection, StoreError};
use crate::ids::{GameId, UserId};

#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = conditional_moves)]
pub struct TreeRow {
    pub game_id: GameId,
    pub seat: String,
    pub user_id: UserId,
    pub base_version: i64,
    pub base_actions: i64,
    pub checked_version: i64,
    pub lines: String,
    pub revision: i64,
    pub updated_at: NaiveDateTime,
}

/// The tree of a game's seat, if any.
pub fn get(
    conn: &mut DbConnection,
    game: &GameId,
    seat: &str,
) -> Result<Option<TreeRow>, StoreError> {
    Ok(conditional_moves::table
        .find((game, seat))
        .select(TreeRow::as_select())
        .first(conn)
        .optional()?)
}

/// Stores (or replaces) a tree; its revision is one more than the replaced one's.
pub fn put(conn: &mut DbConnection, mut row: TreeRow) -> Result<TreeRow, StoreError> {
    super::transaction(conn, |conn| {
        let old = get(conn, &row.game_id, &row.seat)?;
        row.revision = old.map_or(1, |o| o.revision + 1);
        diesel::delete(conditional_moves::table.find((&row.game_id, &row.seat))).execute(conn)?;
        diesel::insert_into(conditional_moves::table)
            .values(&row)
            .execute(conn)?;
        Ok(row)
    })
}

/// Deletes a tree; whether there was one.
pub fn delete(conn: &mut DbConnection, game: &GameId, seat: &str) -> Result<bool, StoreError> {
    Ok(diesel::delete(conditional_moves::table.find((game, seat))).execute(conn)? == 1)
}

/// Deletes a tree if it is still at `revision`; whether it was.
pub fn delete_at(
    conn: &mut DbConnection,
    game: &GameId,
    seat: &str,
    revision: i64,
) -> Result<bool, StoreError> {
    Ok(diesel::delete(
        conditional_moves::table
            .find((game, seat))
            .filter(conditional_moves::revision.eq(revision)),
    )
    .execute(conn)?
        == 1)
}

/// Replaces a tree that is still at `revision` by `row` (its lines, base and checked
/// version); whether it was.
pub fn update_at(
    conn: &mut DbConnection,
    revision: i64,
    row: &TreeRow,
) -> Result<bool, StoreError> {
    Ok(diesel::update(
        conditional_moves::table
            .find((&row.game_id, &row.seat))
            .filter(conditional_moves::revision.eq(revision)),
    )
    .set((
        conditional_moves::base_version.eq(row.base_version),
        conditional_moves::base_actions.eq(row.base_actions),
        conditional_moves::checked_version.eq(row.checked_version),
        conditional_moves::lines.eq(&row.lines),
        conditional_moves::revision.eq(revision + 1),
        conditional_moves::updated_at.eq(row.updated_at),
    ))
    .execute(conn)?
        == 1)
}

/// The trees of a game.
pub fn of_game(conn: &mut DbConnection, game: &GameId) -> Result<Vec<TreeRow>, StoreError> {
    Ok(conditional_moves::table
        .filter(conditional_moves::game_id.eq(game))
        .order(conditional_moves::seat.asc())
        .select(TreeRow::as_select())
        .load(conn)?)
}

/// The games with a tree not yet matched at their current version, the longest waiting
/// first, at most `limit` (each game once).
pub fn pending(conn: &mut DbConnection, limit: i64) -> Result<Vec<GameId>, StoreError> {
    let mut ids: Vec<GameId> = conditional_moves::table
        .inner_join(games::table.on(games::id.eq(conditional_moves::game_id)))
        .filter(games::version.gt(conditional_moves::checked_version))
        .order(conditional_moves::updated_at.asc())
        .select(conditional_moves::game_id)
        .limit(limit)
        .load(conn)?;
    let mut seen = std::collections::HashSet::new();
    ids.retain(|id| seen.insert(id.clone()));
    Ok(ids)
}

/// Deletes every tree of a user (an account closed).
pub fn delete_of_user(conn: &mut DbConnection, user: &UserId) -> Result<usize, StoreError> {
    Ok(
        diesel::delete(conditional_moves::table.filter(conditional_moves::user_id.eq(user)))
            .execute(conn)?,
    )
}

/// Every tree of a user, by game (the account export).
pub fn of_user(conn: &mut DbConnection, user: &UserId) -> Result<Vec<TreeRow>, StoreError> {
    Ok(conditional_moves::table
        .filter(conditional_moves::user_id.eq(user))
        .order((
            conditional_moves::game_id.asc(),
            conditional_moves::seat.asc(),
        ))
        .select(TreeRow::as_select())
        .load(conn)?)
}
