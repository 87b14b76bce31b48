//! `POST /v1/games/{id}/seats/{seat}/bot`: seat a computer player.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, post, web};
use serde::Deserialize;
use utoipa::ToSchema;

use super::PROBLEM;
use super::write::{self, GameWrite, Render, WriteBody};
use crate::error::{ApiError, Problem};
use crate::games::commands::Command;
use crate::routes::games::views::GameSummary;
use crate::routes::params::{GameIdPath, SeatPath};
use crate::state::AppState;

/// Seating a computer player.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"level": 3}))]
pub struct SeatBotRequest {
    /// 1 (weakest, instant) to 5 (strongest, up to about a second a move).
    #[schema(minimum = 1, maximum = 5)]
    pub level: u8,
    /// If given, the game must be at this version (412 otherwise).
    #[schema(minimum = 0)]
    pub expected_version: Option<i64>,
}

impl WriteBody for SeatBotRequest {
    fn expected_version(&self) -> Option<i64> {
        self.expected_version
    }
}

/// Seat a computer player in a free seat.
///
/// The game's creator or one of its seated players may do it while the game is open; the
/// bot holds the seat for the whole game (a `bot_seated` event). When it fills the last
/// free seat the game starts. The server plays the bot's moves as the system (events
/// with no `actor_id`), shortly after its turn comes (`DJAMBI_BOT_DELAY`). A game with
/// only bots left plays on by itself without that delay but at most
/// `DJAMBI_BOT_ONLY_PLIES_PER_SEC` moves a second, after games with people;
/// from ply `DJAMBI_BOT_DRAW_PLIES` on it ends as a draw the bots agree. Follow it with
/// `/v1/games/{id}/stream` or the events. Accepts `Idempotency-Key` and `If-Match`.
#[utoipa::path(
    tag = "games",
    security(("bearer" = ["play"])),
    request_body(content = SeatBotRequest),
    params(
        GameIdPath,
        SeatPath,
        ("If-Match" = Option<String>, Header, description = "The expected version as an ETag, e.g. \"12\""),
        ("Idempotency-Key" = Option<String>, Header, description = "Makes a retry safe")
    ),
    responses(
        (status = 200, description = "Seated; the game's summary", body = GameSummary),
        (status = 400, description = "Bad seat letter, a missing body or a level outside 1 to 5", body = Problem, content_type = PROBLEM),
        (status = 403, description = "No `play` scope, or you neither created the game nor hold a seat in it", body = Problem, content_type = PROBLEM),
        (status = 409, description = "`seat-taken` (also: the game has started); `conflict` (the seat is not in play, a study game); `game-over`; `quota-exceeded` (the last seat would leave a game to computer players alone past `DJAMBI_BOT_GAMES_PER_ACCOUNT` or `DJAMBI_BOT_GAMES_TOTAL`)", body = Problem, content_type = PROBLEM)
    )
)]
#[post("/games/{id}/seats/{seat}/bot")]
pub async fn seat_bot(
    app: web::Data<AppState>,
    w: GameWrite<SeatBotRequest>,
    seat: SeatPath,
) -> Result<HttpResponse, ApiError> {
    let seat = seat.seat();
    let level = w
        .body
        .as_ref()
        .map(|b| b.level)
        .ok_or_else(|| ApiError::field("level", "is required: 1 to 5"))?;
    if domain::Level::new(level).is_none() {
        return Err(ApiError::field("level", "must be 1 to 5"));
    }
    let command = Command::SeatBot { seat, level };
    let answer = write::execute(&app, &w, command, Render::Summary(StatusCode::OK)).await?;
    Ok(answer.respond(|_| None))
}
