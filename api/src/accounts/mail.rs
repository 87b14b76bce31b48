//! Mailed tokens: what an address verification or a password reset writes in its own
//! transaction — the token's row (its hash only) and the outbox row that the delivery
//! worker turns into a mail (with retries and back-off, like every notification).

use chrono::{NaiveDateTime, TimeDelta};
use serde_json::json;

use crate::auth::tokens;
use crate::store::account_tokens::AccountTokenRow;
use crate::store::outbox::{NotificationRow, account_mail};
use crate::store::{self, DbConnection, StoreError, models::User};

/// How long a verification link is good for.
pub const VERIFY_TTL: TimeDelta = TimeDelta::hours(48);
/// How long a password reset link is good for.
pub const RESET_TTL: TimeDelta = TimeDelta::hours(1);

/// What a mailed token is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    VerifyEmail,
    PasswordReset,
}

impl Purpose {
    pub fn as_str(self) -> &'static str {
        match self {
            Purpose::VerifyEmail => "verify_email",
            Purpose::PasswordReset => "password_reset",
        }
    }

    pub fn prefix(self) -> &'static str {
        match self {
            Purpose::VerifyEmail => tokens::VERIFY_PREFIX,
            Purpose::PasswordReset => tokens::RESET_PREFIX,
        }
    }

    fn kind(self) -> &'static str {
        match self {
            Purpose::VerifyEmail => account_mail::VERIFY_EMAIL,
            Purpose::PasswordReset => account_mail::PASSWORD_RESET,
        }
    }

    fn ttl(self) -> TimeDelta {
        match self {
            Purpose::VerifyEmail => VERIFY_TTL,
            Purpose::PasswordReset => RESET_TTL,
        }
    }
}

/// Links of one purpose live at once per account: a new one retires the oldest beyond.
/// Above what the owner's own requests make in a link's lifetime (three reset mails an
/// hour, each good for an hour), so that a stranger who asks for mails in the owner's
/// name cannot make the owner's link stop working.
pub const MAX_LIVE_LINKS: usize = 5;

/// Issues a token for `purpose` to the user's current address and queues its mail;
/// inside the caller's transaction. Earlier links stay good until used or expired (using
/// one retires the others), at most [`MAX_LIVE_LINKS`] of them.
pub fn issue(
    conn: &mut DbConnection,
    user: &User,
    purpose: Purpose,
    secret: &str,
    now: NaiveDateTime,
) -> Result<(), StoreError> {
    store::account_tokens::retire_beyond(
        conn,
        &user.id,
        purpose.as_str(),
        MAX_LIVE_LINKS - 1,
        now,
    )?;
    let id = tokens::random_id();
    let token = tokens::mailed(secret, purpose.prefix(), &id);
    store::account_tokens::insert(
        conn,
        &AccountTokenRow {
            id: id.clone(),
            user_id: user.id.clone(),
            purpose: purpose.as_str().into(),
            token_hash: tokens::hash(&token),
            email: user.email.clone(),
            created_at: now,
            expires_at: now + purpose.ttl(),
            used_at: None,
        },
    )?;
    let payload = json!({"to": user.email, "token_id": id, "username": user.username});
    queue(conn, user, purpose.kind(), &id, payload, now)
}

/// Queues the notice that an account's password was reset.
pub fn password_changed_notice(
    conn: &mut DbConnection,
    user: &User,
    now: NaiveDateTime,
) -> Result<(), StoreError> {
    let payload = json!({"to": user.email, "username": user.username});
    let at = now.and_utc().timestamp_micros().to_string();
    queue(
        conn,
        user,
        account_mail::PASSWORD_CHANGED,
        &at,
        payload,
        now,
    )
}

fn queue(
    conn: &mut DbConnection,
    user: &User,
    kind: &str,
    key: &str,
    payload: serde_json::Value,
    now: NaiveDateTime,
) -> Result<(), StoreError> {
    let row = NotificationRow {
        id: crate::notifications::stable_id(&[kind, user.id.as_str(), key]),
        user_id: user.id.clone(),
        kind: kind.into(),
        game_id: None,
        version: None,
        payload: payload.to_string(),
        created_at: now,
        read_at: None,
    };
    store::outbox::enqueue(conn, std::slice::from_ref(&row))
}
