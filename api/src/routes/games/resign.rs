//! `POST /v1/games/{id}/resignation`: resign a seat.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, post, web};
use serde::Deserialize;
use utoipa::ToSchema;

use super::PROBLEM;
use super::write::{self, GameWrite, Render, WriteBody};
use crate::error::{ApiError, Problem};
use crate::games::commands::Command;
use crate::routes::games::views::ActionResult;
use crate::routes::params::GameIdPath;
use crate::state::AppState;

/// Resigning: the version check is optional.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"expected_version": 40}))]
pub struct ResignRequest {
    /// If given (or `If-Match`), the game must be at this version.
    #[schema(minimum = 0)]
    pub expected_version: Option<i64>,
}

impl WriteBody for ResignRequest {
    fn expected_version(&self) -> Option<i64> {
        self.expected_version
    }
}

/// Resign your seat.
///
/// Your parties become hostage and your seat is out (RULES.md section 7); if one active
/// seat remains, it wins. Allowed at any time to an active seat, not only on its turn.
/// Cancels a pending draw offer. The body is optional; without an expected version the
/// resignation applies to the game as it is now. Accepts `Idempotency-Key`.
#[utoipa::path(
    tag = "games",
    security(("bearer" = ["play"])),
    request_body(content = Option<ResignRequest>),
    params(
        GameIdPath,
        ("If-Match" = Option<String>, Header, description = "The expected version as an ETag, e.g. \"12\""),
        ("Idempotency-Key" = Option<String>, Header, description = "Makes a retry safe")
    ),
    responses(
        (status = 201, description = "Resigned: the effects and the new version", body = ActionResult),
        (status = 400, description = "A malformed body or `If-Match`", body = Problem, content_type = PROBLEM),
        (status = 403, description = "No `play` scope, or you hold no seat in this game", body = Problem, content_type = PROBLEM),
        (status = 409, description = "`game-not-started`, `game-over`, or `conflict` (your seat is already out)", body = Problem, content_type = PROBLEM)
    )
)]
#[post("/games/{id}/resignation")]
pub async fn resign(
    app: web::Data<AppState>,
    w: GameWrite<ResignRequest>,
) -> Result<HttpResponse, ApiError> {
    let answer = write::execute(
        &app,
        &w,
        Command::Resign,
        Render::Action(StatusCode::CREATED),
    )
    .await?;
    Ok(answer.respond(|_| None))
}
