//! Login sessions: `POST /v1/sessions` (log in), `POST /v1/sessions/refresh` (rotate the
//! refresh token) and `DELETE /v1/sessions/current` (log out).
//!
//! A session is a family of refresh tokens. Each refresh returns a new refresh token and
//! marks the old one used; presenting a used one again means it leaked, so the whole
//! session is revoked (its refresh and access tokens stop working).

use actix_web::http::header::{CACHE_CONTROL, HeaderValue};
use actix_web::{HttpRequest, HttpResponse, delete, get, post, web};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use super::me::Profile;
use crate::accounts::login::{self as login_case, Credentials, LoggedIn};
use crate::accounts::{logout as logout_case, refresh as refresh_case, sessions as sessions_case};
use crate::auth::SecretString;
use crate::error::too_many;
use crate::error::{ApiError, Problem};
use crate::ids::SessionId;
use crate::routes::caller::Authenticated;
use crate::routes::caller::client_addr;
use crate::routes::json_body::JsonBody;
use crate::state::AppState;
use crate::validate::{Checks, PASSWORD_MAX, USERNAME_MAX};

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(login)
        .service(refresh)
        .service(logout)
        .service(list_sessions)
        .service(end_session_by_id);
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"username": "alice", "password": "correct horse battery"}))]
pub struct LoginRequest {
    /// The name as registered, in any case; a look-alike or any character outside
    /// `A-Z a-z 0-9 _ -` matches no account.
    #[schema(
        min_length = 1,
        max_length = 128,
        pattern = "^[^\\x00-\\x1f\\x7f-\\x9f]+$"
    )]
    pub username: String,
    /// Compared after RFC 8265 (OpaqueString) normalisation.
    #[schema(value_type = String, format = Password, min_length = 1, max_length = 128)]
    pub password: SecretString,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"refresh_token": "djr_3q2+7w...base64url"}))]
pub struct RefreshRequest {
    /// Any string is accepted here; one that is not a live refresh token is a `401`.
    #[schema(value_type = String)]
    pub refresh_token: SecretString,
}

/// Tokens for a session. The refresh token is shown only here: keep it secret.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({
    "access_token": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9...",
    "token_type": "Bearer",
    "expires_in": 900,
    "refresh_token": "djr_Zk3l...",
    "refresh_token_expires_at": "2026-12-30T12:00:00Z",
    "session_id": "0192f5e4-7a3c-7cc1-9a51-3e1f0c2b8d11",
    "user": {"id": "0192f5e4-7a3c-7cc1-9a51-3e1f0c2b8d10", "username": "alice",
             "email": "alice@example.org", "email_verified": true, "created_at": "2026-11-30T12:00:00Z",
             "updated_at": "2026-11-30T12:00:00Z"}
}))]
pub struct TokenResponse {
    /// A JWT for `Authorization: Bearer`, with the `read` and `play` scopes.
    #[schema(value_type = String)]
    pub access_token: SecretString,
    /// Always `Bearer`.
    pub token_type: String,
    /// Seconds until the access token expires.
    pub expires_in: u64,
    /// Single use: `POST /v1/sessions/refresh` exchanges it for a new pair.
    #[schema(value_type = String)]
    pub refresh_token: SecretString,
    pub refresh_token_expires_at: DateTime<Utc>,
    #[schema(value_type = String)]
    pub session_id: SessionId,
    pub user: Profile,
}

fn token_response(logged_in: LoggedIn) -> TokenResponse {
    let LoggedIn { user, tokens } = logged_in;
    TokenResponse {
        access_token: tokens.access_token.into(),
        token_type: "Bearer".into(),
        expires_in: tokens.expires_in,
        refresh_token: tokens.refresh_token.into(),
        refresh_token_expires_at: tokens.refresh_expires_at.and_utc(),
        session_id: tokens.session_id,
        user: Profile::from(&user),
    }
}

/// Tokens are secrets: no cache may keep an answer that carries them.
fn no_store() -> (actix_web::http::header::HeaderName, HeaderValue) {
    (CACHE_CONTROL, HeaderValue::from_static("no-store"))
}

/// Log in: exchange a username and password for an access token and a refresh token.
///
/// Limited per client address (attempts) and by failures: after 5 failures for one account
/// from one address, each further attempt from there waits 1 s, 2 s, 4 s, ... (up to
/// 15 min) after the last failure; after 100 failures for one account from anywhere, so do
/// addresses that never logged into it (up to 1 h). Over a limit the answer is 429 with
/// `Retry-After`, whatever the password; successful logins never count. When password
/// checks are saturated the answer is 503 with `Retry-After`.
#[utoipa::path(
    tag = "sessions",
    request_body = LoginRequest,
    responses(
        (status = 201, description = "Logged in (`Cache-Control: no-store`)", body = TokenResponse),
        (status = 400, description = "The body is malformed", body = Problem,
            content_type = "application/problem+json"),
        (status = 401, description = "Unknown user or wrong password (the same answer)", body = Problem,
            content_type = "application/problem+json",
            example = json!({"type": "/problems/unauthorized", "title": "Authentication is required",
                "status": 401, "detail": "invalid username or password"})),
        (status = 429, description = "Too many attempts", body = Problem,
            content_type = "application/problem+json",
            headers(("Retry-After" = u64, description = "Seconds to wait")),
            example = json!({"type": "/problems/rate-limited", "title": "Too many requests",
                "status": 429, "detail": "too many requests; retry after 60 s", "retry_after": 60})),
        (status = 503, description = "Too many password checks at once", body = Problem,
            content_type = "application/problem+json",
            headers(("Retry-After" = u64, description = "Seconds to wait")))
    )
)]
#[post("/sessions")]
pub async fn login(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: JsonBody<LoginRequest>,
) -> Result<HttpResponse, ApiError> {
    let logged_in = password_login(&req, &state, body.into_inner()).await?;
    Ok(HttpResponse::Created()
        .insert_header(no_store())
        .json(token_response(logged_in)))
}

/// Checks the sizes and the per-address attempt limit, then logs in (the account limits,
/// the password, a new session). Shared by `POST /v1/sessions` and the web client's login
/// (`routes::web`).
pub async fn password_login(
    req: &HttpRequest,
    state: &web::Data<AppState>,
    body: LoginRequest,
) -> Result<LoggedIn, ApiError> {
    let mut checks = Checks::new();
    // Only sizes here: the rules of registration would tell which names cannot exist.
    checks.max_len("username", &body.username, USERNAME_MAX * 4);
    checks.no_control("username", &body.username);
    checks.max_len("password", body.password.expose(), PASSWORD_MAX);
    checks.finish()?;

    let client = client_addr(req, &state.config.trusted_proxies);
    state.login_ip_limiter.acquire(client).map_err(too_many)?;
    let user_agent = req
        .headers()
        .get(actix_web::http::header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let creds = Credentials {
        username: body.username,
        password: body.password,
        client,
        user_agent,
    };
    Ok(login_case::login(&state.accounts(), creds).await?)
}

/// Exchange a refresh token for a new access token and a new refresh token.
///
/// The old refresh token is used up. Presenting a used refresh token again revokes the whole
/// session (every token issued from the same login).
#[utoipa::path(
    tag = "sessions",
    request_body = RefreshRequest,
    responses(
        (status = 200, description = "New tokens (`Cache-Control: no-store`)", body = TokenResponse),
        (status = 400, description = "The body is malformed (not an object, no \
            `refresh_token` string)", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "An unusable refresh token: empty, over-long, unknown, \
            expired, used or revoked", body = Problem, content_type = "application/problem+json")
    )
)]
#[post("/sessions/refresh")]
pub async fn refresh(
    state: web::Data<AppState>,
    body: JsonBody<RefreshRequest>,
) -> Result<HttpResponse, ApiError> {
    let presented = body.into_inner().refresh_token;
    let logged_in = refresh_case::refresh(&state.accounts(), presented).await?;
    Ok(HttpResponse::Ok()
        .insert_header(no_store())
        .json(token_response(logged_in)))
}

/// Log out: end the current login session (its refresh token and access tokens).
#[utoipa::path(
    tag = "sessions",
    security(("bearer" = ["session"])),
    responses(
        (status = 204, description = "Logged out"),
        (status = 403, description = "Called with a personal access token (revoke it instead)",
            body = Problem, content_type = "application/problem+json")
    )
)]
#[delete("/sessions/current")]
pub async fn logout(
    state: web::Data<AppState>,
    auth: Authenticated,
) -> Result<HttpResponse, ApiError> {
    end_session(&state, &auth).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Ends the caller's login session (the API's logout and the web pages'); a personal
/// access token has none (403).
pub async fn end_session(state: &AppState, auth: &Authenticated) -> Result<(), ApiError> {
    let session_id = auth.require_session()?.clone();
    Ok(logout_case::logout(&state.accounts(), session_id).await?)
}

/// One login session, as its owner sees it.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({
    "id": "0192f5e4-7a3c-7cc1-9a51-3e1f0c2b8d11",
    "created_at": "2026-11-30T12:00:00Z",
    "last_used_at": "2026-12-01T08:00:00Z",
    "client_addr": "203.0.113.7",
    "user_agent": "Mozilla/5.0 (X11; Linux x86_64)",
    "current": true
}))]
pub struct SessionView {
    #[schema(value_type = String)]
    pub id: SessionId,
    /// When the login happened.
    pub created_at: DateTime<Utc>,
    /// The last refresh or use of one of its access tokens (to the minute).
    pub last_used_at: DateTime<Utc>,
    /// The client address of the login (`null` for sessions from before this was kept).
    pub client_addr: Option<String>,
    /// The `User-Agent` of the login (clipped to 256 characters).
    pub user_agent: Option<String>,
    /// Whether this is the session of the token making the request.
    pub current: bool,
}

/// One's live login sessions.
#[derive(Debug, Serialize, ToSchema)]
pub struct SessionList {
    /// Most recently used first; at most 200.
    pub items: Vec<SessionView>,
}

/// List one's live login sessions (not ended, refreshable).
#[utoipa::path(
    tag = "sessions",
    security(("bearer" = ["session"])),
    responses(
        (status = 200, description = "The live sessions, most recently used first", body = SessionList),
        (status = 401, description = "Missing or invalid token", body = Problem,
            content_type = "application/problem+json"),
        (status = 403, description = "Called with a personal access token", body = Problem,
            content_type = "application/problem+json")
    )
)]
#[get("/me/sessions")]
pub async fn list_sessions(
    state: web::Data<AppState>,
    auth: Authenticated,
) -> Result<HttpResponse, ApiError> {
    let current = auth.require_session()?.clone();
    let rows = sessions_case::list(&state.accounts(), auth.user_id.clone()).await?;
    let items = rows
        .into_iter()
        .map(|s| SessionView {
            current: s.id == current,
            id: s.id,
            created_at: s.created_at.and_utc(),
            last_used_at: s.last_used_at.and_utc(),
            client_addr: s.client_addr,
            user_agent: s.user_agent,
        })
        .collect();
    Ok(HttpResponse::Ok().json(SessionList { items }))
}

/// End one of one's login sessions: its refresh and access tokens stop working at once.
/// Ending the current one logs out; ending an ended one again is fine.
#[utoipa::path(
    tag = "sessions",
    security(("bearer" = ["session"])),
    params(("id" = String, Path, description = "The session's id")),
    responses(
        (status = 204, description = "The session has ended"),
        (status = 401, description = "Missing or invalid token", body = Problem,
            content_type = "application/problem+json"),
        (status = 403, description = "Called with a personal access token", body = Problem,
            content_type = "application/problem+json"),
        (status = 404, description = "The caller has no session with this id", body = Problem,
            content_type = "application/problem+json")
    )
)]
#[delete("/me/sessions/{id}")]
pub async fn end_session_by_id(
    state: web::Data<AppState>,
    auth: Authenticated,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    auth.require_session()?;
    let id = SessionId::new(path.into_inner());
    sessions_case::end(&state.accounts(), auth.user_id.clone(), id).await?;
    Ok(HttpResponse::NoContent().finish())
}
