//! `GET /v1/games/{id}/record`: the game record as text.

use actix_web::http::header;
use actix_web::{HttpResponse, get, web};
use domain::Seat;

use super::{PROBLEM, etag, game_id};
use crate::db;
use crate::error::{ApiError, Problem};
use crate::games::{queries, store};
use crate::state::AppState;

/// The game record as text: headers (players, ruleset, seats, result) and numbered
/// moves; `djambi` and the rules crate read it back.
#[utoipa::path(
    tag = "games",
    params(("id" = String, Path, description = "The game's id", max_length = 64, pattern = "^[A-Za-z0-9-]+$")),
    responses(
        (status = 200, description = "The record", body = String, content_type = "text/plain",
            example = "[Event \"Djambi correspondence game\"]\n[Red \"alice\"]\n[Ruleset \"djambi-standard-2026\"]\n[Seats \"RBYG\"]\n[Result \"*\"]\n\n1. R C8-D7\n"),
        (status = 404, description = "No such game", body = Problem, content_type = PROBLEM)
    )
)]
#[get("/games/{id}/record")]
pub async fn get_record(
    app: web::Data<AppState>,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(&path)?;
    let app2 = app.clone();
    let (state, players) = db::run_with(&app.pool, move |conn| {
        let state = store::current_state(conn, &app2.games, &id)?;
        let (_, players) = queries::summary(conn, &id)?;
        Ok::<_, store::StoreError>((state, players))
    })
    .await?;
    let mut headers: Vec<(String, String)> = vec![
        ("Event".into(), "Djambi correspondence game".into()),
        ("Site".into(), app.config.public_url.to_string()),
        ("GameId".into(), state.id.clone()),
        (
            "Date".into(),
            state.created_at.format("%Y.%m.%d").to_string(),
        ),
    ];
    for seat in state.settings.seats.iter() {
        let name = players
            .iter()
            .find(|p| store::seat_of(&p.seat) == Some(seat))
            .map(|p| p.username.clone())
            .unwrap_or_else(|| "?".into());
        let label = match seat {
            Seat::Red => "Red",
            Seat::Blue => "Blue",
            Seat::Yellow => "Yellow",
            Seat::Green => "Green",
        };
        headers.push((label.into(), name));
    }
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
