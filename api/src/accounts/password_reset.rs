//! Password reset: a request names an account (its username or its address) and always
//! gets the same answer, in the same time; if it matches an account whose address is
//! verified, a single-use token valid for [`mail::RESET_TTL`] is mailed there. Using the
//! token sets a new password (under the password policy), ends every session and personal
//! access token (as a password change does) and tells the owner by mail.
//!
//! Limits: per client address (the route, `DJAMBI_PASSWORD_RESET_LIMIT_PER_IP`, a `429`
//! whatever exists); per account and per address, [`PER_ACCOUNT_PER_HOUR`] mails an hour,
//! past which a request is answered as usual but sends nothing (a `429` there would tell
//! that the account exists).

use std::time::Duration;

use chrono::TimeDelta;

use super::mail::{self, Purpose};
use super::verification::{MAX_PRESENTED_LEN, peek, take};
use super::{AccountError, Accounts, MailTokenRejected, profile::PasswordChanged};
use crate::auth::{SecretString, tokens};
use crate::store::{self, StoreError, models::User};
use crate::validate::{Checks, EMAIL_MAX, USERNAME_MAX, names};

/// Reset mails one account, or one address, gets in an hour at most.
pub const PER_ACCOUNT_PER_HOUR: usize = 3;
/// Every request is answered after this long at the least, whether it matched an account
/// or not, so the time tells nothing either.
pub const ANSWER_TIME: Duration = Duration::from_millis(250);
/// Accounts one address may match (an address is not unique).
const MAX_ACCOUNTS_PER_ADDRESS: i64 = 10;

/// Whom a reset request names.
#[derive(Debug, Clone)]
pub enum ResetFor {
    Username(String),
    Email(String),
}

/// Handles a reset request. Answers `Ok(())` whether or not an account matched (only a
/// failure of the store is an error), never before [`ANSWER_TIME`].
pub async fn request(ctx: &Accounts<'_>, who: ResetFor) -> Result<(), AccountError> {
    let started = tokio::time::Instant::now();
    let result = send(ctx, who).await;
    tokio::time::sleep_until(started + ANSWER_TIME).await;
    result
}

async fn send(ctx: &Accounts<'_>, who: ResetFor) -> Result<(), AccountError> {
    let now = ctx.clock.now();
    let secret = ctx.mail_secret.to_string();
    let hour_ago = now - TimeDelta::hours(1);
    store::run(ctx.pool, move |conn| {
        store::transaction(conn, |conn| {
            let accounts: Vec<User> = match &who {
                ResetFor::Username(name) if name.len() <= USERNAME_MAX * 4 => {
                    match names::login_key(name) {
                        Some(key) => store::users::find_by_login_key(conn, &key)?
                            .filter(|u| u.email_verified_at.is_some())
                            .into_iter()
                            .collect(),
                        None => Vec::new(),
                    }
                }
                ResetFor::Email(email) if email.len() <= EMAIL_MAX * 4 => {
                    store::users::find_by_verified_email(
                        conn,
                        email.trim(),
                        MAX_ACCOUNTS_PER_ADDRESS,
                    )?
                }
                _ => Vec::new(),
            };
            let purpose = Purpose::PasswordReset.as_str();
            for user in accounts {
                let to_account =
                    store::account_tokens::issued_since(conn, &user.id, purpose, hour_ago)?.len();
                let to_address = store::account_tokens::issued_to_address_since(
                    conn,
                    &user.email,
                    purpose,
                    hour_ago,
                )?;
                if to_account >= PER_ACCOUNT_PER_HOUR || to_address >= PER_ACCOUNT_PER_HOUR as i64
                {
                    tracing::warn!(user_id = %user.id, "password reset mail withheld: over the hourly limit");
                    continue;
                }
                mail::issue(conn, &user, Purpose::PasswordReset, &secret, now)?;
                tracing::info!(user_id = %user.id, "password reset mail queued");
            }
            Ok::<_, StoreError>(())
        })
        .map_err(AccountError::from)
    })
    .await
}

/// Sets a new password with a reset token: the token is used up, every session and
/// personal access token of the account ends, and the owner is told by mail.
pub async fn reset(
    ctx: &Accounts<'_>,
    presented: SecretString,
    new_password: SecretString,
) -> Result<PasswordChanged, AccountError> {
    let now = ctx.clock.now();
    let presented = presented.expose().to_string();
    if presented.len() > MAX_PRESENTED_LEN {
        return Err(MailTokenRejected::Unknown.into());
    }
    // Who the token is for, to check the password against the policy before the token is
    // used up (a weak password does not cost the link).
    let hash = tokens::hash(&presented);
    let user = store::run(ctx.pool, move |conn| {
        let row = store::account_tokens::find_by_hash(conn, &hash)?;
        let Some(row) = row.filter(|r| r.purpose == Purpose::PasswordReset.as_str()) else {
            return Ok(None);
        };
        Ok::<_, AccountError>(store::users::find(conn, &row.user_id)?)
    })
    .await?
    .ok_or(MailTokenRejected::Unknown)?;
    let mut checks = Checks::new();
    let password = checks.new_password("new_password", &new_password, &user.username, &user.email);
    checks.finish()?;
    let new_hash = ctx.passwords.hash(password.unwrap_or_default()).await?;

    let changed = store::run(ctx.pool, move |conn| {
        store::transaction(conn, |conn| {
            let row = match take(conn, &presented, Purpose::PasswordReset, now)? {
                Ok(row) => row,
                Err(e) => return Ok(Err(e.into())),
            };
            if !store::users::lock(conn, &row.user_id)? {
                return Ok(Err(AccountError::AccountGone));
            }
            let Some(user) = store::users::find(conn, &row.user_id)? else {
                return Ok(Err(AccountError::AccountGone));
            };
            let changes = store::users::UserChanges {
                email: None,
                password_hash: Some(&new_hash),
                language: None,
                time_zone: None,
                updated_at: now,
            };
            store::users::update(conn, &user.id, changes)?;
            store::users::bump_unsubscribe_version(conn, &user.id)?;
            // The other links of the account stop working too.
            store::account_tokens::retire_all(
                conn,
                &user.id,
                Purpose::PasswordReset.as_str(),
                now,
            )?;
            let changed = PasswordChanged {
                sessions_ended: store::sessions::revoke_all_of_user(
                    conn,
                    &user.id,
                    None,
                    "password reset",
                    now,
                )?,
                tokens_revoked: store::tokens::revoke_all_of_user(conn, &user.id, now)?,
            };
            mail::password_changed_notice(conn, &user, now)?;
            tracing::info!(
                user_id = %user.id,
                sessions_ended = changed.sessions_ended,
                tokens_revoked = changed.tokens_revoked,
                "password reset; every session ended, personal access tokens revoked"
            );
            Ok::<_, StoreError>(Ok(changed))
        })?
    })
    .await?;
    Ok(changed)
}

/// Whether a reset link still works, without using it (the reset page shows its form
/// only then), and the language of the account it is for.
pub async fn check_link(
    ctx: &Accounts<'_>,
    presented: SecretString,
) -> Result<Option<String>, AccountError> {
    let now = ctx.clock.now();
    let presented = presented.expose().to_string();
    store::run(ctx.pool, move |conn| {
        let row = match peek(conn, &presented, Purpose::PasswordReset, now)? {
            Ok(row) => row,
            Err(e) => return Ok(Err(e.into())),
        };
        let user = store::users::find(conn, &row.user_id)?;
        Ok::<_, StoreError>(user.map(|u| u.language).ok_or(AccountError::AccountGone))
    })
    .await?
}
