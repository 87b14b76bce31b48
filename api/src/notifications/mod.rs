//! Notifications: what the players of a game are told, written to an outbox (the
//! `notifications` table) in the same transaction as the events that cause them.
//!
//! [`plan`] is pure: from what a write did ([`Written`]) it decides the rows. The command
//! layer ([`crate::games::commands::execute`]) inserts them with the events, on both paths:
//! in the transaction of the normal path ([`enqueue`]), and inside the one statement of
//! the PostgreSQL fast path (a further `INSERT` in its CTE, see
//! [`crate::store::games::append_in_one_statement`]). So a notification exists if and
//! only if its events were committed.
//!
//! | kind | to | payload (besides `game_id`, `version`) |
//! |---|---|---|
//! | `game_started` | every player | |
//! | `your_turn` | the player to move (unless it acted itself), when the turn or its deadline changed | `seat`, `deadline` |
//! | `draw_offered` | the other active seats' players | `seat` (who offered) |
//! | `timeout` | every player | `seat` (who timed out) |
//! | `chief_killed` | the player whose party's chief died | `party`, `square` |
//! | `seat_eliminated` | the eliminated seat's player (unless it resigned) | `seat` |
//! | `game_ended` | every player | `result` |
//! | `message` | the recipients of a table-talk message but its sender and who muted it (written by [`crate::messages::send`]) | `message_id`, `seq`, `seat` (the sender's), `to` (seats, `null`: the table), `text` |
//! | `conditional_played` | a seat's player whose stored conditional answer the server played (written by [`crate::games::conditional`]) | `seat`, `move` |
//! | `conditional_discarded` | a seat's player whose conditional moves no line matched any more | `seat`, `because` (e.g. `Blue played G8-E6`) |
//! | `webhook_disabled` | the endpoint's owner (written by [`delivery`]) | `webhook_id`, `url`, `reason` |
//! | `tournament_started`, `tournament_round`, `tournament_finished`, `tournament_cancelled` | an event's entrants (written by [`crate::tournaments::notify`], which lists them) | `tournament_id`, `name`, … |
//!
//! Ids are stable: derived from the game, the version, the kind, the user and a counter,
//! so a receiver de-duplicates deliveries by id. The in-app feed and its Server-Sent
//! Events stream read this table ([`feed`]); every instance reads the same rows, so a
//! stream on one instance shows what another wrote. The [`delivery`] worker sends them
//! on to webhooks and e-mail, as each user's [`settings`] ask.

pub mod config;
pub mod delivery;
pub mod email;
mod error;
pub mod feed;
pub mod push;
pub mod settings;
pub mod unsubscribe;
pub mod vacation;
pub mod webhook_endpoints;
pub mod webhooks;

pub use error::NotificationError;

use chrono::NaiveDateTime;
use domain::{Effect, Kind, Seat, Step};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::clock::Clock;
use crate::ids::{GameId, UserId};
use crate::model::events::{Event, Status};
use crate::model::game_state::GameState;
use crate::store::DbPool;
use crate::store::outbox::NotificationRow;

/// What the use cases of notifications need: the store, the clock, the settings, and the
/// key that signs unsubscribe links. Built by `AppState::notifications`.
#[derive(Debug, Clone, Copy)]
pub struct Notifications<'a> {
    pub pool: &'a DbPool,
    pub clock: &'a dyn Clock,
    pub config: &'a config::NotifyConfig,
    /// The server's signing secret (unsubscribe tokens are keyed by it).
    pub signing_secret: &'a str,
}

/// Every kind of notification.
pub const KINDS: [&str; 15] = [
    "your_turn",
    "reminder",
    "timeout",
    "chief_killed",
    "seat_eliminated",
    "game_started",
    "game_ended",
    "draw_offered",
    "message",
    "conditional_played",
    "conditional_discarded",
    "tournament_started",
    "tournament_round",
    "tournament_finished",
    "tournament_cancelled",
];

/// A stable id: the same inputs always give the same id, formatted like a UUID.
pub fn stable_id(parts: &[&str]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p.as_bytes());
        h.update([0u8]);
    }
    let x = hex::encode(&h.finalize()[..16]);
    format!(
        "{}-{}-{}-{}-{}",
        &x[0..8],
        &x[8..12],
        &x[12..16],
        &x[16..20],
        &x[20..32]
    )
}

struct Planner<'a> {
    game_id: &'a GameId,
    version: i64,
    at: NaiveDateTime,
    rows: Vec<NotificationRow>,
}

impl Planner<'_> {
    fn add(&mut self, user: &UserId, kind: &str, mut payload: Value) {
        let n = self
            .rows
            .iter()
            .filter(|r| r.user_id == user && r.kind == kind)
            .count()
            .to_string();
        if let Value::Object(m) = &mut payload {
            m.insert("game_id".into(), json!(self.game_id));
            m.insert("version".into(), json!(self.version));
        }
        let version = self.version.to_string();
        self.rows.push(NotificationRow {
            id: stable_id(&[self.game_id.as_str(), &version, kind, user.as_str(), &n]),
            user_id: user.clone(),
            kind: kind.to_string(),
            game_id: Some(self.game_id.clone()),
            version: Some(self.version),
            payload: payload.to_string(),
            created_at: self.at,
            read_at: None,
        });
    }
}

/// What a write wrote, as [`plan`] reads it: the state after, the new events and the
/// rules engine's steps of the action events.
#[derive(Debug, Clone, Copy)]
pub struct Wrote<'a> {
    /// The state before the write (`None` for a new game).
    pub before: Option<&'a GameState>,
    pub state: &'a GameState,
    /// The effective deadline of the turn after (the player's vacations counted); `None`:
    /// the state's.
    pub deadline: Option<NaiveDateTime>,
    pub events: &'a [Event],
    pub steps: &'a [Step],
}

/// The notifications a write causes (see the module documentation). `actor` is the
/// acting account (`None` for the server).
pub fn plan(written: Wrote<'_>, actor: Option<&UserId>) -> Vec<NotificationRow> {
    let state = written.state;
    let mut p = Planner {
        game_id: &state.id,
        version: state.version,
        at: state.updated_at,
        rows: Vec::new(),
    };
    let players: Vec<(Seat, &UserId)> = Seat::ALL
        .into_iter()
        .filter_map(|s| state.player(s).map(|u| (s, u)))
        .collect();
    let mut turn_passed = false;
    for event in written.events {
        match event {
            Event::Started {} => {
                turn_passed = true;
                for (_, u) in &players {
                    p.add(u, "game_started", json!({}));
                }
            }
            Event::MovePlayed { .. } | Event::Resigned { .. } => turn_passed = true,
            Event::TimedOut { seat } => {
                turn_passed = true;
                for (_, u) in &players {
                    p.add(u, "timeout", json!({"seat": seat}));
                }
            }
            Event::DrawOffered { seat } => {
                let active = state.game.position().active_seats();
                for (s, u) in &players {
                    if s != seat && active.contains(*s) {
                        p.add(u, "draw_offered", json!({"seat": seat}));
                    }
                }
            }
            Event::Ended { result } => {
                for (_, u) in &players {
                    p.add(u, "game_ended", json!({"result": result}));
                }
            }
            _ => {}
        }
    }
    for step in written.steps {
        for effect in &step.effects {
            match effect {
                Effect::Killed { piece, square } | Effect::Surrounded { piece, square }
                    if piece.kind == Kind::Chief =>
                {
                    if let Some(u) = state.player(piece.party) {
                        p.add(
                            u,
                            "chief_killed",
                            json!({"party": piece.party, "square": square.to_string()}),
                        );
                    }
                }
                Effect::Eliminated { seat } => {
                    let resigned = written
                        .events
                        .iter()
                        .any(|e| matches!(e, Event::Resigned { seat: s } if s == seat));
                    if let Some(u) = state.player(*seat).filter(|_| !resigned) {
                        p.add(u, "seat_eliminated", json!({"seat": seat}));
                    }
                }
                _ => {}
            }
        }
    }
    // `your_turn` only when the turn or its deadline really changed: a seat that is not
    // to move resigning (or timing out) leaves the seat to move and its deadline as they
    // were, and tells it nothing new.
    let moved = written
        .events
        .iter()
        .any(|e| matches!(e, Event::MovePlayed { .. } | Event::Started {}));
    let turn_changed = moved
        || written.before.is_none_or(|b| {
            b.status != Status::Active
                || b.to_move() != state.to_move()
                || b.deadline() != state.deadline()
        });
    if turn_passed && turn_changed && state.status == Status::Active {
        if let (Some(seat), Some(u)) = (state.to_move(), state.to_move_user()) {
            if Some(u) != actor {
                add_turn(&mut p, state, seat, u, written.deadline);
            }
        }
    }
    p.rows
}

/// The `your_turn` row of a write's plan.
fn add_turn(
    p: &mut Planner<'_>,
    state: &GameState,
    seat: Seat,
    user: &UserId,
    deadline: Option<NaiveDateTime>,
) {
    let deadline = deadline.or_else(|| state.deadline()).map(|d| d.and_utc());
    p.add(
        user,
        "your_turn",
        json!({"seat": seat, "deadline": deadline}),
    );
}

/// The `your_turn` that [`plan`] gives the seat to move of `state` (the same id and
/// payload), for a writer that held it back: the write that hands the turn to a seat
/// with conditional moves sends none, and the conditional pass sends it when no answer
/// is played ([`crate::games::conditional`]). `None` when nobody is to move.
pub fn turn_notice(state: &GameState, deadline: Option<NaiveDateTime>) -> Option<NotificationRow> {
    let (Some(seat), Some(user)) = (state.to_move(), state.to_move_user()) else {
        return None;
    };
    if state.status != Status::Active {
        return None;
    }
    let mut p = Planner {
        game_id: &state.id,
        version: state.version,
        at: state.updated_at,
        rows: Vec::new(),
    };
    add_turn(&mut p, state, seat, user, deadline);
    p.rows.pop()
}
