//! The engine's analysis of games (`djambi::search::analysis`), checked against what is
//! not the analysis itself: every preferred move is legal by the `batch` protocol (the
//! path other programs drive the rules with), the same game analysed twice gives the
//! same result, no move played is judged better than the preferred one by the analysis's
//! own scores, and a move after which the next rival can kill the mover's chief, when
//! another move avoided it, is a blunder — found here by playing every move and every
//! reply through the public API, not by the analysis's own test.
//!
//! Positions: those of `shared/rules-examples.jsonl`, and random games of four and three
//! seats. Budgets are small (level 1) so that the file runs in seconds.

use std::path::PathBuf;

use djambi::search::analysis::{
    Judgement, MoveAnalysis, SCORE_CAP, analyse_game, analyse_move, move_positions,
};
use djambi::search::{Rng, random_move};
use djambi::{Action, Game, GameSettings, Level, Move, Position, Ruleset, Seat};
use proptest::prelude::*;
use proptest::test_runner::Config;
use serde_json::{Value, json};

fn examples_path() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let candidates = [
        std::env::var_os("DJAMBI_RULES_EXAMPLES").map(PathBuf::from),
        Some(manifest.join("../../shared/rules-examples.jsonl")),
        Some(manifest.join("tests/data/rules-examples.jsonl")),
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|p| p.exists())
        .expect("rules-examples.jsonl not found (set DJAMBI_RULES_EXAMPLES)")
}

/// One request through `djambi batch`.
fn batch(request: &Value) -> Value {
    let mut out = Vec::new();
    let input = format!("{request}\n");
    let status = djambi_cli::run(
        &["batch".to_string()],
        input.as_bytes(),
        &mut out,
        std::io::sink(),
    );
    assert_eq!(status, 0);
    serde_json::from_slice(&out).expect("batch answers one JSON line")
}

fn budget() -> djambi::SearchBudget {
    Level::new(1).unwrap().budget()
}

/// The preferred move is among the legal moves `batch` lists for the position, and
/// `batch` plays it.
fn assert_legal_by_batch(position: &Position, best: &Move) {
    let dfen = position.to_string();
    let text = position.move_text(best).to_string();
    let moves = batch(&json!({"op": "moves", "dfen": dfen}));
    let listed = moves["moves"].as_array().expect("a move list");
    assert!(
        listed.iter().any(|m| m == text.as_str()),
        "{text} is not among the legal moves of {dfen}"
    );
    let played = batch(&json!({"op": "play", "dfen": dfen, "moves": [text]}));
    assert!(played["dfen"].is_string(), "{text} on {dfen}: {played}");
}

/// Whether the next seat to move, a rival, can eliminate `mover` after `after` (or the
/// move already did): every reply played through the public API.
fn chief_lost_or_attackable(after: &Position, mover: Seat) -> bool {
    if !after.is_active(mover) {
        return true;
    }
    match after.to_move() {
        Some(next) if next != mover && !after.is_over() => after
            .legal_moves()
            .iter()
            .any(|reply| !after.play(reply).unwrap().is_active(mover)),
        _ => false,
    }
}

/// The properties of one analysed move (see the module documentation).
fn check_move(position: &Position, a: &MoveAnalysis) -> bool {
    assert_legal_by_batch(position, &a.best);
    assert!(a.loss >= 0, "a loss below zero: {a:?}");
    assert_eq!(a.loss, a.best_score - a.played_score);
    assert!(
        a.played_score <= a.best_score,
        "the move played scores above the best: {a:?}"
    );
    assert!(a.best_score.abs() <= SCORE_CAP && a.played_score.abs() <= SCORE_CAP);
    for seat in Seat::ALL {
        assert_eq!(
            a.before[seat.index()].is_some(),
            position.is_active(seat),
            "{a:?}"
        );
    }
    assert_eq!(a.before[a.seat.index()], Some(a.best_score));
    if a.best == a.played {
        assert_eq!(a.loss, 0);
    }
    let mover = position.to_move().unwrap();
    assert_eq!(a.seat, mover);
    let played_after = position.play(&a.played).unwrap();
    let mut exposed = false;
    if chief_lost_or_attackable(&played_after, mover) {
        let avoidable = position
            .legal_moves()
            .iter()
            .any(|mv| !chief_lost_or_attackable(&position.play(mv).unwrap(), mover));
        if avoidable {
            exposed = true;
            assert_eq!(
                a.judgement,
                Some(Judgement::Blunder),
                "{} on {position} leaves the chief to the next rival: {a:?}",
                position.move_text(&a.played)
            );
            assert!(a.chief_left_en_prise);
            let best_after = position.play(&a.best).unwrap();
            assert!(
                !chief_lost_or_attackable(&best_after, mover),
                "the preferred move leaves the chief too: {a:?}"
            );
        }
    }
    exposed
}

#[test]
fn positions_of_the_worked_examples() {
    let text = std::fs::read_to_string(examples_path()).unwrap();
    let mut analysed = 0;
    let mut seen = std::collections::HashSet::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let example: Value = serde_json::from_str(line).unwrap();
        let dfen = example["dfen"].as_str().unwrap();
        if !seen.insert(dfen.to_string()) {
            continue;
        }
        let Ok(position) = Position::from_dfen(dfen, Ruleset::default()) else {
            continue;
        };
        let moves = position.legal_moves();
        if moves.is_empty() {
            continue;
        }
        // The first, a middle and the last legal move, each analysed twice.
        for mv in [moves[0], moves[moves.len() / 2], moves[moves.len() - 1]] {
            let a = analyse_move(&position, &mv, budget()).unwrap();
            check_move(&position, &a);
            assert_eq!(a, analyse_move(&position, &mv, budget()).unwrap());
            analysed += 1;
        }
    }
    assert!(analysed >= 30, "only {analysed} moves analysed");
}

/// A random game of up to `plies` moves (four seats, or three with `empty` left empty).
fn random_game(seed: u64, empty: Option<Seat>, plies: usize) -> (GameSettings, Vec<Action>) {
    let settings = match empty {
        None => GameSettings::four_players(),
        Some(seat) => GameSettings::three_players(seat),
    };
    let mut game = Game::new(settings).unwrap();
    let mut rng = Rng::new(seed);
    let mut actions = Vec::new();
    while actions.len() < plies && !game.is_over() {
        let Some(mv) = random_move(game.position(), rng.next_u64()) else {
            break;
        };
        game.apply(&Action::Move(mv)).unwrap();
        actions.push(Action::Move(mv));
    }
    (settings, actions)
}

proptest! {
    #![proptest_config(Config { cases: 6, ..Config::default() })]

    #[test]
    fn random_games(seed in any::<u64>(), empty in prop::option::of(0usize..4), plies in 10usize..60) {
        let empty = empty.map(Seat::from_index);
        let (settings, actions) = random_game(seed, empty, plies);
        let analysis = analyse_game(settings, &actions, budget()).unwrap();
        let (positions, last) = move_positions(settings, &actions).unwrap();
        prop_assert_eq!(analysis.moves.len(), positions.len());
        for ((position, mv), a) in positions.iter().zip(&analysis.moves) {
            prop_assert_eq!(*mv, a.played);
            check_move(position, a);
        }
        for seat in Seat::ALL {
            prop_assert_eq!(analysis.last[seat.index()].is_some(), last.is_active(seat));
        }
        // Deterministic.
        prop_assert_eq!(&analysis, &analyse_game(settings, &actions, budget()).unwrap());
    }
}

/// Random players leave their chiefs to the next rival now and then: the rule is seen
/// at work (not only vacuously true).
#[test]
fn chiefs_left_to_the_next_rival_are_blunders() {
    let mut exposed = 0;
    for seed in 0..40u64 {
        let (settings, actions) = random_game(seed, None, 80);
        let (positions, _) = move_positions(settings, &actions).unwrap();
        for (position, mv) in positions.iter().skip(20) {
            let a = analyse_move(position, mv, budget()).unwrap();
            if check_move(position, &a) {
                exposed += 1;
            }
        }
        if exposed >= 3 {
            break;
        }
    }
    assert!(
        exposed >= 3,
        "only {exposed} moves left a chief to the next rival"
    );
}
