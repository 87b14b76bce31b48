//! The rule options of VARIANTS.md as properties, over sparse positions and over random
//! games played under random rulesets:
//!
//! - options that only add moves (`friendly_fire`, `master_moves`, `corpse_on_maze`) add
//!   only moves to the default list, and a default move plays the same under them;
//! - `reporter=forced` only removes moves, exactly the victimless reporter moves whose
//!   destination has a candidate, and never leaves a seat without a move;
//! - `surround`, `two_seat_bonus` and `layout` never change a position's move list;
//! - the default ruleset gives the same answers as no ruleset;
//! - perft of the rotational layout equals the standard one;
//! - games under any ruleset keep the invariants and survive a record round trip.

mod common;

use std::collections::HashSet;

use djambi::{
    Action, CorpseOnMaze, FriendlyFire, Game, GameSettings, Kind, Layout, MasterMoves, Move,
    Position, Reporter, Ruleset, Seat, SeatSet, Square, Surround, TwoSeatBonus, perft, read_record,
    write_record,
};
use proptest::prelude::*;
use proptest::test_runner::Config;

fn rules(text: &str) -> Ruleset {
    text.parse()
        .unwrap_or_else(|e| panic!("bad ruleset {text:?}: {e}"))
}

fn move_set(p: &Position) -> HashSet<Move> {
    let moves = p.legal_moves();
    let set: HashSet<Move> = moves.iter().copied().collect();
    assert_eq!(set.len(), moves.len(), "duplicate moves in {p}");
    set
}

/// A ruleset from 7 bits, one per option.
fn ruleset_of(bits: u8) -> Ruleset {
    let pick = |i: u8| bits & (1 << i) != 0;
    Ruleset {
        corpse_on_maze: if pick(0) {
            CorpseOnMaze::On
        } else {
            CorpseOnMaze::Off
        },
        friendly_fire: if pick(1) {
            FriendlyFire::OwnNonChief
        } else {
            FriendlyFire::None
        },
        layout: if pick(2) {
            Layout::Rotational
        } else {
            Layout::Standard
        },
        master_moves: if pick(3) {
            MasterMoves::On
        } else {
            MasterMoves::Off
        },
        reporter: if pick(4) {
            Reporter::Forced
        } else {
            Reporter::Optional
        },
        surround: if pick(5) {
            Surround::KwThroneAccess
        } else {
            Surround::Ours
        },
        two_seat_bonus: if pick(6) {
            TwoSeatBonus::Off
        } else {
            TwoSeatBonus::On
        },
    }
}

/// Sparse positions: pieces anywhere (chiefs on the maze included), random control.
fn sparse_strategy() -> impl Strategy<Value = Option<Position>> {
    (
        prop::collection::vec((0u8..4, 0u8..6, 0u8..10, 0u8..100), 81),
        prop::collection::vec(0u8..10, 4),
        any::<u8>(),
        0u8..100,
    )
        .prop_map(|(cells, controls, turn, density)| {
            let parties = ['R', 'B', 'Y', 'G'];
            let kinds = ['C', 'A', 'R', 'D', 'N', 'M'];
            let mut owned: Vec<(String, String)> = Vec::new();
            let density = 10 + density / 3;
            for (i, (party, kind, dead, present)) in cells.into_iter().enumerate() {
                if present >= density {
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

/// xorshift64*, for the random games.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    }
}

/// A random game under `ruleset`: its actions and every position, the start first.
/// Moves that kill are preferred one time in two, so that games reach the rules the
/// options change (chiefs on the maze, surrounds, two seats).
fn random_game(
    ruleset: Ruleset,
    seats: SeatSet,
    seed: u64,
    plies: usize,
) -> (GameSettings, Vec<Action>, Vec<Position>) {
    let settings = GameSettings { seats, ruleset };
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut game = Game::new(settings).unwrap();
    let mut actions = Vec::new();
    let mut positions = vec![game.position().clone()];
    while actions.len() < plies && !game.is_over() {
        let p = game.position();
        let moves = p.legal_moves();
        assert!(!moves.is_empty(), "the seat to move has a move: {p}");
        let kills: Vec<Move> = moves
            .iter()
            .copied()
            .filter(|m| p.board().get(m.to).is_some() || m.victim.is_some())
            .collect();
        let mv = if !kills.is_empty() && rng.below(2) == 0 {
            kills[rng.below(kills.len())]
        } else {
            moves[rng.below(moves.len())]
        };
        game.apply(&Action::Move(mv)).unwrap();
        actions.push(Action::Move(mv));
        positions.push(game.position().clone());
    }
    (settings, actions, positions)
}

/// The properties of one position, for every option.
/// A move common to two rulesets leaves the same board, control and ply under both. Only
/// the seat to move may differ, and only because a seat has a move under one ruleset and
/// none under the other (a seat without a move is skipped, RULES §5): the added moves can
/// be a seat's only ones.
fn same_but_for_who_can_move(
    a: &Position,
    b: &Position,
    text: &str,
    mv: &str,
) -> Result<(), TestCaseError> {
    let (a_text, b_text) = (a.to_string(), b.to_string());
    if a_text == b_text {
        return Ok(());
    }
    let fields = |t: &str| -> Vec<String> {
        let mut f: Vec<String> = t.split(' ').map(str::to_owned).collect();
        f.remove(1);
        f
    };
    prop_assert_eq!(fields(&a_text), fields(&b_text), "{} {}", text, mv);
    prop_assert!(
        Seat::ALL
            .iter()
            .any(|&s| a.has_legal_move(s) != b.has_legal_move(s)),
        "{} {}: another seat to move with the same seats able to move: {} / {}",
        text,
        mv,
        a_text,
        b_text
    );
    Ok(())
}

fn check_options(p: &Position) -> Result<(), TestCaseError> {
    let default = p.clone().with_ruleset(Ruleset::DEFAULT);
    let base = move_set(&default);
    // Options that only add moves: a superset, and the common moves play the same.
    for text in [
        "friendly_fire=own_non_chief",
        "master_moves=on",
        "corpse_on_maze=on",
        "friendly_fire=own_non_chief,master_moves=on,corpse_on_maze=on",
    ] {
        let varied = p.clone().with_ruleset(rules(text));
        let more = move_set(&varied);
        prop_assert!(
            base.is_subset(&more),
            "{}: a default move is gone in {}",
            text,
            p
        );
        prop_assert_eq!(varied.count_legal_moves(), more.len() as u64);
        for mv in base.iter().take(40) {
            let a = default.play(mv).unwrap();
            let b = varied.play(mv).unwrap();
            same_but_for_who_can_move(&a, &b, text, &p.move_text(mv).to_string())?;
        }
        for mv in more.difference(&base) {
            let after = varied.play(mv);
            prop_assert!(after.is_ok(), "{}: {} refused", text, p.move_text(mv));
            prop_assert!(default.play(mv).is_err());
        }
    }
    // A forced reporter only removes victimless reporter moves with a candidate.
    let forced = p.clone().with_ruleset(rules("reporter=forced"));
    let fewer = move_set(&forced);
    prop_assert!(
        fewer.is_subset(&base),
        "forced reporter added a move in {}",
        p
    );
    for mv in base.difference(&fewer) {
        let piece = p.board().get(mv.from).unwrap();
        prop_assert_eq!(piece.kind, Kind::Reporter);
        prop_assert!(mv.victim.is_none());
        prop_assert!(
            base.iter()
                .any(|m| m.from == mv.from && m.to == mv.to && m.victim.is_some()),
            "{} removed without a candidate",
            p.move_text(mv)
        );
        prop_assert!(forced.play(mv).is_err());
    }
    for seat in Seat::ALL {
        prop_assert_eq!(forced.has_legal_move(seat), default.has_legal_move(seat));
    }
    // Options that do not change the move list of a position.
    for text in [
        "surround=kw_throne_access",
        "two_seat_bonus=off",
        "layout=rotational",
    ] {
        let same = p.clone().with_ruleset(rules(text));
        prop_assert_eq!(&move_set(&same), &base, "{}", text);
    }
    // The default ruleset is no ruleset.
    let text = p.to_string();
    prop_assert_eq!(
        &Position::from_dfen(&text, Ruleset::DEFAULT).unwrap(),
        &default
    );
    prop_assert_eq!(
        &Position::from_dfen(&text, rules("djambi-standard-2026")).unwrap(),
        &text.parse::<Position>().unwrap()
    );
    Ok(())
}

proptest! {
    #![proptest_config(Config { cases: 120, max_shrink_iters: 200, ..Config::default() })]

    #[test]
    fn options_add_or_remove_moves_as_specified_in_sparse_positions(p in sparse_strategy()) {
        let Some(p) = p else { return Ok(()) };
        check_options(&p)?;
    }
}

proptest! {
    #![proptest_config(Config { cases: 24, max_shrink_iters: 50, ..Config::default() })]

    /// Every 8th position of a game played under a random ruleset.
    #[test]
    fn options_add_or_remove_moves_as_specified_in_games(
        bits in 0u8..128,
        three in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let seats = if three { SeatSet::from_letters("RBY").unwrap() } else { SeatSet::ALL };
        let (_, _, positions) = random_game(ruleset_of(bits), seats, seed, 160);
        for p in positions.iter().step_by(8).filter(|p| !p.is_over()) {
            check_options(p)?;
        }
    }

    /// A game under any ruleset replays from its record, under the record's header.
    #[test]
    fn games_under_any_ruleset_round_trip_through_records(
        bits in 0u8..128,
        seed in any::<u64>(),
    ) {
        let ruleset = ruleset_of(bits);
        let (settings, actions, positions) = random_game(ruleset, SeatSet::ALL, seed, 120);
        let text = write_record(settings, &actions, &[("Event", "variants")]).unwrap();
        let header = format!("[Ruleset \"{ruleset}\"]\n");
        prop_assert!(text.contains(&header), "{}", text);
        let record = read_record(&text).unwrap();
        prop_assert_eq!(record.settings, settings);
        prop_assert_eq!(record.game.position(), positions.last().unwrap());
        for (i, p) in positions.iter().enumerate() {
            prop_assert_eq!(p.ruleset(), ruleset, "position {}", i);
        }
    }

    /// The default ruleset, given or not, replays the same games the same way.
    #[test]
    fn the_default_ruleset_is_no_ruleset(seed in any::<u64>(), three in any::<bool>()) {
        let seats = if three { SeatSet::from_letters("RBG").unwrap() } else { SeatSet::ALL };
        let (settings, actions, positions) = random_game(Ruleset::DEFAULT, seats, seed, 200);
        prop_assert_eq!(settings.ruleset, Ruleset::Standard2026);
        let mut start = Position::start(seats).unwrap();
        prop_assert_eq!(&start, &positions[0]);
        for (action, after) in actions.iter().zip(&positions[1..]) {
            let Action::Move(mv) = action else { unreachable!() };
            start = start.play(mv).unwrap();
            prop_assert_eq!(&start, after);
        }
        let text = write_record(settings, &actions, &[]).unwrap();
        prop_assert!(text.contains("[Ruleset \"djambi-standard-2026\"]\n"), "{}", text);
    }
}

#[test]
fn the_rotational_layout_has_the_standard_perft() {
    let standard = Position::default();
    let rotational = Position::start_with(SeatSet::ALL, rules("layout=rotational")).unwrap();
    assert_ne!(standard.to_string(), rotational.to_string());
    assert_eq!(
        rotational.to_string(),
        "RCRARM3BMBRBC/RRRDRM3BMBDBA/RMRMRN3BNBMBM/9/9/9/GMGMGN3YNYMYM/GAGDGM3YMYDYR/GCGRGM3YMYAYC R RBYG 0"
    );
    for (depth, expected) in [(1, 30), (2, 1_205), (3, 49_206), (4, 2_523_908)] {
        assert_eq!(perft(&rotational, depth), expected, "depth {depth}");
        assert_eq!(perft(&standard, depth), expected, "depth {depth}");
    }
    // Three seats too (Green's party hostage, VARIANTS.md 3.7 "Three seats: as is").
    let rby = SeatSet::from_letters("RBY").unwrap();
    let standard = Position::start(rby).unwrap();
    let rotational = Position::start_with(rby, rules("layout=rotational")).unwrap();
    for depth in 1..=3 {
        assert_eq!(
            perft(&rotational, depth),
            perft(&standard, depth),
            "RBY {depth}"
        );
    }
    // Every option on at once changes perft from the start only through friendly fire.
    let all_but_ff = rules(
        "corpse_on_maze=on,layout=rotational,master_moves=on,reporter=forced,\
         surround=kw_throne_access,two_seat_bonus=off",
    );
    let p = Position::start_with(SeatSet::ALL, all_but_ff).unwrap();
    assert_eq!(perft(&p, 3), 49_206);
}

#[test]
fn a_variant_record_is_refused_under_other_rules() {
    // M2: the assassin's master move, legal only under master_moves=on.
    let ruleset = rules("master_moves=on");
    let p = Position::from_dfen("RC8/9/9/9/1RA2BC4/9/6YC2/9/GC8 R RBYG 0", ruleset).unwrap();
    let mv: Move = "B5xE5/G3".parse().unwrap();
    assert_eq!(
        p.play(&mv).unwrap().to_string(),
        "RC8/9/9/9/1Bc2Yc4/9/6RA2/9/GC8 G RRRG 1"
    );
    assert!(p.clone().with_ruleset(Ruleset::DEFAULT).play(&mv).is_err());
    // A real game under the KW rules, then its record with the header changed.
    let kw = rules("layout=rotational,reporter=forced,surround=kw_throne_access");
    let (settings, actions, _) = random_game(kw, SeatSet::ALL, 7, 80);
    let text = write_record(settings, &actions, &[]).unwrap();
    assert!(text.contains(
        "[Ruleset \"djambi-standard-2026 layout=rotational,reporter=forced,surround=kw_throne_access\"]"
    ));
    assert_eq!(read_record(&text).unwrap().settings.ruleset, kw);
    // The bare option list reads too.
    let bare = text.replace(
        "djambi-standard-2026 layout=rotational",
        "layout=rotational",
    );
    assert_eq!(read_record(&bare).unwrap().settings.ruleset, kw);
    // Under the default rules the rotational start makes the first moves illegal soon.
    let default = text.replace(
        &format!("[Ruleset \"{kw}\"]"),
        "[Ruleset \"djambi-standard-2026\"]",
    );
    assert!(read_record(&default).is_err());
    for bad in [
        "djambi-standard-2026 layout=spiral",
        "layout=rotational,layout=rotational",
        "djambi-standard-2099",
        "layout",
        "kw=yes",
    ] {
        let broken = text.replace(
            &format!("[Ruleset \"{kw}\"]"),
            &format!("[Ruleset \"{bad}\"]"),
        );
        let e = read_record(&broken).unwrap_err();
        assert!(!e.breaks_rules(), "{bad}: {e}");
        assert!(
            e.to_string().contains("Ruleset") || e.to_string().contains("ruleset"),
            "{e}"
        );
    }
}

#[test]
fn positions_keep_their_ruleset_through_play_and_resign() {
    let forced = rules("reporter=forced");
    let p = Position::from_dfen("RC7BC/9/9/9/RR2RM5/2BM6/9/9/GC7YC R RBYG 0", forced).unwrap();
    assert_eq!(p.legal_moves().len(), 268);
    let after = p.play(&"A5-A6".parse().unwrap()).unwrap();
    assert_eq!(after.ruleset(), forced);
    assert_eq!(after.resign(Seat::Yellow).unwrap().ruleset(), forced);
    let e = p.play(&"A5-C5".parse().unwrap()).unwrap_err();
    assert_eq!(e, djambi::MoveError::MissingVictim("C5".parse().unwrap()));
    assert_eq!(
        p.clone().with_ruleset(Ruleset::DEFAULT).legal_moves().len(),
        272
    );
}

#[test]
fn a_seat_whose_only_moves_are_friendly_fire_plays_under_friendly_fire() {
    // Found by the property above (bits 32, seed 350002932993487699). Blue controls Green,
    // Yellow controls Red; after Blue's move Yellow has no move by default (so Blue plays
    // again) and only kills of its own pieces under friendly fire (so Yellow plays).
    let before = concat!(
        "1BM2BC4/3Yd2GaBR1/RaRmBmBn1Rd2Rn/1YmGM1YMYm3/Rc8/GMBd4BmBmRm/7GRRm/",
        "1GM3YnGcBaYR/GnRmGM1GdRrYMYAYC B YBYB 64"
    );
    let mv: Move = "E9xE6>B5".parse().unwrap();
    let board = concat!(
        "1BM7/3Yd2GaBR1/RaRmBmBn1Rd2Rn/1YmGM1BCYm3/RcYm7/GMBd4BmBmRm/7GRRm/",
        "1GM3YnGcBaYR/GnRmGM1GdRrYMYAYC"
    );
    let default = Position::from_dfen(before, Ruleset::DEFAULT).unwrap();
    let after = default.play(&mv).unwrap();
    assert_eq!(after.to_string(), format!("{board} B YBYB 65"));
    assert!(!after.has_legal_move(Seat::Yellow));
    let fire = rules("friendly_fire=own_non_chief");
    let after = default.with_ruleset(fire).play(&mv).unwrap();
    assert_eq!(after.to_string(), format!("{board} Y YBYB 65"));
    assert!(after.has_legal_move(Seat::Yellow));
}
