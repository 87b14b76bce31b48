//! Table talk (`messages`, `mutes`, `message_reports`): a game's messages in their own
//! sequence (never in the event log, so a message never moves the game's version), the
//! players each user muted, and the reports kept for the operator. Who may read what is
//! `crate::messages::visibility`; this module only stores.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use super::schema::{message_reports, messages, mutes, notifications, users};
use super::{DbConnection, StoreError};
use crate::ids::{GameId, MessageId, UserId};

/// A row of `messages`.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = messages)]
pub struct MessageRow {
    pub id: MessageId,
    pub game_id: GameId,
    /// 1, 2, 3... per game.
    pub seq: i64,
    pub sender_id: UserId,
    pub sender_seat: String,
    /// The recipient seats' letters; empty: the whole table.
    pub recipients: String,
    pub body: String,
    /// The game's version when it was sent.
    pub game_version: i64,
    pub created_at: NaiveDateTime,
    pub hidden_at: Option<NaiveDateTime>,
    /// The accounts that held the recipient seats when it was sent, space separated;
    /// empty for a message to the table.
    pub recipient_ids: String,
}

/// A row of `message_reports`.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = message_reports)]
pub struct ReportRow {
    pub id: String,
    pub message_id: MessageId,
    pub reporter_id: UserId,
    pub reason: Option<String>,
    /// JSON: the reported message and the ones around it the reporter could see.
    pub context: String,
    pub created_at: NaiveDateTime,
}

/// Serialises the writers of one game's messages until the end of the transaction:
/// on PostgreSQL a transaction-scoped advisory lock on (`talk`, the game), which touches
/// no game row (moves do not wait for it); on SQLite `BEGIN IMMEDIATE` already
/// serialises every writer. So the sequence numbers and the per-game rate limit are
/// decided one writer at a time.
pub fn lock_game_talk(conn: &mut DbConnection, game: &GameId) -> Result<(), StoreError> {
    if let DbConnection::Pg(c) = conn {
        diesel::sql_query("SELECT pg_advisory_xact_lock(1952541803, hashtext($1))")
            .bind::<diesel::sql_types::Text, _>(game)
            .execute(c)?;
    }
    Ok(())
}

/// The next sequence number of a game's messages (inside the sender's transaction; the
/// unique `(game_id, seq)` decides a race, which the caller retries).
pub fn next_seq(conn: &mut DbConnection, game: &GameId) -> Result<i64, StoreError> {
    let max: Option<i64> = messages::table
        .filter(messages::game_id.eq(game))
        .select(diesel::dsl::max(messages::seq))
        .first(conn)?;
    Ok(max.unwrap_or(0) + 1)
}

pub fn insert(conn: &mut DbConnection, row: &MessageRow) -> Result<(), StoreError> {
    diesel::insert_into(messages::table)
        .values(row)
        .execute(conn)?;
    Ok(())
}

/// A game's messages after `after` (by seq), oldest first, at most `limit`, hidden ones
/// included (the caller filters).
pub fn after(
    conn: &mut DbConnection,
    game: &GameId,
    after: i64,
    limit: i64,
) -> Result<Vec<MessageRow>, StoreError> {
    Ok(messages::table
        .filter(messages::game_id.eq(game))
        .filter(messages::seq.gt(after))
        .order(messages::seq.asc())
        .limit(limit)
        .select(MessageRow::as_select())
        .load(conn)?)
}

pub fn find(conn: &mut DbConnection, id: &MessageId) -> Result<Option<MessageRow>, StoreError> {
    Ok(messages::table
        .find(id)
        .select(MessageRow::as_select())
        .first(conn)
        .optional()?)
}

/// How many messages were sent since `since` in a game, and by one sender (in any game).
pub fn sent_since(
    conn: &mut DbConnection,
    game: &GameId,
    sender: &UserId,
    since: NaiveDateTime,
) -> Result<(i64, i64), StoreError> {
    let in_game: i64 = messages::table
        .filter(messages::game_id.eq(game))
        .filter(messages::created_at.ge(since))
        .count()
        .get_result(conn)?;
    let by_sender: i64 = messages::table
        .filter(messages::sender_id.eq(sender))
        .filter(messages::created_at.ge(since))
        .count()
        .get_result(conn)?;
    Ok((in_game, by_sender))
}

/// Hides a message (the operator's command); `false`: no such message. The text is
/// removed from every `message` notification that carried it (found by the game, the
/// time and the `message_id` of the payload, so whoever got one: players who left the game since as
/// well), so no later read or delivery shows it.
pub fn hide(
    conn: &mut DbConnection,
    id: &MessageId,
    at: NaiveDateTime,
) -> Result<bool, StoreError> {
    let Some((game, sent_at)) = messages::table
        .find(id)
        .select((messages::game_id, messages::created_at))
        .first::<(GameId, NaiveDateTime)>(conn)
        .optional()?
    else {
        return Ok(false);
    };
    diesel::update(messages::table.find(id))
        .set(messages::hidden_at.eq(Some(at)))
        .execute(conn)?;
    // Written with the message, at its time: the index on the time finds them.
    let carried: Vec<(String, String)> = notifications::table
        .filter(notifications::created_at.eq(sent_at))
        .filter(notifications::game_id.eq(&game))
        .filter(notifications::kind.eq("message"))
        .select((notifications::id, notifications::payload))
        .load(conn)?;
    for (nid, payload) in carried {
        let mut v: serde_json::Value = serde_json::from_str(&payload).unwrap_or_default();
        let Some(m) = v.as_object_mut() else { continue };
        if m.get("message_id").and_then(|x| x.as_str()) != Some(id.as_str()) {
            continue;
        }
        m.remove("text");
        m.insert("hidden".into(), serde_json::Value::Bool(true));
        diesel::update(notifications::table.find(&nid))
            .set(notifications::payload.eq(v.to_string()))
            .execute(conn)?;
    }
    Ok(true)
}

/// The ids of the accounts `user` muted.
pub fn muted_by(conn: &mut DbConnection, user: &UserId) -> Result<Vec<String>, StoreError> {
    Ok(mutes::table
        .filter(mutes::user_id.eq(user))
        .select(mutes::muted_id)
        .load(conn)?)
}

/// The ids, among `users_`, of those who muted `sender`.
pub fn muting(
    conn: &mut DbConnection,
    sender: &UserId,
    among: &[UserId],
) -> Result<Vec<UserId>, StoreError> {
    Ok(mutes::table
        .filter(mutes::muted_id.eq(sender))
        .filter(mutes::user_id.eq_any(among))
        .select(mutes::user_id)
        .load(conn)?)
}

/// Mutes (idempotent).
pub fn mute(
    conn: &mut DbConnection,
    user: &UserId,
    muted: &UserId,
    at: NaiveDateTime,
) -> Result<(), StoreError> {
    let exists = mutes::table
        .find((user, muted))
        .count()
        .get_result::<i64>(conn)?
        > 0;
    if !exists {
        match diesel::insert_into(mutes::table)
            .values((
                mutes::user_id.eq(user),
                mutes::muted_id.eq(muted),
                mutes::created_at.eq(at),
            ))
            .execute(conn)
        {
            Ok(_)
            | Err(diesel::result::Error::DatabaseError(
                diesel::result::DatabaseErrorKind::UniqueViolation,
                _,
            )) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

/// Unmutes; `false`: was not muted.
pub fn unmute(conn: &mut DbConnection, user: &UserId, muted: &UserId) -> Result<bool, StoreError> {
    Ok(diesel::delete(mutes::table.find((user, muted))).execute(conn)? > 0)
}

/// The accounts `user` muted: (username, since), oldest first.
pub fn mutes_of(
    conn: &mut DbConnection,
    user: &UserId,
) -> Result<Vec<(String, NaiveDateTime)>, StoreError> {
    Ok(mutes::table
        .inner_join(users::table.on(users::id.eq(mutes::muted_id)))
        .filter(mutes::user_id.eq(user))
        .order(mutes::created_at.asc())
        .select((users::username, mutes::created_at))
        .load(conn)?)
}

/// Stores a report; `false`: this reporter already reported this message.
pub fn report(conn: &mut DbConnection, row: &ReportRow) -> Result<bool, StoreError> {
    match diesel::insert_into(message_reports::table)
        .values(row)
        .execute(conn)
    {
        Ok(_) => Ok(true),
        Err(diesel::result::Error::DatabaseError(
            diesel::result::DatabaseErrorKind::UniqueViolation,
            _,
        )) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// The reports of a message (for the operator and tests).
pub fn reports_of(
    conn: &mut DbConnection,
    message: &MessageId,
) -> Result<Vec<ReportRow>, StoreError> {
    Ok(message_reports::table
        .filter(message_reports::message_id.eq(message))
        .order(message_reports::created_at.asc())
        .select(ReportRow::as_select())
        .load(conn)?)
}

/// The messages `user` wrote, in every game, oldest first (the account export).
pub fn written_by(conn: &mut DbConnection, user: &UserId) -> Result<Vec<MessageRow>, StoreError> {
    Ok(messages::table
        .filter(messages::sender_id.eq(user))
        .order((messages::created_at.asc(), messages::id.asc()))
        .select(MessageRow::as_select())
        .load(conn)?)
}

/// The reports `user` made, oldest first (the account export).
pub fn reports_by(conn: &mut DbConnection, user: &UserId) -> Result<Vec<ReportRow>, StoreError> {
    Ok(message_reports::table
        .filter(message_reports::reporter_id.eq(user))
        .order((message_reports::created_at.asc(), message_reports::id.asc()))
        .select(ReportRow::as_select())
        .load(conn)?)
}
