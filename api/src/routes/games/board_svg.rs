//! `GET /v1/games/{id}/board.svg`: the position as a picture, now or at any version.

use std::sync::OnceLock;

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, get, web};
use domain::{Action, SvgOptions, SvgText};

use super::PROBLEM;
use super::position::StateParams;
use crate::error::{ApiError, Problem};
use crate::games::queries;
use crate::i18n::{Arg, Lang, tr};
use crate::model::events::Status;
use crate::routes::params::GameIdPath;
use crate::state::AppState;

/// How long a picture of the current position may be cached: it changes with the next
/// event.
const CURRENT_MAX_AGE: &str = "public, max-age=5";
/// A past version never changes.
const PAST_MAX_AGE: &str = "public, max-age=31536000, immutable";

/// The words of the picture in `lang` (`locales/<lang>/game.ftl`), made once.
pub(crate) fn svg_text(lang: Lang) -> &'static SvgText {
    static ALL: OnceLock<Vec<SvgText>> = OnceLock::new();
    let all = ALL.get_or_init(|| {
        Lang::all()
            .map(|l| {
                // Fluent's `{ $name }` become the picture's `{name}`.
                let m = |id: &str| {
                    let names = [
                        "ply", "text", "seat", "piece", "square", "role", "after", "ruler",
                        "seats", "by",
                    ];
                    let args: Vec<(&str, Arg)> = names
                        .iter()
                        .map(|n| (*n, Arg::Text(format!("{{{n}}}"))))
                        .collect();
                    tr(l, id, &args)
                };
                SvgText {
                    seats: domain::Seat::ALL.map(|s| m(&format!("seat-{}", s.letter()))),
                    pieces: domain::Kind::ALL.map(|k| m(&format!("piece-{}", k.name()))),
                    title: m("board-title"),
                    maze: m("board-maze"),
                    piece: m("board-piece"),
                    corpse: m("board-corpse"),
                    piece_short: m("board-piece-short"),
                    corpse_short: m("board-corpse-short"),
                    last_move: m("board-last-move"),
                    roles: ["from", "to", "exit", "place", "victim"]
                        .map(|r| m(&format!("board-role-{r}"))),
                    waiting: m("board-waiting"),
                    to_move: m("board-to-move"),
                    bonus: m("board-bonus"),
                    rules: m("board-rules"),
                    won: m("board-won"),
                    draw: m("board-draw"),
                    draw_between: m("board-draw-between"),
                    own: m("board-own"),
                    played_by: m("board-played-by"),
                    hostage: m("board-hostage"),
                    orphaned: m("board-orphaned"),
                }
            })
            .collect()
    });
    &all[Lang::all().position(|l| l == lang).unwrap_or(0)]
}

/// The board as an SVG picture: the maze, coordinates, each piece in its party's colour
/// with its kind's letter, corpses, the last move highlighted, and a caption (whose turn,
/// who rules, who controls each party).
///
/// `?at=N` draws the position after the first N events (default: now) with the last move
/// at or before event N. `ETag` is the version drawn and the language of its words
/// (`"12-fr"`); past versions never change and are
/// served `Cache-Control: public, max-age=31536000, immutable`, the current one with a
/// short `max-age`. Readable without a token. Its words (title, caption, the pieces'
/// names) are in the language of `Accept-Language` (`Vary: Accept-Language`); squares and
/// moves stay in the canonical notation.
#[utoipa::path(
    tag = "games",
    params(GameIdPath, StateParams),
    responses(
        (status = 200, description = "The picture; `ETag` is the version drawn and the language of its words (`\"12-fr\"`)", body = String, content_type = "image/svg+xml"),
        (status = 304, description = "Not modified since the version in `If-None-Match`"),
        (status = 400, description = "`validation`: `at` is not a positive number", body = Problem, content_type = PROBLEM),
        (status = 404, description = "`not-found`: no such game, or it has not reached version `at` yet", body = Problem, content_type = PROBLEM)
    )
)]
#[get("/games/{id}/board.svg")]
pub async fn board_svg(
    app: web::Data<AppState>,
    req: HttpRequest,
    id: GameIdPath,
    query: web::Query<StateParams>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let at = query.at;
    let (state, current, _) = queries::state_at(app.game_ctx(), id, at).await?;
    let cache = if state.version < current {
        PAST_MAX_AGE
    } else {
        CURRENT_MAX_AGE
    };
    // The words are the reader's: one tag per version and language, so that a cache
    // never answers one language's picture to a reader of another.
    let lang = crate::routes::language::of_request(&req, None);
    let tag = format!("\"{}-{}\"", state.version, lang.code());
    let fresh = req
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == tag || t.trim() == "*"));
    if fresh {
        return Ok(HttpResponse::NotModified()
            .insert_header((header::VARY, "Accept-Language"))
            .insert_header((header::ETAG, tag))
            .insert_header((header::CACHE_CONTROL, cache))
            .finish());
    }
    let last_move = state.actions.iter().rev().find_map(|a| match a {
        Action::Move(mv) => Some(*mv),
        _ => None,
    });
    // Before the start (seats still free, as at version 1 of every played game) nobody is
    // to move: the caption says the game waits for its players.
    let options = SvgOptions {
        text: svg_text(lang).clone(),
        ..SvgOptions::default()
    };
    let svg = if state.status == Status::Open {
        domain::board_svg_before_start(state.game.position(), &options)
    } else {
        domain::board_svg(state.game.position(), last_move.as_ref(), &options)
    };
    Ok(HttpResponse::Ok()
        .insert_header((header::VARY, "Accept-Language"))
        .insert_header((header::CONTENT_LANGUAGE, lang.code()))
        .insert_header((header::ETAG, tag))
        .insert_header((header::CACHE_CONTROL, cache))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .content_type("image/svg+xml")
        .body(svg))
}
