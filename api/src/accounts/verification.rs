//! Address verification: after registration and after each change of address a mail
//! carries a single-use link (valid [`mail::VERIFY_TTL`]); until it is used, no
//! notification mail goes to the address. The owner may ask for the mail again, under a
//! limit ([`RESEND_GAP`], at most [`RESEND_PER_DAY`] a day).

use chrono::{NaiveDateTime, TimeDelta};

use super::mail::{self, Purpose};
use super::{AccountError, Accounts, MailTokenRejected};
use crate::auth::{SecretString, tokens};
use crate::ids::UserId;
use crate::store::{self, DbConnection, StoreError, models::User};

/// The least time between two verification mails of one account.
pub const RESEND_GAP: TimeDelta = TimeDelta::minutes(1);
/// Verification mails one account may get in 24 hours (the registration's included).
pub const RESEND_PER_DAY: usize = 5;
/// The longest string looked up as a mailed token; longer ones are simply unknown.
pub(super) const MAX_PRESENTED_LEN: usize = 200;

/// Sends the verification mail again (earlier links stay good until one is used).
/// [`AccountError::AlreadyVerified`] when the address is verified, `Throttled` past the
/// limits.
pub async fn resend(ctx: &Accounts<'_>, user_id: UserId) -> Result<(), AccountError> {
    let now = ctx.clock.now();
    let secret = ctx.mail_secret.to_string();
    store::run(ctx.pool, move |conn| {
        store::transaction(conn, |conn| {
            if !store::users::lock(conn, &user_id)? {
                return Ok(Err(AccountError::AccountGone));
            }
            let Some(user) = store::users::find(conn, &user_id)? else {
                return Ok(Err(AccountError::AccountGone));
            };
            if user.email_verified_at.is_some() {
                return Ok(Err(AccountError::AlreadyVerified));
            }
            let sent = store::account_tokens::issued_since(
                conn,
                &user.id,
                Purpose::VerifyEmail.as_str(),
                now - TimeDelta::days(1),
            )?;
            if let Some(wait) = resend_wait(&sent, now) {
                return Ok(Err(AccountError::Throttled(wait)));
            }
            mail::issue(conn, &user, Purpose::VerifyEmail, &secret, now)?;
            Ok::<_, StoreError>(Ok(()))
        })?
    })
    .await
}

/// How long to wait before another mail, given the times of those sent in the last day
/// (oldest first); `None`: send now.
fn resend_wait(sent: &[NaiveDateTime], now: NaiveDateTime) -> Option<std::time::Duration> {
    let wait = if sent.len() >= RESEND_PER_DAY {
        sent[sent.len() - RESEND_PER_DAY] + TimeDelta::days(1) - now
    } else if let Some(last) = sent.last() {
        *last + RESEND_GAP - now
    } else {
        return None;
    };
    (wait > TimeDelta::zero()).then(|| wait.to_std().unwrap_or_default())
}

/// Confirms an address with the token of its mail (no login needed): the account's
/// address is verified if it is still the one the mail went to.
pub async fn confirm(ctx: &Accounts<'_>, presented: SecretString) -> Result<User, AccountError> {
    let now = ctx.clock.now();
    let presented = presented.expose().to_string();
    store::run(ctx.pool, move |conn| {
        store::transaction(conn, |conn| {
            let row = match take(conn, &presented, Purpose::VerifyEmail, now)? {
                Ok(row) => row,
                Err(e) => return Ok(Err(e.into())),
            };
            if !store::users::verify_email(conn, &row.user_id, &row.email, now)? {
                return Ok(Err(MailTokenRejected::AddressChanged.into()));
            }
            // The other links of the account have done their work.
            store::account_tokens::retire_all(
                conn,
                &row.user_id,
                Purpose::VerifyEmail.as_str(),
                now,
            )?;
            let user = store::users::find(conn, &row.user_id)?;
            Ok::<_, StoreError>(user.ok_or(AccountError::AccountGone))
        })?
    })
    .await
    .inspect(|u| tracing::info!(user_id = %u.id, "address verified"))
}

/// Whether a verification link still works, without using it (the page that the mail
/// links to shows its button only then), and the language of the account it is for
/// (the page speaks the recipient's language).
pub async fn check_link(
    ctx: &Accounts<'_>,
    presented: SecretString,
) -> Result<Option<String>, AccountError> {
    let now = ctx.clock.now();
    let presented = presented.expose().to_string();
    store::run(ctx.pool, move |conn| {
        let row = match peek(conn, &presented, Purpose::VerifyEmail, now)? {
            Ok(row) => row,
            Err(e) => return Ok(Err(e.into())),
        };
        let Some(user) = store::users::find(conn, &row.user_id)? else {
            return Ok(Err(AccountError::AccountGone));
        };
        if user.email != row.email {
            return Ok(Err(MailTokenRejected::AddressChanged.into()));
        }
        Ok::<_, StoreError>(Ok(user.language))
    })
    .await?
}

/// Checks a presented mailed token for `purpose` without using it; the refusal says why.
pub(super) fn peek(
    conn: &mut DbConnection,
    presented: &str,
    purpose: Purpose,
    now: NaiveDateTime,
) -> Result<Result<store::account_tokens::AccountTokenRow, MailTokenRejected>, StoreError> {
    if presented.len() > MAX_PRESENTED_LEN || !presented.starts_with(purpose.prefix()) {
        return Ok(Err(MailTokenRejected::Unknown));
    }
    let Some(row) = store::account_tokens::find_by_hash(conn, &tokens::hash(presented))? else {
        return Ok(Err(MailTokenRejected::Unknown));
    };
    if row.purpose != purpose.as_str() {
        return Ok(Err(MailTokenRejected::Unknown));
    }
    if row.used_at.is_some() {
        return Ok(Err(MailTokenRejected::Used));
    }
    if row.expires_at <= now {
        return Ok(Err(MailTokenRejected::Expired));
    }
    Ok(Ok(row))
}

/// Checks a presented mailed token for `purpose` and marks it used (once: of two racing
/// uses one wins); the refusal says why.
pub(super) fn take(
    conn: &mut DbConnection,
    presented: &str,
    purpose: Purpose,
    now: NaiveDateTime,
) -> Result<Result<store::account_tokens::AccountTokenRow, MailTokenRejected>, StoreError> {
    let row = match peek(conn, presented, purpose, now)? {
        Ok(row) => row,
        Err(e) => return Ok(Err(e)),
    };
    if !store::account_tokens::mark_used(conn, &row.id, now)? {
        return Ok(Err(MailTokenRejected::Used));
    }
    Ok(Ok(row))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(min: i64) -> NaiveDateTime {
        chrono::DateTime::from_timestamp(1_800_000_000 + min * 60, 0)
            .unwrap()
            .naive_utc()
    }

    #[test]
    fn resends_wait_a_minute_and_at_most_five_a_day() {
        assert_eq!(resend_wait(&[], t(0)), None);
        assert_eq!(
            resend_wait(&[t(0)], t(0)),
            Some(std::time::Duration::from_secs(60))
        );
        assert_eq!(resend_wait(&[t(0)], t(1)), None);
        let five: Vec<_> = (0..5).map(|i| t(i * 10)).collect();
        assert_eq!(
            resend_wait(&five, t(50)),
            Some(std::time::Duration::from_secs(24 * 3600 - 50 * 60))
        );
        assert_eq!(resend_wait(&five, t(24 * 60)), None);
    }
}
