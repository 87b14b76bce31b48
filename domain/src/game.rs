//! A whole game: settings, the ordered actions, and what each one did. This is the
//! replay API the service rebuilds every game with.

use crate::effects::Effect;
use crate::error::{MoveError, ParseError, ResignError};
use crate::moves::Move;
use crate::position::{Position, Turn};
use crate::ruleset::Ruleset;
use crate::seat::{Seat, SeatSet};

/// How a game is set up: the seats in play (3 or 4; with 3 the empty seat's party is
/// hostage) and the ruleset (its `layout` decides the start; every action is checked
/// under it).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct GameSettings {
    pub seats: SeatSet,
    pub ruleset: Ruleset,
}

impl GameSettings {
    pub fn four_players() -> GameSettings {
        GameSettings {
            seats: SeatSet::ALL,
            ruleset: Ruleset::default(),
        }
    }

    /// Three players; `empty` is the seat left empty, whose party is hostage.
    pub fn three_players(empty: Seat) -> GameSettings {
        let mut seats = SeatSet::ALL;
        seats.remove(empty);
        GameSettings {
            seats,
            ruleset: Ruleset::default(),
        }
    }
}

/// Something a game's log records that changes the position.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Action {
    Move(Move),
    /// A seat resigns.
    Resign(Seat),
    /// A seat ran out of time. Under RULES.md section 7 a timeout the game's settings
    /// treat as a resignation has exactly its effect; it is a variant of its own so that
    /// records and histories say "timed out".
    Timeout(Seat),
    /// Every active seat accepted a draw (decided by the service, outside the rules).
    AgreedDraw,
}

impl Action {
    /// The seat a resignation or a timeout is about; `None` for moves and draws.
    pub const fn leaving_seat(&self) -> Option<Seat> {
        match self {
            Action::Resign(seat) | Action::Timeout(seat) => Some(*seat),
            Action::Move(_) | Action::AgreedDraw => None,
        }
    }
}

/// How a finished game ended.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Outcome {
    Win(Seat),
    /// A draw shared by these seats.
    Draw(SeatSet),
}

/// Why an action cannot be applied.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum ActionError {
    #[error(transparent)]
    Move(#[from] MoveError),
    #[error(transparent)]
    Resign(#[from] ResignError),
    #[error("the game is over")]
    GameOver,
}

/// What one action did.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Step {
    pub effects: Vec<Effect>,
    /// Seats that lost their own party through this action.
    pub eliminated: SeatSet,
    pub ruler: Option<Seat>,
    pub turn: Turn,
    /// Set when the action ended the game.
    pub outcome: Option<Outcome>,
}

/// A game in progress or finished.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Game {
    settings: GameSettings,
    position: Position,
    /// Groups of seats, in the order they were eliminated; one group per action.
    eliminations: Vec<SeatSet>,
    outcome: Option<Outcome>,
}

impl Game {
    pub fn new(settings: GameSettings) -> Result<Game, ParseError> {
        Ok(Game {
            settings,
            position: Position::start_with(settings.seats, settings.ruleset)?,
            eliminations: Vec::new(),
            outcome: None,
        })
    }

    /// Replays a log of actions; the error names the index of the first bad action.
    pub fn replay(
        settings: GameSettings,
        actions: &[Action],
    ) -> Result<(Game, Vec<Step>), ReplayError> {
        let mut game = Game::new(settings).map_err(ReplayError::Settings)?;
        let mut steps = Vec::with_capacity(actions.len());
        for (index, action) in actions.iter().enumerate() {
            steps.push(
                game.apply(action)
                    .map_err(|error| ReplayError::Action { index, error })?,
            );
        }
        Ok((game, steps))
    }

    pub fn settings(&self) -> GameSettings {
        self.settings
    }

    pub fn position(&self) -> &Position {
        &self.position
    }

    pub fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    pub fn is_over(&self) -> bool {
        self.outcome.is_some()
    }

    /// Applies an action; on error nothing changes.
    pub fn apply(&mut self, action: &Action) -> Result<Step, ActionError> {
        if self.outcome.is_some() {
            return Err(ActionError::GameOver);
        }
        let before = self.position.active_seats();
        let mut effects = Vec::new();
        match action {
            Action::Move(mv) => self.position.play_in_place(mv, &mut effects)?,
            Action::Resign(seat) | Action::Timeout(seat) => {
                self.position.resign_in_place(*seat, &mut effects)?
            }
            Action::AgreedDraw => {}
        }
        let after = self.position.active_seats();
        let eliminated: SeatSet = before.iter().filter(|s| !after.contains(*s)).collect();
        if !eliminated.is_empty() {
            self.eliminations.push(eliminated);
        }
        if matches!(action, Action::AgreedDraw) {
            self.outcome = Some(Outcome::Draw(after));
            self.position.turn = Turn::Over;
        } else if self.position.is_over() {
            self.outcome = Some(match after.len() {
                1 => Outcome::Win(after.iter().next().expect("one seat")),
                // Nobody left: the seats this action eliminated share the draw.
                0 => Outcome::Draw(eliminated),
                // Nobody can move.
                _ => Outcome::Draw(after),
            });
        }
        Ok(Step {
            effects,
            eliminated,
            ruler: self.position.ruler(),
            turn: self.position.turn(),
            outcome: self.outcome.clone(),
        })
    }

    /// Places of a finished game, best first: the winner (or the drawing seats), then the
    /// others in reverse order of elimination. Seats eliminated by one action, or sharing
    /// a draw, share a place. `None` while the game goes on.
    pub fn ranking(&self) -> Option<Vec<SeatSet>> {
        let first = match self.outcome.as_ref()? {
            Outcome::Win(seat) => std::iter::once(*seat).collect(),
            Outcome::Draw(seats) => *seats,
        };
        let mut places = vec![first];
        for group in self.eliminations.iter().rev() {
            let rest: SeatSet = group.iter().filter(|s| !first.contains(*s)).collect();
            if !rest.is_empty() {
                places.push(rest);
            }
        }
        Some(places)
    }
}

/// Why a log does not replay.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum ReplayError {
    #[error("invalid settings: {0}")]
    Settings(ParseError),
    #[error("action {index} cannot be applied: {error}")]
    Action { index: usize, error: ActionError },
}
