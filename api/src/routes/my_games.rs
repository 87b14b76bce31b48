//! `GET /v1/me/games`: the caller's games; `?turn=mine` for those waiting on the caller.

use actix_web::{HttpResponse, get, web};
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::auth::Scope;
use crate::error::{ApiError, Problem};
use crate::games::queries;
use crate::ids::GameId;
use crate::model::events::Status;
use crate::pagination::{Keyset, PageParams};
use crate::routes::caller::Authenticated;
use crate::routes::games::views::GamePage;
use crate::state::AppState;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(my_games);
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct MyGamesParams {
    /// `mine`: only active games where it is the caller's turn.
    #[param(inline, value_type = Option<String>, pattern = "^mine$")]
    pub turn: Option<String>,
    /// Only games in this status: `open`, `active` or `finished` (with `turn=mine`, only
    /// `active`).
    #[param(inline, value_type = Option<String>, pattern = "^(open|active|finished)$")]
    pub status: Option<String>,
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
}

/// My games (those where I hold a seat).
///
/// Newest first. With `?turn=mine`, only the active games waiting on my move, soonest
/// deadline first; games without a time control come after those with a deadline, the
/// one waiting longest first.
#[utoipa::path(
    tag = "games",
    security(("bearer" = ["read"])),
    params(MyGamesParams),
    responses(
        (status = 200, description = "A page of games", body = GamePage),
        (status = 400, description = "Bad `turn`, `status`, `after` or `limit`", body = Problem,
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
    // Only active games wait on a move: with another status the page is empty.
    let none_can_wait = mine && status.is_some_and(|s| s != Status::Active);
    let page = PageParams {
        after: q.after,
        limit: q.limit,
    };
    let limit = page.limit()?;
    let after = page
        .after()?
        .map(Keyset::decode)
        .transpose()?
        .map(|(t, id)| (t, GameId::new(id)));
    let user = auth.user_id.clone();
    let ctx = app.game_ctx();
    let fetched = if none_can_wait {
        (Vec::new(), Vec::new())
    } else if mine {
        queries::awaiting_move_of(ctx, user, after, i64::from(limit)).await?
    } else {
        queries::games_of(ctx, user, status, after, i64::from(limit)).await?
    };
    let mut extra = String::new();
    if mine {
        extra.push_str("&turn=mine");
    }
    if let Some(s) = status {
        extra.push_str(&format!("&status={}", s.as_str()));
    }
    let viewer = Some(&auth.user_id);
    let path = "/v1/me/games";
    let page = if mine {
        GamePage::of(
            fetched,
            limit,
            viewer,
            path,
            &extra,
            queries::turn_order_key,
        )
    } else {
        GamePage::of(fetched, limit, viewer, path, &extra, |r| r.created_at)
    };
    Ok(HttpResponse::Ok().json(page))
}
