//! The operator's `djambi-server hide-message <id>`: the message is hidden from every
//! read path (the rule of [`super::visibility`] sees no hidden message), and its text is
//! taken out of the notifications that carried it.

use chrono::NaiveDateTime;

use super::MessageError;
use crate::ids::MessageId;
use crate::store::{self, DbConnection, messages as store_messages};

/// Hides message `id`; `MessageError::MessageNotFound` when there is none. The text
/// leaves every `message` notification of it, whoever holds the seats now: those of
/// players who left the game since keep no copy either, and deliveries still queued
/// (webhooks, mail, push) read the notification when they go, so they carry no text.
pub fn hide(
    conn: &mut DbConnection,
    id: &MessageId,
    now: NaiveDateTime,
) -> Result<(), MessageError> {
    let hidden = store::transaction(conn, |conn| store_messages::hide(conn, id, now))?;
    if !hidden {
        return Err(MessageError::MessageNotFound(
            id.as_str().chars().take(64).collect(),
        ));
    }
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
    hide(&mut conn, &MessageId::new(id), clock.now()).map_err(|e| e.to_string())?;
    writeln!(out, "message {id} hidden").map_err(|e| e.to_string())
}
