//! [`AccountError`]: why an account, session or token use case refused or failed. Plain
//! values; `error/accounts.rs` turns them into problems.

use std::time::Duration;

use crate::auth::jwt::JwtError;
use crate::auth::passwords::PasswordError;
use crate::store::{RunError, StoreError};

pub use crate::validate::Invalid;
use crate::validate::InvalidFields;

#[derive(Debug, thiserror::Error)]
pub enum AccountError {
    /// Fields of the input break the rules (every one listed).
    #[error("{} fields are invalid", .0.len())]
    Invalid(Vec<Invalid>),
    /// A login with an unknown name or a wrong password (the same answer for both).
    #[error("invalid username or password")]
    BadCredentials,
    /// The current password given to change the email or the password is wrong.
    #[error("current_password: is not correct")]
    WrongCurrentPassword,
    /// Too many attempts: try again after this long.
    #[error("too many attempts; retry after {0:?}")]
    Throttled(Duration),
    /// The caller's account was deleted.
    #[error("the account no longer exists")]
    AccountGone,
    #[error("this username is taken, or looks too much like one that is")]
    UsernameTaken,
    /// The account already holds this many live personal access tokens.
    #[error("an account may hold at most {0} live tokens; revoke some first")]
    TokenCapReached(i64),
    #[error("no such token")]
    NoSuchToken,
    #[error("no such session")]
    NoSuchSession,
    /// The address is verified already: no mail to send.
    #[error("the address is already verified")]
    AlreadyVerified,
    /// A mailed token (verification, password reset) that does not work, and why.
    #[error("{0}")]
    MailToken(MailTokenRejected),
    /// A credential that does not authenticate: the reason is for the client.
    #[error("{0}")]
    Rejected(Rejected),
    #[error(transparent)]
    Passwords(#[from] PasswordError),
    #[error(transparent)]
    Jwt(#[from] JwtError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The fields a use case checked itself and found invalid.
impl From<InvalidFields> for AccountError {
    fn from(fields: InvalidFields) -> AccountError {
        AccountError::Invalid(fields.0)
    }
}

/// Why a presented credential (a refresh token, a personal access token, an access
/// token's or a cookie's session) was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Rejected {
    #[error("unknown refresh token")]
    UnknownRefreshToken,
    #[error("this session has ended")]
    RefreshSessionEnded,
    #[error("this refresh token was already used; the session has been revoked")]
    RefreshTokenReused,
    #[error("this refresh token has expired")]
    RefreshTokenExpired,
    #[error("unknown personal access token")]
    UnknownPersonalToken,
    #[error("this personal access token has been revoked")]
    RevokedPersonalToken,
    #[error("this personal access token has expired")]
    ExpiredPersonalToken,
    #[error("the access token's session does not exist")]
    UnknownSession,
    #[error("the access token is not valid")]
    SessionOfAnotherUser,
    #[error("the access token's session has ended (logged out or revoked)")]
    SessionEnded,
    #[error("the session has ended (logged out or revoked); log in again")]
    CookieSessionEnded,
}

/// Why a mailed token (an address verification or password reset link) was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum MailTokenRejected {
    #[error("this link is not valid")]
    Unknown,
    #[error("this link was already used")]
    Used,
    #[error("this link has expired; ask for a new one")]
    Expired,
    #[error("the account's address changed since this link was sent")]
    AddressChanged,
}

impl From<MailTokenRejected> for AccountError {
    fn from(r: MailTokenRejected) -> Self {
        AccountError::MailToken(r)
    }
}

impl From<Rejected> for AccountError {
    fn from(r: Rejected) -> Self {
        AccountError::Rejected(r)
    }
}

impl From<RunError> for AccountError {
    fn from(e: RunError) -> Self {
        AccountError::Store(e.into())
    }
}
