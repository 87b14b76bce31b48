//! The problems of the live streams (`crate::live`).

use super::ApiError;
use crate::live::LiveError;

/// How long a refused stream waits before trying again (seconds, `Retry-After`).
pub const RETRY_AFTER_SECS: u64 = 5;

impl From<LiveError> for ApiError {
    fn from(e: LiveError) -> Self {
        match e {
            // 429: this caller holds too many; closing one of them makes room.
            LiveError::TooManyForCaller { .. } => ApiError::RateLimited {
                retry_after_secs: RETRY_AFTER_SECS,
            },
            // 503 (Retry-After: 5): this instance is full; another may not be.
            e @ LiveError::TooManyOnInstance { .. } => ApiError::Unavailable(e.to_string()),
            LiveError::Store(e) => ApiError::from(e),
        }
    }
}
