//! Squares of the 9x9 board, named `A1` (bottom-left) to `I9` (top-right).

use std::fmt;
use std::str::FromStr;

use crate::error::ParseError;

/// One of the 81 squares. The index is `rank * 9 + file`, both counted from zero,
/// so `A1` is 0, `I1` is 8 and `I9` is 80.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Square(u8);

/// The eight directions a piece may travel in, as (file step, rank step).
pub const DIRECTIONS: [(i8, i8); 8] = [
    (0, 1),
    (1, 1),
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
    (-1, 0),
    (-1, 1),
];

/// North, east, south and west: the reporter's kill directions.
pub const ORTHOGONAL: [(i8, i8); 4] = [(0, 1), (1, 0), (0, -1), (-1, 0)];

impl Square {
    /// The central square, where only a chief (or a corpse) may stand.
    pub const MAZE: Square = Square(40);
    pub const COUNT: usize = 81;

    /// The square at `index` (0..81), if any.
    pub const fn from_index(index: usize) -> Option<Square> {
        if index < 81 {
            Some(Square(index as u8))
        } else {
            None
        }
    }

    /// The square at file 0..9 (A..I) and rank 0..9 (1..9), if on the board.
    pub const fn new(file: u8, rank: u8) -> Option<Square> {
        if file < 9 && rank < 9 {
            Some(Square(rank * 9 + file))
        } else {
            None
        }
    }

    /// The squares met walking from `self` in direction `dir` (an index into
    /// [`DIRECTIONS`]) to the board's edge, nearest first.
    #[inline]
    pub(crate) fn ray(self, dir: usize) -> &'static [Square] {
        let ray = &RAYS[self.index()][dir];
        &ray.squares[..ray.len as usize]
    }

    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// File, 0 for `A` to 8 for `I`.
    pub const fn file(self) -> u8 {
        self.0 % 9
    }

    /// Rank, 0 for `1` to 8 for `9`.
    pub const fn rank(self) -> u8 {
        self.0 / 9
    }

    pub const fn is_maze(self) -> bool {
        self.0 == Self::MAZE.0
    }

    /// The next square in a direction, if it is on the board.
    pub fn step(self, (df, dr): (i8, i8)) -> Option<Square> {
        let file = self.file() as i8 + df;
        let rank = self.rank() as i8 + dr;
        if (0..9).contains(&file) && (0..9).contains(&rank) {
            Some(Square((rank * 9 + file) as u8))
        } else {
            None
        }
    }

    /// All squares, `A1`, `B1`, … `I9`.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..81).map(Square)
    }

    /// The unit step and distance from `self` to `other` along one of the
    /// eight lines, or `None` when they are not on a common line.
    pub fn line_to(self, other: Square) -> Option<((i8, i8), u8)> {
        let df = other.file() as i8 - self.file() as i8;
        let dr = other.rank() as i8 - self.rank() as i8;
        if (df, dr) == (0, 0) || (df != 0 && dr != 0 && df.abs() != dr.abs()) {
            return None;
        }
        let distance = df.abs().max(dr.abs());
        Some(((df.signum(), dr.signum()), distance as u8))
    }

    /// Whether the two squares touch north, east, south or west.
    pub fn is_orthogonally_adjacent(self, other: Square) -> bool {
        matches!(self.line_to(other), Some(((df, dr), 1)) if df == 0 || dr == 0)
    }
}

#[derive(Clone, Copy)]
struct Ray {
    len: u8,
    squares: [Square; 8],
}

/// Every square's eight rays, computed at compile time.
static RAYS: [[Ray; 8]; 81] = {
    let empty = Ray {
        len: 0,
        squares: [Square(0); 8],
    };
    let mut table = [[empty; 8]; 81];
    let mut sq = 0;
    while sq < 81 {
        let mut dir = 0;
        while dir < 8 {
            let (df, dr) = DIRECTIONS[dir];
            let (mut file, mut rank) = ((sq % 9) as i8, (sq / 9) as i8);
            let mut len = 0;
            loop {
                file += df;
                rank += dr;
                if file < 0 || file > 8 || rank < 0 || rank > 8 {
                    break;
                }
                table[sq][dir].squares[len] = Square((rank * 9 + file) as u8);
                len += 1;
            }
            table[sq][dir].len = len as u8;
            dir += 1;
        }
        sq += 1;
    }
    table
};

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'A' + self.file()) as char, self.rank() + 1)
    }
}

impl FromStr for Square {
    type Err = ParseError;

    /// Accepts `A1`..`I9` in either case.
    fn from_str(s: &str) -> Result<Square, ParseError> {
        let bytes = s.as_bytes();
        if let [file, rank] = bytes {
            let file = file.to_ascii_uppercase();
            if (b'A'..=b'I').contains(&file) && (b'1'..=b'9').contains(rank) {
                return Ok(Square((rank - b'1') * 9 + (file - b'A')));
            }
        }
        Err(ParseError::Square(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for sq in Square::all() {
            assert_eq!(sq.to_string().parse::<Square>().unwrap(), sq);
        }
        assert_eq!("a1".parse::<Square>().unwrap().index(), 0);
        assert_eq!("I9".parse::<Square>().unwrap().index(), 80);
        assert_eq!(Square::MAZE.to_string(), "E5");
    }

    #[test]
    fn rejects_off_board_names() {
        for bad in ["", "J1", "A0", "A10", "E", "55", "é1", "A1 "] {
            assert!(bad.parse::<Square>().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn lines() {
        let a1: Square = "A1".parse().unwrap();
        let c3: Square = "C3".parse().unwrap();
        let b3: Square = "B3".parse().unwrap();
        assert_eq!(a1.line_to(c3), Some(((1, 1), 2)));
        assert_eq!(a1.line_to(b3), None);
        assert_eq!(a1.line_to(a1), None);
        assert!(
            "E4".parse::<Square>()
                .unwrap()
                .is_orthogonally_adjacent(Square::MAZE)
        );
        assert!(
            !"D4"
                .parse::<Square>()
                .unwrap()
                .is_orthogonally_adjacent(Square::MAZE)
        );
    }
}
