//! A position: the board, who controls each party, whose turn it is, and the ply.

use crate::board::Board;
use crate::error::ParseError;
use crate::piece::{Kind, Piece};
use crate::ruleset::{Layout, Ruleset};
use crate::seat::{Seat, SeatSet};
use crate::square::Square;

/// The state of one party (RULES.md section 2).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Control {
    /// Its pieces move on this seat's turns.
    Seat(Seat),
    /// Inert, but any player may kill or move its pieces.
    Hostage,
    /// Inert and immune until a ruler takes it.
    Orphaned,
}

/// Whose turn it is.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Turn {
    /// The seat's regular turn in play order.
    Regular(Seat),
    /// The ruler's bonus turn, played after `after`'s regular turn.
    Bonus { seat: Seat, after: Seat },
    /// The game is over.
    Over,
}

impl Turn {
    /// The seat to move, if the game is not over.
    pub const fn seat(self) -> Option<Seat> {
        match self {
            Turn::Regular(seat) | Turn::Bonus { seat, .. } => Some(seat),
            Turn::Over => None,
        }
    }

    pub const fn is_bonus(self) -> bool {
        matches!(self, Turn::Bonus { .. })
    }
}

/// A Djambi position, with the ruleset it is played under. Built only by
/// [`Position::start`], the DFEN parser and play, so it always satisfies the DFEN
/// invariants (RULES.md section 8): only a chief or a corpse on the maze, only active seats
/// control parties, and the seat to move is active.
///
/// The DFEN does not hold the ruleset (VARIANTS.md 2.3): a parsed position is under the
/// default ruleset until [`Position::with_ruleset`] says otherwise, and every move played
/// from it keeps its ruleset. Legal moves, checking, resolution and turn order follow it.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Position {
    pub(crate) board: Board,
    pub(crate) control: [Control; 4],
    pub(crate) turn: Turn,
    pub(crate) ply: u32,
    pub(crate) rules: Ruleset,
}

impl Default for Position {
    fn default() -> Position {
        Position::start(SeatSet::ALL).expect("four seats are a valid game")
    }
}

impl Position {
    /// The starting position for the seats in play, under the default ruleset: all four,
    /// or three, the empty seat's party then being hostage. The first seated seat in play
    /// order moves first.
    pub fn start(seats: SeatSet) -> Result<Position, ParseError> {
        Position::start_with(seats, Ruleset::DEFAULT)
    }

    /// The starting position for the seats in play under a ruleset (its `layout` decides
    /// the board).
    pub fn start_with(seats: SeatSet, rules: Ruleset) -> Result<Position, ParseError> {
        if seats.len() < 3 {
            return Err(ParseError::InvalidPosition(format!(
                "a game has 3 or 4 seats, not {}",
                seats.len()
            )));
        }
        let control = Seat::ALL.map(|s| {
            if seats.contains(s) {
                Control::Seat(s)
            } else {
                Control::Hostage
            }
        });
        let first = seats.iter().next().expect("three seats or more");
        let board = match rules.layout {
            Layout::Standard => Board::start(),
            Layout::Rotational => Board::start_rotational(),
        };
        Ok(Position {
            board,
            control,
            turn: Turn::Regular(first),
            ply: 0,
            rules,
        })
    }

    /// The same position under another ruleset. A DFEN is valid under every ruleset; the
    /// ruleset decides what happens from it.
    pub fn with_ruleset(mut self, rules: Ruleset) -> Position {
        self.rules = rules;
        self
    }

    /// Reads a DFEN under a ruleset (`FromStr` reads it under the default one).
    pub fn from_dfen(dfen: &str, rules: Ruleset) -> Result<Position, ParseError> {
        Ok(dfen.parse::<Position>()?.with_ruleset(rules))
    }

    /// The ruleset this position is played under.
    pub fn ruleset(&self) -> Ruleset {
        self.rules
    }

    /// Assembles a position from its parts, under the default ruleset, checking the DFEN
    /// invariants.
    pub fn from_parts(
        board: Board,
        control: [Control; 4],
        turn: Turn,
        ply: u32,
    ) -> Result<Position, ParseError> {
        let position = Position {
            board,
            control,
            turn,
            ply,
            rules: Ruleset::DEFAULT,
        };
        position.validate()?;
        Ok(position)
    }

    fn validate(&self) -> Result<(), ParseError> {
        let invalid = |msg: String| Err(ParseError::InvalidPosition(msg));
        if let Some(piece) = self.board.get(Square::MAZE)
            && piece.alive
            && piece.kind != Kind::Chief
        {
            return invalid(format!("a living {} stands on the maze", piece.kind.name()));
        }
        for party in Seat::ALL {
            if let Control::Seat(s) = self.control[party.index()]
                && !self.is_active(s)
            {
                return invalid(format!(
                    "party {party} is controlled by seat {s}, which is not active"
                ));
            }
        }
        let active = self.active_seats();
        match self.turn {
            Turn::Over => {}
            Turn::Regular(seat) | Turn::Bonus { seat, .. } => {
                if !active.contains(seat) {
                    return invalid(format!("seat {seat} is to move but is not active"));
                }
                if active.len() < 2 {
                    return invalid(
                        "fewer than two seats are active but the game is not over".into(),
                    );
                }
            }
        }
        Ok(())
    }

    pub fn board(&self) -> &Board {
        &self.board
    }

    pub fn turn(&self) -> Turn {
        self.turn
    }

    /// The seat to move, or `None` when the game is over.
    pub fn to_move(&self) -> Option<Seat> {
        self.turn.seat()
    }

    /// The number of moves played so far (passes and resignations do not count).
    pub fn ply(&self) -> u32 {
        self.ply
    }

    pub fn is_over(&self) -> bool {
        self.turn == Turn::Over
    }

    /// Who controls a party.
    pub fn control(&self, party: Seat) -> Control {
        self.control[party.index()]
    }

    pub fn controls(&self) -> [Control; 4] {
        self.control
    }

    /// A seat is active while it controls its own party.
    pub fn is_active(&self, seat: Seat) -> bool {
        self.control[seat.index()] == Control::Seat(seat)
    }

    pub fn active_seats(&self) -> SeatSet {
        Seat::ALL
            .into_iter()
            .filter(|s| self.is_active(*s))
            .collect()
    }

    /// The seat controlling the living chief on the maze; a hostage chief there rules nobody.
    pub fn ruler(&self) -> Option<Seat> {
        match self.board.get(Square::MAZE) {
            Some(piece) if piece.is_living_chief() => match self.control(piece.party) {
                Control::Seat(seat) => Some(seat),
                _ => None,
            },
            _ => None,
        }
    }

    /// Whether the piece is living and of a party `seat` controls.
    pub fn is_friendly(&self, piece: Piece, seat: Seat) -> bool {
        piece.alive && self.control(piece.party) == Control::Seat(seat)
    }

    /// Whether `seat` may kill or lift the piece: living, not its own, not orphaned.
    pub fn is_enemy(&self, piece: Piece, seat: Seat) -> bool {
        piece.alive
            && !matches!(self.control(piece.party), Control::Orphaned)
            && self.control(piece.party) != Control::Seat(seat)
    }
}
