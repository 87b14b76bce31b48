//! Liveness (`/healthz`), readiness (`/readyz`, checks the database) and the OpenAPI
//! document (`/openapi.json`).

use actix_web::{HttpResponse, get, web};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::error::{ApiError, Problem};
use crate::state::AppState;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(healthz).service(readyz).service(openapi_json);
}

#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"status": "ok"}))]
pub struct Health {
    /// `ok` (alive) or `ready` (database reachable).
    pub status: String,
}

/// Liveness: the process answers.
#[utoipa::path(
    tag = "health",
    responses((status = 200, description = "The server is alive", body = Health))
)]
#[get("/healthz")]
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok().json(Health {
        status: "ok".into(),
    })
}

/// Readiness: the database answers.
#[utoipa::path(
    tag = "health",
    responses(
        (status = 200, description = "The database is reachable", body = Health,
            example = json!({"status": "ready"})),
        (status = 503, description = "The database is not reachable", body = Problem,
            content_type = "application/problem+json")
    )
)]
#[get("/readyz")]
pub async fn readyz(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    crate::games::stats::database_ready(&state.pool).await?;
    Ok(HttpResponse::Ok().json(Health {
        status: "ready".into(),
    }))
}

/// The rendered OpenAPI document. The document is collected from the routes, so the
/// routes do not build it themselves: the server hands it in as app data.
#[derive(Debug, Clone, Copy)]
pub struct OpenApiDocument(pub &'static str);

/// This API's OpenAPI 3.1 document.
#[utoipa::path(
    tag = "meta",
    responses((status = 200, description = "The OpenAPI 3.1 document", content_type = "application/json"))
)]
#[get("/openapi.json")]
pub async fn openapi_json(doc: web::Data<OpenApiDocument>) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/json")
        .body(doc.0)
}
