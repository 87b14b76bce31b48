//! Counts of the whole site, for the metrics gauges (read at each scrape, so every
//! instance reports the same numbers).

use crate::store::{self, DbPool, StoreError};

/// Games by status, as (status, count).
pub async fn games_by_status(pool: &DbPool) -> Result<Vec<(String, i64)>, StoreError> {
    store::run(pool, store::stats::games_by_status).await
}

/// Whether the database answers (for `/readyz`); the error says why not.
pub async fn database_ready(pool: &DbPool) -> Result<(), store::RunError> {
    store::ping(pool).await
}
