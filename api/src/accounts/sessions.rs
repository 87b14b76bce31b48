//! Login sessions and their refresh tokens.
//!
//! A session is a family of refresh tokens. Each refresh marks the presented token used and
//! issues a new one; a used token presented again means it leaked, so the whole session is
//! revoked.

use chrono::{NaiveDateTime, TimeDelta};
use diesel::prelude::*;

use crate::auth::tokens;
use crate::store::schema::{refresh_tokens, sessions};
use crate::store::{
    self, DbConnection,
    models::{RefreshToken, Session, User},
};

/// A refresh token as issued: the secret (shown once) and its expiry.
pub struct IssuedRefresh {
    pub token: String,
    pub expires_at: NaiveDateTime,
}

impl std::fmt::Debug for IssuedRefresh {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IssuedRefresh")
            .field("token", &"<redacted>")
            .field("expires_at", &self.expires_at)
            .finish()
    }
}

fn new_refresh_token(
    conn: &mut DbConnection,
    session_id: &str,
    ttl: TimeDelta,
) -> QueryResult<IssuedRefresh> {
    let token = tokens::generate(tokens::REFRESH_PREFIX);
    let now = store::now();
    let expires_at = now + ttl;
    diesel::insert_into(refresh_tokens::table)
        .values(&RefreshToken {
            token_hash: tokens::hash(&token),
            session_id: session_id.to_string(),
            created_at: now,
            expires_at,
            used_at: None,
        })
        .execute(conn)?;
    Ok(IssuedRefresh { token, expires_at })
}

/// Starts a session for a user: the session row and its first refresh token.
pub fn start(
    conn: &mut DbConnection,
    user_id: &str,
    ttl: TimeDelta,
) -> QueryResult<(String, IssuedRefresh)> {
    store::transaction(conn, |conn| {
        let now = store::now();
        let session_id = uuid::Uuid::now_v7().to_string();
        diesel::insert_into(sessions::table)
            .values(&Session {
                id: session_id.clone(),
                user_id: user_id.to_string(),
                created_at: now,
                last_used_at: now,
                revoked_at: None,
                revoked_reason: None,
            })
            .execute(conn)?;
        let refresh = new_refresh_token(conn, &session_id, ttl)?;
        Ok((session_id, refresh))
    })
}

/// What presenting a refresh token came to.
#[derive(Debug)]
pub enum Refreshed {
    Rotated {
        user: Box<User>,
        session_id: String,
        refresh: IssuedRefresh,
    },
    /// Refused; the reason is for the client.
    Rejected(&'static str),
}

/// Rotates a refresh token given by its hash.
pub fn rotate(conn: &mut DbConnection, token_hash: &str, ttl: TimeDelta) -> QueryResult<Refreshed> {
    store::transaction(conn, |conn| {
        let Some(old) = refresh_tokens::table
            .find(token_hash)
            .select(RefreshToken::as_select())
            .first(conn)
            .optional()?
        else {
            return Ok(Refreshed::Rejected("unknown refresh token"));
        };
        let Some(session) = find(conn, &old.session_id)? else {
            return Ok(Refreshed::Rejected("unknown refresh token"));
        };
        if session.revoked_at.is_some() {
            return Ok(Refreshed::Rejected("this session has ended"));
        }
        let marked = diesel::update(
            refresh_tokens::table
                .filter(refresh_tokens::token_hash.eq(token_hash))
                .filter(refresh_tokens::used_at.is_null()),
        )
        .set(refresh_tokens::used_at.eq(store::now()))
        .execute(conn)?;
        if old.used_at.is_some() || marked != 1 {
            revoke(conn, &session.id, "refresh token reused")?;
            tracing::warn!(session_id = %session.id, "refresh token reused; session revoked");
            return Ok(Refreshed::Rejected(
                "this refresh token was already used; the session has been revoked",
            ));
        }
        let now = store::now();
        if old.expires_at <= now {
            return Ok(Refreshed::Rejected("this refresh token has expired"));
        }
        let Some(user) = super::users::find(conn, &session.user_id)? else {
            return Ok(Refreshed::Rejected("the account no longer exists"));
        };
        diesel::update(sessions::table.find(&session.id))
            .set(sessions::last_used_at.eq(now))
            .execute(conn)?;
        let refresh = new_refresh_token(conn, &session.id, ttl)?;
        Ok(Refreshed::Rotated {
            user: Box::new(user),
            session_id: session.id,
            refresh,
        })
    })
}

pub fn find(conn: &mut DbConnection, id: &str) -> QueryResult<Option<Session>> {
    sessions::table
        .find(id)
        .select(Session::as_select())
        .first(conn)
        .optional()
}

/// Whether an access token's session still admits it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionCheck {
    Live,
    Unknown,
    /// The session belongs to another user than the token's subject.
    OtherUser,
    Ended,
}

/// Checks the session `id` of an access token whose subject is `user_id`.
pub fn check(conn: &mut DbConnection, id: &str, user_id: &str) -> QueryResult<SessionCheck> {
    Ok(match find(conn, id)? {
        None => SessionCheck::Unknown,
        Some(s) if s.user_id != user_id => SessionCheck::OtherUser,
        Some(s) if s.revoked_at.is_some() => SessionCheck::Ended,
        Some(_) => SessionCheck::Live,
    })
}

/// Revokes one session (its refresh and access tokens stop working). Returns whether it
/// was live.
pub fn revoke(conn: &mut DbConnection, id: &str, reason: &str) -> QueryResult<bool> {
    let n = diesel::update(
        sessions::table
            .filter(sessions::id.eq(id))
            .filter(sessions::revoked_at.is_null()),
    )
    .set((
        sessions::revoked_at.eq(store::now()),
        sessions::revoked_reason.eq(reason),
    ))
    .execute(conn)?;
    Ok(n > 0)
}
