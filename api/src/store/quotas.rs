//! The counts the quotas read (`crate::games::quotas`): what an account created, by the
//! `games_created_by_idx` index.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use super::games::DUE_BOTS_ONLY;
use super::schema::{games, users};
use super::{DbConnection, StoreError};
use crate::ids::UserId;

/// Serialises the quota checks of one account: on PostgreSQL the account's row is locked
/// until the transaction ends (two concurrent creations cannot both pass the last place);
/// SQLite serialises writers anyway. Call it inside the write's transaction.
pub fn lock_account(conn: &mut DbConnection, user: &UserId) -> Result<(), StoreError> {
    if let DbConnection::Pg(c) = conn {
        users::table
            .find(user)
            .select(users::id)
            // Not FOR UPDATE: that conflicts with the KEY SHARE lock every insert
            // referencing the account takes (its moves' outbox rows wait for it).
            .for_no_key_update()
            .load::<String>(c)?;
    }
    Ok(())
}

/// Games of `kind` (`play`) `user` created that have not ended (open or being played).
pub fn open_games_created(
    conn: &mut DbConnection,
    user: &UserId,
    kind: &str,
) -> Result<i64, StoreError> {
    Ok(games::table
        .filter(games::created_by.eq(user))
        .filter(games::kind.eq(kind))
        .filter(games::status.eq_any(["open", "active"]))
        .count()
        .get_result(conn)?)
}

/// How many games (of `kind`, or of any kind) `user` created after `since`, and when the
/// oldest of them was created.
pub fn created_since(
    conn: &mut DbConnection,
    user: &UserId,
    kind: Option<&str>,
    since: NaiveDateTime,
) -> Result<(i64, Option<NaiveDateTime>), StoreError> {
    let mut q = games::table
        .filter(games::created_by.eq(user))
        .filter(games::created_at.gt(since))
        .select((
            diesel::dsl::count_star(),
            diesel::dsl::min(games::created_at),
        ))
        .into_boxed();
    if let Some(kind) = kind {
        q = q.filter(games::kind.eq(kind));
    }
    Ok(q.first(conn)?)
}

/// Games being played by computer players alone (created by `user`, or by anyone).
pub fn bots_only_games(conn: &mut DbConnection, user: Option<&str>) -> Result<i64, StoreError> {
    let mut q = games::table
        .filter(games::status.eq("active"))
        .filter(games::due_priority.eq(DUE_BOTS_ONLY))
        .count()
        .into_boxed();
    if let Some(user) = user {
        q = q.filter(games::created_by.eq(user));
    }
    Ok(q.get_result(conn)?)
}
