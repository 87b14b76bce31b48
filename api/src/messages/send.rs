//! `POST /v1/games/{id}/messages`: a player says something to the table or to some seats.
//!
//! Load the game, decide (pure: [`check`]), then in one transaction: the rate limits
//! (counted in the store, so every instance counts the same), the next sequence number,
//! the message and one `message` notification per recipient (the players of the
//! recipient seats, or of every seat; never the sender, never someone who muted the
//! sender). Writers of one game take turns (`store::messages::lock_game_talk`); a
//! transient failure is retried.

use chrono::TimeDelta;
use domain::{Seat, SeatSet};
use serde_json::{Value, json};

use super::{MAX_TEXT_CHARS, MessageError, notification_id, recipient_ids_at, seats_of};
use crate::games::Ctx;
use crate::games::player_command::IdempotencyKey;
use crate::ids::{GameId, MessageId, UserId};
use crate::model::events::Status;
use crate::model::game_state::GameState;
use crate::store::idempotency::{self, Lookup};
use crate::store::messages::{self as store_messages, MessageRow};
use crate::store::outbox::NotificationRow;
use crate::store::{self, StoreError, games as game_store};

/// The window of the rate limits.
pub const RATE_WINDOW: TimeDelta = TimeDelta::minutes(1);
/// The most messages one player sends per [`RATE_WINDOW`] (all games together).
pub const MAX_PER_PLAYER: i64 = 20;
/// The most messages a game gets per [`RATE_WINDOW`].
pub const MAX_PER_GAME: i64 = 60;

/// A message to send: its text and the recipient seats as given (`None`: the table).
#[derive(Debug, Clone)]
pub struct NewMessage {
    pub text: String,
    pub to: Option<Vec<String>>,
}

/// The checked message: the sender's seat, the recipients (empty: the table), the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    pub sender_seat: Seat,
    pub recipients: SeatSet,
    pub text: String,
}

/// Decides whether `user` may send `new` in this game (pure).
pub fn check(state: &GameState, user: &UserId, new: &NewMessage) -> Result<Checked, MessageError> {
    let mine = seats_of(state, Some(user));
    let Some(sender_seat) = mine.iter().next() else {
        return Err(MessageError::Forbidden(
            "only the game's players may write at its table; spectators read".into(),
        ));
    };
    if state.status == Status::Finished {
        return Err(MessageError::GameOver);
    }
    if state.status == Status::Active && !state.talk.eliminated_may_write {
        let active = state.game.position().active_seats();
        if !mine.iter().any(|s| active.contains(s)) {
            return Err(MessageError::Forbidden(
                "you are out of this game: in this game, players out of it read but do not write"
                    .into(),
            ));
        }
    }
    let text = new.text.trim();
    if text.is_empty() {
        return Err(MessageError::field("text", "must not be empty"));
    }
    if text.chars().count() > MAX_TEXT_CHARS {
        return Err(MessageError::field(
            "text",
            format!("at most {MAX_TEXT_CHARS} characters"),
        ));
    }
    if text
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return Err(MessageError::field(
            "text",
            "plain text: no control characters but line breaks and tabs",
        ));
    }
    let mut recipients = SeatSet::EMPTY;
    if let Some(to) = &new.to {
        if to.is_empty() {
            return Err(MessageError::field(
                "to",
                "name at least one seat, or leave `to` out to write to the whole table",
            ));
        }
        for raw in to {
            let shown: String = raw.chars().take(8).filter(|c| !c.is_control()).collect();
            let seat: Seat = raw.parse().map_err(|_| {
                MessageError::field(
                    "to",
                    format!("unknown seat {shown:?}: seats are R, B, Y, G"),
                )
            })?;
            if !state.settings.seats.contains(seat) {
                return Err(MessageError::field(
                    "to",
                    format!("seat {seat} is not in this game"),
                ));
            }
            if mine.contains(seat) {
                return Err(MessageError::field(
                    "to",
                    format!("seat {seat} is your own"),
                ));
            }
            if state.player(seat).is_none() {
                return Err(MessageError::field(
                    "to",
                    format!("seat {seat} has no player to read it"),
                ));
            }
            if recipients.contains(seat) {
                return Err(MessageError::field(
                    "to",
                    format!("seat {seat} is named twice"),
                ));
            }
            recipients.insert(seat);
        }
    }
    Ok(Checked {
        sender_seat,
        recipients,
        text: text.to_string(),
    })
}

/// How a send is answered: the stored message rendered by the caller (a pure function,
/// so the answer stored under an `Idempotency-Key` is the one a retry gets).
pub type Render = fn(&MessageRow) -> Value;

/// A send's answer: the rendered message, and whether it is the answer of an earlier
/// request with the same `Idempotency-Key` (nothing was written this time).
#[derive(Debug, Clone)]
pub struct Sent {
    pub answer: Value,
    pub replayed: bool,
}

/// Sends a message; answers it as stored, rendered by `render`. With an
/// `Idempotency-Key`, the same request again gets the first answer (nothing is
/// written), and the key with another request is refused; the lookup and the storing
/// of the answer are in the message's transaction, after the game's talk lock.
pub async fn send(
    ctx: Ctx<'_>,
    game_id: GameId,
    user: UserId,
    new: NewMessage,
    key: Option<IdempotencyKey>,
    render: Render,
) -> Result<Sent, MessageError> {
    let cache = ctx.cache.clone();
    let now = ctx.clock.now();
    store::run(ctx.pool, move |conn| {
        let state = game_store::current_state(conn, &cache, &game_id)?;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let written = store::transaction(conn, |conn| -> Result<Sent, MessageError> {
                store_messages::lock_game_talk(conn, &game_id)?;
                if let Some(key) = &key {
                    match idempotency::lookup(conn, &user, &key.key, &key.request_hash)? {
                        Lookup::New => {}
                        Lookup::Replay(answer) => {
                            return Ok(Sent {
                                answer,
                                replayed: true,
                            });
                        }
                        Lookup::Reused => {
                            return Err(MessageError::IdempotencyKeyReused(key.key.clone()));
                        }
                    }
                }
                let checked = check(&state, &user, &new)?;
                let (in_game, by_sender) =
                    store_messages::sent_since(conn, &game_id, &user, now - RATE_WINDOW)?;
                if in_game >= MAX_PER_GAME || by_sender >= MAX_PER_PLAYER {
                    return Err(MessageError::RateLimited {
                        retry_after_secs: RATE_WINDOW.num_seconds() as u64,
                    });
                }
                let row = MessageRow {
                    id: MessageId::new(uuid::Uuid::now_v7().to_string()),
                    game_id: game_id.clone(),
                    seq: store_messages::next_seq(conn, &game_id)?,
                    sender_id: user.clone(),
                    sender_seat: checked.sender_seat.to_string(),
                    recipients: checked.recipients.to_string(),
                    body: checked.text.clone(),
                    game_version: game_store::current_version(conn, &game_id)?,
                    created_at: now,
                    hidden_at: None,
                    // Addressed to the accounts of now: a later holder of the seat
                    // does not read it.
                    recipient_ids: recipient_ids_at(checked.recipients, |s| {
                        state.player(s).map(UserId::as_str)
                    }),
                };
                store_messages::insert(conn, &row)?;
                let readers: Vec<UserId> = Seat::ALL
                    .into_iter()
                    .filter(|s| checked.recipients.is_empty() || checked.recipients.contains(*s))
                    .filter_map(|s| state.player(s))
                    .filter(|u| **u != user)
                    .cloned()
                    .collect::<std::collections::BTreeSet<_>>()
                    .into_iter()
                    .collect();
                let muting = store_messages::muting(conn, &user, &readers)?;
                let rows: Vec<NotificationRow> = readers
                    .iter()
                    .filter(|u| !muting.contains(u))
                    .map(|u| notification(&row, u))
                    .collect();
                store::outbox::enqueue(conn, &rows)?;
                let answer = render(&row);
                if let Some(key) = &key {
                    // A twin request that stored first fails this (`VersionMoved`): the
                    // retry below then finds its answer.
                    idempotency::store(conn, &user, &key.key, &key.request_hash, &answer, now)?;
                }
                Ok(Sent {
                    answer,
                    replayed: false,
                })
            });
            match written {
                Err(MessageError::Store(StoreError::VersionMoved | StoreError::Transient(_)))
                    if attempt < 5 => {}
                other => return other,
            }
        }
    })
    .await
}

/// The `message` notification of `row` for `user`: the feed, webhooks and mail show it.
pub fn notification(row: &MessageRow, user: &UserId) -> NotificationRow {
    let to: Option<Vec<String>> =
        (!row.recipients.is_empty()).then(|| row.recipients.chars().map(String::from).collect());
    NotificationRow {
        id: notification_id(&row.id, user),
        user_id: user.clone(),
        kind: "message".into(),
        game_id: Some(row.game_id.clone()),
        version: Some(row.game_version),
        payload: json!({
            "game_id": row.game_id,
            "version": row.game_version,
            "message_id": row.id,
            "seq": row.seq,
            "seat": row.sender_seat,
            "to": to,
            "text": row.body,
        })
        .to_string(),
        created_at: row.created_at,
        read_at: None,
    }
}
