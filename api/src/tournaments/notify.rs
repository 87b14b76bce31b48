//! What an event's writes tell its players, as rows of the notifications outbox (the
//! feed, webhooks, push and mail read it, like a game's notifications, as each player's
//! settings ask: see `notifications::settings::default_channels`), inserted in the same
//! transaction as the events that cause them. Pure.
//!
//! | kind | to | payload |
//! |---|---|---|
//! | `tournament_started` | every entrant, when the first round is paired | `tournament_id`, `name` |
//! | `tournament_round` | each seated player of a paired round (`game_id`: their game) | `tournament_id`, `name`, `round`, `seat`, `players` (the table's user ids by seat, `null` for none) |
//! | `tournament_finished` | every entrant | `tournament_id`, `name`, `place`, `points`, `players` (how many are in the standings) |
//! | `tournament_cancelled` | every entrant | `tournament_id`, `name`, `reason` |

use chrono::NaiveDateTime;
use serde_json::{Value, json};

use super::log::{Event, Tournament};
use super::scoring::points_text;
use crate::ids::{GameId, UserId};
use crate::notifications::stable_id;
use crate::store::outbox::NotificationRow;

/// The rows for `events`, written on `before` giving `after`.
pub fn plan(
    before: &Tournament,
    after: &Tournament,
    events: &[Event],
    now: NaiveDateTime,
) -> Vec<NotificationRow> {
    let mut rows = Vec::new();
    let version = after.version.to_string();
    let mut add = |user: &str, kind: &str, game_id: Option<&GameId>, payload: Value| {
        rows.push(NotificationRow {
            id: stable_id(&["tournament", after.id.as_str(), &version, kind, user]),
            // The event's players are accounts.
            user_id: UserId::new(user),
            kind: kind.to_string(),
            game_id: game_id.cloned(),
            version: None,
            payload: payload.to_string(),
            created_at: now,
            read_at: None,
        });
    };
    let base = json!({"tournament_id": after.id, "name": after.settings.name});
    let with = |extra: Value| {
        let mut v = base.clone();
        if let (Value::Object(m), Value::Object(e)) = (&mut v, extra) {
            m.extend(e);
        }
        v
    };
    for e in events {
        match e {
            Event::RoundPaired { round, tables, .. } => {
                if before.rounds.is_empty() {
                    for p in &after.entrants {
                        add(&p.player, "tournament_started", None, base.clone());
                    }
                }
                for t in tables {
                    for (k, p) in t.seats.iter().enumerate() {
                        if let Some(p) = p {
                            let seat = domain::Seat::from_index(k).to_string();
                            // The table's players by seat (user ids): the mail names
                            // them before the game has seated them all.
                            let payload = with(json!({
                                "round": round,
                                "seat": seat,
                                "players": t.seats,
                            }));
                            add(p, "tournament_round", Some(&t.game_id), payload);
                        }
                    }
                }
            }
            Event::Finished { .. } => {
                let standings = after.standings();
                let players = standings.len();
                for s in standings {
                    let payload = with(json!({
                        "place": s.place,
                        "points": points_text(s.halves),
                        "players": players,
                    }));
                    add(&s.player, "tournament_finished", None, payload);
                }
            }
            Event::Cancelled { reason } => {
                for p in &before.entrants {
                    let payload = with(json!({"reason": reason}));
                    add(&p.player, "tournament_cancelled", None, payload);
                }
            }
            _ => {}
        }
    }
    rows
}
