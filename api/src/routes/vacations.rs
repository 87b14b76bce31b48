//! `POST/GET /v1/me/vacations`, `DELETE /v1/me/vacations/{id}`: declared absences, during
//! which one's clocks stop (see [`crate::notifications::vacation`] for the policy).

use actix_web::{HttpResponse, delete, get, http::header, post, web};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::auth::Scope;
use crate::error::{ApiError, Problem};
use crate::notifications::vacation::VacationRow;
use crate::routes::caller::Authenticated;
use crate::routes::json_body::JsonBody;
use crate::state::AppState;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(list_vacations)
        .service(declare_vacation)
        .service(end_vacation);
}

const PROBLEM: &str = "application/problem+json";

/// One declared absence.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({
    "id": "0192f5e4-7a3c-7cc1-9a51-3e1f0c2b8d11",
    "starts_at": "2026-12-10T00:00:00Z", "ends_at": "2026-12-20T00:00:00Z", "running": false
}))]
pub struct VacationView {
    pub id: String,
    pub starts_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
    /// True while it runs (the clocks of my seats are stopped).
    pub running: bool,
}

impl VacationView {
    fn of(v: &VacationRow, now: chrono::NaiveDateTime) -> VacationView {
        VacationView {
            id: v.id.clone(),
            starts_at: v.starts_at.and_utc(),
            ends_at: v.ends_at.and_utc(),
            running: v.starts_at <= now && now < v.ends_at,
        }
    }
}

/// My running and coming vacations, and the allowance left.
#[derive(Debug, Serialize, ToSchema)]
pub struct Vacations {
    /// The running and coming vacations, soonest first.
    pub items: Vec<VacationView>,
    /// True while a vacation runs.
    pub on_vacation: bool,
    /// Vacation days per calendar year.
    pub allowance_days: u32,
    /// Seconds of vacation taken or booked this calendar year (UTC).
    pub used_secs_this_year: i64,
    /// Seconds of the allowance left this calendar year.
    pub left_secs_this_year: i64,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"ends_at": "2026-12-20T00:00:00Z"}))]
pub struct VacationRequest {
    /// When it starts (default: now); not in the past.
    pub starts_at: Option<DateTime<Utc>>,
    /// When it ends: at least an hour after the start, at most 400 days ahead.
    pub ends_at: DateTime<Utc>,
}

/// My running and coming vacations, and the allowance left this year.
#[utoipa::path(
    tag = "notifications",
    security(("bearer" = ["read"])),
    responses(
        (status = 200, description = "Vacations and allowance", body = Vacations)
    )
)]
#[get("/me/vacations")]
pub async fn list_vacations(
    app: web::Data<AppState>,
    auth: Authenticated,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::Read)?;
    let list = app.notifications().vacations(&auth.user_id).await?;
    let now = list.now;
    let list = Vacations {
        on_vacation: list.on_vacation(),
        items: list
            .items
            .iter()
            .map(|v| VacationView::of(v, now))
            .collect(),
        allowance_days: list.allowance_days,
        used_secs_this_year: list.used_secs_this_year,
        left_secs_this_year: list.left_secs_this_year(),
    };
    Ok(HttpResponse::Ok().json(list))
}

/// Declare a vacation (now or later, until `ends_at`).
///
/// While it runs, the clocks of my seats stop: the deadlines of all my games move by the
/// time spent on vacation. Within `DJAMBI_VACATION_DAYS` days per calendar year; one
/// vacation at a time.
#[utoipa::path(
    tag = "notifications",
    security(("bearer" = ["play"])),
    request_body = VacationRequest,
    responses(
        (status = 201, description = "Declared", body = VacationView,
            headers(("Location" = String, description = "The vacation's URL"))),
        (status = 400, description = "In the past, too short, or beyond the allowance", body = Problem, content_type = PROBLEM),
        (status = 409, description = "Overlaps another vacation", body = Problem, content_type = PROBLEM)
    )
)]
#[post("/me/vacations")]
pub async fn declare_vacation(
    app: web::Data<AppState>,
    auth: Authenticated,
    body: JsonBody<VacationRequest>,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::Play)?;
    let b = body.into_inner();
    let (row, now) = app
        .notifications()
        .declare_vacation(
            &auth.user_id,
            b.starts_at.map(|t| t.naive_utc()),
            b.ends_at.naive_utc(),
        )
        .await?;
    Ok(HttpResponse::Created()
        .insert_header((header::LOCATION, format!("/v1/me/vacations/{}", row.id)))
        .json(VacationView::of(&row, now)))
}

/// End a running vacation now, or cancel a coming one.
#[utoipa::path(
    tag = "notifications",
    security(("bearer" = ["play"])),
    params(("id" = String, Path, format = "uuid", description = "The vacation's id")),
    responses(
        (status = 204, description = "Ended or cancelled"),
        (status = 404, description = "No running or coming vacation of mine with this id", body = Problem, content_type = PROBLEM)
    )
)]
#[delete("/me/vacations/{id}")]
pub async fn end_vacation(
    app: web::Data<AppState>,
    auth: Authenticated,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::Play)?;
    let id = super::uuid_id(id.into_inner(), "vacation")?;
    app.notifications().end_vacation(&auth.user_id, &id).await?;
    Ok(HttpResponse::NoContent().finish())
}
