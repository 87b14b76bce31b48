//! `GET/POST/DELETE /v1/me/vacation`: stop one's clocks for a while (see
//! [`crate::notifications::vacation`] for the policy).

use actix_web::{HttpResponse, delete, get, post, web};
use chrono::{DateTime, Datelike, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::auth::{Authenticated, Scope};
use crate::db;
use crate::error::{ApiError, Problem};
use crate::extract::JsonBody;
use crate::notifications::vacation::{self, VacationRow};
use crate::state::AppState;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(get_vacation)
        .service(start_vacation)
        .service(end_vacation);
}

const PROBLEM: &str = "application/problem+json";

#[derive(Debug, Serialize, ToSchema)]
pub struct VacationView {
    pub starts_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
}

impl VacationView {
    fn of(v: &VacationRow) -> VacationView {
        VacationView {
            starts_at: v.starts_at.and_utc(),
            ends_at: v.ends_at.and_utc(),
        }
    }
}

/// My vacation and allowance.
#[derive(Debug, Serialize, ToSchema)]
pub struct VacationStatus {
    /// The running or next vacation.
    pub vacation: Option<VacationView>,
    /// True while a vacation runs.
    pub on_vacation: bool,
    /// Vacation days per calendar year.
    pub allowance_days: u32,
    /// Seconds of vacation taken or booked this calendar year.
    pub used_secs_this_year: i64,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"ends_at": "2026-12-20T00:00:00Z"}))]
pub struct VacationRequest {
    /// When it starts (default: now).
    pub starts_at: Option<DateTime<Utc>>,
    pub ends_at: DateTime<Utc>,
}

async fn status(app: &web::Data<AppState>, user: String) -> Result<VacationStatus, ApiError> {
    let now = app.clock.now();
    let allowance_days = app.config.notify.vacation_days;
    db::run(&app.pool, move |conn| {
        let v = vacation::current_or_next(conn, &user, now)?;
        let used = vacation::used_secs(conn, &user, now.year())?;
        Ok(VacationStatus {
            on_vacation: v.as_ref().is_some_and(|v| v.starts_at <= now),
            vacation: v.as_ref().map(VacationView::of),
            allowance_days,
            used_secs_this_year: used,
        })
    })
    .await
}

/// My vacation: the running or next one, and the allowance.
#[utoipa::path(
    tag = "notifications",
    security(("bearer" = ["read"])),
    responses(
        (status = 200, description = "Vacation status", body = VacationStatus),
        (status = 401, description = "Missing or invalid token", body = Problem, content_type = PROBLEM)
    )
)]
#[get("/me/vacation")]
pub async fn get_vacation(
    app: web::Data<AppState>,
    auth: Authenticated,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::Read)?;
    Ok(HttpResponse::Ok().json(status(&app, auth.user_id.clone()).await?))
}

/// Go on vacation (now or later, until `ends_at`).
///
/// While it runs, the clocks of my seats stop: the deadlines of all my games move by the
/// time spent on vacation. Within `DJAMBI_VACATION_DAYS` days per calendar year.
#[utoipa::path(
    tag = "notifications",
    security(("bearer" = ["play"])),
    request_body = VacationRequest,
    responses(
        (status = 201, description = "Booked", body = VacationStatus),
        (status = 400, description = "In the past, too short, or beyond the allowance", body = Problem, content_type = PROBLEM),
        (status = 401, description = "Missing or invalid token", body = Problem, content_type = PROBLEM),
        (status = 409, description = "Overlaps another vacation", body = Problem, content_type = PROBLEM)
    )
)]
#[post("/me/vacation")]
pub async fn start_vacation(
    app: web::Data<AppState>,
    auth: Authenticated,
    body: JsonBody<VacationRequest>,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::Play)?;
    let b = body.into_inner();
    let now = app.clock.now();
    let starts = b.starts_at.map(|t| t.naive_utc()).unwrap_or(now);
    let ends = b.ends_at.naive_utc();
    let user = auth.user_id.clone();
    let days = app.config.notify.vacation_days;
    db::run(&app.pool, move |conn| {
        db::transaction(conn, |conn| {
            vacation::create(conn, &user, starts, ends, now, days)
        })
    })
    .await?;
    Ok(HttpResponse::Created().json(status(&app, auth.user_id.clone()).await?))
}

/// End my vacation now (or cancel the next one).
#[utoipa::path(
    tag = "notifications",
    security(("bearer" = ["play"])),
    responses(
        (status = 200, description = "Ended", body = VacationStatus),
        (status = 401, description = "Missing or invalid token", body = Problem, content_type = PROBLEM),
        (status = 404, description = "No running or coming vacation", body = Problem, content_type = PROBLEM)
    )
)]
#[delete("/me/vacation")]
pub async fn end_vacation(
    app: web::Data<AppState>,
    auth: Authenticated,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::Play)?;
    let user = auth.user_id.clone();
    let now = app.clock.now();
    let ended = db::run(&app.pool, move |conn| Ok(vacation::end(conn, &user, now)?)).await?;
    if ended.is_none() {
        return Err(ApiError::NotFound("no running or coming vacation".into()));
    }
    Ok(HttpResponse::Ok().json(status(&app, auth.user_id.clone()).await?))
}
