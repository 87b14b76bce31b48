//! A quota that was reached: plain data the use cases answer with (their error enums wrap
//! it) and the routes render as a problem (`quota-exceeded`, 409, for what an account
//! holds; `rate-limited`, 429 with `Retry-After`, for what it may create in a period).
//! The limits themselves are settings (`config::Quotas`, `DJAMBI_QUOTA_*`,
//! `DJAMBI_BOT_GAMES_*`).

use std::fmt;

/// A quota reached: which, its limit, and for a quota over a period when a place frees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exceeded {
    /// A stable name, e.g. `open_games` (the problem's `quota` member).
    pub quota: &'static str,
    pub limit: u64,
    /// For a quota over a period: seconds until the oldest counted item leaves it.
    pub retry_after_secs: Option<u64>,
    /// What the limit is, for people: "at most 3 games of computer players alone ...".
    pub detail: String,
}

impl Exceeded {
    /// A quota on what an account holds (freed by ending or deleting something).
    pub fn held(quota: &'static str, limit: u64, detail: impl Into<String>) -> Exceeded {
        Exceeded {
            quota,
            limit,
            retry_after_secs: None,
            detail: detail.into(),
        }
    }

    /// A quota over a period (freed by time).
    pub fn per_period(
        quota: &'static str,
        limit: u64,
        retry_after_secs: u64,
        detail: impl Into<String>,
    ) -> Exceeded {
        Exceeded {
            quota,
            limit,
            retry_after_secs: Some(retry_after_secs.max(1)),
            detail: detail.into(),
        }
    }
}

impl fmt::Display for Exceeded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.detail)
    }
}
