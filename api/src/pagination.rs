//! Cursor pagination shared by list endpoints: `?after=<cursor>&limit=<n>`, answered with
//! `items`, `next_cursor` and `next` (the path of the next page, absent on the last page).

use serde::Deserialize;
use utoipa::IntoParams;

use crate::error::ApiError;

pub const DEFAULT_LIMIT: u32 = 50;
pub const MAX_LIMIT: u32 = 100;

#[derive(Debug, Clone, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PageParams {
    /// Return items after this cursor (the `next_cursor` of the previous page).
    pub after: Option<String>,
    /// Items per page, 1 to 100 (default 50).
    pub limit: Option<u32>,
}

impl PageParams {
    /// The limit, checked (a `validation` problem when out of range).
    pub fn limit(&self) -> Result<u32, ApiError> {
        match self.limit {
            None => Ok(DEFAULT_LIMIT),
            Some(n) if (1..=MAX_LIMIT).contains(&n) => Ok(n),
            Some(_) => Err(ApiError::field(
                "limit",
                format!("must be 1 to {MAX_LIMIT}"),
            )),
        }
    }

    /// The cursor, checked for length (cursors are opaque to clients).
    pub fn after(&self) -> Result<Option<&str>, ApiError> {
        match self.after.as_deref() {
            Some(a) if a.is_empty() || a.len() > 200 => {
                Err(ApiError::field("after", "is not a valid cursor"))
            }
            other => Ok(other),
        }
    }
}

/// The `next` link for a page: `path?after=<cursor>&limit=<n>`.
pub fn next_link(path: &str, cursor: &str, limit: u32) -> String {
    let cursor: String = url::form_urlencoded::byte_serialize(cursor.as_bytes()).collect();
    format!("{path}?after={cursor}&limit={limit}")
}
