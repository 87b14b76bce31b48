//! The in-app feed: a user's notifications, newest first (cursor paged), marking them
//! read, and the reads behind its Server-Sent Events stream.
//!
//! The stream polls the database (so it shows what any instance wrote) in the order
//! (created_at, id). Transactions commit out of that order now and then (a write that
//! started earlier commits later), so each poll looks back [`LOOK_BACK`] before the newest
//! item sent and skips the ids already sent: an item that commits late is still sent.

use std::collections::HashMap;

use chrono::{NaiveDateTime, TimeDelta};
use diesel::prelude::*;
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use crate::store::DbConnection;
use crate::store::StoreError;
use crate::store::outbox::NotificationRow;
use crate::store::schema::notifications;

/// How far before the newest sent item a stream looks for late commits.
pub const LOOK_BACK: TimeDelta = TimeDelta::seconds(30);

/// A notification as served.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(example = json!({
    "id": "6f1c2a9e-0d3b-4c1a-9e8f-2b7d5a4c3e21", "kind": "your_turn",
    "game_id": "5b3f2a4e-1c7d-4e55-9a0b-7f3e2d1c0b9a", "version": 12,
    "payload": {"seat": "B", "deadline": "2026-12-03T12:05:00Z", "game_id": "5b3f2a4e-1c7d-4e55-9a0b-7f3e2d1c0b9a", "version": 12},
    "created_at": "2026-11-30T12:05:00Z", "read": false
}))]
pub struct NotificationView {
    /// Stable: the same notification always has this id (de-duplicate by it).
    pub id: String,
    /// your_turn, reminder, timeout, chief_killed, seat_eliminated, game_started,
    /// game_ended or draw_offered.
    pub kind: String,
    pub game_id: Option<String>,
    /// The game's version that caused it.
    pub version: Option<i64>,
    #[schema(value_type = Object)]
    pub payload: Value,
    pub created_at: chrono::DateTime<chrono::Utc>,
    pub read: bool,
}

impl NotificationView {
    pub fn of(row: &NotificationRow) -> NotificationView {
        NotificationView {
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

/// Newest first, after the keyset `after`; `limit + 1` rows.
pub fn page(
    conn: &mut DbConnection,
    user: &str,
    after: Option<(NaiveDateTime, String)>,
    unread_only: bool,
    limit: i64,
) -> Result<Vec<NotificationRow>, StoreError> {
    let mut q = notifications::table
        .filter(notifications::user_id.eq(user))
        .order((notifications::created_at.desc(), notifications::id.desc()))
        .limit(limit + 1)
        .select(NotificationRow::as_select())
        .into_boxed();
    if let Some((t, id)) = after {
        q = q.filter(
            notifications::created_at.lt(t).or(notifications::created_at
                .eq(t)
                .and(notifications::id.lt(id))),
        );
    }
    if unread_only {
        q = q.filter(notifications::read_at.is_null());
    }
    Ok(q.load(conn)?)
}

/// The number of unread notifications.
pub fn unread_count(conn: &mut DbConnection, user: &str) -> Result<i64, StoreError> {
    Ok(notifications::table
        .filter(notifications::user_id.eq(user))
        .filter(notifications::read_at.is_null())
        .count()
        .get_result(conn)?)
}

/// Marks the given ids read, or every notification up to and including `up_to` (by the
/// feed's order); returns how many changed.
pub fn mark_read(
    conn: &mut DbConnection,
    user: &str,
    ids: &[String],
    up_to: Option<&str>,
    at: NaiveDateTime,
) -> Result<usize, StoreError> {
    let mut changed = 0;
    if !ids.is_empty() {
        changed += diesel::update(
            notifications::table
                .filter(notifications::user_id.eq(user))
                .filter(notifications::id.eq_any(ids))
                .filter(notifications::read_at.is_null()),
        )
        .set(notifications::read_at.eq(Some(at)))
        .execute(conn)?;
    }
    if let Some(id) = up_to {
        if let Some(t) = created_at_of(conn, user, id)? {
            changed += diesel::update(
                notifications::table
                    .filter(notifications::user_id.eq(user))
                    .filter(notifications::read_at.is_null())
                    .filter(
                        notifications::created_at.lt(t).or(notifications::created_at
                            .eq(t)
                            .and(notifications::id.le(id))),
                    ),
            )
            .set(notifications::read_at.eq(Some(at)))
            .execute(conn)?;
        }
    }
    Ok(changed)
}

/// When one of the user's notifications was made (`None`: no such notification).
pub fn created_at_of(
    conn: &mut DbConnection,
    user: &str,
    id: &str,
) -> Result<Option<NaiveDateTime>, StoreError> {
    Ok(notifications::table
        .filter(notifications::user_id.eq(user))
        .filter(notifications::id.eq(id))
        .select(notifications::created_at)
        .first(conn)
        .optional()?)
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
        user: &str,
        last: Option<&str>,
    ) -> Result<StreamCursor, StoreError> {
        let anchor: Option<(NaiveDateTime, String)> = match last {
            Some(id) => created_at_of(conn, user, id)?.map(|t| (t, id.to_string())),
            None => None,
        };
        let anchor = match anchor {
            Some(a) => Some(a),
            None if last.is_some() => None, // unknown id: send everything we have
            None => notifications::table
                .filter(notifications::user_id.eq(user))
                .order((notifications::created_at.desc(), notifications::id.desc()))
                .select((notifications::created_at, notifications::id))
                .first(conn)
                .optional()?,
        };
        let mut cursor = StreamCursor::default();
        if let Some((t, id)) = anchor {
            cursor.newest = Some(t);
            let seen: Vec<(String, NaiveDateTime)> = notifications::table
                .filter(notifications::user_id.eq(user))
                .filter(notifications::created_at.ge(t - LOOK_BACK))
                .filter(
                    notifications::created_at.lt(t).or(notifications::created_at
                        .eq(t)
                        .and(notifications::id.le(id))),
                )
                .select((notifications::id, notifications::created_at))
                .load(conn)?;
            cursor.sent.extend(seen);
        }
        Ok(cursor)
    }

    /// The items not sent yet, oldest first (at most `limit`), marked as sent.
    pub fn poll(
        &mut self,
        conn: &mut DbConnection,
        user: &str,
        limit: i64,
    ) -> Result<Vec<NotificationRow>, StoreError> {
        let mut q = notifications::table
            .filter(notifications::user_id.eq(user))
            .order((notifications::created_at.asc(), notifications::id.asc()))
            .limit(limit + self.sent.len() as i64)
            .select(NotificationRow::as_select())
            .into_boxed();
        if let Some(t) = self.newest {
            q = q.filter(notifications::created_at.ge(t - LOOK_BACK));
        }
        let rows: Vec<NotificationRow> = q.load(conn)?;
        let fresh: Vec<NotificationRow> = rows
            .into_iter()
            .filter(|r| !self.sent.contains_key(&r.id))
            .take(limit as usize)
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
        Ok(fresh)
    }
}
