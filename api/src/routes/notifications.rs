//! The in-app feed: `GET /v1/me/notifications` (newest first, cursor paged),
//! `POST /v1/me/notifications/read` (mark items read) and
//! `GET /v1/me/notifications/stream` (Server-Sent Events of the same items, resuming from
//! `Last-Event-ID`). See [`crate::notifications`] for what is notified.

use actix_web::{HttpRequest, HttpResponse, get, post, web};
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_actix_web::service_config::ServiceConfig;

use crate::auth::Scope;
use crate::error::{ApiError, Problem};
use crate::ids::GameId;
use crate::notifications::feed::NotificationRow;
use crate::pagination::{Keyset, Page, check_cursor, check_limit};
use crate::routes::caller::Authenticated;
use crate::routes::json_body::JsonBody;
use crate::routes::sse;
use crate::state::AppState;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(list_notifications)
        .service(mark_read)
        .service(stream_notifications);
}

const PROBLEM: &str = "application/problem+json";

/// A notification as served.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(example = json!({
    "id": "6f1c2a9e-0d3b-4c1a-9e8f-2b7d5a4c3e21", "kind": "your_turn",
    "game_id": "5b3f2a4e-1c7d-4e55-9a0b-7f3e2d1c0b9a", "version": 12,
    "payload": {"seat": "B", "deadline": "2026-12-03T12:05:00Z", "game_id": "5b3f2a4e-1c7d-4e55-9a0b-7f3e2d1c0b9a", "version": 12},
    "created_at": "2026-11-30T12:05:00Z", "read": false
}))]
pub struct NotificationView {
    /// Stable: the same notification always has this id (de-duplicate by it).
    pub id: String,
    /// your_turn, reminder, timeout, chief_killed, seat_eliminated, game_started,
    /// game_ended, draw_offered, message (table talk), webhook_disabled,
    /// conditional_played, conditional_discarded, or an event's tournament_started,
    /// tournament_round (`game_id`: the player's game of the round), tournament_finished
    /// or tournament_cancelled (their payloads name `tournament_id`).
    pub kind: String,
    #[schema(value_type = Option<String>)]
    pub game_id: Option<GameId>,
    /// The game's version that caused it.
    pub version: Option<i64>,
    #[schema(value_type = Object)]
    pub payload: serde_json::Value,
    pub created_at: chrono::DateTime<chrono::Utc>,
    pub read: bool,
}

impl NotificationView {
    pub fn of(row: &NotificationRow) -> NotificationView {
        let item = crate::notifications::feed::FeedItem::of(row);
        NotificationView {
            id: item.id,
            kind: item.kind,
            game_id: item.game_id,
            version: item.version,
            payload: item.payload,
            created_at: item.created_at,
            read: item.read,
        }
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct FeedParams {
    /// The `next_cursor` of the previous page.
    #[param(
        min_length = 3,
        max_length = 81,
        pattern = "^[0-9]{1,16}_[A-Za-z0-9-]{1,64}$"
    )]
    pub after: Option<String>,
    /// Items per page, 1 to 100 (default 50).
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<u32>,
    /// `true`: only unread items.
    pub unread: Option<bool>,
}

/// A page of the feed.
#[derive(Debug, Serialize, ToSchema)]
pub struct NotificationPage {
    pub items: Vec<NotificationView>,
    /// Unread items in all.
    pub unread_count: i64,
    pub next_cursor: Option<String>,
    pub next: Option<String>,
}

/// My notifications, newest first.
///
/// Every item has a stable `id` (the same notification always has the same id) and the
/// game and version that caused it. Kinds: `your_turn`, `reminder`, `timeout`,
/// `chief_killed`, `seat_eliminated`, `game_started`, `game_ended`, `draw_offered`,
/// `message`, `webhook_disabled`, `conditional_played`, `conditional_discarded`; an
/// event's `tournament_started`, `tournament_round`, `tournament_finished`,
/// `tournament_cancelled` (no version; `tournament_id` in the payload).
#[utoipa::path(
    tag = "notifications",
    security(("bearer" = ["read"])),
    params(FeedParams),
    responses(
        (status = 200, description = "A page of notifications", body = NotificationPage),
        (status = 400, description = "Bad `after` or `limit`", body = Problem, content_type = PROBLEM),
        (status = 403, description = "The token lacks the `read` scope", body = Problem, content_type = PROBLEM)
    )
)]
#[get("/me/notifications")]
pub async fn list_notifications(
    app: web::Data<AppState>,
    auth: Authenticated,
    query: web::Query<FeedParams>,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::Read)?;
    let q = query.into_inner();
    let limit = check_limit(q.limit)?;
    let after = check_cursor(q.after.as_deref())?
        .map(Keyset::decode)
        .transpose()?;
    let unread = q.unread.unwrap_or(false);
    let feed = app
        .notifications()
        .feed(&auth.user_id, after, unread, limit)
        .await?;
    let (rows, unread_count) = (feed.rows, feed.unread_count);
    let extra = if unread { "&unread=true" } else { "" };
    let page = Page::cut(rows, limit, "/v1/me/notifications", extra, |r| {
        Keyset::encode(r.created_at, &r.id)
    })
    .map(|r| NotificationView::of(&r));
    Ok(HttpResponse::Ok().json(NotificationPage {
        items: page.items,
        unread_count,
        next_cursor: page.next_cursor,
        next: page.next,
    }))
}

/// The most ids one `POST /v1/me/notifications/read` takes.
pub use crate::notifications::feed::MAX_MARK_IDS;

/// Which notifications to mark read (neither `ids` nor `up_to`: nothing is marked).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"ids": ["6f1c2a9e-0d3b-4c1a-9e8f-2b7d5a4c3e21"]}))]
pub struct MarkReadRequest {
    /// These notifications (at most 500).
    #[serde(default)]
    #[schema(max_items = 500)]
    pub ids: Vec<String>,
    /// Every notification up to this one (it included), in the feed's order. Ids that
    /// are not the caller's notifications mark nothing.
    pub up_to: Option<String>,
}

/// How many notifications changed.
#[derive(Debug, Serialize, ToSchema)]
pub struct MarkReadResult {
    pub marked: usize,
    pub unread_count: i64,
}

/// Mark notifications read: by `ids`, or everything up to one (`up_to`).
#[utoipa::path(
    tag = "notifications",
    security(("bearer" = ["read"])),
    request_body = MarkReadRequest,
    responses(
        (status = 200, description = "Marked", body = MarkReadResult),
        (status = 400, description = "`validation`: more than 500 ids", body = Problem, content_type = PROBLEM)
    )
)]
#[post("/me/notifications/read")]
pub async fn mark_read(
    app: web::Data<AppState>,
    auth: Authenticated,
    body: JsonBody<MarkReadRequest>,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::Read)?;
    let b = body.into_inner();
    let (marked, unread_count) = app
        .notifications()
        .mark_read(&auth.user_id, b.ids, b.up_to)
        .await?;
    Ok(HttpResponse::Ok().json(MarkReadResult {
        marked,
        unread_count,
    }))
}

/// One event of the notification stream, as `text/event-stream` fields.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"id": "34f3453b-0748-5665-24e3-444edcbc91fa", "event": "your_turn",
    "data": "{\"id\":\"34f3453b-0748-5665-24e3-444edcbc91fa\",\"kind\":\"your_turn\"}"}))]
pub struct NotificationEvent {
    /// The notification's id (send it back as `Last-Event-ID`).
    pub id: Option<String>,
    /// The notification's kind.
    pub event: Option<String>,
    /// The item as in the feed, as JSON text.
    pub data: Option<String>,
    /// How long (milliseconds) to wait before reconnecting.
    pub retry: Option<u64>,
}

fn sse_event(row: &NotificationRow) -> String {
    let data = serde_json::to_string(&NotificationView::of(row)).unwrap_or_default();
    sse::event(&row.id, &row.kind, &data)
}

/// `Last-Event-ID`, if sent: a notification's id (a UUID). Anything else is refused, so a
/// reconnecting client never silently starts from now and misses what came meanwhile.
fn last_event_id(req: &HttpRequest) -> Result<Option<String>, ApiError> {
    let Some(value) = req.headers().get("Last-Event-ID") else {
        return Ok(None);
    };
    value
        .to_str()
        .ok()
        .map(str::trim)
        .filter(|v| v.len() <= 64)
        .and_then(|v| uuid::Uuid::try_parse(v).ok())
        .map(|id| Some(id.hyphenated().to_string()))
        .ok_or_else(|| {
            ApiError::field(
                "Last-Event-ID",
                "must be a notification's id, as sent in the stream's `id:` lines",
            )
        })
}

/// Server-Sent Events of my notifications.
///
/// Each event's `id:` is the notification's id, `event:` its kind and `data:` the item
/// as in the feed. Send `Last-Event-ID` (browsers do on reconnecting) to get what came
/// after that item; without it the stream starts with what comes next. A `Last-Event-ID`
/// that is not a notification's id is `400 validation` (an unknown but well-formed id
/// sends every item still kept). Fed by the instance's fan-out (PostgreSQL
/// `LISTEN`/`NOTIFY`), so items written by any server instance arrive. Open streams are
/// limited per account (`DJAMBI_STREAMS_PER_ACCOUNT`, then 429) and per instance
/// (`DJAMBI_STREAMS_PER_INSTANCE`, then 503), both with `Retry-After`. The stream ends
/// as soon as its token stops holding (revoked, its session ended, the account closed:
/// the database signals it; an expired token within `DJAMBI_STREAM_RECHECK`) and after
/// `DJAMBI_STREAM_MAX_LIFETIME` (1 h): reconnect with `Last-Event-ID`.
#[utoipa::path(
    tag = "notifications",
    security(("bearer" = ["read"])),
    params(("Last-Event-ID" = Option<String>, Header, description = "Resume after this notification (its id, a UUID)",
        pattern = "^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$")),
    responses(
        (status = 200, description = "An event stream: `retry: 2000`, then one event per notification", content_type = "text/event-stream", body = NotificationEvent),
        (status = 400, description = "`Last-Event-ID` is not a notification's id", body = Problem, content_type = PROBLEM),
        (status = 429, description = "This account holds `DJAMBI_STREAMS_PER_ACCOUNT` streams already; `Retry-After` says when to try again", body = Problem, content_type = PROBLEM,
            headers(("Retry-After" = u64, description = "Seconds to wait"))),
        (status = 503, description = "This instance holds `DJAMBI_STREAMS_PER_INSTANCE` streams already; `Retry-After` says when to try again", body = Problem, content_type = PROBLEM,
            headers(("Retry-After" = u64, description = "Seconds to wait")))
    )
)]
#[get("/me/notifications/stream")]
pub async fn stream_notifications(
    app: web::Data<AppState>,
    auth: Authenticated,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::Read)?;
    let last = last_event_id(&req)?;
    let stream = app.live.open_feed(&auth.user_id, last).await?;
    Ok(sse::live(
        &app,
        stream.map(|rows| rows.iter().map(sse_event).collect::<String>()),
        Some(sse::Guard::of(&app, &auth)),
    ))
}
