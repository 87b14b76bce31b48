//! The JSON bodies of the game endpoints, built from the projection and from states.

use chrono::{DateTime, NaiveDateTime, Utc};
use domain::{Effect, Move, Seat, Step, Turn};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use utoipa::ToSchema;

use crate::games::queries::{EventRow, GameRow, PlayerRow, seat_of};
use crate::ids::{GameId, UserId};
use crate::model::events::{Event, GameKind, GameResult, RatingRange, Status, Visibility};
use crate::model::game_state::{DrawOffer, GameState};
use crate::model::talk::Press;
use crate::model::timing::TimeControl;
use crate::pagination::{Keyset, Page};
use crate::routes::games::ruleset::RulesetOptions;

/// The JSON form of a move (RULES.md section 8); absent and null are the same. Squares
/// are `A1` to `I9`, in either case.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"from": "C8", "to": "D6", "victim": null, "exit": null, "place": "A5"}))]
pub struct MoveJson {
    #[schema(example = "C8", pattern = "^[A-Ia-i][1-9]$")]
    pub from: String,
    #[schema(example = "D6", pattern = "^[A-Ia-i][1-9]$")]
    pub to: String,
    /// A reporter's kill, orthogonally next to `to`.
    #[schema(pattern = "^[A-Ia-i][1-9]$")]
    pub victim: Option<String>,
    /// Where a piece that entered the maze to act leaves it.
    #[schema(pattern = "^[A-Ia-i][1-9]$")]
    pub exit: Option<String>,
    /// Where a corpse or lifted piece is placed.
    #[schema(pattern = "^[A-Ia-i][1-9]$")]
    pub place: Option<String>,
}

/// Whose turn it is: the seat, and for a ruler's bonus turn the seat whose regular turn
/// it follows.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(example = json!({"seat": "G", "bonus_after": "B"}))]
pub struct TurnView {
    #[schema(value_type = String, example = "G")]
    pub seat: Seat,
    #[schema(value_type = Option<String>)]
    pub bonus_after: Option<Seat>,
}

impl TurnView {
    pub fn of(turn: Turn) -> Option<TurnView> {
        match turn {
            Turn::Regular(seat) => Some(TurnView {
                seat,
                bonus_after: None,
            }),
            Turn::Bonus { seat, after } => Some(TurnView {
                seat,
                bonus_after: Some(after),
            }),
            Turn::Over => None,
        }
    }
}

/// A seat of a game and who holds it: a player, a computer player (`bot`), or nobody.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(example = json!({"seat": "B", "user_id": null, "username": null, "bot": {"level": 3}}))]
pub struct SeatView {
    #[schema(value_type = String, example = "R")]
    pub seat: Seat,
    /// `null` while the seat is free, and for a bot's seat.
    #[schema(value_type = Option<String>)]
    pub user_id: Option<UserId>,
    pub username: Option<String>,
    /// The computer player holding the seat; `null` for a player's or a free seat.
    pub bot: Option<BotView>,
    /// The player's shown rating (mu − 3·sigma; see `GET /v1/players/{username}`);
    /// `null` for a player without rated games, a bot or a free seat.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rating: Option<f64>,
}

/// A computer player: its moves are played by the server.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(example = json!({"level": 3}))]
pub struct BotView {
    /// 1 (weakest) to 5 (strongest).
    #[schema(minimum = 1, maximum = 5)]
    pub level: u8,
}

/// A game as listed and summarised (from the projection).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(example = json!({
    "id": "5b3f2a4e-1c7d-4e55-9a0b-7f3e2d1c0b9a", "status": "active", "visibility": "public",
    "ruleset": "djambi-standard-2026 master_moves=on",
    "ruleset_options": {"friendly_fire": "none", "master_moves": "on", "reporter": "optional",
        "surround": "ours", "two_seat_bonus": "on", "corpse_on_maze": "off", "layout": "standard"},
    "seats_in_play": ["R", "B", "Y", "G"], "hostage_seat": null,
    "seats": [
        {"seat": "R", "user_id": "0192f5e4-7a3c-7cc1-9a51-3e1f0c2b8d11", "username": "alice", "bot": null},
        {"seat": "B", "user_id": "0192f5e4-7a3c-7cc1-9a51-3e1f0c2b8d12", "username": "bob", "bot": null},
        {"seat": "Y", "user_id": "0192f5e4-7a3c-7cc1-9a51-3e1f0c2b8d13", "username": "carol", "bot": null},
        {"seat": "G", "user_id": null, "username": null, "bot": {"level": 3}}
    ],
    "open_seats": [], "to_move": "B", "to_move_user_id": "0192f5e4-7a3c-7cc1-9a51-3e1f0c2b8d12",
    "ruler": null, "ply": 1, "version": 7, "result": null,
    "time_control": {"per_move_secs": 259200, "max_bank_secs": null},
    "deadline": "2026-12-03T12:05:00Z",
    "created_by": "0192f5e4-7a3c-7cc1-9a51-3e1f0c2b8d11",
    "created_at": "2026-11-30T12:00:00Z", "updated_at": "2026-11-30T12:05:00Z",
    "kind": "play", "rated": false, "rating_range": null,
    "press": "revealed_at_end", "eliminated_may_write": true
}))]
pub struct GameSummary {
    #[schema(value_type = String)]
    pub id: GameId,
    pub status: Status,
    pub visibility: Visibility,
    /// The rules the game is played under, canonical (VARIANTS.md 2.1): the version
    /// `djambi-standard-2026`, then the options that differ from their default, sorted
    /// (`djambi-standard-2026 master_moves=on,reporter=forced`). The record's `Ruleset`
    /// header holds the same text.
    pub ruleset: String,
    /// Every rule option and its value. `null` only for a stored ruleset this server
    /// cannot read (never for a game it wrote).
    pub ruleset_options: Option<RulesetOptions>,
    #[schema(value_type = Vec<String>)]
    pub seats_in_play: Vec<Seat>,
    /// With three players: the empty seat, whose party is hostage.
    #[schema(value_type = Option<String>)]
    pub hostage_seat: Option<Seat>,
    /// Every seat in play, with its player.
    pub seats: Vec<SeatView>,
    /// Seats in play still free.
    #[schema(value_type = Vec<String>)]
    pub open_seats: Vec<Seat>,
    /// The seat to move while the game is active.
    #[schema(value_type = Option<String>)]
    pub to_move: Option<Seat>,
    #[schema(value_type = Option<String>)]
    pub to_move_user_id: Option<UserId>,
    /// The seat ruling from the maze, if any.
    #[schema(value_type = Option<String>)]
    pub ruler: Option<Seat>,
    /// Moves played.
    pub ply: i32,
    /// The number of events in the game's log (also the `ETag`).
    pub version: i64,
    pub result: Option<GameResult>,
    /// The time control; `null`: the game has no deadlines.
    pub time_control: Option<TimeControl>,
    /// When the seat to move must have moved (active games with a time control); after
    /// it, the server times the seat out.
    pub deadline: Option<DateTime<Utc>>,
    #[schema(value_type = String)]
    pub created_by: UserId,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// Invite-only games: the code to share with the players you invite. Shown to the
    /// creator and the seated players only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invite_code: Option<String>,
    /// `play`, or `study` for a game imported from a record (`POST /v1/games/import`):
    /// it has no seats to take and takes no actions; its record names the players.
    pub kind: GameKind,
    /// A rated game: its result changes the players' ratings.
    pub rated: bool,
    /// The shown ratings a player must have to take a seat; `null`: anyone.
    pub rating_range: Option<RatingRange>,
    /// What becomes of private table-talk messages when the game ends: `private` (they
    /// stay private) or `revealed_at_end` (everyone who can see the game reads them).
    pub press: Press,
    /// Whether a player whose seats are all out of the game may still write at its
    /// table (they always read).
    pub eliminated_may_write: bool,
}

impl GameSummary {
    /// `players` may hold other games' rows; only this game's are used.
    pub fn of(row: &GameRow, players: &[PlayerRow], viewer: Option<&UserId>) -> GameSummary {
        let seats_in_play: Vec<Seat> = row
            .seats_in_play
            .chars()
            .filter_map(Seat::from_letter)
            .collect();
        let mine: Vec<&PlayerRow> = players.iter().filter(|p| p.game_id == row.id).collect();
        let bots = crate::games::queries::parse_bots_column(row.bots.as_deref());
        let bot_of = |seat: Seat| bots.iter().find(|(s, _)| *s == seat).map(|(_, l)| *l);
        let seats: Vec<SeatView> = seats_in_play
            .iter()
            .map(|&seat| {
                let p = mine.iter().find(|p| seat_of(&p.seat) == Some(seat));
                SeatView {
                    seat,
                    user_id: p.map(|p| p.user_id.clone()),
                    username: p.map(|p| p.username.clone()),
                    bot: bot_of(seat).map(|level| BotView { level }),
                    rating: p.and_then(|p| p.rating),
                }
            })
            .collect();
        let kind = GameKind::parse(&row.kind).unwrap_or_default();
        let open_seats = seats
            .iter()
            .filter(|s| kind == GameKind::Play && s.user_id.is_none() && s.bot.is_none())
            .map(|s| s.seat)
            .collect();
        let to_move = row.to_move_seat.as_deref().and_then(seat_of);
        // On a bot's turn `due_at` is when the server plays it, not a deadline.
        let bot_to_move = to_move.and_then(bot_of).is_some();
        let privileged =
            viewer.is_some_and(|v| row.created_by == v || mine.iter().any(|p| p.user_id == v));
        GameSummary {
            id: row.id.clone(),
            status: Status::parse(&row.status).unwrap_or(Status::Open),
            visibility: Visibility::parse(&row.visibility).unwrap_or(Visibility::Invite),
            ruleset: row.ruleset.clone(),
            ruleset_options: row.ruleset.parse().ok().map(RulesetOptions::of),
            seats_in_play,
            hostage_seat: row.hostage_seat.as_deref().and_then(seat_of),
            seats,
            open_seats,
            to_move,
            to_move_user_id: row.to_move_user_id.clone(),
            ruler: row.ruler_seat.as_deref().and_then(seat_of),
            ply: row.ply,
            version: row.version,
            result: row
                .result
                .as_deref()
                .and_then(|r| serde_json::from_str(r).ok()),
            time_control: row
                .time_control
                .as_deref()
                .and_then(|t| serde_json::from_str(t).ok()),
            // `due_at` is when the worker looks next: the deadline, moved later by a
            // vacation, or sooner for a computer player's answer to a draw offer; the
            // deadline is never before the log's (`turn_order_at` for a timed game).
            deadline: row
                .due_at
                .filter(|_| !bot_to_move && row.time_control.is_some())
                .map(|d| d.max(row.turn_order_at).and_utc()),
            created_by: row.created_by.clone(),
            created_at: row.created_at.and_utc(),
            updated_at: row.updated_at.and_utc(),
            invite_code: if privileged {
                row.invite_code.clone()
            } else {
                None
            },
            kind,
            rated: row.rated,
            rating_range: row
                .rating_range
                .as_deref()
                .and_then(|r| serde_json::from_str(r).ok()),
            press: if row.press == "revealed_at_end" {
                Press::RevealedAtEnd
            } else {
                Press::Private
            },
            eliminated_may_write: row.eliminated_may_write,
        }
    }
}

/// A page of games.
#[derive(Debug, Serialize, ToSchema)]
pub struct GamePage {
    pub items: Vec<GameSummary>,
    /// Pass as `after` for the next page; absent on the last page.
    pub next_cursor: Option<String>,
    /// The path of the next page; absent on the last page.
    pub next: Option<String>,
}

impl GamePage {
    /// The page of `limit` games out of `limit + 1` fetched rows, its cursor made of
    /// `cursor_time` (the list's order) and the id.
    pub fn of(
        fetched: (Vec<GameRow>, Vec<PlayerRow>),
        limit: u32,
        viewer: Option<&UserId>,
        path: &str,
        extra_query: &str,
        cursor_time: impl Fn(&GameRow) -> NaiveDateTime,
    ) -> GamePage {
        let (rows, players) = fetched;
        let page = Page::cut(rows, limit, path, extra_query, |r| {
            Keyset::encode(cursor_time(r), r.id.as_str())
        })
        .map(|r| GameSummary::of(&r, &players, viewer));
        GamePage {
            items: page.items,
            next_cursor: page.next_cursor,
            next: page.next,
        }
    }
}

/// A pending draw offer.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(example = json!({"by": "R", "offered_at": 42, "accepted": ["R", "Y"], "waiting_for": ["B"]}))]
pub struct DrawOfferView {
    #[schema(value_type = String)]
    pub by: Seat,
    /// The version (event number) of the offer.
    pub offered_at: i64,
    #[schema(value_type = Vec<String>)]
    pub accepted: Vec<Seat>,
    /// Active seats that have not accepted yet.
    #[schema(value_type = Vec<String>)]
    pub waiting_for: Vec<Seat>,
}

impl DrawOfferView {
    pub fn of(offer: &DrawOffer, state: &GameState) -> DrawOfferView {
        DrawOfferView {
            by: offer.by,
            offered_at: offer.offered_at,
            accepted: offer.accepted.iter().collect(),
            waiting_for: state
                .game
                .position()
                .active_seats()
                .iter()
                .filter(|s| !offer.accepted.contains(*s))
                .collect(),
        }
    }
}

/// A piece on the board.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"square": "A9", "party": "R", "kind": "chief", "alive": true}))]
pub struct PieceView {
    #[schema(example = "A9")]
    pub square: String,
    #[schema(value_type = String, example = "R")]
    pub party: Seat,
    /// chief, assassin, reporter, diplomat, necromobile or militant.
    pub kind: String,
    /// `false` for a corpse.
    pub alive: bool,
}

/// The position of a game at one version.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({
    "game_id": "5b3f2a4e-1c7d-4e55-9a0b-7f3e2d1c0b9a", "version": 6, "status": "active",
    "dfen": "RCRARM3BMBABC/RRRDRM3BMBDBR/RMRMRN3BNBMBM/9/9/9/GMGMGN3YNYMYM/GRGDGM3YMYDYR/GCGAGM3YMYAYC R RBYG 0",
    "ruleset": "djambi-standard-2026",
    "ruleset_options": {"friendly_fire": "none", "master_moves": "off", "reporter": "optional",
        "surround": "ours", "two_seat_bonus": "on", "corpse_on_maze": "off", "layout": "standard"},
    "ply": 0, "turn": {"seat": "R", "bonus_after": null}, "ruler": null,
    "active_seats": ["R", "B", "Y", "G"],
    "controls": {"R": "R", "B": "B", "Y": "Y", "G": "G"},
    "pieces": [{"square": "A9", "party": "R", "kind": "chief", "alive": true}],
    "players": {"R": "0192f5e4-7a3c-7cc1-9a51-3e1f0c2b8d11"}, "bots": {},
    "draw_offer": null, "result": null, "deadline": null, "clocks": null
}))]
pub struct StateView {
    #[schema(value_type = String)]
    pub game_id: GameId,
    pub version: i64,
    pub status: Status,
    /// The position in DFEN (RULES.md section 8). A DFEN holds no ruleset: the position
    /// is read under the game's `ruleset`.
    pub dfen: String,
    /// The rules the game is played under, canonical (as in the summary).
    pub ruleset: String,
    /// Every rule option and its value.
    pub ruleset_options: RulesetOptions,
    pub ply: u32,
    /// `null` when the game is over.
    pub turn: Option<TurnView>,
    #[schema(value_type = Option<String>)]
    pub ruler: Option<Seat>,
    #[schema(value_type = Vec<String>)]
    pub active_seats: Vec<Seat>,
    /// Who controls each party: a seat letter, `hostage` or `orphaned`.
    #[schema(value_type = Object)]
    pub controls: Value,
    pub pieces: Vec<PieceView>,
    /// Seat letter to user id, for the seats taken by players.
    #[schema(value_type = Object)]
    pub players: Value,
    /// Seat letter to level, for the seats held by computer players.
    #[schema(value_type = Object, example = json!({"B": 3}))]
    pub bots: Value,
    pub draw_offer: Option<DrawOfferView>,
    pub result: Option<GameResult>,
    /// When the seat to move must have moved (time-controlled active games).
    pub deadline: Option<DateTime<Utc>>,
    /// Time-controlled games: the seconds each seat in play has for its current or next
    /// turn (seat letter to seconds); `null` without a time control.
    #[schema(value_type = Option<Object>)]
    pub clocks: Option<Value>,
}

impl StateView {
    pub fn of(s: &GameState) -> StateView {
        let position = s.game.position();
        let mut controls = serde_json::Map::new();
        let mut players = serde_json::Map::new();
        let mut bots = serde_json::Map::new();
        for seat in Seat::ALL {
            controls.insert(seat.to_string(), json!(position.control(seat)));
            if let Some(p) = s.player(seat) {
                players.insert(seat.to_string(), json!(p));
            }
            if let Some(level) = s.bot(seat) {
                bots.insert(seat.to_string(), json!(level));
            }
        }
        StateView {
            game_id: s.id.clone(),
            version: s.version,
            status: s.status,
            dfen: position.to_string(),
            ruleset: s.settings.ruleset.to_string(),
            ruleset_options: RulesetOptions::of(s.settings.ruleset),
            ply: position.ply(),
            turn: if s.status == Status::Active {
                TurnView::of(position.turn())
            } else {
                None
            },
            ruler: position.ruler(),
            active_seats: position.active_seats().iter().collect(),
            controls: Value::Object(controls),
            pieces: position
                .board()
                .pieces()
                .map(|(square, piece)| PieceView {
                    square: square.to_string(),
                    party: piece.party,
                    kind: piece.kind.name().into(),
                    alive: piece.alive,
                })
                .collect(),
            players: Value::Object(players),
            bots: Value::Object(bots),
            draw_offer: s.draw_offer.as_ref().map(|o| DrawOfferView::of(o, s)),
            result: s.result.clone(),
            deadline: s.deadline().map(|d| d.and_utc()),
            clocks: s.time_control.map(|_| {
                Value::Object(
                    s.settings
                        .seats
                        .iter()
                        .map(|seat| (seat.to_string(), json!(s.clocks.time_secs[seat.index()])))
                        .collect(),
                )
            }),
        }
    }
}

/// A move, in canonical text and JSON.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"text": "C8xD6>A5", "move": {"from": "C8", "to": "D6", "victim": null, "exit": null, "place": "A5"}}))]
pub struct MoveView {
    pub text: String,
    #[serde(rename = "move")]
    #[schema(value_type = MoveJson)]
    pub mv: Move,
}

/// The legal moves of the seat to move.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({
    "game_id": "5b3f2a4e-1c7d-4e55-9a0b-7f3e2d1c0b9a", "version": 6, "status": "active",
    "seat": "R", "total": 30,
    "moves": [{"text": "C8-D7", "move": {"from": "C8", "to": "D7", "victim": null, "exit": null, "place": null}}],
    "next_cursor": null, "next": null
}))]
pub struct LegalMovesView {
    #[schema(value_type = String)]
    pub game_id: GameId,
    pub version: i64,
    pub status: Status,
    /// The seat to move; `null` (and no moves) unless the game is active.
    #[schema(value_type = Option<String>)]
    pub seat: Option<Seat>,
    /// How many legal moves there are in all.
    pub total: usize,
    pub moves: Vec<MoveView>,
    /// Pass as `after` for the next page; absent on the last page.
    pub next_cursor: Option<String>,
    pub next: Option<String>,
}

/// One event of the log. `payload` depends on `kind`: see the events table in the
/// `GET /v1/games/{id}/events` description.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({
    "seq": 7, "kind": "move_played",
    "payload": {"seat": "R", "move": {"from": "C8", "to": "D7", "victim": null, "exit": null, "place": null}, "text": "C8-D7"},
    "actor_id": "0192f5e4-7a3c-7cc1-9a51-3e1f0c2b8d11", "created_at": "2026-11-30T12:05:00Z"
}))]
pub struct EventView {
    /// The event's number; the game's version after it.
    pub seq: i64,
    pub kind: String,
    #[schema(value_type = Object)]
    pub payload: Value,
    /// The account that sent the event; `null` for the server (a timeout, a bot).
    #[schema(value_type = Option<String>)]
    pub actor_id: Option<UserId>,
    pub created_at: DateTime<Utc>,
    /// For events that change the position: what the action did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<StepView>,
}

/// What an action did to the position.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(example = json!({
    "effects": [{"type": "moved", "piece": {"party": "R", "kind": "militant", "alive": true}, "from": "C8", "to": "D7"}],
    "eliminated": [], "ruler": null, "turn": {"seat": "B", "bonus_after": null}
}))]
pub struct StepView {
    /// In the documented order (stable within a kind): `moved` (`piece`, `from`, `to`),
    /// `killed` (`piece`, `square`), `placed` (a corpse or lifted piece: `piece`, `from`,
    /// `to`), `surrounded` (a chief that died surrounded: `piece`, `square`),
    /// `control_changed` (`party`, `from`, `to`), `eliminated` (`seat`), `passed` (`seat`).
    #[schema(value_type = Vec<Object>)]
    pub effects: Vec<Effect>,
    /// Seats eliminated by this action.
    #[schema(value_type = Vec<String>)]
    pub eliminated: Vec<Seat>,
    /// Who rules from the maze after it.
    #[schema(value_type = Option<String>)]
    pub ruler: Option<Seat>,
    /// Whose turn it is after it; `null` once the game is over.
    pub turn: Option<TurnView>,
}

/// The rank of an effect in the documented order of `effects`.
fn effect_rank(e: &Effect) -> u8 {
    match e {
        Effect::Moved { .. } => 0,
        Effect::Killed { .. } => 1,
        Effect::Placed { .. } => 2,
        Effect::Surrounded { .. } => 3,
        Effect::ControlChanged { .. } => 4,
        Effect::Eliminated { .. } => 5,
        Effect::Passed { .. } => 6,
    }
}

/// Effects as the rules engine reports them (in the order they happened), sorted into
/// the documented order; a stable sort, so effects of one kind keep theirs.
pub fn in_documented_order(effects: impl Iterator<Item = Effect>) -> Vec<Effect> {
    let mut effects: Vec<Effect> = effects.collect();
    effects.sort_by_key(effect_rank);
    effects
}

impl StepView {
    pub fn of(step: &Step) -> StepView {
        StepView {
            effects: in_documented_order(step.effects.iter().copied()),
            eliminated: step.eliminated.iter().collect(),
            ruler: step.ruler,
            turn: TurnView::of(step.turn),
        }
    }
}

impl EventView {
    /// `invite_code` never leaves the server through the log.
    pub fn of(row: &EventRow, step: Option<StepView>) -> EventView {
        let mut payload: Value = serde_json::from_str(&row.payload).unwrap_or(Value::Null);
        if let Value::Object(map) = &mut payload {
            map.remove("invite_code");
        }
        EventView {
            seq: row.seq,
            kind: row.kind.clone(),
            payload,
            actor_id: row.actor_id.clone(),
            created_at: row.created_at.and_utc(),
            step,
        }
    }
}

/// A page of the event log.
#[derive(Debug, Serialize, ToSchema)]
pub struct EventPage {
    #[schema(value_type = String)]
    pub game_id: GameId,
    /// The game's current version.
    pub version: i64,
    pub items: Vec<EventView>,
    pub next_cursor: Option<String>,
    pub next: Option<String>,
}

/// An event a write appended.
#[derive(Debug, Serialize, ToSchema)]
pub struct NewEventView {
    pub seq: i64,
    pub kind: String,
}

/// What an action (move, resignation, draw offer) did.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({
    "game_id": "5b3f2a4e-1c7d-4e55-9a0b-7f3e2d1c0b9a", "version": 8, "status": "active",
    "events": [{"seq": 8, "kind": "move_played"}],
    "move": {"seat": "R", "text": "C8xD6>A5", "move": {"from": "C8", "to": "D6", "victim": null, "exit": null, "place": "A5"}},
    "effects": [
        {"type": "moved", "piece": {"party": "R", "kind": "militant", "alive": true}, "from": "C8", "to": "D6"},
        {"type": "killed", "piece": {"party": "G", "kind": "militant", "alive": true}, "square": "D6"},
        {"type": "placed", "piece": {"party": "G", "kind": "militant", "alive": false}, "from": "D6", "to": "A5"}
    ],
    "eliminated": [], "turn": {"seat": "B", "bonus_after": null}, "ruler": null, "ply": 5,
    "dfen": "…", "draw_offer": null, "result": null
}))]
pub struct ActionResult {
    #[schema(value_type = String)]
    pub game_id: GameId,
    /// The game's version after this action (use it as the next `expected_version`).
    pub version: i64,
    pub status: Status,
    /// The events appended.
    pub events: Vec<NewEventView>,
    /// The move played, if this was a move.
    #[serde(rename = "move")]
    pub played: Option<PlayedMove>,
    /// What the action did. In the documented order (stable within a kind): `moved` (`piece`, `from`, `to`),
    /// `killed` (`piece`, `square`), `placed` (a corpse or lifted piece: `piece`, `from`,
    /// `to`), `surrounded` (a chief that died surrounded: `piece`, `square`),
    /// `control_changed` (`party`, `from`, `to`), `eliminated` (`seat`), `passed` (`seat`).
    #[schema(value_type = Vec<Object>)]
    pub effects: Vec<Effect>,
    /// Seats eliminated by this action.
    #[schema(value_type = Vec<String>)]
    pub eliminated: Vec<Seat>,
    pub turn: Option<TurnView>,
    #[schema(value_type = Option<String>)]
    pub ruler: Option<Seat>,
    pub ply: u32,
    pub dfen: String,
    pub draw_offer: Option<DrawOfferView>,
    pub result: Option<GameResult>,
}

/// A move as played.
#[derive(Debug, Serialize, ToSchema)]
pub struct PlayedMove {
    #[schema(value_type = String, example = "R")]
    pub seat: Seat,
    /// Canonical text.
    pub text: String,
    #[serde(rename = "move")]
    #[schema(value_type = MoveJson)]
    pub mv: Move,
}

impl ActionResult {
    pub fn of(state: &GameState, first_seq: i64, events: &[Event], steps: &[Step]) -> ActionResult {
        let position = state.game.position();
        let played = events.iter().find_map(|e| match e {
            Event::MovePlayed { seat, mv, text, .. } => Some(PlayedMove {
                seat: *seat,
                text: text.clone(),
                mv: *mv,
            }),
            _ => None,
        });
        ActionResult {
            game_id: state.id.clone(),
            version: state.version,
            status: state.status,
            events: events
                .iter()
                .enumerate()
                .map(|(i, e)| NewEventView {
                    seq: first_seq + i as i64,
                    kind: e.kind().into(),
                })
                .collect(),
            played,
            effects: in_documented_order(steps.iter().flat_map(|s| s.effects.iter().copied())),
            eliminated: steps.iter().flat_map(|s| s.eliminated.iter()).collect(),
            turn: if state.status == Status::Active {
                TurnView::of(position.turn())
            } else {
                None
            },
            ruler: position.ruler(),
            ply: position.ply(),
            dfen: position.to_string(),
            draw_offer: state
                .draw_offer
                .as_ref()
                .map(|o| DrawOfferView::of(o, state)),
            result: state.result.clone(),
        }
    }
}

#[cfg(test)]
mod effect_order_tests {
    use domain::{Control, Kind, Piece, Square};

    use super::*;

    #[test]
    fn effects_come_in_the_documented_order() {
        let sq = |t: &str| t.parse::<Square>().unwrap();
        let piece = |party, kind| Piece {
            party,
            kind,
            alive: true,
        };
        // As they happen when a move kills a chief and its placement surrounds another.
        let happened = vec![
            Effect::Moved {
                piece: piece(Seat::Red, Kind::Assassin),
                from: sq("A1"),
                to: sq("B2"),
            },
            Effect::Killed {
                piece: piece(Seat::Blue, Kind::Chief),
                square: sq("B2"),
            },
            Effect::ControlChanged {
                party: Seat::Blue,
                from: Control::Seat(Seat::Blue),
                to: Control::Seat(Seat::Red),
            },
            Effect::Eliminated { seat: Seat::Blue },
            Effect::Placed {
                piece: piece(Seat::Blue, Kind::Chief),
                from: sq("B2"),
                to: sq("C3"),
            },
            Effect::Surrounded {
                piece: piece(Seat::Green, Kind::Chief),
                square: sq("D4"),
            },
            Effect::ControlChanged {
                party: Seat::Green,
                from: Control::Seat(Seat::Green),
                to: Control::Seat(Seat::Red),
            },
            Effect::Eliminated { seat: Seat::Green },
            Effect::Passed { seat: Seat::Yellow },
        ];
        let names: Vec<String> = in_documented_order(happened.into_iter())
            .iter()
            .map(|e| {
                let v = serde_json::to_value(e).unwrap();
                let t = v["type"].as_str().unwrap().to_string();
                match v.get("party").or(v.get("seat")).and_then(|s| s.as_str()) {
                    Some(s)
                        if t != "moved" && t != "killed" && t != "placed" && t != "surrounded" =>
                    {
                        format!("{t} {s}")
                    }
                    _ => t,
                }
            })
            .collect();
        assert_eq!(
            names,
            [
                "moved",
                "killed",
                "placed",
                "surrounded",
                "control_changed B",
                "control_changed G",
                "eliminated B",
                "eliminated G",
                "passed Y"
            ]
        );
    }
}
