//! The request-body limit (`DJAMBI_MAX_BODY_BYTES`), applied before any handler runs.
//!
//! The body is read here, up to the limit, and handed on to the extractors. A larger body is
//! answered with a 413 `payload-too-large` problem, but only after reading (and discarding)
//! the rest of it up to a cap: a server that answers early and closes a connection with
//! unread data makes the client's kernel see a reset instead of the 413.
//!
//! Reading is bounded in time too: the whole body must arrive within
//! `DJAMBI_BODY_TIMEOUT` and no pause between two pieces may be longer than
//! `DJAMBI_BODY_IDLE_TIMEOUT` (actix's `client_request_timeout` covers only the head).
//! Past either, the answer is a 408 `request-timeout` problem and the connection is closed,
//! so a client trickling a body one byte at a time holds a connection for seconds, not for
//! ever.

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use std::time::{Duration, Instant};

use actix_web::http::{ConnectionType, header};
use actix_web::middleware::Next;
use actix_web::{HttpMessage, ResponseError, web};
use futures_util::StreamExt;

use crate::error::ApiError;
use crate::state::AppState;

/// The route whose body may be larger than the limit: `POST /v1/games/import`.
const IMPORT_PATH: &str = "/v1/games/import";

/// Read and discard at most this many times the limit before giving up on a huge body.
const DRAIN_FACTOR: usize = 16;

/// Middleware (use with `actix_web::middleware::from_fn`).
pub async fn limit_body(
    mut req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    let (limit, total, idle) = req
        .app_data::<web::Data<AppState>>()
        .map(|s| {
            (
                s.config.max_body_bytes,
                s.config.body_timeout,
                s.config.body_idle_timeout,
            )
        })
        .unwrap_or((64 * 1024, Duration::from_secs(10), Duration::from_secs(5)));
    // A game record may be larger than any other body (the route checks its own limit).
    let limit = if req.path() == IMPORT_PATH {
        limit.max(crate::routes::games::MAX_IMPORT_BODY_BYTES)
    } else if req.path() == crate::routes::inbound_mail::PATH {
        crate::mail_moves::message::MAX_BYTES
    } else {
        limit
    };
    let headers = req.headers();
    let declared: Option<usize> = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse().ok());
    let chunked = headers.contains_key(header::TRANSFER_ENCODING);
    if declared.unwrap_or(0) == 0 && !chunked {
        return next
            .call(req)
            .await
            .map(ServiceResponse::map_into_left_body);
    }

    let mut too_big = declared.is_some_and(|n| n > limit);
    let cap = limit.saturating_mul(DRAIN_FACTOR).max(1 << 20);
    let mut body = web::BytesMut::new();
    let mut seen = 0usize;
    let mut payload = req.take_payload();
    let deadline = Instant::now() + total;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let wait = idle.min(left);
        let next = match actix_web::rt::time::timeout(wait, payload.next()).await {
            Ok(next) => next,
            Err(_) => {
                let why = if wait < idle {
                    format!(
                        "the request body did not arrive within {} s",
                        total.as_secs_f64()
                    )
                } else {
                    format!(
                        "the request body paused for more than {} s",
                        idle.as_secs_f64()
                    )
                };
                tracing::info!(received = seen, "{why}; closing the connection");
                let mut res = ApiError::RequestTimeout(why).error_response();
                res.head_mut().set_connection_type(ConnectionType::Close);
                return Ok(req.into_response(res).map_into_right_body());
            }
        };
        let Some(chunk) = next else { break };
        let chunk = match chunk {
            Ok(c) => c,
            Err(e) => {
                let err = ApiError::field("body", format!("could not read the body: {e}"));
                return Ok(req
                    .into_response(err.error_response())
                    .map_into_right_body());
            }
        };
        seen = seen.saturating_add(chunk.len());
        if seen > limit {
            too_big = true;
        }
        if too_big {
            if seen > cap {
                break;
            }
        } else {
            body.extend_from_slice(&chunk);
        }
    }
    if too_big {
        let err = ApiError::PayloadTooLarge { limit };
        return Ok(req
            .into_response(err.error_response())
            .map_into_right_body());
    }
    req.set_payload(Payload::from(body.freeze()));
    next.call(req)
        .await
        .map(ServiceResponse::map_into_left_body)
}
