//! Seats (the players' chairs) and the parties of the same colours.

use std::fmt;

/// A seat, in play order. Each seat starts owning the party of its colour, so the
/// same type also names a party.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Seat {
    Red = 0,
    Blue = 1,
    Yellow = 2,
    Green = 3,
}

impl Seat {
    pub const ALL: [Seat; 4] = [Seat::Red, Seat::Blue, Seat::Yellow, Seat::Green];

    pub const fn index(self) -> usize {
        self as usize
    }

    pub const fn from_index(index: usize) -> Seat {
        Seat::ALL[index % 4]
    }

    pub const fn letter(self) -> char {
        match self {
            Seat::Red => 'R',
            Seat::Blue => 'B',
            Seat::Yellow => 'Y',
            Seat::Green => 'G',
        }
    }

    /// The seat of an upper-case letter `R`, `B`, `Y` or `G`.
    pub const fn from_letter(letter: char) -> Option<Seat> {
        match letter {
            'R' => Some(Seat::Red),
            'B' => Some(Seat::Blue),
            'Y' => Some(Seat::Yellow),
            'G' => Some(Seat::Green),
            _ => None,
        }
    }

    /// The seat's name in English: `Red`, `Blue`, `Yellow` or `Green` (the record's
    /// player headers, the board picture's captions).
    pub const fn name(self) -> &'static str {
        match self {
            Seat::Red => "Red",
            Seat::Blue => "Blue",
            Seat::Yellow => "Yellow",
            Seat::Green => "Green",
        }
    }

    /// The next seat in play order, wrapping from Green to Red.
    pub const fn next(self) -> Seat {
        Seat::from_index(self.index() + 1)
    }
}

impl std::str::FromStr for Seat {
    type Err = crate::error::ParseError;

    /// One seat letter, `R`, `B`, `Y` or `G`, in either case.
    fn from_str(text: &str) -> Result<Seat, Self::Err> {
        let mut chars = text.chars();
        match (
            chars
                .next()
                .and_then(|c| Seat::from_letter(c.to_ascii_uppercase())),
            chars.next(),
        ) {
            (Some(seat), None) => Ok(seat),
            _ => Err(crate::error::ParseError::Seat(text.to_string())),
        }
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// A set of seats, iterated in play order.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug)]
pub struct SeatSet(u8);

impl SeatSet {
    pub const EMPTY: SeatSet = SeatSet(0);
    pub const ALL: SeatSet = SeatSet(0b1111);

    pub const fn contains(self, seat: Seat) -> bool {
        self.0 & (1 << seat as u8) != 0
    }

    pub fn insert(&mut self, seat: Seat) {
        self.0 |= 1 << seat as u8;
    }

    pub fn remove(&mut self, seat: Seat) {
        self.0 &= !(1 << seat as u8);
    }

    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn iter(self) -> impl Iterator<Item = Seat> {
        Seat::ALL.into_iter().filter(move |s| self.contains(*s))
    }

    /// Parses seat letters such as `RBY` (each at most once, any order).
    pub fn from_letters(letters: &str) -> Option<SeatSet> {
        let mut set = SeatSet::EMPTY;
        for c in letters.chars() {
            let seat = Seat::from_letter(c.to_ascii_uppercase())?;
            if set.contains(seat) {
                return None;
            }
            set.insert(seat);
        }
        Some(set)
    }
}

impl FromIterator<Seat> for SeatSet {
    fn from_iter<I: IntoIterator<Item = Seat>>(iter: I) -> SeatSet {
        let mut set = SeatSet::EMPTY;
        for seat in iter {
            set.insert(seat);
        }
        set
    }
}

impl fmt::Display for SeatSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.iter().try_for_each(|s| write!(f, "{s}"))
    }
}
