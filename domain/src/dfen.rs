//! DFEN, the one-line position format of RULES.md section 8:
//! `<placement> <turn> <parties> <ply>`.

use std::fmt;
use std::str::FromStr;

use crate::board::Board;
use crate::error::ParseError;
use crate::piece::{Kind, Piece};
use crate::position::{Control, Position, Turn};
use crate::seat::Seat;
use crate::square::Square;

fn malformed<T>(msg: impl Into<String>) -> Result<T, ParseError> {
    Err(ParseError::Dfen(msg.into()))
}

fn parse_placement(field: &str) -> Result<Board, ParseError> {
    let ranks: Vec<&str> = field.split('/').collect();
    if ranks.len() != 9 {
        return malformed(format!("the placement has {} ranks, not 9", ranks.len()));
    }
    let mut board = Board::empty();
    for (i, text) in ranks.iter().enumerate() {
        let rank = 8 - i as u8;
        let mut file = 0u8;
        let mut chars = text.chars();
        while let Some(c) = chars.next() {
            if let Some(d) = c.to_digit(10) {
                if d == 0 {
                    return malformed(format!(
                        "rank {}: 0 is not a number of empty squares",
                        rank + 1
                    ));
                }
                file += d as u8;
            } else {
                let Some(kind_char) = chars.next() else {
                    return malformed(format!(
                        "rank {}: {c:?} is not followed by a piece kind",
                        rank + 1
                    ));
                };
                // A piece is its party's upper-case letter, then its kind's letter:
                // upper case for a living piece, lower case for a corpse (`BM`, `Bm`).
                let party = Seat::from_letter(c).ok_or_else(|| {
                    ParseError::Dfen(format!("rank {}: {c:?} is not a party letter", rank + 1))
                })?;
                let kind = Kind::from_letter(kind_char.to_ascii_uppercase()).ok_or_else(|| {
                    ParseError::Dfen(format!(
                        "rank {}: {kind_char:?} is not a piece kind",
                        rank + 1
                    ))
                })?;
                let alive = kind_char.is_ascii_uppercase();
                let Some(sq) = Square::new(file, rank) else {
                    return malformed(format!("rank {} has more than 9 squares", rank + 1));
                };
                board.set(sq, Some(Piece { party, kind, alive }));
                file += 1;
            }
            if file > 9 {
                return malformed(format!("rank {} has more than 9 squares", rank + 1));
            }
        }
        if file != 9 {
            return malformed(format!("rank {} has {file} squares, not 9", rank + 1));
        }
    }
    Ok(board)
}

fn parse_turn(field: &str) -> Result<Turn, ParseError> {
    let seat = |c: char| {
        Seat::from_letter(c).ok_or_else(|| ParseError::Dfen(format!("{c:?} is not a seat")))
    };
    let chars: Vec<char> = field.chars().collect();
    match chars.as_slice() {
        ['-'] => Ok(Turn::Over),
        [s] => Ok(Turn::Regular(seat(*s)?)),
        [s, '*', a] => Ok(Turn::Bonus {
            seat: seat(*s)?,
            after: seat(*a)?,
        }),
        _ => malformed(format!(
            "turn {field:?} is not a seat, a bonus turn like G*B, or -"
        )),
    }
}

fn parse_parties(field: &str) -> Result<[Control; 4], ParseError> {
    let chars: Vec<char> = field.chars().collect();
    if chars.len() != 4 {
        return malformed(format!("parties {field:?} must be four letters, e.g. RBYG"));
    }
    let mut control = [Control::Hostage; 4];
    for (slot, c) in control.iter_mut().zip(chars) {
        *slot = match c {
            'h' => Control::Hostage,
            'o' => Control::Orphaned,
            _ => Control::Seat(Seat::from_letter(c).ok_or_else(|| {
                ParseError::Dfen(format!("{c:?} in parties is not R, B, Y, G, h or o"))
            })?),
        };
    }
    Ok(control)
}

impl FromStr for Position {
    type Err = ParseError;

    fn from_str(text: &str) -> Result<Position, ParseError> {
        let fields: Vec<&str> = text.split(' ').collect();
        let [placement, turn, parties, ply] = fields.as_slice() else {
            return malformed(format!(
                "expected 4 fields separated by single spaces (placement turn parties ply), found {}",
                fields.len()
            ));
        };
        let board = parse_placement(placement)?;
        let turn = parse_turn(turn)?;
        let control = parse_parties(parties)?;
        if ply.is_empty()
            || !ply.bytes().all(|b| b.is_ascii_digit())
            || (ply.len() > 1 && ply.starts_with('0'))
        {
            return malformed(format!("ply {ply:?} is not a number"));
        }
        let ply = ply
            .parse::<u32>()
            .map_err(|_| ParseError::Dfen(format!("ply {ply:?} is too large")))?;
        Position::from_parts(board, control, turn, ply)
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for rank in (0..9).rev() {
            let mut empty = 0;
            for file in 0..9 {
                let sq = Square::new(file, rank).expect("on the board");
                match self.board.get(sq) {
                    None => empty += 1,
                    Some(piece) => {
                        if empty > 0 {
                            write!(f, "{empty}")?;
                            empty = 0;
                        }
                        let (p, k) = (piece.party.letter(), piece.kind.letter());
                        let k = if piece.alive {
                            k
                        } else {
                            k.to_ascii_lowercase()
                        };
                        write!(f, "{p}{k}")?;
                    }
                }
            }
            if empty > 0 {
                write!(f, "{empty}")?;
            }
            if rank > 0 {
                write!(f, "/")?;
            }
        }
        match self.turn {
            Turn::Regular(s) => write!(f, " {s}")?,
            Turn::Bonus { seat, after } => write!(f, " {seat}*{after}")?,
            Turn::Over => write!(f, " -")?,
        }
        write!(f, " ")?;
        for c in self.control {
            match c {
                Control::Seat(s) => write!(f, "{s}")?,
                Control::Hostage => write!(f, "h")?,
                Control::Orphaned => write!(f, "o")?,
            }
        }
        write!(f, " {}", self.ply)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub const START: &str = "RCRARM3BMBABC/RRRDRM3BMBDBR/RMRMRN3BNBMBM/9/9/9/GMGMGN3YNYMYM/GRGDGM3YMYDYR/GCGAGM3YMYAYC R RBYG 0";

    #[test]
    fn start_position_matches_the_rules() {
        assert_eq!(Position::default().to_string(), START);
        assert_eq!(START.parse::<Position>().unwrap(), Position::default());
    }

    #[test]
    fn round_trips_bonus_turns_and_corpses() {
        for dfen in [
            "RM8/8BC/9/9/4RC4/9/9/9/9 R*B RBhh 2",
            "RCGM5GMBC/RNGM5GMBN/GMGM5GMGM/9/9/9/9/GMGM7/RMBm7 - RBho 1",
            "RC8/9/9/9/4Ym4/9/9/9/BC8 R RBhh 0",
            "9/9/9/9/4RC4/9/9/9/Bc7YC Y RRYh 1",
        ] {
            assert_eq!(dfen.parse::<Position>().unwrap().to_string(), dfen);
        }
    }

    #[test]
    fn rejects_malformed_and_invalid() {
        for bad in [
            "",
            "9/9/9/9/9/9/9/9 R RBYG 0",
            "9/9/9/9/9/9/9/9/8 R RBYG 0",
            "9/9/9/9/9/9/9/9/91 R RBYG 0",
            "9/9/9/9/9/9/9/9/RC RBYG 0",
            "RC8/9/9/9/9/9/9/9/BC7X R RBhh 0",
            "RC8/9/9/9/9/9/9/9/BC8 R RBhh -1",
            "RC8/9/9/9/9/9/9/9/BC8 R RBhh 01",
            "RC8/9/9/9/9/9/9/9/BC8 R RBhh +1",
            "RC8/9/9/9/9/9/9/9/BC8  R RBhh 0",
            "RC8/9/9/9/9/9/9/9/BC8 R RBh 0",
            "RC8/9/9/9/9/9/9/9/BC8 X RBhh 0",
            "RC8/9/9/9/4RM4/9/9/9/BC8 R RBhh 0",
            "RC8/9/9/9/9/9/9/9/BC8 Y RBhh 0",
            "RC8/9/9/9/9/9/9/9/BC8 R RYhh 0",
            "RC8/9/9/9/9/9/9/9/BC8 R Rhhh 0",
            "Rc8/9/9/9/9/9/9/9/BC8 R RBhh 0 extra",
            "rc8/9/9/9/9/9/9/9/BC8 R RBhh 0",
            "rC8/9/9/9/9/9/9/9/BC8 R RBhh 0",
        ] {
            assert!(bad.parse::<Position>().is_err(), "accepted {bad:?}");
        }
        // A corpse or a chief on the maze is fine; a game-over position with one seat too.
        for good in [
            "RC8/9/9/9/4Ym4/9/9/9/BC8 R RBhh 0",
            "RC8/9/9/9/4YC4/9/9/9/9 - Rhhh 0",
        ] {
            assert!(good.parse::<Position>().is_ok(), "rejected {good:?}");
        }
    }
}
