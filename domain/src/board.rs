//! The board: what stands on each of the 81 squares.

use std::ops::{Index, IndexMut};

use crate::bitboard::Bitboard;
use crate::piece::{Kind, Piece};
use crate::seat::Seat;
use crate::square::Square;

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Board {
    squares: [Option<Piece>; 81],
}

impl Default for Board {
    fn default() -> Board {
        Board::empty()
    }
}

impl Board {
    pub const fn empty() -> Board {
        Board {
            squares: [None; 81],
        }
    }

    /// The traditional mirror-symmetric starting layout (RULES.md section 1).
    pub fn start() -> Board {
        let mut board = Board::empty();
        let layout: [(Seat, [&str; 9]); 4] = [
            (
                Seat::Red,
                ["A9", "B9", "A8", "B8", "C7", "C9", "C8", "A7", "B7"],
            ),
            (
                Seat::Blue,
                ["I9", "H9", "I8", "H8", "G7", "G9", "G8", "I7", "H7"],
            ),
            (
                Seat::Yellow,
                ["I1", "H1", "I2", "H2", "G3", "G1", "G2", "I3", "H3"],
            ),
            (
                Seat::Green,
                ["A1", "B1", "A2", "B2", "C3", "C1", "C2", "A3", "B3"],
            ),
        ];
        let kinds = [
            Kind::Chief,
            Kind::Assassin,
            Kind::Reporter,
            Kind::Diplomat,
            Kind::Necromobile,
            Kind::Militant,
            Kind::Militant,
            Kind::Militant,
            Kind::Militant,
        ];
        for (party, squares) in layout {
            for (name, kind) in squares.into_iter().zip(kinds) {
                let square: Square = name.parse().expect("layout squares are valid");
                board[square] = Some(Piece::living(party, kind));
            }
        }
        board
    }

    pub fn get(&self, sq: Square) -> Option<Piece> {
        self.squares[sq.index()]
    }

    pub fn is_empty(&self, sq: Square) -> bool {
        self.squares[sq.index()].is_none()
    }

    /// Every occupied square with its piece, from `A1` to `I9`.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        Square::all().filter_map(|sq| self.get(sq).map(|p| (sq, p)))
    }

    pub fn empty_squares(&self) -> Bitboard {
        let mut mask = 0u128;
        for (i, cell) in self.squares.iter().enumerate() {
            if cell.is_none() {
                mask |= 1u128 << i;
            }
        }
        Bitboard(mask)
    }

    pub fn piece_count(&self) -> usize {
        self.squares.iter().filter(|c| c.is_some()).count()
    }
}

impl Index<Square> for Board {
    type Output = Option<Piece>;
    fn index(&self, sq: Square) -> &Option<Piece> {
        &self.squares[sq.index()]
    }
}

impl IndexMut<Square> for Board {
    fn index_mut(&mut self, sq: Square) -> &mut Option<Piece> {
        &mut self.squares[sq.index()]
    }
}
