//! The storage of `Idempotency-Key` answers (the HTTP side, reading the header and
//! hashing the request, is in `routes::games::write`).
//!
//! A write that carries a key stores its answer (the body) under (user, key) in
//! the same transaction as the write itself, with a hash of the request. A later request
//! of the same user with the same key gets the stored answer again if it is the same
//! request, or is refused if it is another. Only successful writes are stored. Answers
//! are kept for `DJAMBI_IDEMPOTENCY_RETENTION` (the [`crate::workers::janitor`] forgets older ones).

use diesel::prelude::*;

use super::StoreError;
use crate::ids::UserId;
use crate::store::DbConnection;
use crate::store::schema::idempotency_keys;

/// What the store knows of a key.
#[derive(Debug)]
pub enum Lookup {
    New,
    /// The same request was answered: answer it the same way (the stored body).
    Replay(serde_json::Value),
    /// The key was used for another request.
    Reused,
}

/// The stored answer under (`user_id`, `key`), if the request with hash `request_hash`
/// was answered before.
pub fn lookup(
    conn: &mut DbConnection,
    user_id: &UserId,
    key: &str,
    request_hash: &str,
) -> Result<Lookup, StoreError> {
    let row: Option<(String, String)> = idempotency_keys::table
        .find((user_id, key))
        .select((
            idempotency_keys::request_hash,
            idempotency_keys::response_body,
        ))
        .first(conn)
        .optional()?;
    let Some((hash, body)) = row else {
        return Ok(Lookup::New);
    };
    if hash != request_hash {
        return Ok(Lookup::Reused);
    }
    let body = serde_json::from_str(&body)
        .map_err(|e| StoreError::Corrupt(format!("stored answer: {e}")))?;
    Ok(Lookup::Replay(body))
}

/// Stores the answer (inside the write's transaction). A twin that stored first makes
/// this fail with [`StoreError::VersionMoved`] (a unique violation), rolling the write back.
pub fn store(
    conn: &mut DbConnection,
    user_id: &UserId,
    key: &str,
    request_hash: &str,
    answer: &serde_json::Value,
    at: chrono::NaiveDateTime,
) -> Result<(), StoreError> {
    diesel::insert_into(idempotency_keys::table)
        .values((
            idempotency_keys::user_id.eq(user_id),
            idempotency_keys::key.eq(key),
            idempotency_keys::request_hash.eq(request_hash),
            idempotency_keys::response_body.eq(answer.to_string()),
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
