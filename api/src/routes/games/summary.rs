//! `GET /v1/games/{id}`: a game's summary.

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, get, web};

use super::{MaybeAuthenticated, PROBLEM, etag, not_modified};
use crate::error::{ApiError, Problem};
use crate::games::queries;
use crate::routes::games::views::GameSummary;
use crate::routes::params::GameIdPath;
use crate::state::AppState;

/// A game's summary: status, seats and players, whose turn, version, result.
///
/// `ETag` is the version; with `If-None-Match` the answer may be `304 Not Modified`.
#[utoipa::path(
    tag = "games",
    security((), ("bearer" = [])),
    params(GameIdPath),
    responses(
        (status = 200, description = "The summary", body = GameSummary),
        (status = 304, description = "Not modified since the version in `If-None-Match`"),
        (status = 404, description = "No such game", body = Problem, content_type = PROBLEM)
    )
)]
#[get("/games/{id}")]
pub async fn get_game(
    app: web::Data<AppState>,
    viewer: MaybeAuthenticated,
    req: HttpRequest,
    id: GameIdPath,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let (row, players) = queries::summary(app.game_ctx(), id).await?;
    if not_modified(&req, row.version) {
        return Ok(HttpResponse::NotModified()
            .insert_header((header::ETAG, etag(row.version)))
            .finish());
    }
    let viewer = viewer.0.map(|a| a.user_id);
    Ok(HttpResponse::Ok()
        .insert_header((header::ETAG, etag(row.version)))
        .json(GameSummary::of(&row, &players, viewer.as_ref())))
}
