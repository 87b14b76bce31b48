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

use crate::ids::{MessageId, UserId};
use crate::model::events::Status;
use crate::model::game_state::GameState;
use crate::store::messages::MessageRow;
use visibility::{MessageMeta, Table, Viewer};

pub use crate::store::messages::MessageRow as Message;

/// The longest message, in characters.
pub const MAX_TEXT_CHARS: usize = 1000;

/// The seats `user` holds in the game.
pub fn seats_of(state: &GameState, user: Option<&UserId>) -> SeatSet {
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

/// What a private message stores of its addressees: the accounts holding the
/// `recipients` seats now (`holder`), in seat order, once each, space separated. Empty
/// for a message to the table (everyone reads it).
pub fn recipient_ids_at<'a>(
    recipients: SeatSet,
    holder: impl Fn(Seat) -> Option<&'a str>,
) -> String {
    let mut ids: Vec<&str> = Vec::new();
    for seat in recipients.iter() {
        if let Some(id) = holder(seat).filter(|id| !ids.contains(id)) {
            ids.push(id);
        }
    }
    ids.join(" ")
}

/// The addressees a stored message names (see [`recipient_ids_at`]).
pub fn recipient_ids_of(row: &MessageRow) -> Vec<&str> {
    row.recipient_ids.split_ascii_whitespace().collect()
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
            sender_id: row.sender_id.as_str(),
            recipients: recipients_of(row),
            recipient_ids: &recipient_ids_of(row),
            hidden: row.hidden_at.is_some(),
        },
        &Viewer {
            user_id: user,
            muted,
        },
        table_of(state),
    )
}

/// The id of the `message` notification of a message for one user.
pub fn notification_id(message_id: &MessageId, user: &UserId) -> String {
    crate::notifications::stable_id(&["message", message_id.as_str(), user.as_str()])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::talk::Press;
    use proptest::prelude::*;

    /// What may happen at the table after a message is sent.
    #[derive(Debug, Clone)]
    enum Change {
        /// The seat's holder leaves it (only before the start).
        Leave(usize),
        /// An account takes a free seat (only before the start).
        Take(usize, usize),
        /// The last seat is taken: the game starts.
        Start,
        /// The seat's holder resigns (only once started): the seat stays theirs.
        Resign(usize),
        /// An account is closed: it leaves its seats before the start, resigns them
        /// after, and never reads again.
        Close(usize),
    }

    fn change() -> impl Strategy<Value = Change> {
        prop_oneof![
            (0usize..4).prop_map(Change::Leave),
            (0usize..4, 0usize..USERS).prop_map(|(s, u)| Change::Take(s, u)),
            Just(Change::Start),
            (0usize..4).prop_map(Change::Resign),
            (0usize..USERS).prop_map(Change::Close),
        ]
    }

    const USERS: usize = 6;
    const IDS: [&str; USERS] = ["u0", "u1", "u2", "u3", "u4", "u5"];

    proptest! {
        /// Whoever holds which seat after a private message was sent (seats left and
        /// taken, resignations, closed accounts), each account reads it exactly when it
        /// sent it or held one of its recipient seats at the sending.
        #[test]
        fn a_private_message_stays_with_the_holders_at_its_sending(
            holders in proptest::array::uniform4(proptest::option::of(0usize..USERS)),
            sender_seat in 0usize..4,
            recipient_bits in 1u8..16,
            changes in proptest::collection::vec(change(), 0..12),
            finished in any::<bool>(),
            revealed in any::<bool>(),
        ) {
            // One account holds one seat: later seats of a repeated holder stay empty.
            let mut holders = holders;
            for i in 0..4 {
                if holders[..i].contains(&holders[i]) {
                    holders[i] = None;
                }
            }
            let Some(sender) = holders[sender_seat] else { return Ok(()) };
            let recipients: SeatSet = Seat::ALL
                .into_iter()
                .filter(|s| recipient_bits & (1 << s.index()) != 0 && s.index() != sender_seat)
                .filter(|s| holders[s.index()].is_some())
                .collect();
            prop_assume!(!recipients.is_empty());
            let stored = recipient_ids_at(recipients, |s| holders[s.index()].map(|u| IDS[u]));
            let at_sending = holders;

            let mut now = holders;
            let mut closed = [false; USERS];
            let mut started = false;
            let mut resigned = [false; 4];
            for c in &changes {
                match *c {
                    Change::Leave(s) if !started => now[s] = None,
                    Change::Take(s, u)
                        if !started && now[s].is_none() && !closed[u] && !now.contains(&Some(u)) =>
                    {
                        now[s] = Some(u)
                    }
                    Change::Start => started = true,
                    Change::Resign(s) if started && now[s].is_some() => resigned[s] = true,
                    Change::Close(u) => {
                        closed[u] = true;
                        for (s, h) in now.iter_mut().enumerate().filter(|(_, h)| **h == Some(u)) {
                            if started {
                                resigned[s] = true;
                            } else {
                                *h = None;
                            }
                        }
                    }
                    _ => {}
                }
            }
            // A resigned seat stays its holder's: nobody else can hold it.
            for s in 0..4 {
                prop_assert!(!resigned[s] || now[s].is_some());
            }
            let row = MessageRow {
                id: "m".into(),
                game_id: crate::ids::GameId::new("g"),
                seq: 1,
                sender_id: IDS[sender].into(),
                sender_seat: Seat::ALL[sender_seat].to_string(),
                recipients: recipients.to_string(),
                body: "psst".into(),
                game_version: 1,
                created_at: chrono::NaiveDateTime::default(),
                hidden_at: None,
                recipient_ids: stored,
            };
            let table = Table {
                finished,
                press: if revealed { Press::RevealedAtEnd } else { Press::Private },
            };
            for (u, id) in IDS.iter().enumerate() {
                if closed[u] {
                    continue; // a closed account signs in no more
                }
                let seen = visibility::may_see(
                    &MessageMeta {
                        sender_id: row.sender_id.as_str(),
                        recipients: recipients_of(&row),
                        recipient_ids: &recipient_ids_of(&row),
                        hidden: false,
                    },
                    &Viewer { user_id: Some(id), muted: &[] },
                    table,
                );
                let held_then = recipients.iter().any(|s| at_sending[s.index()] == Some(u));
                let expected = u == sender || held_then || (finished && revealed);
                prop_assert_eq!(seen, expected, "{} (now {:?}, then {:?})", id, now, at_sending);
            }
        }
    }
}
