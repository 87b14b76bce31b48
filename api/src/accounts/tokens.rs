//! Personal access tokens: created under a per-account cap (the token is shown once),
//! listed without their secret, revoked.

use chrono::TimeDelta;

use super::{AccountError, Accounts};
use crate::auth::tokens;
use crate::ids::{TokenId, UserId};
use crate::store::{self, StoreError, models::PersonalAccessToken};

/// Live (unrevoked) tokens one account may hold.
pub const MAX_TOKENS_PER_USER: i64 = 100;
/// Longest lifetime a token may be given, in days.
pub const MAX_TOKEN_DAYS: u32 = 3650;

/// A token to create, its fields checked.
#[derive(Debug)]
pub struct NewToken {
    pub user_id: UserId,
    /// The label, trimmed here.
    pub name: String,
    /// The space-separated scopes.
    pub scopes: String,
    /// Days until it expires; `None`: never.
    pub expires_in_days: Option<u32>,
}

/// A created token and its secret, shown this once.
#[derive(Debug)]
pub struct CreatedToken {
    pub row: PersonalAccessToken,
    pub secret: String,
}

/// Creates a token unless its owner already holds [`MAX_TOKENS_PER_USER`] live ones. The
/// owner's row is locked first, so parallel creations are counted one after the other and
/// the cap holds on both backends.
pub async fn create(ctx: &Accounts<'_>, new: NewToken) -> Result<CreatedToken, AccountError> {
    let secret = tokens::generate(tokens::PAT_PREFIX);
    let now = ctx.clock.now();
    let row = PersonalAccessToken {
        id: TokenId::new(uuid::Uuid::now_v7().to_string()),
        user_id: new.user_id,
        name: new.name.trim().to_string(),
        scopes: new.scopes,
        token_hash: tokens::hash(&secret),
        token_hint: tokens::hint(&secret),
        created_at: now,
        expires_at: new
            .expires_in_days
            .map(|d| now + TimeDelta::days(i64::from(d))),
        last_used_at: None,
        revoked_at: None,
        client_id: None,
    };
    let row = store::run(ctx.pool, move |conn| {
        store::transaction(conn, |conn| {
            if !store::users::lock(conn, &row.user_id)? {
                return Ok(Err(AccountError::AccountGone));
            }
            if store::tokens::count_live(conn, &row.user_id)? >= MAX_TOKENS_PER_USER {
                return Ok(Err(AccountError::TokenCapReached(MAX_TOKENS_PER_USER)));
            }
            store::tokens::insert(conn, &row)?;
            Ok::<_, StoreError>(Ok(row))
        })?
    })
    .await?;
    Ok(CreatedToken { row, secret })
}

/// A page of tokens, oldest first.
#[derive(Debug)]
pub struct TokenPage {
    pub items: Vec<PersonalAccessToken>,
    /// The id to continue after; `None` on the last page.
    pub next_cursor: Option<String>,
}

/// At most `limit` of the user's live tokens after the id `after`, oldest first.
pub async fn list(
    ctx: &Accounts<'_>,
    user_id: UserId,
    after: Option<String>,
    limit: u32,
) -> Result<TokenPage, AccountError> {
    let mut items = store::run(ctx.pool, move |conn| {
        Ok::<_, AccountError>(store::tokens::list_live(
            conn,
            &user_id,
            after.as_deref(),
            i64::from(limit) + 1,
        )?)
    })
    .await?;
    let more = items.len() > limit as usize;
    items.truncate(limit as usize);
    let next_cursor = if more {
        items.last().map(|r| r.id.to_string())
    } else {
        None
    };
    Ok(TokenPage { items, next_cursor })
}

/// Revokes one of the user's tokens; it stops working at once. Revoking a revoked token
/// again is fine; [`AccountError::NoSuchToken`] if the user has none with that id.
pub async fn revoke(ctx: &Accounts<'_>, user_id: UserId, id: TokenId) -> Result<(), AccountError> {
    let now = ctx.clock.now();
    store::run(ctx.pool, move |conn| {
        if !store::tokens::exists(conn, &user_id, &id)? {
            return Err(AccountError::NoSuchToken);
        }
        store::tokens::revoke(conn, &id, now)?;
        Ok(())
    })
    .await
}
