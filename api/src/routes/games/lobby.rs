//! `GET /v1/games`: the lobby.

use actix_web::{HttpResponse, get, web};
use serde::Deserialize;
use utoipa::IntoParams;

use super::{MaybeAuthenticated, PROBLEM};
use crate::error::{ApiError, Problem};
use crate::games::queries;
use crate::ids::GameId;
use crate::model::events::Status;
use crate::pagination::{Keyset, PageParams};
use crate::routes::games::views::GamePage;
use crate::state::AppState;

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LobbyParams {
    /// `open` (default: games with free seats), `active` or `finished`.
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

/// The lobby: public games, newest first.
///
/// `?status=open` (the default) lists games with free seats; `active` and `finished`
/// list public games being played or over, for spectators. Invite-only games are never
/// listed.
#[utoipa::path(
    tag = "games",
    security((), ("bearer" = [])),
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
    let after = page
        .after()?
        .map(Keyset::decode)
        .transpose()?
        .map(|(t, id)| (t, GameId::new(id)));
    let fetched = queries::lobby(app.game_ctx(), status, after, i64::from(limit)).await?;
    let viewer = viewer.0.map(|a| a.user_id);
    let extra = format!("&status={}", status.as_str());
    Ok(HttpResponse::Ok().json(GamePage::of(
        fetched,
        limit,
        viewer.as_ref(),
        "/v1/games",
        &extra,
        |r| r.created_at,
    )))
}
