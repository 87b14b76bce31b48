//! `POST/GET /v1/tournaments`, `GET/DELETE /v1/tournaments/{id}`,
//! `PUT/DELETE /v1/tournaments/{id}/players/me`: events of many games and one standing
//! (see [`crate::tournaments`]).

use actix_web::{HttpResponse, delete, get, post, put, web};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_actix_web::service_config::ServiceConfig;

use crate::auth::Scope;
use crate::error::{ApiError, Problem};
use crate::ids::{GameId, TournamentId};
use crate::model::events::RatingRange;
use crate::model::timing::TimeControl;
use crate::routes::caller::Authenticated;
use crate::routes::json_body::JsonBody;
use crate::state::AppState;
use crate::tournaments::command::{self, Ask, Ctx, NewTournament};
use crate::tournaments::log::{Format, Status, Tournament};
use crate::tournaments::queries::{self, Detail};
use crate::tournaments::scoring::points_text;

const PROBLEM: &str = "application/problem+json";

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(create_tournament)
        .service(list_tournaments)
        .service(get_tournament)
        .service(cancel_tournament)
        .service(join_tournament)
        .service(leave_tournament);
}

fn ctx(app: &AppState) -> Ctx<'_> {
    Ctx {
        pool: &app.pool,
        cache: &app.games,
        clock: &app.clock,
    }
}

/// Checks an event id as it came in the path.
fn tournament_id(raw: String) -> Result<TournamentId, ApiError> {
    if raw.is_empty()
        || raw.len() > 64
        || !raw.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
    {
        let shown: String = raw.chars().take(64).filter(|c| !c.is_control()).collect();
        return Err(ApiError::NotFound(format!("no tournament {shown}")));
    }
    Ok(TournamentId::new(raw))
}

/// `round_robin` or `swiss`.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum FormatName {
    RoundRobin,
    Swiss,
}

/// A new event.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({
    "name": "Winter section A", "format": "round_robin", "capacity": 8,
    "seats_per_table": 4,
    "time_control": {"per_move_secs": 259200, "max_bank_secs": 604800},
    "round_days": 28, "rated": true
}))]
pub struct CreateTournamentRequest {
    /// 1 to 80 characters.
    #[schema(min_length = 1, max_length = 80)]
    pub name: String,
    pub format: FormatName,
    /// Swiss only: the number of rounds (2 to 9).
    #[schema(minimum = 2, maximum = 9)]
    pub rounds: Option<u32>,
    /// The most players: `k` to 16 for a round-robin, `2k` to 64 for a Swiss event, `k`
    /// the seats per table (4 to 16 and 8 to 64 at four seats; 3 to 16 and 6 to 64 at
    /// three).
    #[schema(minimum = 3, maximum = 64)]
    pub capacity: u32,
    /// Seats per table, 3 or 4 (default 4): every game of the event is played by that
    /// many players, each seated equally often in each seat.
    #[schema(minimum = 3, maximum = 4, default = 4)]
    pub seats_per_table: Option<u32>,
    /// The start (within a year); absent: when the event is full.
    pub starts_at: Option<DateTime<Utc>>,
    /// A round-robin round's length in days (1 to 90, default 14): the next round
    /// starts when the last is over or its days are up.
    #[schema(minimum = 1, maximum = 90)]
    pub round_days: Option<u32>,
    /// The ruleset's canonical text (VARIANTS.md); absent: the standard rules.
    #[schema(max_length = 200)]
    pub ruleset: Option<String>,
    pub time_control: TimeControl,
    #[serde(default)]
    pub rated: bool,
    pub rating_range: Option<RatingRange>,
}

/// A player's line of the standings. Points by place at a table: 3, 2, 1, 0 at four
/// seats, 2, 1, 0 at three (shared places share); a round sat out scores the mean of a
/// table (1.5 at four seats, 1 at three).
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"place": 1, "username": "alice", "points": "7.5", "games": 4,
    "wins": 2, "byes": 0, "buchholz": "18", "withdrawn": false}))]
pub struct StandingView {
    pub place: u32,
    pub username: String,
    /// Points as a decimal text (halves: `"2.5"`).
    pub points: String,
    pub games: u32,
    /// Games won outright.
    pub wins: u32,
    pub byes: u32,
    /// First tie-break: the points of every opponent met.
    pub buchholz: String,
    pub withdrawn: bool,
}

/// A seat at a table.
#[derive(Debug, Serialize, ToSchema)]
pub struct TableSeatView {
    /// `R`, `B`, `Y` or `G` (`R`, `B`, `Y` at a three-seat table).
    pub seat: String,
    /// `null`: an empty seat (a withdrawn player's, in a round-robin).
    pub username: Option<String>,
    /// Points scored at this table, once its game is over.
    pub points: Option<String>,
}

/// A table: one game.
#[derive(Debug, Serialize, ToSchema)]
pub struct TableView {
    #[schema(value_type = String)]
    pub game_id: GameId,
    /// `/v1/games/{id}`.
    pub game_url: String,
    /// `pending` (not created yet), `open`, `active` or `finished`.
    pub status: String,
    pub seats: Vec<TableSeatView>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct RoundView {
    pub number: u32,
    pub paired_at: DateTime<Utc>,
    pub tables: Vec<TableView>,
    /// Who sat this round out.
    pub byes: Vec<String>,
}

/// An event: its settings, players, standings and rounds.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({
    "id": "0192f5e4-7a3c-7cc1-9a51-3e1f0c2b8d11", "name": "Winter section A",
    "organiser": "alice", "format": "round_robin", "rounds": null, "status": "open",
    "capacity": 8, "seats_per_table": 4, "starts_at": null, "round_days": 28,
    "ruleset": "djambi-2026",
    "time_control": {"per_move_secs": 259200, "max_bank_secs": 604800},
    "rated": true, "rating_range": null, "planned_rounds": 0,
    "players": ["alice", "bob"], "standings": [], "rounds_played": [],
    "created_at": "2026-12-02T10:00:00Z", "finished_at": null, "cancelled": null
}))]
pub struct TournamentView {
    #[schema(value_type = String)]
    pub id: TournamentId,
    pub name: String,
    pub organiser: String,
    pub format: FormatName,
    /// Swiss: its rounds.
    pub rounds: Option<u32>,
    /// `open`, `running`, `finished` or `cancelled`.
    pub status: String,
    pub capacity: u32,
    /// Seats per table: 3 or 4.
    pub seats_per_table: u32,
    pub starts_at: Option<DateTime<Utc>>,
    pub round_days: u32,
    pub ruleset: String,
    pub time_control: TimeControl,
    pub rated: bool,
    pub rating_range: Option<RatingRange>,
    /// The rounds the event plays (for a round-robin, known once it starts).
    pub planned_rounds: u32,
    /// Entrants in joining order.
    pub players: Vec<String>,
    pub standings: Vec<StandingView>,
    pub rounds_played: Vec<RoundView>,
    pub created_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
    /// Why it was cancelled: `organiser` or `too_few_players`.
    pub cancelled: Option<String>,
}

impl TournamentView {
    fn of(d: &Detail) -> TournamentView {
        let t: &Tournament = &d.tournament;
        let name = |id: &str| d.name(id);
        let standings = if t.status == Status::Open {
            Vec::new()
        } else {
            t.standings()
                .into_iter()
                .map(|s| StandingView {
                    place: s.place,
                    username: name(&s.player),
                    points: points_text(s.halves),
                    games: s.games,
                    wins: s.wins,
                    byes: s.byes,
                    buchholz: points_text(s.buchholz_halves),
                    withdrawn: s.withdrawn,
                })
                .collect()
        };
        let rounds_played = t
            .rounds
            .iter()
            .map(|r| RoundView {
                number: r.number,
                paired_at: r.paired_at.and_utc(),
                byes: r.byes.iter().map(|p| name(p)).collect(),
                tables: r
                    .tables
                    .iter()
                    .map(|tb| {
                        let halves = tb.halves();
                        TableView {
                            game_id: tb.game_id.clone(),
                            game_url: format!("/v1/games/{}", tb.game_id),
                            status: d
                                .games
                                .get(&tb.game_id)
                                .cloned()
                                .unwrap_or_else(|| "pending".into()),
                            seats: tb
                                .seats
                                .iter()
                                .enumerate()
                                .map(|(k, p)| TableSeatView {
                                    seat: domain::Seat::from_index(k).to_string(),
                                    username: p.as_deref().map(name),
                                    points: p.as_deref().and_then(|p| {
                                        halves
                                            .iter()
                                            .find(|(q, _)| *q == p)
                                            .map(|(_, h)| points_text(*h))
                                    }),
                                })
                                .collect(),
                        }
                    })
                    .collect(),
            })
            .collect();
        TournamentView {
            id: t.id.clone(),
            name: t.settings.name.clone(),
            organiser: name(&t.organiser),
            format: match t.settings.format {
                Format::RoundRobin => FormatName::RoundRobin,
                Format::Swiss { .. } => FormatName::Swiss,
            },
            rounds: match t.settings.format {
                Format::Swiss { rounds } => Some(rounds),
                Format::RoundRobin => None,
            },
            status: t.status.name().into(),
            capacity: t.settings.capacity,
            seats_per_table: t.settings.seats_per_table,
            starts_at: t.settings.starts_at.map(|a| a.and_utc()),
            round_days: t.settings.round_days,
            ruleset: t.settings.ruleset.clone(),
            time_control: t.settings.time_control,
            rated: t.settings.rated,
            rating_range: t.settings.rating_range,
            planned_rounds: if t.status == Status::Open {
                match t.settings.format {
                    Format::Swiss { rounds } => rounds,
                    Format::RoundRobin => 0,
                }
            } else {
                t.planned_rounds()
            },
            players: t.entrants.iter().map(|e| name(&e.player)).collect(),
            standings,
            rounds_played,
            created_at: d.created_at.and_utc(),
            finished_at: t.finished_at.map(|a| a.and_utc()),
            cancelled: t
                .cancelled
                .map(|r| command::cancel_reason_name(r).to_string()),
        }
    }
}

/// Create an event: the caller organises it (and may enter it like anyone).
///
/// A round-robin section (`k` to 16 players) plays a fixed schedule of `k`-seat tables
/// (`seats_per_table`: 3 or 4, default 4) in which every player sits in every seat
/// equally often; a Swiss event (`2k` to 64) pairs each round by score. The event
/// starts at `starts_at`, or when full; with too few players at the start it is
/// cancelled. An organiser may have 3 events open or running.
#[utoipa::path(
    tag = "tournaments",
    security(("bearer" = ["play"])),
    request_body = CreateTournamentRequest,
    responses(
        (status = 201, description = "Created; `Location` is the event", body = TournamentView),
        (status = 400, description = "A field is invalid", body = Problem, content_type = PROBLEM),
        (status = 409, description = "`quota-exceeded`: the organiser has 3 events open or running", body = Problem, content_type = PROBLEM)
    )
)]
#[post("/tournaments")]
pub async fn create_tournament(
    app: web::Data<AppState>,
    auth: Authenticated,
    body: JsonBody<CreateTournamentRequest>,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::Play)?;
    let b = body.into_inner();
    let format = match b.format {
        FormatName::RoundRobin => {
            if b.rounds.is_some() {
                return Err(ApiError::field(
                    "rounds",
                    "a round-robin's rounds follow from its players",
                ));
            }
            Format::RoundRobin
        }
        FormatName::Swiss => Format::Swiss {
            rounds: b.rounds.unwrap_or(4),
        },
    };
    if b.ruleset.as_ref().is_some_and(|r| r.len() > 200) {
        return Err(ApiError::field("ruleset", "at most 200 characters"));
    }
    let new = NewTournament {
        name: b.name,
        format,
        capacity: b.capacity,
        starts_at: b.starts_at.map(|a| a.naive_utc()),
        round_days: b.round_days.unwrap_or(14),
        ruleset: b.ruleset,
        time_control: b.time_control,
        rated: b.rated,
        rating_range: b.rating_range,
        seats_per_table: b
            .seats_per_table
            .unwrap_or(crate::tournaments::pairing::DEFAULT_SEATS as u32),
    };
    let t = command::create_event(ctx(&app), auth.user_id.into_string(), new).await?;
    let detail = queries::get(&app.pool, t.id.clone()).await?;
    Ok(HttpResponse::Created()
        .insert_header(("Location", format!("/v1/tournaments/{}", t.id)))
        .json(TournamentView::of(&detail)))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListParams {
    /// Only events in this state: `open`, `running`, `finished` or `cancelled`.
    pub status: Option<String>,
    /// At most this many (1 to 100, default 20).
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<i64>,
    /// Skip so many (0 to 10000).
    #[param(minimum = 0, maximum = 10000)]
    pub offset: Option<i64>,
}

/// An event in a list.
#[derive(Debug, Serialize, ToSchema)]
pub struct TournamentSummary {
    #[schema(value_type = String)]
    pub id: TournamentId,
    pub name: String,
    pub organiser: String,
    /// `round_robin` or `swiss`.
    pub format: String,
    pub status: String,
    pub capacity: u32,
    pub players: u32,
    pub rounds_paired: u32,
    pub starts_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct TournamentList {
    pub items: Vec<TournamentSummary>,
}

/// Events, newest first.
#[utoipa::path(
    tag = "tournaments",
    params(ListParams),
    responses(
        (status = 200, description = "A page of events", body = TournamentList),
        (status = 400, description = "A parameter is invalid", body = Problem, content_type = PROBLEM)
    )
)]
#[get("/tournaments")]
pub async fn list_tournaments(
    app: web::Data<AppState>,
    params: web::Query<ListParams>,
) -> Result<HttpResponse, ApiError> {
    let p = params.into_inner();
    let status = match p.status.as_deref() {
        None => None,
        Some("open") => Some("open"),
        Some("running") => Some("running"),
        Some("finished") => Some("finished"),
        Some("cancelled") => Some("cancelled"),
        Some(_) => {
            return Err(ApiError::field(
                "status",
                "one of open, running, finished, cancelled",
            ));
        }
    };
    let limit = p.limit.unwrap_or(20);
    if !(1..=100).contains(&limit) {
        return Err(ApiError::field("limit", "1 to 100"));
    }
    let offset = p.offset.unwrap_or(0);
    if !(0..=10_000).contains(&offset) {
        return Err(ApiError::field("offset", "0 to 10000"));
    }
    let (rows, names) = queries::list(&app.pool, status, limit, offset).await?;
    let items = rows
        .into_iter()
        .map(|r| TournamentSummary {
            organiser: names.get(&r.organiser_id).cloned().unwrap_or_default(),
            id: r.id,
            name: r.name,
            format: r.format,
            status: r.status,
            capacity: r.capacity.max(0) as u32,
            players: r.players.max(0) as u32,
            rounds_paired: r.rounds_paired.max(0) as u32,
            starts_at: r.starts_at.map(|a| a.and_utc()),
            created_at: r.created_at.and_utc(),
        })
        .collect();
    Ok(HttpResponse::Ok().json(TournamentList { items }))
}

/// An event: standings (live, after every game end), rounds, tables and games.
#[utoipa::path(
    tag = "tournaments",
    params(("id" = String, Path, description = "The event's id", max_length = 64)),
    responses(
        (status = 200, description = "The event", body = TournamentView),
        (status = 404, description = "No such event", body = Problem, content_type = PROBLEM)
    )
)]
#[get("/tournaments/{id}")]
pub async fn get_tournament(
    app: web::Data<AppState>,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = tournament_id(path.into_inner())?;
    let detail = queries::get(&app.pool, id).await?;
    Ok(HttpResponse::Ok().json(TournamentView::of(&detail)))
}

/// Cancel an event before its start (the organiser only).
///
/// Cancelling ends the event, it does not erase it: `GET /v1/tournaments/{id}` still
/// answers it, with `status: cancelled` and `cancelled: organiser`, and its entrants are
/// told (`tournament_cancelled`).
#[utoipa::path(
    tag = "tournaments",
    security(("bearer" = ["play"])),
    params(("id" = String, Path, description = "The event's id", max_length = 64)),
    responses(
        (status = 204, description = "Cancelled"),
        (status = 403, description = "Not the organiser", body = Problem, content_type = PROBLEM),
        (status = 404, description = "No such event", body = Problem, content_type = PROBLEM),
        (status = 409, description = "The event has started", body = Problem, content_type = PROBLEM)
    )
)]
#[delete("/tournaments/{id}")]
pub async fn cancel_tournament(
    app: web::Data<AppState>,
    auth: Authenticated,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::Play)?;
    let id = tournament_id(path.into_inner())?;
    command::ask(ctx(&app), id, auth.user_id.into_string(), Ask::Cancel).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Join an event before its start. When this fills it, the event starts at once.
#[utoipa::path(
    tag = "tournaments",
    security(("bearer" = ["play"])),
    params(("id" = String, Path, description = "The event's id", max_length = 64)),
    responses(
        (status = 200, description = "Entered; the event as it is now", body = TournamentView),
        (status = 403, description = "The caller's rating is outside the event's range", body = Problem, content_type = PROBLEM),
        (status = 404, description = "No such event", body = Problem, content_type = PROBLEM),
        (status = 409, description = "Already entered, full, or started", body = Problem, content_type = PROBLEM)
    )
)]
#[put("/tournaments/{id}/players/me")]
pub async fn join_tournament(
    app: web::Data<AppState>,
    auth: Authenticated,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::Play)?;
    let id = tournament_id(path.into_inner())?;
    command::ask(ctx(&app), id.clone(), auth.user_id.into_string(), Ask::Join).await?;
    let detail = queries::get(&app.pool, id).await?;
    Ok(HttpResponse::Ok().json(TournamentView::of(&detail)))
}

/// Leave an event: before the start the entry is gone; after it, a withdrawal (the
/// caller's running games of the event are resigned, it is paired no more, its points
/// stay in the standings).
#[utoipa::path(
    tag = "tournaments",
    security(("bearer" = ["play"])),
    params(("id" = String, Path, description = "The event's id", max_length = 64)),
    responses(
        (status = 204, description = "Left or withdrawn"),
        (status = 404, description = "No such event, or not entered", body = Problem, content_type = PROBLEM),
        (status = 409, description = "The event is over", body = Problem, content_type = PROBLEM)
    )
)]
#[delete("/tournaments/{id}/players/me")]
pub async fn leave_tournament(
    app: web::Data<AppState>,
    auth: Authenticated,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::Play)?;
    let id = tournament_id(path.into_inner())?;
    command::ask(ctx(&app), id, auth.user_id.into_string(), Ask::Leave).await?;
    Ok(HttpResponse::NoContent().finish())
}
