//! Use cases of accounts, login sessions, refresh tokens and personal access tokens, one
//! action a file. The account rules (the username and password profiles) are field rules,
//! in `validate::{names, password_policy}`.
//!
//! Each use case takes the narrow context [`Accounts`] (built by `AppState::accounts`),
//! reaches the database through `store::run` and the per-table functions of
//! `store::{users, sessions, tokens}`, takes the time from the injected clock and answers
//! plain values or an [`AccountError`]; `error/accounts.rs` maps that to problems.
//!
//! - [`register`]: create an account;
//! - [`login`]: check a name and password under the login limits, start a session;
//! - [`refresh`]: rotate a session's refresh token (reuse revokes the session);
//! - [`logout`]: end a session;
//! - [`sessions`]: list one's live sessions, end any of them;
//! - [`close`]: close an account: end everything, leave its games, erase its data;
//! - [`export`]: the owner's data as one JSON document;
//! - [`profile`]: one's profile; change the email or the password;
//! - [`tokens`]: personal access tokens: create (under a cap), list, revoke;
//! - [`password_reset`]: ask for a reset link (the same answer whatever exists), use it;
//! - [`verification`]: confirm an address with its mailed link, send the mail again;
//! - [`mail`]: the mailed tokens and the outbox rows of account mails;
//! - [`authenticate`]: what the extractor asks: a personal access token, an access token's
//!   or a cookie's session;
//! - [`oauth`]: OAuth 2.0 for third-party apps: codes (PKCE), their exchange, revocation;
//! - [`throttle`]: the failed-password counts behind the login limits (shared through the
//!   store).

pub mod authenticate;
pub mod close;
pub mod error;
pub mod export;
pub mod login;
pub mod logout;
pub mod mail;
pub mod oauth;
pub mod password_reset;
pub mod profile;
pub mod refresh;
pub mod register;
pub mod sessions;
pub mod throttle;
pub mod tokens;
pub mod verification;

/// The rows the use cases answer with (the routes render them).
pub use crate::store::models::{PersonalAccessToken, User};
pub use error::{AccountError, Invalid, MailTokenRejected, Rejected};

use chrono::{NaiveDateTime, TimeDelta};

use crate::auth::jwt::JwtKeys;
use crate::auth::passwords::Passwords;
use crate::clock::Clock;
use crate::ids::SessionId;
use crate::store::DbPool;
use throttle::LoginThrottle;

/// What the account use cases need: the pool, the clock, the password hasher, the access
/// token keys, the login limits and the refresh tokens' lifetime.
#[derive(Debug, Clone, Copy)]
pub struct Accounts<'a> {
    pub pool: &'a DbPool,
    pub clock: &'a dyn Clock,
    pub passwords: &'a Passwords,
    pub jwt: &'a JwtKeys,
    pub throttle: &'a LoginThrottle,
    pub refresh_ttl: TimeDelta,
    /// Keys the mailed tokens (the server's signing secret; see `auth::tokens::mailed`).
    pub mail_secret: &'a str,
}

/// The tokens of a session as issued by a login or a refresh; the refresh token is shown
/// this once.
pub struct SessionTokens {
    pub session_id: SessionId,
    pub access_token: String,
    /// Seconds until the access token expires.
    pub expires_in: u64,
    pub refresh_token: String,
    pub refresh_expires_at: NaiveDateTime,
}

impl std::fmt::Debug for SessionTokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionTokens")
            .field("session_id", &self.session_id)
            .field("access_token", &"<redacted>")
            .field("expires_in", &self.expires_in)
            .field("refresh_token", &"<redacted>")
            .field("refresh_expires_at", &self.refresh_expires_at)
            .finish()
    }
}
