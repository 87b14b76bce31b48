//! `GET /v1/positions/legal-moves` and `POST /v1/positions/play`: an analysis board for any
//! position, so that third-party clients, the lessons and the replay page's "explore from
//! here" can build their own boards. No login; limited per client address.

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, get, post, web};
use domain::{Move, Ruleset, Square};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};
use utoipa_actix_web::service_config::ServiceConfig;

use crate::error::too_many;
use crate::error::{ApiError, Problem};
use crate::games::positions::{self, DFEN_MAX};
use crate::routes::caller::client_addr;
use crate::routes::games::moves::MoveInput;
use crate::routes::games::ruleset::{self, RULESET_TEXT_MAX, RulesetInput};
use crate::routes::games::views::{MoveView, TurnView, in_documented_order};
use crate::routes::json_body::JsonBody;
use crate::state::AppState;

const PROBLEM: &str = "application/problem+json";
/// The start of a four-seat game, the documents' example.
const START: &str = "RCRARM3BMBABC/RRRDRM3BMBDBR/RMRMRN3BNBMBM/9/9/9/GMGMGN3YNYMYM/GRGDGM3YMYDYR/GCGAGM3YMYAYC R RBYG 0";
/// Moves per page when `limit` is not given, and the most a page holds.
pub const POSITION_MOVES_DEFAULT_LIMIT: usize = 500;
pub const POSITION_MOVES_MAX_LIMIT: usize = 2000;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(position_legal_moves)
        .service(position_play)
        .service(position_board_svg);
}

/// One request of the board: counted against the client address's limit.
fn admit(req: &HttpRequest, app: &AppState) -> Result<(), ApiError> {
    app.positions_ip_limiter
        .acquire(client_addr(req, &app.config.trusted_proxies))
        .map_err(too_many)
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PositionParams {
    /// The position in DFEN (RULES.md section 8): placement, turn, parties, ply.
    #[param(
        max_length = 256,
        example = "RCRARM3BMBABC/RRRDRM3BMBDBR/RMRMRN3BNBMBM/9/9/9/GMGMGN3YNYMYM/GRGDGM3YMYDYR/GCGAGM3YMYAYC R RBYG 0"
    )]
    pub dfen: String,
    /// The ruleset's text form (VARIANTS.md 2.1, e.g. `master_moves=on`); absent or empty:
    /// the default rules.
    #[param(max_length = 256)]
    pub ruleset: Option<String>,
    /// Only the moves of the piece on this square.
    #[param(pattern = "^[A-Ia-i][1-9]$", example = "C7")]
    pub from: Option<String>,
    /// The `next_cursor` of the previous page.
    #[param(max_length = 18, pattern = "^[0-9]{1,18}$")]
    pub after: Option<String>,
    /// Moves per page, 1 to 2000 (default 500).
    #[param(minimum = 1, maximum = 2000)]
    pub limit: Option<u32>,
}

/// The legal moves of a position.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({
    "dfen": START, "ruleset": "djambi-standard-2026", "turn": {"seat": "R", "bonus_after": null},
    "total": 1, "moves": [{"text": "C7-C6", "move": {"from": "C7", "to": "C6", "victim": null, "exit": null, "place": null}}],
    "next_cursor": null
}))]
pub struct PositionMovesView {
    /// The position as the server writes it (canonical DFEN).
    pub dfen: String,
    /// The ruleset's canonical text.
    pub ruleset: String,
    /// Whose turn it is; `null` (and no moves) when the position is over.
    pub turn: Option<TurnView>,
    /// How many legal moves there are in all (of the piece on `from`, when given).
    pub total: usize,
    /// Sorted by canonical text.
    pub moves: Vec<MoveView>,
    /// Pass as `after` for the next page; absent on the last page.
    pub next_cursor: Option<String>,
}

fn read_ruleset(raw: Option<&str>) -> Result<Ruleset, ApiError> {
    match raw {
        None => Ok(Ruleset::DEFAULT),
        Some(text) if text.len() > RULESET_TEXT_MAX => Err(ApiError::field(
            "ruleset",
            format!("a ruleset text is at most {RULESET_TEXT_MAX} characters"),
        )),
        Some(text) => ruleset::parse("ruleset", &Value::String(text.to_string())),
    }
}

fn read_cursor(raw: Option<&str>) -> Result<usize, ApiError> {
    let Some(raw) = raw else { return Ok(0) };
    let bad = || ApiError::field("after", "must be the `next_cursor` of the previous page");
    if raw.is_empty() || raw.len() > 18 || !raw.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    raw.parse::<usize>()
        .ok()
        .and_then(|i| i.checked_add(1))
        .ok_or_else(bad)
}

/// The legal moves of any position.
///
/// For an analysis board: give a position in DFEN (and its ruleset when it is not the
/// default) and get the moves of the seat to move, sorted by canonical text and paged
/// with `after`/`limit`; `from` keeps those of one piece. No account needed; limited per
/// client address (`DJAMBI_POSITIONS_LIMIT_PER_IP`). A malformed or impossible DFEN is
/// refused with a `validation` problem that says what is wrong with it.
#[utoipa::path(
    tag = "positions",
    params(PositionParams),
    responses(
        (status = 200, description = "A page of the position's legal moves", body = PositionMovesView),
        (status = 400, description = "`validation`: a bad `dfen`, `ruleset`, `from`, `after` or `limit` (the problem names it)", body = Problem, content_type = PROBLEM),
        (status = 429, description = "Too many requests from this address; `Retry-After` says when to try again", body = Problem, content_type = PROBLEM)
    )
)]
#[get("/positions/legal-moves")]
pub async fn position_legal_moves(
    req: HttpRequest,
    app: web::Data<AppState>,
    query: web::Query<PositionParams>,
) -> Result<HttpResponse, ApiError> {
    let query = query.into_inner();
    let limit = match query.limit {
        None => POSITION_MOVES_DEFAULT_LIMIT,
        Some(n) if (1..=POSITION_MOVES_MAX_LIMIT as u32).contains(&n) => n as usize,
        Some(_) => {
            return Err(ApiError::field(
                "limit",
                format!("must be 1 to {POSITION_MOVES_MAX_LIMIT}"),
            ));
        }
    };
    let after = read_cursor(query.after.as_deref())?;
    let from = match query.from.as_deref() {
        None => None,
        Some(text) => Some(
            text.parse::<Square>()
                .map_err(|_| ApiError::field("from", "must be a square, A1 to I9"))?,
        ),
    };
    let rules = read_ruleset(query.ruleset.as_deref())?;
    admit(&req, &app)?;
    let position = positions::read(&query.dfen, rules)?;
    let mut all = positions::legal_moves(&position, from);
    let total = all.len();
    let end = total.min(after.saturating_add(limit));
    let moves = all
        .drain(after.min(end)..end)
        .map(|(text, mv)| MoveView { text, mv })
        .collect();
    Ok(HttpResponse::Ok().json(PositionMovesView {
        dfen: position.to_string(),
        ruleset: rules.id(),
        turn: TurnView::of(position.turn()),
        total,
        moves,
        next_cursor: (end < total).then(|| (end - 1).to_string()),
    }))
}

/// A move to play on a position.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"dfen": START, "ruleset": "", "move": "C7-C6"}))]
pub struct PlayRequest {
    /// The position in DFEN (RULES.md section 8), at most 256 characters.
    #[schema(max_length = 256)]
    pub dfen: String,
    /// The ruleset (text or object of options); absent or `null`: the default rules.
    #[serde(default)]
    #[schema(value_type = Option<RulesetInput>)]
    pub ruleset: Value,
    /// Canonical text (`"C8xD6>A5"`) or the JSON form.
    #[serde(rename = "move")]
    #[schema(value_type = MoveInput)]
    pub mv: Value,
}

/// A move played on a position, and the position after it.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({
    "played": {"text": "C7-C6", "move": {"from": "C7", "to": "C6", "victim": null, "exit": null, "place": null}},
    "effects": [{"type": "moved", "piece": {"party": "R", "kind": "militant", "alive": true}, "from": "C7", "to": "C6"}],
    "eliminated": [], "ruler": null, "turn": {"seat": "B", "bonus_after": null},
    "dfen": "RCRARM3BMBABC/RRRDRM3BMBDBR/RM1RN3BNBMBM/2RM6/9/9/GMGMGN3YNYMYM/GRGDGM3YMYDYR/GCGAGM3YMYAYC B RBYG 1",
    "over": false
}))]
pub struct PlayedView {
    /// The move, in canonical text (in the position before it) and JSON.
    pub played: MoveView,
    /// What it did, in the documented order (as in a game's events: `moved`, `killed`,
    /// `placed`, `surrounded`, `control_changed`, `eliminated`, `passed`).
    #[schema(value_type = Vec<Object>)]
    pub effects: Vec<domain::Effect>,
    /// Seats eliminated by it.
    #[schema(value_type = Vec<String>)]
    pub eliminated: Vec<domain::Seat>,
    /// Who rules from the maze after it.
    #[schema(value_type = Option<String>)]
    pub ruler: Option<domain::Seat>,
    /// Whose turn it is after it; `null` once the position is over.
    pub turn: Option<TurnView>,
    /// The position after it, in DFEN.
    pub dfen: String,
    /// Whether the position after it is over (one seat or none left, or nobody can move).
    pub over: bool,
}

fn read_move(v: &Value) -> Result<Move, ApiError> {
    match v {
        Value::String(s) if s.len() <= 32 => s
            .parse::<Move>()
            .map_err(|e| ApiError::field("move", e.to_string())),
        Value::String(_) => Err(ApiError::field(
            "move",
            "move text is at most 32 characters",
        )),
        v @ Value::Object(_) => crate::routes::json_body::from_value_at::<Move>("move", v.clone()),
        _ => Err(ApiError::field(
            "move",
            "must be move text (\"C8-D7\") or a move object ({\"from\": \"C8\", \"to\": \"D7\"})",
        )),
    }
}

/// Play a move on any position.
///
/// For an analysis board: give a position in DFEN (and its ruleset when it is not the
/// default) and a move; get what the move did (the effects, as a game's events give them)
/// and the position after it. Nothing is stored. No account needed; limited per client
/// address (`DJAMBI_POSITIONS_LIMIT_PER_IP`). A bad DFEN or a move that is malformed or
/// not legal in the position is refused with a `validation` problem naming `dfen` or
/// `move` and saying why (e.g. "the piece on C7 cannot reach or act on C3").
#[utoipa::path(
    tag = "positions",
    request_body = PlayRequest,
    responses(
        (status = 200, description = "Played: the effects and the position after", body = PlayedView),
        (status = 400, description = "`validation`: a bad `dfen`, `ruleset` or `move`, or a move that is not legal there (the problem names the field and says why)", body = Problem, content_type = PROBLEM),
        (status = 429, description = "Too many requests from this address; `Retry-After` says when to try again", body = Problem, content_type = PROBLEM)
    )
)]
#[post("/positions/play")]
pub async fn position_play(
    req: HttpRequest,
    app: web::Data<AppState>,
    body: JsonBody<PlayRequest>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let rules = ruleset::parse("ruleset", &body.ruleset)?;
    let mv = read_move(&body.mv)?;
    if body.dfen.len() > DFEN_MAX {
        return Err(ApiError::field(
            "dfen",
            format!("a DFEN is at most {DFEN_MAX} characters"),
        ));
    }
    admit(&req, &app)?;
    let position = positions::read(&body.dfen, rules)?;
    let played = positions::play(&position, &mv)?;
    Ok(HttpResponse::Ok().json(PlayedView {
        played: MoveView {
            text: played.text,
            mv: played.mv,
        },
        effects: in_documented_order(played.effects.into_iter()),
        eliminated: played.eliminated.iter().collect(),
        ruler: played.ruler,
        turn: TurnView::of(played.turn),
        dfen: played.after.to_string(),
        over: played.after.is_over(),
    }))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct BoardParams {
    /// The position in DFEN (RULES.md section 8).
    #[param(
        max_length = 256,
        example = "RCRARM3BMBABC/RRRDRM3BMBDBR/RMRMRN3BNBMBM/9/9/9/GMGMGN3YNYMYM/GRGDGM3YMYDYR/GCGAGM3YMYAYC R RBYG 0"
    )]
    pub dfen: String,
    /// The ruleset's text form (VARIANTS.md 2.1); absent or empty: the default rules.
    #[param(max_length = 256)]
    pub ruleset: Option<String>,
    /// A move to highlight as the last one played (canonical text, e.g. `C7-C6`).
    #[param(max_length = 32, example = "C7-C6")]
    pub last: Option<String>,
}

/// Any position as a picture.
///
/// The board of `GET /v1/games/{id}/board.svg` for a position given in DFEN (and its
/// ruleset), with `last` highlighted as the move that led to it: what an analysis board
/// (the replay page's "explore from here") shows after each move it plays with
/// `POST /v1/positions/play`. The words are in the language of `Accept-Language`; the
/// picture depends on nothing else, so it may be cached for long. No account needed;
/// limited per client address (`DJAMBI_POSITIONS_LIMIT_PER_IP`).
#[utoipa::path(
    tag = "positions",
    params(BoardParams),
    responses(
        (status = 200, description = "The picture", body = String, content_type = "image/svg+xml"),
        (status = 400, description = "`validation`: a bad `dfen`, `ruleset` or `last` (the problem names it)", body = Problem, content_type = PROBLEM),
        (status = 429, description = "Too many requests from this address; `Retry-After` says when to try again", body = Problem, content_type = PROBLEM)
    )
)]
#[get("/positions/board.svg")]
pub async fn position_board_svg(
    req: HttpRequest,
    app: web::Data<AppState>,
    query: web::Query<BoardParams>,
) -> Result<HttpResponse, ApiError> {
    let query = query.into_inner();
    let rules = read_ruleset(query.ruleset.as_deref())?;
    let last = match query.last.as_deref() {
        None | Some("") => None,
        Some(text) if text.len() > 32 => {
            return Err(ApiError::field(
                "last",
                "move text is at most 32 characters",
            ));
        }
        Some(text) => Some(
            text.parse::<Move>()
                .map_err(|e| ApiError::field("last", e.to_string()))?,
        ),
    };
    admit(&req, &app)?;
    let position = positions::read(&query.dfen, rules)?;
    let lang = crate::routes::language::of_request(&req, None);
    let options = domain::SvgOptions {
        text: crate::routes::games::board_svg::svg_text(lang).clone(),
        ..domain::SvgOptions::default()
    };
    let svg = domain::board_svg(&position, last.as_ref(), &options);
    Ok(HttpResponse::Ok()
        .insert_header((header::VARY, "Accept-Language"))
        .insert_header((header::CONTENT_LANGUAGE, lang.code()))
        .insert_header((header::CACHE_CONTROL, "public, max-age=86400"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .content_type("image/svg+xml")
        .body(svg))
}
