//! Time controls, deadlines and timeouts, driven by an injected clock: deadlines shown in
//! summaries, states and `/v1/me/games?turn=mine`; the due-work worker timing seats out
//! (a resignation's effect, the game goes on for the others); overdue deadlines
//! processed when a server starts; a move racing its timeout (exactly one wins, every
//! round); two instances on one database timing out each game once.

#[path = "support/games.rs"]
mod games;

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, NaiveDateTime, TimeDelta, Utc};
use djambi_e2e::{
    Backend, Clock, FreshDatabase, Login, ManualClock, TestServer, Value, backend_tests, json,
};
use games::*;

const DAY: i64 = 86_400;
/// The due-work worker's period in these tests.
const FAST: (&str, &str) = ("DJAMBI_DUE_INTERVAL", "10ms");

fn start_time() -> NaiveDateTime {
    DateTime::parse_from_rfc3339("2031-03-01T12:00:00Z")
        .unwrap()
        .naive_utc()
}

fn iso(t: NaiveDateTime) -> String {
    t.and_utc()
        .to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
}

fn parse(v: &Value) -> NaiveDateTime {
    DateTime::parse_from_rfc3339(v.as_str().unwrap_or_else(|| panic!("not a time: {v}")))
        .unwrap()
        .with_timezone(&Utc)
        .naive_utc()
}

/// Waits up to 20 s for `f` to give something.
#[track_caller]
fn wait_for<T>(what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(Instant::now() < until, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Four players (reused across games) seated R, B, Y, G in a new time-controlled game.
fn timed_game(srv: &TestServer, players: &[Login], tc: Value) -> String {
    let game = create(
        srv,
        &players[0],
        json!({"seats": 4, "seat": "R", "time_control": tc}),
    );
    let id = game["id"].as_str().unwrap().to_string();
    for (i, seat) in SEATS.iter().enumerate().skip(1) {
        take_seat(srv, &players[i], &id, seat).expect(200);
    }
    id
}

fn players(srv: &TestServer, prefix: &str) -> Vec<Login> {
    SEATS
        .iter()
        .map(|s| srv.user(&format!("{prefix}_{}", s.to_lowercase())))
        .collect()
}

fn first_legal_move(srv: &TestServer, id: &str) -> Value {
    srv.get(&format!("/v1/games/{id}/legal-moves"), None)
        .expect(200)["moves"][0]["text"]
        .clone()
}

fn timeouts_of(srv: &TestServer, id: &str) -> Vec<Value> {
    all_events(srv, id)
        .into_iter()
        .filter(|e| e["kind"] == "timed_out")
        .collect()
}

fn deadlines_and_timeouts(backend: Backend) {
    let clock = Arc::new(ManualClock::new(start_time()));
    let srv = TestServer::start_with_clock(backend, &[FAST], clock.clone());
    let p = players(&srv, "tc");
    let tc = json!({"per_move_secs": DAY, "max_bank_secs": 2 * DAY});
    let id = timed_game(&srv, &p, tc.clone());
    let t0 = clock.now();
    let s = summary(&srv, &id);
    assert_eq!(s["time_control"], tc);
    assert_eq!(s["deadline"], iso(t0 + TimeDelta::days(1)), "{s}");

    // Red moves after 2 hours: it banks 22 h (46 h for its next turn); Blue has a day.
    // (An access token lasts 15 minutes of the server's clock: the players refresh.)
    clock.advance(TimeDelta::hours(2));
    let p = srv.refresh_all(&p);
    let v = s["version"].as_i64().unwrap();
    play(&srv, &p[0], &id, first_legal_move(&srv, &id), v).expect(201);
    let t1 = clock.now();
    let s = summary(&srv, &id);
    assert_eq!(s["to_move"], "B");
    assert_eq!(s["deadline"], iso(t1 + TimeDelta::days(1)));
    let st = srv
        .get(&format!("/v1/games/{id}/state"), None)
        .expect(200)
        .clone();
    assert_eq!(st["deadline"], s["deadline"]);
    assert_eq!(st["clocks"]["R"], 46 * 3600);
    assert_eq!(st["clocks"]["B"], DAY);

    // Nothing happens before the deadline.
    clock.advance(TimeDelta::hours(23));
    std::thread::sleep(Duration::from_millis(100));
    assert!(timeouts_of(&srv, &id).is_empty());

    // Blue, then Yellow, then Green let their deadlines pass: Red wins on time.
    for (seat, next) in [("B", Some("Y")), ("Y", Some("G")), ("G", None)] {
        clock.advance(TimeDelta::hours(25));
        let s = wait_for(&format!("{seat} to time out"), || {
            let s = summary(&srv, &id);
            (s["to_move"] != seat).then_some(s)
        });
        let out = timeouts_of(&srv, &id);
        let last = out.last().unwrap();
        assert_eq!(last["payload"]["seat"], seat);
        assert!(last["actor_id"].is_null(), "the server acts: {last}");
        assert_eq!(last["step"]["eliminated"], json!([seat]));
        match next {
            Some(next) => {
                assert_eq!(s["status"], "active");
                assert_eq!(s["to_move"], next);
                let at = parse(&last["created_at"]);
                assert_eq!(s["deadline"], iso(at + TimeDelta::days(1)), "{s}");
            }
            None => {
                assert_eq!(s["status"], "finished");
                assert!(s["deadline"].is_null());
                assert_eq!(s["result"]["kind"], "win");
                assert_eq!(s["result"]["seats"], json!(["R"]));
                assert_eq!(s["result"]["reason"], "timeout");
            }
        }
    }
    assert_eq!(timeouts_of(&srv, &id).len(), 3);
    check_log_replays(&srv, &id);
    let record = srv.get(&format!("/v1/games/{id}/record"), None);
    assert!(record.text.contains("-- B timed out"), "{}", record.text);

    // A player cannot send the server's command, and bad time controls are refused.
    let p = srv.refresh_all(&p);
    for (tc, field) in [
        (json!({"per_move_secs": 5}), "time_control.per_move_secs"),
        (
            json!({"per_move_secs": DAY, "max_bank_secs": 3600}),
            "time_control.max_bank_secs",
        ),
    ] {
        let r = srv.post(
            "/v1/games",
            Some(&p[0].access),
            &json!({"seats": 4, "time_control": tc}),
        );
        r.problem(400, "validation");
        assert!(r.error_fields().contains(&field.to_string()), "{}", r.text);
    }
}

fn turn_mine_lists_the_soonest_deadline_first(backend: Backend) {
    let clock = Arc::new(ManualClock::new(start_time()));
    let srv = TestServer::start_with_clock(backend, &[FAST], clock.clone());
    let p = players(&srv, "order");
    let untimed = timed_game(&srv, &p, Value::Null);
    clock.advance(TimeDelta::minutes(1));
    let three_days = timed_game(&srv, &p, json!({"per_move_secs": 3 * DAY}));
    clock.advance(TimeDelta::minutes(1));
    let one_day = timed_game(&srv, &p, json!({"per_move_secs": DAY}));
    let mine = srv
        .get("/v1/me/games?turn=mine&limit=2", Some(&p[0].access))
        .expect(200)
        .clone();
    let mut ids: Vec<Value> = mine["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["id"].clone())
        .collect();
    let next = srv
        .get(mine["next"].as_str().unwrap(), Some(&p[0].access))
        .expect(200)
        .clone();
    ids.extend(
        next["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["id"].clone()),
    );
    assert_eq!(
        ids,
        json!([one_day, three_days, untimed])
            .as_array()
            .unwrap()
            .clone()
    );
    assert!(mine["items"][0]["deadline"].is_string());
    assert!(next["items"][0]["deadline"].is_null());
}

/// Deadlines that pass while no server runs are processed when one starts.
fn overdue_deadlines_are_processed_at_start(backend: Backend) {
    let db = FreshDatabase::new(backend);
    let clock = Arc::new(ManualClock::new(start_time()));
    let as_clock = || Some(clock.clone() as Arc<dyn Clock>);
    let first = TestServer::start_on_with(&db, &[FAST], as_clock());
    let p = players(&first, "restart");
    let id = timed_game(&first, &p, json!({"per_move_secs": DAY}));
    drop(first);
    clock.advance(TimeDelta::days(2));
    let second = TestServer::start_on_with(&db, &[FAST], as_clock());
    wait_for("the overdue timeout", || {
        (!timeouts_of(&second, &id).is_empty()).then_some(())
    });
    let s = summary(&second, &id);
    assert_eq!(s["to_move"], "B");
    assert_eq!(timeouts_of(&second, &id).len(), 1);
    drop(second);
}

/// `max_bank_secs` caps the bank, not the whole clock: a turn has `per_move_secs` plus
/// the bank (README's examples), shown in the state's clocks and the deadline.
fn the_cap_bounds_the_bank(backend: Backend) {
    let clock = Arc::new(ManualClock::new(start_time()));
    let srv = TestServer::start_with_clock(backend, &[FAST], clock.clone());
    let p = players(&srv, "bank");
    let id = timed_game(&srv, &p, json!({"per_move_secs": 60, "max_bank_secs": 60}));
    let id2 = timed_game(&srv, &p, json!({"per_move_secs": 60, "max_bank_secs": 120}));
    let clocks =
        |id: &str| srv.get(&format!("/v1/games/{id}/state"), None).expect(200)["clocks"].clone();
    // Red moves at once with a 60 s bank: 120 s next turn.
    play(
        &srv,
        &p[0],
        &id,
        first_legal_move(&srv, &id),
        version(&srv, &id),
    )
    .expect(201);
    assert_eq!(clocks(&id)["R"], 120);
    // With a cap of 120, moving after 3 s gives 117 s.
    clock.advance(TimeDelta::seconds(3));
    play(
        &srv,
        &p[0],
        &id2,
        first_legal_move(&srv, &id2),
        version(&srv, &id2),
    )
    .expect(201);
    assert_eq!(clocks(&id2)["R"], 117);
    // Blue's deadline is its own 60 s; the others have their first turn's 60 s.
    let s = summary(&srv, &id2);
    assert_eq!(s["deadline"], iso(clock.now() + TimeDelta::seconds(60)));
    assert_eq!(clocks(&id2)["B"], 60);
}

backend_tests!(
    the_cap_bounds_the_bank,
    deadlines_and_timeouts,
    turn_mine_lists_the_soonest_deadline_first,
    overdue_deadlines_are_processed_at_start
);

/// A move sent as its deadline passes, against the worker, hundreds of times on
/// PostgreSQL: every round exactly one of them is written.
#[test]
fn a_move_and_its_timeout_exactly_one_wins() {
    let rounds: usize = std::env::var("DJAMBI_RACE_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300);
    let clock = Arc::new(ManualClock::new(start_time()));
    // An access token lasts a day of the server's clock here (15 minutes by default): the
    // players refresh before each round, and the token outlives the day the clock jumps
    // while the move is on its way.
    let srv = TestServer::start_with_clock(
        Backend::Postgres,
        &[
            ("DJAMBI_DUE_INTERVAL", "1ms"),
            ("DJAMBI_ACCESS_TOKEN_TTL", "24h"),
        ],
        clock.clone(),
    );
    let mut p = players(&srv, "race");
    let mut rng = Rng::new(7);
    let (mut moves_won, mut timeouts_won) = (0, 0);
    let mut id = timed_game(&srv, &p, json!({"per_move_secs": DAY}));
    let mut games = vec![id.clone()];
    let mut round = 0;
    while round < rounds {
        p = srv.refresh_all(&p);
        let s = summary(&srv, &id);
        if s["status"] != "active" {
            id = timed_game(&srv, &p, json!({"per_move_secs": DAY}));
            games.push(id.clone());
            continue;
        }
        let v = s["version"].as_i64().unwrap();
        let seat = s["to_move"].as_str().unwrap().to_string();
        let who = p
            .iter()
            .find(|x| s["to_move_user_id"] == x.user_id.as_str())
            .unwrap();
        let lm = srv
            .get(&format!("/v1/games/{id}/legal-moves"), None)
            .expect(200)
            .clone();
        if lm["version"] != v {
            continue; // the previous round's clock timed this seat out meanwhile
        }
        let mv = lm["moves"][0]["text"].clone();
        // The deadline passes 0 to 3 ms from now, while the move is on its way.
        let delay = Duration::from_micros(rng.below(3000) as u64);
        let c = clock.clone();
        let advance = std::thread::spawn(move || {
            std::thread::sleep(delay);
            c.advance(TimeDelta::days(1) + TimeDelta::seconds(1));
        });
        let r = play(&srv, who, &id, mv, v);
        advance.join().unwrap();
        round += 1;
        let after = wait_for("the round to settle", || {
            let events = all_events(&srv, &id);
            (events.len() as i64 > v).then_some(events)
        });
        let first = &after[v as usize];
        match r.status.as_u16() {
            201 => {
                moves_won += 1;
                assert_eq!(first["kind"], "move_played", "round {round}: {first}");
            }
            412 => {
                timeouts_won += 1;
                assert_eq!(first["kind"], "timed_out", "round {round}: {first}");
                assert_eq!(first["payload"]["seat"], seat.as_str());
            }
            other => panic!("round {round}: unexpected {other}: {}", r.text),
        }
        // Never both: no second action of this seat at this turn.
        let actions: Vec<&Value> = after[v as usize..]
            .iter()
            .filter(|e| e["kind"] == "move_played" || e["kind"] == "timed_out")
            .filter(|e| e["payload"]["seat"] == seat.as_str())
            .collect();
        assert_eq!(actions.len(), 1, "round {round}: {actions:?}");
    }
    eprintln!(
        "{rounds} rounds over {} games: the move won {moves_won} times, the timeout {timeouts_won}",
        games.len()
    );
    assert!(
        moves_won > 0 && timeouts_won > 0,
        "both sides won sometimes"
    );
    for g in &games {
        check_log_replays(&srv, g);
    }
}

/// Two instances on one PostgreSQL database share the due work: each game is timed out
/// once.
#[test]
fn two_instances_time_out_each_game_once() {
    let db = FreshDatabase::new(Backend::Postgres);
    let clock = Arc::new(ManualClock::new(start_time()));
    let servers: Vec<TestServer> = (0..2)
        .map(|_| {
            TestServer::start_on_with(
                &db,
                &[("DJAMBI_DUE_INTERVAL", "2ms")],
                Some(clock.clone() as Arc<dyn Clock>),
            )
        })
        .collect();
    let p = players(&servers[0], "pair");
    let ids: Vec<String> = (0..20)
        .map(|_| timed_game(&servers[0], &p, json!({"per_move_secs": DAY})))
        .collect();
    clock.advance(TimeDelta::days(1) + TimeDelta::seconds(1));
    for id in &ids {
        wait_for("every game to time out", || {
            (summary(&servers[1], id)["to_move"] == "B").then_some(())
        });
    }
    std::thread::sleep(Duration::from_millis(200));
    for id in &ids {
        let out = timeouts_of(&servers[1], id);
        assert_eq!(out.len(), 1, "{id}: {out:?}");
        assert_eq!(out[0]["payload"]["seat"], "R");
        check_log_replays(&servers[0], id);
    }
    drop(servers);
}
