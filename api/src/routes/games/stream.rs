//! `GET /v1/games/{id}/stream`: Server-Sent Events of a game's new events.

use actix_web::{HttpRequest, HttpResponse, get, web};

use super::{PROBLEM, game_id};
use crate::db;
use crate::error::{ApiError, Problem};
use crate::games::store::{self, EventRow, StoreError};
use crate::games::{queries, views::EventView};
use crate::routes::sse;
use crate::state::AppState;

/// Where the stream starts.
#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct StreamParams {
    /// Send the events after this version first (`Last-Event-ID` wins when both are
    /// sent); without either, the stream starts with what comes next.
    #[param(minimum = 0)]
    pub after: Option<i64>,
}

fn sse_event(row: &EventRow) -> String {
    let data = serde_json::to_string(&EventView::of(row, None)).unwrap_or_default();
    sse::event(row.seq, &row.kind, &data)
}

/// Server-Sent Events of the game's new events.
///
/// Each event's `id:` is the game's version after it (its `seq`), `event:` its kind and
/// `data:` the event as in `GET /v1/games/{id}/events` (without `step`). Send
/// `Last-Event-ID` (browsers do on reconnecting) or `?after=<version>` to get the events
/// after that version; without either the stream starts with what comes next. Fed from the database (polled every
/// `DJAMBI_NOTIFY_POLL`), so events written by any server instance arrive.
#[utoipa::path(
    tag = "games",
    params(
        ("id" = String, Path, description = "The game's id", max_length = 64, pattern = "^[A-Za-z0-9-]+$"),
        ("Last-Event-ID" = Option<i64>, Header, description = "Resume after this version"),
        StreamParams
    ),
    responses(
        (status = 200, description = "An event stream", content_type = "text/event-stream", body = String),
        (status = 400, description = "A bad `after`", body = Problem, content_type = PROBLEM),
        (status = 404, description = "No such game", body = Problem, content_type = PROBLEM)
    )
)]
#[get("/games/{id}/stream")]
pub async fn stream_events(
    app: web::Data<AppState>,
    path: web::Path<String>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(&path)?;
    let header = req
        .headers()
        .get("Last-Event-ID")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<i64>().ok());
    let query = web::Query::<StreamParams>::from_query(req.query_string())
        .map_err(|_| ApiError::field("after", "must be a version number"))?
        .after;
    let last = header.or(query).filter(|v| *v >= 0);
    let g = id.clone();
    let current = db::run_with(&app.pool, move |conn| store::current_version(conn, &g)).await?;
    let after = last.unwrap_or(current).min(current);
    let pool = app.pool.clone();
    Ok(sse::polled(&app, after, move |after| {
        let (pool, id) = (pool.clone(), id.clone());
        async move {
            let polled = db::run_with(&pool, move |conn| {
                Ok::<_, StoreError>(queries::events_page(conn, &id, after, 100)?.1)
            })
            .await;
            match polled {
                Ok(rows) => {
                    let next = rows.last().map_or(after, |r| r.seq);
                    (next, rows.iter().map(sse_event).collect())
                }
                Err(e) => {
                    tracing::warn!(error = %e, "game stream poll failed");
                    (after, String::new())
                }
            }
        }
    }))
}
