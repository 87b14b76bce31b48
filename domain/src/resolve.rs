//! Playing a move and resolving it (RULES.md sections 3 to 5): the piece action, then
//! chief killed, surrounded chiefs to a fixpoint, orphans taken, end, next turn.

use crate::bitboard::Bitboard;
use crate::effects::{Effect, EffectSink};
use crate::error::{MoveError, ResignError};
use crate::movegen::Family;
use crate::moves::Move;
use crate::piece::{Kind, Piece};
use crate::position::{Control, Position, Turn};
use crate::ruleset::{Surround, TwoSeatBonus};
use crate::seat::{Seat, SeatSet};
use crate::square::Square;

impl Position {
    /// The position after a legal move, or why the move is illegal.
    pub fn play(&self, mv: &Move) -> Result<Position, MoveError> {
        let mut next = self.clone();
        next.play_in_place(mv, &mut ())?;
        Ok(next)
    }

    /// Plays a move on this position, reporting its effects to `sink`. On error the
    /// position is unchanged.
    pub fn play_in_place(
        &mut self,
        mv: &Move,
        sink: &mut impl EffectSink,
    ) -> Result<(), MoveError> {
        let family = self.check(mv)?;
        self.apply(family, mv, sink);
        Ok(())
    }

    /// Plays a move taken from this position's own generator, without checking it again.
    pub(crate) fn apply(&mut self, family: Family, mv: &Move, sink: &mut impl EffectSink) {
        let Some(seat) = self.to_move() else { return };
        let from = family.from();
        let Some(piece) = self.board.take(from) else {
            return;
        };
        // The living piece this move kills, if any, and a master move's second victim
        // (VARIANTS.md 3.2); no other move kills two.
        let mut killed = None;
        let mut second = None;
        match family {
            Family::Plain { to, .. } => {
                self.board.set(to, Some(piece));
                sink.record(Effect::Moved { piece, from, to });
            }
            Family::ReporterKill { to, victim, .. } => {
                self.board.set(to, Some(piece));
                sink.record(Effect::Moved { piece, from, to });
                killed = self.kill(victim, sink);
                // The corpse stays where the victim stood.
                self.board.set(victim, killed.map(Piece::corpse));
            }
            Family::Place { to, .. } => {
                sink.record(Effect::Moved { piece, from, to });
                let taken = if matches!(piece.kind, Kind::Militant | Kind::Chief) {
                    killed = self.kill(to, sink);
                    killed.map(Piece::corpse)
                } else {
                    self.board.take(to)
                };
                self.board.set(to, Some(piece));
                self.place(taken, to, mv.place.unwrap_or(from), sink);
            }
            Family::AssassinKill { to, .. } => {
                sink.record(Effect::Moved { piece, from, to });
                killed = self.kill(to, sink);
                self.board.set(to, Some(piece));
                self.place(killed.map(Piece::corpse), to, from, sink);
            }
            Family::AssassinMaze { .. } => {
                let exit = mv.exit.unwrap_or(from);
                sink.record(Effect::Moved {
                    piece,
                    from,
                    to: exit,
                });
                killed = self.kill(Square::MAZE, sink);
                self.place(killed.map(Piece::corpse), Square::MAZE, from, sink);
                self.board.set(exit, Some(piece));
            }
            Family::LiftMaze { .. } => {
                let exit = mv.exit.unwrap_or(from);
                sink.record(Effect::Moved {
                    piece,
                    from,
                    to: exit,
                });
                let lifted = self.board.take(Square::MAZE);
                self.board.set(exit, Some(piece));
                self.place(lifted, Square::MAZE, mv.place.unwrap_or(from), sink);
            }
            Family::AssassinMaster { exit, .. } => {
                sink.record(Effect::Moved {
                    piece,
                    from,
                    to: exit,
                });
                killed = self.kill(Square::MAZE, sink);
                self.place(killed.map(Piece::corpse), Square::MAZE, from, sink);
                second = self.kill(exit, sink);
                self.place(second.map(Piece::corpse), exit, Square::MAZE, sink);
                self.board.set(exit, Some(piece));
            }
            Family::DiplomatMaster { exit, .. } => {
                sink.record(Effect::Moved {
                    piece,
                    from,
                    to: exit,
                });
                let lifted = self.board.take(Square::MAZE);
                let target = self.board.take(exit);
                self.place(target, exit, Square::MAZE, sink);
                self.board.set(exit, Some(piece));
                self.place(lifted, Square::MAZE, mv.place.unwrap_or(from), sink);
            }
        }
        let chief_of = |p: Option<Piece>| p.filter(|p| p.is_living_chief()).map(|p| p.party);
        let killed_chiefs = [chief_of(killed), chief_of(second)];
        self.ply += 1;
        let (was_regular, last_regular) = match self.turn {
            Turn::Regular(s) => (true, s),
            Turn::Bonus { after, .. } => (false, after),
            Turn::Over => (false, seat),
        };
        self.resolve(seat, killed_chiefs, sink);
        if !self.is_over() {
            self.advance_turn(seat, was_regular, last_regular, sink);
        }
    }

    /// Takes the piece killed on `square` off the board and reports it.
    fn kill(&mut self, square: Square, sink: &mut impl EffectSink) -> Option<Piece> {
        let victim = self.board.take(square)?;
        sink.record(Effect::Killed {
            piece: victim,
            square,
        });
        Some(victim)
    }

    /// Puts a corpse or lifted piece, taken from `from`, on `to`, and reports it.
    fn place(
        &mut self,
        piece: Option<Piece>,
        from: Square,
        to: Square,
        sink: &mut impl EffectSink,
    ) {
        if let Some(piece) = piece {
            self.board.set(to, Some(piece));
            sink.record(Effect::Placed { piece, from, to });
        }
    }

    /// Steps 1 to 4 of RULES.md section 4; ends the game when at most one seat is active.
    fn resolve(
        &mut self,
        mover: Seat,
        killed_chiefs: [Option<Seat>; 2],
        sink: &mut impl EffectSink,
    ) {
        // 1. Chief killed: the victim's seat loses everything to the mover (for a master
        // move's two victims, the entry victim first).
        for party in killed_chiefs.into_iter().flatten() {
            match self.control(party) {
                // Taken over by the first kill of the same move: nothing more passes.
                Control::Seat(victim) if victim == mover => {}
                Control::Seat(victim) => {
                    self.transfer_all(victim, Control::Seat(mover), sink);
                    sink.record(Effect::Eliminated { seat: victim });
                }
                Control::Hostage => self.set_control(party, Control::Seat(mover), sink),
                Control::Orphaned => {}
            }
        }
        // 2. Surrounded chiefs, until none is left.
        while let Some((seat, square)) = self.find_surrounded_chief() {
            if let Some(chief) = self.board.get(square) {
                self.board.set(square, Some(chief.corpse()));
                sink.record(Effect::Surrounded {
                    piece: chief,
                    square,
                });
            }
            let heir = match self.ruler() {
                Some(ruler) if ruler != seat => Control::Seat(ruler),
                _ => Control::Orphaned,
            };
            self.transfer_all(seat, heir, sink);
            sink.record(Effect::Eliminated { seat });
        }
        // 3. Orphans taken by the ruler.
        if let Some(ruler) = self.ruler() {
            for party in Seat::ALL {
                if self.control(party) == Control::Orphaned {
                    self.set_control(party, Control::Seat(ruler), sink);
                }
            }
        }
        // 4. End.
        if self.active_seats().len() <= 1 {
            self.turn = Turn::Over;
        }
    }

    fn set_control(&mut self, party: Seat, to: Control, sink: &mut impl EffectSink) {
        let from = self.control[party.index()];
        if from != to {
            self.control[party.index()] = to;
            sink.record(Effect::ControlChanged { party, from, to });
        }
    }

    /// Hands every party `seat` controls to `to`.
    fn transfer_all(&mut self, seat: Seat, to: Control, sink: &mut impl EffectSink) {
        for party in Seat::ALL {
            if self.control(party) == Control::Seat(seat) {
                self.set_control(party, to, sink);
            }
        }
    }

    /// The first living chief, in play order of the seats, that RULES.md section 4.2 kills.
    fn find_surrounded_chief(&self) -> Option<(Seat, Square)> {
        let masks = self.board.masks();
        let empty = !Bitboard(masks.occupied);
        let mut seat_pieces = [Bitboard::EMPTY; 4];
        let mut chiefs = [Bitboard::EMPTY; 4];
        let mut has_necromobile = SeatSet::EMPTY;
        let mut walls = Bitboard(masks.corpses);
        let kw = self.rules.surround == Surround::KwThroneAccess;
        for party in Seat::ALL {
            let i = party.index();
            match self.control(party) {
                Control::Seat(s) => {
                    seat_pieces[s.index()] = seat_pieces[s.index()] | Bitboard(masks.living[i]);
                    chiefs[s.index()] =
                        chiefs[s.index()] | Bitboard(masks.chiefs(party)).without(Square::MAZE);
                    if masks.has_necromobile(party) {
                        has_necromobile.insert(s);
                    }
                }
                Control::Orphaned => walls = walls | Bitboard(masks.living[i]),
                Control::Hostage => {}
            }
        }
        for seat in Seat::ALL {
            if !self.is_active(seat) || has_necromobile.contains(seat) {
                continue;
            }
            for chief in chiefs[seat.index()].iter() {
                if kw {
                    // VARIANTS.md 3.4: surrounded when no king-step path through empty
                    // squares and living non-orphans reaches the maze (whatever it holds).
                    let open = (!walls).with(Square::MAZE);
                    if !Bitboard::from_square(chief)
                        .flood(open)
                        .contains(Square::MAZE)
                    {
                        return Some((seat, chief));
                    }
                    continue;
                }
                // Most chiefs touch an empty square: no flood fill needed.
                if !(Bitboard::from_square(chief).neighbours() & empty).is_empty() {
                    continue;
                }
                let group = Bitboard::from_square(chief).flood(seat_pieces[seat.index()]);
                let border = group.neighbours() & !group;
                if (border & !walls).is_empty() {
                    return Some((seat, chief));
                }
            }
        }
        None
    }

    /// RULES.md section 5: the next turn after `mover` played, applying automatic passes.
    fn advance_turn(
        &mut self,
        mover: Seat,
        was_regular: bool,
        last_regular: Seat,
        sink: &mut impl EffectSink,
    ) {
        let active = self.active_seats();
        let ruler = self.ruler();
        let (mut mover, mut was_regular, mut last_regular) = (mover, was_regular, last_regular);
        let mut stuck = SeatSet::EMPTY;
        // Every active seat is reached within a few turns; the bound only guards the loop.
        for _ in 0..32 {
            let next = match ruler {
                // VARIANTS.md 3.5: with `two_seat_bonus=off`, none with two active seats.
                Some(r)
                    if was_regular
                        && r != mover
                        && (self.rules.two_seat_bonus == TwoSeatBonus::On || active.len() >= 3) =>
                {
                    Turn::Bonus {
                        seat: r,
                        after: mover,
                    }
                }
                _ => Turn::Regular(next_regular(active, ruler, mover, last_regular)),
            };
            let Some(seat) = next.seat() else { break };
            if !stuck.contains(seat) && self.has_legal_move(seat) {
                self.turn = next;
                return;
            }
            stuck.insert(seat);
            sink.record(Effect::Passed { seat });
            if stuck == active {
                break;
            }
            mover = seat;
            was_regular = matches!(next, Turn::Regular(_));
            if was_regular {
                last_regular = seat;
            }
        }
        // No active seat can move: a draw among them.
        self.turn = Turn::Over;
    }

    /// The position after `seat` resigns (RULES.md section 7): its parties become
    /// hostage; if it was to move, its turn counts as played.
    pub fn resign(&self, seat: Seat) -> Result<Position, ResignError> {
        let mut next = self.clone();
        next.resign_in_place(seat, &mut ())?;
        Ok(next)
    }

    pub fn resign_in_place(
        &mut self,
        seat: Seat,
        sink: &mut impl EffectSink,
    ) -> Result<(), ResignError> {
        if self.is_over() {
            return Err(ResignError::GameOver);
        }
        if !self.is_active(seat) {
            return Err(ResignError::NotActive(seat));
        }
        self.transfer_all(seat, Control::Hostage, sink);
        sink.record(Effect::Eliminated { seat });
        if self.active_seats().len() <= 1 {
            self.turn = Turn::Over;
            return Ok(());
        }
        match self.turn {
            Turn::Regular(s) if s == seat => self.advance_turn(seat, true, seat, sink),
            Turn::Bonus { seat: s, after } if s == seat => {
                self.advance_turn(seat, false, after, sink)
            }
            Turn::Regular(s) | Turn::Bonus { seat: s, .. } => {
                // The seat to move keeps its turn; it still has a move, as nothing of its own changed.
                if !self.has_legal_move(s) {
                    let (regular, last) = match self.turn {
                        Turn::Bonus { after, .. } => (false, after),
                        _ => (true, s),
                    };
                    sink.record(Effect::Passed { seat: s });
                    self.advance_turn(s, regular, last, sink);
                }
            }
            Turn::Over => {}
        }
        Ok(())
    }
}

/// The next regular turn: the first active seat after `last_regular`, skipping the
/// ruler and the seat that just moved while three or more seats are active.
fn next_regular(active: SeatSet, ruler: Option<Seat>, mover: Seat, last_regular: Seat) -> Seat {
    let skip = active.len() >= 3;
    let mut seat = last_regular;
    for _ in 0..4 {
        seat = seat.next();
        if active.contains(seat) && !(skip && (Some(seat) == ruler || seat == mover)) {
            return seat;
        }
    }
    // Unreachable with two or more active seats; stay well-defined anyway.
    active.iter().next().unwrap_or(mover)
}
