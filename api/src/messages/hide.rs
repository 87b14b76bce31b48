//! The operator's `djambi-server hide-message <id>`: the message is hidden from every
//! read path (the rule of [`super::visibility`] sees no hidden message), and its text is
//! taken out of the notifications that carried it.

use chrono::NaiveDateTime;
use domain::Seat;

use super::{MessageError, notification_id};
use crate::store::cache::GameCache;
use crate::store::{self, DbConnection, games as game_store, messages as store_messages};

/// Hides message `id`; `MessageError::MessageNotFound` when there is none.
pub fn hide(
    conn: &mut DbConnection,
    cache: &GameCache,
    id: &str,
    now: NaiveDateTime,
) -> Result<(), MessageError> {
    let msg = store_messages::find(conn, id)?
        .ok_or_else(|| MessageError::MessageNotFound(id.chars().take(64).collect()))?;
    let state = game_store::current_state(conn, cache, &msg.game_id)?;
    let ids: Vec<String> = Seat::ALL
        .into_iter()
        .filter_map(|s| state.player(s))
        .map(|u| notification_id(&msg.id, u))
        .collect();
    store::transaction(conn, |conn| {
        store_messages::hide(conn, id, now, &ids).map(|_| ())
    })?;
    Ok(())
}

/// The command line's `hide-message <id>`: opens the configured database, hides the
/// message, and says what it did on `out`.
pub fn hide_command(
    config: &crate::config::Config,
    id: &str,
    clock: &dyn crate::clock::Clock,
    out: &mut impl std::io::Write,
) -> Result<(), String> {
    let pool = store::build_pool(&config.database).map_err(|e| e.to_string())?;
    store::run_migrations(&pool).map_err(|e| e.to_string())?;
    let mut conn = store::checkout(&pool).map_err(|e| e.to_string())?;
    hide(&mut conn, &GameCache::new(4), id, clock.now()).map_err(|e| e.to_string())?;
    writeln!(out, "message {id} hidden").map_err(|e| e.to_string())
}
