//! `PUT/DELETE/GET /v1/me/mutes...`: the players whose messages one does not see (nor is
//! notified of). A mute is the muter's own business: the muted player is not told.

use chrono::NaiveDateTime;

use super::MessageError;
use crate::clock::Clock;
use crate::ids::UserId;
use crate::store::{self, DbPool, messages as store_messages, users};
use crate::validate::names::login_key;

/// Mutes `username` for `user` (idempotent).
pub async fn mute(
    pool: &DbPool,
    clock: &dyn Clock,
    user: UserId,
    username: String,
) -> Result<(), MessageError> {
    let now = clock.now();
    store::run(pool, move |conn| {
        let target = find(conn, &username)?;
        if target == user {
            return Err(MessageError::field("username", "you cannot mute yourself"));
        }
        store_messages::mute(conn, &user, &target, now)?;
        Ok(())
    })
    .await
}

/// Unmutes `username`; `MessageError::UserNotFound` also when it was not muted.
pub async fn unmute(pool: &DbPool, user: UserId, username: String) -> Result<(), MessageError> {
    store::run(pool, move |conn| {
        let target = find(conn, &username)?;
        if store_messages::unmute(conn, &user, &target)? {
            Ok(())
        } else {
            Err(MessageError::UserNotFound(format!(
                "{username} (not muted)"
            )))
        }
    })
    .await
}

/// The players `user` muted: (username, since), oldest first.
pub async fn mutes(
    pool: &DbPool,
    user: UserId,
) -> Result<Vec<(String, NaiveDateTime)>, MessageError> {
    store::run(pool, move |conn| Ok(store_messages::mutes_of(conn, &user)?)).await
}

fn find(conn: &mut store::DbConnection, username: &str) -> Result<UserId, MessageError> {
    let shown: String = username
        .chars()
        .take(40)
        .filter(|c| !c.is_control())
        .collect();
    let key = login_key(username).ok_or_else(|| MessageError::UserNotFound(shown.clone()))?;
    match users::find_by_login_key(conn, &key)? {
        Some(u) => Ok(u.id),
        None => Err(MessageError::UserNotFound(shown)),
    }
}
