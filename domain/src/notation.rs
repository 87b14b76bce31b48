//! Canonical move text (RULES.md section 8): `from sep to [x victim] [/exit] [>place]`.

use std::fmt;
use std::str::FromStr;

use crate::error::ParseError;
use crate::moves::Move;
use crate::position::Position;
use crate::square::Square;

impl FromStr for Move {
    type Err = ParseError;

    /// Parses move text in either case, with either separator.
    fn from_str(text: &str) -> Result<Move, ParseError> {
        let bad = || ParseError::Move(text.to_string());
        if !text.is_ascii() {
            return Err(bad());
        }
        let square = |s: &str| -> Result<Square, ParseError> { s.parse().map_err(|_| bad()) };
        let bytes = text.as_bytes();
        if bytes.len() < 5 || !matches!(bytes[2], b'-' | b'x' | b'X') {
            return Err(bad());
        }
        let from = square(&text[0..2])?;
        let to = square(&text[3..5])?;
        let mut mv = Move::plain(from, to);
        let mut rest = &text[5..];
        for (marker, slot) in [
            (b'x', &mut mv.victim as &mut Option<Square>),
            (b'/', &mut mv.exit),
            (b'>', &mut mv.place),
        ] {
            if rest.len() >= 3 && rest.as_bytes()[0].to_ascii_lowercase() == marker {
                *slot = Some(square(&rest[1..3])?);
                rest = &rest[3..];
            }
        }
        if !rest.is_empty() {
            return Err(bad());
        }
        Ok(mv)
    }
}

/// A move's canonical text in a position, e.g. `C8xD6>A5`.
pub struct MoveText<'a> {
    position: &'a Position,
    mv: &'a Move,
}

impl fmt::Display for MoveText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mv = self.mv;
        let sep = if self.position.board().is_empty(mv.to) {
            '-'
        } else {
            'x'
        };
        write!(f, "{}{sep}{}", mv.from, mv.to)?;
        if let Some(victim) = mv.victim {
            write!(f, "x{victim}")?;
        }
        if let Some(exit) = mv.exit {
            write!(f, "/{exit}")?;
        }
        if let Some(place) = mv.place {
            write!(f, ">{place}")?;
        }
        Ok(())
    }
}

impl Position {
    /// The canonical text of a move in this position (the separator says whether `to`
    /// is occupied, so it needs the position).
    pub fn move_text<'a>(&'a self, mv: &'a Move) -> MoveText<'a> {
        MoveText { position: self, mv }
    }

    /// Every legal move's canonical text, sorted by byte value (the `djambi moves` listing).
    pub fn legal_move_texts(&self) -> Vec<String> {
        let mut texts: Vec<String> = self
            .legal_moves()
            .iter()
            .map(|m| self.move_text(m).to_string())
            .collect();
        texts.sort_unstable();
        texts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_shape() {
        let mv: Move = "b8xe5/f4>g2".parse().unwrap();
        assert_eq!(
            (mv.from.to_string(), mv.to.to_string()),
            ("B8".into(), "E5".into())
        );
        assert_eq!(mv.exit.map(|s| s.to_string()), Some("F4".into()));
        assert_eq!(mv.place.map(|s| s.to_string()), Some("G2".into()));
        let reporter: Move = "A8-D5xD6".parse().unwrap();
        assert_eq!(reporter.victim.map(|s| s.to_string()), Some("D6".into()));
        assert_eq!(
            "C8xD6".parse::<Move>().unwrap(),
            "C8-D6".parse::<Move>().unwrap()
        );
    }

    #[test]
    fn rejects_garbage() {
        for bad in [
            "",
            "C8",
            "C8D7",
            "C8-D",
            "C8-D7>",
            "C8-D7>A",
            "C8-D7>A5x",
            "C8-J7",
            "C8-D7 ",
            "C8-D7>A5/B4",
            "C8—D7",
            "é8-D7",
        ] {
            assert!(bad.parse::<Move>().is_err(), "accepted {bad:?}");
        }
    }
}
