//! `GET /v1/games/{id}/record`: the game record as text.

use actix_web::http::header;
use actix_web::{HttpResponse, get, web};
use chrono::NaiveDateTime;

use crate::games::queries::PlayerRow;
use crate::model::events::GameKind;
use crate::model::game_state::GameState;

use super::{PROBLEM, etag, game_id};
use crate::error::{ApiError, Problem};
use crate::games::queries;
use crate::state::AppState;

/// The game record as text, in the format of `docs/record-format.md`: headers (`Event`,
/// `Site`, `GameId`, `Date`, `Started`, `Ended`, the player of each seat, `Ruleset`,
/// `Seats`, `Hostage` with three seats, `Result`), then one action a line (numbered
/// moves, `-- R resigns`, `-- R timed out`, `-- draw agreed`). `POST /v1/games/import`,
/// `djambi record check` and the rules crate read it back. A study game's record keeps
/// the headers it was imported with.
#[utoipa::path(
    tag = "games",
    params(("id" = String, Path, description = "The game's id", max_length = 64, pattern = "^[A-Za-z0-9-]+$")),
    responses(
        (status = 200, description = "The record", body = String, content_type = "text/plain",
            example = "[Event \"Djambi correspondence game\"]\n[Site \"https://djambi.example.org/\"]\n[GameId \"5b3f2a4e-1c7d-4e55-9a0b-7f3e2d1c0b9a\"]\n[Date \"2026.11.30\"]\n[Started \"2026-11-30T12:05:00Z\"]\n[Red \"alice\"]\n[Blue \"bob\"]\n[Yellow \"carol\"]\n[Ruleset \"djambi-standard-2026\"]\n[Seats \"RBY\"]\n[Hostage \"G\"]\n[Result \"*\"]\n\n1. R C8-D7\n2. B G8-F7\n-- Y resigns\n"),
        (status = 404, description = "No such game", body = Problem, content_type = PROBLEM)
    )
)]
#[get("/games/{id}/record")]
pub async fn get_record(
    app: web::Data<AppState>,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(&path)?;
    let (state, players) = queries::state_with_players(app.game_ctx(), id).await?;
    let headers = record_headers(&state, &players, app.config.public_url.as_str());
    let pairs: Vec<(&str, &str)> = headers
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let text = domain::write_record(state.settings, &state.actions, &pairs)
        .map_err(|e| ApiError::internal(format!("record of {}: {e}", state.id)))?;
    Ok(HttpResponse::Ok()
        .insert_header((header::ETAG, etag(state.version)))
        .content_type("text/plain; charset=utf-8")
        .body(text))
}

/// The headers of a game's record. A played game: `Event`, `Site`, `GameId`, `Date`
/// (created), `Started`, `Ended` (RFC 3339 UTC) and each seat's player (`?` while free;
/// a computer player is `Bot (level N)` with `<Seat>Type` `bot`).
/// A study game: the headers it was imported with. The writer adds `Ruleset`, `Seats`,
/// `Hostage` and `Result` itself.
fn record_headers(state: &GameState, players: &[PlayerRow], site: &str) -> Vec<(String, String)> {
    if state.kind == GameKind::Study {
        return state.record_headers.clone();
    }
    let time = |t: NaiveDateTime| t.and_utc().format("%Y-%m-%dT%H:%M:%SZ").to_string();
    let mut headers: Vec<(String, String)> = vec![
        ("Event".into(), "Djambi correspondence game".into()),
        ("Site".into(), site.to_string()),
        ("GameId".into(), state.id.clone()),
        (
            "Date".into(),
            state.created_at.format("%Y.%m.%d").to_string(),
        ),
    ];
    if let Some(t) = state.started_at {
        headers.push(("Started".into(), time(t)));
    }
    if let Some(t) = state.ended_at {
        headers.push(("Ended".into(), time(t)));
    }
    for seat in state.settings.seats.iter() {
        if let Some(level) = state.bot(seat) {
            headers.push((seat.name().into(), format!("Bot (level {level})")));
            headers.push((domain::player_type_key(seat), "bot".into()));
            continue;
        }
        let name = players
            .iter()
            .find(|p| crate::games::queries::seat_of(&p.seat) == Some(seat))
            .map(|p| p.username.clone())
            .unwrap_or_else(|| "?".into());
        headers.push((seat.name().into(), name));
    }
    if state.rated {
        headers.push(("Rated".into(), "yes".into()));
        for p in players {
            if let (Some(seat), Some(r)) = (crate::games::queries::seat_of(&p.seat), p.rating) {
                headers.push((format!("{}Rating", seat.name()), format!("{r:.2}")));
            }
        }
    }
    headers
}
