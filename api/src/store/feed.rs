//! The feed's reads and writes of `notifications` (the rows are [`NotificationRow`]).

use chrono::NaiveDateTime;
use diesel::prelude::*;

use super::outbox::NotificationRow;
use super::schema::notifications;
use super::{DbConnection, StoreError};
use crate::ids::UserId;

/// Account mails (verification, password reset) ride the outbox but are not in the feed.
pub(crate) const ACCOUNT_MAILS: &str = "account.%";

/// Newest first, after the keyset `after`; `limit + 1` rows.
pub fn page(
    conn: &mut DbConnection,
    user: &UserId,
    after: Option<(NaiveDateTime, String)>,
    unread_only: bool,
    limit: i64,
) -> Result<Vec<NotificationRow>, StoreError> {
    let mut q = notifications::table
        .filter(notifications::user_id.eq(user))
        .filter(notifications::kind.not_like(ACCOUNT_MAILS))
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
pub fn unread_count(conn: &mut DbConnection, user: &UserId) -> Result<i64, StoreError> {
    Ok(notifications::table
        .filter(notifications::user_id.eq(user))
        .filter(notifications::kind.not_like(ACCOUNT_MAILS))
        .filter(notifications::read_at.is_null())
        .count()
        .get_result(conn)?)
}

/// Marks the given ids read, or every notification up to and including `up_to` (by the
/// feed's order); returns how many changed.
pub fn mark_read(
    conn: &mut DbConnection,
    user: &UserId,
    ids: &[String],
    up_to: Option<&str>,
    at: NaiveDateTime,
) -> Result<usize, StoreError> {
    let mut changed = 0;
    if !ids.is_empty() {
        changed += diesel::update(
            notifications::table
                .filter(notifications::user_id.eq(user))
                .filter(notifications::kind.not_like(ACCOUNT_MAILS))
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
                    .filter(notifications::kind.not_like(ACCOUNT_MAILS))
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
    user: &UserId,
    id: &str,
) -> Result<Option<NaiveDateTime>, StoreError> {
    Ok(notifications::table
        .filter(notifications::user_id.eq(user))
        .filter(notifications::kind.not_like(ACCOUNT_MAILS))
        .filter(notifications::id.eq(id))
        .select(notifications::created_at)
        .first(conn)
        .optional()?)
}

/// The user's newest notification (time and id), if any.
pub fn newest(
    conn: &mut DbConnection,
    user: &UserId,
) -> Result<Option<(NaiveDateTime, String)>, StoreError> {
    Ok(notifications::table
        .filter(notifications::user_id.eq(user))
        .filter(notifications::kind.not_like(ACCOUNT_MAILS))
        .order((notifications::created_at.desc(), notifications::id.desc()))
        .select((notifications::created_at, notifications::id))
        .first(conn)
        .optional()?)
}

/// The ids (and times) of the user's notifications from `since` up to and including the
/// keyset `(t, id)`.
pub fn ids_between(
    conn: &mut DbConnection,
    user: &UserId,
    since: NaiveDateTime,
    (t, id): (NaiveDateTime, &str),
) -> Result<Vec<(String, NaiveDateTime)>, StoreError> {
    Ok(notifications::table
        .filter(notifications::user_id.eq(user))
        .filter(notifications::kind.not_like(ACCOUNT_MAILS))
        .filter(notifications::created_at.ge(since))
        .filter(
            notifications::created_at.lt(t).or(notifications::created_at
                .eq(t)
                .and(notifications::id.le(id))),
        )
        .select((notifications::id, notifications::created_at))
        .load(conn)?)
}

/// The user's notifications from `since` (or all), oldest first, at most `limit`.
pub fn oldest_since(
    conn: &mut DbConnection,
    user: &UserId,
    since: Option<NaiveDateTime>,
    limit: i64,
) -> Result<Vec<NotificationRow>, StoreError> {
    let mut q = notifications::table
        .filter(notifications::user_id.eq(user))
        .filter(notifications::kind.not_like(ACCOUNT_MAILS))
        .order((notifications::created_at.asc(), notifications::id.asc()))
        .limit(limit)
        .select(NotificationRow::as_select())
        .into_boxed();
    if let Some(t) = since {
        q = q.filter(notifications::created_at.ge(t));
    }
    Ok(q.load(conn)?)
}
