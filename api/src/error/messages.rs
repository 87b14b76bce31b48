//! The problems of table talk.

use super::ApiError;
use crate::messages::MessageError;

impl From<MessageError> for ApiError {
    fn from(e: MessageError) -> Self {
        match e {
            MessageError::GameNotFound(id) => ApiError::NotFound(format!("no game {id}")),
            e @ (MessageError::MessageNotFound(_) | MessageError::UserNotFound(_)) => {
                ApiError::NotFound(e.to_string())
            }
            MessageError::Invalid { field, message } => ApiError::field(field, message),
            MessageError::Forbidden(m) => ApiError::Forbidden(m),
            e @ MessageError::GameOver => ApiError::GameOver(e.to_string()),
            MessageError::RateLimited { retry_after_secs } => {
                ApiError::RateLimited { retry_after_secs }
            }
            e @ MessageError::IdempotencyKeyReused(_) => {
                ApiError::IdempotencyKeyReused(e.to_string())
            }
            MessageError::Store(e) => ApiError::from(e),
            MessageError::Run(e) => ApiError::from(e),
        }
    }
}
