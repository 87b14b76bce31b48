//! `POST /v1/games/{id}/moves`: play a move.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, post, web};
use domain::Move;
use serde::Deserialize;
use serde_json::Value;
use utoipa::ToSchema;

use super::PROBLEM;
use super::write::{self, GameWrite, Render, WriteBody};
use crate::error::{ApiError, Problem};
use crate::games::commands::Command;
use crate::routes::games::views::{ActionResult, MoveJson};
use crate::routes::params::GameIdPath;
use crate::state::AppState;

/// Move text as the server reads it (`domain::Move`'s parser), for the document.
pub const MOVE_TEXT_PATTERN: &str =
    "^[A-Ia-i][1-9][-xX][A-Ia-i][1-9]([xX][A-Ia-i][1-9])?(/[A-Ia-i][1-9])?(>[A-Ia-i][1-9])?$";
/// The longest move text (`C8xD6xD5/E5>A5`).
pub const MOVE_TEXT_MAX: usize = 14;

/// A move given as canonical text or in the JSON form.
#[derive(Debug, serde::Serialize, ToSchema)]
#[serde(untagged)]
#[allow(dead_code)]
pub enum MoveInput {
    /// Canonical text, e.g. `C8xD6>A5` (either case, either separator): from, `-` or `x`,
    /// to, then optionally `x` and the victim, `/` and the exit, `>` and the placement
    /// (the document states [`MOVE_TEXT_PATTERN`]).
    Text(String),
    Json(MoveJson),
}

/// Play a move.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"move": "C8-D7", "expected_version": 6}))]
pub struct MoveRequest {
    /// Canonical text (`"C8xD6>A5"`) or the JSON form
    /// (`{"from": "C8", "to": "D6", "place": "A5"}`).
    #[serde(rename = "move")]
    #[schema(value_type = MoveInput)]
    pub mv: Value,
    /// The game's version the move was chosen at. Required unless `If-Match` is sent.
    #[schema(minimum = 0)]
    pub expected_version: Option<i64>,
}

impl WriteBody for MoveRequest {
    fn expected_version(&self) -> Option<i64> {
        self.expected_version
    }
}

fn parse_move(v: &Value) -> Result<Move, ApiError> {
    match v {
        Value::String(s) if s.len() <= 32 => s
            .parse::<Move>()
            .map_err(|e| ApiError::field("move", e.to_string())),
        Value::String(_) => Err(ApiError::field(
            "move",
            "move text is at most 32 characters",
        )),
        v @ Value::Object(_) => crate::routes::json_body::from_value_at::<Move>("move", v.clone()),
        _ => Err(ApiError::field(
            "move",
            "must be move text (\"C8-D7\") or a move object ({\"from\": \"C8\", \"to\": \"D7\"})",
        )),
    }
}

/// Play a move for your seat.
///
/// Requires the version the move was chosen at, as `expected_version` or
/// `If-Match: "<version>"`: if the game has moved on, nothing is written and the answer is
/// `412 version-conflict` with `current_version`. A move by anyone cancels a pending draw
/// offer. Accepts `Idempotency-Key`.
#[utoipa::path(
    tag = "games",
    security(("bearer" = ["play"])),
    request_body = MoveRequest,
    params(
        GameIdPath,
        ("If-Match" = Option<String>, Header, description = "The expected version as an ETag, e.g. \"12\""),
        ("Idempotency-Key" = Option<String>, Header, description = "Makes a retry safe")
    ),
    responses(
        (status = 201, description = "Played: the effects, the new version, whose turn", body = ActionResult),
        (status = 400, description = "`validation`: a malformed move or body", body = Problem, content_type = PROBLEM),
        (status = 403, description = "No `play` scope, or you hold no seat in this game", body = Problem, content_type = PROBLEM),
        (status = 409, description = "`not-your-turn`, `game-not-started` or `game-over`", body = Problem, content_type = PROBLEM),
        (status = 412, description = "`version-conflict`, with `current_version`", body = Problem, content_type = PROBLEM),
        (status = 422, description = "`illegal-move` (with `reason` and `legal_moves_url`) or `idempotency-key-reused`", body = Problem, content_type = PROBLEM),
        (status = 428, description = "`precondition-required`: neither `expected_version` nor `If-Match` was sent", body = Problem, content_type = PROBLEM)
    )
)]
#[post("/games/{id}/moves")]
pub async fn play_move(
    app: web::Data<AppState>,
    w: GameWrite<MoveRequest>,
) -> Result<HttpResponse, ApiError> {
    let body = w
        .body
        .as_ref()
        .ok_or_else(|| ApiError::field("body", "give {\"move\": ..., \"expected_version\": N}"))?;
    let mv = parse_move(&body.mv)?;
    if w.expected.is_none() {
        return Err(ApiError::PreconditionRequired(
            "a move needs the version it was chosen at: `expected_version` in the body or \
             If-Match: \"<version>\""
                .into(),
        ));
    }
    let answer = write::execute(
        &app,
        &w,
        Command::Play(mv),
        Render::Action(StatusCode::CREATED),
    )
    .await?;
    Ok(answer.respond(|b| {
        let id = b.get("game_id")?.as_str()?;
        let v = b.get("version")?.as_i64()?;
        Some(format!("/v1/games/{id}/state?at={v}"))
    }))
}
