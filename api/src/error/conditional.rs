//! The problems of conditional moves (`crate::games::conditional`).

use super::{ApiError, FieldError};
use crate::games::conditional::ConditionalError;

impl From<ConditionalError> for ApiError {
    fn from(e: ConditionalError) -> Self {
        match e {
            ConditionalError::NotFound(id) => ApiError::NotFound(format!("no game {id}")),
            ConditionalError::Forbidden(m) => ApiError::Forbidden(m),
            e @ ConditionalError::PreconditionRequired => {
                ApiError::PreconditionRequired(e.to_string())
            }
            ConditionalError::VersionConflict {
                expected,
                current_version,
            } => ApiError::VersionConflict {
                expected,
                current_version,
            },
            ConditionalError::GameNotStarted(m) => ApiError::GameNotStarted(m),
            ConditionalError::GameOver(m) => ApiError::GameOver(m),
            ConditionalError::Conflict(m) => ApiError::Conflict(m),
            // 400 naming the line and the ply: `lines[i]` is the line's index in the body.
            ConditionalError::Invalid(e) => {
                let field = match e.line {
                    0 => "lines".to_string(),
                    n => format!("lines[{}]", n - 1),
                };
                ApiError::Validation {
                    detail: e.to_string(),
                    errors: vec![FieldError::new(field, e.to_string())],
                }
            }
            ConditionalError::Store(e) => e.into(),
        }
    }
}
