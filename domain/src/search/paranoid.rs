//! Paranoid alpha-beta search with iterative deepening.
//!
//! The seat to move at the root ("us") maximises its value (see `eval::value_for`); every
//! other seat is assumed to play against us and minimises it. That turns the four-seat
//! game into a two-sided one, so alpha-beta pruning applies, and it is the safe
//! assumption in a game where any rival may kill our chief. Turn order (bonus turns,
//! passes) comes from the rules engine itself: a node's player is the position's seat to
//! move. A position where we are eliminated is a loss at once.
//!
//! Depth is counted in plies of any seat. Each iteration searches the root moves best
//! first (the previous iteration's order); a history table orders the inner nodes after
//! the captures. The search stops when the node budget is spent and answers with the best
//! move of the deepest iteration, or of the unfinished one when it already found better.

use std::time::Instant;

use crate::moves::Move;
use crate::position::Position;
use crate::seat::Seat;

use super::candidates::{Candidate, candidates};
use super::eval::{WIN, evaluate, terminal_value};
use super::level::SearchBudget;
use super::rng::Rng;

pub(super) const INFINITY: i32 = 2 * WIN;

/// What a search found.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct SearchResult {
    pub best: Move,
    /// The value of the best move for the seat to move (hundredths of a militant; near
    /// ±1,000,000 for a won or lost game).
    pub score: i32,
    /// The deepest iteration completed, in plies.
    pub depth: u32,
    /// Positions visited.
    pub nodes: u64,
}

pub(super) struct Searcher {
    us: Seat,
    pub(super) nodes: u64,
    budget: SearchBudget,
    started: Option<Instant>,
    pub(super) aborted: bool,
    /// Cut-off counts by (from, to), for ordering quiet moves.
    history: Vec<i32>,
    /// One move list per ply, reused.
    buffers: Vec<Vec<Candidate>>,
}

impl Searcher {
    /// A searcher for `us` (the seat whose value is maximised) with a fresh history.
    pub(super) fn new(us: Seat, budget: SearchBudget) -> Searcher {
        Searcher {
            us,
            nodes: 0,
            budget,
            started: budget.time_limit.map(|_| Instant::now()),
            aborted: false,
            history: vec![0; 81 * 81],
            buffers: Vec::new(),
        }
    }

    fn out_of_budget(&mut self) -> bool {
        if self.nodes >= self.budget.nodes {
            self.aborted = true;
        } else if self.nodes % 256 == 0
            && let (Some(limit), Some(started)) = (self.budget.time_limit, self.started)
            && started.elapsed() >= limit
        {
            self.aborted = true;
        }
        self.aborted
    }

    fn history_index(mv: &Move) -> usize {
        mv.from.index() * 81 + mv.to.index()
    }

    pub(super) fn alphabeta(
        &mut self,
        position: &Position,
        depth: u32,
        ply: u32,
        mut alpha: i32,
        mut beta: i32,
    ) -> i32 {
        self.nodes += 1;
        if let Some(value) = terminal_value(position, self.us, ply) {
            return value;
        }
        if depth == 0 || self.out_of_budget() {
            return evaluate(position, self.us);
        }
        let Some(mover) = position.to_move() else {
            return evaluate(position, self.us);
        };
        let mut moves = self.buffers.pop().unwrap_or_default();
        moves.clear();
        candidates(position, &mut moves);
        if moves.is_empty() {
            // A hand-made position whose seat to move is stuck.
            self.buffers.push(moves);
            return evaluate(position, self.us);
        }
        for c in moves.iter_mut() {
            c.order = c
                .order
                .saturating_add(self.history[Self::history_index(&c.mv)]);
        }
        moves.sort_by_key(|c| std::cmp::Reverse(c.order));
        let maximising = mover == self.us;
        let mut best = if maximising { -INFINITY } else { INFINITY };
        for c in &moves {
            let mut child = position.clone();
            child.apply(c.family, &c.mv, &mut ());
            let value = self.alphabeta(&child, depth - 1, ply + 1, alpha, beta);
            if self.aborted {
                break;
            }
            if maximising {
                best = best.max(value);
                alpha = alpha.max(value);
            } else {
                best = best.min(value);
                beta = beta.min(value);
            }
            if alpha >= beta {
                let slot = &mut self.history[Self::history_index(&c.mv)];
                *slot = slot.saturating_add((depth * depth) as i32).min(50_000);
                break;
            }
        }
        self.buffers.push(moves);
        best
    }
}

/// Searches the position for its seat to move. `None` when that seat has no legal move
/// (the game is over, or a hand-made position leaves it stuck).
pub fn search(position: &Position, budget: SearchBudget, seed: u64) -> Option<SearchResult> {
    let us = position.to_move()?;
    let mut root = Vec::new();
    candidates(position, &mut root);
    if root.is_empty() {
        return None;
    }
    // The seed decides between moves the search cannot tell apart.
    Rng::new(seed).shuffle(&mut root);
    root.sort_by_key(|c| std::cmp::Reverse(c.order));
    let mut searcher = Searcher::new(us, budget);
    let mut result = SearchResult {
        best: root[0].mv,
        score: 0,
        depth: 0,
        nodes: 0,
    };
    if root.len() == 1 {
        return Some(result);
    }
    let mut children: Vec<Position> = root
        .iter()
        .map(|c| {
            let mut child = position.clone();
            child.apply(c.family, &c.mv, &mut ());
            child
        })
        .collect();
    let mut scores = vec![-INFINITY; root.len()];
    for depth in 1..=budget.max_depth.max(1) {
        let mut alpha = -INFINITY;
        let mut best: Option<usize> = None;
        for (i, child) in children.iter().enumerate() {
            let value = searcher.alphabeta(child, depth - 1, 1, alpha, INFINITY);
            if searcher.aborted {
                break;
            }
            scores[i] = value;
            if best.is_none() || value > alpha {
                alpha = value;
                best = Some(i);
            }
        }
        if let Some(b) = best {
            if scores[b] <= -WIN + 1_000 && result.depth > 0 {
                // Every move loses if all the rivals play together against us: they
                // seldom do, so keep the shallower search's choice.
                break;
            }
            // Searched best first, so even an unfinished iteration's best is sound.
            result.best = root[b].mv;
            result.score = scores[b];
        }
        if searcher.aborted {
            break;
        }
        result.depth = depth;
        if result.score.abs() >= WIN - 1_000 {
            break; // a forced result: deeper search changes nothing
        }
        // Best first next time; a stable sort keeps the seed's order among equals.
        let mut order: Vec<usize> = (0..root.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(scores[i]));
        if let Some(b) = best
            && let Some(pos) = order.iter().position(|&i| i == b)
        {
            order.remove(pos);
            order.insert(0, b);
        }
        root = order.iter().map(|&i| root[i]).collect();
        children = order.iter().map(|&i| children[i].clone()).collect();
        scores = order.iter().map(|&i| scores[i]).collect();
    }
    result.nodes = searcher.nodes;
    Some(result)
}
