//! The stream benchmark's client (scripts/bench-streams.sh): sets up users and games,
//! opens many idle Server-Sent Events streams (game and notification streams, spread over
//! the games and users) to one or two instances, holds them, and measures the time from a
//! move's answer to its arrival on every stream of its game.
//!
//! `streamload --url URL [--url2 URL] --streams N --games G --users U --hold SECS
//!  --probes P [--pause SECS]`. Only 127.0.0.1. Every loop is bounded by a count and a
//! time. With `--pause`, opens half the streams, prints `HALF`, waits that long (the
//! script measures the server's memory with half), then opens the rest. Prints `READY`
//! once the streams are open (the script then measures), waits `--hold` seconds, plays
//! `--probes` moves (through the first URL), and prints `RESULT ...`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const PASSWORD: &str = "correct horse battery";

struct Args {
    url: String,
    url2: Option<String>,
    streams: usize,
    games: usize,
    users: usize,
    hold: u64,
    probes: usize,
    pause: u64,
}

fn args() -> Args {
    let mut a = Args {
        url: String::new(),
        url2: None,
        streams: 1000,
        games: 100,
        users: 400,
        hold: 10,
        probes: 50,
        pause: 0,
    };
    let v: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i + 1 < v.len() {
        let x = v[i + 1].clone();
        match v[i].as_str() {
            "--url" => a.url = x,
            "--url2" => a.url2 = Some(x),
            "--streams" => a.streams = x.parse().expect("--streams"),
            "--games" => a.games = x.parse().expect("--games"),
            "--users" => a.users = x.parse().expect("--users"),
            "--hold" => a.hold = x.parse().expect("--hold"),
            "--probes" => a.probes = x.parse().expect("--probes"),
            "--pause" => a.pause = x.parse().expect("--pause"),
            o => panic!("unknown argument {o}"),
        }
        i += 2;
    }
    for u in std::iter::once(&a.url).chain(a.url2.iter()) {
        assert!(u.starts_with("http://127.0.0.1:"), "127.0.0.1 only: {u}");
    }
    a.users = a.users.max(4);
    a
}

struct Http {
    client: reqwest::blocking::Client,
    base: String,
}

impl Http {
    fn send(
        &self,
        m: reqwest::Method,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> (u16, Value) {
        let mut rb = self.client.request(m, format!("{}{path}", self.base));
        if let Some(t) = token {
            rb = rb.bearer_auth(t);
        }
        if let Some(b) = body {
            rb = rb.json(&b);
        }
        let r = rb.send().expect("request");
        let s = r.status().as_u16();
        (s, r.json().unwrap_or(Value::Null))
    }
}

/// (user id, token) of `n` new users.
fn users(http: &Http, n: usize) -> Vec<(String, String)> {
    let tag = std::process::id();
    (0..n)
        .map(|i| {
            let name = format!("s{tag}u{i}");
            let (s, _) = http.send(
                reqwest::Method::POST,
                "/v1/accounts",
                None,
                Some(json!({
                "username": name, "email": format!("{name}@example.org"), "password": PASSWORD})),
            );
            assert_eq!(s, 201, "register");
            let (s, b) = http.send(
                reqwest::Method::POST,
                "/v1/sessions",
                None,
                Some(json!({
                "username": name, "password": PASSWORD})),
            );
            assert_eq!(s, 201, "login");
            (
                b["user"]["id"].as_str().unwrap().to_string(),
                b["access_token"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// A four-player game of four of the users: its id and its players' (user id, token).
fn game(http: &Http, players: &[(String, String)]) -> String {
    let (s, g) = http.send(
        reqwest::Method::POST,
        "/v1/games",
        Some(&players[0].1),
        Some(json!({"seats": 4, "seat": "R"})),
    );
    assert_eq!(s, 201, "create {g}");
    let id = g["id"].as_str().unwrap().to_string();
    for (p, seat) in players[1..4].iter().zip(["B", "Y", "G"]) {
        let (s, _) = http.send(
            reqwest::Method::POST,
            &format!("/v1/games/{id}/seats/{seat}"),
            Some(&p.1),
            None,
        );
        assert_eq!(s, 200, "seat");
    }
    id
}

/// Arrivals: (game, version) -> times seen.
type Seen = Arc<Mutex<HashMap<(usize, i64), Vec<Instant>>>>;

/// One idle stream, read until the deadline; game streams note their events' arrival.
async fn stream(
    addr: String,
    request: String,
    game: Option<usize>,
    seen: Seen,
    opened: Arc<std::sync::atomic::AtomicUsize>,
    until: Instant,
) {
    let Ok(tcp) = tokio::net::TcpStream::connect(&addr).await else {
        return;
    };
    let bytes = request.into_bytes();
    let mut sent = 0;
    while sent < bytes.len() {
        if tcp.writable().await.is_err() {
            return;
        }
        match tcp.try_write(&bytes[sent..]) {
            Ok(n) => sent += n,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(_) => return,
        }
    }
    let mut buf = vec![0u8; 4096];
    let mut text = String::new();
    let mut counted = false;
    loop {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return;
        }
        match tokio::time::timeout(left, tcp.readable()).await {
            Ok(Ok(())) => {}
            _ => return,
        }
        match tcp.try_read(&mut buf) {
            Ok(0) => return,
            Ok(n) => {
                let at = Instant::now();
                text.push_str(&String::from_utf8_lossy(&buf[..n]));
                if !counted && text.starts_with("HTTP/1.1 200") && text.contains("retry: 2000") {
                    counted = true;
                    opened.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
                while let Some(end) = text.find("\n\n") {
                    let block: String = text.drain(..end + 2).collect();
                    let version = block
                        .lines()
                        .find_map(|l| l.strip_prefix("id: "))
                        .and_then(|v| v.trim().parse::<i64>().ok());
                    if let (Some(g), Some(v)) = (game, version) {
                        seen.lock().unwrap().entry((g, v)).or_default().push(at);
                    }
                }
                if text.len() > 65536 {
                    text.clear();
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(_) => return,
        }
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn main() {
    let a = args();
    let client = reqwest::blocking::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap();
    let http = Http {
        client,
        base: a.url.clone(),
    };
    let people = users(&http, a.users);
    let games: Vec<(String, Vec<(String, String)>)> = (0..a.games)
        .map(|g| {
            let four: Vec<(String, String)> = (0..4)
                .map(|k| people[(g * 4 + k) % people.len()].clone())
                .collect();
            (game(&http, &four), four)
        })
        .collect();
    eprintln!("set up {} users, {} games", people.len(), games.len());

    let seen: Seen = Arc::default();
    let opened = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let until = Instant::now() + Duration::from_secs(a.hold + a.pause + 120);
    let urls: Vec<String> = std::iter::once(a.url.clone())
        .chain(a.url2.clone())
        .collect();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (s2, o2) = (seen.clone(), opened.clone());
    let streams = a.streams;
    let pause = a.pause;
    let games_n = games.len();
    let game_ids: Vec<String> = games.iter().map(|g| g.0.clone()).collect();
    let tokens: Vec<String> = people.iter().map(|p| p.1.clone()).collect();
    let holder = std::thread::spawn(move || {
        rt.block_on(async move {
            let mut tasks = Vec::with_capacity(streams);
            for i in 0..streams {
                // With two instances the game streams go to the second one (the moves
                // are written through the first).
                let url = urls.last().unwrap().clone();
                let addr = url.trim_start_matches("http://").trim_end_matches('/').to_string();
                let (req, game) = if i % 2 == 0 {
                    let g = (i / 2) % games_n;
                    (format!("GET /v1/games/{}/stream HTTP/1.1\r\nHost: {addr}\r\n\r\n", game_ids[g]), Some(g))
                } else {
                    let t = &tokens[(i / 2) % tokens.len()];
                    let addr1 = urls[0].trim_start_matches("http://").trim_end_matches('/');
                    (format!("GET /v1/me/notifications/stream HTTP/1.1\r\nHost: {addr1}\r\nAuthorization: Bearer {t}\r\n\r\n"), None)
                };
                let target = if game.is_some() { addr.clone() } else { urls[0].trim_start_matches("http://").trim_end_matches('/').to_string() };
                tasks.push(tokio::spawn(stream(target, req, game, s2.clone(), o2.clone(), until)));
                if i % 200 == 199 {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                if pause > 0 && i + 1 == streams / 2 {
                    let t0 = Instant::now();
                    while o2.load(std::sync::atomic::Ordering::Relaxed) < streams / 2
                        && t0.elapsed() < Duration::from_secs(60)
                    {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                    println!("HALF streams={}", o2.load(std::sync::atomic::Ordering::Relaxed));
                    tokio::time::sleep(Duration::from_secs(pause)).await;
                }
            }
            for t in tasks {
                let _ = t.await;
            }
        })
    });
    let t0 = Instant::now();
    while opened.load(std::sync::atomic::Ordering::Relaxed) < a.streams
        && t0.elapsed() < Duration::from_secs(120 + a.pause)
    {
        std::thread::sleep(Duration::from_millis(100));
    }
    let open_now = opened.load(std::sync::atomic::Ordering::Relaxed);
    println!("READY streams={open_now}");
    std::thread::sleep(Duration::from_secs(a.hold));

    // Probes: one move at a time in a game, round robin; answer time noted.
    let mut answered: Vec<(usize, i64, Instant)> = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(120);
    for k in 0..a.probes {
        if Instant::now() > deadline {
            break;
        }
        let g = k % games.len();
        let (id, players) = &games[g];
        let (_, summary) = http.send(reqwest::Method::GET, &format!("/v1/games/{id}"), None, None);
        let Some(uid) = summary["to_move_user_id"].as_str() else {
            continue;
        };
        let Some(who) = players.iter().find(|p| p.0 == uid) else {
            continue;
        };
        let v = summary["version"].as_i64().unwrap_or(0);
        let (_, legal) = http.send(
            reqwest::Method::GET,
            &format!("/v1/games/{id}/legal-moves"),
            None,
            None,
        );
        let mv = legal["moves"][0]["text"].clone();
        let (s, _) = http.send(
            reqwest::Method::POST,
            &format!("/v1/games/{id}/moves"),
            Some(&who.1),
            Some(json!({"move": mv, "expected_version": v})),
        );
        if s == 201 {
            answered.push((g, v + 1, Instant::now()));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_secs(3));
    let per_game = a.streams.div_ceil(2) / games.len().max(1);
    let mut lat = Vec::new();
    let mut missing = 0usize;
    {
        let seen = seen.lock().unwrap();
        for (g, v, at) in &answered {
            let arrivals = seen.get(&(*g, *v)).cloned().unwrap_or_default();
            let expected = (0..a.streams)
                .filter(|i| i % 2 == 0 && (i / 2) % games.len() == *g)
                .count();
            missing += expected.saturating_sub(arrivals.len());
            for t in arrivals {
                lat.push(t.saturating_duration_since(*at).as_secs_f64() * 1000.0);
            }
        }
    }
    lat.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!(
        "RESULT streams={open_now} probes={} streams_per_game={per_game} deliveries={} missing={missing} p50_ms={:.1} p99_ms={:.1} max_ms={:.1}",
        answered.len(),
        lat.len(),
        percentile(&lat, 0.5),
        percentile(&lat, 0.99),
        lat.last().copied().unwrap_or(f64::NAN)
    );
    drop(holder);
    std::process::exit(0);
}
