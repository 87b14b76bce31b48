//! `POST /v1/games/{id}/messages/{mid}/report`: a reader reports a message to the
//! operator. Kept with its context: the message and the (up to) five messages before it
//! that the reporter could see, as they were when reported.

use serde_json::json;

use super::{MessageError, visible_to};
use crate::clock::Clock;
use crate::games::Ctx;
use crate::ids::{GameId, MessageId, UserId};
use crate::store::messages::{self as store_messages, ReportRow};
use crate::store::{self, games as game_store};

/// The longest reason, in characters.
pub const MAX_REASON_CHARS: usize = 500;

/// Reports message `mid` of game `game_id`; answers whether it is a new report (`false`:
/// this reader had reported it already, nothing more is written).
pub async fn report(
    ctx: Ctx<'_>,
    game_id: GameId,
    mid: MessageId,
    reporter: UserId,
    reason: Option<String>,
) -> Result<bool, MessageError> {
    if let Some(r) = &reason {
        if r.chars().count() > MAX_REASON_CHARS {
            return Err(MessageError::field(
                "reason",
                format!("at most {MAX_REASON_CHARS} characters"),
            ));
        }
    }
    let cache = ctx.cache.clone();
    let now = Clock::now(&**ctx.clock);
    store::run(ctx.pool, move |conn| {
        let state = game_store::current_state(conn, &cache, &game_id)?;
        let muted = store_messages::muted_by(conn, &reporter)?;
        let not_found = || MessageError::MessageNotFound(mid.as_str().chars().take(64).collect());
        let msg = store_messages::find(conn, &mid)?
            .filter(|m| m.game_id == game_id)
            .ok_or_else(not_found)?;
        // Muting the sender does not stop one from reporting what one saw before.
        if !visible_to(&state, Some(reporter.as_str()), &[], &msg) {
            return Err(not_found());
        }
        let before = store_messages::after(conn, &game_id, (msg.seq - 50).max(0), 50)?;
        let seen: Vec<_> = before
            .iter()
            .filter(|m| m.seq < msg.seq && visible_to(&state, Some(reporter.as_str()), &muted, m))
            .collect();
        let context: Vec<_> = seen[seen.len().saturating_sub(5)..]
            .iter()
            .copied()
            .chain(std::iter::once(&msg))
            .map(|m| {
                json!({"id": m.id, "seq": m.seq, "seat": m.sender_seat, "sender_id": m.sender_id,
                    "to": m.recipients, "text": m.body, "at": m.created_at.and_utc()})
            })
            .collect();
        let row = ReportRow {
            id: uuid::Uuid::now_v7().to_string(),
            message_id: msg.id.clone(),
            reporter_id: reporter.clone(),
            reason: reason.clone(),
            context:
                json!({"game_id": game_id, "game_version": state.version, "messages": context})
                    .to_string(),
            created_at: now,
        };
        Ok(store_messages::report(conn, &row)?)
    })
    .await
}
