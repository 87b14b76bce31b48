//! Background housekeeping: forgets the answers stored under `Idempotency-Key`s once they
//! are older than the configured retention. It stops when the server shuts down (see
//! `shutdown`), after the purge it is doing, if any.

use std::sync::Arc;
use std::time::Duration;

use crate::clock::Clock;
use crate::shutdown::{Pace, Shutdown};
use crate::store::{self, DbPool, idempotency};

/// What the janitor needs.
#[derive(Debug, Clone)]
pub struct Janitor {
    pub pool: DbPool,
    pub clock: Arc<dyn Clock>,
    /// How long an idempotent answer is kept (`DJAMBI_IDEMPOTENCY_RETENTION`).
    pub retention: Duration,
}

/// Starts the periodic clean-up; it stops at shutdown.
pub fn spawn(janitor: Janitor, shutdown: &Shutdown) {
    let Ok(retention) = chrono::TimeDelta::from_std(janitor.retention) else {
        return;
    };
    // Often enough that nothing outlives its retention by more than half of it.
    let every = (janitor.retention / 2).clamp(Duration::from_secs(1), Duration::from_secs(600));
    shutdown.spawn_periodic("janitor", every, move || {
        let janitor = janitor.clone();
        async move {
            let cutoff = janitor.clock.now() - retention;
            let now = janitor.clock.now();
            let purged = store::run(&janitor.pool, move |conn| {
                let names = store::erasure::purge_held_names(conn, now)?;
                if names > 0 {
                    tracing::info!(purged = names, "held names of closed accounts released");
                }
                idempotency::purge_before(conn, cutoff)
            })
            .await;
            match purged {
                Ok(0) => {}
                Ok(n) => tracing::info!(purged = n, "expired idempotency keys forgotten"),
                Err(e) => tracing::warn!(error = %e, "purging idempotency keys failed"),
            }
            Pace::Rest
        }
    });
}
