//! Table talk (issue 21): messages between the players of a game, to the whole table or
//! private to some seats, kept per game in their own sequence (`store::messages`), never
//! in the game's event log: a message never makes a move stale.
//!
//! - [`send`]: the checks, the rate limits and the write (the message and its `message`
//!   notifications in one transaction);
//! - [`list`]: the messages a reader may see, cursor paged by sequence number;
//! - [`visibility`]: the one rule every read path calls;
//! - [`mute`], [`report`], [`hide`]: safety (a player's mutes, reports kept for the
//!   operator, the operator's command that hides a message).

mod error;
pub mod hide;
pub mod list;
pub mod mute;
pub mod report;
pub mod send;
pub mod visibility;

pub use error::MessageError;

use domain::{Seat, SeatSet};

use crate::model::events::Status;
use crate::model::game_state::GameState;
use crate::store::messages::MessageRow;
use visibility::{MessageMeta, Table, Viewer};

pub use crate::store::messages::MessageRow as Message;

/// The longest message, in characters.
pub const MAX_TEXT_CHARS: usize = 1000;

/// The seats `user` holds in the game.
pub fn seats_of(state: &GameState, user: Option<&str>) -> SeatSet {
    match user {
        None => SeatSet::EMPTY,
        Some(u) => Seat::ALL
            .into_iter()
            .filter(|s| state.player(*s) == Some(u))
            .collect(),
    }
}

/// What the rule reads of the game.
pub fn table_of(state: &GameState) -> Table {
    Table {
        finished: state.status == Status::Finished,
        press: state.talk.press,
    }
}

/// The recipient seats of a stored message.
pub fn recipients_of(row: &MessageRow) -> SeatSet {
    SeatSet::from_letters(&row.recipients).unwrap_or(SeatSet::EMPTY)
}

/// Whether the reader (`user`, who muted `muted`) may see the stored message.
pub fn visible_to(
    state: &GameState,
    user: Option<&str>,
    muted: &[String],
    row: &MessageRow,
) -> bool {
    visibility::may_see(
        &MessageMeta {
            sender_id: &row.sender_id,
            recipients: recipients_of(row),
            hidden: row.hidden_at.is_some(),
        },
        &Viewer {
            user_id: user,
            seats: seats_of(state, user),
            muted,
        },
        table_of(state),
    )
}

/// The id of the `message` notification of a message for one user.
pub fn notification_id(message_id: &str, user: &str) -> String {
    crate::notifications::stable_id(&["message", message_id, user])
}
