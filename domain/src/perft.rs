//! perft: the number of complete-move sequences of a given length, the standard check
//! that move generation and play agree with other implementations.

use std::ops::ControlFlow;

use crate::movegen::expand;
use crate::position::Position;

/// Counts the complete-move sequences of length `depth` from `position` (RULES.md
/// section 9: 30, 1,205 and 49,206 from the start for depths 1 to 3). The last ply is
/// counted without playing it.
pub fn perft(position: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => position.count_legal_moves(),
        _ => {
            let Some(seat) = position.to_move() else {
                return 0;
            };
            let empty = position.board.empty_squares();
            let mut total = 0;
            let _ = position.families(seat, &mut |family| {
                expand(family, empty, &mut |mv| {
                    let mut child = position.clone();
                    child.apply(family, &mv, &mut ());
                    total += perft(&child, depth - 1);
                });
                ControlFlow::Continue(())
            });
            total
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perft_from_the_start() {
        let start = Position::default();
        assert_eq!(perft(&start, 0), 1);
        assert_eq!(perft(&start, 1), 30);
        assert_eq!(perft(&start, 2), 1_205);
        assert_eq!(perft(&start, 3), 49_206);
    }

    #[test]
    fn bulk_counting_matches_listing() {
        let start = Position::default();
        let mut listed = 0u64;
        for mv in start.legal_moves() {
            listed += start.play(&mv).unwrap().legal_moves().len() as u64;
        }
        assert_eq!(listed, perft(&start, 2));
    }
}
