//! Counts for the metrics gauges.

use diesel::prelude::*;

use super::schema::games;
use super::{DbConnection, StoreError};

/// Games by status.
pub fn games_by_status(conn: &mut DbConnection) -> Result<Vec<(String, i64)>, StoreError> {
    Ok(games::table
        .group_by(games::status)
        .select((games::status, diesel::dsl::count_star()))
        .load(conn)?)
}
