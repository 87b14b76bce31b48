//! The in-app feed: a user's notifications, newest first (cursor paged), marking them
//! read, and the reads behind its Server-Sent Events stream.
//!
//! The stream (see `crate::live`) reads the items in the order (created_at, id).
//! Transactions commit out of that order now and then (a write that started earlier
//! commits later), so each read looks back [`LOOK_BACK`] before the newest item sent and
//! skips the ids already sent: an item that commits late is still sent.

use std::collections::HashMap;

use chrono::{NaiveDateTime, TimeDelta};
use serde::Serialize;
use serde_json::Value;

use super::{NotificationError, Notifications};
use crate::ids::{GameId, UserId};
use crate::store::{self, DbConnection, StoreError};

pub use crate::store::outbox::NotificationRow;

/// How far before the newest sent item a stream looks for late commits.
pub const LOOK_BACK: TimeDelta = TimeDelta::seconds(30);

/// A notification as the feed and the webhooks show it.
#[derive(Debug, Clone, Serialize)]
pub struct FeedItem {
    pub id: String,
    pub kind: String,
    pub game_id: Option<GameId>,
    pub version: Option<i64>,
    pub payload: Value,
    pub created_at: chrono::DateTime<chrono::Utc>,
    pub read: bool,
}

impl FeedItem {
    pub fn of(row: &NotificationRow) -> FeedItem {
        FeedItem {
            id: row.id.clone(),
            kind: row.kind.clone(),
            game_id: row.game_id.clone(),
            version: row.version,
            payload: serde_json::from_str(&row.payload).unwrap_or(Value::Null),
            created_at: row.created_at.and_utc(),
            read: row.read_at.is_some(),
        }
    }
}

/// Where a stream is: the newest item sent and the ids sent within [`LOOK_BACK`] of it.
#[derive(Debug, Default, Clone)]
pub struct StreamCursor {
    pub newest: Option<NaiveDateTime>,
    pub sent: HashMap<String, NaiveDateTime>,
}

impl StreamCursor {
    /// A stream that resumes after notification `last` (`Last-Event-ID`), or starts with
    /// what comes next (`None`). Items up to `last` in the look-back window count as sent.
    pub fn start(
        conn: &mut DbConnection,
        user: &UserId,
        last: Option<&str>,
    ) -> Result<StreamCursor, StoreError> {
        let anchor: Option<(NaiveDateTime, String)> = match last {
            Some(id) => store::feed::created_at_of(conn, user, id)?.map(|t| (t, id.to_string())),
            None => None,
        };
        let anchor = match anchor {
            Some(a) => Some(a),
            None if last.is_some() => None, // unknown id: send everything we have
            None => store::feed::newest(conn, user)?,
        };
        let mut cursor = StreamCursor::default();
        if let Some((t, id)) = anchor {
            cursor.newest = Some(t);
            let seen = store::feed::ids_between(conn, user, t - LOOK_BACK, (t, &id))?;
            cursor.sent.extend(seen);
        }
        Ok(cursor)
    }

    /// The items not sent yet, oldest first (at most `limit`), marked as sent.
    pub fn poll(
        &mut self,
        conn: &mut DbConnection,
        user: &UserId,
        limit: i64,
    ) -> Result<Vec<NotificationRow>, StoreError> {
        let since = self.newest.map(|t| t - LOOK_BACK);
        let rows = store::feed::oldest_since(conn, user, since, limit + self.sent.len() as i64)?;
        let fresh: Vec<NotificationRow> = rows
            .into_iter()
            .filter(|r| !self.sent.contains_key(&r.id))
            .take(limit as usize)
            .collect();
        Ok(self.accept(&fresh))
    }

    /// The rows of `rows` (oldest first) not sent yet, marked as sent.
    pub fn accept(&mut self, rows: &[NotificationRow]) -> Vec<NotificationRow> {
        let fresh: Vec<NotificationRow> = rows
            .iter()
            .filter(|r| !self.sent.contains_key(&r.id))
            .cloned()
            .collect();
        for r in &fresh {
            self.sent.insert(r.id.clone(), r.created_at);
            if self.newest.is_none_or(|n| r.created_at > n) {
                self.newest = Some(r.created_at);
            }
        }
        if let Some(n) = self.newest {
            self.sent.retain(|_, t| *t >= n - LOOK_BACK);
        }
        fresh
    }
}

/// A page of the feed: `limit + 1` rows (the extra one says there is more), and the
/// unread count.
#[derive(Debug, Clone)]
pub struct FeedPage {
    pub rows: Vec<NotificationRow>,
    pub unread_count: i64,
}

/// The most ids one mark-read takes.
pub const MAX_MARK_IDS: usize = 500;

impl Notifications<'_> {
    /// `GET /v1/me/notifications`: newest first, after the keyset `after`.
    pub async fn feed(
        &self,
        user: &UserId,
        after: Option<(NaiveDateTime, String)>,
        unread_only: bool,
        limit: u32,
    ) -> Result<FeedPage, NotificationError> {
        let user = user.clone();
        Ok(store::run(self.pool, move |conn| {
            let rows = store::feed::page(conn, &user, after, unread_only, i64::from(limit))?;
            let unread_count = store::feed::unread_count(conn, &user)?;
            Ok::<_, StoreError>(FeedPage { rows, unread_count })
        })
        .await?)
    }

    /// `POST /v1/me/notifications/read`: marks `ids`, or everything up to `up_to`;
    /// answers how many changed and the unread count. Strings that cannot be notification
    /// ids match nothing (and never reach the database).
    pub async fn mark_read(
        &self,
        user: &UserId,
        ids: Vec<String>,
        up_to: Option<String>,
    ) -> Result<(usize, i64), NotificationError> {
        if ids.len() > MAX_MARK_IDS {
            return Err(NotificationError::field("ids", "at most 500 ids"));
        }
        let is_id = |s: &String| {
            (1..=64).contains(&s.len()) && s.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-')
        };
        let ids: Vec<String> = ids.into_iter().filter(is_id).collect();
        let up_to = up_to.filter(is_id);
        let user = user.clone();
        let at = self.clock.now();
        Ok(store::run(self.pool, move |conn| {
            let n = store::feed::mark_read(conn, &user, &ids, up_to.as_deref(), at)?;
            Ok::<_, StoreError>((n, store::feed::unread_count(conn, &user)?))
        })
        .await?)
    }
}
