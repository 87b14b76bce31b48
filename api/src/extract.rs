//! Request-body extraction shared by every handler that takes JSON.
//!
//! serde's derived structs also accept a JSON *array* of the fields in order, and
//! `web::Json` reports a wrong type as `field: "body"`. [`JsonBody`] (and
//! [`parse_json_object`] for handlers that also need the raw bytes, e.g. to hash them for
//! `Idempotency-Key`) accept only what the API documents: an `application/json` object,
//! with errors that name the offending field (`seats`, `move.from`).

use std::future::Future;
use std::pin::Pin;

use actix_web::http::header;
use actix_web::{FromRequest, HttpRequest, dev::Payload, web};
use serde::de::DeserializeOwned;

use crate::error::ApiError;

/// A required JSON object body, deserialized into `T`.
#[derive(Debug)]
pub struct JsonBody<T>(pub T);

impl<T> JsonBody<T> {
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T: DeserializeOwned + 'static> FromRequest for JsonBody<T> {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let req = req.clone();
        let bytes = web::Bytes::from_request(&req, payload);
        Box::pin(async move {
            let bytes = bytes.await.map_err(|e| body_read_error(&e))?;
            parse_json_object(&req, &bytes)?
                .map(JsonBody)
                .ok_or_else(|| ApiError::field("body", "a JSON object is required"))
        })
    }
}

/// Maps a failure to read the body (too large, broken connection) to a problem.
fn body_read_error(e: &actix_web::Error) -> ApiError {
    if e.as_response_error().status_code() == actix_web::http::StatusCode::PAYLOAD_TOO_LARGE {
        ApiError::PayloadTooLarge { limit: 0 }
    } else {
        ApiError::field("body", format!("could not read the body: {e}"))
    }
}

/// Whether the request says its body is JSON (`application/json` or `application/*+json`).
fn is_json(req: &HttpRequest) -> bool {
    req.headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|m| {
            let m = m.trim().to_ascii_lowercase();
            m == "application/json" || (m.starts_with("application/") && m.ends_with("+json"))
        })
}

/// Parses a body read as bytes. An empty body is `None` (for operations whose body is
/// optional); anything else must be `application/json` and a JSON object.
pub fn parse_json_object<T: DeserializeOwned>(
    req: &HttpRequest,
    body: &[u8],
) -> Result<Option<T>, ApiError> {
    let Some(first) = body.iter().find(|b| !b.is_ascii_whitespace()) else {
        return Ok(None);
    };
    if !is_json(req) {
        return Err(ApiError::UnsupportedMediaType(
            "the request body must be application/json".into(),
        ));
    }
    if *first != b'{' {
        return Err(ApiError::field(
            "body",
            "must be a JSON object ({...}), not an array, a string, a number or null",
        ));
    }
    let mut value: serde_json::Value = serde_json::from_slice(body)
        .map_err(|e| ApiError::field("body", format!("malformed JSON: {e}")))?;
    integral_floats(&mut value);
    let value: T = serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let field = if path.is_empty() || path == "." {
            "body".to_string()
        } else {
            path
        };
        if inner.is_data() {
            ApiError::field(field, strip_position(&inner.to_string()))
        } else {
            ApiError::field("body", format!("malformed JSON: {inner}"))
        }
    })?;
    Ok(Some(value))
}

/// JSON has one kind of number, and JSON Schema calls `5.0` an integer: numbers with no
/// fractional part become integers (when they fit in 64 bits) before the body is read
/// into Rust types, so `{"level": 5.0}` is `{"level": 5}`.
fn integral_floats(v: &mut serde_json::Value) {
    use serde_json::{Number, Value};
    match v {
        Value::Number(n) if n.is_f64() => {
            let f = n.as_f64().unwrap_or(f64::NAN);
            if f.is_finite() && f.fract() == 0.0 {
                if (0.0..18_446_744_073_709_551_616.0).contains(&f) {
                    *n = Number::from(f as u64);
                } else if (-9_223_372_036_854_775_808.0..0.0).contains(&f) {
                    *n = Number::from(f as i64);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(integral_floats),
        Value::Object(map) => map.values_mut().for_each(integral_floats),
        _ => {}
    }
}

/// serde_json appends " at line 1 column 20" to messages; the field name says more.
fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use actix_web::test::TestRequest;
    use serde::Deserialize;

    use super::*;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Body {
        name: String,
        n: Option<u8>,
    }

    fn req() -> HttpRequest {
        TestRequest::default()
            .insert_header((header::CONTENT_TYPE, "application/json"))
            .to_http_request()
    }

    fn field_of(e: ApiError) -> String {
        match e {
            ApiError::Validation { errors, .. } => errors[0].field.clone(),
            other => panic!("not a validation error: {other:?}"),
        }
    }

    #[test]
    fn objects_only() {
        assert!(parse_json_object::<Body>(&req(), br#"{"name":"a"}"#).is_ok());
        for bad in [&br#"["a", 1]"#[..], b"null", b"\"a\"", b"12"] {
            let e = parse_json_object::<Body>(&req(), bad).unwrap_err();
            assert_eq!(field_of(e), "body", "{}", String::from_utf8_lossy(bad));
        }
        assert!(parse_json_object::<Body>(&req(), b"  ").unwrap().is_none());
    }

    #[test]
    fn type_errors_name_the_field() {
        let e = parse_json_object::<Body>(&req(), br#"{"name":"a","n":"x"}"#).unwrap_err();
        assert_eq!(field_of(e), "n");
        let e = parse_json_object::<Body>(&req(), br#"{"name":"a","n":300}"#).unwrap_err();
        assert_eq!(field_of(e), "n");
    }

    #[test]
    fn integral_floats_are_integers() {
        let b: Body = parse_json_object(&req(), br#"{"name":"a","n":5.0}"#)
            .unwrap()
            .unwrap();
        assert_eq!(b.n, Some(5));
        let e = parse_json_object::<Body>(&req(), br#"{"name":"a","n":5.5}"#).unwrap_err();
        assert_eq!(field_of(e), "n");
    }

    #[test]
    fn needs_json_content_type() {
        let plain = TestRequest::default().to_http_request();
        let e = parse_json_object::<Body>(&plain, br#"{"name":"a"}"#).unwrap_err();
        assert!(matches!(e, ApiError::UnsupportedMediaType(_)));
    }
}
