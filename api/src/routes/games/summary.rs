//! `GET /v1/games/{id}`: a game's summary.

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, get, web};

use super::{MaybeAuthenticated, PROBLEM, etag, game_id, not_modified};
use crate::error::{ApiError, Problem};
use crate::games::queries;
use crate::routes::games::views::GameSummary;
use crate::state::AppState;

/// A game's summary: status, seats and players, whose turn, version, result.
///
/// `ETag` is the version; with `If-None-Match` the answer may be `304 Not Modified`.
#[utoipa::path(
    tag = "games",
    security((), ("bearer" = [])),
    params(("id" = String, Path, description = "The game's id", max_length = 64, pattern = "^[A-Za-z0-9-]+$")),
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
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(&path)?;
    let (row, players) = queries::summary(app.game_ctx(), id).await?;
    if not_modified(&req, row.version) {
        return Ok(HttpResponse::NotModified()
            .insert_header((header::ETAG, etag(row.version)))
            .finish());
    }
    let viewer = viewer.0.map(|a| a.user_id);
    Ok(HttpResponse::Ok()
        .insert_header((header::ETAG, etag(row.version)))
        .json(GameSummary::of(&row, &players, viewer.as_deref())))
}
