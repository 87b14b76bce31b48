//! `GET /v1/games/{id}/record`: the game record as text.

use actix_web::http::header;
use actix_web::{HttpResponse, get, web};

use crate::games::record;

use super::{PROBLEM, etag};
use crate::error::{ApiError, Problem};
use crate::games::queries;
use crate::routes::params::GameIdPath;
use crate::state::AppState;

/// The game record as text, in the format of `docs/record-format.md`: headers (`Event`,
/// `Site`, `GameId`, `Date`, `Started`, `Ended`, the player of each seat, `Ruleset`,
/// `Seats`, `Hostage` with three seats, `Result`), then one action a line (numbered
/// moves, `-- R resigns`, `-- R timed out`, `-- draw agreed`). `POST /v1/games/import`,
/// `djambi record check` and the rules crate read it back. A study game's record keeps
/// the headers it was imported with.
///
/// With `?messages=true`, the table talk the caller may see (the same rule as
/// `GET /v1/games/{id}/messages`) follows the moves as comment lines,
/// `; message {JSON}` (see `docs/record-format.md`): import ignores them.
///
/// With `?analysis=true`, the engine's finished analysis of the game follows each move
/// as a comment (`{eval R +0.40 B -0.12 Y -0.10 G -0.18; mistake, best was G3-F4}`: each
/// seat's value after the move in militants, then the judgement), under the rules of
/// `GET /v1/games/{id}/analysis` (404 without a finished analysis); import ignores them.
#[utoipa::path(
    tag = "games",
    params(GameIdPath, crate::routes::messages::RecordParams),
    responses(
        (status = 200, description = "The record", body = String, content_type = "text/plain",
            example = "[Event \"Djambi correspondence game\"]\n[Site \"https://djambi.example.org/\"]\n[GameId \"5b3f2a4e-1c7d-4e55-9a0b-7f3e2d1c0b9a\"]\n[Date \"2026.11.30\"]\n[Started \"2026-11-30T12:05:00Z\"]\n[Red \"alice\"]\n[Blue \"bob\"]\n[Yellow \"carol\"]\n[Ruleset \"djambi-standard-2026\"]\n[Seats \"RBY\"]\n[Hostage \"G\"]\n[Result \"*\"]\n\n1. R C8-D7\n2. B G8-F7\n-- Y resigns\n"),
        (status = 400, description = "Bad `messages`", body = Problem, content_type = PROBLEM),
        (status = 401, description = "Invalid token (only sent to see one's own table talk)", body = Problem, content_type = PROBLEM),
        (status = 404, description = "No such game (or, with `analysis=true`, no finished analysis you may read)", body = Problem, content_type = PROBLEM)
    )
)]
#[get("/games/{id}/record")]
pub async fn get_record(
    app: web::Data<AppState>,
    id: GameIdPath,
    query: web::Query<crate::routes::messages::RecordParams>,
    viewer: super::MaybeAuthenticated,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    if query.analysis {
        if query.messages {
            return Err(ApiError::field(
                "analysis",
                "`analysis` and `messages` cannot be asked for together",
            ));
        }
        let reader = viewer.0.map(|a| a.user_id);
        let (text, version) = crate::analysis::record(
            app.analysis_ctx(),
            id,
            reader,
            app.config.public_url.to_string(),
        )
        .await?;
        return Ok(HttpResponse::Ok()
            .insert_header((header::ETAG, etag(version)))
            .content_type("text/plain; charset=utf-8")
            .body(text));
    }
    if query.messages {
        let reader = viewer.0.map(|a| a.user_id);
        return crate::routes::messages::record_with_messages(&app, id, reader).await;
    }
    let (state, players) = queries::state_with_players(app.game_ctx(), id).await?;
    let text = record::text(&state, &players, app.config.public_url.as_str())
        .map_err(|e| ApiError::internal(format!("record of {}: {e}", state.id)))?;
    Ok(HttpResponse::Ok()
        .insert_header((header::ETAG, etag(state.version)))
        .content_type("text/plain; charset=utf-8")
        .body(text))
}
