//! HTTP details every route shares, as middleware and the CORS set-up:
//!
//! - `HEAD` on any `GET` resource (RFC 9110 9.3.2): the request is routed as `GET` and the
//!   connection sends the headers without the body.
//! - `OPTIONS` on a documented path: 204 with `Allow` (CORS preflights are answered by the
//!   CORS layer first when origins are configured).
//! - `Cache-Control: no-store` on every answer of the account resources (`/v1/accounts`,
//!   `/v1/sessions...`, `/v1/me...`): they carry tokens, or private data.
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
    if method == Method::OPTIONS {
        let allowed = allowed_methods(req.path());
        let response = if allowed.is_empty() {
            ApiError::NotFound(format!("no route for OPTIONS {}", req.path())).error_response()
        } else {
            HttpResponse::NoContent()
                .insert_header((header::ALLOW, allowed.join(", ")))
                .finish()
        };
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
    Ok(res.map_into_left_body())
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
