//! Strength levels and the search budgets they stand for.

use std::fmt;
use std::time::Duration;

/// How much a search may do. The node budget makes a search deterministic: the same
/// position, budget and seed always give the same move, on any machine. The optional
/// time limit is a safety cap for callers that need one; a search stopped by it depends
/// on the machine's speed, so levels do not set it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct SearchBudget {
    /// Positions visited (interior nodes and leaves). The search stops at the first
    /// interior node past the budget, so it may visit a few hundred more.
    pub nodes: u64,
    /// Plies of iterative deepening, at most.
    pub max_depth: u32,
    /// Wall-clock cap, checked every 256 nodes; `None` for none.
    pub time_limit: Option<Duration>,
}

impl SearchBudget {
    /// A deterministic budget of `nodes` positions.
    pub const fn nodes(nodes: u64) -> SearchBudget {
        SearchBudget {
            nodes,
            max_depth: 16,
            time_limit: None,
        }
    }
}

/// A strength level, 1 (weakest) to 5 (strongest): a node budget for the search.
///
/// | level | nodes | depth reached (plies, random game positions) |
/// |---|---|---|
/// | 1 | 200 | 1-2 |
/// | 2 | 2,000 | 2-3 |
/// | 3 | 12,000 | 3-4 |
/// | 4 | 50,000 | 3-5 |
/// | 5 | 150,000 | 3-5 |
///
/// Level 5 thinks at most about a second a move on one core of the project's machine
/// (release build); see BENCHMARKS.md, "Computer players".
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Level(u8);

impl Level {
    pub const MIN: Level = Level(1);
    pub const MAX: Level = Level(5);
    pub const ALL: [Level; 5] = [Level(1), Level(2), Level(3), Level(4), Level(5)];

    /// The level numbered 1 to 5.
    pub const fn new(number: u8) -> Option<Level> {
        if number >= 1 && number <= 5 {
            Some(Level(number))
        } else {
            None
        }
    }

    pub const fn number(self) -> u8 {
        self.0
    }

    /// The search budget of the level.
    pub const fn budget(self) -> SearchBudget {
        SearchBudget::nodes(match self.0 {
            1 => 200,
            2 => 2_000,
            3 => 12_000,
            4 => 50_000,
            _ => 150_000,
        })
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}
