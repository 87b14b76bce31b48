//! The due-work queue on `games` (`due_at`, `due_lease_until`; the worker is
//! `crate::workers::due`).

use chrono::{NaiveDateTime, TimeDelta};
use diesel::prelude::*;

use super::lease::Queue;
use super::schema::games;
use super::{DbConnection, StoreError};

/// The games whose due work (a deadline, a bot's turn) has come.
const DUE_GAMES: Queue = Queue {
    table: "games",
    id: "id",
    due: "due_at",
    lease: "due_lease_until",
    only: "",
};

/// Claims up to `limit` games due at `now` for `lease`.
pub fn claim(
    conn: &mut DbConnection,
    now: NaiveDateTime,
    lease: TimeDelta,
    limit: i64,
) -> Result<Vec<String>, StoreError> {
    Ok(DUE_GAMES.claim(conn, now, now + lease, limit)?)
}

/// Releases a claim.
pub fn release(conn: &mut DbConnection, id: &str) -> Result<(), StoreError> {
    diesel::update(games::table.find(id))
        .set(games::due_lease_until.eq(None::<NaiveDateTime>))
        .execute(conn)?;
    Ok(())
}

/// Moves a game's due time to `at` (a deadline moved by a vacation), if the game is still
/// at `version`.
pub fn postpone(
    conn: &mut DbConnection,
    id: &str,
    version: i64,
    at: NaiveDateTime,
) -> Result<(), StoreError> {
    diesel::update(games::table.find(id).filter(games::version.eq(version)))
        .set(games::due_at.eq(Some(at)))
        .execute(conn)?;
    Ok(())
}
