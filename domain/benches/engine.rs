//! Criterion benches for the rules engine: move generation, play, replaying a whole
//! game, random playouts and perft. Figures are recorded in BENCHMARKS.md.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use djambi::{Action, Game, GameSettings, Move, Position, perft};

/// A small deterministic generator (xorshift64*), so that runs are comparable.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// Plays uniformly random legal moves until the game ends or `max_plies` are played.
fn random_game(seed: u64, max_plies: usize) -> Vec<Move> {
    let mut rng = Rng(seed | 1);
    let mut position = Position::default();
    let mut moves = Vec::new();
    while moves.len() < max_plies {
        let count = position.count_legal_moves();
        if count == 0 {
            break;
        }
        let mv = position
            .nth_legal_move(rng.next() % count)
            .expect("index below count");
        position = position.play(&mv).expect("generated moves are legal");
        moves.push(mv);
    }
    moves
}

/// The longest of a few seeded random games, capped at 300 plies.
fn long_game() -> Vec<Move> {
    (1..=200u64)
        .map(|seed| random_game(seed, 300))
        .max_by_key(Vec::len)
        .expect("some game")
}

fn midgame() -> Position {
    let mut position = Position::default();
    for mv in long_game().iter().take(60) {
        position = position.play(mv).unwrap();
    }
    position
}

fn benches(c: &mut Criterion) {
    let start = Position::default();
    let middle = midgame();
    c.bench_function("legal_moves/start", |b| {
        b.iter(|| black_box(&start).legal_moves())
    });
    c.bench_function("legal_moves/midgame", |b| {
        b.iter(|| black_box(&middle).legal_moves())
    });
    c.bench_function("count_legal_moves/midgame", |b| {
        b.iter(|| black_box(&middle).count_legal_moves())
    });

    let first = start.legal_moves()[0];
    c.bench_function("play/start", |b| {
        b.iter(|| black_box(&start).play(black_box(&first)))
    });
    let reply = middle.legal_moves()[middle.legal_moves().len() / 2];
    c.bench_function("play/midgame", |b| {
        b.iter(|| black_box(&middle).play(black_box(&reply)))
    });

    let game = long_game();
    let actions: Vec<Action> = game.iter().copied().map(Action::Move).collect();
    let plies = actions.len();
    c.bench_function(&format!("replay/{plies}-ply game with effects"), |b| {
        b.iter(|| Game::replay(GameSettings::four_players(), black_box(&actions)).expect("replays"))
    });
    c.bench_function(&format!("replay/{plies}-ply game, positions only"), |b| {
        b.iter(|| {
            let mut position = Position::default();
            for mv in black_box(&game) {
                position.play_in_place(mv, &mut ()).expect("legal");
            }
            position
        })
    });

    let mut group = c.benchmark_group("playout");
    group.throughput(criterion::Throughput::Elements(1000));
    group.bench_function("1000 random plies", |b| {
        let mut rng = Rng(7);
        b.iter(|| {
            let mut position = Position::default();
            for _ in 0..1000 {
                let count = position.count_legal_moves();
                if count == 0 {
                    position = Position::default();
                    continue;
                }
                let mv = position
                    .nth_legal_move(rng.next() % count)
                    .expect("index below count");
                position.play_in_place(&mv, &mut ()).expect("legal");
            }
            position
        })
    });
    group.finish();

    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    group.bench_function("perft 3 from the start", |b| {
        b.iter(|| perft(black_box(&start), 3))
    });
    group.bench_function("perft 4 from the start", |b| {
        b.iter(|| perft(black_box(&start), 4))
    });
    group.finish();
}

criterion_group!(engine, benches);
criterion_main!(engine);
