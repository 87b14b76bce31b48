//! `GET /v1/games/{id}/state`: the position, now or at any version.

use actix_web::http::header;
use actix_web::{HttpResponse, get, web};
use serde::Deserialize;
use utoipa::IntoParams;

use super::{PROBLEM, etag};
use crate::error::{ApiError, Problem};
use crate::games::queries;
use crate::routes::games::views::StateView;
use crate::routes::params::GameIdPath;
use crate::state::AppState;

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct StateParams {
    /// The position after this many events (1 to the current version); default: now.
    #[param(minimum = 1)]
    pub at: Option<i64>,
}

/// The position: DFEN, pieces, who controls each party, ruler, whose turn.
///
/// `?at=N` gives the position after the first N events of the log (any past version);
/// past versions never change, so their answers may be cached for good.
#[utoipa::path(
    tag = "games",
    params(GameIdPath, StateParams),
    responses(
        (status = 200, description = "The state; `ETag` is its version", body = StateView),
        (status = 400, description = "`validation`: `at` is not a positive number", body = Problem, content_type = PROBLEM),
        (status = 404, description = "`not-found`: no such game, or it has not reached version `at` yet", body = Problem, content_type = PROBLEM)
    )
)]
#[get("/games/{id}/state")]
pub async fn get_state(
    app: web::Data<AppState>,
    id: GameIdPath,
    query: web::Query<StateParams>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let at = query.at;
    let (state, current, deadline) = queries::state_at(app.game_ctx(), id, at).await?;
    let mut response = HttpResponse::Ok();
    response.insert_header((header::ETAG, etag(state.version)));
    if state.version < current {
        response.insert_header((header::CACHE_CONTROL, "public, max-age=31536000, immutable"));
    }
    let mut view = StateView::of(&state);
    view.deadline = deadline.map(|d| d.and_utc());
    Ok(response.json(view))
}
