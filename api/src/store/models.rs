//! Row types of the account tables. The queries on them are in [`crate::accounts`].

use chrono::NaiveDateTime;
use diesel::prelude::*;

use crate::ids::{SessionId, TokenId, UserId};
use crate::store::schema::{personal_access_tokens, refresh_tokens, sessions, users};

#[derive(Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = users)]
pub struct User {
    pub id: UserId,
    pub username: String,
    pub username_key: String,
    /// The look-alike skeleton of the name (see `validate::names`), unique.
    pub username_skeleton: String,
    pub email: String,
    pub password_hash: String,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
    /// When the current address was confirmed (`None`: not yet; no notification mail goes
    /// to it).
    pub email_verified_at: Option<NaiveDateTime>,
    /// When the account was closed (its personal data erased).
    pub closed_at: Option<NaiveDateTime>,
    /// The language of the account's pages and mails (`en`, `fr`, `es`, …; `None`: the
    /// request's `Accept-Language`, English for mails).
    pub language: Option<String>,
    /// The time zone of dates in its pages and mails (an IANA name; `None`: UTC).
    pub time_zone: Option<String>,
}

impl std::fmt::Debug for User {
    /// Everything but the password hash.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("User")
            .field("id", &self.id)
            .field("username", &self.username)
            .field("email", &self.email)
            .field("created_at", &self.created_at)
            .field("updated_at", &self.updated_at)
            .field("email_verified_at", &self.email_verified_at)
            .finish_non_exhaustive()
    }
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = sessions)]
pub struct Session {
    pub id: SessionId,
    pub user_id: UserId,
    pub created_at: NaiveDateTime,
    pub last_used_at: NaiveDateTime,
    pub revoked_at: Option<NaiveDateTime>,
    pub revoked_reason: Option<String>,
    /// The client address the session was started from.
    pub client_addr: Option<String>,
    /// The `User-Agent` it was started with (clipped).
    pub user_agent: Option<String>,
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = refresh_tokens)]
pub struct RefreshToken {
    pub token_hash: String,
    pub session_id: SessionId,
    pub created_at: NaiveDateTime,
    pub expires_at: NaiveDateTime,
    pub used_at: Option<NaiveDateTime>,
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = personal_access_tokens)]
pub struct PersonalAccessToken {
    pub id: TokenId,
    pub user_id: UserId,
    pub name: String,
    /// Space-separated scope names.
    pub scopes: String,
    pub token_hash: String,
    pub token_hint: String,
    pub created_at: NaiveDateTime,
    pub expires_at: Option<NaiveDateTime>,
    pub last_used_at: Option<NaiveDateTime>,
    pub revoked_at: Option<NaiveDateTime>,
    /// The OAuth client (an app's `client_id`) the token was issued to; `None` for a
    /// token the player made by hand.
    pub client_id: Option<String>,
}
