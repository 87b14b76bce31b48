//! The games: create, lobby, summary, seats, state, legal moves, moves, resignation, draw
//! offers, event log and record (`/v1/games...`). The logic is in [`crate::games`].
//!
//! Reading: every `GET` here works without a token. Public games are listed in the lobby;
//! invite-only games are not listed, and are readable by anyone who knows their id (a
//! random UUID, shared with the invitation). Writing needs a token with the `play` scope;
//! only a seat's player acts for that seat.

use std::future::ready;

use actix_web::http::{StatusCode, header};
use actix_web::{FromRequest, HttpRequest, HttpResponse, delete, get, post, web};
use chrono::{DateTime, NaiveDateTime};
use diesel::prelude::*;
use domain::{GameSettings, Move, Seat};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};
use utoipa_actix_web::service_config::ServiceConfig;

use crate::auth::{Authenticated, Scope};
use crate::db::{self, DbConnection};
use crate::error::{ApiError, Problem};
use crate::games::events::{Status, Visibility};
use crate::games::idempotency::{self, StoredResponse};
use crate::games::service::{self, Applied, DrawAction, NewGame, Write, WriteOutcome};
use crate::games::store::{self, GameRow};
use crate::games::views::{
    ActionResult, EventPage, EventView, GamePage, GameSummary, LegalMovesView, MoveJson, MoveView,
    StateView,
};
use crate::pagination::{PageParams, next_link};
use crate::schema::{game_events, games};
use crate::state::AppState;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(create_game)
        .service(list_games)
        .service(get_game)
        .service(take_seat)
        .service(leave_seat)
        .service(get_state)
        .service(legal_moves)
        .service(play_move)
        .service(resign)
        .service(draw_offer)
        .service(list_events)
        .service(get_record);
}

// ---------------------------------------------------------------------------------------
// Shared helpers

/// The caller, when a bearer token is sent; `None` without an `Authorization` header. A
/// token that is sent but invalid is still a 401.
pub struct MaybeAuthenticated(pub Option<Authenticated>);

impl FromRequest for MaybeAuthenticated {
    type Error = ApiError;
    type Future = std::pin::Pin<Box<dyn std::future::Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, payload: &mut actix_web::dev::Payload) -> Self::Future {
        if req.headers().contains_key(header::AUTHORIZATION) {
            let fut = Authenticated::from_request(req, payload);
            Box::pin(async move { fut.await.map(|a| MaybeAuthenticated(Some(a))) })
        } else {
            Box::pin(ready(Ok(MaybeAuthenticated(None))))
        }
    }
}

/// A game id from the path: ids are UUIDs, anything else cannot exist.
fn game_id(raw: &str) -> Result<String, ApiError> {
    if raw.is_empty()
        || raw.len() > 64
        || !raw.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
    {
        return Err(store::not_found(raw.get(..64).unwrap_or(raw)));
    }
    Ok(raw.to_string())
}

fn seat_param(raw: &str) -> Result<Seat, ApiError> {
    raw.parse()
        .map_err(|_| ApiError::field("seat", "must be one of R, B, Y, G"))
}

/// Parses an optional JSON object body read as bytes (so that it can also be hashed for
/// idempotency).
fn parse_body<T: DeserializeOwned>(req: &HttpRequest, body: &[u8]) -> Result<Option<T>, ApiError> {
    crate::extract::parse_json_object(req, body)
}

/// `If-Match: "<version>"` (the quotes are optional; weak tags are not accepted).
fn if_match(req: &HttpRequest) -> Result<Option<i64>, ApiError> {
    let Some(v) = req.headers().get(header::IF_MATCH) else {
        return Ok(None);
    };
    let text = v.to_str().unwrap_or("").trim();
    let inner = text
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .unwrap_or(text);
    inner
        .parse::<i64>()
        .ok()
        .filter(|n| *n >= 0)
        .map(Some)
        .ok_or_else(|| {
            ApiError::field(
                "If-Match",
                "must be the game's version as an ETag, e.g. \"12\"",
            )
        })
}

/// The expected version from the body and/or `If-Match` (they must agree).
fn expected_version(req: &HttpRequest, body: Option<i64>) -> Result<Option<i64>, ApiError> {
    let header = if_match(req)?;
    match (body, header) {
        (Some(b), Some(h)) if b != h => Err(ApiError::field(
            "expected_version",
            format!("is {b} but If-Match says {h}"),
        )),
        (Some(b), _) if b < 0 => Err(ApiError::field("expected_version", "must be 0 or more")),
        (b, h) => Ok(b.or(h)),
    }
}

fn etag(version: i64) -> String {
    format!("\"{version}\"")
}

fn not_modified(req: &HttpRequest, version: i64) -> bool {
    let tag = etag(version);
    req.headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == tag || t.trim() == "*"))
}

/// The HTTP response of a write (fresh or replayed).
fn reply(outcome: WriteOutcome, location: impl FnOnce(&Value) -> Option<String>) -> HttpResponse {
    let (r, replayed) = match outcome {
        WriteOutcome::Done(r) => (r, false),
        WriteOutcome::Replayed(r) => (r, true),
    };
    let mut b = HttpResponse::build(r.status);
    if let Some(v) = r.body.get("version").and_then(Value::as_i64) {
        b.insert_header((header::ETAG, etag(v)));
    }
    if let Some(l) = location(&r.body) {
        b.insert_header((header::LOCATION, l));
    }
    if replayed {
        b.insert_header(("Idempotent-Replayed", "true"));
    }
    b.json(r.body)
}

fn stored(status: StatusCode, body: impl serde::Serialize) -> Result<StoredResponse, ApiError> {
    Ok(StoredResponse {
        status,
        body: serde_json::to_value(body).map_err(ApiError::internal)?,
    })
}

/// Renders a write's response as the game's summary.
fn render_summary(
    status: StatusCode,
    actor: String,
) -> impl FnOnce(&mut DbConnection, &Applied) -> Result<StoredResponse, ApiError> + Send + 'static {
    move |conn, applied| {
        let row = GameRow::of(&applied.state);
        let players = store::players_of(conn, std::slice::from_ref(&row.id))?;
        stored(status, GameSummary::of(&row, &players, Some(&actor)))
    }
}

/// Renders a write's response as what the action did.
fn render_action(
    status: StatusCode,
) -> impl FnOnce(&mut DbConnection, &Applied) -> Result<StoredResponse, ApiError> + Send + 'static {
    move |_, applied| {
        stored(
            status,
            ActionResult::of(
                &applied.state,
                applied.first_seq,
                &applied.events,
                &applied.steps,
            ),
        )
    }
}

fn encode_cursor(t: NaiveDateTime, id: &str) -> String {
    format!("{}_{id}", t.and_utc().timestamp_micros())
}

pub(crate) fn decode_cursor(c: &str) -> Result<(NaiveDateTime, String), ApiError> {
    let bad = || ApiError::field("after", "is not a valid cursor");
    let (micros, id) = c.split_once('_').ok_or_else(bad)?;
    let micros: i64 = micros.parse().map_err(|_| bad())?;
    let t = DateTime::from_timestamp_micros(micros).ok_or_else(bad)?;
    Ok((t.naive_utc(), id.to_string()))
}

pub(crate) fn page_of(
    rows: Vec<GameRow>,
    limit: u32,
    players: &[store::PlayerRow],
    viewer: Option<&str>,
    path: &str,
    extra_query: &str,
    cursor_time: impl Fn(&GameRow) -> NaiveDateTime,
) -> GamePage {
    let more = rows.len() > limit as usize;
    let rows = &rows[..rows.len().min(limit as usize)];
    let next_cursor = if more {
        rows.last().map(|r| encode_cursor(cursor_time(r), &r.id))
    } else {
        None
    };
    let next = next_cursor
        .as_deref()
        .map(|c| format!("{}{extra_query}", next_link(path, c, limit)));
    GamePage {
        items: rows
            .iter()
            .map(|r| GameSummary::of(r, players, viewer))
            .collect(),
        next_cursor,
        next,
    }
}

const PROBLEM: &str = "application/problem+json";

// ---------------------------------------------------------------------------------------
// Create and list

/// A new game.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"seats": 4, "seat": "R", "visibility": "public"}))]
pub struct CreateGameRequest {
    /// Seats in play: 3 or 4 (default 4).
    pub seats: Option<u8>,
    /// The creator's own seat (`R`, `B`, `Y`, `G`); absent: the creator does not sit.
    #[schema(value_type = Option<String>, example = "R")]
    pub seat: Option<Seat>,
    /// With 3 seats: the seat left empty, whose party is hostage (default `G`).
    #[schema(value_type = Option<String>, example = "G")]
    pub empty_seat: Option<Seat>,
    /// `public` (listed in the lobby; the default) or `invite` (unlisted; taking a seat
    /// needs the `invite_code` shown to the creator).
    pub visibility: Option<Visibility>,
    /// Expected version for an idempotent retry check: always 0 here; accepted and ignored.
    pub expected_version: Option<i64>,
}

/// Create a game.
///
/// The creator may take a seat at once (`seat`). The game starts when every seat in play
/// is taken. Invite-only games get an `invite_code`, shown to the creator (and seated
/// players) in the summary. Accepts `Idempotency-Key`.
#[utoipa::path(
    tag = "games",
    security(("bearer" = [])),
    request_body = CreateGameRequest,
    params(("Idempotency-Key" = Option<String>, Header, description = "Makes a retry safe: the same key and body return the first answer")),
    responses(
        (status = 201, description = "Created; `Location` is the game, `ETag` its version", body = GameSummary),
        (status = 400, description = "A field is invalid", body = Problem, content_type = PROBLEM),
        (status = 401, description = "Missing or invalid token", body = Problem, content_type = PROBLEM),
        (status = 403, description = "The token lacks the `play` scope", body = Problem, content_type = PROBLEM),
        (status = 422, description = "The Idempotency-Key was used for another request", body = Problem, content_type = PROBLEM)
    )
)]
#[post("/games")]
pub async fn create_game(
    app: web::Data<AppState>,
    auth: Authenticated,
    req: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::Play)?;
    let body_req: CreateGameRequest = parse_body(&req, &body)?.unwrap_or(CreateGameRequest {
        seats: None,
        seat: None,
        empty_seat: None,
        visibility: None,
        expected_version: None,
    });
    let seats = body_req.seats.unwrap_or(4);
    let settings = match (seats, body_req.empty_seat) {
        (4, None) => GameSettings::four_players(),
        (4, Some(_)) => {
            return Err(ApiError::field(
                "empty_seat",
                "only a 3-seat game has an empty seat",
            ));
        }
        (3, empty) => GameSettings::three_players(empty.unwrap_or(Seat::Green)),
        _ => return Err(ApiError::field("seats", "must be 3 or 4")),
    };
    let hostage_seat = (seats == 3).then(|| body_req.empty_seat.unwrap_or(Seat::Green));
    if let Some(seat) = body_req.seat {
        if !settings.seats.contains(seat) {
            return Err(ApiError::field(
                "seat",
                format!("seat {seat} is the empty seat"),
            ));
        }
    }
    let visibility = body_req.visibility.unwrap_or(Visibility::Public);
    let invite_code = (visibility == Visibility::Invite).then(|| {
        crate::auth::tokens::generate("")
            .chars()
            .take(16)
            .collect::<String>()
    });
    let new = NewGame {
        settings,
        hostage_seat,
        visibility,
        creator_seat: body_req.seat,
        invite_code,
    };
    let user = auth.user_id.clone();
    let write = Write {
        game_id: uuid::Uuid::new_v4().to_string(),
        create: true,
        expected: None,
        idem: idempotency::from_request(&req, &user, &body)?,
        actor: user.clone(),
    };
    let u = user.clone();
    let outcome = service::execute(
        &app,
        write,
        move |p| service::create(p, &u, new.clone()),
        render_summary(StatusCode::CREATED, user),
    )
    .await?;
    Ok(reply(outcome, |b| {
        b.get("id")
            .and_then(Value::as_str)
            .map(|id| format!("/v1/games/{id}"))
    }))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LobbyParams {
    /// `open` (default: games with free seats), `active` or `finished`.
    pub status: Option<String>,
    /// The `next_cursor` of the previous page.
    pub after: Option<String>,
    /// Items per page, 1 to 100 (default 50).
    pub limit: Option<u32>,
}

/// The lobby: public games, newest first.
///
/// `?status=open` (the default) lists games with free seats; `active` and `finished`
/// list public games being played or over, for spectators. Invite-only games are never
/// listed.
#[utoipa::path(
    tag = "games",
    params(LobbyParams),
    responses(
        (status = 200, description = "A page of games", body = GamePage),
        (status = 400, description = "Bad `status`, `after` or `limit`", body = Problem, content_type = PROBLEM)
    )
)]
#[get("/games")]
pub async fn list_games(
    app: web::Data<AppState>,
    viewer: MaybeAuthenticated,
    query: web::Query<LobbyParams>,
) -> Result<HttpResponse, ApiError> {
    let q = query.into_inner();
    let status = match q.status.as_deref() {
        None => Status::Open,
        Some(s) => Status::parse(s)
            .ok_or_else(|| ApiError::field("status", "must be open, active or finished"))?,
    };
    let page = PageParams {
        after: q.after,
        limit: q.limit,
    };
    let limit = page.limit()?;
    let cursor = page.after()?.map(decode_cursor).transpose()?;
    let viewer = viewer.0.map(|a| a.user_id);
    let (rows, players) = db::run(&app.pool, move |conn| {
        let mut query = games::table
            .filter(games::visibility.eq(Visibility::Public.as_str()))
            .filter(games::status.eq(status.as_str()))
            .order((games::created_at.desc(), games::id.desc()))
            .limit(i64::from(limit) + 1)
            .select(GameRow::as_select())
            .into_boxed();
        if let Some((t, id)) = cursor {
            query = query.filter(
                games::created_at
                    .lt(t)
                    .or(games::created_at.eq(t).and(games::id.lt(id))),
            );
        }
        let rows: Vec<GameRow> = query.load(conn)?;
        let ids: Vec<String> = rows.iter().map(|r| r.id.clone()).collect();
        let players = store::players_of(conn, &ids)?;
        Ok((rows, players))
    })
    .await?;
    let extra = format!("&status={}", status.as_str());
    Ok(HttpResponse::Ok().json(page_of(
        rows,
        limit,
        &players,
        viewer.as_deref(),
        "/v1/games",
        &extra,
        |r| r.created_at,
    )))
}

/// A game's summary: status, seats and players, whose turn, version, result.
///
/// `ETag` is the version; with `If-None-Match` the answer may be `304 Not Modified`.
#[utoipa::path(
    tag = "games",
    params(("id" = String, Path, description = "The game's id")),
    responses(
        (status = 200, description = "The summary", body = GameSummary),
        (status = 304, description = "Not modified since the version in `If-None-Match`"),
        (status = 404, description = "No such game", body = Problem, content_type = PROBLEM)
    )
)]
#[get("/games/{id}")]
pub async fn get_game(
    app: web::Data<AppState>,
    viewer: MaybeAuthenticated,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(&path)?;
    let (row, players) = db::run(&app.pool, move |conn| {
        let row = store::find_row(conn, &id)?.ok_or_else(|| store::not_found(&id))?;
        let players = store::players_of(conn, std::slice::from_ref(&row.id))?;
        Ok((row, players))
    })
    .await?;
    if not_modified(&req, row.version) {
        return Ok(HttpResponse::NotModified()
            .insert_header((header::ETAG, etag(row.version)))
            .finish());
    }
    let viewer = viewer.0.map(|a| a.user_id);
    Ok(HttpResponse::Ok()
        .insert_header((header::ETAG, etag(row.version)))
        .json(GameSummary::of(&row, &players, viewer.as_deref())))
}

// ---------------------------------------------------------------------------------------
// Seats

/// A write to an existing game by `actor`: the version it expects and the request's
/// `Idempotency-Key`, if any.
fn action_write(
    req: &HttpRequest,
    body: &web::Bytes,
    game_id: String,
    actor: &str,
    expected: Option<i64>,
) -> Result<Write, ApiError> {
    Ok(Write {
        game_id,
        create: false,
        expected,
        idem: idempotency::from_request(req, actor, body)?,
        actor: actor.to_string(),
    })
}

/// Taking a seat.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"invite_code": "q3V9cX1kLm0pZr7T"}))]
pub struct TakeSeatRequest {
    /// Needed for invite-only games (unless you created the game).
    pub invite_code: Option<String>,
    /// If given, the game must be at this version (412 otherwise).
    pub expected_version: Option<i64>,
}

/// Take a seat (`R`, `B`, `Y` or `G`).
///
/// The body is optional. When the last free seat is taken the game starts (a `started`
/// event) and Red, or the first seat in play, is to move. Accepts `Idempotency-Key` and
/// an optional `If-Match`.
#[utoipa::path(
    tag = "games",
    security(("bearer" = [])),
    request_body(content = Option<TakeSeatRequest>),
    params(
        ("id" = String, Path, description = "The game's id"),
        ("seat" = String, Path, description = "R, B, Y or G"),
        ("Idempotency-Key" = Option<String>, Header, description = "Makes a retry safe")
    ),
    responses(
        (status = 200, description = "Seated; the game's summary", body = GameSummary),
        (status = 400, description = "Bad seat letter or body", body = Problem, content_type = PROBLEM),
        (status = 401, description = "Missing or invalid token", body = Problem, content_type = PROBLEM),
        (status = 403, description = "No `play` scope, or a wrong invite code", body = Problem, content_type = PROBLEM),
        (status = 404, description = "No such game", body = Problem, content_type = PROBLEM),
        (status = 409, description = "`seat-taken`; `conflict` (the seat is not in play, or you already hold a seat); `game-over`", body = Problem, content_type = PROBLEM),
        (status = 412, description = "`version-conflict`", body = Problem, content_type = PROBLEM)
    )
)]
#[post("/games/{id}/seats/{seat}")]
pub async fn take_seat(
    app: web::Data<AppState>,
    auth: Authenticated,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::Play)?;
    let id = game_id(&path.0)?;
    let seat = seat_param(&path.1)?;
    let b: Option<TakeSeatRequest> = parse_body(&req, &body)?;
    let (invite_code, expected) = match b {
        Some(b) => (b.invite_code, b.expected_version),
        None => (None, None),
    };
    let user = auth.user_id.clone();
    let write = action_write(&req, &body, id, &user, expected_version(&req, expected)?)?;
    let u = user.clone();
    let outcome = service::execute(
        &app,
        write,
        move |p| service::join(p, &u, seat, invite_code.as_deref()),
        render_summary(StatusCode::OK, user),
    )
    .await?;
    Ok(reply(outcome, |_| None))
}

/// Leave a seat before the game starts.
#[utoipa::path(
    tag = "games",
    security(("bearer" = [])),
    params(
        ("id" = String, Path, description = "The game's id"),
        ("seat" = String, Path, description = "R, B, Y or G")
    ),
    responses(
        (status = 200, description = "Left; the game's summary", body = GameSummary),
        (status = 400, description = "Bad seat letter", body = Problem, content_type = PROBLEM),
        (status = 401, description = "Missing or invalid token", body = Problem, content_type = PROBLEM),
        (status = 403, description = "No `play` scope, or the seat is another player's", body = Problem, content_type = PROBLEM),
        (status = 404, description = "No such game", body = Problem, content_type = PROBLEM),
        (status = 409, description = "`conflict`: the game has started, or the seat is free", body = Problem, content_type = PROBLEM),
        (status = 412, description = "`version-conflict` (with `If-Match`)", body = Problem, content_type = PROBLEM)
    )
)]
#[delete("/games/{id}/seats/{seat}")]
pub async fn leave_seat(
    app: web::Data<AppState>,
    auth: Authenticated,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::Play)?;
    let id = game_id(&path.0)?;
    let seat = seat_param(&path.1)?;
    let user = auth.user_id.clone();
    let write = Write {
        game_id: id,
        create: false,
        expected: expected_version(&req, None)?,
        idem: None,
        actor: user.clone(),
    };
    let u = user.clone();
    let outcome = service::execute(
        &app,
        write,
        move |p| service::leave(p, &u, seat),
        render_summary(StatusCode::OK, user),
    )
    .await?;
    Ok(reply(outcome, |_| None))
}

// ---------------------------------------------------------------------------------------
// Reading the game

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct StateParams {
    /// The position after this many events (1 to the current version); default: now.
    pub at: Option<i64>,
}

/// The position: DFEN, pieces, who controls each party, ruler, whose turn.
///
/// `?at=N` gives the position after the first N events of the log (any past version).
#[utoipa::path(
    tag = "games",
    params(("id" = String, Path, description = "The game's id"), StateParams),
    responses(
        (status = 200, description = "The state; `ETag` is its version", body = StateView),
        (status = 400, description = "`at` out of range", body = Problem, content_type = PROBLEM),
        (status = 404, description = "No such game", body = Problem, content_type = PROBLEM)
    )
)]
#[get("/games/{id}/state")]
pub async fn get_state(
    app: web::Data<AppState>,
    path: web::Path<String>,
    query: web::Query<StateParams>,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(&path)?;
    let at = query.at;
    let app2 = app.clone();
    let state = db::run(&app.pool, move |conn| {
        let current = store::current_version(conn, &id)?;
        match at {
            None => store::state_at(conn, &app2.games, &id, current, true),
            Some(n) if (1..=current).contains(&n) => {
                store::state_at(conn, &app2.games, &id, n, n == current)
            }
            Some(_) => Err(ApiError::field(
                "at",
                format!("must be 1 to the game's version, {current}"),
            )),
        }
    })
    .await?;
    Ok(HttpResponse::Ok()
        .insert_header((header::ETAG, etag(state.version)))
        .json(StateView::of(&state)))
}

pub const LEGAL_MOVES_DEFAULT_LIMIT: usize = 500;
pub const LEGAL_MOVES_MAX_LIMIT: usize = 2000;

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LegalMovesParams {
    /// The `next_cursor` of the previous page.
    pub after: Option<String>,
    /// Moves per page, 1 to 2000 (default 500). Positions can have thousands.
    pub limit: Option<u32>,
}

/// Every complete legal move of the seat to move, canonical text and JSON.
///
/// Sorted by canonical text (byte order, as `djambi moves` prints them), paged with
/// `after`/`limit`; `total` is the number of legal moves in all. Empty unless the game is active.
#[utoipa::path(
    tag = "games",
    params(("id" = String, Path, description = "The game's id"), LegalMovesParams),
    responses(
        (status = 200, description = "A page of legal moves; `ETag` is the version", body = LegalMovesView),
        (status = 400, description = "Bad `after` or `limit`", body = Problem, content_type = PROBLEM),
        (status = 404, description = "No such game", body = Problem, content_type = PROBLEM)
    )
)]
#[get("/games/{id}/legal-moves")]
pub async fn legal_moves(
    app: web::Data<AppState>,
    path: web::Path<String>,
    query: web::Query<LegalMovesParams>,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(&path)?;
    let limit = match query.limit {
        None => LEGAL_MOVES_DEFAULT_LIMIT,
        Some(n) if (1..=LEGAL_MOVES_MAX_LIMIT as u32).contains(&n) => n as usize,
        Some(_) => {
            return Err(ApiError::field(
                "limit",
                format!("must be 1 to {LEGAL_MOVES_MAX_LIMIT}"),
            ));
        }
    };
    let after = match query.after.as_deref() {
        None => 0,
        Some(a) => a
            .parse::<usize>()
            .ok()
            .and_then(|n| n.checked_add(1))
            .ok_or_else(|| ApiError::field("after", "is not a valid cursor"))?,
    };
    let app2 = app.clone();
    let state = db::run(&app.pool, move |conn| {
        store::current_state(conn, &app2.games, &id)
    })
    .await?;
    let seat = state.to_move();
    let position = state.game.position();
    // Sorted by canonical text, like `djambi moves`, so that pages are stable.
    let mut all: Vec<MoveView> = if seat.is_some() {
        position
            .legal_moves()
            .into_iter()
            .map(|mv| MoveView {
                text: position.move_text(&mv).to_string(),
                mv,
            })
            .collect()
    } else {
        Vec::new()
    };
    all.sort_unstable_by(|a, b| a.text.cmp(&b.text));
    let total = all.len();
    let end = total.min(after.saturating_add(limit));
    let moves: Vec<MoveView> = all.drain(after.min(end)..end).collect();
    let next_cursor = (end < total).then(|| (end - 1).to_string());
    let next = next_cursor.as_deref().map(|c| {
        next_link(
            &format!("/v1/games/{}/legal-moves", state.id),
            c,
            limit as u32,
        )
    });
    Ok(HttpResponse::Ok()
        .insert_header((header::ETAG, etag(state.version)))
        .json(LegalMovesView {
            game_id: state.id.clone(),
            version: state.version,
            status: state.status,
            seat,
            total,
            moves,
            next_cursor,
            next,
        }))
}

// ---------------------------------------------------------------------------------------
// Actions

/// A move given as canonical text or in the JSON form.
#[derive(Debug, serde::Serialize, ToSchema)]
#[serde(untagged)]
#[allow(dead_code)]
pub enum MoveInput {
    /// Canonical text, e.g. `C8xD6>A5` (either case, either separator).
    Text(String),
    Json(MoveJson),
}

/// Play a move.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"move": "C8-D7", "expected_version": 6}))]
pub struct MoveRequest {
    /// Canonical text (`"C8xD6>A5"`) or the JSON form
    /// (`{"from": "C8", "to": "D6", "place": "A5"}`).
    #[serde(rename = "move")]
    #[schema(value_type = MoveInput)]
    pub mv: Value,
    /// The game's version the move was chosen at. Required unless `If-Match` is sent.
    pub expected_version: Option<i64>,
}

fn parse_move(v: Value) -> Result<Move, ApiError> {
    match v {
        Value::String(s) if s.len() <= 32 => s
            .trim()
            .parse::<Move>()
            .map_err(|e| ApiError::field("move", e.to_string())),
        Value::String(_) => Err(ApiError::field(
            "move",
            "move text is at most 32 characters",
        )),
        v @ Value::Object(_) => serde_json::from_value::<Move>(v)
            .map_err(|e| ApiError::field("move", format!("not a move object: {e}"))),
        _ => Err(ApiError::field(
            "move",
            "must be move text (\"C8-D7\") or a move object ({\"from\": \"C8\", \"to\": \"D7\"})",
        )),
    }
}

/// Play a move for your seat.
///
/// Requires the version the move was chosen at, as `expected_version` or
/// `If-Match: "<version>"`: if the game has moved on, nothing is written and the answer is
/// `412 version-conflict` with `current_version`. A move by anyone cancels a pending draw
/// offer. Accepts `Idempotency-Key`.
#[utoipa::path(
    tag = "games",
    security(("bearer" = [])),
    request_body = MoveRequest,
    params(
        ("id" = String, Path, description = "The game's id"),
        ("If-Match" = Option<String>, Header, description = "The expected version as an ETag, e.g. \"12\""),
        ("Idempotency-Key" = Option<String>, Header, description = "Makes a retry safe")
    ),
    responses(
        (status = 201, description = "Played: the effects, the new version, whose turn", body = ActionResult),
        (status = 400, description = "Malformed move, body, or no expected version", body = Problem, content_type = PROBLEM),
        (status = 401, description = "Missing or invalid token", body = Problem, content_type = PROBLEM),
        (status = 403, description = "No `play` scope, or you hold no seat in this game", body = Problem, content_type = PROBLEM),
        (status = 404, description = "No such game", body = Problem, content_type = PROBLEM),
        (status = 409, description = "`not-your-turn`, `game-not-started` or `game-over`", body = Problem, content_type = PROBLEM),
        (status = 412, description = "`version-conflict`, with `current_version`", body = Problem, content_type = PROBLEM),
        (status = 422, description = "`illegal-move` (with `reason` and `legal_moves_url`) or `idempotency-key-reused`", body = Problem, content_type = PROBLEM)
    )
)]
#[post("/games/{id}/moves")]
pub async fn play_move(
    app: web::Data<AppState>,
    auth: Authenticated,
    req: HttpRequest,
    path: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::Play)?;
    let id = game_id(&path)?;
    let b: MoveRequest = parse_body(&req, &body)?
        .ok_or_else(|| ApiError::field("body", "give {\"move\": ..., \"expected_version\": N}"))?;
    let mv = parse_move(b.mv)?;
    let expected = expected_version(&req, b.expected_version)?.ok_or_else(|| {
        ApiError::field(
            "expected_version",
            "is required: give it in the body or as If-Match: \"<version>\"",
        )
    })?;
    let user = auth.user_id.clone();
    let write = action_write(&req, &body, id, &user, Some(expected))?;
    let outcome = service::execute(
        &app,
        write,
        move |p| service::play(p, &user, mv),
        render_action(StatusCode::CREATED),
    )
    .await?;
    Ok(reply(outcome, |b| {
        let id = b.get("game_id")?.as_str()?;
        let v = b.get("version")?.as_i64()?;
        Some(format!("/v1/games/{id}/state?at={v}"))
    }))
}

/// Resigning or answering a draw offer: the version check is optional.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"expected_version": 40}))]
pub struct ResignRequest {
    /// If given (or `If-Match`), the game must be at this version.
    pub expected_version: Option<i64>,
}

/// Resign your seat.
///
/// Your parties become hostage and your seat is out (RULES.md section 7); if one active
/// seat remains, it wins. Allowed at any time to an active seat, not only on its turn.
/// Cancels a pending draw offer. The body is optional. Accepts `Idempotency-Key`.
#[utoipa::path(
    tag = "games",
    security(("bearer" = [])),
    request_body(content = Option<ResignRequest>),
    params(
        ("id" = String, Path, description = "The game's id"),
        ("Idempotency-Key" = Option<String>, Header, description = "Makes a retry safe")
    ),
    responses(
        (status = 201, description = "Resigned: the effects and the new version", body = ActionResult),
        (status = 401, description = "Missing or invalid token", body = Problem, content_type = PROBLEM),
        (status = 403, description = "No `play` scope, or you hold no seat in this game", body = Problem, content_type = PROBLEM),
        (status = 404, description = "No such game", body = Problem, content_type = PROBLEM),
        (status = 409, description = "`game-not-started`, `game-over`, or `conflict` (your seat is already out)", body = Problem, content_type = PROBLEM),
        (status = 412, description = "`version-conflict`", body = Problem, content_type = PROBLEM)
    )
)]
#[post("/games/{id}/resignation")]
pub async fn resign(
    app: web::Data<AppState>,
    auth: Authenticated,
    req: HttpRequest,
    path: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::Play)?;
    let id = game_id(&path)?;
    let b: Option<ResignRequest> = parse_body(&req, &body)?;
    let user = auth.user_id.clone();
    let expected = expected_version(&req, b.and_then(|b| b.expected_version))?;
    let write = action_write(&req, &body, id, &user, expected)?;
    let outcome = service::execute(
        &app,
        write,
        move |p| service::resign(p, &user),
        render_action(StatusCode::CREATED),
    )
    .await?;
    Ok(reply(outcome, |_| None))
}

/// Offer, accept or decline a draw.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"action": "accept", "expected_version": 41}))]
pub struct DrawRequest {
    pub action: DrawAction,
    /// If given (or `If-Match`), the game must be at this version.
    pub expected_version: Option<i64>,
}

/// Offer, accept or decline a draw.
///
/// One offer may be pending at a time; offering counts as the offering seat's acceptance.
/// The game is drawn when every active seat has accepted the same offer (an `ended`
/// event with `reason: draw_agreed`). Any seat may decline (the offering seat thereby
/// withdraws it); a move or a resignation by anyone cancels it. Only active seats take
/// part. Accepts `Idempotency-Key`.
#[utoipa::path(
    tag = "games",
    security(("bearer" = [])),
    request_body = DrawRequest,
    params(
        ("id" = String, Path, description = "The game's id"),
        ("Idempotency-Key" = Option<String>, Header, description = "Makes a retry safe")
    ),
    responses(
        (status = 200, description = "Done: the pending offer (or the result) and the new version", body = ActionResult),
        (status = 400, description = "Bad `action`", body = Problem, content_type = PROBLEM),
        (status = 401, description = "Missing or invalid token", body = Problem, content_type = PROBLEM),
        (status = 403, description = "No `play` scope, or you hold no seat in this game", body = Problem, content_type = PROBLEM),
        (status = 404, description = "No such game", body = Problem, content_type = PROBLEM),
        (status = 409, description = "`game-not-started`, `game-over`, or `conflict` (no offer pending, one already pending, already accepted, seat out)", body = Problem, content_type = PROBLEM),
        (status = 412, description = "`version-conflict`", body = Problem, content_type = PROBLEM)
    )
)]
#[post("/games/{id}/draw-offer")]
pub async fn draw_offer(
    app: web::Data<AppState>,
    auth: Authenticated,
    req: HttpRequest,
    path: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::Play)?;
    let id = game_id(&path)?;
    let b: DrawRequest = parse_body(&req, &body)?.ok_or_else(|| {
        ApiError::field(
            "action",
            "give {\"action\": \"offer\" | \"accept\" | \"decline\"}",
        )
    })?;
    let user = auth.user_id.clone();
    let action = b.action;
    let write = action_write(
        &req,
        &body,
        id,
        &user,
        expected_version(&req, b.expected_version)?,
    )?;
    let outcome = service::execute(
        &app,
        write,
        move |p| service::draw(p, &user, action),
        render_action(StatusCode::OK),
    )
    .await?;
    Ok(reply(outcome, |_| None))
}

// ---------------------------------------------------------------------------------------
// The log and the record

/// The event log, oldest first, paged by version: `?after=<version>`.
///
/// | kind | payload |
/// |---|---|
/// | `created` | `ruleset`, `seats`, `hostage_seat`, `visibility`, `created_by` |
/// | `seat_taken`, `seat_left` | `seat`, `user_id` |
/// | `started` | `{}` |
/// | `move_played` | `seat`, `move` (JSON form), `text` (canonical) |
/// | `resigned`, `draw_offered`, `draw_accepted`, `draw_declined` | `seat` |
/// | `ended` | `result` (`kind`, `seats`, `reason`, `ranking`) |
///
/// Replaying `move_played`, `resigned` and an `ended` with `reason: draw_agreed` (the
/// agreed draw) through the rules gives every position.
#[utoipa::path(
    tag = "games",
    params(("id" = String, Path, description = "The game's id"), PageParams),
    responses(
        (status = 200, description = "A page of events", body = EventPage),
        (status = 400, description = "Bad `after` or `limit`", body = Problem, content_type = PROBLEM),
        (status = 404, description = "No such game", body = Problem, content_type = PROBLEM)
    )
)]
#[get("/games/{id}/events")]
pub async fn list_events(
    app: web::Data<AppState>,
    path: web::Path<String>,
    page: web::Query<PageParams>,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(&path)?;
    let limit = page.limit()?;
    let after: i64 = match page.after()? {
        None => 0,
        Some(a) => a
            .parse()
            .ok()
            .filter(|n| *n >= 0)
            .ok_or_else(|| ApiError::field("after", "must be a version number"))?,
    };
    let (version, rows) = db::run(&app.pool, move |conn| {
        let version = store::current_version(conn, &id)?;
        let rows: Vec<store::EventRow> = game_events::table
            .filter(game_events::game_id.eq(&id))
            .filter(game_events::seq.gt(after))
            .filter(game_events::seq.le(version))
            .order(game_events::seq.asc())
            .limit(i64::from(limit))
            .select(store::EventRow::as_select())
            .load(conn)?;
        Ok((version, rows))
    })
    .await?;
    let last = rows.last().map(|r| r.seq);
    let next_cursor = last.filter(|l| *l < version).map(|l| l.to_string());
    let game = path.into_inner();
    let next = next_cursor
        .as_deref()
        .map(|c| next_link(&format!("/v1/games/{game}/events"), c, limit));
    Ok(HttpResponse::Ok()
        .insert_header((header::ETAG, etag(version)))
        .json(EventPage {
            game_id: game,
            version,
            items: rows.iter().map(EventView::of).collect(),
            next_cursor,
            next,
        }))
}

/// The game record as text: headers (players, ruleset, seats, result) and numbered
/// moves; `djambi` and the rules crate read it back.
#[utoipa::path(
    tag = "games",
    params(("id" = String, Path, description = "The game's id")),
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
    let (state, players) = db::run(&app.pool, move |conn| {
        let state = store::current_state(conn, &app2.games, &id)?;
        let players = store::players_of(conn, std::slice::from_ref(&id))?;
        Ok((state, players))
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
