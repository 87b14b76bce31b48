//! The computer players: only legal moves, over random positions from random games (four
//! and three seats) and random sparse positions; the same move for the same seed; and a
//! few tactics the search must see.
//!
//! Budgets are small (level 1 and 2, a few thousand nodes) so that the file runs in
//! seconds.

mod common;

use common::{build, pos, seat};
use djambi::search::{Player, SearchBudget, greedy_move, random_move, search};
use djambi::{GameSettings, Level, Position, Seat, Square, choose_move};
use proptest::prelude::*;
use proptest::test_runner::Config;

/// A position reached by `plies` random moves (picked by `seed`) from the start of a game
/// with four seats (config 0) or three (config 1..=4: that seat's party hostage).
fn random_position(config: u8, seed: u64, plies: usize) -> Position {
    let settings = match config {
        0 => GameSettings::four_players(),
        n => GameSettings::three_players(Seat::from_index(usize::from(n - 1))),
    };
    let mut position = djambi::Game::new(settings).unwrap().position().clone();
    let mut rng = djambi::search::Rng::new(seed);
    for _ in 0..plies {
        if position.is_over() {
            break;
        }
        let count = position.count_legal_moves();
        let mv = position.nth_legal_move(rng.below(count)).unwrap();
        position = position.play(&mv).unwrap();
    }
    position
}

/// A random sparse position, as in the property tests of the rules: about one square in
/// four holds a random piece, parties are controlled, hostage or orphaned at random, and
/// a random active seat is to move, on a regular or a bonus turn.
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
            let active: Vec<usize> = (0..4).filter(|&i| controls[i] < 5).collect();
            if active.len() < 2 {
                return None;
            }
            let field: String = (0..4)
                .map(|i| match controls[i] {
                    0..5 => parties[i],
                    5 | 6 => 'h',
                    7 => 'o',
                    n => parties[active[usize::from(n) % active.len()]],
                })
                .collect();
            let mover = parties[active[usize::from(turn) % active.len()]];
            let turn = if turn % 3 == 0 {
                format!(
                    "{mover}*{}",
                    parties[active[usize::from(turn / 3) % active.len()]]
                )
            } else {
                mover.to_string()
            };
            let pieces: Vec<(&str, &str)> = owned
                .iter()
                .map(|(s, p)| (s.as_str(), p.as_str()))
                .collect();
            Some(pos(&common::dfen(&pieces, &turn, &field, 0)))
        })
}

/// Every player's choice is a legal move, and there is one exactly when a legal move exists.
fn check_players(position: &Position, seed: u64) -> Result<(), TestCaseError> {
    let legal = position.legal_moves();
    let budget = SearchBudget::nodes(1_500);
    let choices = [
        ("level 1", choose_move(position, Level::MIN, seed)),
        (
            "1,500 nodes",
            search(position, budget, seed).map(|r| r.best),
        ),
        ("random", random_move(position, seed)),
        ("greedy", greedy_move(position, seed)),
    ];
    for (name, choice) in choices {
        match choice {
            Some(mv) => prop_assert!(
                legal.contains(&mv),
                "{name} chose the illegal {mv:?} in {position}"
            ),
            None => prop_assert!(legal.is_empty(), "{name} found no move in {position}"),
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(Config { cases: 60, max_shrink_iters: 50, ..Config::default() })]

    #[test]
    fn players_choose_legal_moves_in_random_games(
        config in 0u8..5,
        seed in any::<u64>(),
        plies in 0usize..160,
    ) {
        check_players(&random_position(config, seed, plies), seed)?;
    }

    #[test]
    fn players_choose_legal_moves_in_sparse_positions(
        p in sparse_strategy(),
        seed in any::<u64>(),
    ) {
        let Some(p) = p else { return Ok(()) };
        check_players(&p, seed)?;
    }

    #[test]
    fn the_same_seed_gives_the_same_move(
        config in 0u8..5,
        seed in any::<u64>(),
        plies in 0usize..120,
    ) {
        let p = random_position(config, seed, plies);
        let level = Level::new(2).unwrap();
        prop_assert_eq!(choose_move(&p, level, seed), choose_move(&p, level, seed));
        prop_assert_eq!(
            Player::Greedy.choose(&p, seed),
            Player::Greedy.choose(&p, seed)
        );
    }
}

#[test]
fn no_move_when_the_game_is_over_or_the_seat_is_stuck() {
    let over = pos("9/9/9/9/9/9/9/9/RC8 - Rhhh 9");
    assert_eq!(choose_move(&over, Level::MAX, 1), None);
    // Red's chief is walled in by corpses and Blue's chief cannot reach it: Red is stuck.
    let stuck = build(
        &[
            ("A1", "RC"),
            ("A2", "Gm"),
            ("B2", "Gm"),
            ("B1", "Gm"),
            ("I9", "BC"),
        ],
        "R",
        "RBhh",
        3,
    );
    assert!(stuck.legal_moves().is_empty(), "{stuck}");
    assert_eq!(choose_move(&stuck, Level::MIN, 1), None);
}

#[test]
fn a_spent_time_limit_still_gives_a_legal_move() {
    let p = random_position(0, 3, 40);
    let budget = SearchBudget {
        time_limit: Some(std::time::Duration::ZERO),
        ..SearchBudget::nodes(u64::MAX)
    };
    let result = search(&p, budget, 9).expect("a legal move");
    assert!(p.legal_moves().contains(&result.best));
    assert!(result.nodes < 100_000, "{} nodes", result.nodes);
}

#[test]
fn levels_map_to_growing_budgets() {
    let budgets: Vec<u64> = Level::ALL.iter().map(|l| l.budget().nodes).collect();
    assert!(budgets.windows(2).all(|w| w[0] < w[1]), "{budgets:?}");
    assert_eq!(Level::new(0), None);
    assert_eq!(Level::new(6), None);
    assert_eq!("top".parse::<Player>(), Ok(Player::Search(Level::MAX)));
    assert_eq!("level3".parse::<Player>().unwrap().to_string(), "level3");
    assert!("level9".parse::<Player>().is_err());
}

/// The search with a small budget, for the tactical tests.
fn best(p: &Position) -> djambi::Move {
    choose_move(p, Level::new(2).unwrap(), 7).expect("a legal move")
}

#[test]
fn it_kills_the_last_rival_chief() {
    // Red's assassin on B8 reaches Blue's chief on G8: killing it wins the game.
    let p = build(
        &[
            ("A1", "RC"),
            ("B8", "RA"),
            ("C2", "RM"),
            ("G8", "BC"),
            ("H2", "BM"),
            ("I1", "Yc"),
        ],
        "R",
        "RBhh",
        20,
    );
    let mv = best(&p);
    let after = p.play(&mv).unwrap();
    assert!(after.is_over(), "{} does not win", p.move_text(&mv));
    assert_eq!(after.active_seats().iter().collect::<Vec<_>>(), [seat('R')]);
}

#[test]
fn it_takes_a_free_chief_among_four_seats() {
    // Red's militant on D4 can kill Yellow's chief on E3 and take its party; no other
    // chief is in reach.
    let p = build(
        &[
            ("A9", "RC"),
            ("D4", "RM"),
            ("B7", "RM"),
            ("H8", "BC"),
            ("G8", "BM"),
            ("E3", "YC"),
            ("H2", "YM"),
            ("B1", "GC"),
            ("C2", "GM"),
            // A corpse on the maze: no chief can take it instead.
            ("E5", "Gm"),
        ],
        "R",
        "RBYG",
        20,
    );
    let mv = best(&p);
    let after = p.play(&mv).unwrap();
    assert!(
        !after.is_active(seat('Y')),
        "{} does not kill Yellow's chief",
        p.move_text(&mv)
    );
}

#[test]
fn it_takes_the_maze_when_nobody_can_reach_it() {
    // Red's chief on E2 walks onto the empty maze; no rival piece can reach it there
    // (no rival chief stands on a line through the maze).
    let p = build(
        &[
            ("E2", "RC"),
            ("A1", "RM"),
            ("B9", "BC"),
            ("A9", "BM"),
            ("H9", "YC"),
            ("I9", "YM"),
            ("I2", "GC"),
            ("I1", "GM"),
        ],
        "R",
        "RBYG",
        20,
    );
    let mv = best(&p);
    assert_eq!(mv.to, Square::MAZE, "{} instead", p.move_text(&mv));
}

#[test]
fn it_saves_its_chief_from_an_assassin() {
    // Blue's assassin on B5 can kill Red's chief on F5 next turn (Blue moves after Red).
    let p = build(
        &[
            ("F5", "RC"),
            ("A1", "RM"),
            ("B5", "BA"),
            ("I9", "BC"),
            ("I1", "YC"),
            ("H1", "YM"),
            ("A9", "GC"),
            ("B9", "GM"),
        ],
        "R",
        "RBYG",
        20,
    );
    let mv = best(&p);
    let after = p.play(&mv).unwrap();
    for reply in after.legal_moves() {
        let next = after.play(&reply).unwrap();
        assert!(
            next.is_active(seat('R')),
            "after {} Blue kills Red's chief with {}",
            p.move_text(&mv),
            after.move_text(&reply)
        );
    }
}
