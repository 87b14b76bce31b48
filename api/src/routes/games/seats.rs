//! `POST` and `DELETE /v1/games/{id}/seats/{seat}`: take or leave a seat.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, delete, post, web};
use serde::Deserialize;
use utoipa::ToSchema;

use super::PROBLEM;
use super::write::{self, GameWrite, NoBody, Render, WriteBody};
use crate::error::{ApiError, Problem};
use crate::games::commands::Command;
use crate::routes::games::views::GameSummary;
use crate::routes::params::{GameIdPath, SeatPath};
use crate::state::AppState;

/// The longest invite code accepted (the server makes 16-character codes).
pub const MAX_INVITE_CODE_CHARS: usize = 64;

/// Taking a seat.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"invite_code": "q3V9cX1kLm0pZr7T"}))]
pub struct TakeSeatRequest {
    /// Needed for invite-only games (unless you created the game).
    #[schema(max_length = 64)]
    pub invite_code: Option<String>,
    /// If given, the game must be at this version (412 otherwise).
    #[schema(minimum = 0)]
    pub expected_version: Option<i64>,
}

impl WriteBody for TakeSeatRequest {
    fn expected_version(&self) -> Option<i64> {
        self.expected_version
    }
}

/// Take a seat (`R`, `B`, `Y` or `G`).
///
/// The body is optional. When the last free seat is taken the game starts (a `started`
/// event) and Red, or the first seat in play, is to move. Without an expected version
/// the seat is taken in the game as it is now. Accepts `Idempotency-Key` and `If-Match`.
#[utoipa::path(
    tag = "games",
    security(("bearer" = ["play"])),
    request_body(content = Option<TakeSeatRequest>),
    params(
        GameIdPath,
        SeatPath,
        ("If-Match" = Option<String>, Header, description = "The expected version as an ETag, e.g. \"12\""),
        ("Idempotency-Key" = Option<String>, Header, description = "Makes a retry safe")
    ),
    responses(
        (status = 200, description = "Seated; the game's summary", body = GameSummary),
        (status = 400, description = "Bad seat letter or body", body = Problem, content_type = PROBLEM),
        (status = 403, description = "No `play` scope, a wrong invite code, or a rating outside the game's `rating_range`", body = Problem, content_type = PROBLEM),
        (status = 409, description = "`seat-taken`; `conflict` (the seat is not in play, or you already hold a seat); `game-over`", body = Problem, content_type = PROBLEM)
    )
)]
#[post("/games/{id}/seats/{seat}")]
pub async fn take_seat(
    app: web::Data<AppState>,
    w: GameWrite<TakeSeatRequest>,
    seat: SeatPath,
) -> Result<HttpResponse, ApiError> {
    let seat = seat.seat();
    let invite_code = w.body.as_ref().and_then(|b| b.invite_code.clone());
    if invite_code
        .as_ref()
        .is_some_and(|c| c.chars().count() > MAX_INVITE_CODE_CHARS)
    {
        return Err(ApiError::field(
            "invite_code",
            format!("is at most {MAX_INVITE_CODE_CHARS} characters"),
        ));
    }
    let command = Command::TakeSeat {
        seat,
        invite_code,
        rating: None,
    };
    let answer = write::execute(&app, &w, command, Render::Summary(StatusCode::OK)).await?;
    Ok(answer.respond(|_| None))
}

/// Leave a seat before the game starts.
#[utoipa::path(
    tag = "games",
    security(("bearer" = ["play"])),
    params(
        GameIdPath,
        SeatPath,
        ("If-Match" = Option<String>, Header, description = "The expected version as an ETag, e.g. \"12\""),
        ("Idempotency-Key" = Option<String>, Header, description = "Makes a retry safe")
    ),
    responses(
        (status = 200, description = "Left; the game's summary", body = GameSummary),
        (status = 400, description = "Bad seat letter", body = Problem, content_type = PROBLEM),
        (status = 403, description = "No `play` scope, or the seat is another player's", body = Problem, content_type = PROBLEM),
        (status = 409, description = "`conflict`: the game has started, or the seat is free", body = Problem, content_type = PROBLEM),
        (status = 412, description = "`version-conflict` (only with `If-Match`)", body = Problem, content_type = PROBLEM)
    )
)]
#[delete("/games/{id}/seats/{seat}")]
pub async fn leave_seat(
    app: web::Data<AppState>,
    w: GameWrite<NoBody>,
    seat: SeatPath,
) -> Result<HttpResponse, ApiError> {
    let seat = seat.seat();
    let answer = write::execute(
        &app,
        &w,
        Command::LeaveSeat { seat },
        Render::Summary(StatusCode::OK),
    )
    .await?;
    Ok(answer.respond(|_| None))
}
