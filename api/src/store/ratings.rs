//! `player_ratings` and `rating_changes`: the ratings of rated games (the rules are
//! `crate::ratings`). Floats are stored as 8-byte doubles on both backends, so what is
//! read back is bit for bit what was written.

use chrono::NaiveDateTime;
use diesel::dsl::max;
use diesel::prelude::*;

use super::schema::{player_ratings, rating_changes, users};
use super::{DbConnection, StoreError};
use crate::ids::{GameId, UserId};

/// A player's current rating.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = player_ratings)]
pub struct PlayerRatingRow {
    pub user_id: UserId,
    pub mu: f64,
    pub sigma: f64,
    /// mu − 3·sigma.
    pub rating: f64,
    pub games: i64,
    pub wins: i64,
    pub last_game_at: NaiveDateTime,
}

/// One player's change in one rated game.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = rating_changes)]
pub struct RatingChangeRow {
    pub game_id: GameId,
    pub user_id: UserId,
    pub applied_seq: i64,
    /// 1 is first; shared places share the number.
    pub place: i32,
    pub players: i32,
    pub mu_before: f64,
    pub sigma_before: f64,
    pub mu_after: f64,
    pub sigma_after: f64,
    pub ended_at: NaiveDateTime,
}

/// Locks the rating rows of `users` until the end of the transaction, creating the
/// missing ones from `fresh` first, and returns them. Rows are created and locked in
/// user id order (PostgreSQL: `SELECT ... FOR UPDATE`), so two games ending at once
/// that share players wait for each other instead of deadlocking; on SQLite the write
/// transaction's `BEGIN IMMEDIATE` already serialises writers.
pub fn lock(
    conn: &mut DbConnection,
    users: &[UserId],
    fresh: impl Fn(&UserId) -> PlayerRatingRow,
) -> Result<Vec<PlayerRatingRow>, StoreError> {
    let mut ids = users.to_vec();
    ids.sort();
    ids.dedup();
    for id in &ids {
        let row = fresh(id);
        match conn {
            DbConnection::Pg(c) => diesel::insert_into(player_ratings::table)
                .values(&row)
                .on_conflict(player_ratings::user_id)
                .do_nothing()
                .execute(c)?,
            DbConnection::Sqlite(c) => diesel::insert_or_ignore_into(player_ratings::table)
                .values(&row)
                .execute(c)?,
        };
    }
    macro_rules! q {
        () => {
            player_ratings::table
                .filter(player_ratings::user_id.eq_any(&ids))
                .order(player_ratings::user_id.asc())
                .select(PlayerRatingRow::as_select())
        };
    }
    Ok(match conn {
        DbConnection::Pg(c) => q!().for_update().load(c)?,
        DbConnection::Sqlite(c) => q!().load(c)?,
    })
}

/// The next application number: one more than the greatest so far (read after
/// [`lock`], so a game sharing a player with one applied before sees its number).
pub fn next_seq(conn: &mut DbConnection) -> Result<i64, StoreError> {
    let top: Option<i64> = rating_changes::table
        .select(max(rating_changes::applied_seq))
        .first(conn)?;
    Ok(top.unwrap_or(0) + 1)
}

/// Writes one game's changes and the players' new ratings.
pub fn record(
    conn: &mut DbConnection,
    changes: &[RatingChangeRow],
    ratings: &[PlayerRatingRow],
) -> Result<(), StoreError> {
    for change in changes {
        diesel::insert_into(rating_changes::table)
            .values(change)
            .execute(conn)?;
    }
    for row in ratings {
        diesel::update(player_ratings::table.find(&row.user_id))
            .set(row)
            .execute(conn)?;
    }
    Ok(())
}

/// The rating of `user_id`, if they finished a rated game.
pub fn get(
    conn: &mut DbConnection,
    user_id: &UserId,
) -> Result<Option<PlayerRatingRow>, StoreError> {
    Ok(player_ratings::table
        .find(user_id)
        .select(PlayerRatingRow::as_select())
        .first(conn)
        .optional()?)
}

/// The ratings of those of `user_ids` who have one.
pub fn many(
    conn: &mut DbConnection,
    user_ids: &[UserId],
) -> Result<Vec<PlayerRatingRow>, StoreError> {
    if user_ids.is_empty() {
        return Ok(Vec::new());
    }
    Ok(player_ratings::table
        .filter(player_ratings::user_id.eq_any(user_ids))
        .select(PlayerRatingRow::as_select())
        .load(conn)?)
}

/// A player's changes, newest first, at most `limit`.
pub fn changes_of(
    conn: &mut DbConnection,
    user_id: &UserId,
    limit: i64,
) -> Result<Vec<RatingChangeRow>, StoreError> {
    Ok(rating_changes::table
        .filter(rating_changes::user_id.eq(user_id))
        .order((
            rating_changes::applied_seq.desc(),
            rating_changes::game_id.desc(),
        ))
        .limit(limit)
        .select(RatingChangeRow::as_select())
        .load(conn)?)
}

/// One game's changes (one row per player whose rating it changed).
pub fn changes_of_game(
    conn: &mut DbConnection,
    game_id: &GameId,
) -> Result<Vec<RatingChangeRow>, StoreError> {
    Ok(rating_changes::table
        .filter(rating_changes::game_id.eq(game_id))
        .order(rating_changes::user_id.asc())
        .select(RatingChangeRow::as_select())
        .load(conn)?)
}

/// How many times a player finished at each place (1-based), as (place, count).
pub fn places_of(conn: &mut DbConnection, user_id: &UserId) -> Result<Vec<(i32, i64)>, StoreError> {
    Ok(rating_changes::table
        .filter(rating_changes::user_id.eq(user_id))
        .group_by(rating_changes::place)
        .select((rating_changes::place, diesel::dsl::count_star()))
        .order(rating_changes::place.asc())
        .load(conn)?)
}

/// Every change, in the order they were applied.
pub fn all_changes(conn: &mut DbConnection) -> Result<Vec<RatingChangeRow>, StoreError> {
    Ok(rating_changes::table
        .order((
            rating_changes::applied_seq.asc(),
            rating_changes::game_id.asc(),
            rating_changes::user_id.asc(),
        ))
        .select(RatingChangeRow::as_select())
        .load(conn)?)
}

/// Every player's rating.
pub fn all_ratings(conn: &mut DbConnection) -> Result<Vec<PlayerRatingRow>, StoreError> {
    Ok(player_ratings::table
        .order(player_ratings::user_id.asc())
        .select(PlayerRatingRow::as_select())
        .load(conn)?)
}

/// The leaderboard: ratings with their usernames, best first (rating, then user id),
/// after the cursor `(rating, user_id)` if given, of players whose last rated game ended
/// at `active_since` or later if given. Closed accounts are left out (their rows stay:
/// `recompute-ratings` replays their games, whose other players' figures depend on them).
pub fn board(
    conn: &mut DbConnection,
    after: Option<(f64, String)>,
    active_since: Option<NaiveDateTime>,
    limit: i64,
) -> Result<Vec<(PlayerRatingRow, String)>, StoreError> {
    let mut query = player_ratings::table
        .inner_join(users::table)
        .filter(users::closed_at.is_null())
        .select((PlayerRatingRow::as_select(), users::username))
        .order((player_ratings::rating.desc(), player_ratings::user_id.asc()))
        .limit(limit)
        .into_boxed();
    if let Some((rating, id)) = after {
        query = query.filter(
            player_ratings::rating.lt(rating).or(player_ratings::rating
                .eq(rating)
                .and(player_ratings::user_id.gt(id))),
        );
    }
    if let Some(since) = active_since {
        query = query.filter(player_ratings::last_game_at.ge(since));
    }
    Ok(query.load(conn)?)
}
