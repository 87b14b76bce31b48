//! The problems of the account use cases: [`AccountError`], and the errors of the password
//! hasher and the access token keys.

use super::{ApiError, FieldError};
use crate::accounts::AccountError;
use crate::auth::jwt::JwtError;
use crate::auth::passwords::PasswordError;
use crate::error::too_many;

impl From<AccountError> for ApiError {
    fn from(e: AccountError) -> Self {
        match e {
            AccountError::Invalid(errors) => ApiError::fields(
                errors
                    .into_iter()
                    .map(|i| FieldError::new(i.field, i.message))
                    .collect(),
            ),
            AccountError::BadCredentials => ApiError::unauthenticated(e.to_string()),
            AccountError::WrongCurrentPassword => {
                ApiError::field("current_password", "is not correct")
            }
            AccountError::Throttled(wait) => too_many(wait),
            AccountError::AccountGone | AccountError::Rejected(_) => {
                ApiError::invalid_token(e.to_string())
            }
            AccountError::UsernameTaken | AccountError::TokenCapReached(_) => {
                ApiError::Conflict(e.to_string())
            }
            AccountError::NoSuchToken
            | AccountError::NoSuchSession
            | AccountError::MailToken(_) => ApiError::NotFound(e.to_string()),
            AccountError::AlreadyVerified => ApiError::Conflict(e.to_string()),
            AccountError::Passwords(e) => e.into(),
            AccountError::Jwt(e) => e.into(),
            AccountError::Store(e) => e.into(),
        }
    }
}

impl From<PasswordError> for ApiError {
    fn from(e: PasswordError) -> Self {
        match e {
            PasswordError::Busy => ApiError::Unavailable(e.to_string()),
            PasswordError::Internal(m) => ApiError::Internal(m),
        }
    }
}

impl From<JwtError> for ApiError {
    fn from(e: JwtError) -> Self {
        match e {
            JwtError::Invalid(why) => ApiError::invalid_token(why),
            JwtError::Signing(_) => ApiError::internal(e),
        }
    }
}
