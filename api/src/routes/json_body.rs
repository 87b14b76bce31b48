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
    let value: T = from_value(value)?;
    Ok(Some(value))
}

/// Reads a parsed JSON value into `T` the way bodies are read: a struct must be a JSON
/// object at every depth, and an error names the field (`time_control`, `move.from`).
pub fn from_value<T: DeserializeOwned>(value: serde_json::Value) -> Result<T, ApiError> {
    from_value_at("body", value)
}

/// [`from_value`] for a value found at `at` in the body (`move`): errors name
/// `at` or the field below it (`move.from`).
pub fn from_value_at<T: DeserializeOwned>(
    at: &str,
    value: serde_json::Value,
) -> Result<T, ApiError> {
    serde_path_to_error::deserialize(strict::Strict(value)).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let field = if path.is_empty() || path == "." {
            at.to_string()
        } else if at == "body" {
            path
        } else {
            format!("{at}.{path}")
        };
        if inner.is_data() {
            ApiError::field(field, strip_position(&inner.to_string()))
        } else {
            ApiError::field("body", format!("malformed JSON: {inner}"))
        }
    })
}

/// A deserializer wrapper that refuses serde's *sequence form* of a struct at every depth:
/// derived structs accept `[60, 120]` for `{"per_move_secs": 60, "max_bank_secs": 120}`,
/// which the API does not document. Everything else is forwarded unchanged; nested
/// values are wrapped again, so `serde_path_to_error` (outside) names the field.
mod strict {
    use std::fmt;

    use serde::de::{
        self, DeserializeSeed, Deserializer, EnumAccess, Error as _, MapAccess, SeqAccess,
        Unexpected, VariantAccess, Visitor,
    };

    pub struct Strict<D>(pub D);

    struct Wrap<V> {
        inner: V,
        /// The caller asked for a struct: a sequence is refused.
        object_only: bool,
    }

    fn wrap<V>(inner: V) -> Wrap<V> {
        Wrap {
            inner,
            object_only: false,
        }
    }

    macro_rules! forward {
        ($($method:ident),*) => {$(
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
                self.0.$method(wrap(visitor))
            }
        )*};
    }

    impl<'de, D: Deserializer<'de>> Deserializer<'de> for Strict<D> {
        type Error = D::Error;

        forward!(
            deserialize_any,
            deserialize_bool,
            deserialize_i8,
            deserialize_i16,
            deserialize_i32,
            deserialize_i64,
            deserialize_i128,
            deserialize_u8,
            deserialize_u16,
            deserialize_u32,
            deserialize_u64,
            deserialize_u128,
            deserialize_f32,
            deserialize_f64,
            deserialize_char,
            deserialize_str,
            deserialize_string,
            deserialize_bytes,
            deserialize_byte_buf,
            deserialize_option,
            deserialize_unit,
            deserialize_seq,
            deserialize_map,
            deserialize_identifier,
            deserialize_ignored_any
        );

        fn deserialize_unit_struct<V: Visitor<'de>>(
            self,
            name: &'static str,
            visitor: V,
        ) -> Result<V::Value, D::Error> {
            self.0.deserialize_unit_struct(name, wrap(visitor))
        }

        fn deserialize_newtype_struct<V: Visitor<'de>>(
            self,
            name: &'static str,
            visitor: V,
        ) -> Result<V::Value, D::Error> {
            self.0.deserialize_newtype_struct(name, wrap(visitor))
        }

        fn deserialize_tuple<V: Visitor<'de>>(
            self,
            len: usize,
            visitor: V,
        ) -> Result<V::Value, D::Error> {
            self.0.deserialize_tuple(len, wrap(visitor))
        }

        fn deserialize_tuple_struct<V: Visitor<'de>>(
            self,
            name: &'static str,
            len: usize,
            visitor: V,
        ) -> Result<V::Value, D::Error> {
            self.0.deserialize_tuple_struct(name, len, wrap(visitor))
        }

        fn deserialize_struct<V: Visitor<'de>>(
            self,
            name: &'static str,
            fields: &'static [&'static str],
            visitor: V,
        ) -> Result<V::Value, D::Error> {
            let visitor = Wrap {
                inner: visitor,
                object_only: true,
            };
            self.0.deserialize_struct(name, fields, visitor)
        }

        fn deserialize_enum<V: Visitor<'de>>(
            self,
            name: &'static str,
            variants: &'static [&'static str],
            visitor: V,
        ) -> Result<V::Value, D::Error> {
            self.0.deserialize_enum(name, variants, wrap(visitor))
        }

        fn is_human_readable(&self) -> bool {
            self.0.is_human_readable()
        }
    }

    /// A JSON object is expected (named in messages).
    struct AnObject;

    impl de::Expected for AnObject {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a JSON object")
        }
    }

    macro_rules! visit {
        ($($method:ident: $ty:ty),*) => {$(
            fn $method<E: de::Error>(self, v: $ty) -> Result<Self::Value, E> {
                self.inner.$method(v)
            }
        )*};
    }

    impl<'de, V: Visitor<'de>> Visitor<'de> for Wrap<V> {
        type Value = V::Value;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            self.inner.expecting(f)
        }

        visit!(
            visit_bool: bool, visit_i8: i8, visit_i16: i16, visit_i32: i32, visit_i64: i64,
            visit_i128: i128, visit_u8: u8, visit_u16: u16, visit_u32: u32, visit_u64: u64,
            visit_u128: u128, visit_f32: f32, visit_f64: f64, visit_char: char,
            visit_str: &str, visit_borrowed_str: &'de str, visit_string: String,
            visit_bytes: &[u8], visit_borrowed_bytes: &'de [u8], visit_byte_buf: Vec<u8>
        );

        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            self.inner.visit_none()
        }

        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            self.inner.visit_unit()
        }

        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            self.inner.visit_some(Strict(d))
        }

        fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            self.inner.visit_newtype_struct(Strict(d))
        }

        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
            if self.object_only {
                return Err(A::Error::invalid_type(Unexpected::Seq, &AnObject));
            }
            self.inner.visit_seq(Seq(seq))
        }

        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
            self.inner.visit_map(Map(map))
        }

        fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Self::Value, A::Error> {
            self.inner.visit_enum(Enum(data))
        }
    }

    struct Seed<S>(S);

    impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Seed<S> {
        type Value = S::Value;

        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            self.0.deserialize(Strict(d))
        }
    }

    struct Seq<A>(A);

    impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for Seq<A> {
        type Error = A::Error;

        fn next_element_seed<T: DeserializeSeed<'de>>(
            &mut self,
            seed: T,
        ) -> Result<Option<T::Value>, A::Error> {
            self.0.next_element_seed(Seed(seed))
        }

        fn size_hint(&self) -> Option<usize> {
            self.0.size_hint()
        }
    }

    struct Map<A>(A);

    impl<'de, A: MapAccess<'de>> MapAccess<'de> for Map<A> {
        type Error = A::Error;

        fn next_key_seed<K: DeserializeSeed<'de>>(
            &mut self,
            seed: K,
        ) -> Result<Option<K::Value>, A::Error> {
            self.0.next_key_seed(Seed(seed))
        }

        fn next_value_seed<V: DeserializeSeed<'de>>(
            &mut self,
            seed: V,
        ) -> Result<V::Value, A::Error> {
            self.0.next_value_seed(Seed(seed))
        }

        fn size_hint(&self) -> Option<usize> {
            self.0.size_hint()
        }
    }

    struct Enum<A>(A);

    impl<'de, A: EnumAccess<'de>> EnumAccess<'de> for Enum<A> {
        type Error = A::Error;
        type Variant = Variant<A::Variant>;

        fn variant_seed<V: DeserializeSeed<'de>>(
            self,
            seed: V,
        ) -> Result<(V::Value, Self::Variant), A::Error> {
            self.0
                .variant_seed(Seed(seed))
                .map(|(value, variant)| (value, Variant(variant)))
        }
    }

    struct Variant<A>(A);

    impl<'de, A: VariantAccess<'de>> VariantAccess<'de> for Variant<A> {
        type Error = A::Error;

        fn unit_variant(self) -> Result<(), A::Error> {
            self.0.unit_variant()
        }

        fn newtype_variant_seed<T: DeserializeSeed<'de>>(
            self,
            seed: T,
        ) -> Result<T::Value, A::Error> {
            self.0.newtype_variant_seed(Seed(seed))
        }

        fn tuple_variant<V: Visitor<'de>>(
            self,
            len: usize,
            visitor: V,
        ) -> Result<V::Value, A::Error> {
            self.0.tuple_variant(len, wrap(visitor))
        }

        fn struct_variant<V: Visitor<'de>>(
            self,
            fields: &'static [&'static str],
            visitor: V,
        ) -> Result<V::Value, A::Error> {
            let visitor = Wrap {
                inner: visitor,
                object_only: true,
            };
            self.0.struct_variant(fields, visitor)
        }
    }
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

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Outer {
        inner: Option<Body>,
        list: Option<Vec<Body>>,
        pair: Option<(u8, u8)>,
        numbers: Option<Vec<u8>>,
    }

    #[test]
    fn arrays_are_not_objects_at_any_depth() {
        for (bad, field) in [
            (&br#"{"inner":["a"]}"#[..], "inner"),
            (br#"{"inner":[]}"#, "inner"),
            (br#"{"list":[{"name":"a"},["b"]]}"#, "list[1]"),
        ] {
            let e = parse_json_object::<Outer>(&req(), bad).unwrap_err();
            assert_eq!(field_of(e), field, "{}", String::from_utf8_lossy(bad));
        }
        // Sequences stay sequences: lists and tuples still read arrays.
        let ok: Outer = parse_json_object(
            &req(),
            br#"{"inner":{"name":"a"},"list":[{"name":"b"}],"pair":[1,2],"numbers":[3]}"#,
        )
        .unwrap()
        .unwrap();
        assert_eq!(ok.pair, Some((1, 2)));
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
