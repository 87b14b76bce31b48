//! `GET /v1/games/{id}/stream`: Server-Sent Events of a game's new events.

use actix_web::{HttpRequest, HttpResponse, get, web};

use futures_util::StreamExt;

use super::{MaybeAuthenticated, PROBLEM};
use crate::error::{ApiError, Problem};
use crate::games::queries::EventRow;
use crate::routes::caller::client_addr;
use crate::routes::games::views::EventView;
use crate::routes::params::GameIdPath;
use crate::routes::sse;
use crate::state::AppState;

/// Where the stream starts.
#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct StreamParams {
    /// Send the events after this version first (`Last-Event-ID` wins when both are
    /// sent); without either, the stream starts with what comes next.
    #[param(value_type = Option<i64>, minimum = 0)]
    pub after: Option<String>,
}

/// One event of a game's stream, as `text/event-stream` fields.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
#[schema(example = json!({"id": "7", "event": "move_played",
    "data": "{\"seq\":7,\"kind\":\"move_played\",\"payload\":{\"seat\":\"R\",\"text\":\"C8-D7\"}}"}))]
pub struct GameStreamEvent {
    /// The game's version after the event (send it back as `Last-Event-ID`).
    pub id: Option<String>,
    /// The event's kind.
    pub event: Option<String>,
    /// The event as in `GET /v1/games/{id}/events`, as JSON text.
    pub data: Option<String>,
    /// How long (milliseconds) to wait before reconnecting.
    pub retry: Option<u64>,
}

/// A version sent as `Last-Event-ID` or `?after=`: a whole number, 0 or more.
fn version(field: &str, text: &str) -> Result<i64, ApiError> {
    text.trim()
        .parse::<i64>()
        .ok()
        .filter(|v| *v >= 0)
        .ok_or_else(|| ApiError::field(field, "must be a version: a whole number, 0 or more"))
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
/// after that version; without either the stream starts with what comes next. Fed by the
/// instance's fan-out (PostgreSQL `LISTEN`/`NOTIFY`), so events written by any server
/// instance arrive. Open streams are limited per account (or, without one, per client
/// address: `DJAMBI_STREAMS_PER_ACCOUNT`, then 429) and per instance
/// (`DJAMBI_STREAMS_PER_INSTANCE`, then 503), both with `Retry-After`. A stream opened
/// with a token ends when the token stops holding; every stream ends after
/// `DJAMBI_STREAM_MAX_LIFETIME` (1 h): reconnect with `Last-Event-ID`.
#[utoipa::path(
    tag = "games",
    params(
        GameIdPath,
        ("Last-Event-ID" = Option<i64>, Header, minimum = 0, description = "Resume after this version"),
        StreamParams
    ),
    responses(
        (status = 200, description = "An event stream: `retry: 2000`, then one event per game event", content_type = "text/event-stream", body = GameStreamEvent),
        (status = 400, description = "`after` or `Last-Event-ID` is not a version", body = Problem, content_type = PROBLEM),
        (status = 401, description = "An `Authorization` header or cookie was sent and is invalid", body = Problem, content_type = PROBLEM),
        (status = 404, description = "No such game", body = Problem, content_type = PROBLEM),
        (status = 429, description = "This account (or client address) holds `DJAMBI_STREAMS_PER_ACCOUNT` streams already; `Retry-After` says when to try again", body = Problem, content_type = PROBLEM,
            headers(("Retry-After" = u64, description = "Seconds to wait"))),
        (status = 503, description = "This instance holds `DJAMBI_STREAMS_PER_INSTANCE` streams already; `Retry-After` says when to try again", body = Problem, content_type = PROBLEM,
            headers(("Retry-After" = u64, description = "Seconds to wait")))
    )
)]
#[get("/games/{id}/stream")]
pub async fn stream_events(
    app: web::Data<AppState>,
    id: GameIdPath,
    viewer: MaybeAuthenticated,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let header = match req.headers().get("Last-Event-ID") {
        Some(v) => Some(version(
            "Last-Event-ID",
            v.to_str().map_err(|_| {
                ApiError::field(
                    "Last-Event-ID",
                    "must be a version: a whole number, 0 or more",
                )
            })?,
        )?),
        None => None,
    };
    let query = web::Query::<StreamParams>::from_query(req.query_string())
        .map_err(|_| ApiError::field("after", "must be a version: a whole number, 0 or more"))?
        .after
        .as_deref()
        .map(|v| version("after", v))
        .transpose()?;
    let last = header.or(query);
    let who = match &viewer.0 {
        Some(auth) => auth.user_id.to_string(),
        None => format!("addr:{}", client_addr(&req, &app.config.trusted_proxies)),
    };
    let stream = app.live.open_game(&who, id, last).await?;
    let guard = viewer.0.as_ref().map(|auth| sse::Guard::of(&app, auth));
    Ok(sse::live(
        &app,
        stream.map(|rows| rows.iter().map(sse_event).collect::<String>()),
        guard,
    ))
}
