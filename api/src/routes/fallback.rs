//! The default service, for requests no route matched.

use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpRequest, HttpResponse, ResponseError};

use crate::error::ApiError;

/// The default service: a documented path asked with another method is a
/// `method-not-allowed` problem with an `Allow` header; a browser asking for a page
/// (`Accept: text/html`, outside `/v1`) gets the HTML 404 page; any other unknown route
/// is a `not-found` problem.
pub async fn not_found(req: HttpRequest) -> HttpResponse {
    let allowed = crate::openapi::methods_of(req.path());
    if allowed.is_empty() && wants_a_page(&req) {
        let lang = crate::routes::web::page_lang(&req).await;
        let mut response = crate::routes::web::page::not_found_page(lang, "page-no-such-page");
        response.headers_mut().insert(
            header::VARY,
            HeaderValue::from_static("Accept, Accept-Language, Cookie"),
        );
        return response;
    }
    if allowed.is_empty() {
        return ApiError::NotFound(format!("no route for {} {}", req.method(), req.path()))
            .error_response();
    }
    let allow = allowed.join(", ");
    let mut response = ApiError::MethodNotAllowed.error_response();
    if let Ok(value) = HeaderValue::from_str(&allow) {
        response.headers_mut().insert(header::ALLOW, value);
    }
    response
}

/// A browser's navigation: a page path (outside the API) asked for as HTML.
fn wants_a_page(req: &HttpRequest) -> bool {
    let path = req.path();
    let api = path == "/v1" || path.starts_with("/v1/");
    let read = matches!(
        *req.method(),
        actix_web::http::Method::GET | actix_web::http::Method::HEAD
    );
    !api && accepts_html(req) && read
}

/// Whether the request names `text/html` in `Accept` (with a q-value above 0): a
/// browser, not a program taking whatever comes (`*/*`).
pub fn accepts_html(req: &HttpRequest) -> bool {
    req.headers()
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|accept| {
            accept.split(',').any(|m| {
                let mut parts = m.split(';');
                let media = parts.next().unwrap_or("").trim();
                let refused = parts.any(|p| {
                    p.trim()
                        .strip_prefix("q=")
                        .and_then(|q| q.trim().parse::<f32>().ok())
                        .is_some_and(|q| q <= 0.0)
                });
                media.eq_ignore_ascii_case("text/html") && !refused
            })
        })
}
