//! A game's record as text (`docs/record-format.md`): what `GET /v1/games/{id}/record`
//! answers and what the account export holds for each game.

use chrono::NaiveDateTime;

use crate::model::events::{GameKind, Status};
use crate::model::game_state::GameState;
use crate::ratings::model::Skill;
use crate::store::games::PlayerRow;
use crate::store::{DbConnection, StoreError, ratings as rating_store};

/// The players as a record names them. A finished rated game's `<Seat>Rating` is the
/// rating each player had when its result was applied (before it, as PGN's `WhiteElo`),
/// read from the game's stored changes: the record of a finished game never changes.
/// A game still running shows the current ratings.
pub fn players_for_record(
    conn: &mut DbConnection,
    state: &GameState,
    mut players: Vec<PlayerRow>,
) -> Result<Vec<PlayerRow>, StoreError> {
    if !state.rated || state.status != Status::Finished {
        return Ok(players);
    }
    let changes = rating_store::changes_of_game(conn, &state.id)?;
    for p in &mut players {
        p.rating = changes
            .iter()
            .find(|c| c.user_id == p.user_id && c.game_id == p.game_id)
            .map(|c| {
                Skill {
                    mu: c.mu_before,
                    sigma: c.sigma_before,
                }
                .display()
            });
    }
    Ok(players)
}

/// The record of `state`, its players named as `players` say, `site` in its headers.
pub fn text(state: &GameState, players: &[PlayerRow], site: &str) -> Result<String, String> {
    let headers = record_headers(state, players, site);
    let pairs: Vec<(&str, &str)> = headers
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    domain::write_record(state.settings, &state.actions, &pairs).map_err(|e| e.to_string())
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
        ("GameId".into(), state.id.to_string()),
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
        // The ratings of `players` (see [`players_for_record`]).
        headers.push(("Rated".into(), "yes".into()));
        for p in players {
            if let (Some(seat), Some(r)) = (crate::games::queries::seat_of(&p.seat), p.rating) {
                headers.push((format!("{}Rating", seat.name()), format!("{r:.2}")));
            }
        }
    }
    headers
}
