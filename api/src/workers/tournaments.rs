//! The tournaments' clock: every `DJAMBI_DUE_INTERVAL`, each open or running event is
//! settled ([`crate::tournaments::command::tick`]): a start date reached, a full event,
//! a round's games ended (by a move, a resignation, a timeout: any path), a
//! round-robin round's days up, a crash's unfinished work (a paired round's games not
//! yet created). Every instance runs it; the event log's version claim makes a change
//! happen once.

use std::sync::Arc;
use std::time::Duration;

use crate::clock::Clock;
use crate::shutdown::{Pace, Shutdown};
use crate::store::cache::GameCache;
use crate::store::{self, DbPool};
use crate::tournaments::command::{self, TournamentError};

/// What the tournaments' clock needs.
#[derive(Debug, Clone)]
pub struct TournamentClock {
    pub pool: DbPool,
    pub cache: Arc<GameCache>,
    pub clock: Arc<dyn Clock>,
    pub every: Duration,
}

pub fn spawn(work: TournamentClock, shutdown: &Shutdown) {
    let every = work.every.max(Duration::from_millis(10));
    shutdown.spawn_periodic("tournaments", every, move || {
        let work = work.clone();
        async move {
            let (cache, clock) = (work.cache.clone(), work.clock.clone());
            let done: Result<usize, TournamentError> =
                store::run(&work.pool, move |conn| command::tick(conn, &cache, &*clock)).await;
            if let Err(e) = done {
                tracing::warn!(error = %e, "the tournaments' pass failed");
            }
            Pace::Rest
        }
    });
}
