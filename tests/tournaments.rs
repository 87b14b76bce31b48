//! Tournaments end to end on PostgreSQL and SQLite: a round-robin of 8 and a Swiss event
//! of 24 played to the end by scripted resignations (seat balance and repeated pairs
//! checked here, the standings recomputed here independently), the same at three seats
//! a table (a round-robin of 6, a Swiss event of 10) and the check of the seats per
//! table chosen, withdrawals and the
//! organiser's cancel, a round ended by timeouts, a restart after a round's pairing was
//! written but before its games existed, and instances pairing the same round at once.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use djambi_e2e::{
    Backend, Clock, FreshDatabase, Login, ManualClock, Resp, Rng, TestServer, Value, backend_tests,
    json,
};
use reqwest::Method;

backend_tests!(
    a_round_robin_of_eight_played_to_the_end,
    a_swiss_of_twenty_four_played_to_the_end,
    withdrawals_and_cancels,
    a_round_ended_by_timeouts,
    a_restart_after_pairing_and_racing_pairers,
    a_round_robin_withdrawal_leaves_an_empty_seat,
    a_three_seat_round_robin_of_six_played_to_the_end,
    a_three_seat_swiss_of_ten_played_to_the_end,
    seats_per_table_is_checked,
);

const FAST: &[(&str, &str)] = &[("DJAMBI_DUE_INTERVAL", "30ms")];

fn put(srv: &TestServer, path: &str, who: &Login) -> Resp {
    srv.send(srv.request(Method::PUT, path).bearer_auth(&who.access))
}

fn users(srv: &TestServer, prefix: &str, n: usize) -> Vec<Login> {
    (0..n)
        .map(|i| srv.user(&format!("{prefix}{i:02}")))
        .collect()
}

fn event(srv: &TestServer, id: &str) -> Value {
    srv.get(&format!("/v1/tournaments/{id}"), None)
        .expect(200)
        .clone()
}

fn create(srv: &TestServer, organiser: &Login, body: Value) -> String {
    let r = srv.post("/v1/tournaments", Some(&organiser.access), &body);
    let b = r.expect(201);
    let id = b["id"].as_str().unwrap().to_string();
    assert_eq!(
        r.header("location"),
        Some(format!("/v1/tournaments/{id}").as_str())
    );
    assert_eq!(b["status"], "open");
    id
}

/// Polls the event until `done` holds (at most 60 s).
#[track_caller]
fn wait_for(srv: &TestServer, id: &str, what: &str, done: impl Fn(&Value) -> bool) -> Value {
    let start = Instant::now();
    loop {
        let e = event(srv, id);
        if done(&e) {
            return e;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "waited too long for {what}: {e:#}"
        );
        std::thread::sleep(Duration::from_millis(40));
    }
}

fn rounds(e: &Value) -> &Vec<Value> {
    e["rounds_played"].as_array().unwrap()
}

/// Every table of round `n` has its game, seated and running.
fn round_started(e: &Value, n: usize) -> bool {
    rounds(e).len() >= n
        && rounds(e)[n - 1]["tables"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["status"] == "active")
}

/// What the test itself recorded of the games: each table's players by seat and their
/// half-points.
/// A finished table: its round, the usernames by seat index, half-points by username.
type PlayedTable = (usize, Vec<Option<String>>, HashMap<String, u32>);
type Seats = HashMap<String, [u32; 4]>;
type Meetings = HashMap<(String, String), u32>;

#[derive(Default, Clone)]
struct Record {
    /// Seats per table of the event (3 or 4).
    seats: u32,
    tables: Vec<PlayedTable>,
    byes: HashMap<String, u32>,
}

impl Record {
    /// Half-points of a win: `k - 1` points at `k`-seat tables (3 at four, 2 at three).
    fn win(&self) -> u32 {
        2 * (self.seats - 1)
    }

    /// Half-points of a bye: the mean of a table, `(k - 1) / 2` points.
    fn bye(&self) -> u32 {
        self.seats - 1
    }
}

/// Ends every game of round `n` by resignations in a random order: the first to resign
/// places last, the one left wins.
fn play_round(
    srv: &TestServer,
    e: &Value,
    n: usize,
    by_name: &HashMap<String, &Login>,
    rng: &mut Rng,
    record: &mut Record,
) {
    let round = &rounds(e)[n - 1];
    assert_eq!(round["number"], n);
    for b in round["byes"].as_array().unwrap() {
        *record
            .byes
            .entry(b.as_str().unwrap().to_string())
            .or_default() += 1;
    }
    for t in round["tables"].as_array().unwrap() {
        let game = t["game_id"].as_str().unwrap();
        assert_eq!(t["game_url"], format!("/v1/games/{game}"));
        let seats: Vec<Option<String>> = t["seats"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["username"].as_str().map(str::to_string))
            .collect();
        // The game itself seats the same players.
        let g = srv
            .get(&format!("/v1/games/{game}"), None)
            .expect(200)
            .clone();
        assert_eq!(g["status"], "active", "{g:#}");
        // As many seats as the event's tables; the game plays those seated (R, B, Y at
        // three seats, Green's party hostage).
        assert_eq!(seats.len() as u32, record.seats, "{t:#}");
        let in_play: Vec<String> = t["seats"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| !s["username"].is_null())
            .map(|s| s["seat"].as_str().unwrap().to_string())
            .collect();
        let game_seats: Vec<String> = g["seats_in_play"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_string())
            .collect();
        assert_eq!(game_seats, in_play, "{g:#}");
        if record.seats == 3 {
            assert_eq!(in_play, ["R", "B", "Y"]);
            assert_eq!(g["hostage_seat"], "G", "{g:#}");
        }
        let mut order: Vec<String> = seats.iter().flatten().cloned().collect();
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i + 1));
        }
        let k = order.len() as u32;
        let mut halves = HashMap::new();
        for (i, name) in order.iter().enumerate() {
            // Resigned i-th of k at a table of `seats`: the last one left scores
            // `seats - 1` points, each one resigned before it a point less (a four-seat
            // table played by three: 3, 2, 1).
            let i = i as u32;
            halves.insert(name.clone(), record.win() - 2 * (k - 1 - i));
            if i + 1 < k {
                let who = by_name[name.as_str()];
                srv.post(
                    &format!("/v1/games/{game}/resignation"),
                    Some(&who.access),
                    &json!({}),
                )
                .expect(201);
            }
        }
        let g = srv
            .get(&format!("/v1/games/{game}"), None)
            .expect(200)
            .clone();
        assert_eq!(g["status"], "finished");
        record.tables.push((n, seats, halves));
    }
}

/// The standings as this test computes them: points, Buchholz, outright wins, entry.
fn expected_standings(record: &Record, entry: &[String]) -> Vec<(String, u32, u32)> {
    let mut points: HashMap<&str, u32> = entry.iter().map(|p| (p.as_str(), 0)).collect();
    let mut wins: HashMap<&str, u32> = HashMap::new();
    for (p, n) in &record.byes {
        *points.get_mut(p.as_str()).unwrap() += record.bye() * n;
    }
    for (_, _, h) in &record.tables {
        for (p, v) in h {
            *points.get_mut(p.as_str()).unwrap() += v;
            if *v == record.win() {
                *wins.entry(p.as_str()).or_default() += 1;
            }
        }
    }
    let mut buchholz: HashMap<&str, u32> = HashMap::new();
    for (_, _, h) in &record.tables {
        for p in h.keys() {
            let b: u32 = h
                .keys()
                .filter(|q| *q != p)
                .map(|q| points[q.as_str()])
                .sum();
            *buchholz.entry(p.as_str()).or_default() += b;
        }
    }
    let mut rows: Vec<(usize, &String)> = entry.iter().enumerate().collect();
    rows.sort_by_key(|(i, p)| {
        let p = p.as_str();
        (
            std::cmp::Reverse(points[p]),
            std::cmp::Reverse(buchholz.get(p).copied().unwrap_or(0)),
            std::cmp::Reverse(wins.get(p).copied().unwrap_or(0)),
            *i,
        )
    });
    rows.into_iter()
        .map(|(_, p)| {
            (
                p.clone(),
                points[p.as_str()],
                buchholz.get(p.as_str()).copied().unwrap_or(0),
            )
        })
        .collect()
}

fn halves_text(h: u32) -> String {
    if h.is_multiple_of(2) {
        (h / 2).to_string()
    } else {
        format!("{}.5", h / 2)
    }
}

fn check_standings(e: &Value, record: &Record, entry: &[String]) {
    let expected = expected_standings(record, entry);
    let got: Vec<(String, String, String)> = e["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["username"].as_str().unwrap().to_string(),
                s["points"].as_str().unwrap().to_string(),
                s["buchholz"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let want: Vec<(String, String, String)> = expected
        .into_iter()
        .map(|(p, h, b)| (p, halves_text(h), halves_text(b)))
        .collect();
    assert_eq!(got, want, "standings");
    for (k, s) in e["standings"].as_array().unwrap().iter().enumerate() {
        assert_eq!(s["place"], k + 1);
    }
}

/// Seats per player and meetings per pair, from what the test recorded.
fn balance(record: &Record) -> (Seats, Meetings) {
    let mut seats = Seats::new();
    let mut met = Meetings::new();
    for (_, s, _) in &record.tables {
        for (i, p) in s.iter().enumerate() {
            let Some(p) = p else { continue };
            seats.entry(p.clone()).or_default()[i] += 1;
            for q in s[i + 1..].iter().flatten() {
                let key = if p < q {
                    (p.clone(), q.clone())
                } else {
                    (q.clone(), p.clone())
                };
                *met.entry(key).or_default() += 1;
            }
        }
    }
    (seats, met)
}

/// Plays an event to its end; returns the final view and the record.
fn play_to_the_end(srv: &TestServer, id: &str, players: &[Login], seed: u64) -> (Value, Record) {
    let by_name: HashMap<String, &Login> =
        players.iter().map(|p| (p.username.clone(), p)).collect();
    let entry: Vec<String> = players.iter().map(|p| p.username.clone()).collect();
    let mut rng = Rng::new(seed);
    let mut e = wait_for(srv, id, "round 1", |e| round_started(e, 1));
    let mut record = Record {
        seats: e["seats_per_table"].as_u64().unwrap() as u32,
        ..Record::default()
    };
    assert_eq!(e["status"], "running");
    let planned = e["planned_rounds"].as_u64().unwrap() as usize;
    for n in 1..=planned {
        play_round(srv, &e, n, &by_name, &mut rng, &mut record);
        e = wait_for(srv, id, "the next round or the end", |e| {
            e["status"] == "finished" || round_started(e, n + 1)
        });
        if n < planned {
            assert_eq!(e["status"], "running");
            // Live standings: after the round's games, before the next ends.
            let mut so_far = record.clone();
            // Byes of the new round already count.
            for b in rounds(&e)[n]["byes"].as_array().unwrap() {
                *so_far
                    .byes
                    .entry(b.as_str().unwrap().to_string())
                    .or_default() += 1;
            }
            check_standings(&e, &so_far, &entry);
        }
    }
    assert_eq!(e["status"], "finished");
    assert!(e["finished_at"].is_string());
    assert_eq!(rounds(&e).len(), planned);
    check_standings(&e, &record, &entry);
    (e, record)
}

fn a_round_robin_of_eight_played_to_the_end(backend: Backend) {
    let srv = TestServer::start_with(backend, FAST);
    let players = users(&srv, "rr", 8);
    let id = create(
        &srv,
        &players[0],
        json!({"name": "Section A", "format": "round_robin", "capacity": 8,
               "time_control": {"per_move_secs": 259200}, "round_days": 28}),
    );
    // Listed while open.
    let list = srv
        .get("/v1/tournaments?status=open", None)
        .expect(200)
        .clone();
    assert!(
        list["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["id"] == id.as_str())
    );
    for (k, p) in players.iter().enumerate() {
        let b = put(&srv, &format!("/v1/tournaments/{id}/players/me"), p)
            .expect(200)
            .clone();
        if k < 7 {
            assert_eq!(b["status"], "open");
            assert_eq!(b["players"].as_array().unwrap().len(), k + 1);
        } else {
            // The last place filled starts the event at once.
            assert_eq!(b["status"], "running");
        }
    }
    let (e, record) = play_to_the_end(&srv, &id, &players, 0x7075_726e_0008);
    assert_eq!(
        e["seats_per_table"], 4,
        "four seats when the organiser does not say"
    );
    assert_eq!(e["planned_rounds"], 4);
    assert_eq!(record.tables.len(), 8, "4 rounds of 2 tables");
    let (seats, met) = balance(&record);
    // Every player sat in every seat exactly once.
    for p in &players {
        assert_eq!(seats[&p.username], [1, 1, 1, 1], "{}", p.username);
    }
    // Every pair met, 1 to 3 times (docs/tournaments.md).
    assert_eq!(met.len(), 28, "every pair of 8 met");
    assert!(met.values().all(|&m| (1..=3).contains(&m)), "{met:?}");
    // A finished event is no longer joinable, and lists as finished.
    let late = srv.user("rrlate");
    put(&srv, &format!("/v1/tournaments/{id}/players/me"), &late).problem(409, "conflict");
    let list = srv
        .get("/v1/tournaments?status=finished", None)
        .expect(200)
        .clone();
    assert!(
        list["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["id"] == id.as_str())
    );
    // The players heard of it: started, each round, the end with their place.
    let feed = srv
        .get("/v1/me/notifications?limit=100", Some(&players[3].access))
        .expect(200)
        .clone();
    let kinds: Vec<&str> = feed["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| n["kind"].as_str())
        .collect();
    assert!(kinds.contains(&"tournament_started"), "{kinds:?}");
    assert_eq!(
        kinds.iter().filter(|k| **k == "tournament_round").count(),
        4
    );
    assert!(kinds.contains(&"tournament_finished"), "{kinds:?}");
}

fn a_swiss_of_twenty_four_played_to_the_end(backend: Backend) {
    let srv = TestServer::start_with(backend, FAST);
    let players = users(&srv, "sw", 24);
    let id = create(
        &srv,
        &players[5],
        json!({"name": "Open Swiss", "format": "swiss", "rounds": 4, "capacity": 24,
               "time_control": {"per_move_secs": 259200}}),
    );
    for p in &players {
        put(&srv, &format!("/v1/tournaments/{id}/players/me"), p).expect(200);
    }
    let (e, record) = play_to_the_end(&srv, &id, &players, 0x7377_6973_0024);
    assert_eq!(e["planned_rounds"], 4);
    assert_eq!(record.tables.len(), 24, "4 rounds of 6 tables");
    let (seats, met) = balance(&record);
    // No pair of players at the same table twice.
    assert!(met.values().all(|&m| m == 1), "a pair met twice: {met:?}");
    // Seats balanced: four games each, no seat twice more than another.
    for p in &players {
        let s = seats[&p.username];
        assert_eq!(s.iter().sum::<u32>(), 4);
        assert!(
            s.iter().max().unwrap() - s.iter().min().unwrap() <= 2,
            "{s:?}"
        );
    }
}

/// Seats per player at `k`-seat tables, as counted by the test.
fn seat_counts(seats: &Seats, p: &Login, k: usize) -> Vec<u32> {
    seats[&p.username][..k].to_vec()
}

fn a_three_seat_round_robin_of_six_played_to_the_end(backend: Backend) {
    let srv = TestServer::start_with(backend, FAST);
    let players = users(&srv, "tr", 6);
    let id = create(
        &srv,
        &players[0],
        json!({"name": "Threes", "format": "round_robin", "capacity": 6,
               "seats_per_table": 3, "time_control": {"per_move_secs": 259200}}),
    );
    assert_eq!(event(&srv, &id)["seats_per_table"], 3);
    for p in &players {
        put(&srv, &format!("/v1/tournaments/{id}/players/me"), p).expect(200);
    }
    let (e, record) = play_to_the_end(&srv, &id, &players, 0x7468_7265_0006);
    assert_eq!(e["seats_per_table"], 3);
    // docs/tournaments.md: 6 players at three seats, 6 rounds of 2 tables, nobody sits
    // out, 6 games each, each seat twice, a pair meets 1 to 4 times.
    assert_eq!(e["planned_rounds"], 6);
    assert_eq!(record.tables.len(), 12, "6 rounds of 2 tables");
    assert!(record.byes.is_empty(), "{:?}", record.byes);
    for r in rounds(&e) {
        assert_eq!(r["tables"].as_array().unwrap().len(), 2);
    }
    let (seats, met) = balance(&record);
    for p in &players {
        assert_eq!(seat_counts(&seats, p, 3), [2, 2, 2], "{}", p.username);
        assert_eq!(seats[&p.username][3], 0, "nobody sits in Green");
    }
    assert_eq!(met.len(), 15, "every pair of 6 met");
    assert!(met.values().all(|&m| (1..=4).contains(&m)), "{met:?}");
    // Every table hands out 2 + 1 + 0 points: 12 tables, 36 points in all.
    let total: f64 = e["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["points"].as_str().unwrap().parse::<f64>().unwrap())
        .sum();
    assert_eq!(total, 36.0);
}

fn a_three_seat_swiss_of_ten_played_to_the_end(backend: Backend) {
    let srv = TestServer::start_with(backend, FAST);
    let players = users(&srv, "ts", 10);
    let id = create(
        &srv,
        &players[2],
        json!({"name": "Swiss threes", "format": "swiss", "rounds": 3, "capacity": 10,
               "seats_per_table": 3, "time_control": {"per_move_secs": 259200}}),
    );
    for p in &players {
        put(&srv, &format!("/v1/tournaments/{id}/players/me"), p).expect(200);
    }
    let (e, record) = play_to_the_end(&srv, &id, &players, 0x7377_3372_0010);
    assert_eq!(e["planned_rounds"], 3);
    assert_eq!(record.tables.len(), 9, "3 rounds of 3 tables");
    // One bye a round (10 mod 3), never twice to the same player; a bye scores 1.
    for r in rounds(&e) {
        assert_eq!(r["byes"].as_array().unwrap().len(), 1, "{r:#}");
    }
    assert_eq!(record.byes.len(), 3, "{:?}", record.byes);
    assert!(record.byes.values().all(|&b| b == 1));
    let (seats, met) = balance(&record);
    // No pair of players at the same table twice.
    assert!(met.values().all(|&m| m == 1), "a pair met twice: {met:?}");
    assert_eq!(met.len(), 27, "9 tables of 3 pairs");
    for p in &players {
        let s = seat_counts(&seats, p, 3);
        let games = if record.byes.contains_key(&p.username) {
            2
        } else {
            3
        };
        assert_eq!(s.iter().sum::<u32>(), games, "{}", p.username);
        assert!(
            s.iter().max().unwrap() - s.iter().min().unwrap() <= 2,
            "{s:?}"
        );
        assert_eq!(seats[&p.username][3], 0, "nobody sits in Green");
    }
}

fn seats_per_table_is_checked(backend: Backend) {
    let srv = TestServer::start_with(backend, FAST);
    let org = srv.user("spt");
    let tc = json!({"per_move_secs": 259200});
    // A bad number of seats is a 400 naming the field, whatever else is right.
    for bad in [
        json!(2),
        json!(5),
        json!(0),
        json!(1000),
        json!(-1),
        json!("3"),
        json!(3.5),
    ] {
        let body = json!({"name": "x", "format": "round_robin", "capacity": 6,
                          "seats_per_table": bad, "time_control": tc});
        let r = srv.post("/v1/tournaments", Some(&org.access), &body);
        let p = r.problem(400, "validation");
        let fields: Vec<&str> = p["errors"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|e| e["field"].as_str())
            .collect();
        assert_eq!(fields, ["seats_per_table"], "{bad}: {p:#}");
    }
    // The capacity follows the seats: a round-robin from one table (3 or 4 players), a
    // Swiss event from two (6 or 8).
    for (body, field) in [
        (
            json!({"name": "x", "format": "round_robin", "capacity": 3, "time_control": tc}),
            "capacity",
        ),
        (
            json!({"name": "x", "format": "round_robin", "capacity": 2, "seats_per_table": 3,
                "time_control": tc}),
            "capacity",
        ),
        (
            json!({"name": "x", "format": "swiss", "capacity": 5, "seats_per_table": 3,
                "time_control": tc}),
            "capacity",
        ),
        (
            json!({"name": "x", "format": "swiss", "capacity": 6, "seats_per_table": 4,
                "time_control": tc}),
            "capacity",
        ),
    ] {
        let p = srv
            .post("/v1/tournaments", Some(&org.access), &body)
            .problem(400, "validation")
            .clone();
        assert_eq!(p["errors"][0]["field"], field, "{body}: {p:#}");
    }
    let e = srv
        .post(
            "/v1/tournaments",
            Some(&org.access),
            &json!({"name": "Three", "format": "round_robin", "capacity": 3,
                    "seats_per_table": 3, "time_control": tc}),
        )
        .expect(201)
        .clone();
    assert_eq!(e["seats_per_table"], 3);
    let e = srv
        .post(
            "/v1/tournaments",
            Some(&org.access),
            &json!({"name": "Six", "format": "swiss", "capacity": 6, "seats_per_table": 3,
                    "time_control": tc}),
        )
        .expect(201)
        .clone();
    assert_eq!(e["seats_per_table"], 3);
    assert_eq!(e["planned_rounds"], 4);
    // Left out, the seats are 4, as before the choice.
    let e = srv
        .post(
            "/v1/tournaments",
            Some(&org.access),
            &json!({"name": "Four", "format": "round_robin", "capacity": 4, "time_control": tc}),
        )
        .expect(201)
        .clone();
    assert_eq!(e["seats_per_table"], 4);
    let id = e["id"].as_str().unwrap();
    assert_eq!(event(&srv, id)["seats_per_table"], 4);
}

fn withdrawals_and_cancels(backend: Backend) {
    let srv = TestServer::start_with(backend, FAST);
    let players = users(&srv, "wd", 9);
    let org = &players[0];
    let tc = json!({"per_move_secs": 259200});
    // Bad input changes nothing.
    for bad in [
        json!({"name": "", "format": "round_robin", "capacity": 8, "time_control": tc}),
        json!({"name": "x", "format": "round_robin", "capacity": 17, "time_control": tc}),
        json!({"name": "x", "format": "swiss", "capacity": 4, "time_control": tc}),
        json!({"name": "x", "format": "swiss", "capacity": 8, "rounds": 1, "time_control": tc}),
        json!({"name": "x", "format": "round_robin", "capacity": 8, "rounds": 3, "time_control": tc}),
        json!({"name": "x", "format": "round_robin", "capacity": 8, "time_control": {"per_move_secs": 1}}),
        json!({"name": "x", "format": "round_robin", "capacity": 8, "time_control": tc,
               "starts_at": "2000-01-01T00:00:00Z"}),
    ] {
        srv.post("/v1/tournaments", Some(&org.access), &bad)
            .problem(400, "validation");
    }
    srv.post("/v1/tournaments", None, &json!({})).expect(401);
    srv.get("/v1/tournaments/nope", None)
        .problem(404, "not-found");
    srv.get("/v1/tournaments?status=later", None)
        .problem(400, "validation");
    assert!(
        srv.get("/v1/tournaments", None).expect(200)["items"]
            .as_array()
            .unwrap()
            .is_empty()
    );

    // Leave before the start: the entry is gone. Cancel: the organiser only, before.
    let a = create(
        &srv,
        org,
        json!({"name": "To cancel", "format": "round_robin",
        "capacity": 6, "time_control": tc}),
    );
    put(
        &srv,
        &format!("/v1/tournaments/{a}/players/me"),
        &players[1],
    )
    .expect(200);
    put(
        &srv,
        &format!("/v1/tournaments/{a}/players/me"),
        &players[1],
    )
    .problem(409, "conflict");
    srv.delete(
        &format!("/v1/tournaments/{a}/players/me"),
        Some(&players[1].access),
    )
    .expect(204);
    assert!(event(&srv, &a)["players"].as_array().unwrap().is_empty());
    srv.delete(
        &format!("/v1/tournaments/{a}/players/me"),
        Some(&players[1].access),
    )
    .problem(404, "not-found");
    srv.delete(&format!("/v1/tournaments/{a}"), Some(&players[1].access))
        .problem(403, "forbidden");
    srv.delete(&format!("/v1/tournaments/{a}"), Some(&org.access))
        .expect(204);
    let e = event(&srv, &a);
    assert_eq!(
        (e["status"].as_str(), e["cancelled"].as_str()),
        (Some("cancelled"), Some("organiser"))
    );
    put(
        &srv,
        &format!("/v1/tournaments/{a}/players/me"),
        &players[2],
    )
    .problem(409, "conflict");

    // Quota: three events open or running per organiser.
    let b = create(
        &srv,
        org,
        json!({"name": "Q1", "format": "swiss", "capacity": 8, "rounds": 2, "time_control": tc}),
    );
    create(
        &srv,
        org,
        json!({"name": "Q2", "format": "round_robin", "capacity": 4, "time_control": tc}),
    );
    create(
        &srv,
        org,
        json!({"name": "Q3", "format": "round_robin", "capacity": 4, "time_control": tc}),
    );
    srv.post(
        "/v1/tournaments",
        Some(&org.access),
        &json!({"name": "Q4", "format": "round_robin", "capacity": 4, "time_control": tc}),
    )
    .problem(409, "quota-exceeded");

    // A Swiss of 8, two rounds: one player withdraws during round 1.
    for p in &players[1..9] {
        put(&srv, &format!("/v1/tournaments/{b}/players/me"), p).expect(200);
    }
    let e = wait_for(&srv, &b, "round 1", |e| round_started(e, 1));
    srv.delete(&format!("/v1/tournaments/{b}"), Some(&org.access))
        .problem(409, "conflict");
    let quitter = &players[4];
    let table = rounds(&e)[0]["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| {
            t["seats"]
                .as_array()
                .unwrap()
                .iter()
                .any(|s| s["username"] == quitter.username.as_str())
        })
        .unwrap()
        .clone();
    let game = table["game_id"].as_str().unwrap().to_string();
    srv.delete(
        &format!("/v1/tournaments/{b}/players/me"),
        Some(&quitter.access),
    )
    .expect(204);
    // The withdrawal resigned the running game through the game command.
    let events = srv
        .get(&format!("/v1/games/{game}/events?limit=100"), None)
        .expect(200)
        .clone();
    let quitter_seat = table["seats"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["username"] == quitter.username.as_str())
        .unwrap()["seat"]
        .clone();
    assert!(
        events["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|ev| ev["kind"] == "resigned" && ev["payload"]["seat"] == quitter_seat),
        "{events:#}"
    );
    let e = event(&srv, &b);
    let row = e["standings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["username"] == quitter.username.as_str())
        .unwrap()
        .clone();
    assert_eq!(row["withdrawn"], true);
    srv.delete(
        &format!("/v1/tournaments/{b}/players/me"),
        Some(&quitter.access),
    )
    .problem(404, "not-found");
    // Finish round 1 by resignations; round 2 pairs the 7 left: one table, 3 byes.
    let by_name: HashMap<String, &Login> =
        players.iter().map(|p| (p.username.clone(), p)).collect();
    for t in rounds(&e)[0]["tables"].as_array().unwrap() {
        let gid = t["game_id"].as_str().unwrap();
        for s in t["seats"].as_array().unwrap() {
            let name = s["username"].as_str().unwrap();
            let r = srv.post(
                &format!("/v1/games/{gid}/resignation"),
                Some(&by_name[name].access),
                &json!({}),
            );
            assert!(r.status == 201 || r.status == 409, "{}", r.text);
        }
    }
    let e = wait_for(&srv, &b, "round 2", |e| round_started(e, 2));
    let r2 = &rounds(&e)[1];
    assert_eq!(r2["tables"].as_array().unwrap().len(), 1);
    assert_eq!(r2["byes"].as_array().unwrap().len(), 3);
    let in_round_2: Vec<&str> = r2["tables"][0]["seats"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["username"].as_str())
        .chain(
            r2["byes"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(Value::as_str),
        )
        .collect();
    assert!(!in_round_2.contains(&quitter.username.as_str()));
    assert_eq!(in_round_2.len(), 7);

    // A closed account withdraws.
    let closer = by_name[r2["tables"][0]["seats"][0]["username"].as_str().unwrap()];
    let gid = r2["tables"][0]["game_id"].as_str().unwrap().to_string();
    srv.send(
        srv.request(Method::DELETE, "/v1/me")
            .bearer_auth(&closer.access)
            .json(&json!({"current_password": djambi_e2e::PASSWORD})),
    )
    .expect(200);
    let e = wait_for(&srv, &b, "the closed account's withdrawal", |e| {
        e["standings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["withdrawn"] == true)
            .count()
            == 2
    });
    let g = srv
        .get(&format!("/v1/games/{gid}"), None)
        .expect(200)
        .clone();
    assert!(g["status"] == "active" || g["status"] == "finished");
    assert_eq!(e["status"], "running");
}

fn a_round_ended_by_timeouts(backend: Backend) {
    let start = chrono::NaiveDate::from_ymd_opt(2026, 12, 1)
        .unwrap()
        .and_hms_opt(12, 0, 0)
        .unwrap();
    let clock = Arc::new(ManualClock::new(start));
    let srv = TestServer::start_with_clock(backend, FAST, clock.clone());
    let players = users(&srv, "to", 4);
    let id = create(
        &srv,
        &players[0],
        json!({"name": "Slow", "format": "round_robin",
        "capacity": 4, "time_control": {"per_move_secs": 86400}, "round_days": 30}),
    );
    for p in &players {
        put(&srv, &format!("/v1/tournaments/{id}/players/me"), p).expect(200);
    }
    let e = wait_for(&srv, &id, "round 1", |e| round_started(e, 1));
    let game = rounds(&e)[0]["tables"][0]["game_id"]
        .as_str()
        .unwrap()
        .to_string();
    // Nobody moves: each seat to move times out in turn, until one seat is left.
    let start_wait = Instant::now();
    while srv.get(&format!("/v1/games/{game}"), None).expect(200)["status"] != "finished" {
        clock.advance(chrono::TimeDelta::hours(25));
        std::thread::sleep(Duration::from_millis(150));
        assert!(
            start_wait.elapsed() < Duration::from_secs(60),
            "the game never timed out"
        );
    }
    let g = srv
        .get(&format!("/v1/games/{game}"), None)
        .expect(200)
        .clone();
    assert_eq!(g["result"]["reason"], "timeout", "{g:#}");
    // The timeouts end the round like any end: the standings count it, round 2 starts.
    let e = wait_for(&srv, &id, "round 2", |e| round_started(e, 2));
    let ranking = g["result"]["ranking"].as_array().unwrap();
    let seats = rounds(&e)[0]["tables"][0]["seats"].as_array().unwrap();
    let winner_seat = ranking[0][0].as_str().unwrap();
    let winner = seats.iter().find(|s| s["seat"] == winner_seat).unwrap();
    assert_eq!(winner["points"], "3");
    assert_eq!(e["standings"][0]["username"], winner["username"]);
    assert_eq!(e["standings"][0]["points"], "3");
}

fn a_restart_after_pairing_and_racing_pairers(backend: Backend) {
    let db = FreshDatabase::new(backend);
    let start = chrono::NaiveDate::from_ymd_opt(2026, 12, 1)
        .unwrap()
        .and_hms_opt(12, 0, 0)
        .unwrap();
    let clock = Arc::new(ManualClock::new(start));
    let dyn_clock: Arc<dyn Clock> = clock.clone();
    let (id, players) = {
        let srv = TestServer::start_on_with(&db, FAST, Some(dyn_clock.clone()));
        let players = users(&srv, "rs", 6);
        let id = create(
            &srv,
            &players[0],
            json!({"name": "Dated", "format": "round_robin",
            "capacity": 8, "time_control": {"per_move_secs": 259200},
            "starts_at": "2026-12-01T13:00:00Z"}),
        );
        for p in &players {
            put(&srv, &format!("/v1/tournaments/{id}/players/me"), p).expect(200);
        }
        assert_eq!(event(&srv, &id)["status"], "open");
        (id, players)
        // The server stops here.
    };
    clock.advance(chrono::TimeDelta::hours(2));
    // Eight pairers race for the due start on their own connections: the version claim
    // lets exactly one write the round; none creates games (as if each died right
    // after writing).
    let (url, kind) = djambi_api::config::parse_database_url(&db.url).unwrap();
    let pool = djambi_api::store::build_pool(&djambi_api::config::DatabaseConfig {
        url,
        backend: kind,
        is_embedded_default: false,
        pool_size: 8,
        timeout: Duration::from_secs(10),
    })
    .unwrap();
    let barrier = Arc::new(std::sync::Barrier::new(8));
    let wrote: Vec<usize> = (0..8)
        .map(|_| {
            let (pool, clock, id, barrier) =
                (pool.clone(), dyn_clock.clone(), id.clone(), barrier.clone());
            std::thread::spawn(move || {
                let mut conn = djambi_api::store::checkout(&pool).unwrap();
                barrier.wait();
                let done = djambi_api::tournaments::command::execute(
                    &mut conn,
                    &*clock,
                    &djambi_api::ids::TournamentId::new(id.as_str()),
                    None,
                    &djambi_api::tournaments::log::Command::Advance,
                )
                .unwrap();
                done.events.len()
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|h| h.join().unwrap())
        .collect();
    assert_eq!(wrote.iter().filter(|&&n| n > 0).count(), 1, "{wrote:?}");
    let mut conn = djambi_api::store::checkout(&pool).unwrap();
    let log = djambi_api::store::tournaments::load_events(
        &mut conn,
        &djambi_api::ids::TournamentId::new(id.as_str()),
    )
    .unwrap();
    assert_eq!(log.iter().filter(|r| r.kind == "round_paired").count(), 1);
    drop(conn);
    // Two instances start on the database: they create the round's games, once.
    let a = TestServer::start_on_with(&db, FAST, Some(dyn_clock.clone()));
    let b = TestServer::start_on_with(&db, FAST, Some(dyn_clock.clone()));
    // An access token lasts 15 minutes of the server's clock, two hours ago.
    let players = a.refresh_all(&players);
    let e = wait_for(&a, &id, "the games of round 1", |e| round_started(e, 1));
    assert_eq!(rounds(&e).len(), 1);
    let tables = rounds(&e)[0]["tables"].as_array().unwrap().clone();
    assert_eq!(tables.len(), 1, "6 players: one table, two sit out");
    let seated: HashSet<&str> = tables[0]["seats"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["username"].as_str())
        .collect();
    let game = tables[0]["game_id"].as_str().unwrap();
    let g = b
        .get(&format!("/v1/games/{game}"), None)
        .expect(200)
        .clone();
    let in_game: HashSet<&str> = g["seats"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["username"].as_str())
        .collect();
    assert_eq!(seated, in_game, "{g:#}");
    // Exactly one game per table exists: each round's game id is fixed by the log.
    let mut conn = djambi_api::store::checkout(&pool).unwrap();
    let ids: Vec<djambi_api::ids::GameId> = (1..=3)
        .map(|t| djambi_api::ids::GameId::new(format!("{id}-r1-t{t}")))
        .collect();
    let existing = djambi_api::store::tournaments::game_states(&mut conn, &ids).unwrap();
    assert_eq!(existing.len(), 1);
    let log = djambi_api::store::tournaments::load_events(
        &mut conn,
        &djambi_api::ids::TournamentId::new(id.as_str()),
    )
    .unwrap();
    assert_eq!(log.iter().filter(|r| r.kind == "round_paired").count(), 1);
    drop(conn);
    // Both instances then see the round to its end; round 2 is paired once too.
    let by_name: HashMap<String, &Login> =
        players.iter().map(|p| (p.username.clone(), p)).collect();
    for s in tables[0]["seats"].as_array().unwrap() {
        let name = s["username"].as_str().unwrap();
        let r = a.post(
            &format!("/v1/games/{game}/resignation"),
            Some(&by_name[name].access),
            &json!({}),
        );
        assert!(r.status == 201 || r.status == 409, "{}", r.text);
    }
    wait_for(&b, &id, "round 2", |e| round_started(e, 2));
    std::thread::sleep(Duration::from_millis(300));
    let mut conn = djambi_api::store::checkout(&pool).unwrap();
    let log = djambi_api::store::tournaments::load_events(
        &mut conn,
        &djambi_api::ids::TournamentId::new(id.as_str()),
    )
    .unwrap();
    assert_eq!(log.iter().filter(|r| r.kind == "round_paired").count(), 2);
    assert_eq!(log.iter().filter(|r| r.kind == "game_ended").count(), 1);
}

fn a_round_robin_withdrawal_leaves_an_empty_seat(backend: Backend) {
    let srv = TestServer::start_with(backend, FAST);
    let players = users(&srv, "ew", 5);
    let id = create(
        &srv,
        &players[0],
        json!({"name": "Five", "format": "round_robin",
        "capacity": 5, "time_control": {"per_move_secs": 259200}}),
    );
    for p in &players {
        put(&srv, &format!("/v1/tournaments/{id}/players/me"), p).expect(200);
    }
    let e = wait_for(&srv, &id, "round 1", |e| round_started(e, 1));
    assert_eq!(e["planned_rounds"], 5);
    // Someone at round 1's table withdraws: their seat is resigned at once.
    let table = rounds(&e)[0]["tables"][0].clone();
    let game = table["game_id"].as_str().unwrap().to_string();
    let quitter_name = table["seats"][1]["username"].as_str().unwrap().to_string();
    let quitter = players.iter().find(|p| p.username == quitter_name).unwrap();
    srv.delete(
        &format!("/v1/tournaments/{id}/players/me"),
        Some(&quitter.access),
    )
    .expect(204);
    let by_name: HashMap<String, &Login> =
        players.iter().map(|p| (p.username.clone(), p)).collect();
    for s in table["seats"].as_array().unwrap() {
        let name = s["username"].as_str().unwrap();
        let r = srv.post(
            &format!("/v1/games/{game}/resignation"),
            Some(&by_name[name].access),
            &json!({}),
        );
        assert!(r.status == 201 || r.status == 409, "{}", r.text);
    }
    let g = srv
        .get(&format!("/v1/games/{game}"), None)
        .expect(200)
        .clone();
    let ranking = g["result"]["ranking"].as_array().unwrap();
    assert_eq!(
        ranking.last().unwrap(),
        &json!([table["seats"][1]["seat"]]),
        "the quitter placed last: {g:#}"
    );
    // Later rounds keep the schedule: where the quitter was due, the seat stays empty
    // and the game is played by three, the empty seat's party hostage.
    let mut seen_empty = false;
    for n in 2..=5 {
        let e = wait_for(&srv, &id, "the next round", |e| round_started(e, n));
        let round = &rounds(&e)[n - 1];
        let names: Vec<&str> = round["byes"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert!(!names.contains(&quitter_name.as_str()));
        for t in round["tables"].as_array().unwrap() {
            let gid = t["game_id"].as_str().unwrap();
            let g = srv
                .get(&format!("/v1/games/{gid}"), None)
                .expect(200)
                .clone();
            let empty: Vec<&Value> = t["seats"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|s| s["username"].is_null())
                .collect();
            if let Some(s) = empty.first() {
                seen_empty = true;
                assert_eq!(g["seats_in_play"].as_array().unwrap().len(), 3, "{g:#}");
                assert_eq!(g["hostage_seat"], s["seat"]);
            }
            for s in t["seats"].as_array().unwrap() {
                if let Some(name) = s["username"].as_str() {
                    let r = srv.post(
                        &format!("/v1/games/{gid}/resignation"),
                        Some(&by_name[name].access),
                        &json!({}),
                    );
                    assert!(r.status == 201 || r.status == 409, "{}", r.text);
                }
            }
        }
    }
    assert!(seen_empty, "the quitter was due at a later table");
    let e = wait_for(&srv, &id, "the end", |e| e["status"] == "finished");
    let q = e["standings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["username"] == quitter_name.as_str())
        .unwrap()
        .clone();
    assert_eq!(q["withdrawn"], true);
    assert_eq!(q["games"], 1);
}
