//! `GET /v1/me` and `PATCH /v1/me`: one's own profile, email and password change.

use actix_web::{HttpRequest, HttpResponse, get, patch, web};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::accounts::{password_policy, users};
use crate::auth::{Authenticated, Scope, SecretString};
use crate::error::{ApiError, Problem};
use crate::extract::JsonBody;
use crate::rate_limit::{client_addr, too_many};
use crate::state::AppState;
use crate::store::{self, models::User};
use crate::validate::{Checks, PASSWORD_MAX};

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(get_me).service(patch_me);
}

/// An account as its owner sees it.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(example = json!({
    "id": "0192f5e4-7a3c-7cc1-9a51-3e1f0c2b8d11",
    "username": "alice",
    "email": "alice@example.org",
    "created_at": "2026-11-30T12:00:00Z",
    "updated_at": "2026-11-30T12:00:00Z"
}))]
pub struct Profile {
    pub id: String,
    pub username: String,
    pub email: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<&User> for Profile {
    fn from(u: &User) -> Self {
        Profile {
            id: u.id.clone(),
            username: u.username.clone(),
            email: u.email.clone(),
            created_at: u.created_at.and_utc(),
            updated_at: u.updated_at.and_utc(),
        }
    }
}

/// What a password change ended.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
pub struct PasswordChange {
    /// Other login sessions ended (their access and refresh tokens no longer work).
    pub sessions_ended: usize,
    /// Personal access tokens revoked.
    pub personal_access_tokens_revoked: usize,
}

/// The profile after a change; after a password change, also what it ended.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(example = json!({
    "id": "0192f5e4-7a3c-7cc1-9a51-3e1f0c2b8d11",
    "username": "alice",
    "email": "alice@example.org",
    "created_at": "2026-11-30T12:00:00Z",
    "updated_at": "2026-12-01T08:00:00Z",
    "password_changed": {"sessions_ended": 2, "personal_access_tokens_revoked": 1}
}))]
pub struct UpdatedProfile {
    #[serde(flatten)]
    pub profile: Profile,
    /// Present when the password was changed: every other login session has ended and
    /// every personal access token is revoked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub password_changed: Option<PasswordChange>,
}

/// Changes to one's account. Every field is optional; at least one of `email` and
/// `new_password` is needed, and either needs the current password. A new password ends
/// every other login session and revokes every personal access token.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"current_password": "correct horse battery", "new_password": "battery staple horse"}))]
pub struct UpdateMeRequest {
    /// A new email address (as at registration); needs `current_password`.
    #[schema(
        min_length = 5,
        max_length = 254,
        pattern = "^\\s*[^@\\s\\x00-\\x1f\\x7f-\\x9f]+@[^@.\\s\\x00-\\x1f\\x7f-\\x9f][^@\\s\\x00-\\x1f\\x7f-\\x9f]*\\.[^@\\s\\x00-\\x1f\\x7f-\\x9f]*[^@.\\s\\x00-\\x1f\\x7f-\\x9f]\\s*$"
    )]
    pub email: Option<String>,
    /// Required with `email` or `new_password`.
    #[schema(value_type = Option<String>, format = Password, min_length = 1, max_length = 128)]
    pub current_password: Option<SecretString>,
    /// Same rules as at registration. Changing the password ends every other login
    /// session and revokes every personal access token.
    #[schema(value_type = Option<String>, format = Password, min_length = 8, max_length = 128)]
    pub new_password: Option<SecretString>,
}

/// One's own profile.
#[utoipa::path(
    tag = "me",
    security(("bearer" = ["read"])),
    responses(
        (status = 200, description = "The caller's profile", body = Profile),
        (status = 401, description = "Missing or invalid token", body = Problem,
            content_type = "application/problem+json"),
        (status = 403, description = "The token lacks the `read` scope", body = Problem,
            content_type = "application/problem+json")
    )
)]
#[get("/me")]
pub async fn get_me(
    state: web::Data<AppState>,
    auth: Authenticated,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::Read)?;
    let user = find_user(&state, auth.user_id).await?;
    Ok(HttpResponse::Ok().json(Profile::from(&user)))
}

async fn find_user(state: &AppState, user_id: String) -> Result<User, ApiError> {
    store::run(&state.pool, move |conn| {
        users::find(conn, &user_id)?
            .ok_or_else(|| ApiError::invalid_token("the account no longer exists"))
    })
    .await
}

/// Change one's email or password (needs a login session, not a personal access token,
/// and the current password).
///
/// A password change ends every other login session of the account (their access and
/// refresh tokens stop working at once) and revokes every personal access token; the
/// session that made the change lives on. Wrong current passwords count against the
/// account's login limits.
#[utoipa::path(
    tag = "me",
    security(("bearer" = ["session"])),
    request_body = UpdateMeRequest,
    responses(
        (status = 200, description = "The updated profile; after a password change every other \
            session has ended and every personal access token is revoked, as \
            `password_changed` says", body = UpdatedProfile),
        (status = 400, description = "A field is invalid, or the current password is wrong",
            body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Missing or invalid token", body = Problem,
            content_type = "application/problem+json"),
        (status = 403, description = "Called with a personal access token", body = Problem,
            content_type = "application/problem+json"),
        (status = 429, description = "Too many wrong passwords for this account (shared with \
            the login limit); `Retry-After` says when to try again", body = Problem,
            content_type = "application/problem+json"),
        (status = 503, description = "Too many password checks at once; `Retry-After` says \
            when to try again", body = Problem, content_type = "application/problem+json")
    )
)]
#[patch("/me")]
pub async fn patch_me(
    req: HttpRequest,
    state: web::Data<AppState>,
    auth: Authenticated,
    body: JsonBody<UpdateMeRequest>,
) -> Result<HttpResponse, ApiError> {
    let session_id = auth.require_session()?.to_string();
    let body = body.into_inner();
    let user = find_user(&state, auth.user_id.clone()).await?;

    let email = body.email.as_deref().map(|e| e.trim().to_string());
    let mut checks = Checks::new();
    if email.is_none() && body.new_password.is_none() {
        checks.add(
            "body",
            "nothing to change: give `email` and/or `new_password`",
        );
    }
    if let Some(sent) = &body.email {
        checks.email_as_sent("email", sent);
    }
    let new_password = body.new_password.as_ref().and_then(|p| {
        checks.new_password(
            "new_password",
            p,
            &user.username,
            email.as_deref().unwrap_or(&user.email),
        )
    });
    match &body.current_password {
        None if email.is_some() || body.new_password.is_some() => checks.add(
            "current_password",
            "is required to change the email or the password",
        ),
        None => {}
        Some(p) => checks.max_len("current_password", p.expose(), PASSWORD_MAX),
    }
    checks.finish()?;
    let current = body.current_password.unwrap_or_default();

    // Guessing the current password with a stolen access token counts against the same
    // limits as logins.
    let client = client_addr(&req, &state.config.trusted_proxies);
    let mut attempt = state
        .login_throttle
        .begin(&user.username, client)
        .await
        .map_err(too_many)?;
    attempt.account(&user.id).await.map_err(too_many)?;
    let candidates = password_policy::candidates(current.expose());
    if !state
        .passwords
        .verify(candidates, Some(user.password_hash.clone()))
        .await?
    {
        attempt.failed();
        return Err(ApiError::field("current_password", "is not correct"));
    }
    attempt.succeeded();
    let new_hash = match new_password {
        Some(p) => Some(state.passwords.hash(p).await?),
        None => None,
    };

    let user_id = auth.user_id.clone();
    let (user, changed) = store::run(&state.pool, move |conn| {
        users::update(
            conn,
            &user_id,
            email.as_deref(),
            new_hash.as_deref(),
            &session_id,
        )?
        .ok_or_else(|| ApiError::invalid_token("the account no longer exists"))
    })
    .await?;
    if let Some(c) = changed {
        tracing::info!(
            user_id = %user.id,
            sessions_ended = c.sessions_ended,
            tokens_revoked = c.tokens_revoked,
            "password changed; other sessions ended, personal access tokens revoked"
        );
    }
    Ok(HttpResponse::Ok().json(UpdatedProfile {
        profile: Profile::from(&user),
        password_changed: changed.map(|c| PasswordChange {
            sessions_ended: c.sessions_ended,
            personal_access_tokens_revoked: c.tokens_revoked,
        }),
    }))
}
