//! `GET/PUT /v1/me/notification-settings`: which kinds of notification go to which
//! channel, reminder offsets and the daily digest (see [`crate::notifications::settings`]).

use actix_web::{HttpResponse, get, put, web};
use utoipa_actix_web::service_config::ServiceConfig;

use crate::auth::{Authenticated, Scope};
use crate::error::{ApiError, Problem};
use crate::extract::JsonBody;
use crate::notifications::settings::{self, NotificationSettings};
use crate::state::AppState;
use crate::store;
use crate::store::StoreError;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(get_settings).service(put_settings);
}

const PROBLEM: &str = "application/problem+json";

/// My notification settings.
///
/// Per kind: `feed` (always on), `email` and `webhook`; the reminder offsets before a
/// deadline; and whether mail comes as one daily digest.
#[utoipa::path(
    tag = "notifications",
    security(("bearer" = ["read"])),
    responses(
        (status = 200, description = "The settings (defaults until changed)", body = NotificationSettings),
        (status = 401, description = "Missing or invalid token", body = Problem, content_type = PROBLEM)
    )
)]
#[get("/me/notification-settings")]
pub async fn get_settings(
    app: web::Data<AppState>,
    auth: Authenticated,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::Read)?;
    let user = auth.user_id.clone();
    let s = store::run(&app.pool, move |conn| settings::load(conn, &user))
        .await
        .map_err(ApiError::from)?;
    Ok(HttpResponse::Ok().json(s))
}

/// Replace my notification settings.
///
/// Kinds left out get their defaults; `feed: false` is refused (the feed is always on).
/// Needs a login session.
#[utoipa::path(
    tag = "notifications",
    security(("bearer" = ["session"])),
    request_body = NotificationSettings,
    responses(
        (status = 200, description = "The settings as saved", body = NotificationSettings),
        (status = 400, description = "An unknown kind, `feed: false` or a bad offset", body = Problem, content_type = PROBLEM),
        (status = 401, description = "Missing or invalid token", body = Problem, content_type = PROBLEM),
        (status = 403, description = "A personal access token", body = Problem, content_type = PROBLEM)
    )
)]
#[put("/me/notification-settings")]
pub async fn put_settings(
    app: web::Data<AppState>,
    auth: Authenticated,
    body: JsonBody<NotificationSettings>,
) -> Result<HttpResponse, ApiError> {
    auth.require_session()?;
    let s = body.into_inner().checked()?;
    let user = auth.user_id.clone();
    let at = app.clock.now();
    let saved = s.clone();
    store::run(&app.pool, move |conn| {
        settings::save(conn, &user, &saved, at)
    })
    .await
    .map_err(|e: StoreError| ApiError::from(e))?;
    Ok(HttpResponse::Ok().json(s))
}
