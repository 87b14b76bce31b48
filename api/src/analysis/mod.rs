//! The engine's analysis of finished games and study games (issue 37): asking for one,
//! reading it, and the record with it as comments. The analysis itself is the rules
//! crate's `search::analysis`; it runs in the background (`crate::workers::analysis`),
//! never on a request thread, and is stored per game and engine version
//! (`crate::store::analyses`).
//!
//! - **Who**: a public game's analysis is asked for by any signed-in account and read by
//!   anyone; a game that is not public (invite-only, or an imported study game kept
//!   private) only by its players and its creator (others get the game's `not-found`).
//! - **What**: a finished game, or a study game (imported); not a game being played.
//! - **Once**: at most one analysis per game and engine version; asking again answers
//!   the one there is (and charges no quota). A newer engine analyses the game again.
//! - **Quotas**: an account may ask for `DJAMBI_ANALYSIS_PER_ACCOUNT_PER_DAY` analyses in
//!   24 hours (429 with `Retry-After`), and at most `DJAMBI_ANALYSIS_QUEUE_MAX` may wait
//!   or run on the whole site (409 `quota-exceeded`, freed as they finish).

use std::sync::Arc;

use chrono::{NaiveDateTime, TimeDelta};

use crate::clock::Clock;
use crate::config::AnalysisConfig;
use crate::ids::{GameId, UserId};
use crate::model::analysis::{Judgement, MoveAnalysis, SeatValues};
use crate::model::events::{GameKind, Status, Visibility};
use crate::model::game_state::GameState;
use crate::quota::Exceeded;
use crate::store::analyses::{self as store_analyses, AnalysisRow};
use crate::store::cache::GameCache;
use crate::store::games as game_store;
use crate::store::{self, DbPool, StoreError};

/// Woken when an analysis is queued (the worker also looks at the queue every
/// `DJAMBI_DUE_INTERVAL`).
pub static QUEUED: tokio::sync::Notify = tokio::sync::Notify::const_new();

/// What the analysis use cases work with.
#[derive(Debug, Clone, Copy)]
pub struct Ctx<'a> {
    pub pool: &'a DbPool,
    pub cache: &'a Arc<GameCache>,
    pub clock: &'a Arc<dyn Clock>,
    pub config: &'a AnalysisConfig,
}

/// Why an analysis use case refused.
#[derive(Debug, thiserror::Error)]
pub enum AnalysisError {
    /// No such game, or one the caller may not read.
    #[error("no game {0}")]
    NotFound(String),
    /// The game has no analysis by the current engine.
    #[error("{0}")]
    NoAnalysis(String),
    /// The game is being played (or waits for players).
    #[error("{0}")]
    NotFinished(String),
    #[error("{0}")]
    Quota(Exceeded),
    #[error(transparent)]
    Store(StoreError),
}

impl From<StoreError> for AnalysisError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::NotFound(id) => AnalysisError::NotFound(id),
            other => AnalysisError::Store(other),
        }
    }
}

impl From<store::RunError> for AnalysisError {
    fn from(e: store::RunError) -> Self {
        AnalysisError::Store(e.into())
    }
}

/// How far an analysis is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    Queued,
    Running,
    Done,
    Failed,
}

impl Progress {
    pub fn of(status: &str) -> Progress {
        match status {
            "queued" => Progress::Queued,
            "running" => Progress::Running,
            "done" => Progress::Done,
            _ => Progress::Failed,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Progress::Queued => "queued",
            Progress::Running => "running",
            Progress::Done => "done",
            Progress::Failed => "failed",
        }
    }
}

/// An analysis as read: its row, the moves analysed so far, the final values once done.
#[derive(Debug, Clone)]
pub struct Analysis {
    pub id: String,
    pub game_id: GameId,
    pub engine_version: String,
    pub progress: Progress,
    pub requested_at: NaiveDateTime,
    pub finished_at: Option<NaiveDateTime>,
    pub plies: i32,
    pub plies_done: i32,
    pub moves: Vec<MoveAnalysis>,
    pub last: Option<SeatValues>,
}

/// Whether `viewer` may see the analysis of the game (see the module documentation).
pub fn may_read(state: &GameState, viewer: Option<&UserId>) -> bool {
    state.visibility == Visibility::Public
        || viewer.is_some_and(|v| {
            state.created_by == v || state.players.iter().any(|p| p.as_ref() == Some(v))
        })
}

/// Whether the game can be analysed: finished, or a study game.
pub fn analysable(state: &GameState) -> bool {
    state.status == Status::Finished || state.kind == GameKind::Study
}

/// The engine version analyses are made and looked up with.
pub fn engine_version(config: &AnalysisConfig) -> String {
    domain::search::analysis::engine_version(config.level)
}

/// The number of moves (plies) in a game's actions.
pub fn plies_of(state: &GameState) -> i32 {
    state
        .actions
        .iter()
        .filter(|a| matches!(a, domain::Action::Move(_)))
        .count() as i32
}

/// What asking for an analysis did.
#[derive(Debug, Clone)]
pub enum Requested {
    /// A new analysis was queued.
    Queued(Analysis),
    /// The game already has one by this engine (queued, running or done).
    Existing(Analysis),
}

fn load_readable(
    conn: &mut store::DbConnection,
    cache: &Arc<GameCache>,
    id: &GameId,
    viewer: Option<&UserId>,
) -> Result<Arc<GameState>, AnalysisError> {
    let state = game_store::current_state(conn, cache, id)?;
    if !may_read(&state, viewer) {
        return Err(AnalysisError::NotFound(id.to_string()));
    }
    Ok(state)
}

fn read_row(conn: &mut store::DbConnection, row: AnalysisRow) -> Result<Analysis, AnalysisError> {
    let moves = store_analyses::moves(conn, &row.id)?
        .into_iter()
        .filter_map(|(_, body)| serde_json::from_str::<MoveAnalysis>(&body).ok())
        .collect();
    let last = row
        .last_values
        .as_deref()
        .and_then(|v| serde_json::from_str::<SeatValues>(v).ok());
    Ok(Analysis {
        id: row.id,
        game_id: row.game_id,
        engine_version: row.engine_version,
        progress: Progress::of(&row.status),
        requested_at: row.requested_at,
        finished_at: row.finished_at,
        plies: row.plies,
        plies_done: row.plies_done,
        moves,
        last,
    })
}

/// Asks for the analysis of game `id` on behalf of `user` (see the module documentation).
pub async fn request(ctx: Ctx<'_>, id: GameId, user: UserId) -> Result<Requested, AnalysisError> {
    let cache = ctx.cache.clone();
    let config = *ctx.config;
    let now = ctx.clock.now();
    store::run(ctx.pool, move |conn| {
        let state = load_readable(conn, &cache, &id, Some(&user))?;
        if !analysable(&state) {
            return Err(AnalysisError::NotFinished(
                "only a finished game or a study game can be analysed; this one is being \
                 played"
                    .into(),
            ));
        }
        let engine = engine_version(&config);
        if let Some(row) = store_analyses::find(conn, &id, &engine)? {
            return Ok(Requested::Existing(read_row(conn, row)?));
        }
        let day = TimeDelta::hours(24);
        let (asked, oldest) = store_analyses::requested_since(conn, &user, now - day)?;
        if asked as u64 >= config.per_account_per_day {
            let retry = oldest
                .map(|t| (t + day - now).num_seconds().max(1) as u64)
                .unwrap_or(1);
            return Err(AnalysisError::Quota(Exceeded::per_period(
                "analyses_per_day",
                config.per_account_per_day,
                retry,
                format!(
                    "an account may ask for at most {} analyses in 24 hours \
                     (DJAMBI_ANALYSIS_PER_ACCOUNT_PER_DAY)",
                    config.per_account_per_day
                ),
            )));
        }
        if store_analyses::pending(conn)? as u64 >= config.queue_max {
            return Err(AnalysisError::Quota(Exceeded::held(
                "analyses_pending",
                config.queue_max,
                format!(
                    "at most {} analyses may wait or run on the site at once \
                     (DJAMBI_ANALYSIS_QUEUE_MAX); try again when some have finished",
                    config.queue_max
                ),
            )));
        }
        let row = AnalysisRow {
            id: uuid::Uuid::new_v4().to_string(),
            game_id: id.clone(),
            engine_version: engine.clone(),
            status: "queued".into(),
            requested_by: Some(user.clone()),
            requested_at: now,
            game_version: state.version,
            plies: plies_of(&state),
            plies_done: 0,
            due_at: Some(now),
            lease_until: None,
            finished_at: None,
            last_values: None,
            error: None,
        };
        if store_analyses::insert(conn, &row)? {
            QUEUED.notify_waiters();
            Ok(Requested::Queued(read_row(conn, row)?))
        } else {
            // A concurrent request queued it first.
            let row = store_analyses::find(conn, &id, &engine)?
                .ok_or_else(|| AnalysisError::NotFound(id.to_string()))?;
            Ok(Requested::Existing(read_row(conn, row)?))
        }
    })
    .await
}

/// Reads the analysis of game `id` by the current engine, for `viewer`. A game analysed
/// only by an older engine is queued for this one (the answer is its progress).
pub async fn read(
    ctx: Ctx<'_>,
    id: GameId,
    viewer: Option<UserId>,
) -> Result<Analysis, AnalysisError> {
    let cache = ctx.cache.clone();
    let engine = engine_version(ctx.config);
    let now = ctx.clock.now();
    store::run(ctx.pool, move |conn| {
        load_readable(conn, &cache, &id, viewer.as_ref())?;
        let mut row = store_analyses::find(conn, &id, &engine)?;
        if row.is_none()
            && let Some(old) = store_analyses::stale_of_game(conn, &id, &engine)?
        {
            // Analysed by an older engine: this one analyses it again (the worker also
            // queues these at start), at no one's quota.
            let again = old.again(&engine, now, uuid::Uuid::new_v4().to_string());
            if store_analyses::insert(conn, &again)? {
                QUEUED.notify_waiters();
            }
            row = store_analyses::find(conn, &id, &engine)?;
        }
        let Some(row) = row else {
            return Err(AnalysisError::NoAnalysis(format!(
                "game {id} has no analysis by the current engine ({engine}); \
                 POST /v1/games/{id}/analysis asks for one"
            )));
        };
        read_row(conn, row)
    })
    .await
}

/// `+0.40`: a value in militants.
fn militants(value: i32) -> String {
    let sign = if value < 0 { '-' } else { '+' };
    let v = value.unsigned_abs();
    format!("{sign}{}.{:02}", v / 100, v % 100)
}

/// The comment written after a move: each seat's value after it, then the judgement.
fn comment(after: &SeatValues, entry: &MoveAnalysis) -> String {
    let mut text = String::from("eval");
    for (seat, v) in domain::Seat::ALL.iter().zip(after.to_array()) {
        if let Some(v) = v {
            text.push_str(&format!(" {} {}", seat.letter(), militants(v)));
        }
    }
    if let Some(j) = entry.judgement {
        text.push_str(&format!("; {}, best was {}", j.as_str(), entry.best));
    }
    text
}

/// A record with the analysis as comments: after each move line `{eval R +0.40 ...;
/// mistake, best was G3-F4}` (each seat's value after the move, in militants), and a
/// `;` line naming the engine before the moves. `POST /v1/games/import` reads it back
/// (comments are ignored).
pub fn annotate(record: &str, analysis: &Analysis) -> String {
    let mut out = String::with_capacity(record.len() * 2);
    let mut in_body = false;
    let mut k = 0usize;
    for line in record.lines() {
        out.push_str(line);
        if !in_body && line.trim().is_empty() {
            in_body = true;
            out.push('\n');
            out.push_str(&format!(
                "; engine analysis ({}): each seat's value after the move, in militants; \
                 judgements by what the move lost for its player\n",
                analysis.engine_version
            ));
            continue;
        }
        let is_move = in_body
            && line
                .split_once(". ")
                .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        if is_move && let Some(entry) = analysis.moves.get(k) {
            let after = analysis
                .moves
                .get(k + 1)
                .map(|next| next.before)
                .or(analysis.last)
                .unwrap_or_default();
            out.push_str(&format!(" {{{}}}", comment(&after, entry)));
            k += 1;
        }
        out.push('\n');
    }
    out
}

/// The record of game `id` with its analysis as comments ([`annotate`]), for `viewer`.
pub async fn record(
    ctx: Ctx<'_>,
    id: GameId,
    viewer: Option<UserId>,
    site: String,
) -> Result<(String, i64), AnalysisError> {
    let cache = ctx.cache.clone();
    let engine = engine_version(ctx.config);
    store::run(ctx.pool, move |conn| {
        let state = load_readable(conn, &cache, &id, viewer.as_ref())?;
        let row = store_analyses::find(conn, &id, &engine)?
            .filter(|r| r.status == "done")
            .ok_or_else(|| {
                AnalysisError::NoAnalysis(format!(
                    "game {id} has no finished analysis by the current engine; \
                     POST /v1/games/{id}/analysis asks for one"
                ))
            })?;
        let analysis = read_row(conn, row)?;
        let (_, players) = crate::store::game_lists::summary(conn, &id)?;
        let players = crate::games::record::players_for_record(conn, &state, players)?;
        let text = crate::games::record::text(&state, &players, &site)
            .map_err(|e| AnalysisError::Store(StoreError::Corrupt(e)))?;
        Ok((annotate(&text, &analysis), state.version))
    })
    .await
}

/// The stored form of one analysed move: its number, its seat and texts read in the
/// position it was played in.
pub fn entry(
    ply: u32,
    position: &domain::Position,
    a: &domain::search::analysis::MoveAnalysis,
) -> MoveAnalysis {
    MoveAnalysis {
        ply,
        seat: a.seat.letter().to_string(),
        played: position.move_text(&a.played).to_string(),
        best: position.move_text(&a.best).to_string(),
        best_score: a.best_score,
        played_score: a.played_score,
        loss: a.loss,
        judgement: a.judgement.map(Judgement::of),
        chief_left_en_prise: a.chief_left_en_prise,
        before: SeatValues::from_array(a.before),
        depth: a.depth,
        nodes: a.nodes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_in_militants() {
        assert_eq!(militants(40), "+0.40");
        assert_eq!(militants(-1234), "-12.34");
        assert_eq!(militants(0), "+0.00");
        assert_eq!(militants(-5), "-0.05");
    }
}
