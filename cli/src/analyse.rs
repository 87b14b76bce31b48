//! `djambi analyse`: the engine's analysis of a game (the rules crate's
//! `search::analysis`), move by move, with the time it took on this machine (one core):
//! the figures of BENCHMARKS.md, "Analysis of games".

use std::io::Write;
use std::time::Instant;

use djambi::search::analysis::{analyse_move, engine_version, evaluate_seats, move_positions};
use djambi::search::random_move;
use djambi::{Action, Game, GameSettings, Level, Ruleset};

/// A game of random moves lasting `plies` moves: the first seed from `seed` on whose game
/// does (or the longest of 1,000 seeds).
pub fn random_game(rules: Ruleset, plies: usize, seed: u64) -> (GameSettings, Vec<Action>) {
    let settings = GameSettings {
        ruleset: rules,
        ..GameSettings::four_players()
    };
    let mut longest = Vec::new();
    for s in seed..seed.saturating_add(1_000) {
        let Ok(mut game) = Game::new(settings) else {
            break;
        };
        let mut actions = Vec::new();
        let mut n = 0u64;
        while actions.len() < plies && !game.is_over() {
            n += 1;
            let Some(mv) = random_move(game.position(), djambi::search::derive_seed(s, n)) else {
                break;
            };
            if game.apply(&Action::Move(mv)).is_err() {
                break;
            }
            actions.push(Action::Move(mv));
        }
        if actions.len() > longest.len() {
            longest = actions;
        }
        if longest.len() >= plies {
            break;
        }
    }
    (settings, longest)
}

/// Analyses every move and prints one line each, then the timing.
pub fn run(
    settings: GameSettings,
    actions: &[Action],
    level: Level,
    out: &mut impl Write,
) -> Result<(), String> {
    let io = |e: std::io::Error| e.to_string();
    let (moves, last) = move_positions(settings, actions).map_err(|e| e.to_string())?;
    let budget = level.budget();
    let mut times = Vec::with_capacity(moves.len());
    let started = Instant::now();
    for (i, (position, mv)) in moves.iter().enumerate() {
        let t = Instant::now();
        let a = analyse_move(position, mv, budget).map_err(|e| e.to_string())?;
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        times.push(ms);
        let judgement = a.judgement.map_or("-", |j| j.as_str());
        writeln!(
            out,
            "{}. {} {}\tbest {}\tloss {}\t{judgement}\tdepth {}\t{} nodes\t{ms:.0} ms",
            i + 1,
            a.seat.letter(),
            position.move_text(&a.played),
            position.move_text(&a.best),
            a.loss,
            a.depth,
            a.nodes,
        )
        .map_err(io)?;
    }
    let values = evaluate_seats(&last, budget);
    let total = started.elapsed().as_secs_f64();
    times.sort_by(f64::total_cmp);
    let n = times.len().max(1) as f64;
    let mean = times.iter().sum::<f64>() / n;
    let at = |q: f64| {
        times
            .get(((times.len() as f64 - 1.0) * q).round() as usize)
            .copied()
            .unwrap_or(0.0)
    };
    writeln!(
        out,
        "final values {values:?}\n{} moves analysed by {} in {total:.1} s on one core: \
         {mean:.0} ms per move (median {:.0} ms, p90 {:.0} ms, max {:.0} ms)",
        times.len(),
        engine_version(level),
        at(0.5),
        at(0.9),
        at(1.0),
    )
    .map_err(io)
}
