//! Cursor pagination shared by every list: `?after=<cursor>&limit=<n>`, answered with
//! `items`, `next_cursor` and `next` (the path of the next page, absent on the last page).
//! Cursors are opaque to clients; [`Keyset`] is the one kind built from (time, id).

use chrono::{DateTime, NaiveDateTime};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::error::ApiError;

pub const DEFAULT_LIMIT: u32 = 50;
pub const MAX_LIMIT: u32 = 100;
/// The longest cursor any list hands out is far shorter.
pub const MAX_CURSOR_LEN: usize = 200;

#[derive(Debug, Clone, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PageParams {
    /// Return items after this cursor (the `next_cursor` of the previous page).
    #[param(min_length = 1, max_length = 200, pattern = "^[\\x21-\\x7e]+$")]
    pub after: Option<String>,
    /// Items per page, 1 to 100 (default 50).
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<u32>,
}

impl PageParams {
    /// The limit, checked (a `validation` problem when out of range).
    pub fn limit(&self) -> Result<u32, ApiError> {
        check_limit(self.limit)
    }

    /// The cursor, checked: 1 to 200 visible ASCII characters (cursors are opaque, and
    /// no byte a client sends reaches the database unchecked).
    pub fn after(&self) -> Result<Option<&str>, ApiError> {
        check_cursor(self.after.as_deref())
    }
}

/// Checks a `limit` parameter (default [`DEFAULT_LIMIT`], at most [`MAX_LIMIT`]).
pub fn check_limit(limit: Option<u32>) -> Result<u32, ApiError> {
    match limit {
        None => Ok(DEFAULT_LIMIT),
        Some(n) if (1..=MAX_LIMIT).contains(&n) => Ok(n),
        Some(_) => Err(ApiError::field(
            "limit",
            format!("must be 1 to {MAX_LIMIT}"),
        )),
    }
}

/// Checks an `after` parameter (see [`PageParams::after`]).
pub fn check_cursor(after: Option<&str>) -> Result<Option<&str>, ApiError> {
    match after {
        Some(a)
            if a.is_empty()
                || a.len() > MAX_CURSOR_LEN
                || !a.bytes().all(|b| b.is_ascii_graphic()) =>
        {
            Err(invalid_cursor())
        }
        other => Ok(other),
    }
}

pub fn invalid_cursor() -> ApiError {
    ApiError::field("after", "is not a valid cursor")
}

/// A cursor for lists ordered by (time, id): `<microseconds>_<id>`.
pub struct Keyset;

impl Keyset {
    pub fn encode(t: NaiveDateTime, id: &str) -> String {
        format!("{}_{id}", t.and_utc().timestamp_micros())
    }

    /// Decodes a cursor; ids are UUID-like (letters, digits and `-`), anything else is
    /// not a cursor this server made.
    pub fn decode(cursor: &str) -> Result<(NaiveDateTime, String), ApiError> {
        let (micros, id) = cursor.split_once('_').ok_or_else(invalid_cursor)?;
        let micros: i64 = micros.parse().map_err(|_| invalid_cursor())?;
        let t = DateTime::from_timestamp_micros(micros).ok_or_else(invalid_cursor)?;
        if id.is_empty()
            || id.len() > 64
            || !id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        {
            return Err(invalid_cursor());
        }
        Ok((t.naive_utc(), id.to_string()))
    }
}

/// One page of a list, cut from `limit + 1` fetched items.
#[derive(Debug)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub next_cursor: Option<String>,
    pub next: Option<String>,
}

impl<T> Page<T> {
    /// Keeps the first `limit` of `fetched` (the query asked for one more, to know
    /// whether a next page exists); `cursor_of` names the last kept item; the next link
    /// is `path?after=<cursor>&limit=<limit><extra_query>`.
    pub fn cut(
        mut fetched: Vec<T>,
        limit: u32,
        path: &str,
        extra_query: &str,
        cursor_of: impl Fn(&T) -> String,
    ) -> Page<T> {
        let more = fetched.len() > limit as usize;
        fetched.truncate(limit as usize);
        let next_cursor = if more {
            fetched.last().map(&cursor_of)
        } else {
            None
        };
        let next = next_cursor
            .as_deref()
            .map(|c| format!("{}{extra_query}", next_link(path, c, limit)));
        Page {
            items: fetched,
            next_cursor,
            next,
        }
    }

    pub fn map<U>(self, f: impl FnMut(T) -> U) -> Page<U> {
        Page {
            items: self.items.into_iter().map(f).collect(),
            next_cursor: self.next_cursor,
            next: self.next,
        }
    }
}

/// The `next` link for a page: `path?after=<cursor>&limit=<n>`.
pub fn next_link(path: &str, cursor: &str, limit: u32) -> String {
    let cursor: String = url::form_urlencoded::byte_serialize(cursor.as_bytes()).collect();
    format!("{path}?after={cursor}&limit={limit}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_refuse_control_bytes_and_foreign_ids() {
        assert!(check_cursor(Some("1_\0")).is_err());
        assert!(check_cursor(Some("é")).is_err());
        assert!(check_cursor(Some("12_ab-c")).is_ok());
        assert!(Keyset::decode("12_a'b").is_err());
        assert!(Keyset::decode("x_ab").is_err());
        let t = chrono::DateTime::from_timestamp_micros(1_700_000_000_000_001)
            .unwrap()
            .naive_utc();
        let c = Keyset::encode(t, "ab-1");
        assert_eq!(Keyset::decode(&c).unwrap(), (t, "ab-1".to_string()));
    }

    #[test]
    fn pages_cut_one_extra_item_into_a_next_link() {
        let p = Page::cut(vec![1, 2, 3], 2, "/v1/x", "&s=1", |n| n.to_string());
        assert_eq!(p.items, vec![1, 2]);
        assert_eq!(p.next_cursor.as_deref(), Some("2"));
        assert_eq!(p.next.as_deref(), Some("/v1/x?after=2&limit=2&s=1"));
        let last = Page::cut(vec![1, 2], 2, "/v1/x", "", |n| n.to_string());
        assert!(last.next.is_none() && last.next_cursor.is_none());
    }
}
