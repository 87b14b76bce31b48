//! Property tests over random games and random input.
//!
//! Games: a seed and a list of move indices pick random legal moves from the start (four
//! seats, or three seats with each possible hostage seat). Every ply is checked against the
//! invariants of RULES.md; the move list is then replayed through `Game::replay`.
//! Parsers: arbitrary and mutated input never panics (the `djambi` command's own fuzzing is in
//! `cli/tests/properties.rs`).
//!
//! Case counts are set explicitly so that the file runs in well under 20 s.

mod common;

use std::collections::{HashMap, HashSet};

use djambi::{
    Action, Control, Effect, Game, GameSettings, Kind, Move, Piece, Position, Seat, Square, Turn,
};
use proptest::prelude::*;
use proptest::test_runner::Config;

/// xorshift64*: a small deterministic generator for the moves beyond the given indices.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// 0: four seats; 1..=4: three seats, that seat's party hostage.
fn settings(config: u8) -> GameSettings {
    match config {
        0 => GameSettings::four_players(),
        n => GameSettings::three_players(Seat::from_index(usize::from(n - 1))),
    }
}

/// A played random game: its actions (moves, and now and then a resignation), each
/// action's effects, and every position (the start included).
struct Played {
    settings: GameSettings,
    actions: Vec<Action>,
    effects: Vec<Vec<Effect>>,
    positions: Vec<Position>,
}

/// Plays random legal moves (biased ones for two seeds in three); when `resign_one_in` is not 0, before each move a random
/// active seat resigns with probability 1 / `resign_one_in`.
fn random_game(
    config: u8,
    seed: u64,
    indices: &[u32],
    max_plies: usize,
    resign_one_in: usize,
) -> Played {
    let biased = seed % 3 != 0;
    let settings = settings(config);
    let mut rng = Rng::new(seed);
    let mut position = Game::new(settings).unwrap().position().clone();
    let mut played = Played {
        settings,
        actions: Vec::new(),
        effects: Vec::new(),
        positions: vec![position.clone()],
    };
    let mut plies = 0;
    while plies < max_plies && !position.is_over() {
        let mut effects = Vec::new();
        let action = if resign_one_in > 0 && rng.below(resign_one_in) == 0 {
            let active: Vec<Seat> = position.active_seats().iter().collect();
            let seat = active[rng.below(active.len())];
            position
                .resign_in_place(seat, &mut effects)
                .unwrap_or_else(|e| panic!("{seat} cannot resign in {position}: {e}"));
            // A timeout has a resignation's effect (RULES.md section 7): some games log
            // timeouts instead, so that the replay checks both.
            if seed & 4 == 0 {
                Action::Resign(seat)
            } else {
                Action::Timeout(seat)
            }
        } else {
            let all = position.legal_moves();
            assert!(!all.is_empty(), "nothing to play in {position}");
            // Biased games seek the maze and prefer quiet moves, so that they last longer
            // and reach rulers, bonus turns, orphans and passes more often.
            let maze: Vec<Move> = all.iter().copied().filter(|m| m.to.is_maze()).collect();
            let quiet: Vec<Move> = all
                .iter()
                .copied()
                .filter(|m| position.board().is_empty(m.to) && m.victim.is_none())
                .collect();
            let moves = match (biased, rng.below(4)) {
                (true, 0) if !maze.is_empty() => maze,
                (true, 1..=2) if !quiet.is_empty() => quiet,
                _ => all,
            };
            let pick = match indices.get(plies) {
                Some(&index) => index as usize % moves.len(),
                None => rng.below(moves.len()),
            };
            let mv = moves[pick];
            position
                .play_in_place(&mv, &mut effects)
                .unwrap_or_else(|e| panic!("listed move {mv:?} refused: {e}"));
            plies += 1;
            Action::Move(mv)
        };
        played.actions.push(action);
        played.effects.push(effects);
        played.positions.push(position.clone());
    }
    played
}

/// The turn after an action, computed independently from RULES.md section 5 (and 7 for
/// resignations): bonus turns, the skips, automatic passes and the deadlock draw.
fn model_next_turn(before: &Position, action: &Action, after: &Position) -> Turn {
    let active = after.active_seats();
    if active.len() <= 1 || active.iter().all(|s| !after.has_legal_move(s)) {
        return Turn::Over;
    }
    let (to_move, regular, last_regular) = match before.turn() {
        Turn::Regular(s) => (s, true, s),
        Turn::Bonus { seat, after } => (seat, false, after),
        Turn::Over => panic!("no action after the end"),
    };
    if let Some(seat) = action.leaving_seat()
        && seat != to_move
        && after.has_legal_move(to_move)
    {
        // "otherwise the seat to move stays the same".
        return before.turn();
    }
    let ruler = after.ruler();
    let (mut x, mut regular, mut last) = (to_move, regular, last_regular);
    for _ in 0..16 {
        let next = match ruler {
            Some(r) if regular && r != x => Turn::Bonus { seat: r, after: x },
            _ => {
                let skip = active.len() >= 3;
                let mut s = last;
                loop {
                    s = s.next();
                    if active.contains(s) && !(skip && (Some(s) == ruler || s == x)) {
                        break;
                    }
                }
                Turn::Regular(s)
            }
        };
        let seat = next.seat().unwrap();
        if after.has_legal_move(seat) {
            return next;
        }
        // A pass counts as that turn played.
        x = seat;
        regular = matches!(next, Turn::Regular(_));
        if regular {
            last = seat;
        }
    }
    panic!("the turn model found nobody to move in {after}");
}

/// Per party and kind, how many pieces (living or dead) the board holds.
fn census(p: &Position) -> HashMap<(Seat, char), usize> {
    let mut counts = HashMap::new();
    for (_, piece) in p.board().pieces() {
        *counts
            .entry((piece.party, piece.kind.letter()))
            .or_insert(0) += 1;
    }
    counts
}

fn living(p: &Position) -> usize {
    p.board().pieces().filter(|(_, piece)| piece.alive).count()
}

fn orphaned_pieces(p: &Position) -> Vec<(Square, Piece)> {
    p.board()
        .pieces()
        .filter(|(_, piece)| piece.alive && p.control(piece.party) == Control::Orphaned)
        .collect()
}

/// The invariants of a single position.
fn check_position(p: &Position) -> Result<(), TestCaseError> {
    // 81 squares, one piece per square: the DFEN placement spells exactly 81 squares.
    let text = p.to_string();
    let placement = text.split(' ').next().unwrap();
    let mut squares = 0;
    let mut chars = placement.chars();
    while let Some(c) = chars.next() {
        match c {
            '/' => {}
            '1'..='9' => squares += c.to_digit(10).unwrap() as usize,
            _ => {
                chars.next();
                squares += 1;
            }
        }
    }
    prop_assert_eq!(squares, 81);
    prop_assert_eq!(p.board().pieces().count(), p.board().piece_count());
    // The maze holds only a chief or a corpse.
    if let Some(piece) = p.board().get(Square::MAZE) {
        prop_assert!(
            !piece.alive || piece.kind == Kind::Chief,
            "{:?} on the maze",
            piece
        );
    }
    // Parties are controlled only by active seats; the ruler is active.
    for party in Seat::ALL {
        if let Control::Seat(s) = p.control(party) {
            prop_assert!(p.active_seats().contains(s));
        }
    }
    if let Some(r) = p.ruler() {
        prop_assert!(p.active_seats().contains(r));
        prop_assert!(p.board().get(Square::MAZE).unwrap().alive);
    }
    // The seat to move is active and has a legal move; every listed count agrees.
    let moves = p.legal_moves();
    prop_assert_eq!(p.count_legal_moves(), moves.len() as u64);
    match p.to_move() {
        Some(seat) => {
            prop_assert!(p.active_seats().contains(seat), "{} to move", seat);
            prop_assert!(p.active_seats().len() >= 2);
            prop_assert!(p.has_legal_move(seat));
            prop_assert!(!moves.is_empty());
            if let Turn::Bonus { seat, .. } = p.turn() {
                prop_assert_eq!(Some(seat), p.ruler(), "only the ruler plays bonus turns");
            }
        }
        None => {
            prop_assert!(p.is_over());
            prop_assert!(moves.is_empty());
        }
    }
    // No duplicates among the listed moves, and each text parses back to the same move.
    let set: HashSet<Move> = moves.iter().copied().collect();
    prop_assert_eq!(set.len(), moves.len());
    for mv in &moves {
        let text = p.move_text(mv).to_string();
        prop_assert_eq!(text.parse::<Move>().ok(), Some(*mv), "{}", text);
    }
    // DFEN round trip.
    let back: Position = text
        .parse()
        .map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
    prop_assert_eq!(&back, p);
    prop_assert_eq!(back.to_string(), text);
    Ok(())
}

/// The invariants of one move from `before` to `after`.
fn check_move(
    before: &Position,
    mv: &Move,
    after: &Position,
    effects: &[Effect],
) -> Result<(), TestCaseError> {
    // Pieces never appear, disappear, or change party or kind; the dead stay dead.
    prop_assert_eq!(census(before), census(after));
    prop_assert!(living(after) <= living(before));
    for (sq, piece) in before.board().pieces() {
        if !piece.alive && sq != mv.to && Some(sq) != mv.exit {
            // A corpse moves only when a necromobile lifts it (from `to`).
            prop_assert_eq!(after.board().get(sq), Some(piece), "corpse on {} moved", sq);
        }
    }
    // Orphaned pieces never move (nor die).
    for (sq, piece) in orphaned_pieces(before) {
        prop_assert_eq!(after.board().get(sq), Some(piece), "orphan on {} moved", sq);
    }
    prop_assert_eq!(after.ply(), before.ply() + 1);
    // Seats only ever leave the game.
    let (was, now) = (before.active_seats(), after.active_seats());
    for s in now.iter() {
        prop_assert!(was.contains(s));
    }
    // Eliminations are reported exactly.
    let reported: HashSet<Seat> = effects
        .iter()
        .filter_map(|e| match e {
            Effect::Eliminated { seat } => Some(*seat),
            _ => None,
        })
        .collect();
    let lost: HashSet<Seat> = was.iter().filter(|s| !now.contains(*s)).collect();
    prop_assert_eq!(reported, lost);
    // The first effect is the move itself.
    let moved_ok = matches!(effects.first(), Some(Effect::Moved { from, .. }) if *from == mv.from);
    prop_assert!(moved_ok, "{:?}", effects);
    // The position is the same whichever way it was reached.
    prop_assert_eq!(&before.play(mv).unwrap(), after);
    Ok(())
}

/// The invariants of a resignation.
fn check_resign(before: &Position, seat: Seat, after: &Position) -> Result<(), TestCaseError> {
    prop_assert_eq!(after.board(), before.board());
    prop_assert_eq!(after.ply(), before.ply());
    prop_assert!(!after.active_seats().contains(seat));
    for party in Seat::ALL {
        let expected = match before.control(party) {
            Control::Seat(s) if s == seat => Control::Hostage,
            other => other,
        };
        prop_assert_eq!(after.control(party), expected);
    }
    Ok(())
}

fn game_strategy() -> impl Strategy<Value = (u8, u64, Vec<u32>)> {
    (
        0u8..5,
        any::<u64>(),
        prop::collection::vec(any::<u32>(), 0..40),
    )
}

proptest! {
    #![proptest_config(Config { cases: 300, max_shrink_iters: 200, ..Config::default() })]

    /// Every ply of a random game keeps the invariants, the turn follows the model of
    /// section 5, and replaying the actions through `Game::replay` gives the same
    /// positions and effects.
    #[test]
    fn random_games_keep_the_invariants(
        (config, seed, indices) in game_strategy(),
        resign_one_in in prop::sample::select(vec![0usize, 0, 40, 150]),
    ) {
        let played = random_game(config, seed, &indices, 400, resign_one_in);
        check_position(&played.positions[0])?;
        for (i, action) in played.actions.iter().enumerate() {
            let (before, after) = (&played.positions[i], &played.positions[i + 1]);
            match action {
                Action::Move(mv) => check_move(before, mv, after, &played.effects[i])?,
                Action::Resign(seat) | Action::Timeout(seat) => check_resign(before, *seat, after)?,
                Action::AgreedDraw => unreachable!(),
            }
            check_position(after)?;
            prop_assert_eq!(
                after.turn(),
                model_next_turn(before, action, after),
                "after {:?} in {}",
                action,
                before
            );
        }
        let (game, steps) = Game::replay(played.settings, &played.actions)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let last = played.positions.last().unwrap();
        prop_assert_eq!(game.position(), last);
        prop_assert_eq!(steps.len(), played.actions.len());
        for (i, step) in steps.iter().enumerate() {
            prop_assert_eq!(&step.effects, &played.effects[i], "action {}", i);
            prop_assert_eq!(step.turn, played.positions[i + 1].turn());
            prop_assert_eq!(step.ruler, played.positions[i + 1].ruler());
            prop_assert_eq!(step.outcome.is_some(), played.positions[i + 1].is_over());
        }
        prop_assert_eq!(game.is_over(), last.is_over());
        if let Some(ranking) = game.ranking() {
            // Every seated seat is ranked once; a winner stands alone in first place.
            let mut ranked = Vec::new();
            for place in &ranking {
                prop_assert!(!place.is_empty());
                ranked.extend(place.iter());
            }
            let seated: Vec<Seat> = played.settings.seats.iter().collect();
            ranked.sort();
            prop_assert_eq!(ranked, seated);
            match game.outcome().unwrap() {
                djambi::Outcome::Win(w) => {
                    prop_assert_eq!(last.active_seats().iter().collect::<Vec<_>>(), vec![*w]);
                    prop_assert_eq!(ranking[0].iter().collect::<Vec<_>>(), vec![*w]);
                }
                djambi::Outcome::Draw(seats) => prop_assert_eq!(ranking[0], *seats),
            }
        }
    }

}

proptest! {
    #![proptest_config(Config { cases: 120, max_shrink_iters: 200, ..Config::default() })]

    /// Every listed move plays, and a random move is accepted exactly when it is listed.
    #[test]
    fn play_accepts_exactly_the_listed_moves(
        (config, seed, indices) in game_strategy(),
        probes in prop::collection::vec((any::<u8>(), any::<u8>(), any::<u16>(), 0u8..6), 64),
    ) {
        let played = random_game(config, seed, &indices, 300, 0);
        let square = |b: u8| Square::from_index(usize::from(b) % 81).unwrap();
        let maybe = |b: u16| (b % 100 < 81).then(|| Square::from_index(usize::from(b % 100)).unwrap());
        for p in played.positions.iter().step_by(4) {
            let moves = p.legal_moves();
            let set: HashSet<Move> = moves.iter().copied().collect();
            for mv in &moves {
                let next = p.play(mv);
                prop_assert!(next.is_ok(), "{} refused in {}", p.move_text(mv), p);
            }
            for &(a, b, c, kind) in &probes {
                let mut mv = if moves.is_empty() || kind == 0 {
                    Move {
                        from: square(a),
                        to: square(b),
                        victim: maybe(c),
                        exit: maybe(c.rotate_left(5)),
                        place: maybe(c.rotate_left(11)),
                    }
                } else {
                    moves[(usize::from(a) << 8 | usize::from(b)) % moves.len()]
                };
                match kind {
                    1 => mv.to = square(b.wrapping_add(a)),
                    2 => mv.victim = maybe(c),
                    3 => mv.exit = maybe(c),
                    4 => mv.place = maybe(c),
                    _ => {}
                }
                let result = p.play(&mv);
                prop_assert_eq!(
                    result.is_ok(),
                    set.contains(&mv),
                    "{:?} in {}: {:?}",
                    mv,
                    p,
                    result.err()
                );
            }
        }
    }

}

proptest! {
    #![proptest_config(Config { cases: 3000, max_shrink_iters: 200, ..Config::default() })]

    /// Arbitrary strings never make the parsers panic; what parses re-formats stably.
    #[test]
    fn parsers_never_panic_on_arbitrary_strings(text in "\\PC{0,120}") {
        if let Ok(p) = text.parse::<Position>() {
            let again: Position = p.to_string().parse().unwrap();
            prop_assert_eq!(again, p);
        }
        let _ = text.parse::<Move>();
        let _ = serde_json::from_str::<Move>(&text);
        let _ = text.parse::<Square>();
    }

    /// Strings over the DFEN and move alphabets: more of them get deep into the parsers.
    #[test]
    fn parsers_never_panic_on_notation_like_strings(
        text in "[RBYGCADNMrbygcadnmhox0-9/ *>\\-]{0,100}",
        mv_text in "[A-Ja-j0-9xX/>\\-]{0,16}",
    ) {
        if let Ok(p) = text.parse::<Position>() {
            let again: Position = p.to_string().parse().unwrap();
            prop_assert_eq!(again, p);
        }
        if let Ok(m) = mv_text.parse::<Move>() {
            // A parsed move has a canonical text that parses to the same move.
            let p = Position::default();
            let canonical = p.move_text(&m).to_string();
            prop_assert_eq!(canonical.parse::<Move>().unwrap(), m);
            let _ = p.play(&m);
        }
        let json = format!("{{\"from\":\"{}\",\"to\":\"{}\"}}", &mv_text, &text);
        let _ = serde_json::from_str::<Move>(&json);
    }

}

proptest! {
    #![proptest_config(Config { cases: 400, max_shrink_iters: 200, ..Config::default() })]

    /// Mutated valid DFENs (from random games) never panic; what parses round-trips.
    #[test]
    fn mutated_dfen_never_panics(
        (config, seed, indices) in game_strategy(),
        plies in 0usize..120,
        edits in prop::collection::vec((any::<u16>(), 0u8..3, any::<u8>()), 1..6),
    ) {
        let played = random_game(config, seed, &indices, plies, 0);
        let alphabet = b"RBYGCADNMrbygcadnmho0123456789/ *-x";
        let mut bytes = played.positions.last().unwrap().to_string().into_bytes();
        mutate(&mut bytes, &edits, alphabet);
        let text = String::from_utf8(bytes).unwrap();
        if let Ok(p) = text.parse::<Position>() {
            let formatted = p.to_string();
            let again: Position = formatted.parse().unwrap();
            prop_assert_eq!(&again, &p);
            prop_assert_eq!(again.to_string(), formatted);
            prop_assert_eq!(p.count_legal_moves(), p.legal_moves().len() as u64);
            // The analysis board plays any legal move of any position that parses.
            for mv in p.legal_moves().iter().take(64) {
                let next = p.play(mv);
                prop_assert!(next.is_ok(), "{} in {}: {:?}", p.move_text(mv), p, next);
                let next = next.unwrap();
                prop_assert_eq!(next.to_string().parse::<Position>().unwrap(), next);
            }
        }
    }

    /// Mutated valid move texts never panic, in text or JSON form, and play or fail cleanly.
    #[test]
    fn mutated_moves_never_panic(
        (config, seed, indices) in game_strategy(),
        plies in 0usize..80,
        pick in any::<u16>(),
        edits in prop::collection::vec((any::<u8>(), 0u8..3, any::<u8>()), 1..4),
    ) {
        let played = random_game(config, seed, &indices, plies, 0);
        let p = played.positions.last().unwrap();
        let moves = p.legal_moves();
        prop_assume!(!moves.is_empty());
        let mv = moves[usize::from(pick) % moves.len()];
        let alphabet = b"ABCDEFGHIJabcdefghi0123456789xX/>-";
        let mut bytes = p.move_text(&mv).to_string().into_bytes();
        mutate(&mut bytes, &edits, alphabet);
        let text = String::from_utf8(bytes).unwrap();
        if let Ok(m) = text.parse::<Move>() {
            let legal = moves.contains(&m);
            prop_assert_eq!(p.play(&m).is_ok(), legal, "{}", text);
            let json = serde_json::to_string(&m).unwrap();
            prop_assert_eq!(serde_json::from_str::<Move>(&json).unwrap(), m);
        }
        let json = serde_json::to_string(&mv).unwrap();
        let mutated = json.replacen(&mv.from.to_string(), &text, 1);
        let _ = serde_json::from_str::<Move>(&mutated);
    }
}

#[test]
fn random_games_reach_the_interesting_rules() {
    // Not a property: a sanity check that random games do exercise kills, surrounds,
    // control changes and game ends, so that the properties above are not vacuous.
    let mut seen = HashSet::new();
    let mut over = 0;
    for seed in 0..60u64 {
        let played = random_game((seed % 5) as u8, seed, &[], 400, 0);
        for effects in &played.effects {
            for e in effects {
                seen.insert(std::mem::discriminant(e));
            }
        }
        over += usize::from(played.positions.last().unwrap().is_over());
    }
    let kinds = [
        Effect::Moved {
            piece: Piece::living(Seat::Red, Kind::Chief),
            from: Square::MAZE,
            to: Square::MAZE,
        },
        Effect::Killed {
            piece: Piece::living(Seat::Red, Kind::Chief),
            square: Square::MAZE,
        },
        Effect::Placed {
            piece: Piece::living(Seat::Red, Kind::Chief),
            from: Square::MAZE,
            to: Square::MAZE,
        },
        Effect::ControlChanged {
            party: Seat::Red,
            from: Control::Hostage,
            to: Control::Hostage,
        },
        Effect::Eliminated { seat: Seat::Red },
    ];
    for kind in kinds {
        assert!(
            seen.contains(&std::mem::discriminant(&kind)),
            "random games never produced {kind:?}"
        );
    }
    assert!(over > 0, "no random game ended");
}

// ---------------------------------------------------------------------------------------
// An independent move generator, written from RULES.md section 3 only, compared with the
// engine's on positions from random games and on random sparse positions.
// ---------------------------------------------------------------------------------------

const DIRS: [(i8, i8); 8] = [
    (0, 1),
    (1, 1),
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
    (-1, 0),
    (-1, 1),
];
const ORTHO: [(i8, i8); 4] = [(0, 1), (1, 0), (0, -1), (-1, 0)];

fn step(s: Square, (df, dr): (i8, i8)) -> Option<Square> {
    let f = s.file() as i8 + df;
    let r = s.rank() as i8 + dr;
    if (0..9).contains(&f) && (0..9).contains(&r) {
        Square::new(f as u8, r as u8)
    } else {
        None
    }
}

fn model_moves(p: &Position) -> HashSet<Move> {
    let mut out = HashSet::new();
    let Some(seat) = p.to_move() else {
        return out;
    };
    let board = p.board();
    let friendly = |pc: Piece| pc.alive && p.control(pc.party) == Control::Seat(seat);
    let enemy = |pc: Piece| {
        pc.alive
            && match p.control(pc.party) {
                Control::Hostage => true,
                Control::Seat(s) => s != seat,
                Control::Orphaned => false,
            }
    };
    let empty = |s: Square| board.get(s).is_none();
    // Placement squares: empty or the departure square; the maze only when allowed.
    let places = |from: Square, maze_ok: bool| -> Vec<Square> {
        Square::all()
            .filter(|&s| (empty(s) || s == from) && (!s.is_maze() || maze_ok))
            .collect()
    };
    // Exit squares from the maze: plain line moves over empty squares (the departure
    // square counts as empty when `open` is set).
    let exits = |from: Square, open: bool| -> Vec<Square> {
        let mut v = Vec::new();
        for d in DIRS {
            let mut s = Square::MAZE;
            while let Some(n) = step(s, d) {
                if empty(n) || (open && n == from) {
                    v.push(n);
                    s = n;
                } else {
                    break;
                }
            }
        }
        v
    };
    let with = |from: Square, to: Square, victim, exit, place| Move {
        from,
        to,
        victim,
        exit,
        place,
    };
    for (from, piece) in board.pieces() {
        if !friendly(piece) {
            continue;
        }
        let range = if piece.kind == Kind::Militant { 2 } else { 8 };
        for d in DIRS {
            let mut s = from;
            for _ in 0..range {
                let Some(n) = step(s, d) else { break };
                s = n;
                match board.get(s) {
                    None => {
                        if s.is_maze() {
                            if piece.kind == Kind::Chief {
                                out.insert(Move::plain(from, s));
                            }
                            continue;
                        }
                        out.insert(Move::plain(from, s));
                        if piece.kind == Kind::Reporter {
                            for od in ORTHO {
                                if let Some(v) = step(s, od)
                                    && board.get(v).is_some_and(enemy)
                                {
                                    out.insert(with(from, s, Some(v), None, None));
                                }
                            }
                        }
                    }
                    Some(target) => {
                        let maze = s.is_maze();
                        match piece.kind {
                            Kind::Militant if enemy(target) && !maze => {
                                for pl in places(from, false) {
                                    out.insert(with(from, s, None, None, Some(pl)));
                                }
                            }
                            Kind::Chief if enemy(target) => {
                                for pl in places(from, false) {
                                    out.insert(with(from, s, None, None, Some(pl)));
                                }
                            }
                            Kind::Assassin if enemy(target) => {
                                if maze {
                                    for e in exits(from, false) {
                                        out.insert(with(from, s, None, Some(e), None));
                                    }
                                } else {
                                    out.insert(Move::plain(from, s));
                                }
                            }
                            Kind::Diplomat | Kind::Necromobile
                                if (piece.kind == Kind::Diplomat && enemy(target))
                                    || (piece.kind == Kind::Necromobile && !target.alive) =>
                            {
                                if maze {
                                    for e in exits(from, true) {
                                        for pl in places(from, false) {
                                            if pl != e {
                                                out.insert(with(from, s, None, Some(e), Some(pl)));
                                            }
                                        }
                                    }
                                } else {
                                    let maze_ok =
                                        piece.kind == Kind::Diplomat && target.kind == Kind::Chief;
                                    for pl in places(from, maze_ok) {
                                        out.insert(with(from, s, None, None, Some(pl)));
                                    }
                                }
                            }
                            _ => {}
                        }
                        break;
                    }
                }
            }
        }
    }
    out
}

fn compare_with_model(p: &Position) -> Result<(), TestCaseError> {
    let engine: HashSet<Move> = p.legal_moves().into_iter().collect();
    let model = model_moves(p);
    if engine != model {
        let text = |m: &Move| p.move_text(m).to_string();
        let mut missing: Vec<String> = model.difference(&engine).map(text).collect();
        let mut extra: Vec<String> = engine.difference(&model).map(text).collect();
        missing.sort();
        extra.sort();
        missing.truncate(10);
        extra.truncate(10);
        return Err(TestCaseError::fail(format!(
            "{p}\nmissing from the engine: {missing:?}\nextra in the engine: {extra:?}"
        )));
    }
    Ok(())
}

/// A random sparse position: about one square in four holds a random piece (only a chief
/// or a corpse on the maze); each party is controlled by its seat, another active seat,
/// or is hostage or orphaned; a random active seat is to move, on a regular or bonus turn.
fn sparse_strategy() -> impl Strategy<Value = Option<Position>> {
    (
        prop::collection::vec((0u8..4, 0u8..6, 0u8..10, 0u8..100), 81),
        prop::collection::vec(0u8..10, 4),
        any::<u8>(),
    )
        .prop_map(|(cells, controls, turn)| {
            let parties = ['R', 'B', 'Y', 'G'];
            let kinds = ['C', 'A', 'R', 'D', 'N', 'M'];
            let mut owned: Vec<(String, String)> = Vec::new();
            for (i, (party, kind, dead, present)) in cells.into_iter().enumerate() {
                if present >= 25 {
                    continue;
                }
                let square = Square::from_index(i).unwrap();
                let alive = dead >= 3;
                let kind = if square.is_maze() && alive { 0 } else { kind };
                let k = kinds[usize::from(kind)];
                let k = if alive { k } else { k.to_ascii_lowercase() };
                owned.push((
                    square.to_string(),
                    format!("{}{k}", parties[usize::from(party)]),
                ));
            }
            // Seats: active (own party) for 0..5, else hostage / orphaned / taken.
            let mut field = ['h'; 4];
            let active: Vec<usize> = (0..4).filter(|&i| controls[i] < 5).collect();
            for i in 0..4 {
                field[i] = match controls[i] {
                    0..5 => parties[i],
                    5 | 6 => 'h',
                    7 => 'o',
                    n if !active.is_empty() => parties[active[usize::from(n) % active.len()]],
                    _ => 'h',
                };
            }
            if active.len() < 2 {
                return None;
            }
            let mover = parties[active[usize::from(turn) % active.len()]];
            let turn = if turn % 3 == 0 {
                let after = parties[active[usize::from(turn / 3) % active.len()]];
                format!("{mover}*{after}")
            } else {
                mover.to_string()
            };
            let pieces: Vec<(&str, &str)> = owned
                .iter()
                .map(|(s, p)| (s.as_str(), p.as_str()))
                .collect();
            let text = common::dfen(&pieces, &turn, &field.iter().collect::<String>(), 0);
            Some(text.parse().unwrap_or_else(|e| panic!("{text}: {e}")))
        })
}

proptest! {
    #![proptest_config(Config { cases: 60, max_shrink_iters: 200, ..Config::default() })]

    /// The engine lists exactly the moves of the independent generator, in random games.
    #[test]
    fn legal_moves_match_an_independent_generator_in_games(
        (config, seed, indices) in game_strategy(),
    ) {
        let played = random_game(config, seed, &indices, 200, 0);
        for p in &played.positions {
            compare_with_model(p)?;
        }
    }
}

proptest! {
    #![proptest_config(Config { cases: 300, max_shrink_iters: 200, ..Config::default() })]

    /// The same on random sparse positions (hostages, orphans, corpses and chiefs on the
    /// maze, lone pieces); every listed move then plays and keeps the invariants.
    #[test]
    fn legal_moves_match_an_independent_generator_in_sparse_positions(p in sparse_strategy()) {
        let Some(p) = p else { return Ok(()) };
        check_position_loose(&p)?;
        compare_with_model(&p)?;
        for (i, mv) in p.legal_moves().into_iter().enumerate() {
            let mut next = p.clone();
            let mut effects = Vec::new();
            next.play_in_place(&mv, &mut effects)
                .map_err(|e| TestCaseError::fail(format!("{} refused in {p}: {e}", p.move_text(&mv))))?;
            check_move(&p, &mv, &next, &effects)?;
            if i % 8 == 0 {
                // The full check lists every move of `next`: a sample keeps the run short.
                check_position(&next)?;
            }
            prop_assert_eq!(next.turn(), model_next_turn(&p, &Action::Move(mv), &next));
        }
    }
}

/// The invariants a hand-made position keeps even when its seat to move is stuck.
fn check_position_loose(p: &Position) -> Result<(), TestCaseError> {
    let text = p.to_string();
    prop_assert_eq!(&text.parse::<Position>().unwrap(), p);
    prop_assert_eq!(p.count_legal_moves(), p.legal_moves().len() as u64);
    Ok(())
}

/// Applies random edits to a text: (position, 0 replace | 1 insert | 2 delete, character
/// index into `alphabet`).
fn mutate<At: Copy + Into<usize>>(bytes: &mut Vec<u8>, edits: &[(At, u8, u8)], alphabet: &[u8]) {
    for &(at, op, c) in edits {
        let at = at.into() % (bytes.len() + 1);
        let c = alphabet[usize::from(c) % alphabet.len()];
        match op {
            0 if at < bytes.len() => bytes[at] = c,
            1 => bytes.insert(at, c),
            _ if at < bytes.len() => {
                bytes.remove(at);
            }
            _ => {}
        }
    }
}
