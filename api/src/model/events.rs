//! The events of a game's log and their JSON payloads.
//!
//! A game is its log: `game_events` rows numbered 1, 2, 3... (`seq`); the game's version is
//! the number of its events. Each row stores the event's `kind` and its `payload` as JSON
//! text (the `payload` of the adjacently tagged [`Event`] below).
//!
//! | kind | payload | meaning |
//! |---|---|---|
//! | `created` | `ruleset`, `seats`, `hostage_seat`, `visibility`, `created_by`, `invite_code`, `time_control`, `rated`, `rating_range`; for a study game `kind: "study"` and `record_headers` | always event 1 |
//! | `seat_taken` | `seat`, `user_id` | a player sat down |
//! | `seat_left` | `seat`, `user_id` | a player left before the start |
//! | `bot_seated` | `seat`, `level` (1 to 5) | a computer player took the seat (for the whole game) |
//! | `started` | `{}` | every seat in play is taken |
//! | `move_played` | `seat`, `move` (JSON form), `text` (canonical); `conditional: true` for a stored conditional answer | a move (domain action); a bot's move has no actor (the server writes it); a conditional answer's actor is its player |
//! | `resigned` | `seat` | a resignation (domain action) |
//! | `timed_out` | `seat` | the seat to move let its deadline pass (domain action, a resignation's effect; written by the server) |
//! | `draw_offered` | `seat` | a seat offers a draw (it counts as that seat's acceptance) |
//! | `draw_accepted` | `seat` | a seat accepts the pending offer |
//! | `draw_declined` | `seat` | a seat declines (or withdraws) the pending offer |
//! | `ended` | `result` | the game is over; with `reason = draw_agreed` it is the agreed-draw action |
//!
//! A study game (imported from a record, `kind: "study"`) has no seats: its `created` is
//! followed directly by the record's actions, and it is being played (or finished) from
//! event 1.
//!
//! Only the actions are truth for the rules: kills, control changes, whose turn, the
//! outcome all come from replaying `move_played`, `resigned`, `timed_out` and the agreed
//! draw through
//! [`domain::Game`] (see [`crate::model::game_state`]). The `text` of a move and the `result` of an
//! `ended` event are stored for readers of the raw log and checked on replay.

use domain::{Move, Seat};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::ids::UserId;
use crate::model::talk::TalkSettings;
use crate::model::timing::TimeControl;

/// Who may find and join a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    /// Listed in the lobby; anyone may take a free seat.
    Public,
    /// Not listed; taking a seat needs the game's `invite_code`.
    Invite,
}

impl Visibility {
    pub fn as_str(self) -> &'static str {
        match self {
            Visibility::Public => "public",
            Visibility::Invite => "invite",
        }
    }

    pub fn parse(s: &str) -> Option<Visibility> {
        match s {
            "public" => Some(Visibility::Public),
            "invite" => Some(Visibility::Invite),
            _ => None,
        }
    }
}

/// Where a game is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Waiting for players: some seats in play are free.
    Open,
    /// Every seat is taken and the game is being played.
    Active,
    /// Over; `result` says how it ended.
    Finished,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Open => "open",
            Status::Active => "active",
            Status::Finished => "finished",
        }
    }

    pub fn parse(s: &str) -> Option<Status> {
        match s {
            "open" => Some(Status::Open),
            "active" => Some(Status::Active),
            "finished" => Some(Status::Finished),
            _ => None,
        }
    }
}

/// What a game is for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum GameKind {
    /// Played on the server by its players (the default).
    #[default]
    Play,
    /// Imported from a game record, for study: no seats to take, no actions to send.
    Study,
}

impl GameKind {
    pub fn as_str(self) -> &'static str {
        match self {
            GameKind::Play => "play",
            GameKind::Study => "study",
        }
    }

    pub fn parse(s: &str) -> Option<GameKind> {
        match s {
            "play" => Some(GameKind::Play),
            "study" => Some(GameKind::Study),
            _ => None,
        }
    }

    pub fn is_play(&self) -> bool {
        *self == GameKind::Play
    }
}

/// `win` or `draw`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ResultKind {
    Win,
    Draw,
}

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ResultReason {
    /// A move left a single active seat.
    LastSeatStanding,
    /// A resignation left a single active seat.
    Resignation,
    /// A single move eliminated every remaining seat; they share the draw.
    MutualElimination,
    /// No active seat had a legal move.
    NoLegalMoves,
    /// Every active seat accepted a draw offer.
    DrawAgreed,
    /// A timeout left a single active seat.
    Timeout,
}

/// How a finished game ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({
    "kind": "win", "seats": ["B"], "reason": "last_seat_standing",
    "ranking": [["B"], ["R"], ["Y", "G"]]
}))]
pub struct GameResult {
    pub kind: ResultKind,
    /// The winner, or the seats sharing the draw.
    #[schema(value_type = Vec<String>, example = json!(["B"]))]
    pub seats: Vec<Seat>,
    pub reason: ResultReason,
    /// Places, best first; seats sharing a place are listed together.
    #[schema(value_type = Vec<Vec<String>>)]
    pub ranking: Vec<Vec<Seat>>,
}

/// The shown ratings (mu − 3·sigma, see [`crate::ratings`]) a player must have to take a
/// seat in a game: at least `min`, at most `max` (either may be absent).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"min": 10, "max": 30}))]
pub struct RatingRange {
    /// The lowest shown rating admitted (-100 to 100).
    #[schema(minimum = -100, maximum = 100)]
    pub min: Option<i32>,
    /// The highest shown rating admitted (-100 to 100; not below `min`).
    #[schema(minimum = -100, maximum = 100)]
    pub max: Option<i32>,
}

impl RatingRange {
    /// Whether a shown rating lies in the range.
    pub fn admits(&self, rating: f64) -> bool {
        self.min.is_none_or(|m| rating >= f64::from(m))
            && self.max.is_none_or(|m| rating <= f64::from(m))
    }
}

/// One event of a game's log (see the module documentation for the table).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "payload", rename_all = "snake_case")]
pub enum Event {
    Created {
        /// The ruleset's canonical text ([`domain::Ruleset`]'s `Display`, VARIANTS.md 2.1:
        /// the rules version, then the options that differ from their default), so that
        /// every write replays the game under the rules it was created with.
        ruleset: String,
        /// The seats in play, e.g. `RBYG` or `RBY`.
        seats: String,
        /// With three players: the empty seat, whose party is hostage.
        hostage_seat: Option<Seat>,
        visibility: Visibility,
        created_by: UserId,
        /// Invite-only games: the code needed to take a seat (never shown in `/events`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        invite_code: Option<String>,
        /// `study` for a game imported from a record; absent for a played game.
        #[serde(default, skip_serializing_if = "GameKind::is_play")]
        kind: GameKind,
        /// Study games: the record's headers in order, as `[key, value]` pairs (the
        /// players are names as written, not accounts).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        record_headers: Vec<(String, String)>,
        /// The time control (see [`crate::model::timing`]); absent: no deadlines.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        time_control: Option<TimeControl>,
        /// Table-talk options (see [`crate::model::talk`]); absent: the defaults.
        #[serde(default, skip_serializing_if = "TalkSettings::is_default")]
        talk: TalkSettings,
        /// A rated game (see [`crate::ratings`]); absent: casual.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        rated: bool,
        /// The ratings a player must have to take a seat; absent: anyone.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rating_range: Option<RatingRange>,
    },
    SeatTaken {
        seat: Seat,
        user_id: UserId,
    },
    SeatLeft {
        seat: Seat,
        user_id: UserId,
    },
    /// A computer player of `level` (1 to 5, [`domain::Level`]) holds the seat; the server
    /// plays its moves (see [`super::bots`]).
    BotSeated {
        seat: Seat,
        level: u8,
    },
    Started {},
    MovePlayed {
        seat: Seat,
        #[serde(rename = "move")]
        mv: Move,
        /// The canonical text in the position it was played in.
        text: String,
        /// The player's stored conditional answer, played by the server for them (see
        /// [`crate::model::conditional`]); absent (false) for every other move.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        conditional: bool,
    },
    Resigned {
        seat: Seat,
    },
    /// A seat ran out of time ([`domain::Action::Timeout`]; written by the server in
    /// play, or imported from a record).
    TimedOut {
        seat: Seat,
    },
    DrawOffered {
        seat: Seat,
    },
    DrawAccepted {
        seat: Seat,
    },
    DrawDeclined {
        seat: Seat,
    },
    Ended {
        result: GameResult,
    },
}

impl Event {
    /// The `kind` column.
    pub fn kind(&self) -> &'static str {
        match self {
            Event::Created { .. } => "created",
            Event::SeatTaken { .. } => "seat_taken",
            Event::SeatLeft { .. } => "seat_left",
            Event::BotSeated { .. } => "bot_seated",
            Event::Started {} => "started",
            Event::MovePlayed { .. } => "move_played",
            Event::Resigned { .. } => "resigned",
            Event::TimedOut { .. } => "timed_out",
            Event::DrawOffered { .. } => "draw_offered",
            Event::DrawAccepted { .. } => "draw_accepted",
            Event::DrawDeclined { .. } => "draw_declined",
            Event::Ended { .. } => "ended",
        }
    }

    /// The payload as a JSON value.
    pub fn payload(&self) -> serde_json::Value {
        match serde_json::to_value(self) {
            Ok(serde_json::Value::Object(mut map)) => {
                map.remove("payload").unwrap_or(serde_json::Value::Null)
            }
            _ => serde_json::Value::Null,
        }
    }

    /// The `payload` column: the payload as JSON text.
    pub fn payload_text(&self) -> String {
        self.payload().to_string()
    }

    /// Reads an event back from its columns.
    pub fn from_parts(kind: &str, payload: &str) -> Result<Event, String> {
        let payload: serde_json::Value =
            serde_json::from_str(payload).map_err(|e| format!("event payload is not JSON: {e}"))?;
        serde_json::from_value(serde_json::json!({"kind": kind, "payload": payload}))
            .map_err(|e| format!("unreadable `{kind}` event: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_round_trip_through_their_columns() {
        let events = [
            Event::Created {
                ruleset: "djambi-standard-2026".into(),
                seats: "RBY".into(),
                hostage_seat: Some(Seat::Green),
                visibility: Visibility::Invite,
                created_by: "u1".into(),
                invite_code: Some("abc".into()),
                kind: GameKind::Play,
                record_headers: Vec::new(),
                time_control: None,
                talk: Default::default(),
                rated: false,
                rating_range: None,
            },
            Event::Created {
                ruleset: "djambi-standard-2026".into(),
                seats: "RBYG".into(),
                hostage_seat: None,
                visibility: Visibility::Invite,
                created_by: "u1".into(),
                invite_code: None,
                kind: GameKind::Study,
                record_headers: vec![("Red".into(), "alice".into())],
                time_control: Some(TimeControl {
                    per_move_secs: 86_400,
                    max_bank_secs: None,
                }),
                talk: Default::default(),
                rated: false,
                rating_range: None,
            },
            Event::TimedOut { seat: Seat::Blue },
            Event::BotSeated {
                seat: Seat::Yellow,
                level: 3,
            },
            Event::SeatTaken {
                seat: Seat::Red,
                user_id: "u1".into(),
            },
            Event::Started {},
            Event::MovePlayed {
                seat: Seat::Red,
                mv: "C8-D7".parse().unwrap(),
                text: "C8-D7".into(),
                conditional: false,
            },
            Event::Ended {
                result: GameResult {
                    kind: ResultKind::Draw,
                    seats: vec![Seat::Red, Seat::Blue],
                    reason: ResultReason::DrawAgreed,
                    ranking: vec![vec![Seat::Red, Seat::Blue]],
                },
            },
        ];
        for e in events {
            let back = Event::from_parts(e.kind(), &e.payload_text()).unwrap();
            assert_eq!(back, e);
        }
        let mv = Event::MovePlayed {
            seat: Seat::Red,
            mv: "C8-D7".parse().unwrap(),
            text: "C8-D7".into(),
            conditional: false,
        };
        assert_eq!(
            mv.payload(),
            serde_json::json!({"seat": "R", "move": {"from": "C8", "to": "D7", "victim": null,
                "exit": null, "place": null}, "text": "C8-D7"})
        );
        assert!(Event::from_parts("bogus", "{}").is_err());
        assert!(Event::from_parts("started", "not json").is_err());
    }
}
