//! Logs and per-request context.
//!
//! - [`init_logging`]: `tracing` to standard error, filtered by `RUST_LOG` (default `info`),
//!   as text or, with `DJAMBI_LOG_FORMAT=json`, one JSON object a line (the request's span
//!   fields, `request_id` among them, under `span`).
//! - [`observe`], a middleware around every request: the request id (the client's
//!   `X-Request-Id` if it is a sane token, else a new UUID), the `request` span every log
//!   line of the request is written in, one access-log line (target `djambi::access`), the
//!   HTTP metrics, `X-Request-Id` on the answer, and `request_id` added to every
//!   `application/problem+json` body. While the server drains (see [`crate::shutdown`]) it
//!   answers `/readyz` with 503 and closes each connection after its answer.

use std::time::Instant;

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderName, HeaderValue};
use actix_web::http::{ConnectionType, Method, StatusCode};
use actix_web::middleware::Next;
use actix_web::{HttpMessage, ResponseError, web};
use tracing::Instrument;

use crate::config::LogFormat;
use crate::error::{ApiError, PROBLEM_JSON};
use crate::metrics::{MOVES_ROUTE, UNMATCHED_ROUTE};
use crate::state::AppState;

/// The header a request id is taken from and echoed in.
pub const REQUEST_ID_HEADER: HeaderName = HeaderName::from_static("x-request-id");
/// The longest client-supplied request id kept (a longer one is replaced).
pub const MAX_REQUEST_ID_LEN: usize = 128;

/// The request's id, in the request's extensions (`req.extensions().get::<RequestId>()`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestId(pub String);

/// Installs the global `tracing` subscriber. Call once, early in `main`.
pub fn init_logging(format: LogFormat) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(std::io::stderr);
    match format {
        LogFormat::Text => builder.init(),
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .with_span_list(false)
            .init(),
    }
}

/// The id to use for a request: the client's if it is 1 to 128 visible ASCII characters
/// from a safe set, else a new UUID.
pub fn request_id_from(given: Option<&HeaderValue>) -> String {
    given
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|s| {
            !s.is_empty()
                && s.len() <= MAX_REQUEST_ID_LEN
                && s.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_.:/+=@".contains(&b))
        })
        .map(str::to_string)
        .unwrap_or_else(|| uuid::Uuid::new_v4().to_string())
}

/// The path segments that follow these are secrets (links sent by mail): they are never
/// written to the log.
const SECRET_AFTER: &[&str] = &["unsubscribe", "email-verification", "password-resets"];

/// What the request span logs of a path: the path, with any secret segment (the token of
/// an unsubscribe, e-mail verification or password reset link) replaced by `{token}`.
/// (The access line logs the route template besides.)
pub fn loggable_path(path: &str) -> std::borrow::Cow<'_, str> {
    let segments: Vec<&str> = path.split('/').collect();
    let secret = |i: usize| {
        i > 0
            && SECRET_AFTER
                .iter()
                .any(|s| segments[i - 1].eq_ignore_ascii_case(s))
            && !segments[i].is_empty()
    };
    if !(0..segments.len()).any(secret) {
        return path.into();
    }
    segments
        .iter()
        .enumerate()
        .map(|(i, seg)| if secret(i) { "{token}" } else { seg })
        .collect::<Vec<_>>()
        .join("/")
        .into()
}

/// The middleware (use with `actix_web::middleware::from_fn`, inside `Compress` so that it
/// sees problem bodies uncompressed).
pub async fn observe(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let started = Instant::now();
    let id = request_id_from(req.headers().get(&REQUEST_ID_HEADER));
    req.extensions_mut().insert(RequestId(id.clone()));
    let state = req.app_data::<web::Data<AppState>>().cloned();
    let method = req.method().clone();
    let span = tracing::info_span!(
        "request",
        request_id = %id,
        method = %method,
        path = %loggable_path(req.path()),
    );
    let draining = state.as_ref().is_some_and(|s| s.shutdown.is_draining());
    if let Some(s) = &state {
        s.metrics.request_started();
    }

    let res = if draining && req.path() == "/readyz" {
        let err = ApiError::Unavailable("the server is shutting down".into());
        req.into_response(err.error_response())
    } else {
        match next.call(req).instrument(span.clone()).await {
            Ok(res) => res.map_into_boxed_body(),
            Err(e) => {
                // Not expected (handlers and extractors answer errors as responses), and no
                // request is left to build a response with: count it and pass it on.
                let status = e.as_response_error().status_code();
                if let Some(s) = &state {
                    s.metrics.request_finished(
                        method.as_str(),
                        UNMATCHED_ROUTE,
                        status.as_u16(),
                        started.elapsed(),
                    );
                }
                span.in_scope(|| tracing::warn!(error = %e, "request failed in a middleware"));
                return Err(e);
            }
        }
    };

    let status = res.status();
    let route = res
        .request()
        .match_pattern()
        .unwrap_or_else(|| UNMATCHED_ROUTE.to_string());
    let took = started.elapsed();
    if let Some(s) = &state {
        s.metrics
            .request_finished(method.as_str(), &route, status.as_u16(), took);
        if method == Method::POST
            && status == StatusCode::CREATED
            && route == MOVES_ROUTE
            && !res.headers().contains_key("idempotent-replayed")
        {
            s.metrics.move_played();
        }
    }
    span.in_scope(|| {
        tracing::info!(
            target: "djambi::access",
            status = status.as_u16(),
            route = %route,
            latency_ms = took.as_secs_f64() * 1000.0,
            "answered"
        )
    });

    let mut res = if is_problem(&res) {
        add_request_id_to_problem(res, &id).await?
    } else {
        res
    };
    if let Ok(v) = HeaderValue::from_str(&id) {
        res.headers_mut().insert(REQUEST_ID_HEADER, v);
    }
    // Checked again: the stop may have begun while this request ran.
    if state.as_ref().is_some_and(|s| s.shutdown.is_draining()) {
        res.response_mut()
            .head_mut()
            .set_connection_type(ConnectionType::Close);
    }
    Ok(res)
}

fn is_problem(res: &ServiceResponse<BoxBody>) -> bool {
    res.headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with(PROBLEM_JSON))
}

/// Appends `"request_id": id` to a problem+json object (keeping its members in order).
async fn add_request_id_to_problem(
    res: ServiceResponse<BoxBody>,
    id: &str,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let (req, res) = res.into_parts();
    let (head, body) = res.into_parts();
    let bytes = actix_web::body::to_bytes(body)
        .await
        .map_err(|e| actix_web::error::ErrorInternalServerError(e.to_string()))?;
    let body = with_request_id(&bytes, id).unwrap_or_else(|| bytes.to_vec());
    Ok(ServiceResponse::new(req, head.set_body(BoxBody::new(body))))
}

/// The JSON object `body` with `request_id` appended, or `None` if `body` is not an object
/// or already has one.
pub fn with_request_id(body: &[u8], id: &str) -> Option<Vec<u8>> {
    let value: serde_json::Value = serde_json::from_slice(body).ok()?;
    let object = value.as_object()?;
    if object.contains_key("request_id") {
        return None;
    }
    let text = std::str::from_utf8(body).ok()?.trim_end();
    let open = text.strip_suffix('}')?;
    let mut out = String::with_capacity(text.len() + id.len() + 20);
    out.push_str(open);
    if !object.is_empty() {
        out.push(',');
    }
    out.push_str("\"request_id\":");
    out.push_str(&serde_json::to_string(id).ok()?);
    out.push('}');
    Some(out.into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_ids_are_kept_when_sane() {
        let v = HeaderValue::from_static("abc-123_x.y");
        assert_eq!(request_id_from(Some(&v)), "abc-123_x.y");
        for bad in ["", "has space", "quote\"", &"x".repeat(129)] {
            let v = HeaderValue::from_str(bad).unwrap();
            let made = request_id_from(Some(&v));
            assert_ne!(made, bad);
            assert!(uuid::Uuid::parse_str(&made).is_ok());
        }
        assert!(uuid::Uuid::parse_str(&request_id_from(None)).is_ok());
    }

    #[test]
    fn secret_path_segments_are_not_logged() {
        assert_eq!(
            loggable_path("/v1/unsubscribe/u1.Zm9vYmFy"),
            "/v1/unsubscribe/{token}"
        );
        assert_eq!(
            loggable_path("/v1/email-verification/abc"),
            "/v1/email-verification/{token}"
        );
        assert_eq!(
            loggable_path("/v1/password-resets/xyz/"),
            "/v1/password-resets/{token}/"
        );
        assert_eq!(
            loggable_path("//V1/Unsubscribe/s3cr3t"),
            "//V1/Unsubscribe/{token}"
        );
        assert_eq!(loggable_path("/v1/password-resets"), "/v1/password-resets");
        assert_eq!(loggable_path("/v1/games/g1/moves"), "/v1/games/g1/moves");
    }

    #[test]
    fn problems_get_the_request_id_last() {
        let body = br#"{"type":"/problems/x","status":400}"#;
        let out = with_request_id(body, "r-1").unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"type":"/problems/x","status":400,"request_id":"r-1"}"#
        );
        assert_eq!(
            with_request_id(b"{}", "r").unwrap(),
            br#"{"request_id":"r"}"#
        );
        assert_eq!(with_request_id(b"[1]", "r"), None);
        assert_eq!(with_request_id(br#"{"request_id":"a"}"#, "r"), None);
    }
}
