//! A complete move: the piece's path plus every choice it makes (victim, exit, placement).

use crate::square::Square;

/// A complete move, as in RULES.md section 8: `from sep to [x victim] [/exit] [>place]`.
///
/// It says nothing about legality; [`crate::Position::play`] decides that. Its canonical
/// text needs the position (the separator depends on whether `to` is occupied), see
/// [`crate::Position::move_text`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Move {
    pub from: Square,
    pub to: Square,
    /// The reporter's optional kill, orthogonally adjacent to `to`.
    pub victim: Option<Square>,
    /// Where a piece that entered the maze to act leaves it.
    pub exit: Option<Square>,
    /// Where the mover places a corpse or a lifted piece.
    pub place: Option<Square>,
}

impl Move {
    pub const fn plain(from: Square, to: Square) -> Move {
        Move {
            from,
            to,
            victim: None,
            exit: None,
            place: None,
        }
    }
}
