//! The storage of `Idempotency-Key` answers (the HTTP side, reading the header and
//! hashing the request, is in `routes::games::write`).
//!
//! A write that carries a key stores its answer (status and body) under (user, key) in
//! the same transaction as the write itself, with a hash of the request. A later request
//! of the same user with the same key gets the stored answer again if it is the same
//! request, or is refused if it is another. Only successful writes are stored. Answers
//! are kept for `DJAMBI_IDEMPOTENCY_RETENTION` (the [`crate::workers::janitor`] forgets older ones).

use diesel::prelude::*;

use super::StoreError;
use crate::store::DbConnection;
use crate::store::schema::idempotency_keys;

/// An idempotent request: who, which key, and the request's hash.
#[derive(Debug, Clone)]
pub struct IdemKey {
    pub user_id: String,
    pub key: String,
    pub hash: String,
}

/// A stored answer.
#[derive(Debug, Clone)]
pub struct StoredAnswer {
    pub status: u16,
    pub body: serde_json::Value,
}

/// What the store knows of a key.
#[derive(Debug)]
pub enum Lookup {
    New,
    /// The same request was answered: answer it the same way.
    Replay(StoredAnswer),
    /// The key was used for another request.
    Reused,
}

pub fn lookup(conn: &mut DbConnection, key: &IdemKey) -> Result<Lookup, StoreError> {
    let row: Option<(String, i32, String)> = idempotency_keys::table
        .find((&key.user_id, &key.key))
        .select((
            idempotency_keys::request_hash,
            idempotency_keys::status,
            idempotency_keys::response_body,
        ))
        .first(conn)
        .optional()?;
    let Some((hash, status, body)) = row else {
        return Ok(Lookup::New);
    };
    if hash != key.hash {
        return Ok(Lookup::Reused);
    }
    let status = u16::try_from(status)
        .map_err(|_| StoreError::Corrupt(format!("stored status {status}")))?;
    let body = serde_json::from_str(&body)
        .map_err(|e| StoreError::Corrupt(format!("stored answer: {e}")))?;
    Ok(Lookup::Replay(StoredAnswer { status, body }))
}

/// Stores the answer (inside the write's transaction). A twin that stored first makes
/// this fail with [`StoreError::VersionMoved`] (a unique violation), rolling the write back.
pub fn store(
    conn: &mut DbConnection,
    key: &IdemKey,
    answer: &StoredAnswer,
    at: chrono::NaiveDateTime,
) -> Result<(), StoreError> {
    diesel::insert_into(idempotency_keys::table)
        .values((
            idempotency_keys::user_id.eq(&key.user_id),
            idempotency_keys::key.eq(&key.key),
            idempotency_keys::request_hash.eq(&key.hash),
            idempotency_keys::status.eq(i32::from(answer.status)),
            idempotency_keys::response_body.eq(answer.body.to_string()),
            idempotency_keys::created_at.eq(at),
        ))
        .execute(conn)?;
    Ok(())
}

/// Forgets every stored answer older than `cutoff`; returns how many.
pub fn purge_before(
    conn: &mut DbConnection,
    cutoff: chrono::NaiveDateTime,
) -> Result<usize, StoreError> {
    Ok(
        diesel::delete(idempotency_keys::table.filter(idempotency_keys::created_at.lt(cutoff)))
            .execute(conn)?,
    )
}
