//! Legal move generation and move checking.
//!
//! Moves are generated in *families*: one piece's path to one destination, with the
//! choices still open (placement square, exit square). A family's moves can be listed,
//! or counted with bit arithmetic (perft, random playouts), and a given move is checked
//! against the families of its one piece, so that generation and checking share one
//! definition of the rules.

use std::ops::ControlFlow;

use crate::bitboard::Bitboard;
use crate::error::MoveError;
use crate::moves::Move;
use crate::piece::{Kind, Piece};
use crate::position::Position;
use crate::ruleset::{CorpseOnMaze, FriendlyFire, MasterMoves, Reporter};
use crate::seat::Seat;
use crate::square::{DIRECTIONS, ORTHOGONAL, Square};

/// One piece's path to one destination, with the choices it leaves open.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Family {
    /// A move to an empty square, the reporter's move without a kill included.
    Plain { from: Square, to: Square },
    /// A reporter's move to `to` that kills the enemy on `victim`.
    ReporterKill {
        from: Square,
        to: Square,
        victim: Square,
    },
    /// A militant or chief killing, or a diplomat or necromobile lifting, on `to`; the
    /// mover then places the corpse or piece on an empty square (the maze only when
    /// `maze_allowed`: a diplomat's lifted chief).
    Place {
        from: Square,
        to: Square,
        maze_allowed: bool,
    },
    /// An assassin's kill off the maze: the corpse goes to `from`.
    AssassinKill { from: Square, to: Square },
    /// An assassin's kill of the chief on the maze, then an exit.
    AssassinMaze { from: Square },
    /// A diplomat or necromobile lifting from the maze, then an exit and a placement.
    LiftMaze { from: Square },
    /// `master_moves=on`: an assassin's kill of the chief on the maze, then an exit onto
    /// the enemy chief on `exit`, killed, its corpse put on the maze.
    AssassinMaster { from: Square, exit: Square },
    /// `master_moves=on`: a diplomat's lift from the maze, then an exit onto the enemy
    /// chief on `exit`, put on the maze, then the placement of the lifted chief.
    DiplomatMaster { from: Square, exit: Square },
}

impl Family {
    pub(crate) fn from(self) -> Square {
        match self {
            Family::Plain { from, .. }
            | Family::ReporterKill { from, .. }
            | Family::Place { from, .. }
            | Family::AssassinKill { from, .. }
            | Family::AssassinMaze { from }
            | Family::LiftMaze { from }
            | Family::AssassinMaster { from, .. }
            | Family::DiplomatMaster { from, .. } => from,
        }
    }

    pub(crate) fn to(self) -> Square {
        match self {
            Family::Plain { to, .. }
            | Family::ReporterKill { to, .. }
            | Family::Place { to, .. }
            | Family::AssassinKill { to, .. } => to,
            Family::AssassinMaze { .. }
            | Family::LiftMaze { .. }
            | Family::AssassinMaster { .. }
            | Family::DiplomatMaster { .. } => Square::MAZE,
        }
    }
}

/// Squares reachable in straight lines from the maze over `empty` squares: the exits.
fn exits(empty: Bitboard) -> Bitboard {
    let mut exits = Bitboard::EMPTY;
    for dir in 0..DIRECTIONS.len() {
        for &sq in Square::MAZE.ray(dir) {
            if !empty.contains(sq) {
                break;
            }
            exits.insert(sq);
        }
    }
    exits
}

/// Where a placement may go after a family's action, given the board's empty squares
/// before the move (the departure square counts as empty).
fn placements(empty: Bitboard, from: Square, maze_allowed: bool) -> Bitboard {
    let squares = empty.with(from);
    if maze_allowed {
        squares
    } else {
        squares.without(Square::MAZE)
    }
}

impl Position {
    /// Calls `visit` with every legal family of the piece on `from`, for `seat`, under
    /// the position's ruleset.
    fn piece_families(
        &self,
        seat: Seat,
        from: Square,
        piece: Piece,
        empty: Bitboard,
        visit: &mut impl FnMut(Family) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        if self.rules.changes_moves() {
            return self.variant_piece_families(seat, from, piece, empty, visit);
        }
        self.piece_families_under::<false>(seat, from, piece, empty, visit)
    }

    /// Kept out of line, so that the default path stays as small as it was before the
    /// options (it is inlined into perft and the search).
    #[cold]
    #[inline(never)]
    fn variant_piece_families(
        &self,
        seat: Seat,
        from: Square,
        piece: Piece,
        empty: Bitboard,
        visit: &mut impl FnMut(Family) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        self.piece_families_under::<true>(seat, from, piece, empty, visit)
    }

    /// [`Position::piece_families`], compiled twice: `VARIANT` is false when no option
    /// changes the moves, so that the default rules pay nothing for the options.
    #[inline(always)]
    fn piece_families_under<const VARIANT: bool>(
        &self,
        seat: Seat,
        from: Square,
        piece: Piece,
        empty: Bitboard,
        visit: &mut impl FnMut(Family) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        let range = usize::from(piece.kind.range());
        let rules = self.rules;
        // Whether this piece may kill the piece `target` (VARIANTS.md 3.1 adds friendly
        // non-chiefs to the enemies of RULES.md).
        let killable = |target: Piece| {
            self.is_enemy(target, seat)
                || (VARIANT
                    && rules.friendly_fire == FriendlyFire::OwnNonChief
                    && target.kind != Kind::Chief
                    && self.is_friendly(target, seat))
        };
        // VARIANTS.md 3.6: a killed chief's corpse may go on the empty maze.
        let corpse_on_maze = |target: Piece| {
            VARIANT && rules.corpse_on_maze == CorpseOnMaze::On && target.kind == Kind::Chief
        };
        for dir in 0..DIRECTIONS.len() {
            let ray = from.ray(dir);
            for &sq in &ray[..ray.len().min(range)] {
                let Some(target) = self.board.get(sq) else {
                    if sq.is_maze() {
                        // Anyone may cross the empty maze; only a chief may stop on it.
                        if piece.kind == Kind::Chief {
                            visit(Family::Plain { from, to: sq })?;
                        }
                        continue;
                    }
                    // VARIANTS.md 3.3: a forced reporter moves without a kill only when
                    // its destination has no candidate.
                    if !VARIANT
                        || piece.kind != Kind::Reporter
                        || rules.reporter == Reporter::Optional
                        || !self.reporter_has_victim(sq, seat)
                    {
                        visit(Family::Plain { from, to: sq })?;
                    }
                    if piece.kind == Kind::Reporter {
                        for odir in ORTHOGONAL {
                            if let Some(victim) = sq.step(odir)
                                && let Some(p) = self.board.get(victim)
                                && self.is_enemy(p, seat)
                            {
                                visit(Family::ReporterKill {
                                    from,
                                    to: sq,
                                    victim,
                                })?;
                            }
                        }
                    }
                    continue;
                };
                let on_maze = sq.is_maze();
                let family = match piece.kind {
                    Kind::Militant if !on_maze && killable(target) => Some(Family::Place {
                        from,
                        to: sq,
                        maze_allowed: corpse_on_maze(target),
                    }),
                    Kind::Chief if killable(target) => Some(Family::Place {
                        from,
                        to: sq,
                        maze_allowed: corpse_on_maze(target),
                    }),
                    Kind::Assassin if killable(target) => Some(if on_maze {
                        Family::AssassinMaze { from }
                    } else {
                        Family::AssassinKill { from, to: sq }
                    }),
                    Kind::Diplomat if self.is_enemy(target, seat) => Some(if on_maze {
                        Family::LiftMaze { from }
                    } else {
                        Family::Place {
                            from,
                            to: sq,
                            maze_allowed: target.kind == Kind::Chief,
                        }
                    }),
                    Kind::Necromobile if !target.alive => Some(if on_maze {
                        Family::LiftMaze { from }
                    } else {
                        Family::Place {
                            from,
                            to: sq,
                            maze_allowed: false,
                        }
                    }),
                    _ => None,
                };
                if let Some(family) = family
                    && family_size(family, empty) > 0
                {
                    visit(family)?;
                }
                if VARIANT
                    && on_maze
                    && rules.master_moves == MasterMoves::On
                    && matches!(piece.kind, Kind::Assassin | Kind::Diplomat)
                    && self.is_enemy(target, seat)
                {
                    self.master_families(seat, from, piece.kind, empty, visit)?;
                }
                break;
            }
        }
        ControlFlow::Continue(())
    }

    /// Whether a reporter of `seat` arriving on `to` has a victim to kill.
    fn reporter_has_victim(&self, to: Square, seat: Seat) -> bool {
        ORTHOGONAL.into_iter().any(|odir| {
            to.step(odir)
                .and_then(|victim| self.board.get(victim))
                .is_some_and(|p| self.is_enemy(p, seat))
        })
    }

    /// VARIANTS.md 3.2: the master exits of an assassin or diplomat of `seat` that entered
    /// the maze from `from`: onto the first occupied square of a line from the maze, when
    /// it holds a living enemy chief. The diplomat's departure square is empty during the
    /// exit, the assassin's holds its first victim's corpse.
    fn master_families(
        &self,
        seat: Seat,
        from: Square,
        kind: Kind,
        empty: Bitboard,
        visit: &mut impl FnMut(Family) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        let open = if kind == Kind::Diplomat {
            empty.with(from)
        } else {
            empty
        };
        for dir in 0..DIRECTIONS.len() {
            let Some(&exit) = Square::MAZE.ray(dir).iter().find(|sq| !open.contains(**sq)) else {
                continue;
            };
            if let Some(p) = self.board.get(exit)
                && p.kind == Kind::Chief
                && self.is_enemy(p, seat)
            {
                let family = if kind == Kind::Diplomat {
                    Family::DiplomatMaster { from, exit }
                } else {
                    Family::AssassinMaster { from, exit }
                };
                if family_size(family, empty) > 0 {
                    visit(family)?;
                }
            }
        }
        ControlFlow::Continue(())
    }

    /// Calls `visit` with every legal family for `seat`, piece by piece from `A1`.
    pub(crate) fn families(
        &self,
        seat: Seat,
        visit: &mut impl FnMut(Family) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        if self.rules.changes_moves() {
            return self.variant_families(seat, visit);
        }
        self.families_under::<false>(seat, visit)
    }

    /// The families under options that change the moves, kept out of line so that the
    /// default path stays as small as it was before the options.
    #[cold]
    #[inline(never)]
    fn variant_families(
        &self,
        seat: Seat,
        visit: &mut impl FnMut(Family) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        self.families_under::<true>(seat, visit)
    }

    #[inline(always)]
    fn families_under<const VARIANT: bool>(
        &self,
        seat: Seat,
        visit: &mut impl FnMut(Family) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        let empty = self.board.empty_squares();
        for from in self.own_pieces(seat).iter() {
            if let Some(piece) = self.board.get(from) {
                self.piece_families_under::<VARIANT>(seat, from, piece, empty, visit)?;
            }
        }
        ControlFlow::Continue(())
    }

    /// The living pieces of every party `seat` controls.
    pub(crate) fn own_pieces(&self, seat: Seat) -> Bitboard {
        let masks = self.board.masks();
        let mut own = Bitboard::EMPTY;
        for party in Seat::ALL {
            if self.control(party) == crate::position::Control::Seat(seat) {
                own = own | Bitboard(masks.living[party.index()]);
            }
        }
        own
    }

    /// Whether `seat` would have a legal move if it were its turn.
    pub fn has_legal_move(&self, seat: Seat) -> bool {
        // Fast path: any piece next to an empty square other than the maze can step there.
        let free = self.board.empty_squares().without(Square::MAZE);
        if !(self.own_pieces(seat).neighbours() & free).is_empty() {
            return true;
        }
        self.families(seat, &mut |_| ControlFlow::Break(()))
            .is_break()
    }

    /// Every complete legal move for the seat to move (none when the game is over),
    /// in generation order. Sort their texts for the canonical listing.
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut moves = Vec::new();
        self.legal_moves_into(&mut moves);
        moves
    }

    /// Like [`Position::legal_moves`], appending to a buffer that can be reused.
    pub fn legal_moves_into(&self, moves: &mut Vec<Move>) {
        let Some(seat) = self.to_move() else { return };
        let empty = self.board.empty_squares();
        let _ = self.families(seat, &mut |family| {
            expand(family, empty, &mut |mv| moves.push(mv));
            ControlFlow::Continue(())
        });
    }

    /// The number of complete legal moves, counted without listing them.
    pub fn count_legal_moves(&self) -> u64 {
        let Some(seat) = self.to_move() else { return 0 };
        let empty = self.board.empty_squares();
        let mut count = 0u64;
        let _ = self.families(seat, &mut |family| {
            count += u64::from(family_size(family, empty));
            ControlFlow::Continue(())
        });
        count
    }

    /// The `n`th complete legal move in generation order (the order of
    /// [`Position::legal_moves`]), found without listing the others: with
    /// [`Position::count_legal_moves`], a uniform random move costs two generator passes.
    pub fn nth_legal_move(&self, n: u64) -> Option<Move> {
        let seat = self.to_move()?;
        let empty = self.board.empty_squares();
        let mut skip = n;
        let mut chosen = None;
        let _ = self.families(seat, &mut |family| {
            let size = u64::from(family_size(family, empty));
            if skip >= size {
                skip -= size;
                return ControlFlow::Continue(());
            }
            let mut index = 0;
            expand(family, empty, &mut |mv| {
                if index == skip {
                    chosen = Some(mv);
                }
                index += 1;
            });
            ControlFlow::Break(())
        });
        chosen
    }

    /// Checks a move for the seat to move and says precisely what is wrong with it.
    pub(crate) fn check(&self, mv: &Move) -> Result<Family, MoveError> {
        let seat = self.to_move().ok_or(MoveError::GameOver)?;
        let piece = self
            .board
            .get(mv.from)
            .ok_or(MoveError::EmptySquare(mv.from))?;
        if !self.is_friendly(piece, seat) {
            return Err(MoveError::NotYourPiece {
                square: mv.from,
                seat,
            });
        }
        let empty = self.board.empty_squares();
        let mut found: Option<Family> = None;
        let mut reporter_kill = false;
        let _ = self.piece_families(seat, mv.from, piece, empty, &mut |family| {
            if family.to() != mv.to {
                return ControlFlow::Continue(());
            }
            match family {
                Family::ReporterKill { victim, .. } => {
                    reporter_kill = true;
                    if mv.victim == Some(victim) {
                        found = Some(family);
                        return ControlFlow::Break(());
                    }
                }
                Family::AssassinMaster { exit, .. } | Family::DiplomatMaster { exit, .. } => {
                    if mv.exit == Some(exit) {
                        found = Some(family);
                        return ControlFlow::Break(());
                    }
                    found = found.or(Some(family));
                }
                _ => found = found.or(Some(family)),
            }
            ControlFlow::Continue(())
        });
        let family = match (found, mv.victim) {
            (Some(family), _) => family,
            // Only kills reach `to`: a forced reporter (VARIANTS.md 3.3).
            (None, None) if reporter_kill => return Err(MoveError::MissingVictim(mv.to)),
            (None, Some(v)) if reporter_kill => return Err(MoveError::ForbiddenVictim(v)),
            (None, _) => {
                return Err(MoveError::Unreachable {
                    from: mv.from,
                    to: mv.to,
                });
            }
        };
        let what = if matches!(piece.kind, Kind::Militant | Kind::Chief | Kind::Necromobile) {
            "corpse"
        } else {
            "lifted piece"
        };
        let no_victim = || match mv.victim {
            Some(v) if piece.kind == Kind::Reporter || reporter_kill => {
                Err(MoveError::ForbiddenVictim(v))
            }
            Some(_) => Err(MoveError::UnexpectedVictim),
            None => Ok(()),
        };
        let no_exit = || {
            if mv.exit.is_some() {
                Err(MoveError::UnexpectedExit)
            } else {
                Ok(())
            }
        };
        let no_place = || {
            if mv.place.is_some() {
                Err(MoveError::UnexpectedPlacement)
            } else {
                Ok(())
            }
        };
        let place_in = |allowed: Bitboard| match mv.place {
            None => Err(MoveError::MissingPlacement { what }),
            Some(p) if allowed.contains(p) => Ok(()),
            Some(p) => Err(MoveError::ForbiddenPlacement { what, square: p }),
        };
        let exit_is = |exit: Square| match mv.exit {
            None => Err(MoveError::MissingExit),
            Some(e) if e == exit => Ok(()),
            Some(e) => Err(MoveError::ForbiddenExit(e)),
        };
        let exit_in = |allowed: Bitboard| match mv.exit {
            None => Err(MoveError::MissingExit),
            Some(e) if allowed.contains(e) => Ok(()),
            Some(e) => Err(MoveError::ForbiddenExit(e)),
        };
        match family {
            Family::Plain { .. } | Family::AssassinKill { .. } => {
                no_victim()?;
                no_exit()?;
                no_place()?;
            }
            Family::ReporterKill { .. } => {
                no_exit()?;
                no_place()?;
            }
            Family::Place {
                from, maze_allowed, ..
            } => {
                no_victim()?;
                no_exit()?;
                place_in(placements(empty, from, maze_allowed))?;
            }
            Family::AssassinMaze { .. } => {
                no_victim()?;
                exit_in(exits(empty))?;
                no_place()?;
            }
            Family::LiftMaze { from } => {
                no_victim()?;
                let open = empty.with(from);
                exit_in(exits(open))?;
                let exit = mv.exit.expect("checked above");
                place_in(placements(empty, from, false).without(exit))?;
            }
            Family::AssassinMaster { exit, .. } => {
                no_victim()?;
                exit_is(exit)?;
                no_place()?;
            }
            Family::DiplomatMaster { from, exit } => {
                no_victim()?;
                exit_is(exit)?;
                place_in(placements(empty, from, false))?;
            }
        }
        Ok(family)
    }
}

/// How many complete moves a family holds.
pub(crate) fn family_size(family: Family, empty: Bitboard) -> u32 {
    match family {
        Family::Plain { .. }
        | Family::ReporterKill { .. }
        | Family::AssassinKill { .. }
        | Family::AssassinMaster { .. } => 1,
        // The exit square is occupied and the maze taken: placements as for a kill.
        Family::DiplomatMaster { from, .. } => placements(empty, from, false).count(),
        Family::Place {
            from, maze_allowed, ..
        } => placements(empty, from, maze_allowed).count(),
        Family::AssassinMaze { .. } => exits(empty).count(),
        Family::LiftMaze { from } => {
            let exit_count = exits(empty.with(from)).count();
            // The exit square is taken; the maze (emptied by the lift) stays excluded.
            let places = placements(empty, from, false).count().saturating_sub(1);
            exit_count * places
        }
    }
}

/// Lists a family's complete moves.
pub(crate) fn expand(family: Family, empty: Bitboard, out: &mut impl FnMut(Move)) {
    match family {
        Family::Plain { from, to } | Family::AssassinKill { from, to } => {
            out(Move::plain(from, to))
        }
        Family::ReporterKill { from, to, victim } => out(Move {
            victim: Some(victim),
            ..Move::plain(from, to)
        }),
        Family::Place {
            from,
            to,
            maze_allowed,
        } => {
            for place in placements(empty, from, maze_allowed).iter() {
                out(Move {
                    place: Some(place),
                    ..Move::plain(from, to)
                });
            }
        }
        Family::AssassinMaze { from } => {
            for exit in exits(empty).iter() {
                out(Move {
                    exit: Some(exit),
                    ..Move::plain(from, Square::MAZE)
                });
            }
        }
        Family::AssassinMaster { from, exit } => out(Move {
            exit: Some(exit),
            ..Move::plain(from, Square::MAZE)
        }),
        Family::DiplomatMaster { from, exit } => {
            for place in placements(empty, from, false).iter() {
                out(Move {
                    exit: Some(exit),
                    place: Some(place),
                    ..Move::plain(from, Square::MAZE)
                });
            }
        }
        Family::LiftMaze { from } => {
            let places = placements(empty, from, false);
            for exit in exits(empty.with(from)).iter() {
                for place in places.without(exit).iter() {
                    out(Move {
                        exit: Some(exit),
                        place: Some(place),
                        ..Move::plain(from, Square::MAZE)
                    });
                }
            }
        }
    }
}
