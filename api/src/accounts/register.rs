//! Registration: a new account under a name no other looks like, and the mail that
//! verifies its address.

use super::mail::{self, Purpose};
use super::{AccountError, Accounts};
use crate::ids::UserId;
use crate::store::{self, StoreError, models::User};
use crate::validate::names;

/// A registration whose fields passed the checks; `password` is the normalised password.
#[derive(Debug)]
pub struct NewAccount {
    pub username: String,
    pub email: String,
    pub password: String,
    /// The language chosen at sign-up (already checked: one of `i18n::LANGUAGES`).
    pub language: Option<String>,
}

/// Hashes the password and inserts the account with its verification mail queued (one
/// transaction); [`AccountError::UsernameTaken`] when the name, or one that looks like
/// it, is taken.
pub async fn register(ctx: &Accounts<'_>, new: NewAccount) -> Result<User, AccountError> {
    let password_hash = ctx.passwords.hash(new.password).await?;
    let now = ctx.clock.now();
    let user = User {
        id: UserId::new(uuid::Uuid::now_v7().to_string()),
        username_key: new.username.to_ascii_lowercase(),
        username_skeleton: names::skeleton(&new.username),
        username: new.username,
        email: new.email,
        password_hash,
        created_at: now,
        updated_at: now,
        email_verified_at: None,
        closed_at: None,
        language: new.language,
        time_zone: None,
    };
    let retired = store::erasure::skeleton_hash(&user.username_skeleton);
    let secret = ctx.mail_secret.to_string();
    let user = store::run(ctx.pool, move |conn| {
        store::transaction(conn, |conn| {
            // The name of a closed account is held for a while (see `accounts::close`).
            if store::erasure::name_is_held(conn, &retired, now)? {
                return Ok(None);
            }
            if !store::users::insert(conn, &user)? {
                return Ok(None);
            }
            mail::issue(conn, &user, Purpose::VerifyEmail, &secret, now)?;
            Ok::<_, StoreError>(Some(user))
        })
        .map_err(AccountError::from)
    })
    .await?
    .ok_or(AccountError::UsernameTaken)?;
    tracing::info!(user_id = %user.id, username = %user.username, "account registered");
    Ok(user)
}
