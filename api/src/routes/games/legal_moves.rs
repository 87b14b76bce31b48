//! `GET /v1/games/{id}/legal-moves`: the moves of the seat to move, paged.

use actix_web::http::header;
use actix_web::{HttpResponse, get, web};
use serde::Deserialize;
use utoipa::IntoParams;

use super::{PROBLEM, etag};
use crate::error::{ApiError, Problem};
use crate::games::queries;
use crate::pagination::{check_cursor, invalid_cursor, next_link};
use crate::routes::games::views::{LegalMovesView, MoveView};
use crate::routes::params::GameIdPath;
use crate::state::AppState;

pub const LEGAL_MOVES_DEFAULT_LIMIT: usize = 500;
pub const LEGAL_MOVES_MAX_LIMIT: usize = 2000;

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LegalMovesParams {
    /// The `next_cursor` of the previous page. It names the version it was made at: a
    /// cursor from an older version is refused with 412, so pages never mix positions.
    #[param(
        min_length = 3,
        max_length = 37,
        pattern = "^[0-9]{1,18}\\.[0-9]{1,18}$"
    )]
    pub after: Option<String>,
    /// Moves per page, 1 to 2000 (default 500). Positions can have thousands.
    #[param(minimum = 1, maximum = 2000)]
    pub limit: Option<u32>,
}

/// A legal-moves cursor: `<version>.<index of the last move given>`.
fn parse_cursor(raw: Option<&str>) -> Result<Option<(i64, usize)>, ApiError> {
    let Some(raw) = check_cursor(raw)? else {
        return Ok(None);
    };
    let (version, index) = raw.split_once('.').ok_or_else(invalid_cursor)?;
    // 1 to 18 digits each, as documented.
    let digits = |s: &str| (1..=18).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(version) || !digits(index) {
        return Err(invalid_cursor());
    }
    let version: i64 = version.parse().map_err(|_| invalid_cursor())?;
    let index: usize = index.parse().map_err(|_| invalid_cursor())?;
    Ok(Some((version, index)))
}

/// Every complete legal move of the seat to move, canonical text and JSON.
///
/// Sorted by canonical text (byte order, as `djambi moves` prints them), paged with
/// `after`/`limit`; `total` is the number of legal moves in all. Empty unless the game
/// is active. A page's cursor is tied to the game's version: once the game moves on, the
/// next page is refused (`412 version-conflict` with `current_version`): start again.
#[utoipa::path(
    tag = "games",
    params(GameIdPath, LegalMovesParams),
    responses(
        (status = 200, description = "A page of legal moves; `ETag` is the version", body = LegalMovesView),
        (status = 400, description = "Bad `after` or `limit`", body = Problem, content_type = PROBLEM),
        (status = 404, description = "No such game", body = Problem, content_type = PROBLEM),
        (status = 412, description = "`version-conflict`: the cursor is from an older version", body = Problem, content_type = PROBLEM)
    )
)]
#[get("/games/{id}/legal-moves")]
pub async fn legal_moves(
    app: web::Data<AppState>,
    id: GameIdPath,
    query: web::Query<LegalMovesParams>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
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
    let cursor = parse_cursor(query.after.as_deref())?;
    let state = queries::current_state(app.game_ctx(), id).await?;
    let after = match cursor {
        None => 0,
        Some((version, _)) if version != state.version => {
            return Err(ApiError::VersionConflict {
                expected: version,
                current_version: state.version,
            });
        }
        Some((_, index)) => index.checked_add(1).ok_or_else(invalid_cursor)?,
    };
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
    let next_cursor = (end < total).then(|| format!("{}.{}", state.version, end - 1));
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
