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
//! ([`store::append_in_one_statement`]), whose claim is the check. The cache is not
//! trusted: nothing is written unless the database is at the cached version. A command
//! refused on the cached state goes down the normal path, so a stale client still gets
//! 412 rather than a refusal computed on an old state.

use std::sync::Arc;
use std::time::Duration;

use chrono::NaiveDateTime;
use domain::{
    Action, ActionError, GameSettings, Move, MoveError, RecordError, RecordErrorKind, Seat,
    SeatSet, Step,
};

use super::cache::GameCache;
use super::clock::Clock;
use super::events::{Event, GameKind, Status, Visibility};
use super::state::{FoldError, GameState, result_of};
use super::store::{self, StoreError};
use super::timing::TimeControl;
use crate::db::{self, DbConnection};
use crate::notifications;

/// How many times a write is tried before it gives up with [`CommandError::Busy`].
pub const MAX_ATTEMPTS: u32 = 8;

/// Who acts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Actor {
    /// A player, by account id.
    Player(String),
    /// The server itself (the clock, a computer player).
    System,
}

impl Actor {
    /// The account id stored as the events' actor (`None` for the server).
    pub fn account(&self) -> Option<&str> {
        match self {
            Actor::Player(id) => Some(id),
            Actor::System => None,
        }
    }
}

/// What to do about a draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
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
}

/// Something to do to a game.
#[derive(Debug, Clone)]
pub enum Command {
    /// Create the game (its id is the write's `game_id`).
    Create(NewGame),
    TakeSeat {
        seat: Seat,
        invite_code: Option<String>,
    },
    LeaveSeat {
        seat: Seat,
    },
    Play(Move),
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
            Command::Resign => "resign",
            Command::Draw(_) => "draw",
            Command::Import(_) => "import",
            Command::TimeOut { .. } => "time_out",
            Command::SeatBot { .. } => "seat_bot",
            Command::BotMove { .. } => "bot_move",
            Command::BotsAgreeDraw => "bots_agree_draw",
        }
    }

    /// Whether the command creates the game (its first event is `created`).
    fn creates_game(&self) -> bool {
        matches!(self, Command::Create(_) | Command::Import(_))
    }
}

/// A command for one game.
#[derive(Debug, Clone)]
pub struct Write {
    pub game_id: String,
    pub command: Command,
    pub actor: Actor,
    /// The version the actor decided at; `None` applies the command to the current state.
    pub expected: Option<i64>,
    /// The login session a player acts through, if any: the write happens only while it
    /// is live, checked inside the write itself (so a logout stops the very next move,
    /// without a query of its own before the write).
    pub session: Option<String>,
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
        game_id: String,
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

impl From<db::RunError> for CommandError {
    fn from(e: db::RunError) -> Self {
        StoreError::from(e).into()
    }
}

/// The caller's own step inside the write's transaction (it sees what was written; an
/// error rolls everything back).
pub type TxStep<'a> = dyn FnMut(&mut DbConnection, &Written) -> Result<(), StoreError> + 'a;
pub type InTransaction<'a> = &'a mut TxStep<'a>;

/// Runs a write (see the module documentation). Blocking: call it on a blocking thread.
pub fn execute(
    conn: &mut DbConnection,
    cache: &GameCache,
    clock: &dyn Clock,
    write: &Write,
    mut in_tx: Option<InTransaction<'_>>,
) -> Result<Written, CommandError> {
    let create = write.command.creates_game();
    let mut last_failure = String::new();
    for attempt in 0..MAX_ATTEMPTS {
        if attempt > 0 {
            backoff(attempt);
        }
        if in_tx.is_none() && !create {
            match fast_path(conn, cache, clock, write) {
                Ok(Some(written)) => {
                    cache.put(written.state.clone());
                    return Ok(written);
                }
                Ok(None) => {}
                Err(failure) => match settle(conn, write, failure) {
                    Ok(why) => {
                        last_failure = why;
                        continue;
                    }
                    Err(e) => return Err(e),
                },
            }
        }
        match attempt_in_transaction(conn, cache, clock, write, in_tx.as_deref_mut()) {
            Ok(written) => {
                cache.put(written.state.clone());
                return Ok(written);
            }
            Err(failure) => last_failure = settle(conn, write, failure)?,
        }
        if create {
            break;
        }
    }
    tracing::warn!(
        game = %write.game_id,
        command = write.command.name(),
        %last_failure,
        "write gave up after {MAX_ATTEMPTS} attempts"
    );
    Err(CommandError::Busy(
        "the game is busy with concurrent writes; retry shortly".into(),
    ))
}

/// What a failed attempt means: `Ok(reason)` to try again, or the final error.
fn settle(conn: &mut DbConnection, write: &Write, failure: Retry) -> Result<String, CommandError> {
    match failure {
        Retry::Moved => match moved(conn, write) {
            Retry::Fail(e) => Err(e),
            Retry::Again(why) => Ok(why),
            Retry::Moved => Ok("the version moved".into()),
        },
        Retry::Again(why) => Ok(why),
        Retry::Fail(e) => Err(e),
    }
}

/// A short random pause before attempt `attempt` (1-based), growing with each attempt.
fn backoff(attempt: u32) {
    use rand::Rng;
    let cap_ms = 2u64.saturating_pow(attempt.min(6));
    let ms = rand::thread_rng().gen_range(0..=cap_ms);
    std::thread::sleep(Duration::from_millis(ms));
}

/// How one attempt failed.
enum Retry {
    /// Another write claimed the version first (see [`moved`]).
    Moved,
    /// Try again (the reason is logged if every attempt fails).
    Again(String),
    Fail(CommandError),
}

impl From<CommandError> for Retry {
    fn from(e: CommandError) -> Self {
        match e {
            CommandError::Store(StoreError::Transient(why)) => Retry::Again(why),
            other => Retry::Fail(other),
        }
    }
}

impl From<diesel::result::Error> for Retry {
    fn from(e: diesel::result::Error) -> Self {
        CommandError::from(e).into()
    }
}

/// Maps "the version moved" for this write: a conflict when it named its version, else
/// another attempt.
fn moved(conn: &mut DbConnection, write: &Write) -> Retry {
    tracing::debug!(game = %write.game_id, "version moved during a write");
    match write.expected {
        Some(expected) => match store::current_version(conn, &write.game_id) {
            Ok(current_version) => Retry::Fail(CommandError::VersionConflict {
                expected,
                current_version,
            }),
            Err(e) => CommandError::from(e).into(),
        },
        None if write.command.creates_game() => Retry::Fail(CommandError::Conflict(format!(
            "a game {} already exists",
            write.game_id
        ))),
        None => Retry::Again("the version moved".into()),
    }
}

/// One attempt of the normal path, in a transaction.
fn attempt_in_transaction(
    conn: &mut DbConnection,
    cache: &GameCache,
    clock: &dyn Clock,
    write: &Write,
    in_tx: Option<&mut TxStep<'_>>,
) -> Result<Written, Retry> {
    db::transaction(conn, |conn| -> Result<Written, Retry> {
        let (version, before) = if write.command.creates_game() {
            (0, None)
        } else {
            let version =
                store::current_version(conn, &write.game_id).map_err(CommandError::from)?;
            if let Some(expected) = write.expected {
                if expected != version {
                    return Err(Retry::Fail(CommandError::VersionConflict {
                        expected,
                        current_version: version,
                    }));
                }
            }
            let state = store::state_at(conn, cache, &write.game_id, version, true)
                .map_err(CommandError::from)?;
            (version, Some(state))
        };
        if let Some(session) = &write.session {
            let user = write.actor.account().unwrap_or_default();
            if !store::session_is_live(conn, session, user).map_err(CommandError::from)? {
                return Err(Retry::Fail(CommandError::SessionEnded));
            }
        }
        let pending = decide(write, before.as_deref(), clock.now())?;
        let written = pending.into_written(before, version)?;
        match store::append(
            conn,
            version,
            &written.events,
            write.actor.account(),
            &written.state,
        ) {
            Ok(()) => {}
            Err(StoreError::VersionMoved) => return Err(Retry::Moved),
            Err(e) => return Err(CommandError::from(e).into()),
        }
        notifications::enqueue(conn, &notifications::plan(&written, write.actor.account()))
            .map_err(CommandError::from)?;
        if let Some(step) = in_tx {
            step(conn, &written).map_err(|e| match e {
                // The caller's own unique key met a twin (e.g. a racing retry with the
                // same Idempotency-Key): roll back; the caller sorts it out.
                StoreError::VersionMoved => Retry::Fail(CommandError::Conflict(
                    "a concurrent request with the same key was written first".into(),
                )),
                other => CommandError::from(other).into(),
            })?;
        }
        Ok(written)
    })
}

/// The one-statement write of the module documentation; `Ok(None)` when it does not
/// apply (or the command refused: the normal path then answers).
fn fast_path(
    conn: &mut DbConnection,
    cache: &GameCache,
    clock: &dyn Clock,
    write: &Write,
) -> Result<Option<Written>, Retry> {
    let DbConnection::Pg(pg) = conn else {
        return Ok(None);
    };
    let before = match write.expected {
        Some(expected) => cache
            .get_at_most(&write.game_id, expected)
            .filter(|s| s.version == expected),
        None => cache.latest(&write.game_id),
    };
    let Some(before) = before else {
        return Ok(None);
    };
    let Ok(pending) = decide(write, Some(&before), clock.now()) else {
        return Ok(None);
    };
    let version = before.version;
    if !store::fits_one_statement(version, &pending.events) {
        return Ok(None);
    }
    let written = pending.into_written(Some(before), version)?;
    let guard = write.session.as_deref().zip(write.actor.account());
    let notes = notifications::plan(&written, write.actor.account());
    match store::append_in_one_statement(
        pg,
        version,
        &written.events,
        write.actor.account(),
        &written.state,
        guard,
        &notes,
    ) {
        Ok(true) => Ok(Some(written)),
        // Nothing written: the version moved, or the session ended.
        Ok(false)
            if guard.is_some_and(|(sid, uid)| {
                !store::session_is_live(conn, sid, uid).unwrap_or(true)
            }) =>
        {
            Err(Retry::Fail(CommandError::SessionEnded))
        }
        // Moved on: a stale client is answered by `moved`; a command without an expected
        // version goes down the normal path, which reads the current version.
        Ok(false) if write.expected.is_some() => Err(Retry::Moved),
        Ok(false) => Ok(None),
        Err(StoreError::VersionMoved) => Err(Retry::Moved),
        Err(e) => Err(CommandError::from(e).into()),
    }
}

/// The events a command is writing, folded as they are added.
struct Pending {
    id: String,
    state: Option<GameState>,
    events: Vec<Event>,
    steps: Vec<Step>,
    now: NaiveDateTime,
}

impl Pending {
    /// Adds an event; the state folds it at once (and refuses it if it does not fit).
    fn push(&mut self, event: Event) -> Result<(), FoldError> {
        let step = match &mut self.state {
            None => {
                self.state = Some(GameState::created(&self.id, &event, self.now)?);
                None
            }
            Some(s) => s.apply(&event, self.now)?,
        };
        self.steps.extend(step);
        self.events.push(event);
        Ok(())
    }

    /// Adds an event the command has already validated: a refusal is a bug.
    fn push_checked(&mut self, event: Event) -> Result<(), CommandError> {
        let kind = event.kind();
        self.push(event).map_err(|e| {
            CommandError::Store(StoreError::Corrupt(format!(
                "`{kind}` refused after checks: {e}"
            )))
        })
    }

    /// Appends `ended` if the last action finished the game.
    fn end_if_over(&mut self) -> Result<(), CommandError> {
        let result = self
            .state
            .as_ref()
            .filter(|s| s.status == Status::Active && s.game.is_over())
            .and_then(|s| s.actions.last().and_then(|a| result_of(&s.game, a)));
        if let Some(result) = result {
            self.push_checked(Event::Ended { result })?;
        }
        Ok(())
    }

    fn into_written(
        self,
        before: Option<Arc<GameState>>,
        version: i64,
    ) -> Result<Written, CommandError> {
        let state = self
            .state
            .filter(|_| !self.events.is_empty())
            .ok_or_else(|| {
                CommandError::Store(StoreError::Corrupt("a command wrote no event".into()))
            })?;
        Ok(Written {
            before,
            state: Arc::new(state),
            events: self.events,
            steps: self.steps,
            first_seq: version + 1,
        })
    }
}

/// Decides the events of `write` on `before` (the state at the version it will be
/// appended at; `None` for a new game).
fn decide(
    write: &Write,
    before: Option<&GameState>,
    now: NaiveDateTime,
) -> Result<Pending, CommandError> {
    let mut p = Pending {
        id: write.game_id.clone(),
        state: before.cloned(),
        events: Vec::new(),
        steps: Vec::new(),
        now,
    };
    let player = || {
        write.actor.account().ok_or_else(|| {
            CommandError::Forbidden(format!("`{}` is a player's command", write.command.name()))
        })
    };
    match &write.command {
        _ if before.is_some_and(|s| s.kind == GameKind::Study) => {
            return Err(CommandError::Conflict(format!(
                "game {} is a study game, imported from a record: it has no seats to take \
                 and takes no actions",
                write.game_id
            )));
        }
        Command::Create(new) => create(&mut p, player()?, new)?,
        Command::TakeSeat { seat, invite_code } => {
            join(&mut p, player()?, *seat, invite_code.as_deref())?
        }
        Command::LeaveSeat { seat } => leave(&mut p, player()?, *seat)?,
        Command::Play(mv) => play(&mut p, player()?, *mv)?,
        Command::Resign => resign(&mut p, player()?)?,
        Command::Draw(action) => draw(&mut p, player()?, *action)?,
        Command::Import(record) => import(&mut p, player()?, record)?,
        Command::TimeOut { seat } => {
            if write.actor != Actor::System {
                return Err(CommandError::Forbidden(
                    "only the server times a seat out".into(),
                ));
            }
            time_out(&mut p, *seat)?
        }
        Command::SeatBot { seat, level } => seat_bot(&mut p, player()?, *seat, *level)?,
        Command::BotMove { seat, mv } => {
            system_only(write)?;
            bot_move(&mut p, *seat, *mv)?
        }
        Command::BotsAgreeDraw => {
            system_only(write)?;
            bots_agree_draw(&mut p)?
        }
    }
    Ok(p)
}

fn create(p: &mut Pending, creator: &str, new: &NewGame) -> Result<(), CommandError> {
    p.push_checked(Event::Created {
        ruleset: new.settings.ruleset.id().into(),
        seats: new.settings.seats.to_string(),
        hostage_seat: new.hostage_seat,
        visibility: new.visibility,
        created_by: creator.into(),
        invite_code: new.invite_code.clone(),
        kind: GameKind::Play,
        record_headers: Vec::new(),
        time_control: new.time_control,
    })?;
    if let Some(seat) = new.creator_seat {
        p.push_checked(Event::SeatTaken {
            seat,
            user_id: creator.into(),
        })?;
    }
    for &(seat, level) in &new.bots {
        p.push(Event::BotSeated { seat, level })
            .map_err(|e| CommandError::Conflict(format!("bot for seat {seat}: {e}")))?;
    }
    let full = {
        let s = state_of(p)?;
        s.settings.seats.iter().all(|x| !s.is_free(x))
    };
    if !new.bots.is_empty() && full {
        p.push_checked(Event::Started {})?;
    }
    Ok(())
}

/// A study game from a record: `created` (kind `study`, the record's headers), then one
/// event per action, each folded (and so checked) by the rules engine as it is added,
/// and `ended` when the record's game is over. The record was already read and replayed
/// by [`domain::read_record`]; a refusal here still names the record's line.
fn import(p: &mut Pending, importer: &str, import: &ImportRecord) -> Result<(), CommandError> {
    let record = domain::read_record(&import.text).map_err(CommandError::InvalidRecord)?;
    if let Some(&line) = record.action_lines.get(MAX_RECORD_ACTIONS) {
        return Err(CommandError::InvalidRecord(RecordError {
            line,
            kind: RecordErrorKind::Syntax(format!(
                "a record may hold at most {MAX_RECORD_ACTIONS} actions"
            )),
        }));
    }
    let settings = record.settings;
    let hostage_seat = (settings.seats.len() == 3)
        .then(|| Seat::ALL.into_iter().find(|s| !settings.seats.contains(*s)))
        .flatten();
    p.push_checked(Event::Created {
        ruleset: settings.ruleset.id().into(),
        seats: settings.seats.to_string(),
        hostage_seat,
        visibility: import.visibility,
        created_by: importer.into(),
        invite_code: None,
        kind: GameKind::Study,
        record_headers: record.headers.clone(),
        time_control: None,
    })?;
    for (action, &line) in record.actions.iter().zip(&record.action_lines) {
        let s = state_of(p)?;
        let event = match action {
            Action::Move(mv) => {
                let position = s.game.position();
                Event::MovePlayed {
                    seat: position.to_move().unwrap_or(Seat::Red),
                    mv: *mv,
                    text: position.move_text(mv).to_string(),
                }
            }
            Action::Resign(seat) => Event::Resigned { seat: *seat },
            Action::Timeout(seat) => Event::TimedOut { seat: *seat },
            Action::AgreedDraw => {
                let mut drawn = s.game.clone();
                let result = drawn
                    .apply(&Action::AgreedDraw)
                    .ok()
                    .and_then(|_| super::state::result_of(&drawn, &Action::AgreedDraw));
                match result {
                    Some(result) => Event::Ended { result },
                    None => {
                        return Err(refused_at(line, action, "the game is over".into()));
                    }
                }
            }
        };
        p.push(event)
            .map_err(|e| refused_at(line, action, e.to_string()))?;
        p.end_if_over()?;
    }
    Ok(())
}

/// A record's action the state refused (the reader let it through: a bug, but named).
fn refused_at(line: usize, action: &Action, why: String) -> CommandError {
    CommandError::InvalidRecord(RecordError {
        line,
        kind: RecordErrorKind::Illegal {
            action: format!("{action:?}"),
            why,
        },
    })
}

fn state_of(p: &Pending) -> Result<&GameState, CommandError> {
    p.state
        .as_ref()
        .ok_or_else(|| CommandError::NotFound(p.id.clone()))
}

fn join(
    p: &mut Pending,
    user: &str,
    seat: Seat,
    invite_code: Option<&str>,
) -> Result<(), CommandError> {
    let s = state_of(p)?;
    match s.status {
        Status::Open => {}
        Status::Active => {
            return Err(CommandError::SeatTaken(
                "the game has started: every seat is taken".into(),
            ));
        }
        Status::Finished => return Err(CommandError::GameOver("the game is over".into())),
    }
    if !s.settings.seats.contains(seat) {
        return Err(CommandError::Conflict(format!(
            "seat {seat} is not in play in this game (seats: {})",
            s.settings.seats
        )));
    }
    if let Some(holder) = s.player(seat) {
        let detail = if holder == user {
            format!("you already hold seat {seat}")
        } else {
            format!("seat {seat} is taken")
        };
        return Err(CommandError::SeatTaken(detail));
    }
    if let Some(level) = s.bot(seat) {
        return Err(CommandError::SeatTaken(format!(
            "seat {seat} is taken by a computer player (level {level})"
        )));
    }
    if let Some(mine) = s.seat_of(user) {
        return Err(CommandError::Conflict(format!(
            "you already hold seat {mine} in this game; one player holds one seat"
        )));
    }
    if s.visibility == Visibility::Invite
        && s.created_by != user
        && invite_code != s.invite_code.as_deref()
    {
        return Err(CommandError::Forbidden(
            "this game is invite-only: give its `invite_code` to take a seat".into(),
        ));
    }
    let last = s
        .settings
        .seats
        .iter()
        .filter(|x| *x != seat)
        .all(|x| !s.is_free(x));
    p.push_checked(Event::SeatTaken {
        seat,
        user_id: user.into(),
    })?;
    if last {
        p.push_checked(Event::Started {})?;
    }
    Ok(())
}

fn leave(p: &mut Pending, user: &str, seat: Seat) -> Result<(), CommandError> {
    let s = state_of(p)?;
    if s.status != Status::Open {
        return Err(CommandError::Conflict(
            "the game has started: a seat can no longer be left (resign instead)".into(),
        ));
    }
    match s.player(seat) {
        None if s.bot(seat).is_some() => Err(CommandError::Conflict(format!(
            "seat {seat} holds a computer player, which stays for the whole game"
        ))),
        None => Err(CommandError::Conflict(format!("seat {seat} is free"))),
        Some(holder) if holder != user => Err(CommandError::Forbidden(format!(
            "seat {seat} is held by another player"
        ))),
        Some(_) => p.push_checked(Event::SeatLeft {
            seat,
            user_id: user.into(),
        }),
    }
}

/// Checks that the game is being played and `user` holds a seat in it; returns the seat.
fn acting_seat(s: &GameState, user: &str) -> Result<Seat, CommandError> {
    match s.status {
        Status::Open => {
            return Err(CommandError::GameNotStarted(
                "the game has not started: seats are still free".into(),
            ));
        }
        Status::Finished => {
            return Err(CommandError::GameOver(
                "the game is over and accepts no more actions".into(),
            ));
        }
        Status::Active => {}
    }
    s.seat_of(user)
        .ok_or_else(|| CommandError::Forbidden("you hold no seat in this game".into()))
}

/// A stable, machine-readable name for why a move is illegal.
pub fn move_error_reason(e: &MoveError) -> &'static str {
    match e {
        MoveError::GameOver => "game-over",
        MoveError::EmptySquare(_) => "empty-square",
        MoveError::NotYourPiece { .. } => "not-your-piece",
        MoveError::Unreachable { .. } => "unreachable",
        MoveError::MissingPlacement { .. } => "missing-placement",
        MoveError::ForbiddenPlacement { .. } => "forbidden-placement",
        MoveError::UnexpectedPlacement => "unexpected-placement",
        MoveError::MissingExit => "missing-exit",
        MoveError::ForbiddenExit(_) => "forbidden-exit",
        MoveError::UnexpectedExit => "unexpected-exit",
        MoveError::ForbiddenVictim(_) => "forbidden-victim",
        MoveError::UnexpectedVictim => "unexpected-victim",
        MoveError::MissingVictim(_) => "missing-victim",
    }
}

fn play(p: &mut Pending, user: &str, mv: Move) -> Result<(), CommandError> {
    let s = state_of(p)?;
    let seat = acting_seat(s, user)?;
    let position = s.game.position();
    let to_move = position
        .to_move()
        .ok_or_else(|| CommandError::GameOver("the game is over".into()))?;
    if to_move != seat {
        return Err(CommandError::NotYourTurn(format!(
            "it is {to_move}'s turn; you hold seat {seat}"
        )));
    }
    let text = position.move_text(&mv).to_string();
    push_move(p, seat, mv, text, "move")
}

/// Appends `seat`'s move (the rules engine checks it as the state folds it), then `ended`
/// if it finished the game. `who` names the mover in the message of a refusal that the
/// checks before should have prevented.
fn push_move(
    p: &mut Pending,
    seat: Seat,
    mv: Move,
    text: String,
    who: &str,
) -> Result<(), CommandError> {
    match p.push(Event::MovePlayed { seat, mv, text }) {
        Ok(()) => {}
        Err(FoldError::Action(ActionError::Move(e))) => {
            return Err(CommandError::IllegalMove {
                game_id: p.id.clone(),
                reason: move_error_reason(&e),
                detail: e.to_string(),
            });
        }
        Err(e) => {
            return Err(CommandError::Store(StoreError::Corrupt(format!(
                "{who} refused: {e}"
            ))));
        }
    }
    p.end_if_over()
}

fn resign(p: &mut Pending, user: &str) -> Result<(), CommandError> {
    let s = state_of(p)?;
    let seat = acting_seat(s, user)?;
    if !s.game.position().is_active(seat) {
        return Err(CommandError::Conflict(format!(
            "seat {seat} is already out of the game"
        )));
    }
    p.push_checked(Event::Resigned { seat })?;
    p.end_if_over()
}

/// Times `seat` out: it must still be to move, with its deadline passed at `p.now`.
fn time_out(p: &mut Pending, seat: Seat) -> Result<(), CommandError> {
    let s = state_of(p)?;
    if s.to_move() != Some(seat) {
        return Err(CommandError::Conflict(format!(
            "seat {seat} is not to move: nothing to time out"
        )));
    }
    match s.deadline() {
        Some(deadline) if deadline <= p.now => {}
        _ => {
            return Err(CommandError::Conflict(format!(
                "seat {seat}'s deadline has not passed"
            )));
        }
    }
    p.push_checked(Event::TimedOut { seat })?;
    p.end_if_over()
}

fn draw(p: &mut Pending, user: &str, action: DrawAction) -> Result<(), CommandError> {
    let s = state_of(p)?;
    let seat = acting_seat(s, user)?;
    let active: SeatSet = s.game.position().active_seats();
    if !active.contains(seat) {
        return Err(CommandError::Conflict(format!(
            "seat {seat} is out of the game and takes no part in draw offers"
        )));
    }
    let offer = s.draw_offer.clone();
    match (action, offer) {
        (DrawAction::Offer, Some(o)) => Err(CommandError::Conflict(format!(
            "seat {} already offered a draw; accept or decline it",
            o.by
        ))),
        (DrawAction::Offer, None) => p.push_checked(Event::DrawOffered { seat }),
        (DrawAction::Accept | DrawAction::Decline, None) => {
            Err(CommandError::Conflict("no draw offer is pending".into()))
        }
        (DrawAction::Accept, Some(o)) if o.accepted.contains(seat) => Err(CommandError::Conflict(
            format!("seat {seat} has already accepted this offer"),
        )),
        (DrawAction::Accept, Some(o)) => {
            let everyone = active.iter().all(|x| x == seat || o.accepted.contains(x));
            let mut drawn = s.game.clone();
            p.push_checked(Event::DrawAccepted { seat })?;
            if everyone {
                let corrupt = |m: String| CommandError::Store(StoreError::Corrupt(m));
                drawn
                    .apply(&Action::AgreedDraw)
                    .map_err(|e| corrupt(format!("agreed draw: {e}")))?;
                let result = result_of(&drawn, &Action::AgreedDraw)
                    .ok_or_else(|| corrupt("an agreed draw has no result".into()))?;
                p.push_checked(Event::Ended { result })?;
            }
            Ok(())
        }
        (DrawAction::Decline, Some(_)) => p.push_checked(Event::DrawDeclined { seat }),
    }
}

fn system_only(write: &Write) -> Result<(), CommandError> {
    if write.actor == Actor::System {
        Ok(())
    } else {
        Err(CommandError::Forbidden(format!(
            "`{}` is the server's command",
            write.command.name()
        )))
    }
}

/// Seats a computer player: the same refusals as taking a seat, and only the game's
/// creator or one of its seated players may do it.
fn seat_bot(p: &mut Pending, user: &str, seat: Seat, level: u8) -> Result<(), CommandError> {
    let s = state_of(p)?;
    match s.status {
        Status::Open => {}
        Status::Active => {
            return Err(CommandError::SeatTaken(
                "the game has started: every seat is taken".into(),
            ));
        }
        Status::Finished => return Err(CommandError::GameOver("the game is over".into())),
    }
    if s.created_by != user && s.seat_of(user).is_none() {
        return Err(CommandError::Forbidden(
            "only the game's creator or a seated player may seat a computer player".into(),
        ));
    }
    if !s.settings.seats.contains(seat) {
        return Err(CommandError::Conflict(format!(
            "seat {seat} is not in play in this game (seats: {})",
            s.settings.seats
        )));
    }
    if !s.is_free(seat) {
        return Err(CommandError::SeatTaken(format!("seat {seat} is taken")));
    }
    if domain::Level::new(level).is_none() {
        return Err(CommandError::Conflict(format!(
            "level {level}: a computer player's level is 1 to 5"
        )));
    }
    let last = s
        .settings
        .seats
        .iter()
        .filter(|x| *x != seat)
        .all(|x| !s.is_free(x));
    p.push_checked(Event::BotSeated { seat, level })?;
    if last {
        p.push_checked(Event::Started {})?;
    }
    Ok(())
}

/// A bot's move: `seat` must be a bot's and to move; the move must be legal.
fn bot_move(p: &mut Pending, seat: Seat, mv: Move) -> Result<(), CommandError> {
    let s = state_of(p)?;
    if s.to_move() != Some(seat) || s.bot(seat).is_none() {
        return Err(CommandError::Conflict(format!(
            "seat {seat} is not a computer player to move"
        )));
    }
    let text = s.game.position().move_text(&mv).to_string();
    push_move(p, seat, mv, text, "bot move")
}

/// Every active seat is a bot's: the bot to move offers a draw, the others accept, and
/// the game ends as an agreed draw (RULES.md section 7: every active seat accepted).
fn bots_agree_draw(p: &mut Pending) -> Result<(), CommandError> {
    let s = state_of(p)?;
    let Some((by, _)) = s.bot_to_move() else {
        return Err(CommandError::Conflict(
            "no computer player is to move".into(),
        ));
    };
    if !s.only_bots_active() || s.draw_offer.is_some() {
        return Err(CommandError::Conflict(
            "a draw among computer players needs every active seat to be one, and no \
             pending offer"
                .into(),
        ));
    }
    let others: Vec<Seat> = s
        .game
        .position()
        .active_seats()
        .iter()
        .filter(|x| *x != by)
        .collect();
    let mut drawn = s.game.clone();
    let corrupt = |m: String| CommandError::Store(StoreError::Corrupt(m));
    drawn
        .apply(&Action::AgreedDraw)
        .map_err(|e| corrupt(format!("agreed draw: {e}")))?;
    let result = result_of(&drawn, &Action::AgreedDraw)
        .ok_or_else(|| corrupt("an agreed draw has no result".into()))?;
    p.push_checked(Event::DrawOffered { seat: by })?;
    for seat in others {
        p.push_checked(Event::DrawAccepted { seat })?;
    }
    p.push_checked(Event::Ended { result })
}
