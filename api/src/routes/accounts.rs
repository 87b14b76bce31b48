//! `POST /v1/accounts`: registration.

use actix_web::{HttpRequest, HttpResponse, http::header, post, web};
use diesel::prelude::*;
use serde::Deserialize;
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use super::me::Profile;
use crate::db::{self, models::User};
use crate::error::{ApiError, Problem};
use crate::extract::JsonBody;
use crate::rate_limit::{client_ip, too_many};
use crate::schema::users;
use crate::state::AppState;
use crate::validate::Checks;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(register);
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"username": "alice", "email": "alice@example.org", "password": "correct horse battery"}))]
pub struct RegisterRequest {
    /// 3 to 32 characters: letters, digits, `_`, `-`; unique regardless of case.
    pub username: String,
    /// Up to 254 bytes.
    pub email: String,
    /// 8 to 128 characters.
    pub password: String,
}

/// Create an account.
#[utoipa::path(
    tag = "accounts",
    request_body = RegisterRequest,
    responses(
        (status = 201, description = "The account was created", body = Profile,
            headers(("Location" = String, description = "`/v1/me`"))),
        (status = 400, description = "A field is invalid or the body is malformed", body = Problem,
            content_type = "application/problem+json"),
        (status = 409, description = "The username is taken", body = Problem,
            content_type = "application/problem+json"),
        (status = 413, description = "The body is too large", body = Problem,
            content_type = "application/problem+json"),
        (status = 429, description = "Too many registrations from this address; `Retry-After` \
            says when to try again", body = Problem, content_type = "application/problem+json")
    )
)]
#[post("/accounts")]
pub async fn register(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: JsonBody<RegisterRequest>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let mut checks = Checks::new();
    checks.username("username", &body.username);
    checks.email("email", body.email.trim());
    checks.password("password", &body.password);
    checks.finish()?;
    // Each registration costs a password hash: limit them per client address.
    state
        .register_ip_limiter
        .acquire(&client_ip(&req))
        .map_err(too_many)?;

    let passwords = state.passwords.clone();
    let password = body.password;
    let password_hash = web::block(move || passwords.hash(&password)).await??;

    let now = db::now();
    let user = User {
        id: uuid::Uuid::now_v7().to_string(),
        username_key: body.username.to_lowercase(),
        username: body.username,
        email: body.email.trim().to_string(),
        password_hash,
        created_at: now,
        updated_at: now,
    };
    let user = db::run(&state.pool, move |conn| {
        match diesel::insert_into(users::table)
            .values(&user)
            .execute(conn)
        {
            Ok(_) => Ok(user),
            Err(diesel::result::Error::DatabaseError(
                diesel::result::DatabaseErrorKind::UniqueViolation,
                _,
            )) => Err(ApiError::Conflict(format!(
                "the username `{}` is taken",
                user.username
            ))),
            Err(e) => Err(e.into()),
        }
    })
    .await?;
    tracing::info!(user_id = %user.id, username = %user.username, "account registered");
    Ok(HttpResponse::Created()
        .insert_header((header::LOCATION, "/v1/me"))
        .json(Profile::from(&user)))
}
