//! `GET /v1/players/{username}` (a player's rating page as data) and `GET /v1/leaderboard`
//! (players by rating, cursor paged). Public: ratings are public, like the lobby.

use actix_web::{HttpResponse, get, web};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_actix_web::service_config::ServiceConfig;

use crate::error::{ApiError, Problem};
use crate::ids::{GameId, UserId};
use crate::pagination::{check_limit, invalid_cursor, next_link};
use crate::ratings::read::{
    self, PlayerPage, PlayerRatingRow, RatingChangeRow, decode_cursor, encode_cursor, provisional,
};
use crate::routes::games::MaybeAuthenticated;
use crate::state::AppState;

const PROBLEM: &str = "application/problem+json";
/// The widest `active_days` filter.
pub const MAX_ACTIVE_DAYS: u32 = 3650;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(player).service(leaderboard);
}

/// A rating: the shown figure and what it is made of.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(example = json!({"rating": 4.21, "mu": 27.8, "sigma": 7.86, "provisional": true}))]
pub struct RatingView {
    /// The shown rating: mu − 3·sigma (0 for a new player).
    pub rating: f64,
    /// The skill estimate (Weng-Lin, Plackett-Luce; a new player has 25).
    pub mu: f64,
    /// The deviation of the estimate (a new player has 25/3).
    pub sigma: f64,
    /// True while sigma is above 4: too few games to say.
    pub provisional: bool,
}

impl RatingView {
    pub fn of(mu: f64, sigma: f64) -> RatingView {
        let skill = crate::ratings::model::Skill { mu, sigma };
        RatingView {
            rating: skill.display(),
            mu,
            sigma,
            provisional: skill.provisional(),
        }
    }
}

/// How often a player finished at a place.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PlaceCount {
    /// 1 is first.
    pub place: i32,
    pub games: i64,
}

/// A rated game of the player's and what it did to the rating.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RatedGameView {
    /// `null` for an invite-only game the caller did not play (its id opens it).
    #[schema(value_type = Option<String>)]
    pub game_id: Option<GameId>,
    pub ended_at: DateTime<Utc>,
    /// 1 is first; players sharing a place share the number.
    pub place: i32,
    pub players: i32,
    pub rating_before: f64,
    pub rating_after: f64,
}

impl RatedGameView {
    fn of(p: &PlayerPage, c: &RatingChangeRow) -> RatedGameView {
        RatedGameView {
            game_id: p.shown_id(&c.game_id).cloned(),
            ended_at: c.ended_at.and_utc(),
            place: c.place,
            players: c.players,
            rating_before: c.mu_before - 3.0 * c.sigma_before,
            rating_after: c.mu_after - 3.0 * c.sigma_after,
        }
    }
}

/// A point of the rating history.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct HistoryPoint {
    /// `null` for an invite-only game the caller did not play (its id opens it).
    #[schema(value_type = Option<String>)]
    pub game_id: Option<GameId>,
    pub ended_at: DateTime<Utc>,
    /// The shown rating after the game.
    pub rating: f64,
}

/// A player's page as data.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PlayerView {
    #[schema(value_type = String)]
    pub user_id: UserId,
    pub username: String,
    pub rating: RatingView,
    /// Rated games finished.
    pub games: i64,
    /// Rated games won (sole first place).
    pub wins: i64,
    /// How often at each place, first place first.
    pub places: Vec<PlaceCount>,
    /// The last rated games (at most 20), newest first.
    pub recent_games: Vec<RatedGameView>,
    /// The shown rating after each rated game (the last 200), oldest first.
    pub rating_history: Vec<HistoryPoint>,
}

impl PlayerView {
    pub fn of(p: &PlayerPage) -> PlayerView {
        PlayerView {
            user_id: p.user_id.clone(),
            username: p.username.clone(),
            rating: RatingView::of(p.rating.mu, p.rating.sigma),
            games: p.rating.games,
            wins: p.rating.wins,
            places: p
                .places
                .iter()
                .map(|&(place, games)| PlaceCount { place, games })
                .collect(),
            recent_games: p.recent.iter().map(|c| RatedGameView::of(p, c)).collect(),
            rating_history: p
                .history
                .iter()
                .map(|c| HistoryPoint {
                    game_id: p.shown_id(&c.game_id).cloned(),
                    ended_at: c.ended_at.and_utc(),
                    rating: c.mu_after - 3.0 * c.sigma_after,
                })
                .collect(),
        }
    }
}

/// A player's rating page: rating and deviation, games, wins, places, the recent rated
/// games and the rating history. A player without rated games has the prior (shown
/// rating 0, provisional). Invite-only games are listed without their id (`game_id`
/// `null`) unless the caller played them.
#[utoipa::path(
    tag = "players",
    params(("username" = String, Path, description = "The player's name (any case)", min_length = 1, max_length = 64)),
    responses(
        (status = 200, description = "The player's page", body = PlayerView),
        (status = 404, description = "No such player", body = Problem, content_type = PROBLEM)
    )
)]
#[get("/players/{username}")]
pub async fn player(
    app: web::Data<AppState>,
    path: web::Path<String>,
    viewer: MaybeAuthenticated,
) -> Result<HttpResponse, ApiError> {
    let name = path.into_inner();
    if name.is_empty() || name.len() > 64 {
        return Err(ApiError::NotFound(format!("no player {name:?}")));
    }
    let reader = viewer.0.map(|a| a.user_id);
    let page = read::player(&app.pool, name, reader).await?;
    Ok(HttpResponse::Ok().json(PlayerView::of(&page)))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LeaderboardParams {
    /// Only players whose last rated game ended in the last so many days (1 to 3650).
    #[param(minimum = 1, maximum = 3650)]
    pub active_days: Option<u32>,
    /// The `next_cursor` of the previous page.
    #[param(
        min_length = 18,
        max_length = 81,
        pattern = "^[0-9a-f]{16}_[A-Za-z0-9-]{1,64}$"
    )]
    pub after: Option<String>,
    /// Items per page, 1 to 100 (default 50).
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<u32>,
}

/// A leaderboard line.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct LeaderboardEntry {
    #[schema(value_type = String)]
    pub user_id: UserId,
    pub username: String,
    pub rating: RatingView,
    pub games: i64,
    pub wins: i64,
    pub last_game_at: DateTime<Utc>,
}

/// A page of the leaderboard.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct LeaderboardPage {
    pub items: Vec<LeaderboardEntry>,
    /// The cursor of the next page; `null` on the last page.
    pub next_cursor: Option<String>,
    /// The path of the next page; `null` on the last page.
    pub next: Option<String>,
}

fn entry((row, username): &(PlayerRatingRow, String)) -> LeaderboardEntry {
    LeaderboardEntry {
        user_id: row.user_id.clone(),
        username: username.clone(),
        rating: RatingView {
            rating: row.rating,
            mu: row.mu,
            sigma: row.sigma,
            provisional: provisional(row),
        },
        games: row.games,
        wins: row.wins,
        last_game_at: row.last_game_at.and_utc(),
    }
}

/// The leaderboard: rated players by shown rating (mu − 3·sigma), best first, cursor
/// paged; `?active_days=N` keeps those who finished a rated game in the last N days.
#[utoipa::path(
    tag = "players",
    params(LeaderboardParams),
    responses(
        (status = 200, description = "A page of the leaderboard", body = LeaderboardPage),
        (status = 400, description = "Bad `active_days`, `after` or `limit`", body = Problem, content_type = PROBLEM)
    )
)]
#[get("/leaderboard")]
pub async fn leaderboard(
    app: web::Data<AppState>,
    query: web::Query<LeaderboardParams>,
) -> Result<HttpResponse, ApiError> {
    let q = query.into_inner();
    let limit = check_limit(q.limit)?;
    if q.active_days
        .is_some_and(|d| !(1..=MAX_ACTIVE_DAYS).contains(&d))
    {
        return Err(ApiError::field(
            "active_days",
            format!("must be 1 to {MAX_ACTIVE_DAYS}"),
        ));
    }
    let after = q
        .after
        .as_deref()
        .map(|c| decode_cursor(c).ok_or_else(invalid_cursor))
        .transpose()?;
    let now = app.clock.now();
    let mut rows =
        read::leaderboard(&app.pool, after, q.active_days, now, i64::from(limit) + 1).await?;
    let more = rows.len() > limit as usize;
    rows.truncate(limit as usize);
    let next_cursor = more
        .then(|| {
            rows.last()
                .map(|(r, _)| encode_cursor(r.rating, &r.user_id))
        })
        .flatten();
    let extra = q
        .active_days
        .map(|d| format!("&active_days={d}"))
        .unwrap_or_default();
    let next = next_cursor
        .as_deref()
        .map(|c| format!("{}{extra}", next_link("/v1/leaderboard", c, limit)));
    Ok(HttpResponse::Ok().json(LeaderboardPage {
        items: rows.iter().map(entry).collect(),
        next_cursor,
        next,
    }))
}
