//! The `sessions` and `refresh_tokens` tables: login sessions and their refresh tokens.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use super::schema::{refresh_tokens, sessions};
use super::{
    DbConnection, StoreError,
    models::{RefreshToken, Session},
};
use crate::ids::{SessionId, UserId};

pub fn insert(conn: &mut DbConnection, session: &Session) -> Result<(), StoreError> {
    diesel::insert_into(sessions::table)
        .values(session)
        .execute(conn)?;
    Ok(())
}

pub fn find(conn: &mut DbConnection, id: &SessionId) -> Result<Option<Session>, StoreError> {
    Ok(sessions::table
        .find(id)
        .select(Session::as_select())
        .first(conn)
        .optional()?)
}

/// Records that a session was used at `now` (a refresh).
pub fn touch(
    conn: &mut DbConnection,
    id: &SessionId,
    now: NaiveDateTime,
) -> Result<(), StoreError> {
    diesel::update(sessions::table.find(id))
        .set(sessions::last_used_at.eq(now))
        .execute(conn)?;
    Ok(())
}

/// Revokes one session (its refresh and access tokens stop working). Returns whether it
/// was live.
pub fn revoke(
    conn: &mut DbConnection,
    id: &SessionId,
    reason: &str,
    now: NaiveDateTime,
) -> Result<bool, StoreError> {
    let n = diesel::update(
        sessions::table
            .filter(sessions::id.eq(id))
            .filter(sessions::revoked_at.is_null()),
    )
    .set((
        sessions::revoked_at.eq(now),
        sessions::revoked_reason.eq(reason),
    ))
    .execute(conn)?;
    Ok(n > 0)
}

/// Revokes every live session of a user except `keep`; returns how many.
pub fn revoke_all_of_user(
    conn: &mut DbConnection,
    user_id: &UserId,
    keep: Option<&SessionId>,
    reason: &str,
    now: NaiveDateTime,
) -> Result<usize, StoreError> {
    Ok(diesel::update(
        sessions::table
            .filter(sessions::user_id.eq(user_id))
            .filter(sessions::revoked_at.is_null())
            .filter(sessions::id.ne(keep.map_or("", SessionId::as_str))),
    )
    .set((
        sessions::revoked_at.eq(now),
        sessions::revoked_reason.eq(reason),
    ))
    .execute(conn)?)
}

pub fn insert_refresh(conn: &mut DbConnection, token: &RefreshToken) -> Result<(), StoreError> {
    diesel::insert_into(refresh_tokens::table)
        .values(token)
        .execute(conn)?;
    Ok(())
}

pub fn find_refresh(
    conn: &mut DbConnection,
    token_hash: &str,
) -> Result<Option<RefreshToken>, StoreError> {
    Ok(refresh_tokens::table
        .find(token_hash)
        .select(RefreshToken::as_select())
        .first(conn)
        .optional()?)
}

/// Marks a refresh token used at `now` unless it already was; returns whether this call
/// marked it.
pub fn mark_refresh_used(
    conn: &mut DbConnection,
    token_hash: &str,
    now: NaiveDateTime,
) -> Result<bool, StoreError> {
    let n = diesel::update(
        refresh_tokens::table
            .filter(refresh_tokens::token_hash.eq(token_hash))
            .filter(refresh_tokens::used_at.is_null()),
    )
    .set(refresh_tokens::used_at.eq(now))
    .execute(conn)?;
    Ok(n == 1)
}

/// A user's live sessions (not revoked, used since `since`), most recently used first, at
/// most `limit`.
pub fn list_live(
    conn: &mut DbConnection,
    user_id: &UserId,
    since: NaiveDateTime,
    limit: i64,
) -> Result<Vec<Session>, StoreError> {
    Ok(sessions::table
        .filter(sessions::user_id.eq(user_id))
        .filter(sessions::revoked_at.is_null())
        .filter(sessions::last_used_at.ge(since))
        .order((sessions::last_used_at.desc(), sessions::id.desc()))
        .limit(limit)
        .select(Session::as_select())
        .load(conn)?)
}
