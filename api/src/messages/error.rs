//! What can go wrong in table talk. No HTTP here: `crate::error::messages` maps each
//! variant to its problem.

use crate::store::{RunError, StoreError};

#[derive(Debug, thiserror::Error)]
pub enum MessageError {
    #[error("no game {0}")]
    GameNotFound(String),
    #[error("no message {0} in this game")]
    MessageNotFound(String),
    #[error("no player {0}")]
    UserNotFound(String),
    /// A field of the request breaks a rule.
    #[error("{field}: {message}")]
    Invalid { field: String, message: String },
    /// The caller may not write here (a spectator, or a player out of the game where
    /// the game says they may not write).
    #[error("{0}")]
    Forbidden(String),
    #[error("the game is over: its table talk is closed")]
    GameOver,
    /// The `Idempotency-Key` was used before for another request.
    #[error("the Idempotency-Key {0:?} was already used for a different request")]
    IdempotencyKeyReused(String),
    #[error("too many messages; retry after {retry_after_secs} s")]
    RateLimited { retry_after_secs: u64 },
    #[error(transparent)]
    Store(StoreError),
    #[error(transparent)]
    Run(#[from] RunError),
}

impl MessageError {
    pub fn field(field: &str, message: impl Into<String>) -> Self {
        MessageError::Invalid {
            field: field.to_string(),
            message: message.into(),
        }
    }
}

impl From<StoreError> for MessageError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::NotFound(id) => MessageError::GameNotFound(id),
            other => MessageError::Store(other),
        }
    }
}

impl From<diesel::result::Error> for MessageError {
    fn from(e: diesel::result::Error) -> Self {
        MessageError::from(StoreError::from(e))
    }
}
