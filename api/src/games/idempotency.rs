//! `Idempotency-Key` on writes.
//!
//! A write that carries the header stores its response (status and body) under
//! (user, key) in the same transaction as the write itself, with a hash of the request
//! (method, path, `If-Match` and body bytes). A later request of the same user with the
//! same key:
//! - and the same request: gets the stored response again (header
//!   `Idempotent-Replayed: true`) and writes nothing;
//! - and a different request: `422 idempotency-key-reused`.
//!
//! Only successful writes are stored (a failed request wrote nothing, so retrying it
//! simply runs it again). Keys are scoped per user; they are 1 to 255 visible ASCII
//! characters. Answers are kept for `DJAMBI_IDEMPOTENCY_RETENTION` (24 hours by
//! default): the [`crate::janitor`] forgets older ones, after which the key is new again.

use actix_web::HttpRequest;
use actix_web::http::{StatusCode, header};
use diesel::prelude::*;
use sha2::{Digest, Sha256};

use crate::db::{self, DbConnection};
use crate::error::ApiError;
use crate::schema::idempotency_keys;

pub const HEADER: &str = "Idempotency-Key";
pub const MAX_KEY_LEN: usize = 255;

/// An idempotent request: who, which key, and the request's hash.
#[derive(Debug, Clone)]
pub struct IdemRequest {
    pub user_id: String,
    pub key: String,
    pub hash: String,
}

/// A stored (or about to be stored) response.
#[derive(Debug, Clone)]
pub struct StoredResponse {
    pub status: StatusCode,
    pub body: serde_json::Value,
}

/// Reads the `Idempotency-Key` header: `None` without it, 400 when malformed.
pub fn from_request(
    req: &HttpRequest,
    user_id: &str,
    body: &[u8],
) -> Result<Option<IdemRequest>, ApiError> {
    let Some(value) = req.headers().get(HEADER) else {
        return Ok(None);
    };
    let key = value
        .to_str()
        .ok()
        .map(str::trim)
        .filter(|k| {
            !k.is_empty() && k.len() <= MAX_KEY_LEN && k.bytes().all(|b| b.is_ascii_graphic())
        })
        .ok_or_else(|| {
            ApiError::field(
                HEADER,
                format!("must be 1 to {MAX_KEY_LEN} visible ASCII characters"),
            )
        })?;
    let mut h = Sha256::new();
    h.update(req.method().as_str().as_bytes());
    h.update(b" ");
    h.update(req.path().as_bytes());
    h.update(b"\n");
    if let Some(m) = req.headers().get(header::IF_MATCH) {
        h.update(m.as_bytes());
    }
    h.update(b"\n");
    h.update(body);
    Ok(Some(IdemRequest {
        user_id: user_id.to_string(),
        key: key.to_string(),
        hash: hex::encode(h.finalize()),
    }))
}

/// The stored response for this key: `Some` to replay it, 422 if the key was used for
/// another request, `None` if the key is new.
pub fn lookup(
    conn: &mut DbConnection,
    req: &IdemRequest,
) -> Result<Option<StoredResponse>, ApiError> {
    let row: Option<(String, i32, String)> = idempotency_keys::table
        .find((&req.user_id, &req.key))
        .select((
            idempotency_keys::request_hash,
            idempotency_keys::status,
            idempotency_keys::response_body,
        ))
        .first(conn)
        .optional()?;
    let Some((hash, status, body)) = row else {
        return Ok(None);
    };
    if hash != req.hash {
        return Err(ApiError::IdempotencyKeyReused(format!(
            "the Idempotency-Key {:?} was already used for a different request",
            req.key
        )));
    }
    let status = u16::try_from(status)
        .ok()
        .and_then(|s| StatusCode::from_u16(s).ok())
        .ok_or_else(|| ApiError::internal("bad stored status"))?;
    let body = serde_json::from_str(&body)
        .map_err(|e| ApiError::internal(format!("bad stored response: {e}")))?;
    Ok(Some(StoredResponse { status, body }))
}

/// Stores the response (inside the write's transaction).
pub fn store(
    conn: &mut DbConnection,
    req: &IdemRequest,
    response: &StoredResponse,
) -> Result<(), diesel::result::Error> {
    diesel::insert_into(idempotency_keys::table)
        .values((
            idempotency_keys::user_id.eq(&req.user_id),
            idempotency_keys::key.eq(&req.key),
            idempotency_keys::request_hash.eq(&req.hash),
            idempotency_keys::status.eq(i32::from(response.status.as_u16())),
            idempotency_keys::response_body.eq(response.body.to_string()),
            idempotency_keys::created_at.eq(db::now()),
        ))
        .execute(conn)?;
    Ok(())
}

/// Forgets every stored answer older than `cutoff`; returns how many.
pub fn purge_before(
    conn: &mut DbConnection,
    cutoff: chrono::NaiveDateTime,
) -> Result<usize, diesel::result::Error> {
    diesel::delete(idempotency_keys::table.filter(idempotency_keys::created_at.lt(cutoff)))
        .execute(conn)
}
