//! Pieces: a party's colour, a kind, alive or a corpse.

/// The six kinds of piece.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Kind {
    Chief,
    Assassin,
    Reporter,
    Diplomat,
    Necromobile,
    Militant,
}

impl Kind {
    pub const ALL: [Kind; 6] = [
        Kind::Chief,
        Kind::Assassin,
        Kind::Reporter,
        Kind::Diplomat,
        Kind::Necromobile,
        Kind::Militant,
    ];

    /// The kind's letter: `C`, `A`, `R`, `D`, `N` or `M`.
    pub const fn letter(self) -> char {
        match self {
            Kind::Chief => 'C',
            Kind::Assassin => 'A',
            Kind::Reporter => 'R',
            Kind::Diplomat => 'D',
            Kind::Necromobile => 'N',
            Kind::Militant => 'M',
        }
    }

    pub const fn from_letter(letter: char) -> Option<Kind> {
        match letter {
            'C' => Some(Kind::Chief),
            'A' => Some(Kind::Assassin),
            'R' => Some(Kind::Reporter),
            'D' => Some(Kind::Diplomat),
            'N' => Some(Kind::Necromobile),
            'M' => Some(Kind::Militant),
            _ => None,
        }
    }

    /// How far the piece may travel in one line: militants two squares, the rest any number.
    pub const fn range(self) -> u8 {
        match self {
            Kind::Militant => 2,
            _ => 8,
        }
    }

    pub const fn name(self) -> &'static str {
        match self {
            Kind::Chief => "chief",
            Kind::Assassin => "assassin",
            Kind::Reporter => "reporter",
            Kind::Diplomat => "diplomat",
            Kind::Necromobile => "necromobile",
            Kind::Militant => "militant",
        }
    }
}

use crate::seat::Seat;

/// A piece on the board. A corpse keeps its party's colour but belongs to no one.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Piece {
    pub party: Seat,
    pub kind: Kind,
    pub alive: bool,
}

impl Piece {
    pub const fn living(party: Seat, kind: Kind) -> Piece {
        Piece {
            party,
            kind,
            alive: true,
        }
    }

    /// The same piece, dead.
    pub const fn corpse(self) -> Piece {
        Piece {
            alive: false,
            ..self
        }
    }

    pub const fn is_living_chief(self) -> bool {
        self.alive && matches!(self.kind, Kind::Chief)
    }
}
