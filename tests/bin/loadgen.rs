//! Load generator: plays many Djambi games at once against a running server over HTTP and
//! reports accepted moves per second and latency percentiles.
//!
//! ```text
//! loadgen --url http://127.0.0.1:8080 --games 256 --concurrency 64 --duration 20 --warmup 3
//! ```
//!
//! It registers 8 players (log-ins give JWTs), creates `--games` four-player games and
//! seats the players, then runs `--concurrency` clients, each owning a share of the games
//! and playing them in turn: it picks a random legal move locally with the rules crate (no
//! extra request), posts it with `expected_version`, and applies it locally once accepted.
//! A finished game is replaced by a new one (set-up requests are not counted). Only move
//! requests are timed; the first `--warmup` seconds are not counted. The last line is
//! machine-readable: `RESULT moves_per_sec=... p50_ms=... p99_ms=... max_ms=... errors=...`.
//!
//! `--history PLIES` measures reading history instead: it plays one game of at least
//! PLIES moves (the seats left resign to finish it), then `--concurrency` clients ask for
//! `state?at=N` at random versions N for `--duration` seconds and it reports the latency
//! percentiles (`RESULT history_requests_per_sec=... p50_ms=... p99_ms=...`).

use std::time::{Duration, Instant};

use djambi_e2e::Rng;
use domain::{Action, Game, GameSettings};
use reqwest::Client;
use serde_json::{Value, json};

struct Opts {
    url: String,
    games: usize,
    concurrency: usize,
    duration: Duration,
    warmup: Duration,
    /// Measure `state?at=N` on a finished game of at least this many moves.
    history: Option<usize>,
}

fn usage() -> ! {
    eprintln!(
        "usage: loadgen [--url URL] [--games N] [--concurrency C] [--duration SECS] [--warmup SECS] [--history PLIES]"
    );
    std::process::exit(2)
}

fn opts() -> Opts {
    let mut o = Opts {
        url: "http://127.0.0.1:8080".into(),
        games: 256,
        concurrency: 64,
        duration: Duration::from_secs(20),
        warmup: Duration::from_secs(3),
        history: None,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let value = args.get(i + 1).cloned().unwrap_or_else(|| usage());
        let num = || value.parse::<u64>().unwrap_or_else(|_| usage());
        match args[i].as_str() {
            "--url" => o.url = value.trim_end_matches('/').to_string(),
            "--games" => o.games = num() as usize,
            "--concurrency" => o.concurrency = num() as usize,
            "--duration" => o.duration = Duration::from_secs(num()),
            "--warmup" => o.warmup = Duration::from_secs(num()),
            "--history" => o.history = Some(num() as usize),
            _ => usage(),
        }
        i += 2;
    }
    o.games = o.games.max(o.concurrency);
    o
}

struct Player {
    token: String,
}

struct Table {
    id: String,
    /// Tokens of the players of seats R, B, Y, G.
    tokens: [String; 4],
    version: i64,
    game: Game,
}

#[derive(Default)]
struct Stats {
    latencies_us: Vec<u32>,
    accepted: u64,
    errors: u64,
    finished: u64,
}

async fn post(
    client: &Client,
    url: &str,
    token: &str,
    body: &Value,
) -> Result<(u16, Value), String> {
    let r = client
        .post(url)
        .bearer_auth(token)
        .json(body)
        .send()
        .await
        .map_err(|e| e.to_string())?;
    let status = r.status().as_u16();
    let bytes = r.bytes().await.map_err(|e| e.to_string())?;
    Ok((
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    ))
}

async fn player(client: &Client, base: &str, name: &str) -> Result<Player, String> {
    let password = "load generator password";
    let r = client
        .post(format!("{base}/v1/accounts"))
        .json(&json!({"username": name, "email": format!("{name}@example.org"), "password": password}))
        .send()
        .await
        .map_err(|e| e.to_string())?;
    if !(r.status().is_success() || r.status().as_u16() == 409) {
        return Err(format!("register {name}: {}", r.status()));
    }
    let r = client
        .post(format!("{base}/v1/sessions"))
        .json(&json!({"username": name, "password": password}))
        .send()
        .await
        .map_err(|e| e.to_string())?;
    let status = r.status();
    let body: Value = r.json().await.map_err(|e| e.to_string())?;
    if !status.is_success() {
        return Err(format!("login {name}: {status} {body}"));
    }
    Ok(Player {
        token: body["access_token"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
    })
}

async fn new_table(client: &Client, base: &str, players: &[Player; 4]) -> Result<Table, String> {
    let (status, g) = post(
        client,
        &format!("{base}/v1/games"),
        &players[0].token,
        &json!({"seat": "R"}),
    )
    .await?;
    if status != 201 {
        return Err(format!("create game: {status} {g}"));
    }
    let id = g["id"].as_str().unwrap_or_default().to_string();
    let mut version = 0;
    for (i, seat) in ["B", "Y", "G"].iter().enumerate() {
        let (status, s) = post(
            client,
            &format!("{base}/v1/games/{id}/seats/{seat}"),
            &players[i + 1].token,
            &json!({}),
        )
        .await?;
        if status != 200 {
            return Err(format!("take seat {seat}: {status} {s}"));
        }
        version = s["version"].as_i64().unwrap_or(0);
    }
    Ok(Table {
        id,
        tokens: [0, 1, 2, 3].map(|i| players[i].token.clone()),
        version,
        game: Game::new(GameSettings::four_players()).map_err(|e| e.to_string())?,
    })
}

async fn client_loop(
    client: Client,
    base: String,
    mut tables: Vec<Table>,
    groups: std::sync::Arc<Vec<[Player; 4]>>,
    seed: u64,
    measure_from: Instant,
    stop_at: Instant,
) -> Stats {
    let mut stats = Stats::default();
    let mut rng = Rng::new(seed);
    let mut i = 0;
    while Instant::now() < stop_at && !tables.is_empty() {
        i = (i + 1) % tables.len();
        let t = &mut tables[i];
        let position = t.game.position();
        let Some(seat) = position.to_move() else {
            continue;
        };
        let moves = position.legal_moves();
        let mv = moves[rng.below(moves.len())];
        let text = position.move_text(&mv).to_string();
        let url = format!("{base}/v1/games/{}/moves", t.id);
        let body = json!({"move": text, "expected_version": t.version});
        let started = Instant::now();
        let result = post(&client, &url, &t.tokens[seat.index()], &body).await;
        let took = started.elapsed();
        if started >= measure_from {
            stats
                .latencies_us
                .push(took.as_micros().min(u32::MAX as u128) as u32);
        }
        match result {
            Ok((201, b)) => {
                if started >= measure_from {
                    stats.accepted += 1;
                }
                t.version = b["version"].as_i64().unwrap_or(t.version + 1);
                if t.game.apply(&Action::Move(mv)).is_err() {
                    eprintln!("local replay refused {text} in {}", t.id);
                }
            }
            Ok((status, b)) => {
                stats.errors += 1;
                if stats.errors <= 5 {
                    eprintln!("move {text} in {}: {status} {b}", t.id);
                }
                t.game = Game::new(GameSettings::four_players()).unwrap_or_else(|_| t.game.clone());
                t.version = -1; // forces the table to be replaced below
            }
            Err(e) => {
                stats.errors += 1;
                if stats.errors <= 5 {
                    eprintln!("move in {}: {e}", t.id);
                }
                t.version = -1;
            }
        }
        if t.game.is_over() || t.version < 0 {
            if t.game.is_over() {
                stats.finished += 1;
            }
            let g = &groups[rng.below(groups.len())];
            match new_table(&client, &base, g).await {
                Ok(nt) => tables[i] = nt,
                Err(e) => {
                    eprintln!("new game: {e}");
                    tables.remove(i);
                }
            }
        }
    }
    stats
}

fn percentile(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let idx = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    f64::from(sorted[idx.min(sorted.len() - 1)]) / 1000.0
}

async fn run(o: Opts) -> Result<(), String> {
    let client = Client::builder()
        .pool_max_idle_per_host(o.concurrency * 2)
        .tcp_nodelay(true)
        .timeout(Duration::from_secs(30))
        .no_proxy()
        .build()
        .map_err(|e| e.to_string())?;
    let run_id = std::process::id();
    let mut groups = Vec::new();
    for g in 0..2 {
        let mut ps = Vec::new();
        for s in 0..4 {
            ps.push(player(&client, &o.url, &format!("load{run_id}_{g}{s}")).await?);
        }
        let ps: [Player; 4] = ps.try_into().map_err(|_| "four players".to_string())?;
        groups.push(ps);
    }
    if let Some(plies) = o.history {
        return history(&client, &o, &groups[0], plies).await;
    }
    let groups = std::sync::Arc::new(groups);
    eprintln!("creating {} games...", o.games);
    let mut tables = Vec::new();
    let setup = Instant::now();
    while tables.len() < o.games {
        let batch = (o.games - tables.len()).min(32);
        let futs = (0..batch)
            .map(|k| new_table(&client, &o.url, &groups[(tables.len() + k) % groups.len()]));
        for t in futures_util::future::join_all(futs).await {
            tables.push(t?);
        }
    }
    eprintln!(
        "{} games ready in {:.1} s; {} clients play for {} s after a {} s warm-up",
        tables.len(),
        setup.elapsed().as_secs_f64(),
        o.concurrency,
        o.duration.as_secs(),
        o.warmup.as_secs()
    );
    let start = Instant::now();
    let measure_from = start + o.warmup;
    let stop_at = measure_from + o.duration;
    let mut shares: Vec<Vec<Table>> = (0..o.concurrency).map(|_| Vec::new()).collect();
    for (i, t) in tables.into_iter().enumerate() {
        shares[i % o.concurrency].push(t);
    }
    let mut set = tokio::task::JoinSet::new();
    for (k, share) in shares.into_iter().enumerate() {
        set.spawn(client_loop(
            client.clone(),
            o.url.clone(),
            share,
            groups.clone(),
            0x9e37_79b9_7f4a_7c15 ^ (k as u64 + 1),
            measure_from,
            stop_at,
        ));
    }
    let mut total = Stats::default();
    while let Some(r) = set.join_next().await {
        let s = r.map_err(|e| e.to_string())?;
        total.latencies_us.extend(s.latencies_us);
        total.accepted += s.accepted;
        total.errors += s.errors;
        total.finished += s.finished;
    }
    let measured = Instant::now().duration_since(measure_from).as_secs_f64();
    total.latencies_us.sort_unstable();
    let lat = &total.latencies_us;
    let rate = total.accepted as f64 / measured;
    println!(
        "loadgen: {} clients, {} games, {:.1} s measured after {} s warm-up",
        o.concurrency,
        o.games,
        measured,
        o.warmup.as_secs()
    );
    println!(
        "accepted moves: {} ({rate:.1}/s); errors: {}; games finished and replaced: {}",
        total.accepted, total.errors, total.finished
    );
    println!(
        "move latency: p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms ({} requests)",
        percentile(lat, 0.50),
        percentile(lat, 0.90),
        percentile(lat, 0.99),
        percentile(lat, 1.0),
        lat.len()
    );
    println!(
        "RESULT moves_per_sec={rate:.1} p50_ms={:.2} p99_ms={:.2} max_ms={:.2} errors={}",
        percentile(lat, 0.50),
        percentile(lat, 0.99),
        percentile(lat, 1.0),
        total.errors
    );
    Ok(())
}

/// Plays one game to at least `plies` moves (then the others resign), sequentially.
async fn long_game(
    client: &Client,
    base: &str,
    players: &[Player; 4],
    plies: usize,
    rng: &mut Rng,
) -> Result<(String, i64, usize), String> {
    let mut t = new_table(client, base, players).await?;
    let mut played = 0;
    while let Some(seat) = t.game.position().to_move() {
        if played >= plies {
            // Finish it: everyone but the seat to move resigns.
            for other in t
                .game
                .position()
                .active_seats()
                .iter()
                .filter(|s| *s != seat)
            {
                let url = format!("{base}/v1/games/{}/resignation", t.id);
                let (status, b) = post(client, &url, &t.tokens[other.index()], &json!({})).await?;
                if status != 201 {
                    return Err(format!("resign: {status} {b}"));
                }
                t.version = b["version"].as_i64().unwrap_or(t.version);
                if b["status"] == "finished" {
                    break;
                }
            }
            break;
        }
        let position = t.game.position();
        let moves = position.legal_moves();
        let mv = moves[rng.below(moves.len())];
        let text = position.move_text(&mv).to_string();
        let url = format!("{base}/v1/games/{}/moves", t.id);
        let body = json!({"move": text, "expected_version": t.version});
        let (status, b) = post(client, &url, &t.tokens[seat.index()], &body).await?;
        if status != 201 {
            return Err(format!("move {text}: {status} {b}"));
        }
        t.version = b["version"].as_i64().unwrap_or(t.version + 1);
        t.game
            .apply(&Action::Move(mv))
            .map_err(|e| format!("local replay: {e}"))?;
        played += 1;
    }
    Ok((t.id, t.version, played))
}

async fn history(
    client: &Client,
    o: &Opts,
    players: &[Player; 4],
    plies: usize,
) -> Result<(), String> {
    let mut rng = Rng::new(4242);
    let mut best = (String::new(), 0, 0);
    for _ in 0..50 {
        let g = long_game(client, &o.url, players, plies, &mut rng).await?;
        if g.2 > best.2 {
            best = g;
        }
        if best.2 >= plies {
            break;
        }
    }
    let (id, version, played) = best;
    eprintln!(
        "game {id}: {played} moves, {version} events; reading state?at=N for {} s",
        o.duration.as_secs()
    );
    let stop_at = Instant::now() + o.duration;
    let mut set = tokio::task::JoinSet::new();
    for k in 0..o.concurrency {
        let (client, base, id) = (client.clone(), o.url.clone(), id.clone());
        set.spawn(async move {
            let mut rng = Rng::new(k as u64 + 7);
            let mut lat = Vec::new();
            let mut errors = 0u64;
            while Instant::now() < stop_at {
                let n = 1 + rng.below(version as usize);
                let started = Instant::now();
                let r = client
                    .get(format!("{base}/v1/games/{id}/state?at={n}"))
                    .send()
                    .await;
                let ok = match r {
                    Ok(r) => r.status().is_success() && r.bytes().await.is_ok(),
                    Err(_) => false,
                };
                lat.push(started.elapsed().as_micros().min(u32::MAX as u128) as u32);
                if !ok {
                    errors += 1;
                }
            }
            (lat, errors)
        });
    }
    let (mut lat, mut errors) = (Vec::new(), 0);
    while let Some(r) = set.join_next().await {
        let (l, e) = r.map_err(|e| e.to_string())?;
        lat.extend(l);
        errors += e;
    }
    lat.sort_unstable();
    let rate = lat.len() as f64 / o.duration.as_secs_f64();
    println!(
        "state?at=N on a finished game of {played} moves ({version} events): {} requests ({rate:.0}/s), {errors} errors",
        lat.len()
    );
    println!(
        "latency: p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        percentile(&lat, 0.5),
        percentile(&lat, 0.9),
        percentile(&lat, 0.99),
        percentile(&lat, 1.0)
    );
    println!(
        "RESULT history_requests_per_sec={rate:.1} p50_ms={:.2} p99_ms={:.2} errors={errors}",
        percentile(&lat, 0.5),
        percentile(&lat, 0.99)
    );
    Ok(())
}

fn main() {
    let o = opts();
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("loadgen: {e}");
            std::process::exit(1)
        }
    };
    if let Err(e) = rt.block_on(run(o)) {
        eprintln!("loadgen: {e}");
        std::process::exit(1);
    }
}
