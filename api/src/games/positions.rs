//! The analysis board: the legal moves of any position, and a move played on it, with no
//! game behind it (a DFEN under a ruleset). Pure: the rules crate and nothing else, so
//! nothing is stored and no account is needed.

use domain::{Effect, Move, MoveError, ParseError, Position, Ruleset, Seat, SeatSet, Square, Turn};

/// The longest DFEN read: 81 two-letter pieces, 8 slashes and the other fields fit in 200.
pub const DFEN_MAX: usize = 256;

/// Why a position or a move on it is refused. The text says what is wrong, for a reader.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    #[error("{0}")]
    Dfen(String),
    #[error("{0}")]
    IllegalMove(String),
}

/// A position read from its DFEN under a ruleset.
pub fn read(dfen: &str, ruleset: Ruleset) -> Result<Position, PositionError> {
    if dfen.len() > DFEN_MAX {
        return Err(PositionError::Dfen(format!(
            "a DFEN is at most {DFEN_MAX} characters"
        )));
    }
    Position::from_dfen(dfen, ruleset).map_err(|e: ParseError| PositionError::Dfen(e.to_string()))
}

/// The legal moves of the seat to move with their canonical text, sorted by text (as
/// `djambi moves` prints them); only those of the piece on `from` when it is given.
pub fn legal_moves(position: &Position, from: Option<Square>) -> Vec<(String, Move)> {
    let mut moves: Vec<(String, Move)> = position
        .legal_moves()
        .into_iter()
        .filter(|mv| from.is_none_or(|sq| mv.from == sq))
        .map(|mv| (position.move_text(&mv).to_string(), mv))
        .collect();
    moves.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    moves
}

/// What a move did to a position.
#[derive(Debug, Clone)]
pub struct Played {
    /// The move's canonical text in the position it was played in.
    pub text: String,
    pub mv: Move,
    pub after: Position,
    /// In the order the rules engine reports them.
    pub effects: Vec<Effect>,
    /// Seats that lost their own party through the move.
    pub eliminated: SeatSet,
    pub ruler: Option<Seat>,
    pub turn: Turn,
}

/// Plays `mv` on `position`; an illegal move is refused with the rules' reason.
pub fn play(position: &Position, mv: &Move) -> Result<Played, PositionError> {
    let before = position.active_seats();
    let mut after = position.clone();
    let mut effects = Vec::new();
    after
        .play_in_place(mv, &mut effects)
        .map_err(|e: MoveError| PositionError::IllegalMove(e.to_string()))?;
    let now = after.active_seats();
    Ok(Played {
        text: position.move_text(mv).to_string(),
        mv: *mv,
        effects,
        eliminated: before.iter().filter(|s| !now.contains(*s)).collect(),
        ruler: after.ruler(),
        turn: after.turn(),
        after,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "RCRARM3BMBABC/RRRDRM3BMBDBR/RMRMRN3BNBMBM/9/9/9/GMGMGN3YNYMYM/GRGDGM3YMYDYR/GCGAGM3YMYAYC R RBYG 0";

    #[test]
    fn the_start_has_the_rules_moves_and_a_move_passes_the_turn() {
        let p = read(START, Ruleset::DEFAULT).unwrap();
        let all = legal_moves(&p, None);
        assert_eq!(all.len(), p.legal_moves().len());
        assert!(all.windows(2).all(|w| w[0].0 < w[1].0), "sorted by text");
        let militant: Square = "C7".parse().unwrap();
        let of_c7 = legal_moves(&p, Some(militant));
        assert!(!of_c7.is_empty() && of_c7.iter().all(|(_, mv)| mv.from == militant));
        let played = play(&p, &of_c7[0].1).unwrap();
        assert_eq!(played.turn, Turn::Regular(Seat::ALL[1]));
        assert_eq!(played.after, p.play(&of_c7[0].1).unwrap());
        assert!(matches!(played.effects[0], Effect::Moved { .. }));
    }

    #[test]
    fn bad_positions_and_moves_say_what_is_wrong() {
        let e = read("RC8/9 R RBYG 0", Ruleset::DEFAULT).unwrap_err();
        assert!(e.to_string().contains("ranks"), "{e}");
        let e = read(&"9/".repeat(200), Ruleset::DEFAULT).unwrap_err();
        assert!(e.to_string().contains("at most"), "{e}");
        let p = read(START, Ruleset::DEFAULT).unwrap();
        let e = play(&p, &"E5-E6".parse().unwrap()).unwrap_err();
        assert_eq!(e, PositionError::IllegalMove("E5 is empty".into()));
    }
}
