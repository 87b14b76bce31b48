//! `GET /v1/me` and `PATCH /v1/me`: one's own profile, email and password change.

use actix_web::{HttpResponse, get, patch, web};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::auth::{Authenticated, Scope};
use crate::db::{
    self,
    models::{Session, User},
};
use crate::error::{ApiError, Problem};
use crate::extract::JsonBody;
use crate::rate_limit::too_many;
use crate::schema::users;
use crate::state::AppState;
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

/// Changes to one's account. Every field is optional; at least one is needed. A new
/// password needs the current one, and ends every other login session.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"current_password": "correct horse battery", "new_password": "battery staple horse"}))]
pub struct UpdateMeRequest {
    pub email: Option<String>,
    pub current_password: Option<String>,
    pub new_password: Option<String>,
}

/// One's own profile.
#[utoipa::path(
    tag = "me",
    security(("bearer" = [])),
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
    let user = db::run(&state.pool, move |conn| {
        User::find(conn, &auth.user_id)?
            .ok_or_else(|| ApiError::invalid_token("the account no longer exists"))
    })
    .await?;
    Ok(HttpResponse::Ok().json(Profile::from(&user)))
}

/// Change one's email or password (needs a login session, not a personal access token).
#[utoipa::path(
    tag = "me",
    security(("bearer" = [])),
    request_body = UpdateMeRequest,
    responses(
        (status = 200, description = "The updated profile", body = Profile),
        (status = 400, description = "A field is invalid, or the current password is wrong",
            body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Missing or invalid token", body = Problem,
            content_type = "application/problem+json"),
        (status = 403, description = "Called with a personal access token", body = Problem,
            content_type = "application/problem+json"),
        (status = 429, description = "Too many wrong passwords for this account (shared with \
            the login limit); `Retry-After` says when to try again", body = Problem,
            content_type = "application/problem+json")
    )
)]
#[patch("/me")]
pub async fn patch_me(
    state: web::Data<AppState>,
    auth: Authenticated,
    body: JsonBody<UpdateMeRequest>,
) -> Result<HttpResponse, ApiError> {
    let session_id = auth.require_session()?.to_string();
    let req = body.into_inner();
    let mut checks = Checks::new();
    if req.email.is_none() && req.new_password.is_none() {
        checks.add(
            "body",
            "nothing to change: give `email` and/or `new_password`",
        );
    }
    if let Some(email) = &req.email {
        checks.email("email", email.trim());
    }
    if let Some(new_password) = &req.new_password {
        checks.password("new_password", new_password);
        match &req.current_password {
            None => checks.add("current_password", "is required to change the password"),
            Some(p) => checks.max_len("current_password", p, PASSWORD_MAX),
        }
    }
    checks.finish()?;

    let user_id = auth.user_id.clone();
    let user = db::run(&state.pool, move |conn| {
        User::find(conn, &user_id)?
            .ok_or_else(|| ApiError::invalid_token("the account no longer exists"))
    })
    .await?;

    // Verify and hash off the async workers.
    let new_hash = match (req.new_password, req.current_password) {
        (Some(new_password), Some(current)) => {
            // Guessing the current password with a stolen access token counts against the
            // same per-account limit as logins.
            let account_key = user.username.to_lowercase();
            state
                .login_account_limiter
                .acquire(&account_key)
                .map_err(too_many)?;
            let passwords = state.passwords.clone();
            let stored = user.password_hash.clone();
            let hash = web::block(move || {
                if !passwords.verify(&current, &stored) {
                    return Err(ApiError::field("current_password", "is not correct"));
                }
                passwords.hash(&new_password).map(Some)
            })
            .await??;
            state.login_account_limiter.refund(&account_key);
            hash
        }
        _ => None,
    };

    let email = req.email.map(|e| e.trim().to_string());
    let user_id = auth.user_id.clone();
    let user = db::run(&state.pool, move |conn| {
        db::transaction(conn, |conn| {
            let now = db::now();
            if let Some(email) = &email {
                diesel::update(users::table.find(&user_id))
                    .set((users::email.eq(email), users::updated_at.eq(now)))
                    .execute(conn)?;
            }
            if let Some(hash) = &new_hash {
                diesel::update(users::table.find(&user_id))
                    .set((users::password_hash.eq(hash), users::updated_at.eq(now)))
                    .execute(conn)?;
                let ended =
                    Session::revoke_all_but(conn, &user_id, Some(&session_id), "password changed")?;
                tracing::info!(%user_id, ended, "password changed; other sessions revoked");
            }
            User::find(conn, &user_id)?.ok_or_else(|| ApiError::NotFound("no such account".into()))
        })
    })
    .await?;
    Ok(HttpResponse::Ok().json(Profile::from(&user)))
}
