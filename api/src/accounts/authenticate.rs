//! What the `Authenticated` extractor asks of the store: is this personal access token
//! good, is this access token's (or cookie's) session live.

use chrono::{NaiveDateTime, TimeDelta};

use super::{AccountError, Accounts, Rejected};
use crate::auth::jwt::Claims;
use crate::auth::tokens;
use crate::ids::{SessionId, TokenId, UserId};
use crate::store::{self, DbConnection, StoreError, models::User};

/// How often a token's `last_used_at` is refreshed, at most.
const LAST_USED_GRANULARITY: TimeDelta = TimeDelta::seconds(60);

/// The caller a personal access token stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenCaller {
    pub token_id: TokenId,
    pub user_id: UserId,
    /// The space-separated scopes it was made with.
    pub scopes: String,
}

/// Checks a presented personal access token at the clock's time and records its use (at
/// most once a minute).
pub async fn personal_token(ctx: &Accounts<'_>, token: &str) -> Result<TokenCaller, AccountError> {
    let hash = tokens::hash(token);
    let now = ctx.clock.now();
    store::run(ctx.pool, move |conn| {
        let Some(t) = store::tokens::find_by_hash(conn, &hash)? else {
            return Err(Rejected::UnknownPersonalToken.into());
        };
        if t.revoked_at.is_some() {
            return Err(Rejected::RevokedPersonalToken.into());
        }
        if t.expires_at.is_some_and(|e| e <= now) {
            return Err(Rejected::ExpiredPersonalToken.into());
        }
        if t.last_used_at
            .is_none_or(|u| now.signed_duration_since(u) > LAST_USED_GRANULARITY)
        {
            store::tokens::touch(conn, &t.id, now)?;
        }
        Ok(TokenCaller {
            token_id: t.id,
            user_id: t.user_id,
            scopes: t.scopes,
        })
    })
    .await
}

/// Verifies an access token (a JWT) and checks that its session is live and its
/// subject's; answers its claims.
pub async fn access_token(ctx: &Accounts<'_>, token: &str) -> Result<Claims, AccountError> {
    let now = ctx.clock.now();
    let claims = ctx.jwt.verify(token, now)?;
    // The token's subject is the account's id.
    let (sid, sub) = (
        SessionId::new(claims.sid.clone()),
        UserId::new(claims.sub.clone()),
    );
    let check = store::run(ctx.pool, move |conn| {
        Ok::<_, AccountError>(check(conn, &sid, &sub, now)?)
    })
    .await?;
    match check {
        SessionCheck::Live => Ok(claims),
        SessionCheck::Unknown => Err(Rejected::UnknownSession.into()),
        SessionCheck::OtherUser => Err(Rejected::SessionOfAnotherUser.into()),
        SessionCheck::Ended => Err(Rejected::SessionEnded.into()),
    }
}

/// Checks that the session of a web session cookie is live and `user_id`'s.
pub async fn cookie_session(
    ctx: &Accounts<'_>,
    session_id: SessionId,
    user_id: UserId,
) -> Result<(), AccountError> {
    let now = ctx.clock.now();
    let check = store::run(ctx.pool, move |conn| {
        Ok::<_, AccountError>(check(conn, &session_id, &user_id, now)?)
    })
    .await?;
    match check {
        SessionCheck::Live => Ok(()),
        SessionCheck::Unknown | SessionCheck::OtherUser | SessionCheck::Ended => {
            Err(Rejected::CookieSessionEnded.into())
        }
    }
}

/// The account of a web session cookie's session, or `None` when the session is not
/// live or not `user_id`'s, or the account is gone (the web pages then show a login).
pub async fn session_user(
    ctx: &Accounts<'_>,
    session_id: SessionId,
    user_id: UserId,
) -> Result<Option<User>, AccountError> {
    let now = ctx.clock.now();
    store::run(ctx.pool, move |conn| {
        if check(conn, &session_id, &user_id, now)? != SessionCheck::Live {
            return Ok(None);
        }
        Ok::<_, AccountError>(store::users::find(conn, &user_id)?)
    })
    .await
}

/// Whether a session admits a token whose subject is `user_id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SessionCheck {
    Live,
    Unknown,
    /// The session belongs to another user than the token's subject.
    OtherUser,
    Ended,
}

/// Checks a session at `now` and records its use (at most once a minute: the "last used"
/// of the list of sessions).
fn check(
    conn: &mut DbConnection,
    id: &SessionId,
    user_id: &UserId,
    now: NaiveDateTime,
) -> Result<SessionCheck, StoreError> {
    Ok(match store::sessions::find(conn, id)? {
        None => SessionCheck::Unknown,
        Some(s) if s.user_id != *user_id => SessionCheck::OtherUser,
        Some(s) if s.revoked_at.is_some() => SessionCheck::Ended,
        Some(s) => {
            if now.signed_duration_since(s.last_used_at) > LAST_USED_GRANULARITY {
                store::sessions::touch(conn, id, now)?;
            }
            SessionCheck::Live
        }
    })
}

/// What a caller authenticated with, for [`still_admitted`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Credential {
    /// A login session (an access token's or the web cookie's).
    Session(SessionId),
    /// A personal access token, by id.
    PersonalToken(TokenId),
}

/// Whether `credential` still admits `user_id` at the clock's time: the session not ended
/// (logout, revocation, a password change elsewhere, a reset, the account closed), or the
/// personal access token neither revoked nor expired. One read by primary key, nothing
/// written: an open event stream asks this when a credential of its user ended, and every
/// `DJAMBI_STREAM_RECHECK`.
pub async fn still_admitted(
    ctx: &Accounts<'_>,
    user_id: UserId,
    credential: Credential,
) -> Result<bool, AccountError> {
    let now = ctx.clock.now();
    store::run(ctx.pool, move |conn| {
        Ok::<_, AccountError>(match &credential {
            Credential::Session(id) => store::sessions::find(conn, id)?
                .is_some_and(|s| s.user_id == user_id && s.revoked_at.is_none()),
            Credential::PersonalToken(id) => store::tokens::find(conn, id)?.is_some_and(|t| {
                t.user_id == user_id
                    && t.revoked_at.is_none()
                    && t.expires_at.is_none_or(|e| e > now)
            }),
        })
    })
    .await
}
