//! The game use cases' errors as problems.

use super::ApiError;
use crate::games::commands::CommandError;
use crate::games::positions::PositionError;
use crate::games::queries::ReadError;

impl From<CommandError> for ApiError {
    fn from(e: CommandError) -> Self {
        match e {
            CommandError::NotFound(id) => ApiError::NotFound(format!("no game {id}")),
            CommandError::VersionConflict {
                expected,
                current_version,
            } => ApiError::VersionConflict {
                expected,
                current_version,
            },
            CommandError::Forbidden(m) => ApiError::Forbidden(m),
            CommandError::NotYourTurn(m) => ApiError::NotYourTurn(m),
            CommandError::IllegalMove { reason, detail } => ApiError::IllegalMove {
                reason: reason.into(),
                detail,
                // The route that knows the game sets it (`ApiError::with_legal_moves_url`).
                legal_moves_url: None,
            },
            CommandError::GameOver(m) => ApiError::GameOver(m),
            CommandError::GameNotStarted(m) => ApiError::GameNotStarted(m),
            CommandError::SeatTaken(m) => ApiError::SeatTaken(m),
            CommandError::Conflict(m) => ApiError::Conflict(m),
            CommandError::Busy(m) => ApiError::Unavailable(m),
            CommandError::IdempotencyKeyReused(key) => ApiError::IdempotencyKeyReused(format!(
                "the Idempotency-Key {key:?} was already used for a different request"
            )),
            CommandError::SessionEnded => ApiError::invalid_token(
                "the access token's session has ended (logged out or revoked)",
            ),
            CommandError::Quota(q) => ApiError::Quota(q),
            CommandError::Store(e) => e.into(),
            CommandError::InvalidRecord(e) => ApiError::from(e),
        }
    }
}

impl From<ReadError> for ApiError {
    fn from(e: ReadError) -> Self {
        match e {
            ReadError::NotFound(id) => ApiError::NotFound(format!("no game {id}")),
            e @ ReadError::NotYet { .. } => ApiError::NotFound(e.to_string()),
            e @ ReadError::BadVersion { .. } => ApiError::field("at", e.to_string()),
            ReadError::Store(e) => e.into(),
        }
    }
}

/// A record that breaks the rules is a 422 `invalid-record`; one that cannot be read
/// (syntax, an unusable header) is a 400 `validation` about the field `record`. Both
/// name the line.
impl From<domain::RecordError> for ApiError {
    fn from(e: domain::RecordError) -> Self {
        use domain::RecordErrorKind as K;
        let reason = match &e.kind {
            K::Illegal { .. } => "illegal-action",
            K::ResultMismatch { .. } => "result-mismatch",
            K::Syntax(_) | K::Header(_) => return ApiError::field("record", e.to_string()),
        };
        ApiError::InvalidRecord {
            line: e.line,
            reason,
            detail: e.to_string(),
        }
    }
}

impl From<PositionError> for ApiError {
    fn from(e: PositionError) -> Self {
        match e {
            PositionError::Dfen(m) => ApiError::field("dfen", m),
            PositionError::IllegalMove(m) => ApiError::field("move", m),
        }
    }
}
