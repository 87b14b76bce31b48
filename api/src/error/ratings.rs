//! The rating reads' errors as problems.

use super::ApiError;
use crate::ratings::read::RatingReadError;

impl From<RatingReadError> for ApiError {
    fn from(e: RatingReadError) -> Self {
        match e {
            e @ RatingReadError::NoPlayer(_) => ApiError::NotFound(e.to_string()),
            RatingReadError::Store(e) => e.into(),
        }
    }
}
