//! The engine's analyses of games, worked on in the background (issue 37; the use cases
//! are `crate::analysis`, the analysis itself the rules crate's `search::analysis`).
//!
//! Queued analyses are rows of `game_analyses` with a due time; every instance claims
//! them like the other queues (a lease renewed while it works, so a crashed instance's
//! analyses are taken over within one lease), up to `DJAMBI_ANALYSIS_CONCURRENCY` at once.
//! Each move is one job on the computer players' threads ([`BotPool::run_idle`]): after
//! every search of a game with people and every game of bots alone, never on a request
//! thread nor on the database's blocking pool, and never on the thread kept for games
//! with people. Each analysed move is stored at once, so an analysis interrupted by a
//! restart goes on where it stopped; a server that stops gives its claims back.
//!
//! At start the worker queues again the games analysed by another engine version (the
//! level or the engine changed): they are analysed by this one, at no one's quota.

use std::sync::Arc;
use std::time::Duration;

use chrono::TimeDelta;
use tokio_util::sync::CancellationToken;

use super::bot_pool::BotPool;
use crate::analysis;
use crate::clock::Clock;
use crate::config::AnalysisConfig;
use crate::model::analysis::SeatValues;
use crate::shutdown::Shutdown;
use crate::store::cache::GameCache;
use crate::store::games as game_store;
use crate::store::{self, DbPool, StoreError, analyses};

/// What the analysis worker needs.
#[derive(Debug, Clone)]
pub struct AnalysisWork {
    pub pool: DbPool,
    pub clock: Arc<dyn Clock>,
    pub games: Arc<GameCache>,
    /// Where the analyses search (the computer players' threads).
    pub searches: Arc<BotPool>,
    pub config: AnalysisConfig,
    /// How long a claim is held (`DJAMBI_DUE_LEASE`), renewed while it is worked on.
    pub lease: Duration,
    /// How often the queue is looked at (`DJAMBI_DUE_INTERVAL`).
    pub every: Duration,
}

/// Games queued again at start per statement.
const REQUEUE_BATCH: i64 = 500;

fn lease_of(work: &AnalysisWork) -> TimeDelta {
    TimeDelta::from_std(work.lease).unwrap_or(TimeDelta::seconds(6))
}

/// Why an analysis stopped before its end.
enum Stop {
    /// The server stops: the claim is given back.
    Shutdown,
    /// The game does not replay: the analysis fails for good.
    Broken(String),
    /// The database failed: the claim runs out and the analysis is taken up again.
    Store(StoreError),
}

impl From<StoreError> for Stop {
    fn from(e: StoreError) -> Self {
        Stop::Store(e)
    }
}

impl From<store::RunError> for Stop {
    fn from(e: store::RunError) -> Self {
        Stop::Store(e.into())
    }
}

/// Analyses the claimed analysis `id` from where it stopped to its end.
async fn analyse(work: &AnalysisWork, id: &str, stop: &CancellationToken) -> Result<(), Stop> {
    let i = id.to_string();
    let Some(row) = store::run(&work.pool, move |conn| analyses::get(conn, &i)).await? else {
        return Ok(());
    };
    let (games, game) = (work.games.clone(), row.game_id.clone());
    let state = store::run(&work.pool, move |conn| {
        game_store::current_state(conn, &games, &game)
    })
    .await?;
    let (settings, actions) = (state.settings, state.actions.clone());
    let budget = work.config.level.budget();
    let replayed = work
        .searches
        .run_idle(move || domain::search::analysis::move_positions(settings, &actions))
        .await
        .ok_or(Stop::Shutdown)?;
    let (moves, last) = replayed.map_err(|e| Stop::Broken(e.to_string()))?;
    let moves = Arc::new(moves);
    for ply in (row.plies_done.max(0) as usize)..moves.len() {
        if stop.is_cancelled() {
            return Err(Stop::Shutdown);
        }
        let m = moves.clone();
        let body = work
            .searches
            .run_idle(move || {
                let (position, mv) = &m[ply];
                domain::search::analysis::analyse_move(position, mv, budget)
                    .map(|a| analysis::entry(ply as u32 + 1, position, &a))
            })
            .await
            .ok_or(Stop::Shutdown)?
            .map_err(|e| Stop::Broken(format!("move {}: {e}", ply + 1)))?;
        let body = serde_json::to_string(&body).map_err(|e| Stop::Broken(e.to_string()))?;
        let (i, until) = (id.to_string(), work.clock.now() + lease_of(work));
        store::run(&work.pool, move |conn| {
            analyses::save_move(conn, &i, ply as i32 + 1, &body, until)
        })
        .await?;
    }
    let values = work
        .searches
        .run_idle(move || domain::search::analysis::evaluate_seats(&last, budget))
        .await
        .ok_or(Stop::Shutdown)?;
    let values = serde_json::to_string(&SeatValues::from_array(values))
        .map_err(|e| Stop::Broken(e.to_string()))?;
    let (i, now) = (id.to_string(), work.clock.now());
    store::run(&work.pool, move |conn| {
        analyses::finish(conn, &i, &values, now)
    })
    .await?;
    tracing::info!(analysis = %id, game = %row.game_id, "analysis done");
    Ok(())
}

/// Works on one claimed analysis, renewing its lease meanwhile.
async fn work_on(work: AnalysisWork, id: String, stop: CancellationToken) {
    let lease = lease_of(&work);
    let renewing = {
        let (w, i) = (work.clone(), id.clone());
        tokio::spawn(async move {
            let every = (w.lease / 3).max(Duration::from_millis(100));
            loop {
                tokio::time::sleep(every).await;
                let (i2, until) = (i.clone(), w.clock.now() + lease);
                let renewed =
                    store::run(&w.pool, move |conn| analyses::renew(conn, &i2, until)).await;
                if !matches!(renewed, Ok(true)) {
                    tracing::warn!(analysis = %i, "the lease of an analysis was lost");
                    return;
                }
            }
        })
    };
    let result = analyse(&work, &id, &stop).await;
    renewing.abort();
    let i = id.clone();
    let now = work.clock.now();
    let after = match result {
        Ok(()) => return,
        Err(Stop::Shutdown) => {
            store::run(&work.pool, move |conn| analyses::release(conn, &i)).await
        }
        Err(Stop::Broken(why)) => {
            tracing::error!(analysis = %id, error = %why, "analysis failed");
            store::run(&work.pool, move |conn| analyses::fail(conn, &i, &why, now)).await
        }
        Err(Stop::Store(e)) => {
            tracing::warn!(analysis = %id, error = %e, "analysis interrupted");
            return;
        }
    };
    if let Err(e) = after {
        tracing::warn!(analysis = %id, error = %e, "analysis state not saved");
    }
}

/// Starts the worker (see the module documentation).
pub fn spawn(work: AnalysisWork, shutdown: &Shutdown) {
    let stop = shutdown.token();
    shutdown.spawn("analysis", async move {
        let engine = analysis::engine_version(&work.config);
        loop {
            let (e, now) = (engine.clone(), work.clock.now());
            let queued = store::run(&work.pool, move |conn| {
                analyses::requeue_stale(conn, &e, now, REQUEUE_BATCH, &mut || {
                    uuid::Uuid::new_v4().to_string()
                })
            })
            .await;
            match queued {
                Ok(n) if n as i64 == REQUEUE_BATCH => continue,
                Ok(0) => break,
                Ok(n) => {
                    tracing::info!(count = n, engine = %engine, "games queued for analysis again");
                    break;
                }
                Err(e) => {
                    tracing::warn!(error = %e, "queueing stale analyses failed");
                    break;
                }
            }
        }
        let slots = Arc::new(tokio::sync::Semaphore::new(work.config.concurrency.max(1)));
        let lease = lease_of(&work);
        while !stop.is_cancelled() {
            let free = slots.available_permits();
            if free > 0 {
                let now = work.clock.now();
                let claimed = store::run(&work.pool, move |conn| {
                    analyses::claim(conn, now, now + lease, free as i64)
                })
                .await
                .unwrap_or_else(|e| {
                    tracing::warn!(error = %e, "claiming analyses failed");
                    Vec::new()
                });
                for id in claimed {
                    let Ok(permit) = slots.clone().acquire_owned().await else {
                        return;
                    };
                    let (w, s) = (work.clone(), stop.clone());
                    tokio::spawn(async move {
                        work_on(w, id, s).await;
                        drop(permit);
                    });
                }
            }
            let wait = std::pin::pin!(tokio::time::sleep(
                work.every.max(Duration::from_millis(50))
            ));
            let stopped = std::pin::pin!(stop.cancelled());
            let queued = std::pin::pin!(analysis::QUEUED.notified());
            futures_util::future::select(stopped, futures_util::future::select(wait, queued)).await;
        }
    });
}
