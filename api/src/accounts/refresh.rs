//! Refreshing a session: a refresh token is exchanged for a new one and a new access
//! token. Each refresh token is single use; one presented again means it leaked, so the
//! whole session is revoked.

use chrono::{NaiveDateTime, TimeDelta};

use super::login::LoggedIn;
use super::{AccountError, Accounts, Rejected, SessionTokens};
use crate::auth::{SecretString, tokens};
use crate::ids::{SessionId, UserId};
use crate::store::{
    self, DbConnection, StoreError,
    models::{RefreshToken, User},
};

/// The longest string looked up as a refresh token; longer ones are simply unknown.
const MAX_PRESENTED_LEN: usize = 200;

/// Rotates the presented refresh token: marks it used and issues the next one, with a new
/// access token. Refused ([`AccountError::Rejected`]) when it is unknown, expired, used
/// (which revokes the session) or its session has ended.
pub async fn refresh(
    ctx: &Accounts<'_>,
    presented: SecretString,
) -> Result<LoggedIn, AccountError> {
    // Anything that cannot be a refresh token is simply not one.
    if presented.expose().is_empty() || presented.expose().len() > MAX_PRESENTED_LEN {
        return Err(Rejected::UnknownRefreshToken.into());
    }
    let hash = tokens::hash(presented.expose());
    let now = ctx.clock.now();
    let ttl = ctx.refresh_ttl;
    let rotated = store::run(ctx.pool, move |conn| {
        // A reuse revokes the session and must commit: the refusal is a value here.
        store::transaction(conn, |conn| rotate(conn, &hash, now, ttl)).map_err(AccountError::from)
    })
    .await??;
    let (user, session_id, issued) = rotated;
    let tokens = session_tokens(ctx, &user.id, session_id, issued)?;
    Ok(LoggedIn { user, tokens })
}

type Rotated = (User, SessionId, IssuedRefresh);

/// The rotation in one transaction: load, decide, write.
fn rotate(
    conn: &mut DbConnection,
    hash: &str,
    now: NaiveDateTime,
    ttl: TimeDelta,
) -> Result<Result<Rotated, AccountError>, StoreError> {
    let Some(old) = store::sessions::find_refresh(conn, hash)? else {
        return Ok(Err(Rejected::UnknownRefreshToken.into()));
    };
    let Some(session) = store::sessions::find(conn, &old.session_id)? else {
        return Ok(Err(Rejected::UnknownRefreshToken.into()));
    };
    if session.revoked_at.is_some() {
        return Ok(Err(Rejected::RefreshSessionEnded.into()));
    }
    let marked = store::sessions::mark_refresh_used(conn, hash, now)?;
    if old.used_at.is_some() || !marked {
        store::sessions::revoke(conn, &session.id, "refresh token reused", now)?;
        tracing::warn!(session_id = %session.id, "refresh token reused; session revoked");
        return Ok(Err(Rejected::RefreshTokenReused.into()));
    }
    if old.expires_at <= now {
        return Ok(Err(Rejected::RefreshTokenExpired.into()));
    }
    let Some(user) = store::users::find(conn, &session.user_id)? else {
        return Ok(Err(AccountError::AccountGone));
    };
    store::sessions::touch(conn, &session.id, now)?;
    let issued = new_refresh_token(conn, &session.id, now, ttl)?;
    Ok(Ok((user, session.id, issued)))
}

/// A refresh token as issued: the secret (shown once) and its expiry.
pub(super) struct IssuedRefresh {
    pub token: String,
    pub expires_at: NaiveDateTime,
}

/// Inserts a new refresh token of a session, valid for `ttl` from `now`.
pub(super) fn new_refresh_token(
    conn: &mut DbConnection,
    session_id: &SessionId,
    now: NaiveDateTime,
    ttl: TimeDelta,
) -> Result<IssuedRefresh, StoreError> {
    let token = tokens::generate(tokens::REFRESH_PREFIX);
    let expires_at = now + ttl;
    store::sessions::insert_refresh(
        conn,
        &RefreshToken {
            token_hash: tokens::hash(&token),
            session_id: session_id.clone(),
            created_at: now,
            expires_at,
            used_at: None,
        },
    )?;
    Ok(IssuedRefresh { token, expires_at })
}

/// The tokens handed out for a session: the refresh token just issued and a new access
/// token.
pub(super) fn session_tokens(
    ctx: &Accounts<'_>,
    user_id: &UserId,
    session_id: SessionId,
    issued: IssuedRefresh,
) -> Result<SessionTokens, AccountError> {
    let (access_token, expires_in) =
        ctx.jwt
            .issue(user_id.as_str(), session_id.as_str(), ctx.clock.now())?;
    Ok(SessionTokens {
        session_id,
        access_token,
        expires_in,
        refresh_token: issued.token,
        refresh_expires_at: issued.expires_at,
    })
}
