//! `GET /v1/me/games`: the caller's games; `?turn=mine` for those waiting on the caller.

use actix_web::{HttpResponse, get, web};
use diesel::prelude::*;
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa_actix_web::service_config::ServiceConfig;

use super::games::{decode_cursor, page_of};
use crate::auth::{Authenticated, Scope};
use crate::db;
use crate::error::{ApiError, Problem};
use crate::games::events::Status;
use crate::games::store::{self, GameRow};
use crate::games::views::GamePage;
use crate::pagination::PageParams;
use crate::schema::{game_players, games};
use crate::state::AppState;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(my_games);
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct MyGamesParams {
    /// `mine`: only active games where it is the caller's turn.
    pub turn: Option<String>,
    /// Only games in this status: `open`, `active` or `finished`.
    pub status: Option<String>,
    /// The `next_cursor` of the previous page.
    pub after: Option<String>,
    /// Items per page, 1 to 100 (default 50).
    pub limit: Option<u32>,
}

/// My games (those where I hold a seat).
///
/// Newest first. With `?turn=mine`, only the active games waiting on my move, the one
/// waiting longest first: that is "soonest deadline first" while there are no time
/// controls (a game's deadline will be its last move's time plus the time allowed).
#[utoipa::path(
    tag = "games",
    security(("bearer" = [])),
    params(MyGamesParams),
    responses(
        (status = 200, description = "A page of games", body = GamePage),
        (status = 400, description = "Bad `turn`, `status`, `after` or `limit`", body = Problem,
            content_type = "application/problem+json"),
        (status = 401, description = "Missing or invalid token", body = Problem,
            content_type = "application/problem+json"),
        (status = 403, description = "The token lacks the `read` scope", body = Problem,
            content_type = "application/problem+json")
    )
)]
#[get("/me/games")]
pub async fn my_games(
    app: web::Data<AppState>,
    auth: Authenticated,
    query: web::Query<MyGamesParams>,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::Read)?;
    let q = query.into_inner();
    let mine = match q.turn.as_deref() {
        None => false,
        Some("mine") => true,
        Some(_) => return Err(ApiError::field("turn", "the only value is `mine`")),
    };
    let status = q
        .status
        .as_deref()
        .map(|s| {
            Status::parse(s)
                .ok_or_else(|| ApiError::field("status", "must be open, active or finished"))
        })
        .transpose()?;
    let page = PageParams {
        after: q.after,
        limit: q.limit,
    };
    let limit = page.limit()?;
    let cursor = page.after()?.map(decode_cursor).transpose()?;
    let user = auth.user_id.clone();
    let (rows, players) = db::run(&app.pool, move |conn| {
        let rows: Vec<GameRow> = if mine {
            let mut query = games::table
                .filter(games::to_move_user_id.eq(&user))
                .filter(games::status.eq(Status::Active.as_str()))
                .order((games::updated_at.asc(), games::id.asc()))
                .limit(i64::from(limit) + 1)
                .select(GameRow::as_select())
                .into_boxed();
            if let Some((t, id)) = cursor {
                query = query.filter(
                    games::updated_at
                        .gt(t)
                        .or(games::updated_at.eq(t).and(games::id.gt(id))),
                );
            }
            query.load(conn)?
        } else {
            let mut query = games::table
                .inner_join(game_players::table)
                .filter(game_players::user_id.eq(&user))
                .order((games::created_at.desc(), games::id.desc()))
                .limit(i64::from(limit) + 1)
                .select(GameRow::as_select())
                .into_boxed();
            if let Some(status) = status {
                query = query.filter(games::status.eq(status.as_str()));
            }
            if let Some((t, id)) = cursor {
                query = query.filter(
                    games::created_at
                        .lt(t)
                        .or(games::created_at.eq(t).and(games::id.lt(id))),
                );
            }
            query.load(conn)?
        };
        let ids: Vec<String> = rows.iter().map(|r| r.id.clone()).collect();
        let players = store::players_of(conn, &ids)?;
        Ok((rows, players))
    })
    .await?;
    let mut extra = String::new();
    if mine {
        extra.push_str("&turn=mine");
    }
    if let Some(s) = status {
        extra.push_str(&format!("&status={}", s.as_str()));
    }
    let viewer = auth.user_id.clone();
    let page = if mine {
        page_of(
            rows,
            limit,
            &players,
            Some(&viewer),
            "/v1/me/games",
            &extra,
            |r| r.updated_at,
        )
    } else {
        page_of(
            rows,
            limit,
            &players,
            Some(&viewer),
            "/v1/me/games",
            &extra,
            |r| r.created_at,
        )
    };
    Ok(HttpResponse::Ok().json(page))
}
