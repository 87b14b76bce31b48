//! Registration: a new account under a name no other looks like.

use super::{AccountError, Accounts, names};
use crate::store::{self, models::User};

/// A registration whose fields passed the checks; `password` is the normalised password.
#[derive(Debug)]
pub struct NewAccount {
    pub username: String,
    pub email: String,
    pub password: String,
}

/// Hashes the password and inserts the account; [`AccountError::UsernameTaken`] when the
/// name, or one that looks like it, is taken.
pub async fn register(ctx: &Accounts<'_>, new: NewAccount) -> Result<User, AccountError> {
    let password_hash = ctx.passwords.hash(new.password).await?;
    let now = ctx.clock.now();
    let user = User {
        id: uuid::Uuid::now_v7().to_string(),
        username_key: new.username.to_ascii_lowercase(),
        username_skeleton: names::skeleton(&new.username),
        username: new.username,
        email: new.email,
        password_hash,
        created_at: now,
        updated_at: now,
    };
    let user = store::run(ctx.pool, move |conn| {
        Ok::<_, AccountError>(store::users::insert(conn, &user)?.then_some(user))
    })
    .await?
    .ok_or(AccountError::UsernameTaken)?;
    tracing::info!(user_id = %user.id, username = %user.username, "account registered");
    Ok(user)
}
