//! The `personal_access_tokens` table.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use super::schema::personal_access_tokens as pat;
use super::{DbConnection, StoreError, models::PersonalAccessToken};
use crate::ids::{TokenId, UserId};

pub fn insert(conn: &mut DbConnection, token: &PersonalAccessToken) -> Result<(), StoreError> {
    diesel::insert_into(pat::table)
        .values(token)
        .execute(conn)?;
    Ok(())
}

/// Live (unrevoked) tokens of a user; expired ones count until they are revoked.
pub fn count_live(conn: &mut DbConnection, user_id: &UserId) -> Result<i64, StoreError> {
    Ok(pat::table
        .filter(pat::user_id.eq(user_id))
        .filter(pat::revoked_at.is_null())
        .count()
        .get_result(conn)?)
}

/// A page of a user's live tokens, oldest first: at most `limit` rows after the id
/// `after`.
pub fn list_live(
    conn: &mut DbConnection,
    user_id: &UserId,
    after: Option<&str>,
    limit: i64,
) -> Result<Vec<PersonalAccessToken>, StoreError> {
    let mut q = pat::table
        .filter(pat::user_id.eq(user_id))
        .filter(pat::revoked_at.is_null())
        .order(pat::id.asc())
        .limit(limit)
        .select(PersonalAccessToken::as_select())
        .into_boxed();
    if let Some(after) = after {
        q = q.filter(pat::id.gt(after.to_string()));
    }
    Ok(q.load(conn)?)
}

/// Whether the user has a token (revoked or not) with this id.
pub fn exists(conn: &mut DbConnection, user_id: &UserId, id: &TokenId) -> Result<bool, StoreError> {
    let found: i64 = pat::table
        .filter(pat::id.eq(id))
        .filter(pat::user_id.eq(user_id))
        .count()
        .get_result(conn)?;
    Ok(found > 0)
}

/// Revokes a token unless it already is.
pub fn revoke(conn: &mut DbConnection, id: &TokenId, now: NaiveDateTime) -> Result<(), StoreError> {
    diesel::update(
        pat::table
            .filter(pat::id.eq(id))
            .filter(pat::revoked_at.is_null()),
    )
    .set(pat::revoked_at.eq(now))
    .execute(conn)?;
    Ok(())
}

/// Revokes every live token of a user; returns how many.
pub fn revoke_all_of_user(
    conn: &mut DbConnection,
    user_id: &UserId,
    now: NaiveDateTime,
) -> Result<usize, StoreError> {
    Ok(diesel::update(
        pat::table
            .filter(pat::user_id.eq(user_id))
            .filter(pat::revoked_at.is_null()),
    )
    .set(pat::revoked_at.eq(now))
    .execute(conn)?)
}

pub fn find_by_hash(
    conn: &mut DbConnection,
    token_hash: &str,
) -> Result<Option<PersonalAccessToken>, StoreError> {
    Ok(pat::table
        .filter(pat::token_hash.eq(token_hash))
        .select(PersonalAccessToken::as_select())
        .first(conn)
        .optional()?)
}

/// A token by id.
pub fn find(
    conn: &mut DbConnection,
    id: &TokenId,
) -> Result<Option<PersonalAccessToken>, StoreError> {
    Ok(pat::table
        .find(id)
        .select(PersonalAccessToken::as_select())
        .first(conn)
        .optional()?)
}

/// Records that a token was used at `now`.
pub fn touch(conn: &mut DbConnection, id: &TokenId, now: NaiveDateTime) -> Result<(), StoreError> {
    diesel::update(pat::table.find(id))
        .set(pat::last_used_at.eq(now))
        .execute(conn)?;
    Ok(())
}
