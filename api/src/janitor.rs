//! Background housekeeping, run on the server's own runtime: forgets the answers stored
//! under `Idempotency-Key`s once they are older than the configured retention. It stops
//! when the server shuts down (see `shutdown`), after the purge it is doing, if any.

use std::time::Duration;

use actix_web::web;

use crate::shutdown::Pace;
use crate::state::AppState;
use crate::store;
use crate::store::idempotency;

/// Starts the periodic clean-up; it stops at shutdown.
pub fn spawn(state: web::Data<AppState>) {
    let retention = state.config.idempotency_retention;
    let Ok(retention_delta) = chrono::TimeDelta::from_std(retention) else {
        return;
    };
    // Often enough that nothing outlives its retention by more than half of it.
    let every = (retention / 2).clamp(Duration::from_secs(1), Duration::from_secs(600));
    let shutdown = state.shutdown.clone();
    shutdown.spawn_periodic("janitor", every, move || {
        let state = state.clone();
        async move {
            let cutoff = store::now() - retention_delta;
            let purged = store::run(&state.pool, move |conn| {
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
