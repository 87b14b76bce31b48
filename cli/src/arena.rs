//! `djambi arena`: plays computer players against each other and prints how they fared.
//!
//! ```text
//! djambi [--ruleset TEXT] arena --players level5,random,random,random [--games N] [--seed S] [--max-plies P]
//! ```
//!
//! - `--players`: 3 or 4 players, comma-separated: `random`, `greedy`, `level1` to
//!   `level5` (`top` is level 5). Four players play a four-seat game; three play a
//!   three-seat game with Green's party hostage.
//! - `--games N` (default 12): game `g` rotates the seat assignment by `g` places, so
//!   that over a multiple of the number of players every player sits in every seat.
//! - `--seed S` (default 1): the whole run is deterministic for a seed (each move's seed is
//!   derived from it, the game and the ply).
//! - `--max-plies P` (default 600): a game still going after P plies is stopped as a
//!   draw among the seats still active.
//!
//! It prints a line per game, then per player (players of the same name pooled): the
//! seat-games played, wins with a 95% Wilson interval, shared draws, the mean rank with a
//! 95% normal interval clamped to the possible ranks (rank 1 is the winner; seats
//! eliminated together share a rank) and the
//! rank distribution, and the thinking time per move (mean and maximum, wall clock and
//! the thread's CPU time).

use std::io::Write;
use std::time::Instant;

use djambi::search::{Player, derive_seed};
use djambi::{Action, Game, GameSettings, Outcome, Ruleset, Seat};

/// The options of `djambi arena`.
#[derive(clap::Args, Debug, Clone)]
pub struct Options {
    /// 3 or 4 players, comma-separated: random, greedy, level1 to level5 (top is level 5).
    /// Four players play a four-seat game; three play a three-seat game with Green's
    /// party hostage.
    #[arg(
        long,
        value_name = "P1,P2,P3[,P4]",
        value_delimiter = ',',
        required = true
    )]
    pub players: Vec<Player>,
    /// Games to play; game g rotates the seat assignment by g places.
    #[arg(long, value_name = "N", default_value_t = 12, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub games: u32,
    /// The run is deterministic for a seed.
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// A game still going after P plies is stopped as a draw among the active seats.
    #[arg(long, value_name = "P", default_value_t = 600, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub max_plies: u32,
}

impl Options {
    fn check(&self) -> Result<(), String> {
        if !(3..=4).contains(&self.players.len()) {
            return Err(format!(
                "--players: give 3 or 4 players, not {}",
                self.players.len()
            ));
        }
        Ok(())
    }
}

/// Totals for the players of one name.
#[derive(Default)]
struct Tally {
    name: String,
    seat_games: u32,
    wins: u32,
    draws: u32,
    ranks: Vec<u32>,
    moves: u64,
    think_ns: u128,
    max_think_ns: u128,
    cpu_ns: u128,
    max_cpu_ns: u128,
}

/// The CPU time this thread has used, in nanoseconds, where Linux tells it
/// (`/proc/thread-self/schedstat`): on a loaded machine it measures the thinking itself,
/// where wall-clock time also counts the waits for a core.
fn thread_cpu_ns() -> Option<u128> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// The 95% Wilson score interval of `k` successes in `n` trials, in percent.
pub fn wilson(k: u32, n: u32) -> (f64, f64) {
    if n == 0 {
        return (0.0, 100.0);
    }
    let (k, n, z) = (f64::from(k), f64::from(n), 1.96f64);
    let p = k / n;
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / denom;
    (
        100.0 * (centre - half).max(0.0),
        100.0 * (centre + half).min(1.0),
    )
}

/// Mean and 95% normal interval half-width of a sample.
fn mean_interval(values: &[u32]) -> (f64, f64) {
    let n = values.len() as f64;
    if values.is_empty() {
        return (0.0, 0.0);
    }
    let mean = values.iter().map(|v| f64::from(*v)).sum::<f64>() / n;
    if values.len() < 2 {
        return (mean, 0.0);
    }
    let var = values
        .iter()
        .map(|v| (f64::from(*v) - mean).powi(2))
        .sum::<f64>()
        / (n - 1.0);
    (mean, 1.96 * (var / n).sqrt())
}

/// Runs the arena with `args` (after `arena`), writing to `out`. An error is a usage
/// problem (or a failed write).
pub fn run(options: &Options, ruleset: Ruleset, out: &mut impl Write) -> Result<(), String> {
    options.check()?;
    let io = |e: std::io::Error| e.to_string();
    let n = options.players.len();
    let mut settings = if n == 4 {
        GameSettings::four_players()
    } else {
        GameSettings::three_players(Seat::Green)
    };
    settings.ruleset = ruleset;
    let seats: Vec<Seat> = settings.seats.iter().collect();
    let names: Vec<String> = options.players.iter().map(Player::to_string).collect();
    let mut tallies: Vec<Tally> = Vec::new();
    for name in &names {
        if !tallies.iter().any(|t| &t.name == name) {
            tallies.push(Tally {
                name: name.clone(),
                ..Tally::default()
            });
        }
    }
    let tally_of = |name: &str, tallies: &[Tally]| {
        tallies
            .iter()
            .position(|t| t.name == name)
            .expect("every name has a tally")
    };
    let rules = match ruleset {
        r if r.is_default() => String::new(),
        r => format!(", ruleset {r}"),
    };
    writeln!(
        out,
        "arena: {} games, {} seats, players {}, seed {}, max plies {}{rules}",
        options.games,
        n,
        names.join(","),
        options.seed,
        options.max_plies
    )
    .map_err(io)?;
    let mut total_plies = 0u64;
    let mut stopped = 0u32;
    for g in 0..options.games {
        // Seat k (in play order) gets player (k + g) mod n.
        let entry_of = |seat: Seat| {
            let k = seats.iter().position(|s| *s == seat).expect("seated");
            (k + g as usize) % n
        };
        let game_seed = derive_seed(options.seed, u64::from(g));
        let mut game = Game::new(settings).map_err(|e| e.to_string())?;
        while !game.is_over() {
            let position = game.position();
            if position.ply() >= options.max_plies {
                game.apply(&Action::AgreedDraw)
                    .map_err(|e| format!("game {}: {e}", g + 1))?;
                stopped += 1;
                break;
            }
            let seat = position.to_move().expect("the game is not over");
            let entry = entry_of(seat);
            let player = options.players[entry];
            let seed = derive_seed(game_seed, u64::from(position.ply()));
            let cpu_started = thread_cpu_ns();
            let started = Instant::now();
            let mv = player
                .choose(position, seed)
                .ok_or_else(|| format!("game {}: {player} found no move in {position}", g + 1))?;
            let elapsed = started.elapsed().as_nanos();
            let cpu = match (cpu_started, thread_cpu_ns()) {
                (Some(a), Some(b)) => b.saturating_sub(a),
                _ => elapsed,
            };
            let t = tally_of(&names[entry], &tallies);
            tallies[t].moves += 1;
            tallies[t].think_ns += elapsed;
            tallies[t].max_think_ns = tallies[t].max_think_ns.max(elapsed);
            tallies[t].cpu_ns += cpu;
            tallies[t].max_cpu_ns = tallies[t].max_cpu_ns.max(cpu);
            game.apply(&Action::Move(mv))
                .map_err(|e| format!("game {}: {player} chose an illegal move: {e}", g + 1))?;
        }
        let plies = game.position().ply();
        total_plies += u64::from(plies);
        let ranking = game.ranking().expect("the game is over");
        let mut line = format!("game {}: {plies} plies;", g + 1);
        let mut place = 1;
        for group in &ranking {
            for seat in group.iter() {
                let entry = entry_of(seat);
                let t = tally_of(&names[entry], &tallies);
                let tally = &mut tallies[t];
                tally.seat_games += 1;
                tally.ranks.push(place);
                if place == 1 {
                    match game.outcome() {
                        Some(Outcome::Win(_)) => tally.wins += 1,
                        _ => tally.draws += 1,
                    }
                }
                line.push_str(&format!(" {place}. {seat}={}", names[entry]));
            }
            place += group.len() as u32;
        }
        if matches!(game.outcome(), Some(Outcome::Draw(_))) {
            line.push_str(" (draw)");
        }
        writeln!(out, "{line}").map_err(io)?;
        out.flush().map_err(io)?;
    }
    writeln!(
        out,
        "\n{} games, mean length {:.0} plies, {stopped} stopped at the ply limit",
        options.games,
        total_plies as f64 / f64::from(options.games)
    )
    .map_err(io)?;
    let places_header = format!(
        "places {}",
        (1..=n).map(|p| p.to_string()).collect::<Vec<_>>().join("/")
    );
    writeln!(
        out,
        "{:<8} {:>6} {:>6} {:>7} {:>17} {:>6} {:>6} {:>13}  {:<16} {:>8} {:>8} {:>8} {:>8}",
        "player",
        "games",
        "wins",
        "win%",
        "win% 95% CI",
        "draws",
        "rank",
        "rank 95% CI",
        places_header,
        "ms/move",
        "max ms",
        "cpu ms",
        "max cpu"
    )
    .map_err(io)?;
    for t in &tallies {
        let (low, high) = wilson(t.wins, t.seat_games);
        let (mean, half) = mean_interval(&t.ranks);
        let places: Vec<String> = (1..=n as u32)
            .map(|p| t.ranks.iter().filter(|r| **r == p).count().to_string())
            .collect();
        let per_move = |ns: u128| ns as f64 / t.moves.max(1) as f64 / 1e6;
        writeln!(
            out,
            "{:<8} {:>6} {:>6} {:>6.1}% {:>17} {:>6} {:>6.2} {:>13}  {:<16} {:>8.2} {:>8.1} {:>8.2} {:>8.1}",
            t.name,
            t.seat_games,
            t.wins,
            100.0 * f64::from(t.wins) / f64::from(t.seat_games.max(1)),
            format!("[{low:.1}, {high:.1}]"),
            t.draws,
            mean,
            format!(
                "[{:.2}, {:.2}]",
                (mean - half).max(1.0),
                (mean + half).min(n as f64)
            ),
            places.join("/"),
            per_move(t.think_ns),
            t.max_think_ns as f64 / 1e6,
            per_move(t.cpu_ns),
            t.max_cpu_ns as f64 / 1e6
        )
        .map_err(io)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_interval_matches_known_values() {
        let (low, high) = wilson(70, 100);
        assert!(
            (low - 60.4).abs() < 0.1 && (high - 78.1).abs() < 0.1,
            "{low} {high}"
        );
        let (low, high) = wilson(0, 10);
        assert!(low == 0.0 && (high - 27.8).abs() < 0.1, "{low} {high}");
    }

    #[derive(clap::Parser)]
    struct Arena {
        #[command(flatten)]
        options: Options,
    }

    fn parse(args: &str) -> Result<Options, String> {
        use clap::Parser;
        let options = Arena::try_parse_from(std::iter::once("arena").chain(args.split(' ')))
            .map_err(|e| e.to_string())?
            .options;
        options.check()?;
        Ok(options)
    }

    #[test]
    fn options_are_checked() {
        assert!(parse("--players random,random").is_err());
        assert!(parse("--players random,random,bogus").is_err());
        assert!(parse("--players random,random,random --games").is_err());
        assert!(parse("--players random,greedy,top --games 0").is_err());
        assert!(parse("--games 3").is_err());
        let ok = parse("--players random,greedy,l3,top --games 8 --seed 3").unwrap();
        assert_eq!(ok.players.len(), 4);
        assert_eq!((ok.games, ok.seed), (8, 3));
        let default = parse("--players random,greedy,top").unwrap();
        assert_eq!(
            (default.games, default.seed, default.max_plies),
            (12, 1, 600)
        );
    }
}
