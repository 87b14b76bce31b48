//! The analysis use cases' errors as problems.

use super::ApiError;
use crate::analysis::AnalysisError;

impl From<AnalysisError> for ApiError {
    fn from(e: AnalysisError) -> Self {
        match e {
            AnalysisError::NotFound(id) => ApiError::NotFound(format!("no game {id}")),
            AnalysisError::NoAnalysis(m) => ApiError::NotFound(m),
            AnalysisError::NotFinished(m) => ApiError::Conflict(m),
            AnalysisError::Quota(q) => ApiError::Quota(q),
            AnalysisError::Store(e) => e.into(),
        }
    }
}
