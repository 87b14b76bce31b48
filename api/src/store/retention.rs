//! Pruning what outlived its retention (the janitor, `crate::workers::janitor`): each
//! function deletes at most `limit` rows per call, found by an index on the time they are
//! pruned by (`2026-12-01-000162_retention`), and says how many it deleted; the janitor
//! calls it again, after a pause, until fewer come back. Pending work is never pruned: a
//! delivery still pending, a notification not fanned out yet.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use super::schema::{
    account_tokens, deliveries, inbound_mails, mail_move_tokens, notifications, refresh_tokens,
    sessions,
};
use super::{DbConnection, StoreError};

/// Up to `limit` keys of rows pruned for either of two reasons: those `first` finds, topped
/// up with those `second` finds in the room left, each once (each query on an index of
/// its own, see the module documentation).
fn either(
    conn: &mut DbConnection,
    limit: i64,
    first: impl FnOnce(&mut DbConnection, i64) -> QueryResult<Vec<String>>,
    second: impl FnOnce(&mut DbConnection, i64) -> QueryResult<Vec<String>>,
) -> Result<Vec<String>, StoreError> {
    let mut ids = first(conn, limit)?;
    let room = limit - ids.len() as i64;
    if room > 0 {
        for id in second(conn, room)? {
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
    }
    Ok(ids)
}

/// Delivered or dead deliveries made before `cutoff`.
pub fn deliveries(
    conn: &mut DbConnection,
    cutoff: NaiveDateTime,
    limit: i64,
) -> Result<usize, StoreError> {
    let ids: Vec<String> = deliveries::table
        .filter(deliveries::status.ne("pending"))
        .filter(deliveries::created_at.lt(cutoff))
        .select(deliveries::id)
        .limit(limit)
        .load(conn)?;
    if ids.is_empty() {
        return Ok(0);
    }
    Ok(diesel::delete(
        deliveries::table
            .filter(deliveries::id.eq_any(&ids))
            .filter(deliveries::status.ne("pending")),
    )
    .execute(conn)?)
}

/// Notifications read before `read_cutoff`, or unread and made before `unread_cutoff`
/// (fanned out, with no delivery pending), with their finished deliveries.
pub fn notifications(
    conn: &mut DbConnection,
    read_cutoff: NaiveDateTime,
    unread_cutoff: NaiveDateTime,
    limit: i64,
) -> Result<usize, StoreError> {
    let mut ids = either(
        conn,
        limit,
        |conn, n| {
            notifications::table
                .filter(notifications::read_at.lt(read_cutoff))
                .filter(notifications::fanned_out_at.is_not_null())
                .select(notifications::id)
                .limit(n)
                .load(conn)
        },
        |conn, n| {
            notifications::table
                .filter(notifications::read_at.is_null())
                .filter(notifications::created_at.lt(unread_cutoff))
                .filter(notifications::fanned_out_at.is_not_null())
                .select(notifications::id)
                .limit(n)
                .load(conn)
        },
    )?;
    if ids.is_empty() {
        return Ok(0);
    }
    super::transaction(conn, |conn| {
        let pending: Vec<String> = deliveries::table
            .filter(deliveries::notification_id.eq_any(&ids))
            .filter(deliveries::status.eq("pending"))
            .select(deliveries::notification_id)
            .load(conn)?;
        ids.retain(|id| !pending.contains(id));
        diesel::delete(deliveries::table.filter(deliveries::notification_id.eq_any(&ids)))
            .execute(conn)?;
        Ok(
            diesel::delete(notifications::table.filter(notifications::id.eq_any(&ids)))
                .execute(conn)?,
        )
    })
}

/// Login sessions revoked before `cutoff` or unused since `idle_cutoff` (their refresh
/// tokens expired long ago), with their refresh tokens.
pub fn sessions(
    conn: &mut DbConnection,
    cutoff: NaiveDateTime,
    idle_cutoff: NaiveDateTime,
    limit: i64,
) -> Result<usize, StoreError> {
    let ids = either(
        conn,
        limit,
        |conn, n| {
            sessions::table
                .filter(sessions::revoked_at.lt(cutoff))
                .select(sessions::id)
                .limit(n)
                .load(conn)
        },
        |conn, n| {
            sessions::table
                .filter(sessions::last_used_at.lt(idle_cutoff))
                .select(sessions::id)
                .limit(n)
                .load(conn)
        },
    )?;
    if ids.is_empty() {
        return Ok(0);
    }
    super::transaction(conn, |conn| {
        diesel::delete(refresh_tokens::table.filter(refresh_tokens::session_id.eq_any(&ids)))
            .execute(conn)?;
        Ok(diesel::delete(sessions::table.filter(sessions::id.eq_any(&ids))).execute(conn)?)
    })
}

/// Refresh tokens used or expired before `cutoff` (a used token presented again still
/// revokes its session until then).
pub fn refresh_tokens(
    conn: &mut DbConnection,
    cutoff: NaiveDateTime,
    limit: i64,
) -> Result<usize, StoreError> {
    let ids = either(
        conn,
        limit,
        |conn, n| {
            refresh_tokens::table
                .filter(refresh_tokens::expires_at.lt(cutoff))
                .select(refresh_tokens::token_hash)
                .limit(n)
                .load(conn)
        },
        |conn, n| {
            refresh_tokens::table
                .filter(refresh_tokens::used_at.lt(cutoff))
                .select(refresh_tokens::token_hash)
                .limit(n)
                .load(conn)
        },
    )?;
    if ids.is_empty() {
        return Ok(0);
    }
    Ok(
        diesel::delete(refresh_tokens::table.filter(refresh_tokens::token_hash.eq_any(&ids)))
            .execute(conn)?,
    )
}

/// E-mail confirmation and password reset tokens, and move-by-mail tokens, expired before
/// `cutoff` (a used one expires soon after).
pub fn account_tokens(
    conn: &mut DbConnection,
    cutoff: NaiveDateTime,
    limit: i64,
) -> Result<usize, StoreError> {
    let ids: Vec<String> = account_tokens::table
        .filter(account_tokens::expires_at.lt(cutoff))
        .select(account_tokens::id)
        .limit(limit)
        .load(conn)?;
    let mut n = 0;
    if !ids.is_empty() {
        n += diesel::delete(account_tokens::table.filter(account_tokens::id.eq_any(&ids)))
            .execute(conn)?;
    }
    let hashes: Vec<String> = mail_move_tokens::table
        .filter(mail_move_tokens::expires_at.lt(cutoff))
        .select(mail_move_tokens::token_hash)
        .limit(limit)
        .load(conn)?;
    if !hashes.is_empty() {
        n += diesel::delete(
            mail_move_tokens::table.filter(mail_move_tokens::token_hash.eq_any(&hashes)),
        )
        .execute(conn)?;
    }
    Ok(n)
}

/// Deletes up to `limit` records of replies by mail received before `cutoff` (their
/// Message-IDs, what the rate limits counted; `inbound_mails_received_idx`).
pub fn inbound_mails(
    conn: &mut DbConnection,
    cutoff: NaiveDateTime,
    limit: i64,
) -> Result<usize, StoreError> {
    let ids: Vec<String> = inbound_mails::table
        .filter(inbound_mails::received_at.lt(cutoff))
        .select(inbound_mails::message_id)
        .limit(limit)
        .load(conn)?;
    if ids.is_empty() {
        return Ok(0);
    }
    Ok(
        diesel::delete(inbound_mails::table.filter(inbound_mails::message_id.eq_any(&ids)))
            .execute(conn)?,
    )
}
