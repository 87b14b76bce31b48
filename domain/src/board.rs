//! The board: what stands on each of the 81 squares.

use std::ops::Index;

use crate::bitboard::Bitboard;
use crate::piece::{Kind, Piece};
use crate::seat::Seat;
use crate::square::Square;

/// One byte a square (0 for empty) so that copies are cheap and scans vectorise.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Board {
    cells: [u8; 81],
    /// Kept in step with `cells` by [`Board::set`], so that move generation and the
    /// surround rule read bit sets instead of scanning squares.
    masks: Masks,
}

const fn encode(piece: Option<Piece>) -> u8 {
    match piece {
        None => 0,
        Some(p) => 1 + (p.party as u8) * 12 + (p.kind as u8) * 2 + !p.alive as u8,
    }
}

/// Every cell code to its piece, so that reads can hand out references.
static DECODE: [Option<Piece>; 49] = {
    let mut table = [None; 49];
    let mut code = 1;
    while code < 49 {
        let i = code - 1;
        let party = Seat::ALL[i / 12];
        let kind = Kind::ALL[(i % 12) / 2];
        table[code] = Some(Piece {
            party,
            kind,
            alive: i % 2 == 0,
        });
        code += 1;
    }
    table
};

impl Default for Board {
    fn default() -> Board {
        Board::empty()
    }
}

impl Board {
    pub const fn empty() -> Board {
        Board {
            cells: [0; 81],
            masks: Masks::EMPTY,
        }
    }

    /// The traditional mirror-symmetric starting layout (RULES.md section 1).
    pub fn start() -> Board {
        Board::with_layout([
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
        ])
    }

    /// The rotationally symmetric starting layout (VARIANTS.md 3.7): every block is Red's
    /// turned about the maze, so each assassin faces the next seat's reporter.
    pub fn start_rotational() -> Board {
        Board::with_layout([
            (
                Seat::Red,
                ["A9", "B9", "A8", "B8", "C7", "C9", "C8", "A7", "B7"],
            ),
            (
                Seat::Blue,
                ["I9", "I8", "H9", "H8", "G7", "G9", "G8", "I7", "H7"],
            ),
            (
                Seat::Yellow,
                ["I1", "H1", "I2", "H2", "G3", "G1", "G2", "I3", "H3"],
            ),
            (
                Seat::Green,
                ["A1", "A2", "B1", "B2", "C3", "C1", "C2", "A3", "B3"],
            ),
        ])
    }

    /// A starting board: each party's chief, assassin, reporter, diplomat, necromobile
    /// and four militants on the squares given, in that order.
    fn with_layout(layout: [(Seat, [&str; 9]); 4]) -> Board {
        let mut board = Board::empty();
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
                board.set(square, Some(Piece::living(party, kind)));
            }
        }
        board
    }

    #[inline]
    pub fn get(&self, sq: Square) -> Option<Piece> {
        DECODE[self.cells[sq.index()] as usize]
    }

    #[inline]
    pub fn is_empty(&self, sq: Square) -> bool {
        self.cells[sq.index()] == 0
    }

    #[inline]
    pub fn set(&mut self, sq: Square, piece: Option<Piece>) {
        if let Some(old) = self.get(sq) {
            self.masks.toggle(sq, old);
        }
        if let Some(new) = piece {
            self.masks.toggle(sq, new);
        }
        self.cells[sq.index()] = encode(piece);
    }

    /// Empties the square and returns what stood there.
    #[inline]
    pub fn take(&mut self, sq: Square) -> Option<Piece> {
        let piece = self.get(sq);
        self.set(sq, None);
        piece
    }

    /// Every occupied square with its piece, from `A1` to `I9`.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        self.cells
            .iter()
            .enumerate()
            .filter(|(_, c)| **c != 0)
            .filter_map(|(i, c)| Some((Square::from_index(i)?, DECODE[*c as usize]?)))
    }

    pub fn empty_squares(&self) -> Bitboard {
        !Bitboard(self.masks.occupied)
    }

    /// The board as bit sets.
    #[inline]
    pub(crate) fn masks(&self) -> &Masks {
        &self.masks
    }

    pub fn piece_count(&self) -> usize {
        self.cells.iter().filter(|c| **c != 0).count()
    }
}

/// Bit sets of the board by party and role (see [`Board::masks`]).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) struct Masks {
    pub occupied: u128,
    pub corpses: u128,
    /// Living pieces, by party.
    pub living: [u128; 4],
    /// Living pieces, by kind.
    pub kinds: [u128; 6],
}

impl Masks {
    const EMPTY: Masks = Masks {
        occupied: 0,
        corpses: 0,
        living: [0; 4],
        kinds: [0; 6],
    };

    /// Adds the piece on `sq` to the sets, or removes it when it is there.
    #[inline]
    fn toggle(&mut self, sq: Square, piece: Piece) {
        let bit = 1u128 << sq.index();
        self.occupied ^= bit;
        if piece.alive {
            self.living[piece.party.index()] ^= bit;
            self.kinds[piece.kind as usize] ^= bit;
        } else {
            self.corpses ^= bit;
        }
    }

    /// Living chiefs of a party.
    #[inline]
    pub fn chiefs(&self, party: Seat) -> u128 {
        self.living[party.index()] & self.kinds[Kind::Chief as usize]
    }

    #[inline]
    pub fn has_necromobile(&self, party: Seat) -> bool {
        self.living[party.index()] & self.kinds[Kind::Necromobile as usize] != 0
    }
}

impl Index<Square> for Board {
    type Output = Option<Piece>;
    fn index(&self, sq: Square) -> &Option<Piece> {
        &DECODE[self.cells[sq.index()] as usize]
    }
}
