//! `account_tokens`: the single-use tokens mailed to an account's owner (address
//! verification, password reset). Only the SHA-256 of a token is stored.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use super::schema::account_tokens as t;
use super::{DbConnection, StoreError};
use crate::ids::UserId;

#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = t)]
pub struct AccountTokenRow {
    pub id: String,
    pub user_id: UserId,
    /// `verify_email` or `password_reset`.
    pub purpose: String,
    pub token_hash: String,
    /// The address the token was mailed to.
    pub email: String,
    pub created_at: NaiveDateTime,
    pub expires_at: NaiveDateTime,
    pub used_at: Option<NaiveDateTime>,
}

pub fn insert(conn: &mut DbConnection, row: &AccountTokenRow) -> Result<(), StoreError> {
    diesel::insert_into(t::table).values(row).execute(conn)?;
    Ok(())
}

pub fn find_by_hash(
    conn: &mut DbConnection,
    token_hash: &str,
) -> Result<Option<AccountTokenRow>, StoreError> {
    Ok(t::table
        .filter(t::token_hash.eq(token_hash))
        .select(AccountTokenRow::as_select())
        .first(conn)
        .optional()?)
}

/// Marks a token used unless it already is; whether this call marked it (so of two
/// racing uses, one wins).
pub fn mark_used(
    conn: &mut DbConnection,
    id: &str,
    now: NaiveDateTime,
) -> Result<bool, StoreError> {
    let n = diesel::update(t::table.filter(t::id.eq(id)).filter(t::used_at.is_null()))
        .set(t::used_at.eq(Some(now)))
        .execute(conn)?;
    Ok(n == 1)
}

/// Marks every unused token of a user for `purpose` used (one of them was used: the
/// others have no more work to do).
pub fn retire_all(
    conn: &mut DbConnection,
    user_id: &UserId,
    purpose: &str,
    now: NaiveDateTime,
) -> Result<usize, StoreError> {
    Ok(diesel::update(
        t::table
            .filter(t::user_id.eq(user_id))
            .filter(t::purpose.eq(purpose))
            .filter(t::used_at.is_null()),
    )
    .set(t::used_at.eq(Some(now)))
    .execute(conn)?)
}

/// Marks used the unused tokens of a user for `purpose` but the newest `keep`, so that
/// at most `keep` links of a kind are live at once; how many it marked.
pub fn retire_beyond(
    conn: &mut DbConnection,
    user_id: &UserId,
    purpose: &str,
    keep: usize,
    now: NaiveDateTime,
) -> Result<usize, StoreError> {
    let unused: Vec<String> = t::table
        .filter(t::user_id.eq(user_id))
        .filter(t::purpose.eq(purpose))
        .filter(t::used_at.is_null())
        .filter(t::expires_at.gt(now))
        .order((t::created_at.desc(), t::id.desc()))
        .select(t::id)
        .load(conn)?;
    let Some(older) = unused.get(keep..).filter(|o| !o.is_empty()) else {
        return Ok(0);
    };
    Ok(diesel::update(t::table.filter(t::id.eq_any(older)))
        .set(t::used_at.eq(Some(now)))
        .execute(conn)?)
}

/// Tokens of a user for `purpose` made since `since`, oldest first (their times).
pub fn issued_since(
    conn: &mut DbConnection,
    user_id: &UserId,
    purpose: &str,
    since: NaiveDateTime,
) -> Result<Vec<NaiveDateTime>, StoreError> {
    Ok(t::table
        .filter(t::user_id.eq(user_id))
        .filter(t::purpose.eq(purpose))
        .filter(t::created_at.ge(since))
        .order(t::created_at.asc())
        .select(t::created_at)
        .load(conn)?)
}

/// Tokens for `purpose` mailed to `email` (any account, case-insensitively) since
/// `since`.
pub fn issued_to_address_since(
    conn: &mut DbConnection,
    email: &str,
    purpose: &str,
    since: NaiveDateTime,
) -> Result<i64, StoreError> {
    Ok(t::table
        .filter(super::users::lower(t::email).eq(email.to_lowercase()))
        .filter(t::purpose.eq(purpose))
        .filter(t::created_at.ge(since))
        .count()
        .get_result(conn)?)
}
