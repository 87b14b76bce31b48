//! `GET /v1/games/{id}/messages`: the messages the reader may see ([`super::visible_to`]),
//! oldest first, paged by sequence number (`?after=<seq>`).

use std::sync::Arc;

use super::{MessageError, visible_to};
use crate::games::Ctx;
use crate::ids::{GameId, UserId};
use crate::model::game_state::GameState;
use crate::store::messages::{self as store_messages, MessageRow};
use crate::store::{self, DbConnection, StoreError, games as game_store};

/// A page: the visible messages (at most the limit), the cursor of the next page, and
/// the game's state they were judged on (the views name seats and players from it).
#[derive(Debug, Clone)]
pub struct MessagePage {
    pub items: Vec<MessageRow>,
    pub next_after: Option<i64>,
    pub state: Arc<GameState>,
}

/// The messages of a game after `after` that `reader` may see, at most `limit`.
pub async fn list(
    ctx: Ctx<'_>,
    game_id: GameId,
    reader: Option<UserId>,
    after: i64,
    limit: u32,
) -> Result<MessagePage, MessageError> {
    let cache = ctx.cache.clone();
    store::run(ctx.pool, move |conn| {
        let state = game_store::current_state(conn, &cache, &game_id)?;
        let (items, next_after) =
            visible_after(conn, &state, reader.as_ref(), after, i64::from(limit))?;
        Ok(MessagePage {
            items,
            next_after,
            state,
        })
    })
    .await
}

/// Every message of the game the reader may see (the record export, the replay page).
pub async fn all_visible(
    ctx: Ctx<'_>,
    game_id: GameId,
    reader: Option<UserId>,
) -> Result<Vec<MessageRow>, MessageError> {
    let cache = ctx.cache.clone();
    store::run(ctx.pool, move |conn| {
        let state = game_store::current_state(conn, &cache, &game_id)?;
        let mut out = Vec::new();
        let mut after = 0;
        loop {
            let (mut items, next) = visible_after(conn, &state, reader.as_ref(), after, 500)?;
            out.append(&mut items);
            match next {
                Some(n) => after = n,
                None => return Ok(out),
            }
        }
    })
    .await
}

/// The visible messages after `after` (at most `limit`) and the next cursor.
pub fn visible_after(
    conn: &mut DbConnection,
    state: &GameState,
    reader: Option<&UserId>,
    mut after: i64,
    limit: i64,
) -> Result<(Vec<MessageRow>, Option<i64>), StoreError> {
    let muted = match reader {
        Some(u) => store_messages::muted_by(conn, u)?,
        None => Vec::new(),
    };
    let batch = 200;
    let mut items = Vec::new();
    loop {
        let rows = store_messages::after(conn, &state.id, after, batch)?;
        let exhausted = (rows.len() as i64) < batch;
        for row in rows {
            after = row.seq;
            if visible_to(state, reader.map(UserId::as_str), &muted, &row) {
                if items.len() as i64 == limit {
                    // One more visible message exists: the page ends at the last one kept.
                    let next = items.last().map(|r: &MessageRow| r.seq);
                    return Ok((items, next));
                }
                items.push(row);
            }
        }
        if exhausted {
            return Ok((items, None));
        }
    }
}
