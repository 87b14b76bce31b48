//! Helpers shared by the integration tests: building sparse DFEN positions from a list
//! of pieces, parsing squares and moves, and listing legal move texts.

#![allow(dead_code)]

use djambi::{Effect, Move, Position, Seat, Square};

pub const START: &str = "RCRARM3BMBABC/RRRDRM3BMBDBR/RMRMRN3BNBMBM/9/9/9/GMGMGN3YNYMYM/GRGDGM3YMYDYR/GCGAGM3YMYAYC R RBYG 0";

/// A square by name; panics on a bad name (test input only).
pub fn sq(name: &str) -> Square {
    name.parse()
        .unwrap_or_else(|e| panic!("bad square {name:?}: {e}"))
}

/// A move by text; panics when the text does not parse (test input only).
pub fn mv(text: &str) -> Move {
    text.parse()
        .unwrap_or_else(|e| panic!("bad move {text:?}: {e}"))
}

/// A position by DFEN; panics when the DFEN is rejected.
pub fn pos(dfen: &str) -> Position {
    dfen.parse()
        .unwrap_or_else(|e| panic!("bad DFEN {dfen:?}: {e}"))
}

/// Builds a DFEN from `(square, piece)` pairs such as `("E5", "BC")` (upper-case kind
/// letter for a living piece, lower case for a corpse), the turn field, the parties field
/// and the ply. Every other square is empty.
pub fn dfen(pieces: &[(&str, &str)], turn: &str, parties: &str, ply: u32) -> String {
    let mut grid: [[Option<&str>; 9]; 9] = [[None; 9]; 9];
    for (name, piece) in pieces {
        let s = sq(name);
        let cell = &mut grid[s.rank() as usize][s.file() as usize];
        assert!(cell.is_none(), "two pieces on {name}");
        assert_eq!(piece.len(), 2, "piece {piece:?}");
        *cell = Some(piece);
    }
    let mut ranks = Vec::new();
    for rank in (0..9).rev() {
        let mut text = String::new();
        let mut empty = 0;
        for cell in grid[rank] {
            match cell {
                None => empty += 1,
                Some(p) => {
                    if empty > 0 {
                        text.push_str(&empty.to_string());
                        empty = 0;
                    }
                    text.push_str(p);
                }
            }
        }
        if empty > 0 {
            text.push_str(&empty.to_string());
        }
        ranks.push(text);
    }
    format!("{} {turn} {parties} {ply}", ranks.join("/"))
}

/// The position built by [`dfen`].
pub fn build(pieces: &[(&str, &str)], turn: &str, parties: &str, ply: u32) -> Position {
    pos(&dfen(pieces, turn, parties, ply))
}

/// Every legal move's canonical text, sorted.
pub fn texts(p: &Position) -> Vec<String> {
    p.legal_move_texts()
}

/// The legal move texts of the piece on `from`, sorted.
pub fn texts_from(p: &Position, from: &str) -> Vec<String> {
    let from = sq(from);
    let mut out: Vec<String> = p
        .legal_moves()
        .iter()
        .filter(|m| m.from == from)
        .map(|m| p.move_text(m).to_string())
        .collect();
    out.sort();
    out
}

/// The legal moves from `from` to `to`.
pub fn moves_between(p: &Position, from: &str, to: &str) -> Vec<Move> {
    let (from, to) = (sq(from), sq(to));
    p.legal_moves()
        .into_iter()
        .filter(|m| m.from == from && m.to == to)
        .collect()
}

/// Plays move texts in order; panics (naming the move) on an illegal one.
pub fn play(p: &Position, moves: &[&str]) -> Position {
    let mut p = p.clone();
    for text in moves {
        p = p
            .play(&mv(text))
            .unwrap_or_else(|e| panic!("{text} is illegal in {p}: {e}"));
    }
    p
}

/// Plays one move and returns the position after it and its effects.
pub fn play_effects(p: &Position, text: &str) -> (Position, Vec<Effect>) {
    let mut next = p.clone();
    let mut effects = Vec::new();
    next.play_in_place(&mv(text), &mut effects)
        .unwrap_or_else(|e| panic!("{text} is illegal in {p}: {e}"));
    (next, effects)
}

/// The seat of a letter.
pub fn seat(letter: char) -> Seat {
    Seat::from_letter(letter).expect("seat letter")
}
