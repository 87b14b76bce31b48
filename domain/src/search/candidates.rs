//! The moves the search looks at, and the order it tries them in.
//!
//! Every legal *family* (one piece's path to one destination, see `movegen`) is kept, but
//! a family's placement choices are thinned out: placing a corpse or a lifted piece on
//! most empty squares changes little, so the search keeps the departure square (always
//! allowed) and the empty squares next to enemy chiefs (where corpses close a ring around
//! them). A lifted chief keeps every placement: that choice can kill it (a pocket of
//! corpses) or crown a rival (the maze). Maze exits are all kept. Every candidate is a
//! complete legal move of the position.

use crate::bitboard::Bitboard;
use crate::movegen::{Family, expand};
use crate::moves::Move;
use crate::piece::Kind;
use crate::position::{Control, Position};
use crate::seat::Seat;
use crate::square::Square;

use super::eval::kind_value;

/// A move with the family it belongs to (so that it is played without being checked
/// again) and its ordering key (higher first).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Candidate {
    pub family: Family,
    pub mv: Move,
    pub order: i32,
}

/// Ordering key of a move that kills or lifts a living chief.
const CHIEF_ATTACK: i32 = 100_000;
/// Ordering key of a chief stepping onto the maze.
const TO_MAZE: i32 = 60_000;

/// Empty squares (the maze excluded) next to the living chiefs of other seats.
fn near_enemy_chiefs(position: &Position, seat: Seat) -> Bitboard {
    let masks = position.board().masks();
    let mut chiefs = Bitboard::EMPTY;
    for party in Seat::ALL {
        if let Control::Seat(owner) = position.control(party)
            && owner != seat
        {
            chiefs = chiefs | Bitboard(masks.chiefs(party));
        }
    }
    chiefs.neighbours() & position.board().empty_squares().without(Square::MAZE)
}

/// Appends the candidate moves of the seat to move (none when the game is over).
pub(crate) fn candidates(position: &Position, out: &mut Vec<Candidate>) {
    let Some(seat) = position.to_move() else {
        return;
    };
    let board = position.board();
    let empty = board.empty_squares();
    let near = near_enemy_chiefs(position, seat);
    let _ = position.families(seat, &mut |family| {
        let from = family.from();
        let mover = board.get(from).map_or(Kind::Militant, |p| p.kind);
        let target_square = match family {
            Family::ReporterKill { victim, .. } => Some(victim),
            Family::Plain { .. } => None,
            _ => Some(family.to()),
        };
        let target = target_square.and_then(|sq| board.get(sq));
        let lifts_chief = mover == Kind::Diplomat && target.is_some_and(|t| t.is_living_chief());
        let kills = target.filter(|t| t.alive && mover != Kind::Diplomat);
        let order = match (kills, family) {
            (Some(victim), _) if victim.kind == Kind::Chief => CHIEF_ATTACK,
            (Some(victim), _) => kind_value(victim.kind) * 10 - kind_value(mover) / 10,
            (None, _) if lifts_chief => CHIEF_ATTACK / 2,
            (None, Family::Plain { to, .. }) if to.is_maze() => TO_MAZE,
            _ => 0,
        };
        // Which placements to keep.
        let keep = |place: Option<Square>| match place {
            None => true,
            Some(_) if lifts_chief => true,
            Some(sq) if mover == Kind::Diplomat => sq == from,
            Some(sq) => sq == from || near.contains(sq),
        };
        let before = out.len();
        let mut first = None;
        expand(family, empty, &mut |mv| {
            if first.is_none() {
                first = Some(mv);
            }
            if keep(mv.place) {
                out.push(Candidate { family, mv, order });
            }
        });
        // A maze exit onto the departure square leaves it unavailable as a placement:
        // keep at least one move of every family.
        if out.len() == before
            && let Some(mv) = first
        {
            out.push(Candidate { family, mv, order });
        }
        std::ops::ControlFlow::Continue(())
    });
}
