//! What can go wrong in a use case of notifications. No HTTP here: `crate::error`
//! maps each variant to its problem.

use crate::store::{RunError, StoreError};

#[derive(Debug, thiserror::Error)]
pub enum NotificationError {
    /// Fields of the request break a rule: (field, message) each.
    #[error("{}", .0.iter().map(|(f, m)| format!("{f}: {m}")).collect::<Vec<_>>().join("; "))]
    Invalid(Vec<(String, String)>),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    Conflict(String),
    /// A quota of the account is reached (webhooks, push subscriptions).
    #[error("{0}")]
    Quota(crate::quota::Exceeded),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Run(#[from] RunError),
}

impl NotificationError {
    /// One invalid field.
    pub fn field(field: impl Into<String>, message: impl Into<String>) -> Self {
        NotificationError::Invalid(vec![(field.into(), message.into())])
    }
}

impl From<diesel::result::Error> for NotificationError {
    fn from(e: diesel::result::Error) -> Self {
        NotificationError::Store(e.into())
    }
}
