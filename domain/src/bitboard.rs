//! Sets of squares as 81-bit masks, for the flood fills of the surround rule and
//! for counting placements without listing them.

use crate::square::Square;

#[derive(Clone, Copy, PartialEq, Eq, Default, Debug)]
pub struct Bitboard(pub u128);

const ALL: u128 = (1u128 << 81) - 1;
const FILE_A: u128 = {
    let mut mask = 0u128;
    let mut rank = 0;
    while rank < 9 {
        mask |= 1u128 << (rank * 9);
        rank += 1;
    }
    mask
};
const FILE_I: u128 = FILE_A << 8;

impl Bitboard {
    pub const EMPTY: Bitboard = Bitboard(0);

    pub const fn from_square(sq: Square) -> Bitboard {
        Bitboard(1u128 << sq.index())
    }

    pub const fn contains(self, sq: Square) -> bool {
        self.0 & (1u128 << sq.index()) != 0
    }

    pub fn insert(&mut self, sq: Square) {
        self.0 |= 1u128 << sq.index();
    }

    pub fn remove(&mut self, sq: Square) {
        self.0 &= !(1u128 << sq.index());
    }

    pub const fn with(self, sq: Square) -> Bitboard {
        Bitboard(self.0 | (1u128 << sq.index()))
    }

    pub const fn without(self, sq: Square) -> Bitboard {
        Bitboard(self.0 & !(1u128 << sq.index()))
    }

    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Every square touching a square of the set (eight directions), the set itself excluded
    /// only where not touched by another member.
    pub const fn neighbours(self) -> Bitboard {
        let b = self.0;
        let east = (b << 1) & ALL & !FILE_A;
        let west = (b >> 1) & !FILE_I;
        let row = b | east | west;
        Bitboard((east | west | (row << 9) | (row >> 9)) & ALL)
    }

    /// The squares of `within` connected to `self` through `within` (eight directions).
    pub const fn flood(self, within: Bitboard) -> Bitboard {
        let mut group = self.0 & within.0;
        loop {
            let grown = (Bitboard(group).neighbours().0 | group) & within.0;
            if grown == group {
                return Bitboard(group);
            }
            group = grown;
        }
    }

    pub fn iter(self) -> impl Iterator<Item = Square> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            if bits == 0 {
                return None;
            }
            let index = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            Square::from_index(index)
        })
    }
}

impl std::ops::BitOr for Bitboard {
    type Output = Bitboard;
    fn bitor(self, rhs: Bitboard) -> Bitboard {
        Bitboard(self.0 | rhs.0)
    }
}

impl std::ops::BitAnd for Bitboard {
    type Output = Bitboard;
    fn bitand(self, rhs: Bitboard) -> Bitboard {
        Bitboard(self.0 & rhs.0)
    }
}

impl std::ops::Not for Bitboard {
    type Output = Bitboard;
    fn not(self) -> Bitboard {
        Bitboard(!self.0 & ALL)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(name: &str) -> Square {
        name.parse().unwrap()
    }

    #[test]
    fn neighbours_stay_on_the_board() {
        let corner = Bitboard::from_square(sq("A1")).neighbours();
        assert_eq!(
            corner.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
            ["B1", "A2", "B2"]
        );
        let edge = Bitboard::from_square(sq("I5")).neighbours();
        assert_eq!(edge.count(), 5);
        assert!(!edge.contains(sq("A6")), "no wrap from file I to file A");
        assert_eq!(Bitboard::from_square(Square::MAZE).neighbours().count(), 8);
        assert_eq!(Bitboard::from_square(sq("I9")).neighbours().count(), 3);
    }

    #[test]
    fn flood_follows_diagonals() {
        let within = Bitboard::from_square(sq("A1"))
            .with(sq("B2"))
            .with(sq("C3"))
            .with(sq("E5"));
        let group = Bitboard::from_square(sq("A1")).flood(within);
        assert_eq!(group.count(), 3);
        assert!(!group.contains(sq("E5")));
    }
}
