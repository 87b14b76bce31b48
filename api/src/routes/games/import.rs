//! `POST /v1/games/import`: a game record in, checked action by action, stored as a study
//! game.

use actix_web::http::{StatusCode, header};
use actix_web::{HttpRequest, HttpResponse, post, web};
use futures_util::StreamExt;
use serde::Deserialize;
use serde_json::Value;
use utoipa::ToSchema;

use super::PROBLEM;
use super::write::{self, GameWrite, NoBody, Render};
use crate::auth::Scope;
use crate::error::{ApiError, Problem};
use crate::games::commands::{Command, ImportRecord, MAX_RECORD_BYTES};
use crate::ids::GameId;
use crate::model::events::Visibility;
use crate::routes::caller::Authenticated;
use crate::routes::games::views::GameSummary;
use crate::routes::json_body::parse_json_object;
use crate::state::AppState;

/// The largest body of an import: a record of [`MAX_RECORD_BYTES`] as a JSON string
/// (escaped line breaks and quotes take two bytes), with room for the object around it.
pub const MAX_IMPORT_BODY_BYTES: usize = 2 * MAX_RECORD_BYTES + 4096;

/// A game record to import.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({
    "record": "[Red \"alice\"]\n[Blue \"bob\"]\n[Yellow \"carol\"]\n[Green \"dave\"]\n[Result \"*\"]\n\n1. R C8-D7\n2. B G8-F7\n",
    "visibility": "invite"
}))]
pub struct ImportRequest {
    /// The record's text, in the format of `docs/record-format.md` (at most 256 KiB and
    /// 5,000 actions).
    pub record: String,
    /// `invite` (the default: not listed, readable by anyone who has the id) or `public`
    /// (also listed in the lobby under `active` or `finished`).
    pub visibility: Option<Visibility>,
}

/// Import a game record as a study game.
///
/// The body is `{"record": "<text>"}` as `application/json`, or the record itself as
/// `text/plain`. Every action is checked against the rules of the record's `Ruleset`
/// header (VARIANTS.md 2.2; absent: the default ruleset), which the study game keeps
/// (its summary's `ruleset`); an unknown option or value there is a 400 naming the
/// line. The game is stored for
/// study (`kind: "study"`): a `created` event holding the record's headers (the players
/// are names, not accounts), then one event per action (`move_played`, `resigned`,
/// `timed_out`, and `ended` as the record's game ends), finished or ongoing as the record
/// says. A study game has no seats: taking one is refused with 409. Its history, state,
/// record, board pictures and replay page (`/games/{id}`) are those of any game.
///
/// A record that cannot be read is a 400 naming the line (`line 3: ...`); one whose
/// actions break the rules, or whose `Result` header is wrong, is a 422 `invalid-record`
/// with `line` and `reason` (`illegal-action` or `result-mismatch`). Nothing is written
/// then. Accepts `Idempotency-Key`.
#[utoipa::path(
    tag = "games",
    security(("bearer" = ["play"])),
    request_body(content(
        (ImportRequest = "application/json"),
        (String = "text/plain", example = "[Event \"Friendly\"]\n[Seats \"RBY\"]\n[Result \"*\"]\n\n1. R C8-D7\n")
    )),
    params(("Idempotency-Key" = Option<String>, Header, description = "Makes a retry safe: the same key and body return the first answer")),
    responses(
        (status = 201, description = "Imported; `Location` is the game, `ETag` its version", body = GameSummary),
        (status = 400, description = "The record cannot be read (the detail names the line), or a bad body", body = Problem, content_type = PROBLEM),
        (status = 413, description = "The record is larger than 256 KiB", body = Problem, content_type = PROBLEM),
        (status = 415, description = "The body is neither `application/json` nor `text/plain`", body = Problem, content_type = PROBLEM),
        (status = 409, description = "`quota-exceeded`: the account's open games (`DJAMBI_QUOTA_OPEN_GAMES`)", body = Problem, content_type = PROBLEM),
        (status = 422, description = "`invalid-record` (with `line` and `reason`), or `idempotency-key-reused`", body = Problem, content_type = PROBLEM),
        (status = 429, description = "`rate-limited`: the account imported `DJAMBI_QUOTA_IMPORTS_PER_DAY` records, or created `DJAMBI_QUOTA_GAMES_PER_DAY` games, in 24 hours; `Retry-After` says when a place frees", body = Problem, content_type = PROBLEM,
            headers(("Retry-After" = u64, description = "Seconds to wait")))
    )
)]
#[post("/games/import")]
pub async fn import_game(
    app: web::Data<AppState>,
    req: HttpRequest,
    auth: Authenticated,
    mut payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::Play)?;
    let mut bytes = web::BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk =
            chunk.map_err(|e| ApiError::field("body", format!("could not read the body: {e}")))?;
        if bytes.len() + chunk.len() > MAX_IMPORT_BODY_BYTES {
            return Err(ApiError::PayloadTooLarge {
                limit: MAX_RECORD_BYTES,
            });
        }
        bytes.extend_from_slice(&chunk);
    }
    let (text, visibility) = read_import(&req, &bytes)?;
    if text.len() > MAX_RECORD_BYTES {
        return Err(ApiError::PayloadTooLarge {
            limit: MAX_RECORD_BYTES,
        });
    }
    let w = GameWrite::<NoBody> {
        idempotency: write::idempotency_key(&req, &bytes)?,
        user_id: auth.user_id,
        game_id: GameId::new(uuid::Uuid::new_v4().to_string()),
        body: None,
        expected: None,
        contradicting: None,
        creating: true,
        // The caller was authenticated in full (the session checked) above.
        session: None,
    };
    let command = Command::Import(ImportRecord { text, visibility });
    let answer = write::execute(&app, &w, command, Render::Summary(StatusCode::CREATED)).await?;
    Ok(answer.respond(|b| {
        b.get("id")
            .and_then(Value::as_str)
            .map(|id| format!("/v1/games/{id}"))
    }))
}

/// The record and the visibility from a JSON object or a `text/plain` body.
fn read_import(req: &HttpRequest, bytes: &[u8]) -> Result<(String, Visibility), ApiError> {
    let media = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(|m| m.trim().to_ascii_lowercase())
        .unwrap_or_default();
    if media == "text/plain" {
        let text = std::str::from_utf8(bytes)
            .map_err(|e| ApiError::field("record", format!("is not UTF-8 text: {e}")))?;
        if text.trim().is_empty() {
            return Err(ApiError::field("record", "the record is empty"));
        }
        return Ok((text.to_string(), Visibility::Invite));
    }
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::field(
            "body",
            "give the record as {\"record\": \"...\"} (application/json) or as text/plain",
        ));
    }
    let body: ImportRequest = parse_json_object(req, bytes)
        .map_err(|e| match e {
            ApiError::UnsupportedMediaType(_) => ApiError::UnsupportedMediaType(
                "the record must be sent as application/json ({\"record\": \"...\"}) or text/plain"
                    .into(),
            ),
            other => other,
        })?
        .ok_or_else(|| ApiError::field("body", "a JSON object is required"))?;
    if body.record.trim().is_empty() {
        return Err(ApiError::field("record", "the record is empty"));
    }
    Ok((body.record, body.visibility.unwrap_or(Visibility::Invite)))
}
