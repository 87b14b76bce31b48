//! `GET /v1/games/{id}/events`: the log, paged by version, each action with what it did.

use actix_web::http::header;
use actix_web::{HttpResponse, get, web};
use serde::Deserialize;
use utoipa::IntoParams;

use super::{PROBLEM, etag};
use crate::error::{ApiError, Problem};
use crate::games::queries;
use crate::pagination::{PageParams, next_link};
use crate::routes::games::views::{EventPage, EventView, StepView};
use crate::routes::params::GameIdPath;
use crate::state::AppState;

/// The paging of the event log: by version.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct EventParams {
    /// Events after this version (the `next_cursor` of the previous page; 0: from the start).
    #[param(min_length = 1, max_length = 18, pattern = "^[0-9]{1,18}$")]
    pub after: Option<String>,
    /// Items per page, 1 to 100 (default 50).
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<u32>,
}

/// The event log, oldest first, paged by version: `?after=<version>`.
///
/// | kind | payload |
/// |---|---|
/// | `created` | `ruleset` (the canonical text, VARIANTS.md 2.1: `djambi-standard-2026 master_moves=on`), `seats`, `hostage_seat`, `visibility`, `created_by`; a study game (imported from a record) also `kind: "study"` and `record_headers` (`[key, value]` pairs) |
/// | `seat_taken`, `seat_left` | `seat`, `user_id` |
/// | `bot_seated` | `seat`, `level` (a computer player, 1 to 5) |
/// | `started` | `{}` |
/// | `move_played` | `seat`, `move` (JSON form), `text` (canonical), `conditional: true` for a stored conditional answer the server played for its player (the actor); a bot's move has `actor_id` `null` |
/// | `resigned`, `timed_out`, `draw_offered`, `draw_accepted`, `draw_declined` | `seat` |
/// | `ended` | `result` (`kind`, `seats`, `reason`, `ranking`) |
///
/// Events that change the position (`move_played`, `resigned`, `timed_out`, and an `ended` with
/// `reason: draw_agreed`) also carry `step`: what the action did (the same effects as the
/// move's answer), who rules and whose turn it is after it. `actor_id` is the account
/// that sent the event, `null` for the server itself.
#[utoipa::path(
    tag = "games",
    params(GameIdPath, EventParams),
    responses(
        (status = 200, description = "A page of events", body = EventPage),
        (status = 400, description = "Bad `after` or `limit`", body = Problem, content_type = PROBLEM),
        (status = 404, description = "No such game", body = Problem, content_type = PROBLEM)
    )
)]
#[get("/games/{id}/events")]
pub async fn list_events(
    app: web::Data<AppState>,
    id: GameIdPath,
    query: web::Query<EventParams>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let query = query.into_inner();
    let page = PageParams {
        after: query.after,
        limit: query.limit,
    };
    let limit = page.limit()?;
    let after: i64 = match page.after()? {
        None => 0,
        Some(a) => a
            .parse()
            .ok()
            .filter(|n| *n >= 0)
            .ok_or_else(|| ApiError::field("after", "must be a version number"))?,
    };
    let game = id.clone();
    let (version, page) = queries::events_page(app.game_ctx(), id, after, i64::from(limit)).await?;
    let items: Vec<EventView> = page
        .iter()
        .map(|(row, step)| EventView::of(row, step.as_ref().map(StepView::of)))
        .collect();
    let last = items.last().map(|e| e.seq);
    let next_cursor = last.filter(|l| *l < version).map(|l| l.to_string());
    let next = next_cursor
        .as_deref()
        .map(|c| next_link(&format!("/v1/games/{game}/events"), c, limit));
    Ok(HttpResponse::Ok()
        .insert_header((header::ETAG, etag(version)))
        .json(EventPage {
            game_id: game,
            version,
            items,
            next_cursor,
            next,
        }))
}
