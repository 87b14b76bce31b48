//! One's own profile: read it; change the email or the password (a new password ends
//! every other login session and revokes every personal access token).

use std::net::IpAddr;

use super::mail::{self, Purpose};
use super::{AccountError, Accounts};
use crate::auth::SecretString;
use crate::ids::{SessionId, UserId};
use crate::store::{self, StoreError, models::User, users::UserChanges};
use crate::validate::{Checks, PASSWORD_MAX, password_policy};

/// The caller's account; [`AccountError::AccountGone`] if it was deleted.
pub async fn get(ctx: &Accounts<'_>, user_id: UserId) -> Result<User, AccountError> {
    store::run(ctx.pool, move |conn| {
        store::users::find(conn, &user_id)?.ok_or(AccountError::AccountGone)
    })
    .await
}

/// A change asked for by the owner of `user_id`, from the login session `session_id`.
#[derive(Debug)]
pub struct ProfileChange {
    pub user_id: UserId,
    pub session_id: SessionId,
    /// The new email as sent (surrounding white space is dropped).
    pub email: Option<String>,
    pub current_password: Option<SecretString>,
    pub new_password: Option<SecretString>,
    /// A language code as sent (`""` clears the preference).
    pub language: Option<String>,
    /// An IANA time zone as sent (`""` clears it).
    pub time_zone: Option<String>,
    /// The client address, for the login limits the current password counts against.
    pub client: IpAddr,
}

/// What a password change ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PasswordChanged {
    /// Other login sessions revoked.
    pub sessions_ended: usize,
    /// Personal access tokens revoked.
    pub tokens_revoked: usize,
}

/// The account after a change, and what a password change ended.
#[derive(Debug)]
pub struct Updated {
    pub user: User,
    pub password_changed: Option<PasswordChanged>,
}

/// Checks the change (every bad field at once), then the current password under the
/// login limits (a wrong one counts as a failed login), then writes the change in one
/// transaction. The account's row is locked first, so a token being created at the same
/// moment is either revoked here or created after the change.
pub async fn update(ctx: &Accounts<'_>, change: ProfileChange) -> Result<Updated, AccountError> {
    let user = get(ctx, change.user_id.clone()).await?;

    let email = change.email.as_deref().map(|e| e.trim().to_string());
    let mut checks = Checks::new();
    let preferences = change.language.is_some() || change.time_zone.is_some();
    if email.is_none() && change.new_password.is_none() && !preferences {
        checks.add(
            "body",
            "nothing to change: give `email`, `new_password`, `language` or `time_zone`",
        );
    }
    // `Some(None)`: clear the preference.
    let language: Option<Option<&'static str>> = match change.language.as_deref() {
        None => None,
        Some(l) if l.trim().is_empty() => Some(None),
        Some(l) => checks.language("language", l).map(Some),
    };
    let time_zone: Option<Option<&'static str>> = match change.time_zone.as_deref() {
        None => None,
        Some(z) if z.trim().is_empty() => Some(None),
        Some(z) => checks.time_zone("time_zone", z).map(Some),
    };
    if let Some(sent) = &change.email {
        checks.email_as_sent("email", sent);
    }
    let new_password = change.new_password.as_ref().and_then(|p| {
        checks.new_password(
            "new_password",
            p,
            &user.username,
            email.as_deref().unwrap_or(&user.email),
        )
    });
    match &change.current_password {
        None if email.is_some() || change.new_password.is_some() => checks.add(
            "current_password",
            "is required to change the email or the password",
        ),
        None => {}
        Some(p) => checks.max_len("current_password", p.expose(), PASSWORD_MAX),
    }
    checks.finish()?;
    let credentials = email.is_some() || change.new_password.is_some();
    if !credentials {
        // Only preferences: no password to check.
        return set_preferences(ctx, change.user_id, language, time_zone).await;
    }
    let current = change.current_password.unwrap_or_default();

    // Guessing the current password with a stolen access token counts against the same
    // limits as logins.
    let mut attempt = ctx
        .throttle
        .begin(&user.username, change.client)
        .await
        .map_err(AccountError::Throttled)?;
    attempt
        .account(&user.id)
        .await
        .map_err(AccountError::Throttled)?;
    let candidates = password_policy::candidates(current.expose());
    if !ctx
        .passwords
        .verify(candidates, Some(user.password_hash.clone()))
        .await?
    {
        attempt.failed();
        return Err(AccountError::WrongCurrentPassword);
    }
    attempt.succeeded();
    let new_hash = match new_password {
        Some(p) => Some(ctx.passwords.hash(p).await?),
        None => None,
    };

    let now = ctx.clock.now();
    let (user_id, keep) = (change.user_id, change.session_id);
    // The same address again changes nothing (and keeps it verified).
    let email = email.filter(|e| *e != user.email);
    let secret = ctx.mail_secret.to_string();
    let updated = store::run(ctx.pool, move |conn| {
        store::transaction(conn, |conn| {
            if !store::users::lock(conn, &user_id)? {
                return Ok(None);
            }
            let changes = UserChanges {
                email: email.as_deref(),
                password_hash: new_hash.as_deref(),
                language,
                time_zone,
                updated_at: now,
            };
            store::users::update(conn, &user_id, changes)?;
            if email.is_some() || new_hash.is_some() {
                // Unsubscribe links of older mails stop working.
                store::users::bump_unsubscribe_version(conn, &user_id)?;
            }
            if email.is_some() {
                // The new address is unverified until the link mailed to it is used.
                if let Some(u) = store::users::find(conn, &user_id)? {
                    mail::issue(conn, &u, Purpose::VerifyEmail, &secret, now)?;
                }
            }
            let password_changed = match new_hash {
                Some(_) => Some(PasswordChanged {
                    sessions_ended: store::sessions::revoke_all_of_user(
                        conn,
                        &user_id,
                        Some(&keep),
                        "password changed",
                        now,
                    )?,
                    tokens_revoked: store::tokens::revoke_all_of_user(conn, &user_id, now)?,
                }),
                None => None,
            };
            Ok::<_, StoreError>(store::users::find(conn, &user_id)?.map(|user| Updated {
                user,
                password_changed,
            }))
        })?
        .ok_or(AccountError::AccountGone)
    })
    .await?;
    if let Some(c) = updated.password_changed {
        tracing::info!(
            user_id = %updated.user.id,
            sessions_ended = c.sessions_ended,
            tokens_revoked = c.tokens_revoked,
            "password changed; other sessions ended, personal access tokens revoked"
        );
    }
    Ok(updated)
}

/// Writes the language and time zone preferences alone.
async fn set_preferences(
    ctx: &Accounts<'_>,
    user_id: UserId,
    language: Option<Option<&'static str>>,
    time_zone: Option<Option<&'static str>>,
) -> Result<Updated, AccountError> {
    let now = ctx.clock.now();
    store::run(ctx.pool, move |conn| {
        let changes = UserChanges {
            email: None,
            password_hash: None,
            language,
            time_zone,
            updated_at: now,
        };
        store::users::update(conn, &user_id, changes)?;
        store::users::find(conn, &user_id)
    })
    .await?
    .map(|user| Updated {
        user,
        password_changed: None,
    })
    .ok_or(AccountError::AccountGone)
}
