//! The games: create, lobby, summary, seats, state, legal moves, moves, resignation, draw
//! offers, event log, record, board picture and record import (`/v1/games...`), one file
//! per endpoint. The logic is in
//! [`crate::games`]; every write goes through [`write`], which runs the command layer.
//!
//! Reading: every `GET` here works without a token. Public games are listed in the lobby;
//! invite-only games are not listed, and are readable by anyone who knows their id (a
//! random UUID, shared with the invitation). Writing needs a token with the `play` scope;
//! only a seat's player acts for that seat.

pub mod analysis;
pub(crate) mod board_svg;
mod bots;
mod conditional_moves;
mod create;
mod draw;
mod events;
mod import;
mod legal_moves;
mod lobby;
pub(crate) mod moves;
mod position;
pub(crate) mod record;
mod resign;
pub mod ruleset;
mod seats;
mod stream;
mod summary;
pub mod views;
pub mod write;

/// The board picture's words in a language (also for the rules pages' pictures).
pub(crate) use board_svg::svg_text;

use std::future::ready;

use actix_web::http::header;
use actix_web::{FromRequest, HttpRequest};
use utoipa_actix_web::service_config::ServiceConfig;

use crate::error::ApiError;
use crate::routes::caller::Authenticated;

pub use bots::SeatBotRequest;
pub use create::{BotSeat, CreateGameRequest};
pub use draw::DrawRequest;
pub use import::{ImportRequest, MAX_IMPORT_BODY_BYTES};
pub use legal_moves::LEGAL_MOVES_MAX_LIMIT;
pub use moves::{MOVE_TEXT_MAX, MOVE_TEXT_PATTERN, MoveInput, MoveRequest};
pub use resign::ResignRequest;
pub use seats::TakeSeatRequest;

pub fn configure(cfg: &mut ServiceConfig) {
    // The most frequent first (see `routes::configure_v1`); no two of these patterns match
    // the same method and path, so the order changes nothing else.
    cfg.service(moves::play_move)
        .service(position::get_state)
        .service(events::list_events)
        .service(stream::stream_events)
        .service(summary::get_game)
        .service(legal_moves::legal_moves)
        .service(create::create_game)
        .service(lobby::list_games)
        .service(seats::take_seat)
        .service(seats::leave_seat)
        .service(bots::seat_bot)
        .service(resign::resign)
        .service(draw::draw_offer)
        .service(record::get_record)
        .service(board_svg::board_svg)
        .service(import::import_game)
        .service(analysis::request_analysis)
        .service(analysis::get_analysis)
        .service(conditional_moves::put_conditional_moves)
        .service(conditional_moves::get_conditional_moves)
        .service(conditional_moves::delete_conditional_moves);
}

/// The media type of problem documents, for the OpenAPI responses.
pub(crate) const PROBLEM: &str = "application/problem+json";

/// The caller, when a bearer token (or the web session cookie) is sent; `None` without
/// either. A token that is sent but invalid is still a 401.
pub struct MaybeAuthenticated(pub Option<Authenticated>);

impl FromRequest for MaybeAuthenticated {
    type Error = ApiError;
    type Future = std::pin::Pin<Box<dyn std::future::Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, payload: &mut actix_web::dev::Payload) -> Self::Future {
        if req.headers().contains_key(header::AUTHORIZATION)
            || crate::routes::caller::uses_cookie(req)
        {
            let fut = Authenticated::from_request(req, payload);
            Box::pin(async move { fut.await.map(|a| MaybeAuthenticated(Some(a))) })
        } else {
            Box::pin(ready(Ok(MaybeAuthenticated(None))))
        }
    }
}

/// A game id from the path (see [`crate::routes::params::GameIdPath`]).
pub(crate) fn game_id(raw: &str) -> Result<crate::ids::GameId, ApiError> {
    crate::routes::params::GameIdPath::parse(raw).map(|id| id.into_inner())
}

pub(crate) fn etag(version: i64) -> String {
    format!("\"{version}\"")
}

/// Whether `If-None-Match` names this version.
pub(crate) fn not_modified(req: &HttpRequest, version: i64) -> bool {
    let tag = etag(version);
    req.headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == tag || t.trim() == "*"))
}
