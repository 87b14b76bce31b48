//! `GET /v1/games/{id}/board.svg`: the position as a picture, now or at any version.

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, get, web};
use domain::{Action, SvgOptions};

use super::position::StateParams;
use super::{PROBLEM, etag, not_modified};
use crate::error::{ApiError, Problem};
use crate::games::queries;
use crate::model::events::Status;
use crate::routes::params::GameIdPath;
use crate::state::AppState;

/// How long a picture of the current position may be cached: it changes with the next
/// event.
const CURRENT_MAX_AGE: &str = "public, max-age=5";
/// A past version never changes.
const PAST_MAX_AGE: &str = "public, max-age=31536000, immutable";

/// The board as an SVG picture: the maze, coordinates, each piece in its party's colour
/// with its kind's letter, corpses, the last move highlighted, and a caption (whose turn,
/// who rules, who controls each party).
///
/// `?at=N` draws the position after the first N events (default: now) with the last move
/// at or before event N. `ETag` is the version drawn; past versions never change and are
/// served `Cache-Control: public, max-age=31536000, immutable`, the current one with a
/// short `max-age`. Readable without a token.
#[utoipa::path(
    tag = "games",
    params(GameIdPath, StateParams),
    responses(
        (status = 200, description = "The picture; `ETag` is the version drawn", body = String, content_type = "image/svg+xml"),
        (status = 304, description = "Not modified since the version in `If-None-Match`"),
        (status = 400, description = "`validation`: `at` is not a positive number", body = Problem, content_type = PROBLEM),
        (status = 404, description = "`not-found`: no such game, or it has not reached version `at` yet", body = Problem, content_type = PROBLEM)
    )
)]
#[get("/games/{id}/board.svg")]
pub async fn board_svg(
    app: web::Data<AppState>,
    req: HttpRequest,
    id: GameIdPath,
    query: web::Query<StateParams>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let at = query.at;
    let (state, current, _) = queries::state_at(app.game_ctx(), id, at).await?;
    let cache = if state.version < current {
        PAST_MAX_AGE
    } else {
        CURRENT_MAX_AGE
    };
    if not_modified(&req, state.version) {
        return Ok(HttpResponse::NotModified()
            .insert_header((header::ETAG, etag(state.version)))
            .insert_header((header::CACHE_CONTROL, cache))
            .finish());
    }
    let last_move = state.actions.iter().rev().find_map(|a| match a {
        Action::Move(mv) => Some(*mv),
        _ => None,
    });
    // Before the start (seats still free, as at version 1 of every played game) nobody is
    // to move: the caption says the game waits for its players.
    let svg = if state.status == Status::Open {
        domain::board_svg_before_start(state.game.position(), &SvgOptions::default())
    } else {
        domain::board_svg(
            state.game.position(),
            last_move.as_ref(),
            &SvgOptions::default(),
        )
    };
    Ok(HttpResponse::Ok()
        .insert_header((header::ETAG, etag(state.version)))
        .insert_header((header::CACHE_CONTROL, cache))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .content_type("image/svg+xml")
        .body(svg))
}
