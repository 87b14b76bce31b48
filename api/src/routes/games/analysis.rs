//! `POST /v1/games/{id}/analysis` and `GET /v1/games/{id}/analysis`: the engine's
//! analysis of a finished game or a study game (the use cases are `crate::analysis`).

use actix_web::http::header;
use actix_web::{HttpResponse, get, post, web};
use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;

use super::PROBLEM;
use crate::analysis::{self, Analysis, Progress, Requested};
use crate::auth::Scope;
use crate::error::{ApiError, Problem};
use crate::ids::GameId;
use crate::model::analysis::{MoveAnalysis, SeatValues};
use crate::routes::caller::Authenticated;
use crate::routes::params::GameIdPath;
use crate::state::AppState;

/// A game's analysis by the engine: its progress, then per move the values, the
/// preferred move and the judgement.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({
    "game_id": "5b3f2a4e-1c7d-4e55-9a0b-7f3e2d1c0b9a",
    "engine_version": "djambi-0.1.0/analysis-1/level-3",
    "status": "done", "plies": 1, "plies_done": 1,
    "requested_at": "2026-12-02T18:00:00Z", "finished_at": "2026-12-02T18:00:09Z",
    "moves": [{
        "ply": 1, "seat": "R", "move": "C8-D7", "best": "C7-E5",
        "best_score": 140, "played_score": 60, "loss": 80, "judgement": null,
        "chief_left_en_prise": false,
        "before": {"R": 140, "B": -30, "Y": -35, "G": -30}, "depth": 3, "nodes": 12104
    }],
    "last": {"R": 60, "B": -20, "Y": -30, "G": -25}
}))]
pub struct AnalysisView {
    #[schema(value_type = String)]
    pub game_id: GameId,
    /// The engine that analysed (the rules crate's version, the analysis's format and the
    /// level); a newer one analyses the game again.
    pub engine_version: String,
    /// `queued`, `running`, `done` or `failed`.
    pub status: String,
    /// Moves in the game, and moves analysed so far.
    pub plies: i32,
    pub plies_done: i32,
    pub requested_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
    /// The moves analysed so far, in order. Values are in hundredths of a militant from
    /// each seat's side (its standing less the field's, the rivals assumed to play
    /// together against it), forced results capped at ±10,000.
    pub moves: Vec<MoveAnalysis>,
    /// Each seat's value of the final position, once done.
    pub last: Option<SeatValues>,
}

impl AnalysisView {
    fn of(a: Analysis) -> AnalysisView {
        AnalysisView {
            game_id: a.game_id,
            engine_version: a.engine_version,
            status: a.progress.as_str().to_string(),
            plies: a.plies,
            plies_done: a.plies_done,
            requested_at: a.requested_at.and_utc(),
            finished_at: a.finished_at.map(|t| t.and_utc()),
            moves: a.moves,
            last: a.last,
        }
    }
}

/// 202 with `Location` while queued or running, 200 once finished.
fn respond(a: Analysis) -> HttpResponse {
    let location = format!("/v1/games/{}/analysis", a.game_id);
    let pending = matches!(a.progress, Progress::Queued | Progress::Running);
    let view = AnalysisView::of(a);
    if pending {
        HttpResponse::Accepted()
            .insert_header((header::LOCATION, location))
            .insert_header((header::RETRY_AFTER, "2"))
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .json(view)
    } else {
        HttpResponse::Ok()
            .insert_header((header::CACHE_CONTROL, "no-cache"))
            .json(view)
    }
}

/// Ask for the engine's analysis of a game.
///
/// For a finished game or an imported study game. Idempotent: at most one analysis per
/// game and engine version; asking again answers the one there is (202 while it waits or
/// runs, 200 once done) and charges nothing. The analysis runs in the background, after
/// the searches of games being played; `Location` is where to read it. A game that is not
/// public may be analysed only by its players and its creator (`404` to others).
/// Quotas: `DJAMBI_ANALYSIS_PER_ACCOUNT_PER_DAY` analyses per account in 24 hours (429
/// with `Retry-After`), `DJAMBI_ANALYSIS_QUEUE_MAX` waiting or running on the site (409
/// `quota-exceeded`).
#[utoipa::path(
    tag = "games",
    security(("bearer" = ["play"])),
    params(GameIdPath),
    responses(
        (status = 200, description = "Already analysed by the current engine", body = AnalysisView),
        (status = 202, description = "Queued or running: its progress; read it at `Location`", body = AnalysisView,
            headers(("Location" = String, description = "`/v1/games/{id}/analysis`"),
                    ("Retry-After" = u32, description = "Seconds before looking again"))),
        (status = 403, description = "No `play` scope", body = Problem, content_type = PROBLEM),
        (status = 404, description = "No such game, or not one you may read", body = Problem, content_type = PROBLEM),
        (status = 409, description = "`conflict`: the game is being played; `quota-exceeded`: too many analyses wait on the site", body = Problem, content_type = PROBLEM),
        (status = 429, description = "`rate-limited`: the account's analyses of the last 24 hours (`Retry-After`)", body = Problem, content_type = PROBLEM)
    )
)]
#[post("/games/{id}/analysis")]
pub async fn request_analysis(
    app: web::Data<AppState>,
    id: GameIdPath,
    caller: Authenticated,
) -> Result<HttpResponse, ApiError> {
    caller.require(Scope::Play)?;
    let answer = analysis::request(app.analysis_ctx(), id.into_inner(), caller.user_id).await?;
    Ok(match answer {
        Requested::Queued(a) | Requested::Existing(a) => respond(a),
    })
}

/// Read the engine's analysis of a game.
///
/// 202 with `Location` and the progress (the moves analysed so far) while it waits or
/// runs; 200 with every move once done: each seat's value of the position before the
/// move (hundredths of a militant, forced results capped at ±10,000), the move the
/// engine prefers at the analysis level (`DJAMBI_ANALYSIS_LEVEL`, the node budget of
/// that computer player), what the move played lost for its player, and a judgement:
/// `inaccuracy` (150 or more), `mistake` (400), `blunder` (1,000, or a move after which
/// the next rival can kill the player's chief when another move avoided it). A game that
/// is not public: only its players and its creator.
#[utoipa::path(
    tag = "games",
    params(GameIdPath),
    responses(
        (status = 200, description = "The analysis", body = AnalysisView),
        (status = 202, description = "Queued or running: its progress", body = AnalysisView,
            headers(("Location" = String, description = "`/v1/games/{id}/analysis`"),
                    ("Retry-After" = u32, description = "Seconds before looking again"))),
        (status = 401, description = "Invalid token (only sent to read a game that is not public)", body = Problem, content_type = PROBLEM),
        (status = 404, description = "No such game, not one you may read, or no analysis by the current engine (ask with POST)", body = Problem, content_type = PROBLEM)
    )
)]
#[get("/games/{id}/analysis")]
pub async fn get_analysis(
    app: web::Data<AppState>,
    id: GameIdPath,
    viewer: super::MaybeAuthenticated,
) -> Result<HttpResponse, ApiError> {
    let viewer = viewer.0.map(|a| a.user_id);
    let a = analysis::read(app.analysis_ctx(), id.into_inner(), viewer).await?;
    Ok(respond(a))
}
