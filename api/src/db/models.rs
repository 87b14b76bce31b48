//! Row types of the account tables and the queries on them.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use super::DbConnection;
use crate::schema::{personal_access_tokens, refresh_tokens, sessions, users};

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = users)]
pub struct User {
    pub id: String,
    pub username: String,
    pub username_key: String,
    pub email: String,
    pub password_hash: String,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
}

impl User {
    pub fn find(conn: &mut DbConnection, id: &str) -> QueryResult<Option<User>> {
        users::table
            .find(id)
            .select(User::as_select())
            .first(conn)
            .optional()
    }

    /// By username, case-insensitively.
    pub fn find_by_username(conn: &mut DbConnection, username: &str) -> QueryResult<Option<User>> {
        users::table
            .filter(users::username_key.eq(username.to_lowercase()))
            .select(User::as_select())
            .first(conn)
            .optional()
    }
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = sessions)]
pub struct Session {
    pub id: String,
    pub user_id: String,
    pub created_at: NaiveDateTime,
    pub last_used_at: NaiveDateTime,
    pub revoked_at: Option<NaiveDateTime>,
    pub revoked_reason: Option<String>,
}

impl Session {
    pub fn find(conn: &mut DbConnection, id: &str) -> QueryResult<Option<Session>> {
        sessions::table
            .find(id)
            .select(Session::as_select())
            .first(conn)
            .optional()
    }

    /// Revokes one session (its refresh tokens and access tokens stop working).
    pub fn revoke(conn: &mut DbConnection, id: &str, reason: &str) -> QueryResult<usize> {
        diesel::update(
            sessions::table
                .filter(sessions::id.eq(id))
                .filter(sessions::revoked_at.is_null()),
        )
        .set((
            sessions::revoked_at.eq(super::now()),
            sessions::revoked_reason.eq(reason),
        ))
        .execute(conn)
    }

    /// Revokes every live session of a user except `keep`.
    pub fn revoke_all_but(
        conn: &mut DbConnection,
        user_id: &str,
        keep: Option<&str>,
        reason: &str,
    ) -> QueryResult<usize> {
        diesel::update(
            sessions::table
                .filter(sessions::user_id.eq(user_id))
                .filter(sessions::revoked_at.is_null())
                .filter(sessions::id.ne(keep.unwrap_or(""))),
        )
        .set((
            sessions::revoked_at.eq(super::now()),
            sessions::revoked_reason.eq(reason),
        ))
        .execute(conn)
    }
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = refresh_tokens)]
pub struct RefreshToken {
    pub token_hash: String,
    pub session_id: String,
    pub created_at: NaiveDateTime,
    pub expires_at: NaiveDateTime,
    pub used_at: Option<NaiveDateTime>,
}

impl RefreshToken {
    pub fn find(conn: &mut DbConnection, token_hash: &str) -> QueryResult<Option<RefreshToken>> {
        refresh_tokens::table
            .find(token_hash)
            .select(RefreshToken::as_select())
            .first(conn)
            .optional()
    }

    /// Marks the token used if it was not; returns whether this call did it.
    pub fn mark_used(conn: &mut DbConnection, token_hash: &str) -> QueryResult<bool> {
        let n = diesel::update(
            refresh_tokens::table
                .filter(refresh_tokens::token_hash.eq(token_hash))
                .filter(refresh_tokens::used_at.is_null()),
        )
        .set(refresh_tokens::used_at.eq(super::now()))
        .execute(conn)?;
        Ok(n == 1)
    }
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = personal_access_tokens)]
pub struct PersonalAccessToken {
    pub id: String,
    pub user_id: String,
    pub name: String,
    /// Space-separated scope names.
    pub scopes: String,
    pub token_hash: String,
    pub token_hint: String,
    pub created_at: NaiveDateTime,
    pub expires_at: Option<NaiveDateTime>,
    pub last_used_at: Option<NaiveDateTime>,
    pub revoked_at: Option<NaiveDateTime>,
}

impl PersonalAccessToken {
    pub fn find_by_hash(
        conn: &mut DbConnection,
        token_hash: &str,
    ) -> QueryResult<Option<PersonalAccessToken>> {
        personal_access_tokens::table
            .filter(personal_access_tokens::token_hash.eq(token_hash))
            .select(PersonalAccessToken::as_select())
            .first(conn)
            .optional()
    }
}
