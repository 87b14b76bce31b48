//! The kinds of computer player, as the arena and the service name them.

use std::fmt;
use std::str::FromStr;

use crate::moves::Move;
use crate::position::Position;

use super::baseline::{greedy_move, random_move};
use super::level::Level;

/// A computer player.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Player {
    /// A uniformly random complete legal move.
    Random,
    /// The best move one ply ahead by material, ties at random.
    Greedy,
    /// The search at a strength level.
    Search(Level),
}

impl Player {
    /// The player's move in the position; `None` when the seat to move has no legal move.
    /// Deterministic for a given position and seed.
    pub fn choose(self, position: &Position, seed: u64) -> Option<Move> {
        match self {
            Player::Random => random_move(position, seed),
            Player::Greedy => greedy_move(position, seed),
            Player::Search(level) => super::choose_move(position, level, seed),
        }
    }
}

impl fmt::Display for Player {
    /// `random`, `greedy` or `level1` to `level5`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Player::Random => write!(f, "random"),
            Player::Greedy => write!(f, "greedy"),
            Player::Search(level) => write!(f, "level{level}"),
        }
    }
}

impl FromStr for Player {
    type Err = String;

    /// `random`, `greedy`, `level1` to `level5` (or `l1` to `l5`, or `1` to `5`), or `top`
    /// for level 5.
    fn from_str(text: &str) -> Result<Player, String> {
        let lower = text.trim().to_ascii_lowercase();
        let number = lower
            .strip_prefix("level")
            .or_else(|| lower.strip_prefix('l'))
            .unwrap_or(&lower);
        match lower.as_str() {
            "random" => Ok(Player::Random),
            "greedy" => Ok(Player::Greedy),
            "top" => Ok(Player::Search(Level::MAX)),
            _ => number
                .parse::<u8>()
                .ok()
                .and_then(Level::new)
                .map(Player::Search)
                .ok_or_else(|| {
                    format!("unknown player {text:?}: random, greedy, level1 to level5, or top")
                }),
        }
    }
}
