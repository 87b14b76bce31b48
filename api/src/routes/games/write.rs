//! What every write to a game shares: the [`GameWrite`] extractor (the caller with the
//! `play` scope, the game id, the JSON body, the expected version, the
//! `Idempotency-Key`) and [`execute`], which runs a command through the command layer
//! and answers it, storing the answer under the key in the write's own transaction.

use std::future::Future;
use std::pin::Pin;

use actix_web::http::{StatusCode, header};
use actix_web::{FromRequest, HttpMessage, HttpRequest, HttpResponse, dev::Payload, web};
use serde::de::DeserializeOwned;
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::{etag, game_id};
use crate::auth::Scope;
use crate::auth::tokens::is_stored_access_token;
use crate::error::ApiError;
use crate::games;
use crate::games::commands::{self, Actor, Command};
use crate::games::player_command::IdempotencyKey;
use crate::ids::{GameId, SessionId, UserId};
use crate::routes::caller::{AuthVia, Authenticated, bearer_token, uses_cookie};
use crate::routes::games::views::{ActionResult, GameSummary};
use crate::routes::json_body::parse_json_object;
use crate::state::AppState;

pub const IDEMPOTENCY_KEY: &str = "Idempotency-Key";
pub const MAX_KEY_LEN: usize = 255;

/// A write's body: a JSON object that may name the version it was decided at.
pub trait WriteBody: DeserializeOwned + 'static {
    fn expected_version(&self) -> Option<i64> {
        None
    }
}

/// A write with no body (the body must then be empty or `{}`).
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoBody {}

impl WriteBody for NoBody {}

/// Everything a write handler needs from its request.
///
/// An access token (JWT) is verified here without a database query: its session's
/// liveness is checked by the write itself (see `commands::Write::session`), so a move
/// costs one round trip. A personal access token is looked up as usual.
pub struct GameWrite<B> {
    pub user_id: UserId,
    /// The login session of an access token; `None` for a personal access token.
    pub session: Option<SessionId>,
    /// The `{id}` of the path; on a route without one (creating a game), a new id.
    pub game_id: GameId,
    /// `None` when the body is empty.
    pub body: Option<B>,
    /// From `If-Match: "<version>"` and/or the body's `expected_version`.
    pub expected: Option<i64>,
    /// `If-Match`'s version when it differs from the body's `expected_version`: the two
    /// preconditions cannot both hold, so the write is refused with `412` (see
    /// [`execute`]).
    pub contradicting: Option<i64>,
    /// Whether the write creates its game (no `{id}` in the path).
    pub creating: bool,
    pub idempotency: Option<IdempotencyKey>,
}

impl<B> GameWrite<B> {
    /// The command as the command layer takes it.
    pub fn command(&self, command: Command) -> commands::Write {
        commands::Write {
            game_id: self.game_id.clone(),
            command,
            actor: Actor::Player(self.user_id.clone()),
            expected: self.expected,
            session: self.session.clone(),
            quotas: None,
        }
    }
}

impl<B: WriteBody> FromRequest for GameWrite<B> {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let bytes = web::Bytes::from_request(req, payload);
        let req = req.clone();
        Box::pin(async move {
            let (auth, session) = caller(&req).await?;
            auth.require(Scope::Play)?;
            let creating = req.match_info().get("id").is_none();
            let game_id = match req.match_info().get("id") {
                Some(raw) => game_id(raw)?,
                None => GameId::new(uuid::Uuid::new_v4().to_string()),
            };
            let bytes = bytes.await.map_err(|e| {
                if e.as_response_error().status_code() == StatusCode::PAYLOAD_TOO_LARGE {
                    ApiError::PayloadTooLarge { limit: 0 }
                } else {
                    ApiError::field("body", format!("could not read the body: {e}"))
                }
            })?;
            let body: Option<B> = parse_json_object(&req, &bytes)?;
            let (expected, contradicting) =
                expected_version(&req, body.as_ref().and_then(B::expected_version))?;
            let idempotency = idempotency_key(&req, &bytes)?;
            Ok(GameWrite {
                user_id: auth.user_id,
                session,
                game_id,
                body,
                expected,
                contradicting,
                creating,
                idempotency,
            })
        })
    }
}

/// The caller, and the session the write must check (for an access token).
async fn caller(req: &HttpRequest) -> Result<(Authenticated, Option<SessionId>), ApiError> {
    if uses_cookie(req) {
        // The web client's cookie: checked in full (CSRF, session) by the extractor.
        let auth = Authenticated::from_request(req, &mut Payload::None).await?;
        let session = match &auth.via {
            AuthVia::Session { session_id } => Some(session_id.clone()),
            AuthVia::PersonalAccessToken { .. } => None,
        };
        return Ok((auth, session));
    }
    let token = bearer_token(req)?;
    if is_stored_access_token(&token) {
        let auth = Authenticated::from_request(req, &mut Payload::None).await?;
        return Ok((auth, None));
    }
    let app = req
        .app_data::<web::Data<AppState>>()
        .ok_or_else(|| ApiError::internal("application state is not configured"))?;
    let claims = app.jwt.verify(&token, app.clock.now())?;
    // Whose answer this is, for the language of a problem's title.
    req.extensions_mut()
        .insert(crate::routes::caller::CallerAccount(UserId::new(
            claims.sub.clone(),
        )));
    let session_id = SessionId::new(claims.sid);
    let auth = Authenticated {
        user_id: UserId::new(claims.sub),
        scopes: Scope::parse_list(&claims.scope),
        via: AuthVia::Session {
            session_id: session_id.clone(),
        },
    };
    Ok((auth, Some(session_id)))
}

/// The most digits of a version in `If-Match` (the document's `IF_MATCH_PATTERN`).
const IF_MATCH_DIGITS: usize = 18;

/// `If-Match: "<version>"`: 1 to 18 digits, the quotes optional (weak tags are not
/// accepted), as `crate::openapi::IF_MATCH_PATTERN` documents.
fn if_match(req: &HttpRequest) -> Result<Option<i64>, ApiError> {
    let Some(v) = req.headers().get(header::IF_MATCH) else {
        return Ok(None);
    };
    let text = v.to_str().unwrap_or("").trim();
    let inner = text
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .unwrap_or(text);
    Some(inner)
        .filter(|d| {
            (1..=IF_MATCH_DIGITS).contains(&d.len()) && d.bytes().all(|b| b.is_ascii_digit())
        })
        .and_then(|d| d.parse::<i64>().ok())
        .map(Some)
        .ok_or_else(|| {
            ApiError::field(
                "If-Match",
                "must be the game's version as an ETag, e.g. \"12\"",
            )
        })
}

/// The expected version from the body and/or `If-Match`, and `If-Match`'s version when
/// the two differ (a precondition that cannot hold).
fn expected_version(
    req: &HttpRequest,
    body: Option<i64>,
) -> Result<(Option<i64>, Option<i64>), ApiError> {
    let header = if_match(req)?;
    match (body, header) {
        (Some(b), _) if b < 0 => Err(ApiError::field("expected_version", "must be 0 or more")),
        (Some(b), Some(h)) if b != h => Ok((Some(b), Some(h))),
        (b, h) => Ok((b.or(h), None)),
    }
}

/// Reads the `Idempotency-Key` header: `None` without it, 400 when malformed. The hash
/// covers the method, the path, `If-Match` and the body's bytes.
pub(crate) fn idempotency_key(
    req: &HttpRequest,
    body: &[u8],
) -> Result<Option<IdempotencyKey>, ApiError> {
    let Some(value) = req.headers().get(IDEMPOTENCY_KEY) else {
        return Ok(None);
    };
    let key = value
        .to_str()
        .ok()
        .map(str::trim)
        .filter(|k| {
            !k.is_empty() && k.len() <= MAX_KEY_LEN && k.bytes().all(|b| b.is_ascii_graphic())
        })
        .ok_or_else(|| {
            ApiError::field(
                IDEMPOTENCY_KEY,
                format!("must be 1 to {MAX_KEY_LEN} visible ASCII characters"),
            )
        })?;
    let mut h = Sha256::new();
    h.update(req.method().as_str().as_bytes());
    h.update(b" ");
    h.update(req.path().as_bytes());
    h.update(b"\n");
    if let Some(m) = req.headers().get(header::IF_MATCH) {
        h.update(m.as_bytes());
    }
    h.update(b"\n");
    h.update(body);
    Ok(Some(IdempotencyKey {
        key: key.to_string(),
        request_hash: hex::encode(h.finalize()),
    }))
}

/// How a write is answered: its status, and the view its body is rendered as.
#[derive(Clone, Copy)]
pub enum Render {
    /// The game's summary (creating a game, seats).
    Summary(StatusCode),
    /// What the action did (moves, resignations, draw offers).
    Action(StatusCode),
}

impl Render {
    fn status(self) -> StatusCode {
        match self {
            Render::Summary(s) | Render::Action(s) => s,
        }
    }

    /// The use case's renderer: a pure function from what was written to the view.
    fn view(self) -> games::player_command::Render {
        match self {
            Render::Summary(_) => games::player_command::Render::Summary(|row, players, viewer| {
                json(GameSummary::of(row, players, Some(viewer)))
            }),
            Render::Action(_) => games::player_command::Render::Action(|w| {
                json(ActionResult::of(&w.state, w.first_seq, &w.events, &w.steps))
            }),
        }
    }
}

fn json(view: impl serde::Serialize) -> Value {
    // The views are plain structs of strings and numbers: serialising cannot fail.
    serde_json::to_value(view).unwrap_or(Value::Null)
}

/// An answer, fresh or replayed from the idempotency store, with the route's status.
pub struct Answer {
    status: StatusCode,
    answer: games::player_command::Answer,
}

impl Answer {
    /// The HTTP response: `ETag` is the new version, `Location` if given.
    pub fn respond(self, location: impl FnOnce(&Value) -> Option<String>) -> HttpResponse {
        let body = self.answer.body;
        let mut b = HttpResponse::build(self.status);
        if let Some(v) = body.get("version").and_then(Value::as_i64) {
            b.insert_header((header::ETAG, etag(v)));
        }
        if let Some(l) = location(&body) {
            b.insert_header((header::LOCATION, l));
        }
        if self.answer.replayed {
            b.insert_header(("Idempotent-Replayed", "true"));
        }
        b.json(body)
    }
}

/// Runs `command` for the request `w` through the write use case and answers it.
pub async fn execute<B>(
    app: &web::Data<AppState>,
    w: &GameWrite<B>,
    command: Command,
    render: Render,
) -> Result<Answer, ApiError> {
    let request = games::player_command::GameWrite {
        write: w.command(command),
        key: w.idempotency.clone(),
        contradicting: w.contradicting,
    };
    let answer = games::player_command::execute(app.game_ctx(), request, render.view())
        .await
        .map_err(|e| ApiError::from(e).with_legal_moves_url(&w.game_id))?;
    Ok(Answer {
        status: render.status(),
        answer,
    })
}
