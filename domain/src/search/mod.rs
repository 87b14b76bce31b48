//! Computer players: pure, no I/O, deterministic for a given seed.
//!
//! The search ([`search`]) is a paranoid alpha-beta with iterative deepening: the seat to
//! move assumes every rival plays against it, which makes four seats a two-sided game
//! that prunes well. Its evaluation (`eval.rs`) weighs living chiefs and their
//! safety, the maze, material by kind, parties taken over and mobility. The budget is a
//! number of positions, so the same position, level and seed give the same move on any
//! machine; [`Level`] 1 to 5 maps to budgets.
//!
//! For the service:
//!
//! ```
//! use djambi::Position;
//! use djambi::search::{Level, choose_move};
//!
//! let position = Position::default();
//! let mv = choose_move(&position, Level::new(2).unwrap(), 42).expect("Red has moves");
//! assert!(position.legal_moves().contains(&mv));
//! ```
//!
//! [`Player`] also names the arena's baselines (random and greedy one-ply players).

pub mod analysis;
mod baseline;
mod candidates;
mod eval;
mod level;
mod paranoid;
mod player;
mod rng;

pub use baseline::{greedy_move, random_move};
pub use level::{Level, SearchBudget};
pub use paranoid::{SearchResult, search};
pub use player::Player;
pub use rng::{Rng, derive as derive_seed};

use crate::moves::Move;
use crate::position::Position;

/// The move the search plays at `level` for the seat to move: always one of
/// `position.legal_moves()`, and the same for the same position, level and seed.
///
/// `None` exactly when the seat to move has no legal move: the game is over, or a
/// hand-made (sparse) position leaves that seat stuck (positions reached by play never
/// do: the engine passes for such a seat).
pub fn choose_move(position: &Position, level: Level, seed: u64) -> Option<Move> {
    search(position, level.budget(), seed).map(|result| result.best)
}

/// The search's static evaluation of a position that is not over, for `seat`: its
/// material and standing less the field's (positive: `seat` stands better than the
/// others; 0 at the start). Computer players answer draw offers by it.
pub fn evaluation(position: &Position, seat: crate::Seat) -> i32 {
    eval::evaluate(position, seat)
}
