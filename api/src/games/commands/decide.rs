//! The pure half of a command: what events it writes on a given state, folded as they
//! are added (the rules engine refuses illegal actions here). No I/O: [`decide`] takes the
//! state and the time and answers the events or why not.

use std::sync::Arc;

use chrono::NaiveDateTime;
use domain::{
    Action, ActionError, Move, MoveError, RecordError, RecordErrorKind, Seat, SeatSet, Step,
};

use super::{
    Actor, Command, CommandError, DrawAction, ImportRecord, MAX_RECORD_ACTIONS, NewGame, Write,
    Written,
};
use crate::ids::{GameId, UserId};
use crate::model::events::{Event, GameKind, Status, Visibility};
use crate::model::game_state::{FoldError, GameState, result_of};
use crate::store::StoreError;

/// The events a command is writing, folded as they are added.
pub(super) struct Pending {
    id: GameId,
    state: Option<GameState>,
    pub(super) events: Vec<Event>,
    steps: Vec<Step>,
    now: NaiveDateTime,
}

impl Pending {
    /// Adds an event; the state folds it at once (and refuses it if it does not fit).
    fn push(&mut self, event: Event) -> Result<(), FoldError> {
        let step = GameState::fold(&mut self.state, &self.id, &event, self.now)?;
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

    pub(super) fn into_written(
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
pub(super) fn decide(
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
        Command::TakeSeat {
            seat,
            invite_code,
            rating,
        } => join(&mut p, player()?, *seat, invite_code.as_deref(), *rating)?,
        Command::LeaveSeat { seat } => leave(&mut p, player()?, *seat)?,
        Command::Play(mv) => play(&mut p, player()?, *mv)?,
        Command::ConditionalMove { seat, mv } => conditional_move(&mut p, player()?, *seat, *mv)?,
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
        Command::BotAnswerDraw { seat, accept } => {
            system_only(write)?;
            let s = state_of(&p)?;
            if s.bot(*seat).is_none() {
                return Err(CommandError::Conflict(format!(
                    "seat {seat} is not a computer player's"
                )));
            }
            let action = if *accept {
                DrawAction::Accept
            } else {
                DrawAction::Decline
            };
            draw_as(&mut p, *seat, action)?
        }
    }
    Ok(p)
}

fn create(p: &mut Pending, creator: &UserId, new: &NewGame) -> Result<(), CommandError> {
    if new.rated && (new.time_control.is_none() || !new.bots.is_empty()) {
        return Err(CommandError::Conflict(
            "a rated game needs a time control and people in every seat".into(),
        ));
    }
    p.push_checked(Event::Created {
        ruleset: new.settings.ruleset.id(),
        seats: new.settings.seats.to_string(),
        hostage_seat: new.hostage_seat,
        visibility: new.visibility,
        created_by: creator.clone(),
        invite_code: new.invite_code.clone(),
        kind: GameKind::Play,
        record_headers: Vec::new(),
        time_control: new.time_control,
        talk: new.talk,
        rated: new.rated,
        rating_range: new.rating_range,
    })?;
    if let Some(seat) = new.creator_seat {
        p.push_checked(Event::SeatTaken {
            seat,
            user_id: creator.clone(),
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
fn import(p: &mut Pending, importer: &UserId, import: &ImportRecord) -> Result<(), CommandError> {
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
        ruleset: settings.ruleset.id(),
        seats: settings.seats.to_string(),
        hostage_seat,
        visibility: import.visibility,
        created_by: importer.clone(),
        invite_code: None,
        kind: GameKind::Study,
        record_headers: record.headers.clone(),
        time_control: None,
        talk: Default::default(),
        rated: false,
        rating_range: None,
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
                    conditional: false,
                }
            }
            Action::Resign(seat) => Event::Resigned { seat: *seat },
            Action::Timeout(seat) => Event::TimedOut { seat: *seat },
            Action::AgreedDraw => {
                let mut drawn = s.game.clone();
                let result = drawn
                    .apply(&Action::AgreedDraw)
                    .ok()
                    .and_then(|_| crate::model::game_state::result_of(&drawn, &Action::AgreedDraw));
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
        .ok_or_else(|| CommandError::NotFound(p.id.to_string()))
}

fn join(
    p: &mut Pending,
    user: &UserId,
    seat: Seat,
    invite_code: Option<&str>,
    rating: Option<f64>,
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
    if let Some(range) = s.rating_range {
        crate::ratings::admit(&range, rating).map_err(CommandError::Forbidden)?;
    }
    let last = s
        .settings
        .seats
        .iter()
        .filter(|x| *x != seat)
        .all(|x| !s.is_free(x));
    p.push_checked(Event::SeatTaken {
        seat,
        user_id: user.clone(),
    })?;
    if last {
        p.push_checked(Event::Started {})?;
    }
    Ok(())
}

fn leave(p: &mut Pending, user: &UserId, seat: Seat) -> Result<(), CommandError> {
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
            user_id: user.clone(),
        }),
    }
}

/// Checks that the game is being played and `user` holds a seat in it; returns the seat.
fn acting_seat(s: &GameState, user: &UserId) -> Result<Seat, CommandError> {
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

fn play(p: &mut Pending, user: &UserId, mv: Move) -> Result<(), CommandError> {
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
    push_move(p, seat, mv, text, "move", false)
}

/// A seat's stored conditional answer, played for its player (see
/// [`crate::games::conditional`]): the same checks as the player's own move.
fn conditional_move(
    p: &mut Pending,
    user: &UserId,
    seat: Seat,
    mv: Move,
) -> Result<(), CommandError> {
    let s = state_of(p)?;
    if acting_seat(s, user)? != seat {
        return Err(CommandError::Forbidden(format!("seat {seat} is not yours")));
    }
    if s.to_move() != Some(seat) {
        return Err(CommandError::NotYourTurn(format!(
            "seat {seat} is not to move"
        )));
    }
    let text = s.game.position().move_text(&mv).to_string();
    push_move(p, seat, mv, text, "conditional move", true)
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
    conditional: bool,
) -> Result<(), CommandError> {
    match p.push(Event::MovePlayed {
        seat,
        mv,
        text,
        conditional,
    }) {
        Ok(()) => {}
        Err(FoldError::Action(ActionError::Move(e))) => {
            return Err(CommandError::IllegalMove {
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

fn resign(p: &mut Pending, user: &UserId) -> Result<(), CommandError> {
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

fn draw(p: &mut Pending, user: &UserId, action: DrawAction) -> Result<(), CommandError> {
    let seat = acting_seat(state_of(p)?, user)?;
    draw_as(p, seat, action)
}

/// A draw action by `seat` (a player's, or a computer player's answer).
fn draw_as(p: &mut Pending, seat: Seat, action: DrawAction) -> Result<(), CommandError> {
    let s = state_of(p)?;
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
fn seat_bot(p: &mut Pending, user: &UserId, seat: Seat, level: u8) -> Result<(), CommandError> {
    let s = state_of(p)?;
    if s.rated {
        return Err(CommandError::Conflict(
            "a rated game is played by people only: no computer players".into(),
        ));
    }
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
    push_move(p, seat, mv, text, "bot move", false)
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
