//! `PUT`, `GET` and `DELETE /v1/games/{id}/seats/{seat}/conditional-moves`: the seat
//! player's private tree of conditional moves (see [`crate::games::conditional`]).

use actix_web::{HttpResponse, delete, get, put, web};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::PROBLEM;
use super::write::{GameWrite, WriteBody};
use crate::auth::Scope;
use crate::error::{ApiError, Problem};
use crate::games::conditional::{self, TreeView};
use crate::ids::GameId;
use crate::model::conditional::{MAX_LINE_BYTES, MAX_LINES, MAX_PLIES};
use crate::routes::caller::Authenticated;
use crate::routes::params::{GameIdPath, SeatPath};
use crate::state::AppState;

/// A whole tree of conditional moves, as lines of text.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({
    "lines": [
        "B G8-G6 Y H3-H4 G B3-B4 R C7-D6",
        "B G8-G6 Y H3-H4 G C2-C4 R A7-A6 B G7-F6 Y G3-F4 G B3-B4 R C8-C6"
    ],
    "expected_version": 12
}))]
pub struct ConditionalMovesRequest {
    /// The lines, each the plies in the order they would be played from the position at
    /// the version the tree is built at: a seat letter and a move (`B G8-G6 Y H3-H4 G
    /// B3-B4 R C7-D6`); the plies of your own seat are your answers. A line starts with
    /// another seat's move and ends with your answer; it may go on for further rounds.
    /// The mail form `if B G8-G6 Y H3-H4 G B3-B4 then C7-D6` is read too.
    #[schema(min_items = 1, max_items = 64, value_type = Vec<String>)]
    pub lines: Vec<String>,
    /// The game's version the tree was built at (or `If-Match`).
    #[schema(minimum = 0)]
    pub expected_version: Option<i64>,
}

impl WriteBody for ConditionalMovesRequest {
    fn expected_version(&self) -> Option<i64> {
        self.expected_version
    }
}

/// A seat's stored tree (empty `lines`: none).
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({
    "game_id": "0b7f3c8e-6d1a-4a55-9a49-2f1e0c7d9b11",
    "seat": "R",
    "base_version": 12,
    "lines": ["B G8-G6 Y H3-H4 G B3-B4 R C7-D6"],
    "leaves": 1,
    "max_lines": 64,
    "max_plies": 12,
    "updated_at": "2026-12-02T17:00:00Z"
}))]
pub struct ConditionalMovesView {
    #[schema(value_type = String)]
    pub game_id: GameId,
    #[schema(value_type = String, example = "R")]
    pub seat: domain::Seat,
    /// The game's version the lines start from (`null`: no tree).
    pub base_version: Option<i64>,
    /// The lines in canonical text; once an answer is played, what is left of the lines
    /// it was on, from the version after it.
    pub lines: Vec<String>,
    /// How many lines (leaves) the tree has.
    pub leaves: usize,
    /// The most lines a tree may have.
    pub max_lines: usize,
    /// The most plies a line may have.
    pub max_plies: usize,
    pub updated_at: Option<DateTime<Utc>>,
}

impl ConditionalMovesView {
    fn of(game_id: GameId, seat: domain::Seat, tree: Option<TreeView>) -> Self {
        let (base_version, lines, updated_at) = match tree {
            Some(t) => (Some(t.base_version), t.lines, Some(t.updated_at.and_utc())),
            None => (None, Vec::new(), None),
        };
        ConditionalMovesView {
            game_id,
            seat,
            base_version,
            leaves: lines.len(),
            lines,
            max_lines: MAX_LINES,
            max_plies: MAX_PLIES,
            updated_at,
        }
    }
}

/// Store your conditional moves for your seat (replacing any).
///
/// Every ply of every line is checked on the game as it is at the version the tree was
/// built at (`If-Match` or `expected_version`, required): the seat letter must be the
/// seat to move there (rivals, a ruler's bonus turns, skipped seats: as the rules say)
/// and the move legal under the game's ruleset. At most 64 lines of at most 12 plies;
/// two lines that agree up to one of your turns must answer alike. A bad line is a 400
/// naming the line and the ply; nothing is stored then.
///
/// When the game reaches your turn and the moves played since match the start of a
/// line, the server plays your answer at once (a `move_played` event with
/// `conditional: true`, you as its actor) and keeps the rest of the lines it was on;
/// when they match no line, the tree is discarded and you get your turn as usual. Only
/// you see the tree.
#[utoipa::path(
    tag = "games",
    security(("bearer" = ["play"])),
    request_body(content = ConditionalMovesRequest),
    params(
        GameIdPath,
        SeatPath,
        ("If-Match" = Option<String>, Header, description = "The version the tree was built at, as an ETag, e.g. \"12\"")
    ),
    responses(
        (status = 200, description = "Stored: the tree in canonical text", body = ConditionalMovesView),
        (status = 400, description = "`validation`: a bad line, naming the line and the ply (e.g. `line 2, ply 3: Y is to move here, not G`); a malformed body", body = Problem, content_type = PROBLEM,
            example = json!({"type": "/problems/validation", "title": "The request is not valid", "status": 400,
                "detail": "line 2, ply 3: Y is to move here, not G",
                "errors": [{"field": "lines[1]", "message": "line 2, ply 3: Y is to move here, not G"}]})),
        (status = 403, description = "No `play` scope, or the seat is not yours", body = Problem, content_type = PROBLEM),
        (status = 409, description = "`game-not-started`, `game-over`, or `conflict` (your seat is out)", body = Problem, content_type = PROBLEM),
        (status = 412, description = "`version-conflict`: the game moved on since the tree was built", body = Problem, content_type = PROBLEM),
        (status = 428, description = "`precondition-required`: neither `expected_version` nor `If-Match`", body = Problem, content_type = PROBLEM)
    )
)]
#[put("/games/{id}/seats/{seat}/conditional-moves")]
pub async fn put_conditional_moves(
    app: web::Data<AppState>,
    w: GameWrite<ConditionalMovesRequest>,
    seat: SeatPath,
) -> Result<HttpResponse, ApiError> {
    let seat = seat.seat();
    let Some(body) = w.body else {
        return Err(ApiError::field(
            "body",
            "give {\"lines\": [...], \"expected_version\": N}",
        ));
    };
    if let Some(claimed) = w.contradicting {
        return Err(ApiError::field(
            "If-Match",
            format!(
                "If-Match \"{claimed}\" contradicts expected_version {}",
                w.expected.unwrap_or_default()
            ),
        ));
    }
    if body.lines.len() > MAX_LINES {
        return Err(ApiError::field(
            "lines",
            format!("a tree holds at most {MAX_LINES} lines"),
        ));
    }
    if let Some(i) = body.lines.iter().position(|l| l.len() > MAX_LINE_BYTES) {
        return Err(ApiError::field(
            format!("lines[{i}]"),
            format!(
                "line {}: a line is at most {MAX_LINE_BYTES} bytes long",
                i + 1
            ),
        ));
    }
    let tree = conditional::put(
        app.game_ctx(),
        w.user_id,
        w.game_id.clone(),
        seat,
        w.expected,
        body.lines,
    )
    .await?;
    Ok(HttpResponse::Ok().json(ConditionalMovesView::of(w.game_id, seat, Some(tree))))
}

/// Read your conditional moves for your seat (empty `lines`: none stored).
#[utoipa::path(
    tag = "games",
    security(("bearer" = ["read"])),
    params(GameIdPath, SeatPath),
    responses(
        (status = 200, description = "Your tree (empty `lines`: none)", body = ConditionalMovesView),
        (status = 400, description = "Bad seat letter", body = Problem, content_type = PROBLEM),
        (status = 401, description = "Missing or invalid token", body = Problem, content_type = PROBLEM),
        (status = 403, description = "The seat is not yours (nobody else sees a seat's conditional moves)", body = Problem, content_type = PROBLEM)
    )
)]
#[get("/games/{id}/seats/{seat}/conditional-moves")]
pub async fn get_conditional_moves(
    app: web::Data<AppState>,
    auth: Authenticated,
    id: GameIdPath,
    seat: SeatPath,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::Read)?;
    let (id, seat) = (id.into_inner(), seat.seat());
    let tree = conditional::get(app.game_ctx(), auth.user_id, id.clone(), seat).await?;
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "private, no-store"))
        .json(ConditionalMovesView::of(id, seat, tree)))
}

/// Delete your conditional moves for your seat (always allowed; none stored is fine).
#[utoipa::path(
    tag = "games",
    security(("bearer" = ["play"])),
    params(GameIdPath, SeatPath),
    responses(
        (status = 204, description = "Deleted (or there was none)"),
        (status = 400, description = "Bad seat letter", body = Problem, content_type = PROBLEM),
        (status = 401, description = "Missing or invalid token", body = Problem, content_type = PROBLEM),
        (status = 403, description = "No `play` scope, or the seat is not yours", body = Problem, content_type = PROBLEM)
    )
)]
#[delete("/games/{id}/seats/{seat}/conditional-moves")]
pub async fn delete_conditional_moves(
    app: web::Data<AppState>,
    auth: Authenticated,
    id: GameIdPath,
    seat: SeatPath,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::Play)?;
    conditional::delete(app.game_ctx(), auth.user_id, id.into_inner(), seat.seat()).await?;
    Ok(HttpResponse::NoContent().finish())
}
