//! How much sooner four-player games end when each player stores conditional moves: a
//! simulation over the rules crate and the server's own tree model
//! (`djambi_api::model::conditional`), on a simulated clock. No server runs.
//!
//! Every seat is a computer player (the greedy one-ply player of the rules crate, its ties
//! broken by a seed of its own): the moves of a game depend on the seeds only, so each
//! game is played once and timed twice:
//!
//! - **without** trees, each ply waits for its player's answer: a delay drawn uniformly
//!   between `MIN_DELAY_H` and `MAX_DELAY_H` hours (the same draws in both runs);
//! - **with** trees, every player, right after each move they make themselves, stores
//!   a tree of their three most likely expected lines: the rivals' moves until their next
//!   turn as three other greedy players would play them (three seeds, so the ties go
//!   three ways), then the answer they would play there by hand. When their turn comes
//!   and the moves played since match a line ([`Tree::next`]), the answer is played at
//!   once (no delay); otherwise they answer after their delay as before (and store a new
//!   tree). The moves are the same in both runs: only the time differs.
//!
//! Usage: `conditional_sim [games] [max_plies] [seed]` (default 60 games, 300 plies).

use djambi_api::model::conditional::{Next, Tree};
use domain::search::{derive_seed, greedy_move};
use domain::{Action, Game, GameSettings, Move, Seat};

const MIN_DELAY_H: f64 = 1.0;
const MAX_DELAY_H: f64 = 24.0;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 11
    }

    fn unit(&mut self) -> f64 {
        (self.next() as f64) / ((1u64 << 53) as f64)
    }
}

/// A seat's stored tree and where it starts (the number of actions at its base).
struct Stored {
    tree: Tree,
    base: usize,
}

/// The seed of the move a game's player makes by hand at ply `ply` (its own greedy
/// player's: the same whether it plays by hand or stored it as an answer).
fn own_seed(seed: u64, index: u64, ply: usize) -> u64 {
    derive_seed(seed ^ 0x5eed, index * 10_000 + ply as u64)
}

/// The seat's three most likely lines from `game` (just after its own move, at ply
/// `at`): each is the rivals' greedy moves under one seed of the seat's guesses until
/// the seat is to move, then the answer it would play there.
fn likely_lines(
    game: &Game,
    seat: Seat,
    guess: u64,
    own: impl Fn(usize) -> u64,
    at: usize,
) -> Vec<String> {
    let mut lines = Vec::new();
    for k in 0..3u64 {
        let mut g = game.clone();
        let mut words = Vec::new();
        let mut ok = false;
        for ply in 0..8u64 {
            let Some(mover) = g.position().to_move().filter(|_| !g.is_over()) else {
                break;
            };
            let seed = if mover == seat {
                own(at + ply as usize)
            } else {
                derive_seed(guess ^ (k + 1), ply)
            };
            let Some(mv) = greedy_move(g.position(), seed) else {
                break;
            };
            words.push(format!("{mover} {}", g.position().move_text(&mv)));
            if g.apply(&Action::Move(mv)).is_err() {
                break;
            }
            if mover == seat {
                ok = ply > 0;
                break;
            }
        }
        if ok {
            lines.push(words.join(" "));
        }
    }
    lines
}

struct Timed {
    days_without: f64,
    days_with: f64,
    plies: usize,
    answered: usize,
}

fn one_game(index: u64, max_plies: usize, seed: u64) -> Timed {
    let mut game = Game::new(GameSettings::four_players()).expect("the start");
    let mut rng = Rng(derive_seed(seed, index));
    let mut actions: Vec<Action> = Vec::new();
    let mut trees: [Option<Stored>; 4] = [None, None, None, None];
    let (mut without, mut with) = (0.0f64, 0.0f64);
    let mut answered = 0;
    while !game.is_over() && actions.len() < max_plies {
        let Some(seat) = game.position().to_move() else {
            break;
        };
        let mv: Move = match greedy_move(game.position(), own_seed(seed, index, actions.len())) {
            Some(mv) => mv,
            None => break,
        };
        let delay = MIN_DELAY_H + (MAX_DELAY_H - MIN_DELAY_H) * rng.unit();
        without += delay;
        // Does the seat's tree answer with this very move, at once?
        let conditional = trees[seat.index()].as_ref().is_some_and(
            |s| matches!(s.tree.next(&actions[s.base..], Some(seat)), Next::Play(m) if m == mv),
        );
        // A tree that does not answer here is discarded (mismatch, or the answer differs:
        // the player then plays by hand).
        let stored = trees[seat.index()].take();
        if conditional {
            answered += 1;
        } else {
            with += delay;
        }
        game.apply(&Action::Move(mv)).expect("a legal move");
        actions.push(Action::Move(mv));
        // Trees of other seats that no longer match are discarded.
        for other in Seat::ALL {
            if let Some(s) = &trees[other.index()]
                && matches!(
                    s.tree.next(&actions[s.base..], game.position().to_move()),
                    Next::Discard { .. } | Next::Exhausted
                )
            {
                trees[other.index()] = None;
            }
        }
        // After a move by hand the player stores the three likely lines; after a
        // conditional answer, what is left of the tree (one-round lines: nothing).
        if conditional {
            let s = stored.expect("a tree answered");
            trees[seat.index()] = s.tree.advance(&actions[s.base..]).map(|tree| Stored {
                tree,
                base: actions.len(),
            });
        } else if !game.is_over() {
            let lines = likely_lines(
                &game,
                seat,
                derive_seed(seed, actions.len() as u64),
                |ply| own_seed(seed, index, ply),
                actions.len(),
            );
            if !lines.is_empty()
                && let Ok(tree) = Tree::check(&game, seat, &lines)
            {
                trees[seat.index()] = Some(Stored {
                    tree,
                    base: actions.len(),
                });
            }
        }
    }
    Timed {
        days_without: without / 24.0,
        days_with: with / 24.0,
        plies: actions.len(),
        answered,
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n == 0 {
        return 0.0;
    }
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let games: u64 = args.first().and_then(|a| a.parse().ok()).unwrap_or(60);
    let max_plies: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(300);
    let seed: u64 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(2026);
    let runs: Vec<Timed> = (0..games).map(|i| one_game(i, max_plies, seed)).collect();
    let without: Vec<f64> = runs.iter().map(|r| r.days_without).collect();
    let with: Vec<f64> = runs.iter().map(|r| r.days_with).collect();
    let plies: usize = runs.iter().map(|r| r.plies).sum();
    let answered: usize = runs.iter().map(|r| r.answered).sum();
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let (mw, mc) = (mean(&without), mean(&with));
    println!("games: {games}, plies: {plies} (cap {max_plies} per game), seed {seed}");
    println!("answer delay: uniform {MIN_DELAY_H} to {MAX_DELAY_H} h per ply by hand");
    println!(
        "plies answered by a conditional move: {answered} ({:.1} %)",
        100.0 * answered as f64 / plies.max(1) as f64
    );
    println!(
        "mean days: without {mw:.1}, with {mc:.1} (saved {:.1} days, {:.1} %)",
        mw - mc,
        100.0 * (mw - mc) / mw.max(f64::EPSILON)
    );
    println!(
        "median days: without {:.1}, with {:.1}",
        median(without),
        median(with)
    );
}
