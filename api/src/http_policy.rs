//! HTTP details every route shares, as middleware and the CORS set-up:
//!
//! - `HEAD` on any `GET` resource (RFC 9110 9.3.2): the request is routed as `GET` and the
//!   connection sends the headers without the body.
//! - `OPTIONS` on a documented path: 204 with `Allow` (CORS preflights are answered by the
//!   CORS layer first when origins are configured).
//! - `Cache-Control: no-store` on every answer of the account resources (`/v1/accounts`,
//!   `/v1/sessions...`, `/v1/me...`): they carry tokens, or private data.
//! - `X-Content-Type-Options: nosniff` on every answer.
//! - A request head (request line and headers) over [`MAX_HEAD_BYTES`] or with more than
//!   [`MAX_HEADERS`] headers: `431 headers-too-large` as problem+json. (Heads beyond the
//!   HTTP codec's own limits, 128 KiB or 96 headers, are answered by the codec with a
//!   bare 431 before any middleware runs.)
//! - CORS: origins allowed by `DJAMBI_CORS_ORIGINS` (none by default: no CORS headers at
//!   all, so browsers keep other origins out); same-origin and non-browser requests are
//!   never refused by it.

use actix_cors::Cors;
use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::{Method, header};
use actix_web::middleware::Next;
use actix_web::{HttpResponse, ResponseError};

use crate::error::ApiError;

/// The largest request head read: the request line and every header, names and values.
pub const MAX_HEAD_BYTES: usize = 32 * 1024;
/// The most headers a request may carry.
pub const MAX_HEADERS: usize = 64;

/// Why a head is refused, if it is.
fn head_too_large(req: &ServiceRequest) -> Option<String> {
    let count = req.headers().len();
    if count > MAX_HEADERS {
        return Some(format!(
            "the request has {count} headers; at most {MAX_HEADERS} are read"
        ));
    }
    let size = req.method().as_str().len()
        + req.uri().to_string().len()
        + req
            .headers()
            .iter()
            .map(|(n, v)| n.as_str().len() + v.len() + 4)
            .sum::<usize>();
    (size > MAX_HEAD_BYTES)
        .then(|| format!("the request head is {size} bytes; at most {MAX_HEAD_BYTES} are read"))
}

/// Paths whose answers are never stored by caches.
const NO_STORE_PREFIXES: &[&str] = &["/v1/accounts", "/v1/sessions", "/v1/me"];

fn no_store(path: &str) -> bool {
    NO_STORE_PREFIXES
        .iter()
        .any(|p| path == *p || path.strip_prefix(p).is_some_and(|r| r.starts_with('/')))
}

/// The methods a documented path answers, with `HEAD` beside `GET`, and `OPTIONS`.
pub fn allowed_methods(path: &str) -> Vec<&'static str> {
    let mut methods = crate::openapi::methods_of(path);
    if methods.is_empty() {
        return methods;
    }
    if methods.contains(&"GET") {
        methods.insert(1, "HEAD");
    }
    methods.push("OPTIONS");
    methods
}

/// The middleware (use with `actix_web::middleware::from_fn`).
pub async fn policy(
    mut req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    let method = req.method().clone();
    if let Some(why) = head_too_large(&req) {
        let mut response = ApiError::HeadersTooLarge(why).error_response();
        nosniff(response.headers_mut());
        return Ok(req.into_response(response).map_into_right_body());
    }
    if method == Method::OPTIONS {
        let allowed = allowed_methods(req.path());
        let response = if allowed.is_empty() {
            ApiError::NotFound(format!("no route for OPTIONS {}", req.path())).error_response()
        } else {
            HttpResponse::NoContent()
                .insert_header((header::ALLOW, allowed.join(", ")))
                .finish()
        };
        let mut response = response;
        nosniff(response.headers_mut());
        return Ok(req.into_response(response).map_into_right_body());
    }
    if method == Method::HEAD {
        // Routed as GET; actix-http knows the request was HEAD and sends no body.
        req.head_mut().method = Method::GET;
    }
    let path_no_store = no_store(req.path());
    let mut res = next.call(req).await?;
    if path_no_store && !res.headers().contains_key(header::CACHE_CONTROL) {
        res.headers_mut().insert(
            header::CACHE_CONTROL,
            header::HeaderValue::from_static("no-store"),
        );
    }
    nosniff(res.headers_mut());
    Ok(res.map_into_left_body())
}

fn nosniff(headers: &mut header::HeaderMap) {
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        header::HeaderValue::from_static("nosniff"),
    );
}

/// The CORS layer for the configured origins. With none, it is built but disabled by the
/// caller (`middleware::Condition`).
pub fn cors(origins: &[String]) -> Cors {
    let mut cors = Cors::default()
        .allowed_methods([
            Method::GET,
            Method::HEAD,
            Method::POST,
            Method::PUT,
            Method::PATCH,
            Method::DELETE,
        ])
        .allowed_headers([
            header::AUTHORIZATION,
            header::CONTENT_TYPE,
            header::IF_MATCH,
            header::IF_NONE_MATCH,
            header::HeaderName::from_static("idempotency-key"),
            header::HeaderName::from_static("last-event-id"),
        ])
        .expose_headers([
            header::ETAG,
            header::LOCATION,
            header::RETRY_AFTER,
            header::WWW_AUTHENTICATE,
            header::ALLOW,
        ])
        .max_age(3600)
        .block_on_origin_mismatch(false);
    for origin in origins {
        cors = cors.allowed_origin(origin);
    }
    cors
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_store_paths() {
        for p in [
            "/v1/sessions",
            "/v1/sessions/refresh",
            "/v1/me",
            "/v1/me/tokens/x",
        ] {
            assert!(no_store(p), "{p}");
        }
        for p in ["/v1/games", "/v1/meh", "/healthz"] {
            assert!(!no_store(p), "{p}");
        }
    }
}
