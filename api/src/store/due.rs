//! The due-work queue on `games` (`due_at`, `due_lease_until`; the worker is
//! `crate::workers::due`).

use chrono::{NaiveDateTime, TimeDelta};
use diesel::prelude::*;

use super::lease::Queue;
use super::schema::games;
use super::{DbConnection, StoreError};
use crate::ids::GameId;

/// The games whose due work (a deadline, a bot's turn) has come.
const DUE_GAMES: Queue = Queue {
    table: "games",
    id: "id",
    due: "due_at",
    lease: "due_lease_until",
    only: "",
    order: "due_priority, due_at",
};

/// Claims up to `limit` games due at `now` for `lease`.
pub fn claim(
    conn: &mut DbConnection,
    now: NaiveDateTime,
    lease: TimeDelta,
    limit: i64,
) -> Result<Vec<GameId>, StoreError> {
    let ids = DUE_GAMES.claim(conn, now, now + lease, limit)?;
    Ok(ids.into_iter().map(GameId::from).collect())
}

/// Releases a claim.
pub fn release(conn: &mut DbConnection, id: &GameId) -> Result<(), StoreError> {
    diesel::update(games::table.find(id))
        .set(games::due_lease_until.eq(None::<NaiveDateTime>))
        .execute(conn)?;
    Ok(())
}

/// Moves a game's due time to `at` (a deadline moved by a vacation, a bot-only game's
/// next move after its rate limit), if the game is still at `version` and due at all.
pub fn postpone(
    conn: &mut DbConnection,
    id: &GameId,
    version: i64,
    at: NaiveDateTime,
) -> Result<(), StoreError> {
    diesel::update(
        games::table
            .find(id)
            .filter(games::version.eq(version))
            .filter(games::due_at.is_not_null()),
    )
    .set(games::due_at.eq(Some(at)))
    .execute(conn)?;
    Ok(())
}

/// Renews a claim that is still held until `until` (a worker renews while it works, so a
/// crashed instance's games come back within one short lease). False if it was lost.
pub fn renew(
    conn: &mut DbConnection,
    id: &GameId,
    until: NaiveDateTime,
) -> Result<bool, StoreError> {
    let n = diesel::update(
        games::table
            .find(id)
            .filter(games::due_lease_until.is_not_null()),
    )
    .set(games::due_lease_until.eq(Some(until)))
    .execute(conn)?;
    Ok(n == 1)
}

/// When the next unclaimed game is due (the `games_due_idx` index, soonest first), if any.
pub fn next_due(
    conn: &mut DbConnection,
    now: NaiveDateTime,
) -> Result<Option<NaiveDateTime>, StoreError> {
    Ok(games::table
        .filter(games::due_at.is_not_null())
        .filter(
            games::due_lease_until
                .is_null()
                .or(games::due_lease_until.le(now)),
        )
        .order(games::due_at.asc())
        .select(games::due_at)
        .first::<Option<NaiveDateTime>>(conn)
        .optional()?
        .flatten())
}
