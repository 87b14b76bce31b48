//! The `oauth_codes` table: OAuth 2.0 authorization codes, by the SHA-256 of the code.
//! (The access tokens issued from them are rows of `personal_access_tokens`, see
//! [`super::tokens`].)

use chrono::NaiveDateTime;
use diesel::prelude::*;

use super::schema::oauth_codes as codes;
use super::{DbConnection, StoreError};
use crate::ids::{TokenId, UserId};

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = codes)]
pub struct OAuthCode {
    pub code_hash: String,
    pub user_id: UserId,
    pub client_id: String,
    pub redirect_uri: String,
    /// Space-separated scope names.
    pub scopes: String,
    /// The PKCE challenge (`S256`: base64url of the verifier's SHA-256).
    pub code_challenge: String,
    pub created_at: NaiveDateTime,
    pub expires_at: NaiveDateTime,
    /// When the code was first presented at the token endpoint (rightly or not).
    pub used_at: Option<NaiveDateTime>,
    /// The access token issued from it, if any.
    pub token_id: Option<TokenId>,
}

pub fn insert(conn: &mut DbConnection, code: &OAuthCode) -> Result<(), StoreError> {
    diesel::insert_into(codes::table)
        .values(code)
        .execute(conn)?;
    Ok(())
}

/// Codes of a user that expire after `since` (the recent ones, used or not).
pub fn count_recent(
    conn: &mut DbConnection,
    user_id: &UserId,
    since: NaiveDateTime,
) -> Result<i64, StoreError> {
    Ok(codes::table
        .filter(codes::user_id.eq(user_id))
        .filter(codes::expires_at.gt(since))
        .count()
        .get_result(conn)?)
}

/// Deletes a user's codes that expired before `before`; returns how many.
pub fn delete_expired(
    conn: &mut DbConnection,
    user_id: &UserId,
    before: NaiveDateTime,
) -> Result<usize, StoreError> {
    Ok(diesel::delete(
        codes::table
            .filter(codes::user_id.eq(user_id))
            .filter(codes::expires_at.lt(before)),
    )
    .execute(conn)?)
}

pub fn find(conn: &mut DbConnection, code_hash: &str) -> Result<Option<OAuthCode>, StoreError> {
    Ok(codes::table
        .find(code_hash)
        .select(OAuthCode::as_select())
        .first(conn)
        .optional()?)
}

/// Marks a code used at `now` unless it already was: whether this call did (exactly one
/// presentation of a code ever gets `true`, on both backends).
pub fn claim(
    conn: &mut DbConnection,
    code_hash: &str,
    now: NaiveDateTime,
) -> Result<bool, StoreError> {
    let n = diesel::update(
        codes::table
            .filter(codes::code_hash.eq(code_hash))
            .filter(codes::used_at.is_null()),
    )
    .set(codes::used_at.eq(now))
    .execute(conn)?;
    Ok(n == 1)
}

/// Records the access token issued from a code.
pub fn set_token(
    conn: &mut DbConnection,
    code_hash: &str,
    token_id: &TokenId,
) -> Result<(), StoreError> {
    diesel::update(codes::table.find(code_hash))
        .set(codes::token_id.eq(token_id))
        .execute(conn)?;
    Ok(())
}
