//! The problems of the notification use cases.

use super::{ApiError, FieldError};
use crate::notifications::NotificationError;

impl From<NotificationError> for ApiError {
    fn from(e: NotificationError) -> Self {
        match e {
            NotificationError::Invalid(errors) => ApiError::fields(
                errors
                    .into_iter()
                    .map(|(f, m)| FieldError::new(f, m))
                    .collect(),
            ),
            NotificationError::NotFound(m) => ApiError::NotFound(m),
            NotificationError::Conflict(m) => ApiError::Conflict(m),
            NotificationError::Quota(q) => ApiError::Quota(q),
            NotificationError::Store(e) => ApiError::from(e),
            NotificationError::Run(e) => ApiError::from(e),
        }
    }
}
