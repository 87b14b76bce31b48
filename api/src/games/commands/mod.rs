//! The game commands and the one write path every event goes through, whoever sends it:
//! a player over HTTP, the clock, or a computer player. No actix, no HTTP status here:
//! a command is decided on the game's state, written with the store's append protocol
//! (see [`super::store`]), and answered with what was written or a [`CommandError`].
//!
//! [`execute`]:
//!
//! 1. reads the game's current version and state (cache, checkpoints or replay), checks
//!    the caller's expected version if there is one;
//! 2. lets the command decide its events, folding each onto a copy of the state (the
//!    rules engine refuses illegal actions here);
//! 3. appends them (claim the version, insert the events and the projection), writes the
//!    notifications they cause ([`crate::notifications::plan`], the outbox), and runs the
//!    caller's own step in the same transaction (the HTTP layer stores idempotent answers
//!    there); after the commit, the new state goes into the cache.
//!
//! Races: when the version moved between 1 and 3, a command that carried an expected
//! version fails with [`CommandError::VersionConflict`]; one that did not is decided
//! again on the new state (it asked to be applied to the current game). Deadlocks,
//! serialization failures and lost connections are retried too. After
//! [`MAX_ATTEMPTS`] the answer is [`CommandError::Busy`].
//!
//! Fast path (PostgreSQL, no step of the caller's, the state at the base version in the
//! cache, no seat change): the events are written by one statement
//! ([`game_store::append_in_one_statement`]), whose claim is the check. The cache is not
//! trusted: nothing is written unless the database is at the cached version. A command
//! refused on the cached state goes down the normal path, so a stale client still gets
//! 412 rather than a refusal computed on an old state.

mod decide;
mod execute;

use std::sync::Arc;

use domain::{GameSettings, Move, RecordError, Seat, Step};

use crate::ids::{GameId, SessionId, UserId};
use crate::model::events::{Event, RatingRange, Visibility};
use crate::model::game_state::GameState;
use crate::model::timing::TimeControl;
use crate::notifications;
use crate::store::{self, StoreError};

pub use decide::move_error_reason;
pub use execute::{Done, Idempotent, Step as WriteStep, execute, execute_idempotent, execute_with};

/// How many times a write is tried before it gives up with [`CommandError::Busy`].
pub const MAX_ATTEMPTS: u32 = 8;

/// Who acts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Actor {
    /// A player, by account id.
    Player(UserId),
    /// The server itself (the clock, a computer player).
    System,
}

impl Actor {
    /// The account id stored as the events' actor (`None` for the server).
    pub fn account(&self) -> Option<&UserId> {
        match self {
            Actor::Player(id) => Some(id),
            Actor::System => None,
        }
    }
}

/// What to do about a draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DrawAction {
    /// Offer a draw (counts as the offering seat's acceptance).
    Offer,
    /// Accept the pending offer; the game is drawn when every active seat has accepted.
    Accept,
    /// Decline (or, for the offering seat, withdraw) the pending offer.
    Decline,
}

/// The settings of a new game.
#[derive(Debug, Clone)]
pub struct NewGame {
    pub settings: GameSettings,
    pub hostage_seat: Option<Seat>,
    pub visibility: Visibility,
    /// The seat the creator takes at once, if any.
    pub creator_seat: Option<Seat>,
    pub invite_code: Option<String>,
    pub time_control: Option<TimeControl>,
    /// Computer players seated at once: (seat, level 1 to 5).
    pub bots: Vec<(Seat, u8)>,
    /// Table-talk options (press, whether eliminated players may write).
    pub talk: crate::model::talk::TalkSettings,
    /// A rated game: needs a time control and only human players.
    pub rated: bool,
    /// The shown ratings a player must have to take a seat.
    pub rating_range: Option<RatingRange>,
}

/// Something to do to a game.
#[derive(Debug, Clone)]
pub enum Command {
    /// Create the game (its id is the write's `game_id`).
    Create(NewGame),
    TakeSeat {
        seat: Seat,
        invite_code: Option<String>,
        /// The joiner's shown rating and whether it is provisional, read by the caller
        /// when the game asks for a rating range (`None`: not read).
        rating: Option<f64>,
    },
    LeaveSeat {
        seat: Seat,
    },
    Play(Move),
    /// A seat's stored conditional answer, played by the server for its player (the
    /// actor): see [`super::conditional`].
    ConditionalMove {
        seat: Seat,
        mv: Move,
    },
    Resign,
    Draw(DrawAction),
    /// Create a study game from a game record (its id is the write's `game_id`).
    Import(ImportRecord),
    /// The seat to move let its deadline pass (the server's command: see [`super::due`]).
    TimeOut {
        seat: Seat,
    },
    /// Seat a computer player of `level` (1 to 5): a player's command (the creator or a
    /// seated player), while the game is open.
    SeatBot {
        seat: Seat,
        level: u8,
    },
    /// A computer player's move (the server's command: see [`super::bots`]).
    BotMove {
        seat: Seat,
        mv: Move,
    },
    /// Every active seat is a bot's: they agree a draw (the server's command, decided by
    /// [`super::bots::bot_command`] once a bot-only game is long).
    BotsAgreeDraw,
    /// A computer player's answer to a pending draw offer (the server's command, decided
    /// by [`super::bots::bot_command`]).
    BotAnswerDraw {
        seat: Seat,
        accept: bool,
    },
}

/// A game record to import as a study game.
#[derive(Debug, Clone)]
pub struct ImportRecord {
    /// The record's text (see `docs/record-format.md`).
    pub text: String,
    pub visibility: Visibility,
}

/// The largest record [`Command::Import`] takes, in bytes.
pub const MAX_RECORD_BYTES: usize = 256 * 1024;
/// The most actions a record [`Command::Import`] takes may hold.
pub const MAX_RECORD_ACTIONS: usize = 5_000;

impl Command {
    fn name(&self) -> &'static str {
        match self {
            Command::Create(_) => "create",
            Command::TakeSeat { .. } => "take_seat",
            Command::LeaveSeat { .. } => "leave_seat",
            Command::Play(_) => "play",
            Command::ConditionalMove { .. } => "conditional_move",
            Command::Resign => "resign",
            Command::Draw(_) => "draw",
            Command::Import(_) => "import",
            Command::TimeOut { .. } => "time_out",
            Command::SeatBot { .. } => "seat_bot",
            Command::BotMove { .. } => "bot_move",
            Command::BotsAgreeDraw => "bots_agree_draw",
            Command::BotAnswerDraw { .. } => "bot_answer_draw",
        }
    }

    /// Whether the command creates the game (its first event is `created`).
    pub fn creates_game(&self) -> bool {
        matches!(self, Command::Create(_) | Command::Import(_))
    }
}

/// A command for one game.
#[derive(Debug, Clone)]
pub struct Write {
    pub game_id: GameId,
    pub command: Command,
    pub actor: Actor,
    /// The version the actor decided at; `None` applies the command to the current state.
    pub expected: Option<i64>,
    /// The login session a player acts through, if any: the write happens only while it
    /// is live, checked inside the write itself (so a logout stops the very next move,
    /// without a query of its own before the write).
    pub session: Option<SessionId>,
    /// The quotas of a player's write (`None` for the server's own writes): checked in
    /// the write's transaction when it creates a game or leaves one to bots alone
    /// ([`crate::games::quotas`]).
    pub quotas: Option<crate::config::Quotas>,
}

/// What a write did.
#[derive(Debug, Clone)]
pub struct Written {
    /// The state before (`None` for a new game).
    pub before: Option<Arc<GameState>>,
    pub state: Arc<GameState>,
    pub events: Vec<Event>,
    /// The domain steps of the action events, in order.
    pub steps: Vec<Step>,
    /// The number of the first new event.
    pub first_seq: i64,
}

impl Written {
    /// Whether the write ended the game (its events hold `ended`).
    pub fn ends_game(&self) -> bool {
        self.events.iter().any(|e| matches!(e, Event::Ended { .. }))
    }

    /// What [`notifications::plan`] reads of it; `deadline` is the effective deadline of
    /// the turn after ([`crate::games::deadlines`]).
    pub fn wrote(&self, deadline: Option<chrono::NaiveDateTime>) -> notifications::Wrote<'_> {
        notifications::Wrote {
            deadline,
            before: self.before.as_deref(),
            state: &self.state,
            events: &self.events,
            steps: &self.steps,
        }
    }
}

/// Why a command was not written. Nothing was written in every case.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    #[error("no game {0}")]
    NotFound(String),
    #[error("expected version {expected}, the game is at {current_version}")]
    VersionConflict { expected: i64, current_version: i64 },
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    NotYourTurn(String),
    #[error("{detail}")]
    IllegalMove {
        /// A stable, machine-readable reason (see [`move_error_reason`]).
        reason: &'static str,
        detail: String,
    },
    #[error("{0}")]
    GameOver(String),
    #[error("{0}")]
    GameNotStarted(String),
    #[error("{0}")]
    SeatTaken(String),
    #[error("{0}")]
    Conflict(String),
    /// Every attempt met a concurrent write or a transient failure.
    #[error("{0}")]
    Busy(String),
    /// The actor's login session ended (logout, password change, revocation).
    #[error("the session has ended")]
    SessionEnded,
    /// A quota of the account (or the site's cap on games of bots alone) is reached.
    #[error("{0}")]
    Quota(crate::quota::Exceeded),
    /// The `Idempotency-Key` was used before for another request.
    #[error("the Idempotency-Key {0:?} was already used for a different request")]
    IdempotencyKeyReused(String),
    #[error(transparent)]
    Store(StoreError),
    /// A record to import that does not read or replay: its first bad line and why.
    #[error(transparent)]
    InvalidRecord(RecordError),
}

impl From<StoreError> for CommandError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::NotFound(id) => CommandError::NotFound(id),
            other => CommandError::Store(other),
        }
    }
}

impl From<diesel::result::Error> for CommandError {
    fn from(e: diesel::result::Error) -> Self {
        StoreError::from(e).into()
    }
}

impl From<store::RunError> for CommandError {
    fn from(e: store::RunError) -> Self {
        StoreError::from(e).into()
    }
}
