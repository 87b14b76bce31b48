//! Logging in: a name and a password, checked under the login limits, start a session.

use std::net::IpAddr;

use super::{AccountError, Accounts, SessionTokens, refresh};
use crate::auth::SecretString;
use crate::ids::SessionId;
use crate::store::{
    self, StoreError,
    models::{Session, User},
};
use crate::validate::{names, password_policy};

/// The longest `User-Agent` kept with a session, in characters.
pub const USER_AGENT_MAX: usize = 256;

/// What a login presents; only the sizes have been checked.
#[derive(Debug)]
pub struct Credentials {
    pub username: String,
    pub password: SecretString,
    /// The client address, for the per-address failure limits (and shown in the list of
    /// sessions).
    pub client: IpAddr,
    /// The `User-Agent` header, if any (shown in the list of sessions).
    pub user_agent: Option<String>,
}

/// A successful login: the account and the new session's tokens.
#[derive(Debug)]
pub struct LoggedIn {
    pub user: User,
    pub tokens: SessionTokens,
}

/// Checks the name and password (an unknown name costs the same as a wrong password and
/// gets the same answer, [`AccountError::BadCredentials`]) and starts a session. A place
/// is taken in the login limits before the password check, so guesses sent in parallel
/// cannot all pass before the first failure is counted; successes never count.
pub async fn login(ctx: &Accounts<'_>, creds: Credentials) -> Result<LoggedIn, AccountError> {
    let mut attempt = ctx
        .throttle
        .begin(&creds.username, creds.client)
        .await
        .map_err(AccountError::Throttled)?;
    let user = match names::login_key(&creds.username) {
        Some(key) => {
            store::run(ctx.pool, move |conn| {
                Ok::<_, AccountError>(store::users::find_by_login_key(conn, &key)?)
            })
            .await?
        }
        None => None,
    };
    if let Some(user) = &user {
        attempt
            .account(&user.id)
            .await
            .map_err(AccountError::Throttled)?;
    }
    let candidates = password_policy::candidates(creds.password.expose());
    let stored = user.as_ref().map(|u| u.password_hash.clone());
    let ok = ctx.passwords.verify(candidates, stored).await?;
    let Some(user) = user.filter(|_| ok) else {
        attempt.failed();
        return Err(AccountError::BadCredentials);
    };
    attempt.succeeded();

    let client = Some(creds.client.to_string());
    let user_agent = creds
        .user_agent
        .map(|a| a.chars().take(USER_AGENT_MAX).collect());
    let tokens = start_session(ctx, &user, client, user_agent).await?;
    tracing::info!(user_id = %user.id, session_id = %tokens.session_id, "logged in");
    Ok(LoggedIn { user, tokens })
}

/// A new session of `user`: its row, its first refresh token and an access token.
async fn start_session(
    ctx: &Accounts<'_>,
    user: &User,
    client_addr: Option<String>,
    user_agent: Option<String>,
) -> Result<SessionTokens, AccountError> {
    let now = ctx.clock.now();
    let ttl = ctx.refresh_ttl;
    let session = Session {
        id: SessionId::new(uuid::Uuid::now_v7().to_string()),
        user_id: user.id.clone(),
        created_at: now,
        last_used_at: now,
        revoked_at: None,
        revoked_reason: None,
        client_addr,
        user_agent,
    };
    let (session_id, issued) = store::run(ctx.pool, move |conn| {
        store::transaction(conn, |conn| {
            store::sessions::insert(conn, &session)?;
            let issued = refresh::new_refresh_token(conn, &session.id, now, ttl)?;
            Ok::<_, StoreError>((session.id.clone(), issued))
        })
        .map_err(AccountError::from)
    })
    .await?;
    refresh::session_tokens(ctx, &user.id, session_id, issued)
}
