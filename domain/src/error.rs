//! Typed errors: what is wrong with a DFEN, a move text or a move.

use thiserror::Error;

use crate::seat::Seat;
use crate::square::Square;

/// A string that is not well-formed notation.
#[derive(Clone, PartialEq, Eq, Debug, Error)]
pub enum ParseError {
    #[error("unknown square {0:?}: squares are A1 to I9")]
    Square(String),
    #[error("malformed move {0:?}: expected e.g. C8-D7, C8xD6>A5, A8-D5xD6 or B8xE5/F4>G2")]
    Move(String),
    #[error("malformed DFEN: {0}")]
    Dfen(String),
    #[error("invalid position: {0}")]
    InvalidPosition(String),
    #[error("unknown seat {0:?}: seats are R, B, Y and G")]
    Seat(String),
    #[error("malformed game record: {0}")]
    Record(String),
}

/// Why a move cannot be played in a position.
#[derive(Clone, PartialEq, Eq, Debug, Error)]
pub enum MoveError {
    #[error("the game is over")]
    GameOver,
    #[error("{0} is empty")]
    EmptySquare(Square),
    #[error("the piece on {square} is not {seat}'s to move")]
    NotYourPiece { square: Square, seat: Seat },
    #[error("the piece on {from} cannot reach or act on {to}")]
    Unreachable { from: Square, to: Square },
    #[error("this move must say where the {what} goes (>square)")]
    MissingPlacement { what: &'static str },
    #[error("the {what} cannot be placed on {square}")]
    ForbiddenPlacement { what: &'static str, square: Square },
    #[error("this move places nothing, so it takes no >square")]
    UnexpectedPlacement,
    #[error("a piece that enters the maze to act must exit it (/square)")]
    MissingExit,
    #[error("cannot exit the maze to {0}")]
    ForbiddenExit(Square),
    #[error("only a move that enters the maze to act has an exit")]
    UnexpectedExit,
    #[error("the reporter cannot kill on {0}")]
    ForbiddenVictim(Square),
    #[error("only a reporter names a victim")]
    UnexpectedVictim,
    /// `reporter=forced` (VARIANTS.md 3.3): the destination has a victim, so the move
    /// must name one.
    #[error("the reporter must kill a piece next to {0} (xsquare)")]
    MissingVictim(Square),
}

/// Why a seat cannot resign.
#[derive(Clone, PartialEq, Eq, Debug, Error)]
pub enum ResignError {
    #[error("the game is over")]
    GameOver,
    #[error("seat {0} is not active")]
    NotActive(Seat),
}
