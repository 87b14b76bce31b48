//! One's login sessions: list the live ones (when started, last used, from which client
//! address and user agent), end any of them.

use super::{AccountError, Accounts};
use crate::ids::{SessionId, UserId};
use crate::store::{self, models::Session};

/// Sessions listed at most (the most recently used).
pub const MAX_LISTED: i64 = 200;

/// The user's live sessions: not ended, and used within the refresh tokens' lifetime
/// (an older one can no longer be refreshed); most recently used first.
pub async fn list(ctx: &Accounts<'_>, user_id: UserId) -> Result<Vec<Session>, AccountError> {
    let since = ctx.clock.now() - ctx.refresh_ttl;
    store::run(ctx.pool, move |conn| {
        Ok::<_, AccountError>(store::sessions::list_live(
            conn, &user_id, since, MAX_LISTED,
        )?)
    })
    .await
}

/// Ends one of the user's sessions (its refresh and access tokens stop working at once);
/// ending an ended one again is fine. [`AccountError::NoSuchSession`] when the user has
/// none with that id.
pub async fn end(ctx: &Accounts<'_>, user_id: UserId, id: SessionId) -> Result<(), AccountError> {
    let now = ctx.clock.now();
    store::run(ctx.pool, move |conn| {
        match store::sessions::find(conn, &id)? {
            Some(s) if s.user_id == user_id => {
                store::sessions::revoke(conn, &id, "ended by the owner", now)?;
                Ok(())
            }
            _ => Err(AccountError::NoSuchSession),
        }
    })
    .await
}
