//! The one error type of the API, [`ApiError`], and its RFC 9457 `application/problem+json`
//! rendering.
//!
//! Every kind of error has a stable `type` URI, `/problems/<slug>` (relative to the server's
//! URL; see [`ProblemKind`] for the full list and status codes). Extension members (such as
//! `current_version` or `errors`) go flat into the problem object. Handlers return
//! `Result<_, ApiError>`; actix's own extractor errors (JSON, path, query, body size) and
//! unknown routes are turned into problems too (see [`json_config`] and friends), so the
//! server never answers with an HTML or plain-text error page.
//!
//! 500s (`internal`) are for server faults only: the cause is logged, never shown.

use std::time::Duration;

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpRequest, HttpResponse, ResponseError, web};
use serde::Serialize;
use serde_json::{Map, Value, json};
use utoipa::ToSchema;

use crate::ids::GameId;
use crate::store::StoreError;

mod accounts;
mod analysis;
mod conditional;
mod games;
mod live;
mod messages;
mod notifications;
mod ratings;
mod tournaments;

/// The media type of every error body.
pub const PROBLEM_JSON: &str = "application/problem+json";

/// Every problem kind, in one table: its slug (the last segment of the `type` URI), its
/// HTTP status and its title. The slugs are part of the API contract: never rename one.
macro_rules! problem_kinds {
    ($($(#[$doc:meta])* $kind:ident = ($slug:literal, $status:ident, $title:literal),)*) => {
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum ProblemKind {
            $($(#[$doc])* $kind,)*
        }

        impl ProblemKind {
            /// Every kind, for documentation and tests.
            pub const ALL: &'static [ProblemKind] = &[$(ProblemKind::$kind,)*];

            pub fn slug(self) -> &'static str {
                match self {
                    $(ProblemKind::$kind => $slug,)*
                }
            }

            pub fn status(self) -> StatusCode {
                match self {
                    $(ProblemKind::$kind => StatusCode::$status,)*
                }
            }

            pub fn title(self) -> &'static str {
                match self {
                    $(ProblemKind::$kind => $title,)*
                }
            }

            /// The `type` URI: `/problems/<slug>`.
            pub fn type_uri(self) -> String {
                format!("/problems/{}", self.slug())
            }
        }
    };
}

problem_kinds! {
    /// 400: the request is malformed or a field is invalid (`errors` lists the fields).
    Validation = ("validation", BAD_REQUEST, "The request is not valid"),
    /// 401: missing, malformed, expired, tampered or revoked credentials, or a failed login.
    Unauthorized = ("unauthorized", UNAUTHORIZED, "Authentication is required"),
    /// 403: authenticated, but the token lacks the scope or the kind of session needed.
    Forbidden = ("forbidden", FORBIDDEN, "Not allowed"),
    /// 404: no such resource (or no such route).
    NotFound = ("not-found", NOT_FOUND, "Not found"),
    /// 405: the route exists but not with this method.
    MethodNotAllowed = ("method-not-allowed", METHOD_NOT_ALLOWED, "Method not allowed"),
    /// 409: the request conflicts with the current state (e.g. a username already taken).
    Conflict = ("conflict", CONFLICT, "Conflict with the current state"),
    /// 413: the request body is larger than the server accepts.
    PayloadTooLarge = ("payload-too-large", PAYLOAD_TOO_LARGE, "Request body too large"),
    /// 415: the body is not `application/json`.
    UnsupportedMediaType = ("unsupported-media-type", UNSUPPORTED_MEDIA_TYPE, "Unsupported media type"),
    /// 431: the request head (request line and headers) is larger than the server reads.
    HeadersTooLarge = ("headers-too-large", REQUEST_HEADER_FIELDS_TOO_LARGE, "Request head too large"),
    /// 408: the request body did not arrive in time (`DJAMBI_BODY_TIMEOUT` in all,
    /// `DJAMBI_BODY_IDLE_TIMEOUT` between two pieces); the connection is closed.
    RequestTimeout = ("request-timeout", REQUEST_TIMEOUT, "The request took too long to arrive"),
    /// 429: too many requests; `Retry-After` says when to try again.
    RateLimited = ("rate-limited", TOO_MANY_REQUESTS, "Too many requests"),
    /// 422: the move is not legal in the current position (`reason`, `legal_moves_url`).
    IllegalMove = ("illegal-move", UNPROCESSABLE_ENTITY, "Illegal move"),
    /// 409: it is another seat's turn.
    NotYourTurn = ("not-your-turn", CONFLICT, "Not your turn"),
    /// 412: the client's expected version is stale (`current_version`).
    VersionConflict = ("version-conflict", PRECONDITION_FAILED, "The game has moved on"),
    /// 409: the game has ended.
    GameOver = ("game-over", CONFLICT, "The game is over"),
    /// 409: the game has not started yet (seats still open).
    GameNotStarted = ("game-not-started", CONFLICT, "The game has not started"),
    /// 409: the seat is already taken.
    SeatTaken = ("seat-taken", CONFLICT, "The seat is taken"),
    /// 422: an `Idempotency-Key` was reused with a different request.
    IdempotencyKeyReused = ("idempotency-key-reused", UNPROCESSABLE_ENTITY, "Idempotency key reused with another request"),
    /// 503: the database is unreachable or overloaded; retry later.
    Unavailable = ("unavailable", SERVICE_UNAVAILABLE, "Service unavailable"),
    /// 500: a fault in the server; details are in its log.
    Internal = ("internal", INTERNAL_SERVER_ERROR, "Internal server error"),
    /// 422: a game record to import is well-formed but does not replay: an action the
    /// rules refuse, or a `Result` header the actions contradict (`line`, `reason`).
    InvalidRecord = ("invalid-record", UNPROCESSABLE_ENTITY, "The game record does not replay"),
    /// 428: the write must name the version it was decided at (`If-Match` or
    /// `expected_version`) and named none.
    PreconditionRequired = ("precondition-required", PRECONDITION_REQUIRED, "The game's version is required"),
    /// 409: the account holds as many as its quota allows (open games, games of bots
    /// alone, webhooks, push subscriptions; `quota`, `limit`); end or delete one first.
    QuotaExceeded = ("quota-exceeded", CONFLICT, "A quota is reached"),
}

/// One invalid field of a request, in a `validation` problem's `errors` list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
#[schema(example = json!({"field": "username", "message": "must be 3 to 32 characters"}))]
pub struct FieldError {
    /// The field's name (`body`, `path` or `query` when the whole part is at fault).
    pub field: String,
    pub message: String,
}

impl FieldError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        FieldError {
            field: field.into(),
            message: message.into(),
        }
    }
}

/// An RFC 9457 problem document, as the API sends it. Extension members appear flat beside
/// the standard ones (`errors` for validation, `current_version` for a version conflict,
/// `reason` and `legal_moves_url` for an illegal move, `retry_after` for rate limiting).
/// Every problem also carries `request_id`, the request's `X-Request-Id` (the client's, or
/// one the server made), which is in the server's log lines for that request.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(example = json!({
    "type": "/problems/validation",
    "title": "The request is not valid",
    "status": 400,
    "detail": "1 field is invalid",
    "errors": [{"field": "username", "message": "must be 3 to 32 characters"}]
}))]
pub struct Problem {
    /// A stable URI per kind of error: `/problems/<slug>`.
    #[serde(rename = "type")]
    pub type_uri: String,
    pub title: String,
    pub status: u16,
    /// What went wrong for this request, for humans.
    pub detail: String,
    /// Kind-specific extension members.
    #[serde(flatten)]
    #[schema(value_type = Object)]
    pub extensions: Map<String, Value>,
}

/// Every error a handler can return. One `ResponseError` impl renders them all.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("{detail}")]
    Validation {
        detail: String,
        errors: Vec<FieldError>,
    },
    /// `invalid_token` says whether a token was sent but rejected (vs. none at all).
    #[error("{detail}")]
    Unauthorized { detail: String, invalid_token: bool },
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    NotFound(String),
    #[error("method not allowed")]
    MethodNotAllowed,
    #[error("{0}")]
    Conflict(String),
    #[error("request body larger than {limit} bytes")]
    PayloadTooLarge { limit: usize },
    #[error("{0}")]
    UnsupportedMediaType(String),
    #[error("{0}")]
    HeadersTooLarge(String),
    #[error("too many requests; retry after {retry_after_secs} s")]
    RateLimited { retry_after_secs: u64 },
    #[error("{0}")]
    RequestTimeout(String),
    #[error("{detail}")]
    IllegalMove {
        /// A short machine-readable reason (e.g. `blocked-path`), also in the body.
        reason: String,
        detail: String,
        legal_moves_url: Option<String>,
    },
    #[error("{0}")]
    NotYourTurn(String),
    #[error("expected version {expected}, the game is at {current_version}")]
    VersionConflict { expected: i64, current_version: i64 },
    #[error("{0}")]
    GameOver(String),
    #[error("{0}")]
    GameNotStarted(String),
    #[error("{0}")]
    SeatTaken(String),
    #[error("{0}")]
    IdempotencyKeyReused(String),
    #[error("{0}")]
    Unavailable(String),
    /// A server fault. The message is logged, never sent.
    #[error("internal error: {0}")]
    Internal(String),
    #[error("{0}")]
    PreconditionRequired(String),
    /// A quota reached: 409 `quota-exceeded` for what an account holds, 429
    /// `rate-limited` (with `Retry-After`) for what it may create in a period; both with
    /// `quota` and `limit`.
    #[error("{0}")]
    Quota(crate::quota::Exceeded),
    /// A record that breaks the rules: its first bad line (1-based) and why.
    #[error("{detail}")]
    InvalidRecord {
        line: usize,
        /// `illegal-action` or `result-mismatch`.
        reason: &'static str,
        detail: String,
    },
}

impl ApiError {
    /// An illegal move's problem points at the game's legal moves.
    pub fn with_legal_moves_url(self, game_id: &GameId) -> Self {
        match self {
            ApiError::IllegalMove { reason, detail, .. } => ApiError::IllegalMove {
                reason,
                detail,
                legal_moves_url: Some(format!("/v1/games/{game_id}/legal-moves")),
            },
            other => other,
        }
    }

    /// A validation error about one field.
    pub fn field(field: impl Into<String>, message: impl Into<String>) -> Self {
        let e = FieldError::new(field, message);
        ApiError::Validation {
            detail: format!("{}: {}", e.field, e.message),
            errors: vec![e],
        }
    }

    /// A validation error about several fields (`errors` must not be empty).
    pub fn fields(errors: Vec<FieldError>) -> Self {
        let detail = match errors.as_slice() {
            [one] => format!("{}: {}", one.field, one.message),
            many => format!("{} fields are invalid", many.len()),
        };
        ApiError::Validation { detail, errors }
    }

    /// 401 for a request that sent no usable credentials.
    pub fn unauthenticated(detail: impl Into<String>) -> Self {
        ApiError::Unauthorized {
            detail: detail.into(),
            invalid_token: false,
        }
    }

    /// 401 for a token that was sent but is not valid (malformed, expired, revoked...).
    pub fn invalid_token(detail: impl Into<String>) -> Self {
        ApiError::Unauthorized {
            detail: detail.into(),
            invalid_token: true,
        }
    }

    pub fn internal(cause: impl std::fmt::Display) -> Self {
        ApiError::Internal(cause.to_string())
    }

    pub fn kind(&self) -> ProblemKind {
        match self {
            ApiError::Validation { .. } => ProblemKind::Validation,
            ApiError::Unauthorized { .. } => ProblemKind::Unauthorized,
            ApiError::Forbidden(_) => ProblemKind::Forbidden,
            ApiError::NotFound(_) => ProblemKind::NotFound,
            ApiError::MethodNotAllowed => ProblemKind::MethodNotAllowed,
            ApiError::Conflict(_) => ProblemKind::Conflict,
            ApiError::PayloadTooLarge { .. } => ProblemKind::PayloadTooLarge,
            ApiError::UnsupportedMediaType(_) => ProblemKind::UnsupportedMediaType,
            ApiError::HeadersTooLarge(_) => ProblemKind::HeadersTooLarge,
            ApiError::RateLimited { .. } => ProblemKind::RateLimited,
            ApiError::RequestTimeout(_) => ProblemKind::RequestTimeout,
            ApiError::IllegalMove { .. } => ProblemKind::IllegalMove,
            ApiError::NotYourTurn(_) => ProblemKind::NotYourTurn,
            ApiError::VersionConflict { .. } => ProblemKind::VersionConflict,
            ApiError::GameOver(_) => ProblemKind::GameOver,
            ApiError::GameNotStarted(_) => ProblemKind::GameNotStarted,
            ApiError::SeatTaken(_) => ProblemKind::SeatTaken,
            ApiError::IdempotencyKeyReused(_) => ProblemKind::IdempotencyKeyReused,
            ApiError::Unavailable(_) => ProblemKind::Unavailable,
            ApiError::Internal(_) => ProblemKind::Internal,
            ApiError::InvalidRecord { .. } => ProblemKind::InvalidRecord,
            ApiError::PreconditionRequired(_) => ProblemKind::PreconditionRequired,
            ApiError::Quota(q) if q.retry_after_secs.is_some() => ProblemKind::RateLimited,
            ApiError::Quota(_) => ProblemKind::QuotaExceeded,
        }
    }

    /// The problem document this error is sent as.
    pub fn problem(&self) -> Problem {
        let kind = self.kind();
        let mut extensions = Map::new();
        let detail = match self {
            ApiError::Internal(_) => {
                "the server failed to handle this request; it has been logged".to_string()
            }
            other => other.to_string(),
        };
        match self {
            ApiError::Validation { errors, .. } => {
                extensions.insert("errors".into(), json!(errors));
            }
            ApiError::RateLimited { retry_after_secs } => {
                extensions.insert("retry_after".into(), json!(retry_after_secs));
            }
            ApiError::PayloadTooLarge { limit } => {
                extensions.insert("limit_bytes".into(), json!(limit));
            }
            ApiError::IllegalMove {
                reason,
                legal_moves_url,
                ..
            } => {
                extensions.insert("reason".into(), json!(reason));
                if let Some(url) = legal_moves_url {
                    extensions.insert("legal_moves_url".into(), json!(url));
                }
            }
            ApiError::VersionConflict {
                current_version, ..
            } => {
                extensions.insert("current_version".into(), json!(current_version));
            }
            ApiError::InvalidRecord { line, reason, .. } => {
                extensions.insert("line".into(), json!(line));
                extensions.insert("reason".into(), json!(reason));
            }
            ApiError::Quota(q) => {
                extensions.insert("quota".into(), json!(q.quota));
                extensions.insert("limit".into(), json!(q.limit));
                if let Some(secs) = q.retry_after_secs {
                    extensions.insert("retry_after".into(), json!(secs));
                }
            }
            _ => {}
        }
        Problem {
            type_uri: kind.type_uri(),
            title: kind.title().to_string(),
            status: kind.status().as_u16(),
            detail,
            extensions,
        }
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.kind().status()
    }

    fn error_response(&self) -> HttpResponse {
        match self {
            ApiError::Internal(cause) => tracing::error!(%cause, "internal error"),
            ApiError::Unavailable(cause) => tracing::warn!(%cause, "service unavailable"),
            _ => {}
        }
        let problem = self.problem();
        let body = serde_json::to_vec(&problem).unwrap_or_else(|_| {
            br#"{"type":"/problems/internal","title":"Internal server error","status":500,"detail":"error while rendering an error"}"#.to_vec()
        });
        let mut res = HttpResponse::build(self.status_code());
        res.insert_header((header::CONTENT_TYPE, HeaderValue::from_static(PROBLEM_JSON)));
        match self {
            ApiError::Unauthorized { invalid_token, .. } => {
                let challenge = if *invalid_token {
                    r#"Bearer realm="djambi", error="invalid_token""#
                } else {
                    r#"Bearer realm="djambi""#
                };
                res.insert_header((header::WWW_AUTHENTICATE, challenge));
            }
            ApiError::RateLimited { retry_after_secs } => {
                res.insert_header((header::RETRY_AFTER, retry_after_secs.to_string()));
            }
            ApiError::Quota(crate::quota::Exceeded {
                retry_after_secs: Some(secs),
                ..
            }) => {
                res.insert_header((header::RETRY_AFTER, secs.to_string()));
            }
            ApiError::Unavailable(_) => {
                res.insert_header((header::RETRY_AFTER, "5"));
            }
            _ => {}
        }
        res.body(body)
    }
}

impl From<diesel::result::Error> for ApiError {
    fn from(e: diesel::result::Error) -> Self {
        use diesel::result::{DatabaseErrorKind, Error};
        match e {
            Error::NotFound => ApiError::NotFound("not found".into()),
            Error::DatabaseError(DatabaseErrorKind::UniqueViolation, info) => {
                ApiError::Conflict(format!("already exists ({})", info.message()))
            }
            Error::DatabaseError(DatabaseErrorKind::SerializationFailure, _) => {
                ApiError::Unavailable("concurrent update, retry".into())
            }
            Error::DatabaseError(_, ref info)
                if info.message().contains("database is locked")
                    || info.message().contains("database is busy") =>
            {
                ApiError::Unavailable(format!("database busy: {}", info.message()))
            }
            Error::DatabaseError(DatabaseErrorKind::ClosedConnection, info) => {
                ApiError::Unavailable(format!("database connection closed: {}", info.message()))
            }
            other => ApiError::Internal(format!("database: {other}")),
        }
    }
}

impl From<crate::store::RunError> for ApiError {
    fn from(e: crate::store::RunError) -> Self {
        match e {
            crate::store::RunError::NoConnection(m) => {
                ApiError::Unavailable(format!("no database connection: {m}"))
            }
            crate::store::RunError::Blocking(m) => {
                ApiError::Internal(format!("blocking task: {m}"))
            }
        }
    }
}

impl From<crate::validate::InvalidFields> for ApiError {
    fn from(e: crate::validate::InvalidFields) -> Self {
        ApiError::fields(
            e.0.into_iter()
                .map(|i| FieldError::new(i.field, i.message))
                .collect(),
        )
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::NotFound(id) => ApiError::NotFound(format!("no game {id}")),
            StoreError::Transient(m) => ApiError::Unavailable(format!("database busy: {m}")),
            // A store-level "moved" outside a command is a unique key met twice.
            StoreError::VersionMoved => {
                ApiError::Conflict("a concurrent request changed this first; retry".into())
            }
            StoreError::Corrupt(m) | StoreError::Database(m) => ApiError::Internal(m),
        }
    }
}

impl From<actix_web::error::BlockingError> for ApiError {
    fn from(e: actix_web::error::BlockingError) -> Self {
        ApiError::Internal(format!("blocking task failed: {e}"))
    }
}

fn json_error(err: actix_web::error::JsonPayloadError) -> ApiError {
    use actix_web::error::JsonPayloadError as J;
    match err {
        J::OverflowKnownLength { limit, .. } | J::Overflow { limit } => {
            ApiError::PayloadTooLarge { limit }
        }
        J::ContentType => {
            ApiError::UnsupportedMediaType("the request body must be application/json".into())
        }
        J::Deserialize(e) => {
            let msg = e.to_string();
            if e.is_data() {
                // e.g. "missing field `password` at line 1 column 20"
                ApiError::field("body", msg)
            } else {
                ApiError::field("body", format!("malformed JSON: {msg}"))
            }
        }
        J::Payload(e) => ApiError::field("body", format!("could not read the body: {e}")),
        other => ApiError::field("body", other.to_string()),
    }
}

/// The 429 problem for a wait, rounded up to whole seconds (at least 1).
pub fn too_many(wait: Duration) -> ApiError {
    let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    ApiError::RateLimited {
        retry_after_secs: secs.max(1),
    }
}

/// The JSON body extractor's configuration: size limit and problem+json errors.
pub fn json_config(limit: usize) -> web::JsonConfig {
    web::JsonConfig::default()
        .limit(limit)
        .error_handler(|err, _req: &HttpRequest| json_error(err).into())
}

/// Path-parameter errors as problem+json (a malformed id is simply not found).
pub fn path_config() -> web::PathConfig {
    web::PathConfig::default()
        .error_handler(|err, _req| ApiError::NotFound(format!("no such resource ({err})")).into())
}

/// Query-string errors as problem+json.
pub fn query_config() -> web::QueryConfig {
    web::QueryConfig::default()
        .error_handler(|err, _req| ApiError::field("query", err.to_string()).into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_its_title_in_every_language() {
        // locales/<lang>/problems.ftl: `problem-<slug>`; English says what the table says.
        for k in ProblemKind::ALL {
            let id = format!("problem-{}", k.slug());
            assert_eq!(
                crate::i18n::t(crate::i18n::Lang::EN, &id),
                k.title(),
                "{id}"
            );
            for lang in crate::i18n::Lang::all() {
                let title = crate::routes::language::problem_title(lang, &k.type_uri());
                assert!(title.is_some(), "{}: no {id}", lang.code());
            }
        }
        let fr = crate::i18n::Lang::from_code("fr").unwrap();
        assert_eq!(
            crate::routes::language::problem_title(fr, "/problems/illegal-move").as_deref(),
            Some("Coup illégal")
        );
    }

    #[test]
    fn slugs_are_unique_and_uris_stable() {
        let mut seen = std::collections::HashSet::new();
        for k in ProblemKind::ALL {
            assert!(seen.insert(k.slug()), "duplicate slug {}", k.slug());
            assert_eq!(k.type_uri(), format!("/problems/{}", k.slug()));
        }
    }

    /// The README's table of problem types (for client authors) names every kind with
    /// its status.
    #[test]
    fn the_readme_lists_every_problem_type() {
        let readme = include_str!("../../../README.md");
        for k in ProblemKind::ALL {
            let row = format!("| `{}` | {} |", k.slug(), k.status().as_u16());
            assert!(readme.contains(&row), "README.md lacks the row {row}");
        }
    }

    #[test]
    fn extensions_are_flat() {
        let p = ApiError::VersionConflict {
            expected: 3,
            current_version: 5,
        }
        .problem();
        let v = serde_json::to_value(&p).unwrap();
        assert_eq!(v["type"], "/problems/version-conflict");
        assert_eq!(v["status"], 412);
        assert_eq!(v["current_version"], 5);
    }

    #[test]
    fn a_wait_is_whole_seconds() {
        assert_eq!(
            too_many(Duration::from_millis(1500)).problem().extensions["retry_after"],
            2
        );
    }

    #[test]
    fn internal_details_are_hidden() {
        let v = serde_json::to_value(ApiError::internal("secret sauce").problem()).unwrap();
        assert!(!v["detail"].as_str().unwrap().contains("secret"));
    }
}
