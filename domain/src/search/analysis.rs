//! The engine's analysis of a game, move by move: what each position is worth to each
//! seat, the move the search prefers, and a judgement of the move played.
//!
//! # The scale
//!
//! Every figure is the paranoid search's own value (see `paranoid`): for a seat, its
//! standing less the field's, in **hundredths of a militant** (a militant is 100, an
//! assassin 350, a reporter, diplomat or necromobile 300, being in the game 2,000), all
//! rivals assumed to play together against it. Results the search sees as forced are
//! capped at [`SCORE_CAP`]: `+10000` a win within the horizon, `-10000` the seat's
//! elimination (or its being out of the game).
//!
//! # Per move
//!
//! For the position before each move, the search runs at the analysis budget (a level's
//! node budget, [`Level::budget`]) from the mover's side over its candidate moves **and the
//! move played** (searched first, with a full window, so that its value is exact at the
//! depth reached); the best of them is the preferred move. Iterations of the deepening
//! that run out of nodes are dropped whole, so both values come from the same completed
//! depth. `loss` is `best_score - played_score` (never negative: the move played is one
//! of the moves compared). The other seats' values of the position come from a search of
//! the same budget from their side.
//!
//! # Judgements
//!
//! On the loss, in hundredths of a militant: [`INACCURACY`] (150) or more an inaccuracy,
//! [`MISTAKE`] (400, a piece) or more a mistake, [`BLUNDER`] (1,000) or more a blunder. A
//! move after which the next seat to move, a rival, can kill the mover's chief (or by
//! which the mover loses its own chief) is always a blunder when another legal move
//! avoided that: this is checked over every legal move, not the search's candidates,
//! and such a move's score is that of losing the chief (`-10000`).
//!
//! Everything is deterministic: node budgets, no clock, no randomness.

use std::ops::ControlFlow;

use crate::error::MoveError;
use crate::game::{Action, Game, GameSettings, ReplayError};
use crate::movegen::expand;
use crate::moves::Move;
use crate::position::Position;
use crate::seat::Seat;

use super::candidates::candidates;
use super::eval::WIN;
use super::level::{Level, SearchBudget};
use super::paranoid::{INFINITY, Searcher};

/// Forced results are capped at this value (hundredths of a militant).
pub const SCORE_CAP: i32 = 10_000;
/// The least loss of an inaccuracy.
pub const INACCURACY: i32 = 150;
/// The least loss of a mistake.
pub const MISTAKE: i32 = 400;
/// The least loss of a blunder.
pub const BLUNDER: i32 = 1_000;
/// The version of this analysis: changes whenever what it computes changes.
pub const ANALYSIS_FORMAT: u32 = 1;
/// The level whose node budget the service analyses with unless told otherwise.
pub const DEFAULT_ANALYSIS_LEVEL: Level = match Level::new(3) {
    Some(level) => level,
    None => Level::MAX,
};

/// The name of the engine that analyses: the rules crate's version, this analysis's
/// format and the level. Stored analyses of another engine version are redone.
pub fn engine_version(level: Level) -> String {
    format!(
        "djambi-{}/analysis-{ANALYSIS_FORMAT}/level-{level}",
        env!("CARGO_PKG_VERSION")
    )
}

/// How bad a move was.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Judgement {
    Inaccuracy,
    Mistake,
    Blunder,
}

impl Judgement {
    /// `inaccuracy`, `mistake` or `blunder`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Judgement::Inaccuracy => "inaccuracy",
            Judgement::Mistake => "mistake",
            Judgement::Blunder => "blunder",
        }
    }

    pub fn parse(text: &str) -> Option<Judgement> {
        match text {
            "inaccuracy" => Some(Judgement::Inaccuracy),
            "mistake" => Some(Judgement::Mistake),
            "blunder" => Some(Judgement::Blunder),
            _ => None,
        }
    }

    /// The judgement of a loss by the thresholds alone.
    pub const fn of_loss(loss: i32) -> Option<Judgement> {
        if loss >= BLUNDER {
            Some(Judgement::Blunder)
        } else if loss >= MISTAKE {
            Some(Judgement::Mistake)
        } else if loss >= INACCURACY {
            Some(Judgement::Inaccuracy)
        } else {
            None
        }
    }
}

/// Per seat (index: [`Seat::index`]) a value, `None` for a seat out of the game.
pub type SeatValues = [Option<i32>; 4];

/// The analysis of one move.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct MoveAnalysis {
    /// The seat that played.
    pub seat: Seat,
    pub played: Move,
    /// The move the analysis prefers (the move played when nothing was better).
    pub best: Move,
    /// The mover's value after the best move and after the move played (capped).
    pub best_score: i32,
    pub played_score: i32,
    /// `best_score - played_score`, never negative.
    pub loss: i32,
    pub judgement: Option<Judgement>,
    /// The next rival can kill the mover's chief after the move played (or the move lost
    /// it), while another move avoided that.
    pub chief_left_en_prise: bool,
    /// The values of the position before the move, per seat (capped).
    pub before: SeatValues,
    /// The deepest completed iteration of the mover's search, in plies.
    pub depth: u32,
    /// Positions visited by every search of this move.
    pub nodes: u64,
}

/// A value capped to [`SCORE_CAP`].
pub const fn cap(value: i32) -> i32 {
    if value > SCORE_CAP {
        SCORE_CAP
    } else if value < -SCORE_CAP {
        -SCORE_CAP
    } else {
        value
    }
}

/// The paranoid value of `position` for `seat` at `budget` (uncapped), and the nodes
/// visited. The deepest iteration completed within the budget counts; the first always
/// completes.
fn value_of(position: &Position, seat: Seat, budget: SearchBudget) -> (i32, u64) {
    let mut searcher = Searcher::new(seat, budget);
    let mut value = searcher.alphabeta(position, 0, 0, -INFINITY, INFINITY);
    for depth in 1..=budget.max_depth.max(1) {
        let v = searcher.alphabeta(position, depth, 0, -INFINITY, INFINITY);
        if searcher.aborted {
            break;
        }
        value = v;
        if v.abs() >= WIN - 1_000 {
            break;
        }
    }
    (value, searcher.nodes)
}

/// Each seat's value of a position (capped; `None` for a seat out of the game). A
/// finished game: `+10000` for the winner, `0` for seats sharing a draw.
pub fn evaluate_seats(position: &Position, budget: SearchBudget) -> SeatValues {
    let active = position.active_seats();
    let over = position.is_over();
    Seat::ALL.map(|seat| {
        if !active.contains(seat) {
            return None;
        }
        if over {
            return Some(if active.len() == 1 { SCORE_CAP } else { 0 });
        }
        Some(cap(value_of(position, seat, budget).0))
    })
}

/// Whether `mover` loses its chief by the move that led to `after`, or the next seat to
/// move, a rival, has a legal move that kills it (directly or by closing a ring). A seat
/// that moves again next is not in danger by this test.
pub fn chief_in_danger(after: &Position, mover: Seat) -> bool {
    if !after.is_active(mover) {
        return true;
    }
    if after.is_over() {
        return false;
    }
    let Some(next) = after.to_move() else {
        return false;
    };
    if next == mover {
        return false;
    }
    let empty = after.board().empty_squares();
    let mut killed = false;
    let _ = after.families(next, &mut |family| {
        expand(family, empty, &mut |mv| {
            if killed {
                return;
            }
            let mut child = after.clone();
            child.apply(family, &mv, &mut ());
            if !child.is_active(mover) {
                killed = true;
            }
        });
        if killed {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    killed
}

/// What the root search of one position found.
struct Root {
    best: Move,
    best_score: i32,
    played_score: i32,
    depth: u32,
    nodes: u64,
    /// The other moves compared, best first by their last value (upper bounds).
    others: Vec<(Move, Position)>,
}

/// The mover's search over its candidates and the move played (see the module
/// documentation). `played_child` is the position after the move played.
fn root_search(
    position: &Position,
    mover: Seat,
    played: Move,
    played_child: &Position,
    budget: SearchBudget,
) -> Root {
    let mut moves = Vec::new();
    candidates(position, &mut moves);
    let mut children: Vec<(Move, Position)> = vec![(played, played_child.clone())];
    for c in moves {
        if c.mv == played {
            continue;
        }
        let mut child = position.clone();
        child.apply(c.family, &c.mv, &mut ());
        children.push((c.mv, child));
    }
    let mut searcher = Searcher::new(mover, budget);
    // Depth 1 (every child valued statically) always completes.
    let mut order: Vec<usize> = (1..children.len()).collect();
    let mut last = vec![-INFINITY; children.len()];
    let mut found = (0usize, -INFINITY, -INFINITY, 0u32); // (best, best score, played, depth)
    for depth in 1..=budget.max_depth.max(1) {
        let mut scores = vec![-INFINITY; children.len()];
        let played_value = searcher.alphabeta(&children[0].1, depth - 1, 1, -INFINITY, INFINITY);
        if searcher.aborted {
            break;
        }
        scores[0] = played_value;
        let (mut best, mut alpha) = (0, played_value);
        for &i in &order {
            let v = searcher.alphabeta(&children[i].1, depth - 1, 1, alpha, INFINITY);
            if searcher.aborted {
                break;
            }
            scores[i] = v;
            if v > alpha {
                alpha = v;
                best = i;
            }
        }
        if searcher.aborted {
            break;
        }
        found = (best, alpha, played_value, depth);
        last = scores;
        if alpha.abs() >= WIN - 1_000 && played_value.abs() >= WIN - 1_000 {
            break; // both forced: deeper changes neither
        }
        // The best first next time (a stable sort keeps the generator's order).
        order.sort_by_key(|&i| std::cmp::Reverse(last[i]));
    }
    let (best, best_score, played_score, depth) = found;
    let mut ranked: Vec<usize> = (1..children.len()).filter(|&i| i != best).collect();
    ranked.sort_by_key(|&i| std::cmp::Reverse(last[i]));
    let best_move = children[best].0;
    let mut children: Vec<Option<(Move, Position)>> = children.into_iter().map(Some).collect();
    let others = ranked
        .into_iter()
        .filter_map(|i| children[i].take())
        .collect();
    Root {
        best: best_move,
        best_score,
        played_score,
        depth,
        nodes: searcher.nodes,
        others,
    }
}

/// Analyses the move `played` in `position` at `budget` (see the module documentation).
/// The values of the other seats are searched too. Errors when the move is illegal.
pub fn analyse_move(
    position: &Position,
    played: &Move,
    budget: SearchBudget,
) -> Result<MoveAnalysis, MoveError> {
    let played_child = position.play(played)?;
    let mover = position.to_move().expect("a legal move has a seat to move");
    let root = root_search(position, mover, *played, &played_child, budget);
    let mut nodes = root.nodes;
    let mut best = root.best;
    let mut best_score = cap(root.best_score);
    let mut played_score = cap(root.played_score);
    // The chief rule, over every legal move.
    let played_danger = chief_in_danger(&played_child, mover);
    if played_danger {
        played_score = -SCORE_CAP;
    }
    let best_danger = if best == *played {
        played_danger
    } else {
        chief_in_danger(&position.play(&best)?, mover)
    };
    let mut safe_exists = !best_danger;
    if best_danger {
        // Look for a safe move: the searched ones best first, then every legal move.
        let safe = root
            .others
            .iter()
            .filter(|(mv, _)| *mv != best && *mv != *played)
            .find(|(_, child)| !chief_in_danger(child, mover))
            .map(|(mv, child)| (*mv, child.clone()))
            .or_else(|| {
                position
                    .legal_moves()
                    .into_iter()
                    .filter(|mv| *mv != best && *mv != *played)
                    .find_map(|mv| {
                        let child = position.play(&mv).ok()?;
                        (!chief_in_danger(&child, mover)).then_some((mv, child))
                    })
            });
        match safe {
            Some((mv, child)) => {
                // Its value from the mover's side, the child searched as the root's
                // children are (one ply less).
                let (v, n) = value_of(&child, mover, shallower(budget));
                nodes += n;
                best = mv;
                best_score = cap(v);
                safe_exists = true;
            }
            // Every move leaves the chief to the next rival.
            None if best != *played => best_score = -SCORE_CAP,
            None => {}
        }
    }
    let mut left_en_prise = false;
    if safe_exists {
        // Keeping the chief a ply longer is worth more than losing it now.
        best_score = best_score.max(-SCORE_CAP + 1);
        left_en_prise = played_danger;
    }
    if best_score < played_score {
        // The move played is as good as any the analysis knows.
        best = *played;
        best_score = played_score;
    }
    let loss = best_score - played_score;
    let judgement = if left_en_prise {
        Some(Judgement::Blunder)
    } else {
        Judgement::of_loss(loss)
    };
    let mut before = [None; 4];
    for seat in Seat::ALL {
        if !position.is_active(seat) {
            continue;
        }
        before[seat.index()] = Some(if seat == mover {
            best_score
        } else {
            let (v, n) = value_of(position, seat, budget);
            nodes += n;
            cap(v)
        });
    }
    Ok(MoveAnalysis {
        seat: mover,
        played: *played,
        best,
        best_score,
        played_score,
        loss,
        judgement,
        chief_left_en_prise: left_en_prise,
        before,
        depth: root.depth,
        nodes,
    })
}

/// The budget of a search one ply below the root: the same nodes, one ply less deep.
fn shallower(budget: SearchBudget) -> SearchBudget {
    SearchBudget {
        max_depth: budget.max_depth.saturating_sub(1).max(1),
        ..budget
    }
}

/// The positions a game's moves were played in: for each action that is a move, the
/// position before it and the move, in order; and the position after the last action.
pub fn move_positions(
    settings: GameSettings,
    actions: &[Action],
) -> Result<(Vec<(Position, Move)>, Position), ReplayError> {
    let mut game = Game::new(settings).map_err(ReplayError::Settings)?;
    let mut moves = Vec::new();
    for (index, action) in actions.iter().enumerate() {
        if let Action::Move(mv) = action {
            moves.push((game.position().clone(), *mv));
        }
        game.apply(action)
            .map_err(|error| ReplayError::Action { index, error })?;
    }
    Ok((moves, game.position().clone()))
}

/// A whole game's analysis: one entry per move, and the values of the final position.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct GameAnalysis {
    pub moves: Vec<MoveAnalysis>,
    pub last: SeatValues,
}

/// Analyses every move of a game at `budget`, one after the other.
pub fn analyse_game(
    settings: GameSettings,
    actions: &[Action],
    budget: SearchBudget,
) -> Result<GameAnalysis, ReplayError> {
    let (moves, last) = move_positions(settings, actions)?;
    let mut out = Vec::with_capacity(moves.len());
    for (index, (position, mv)) in moves.iter().enumerate() {
        out.push(
            analyse_move(position, mv, budget).map_err(|e| ReplayError::Action {
                index,
                error: e.into(),
            })?,
        );
    }
    Ok(GameAnalysis {
        moves: out,
        last: evaluate_seats(&last, budget),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_are_ordered() {
        assert_eq!(Judgement::of_loss(0), None);
        assert_eq!(Judgement::of_loss(INACCURACY - 1), None);
        assert_eq!(Judgement::of_loss(INACCURACY), Some(Judgement::Inaccuracy));
        assert_eq!(Judgement::of_loss(MISTAKE), Some(Judgement::Mistake));
        assert_eq!(Judgement::of_loss(BLUNDER), Some(Judgement::Blunder));
        assert_eq!(Judgement::of_loss(2 * SCORE_CAP), Some(Judgement::Blunder));
        for j in [
            Judgement::Inaccuracy,
            Judgement::Mistake,
            Judgement::Blunder,
        ] {
            assert_eq!(Judgement::parse(j.as_str()), Some(j));
        }
    }

    #[test]
    fn the_opening_move_is_analysed_and_loses_nothing_against_itself() {
        let position = Position::start(crate::SeatSet::ALL).unwrap();
        let budget = Level::new(1).unwrap().budget();
        let mv: Move = "C8-D7".parse().unwrap();
        let a = analyse_move(&position, &mv, budget).unwrap();
        assert_eq!(a.seat, Seat::Red);
        assert!(a.loss >= 0);
        assert!(position.legal_moves().contains(&a.best));
        assert!(a.before.iter().all(Option::is_some));
        assert!(!a.chief_left_en_prise);
        let again = analyse_move(&position, &mv, budget).unwrap();
        assert_eq!(a, again);
    }
}
