//! Memory benchmark driver (scripts/bench-memory.sh): registers and logs in many players,
//! creates four-player games and plays a few moves in each (so they are active), then sends
//! a burst of parallel logins with unknown names, and reports the server's resident memory
//! (`VmRSS`, and the peak `VmHWM`, from `/proc/PID/status`) after each phase.
//!
//! ```text
//! memload --url http://127.0.0.1:18081 --pid 1234 --players 4000 --games 1000 \
//!         --moves 4 --concurrency 8 --burst 200
//! ```
//!
//! The last line is machine-readable: `RESULT peak_rss_kib=... final_rss_kib=... ...`.

use std::time::{Duration, Instant};

use djambi_e2e::Rng;
use domain::{Action, Game, GameSettings};
use reqwest::Client;
use serde_json::{Value, json};

const PASSWORD: &str = "load generator password";

struct Opts {
    url: String,
    pid: u32,
    players: usize,
    games: usize,
    moves: usize,
    concurrency: usize,
    burst: usize,
}

fn usage() -> ! {
    eprintln!(
        "usage: memload --pid PID [--url URL] [--players N] [--games N] [--moves N] \
         [--concurrency C] [--burst N]"
    );
    std::process::exit(2)
}

fn opts() -> Opts {
    let mut o = Opts {
        url: "http://127.0.0.1:8080".into(),
        pid: 0,
        players: 4000,
        games: 1000,
        moves: 4,
        concurrency: 8,
        burst: 200,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let value = args.get(i + 1).cloned().unwrap_or_else(|| usage());
        let num = || value.parse::<usize>().unwrap_or_else(|_| usage());
        match args[i].as_str() {
            "--url" => o.url = value.trim_end_matches('/').to_string(),
            "--pid" => o.pid = num() as u32,
            "--players" => o.players = num(),
            "--games" => o.games = num(),
            "--moves" => o.moves = num(),
            "--concurrency" => o.concurrency = num().max(1),
            "--burst" => o.burst = num(),
            _ => usage(),
        }
        i += 2;
    }
    if o.pid == 0 {
        usage()
    }
    o.games = o.games.min(o.players / 4);
    o
}

/// (VmRSS, VmHWM) of the server in KiB.
fn memory(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn report(o: &Opts, phase: &str, started: Instant, counts: &str) {
    let (rss, hwm) = memory(o.pid);
    println!(
        "{phase:<28} {:>7.1} s  rss {:>6.1} MiB  peak {:>6.1} MiB  {counts}",
        started.elapsed().as_secs_f64(),
        rss as f64 / 1024.0,
        hwm as f64 / 1024.0
    );
}

async fn post(
    client: &Client,
    url: String,
    token: Option<&str>,
    body: Value,
) -> Result<(u16, Value), String> {
    let mut rb = client.post(url).json(&body);
    if let Some(t) = token {
        rb = rb.bearer_auth(t);
    }
    let r = rb.send().await.map_err(|e| e.to_string())?;
    let status = r.status().as_u16();
    let bytes = r.bytes().await.map_err(|e| e.to_string())?;
    Ok((
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    ))
}

/// Runs `jobs` with at most `c` in flight; returns the outcomes in order.
async fn bounded<F, T>(c: usize, jobs: Vec<F>) -> Vec<T>
where
    F: std::future::Future<Output = T>,
{
    let mut out = Vec::with_capacity(jobs.len());
    let mut jobs = jobs.into_iter().peekable();
    while jobs.peek().is_some() {
        let batch: Vec<F> = jobs.by_ref().take(c).collect();
        out.extend(futures_util::future::join_all(batch).await);
    }
    out
}

fn tally(statuses: &[u16]) -> String {
    let mut counts = std::collections::BTreeMap::new();
    for s in statuses {
        *counts.entry(*s).or_insert(0usize) += 1;
    }
    counts
        .iter()
        .map(|(s, n)| format!("{s}x{n}"))
        .collect::<Vec<_>>()
        .join(" ")
}

async fn run(o: Opts) -> Result<(), String> {
    let client = Client::builder()
        .pool_max_idle_per_host(o.concurrency.max(o.burst))
        .timeout(Duration::from_secs(120))
        .no_proxy()
        .build()
        .map_err(|e| e.to_string())?;
    let base = o.url.clone();
    let run_id = std::process::id();
    let started = Instant::now();
    report(&o, "idle", started, "");

    let names: Vec<String> = (0..o.players).map(|i| format!("mem{run_id}x{i}")).collect();
    let jobs = names
        .iter()
        .map(|n| {
            post(
                &client,
                format!("{base}/v1/accounts"),
                None,
                json!({"username": n, "email": format!("{n}@example.org"), "password": PASSWORD}),
            )
        })
        .collect();
    let statuses: Vec<u16> = bounded(o.concurrency, jobs)
        .await
        .into_iter()
        .map(|r| r.map_or(0, |(s, _)| s))
        .collect();
    report(&o, "registered", started, &tally(&statuses));

    let jobs = names
        .iter()
        .map(|n| {
            post(
                &client,
                format!("{base}/v1/sessions"),
                None,
                json!({"username": n, "password": PASSWORD}),
            )
        })
        .collect();
    let logins = bounded(o.concurrency, jobs).await;
    let statuses: Vec<u16> = logins
        .iter()
        .map(|r| r.as_ref().map_or(0, |(s, _)| *s))
        .collect();
    report(&o, "logged in", started, &tally(&statuses));
    let tokens: Vec<String> = logins
        .into_iter()
        .map(|r| {
            r.ok()
                .and_then(|(_, b)| b["access_token"].as_str().map(String::from))
                .unwrap_or_default()
        })
        .collect();
    if tokens.iter().any(String::is_empty) {
        return Err("some logins failed; cannot go on".into());
    }

    // Games: players 4g..4g+3 take R, B, Y, G of game g.
    let jobs = (0..o.games)
        .map(|g| {
            post(
                &client,
                format!("{base}/v1/games"),
                Some(&tokens[4 * g]),
                json!({"seats": 4, "seat": "R"}),
            )
        })
        .collect();
    let created = bounded(o.concurrency, jobs).await;
    let ids: Vec<String> = created
        .into_iter()
        .map(|r| {
            r.ok()
                .and_then(|(_, b)| b["id"].as_str().map(String::from))
                .unwrap_or_default()
        })
        .collect();
    // The seats of one game are taken one after the other (each changes its version).
    let seat_jobs = ids
        .iter()
        .enumerate()
        .map(|(g, id)| {
            let (client, base, tokens) = (&client, &base, &tokens);
            async move {
                let mut out = Vec::new();
                for (k, seat) in ["B", "Y", "G"].iter().enumerate() {
                    out.push(
                        post(
                            client,
                            format!("{base}/v1/games/{id}/seats/{seat}"),
                            Some(&tokens[4 * g + k + 1]),
                            json!({}),
                        )
                        .await,
                    );
                }
                out
            }
        })
        .collect();
    let seated: Vec<_> = bounded(o.concurrency, seat_jobs)
        .await
        .into_iter()
        .flatten()
        .collect();
    let statuses: Vec<u16> = seated
        .iter()
        .map(|r| r.as_ref().map_or(0, |(s, _)| *s))
        .collect();
    report(&o, "games created and seated", started, &tally(&statuses));
    let mut versions: Vec<i64> = vec![0; ids.len()];
    for (i, r) in seated.iter().enumerate() {
        if let Ok((_, b)) = r {
            let g = i / 3;
            versions[g] = versions[g].max(b["version"].as_i64().unwrap_or(0));
        }
    }

    // A few moves in every game, round after round.
    let mut games: Vec<Game> = ids
        .iter()
        .map(|_| Game::new(GameSettings::four_players()).map_err(|e| e.to_string()))
        .collect::<Result<_, _>>()?;
    let mut rng = Rng::new(0x5eed ^ u64::from(run_id));
    let mut move_statuses = Vec::new();
    for _ in 0..o.moves {
        let mut jobs = Vec::new();
        let mut picked = Vec::new();
        for (g, game) in games.iter().enumerate() {
            let position = game.position();
            let Some(seat) = position.to_move() else {
                continue;
            };
            let moves = position.legal_moves();
            if moves.is_empty() {
                continue;
            }
            let mv = moves[rng.below(moves.len())];
            let text = position.move_text(&mv).to_string();
            picked.push((g, mv));
            jobs.push(post(
                &client,
                format!("{base}/v1/games/{}/moves", ids[g]),
                Some(&tokens[4 * g + seat.index()]),
                json!({"move": text, "expected_version": versions[g]}),
            ));
        }
        let answers = bounded(o.concurrency, jobs).await;
        for ((g, mv), r) in picked.into_iter().zip(answers) {
            let status = r.as_ref().map_or(0, |(s, _)| *s);
            move_statuses.push(status);
            if let Ok((201, b)) = r {
                versions[g] = b["version"].as_i64().unwrap_or(versions[g] + 1);
                let _ = games[g].apply(&Action::Move(mv));
            }
        }
    }
    report(&o, "moves played", started, &tally(&move_statuses));

    // The burst: unknown names, all at once.
    let jobs: Vec<_> = (0..o.burst)
        .map(|i| {
            post(
                &client,
                format!("{base}/v1/sessions"),
                None,
                json!({"username": format!("ghost{run_id}x{i}"), "password": "not a real password"}),
            )
        })
        .collect();
    let t = Instant::now();
    let answers = futures_util::future::join_all(jobs).await;
    let took = t.elapsed();
    let statuses: Vec<u16> = answers
        .iter()
        .map(|r| r.as_ref().map_or(0, |(s, _)| *s))
        .collect();
    report(
        &o,
        &format!("{} parallel logins", o.burst),
        started,
        &format!("{} in {:.2} s", tally(&statuses), took.as_secs_f64()),
    );
    std::thread::sleep(Duration::from_secs(2));
    report(&o, "after 2 s", started, "");
    let (rss, hwm) = memory(o.pid);
    println!(
        "RESULT peak_rss_kib={hwm} final_rss_kib={rss} players={} games={} burst={} burst_seconds={:.2}",
        o.players,
        ids.len(),
        o.burst,
        took.as_secs_f64()
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
            eprintln!("memload: {e}");
            std::process::exit(1)
        }
    };
    if let Err(e) = rt.block_on(run(o)) {
        eprintln!("memload: {e}");
        std::process::exit(1);
    }
}
