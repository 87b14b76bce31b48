//! The problems of tournaments.

use super::{ApiError, FieldError};
use crate::tournaments::command::TournamentError;
use crate::tournaments::log::Refusal;

impl From<TournamentError> for ApiError {
    fn from(e: TournamentError) -> Self {
        match e {
            TournamentError::NotFound(id) => ApiError::NotFound(format!("no tournament {id}")),
            TournamentError::Refused(r) => match r {
                Refusal::NotIn => ApiError::NotFound(r.to_string()),
                Refusal::NotOrganiser | Refusal::RatingOutOfRange => {
                    ApiError::Forbidden(r.to_string())
                }
                Refusal::NotOpen(_) | Refusal::Full | Refusal::AlreadyIn | Refusal::Started => {
                    ApiError::Conflict(r.to_string())
                }
            },
            TournamentError::Invalid(fields) => ApiError::fields(
                fields
                    .into_iter()
                    .map(|i| FieldError::new(i.field, i.message))
                    .collect(),
            ),
            TournamentError::Quota(q) => ApiError::Quota(q),
            e @ TournamentError::Busy => ApiError::Unavailable(e.to_string()),
            TournamentError::Store(e) => ApiError::from(e),
        }
    }
}
