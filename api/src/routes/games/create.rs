//! `POST /v1/games`: create a game.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, post, web};
use domain::{GameSettings, Ruleset, Seat};
use serde::Deserialize;
use serde_json::Value;
use utoipa::ToSchema;

use super::PROBLEM;
use super::ruleset::{self, RulesetInput};
use super::write::{self, GameWrite, Render, WriteBody};
use crate::error::{ApiError, Problem};
use crate::games::commands::{Command, NewGame};
use crate::model::events::{RatingRange, Visibility};
use crate::model::timing::TimeControl;
use crate::routes::games::views::GameSummary;
use crate::state::AppState;

/// A new game.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"seats": 4, "seat": "R", "visibility": "public",
    "ruleset": {"master_moves": "on"},
    "time_control": {"per_move_secs": 259200, "max_bank_secs": 604800},
    "bots": [{"seat": "B", "level": 3}]}))]
pub struct CreateGameRequest {
    /// Seats in play: 3 or 4 (default 4).
    #[schema(minimum = 3, maximum = 4)]
    pub seats: Option<u8>,
    /// The creator's own seat (`R`, `B`, `Y`, `G`); absent: the creator does not sit.
    #[schema(value_type = Option<String>, example = "R", pattern = "^[RBYGrbyg]$")]
    pub seat: Option<Seat>,
    /// With 3 seats: the seat left empty, whose party is hostage (default `G`).
    #[schema(value_type = Option<String>, example = "G", pattern = "^[RBYGrbyg]$")]
    pub empty_seat: Option<Seat>,
    /// `public` (listed in the lobby; the default) or `invite` (unlisted; taking a seat
    /// needs the `invite_code` shown to the creator).
    pub visibility: Option<Visibility>,
    /// The time control: seconds per move, optionally a cap on banked time; absent or
    /// `null`: no deadlines.
    pub time_control: Option<TimeControl>,
    /// Computer players to seat at once: seats in play, not the creator's, each once; the
    /// server plays their moves. When they fill every free seat the game starts at once.
    pub bots: Option<Vec<BotSeat>>,
    /// The rules (VARIANTS.md): a text (`"master_moves=on,reporter=forced"`, optionally
    /// after the version `djambi-standard-2026`) or an object of options
    /// (`{"master_moves": "on"}`); an option left out has its default value, and absent,
    /// `null`, `""` and `{}` are the default ruleset (RULES.md unchanged). An unknown
    /// option or value, or an option given twice, is refused (`400`, the field names the
    /// option).
    #[schema(value_type = Option<RulesetInput>)]
    pub ruleset: Option<Value>,
    /// Table talk: `private` (the default: private messages stay private) or
    /// `revealed_at_end` (every message becomes visible to all once the game is over).
    pub press: Option<crate::model::talk::Press>,
    /// Whether a player whose seats are all out may still send messages (default true;
    /// they always keep reading).
    pub eliminated_may_write: Option<bool>,
    /// A rated game (default false: casual): needs a `time_control` and no `bots`; its
    /// result changes the players' ratings.
    pub rated: Option<bool>,
    /// The shown ratings a player must have to take a seat (`min`, `max`, either may be
    /// absent).
    pub rating_range: Option<RatingRange>,
    /// Always 0 here when given (a new game has no version yet).
    #[schema(minimum = 0, maximum = 0)]
    pub expected_version: Option<i64>,
}

/// A computer player to seat in a new game.
#[derive(Debug, Clone, Copy, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"seat": "B", "level": 3}))]
pub struct BotSeat {
    #[schema(value_type = String, example = "B", pattern = "^[RBYGrbyg]$")]
    pub seat: Seat,
    /// 1 (weakest) to 5 (strongest).
    #[schema(minimum = 1, maximum = 5)]
    pub level: u8,
}

impl WriteBody for CreateGameRequest {}

impl CreateGameRequest {
    /// The new game's settings, checked.
    fn new_game(&self) -> Result<NewGame, ApiError> {
        let seats = self.seats.unwrap_or(4);
        let ruleset = match &self.ruleset {
            Some(v) => ruleset::parse("ruleset", v)?,
            None => Ruleset::DEFAULT,
        };
        let mut settings = match (seats, self.empty_seat) {
            (4, None) => GameSettings::four_players(),
            (4, Some(_)) => {
                return Err(ApiError::field(
                    "empty_seat",
                    "only a 3-seat game has an empty seat",
                ));
            }
            (3, empty) => GameSettings::three_players(empty.unwrap_or(Seat::Green)),
            _ => return Err(ApiError::field("seats", "must be 3 or 4")),
        };
        settings.ruleset = ruleset;
        if self.expected_version.is_some_and(|v| v != 0) {
            return Err(ApiError::field(
                "expected_version",
                "a new game has no version: give 0 or nothing",
            ));
        }
        let hostage_seat = (seats == 3).then(|| self.empty_seat.unwrap_or(Seat::Green));
        if let Some(seat) = self.seat {
            if !settings.seats.contains(seat) {
                return Err(ApiError::field(
                    "seat",
                    format!("seat {seat} is the empty seat"),
                ));
            }
        }
        if let Some(tc) = &self.time_control {
            tc.check()
                .map_err(|(field, message)| ApiError::field(field, message))?;
        }
        let mut bots: Vec<(Seat, u8)> = Vec::new();
        for bot in self.bots.iter().flatten() {
            let seat = bot.seat;
            if !settings.seats.contains(seat) {
                return Err(ApiError::field(
                    "bots",
                    format!("seat {seat} is not in play"),
                ));
            }
            if self.seat == Some(seat) {
                return Err(ApiError::field(
                    "bots",
                    format!("seat {seat} is the creator's"),
                ));
            }
            if bots.iter().any(|(s, _)| *s == seat) {
                return Err(ApiError::field(
                    "bots",
                    format!("seat {seat} is named twice"),
                ));
            }
            if domain::Level::new(bot.level).is_none() {
                return Err(ApiError::field("bots", "a level is 1 to 5"));
            }
            bots.push((seat, bot.level));
        }
        let rated = self.rated.unwrap_or(false);
        crate::ratings::check_new_game(
            rated,
            self.time_control.is_some(),
            !bots.is_empty(),
            self.rating_range.as_ref(),
        )
        .map_err(|(field, message)| ApiError::field(field, message))?;
        let visibility = self.visibility.unwrap_or(Visibility::Public);
        let invite_code = (visibility == Visibility::Invite).then(|| {
            crate::auth::tokens::generate("")
                .chars()
                .take(16)
                .collect::<String>()
        });
        Ok(NewGame {
            settings,
            hostage_seat,
            visibility,
            creator_seat: self.seat,
            invite_code,
            time_control: self.time_control,
            bots,
            talk: crate::model::talk::TalkSettings {
                press: self.press.unwrap_or_default(),
                eliminated_may_write: self.eliminated_may_write.unwrap_or(true),
            },
            rated,
            rating_range: self.rating_range,
        })
    }
}

/// Create a game.
///
/// The creator may take a seat at once (`seat`) and seat computer players (`bots`). With a `time_control`, the seat to move
/// has a deadline (in the summary); when it passes, the server times the seat out (the
/// effect of a resignation; the game goes on for the others). The game starts when every seat in play
/// is taken. Invite-only games get an `invite_code`, shown to the creator (and seated
/// players) in the summary. The body may be empty (a public four-seat game the creator
/// does not sit in). Accepts `Idempotency-Key`.
#[utoipa::path(
    tag = "games",
    security(("bearer" = ["play"])),
    request_body(content = Option<CreateGameRequest>),
    params(("Idempotency-Key" = Option<String>, Header, description = "Makes a retry safe: the same key and body return the first answer")),
    responses(
        (status = 201, description = "Created; `Location` is the game, `ETag` its version", body = GameSummary),
        (status = 400, description = "A field is invalid", body = Problem, content_type = PROBLEM),
        (status = 409, description = "`quota-exceeded` (its `quota` member names which): the account's open games (`DJAMBI_QUOTA_OPEN_GAMES`), or games of computer players alone (`DJAMBI_BOT_GAMES_PER_ACCOUNT`, `DJAMBI_BOT_GAMES_TOTAL`)", body = Problem, content_type = PROBLEM),
        (status = 422, description = "The Idempotency-Key was used for another request", body = Problem, content_type = PROBLEM),
        (status = 429, description = "`rate-limited`: the account created `DJAMBI_QUOTA_GAMES_PER_DAY` games (imports included) in 24 hours; `Retry-After` says when a place frees", body = Problem, content_type = PROBLEM,
            headers(("Retry-After" = u64, description = "Seconds to wait")))
    )
)]
#[post("/games")]
pub async fn create_game(
    app: web::Data<AppState>,
    w: GameWrite<CreateGameRequest>,
) -> Result<HttpResponse, ApiError> {
    let new = w.body.as_ref().map_or_else(
        || CreateGameRequest::default().new_game(),
        CreateGameRequest::new_game,
    )?;
    let answer = write::execute(
        &app,
        &w,
        Command::Create(new),
        Render::Summary(StatusCode::CREATED),
    )
    .await?;
    Ok(answer.respond(|b| {
        b.get("id")
            .and_then(Value::as_str)
            .map(|id| format!("/v1/games/{id}"))
    }))
}
