//! What a move did, as data: kills, placements, control changes, eliminations, passes.

use crate::piece::Piece;
use crate::position::Control;
use crate::seat::Seat;
use crate::square::Square;

/// One consequence of an action, in the order the rules produce them.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Effect {
    /// The moving piece went from `from` to `to` (its exit square after acting in the maze).
    Moved {
        piece: Piece,
        from: Square,
        to: Square,
    },
    /// The move killed a piece on `square`.
    Killed { piece: Piece, square: Square },
    /// A corpse or lifted piece was taken from `from` and placed on `to`.
    Placed {
        piece: Piece,
        from: Square,
        to: Square,
    },
    /// A chief died surrounded on `square`.
    Surrounded { piece: Piece, square: Square },
    /// A party changed hands.
    ControlChanged {
        party: Seat,
        from: Control,
        to: Control,
    },
    /// A seat lost its own party and is out of the game.
    Eliminated { seat: Seat },
    /// A seat had no legal move when its turn came and passed.
    Passed { seat: Seat },
}

/// Where the rules report effects. `()` ignores them, for search and perft; a `Vec`
/// records them, for the replay API.
pub trait EffectSink {
    fn record(&mut self, effect: Effect);
}

impl EffectSink for () {
    #[inline]
    fn record(&mut self, _: Effect) {}
}

impl EffectSink for Vec<Effect> {
    fn record(&mut self, effect: Effect) {
        self.push(effect);
    }
}
