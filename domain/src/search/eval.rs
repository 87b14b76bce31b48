//! The evaluation: what a position is worth to each seat, in hundredths of a militant.
//!
//! Per active seat: being alive; the material of every party it controls, by kind; ruling
//! (bonus turns); mobility (the number of move families); its chief's safety (threats
//! from the other seats, free squares around it when the surround rule applies to it,
//! distance to the maze, a free path onto it). The seat to move is credited with its best
//! capture (a one-move look-ahead at the leaves: a living chief in reach is a whole
//! party). A seat's value is its score against the others': see [`value_for`].

use std::ops::ControlFlow;

use crate::bitboard::Bitboard;
use crate::movegen::Family;
use crate::piece::Kind;
use crate::position::{Control, Position};
use crate::seat::Seat;
use crate::square::Square;

/// A won game, less the plies it takes; a lost one is its negation.
pub(crate) const WIN: i32 = 1_000_000;

/// Being an active seat.
const ALIVE: i32 = 2_000;
/// Ruling: the chief on the maze gives a bonus turn after every other seat's turn.
const RULER: i32 = 500;
/// Per move family (a piece's path to a destination), up to [`MOBILITY_CAP`] families.
const MOBILITY: i32 = 3;
const MOBILITY_CAP: i32 = 120;
/// A chief that can step onto the empty maze on its next move.
const MAZE_REACH: i32 = 120;
/// Per square of distance (king steps) between a chief and the maze.
const MAZE_DISTANCE: i32 = 12;
/// A chief with no, one or two empty squares around it while its seat has no living
/// necromobile (the surround rule applies).
const LIBERTIES: [i32; 3] = [400, 180, 50];
/// The share (in percent) of a seat's score at stake when another seat, not the next to
/// move, can kill its chief.
const CHIEF_THREAT_PERCENT: i32 = 25;
/// A chief in reach of the seat to move, when that seat is its own.
const CHIEF_THREAT_OWN_TURN: i32 = 100;
/// The share (in percent) of the best capture credited to the seat to move.
const CAPTURE_PERCENT: i32 = 80;

/// The worth of a living piece.
pub(crate) const fn kind_value(kind: Kind) -> i32 {
    match kind {
        // A chief is worth its whole party; counted through `ALIVE` and takeovers.
        Kind::Chief => 0,
        Kind::Assassin => 350,
        Kind::Reporter => 300,
        Kind::Diplomat => 300,
        Kind::Necromobile => 300,
        Kind::Militant => 100,
    }
}

/// The living pieces of the parties `seat` controls.
fn controlled(position: &Position, seat: Seat) -> Bitboard {
    let masks = position.board().masks();
    let mut own = Bitboard::EMPTY;
    for party in Seat::ALL {
        if position.control(party) == Control::Seat(seat) {
            own = own | Bitboard(masks.living[party.index()]);
        }
    }
    own
}

/// The material of a set of living pieces.
fn material(position: &Position, pieces: Bitboard) -> i32 {
    let masks = position.board().masks();
    Kind::ALL
        .iter()
        .map(|&kind| kind_value(kind) * (pieces.0 & masks.kinds[kind as usize]).count_ones() as i32)
        .sum()
}

/// What a seat could do if it moved now.
#[derive(Clone, Copy, Default)]
struct Reach {
    families: i32,
    /// Squares of living pieces it can kill.
    kills: u128,
    /// Squares of living chiefs its diplomats can lift.
    lifts: u128,
    /// Its chief can step onto the empty maze.
    maze: bool,
}

fn reach(position: &Position, seat: Seat) -> Reach {
    let board = position.board();
    let mut reach = Reach::default();
    let _ = position.families(seat, &mut |family| {
        reach.families += 1;
        let mover = board.get(family.from()).map(|p| p.kind);
        let target = match family {
            Family::Plain { to, .. } => {
                if to.is_maze() {
                    reach.maze = true;
                }
                None
            }
            Family::ReporterKill { victim, .. } => Some(victim),
            _ => Some(family.to()),
        };
        if let Some(sq) = target
            && let Some(piece) = board.get(sq)
            && piece.alive
        {
            if mover == Some(Kind::Diplomat) {
                if piece.kind == Kind::Chief {
                    reach.lifts |= 1u128 << sq.index();
                }
            } else {
                reach.kills |= 1u128 << sq.index();
            }
        }
        ControlFlow::Continue(())
    });
    reach
}

/// King-step distance between two squares.
fn distance(a: Square, b: Square) -> i32 {
    let df = (a.file() as i32 - b.file() as i32).abs();
    let dr = (a.rank() as i32 - b.rank() as i32).abs();
    df.max(dr)
}

/// Each seat's score (0 for a seat that is not active). The game is not over.
pub(crate) fn scores(position: &Position) -> [i32; 4] {
    let masks = position.board().masks();
    let empty = position.board().empty_squares();
    let to_move = position.to_move();
    let ruler = position.ruler();
    let mut score = [0i32; 4];
    let mut own = [Bitboard::EMPTY; 4];
    let mut reaches = [Reach::default(); 4];
    let mut chief = [None; 4];
    for seat in Seat::ALL {
        if !position.is_active(seat) {
            continue;
        }
        let i = seat.index();
        own[i] = controlled(position, seat);
        reaches[i] = reach(position, seat);
        let r = reaches[i];
        let mut s = ALIVE + material(position, own[i]);
        s += MOBILITY * r.families.min(MOBILITY_CAP);
        if ruler == Some(seat) {
            s += RULER;
        }
        let chiefs = Bitboard(masks.chiefs(seat));
        if let Some(c) = chiefs.iter().next() {
            chief[i] = Some(c);
            if !c.is_maze() {
                s -= MAZE_DISTANCE * distance(c, Square::MAZE);
                if r.maze {
                    s += MAZE_REACH;
                }
                let necromobile = own[i].0 & masks.kinds[Kind::Necromobile as usize] != 0;
                if !necromobile {
                    let liberties = (Bitboard::from_square(c).neighbours() & empty).count();
                    if let Some(penalty) = LIBERTIES.get(liberties as usize) {
                        s -= penalty;
                    }
                }
            }
        }
        score[i] = s;
    }
    // Threats to chiefs from seats other than the one to move.
    let mut adjusted = score;
    for seat in Seat::ALL {
        let i = seat.index();
        let Some(c) = chief[i] else { continue };
        let bit = 1u128 << c.index();
        let threatened_by = Seat::ALL.into_iter().filter(|o| {
            *o != seat
                && Some(*o) != to_move
                && (reaches[o.index()].kills | reaches[o.index()].lifts) & bit != 0
        });
        if threatened_by.count() > 0 {
            adjusted[i] -= if Some(seat) == to_move {
                CHIEF_THREAT_OWN_TURN
            } else {
                score[i] * CHIEF_THREAT_PERCENT / 100
            };
        }
    }
    // The seat to move takes its best capture.
    if let Some(m) = to_move {
        let mi = m.index();
        let mut best: Option<(i32, i32, Option<Seat>)> = None; // (gain, loss, victim seat)
        for sq in Bitboard(reaches[mi].kills | reaches[mi].lifts).iter() {
            let Some(piece) = position.board().get(sq) else {
                continue;
            };
            let (gain, loss, victim) = match position.control(piece.party) {
                Control::Seat(v) if piece.kind == Kind::Chief => {
                    // A diplomat's lift is a threat, not a kill: count half.
                    let lifted = reaches[mi].kills & (1u128 << sq.index()) == 0;
                    let (g, l) = (material(position, own[v.index()]), score[v.index()]);
                    if lifted {
                        (g / 4, l / 4, Some(v))
                    } else {
                        (g, l, Some(v))
                    }
                }
                Control::Seat(v) => (0, kind_value(piece.kind), Some(v)),
                Control::Hostage if piece.kind == Kind::Chief => {
                    let party = Bitboard(masks.living[piece.party.index()]);
                    (material(position, party), 0, None)
                }
                _ => (0, 0, None),
            };
            if best.is_none_or(|(g, l, _)| gain + loss > g + l) {
                best = Some((gain, loss, victim));
            }
        }
        if let Some((gain, loss, victim)) = best {
            adjusted[mi] += gain * CAPTURE_PERCENT / 100;
            if let Some(v) = victim {
                adjusted[v.index()] -= loss * CAPTURE_PERCENT / 100;
            }
        }
    }
    adjusted
}

/// The material-only scores of the greedy baseline: alive, material, ruling.
pub(crate) fn material_scores(position: &Position) -> [i32; 4] {
    let ruler = position.ruler();
    Seat::ALL.map(|seat| {
        if !position.is_active(seat) {
            return 0;
        }
        let mut s = ALIVE + material(position, controlled(position, seat));
        if ruler == Some(seat) {
            s += RULER;
        }
        s
    })
}

/// A seat's value from per-seat scores: its score less the mean of the three others'
/// (inactive seats count 0) and less the best of them, halved: both weakening the field
/// and catching up with the leader count.
pub(crate) fn value_for(scores: [i32; 4], seat: Seat) -> i32 {
    let others = Seat::ALL.into_iter().filter(|s| *s != seat);
    let sum: i32 = others.clone().map(|s| scores[s.index()]).sum();
    let max = others.map(|s| scores[s.index()]).max().unwrap_or(0);
    scores[seat.index()] - (sum / 3 + max) / 2
}

/// The value of a finished game (or of the seat's elimination) for `seat`, `ply` plies
/// from the root: sooner wins and later losses are better.
pub(crate) fn terminal_value(position: &Position, seat: Seat, ply: u32) -> Option<i32> {
    let active = position.active_seats();
    if !active.contains(seat) {
        return Some(-WIN + ply as i32);
    }
    if position.is_over() {
        return Some(if active.len() == 1 {
            WIN - ply as i32
        } else {
            0
        });
    }
    None
}

/// The static value of a position that is not over, for `seat`.
pub(crate) fn evaluate(position: &Position, seat: Seat) -> i32 {
    value_for(scores(position), seat)
}
