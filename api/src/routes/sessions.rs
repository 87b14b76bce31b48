//! Login sessions: `POST /v1/sessions` (log in), `POST /v1/sessions/refresh` (rotate the
//! refresh token) and `DELETE /v1/sessions/current` (log out).
//!
//! A session is a family of refresh tokens. Each refresh returns a new refresh token and
//! marks the old one used; presenting a used one again means it leaked, so the whole
//! session is revoked (its refresh and access tokens stop working).

use actix_web::{HttpRequest, HttpResponse, delete, post, web};
use chrono::{DateTime, NaiveDateTime, TimeDelta, Utc};
use diesel::prelude::*;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use super::me::Profile;
use crate::auth::{Authenticated, tokens};
use crate::db::{
    self, DbConnection,
    models::{RefreshToken, Session, User},
};
use crate::error::{ApiError, Problem};
use crate::extract::JsonBody;
use crate::rate_limit::{client_ip, too_many};
use crate::schema::{refresh_tokens, sessions};
use crate::state::AppState;
use crate::validate::{Checks, PASSWORD_MAX, USERNAME_MAX};

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(login).service(refresh).service(logout);
}

/// The same answer for an unknown user and a wrong password.
const BAD_CREDENTIALS: &str = "invalid username or password";

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"username": "alice", "password": "correct horse battery"}))]
pub struct LoginRequest {
    /// Case-insensitive.
    pub username: String,
    pub password: String,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"refresh_token": "djr_3q2+7w...base64url"}))]
pub struct RefreshRequest {
    pub refresh_token: String,
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
             "email": "alice@example.org", "created_at": "2026-11-30T12:00:00Z",
             "updated_at": "2026-11-30T12:00:00Z"}
}))]
pub struct TokenResponse {
    /// A JWT for `Authorization: Bearer`, with the `read` and `play` scopes.
    pub access_token: String,
    /// Always `Bearer`.
    pub token_type: String,
    /// Seconds until the access token expires.
    pub expires_in: u64,
    /// Single use: `POST /v1/sessions/refresh` exchanges it for a new pair.
    pub refresh_token: String,
    pub refresh_token_expires_at: DateTime<Utc>,
    pub session_id: String,
    pub user: Profile,
}

/// Inserts a refresh token for a session; returns the token and its expiry.
fn new_refresh_token(
    conn: &mut DbConnection,
    session_id: &str,
    ttl: TimeDelta,
) -> Result<(String, NaiveDateTime), ApiError> {
    let token = tokens::generate(tokens::REFRESH_PREFIX);
    let now = db::now();
    let expires_at = now + ttl;
    diesel::insert_into(refresh_tokens::table)
        .values(&RefreshToken {
            token_hash: tokens::hash(&token),
            session_id: session_id.to_string(),
            created_at: now,
            expires_at,
            used_at: None,
        })
        .execute(conn)?;
    Ok((token, expires_at))
}

fn refresh_ttl(state: &AppState) -> TimeDelta {
    TimeDelta::from_std(state.config.refresh_token_ttl).unwrap_or(TimeDelta::days(30))
}

fn token_response(
    state: &AppState,
    user: &User,
    session_id: String,
    refresh_token: String,
    refresh_expires: NaiveDateTime,
) -> Result<TokenResponse, ApiError> {
    let (access_token, expires_in) = state.jwt.issue(&user.id, &session_id)?;
    Ok(TokenResponse {
        access_token,
        token_type: "Bearer".into(),
        expires_in,
        refresh_token,
        refresh_token_expires_at: refresh_expires.and_utc(),
        session_id,
        user: Profile::from(user),
    })
}

/// Log in: exchange a username and password for an access token and a refresh token.
///
/// Rate-limited per client address and per account name (failed attempts); over the limit
/// the answer is 429 with `Retry-After`, whatever the password.
#[utoipa::path(
    tag = "sessions",
    request_body = LoginRequest,
    responses(
        (status = 201, description = "Logged in", body = TokenResponse),
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
                "status": 429, "detail": "too many requests; retry after 60 s", "retry_after": 60}))
    )
)]
#[post("/sessions")]
pub async fn login(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: JsonBody<LoginRequest>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let mut checks = Checks::new();
    // Only sizes here: the rules of registration would tell which names cannot exist.
    checks.max_len("username", &body.username, USERNAME_MAX * 4);
    checks.no_control("username", &body.username);
    checks.max_len("password", &body.password, PASSWORD_MAX);
    checks.finish()?;

    let account_key = body.username.to_lowercase();
    state
        .login_ip_limiter
        .acquire(&client_ip(&req))
        .map_err(too_many)?;
    // Taken before the password check, so that attempts sent in parallel cannot all pass
    // before the first failure is counted; given back when the login succeeds.
    state
        .login_account_limiter
        .acquire(&account_key)
        .map_err(too_many)?;

    let username = body.username.clone();
    let user = db::run(&state.pool, move |conn| {
        Ok(User::find_by_username(conn, &username)?)
    })
    .await?;

    let passwords = state.passwords.clone();
    let password = body.password;
    let stored = user.as_ref().map(|u| u.password_hash.clone());
    let ok = web::block(move || match stored {
        Some(hash) => passwords.verify(&password, &hash),
        None => passwords.verify_dummy(&password),
    })
    .await?;
    let Some(user) = user.filter(|_| ok) else {
        return Err(ApiError::unauthenticated(BAD_CREDENTIALS));
    };
    state.login_account_limiter.refund(&account_key);

    let ttl = refresh_ttl(&state);
    let user_id = user.id.clone();
    let (session_id, refresh_token, expires) = db::run(&state.pool, move |conn| {
        db::transaction(conn, |conn| {
            let now = db::now();
            let session_id = uuid::Uuid::now_v7().to_string();
            diesel::insert_into(sessions::table)
                .values(&Session {
                    id: session_id.clone(),
                    user_id,
                    created_at: now,
                    last_used_at: now,
                    revoked_at: None,
                    revoked_reason: None,
                })
                .execute(conn)?;
            let (token, expires) = new_refresh_token(conn, &session_id, ttl)?;
            Ok((session_id, token, expires))
        })
    })
    .await?;
    tracing::info!(user_id = %user.id, %session_id, "logged in");
    let body = token_response(&state, &user, session_id, refresh_token, expires)?;
    Ok(HttpResponse::Created().json(body))
}

enum RefreshOutcome {
    Rotated {
        user: User,
        session_id: String,
        token: String,
        expires: NaiveDateTime,
    },
    Rejected(&'static str),
}

/// Exchange a refresh token for a new access token and a new refresh token.
///
/// The old refresh token is used up. Presenting a used refresh token again revokes the whole
/// session (every token issued from the same login).
#[utoipa::path(
    tag = "sessions",
    request_body = RefreshRequest,
    responses(
        (status = 200, description = "New tokens", body = TokenResponse),
        (status = 400, description = "The body is malformed", body = Problem,
            content_type = "application/problem+json"),
        (status = 401, description = "Unknown, expired, used or revoked refresh token", body = Problem,
            content_type = "application/problem+json")
    )
)]
#[post("/sessions/refresh")]
pub async fn refresh(
    state: web::Data<AppState>,
    body: JsonBody<RefreshRequest>,
) -> Result<HttpResponse, ApiError> {
    let presented = body.into_inner().refresh_token;
    if presented.is_empty() || presented.len() > 200 {
        return Err(ApiError::field("refresh_token", "is not a refresh token"));
    }
    let hash = tokens::hash(&presented);
    let ttl = refresh_ttl(&state);
    let outcome = db::run(&state.pool, move |conn| {
        db::transaction(conn, |conn| {
            let Some(old) = RefreshToken::find(conn, &hash)? else {
                return Ok(RefreshOutcome::Rejected("unknown refresh token"));
            };
            let Some(session) = Session::find(conn, &old.session_id)? else {
                return Ok(RefreshOutcome::Rejected("unknown refresh token"));
            };
            if session.revoked_at.is_some() {
                return Ok(RefreshOutcome::Rejected("this session has ended"));
            }
            if old.used_at.is_some() || !RefreshToken::mark_used(conn, &hash)? {
                Session::revoke(conn, &session.id, "refresh token reused")?;
                tracing::warn!(session_id = %session.id, "refresh token reused; session revoked");
                return Ok(RefreshOutcome::Rejected(
                    "this refresh token was already used; the session has been revoked",
                ));
            }
            let now = db::now();
            if old.expires_at <= now {
                return Ok(RefreshOutcome::Rejected("this refresh token has expired"));
            }
            let Some(user) = User::find(conn, &session.user_id)? else {
                return Ok(RefreshOutcome::Rejected("the account no longer exists"));
            };
            diesel::update(sessions::table.find(&session.id))
                .set(sessions::last_used_at.eq(now))
                .execute(conn)?;
            let (token, expires) = new_refresh_token(conn, &session.id, ttl)?;
            Ok::<_, ApiError>(RefreshOutcome::Rotated {
                user,
                session_id: session.id,
                token,
                expires,
            })
        })
    })
    .await?;
    match outcome {
        RefreshOutcome::Rotated {
            user,
            session_id,
            token,
            expires,
        } => {
            let body = token_response(&state, &user, session_id, token, expires)?;
            Ok(HttpResponse::Ok().json(body))
        }
        RefreshOutcome::Rejected(why) => Err(ApiError::invalid_token(why)),
    }
}

/// Log out: end the current login session (its refresh token and access tokens).
#[utoipa::path(
    tag = "sessions",
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Logged out"),
        (status = 401, description = "Missing or invalid token", body = Problem,
            content_type = "application/problem+json"),
        (status = 403, description = "Called with a personal access token (revoke it instead)",
            body = Problem, content_type = "application/problem+json")
    )
)]
#[delete("/sessions/current")]
pub async fn logout(
    state: web::Data<AppState>,
    auth: Authenticated,
) -> Result<HttpResponse, ApiError> {
    let session_id = auth.require_session()?.to_string();
    db::run(&state.pool, move |conn| {
        Session::revoke(conn, &session_id, "logged out")?;
        Ok(())
    })
    .await?;
    Ok(HttpResponse::NoContent().finish())
}
