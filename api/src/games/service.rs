//! The game commands (create, join, leave, play, resign, draw) and the one write path they
//! share, [`execute`]:
//!
//! 1. in one transaction: replay the stored answer if the `Idempotency-Key` was seen;
//!    read the projection's version (404 if no game) and check the client's expected
//!    version (412); take the state at that version (cache or replay); let the command
//!    decide its events, folding each onto a copy of the state (the rules engine rejects
//!    illegal actions here); append the events and write the projection (optimistic: see
//!    [`super::store`]); render the response and store it under the idempotency key;
//! 2. after the commit, put the new state in the cache.
//!
//! Fast path (PostgreSQL, an action with an expected version, no idempotency key, the
//! state at that version in the cache): the command decides on the cached state and the
//! events and projection are written by one statement whose `WHERE version = expected`
//! is the check (see [`store::append_pg_single_statement`]). The cache is not trusted:
//! the write happens only if the database is at the cached state's version. If the
//! command refuses, the normal path runs, so a stale client still gets 412 rather than
//! a refusal computed on an old state.
//!
//! A write that loses a race is rolled back and answered `412 version-conflict` with the
//! current version (or, when its twin with the same idempotency key won, with the twin's
//! stored response).

use std::sync::Arc;

use actix_web::web;
use chrono::NaiveDateTime;
use domain::{Action, ActionError, GameSettings, Move, MoveError, Seat, SeatSet, Step};

use super::events::{Event, Status, Visibility};
use super::idempotency::{self, IdemRequest, StoredResponse};
use super::state::{FoldError, GameState, result_of};
use super::store::{self, AppendError};
use crate::db::{self, DbConnection};
use crate::error::ApiError;
use crate::state::AppState;

/// The events a command is writing, folded as they are added.
pub struct Pending {
    id: String,
    state: Option<GameState>,
    events: Vec<Event>,
    steps: Vec<Step>,
    now: NaiveDateTime,
}

impl Pending {
    /// The state with the events added so far (`None` before `created`).
    pub fn state(&self) -> Option<&GameState> {
        self.state.as_ref()
    }

    /// Adds an event; the state folds it at once (and refuses it if it does not fit).
    pub fn push(&mut self, event: Event) -> Result<Option<Step>, FoldError> {
        let step = match &mut self.state {
            None => {
                self.state = Some(GameState::created(&self.id, &event, self.now)?);
                None
            }
            Some(s) => s.apply(&event, self.now)?,
        };
        if let Some(step) = &step {
            self.steps.push(step.clone());
        }
        self.events.push(event);
        Ok(step)
    }

    /// Adds an event the command has already validated: a refusal is a bug.
    pub fn push_checked(&mut self, event: Event) -> Result<Option<Step>, ApiError> {
        let kind = event.kind();
        self.push(event)
            .map_err(|e| ApiError::internal(format!("`{kind}` refused after checks: {e}")))
    }

    /// Appends `ended` if the last action finished the game.
    fn end_if_over(&mut self) -> Result<(), ApiError> {
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
}

/// What a successful write did, for rendering its response.
pub struct Applied {
    /// The state before (`None` for a new game).
    pub before: Option<Arc<GameState>>,
    pub state: Arc<GameState>,
    pub events: Vec<Event>,
    /// The domain steps of the action events, in order.
    pub steps: Vec<Step>,
    /// The number of the first new event.
    pub first_seq: i64,
}

/// A write's answer: freshly made, or replayed from the idempotency store.
pub enum WriteOutcome {
    Done(StoredResponse),
    Replayed(StoredResponse),
}

/// What to write to.
pub struct Write {
    pub game_id: String,
    /// A new game (no projection row yet).
    pub create: bool,
    pub expected: Option<i64>,
    pub idem: Option<IdemRequest>,
    pub actor: String,
}

enum TxError {
    Conflict,
    Api(ApiError),
}

impl From<diesel::result::Error> for TxError {
    fn from(e: diesel::result::Error) -> Self {
        AppendError::from(e).into()
    }
}

impl From<ApiError> for TxError {
    fn from(e: ApiError) -> Self {
        TxError::Api(e)
    }
}

impl From<AppendError> for TxError {
    fn from(e: AppendError) -> Self {
        match e {
            AppendError::Conflict => TxError::Conflict,
            AppendError::Other(e) => TxError::Api(e),
        }
    }
}

enum TxDone {
    Done(StoredResponse, Arc<GameState>),
    Replayed(StoredResponse),
}

/// Runs a write (see the module documentation).
pub async fn execute<D, R>(
    app: &web::Data<AppState>,
    write: Write,
    decide: D,
    render: R,
) -> Result<WriteOutcome, ApiError>
where
    D: Fn(&mut Pending) -> Result<(), ApiError> + Send + 'static,
    R: FnOnce(&mut DbConnection, &Applied) -> Result<StoredResponse, ApiError> + Send + 'static,
{
    let app = app.clone();
    let pool = app.pool.clone();
    db::run(&pool, move |conn| {
        let cache = &app.games;
        if let Some(outcome) = fast_path(conn, cache, &write, &decide)? {
            let (response, state) = match outcome {
                FastOutcome::Written(applied) => (render(conn, &applied)?, applied.state),
                FastOutcome::Conflict { expected } => {
                    let current_version = store::current_version(conn, &write.game_id)?;
                    return Err(ApiError::VersionConflict {
                        expected,
                        current_version,
                    });
                }
            };
            cache.put(state);
            return Ok(WriteOutcome::Done(response));
        }
        let mut read_version = write.expected.unwrap_or(0);
        let result = db::transaction(conn, |conn| -> Result<TxDone, TxError> {
            if let Some(idem) = &write.idem {
                if let Some(stored) = idempotency::lookup(conn, idem)? {
                    return Ok(TxDone::Replayed(stored));
                }
            }
            let (expected, before) = if write.create {
                (0, None)
            } else {
                let version = store::current_version(conn, &write.game_id)?;
                read_version = version;
                if let Some(e) = write.expected {
                    if e != version {
                        return Err(ApiError::VersionConflict {
                            expected: e,
                            current_version: version,
                        }
                        .into());
                    }
                }
                let state = store::state_at(conn, cache, &write.game_id, version, true)?;
                (version, Some(state))
            };
            let mut pending = Pending {
                id: write.game_id.clone(),
                state: before.as_deref().cloned(),
                events: Vec::new(),
                steps: Vec::new(),
                now: db::now(),
            };
            decide(&mut pending)?;
            let Pending {
                state,
                events,
                steps,
                ..
            } = pending;
            let state = state
                .filter(|_| !events.is_empty())
                .ok_or_else(|| ApiError::internal("a command wrote no event"))?;
            store::append(conn, expected, &events, Some(&write.actor), &state)?;
            let applied = Applied {
                before,
                state: Arc::new(state),
                events,
                steps,
                first_seq: expected + 1,
            };
            let response = render(conn, &applied)?;
            if let Some(idem) = &write.idem {
                idempotency::store(conn, idem, &response)?;
            }
            Ok(TxDone::Done(response, applied.state))
        });
        match result {
            Ok(TxDone::Done(response, state)) => {
                cache.put(state);
                Ok(WriteOutcome::Done(response))
            }
            Ok(TxDone::Replayed(response)) => Ok(WriteOutcome::Replayed(response)),
            Err(error) => {
                // The first attempt of this very request may have committed since the
                // lookup above (a retry racing it: the game moved on, or the command no
                // longer applies). Its stored answer wins over any error.
                if let Some(idem) = &write.idem {
                    if let Some(stored) = idempotency::lookup(conn, idem)? {
                        return Ok(WriteOutcome::Replayed(stored));
                    }
                }
                match error {
                    TxError::Api(e) => Err(e),
                    TxError::Conflict => conflict(conn, &write, read_version),
                }
            }
        }
    })
    .await
}

/// Someone else wrote first: the current version, or a retry hint for a create.
fn conflict(
    conn: &mut DbConnection,
    write: &Write,
    read_version: i64,
) -> Result<WriteOutcome, ApiError> {
    if write.create {
        return Err(ApiError::Unavailable(
            "a concurrent request interfered; retry".into(),
        ));
    }
    let current_version = store::current_version(conn, &write.game_id)?;
    Err(ApiError::VersionConflict {
        expected: read_version,
        current_version,
    })
}

enum FastOutcome {
    Written(Applied),
    Conflict { expected: i64 },
}

/// The single-statement write of the module documentation; `None` when it does not apply
/// (or the command refused: the normal path then answers).
fn fast_path<D>(
    conn: &mut DbConnection,
    cache: &super::cache::GameCache,
    write: &Write,
    decide: &D,
) -> Result<Option<FastOutcome>, ApiError>
where
    D: Fn(&mut Pending) -> Result<(), ApiError>,
{
    let DbConnection::Pg(pg) = conn else {
        return Ok(None);
    };
    let (Some(expected), None, false) = (write.expected, &write.idem, write.create) else {
        return Ok(None);
    };
    let Some(before) = cache
        .get_at_most(&write.game_id, expected)
        .filter(|s| s.version == expected)
    else {
        return Ok(None);
    };
    let mut pending = Pending {
        id: write.game_id.clone(),
        state: Some((*before).clone()),
        events: Vec::new(),
        steps: Vec::new(),
        now: db::now(),
    };
    if decide(&mut pending).is_err()
        || pending.events.is_empty()
        || pending
            .events
            .iter()
            .any(|e| matches!(e, Event::SeatTaken { .. } | Event::SeatLeft { .. }))
    {
        return Ok(None);
    }
    let Pending {
        state,
        events,
        steps,
        ..
    } = pending;
    let state = state.ok_or_else(|| ApiError::internal("no state after a command"))?;
    match store::append_pg_single_statement(pg, expected, &events, &write.actor, &state) {
        Ok(true) => Ok(Some(FastOutcome::Written(Applied {
            before: Some(before),
            state: Arc::new(state),
            events,
            steps,
            first_seq: expected + 1,
        }))),
        Ok(false) | Err(AppendError::Conflict) => Ok(Some(FastOutcome::Conflict { expected })),
        Err(AppendError::Other(e)) => Err(e),
    }
}

/// The settings of a new game.
#[derive(Debug, Clone)]
pub struct NewGame {
    pub settings: GameSettings,
    pub hostage_seat: Option<Seat>,
    pub visibility: Visibility,
    pub creator_seat: Option<Seat>,
    pub invite_code: Option<String>,
}

pub fn create(p: &mut Pending, creator: &str, new: NewGame) -> Result<(), ApiError> {
    p.push_checked(Event::Created {
        ruleset: new.settings.ruleset.id().into(),
        seats: new.settings.seats.to_string(),
        hostage_seat: new.hostage_seat,
        visibility: new.visibility,
        created_by: creator.into(),
        invite_code: new.invite_code,
    })?;
    if let Some(seat) = new.creator_seat {
        p.push_checked(Event::SeatTaken {
            seat,
            user_id: creator.into(),
        })?;
    }
    Ok(())
}

fn state_of(p: &Pending) -> Result<&GameState, ApiError> {
    p.state()
        .ok_or_else(|| ApiError::internal("no state for an existing game"))
}

pub fn join(
    p: &mut Pending,
    user: &str,
    seat: Seat,
    invite_code: Option<&str>,
) -> Result<(), ApiError> {
    let s = state_of(p)?;
    match s.status {
        Status::Open => {}
        Status::Active => {
            return Err(ApiError::SeatTaken(
                "the game has started: every seat is taken".into(),
            ));
        }
        Status::Finished => return Err(ApiError::GameOver("the game is over".into())),
    }
    if !s.settings.seats.contains(seat) {
        return Err(ApiError::Conflict(format!(
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
        return Err(ApiError::SeatTaken(detail));
    }
    if let Some(mine) = s.seat_of(user) {
        return Err(ApiError::Conflict(format!(
            "you already hold seat {mine} in this game; one player holds one seat"
        )));
    }
    if s.visibility == Visibility::Invite
        && s.created_by != user
        && invite_code != s.invite_code.as_deref()
    {
        return Err(ApiError::Forbidden(
            "this game is invite-only: give its `invite_code` to take a seat".into(),
        ));
    }
    let last = s
        .settings
        .seats
        .iter()
        .filter(|x| *x != seat)
        .all(|x| s.player(x).is_some());
    p.push_checked(Event::SeatTaken {
        seat,
        user_id: user.into(),
    })?;
    if last {
        p.push_checked(Event::Started {})?;
    }
    Ok(())
}

pub fn leave(p: &mut Pending, user: &str, seat: Seat) -> Result<(), ApiError> {
    let s = state_of(p)?;
    if s.status != Status::Open {
        return Err(ApiError::Conflict(
            "the game has started: a seat can no longer be left (resign instead)".into(),
        ));
    }
    match s.player(seat) {
        None => Err(ApiError::Conflict(format!("seat {seat} is free"))),
        Some(holder) if holder != user => Err(ApiError::Forbidden(format!(
            "seat {seat} is held by another player"
        ))),
        Some(_) => {
            p.push_checked(Event::SeatLeft {
                seat,
                user_id: user.into(),
            })?;
            Ok(())
        }
    }
}

/// Checks that the game is being played and `user` holds a seat in it; returns the seat.
fn acting_seat(s: &GameState, user: &str) -> Result<Seat, ApiError> {
    match s.status {
        Status::Open => {
            return Err(ApiError::GameNotStarted(
                "the game has not started: seats are still free".into(),
            ));
        }
        Status::Finished => {
            return Err(ApiError::GameOver(
                "the game is over and accepts no more actions".into(),
            ));
        }
        Status::Active => {}
    }
    s.seat_of(user)
        .ok_or_else(|| ApiError::Forbidden("you hold no seat in this game".into()))
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
    }
}

pub fn play(p: &mut Pending, user: &str, mv: Move) -> Result<(), ApiError> {
    let s = state_of(p)?;
    let seat = acting_seat(s, user)?;
    let position = s.game.position();
    let to_move = position
        .to_move()
        .ok_or_else(|| ApiError::GameOver("the game is over".into()))?;
    if to_move != seat {
        return Err(ApiError::NotYourTurn(format!(
            "it is {to_move}'s turn; you hold seat {seat}"
        )));
    }
    let text = position.move_text(&mv).to_string();
    let legal_moves_url = format!("/v1/games/{}/legal-moves", s.id);
    match p.push(Event::MovePlayed { seat, mv, text }) {
        Ok(_) => {}
        Err(FoldError::Action(ActionError::Move(e))) => {
            return Err(ApiError::IllegalMove {
                reason: move_error_reason(&e).into(),
                detail: e.to_string(),
                legal_moves_url: Some(legal_moves_url),
            });
        }
        Err(e) => return Err(ApiError::internal(format!("move refused: {e}"))),
    }
    p.end_if_over()
}

pub fn resign(p: &mut Pending, user: &str) -> Result<(), ApiError> {
    let s = state_of(p)?;
    let seat = acting_seat(s, user)?;
    if !s.game.position().is_active(seat) {
        return Err(ApiError::Conflict(format!(
            "seat {seat} is already out of the game"
        )));
    }
    p.push_checked(Event::Resigned { seat })?;
    p.end_if_over()
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

pub fn draw(p: &mut Pending, user: &str, action: DrawAction) -> Result<(), ApiError> {
    let s = state_of(p)?;
    let seat = acting_seat(s, user)?;
    let active: SeatSet = s.game.position().active_seats();
    if !active.contains(seat) {
        return Err(ApiError::Conflict(format!(
            "seat {seat} is out of the game and takes no part in draw offers"
        )));
    }
    let offer = s.draw_offer.clone();
    match (action, offer) {
        (DrawAction::Offer, Some(o)) => Err(ApiError::Conflict(format!(
            "seat {} already offered a draw; accept or decline it",
            o.by
        ))),
        (DrawAction::Offer, None) => {
            p.push_checked(Event::DrawOffered { seat })?;
            Ok(())
        }
        (DrawAction::Accept | DrawAction::Decline, None) => {
            Err(ApiError::Conflict("no draw offer is pending".into()))
        }
        (DrawAction::Accept, Some(o)) if o.accepted.contains(seat) => Err(ApiError::Conflict(
            format!("seat {seat} has already accepted this offer"),
        )),
        (DrawAction::Accept, Some(o)) => {
            let everyone = active.iter().all(|x| x == seat || o.accepted.contains(x));
            let mut drawn = s.game.clone();
            p.push_checked(Event::DrawAccepted { seat })?;
            if everyone {
                drawn
                    .apply(&Action::AgreedDraw)
                    .map_err(|e| ApiError::internal(format!("agreed draw: {e}")))?;
                let result = result_of(&drawn, &Action::AgreedDraw)
                    .ok_or_else(|| ApiError::internal("an agreed draw has no result"))?;
                p.push_checked(Event::Ended { result })?;
            }
            Ok(())
        }
        (DrawAction::Decline, Some(_)) => {
            p.push_checked(Event::DrawDeclined { seat })?;
            Ok(())
        }
    }
}
