//! The default service, for requests no route matched.

use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpRequest, HttpResponse, ResponseError};

use crate::error::ApiError;

/// The default service: a documented path asked with another method is a
/// `method-not-allowed` problem with an `Allow` header; any other unknown route is a
/// `not-found` problem.
pub async fn not_found(req: HttpRequest) -> HttpResponse {
    let allowed = crate::openapi::methods_of(req.path());
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
