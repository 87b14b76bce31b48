//! `PUT/DELETE /v1/me/mutes/{username}`, `GET /v1/me/mutes`: players whose table talk the
//! caller does not see (see [`crate::messages::mute`]).

use actix_web::{HttpResponse, delete, get, put, web};
use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::auth::Scope;
use crate::error::{ApiError, Problem};
use crate::messages;
use crate::routes::caller::Authenticated;
use crate::state::AppState;

const PROBLEM: &str = "application/problem+json";

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(list_mutes).service(mute).service(unmute);
}

/// A muted player.
#[derive(Debug, Serialize, ToSchema)]
pub struct MuteView {
    pub username: String,
    pub since: DateTime<Utc>,
}

/// The players I muted.
#[derive(Debug, Serialize, ToSchema)]
pub struct MuteList {
    pub items: Vec<MuteView>,
}

/// The players I muted, oldest first.
#[utoipa::path(
    tag = "messages",
    security(("bearer" = ["read"])),
    responses(
        (status = 200, description = "My mutes", body = MuteList),
        (status = 401, description = "Missing or invalid token", body = Problem, content_type = PROBLEM)
    )
)]
#[get("/me/mutes")]
pub async fn list_mutes(
    app: web::Data<AppState>,
    auth: Authenticated,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::Read)?;
    let items = messages::mute::mutes(&app.pool, auth.user_id).await?;
    Ok(HttpResponse::Ok().json(MuteList {
        items: items
            .into_iter()
            .map(|(username, since)| MuteView {
                username,
                since: since.and_utc(),
            })
            .collect(),
    }))
}

/// Mute a player: their messages are no longer shown to me, nor notified. Idempotent.
#[utoipa::path(
    tag = "messages",
    security(("bearer" = ["play"])),
    params(("username" = String, Path, description = "The player to mute", max_length = 40)),
    responses(
        (status = 204, description = "Muted"),
        (status = 400, description = "Myself", body = Problem, content_type = PROBLEM),
        (status = 401, description = "Missing or invalid token", body = Problem, content_type = PROBLEM),
        (status = 403, description = "The token lacks the play scope", body = Problem, content_type = PROBLEM),
        (status = 404, description = "No such player", body = Problem, content_type = PROBLEM)
    )
)]
#[put("/me/mutes/{username}")]
pub async fn mute(
    app: web::Data<AppState>,
    auth: Authenticated,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::Play)?;
    messages::mute::mute(&app.pool, &*app.clock, auth.user_id, path.into_inner()).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Unmute a player.
#[utoipa::path(
    tag = "messages",
    security(("bearer" = ["play"])),
    params(("username" = String, Path, description = "The player to unmute", max_length = 40)),
    responses(
        (status = 204, description = "Unmuted"),
        (status = 401, description = "Missing or invalid token", body = Problem, content_type = PROBLEM),
        (status = 403, description = "The token lacks the play scope", body = Problem, content_type = PROBLEM),
        (status = 404, description = "No such player, or not muted", body = Problem, content_type = PROBLEM)
    )
)]
#[delete("/me/mutes/{username}")]
pub async fn unmute(
    app: web::Data<AppState>,
    auth: Authenticated,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::Play)?;
    messages::mute::unmute(&app.pool, auth.user_id, path.into_inner()).await?;
    Ok(HttpResponse::NoContent().finish())
}
