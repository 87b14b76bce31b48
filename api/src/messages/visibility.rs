//! The one rule of who reads which message. Every read path (the list, the game's
//! stream, the notification feed and what it delivers, the record export, the replay
//! page) asks [`may_see`]; nothing else decides it.
//!
//! - a hidden message (the operator's `hide-message`) is seen by no one;
//! - a message whose sender the reader muted is not shown to that reader;
//! - a message to the whole table is seen by everyone who can see the game (players and
//!   spectators);
//! - a private message is seen by its sender and by the accounts that held its recipient
//!   seats when it was sent (stored with it): whoever takes a seat later (the seat was
//!   left, or its holder closed the account) does not read what was said to the one
//!   before, and the one before still does;
//! - once the game is over, with `press: revealed_at_end`, by everyone as well.

use domain::SeatSet;

use crate::model::talk::Press;

/// What the rule reads of a message.
#[derive(Debug, Clone, Copy)]
pub struct MessageMeta<'a> {
    pub sender_id: &'a str,
    /// The recipient seats; empty: the whole table.
    pub recipients: SeatSet,
    /// The accounts that held the recipient seats when the message was sent.
    pub recipient_ids: &'a [&'a str],
    pub hidden: bool,
}

/// Who reads: an account (or nobody signed in) and the accounts it muted. The seats it
/// holds now do not count: a private message is addressed to accounts, not to seats.
#[derive(Debug, Clone, Copy)]
pub struct Viewer<'a> {
    pub user_id: Option<&'a str>,
    pub muted: &'a [String],
}

/// What the rule reads of the game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Table {
    pub finished: bool,
    pub press: Press,
}

/// Whether `viewer` may see the message.
pub fn may_see(msg: &MessageMeta<'_>, viewer: &Viewer<'_>, table: Table) -> bool {
    if msg.hidden || viewer.muted.iter().any(|m| m == msg.sender_id) {
        return false;
    }
    if msg.recipients.is_empty() {
        return true;
    }
    if let Some(user) = viewer.user_id {
        if user == msg.sender_id || msg.recipient_ids.contains(&user) {
            return true;
        }
    }
    table.finished && table.press == Press::RevealedAtEnd
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::Seat;
    use proptest::prelude::*;

    fn seats() -> impl Strategy<Value = SeatSet> {
        (0u8..16).prop_map(|b| {
            Seat::ALL
                .into_iter()
                .filter(|s| b & (1 << *s as u8) != 0)
                .collect()
        })
    }

    proptest! {
        /// The rule against its statement, written out independently for every
        /// combination of message, viewer and table.
        #[test]
        fn the_rule_is_the_documented_matrix(
            recipients in seats(),
            viewer_addressed in any::<bool>(),
            viewer_is_sender in any::<bool>(),
            signed_in in any::<bool>(),
            hidden in any::<bool>(),
            muted_sender in any::<bool>(),
            finished in any::<bool>(),
            revealed in any::<bool>(),
        ) {
            let viewer_id = if viewer_is_sender { "s" } else { "v" };
            let muted = if muted_sender { vec!["s".to_string()] } else { Vec::new() };
            let viewer = Viewer {
                user_id: signed_in.then_some(viewer_id),
                muted: &muted,
            };
            // The accounts of the recipient seats when sent: "v" among them or not.
            let addressed: Vec<&str> = if recipients.is_empty() {
                Vec::new()
            } else if viewer_addressed {
                vec!["w", "v"]
            } else {
                vec!["w"]
            };
            let msg = MessageMeta { sender_id: "s", recipients, recipient_ids: &addressed, hidden };
            let table = Table {
                finished,
                press: if revealed { Press::RevealedAtEnd } else { Press::Private },
            };
            let seen = may_see(&msg, &viewer, table);
            let public = recipients.is_empty();
            let is_addressed = signed_in
                && (viewer_is_sender || (!public && viewer_addressed));
            let expected = !hidden && !muted_sender
                && (public || is_addressed || (finished && revealed));
            prop_assert_eq!(seen, expected);
            // Monotone in the end: what one saw before the end one still sees after it.
            let after_end = Table { finished: true, ..table };
            let still_seen = may_see(&msg, &viewer, after_end);
            if seen && !finished {
                prop_assert!(still_seen);
            }
            // A spectator sees the table's messages, and the private ones only revealed.
            let spectator = Viewer { user_id: None, muted: &[] };
            let spectator_sees = may_see(&msg, &spectator, table);
            prop_assert_eq!(spectator_sees, !hidden && (public || (finished && revealed)));
        }
    }

    #[test]
    fn private_stays_private_for_spectators_unless_revealed() {
        let msg = MessageMeta {
            sender_id: "a",
            recipients: SeatSet::from_letters("B").unwrap(),
            recipient_ids: &["b"],
            hidden: false,
        };
        let spectator = Viewer {
            user_id: None,
            muted: &[],
        };
        let private = Table {
            finished: true,
            press: Press::Private,
        };
        let revealed = Table {
            finished: true,
            press: Press::RevealedAtEnd,
        };
        assert!(!may_see(&msg, &spectator, private));
        assert!(may_see(&msg, &spectator, revealed));
        assert!(!may_see(
            &msg,
            &spectator,
            Table {
                finished: false,
                ..revealed
            }
        ));
    }
}
