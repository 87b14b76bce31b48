//! `mail_move_tokens` (the reply tokens of turn mails: their hash only) and
//! `inbound_mails` (the Message-IDs of the replies seen).

use chrono::NaiveDateTime;
use diesel::prelude::*;

use super::schema::{inbound_mails as im, mail_move_tokens as t};
use super::{DbConnection, StoreError};
use crate::ids::{GameId, UserId};

#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = t)]
pub struct MailTokenRow {
    pub token_hash: String,
    pub notification_id: String,
    pub game_id: GameId,
    /// The seat's letter (`R`, `B`, `Y`, `G`).
    pub seat: String,
    pub user_id: UserId,
    pub version: i64,
    pub created_at: NaiveDateTime,
    pub expires_at: NaiveDateTime,
    pub used_at: Option<NaiveDateTime>,
    pub failures: i32,
}

/// Inserts a token unless its hash is already stored (a mail composed again).
pub fn insert_once(conn: &mut DbConnection, row: &MailTokenRow) -> Result<(), StoreError> {
    if find(conn, &row.token_hash)?.is_some() {
        return Ok(());
    }
    match diesel::insert_into(t::table).values(row).execute(conn) {
        Ok(_) => Ok(()),
        // A racing composer stored the same row.
        Err(diesel::result::Error::DatabaseError(
            diesel::result::DatabaseErrorKind::UniqueViolation,
            _,
        )) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

pub fn find(conn: &mut DbConnection, token_hash: &str) -> Result<Option<MailTokenRow>, StoreError> {
    Ok(t::table
        .filter(t::token_hash.eq(token_hash))
        .select(MailTokenRow::as_select())
        .first(conn)
        .optional()?)
}

/// Marks a token used unless it already is; whether this call marked it.
pub fn mark_used(
    conn: &mut DbConnection,
    token_hash: &str,
    now: NaiveDateTime,
) -> Result<bool, StoreError> {
    let n = diesel::update(
        t::table
            .filter(t::token_hash.eq(token_hash))
            .filter(t::used_at.is_null()),
    )
    .set(t::used_at.eq(Some(now)))
    .execute(conn)?;
    Ok(n == 1)
}

/// Counts one refused reply; the new count.
pub fn add_failure(conn: &mut DbConnection, token_hash: &str) -> Result<i32, StoreError> {
    diesel::update(t::table.filter(t::token_hash.eq(token_hash)))
        .set(t::failures.eq(t::failures + 1))
        .execute(conn)?;
    Ok(t::table
        .filter(t::token_hash.eq(token_hash))
        .select(t::failures)
        .first(conn)?)
}

/// Whether a Message-ID was recorded (an authenticated reply seen before).
pub fn seen(conn: &mut DbConnection, message_id: &str) -> Result<bool, StoreError> {
    Ok(im::table
        .filter(im::message_id.eq(message_id))
        .count()
        .get_result::<i64>(conn)?
        > 0)
}

/// Forgets the address of a closed account in the replies it sent (the rate limits keyed
/// by it): the rows stay, so a Message-ID is still applied once.
pub fn erase_sender(conn: &mut DbConnection, address: &str) -> Result<usize, StoreError> {
    let address = address.trim().to_ascii_lowercase();
    if address.is_empty() {
        return Ok(0);
    }
    Ok(
        diesel::update(im::table.filter(im::sender.eq(Some(address))))
            .set(im::sender.eq(None::<String>))
            .execute(conn)?,
    )
}

/// Records a Message-ID (of an authenticated reply); `false` when it was seen before.
pub fn first_sight(
    conn: &mut DbConnection,
    message_id: &str,
    now: NaiveDateTime,
    outcome: &str,
) -> Result<bool, StoreError> {
    if seen(conn, message_id)? {
        return Ok(false);
    }
    match diesel::insert_into(im::table)
        .values((
            im::message_id.eq(message_id),
            im::received_at.eq(now),
            im::outcome.eq(outcome),
        ))
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

/// Sets what a recorded message led to.
pub fn set_outcome(
    conn: &mut DbConnection,
    message_id: &str,
    outcome: &str,
) -> Result<(), StoreError> {
    diesel::update(im::table.filter(im::message_id.eq(message_id)))
        .set(im::outcome.eq(outcome))
        .execute(conn)?;
    Ok(())
}

/// How many answers of errors were queued since `since` (the global cap).
pub fn errors_since(conn: &mut DbConnection, since: NaiveDateTime) -> Result<i64, StoreError> {
    Ok(im::table
        .filter(im::received_at.ge(since))
        .filter(im::outcome.like("error:%"))
        .count()
        .get_result(conn)?)
}

/// Makes a token good again (its command was refused after the token was marked).
pub fn unuse(conn: &mut DbConnection, token_hash: &str) -> Result<(), StoreError> {
    diesel::update(t::table.filter(t::token_hash.eq(token_hash)))
        .set(t::used_at.eq(None::<NaiveDateTime>))
        .execute(conn)?;
    Ok(())
}

/// Makes a used token good again for the game's new `version` (a draw offer or decline
/// by mail leaves the same turn to play).
pub fn rearm(conn: &mut DbConnection, token_hash: &str, version: i64) -> Result<(), StoreError> {
    diesel::update(t::table.filter(t::token_hash.eq(token_hash)))
        .set((t::used_at.eq(None::<NaiveDateTime>), t::version.eq(version)))
        .execute(conn)?;
    Ok(())
}

/// What an authenticated reply is counted under (the rate limits).
#[derive(Debug, Clone, Copy)]
pub enum LimitKey<'a> {
    Token(&'a str),
    Seat(&'a str),
    Sender(&'a str),
}

/// Records what a reply is counted under.
pub fn set_keys(
    conn: &mut DbConnection,
    message_id: &str,
    token_hash: &str,
    seat_key: &str,
    sender: &str,
) -> Result<(), StoreError> {
    diesel::update(im::table.filter(im::message_id.eq(message_id)))
        .set((
            im::token_hash.eq(Some(token_hash)),
            im::seat_key.eq(Some(seat_key)),
            im::sender.eq(Some(sender)),
        ))
        .execute(conn)?;
    Ok(())
}

/// How many replies counted under `key` were received since `since`.
pub fn count_since(
    conn: &mut DbConnection,
    key: LimitKey<'_>,
    since: NaiveDateTime,
) -> Result<i64, StoreError> {
    let recent = im::table.filter(im::received_at.ge(since)).into_boxed();
    let q = match key {
        LimitKey::Token(k) => recent.filter(im::token_hash.eq(k)),
        LimitKey::Seat(k) => recent.filter(im::seat_key.eq(k)),
        LimitKey::Sender(k) => recent.filter(im::sender.eq(k)),
    };
    Ok(q.count().get_result(conn)?)
}
