//! The live streams (`api/src/live`): game and notification streams fed by the instance's
//! fan-out (PostgreSQL LISTEN/NOTIFY, SQLite in-process signals), never by polling. In
//! order, with no gap and no duplicate, resuming from `Last-Event-ID`/`?after=`, each
//! user's notification stream with that user's items only; the listening connection
//! survives `pg_terminate_backend`; idle streams cost no database commits; open streams
//! are bounded (429/503 with `Retry-After`).

#[path = "support/games.rs"]
mod games;

use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use diesel::prelude::*;
use djambi_e2e::{Backend, FreshDatabase, Login, TestServer, Value, backend_tests};
use games::*;
use reqwest::Method;

type Event = (String, String, Value);

/// Opens a Server-Sent Events stream and reads it on a thread: (id, event, data) per
/// event. `Err` is the refusal (status, `Retry-After`, body).
fn open(
    srv: &TestServer,
    path: &str,
    token: Option<&str>,
    last: Option<&str>,
) -> Result<mpsc::Receiver<Event>, (u16, Option<String>, Value)> {
    let mut rb = srv.request(Method::GET, path);
    if let Some(t) = token {
        rb = rb.bearer_auth(t);
    }
    if let Some(l) = last {
        rb = rb.header("Last-Event-ID", l);
    }
    let res = rb.send().expect("stream");
    let status = res.status().as_u16();
    if status != 200 {
        let retry = res
            .headers()
            .get("retry-after")
            .map(|v| v.to_str().unwrap().to_string());
        let body = res.json().unwrap_or(Value::Null);
        return Err((status, retry, body));
    }
    assert!(
        res.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let (mut id, mut event, mut data) = (String::new(), String::new(), String::new());
        for line in BufReader::new(res).lines() {
            let Ok(line) = line else { return };
            if let Some(v) = line.strip_prefix("id: ") {
                id = v.into();
            } else if let Some(v) = line.strip_prefix("event: ") {
                event = v.into();
            } else if let Some(v) = line.strip_prefix("data: ") {
                data = v.into();
            } else if line.is_empty() && !id.is_empty() {
                let value = serde_json::from_str(&data).unwrap_or(Value::Null);
                if tx
                    .send((std::mem::take(&mut id), std::mem::take(&mut event), value))
                    .is_err()
                {
                    return;
                }
            }
        }
    });
    Ok(rx)
}

fn game_stream(srv: &TestServer, id: &str, after: Option<i64>) -> mpsc::Receiver<Event> {
    let path = match after {
        Some(a) => format!("/v1/games/{id}/stream?after={a}"),
        None => format!("/v1/games/{id}/stream"),
    };
    open(srv, &path, None, None).expect("a game stream")
}

fn feed_stream(srv: &TestServer, who: &Login, last: Option<&str>) -> mpsc::Receiver<Event> {
    open(srv, "/v1/me/notifications/stream", Some(&who.access), last).expect("a feed stream")
}

/// The versions a game stream carries until it reaches `upto` (or 20 s pass).
fn versions_until(rx: &mpsc::Receiver<Event>, upto: i64) -> Vec<i64> {
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut seen = Vec::new();
    while seen.last().is_none_or(|v| *v < upto) {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok((id, kind, data)) => {
                let v: i64 = id.parse().expect("a version");
                assert_eq!(data["seq"], v, "the data is the event of that version");
                assert_eq!(data["kind"], kind.as_str());
                seen.push(v);
            }
            Err(_) => panic!(
                "the stream stopped at {:?}, waiting for {upto}",
                seen.last()
            ),
        }
    }
    seen
}

/// Nothing more arrives within `wait`.
fn quiet(rx: &mpsc::Receiver<Event>, wait: Duration) {
    if let Ok(e) = rx.recv_timeout(wait) {
        panic!("unexpected extra event {e:?}");
    }
}

/// Plays `n` moves of the game, each by the player to move.
fn play_moves(srv: &TestServer, id: &str, players: &[Login], n: usize) {
    for _ in 0..n {
        let who = player_to_move(srv, id, players).expect("someone to move");
        let v = version(srv, id);
        let mv = srv
            .get(&format!("/v1/games/{id}/legal-moves"), None)
            .expect(200)["moves"][0]["text"]
            .clone();
        play(srv, who, id, mv, v).expect(201);
    }
}

fn range(from: i64, to: i64) -> Vec<i64> {
    (from..=to).collect()
}

/// Several streams of one game, opened before, during and after a run of moves (from
/// the start, from now, from a version in the middle), each get exactly the versions
/// after their start, in order, once.
fn game_streams_are_in_order_without_gap_or_duplicate(backend: Backend) {
    let srv = TestServer::start(backend);
    let (id, p) = four_player_game(&srv, "fan");
    let start = version(&srv, &id);
    let from_now = game_stream(&srv, &id, None);
    let from_zero = game_stream(&srv, &id, Some(0));
    let twin = game_stream(&srv, &id, None);
    std::thread::sleep(Duration::from_millis(200));
    let (tx, rx) = mpsc::channel();
    std::thread::scope(|s| {
        s.spawn(|| {
            for _ in 0..12 {
                play_moves(&srv, &id, &p, 1);
                std::thread::sleep(Duration::from_millis(40));
            }
            tx.send(()).unwrap();
        });
        // Joins while the moves are played.
        std::thread::sleep(Duration::from_millis(200));
        let mid = version(&srv, &id);
        let joined = game_stream(&srv, &id, Some(mid));
        rx.recv().unwrap();
        let end = version(&srv, &id);
        assert_eq!(end, start + 12);
        assert_eq!(versions_until(&from_now, end), range(start + 1, end));
        assert_eq!(versions_until(&twin, end), range(start + 1, end));
        assert_eq!(versions_until(&from_zero, end), range(1, end));
        assert!(
            start < mid && mid < end,
            "joined in the middle: {start} < {mid} < {end}"
        );
        assert_eq!(versions_until(&joined, end), range(mid + 1, end));
        for rx in [&from_now, &from_zero, &twin, &joined] {
            quiet(rx, Duration::from_millis(300));
        }
    });
    // A stream resuming from the middle (a reconnect) gets the rest, then new ones.
    let end = version(&srv, &id);
    let resumed = open(
        &srv,
        &format!("/v1/games/{id}/stream"),
        None,
        Some(&(end - 3).to_string()),
    )
    .unwrap();
    assert_eq!(versions_until(&resumed, end), range(end - 2, end));
    play_moves(&srv, &id, &p, 2);
    assert_eq!(versions_until(&resumed, end + 2), range(end + 1, end + 2));
    quiet(&resumed, Duration::from_millis(300));
}

/// Ids of a user's feed (every page), newest first.
fn feed_ids(srv: &TestServer, who: &Login) -> Vec<String> {
    let mut out = Vec::new();
    let mut path = "/v1/me/notifications?limit=100".to_string();
    loop {
        let page = srv.get(&path, Some(&who.access)).expect(200).clone();
        for item in page["items"].as_array().unwrap() {
            out.push(item["id"].as_str().unwrap().to_string());
        }
        match page["next"].as_str() {
            Some(next) => path = next.to_string(),
            None => return out,
        }
    }
}

/// The events a stream carries within `wait` of the last one.
fn drain(rx: &mpsc::Receiver<Event>, wait: Duration) -> Vec<Event> {
    let mut out = Vec::new();
    while let Ok(e) = rx.recv_timeout(wait) {
        out.push(e);
    }
    out
}

/// Each player's notification stream carries exactly that player's new items, once, in
/// the feed's order; a stream resumed with `Last-Event-ID` carries what was missed.
fn notification_streams_are_private_and_resume(backend: Backend) {
    let srv = TestServer::start(backend);
    let (id, p) = four_player_game(&srv, "priv");
    let before: Vec<HashSet<String>> = p
        .iter()
        .map(|who| feed_ids(&srv, who).into_iter().collect())
        .collect();
    let streams: Vec<_> = p.iter().map(|who| feed_stream(&srv, who, None)).collect();
    std::thread::sleep(Duration::from_millis(200));
    play_moves(&srv, &id, &p, 8);
    for (i, who) in p.iter().enumerate() {
        let got = drain(&streams[i], Duration::from_millis(1500));
        let ids: Vec<String> = got.iter().map(|e| e.0.clone()).collect();
        let mut expected: Vec<String> = feed_ids(&srv, who)
            .into_iter()
            .filter(|x| !before[i].contains(x))
            .collect();
        expected.reverse(); // the feed is newest first, the stream oldest first
        assert!(!expected.is_empty(), "player {i} was told something");
        let unique: HashSet<&String> = ids.iter().collect();
        assert_eq!(unique.len(), ids.len(), "player {i}: no duplicate");
        // Items of one write share their time, so compare as sets plus the per-time order.
        assert_eq!(
            unique,
            expected.iter().collect::<HashSet<_>>(),
            "player {i} gets exactly its own new items"
        );
        for (eid, _, data) in &got {
            assert_eq!(data["id"], eid.as_str());
            assert_eq!(data["game_id"], id.as_str());
        }
    }
    // Blue goes away after its last item; what Blue misses arrives on resuming, once.
    let blue_seen = feed_ids(&srv, &p[1]);
    let last = blue_seen[0].clone();
    drop(streams);
    play_moves(&srv, &id, &p, 8);
    let missed: HashSet<String> = feed_ids(&srv, &p[1])
        .into_iter()
        .filter(|x| !blue_seen.contains(x))
        .collect();
    assert!(!missed.is_empty(), "Blue was told something while away");
    let resumed = feed_stream(&srv, &p[1], Some(&last));
    let got: Vec<String> = drain(&resumed, Duration::from_millis(1500))
        .into_iter()
        .map(|e| e.0)
        .collect();
    assert_eq!(got.len(), missed.len(), "each missed item once: {got:?}");
    assert_eq!(got.into_iter().collect::<HashSet<_>>(), missed);
}

fn connect(url: &str) -> PgConnection {
    PgConnection::establish(url).expect("a PostgreSQL connection")
}

/// Terminates the listening connections of the test's database; how many.
fn terminate_listeners(conn: &mut PgConnection) -> usize {
    #[derive(QueryableByName)]
    struct Ended {
        #[diesel(sql_type = diesel::sql_types::Bool)]
        #[allow(dead_code)]
        ended: bool,
    }
    let ended: Vec<Ended> = diesel::sql_query(
        "SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity \
         WHERE datname = current_database() AND application_name LIKE 'djambi-live %' \
         AND pid <> pg_backend_pid()",
    )
    .load(conn)
    .expect("terminate");
    ended.len()
}

/// The listening connection is killed again and again while moves are played: the
/// instance listens again and re-reads, and every stream still gets every event once.
#[test]
fn the_listener_reconnects_and_nothing_is_lost() {
    let srv = TestServer::start(Backend::Postgres);
    let mut admin = connect(&srv.database_url);
    let (id, p) = four_player_game(&srv, "kill");
    let start = version(&srv, &id);
    let stream = game_stream(&srv, &id, None);
    let feed = feed_stream(&srv, &p[1], None);
    std::thread::sleep(Duration::from_millis(200));
    let mut killed = 0;
    for _ in 0..6 {
        killed += terminate_listeners(&mut admin);
        play_moves(&srv, &id, &p, 2);
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(
        killed >= 3,
        "the listening connection was terminated ({killed} times)"
    );
    let end = version(&srv, &id);
    assert_eq!(versions_until(&stream, end), range(start + 1, end));
    quiet(&stream, Duration::from_millis(300));
    // Blue's turn came three times (every fourth move): each told once.
    let turns: Vec<String> = drain(&feed, Duration::from_millis(1500))
        .into_iter()
        .filter(|e| e.1 == "your_turn")
        .map(|e| e.0)
        .collect();
    assert_eq!(turns.len(), 3, "{turns:?}");
    // And it listens again for what comes next.
    play_moves(&srv, &id, &p, 1);
    assert_eq!(versions_until(&stream, end + 1), vec![end + 1]);
}

/// The payloads a listening test connection got so far (one round trip reads them in).
fn heard(listener: &mut PgConnection) -> Vec<String> {
    diesel::sql_query("SELECT 1").execute(listener).unwrap();
    listener
        .notifications_iter()
        .map(|n| n.unwrap().payload)
        .collect()
}

/// Transactions committed in the test's database (its statistics, flushed first).
fn commits(conn: &mut PgConnection) -> i64 {
    #[derive(QueryableByName)]
    struct N {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    diesel::sql_query("SELECT pg_stat_clear_snapshot()")
        .execute(conn)
        .unwrap();
    diesel::sql_query(
        "SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()",
    )
    .get_result::<N>(conn)
    .unwrap()
    .n
}

/// 200 open streams on an idle instance add (next to) no database commits: they wait
/// for signals, they do not poll (they used to: 200 reads per `DJAMBI_NOTIFY_POLL`).
#[test]
fn idle_streams_cost_no_queries() {
    let srv = TestServer::start_with(
        Backend::Postgres,
        &[
            ("DJAMBI_NOTIFY_POLL", "20ms"),
            ("DJAMBI_STREAMS_PER_ACCOUNT", "1000"),
        ],
    );
    let mut admin = connect(&srv.database_url);
    let (id, p) = four_player_game(&srv, "idle");
    let mut open_streams = Vec::new();
    for i in 0..200 {
        open_streams.push(if i % 2 == 0 {
            game_stream(&srv, &id, None)
        } else {
            feed_stream(&srv, &p[i % 4], None)
        });
    }
    // The counter lags: a backend adds its commits to `pg_stat_database` at most once a
    // second while busy and 10 s (`PGSTAT_IDLE_INTERVAL`) after it went idle, so the
    // reads that opened the 200 streams would otherwise still arrive inside the window.
    std::thread::sleep(Duration::from_secs(11));
    let window = Duration::from_secs(4);
    let c0 = commits(&mut admin);
    std::thread::sleep(window);
    let c1 = commits(&mut admin);
    // The workers' own passes and the statistics queries themselves remain.
    let per_sec = (c1 - c0) as f64 / window.as_secs_f64();
    assert!(
        per_sec < 15.0,
        "{per_sec:.1} commits/s with 200 idle streams"
    );
    // They are live all the same.
    let v = version(&srv, &id);
    play_moves(&srv, &id, &p, 1);
    for rx in open_streams.iter().step_by(2) {
        assert_eq!(versions_until(rx, v + 1), vec![v + 1]);
    }
}

/// A stream opened over a bare TCP connection (closed when dropped): its status.
fn raw_open(srv: &TestServer, path: &str, token: &str) -> (u16, std::net::TcpStream) {
    use std::io::{Read, Write};
    let base = srv.url("");
    let addr = base.trim_start_matches("http://").trim_end_matches('/');
    let mut tcp = std::net::TcpStream::connect(addr).expect("connect");
    write!(
        tcp,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\n\r\n"
    )
    .unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut head = [0u8; 12];
    tcp.read_exact(&mut head).expect("a status line");
    let status = std::str::from_utf8(&head[9..12]).unwrap().parse().unwrap();
    (status, tcp)
}

/// Open streams are bounded per account (429), per client address without an account
/// (429) and per instance (503), each answered with a problem and `Retry-After`; a
/// closed stream gives its place back.
fn streams_are_bounded(backend: Backend) {
    let srv = TestServer::start_with(
        backend,
        &[
            ("DJAMBI_STREAMS_PER_ACCOUNT", "2"),
            ("DJAMBI_STREAMS_PER_INSTANCE", "5"),
        ],
    );
    let (id, p) = four_player_game(&srv, "cap");
    let (status, a1) = raw_open(&srv, "/v1/me/notifications/stream", &p[0].access);
    assert_eq!(status, 200);
    let _a2 = feed_stream(&srv, &p[0], None);
    let path = "/v1/me/notifications/stream";
    let (status, retry, body) = open(&srv, path, Some(&p[0].access), None).unwrap_err();
    assert_eq!(status, 429);
    assert_eq!(retry.as_deref(), Some("5"));
    assert_eq!(body["status"], 429);
    assert!(
        body["type"].as_str().unwrap().ends_with("rate-limited"),
        "{body}"
    );
    // An account's game streams count too.
    let game = format!("/v1/games/{id}/stream");
    assert_eq!(
        open(&srv, &game, Some(&p[0].access), None).unwrap_err().0,
        429
    );
    // Without an account: per client address.
    let _g1 = game_stream(&srv, &id, None);
    let _g2 = game_stream(&srv, &id, None);
    assert_eq!(open(&srv, &game, None, None).unwrap_err().0, 429);
    // The instance is full (2 + 2 + 1): another account is told to go elsewhere.
    let _b1 = feed_stream(&srv, &p[1], None);
    let (status, retry, body) = open(&srv, path, Some(&p[2].access), None).unwrap_err();
    assert_eq!(status, 503);
    assert_eq!(retry.as_deref(), Some("5"));
    assert_eq!(body["status"], 503);
    // A closed stream gives its place back (once the server sees it closed).
    drop(a1);
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        match open(&srv, path, Some(&p[2].access), None) {
            Ok(_) => break,
            Err((503, ..)) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(200))
            }
            Err(e) => panic!("the place was not given back: {e:?}"),
        }
    }
}

backend_tests!(
    game_streams_are_in_order_without_gap_or_duplicate,
    notification_streams_are_private_and_resume,
    streams_are_bounded
);

/// A stream on one instance gets a move written through another within a second.
#[test]
fn a_move_through_one_instance_reaches_streams_on_another() {
    let db = FreshDatabase::new(Backend::Postgres);
    let a = TestServer::start_on(&db);
    let b = TestServer::start_on(&db);
    let (id, p) = four_player_game(&a, "two");
    let start = version(&a, &id);
    let on_b = game_stream(&b, &id, None);
    std::thread::sleep(Duration::from_millis(200));
    for k in 1..=4 {
        let t = Instant::now();
        play_moves(&a, &id, &p, 1);
        assert_eq!(versions_until(&on_b, start + k), vec![start + k]);
        assert!(t.elapsed() < Duration::from_secs(1), "{:?}", t.elapsed());
    }
    drop((a, b));
}

/// The writes of one instance reach the other instances in coalesced `NOTIFY`s sent after
/// their commits, never one per write transaction: 24 moves through one instance make a
/// few notifications that name the game (gathered for `DJAMBI_SIGNAL_EVERY`), and a
/// stream on the other instance gets every move once, in order. (Each move's own
/// transaction used to notify: 24 moves, at least 24 notifications.)
#[test]
fn moves_signal_other_instances_in_few_notifies_after_their_commits() {
    let db = FreshDatabase::new(Backend::Postgres);
    let a = TestServer::start_on_with(&db, &[("DJAMBI_SIGNAL_EVERY", "300ms")], None);
    let b = TestServer::start_on(&db);
    let (id, p) = four_player_game(&a, "coal");
    let start = version(&a, &id);
    let on_b = game_stream(&b, &id, None);
    let on_a = game_stream(&a, &id, None);
    let mut listener = connect(&db.url);
    diesel::sql_query("LISTEN djambi_live")
        .execute(&mut listener)
        .unwrap();
    std::thread::sleep(Duration::from_millis(400));
    // What arrived so far (the seats' signals) is not counted.
    for n in listener.notifications_iter() {
        n.unwrap();
    }
    let t = Instant::now();
    play_moves(&a, &id, &p, 24);
    let took = t.elapsed();
    let end = start + 24;
    // The instance that wrote tells its own streams at once, in process.
    assert_eq!(versions_until(&on_a, end), range(start + 1, end));
    assert_eq!(versions_until(&on_b, end), range(start + 1, end));
    quiet(&on_b, Duration::from_millis(300));
    std::thread::sleep(Duration::from_millis(500));
    let payloads = heard(&mut listener);
    let mut bound = took.as_millis() / 300 + 2;
    bound = bound.min(23);
    assert!(
        !payloads.is_empty() && payloads.len() as u128 <= bound,
        "{} notifications for 24 moves in {took:?}: {payloads:?}",
        payloads.len()
    );
    let game = format!("g:{id}");
    assert!(
        payloads
            .iter()
            .all(|p| p.starts_with('@') && p.split_whitespace().any(|t| t == game)),
        "{payloads:?}"
    );
}

/// An instance alone on its database sends no `NOTIFY` (nobody would hear it): moves
/// through it leave the channel silent. A second instance greets it when it starts
/// listening, and from then on the first one's moves reach the second's streams by
/// signal at once (its periodic re-read is set far off, so only a signal can bring them).
#[test]
fn an_instance_alone_signals_nobody_until_another_listens() {
    let db = FreshDatabase::new(Backend::Postgres);
    let a = TestServer::start_on(&db);
    let (id, p) = four_player_game(&a, "alone");
    let start = version(&a, &id);
    let mut listener = connect(&db.url);
    diesel::sql_query("LISTEN djambi_live")
        .execute(&mut listener)
        .unwrap();
    play_moves(&a, &id, &p, 8);
    std::thread::sleep(Duration::from_millis(500));
    let silent = heard(&mut listener);
    assert!(silent.is_empty(), "alone, yet it notified: {silent:?}");

    let b = TestServer::start_on_with(&db, &[("DJAMBI_LIVE_RECHECK", "10m")], None);
    let on_b = game_stream(&b, &id, None);
    std::thread::sleep(Duration::from_millis(300));
    for k in 1..=4 {
        let t = Instant::now();
        play_moves(&a, &id, &p, 1);
        assert_eq!(versions_until(&on_b, start + 8 + k), vec![start + 8 + k]);
        assert!(t.elapsed() < Duration::from_secs(1), "{:?}", t.elapsed());
    }
    let game = format!("g:{id}");
    let payloads = heard(&mut listener);
    assert!(
        payloads
            .iter()
            .any(|p| p.split_whitespace().any(|t| t == game)),
        "{payloads:?}"
    );
    drop((a, b));
}
