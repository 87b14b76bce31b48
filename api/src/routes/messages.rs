//! Table talk: `GET/POST /v1/games/{id}/messages`, `POST /v1/games/{id}/messages/{mid}/report`.
//! The rules (who may write, who reads what) are in [`crate::messages`].

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, get, post, web};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_actix_web::service_config::ServiceConfig;

use crate::auth::Scope;
use crate::error::{ApiError, Problem};
use crate::ids::{GameId, MessageId, UserId};
use crate::messages::{self, Message};
use crate::pagination::{PageParams, next_link};
use crate::routes::caller::Authenticated;
use crate::routes::games::write::idempotency_key;
use crate::routes::games::{MaybeAuthenticated, etag, game_id};
use crate::routes::json_body::JsonBody;
use crate::state::AppState;

const PROBLEM: &str = "application/problem+json";

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(list_messages)
        .service(send_message)
        .service(report_message);
}

/// One message at a game's table.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({
    "id": "0192f5e4-7a3c-7cc1-9a51-3e1f0c2b8d11", "seq": 3, "seat": "R", "to": ["B"],
    "text": "Leave my chief alone and I leave yours.", "game_version": 17,
    "created_at": "2026-12-01T10:00:00Z"
}))]
pub struct MessageView {
    #[schema(value_type = String)]
    pub id: MessageId,
    /// The message's number in the game's own sequence of messages (1, 2, 3...).
    pub seq: i64,
    /// The sender's seat.
    pub seat: String,
    /// The recipient seats; `null`: the whole table.
    pub to: Option<Vec<String>>,
    /// Plain text, never markup: show it as it is.
    pub text: String,
    /// The game's version when it was sent.
    pub game_version: i64,
    pub created_at: DateTime<Utc>,
}

impl MessageView {
    pub fn of(m: &Message) -> MessageView {
        MessageView {
            id: m.id.clone(),
            seq: m.seq,
            seat: m.sender_seat.clone(),
            to: (!m.recipients.is_empty())
                .then(|| m.recipients.chars().map(String::from).collect()),
            text: m.body.clone(),
            game_version: m.game_version,
            created_at: m.created_at.and_utc(),
        }
    }
}

/// A page of the messages the caller may see, oldest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct MessagePage {
    #[schema(value_type = String)]
    pub game_id: GameId,
    pub items: Vec<MessageView>,
    /// The `after` of the next page; `null`: this is the last page.
    pub next_cursor: Option<String>,
    /// The URL of the next page.
    pub next: Option<String>,
}

/// The paging of a game's messages: by sequence number.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct MessageParams {
    /// Messages after this sequence number (the `next_cursor` of the previous page; 0:
    /// from the start). To follow a conversation, pass the `seq` of the newest message.
    #[param(min_length = 1, max_length = 18, pattern = "^[0-9]{1,18}$")]
    pub after: Option<String>,
    /// Items per page, 1 to 100 (default 50).
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<u32>,
}

/// A message to send.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"text": "Shall we deal with Yellow first?", "to": ["B"]}))]
pub struct SendMessageRequest {
    /// Plain text, 1 to 1000 characters (trimmed; line breaks and tabs allowed, no other
    /// control characters).
    #[schema(min_length = 1, max_length = 1000)]
    pub text: String,
    /// The recipient seats (`R`, `B`, `Y`, `G`: seats of this game with a player, not
    /// the sender's); absent or `null`: the whole table.
    #[schema(max_items = 3)]
    pub to: Option<Vec<String>>,
}

/// A report of a message to the operator.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"reason": "insults"}))]
pub struct ReportRequest {
    /// Why (at most 500 characters).
    #[schema(max_length = 500)]
    pub reason: Option<String>,
}

/// The messages of a game the caller may see, oldest first, paged by `?after=<seq>`.
///
/// Players see the messages to the whole table and the private ones they sent or
/// received; spectators (no token) the table's only. After the end, private messages
/// become visible to everyone when the game was created with `press: revealed_at_end`,
/// and stay private with `press: private` (the default). Messages of players the caller
/// muted, and messages the operator hid, are left out. `ETag` is the game's current
/// version (a new message does not change it: poll with `?after=`); a signed-in
/// reader's list is `Cache-Control: private, no-store`.
#[utoipa::path(
    tag = "messages",
    params(("id" = String, Path, description = "The game's id", max_length = 64, pattern = "^[A-Za-z0-9-]+$"), MessageParams),
    responses(
        (status = 200, description = "A page of messages", body = MessagePage),
        (status = 400, description = "Bad `after` or `limit`", body = Problem, content_type = PROBLEM),
        (status = 401, description = "Invalid token", body = Problem, content_type = PROBLEM),
        (status = 404, description = "No such game", body = Problem, content_type = PROBLEM)
    )
)]
#[get("/games/{id}/messages")]
pub async fn list_messages(
    app: web::Data<AppState>,
    path: web::Path<String>,
    query: web::Query<MessageParams>,
    viewer: MaybeAuthenticated,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(&path)?;
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
            .ok_or_else(|| ApiError::field("after", "must be a message's sequence number"))?,
    };
    let reader = viewer.0.map(|a| a.user_id);
    // A signed-in reader's list holds private messages: no cache keeps it.
    let cache_control = if reader.is_some() {
        "private, no-store"
    } else {
        "no-cache"
    };
    let page = messages::list::list(app.game_ctx(), id.clone(), reader, after, limit).await?;
    let next_cursor = page.next_after.map(|n| n.to_string());
    let next = next_cursor
        .as_deref()
        .map(|c| next_link(&format!("/v1/games/{id}/messages"), c, limit));
    Ok(HttpResponse::Ok()
        .insert_header((header::ETAG, etag(page.state.version)))
        .insert_header((header::CACHE_CONTROL, cache_control))
        .json(MessagePage {
            game_id: id,
            items: page.items.iter().map(MessageView::of).collect(),
            next_cursor,
            next,
        }))
}

/// Send a message to the whole table (no `to`) or privately to some seats.
///
/// Only the game's players write; a message is not an event of the game: it never
/// changes the game's version. A player whose seats are all out of the game may write
/// unless the game was created with `eliminated_may_write: false`. The table is closed
/// once the game is over. At most 20 messages a minute per player and 60 per game.
/// The recipients (but not those who muted the sender) get a `message` notification.
/// `ETag` is the game's version when it was sent. Accepts `Idempotency-Key`.
#[utoipa::path(
    tag = "messages",
    security(("bearer" = ["play"])),
    params(
        ("id" = String, Path, description = "The game's id", max_length = 64, pattern = "^[A-Za-z0-9-]+$"),
        ("Idempotency-Key" = Option<String>, Header, description = "Makes a retry safe: the same request again gets the first answer (`Idempotent-Replayed: true`), nothing is sent twice")
    ),
    request_body = SendMessageRequest,
    responses(
        (status = 201, description = "Sent", body = MessageView),
        (status = 400, description = "Empty or too long, unknown seats, a seat not in the game", body = Problem, content_type = PROBLEM),
        (status = 401, description = "Missing or invalid token", body = Problem, content_type = PROBLEM),
        (status = 403, description = "Not a player of this game, out of it where that forbids writing, or the token lacks the play scope", body = Problem, content_type = PROBLEM),
        (status = 404, description = "No such game", body = Problem, content_type = PROBLEM),
        (status = 409, description = "The game is over", body = Problem, content_type = PROBLEM),
        (status = 413, description = "Body too large", body = Problem, content_type = PROBLEM),
        (status = 415, description = "Not JSON", body = Problem, content_type = PROBLEM),
        (status = 429, description = "Too many messages; `Retry-After` says when to try again", body = Problem, content_type = PROBLEM)
    )
)]
#[post("/games/{id}/messages")]
pub async fn send_message(
    req: HttpRequest,
    app: web::Data<AppState>,
    path: web::Path<String>,
    auth: Authenticated,
    body: JsonBody<SendMessageRequest>,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::Play)?;
    let id = game_id(&path)?;
    let b = body.into_inner();
    // The key's request hash covers the request as parsed (the same text and seats in
    // other JSON spacing are the same request).
    let canonical = serde_json::to_vec(&serde_json::json!({"text": b.text, "to": b.to}))
        .map_err(|e| ApiError::internal(format!("request hash: {e}")))?;
    let key = idempotency_key(&req, &canonical)?;
    let sent = messages::send::send(
        app.game_ctx(),
        id,
        auth.user_id,
        messages::send::NewMessage {
            text: b.text,
            to: b.to,
        },
        key,
        |row| serde_json::to_value(MessageView::of(row)).unwrap_or_default(),
    )
    .await?;
    let mut response = HttpResponse::Created();
    if let Some(v) = sent.answer.get("game_version").and_then(|v| v.as_i64()) {
        response.insert_header((header::ETAG, etag(v)));
    }
    if sent.replayed {
        response.insert_header(("Idempotent-Replayed", "true"));
    }
    Ok(response.json(sent.answer))
}

/// Report a message to the operator.
///
/// The report keeps the message and the few before it the caller could see. Reporting
/// the same message again changes nothing (200).
#[utoipa::path(
    tag = "messages",
    security(("bearer" = ["read"])),
    params(
        ("id" = String, Path, description = "The game's id", max_length = 64, pattern = "^[A-Za-z0-9-]+$"),
        ("mid" = String, Path, description = "The message's id", max_length = 64)
    ),
    request_body = ReportRequest,
    responses(
        (status = 201, description = "Reported"),
        (status = 200, description = "Already reported by the caller"),
        (status = 400, description = "Reason too long", body = Problem, content_type = PROBLEM),
        (status = 401, description = "Missing or invalid token", body = Problem, content_type = PROBLEM),
        (status = 404, description = "No such game, or no message of it the caller can see", body = Problem, content_type = PROBLEM),
        (status = 413, description = "Body too large", body = Problem, content_type = PROBLEM),
        (status = 415, description = "Not JSON", body = Problem, content_type = PROBLEM)
    )
)]
#[post("/games/{id}/messages/{mid}/report")]
pub async fn report_message(
    app: web::Data<AppState>,
    path: web::Path<(String, String)>,
    auth: Authenticated,
    body: JsonBody<ReportRequest>,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::Read)?;
    let (id, mid) = path.into_inner();
    let id = game_id(&id)?;
    let mid = MessageId::new(crate::routes::uuid_id(mid, "message")?);
    let new = messages::report::report(
        app.game_ctx(),
        id,
        mid,
        auth.user_id,
        body.into_inner().reason,
    )
    .await?;
    Ok(if new {
        HttpResponse::Created().finish()
    } else {
        HttpResponse::Ok().finish()
    })
}

/// `?messages=` of `GET /v1/games/{id}/record`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct RecordParams {
    /// `true`: append the table talk the caller may see, as `; message {JSON}` comment
    /// lines after the moves (default `false`).
    #[serde(default)]
    pub messages: bool,
    /// `true`: the engine's finished analysis as comments, `{eval R +0.40 B -0.12 ...;
    /// mistake, best was G3-F4}` after each move (each seat's value after it, in
    /// militants), `404` without one; re-importable (default `false`; not with
    /// `messages`).
    #[serde(default)]
    pub analysis: bool,
}

/// One message of the record's table-talk section: a JSON object on one line.
#[derive(Debug, Serialize)]
struct RecordMessage<'a> {
    seq: i64,
    seat: &'a str,
    to: Option<Vec<String>>,
    at: String,
    game_version: i64,
    text: &'a str,
}

/// The record followed by its table-talk section (the caller's view of it).
pub(crate) async fn record_with_messages(
    app: &AppState,
    id: GameId,
    reader: Option<UserId>,
) -> Result<HttpResponse, ApiError> {
    let (state, players) =
        crate::games::queries::state_with_players(app.game_ctx(), id.clone()).await?;
    let talk = messages::list::all_visible(app.game_ctx(), id, reader).await?;
    let mut text = crate::games::record::text(&state, &players, app.config.public_url.as_str())
        .map_err(|e| ApiError::internal(format!("record of {}: {e}", state.id)))?;
    text.push_str(&talk_comments(&talk));
    Ok(HttpResponse::Ok()
        .insert_header((actix_web::http::header::CACHE_CONTROL, "private, no-cache"))
        .content_type("text/plain; charset=utf-8")
        .body(text))
}

/// The table-talk section of a record: a heading comment, then one `; message {JSON}`
/// line per message (JSON escapes line breaks, so each stays on its line).
pub fn talk_comments(talk: &[Message]) -> String {
    let mut out =
        String::from("\n; Table talk: one message a line, `; message` and a JSON object\n");
    for m in talk {
        let line = RecordMessage {
            seq: m.seq,
            seat: &m.sender_seat,
            to: (!m.recipients.is_empty())
                .then(|| m.recipients.chars().map(String::from).collect()),
            at: m
                .created_at
                .and_utc()
                .format("%Y-%m-%dT%H:%M:%SZ")
                .to_string(),
            game_version: m.game_version,
            text: &m.body,
        };
        out.push_str("; message ");
        out.push_str(&serde_json::to_string(&line).unwrap_or_default());
        out.push('\n');
    }
    out
}

/// The table-talk section of the replay page (escaped plain text); empty without messages.
pub fn talk_section(talk: &[Message], lang: crate::i18n::Lang) -> String {
    use crate::i18n::{t, tr};
    if talk.is_empty() {
        return String::new();
    }
    let esc = crate::routes::web::page::escape_html;
    let seat = |letter: &str| t(lang, &format!("seat-{letter}"));
    let mut out = format!(
        "      <section class=\"table-talk\" aria-labelledby=\"talk-title\">\n        <h2 id=\"talk-title\">{}</h2>\n        <ol id=\"talk-list\">\n",
        esc(&t(lang, "talk-title"))
    );
    for m in talk {
        let to = if m.recipients.is_empty() {
            t(lang, "talk-to-table")
        } else {
            tr(
                lang,
                "talk-to-seats",
                &[(
                    "seats",
                    m.recipients
                        .chars()
                        .map(|c| seat(&c.to_string()))
                        .collect::<Vec<_>>()
                        .join(", ")
                        .into(),
                )],
            )
        };
        out.push_str(&format!(
            "          <li><span class=\"talk-from\">{} {}</span> <span class=\"talk-text\">{}</span></li>\n",
            esc(&seat(&m.sender_seat)),
            esc(&to),
            esc(&m.body)
        ));
    }
    out.push_str("        </ol>\n      </section>\n");
    out
}
