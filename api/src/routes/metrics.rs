//! `GET /metrics`: the Prometheus text format (see [`crate::metrics`]). Registered outside
//! the OpenAPI document.

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};

use crate::error::ApiError;
use crate::state::AppState;

/// `GET /metrics`: the Prometheus text format. Registered outside the OpenAPI document.
pub async fn endpoint(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    if !state.config.metrics_enabled {
        return Err(ApiError::NotFound("nothing at /metrics".into()));
    }
    if let Some(token) = &state.config.metrics_token {
        let given = req
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .unwrap_or("");
        if !constant_time_eq(given.trim().as_bytes(), token.expose().as_bytes()) {
            return Err(ApiError::unauthenticated(
                "/metrics needs the bearer token set in DJAMBI_METRICS_TOKEN",
            ));
        }
    }
    let metrics = &state.metrics;
    let pool = state.pool.state();
    metrics.set_pool(
        pool.connections,
        pool.idle_connections,
        state.config.database.pool_size,
    );
    match crate::games::stats::games_by_status(&state.pool).await {
        Ok(rows) => metrics.set_games(&rows),
        Err(e) => tracing::warn!(error = %e, "metrics: cannot count games"),
    }
    Ok(HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4; charset=utf-8")
        .body(metrics.render()))
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
