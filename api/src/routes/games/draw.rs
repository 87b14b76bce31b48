//! `POST /v1/games/{id}/draw-offer`: offer, accept or decline a draw.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, post, web};
use serde::Deserialize;
use utoipa::ToSchema;

use super::PROBLEM;
use super::write::{self, GameWrite, Render, WriteBody};
use crate::error::{ApiError, Problem};
use crate::games::commands::{self, Command};
use crate::routes::games::views::ActionResult;
use crate::routes::params::GameIdPath;
use crate::state::AppState;

/// What to do about a draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum DrawAction {
    /// Offer a draw (counts as the offering seat's acceptance).
    Offer,
    /// Accept the pending offer; the game is drawn when every active seat has accepted.
    Accept,
    /// Decline (or, for the offering seat, withdraw) the pending offer.
    Decline,
}

impl From<DrawAction> for commands::DrawAction {
    fn from(a: DrawAction) -> Self {
        match a {
            DrawAction::Offer => commands::DrawAction::Offer,
            DrawAction::Accept => commands::DrawAction::Accept,
            DrawAction::Decline => commands::DrawAction::Decline,
        }
    }
}

/// Offer, accept or decline a draw.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"action": "accept", "expected_version": 41}))]
pub struct DrawRequest {
    pub action: DrawAction,
    /// If given (or `If-Match`), the game must be at this version.
    #[schema(minimum = 0)]
    pub expected_version: Option<i64>,
}

impl WriteBody for DrawRequest {
    fn expected_version(&self) -> Option<i64> {
        self.expected_version
    }
}

/// Offer, accept or decline a draw.
///
/// One offer may be pending at a time; offering counts as the offering seat's acceptance.
/// The game is drawn when every active seat has accepted the same offer (an `ended`
/// event with `reason: draw_agreed`). Any seat may decline (the offering seat thereby
/// withdraws it); a move or a resignation by anyone cancels it. Only active seats take
/// part. Accepts `Idempotency-Key`.
#[utoipa::path(
    tag = "games",
    security(("bearer" = ["play"])),
    request_body = DrawRequest,
    params(
        GameIdPath,
        ("If-Match" = Option<String>, Header, description = "The expected version as an ETag, e.g. \"12\""),
        ("Idempotency-Key" = Option<String>, Header, description = "Makes a retry safe")
    ),
    responses(
        (status = 200, description = "Done: the pending offer (or the result) and the new version", body = ActionResult),
        (status = 400, description = "Bad `action` or body", body = Problem, content_type = PROBLEM),
        (status = 403, description = "No `play` scope, or you hold no seat in this game", body = Problem, content_type = PROBLEM),
        (status = 409, description = "`game-not-started`, `game-over`, or `conflict` (no offer pending, one already pending, already accepted, seat out)", body = Problem, content_type = PROBLEM)
    )
)]
#[post("/games/{id}/draw-offer")]
pub async fn draw_offer(
    app: web::Data<AppState>,
    w: GameWrite<DrawRequest>,
) -> Result<HttpResponse, ApiError> {
    let action = w.body.as_ref().map(|b| b.action).ok_or_else(|| {
        ApiError::field(
            "action",
            "give {\"action\": \"offer\" | \"accept\" | \"decline\"}",
        )
    })?;
    let answer = write::execute(
        &app,
        &w,
        Command::Draw(action.into()),
        Render::Action(StatusCode::OK),
    )
    .await?;
    Ok(answer.respond(|_| None))
}
