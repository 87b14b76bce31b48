//! OAuth 2.0 for third-party apps (see [`crate::accounts::oauth`] for the rules):
//!
//! - `POST /oauth/token`: an authorization code (with its PKCE verifier) for an access
//!   token (RFC 6749 section 4.1.3);
//! - `POST /oauth/revoke`: revoke a token (RFC 7009);
//! - `GET /.well-known/oauth-authorization-server`: the server's metadata (RFC 8414).
//!
//! The consent page, `GET /oauth/authorize`, is a page of the web client
//! (`routes/web/oauth.rs`). Errors here are RFC 6749's: `application/json` with `error`
//! and `error_description`, status 400 (never a problem document: OAuth clients read
//! `error`).

use actix_web::http::{StatusCode, header};
use actix_web::{HttpRequest, HttpResponse, get, post, web};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::accounts::oauth::{self as cases, CodeExchange, OAuthError, TOKEN_MAX};
use crate::auth::Scope;
use crate::error::ApiError;
use crate::state::AppState;

/// The longest form body read at these endpoints.
const MAX_FORM: usize = 8192;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(token).service(revoke).service(metadata);
}

/// An RFC 6749 error answer.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"error": "invalid_grant",
    "error_description": "this authorization code was already used; any token issued from it is revoked"}))]
pub struct OAuthErrorBody {
    /// `invalid_request`, `invalid_grant`, `invalid_client`, `unsupported_grant_type`,
    /// `unsupported_token_type`, `temporarily_unavailable`.
    pub error: String,
    pub error_description: String,
}

/// The token request (`application/x-www-form-urlencoded`).
#[derive(Debug, ToSchema)]
#[allow(dead_code)] // documentation only: the form is read by hand (duplicates refused)
pub struct TokenForm {
    /// `authorization_code`.
    #[schema(example = "authorization_code")]
    grant_type: String,
    /// The code the redirect brought.
    #[schema(max_length = 256)]
    code: String,
    /// The `client_id` the code was asked with.
    #[schema(min_length = 1, max_length = 64)]
    client_id: String,
    /// The `redirect_uri` the code was asked with, the same text.
    #[schema(max_length = 2000)]
    redirect_uri: String,
    /// The PKCE verifier whose `S256` challenge the code was asked with.
    #[schema(min_length = 43, max_length = 128, pattern = "^[A-Za-z0-9._~-]+$")]
    code_verifier: String,
}

/// The revocation request (`application/x-www-form-urlencoded`).
#[derive(Debug, ToSchema)]
#[allow(dead_code)] // documentation only
pub struct RevokeForm {
    /// The access token (or authorization code) to revoke.
    #[schema(max_length = 256)]
    token: String,
    /// `access_token` (a hint only: any token is looked up).
    token_type_hint: Option<String>,
    /// When given, a token issued to another app is refused.
    #[schema(max_length = 64)]
    client_id: Option<String>,
}

/// An access token for an app.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"access_token": "djo_Zk3lq0t1N9QmJb2Hc0R7Yp4sVx8wKe6uAa5LdFgTnMo",
    "token_type": "Bearer", "expires_in": 31536000, "scope": "read play"}))]
pub struct TokenAnswer {
    /// Use as `Authorization: Bearer <token>`; opaque, shown only this once.
    pub access_token: String,
    /// `Bearer`.
    pub token_type: String,
    /// Seconds until it expires (a year; there is no refresh token: ask again then).
    pub expires_in: i64,
    /// The granted scopes, space-separated.
    pub scope: String,
}

/// The authorization server's metadata (RFC 8414).
#[derive(Debug, Serialize, ToSchema)]
pub struct ServerMetadata {
    pub issuer: String,
    pub authorization_endpoint: String,
    pub token_endpoint: String,
    pub revocation_endpoint: String,
    pub scopes_supported: Vec<Scope>,
    pub response_types_supported: Vec<String>,
    pub response_modes_supported: Vec<String>,
    pub grant_types_supported: Vec<String>,
    pub code_challenge_methods_supported: Vec<String>,
    pub token_endpoint_auth_methods_supported: Vec<String>,
    pub revocation_endpoint_auth_methods_supported: Vec<String>,
    pub service_documentation: String,
}

/// An RFC 6749 error response.
pub(crate) fn oauth_error(status: StatusCode, error: &str, description: &str) -> HttpResponse {
    HttpResponse::build(status)
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::PRAGMA, "no-cache"))
        .json(OAuthErrorBody {
            error: error.to_string(),
            error_description: description.to_string(),
        })
}

fn bad_request(error: &str, description: &str) -> HttpResponse {
    oauth_error(StatusCode::BAD_REQUEST, error, description)
}

/// The fields of a form body, or the error answer: the media type must be
/// `application/x-www-form-urlencoded`, the body at most [`MAX_FORM`] bytes, and no field
/// sent twice (RFC 6749 section 3.2).
#[allow(clippy::result_large_err)]
fn form(req: &HttpRequest, body: &[u8]) -> Result<Vec<(String, String)>, HttpResponse> {
    let media = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let media = media.split(';').next().unwrap_or("").trim();
    if !media.eq_ignore_ascii_case("application/x-www-form-urlencoded") {
        return Err(bad_request(
            "invalid_request",
            "the body must be `application/x-www-form-urlencoded`",
        ));
    }
    if body.len() > MAX_FORM {
        return Err(bad_request("invalid_request", "the body is too large"));
    }
    let fields: Vec<(String, String)> = url::form_urlencoded::parse(body)
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    for (i, (k, _)) in fields.iter().enumerate() {
        if fields[..i].iter().any(|(other, _)| other == k) {
            return Err(bad_request(
                "invalid_request",
                &format!("`{k}` is sent more than once"),
            ));
        }
    }
    Ok(fields)
}

fn field(fields: &[(String, String)], name: &str) -> Option<String> {
    fields
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.clone())
}

fn server_error(e: OAuthError) -> Result<HttpResponse, ApiError> {
    match e {
        OAuthError::Store(s) => Err(s.into()),
        other => Err(ApiError::internal(format!("unexpected: {other}"))),
    }
}

/// Exchange an authorization code for an access token.
///
/// `grant_type=authorization_code` with the `code`, the `client_id` and `redirect_uri`
/// it was asked with and the PKCE `code_verifier`. A code works once, for two minutes;
/// presented again it is refused and the token issued from it is revoked. The token
/// lives a year; there is no refresh token.
#[utoipa::path(
    tag = "oauth",
    request_body(content = TokenForm, content_type = "application/x-www-form-urlencoded"),
    responses(
        (status = 200, description = "The access token (`Cache-Control: no-store`)",
            body = TokenAnswer),
        (status = 400, description = "RFC 6749's error: `invalid_request` (a field missing, \
            sent twice or malformed, or not a form), `unsupported_grant_type`, \
            `invalid_grant` (the code unknown, expired, used, issued to another client or \
            redirect URI, or the verifier wrong), `temporarily_unavailable` (the account \
            holds 100 live tokens)", body = OAuthErrorBody),
        (status = 413, description = "`payload-too-large`: the body is larger than the \
            server accepts", body = crate::error::Problem,
            content_type = "application/problem+json"),
        (status = 415, description = "Never: a body that is not a form is an \
            `invalid_request`", body = crate::error::Problem,
            content_type = "application/problem+json")
    )
)]
#[post("/oauth/token")]
pub async fn token(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let fields = match form(&req, &body) {
        Ok(f) => f,
        Err(answer) => return Ok(answer),
    };
    match field(&fields, "grant_type").as_deref() {
        Some("authorization_code") => {}
        None => return Ok(bad_request("invalid_request", "`grant_type` is required")),
        Some(_) => {
            return Ok(bad_request(
                "unsupported_grant_type",
                "only `grant_type=authorization_code` is supported",
            ));
        }
    }
    let mut missing = Vec::new();
    let mut get = |name: &'static str, max: usize| match field(&fields, name) {
        Some(v) if !v.is_empty() && v.len() <= max => v,
        _ => {
            missing.push(name);
            String::new()
        }
    };
    let exchange = CodeExchange {
        code: get("code", TOKEN_MAX),
        client_id: get("client_id", cases::CLIENT_ID_MAX),
        redirect_uri: get("redirect_uri", cases::REDIRECT_URI_MAX),
        code_verifier: get("code_verifier", 128),
    };
    if !missing.is_empty() {
        return Ok(bad_request(
            "invalid_request",
            &format!(
                "missing or too long: {}",
                missing
                    .iter()
                    .map(|m| format!("`{m}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }
    match cases::exchange(&state.accounts(), exchange).await {
        Ok(issued) => Ok(HttpResponse::Ok()
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .insert_header((header::PRAGMA, "no-cache"))
            .json(TokenAnswer {
                access_token: issued.secret,
                token_type: "Bearer".into(),
                expires_in: issued.expires_in,
                scope: Scope::join(&issued.scopes),
            })),
        Err(OAuthError::InvalidGrant(why)) => Ok(bad_request("invalid_grant", why)),
        Err(e @ OAuthError::AccountGone) => Ok(bad_request("invalid_grant", &e.to_string())),
        Err(e @ OAuthError::TokenCap(_)) => {
            Ok(bad_request("temporarily_unavailable", &e.to_string()))
        }
        Err(e) => server_error(e),
    }
}

/// Revoke a token (RFC 7009).
///
/// Any token of this server the caller holds: an app's access token, a personal access
/// token, or an authorization code (then the token issued from it too). An unknown or
/// already revoked token is answered 200 as well. With `client_id`, a token issued to
/// another app is refused (`invalid_client`).
#[utoipa::path(
    tag = "oauth",
    request_body(content = RevokeForm, content_type = "application/x-www-form-urlencoded"),
    responses(
        (status = 200, description = "Revoked, or nothing to revoke"),
        (status = 400, description = "RFC 6749's error: `invalid_request` (`token` missing \
            or longer than 256 characters, a field sent twice, not a form), `invalid_client` \
            (the token is another app's)",
            body = OAuthErrorBody),
        (status = 413, description = "`payload-too-large`: the body is larger than the \
            server accepts", body = crate::error::Problem,
            content_type = "application/problem+json"),
        (status = 415, description = "Never: a body that is not a form is an \
            `invalid_request`", body = crate::error::Problem,
            content_type = "application/problem+json")
    )
)]
#[post("/oauth/revoke")]
pub async fn revoke(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let fields = match form(&req, &body) {
        Ok(f) => f,
        Err(answer) => return Ok(answer),
    };
    let Some(presented) = field(&fields, "token").filter(|t| !t.is_empty()) else {
        return Ok(bad_request("invalid_request", "`token` is required"));
    };
    if presented.len() > TOKEN_MAX {
        // Not a token of this server at all: a malformed request (the document says
        // `maxLength`), unlike a well-formed token that is unknown or revoked.
        return Ok(bad_request(
            "invalid_request",
            &format!("`token` is at most {TOKEN_MAX} characters"),
        ));
    }
    let client_id = field(&fields, "client_id").filter(|c| !c.is_empty());
    match cases::revoke(&state.accounts(), presented, client_id).await {
        Ok(()) => Ok(HttpResponse::Ok()
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .finish()),
        Err(e @ OAuthError::OtherClient) => Ok(bad_request("invalid_client", &e.to_string())),
        Err(e) => server_error(e),
    }
}

/// The OAuth 2.0 authorization server's metadata (RFC 8414).
#[utoipa::path(
    tag = "oauth",
    responses((status = 200, description = "The metadata", body = ServerMetadata,
        example = json!({
            "issuer": "https://djambi.example",
            "authorization_endpoint": "https://djambi.example/oauth/authorize",
            "token_endpoint": "https://djambi.example/oauth/token",
            "revocation_endpoint": "https://djambi.example/oauth/revoke",
            "scopes_supported": ["read", "play"],
            "response_types_supported": ["code"],
            "response_modes_supported": ["query"],
            "grant_types_supported": ["authorization_code"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none"],
            "revocation_endpoint_auth_methods_supported": ["none"],
            "service_documentation": "https://djambi.example/docs/"
        })))
)]
#[get("/.well-known/oauth-authorization-server")]
pub async fn metadata(state: web::Data<AppState>) -> HttpResponse {
    let issuer = state
        .config
        .public_url
        .as_str()
        .trim_end_matches('/')
        .to_string();
    HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "public, max-age=3600"))
        .json(ServerMetadata {
            authorization_endpoint: format!("{issuer}/oauth/authorize"),
            token_endpoint: format!("{issuer}/oauth/token"),
            revocation_endpoint: format!("{issuer}/oauth/revoke"),
            scopes_supported: Scope::ALL.to_vec(),
            response_types_supported: vec!["code".into()],
            response_modes_supported: vec!["query".into()],
            grant_types_supported: vec!["authorization_code".into()],
            code_challenge_methods_supported: vec!["S256".into()],
            token_endpoint_auth_methods_supported: vec!["none".into()],
            revocation_endpoint_auth_methods_supported: vec!["none".into()],
            service_documentation: format!("{issuer}/docs/"),
            issuer,
        })
}
