//! The baseline players the arena measures the search against.

use crate::moves::Move;
use crate::position::Position;

use super::eval::{WIN, material_scores, terminal_value, value_for};
use super::rng::Rng;

/// A uniformly random complete legal move (every placement, exit and victim choice counts
/// as a move of its own, as in `djambi moves`).
pub fn random_move(position: &Position, seed: u64) -> Option<Move> {
    let count = position.count_legal_moves();
    if count == 0 {
        return None;
    }
    position.nth_legal_move(Rng::new(seed).below(count))
}

/// The greedy one-ply player: every legal move is played and the position after it is
/// valued by material alone (alive, the material of the parties controlled, ruling;
/// a won game is worth the most, an eliminating one the least) against the rivals';
/// ties, which are most moves, are broken at random.
pub fn greedy_move(position: &Position, seed: u64) -> Option<Move> {
    let seat = position.to_move()?;
    let mut rng = Rng::new(seed);
    let mut best = Vec::new();
    let mut best_value = -2 * WIN;
    for mv in position.legal_moves() {
        let Ok(next) = position.play(&mv) else {
            continue;
        };
        let value = terminal_value(&next, seat, 1)
            .unwrap_or_else(|| value_for(material_scores(&next), seat));
        if value > best_value {
            best_value = value;
            best.clear();
        }
        if value == best_value {
            best.push(mv);
        }
    }
    if best.is_empty() {
        return None;
    }
    Some(best[rng.below(best.len() as u64) as usize])
}
