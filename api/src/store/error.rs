//! The store's errors: what the layers above see of a database failure. No HTTP here; each
//! use case maps these to its own error enum.

/// Why [`run`] could not run its closure: no connection could be had in time, or the
/// blocking task died. Each error type of the layers above converts from it.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("no database connection: {0}")]
    NoConnection(String),
    #[error("blocking task failed: {0}")]
    Blocking(String),
}

/// Why the store failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("no game {0}")]
    NotFound(String),
    /// Another write claimed the version first; nothing was written.
    #[error("the game's version moved")]
    VersionMoved,
    /// A failure that a retry may not meet again: a deadlock, a serialization failure, a
    /// busy SQLite file, a lost or unavailable connection.
    #[error("transient database failure: {0}")]
    Transient(String),
    /// A log that does not replay, or rows that contradict it: a bug or a corruption.
    #[error("corrupt game data: {0}")]
    Corrupt(String),
    #[error("database error: {0}")]
    Database(String),
}

impl From<diesel::result::Error> for StoreError {
    fn from(e: diesel::result::Error) -> Self {
        use diesel::result::{DatabaseErrorKind as K, Error};
        match e {
            Error::DatabaseError(K::UniqueViolation, _) => StoreError::VersionMoved,
            Error::DatabaseError(K::SerializationFailure | K::ClosedConnection, info) => {
                StoreError::Transient(info.message().to_string())
            }
            Error::DatabaseError(_, info) if is_transient_message(info.message()) => {
                StoreError::Transient(info.message().to_string())
            }
            Error::BrokenTransactionManager => {
                StoreError::Transient("broken transaction manager".into())
            }
            other => StoreError::Database(other.to_string()),
        }
    }
}

/// Deadlocks (SQLSTATE 40P01) have no diesel kind of their own; SQLite reports a busy
/// file by message; a dropped connection shows as an unknown error.
fn is_transient_message(message: &str) -> bool {
    [
        "deadlock detected",
        "could not serialize",
        "database is locked",
        "database is busy",
        "server closed the connection",
        "no connection to the server",
        "terminating connection",
        "connection to server",
    ]
    .iter()
    .any(|m| message.contains(m))
}

impl From<RunError> for StoreError {
    fn from(e: RunError) -> Self {
        match e {
            RunError::NoConnection(m) => StoreError::Transient(m),
            RunError::Blocking(m) => StoreError::Database(m),
        }
    }
}
