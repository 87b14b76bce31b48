//! Notifications: written with the events that cause them (the outbox), read through the
//! in-app feed (cursor paged, mark read) and its Server-Sent Events stream (resuming from
//! `Last-Event-ID`, fed from the database so that any instance's writes arrive).

#[path = "support/games.rs"]
mod games;

use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::sync::Arc;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use chrono::{DateTime, TimeDelta};
use djambi_e2e::{
    Backend, Clock, FreshDatabase, Login, ManualClock, TestServer, Value, backend_tests, json,
};
use games::*;
use reqwest::Method;

const FAST: [(&str, &str); 2] = [
    ("DJAMBI_DUE_INTERVAL", "10ms"),
    ("DJAMBI_NOTIFY_POLL", "20ms"),
];

fn clock() -> Arc<ManualClock> {
    Arc::new(ManualClock::new(
        DateTime::parse_from_rfc3339("2031-03-01T12:00:00Z")
            .unwrap()
            .naive_utc(),
    ))
}

fn game(srv: &TestServer, prefix: &str) -> (String, Vec<Login>) {
    let players: Vec<Login> = SEATS
        .iter()
        .map(|s| srv.user(&format!("{prefix}_{}", s.to_lowercase())))
        .collect();
    let g = create(
        srv,
        &players[0],
        json!({"seats": 4, "seat": "R", "time_control": {"per_move_secs": 86400}}),
    );
    let id = g["id"].as_str().unwrap().to_string();
    for (i, seat) in SEATS.iter().enumerate().skip(1) {
        take_seat(srv, &players[i], &id, seat).expect(200);
    }
    (id, players)
}

/// Every item of a user's feed, newest first, following `next`.
fn feed(srv: &TestServer, who: &Login) -> Vec<Value> {
    let mut out = Vec::new();
    let mut path = "/v1/me/notifications?limit=2".to_string();
    loop {
        let page = srv.get(&path, Some(&who.access)).expect(200).clone();
        out.extend(page["items"].as_array().unwrap().iter().cloned());
        match page["next"].as_str() {
            Some(n) => path = n.to_string(),
            None => return out,
        }
    }
}

fn kinds(items: &[Value]) -> Vec<String> {
    items
        .iter()
        .map(|i| i["kind"].as_str().unwrap().to_string())
        .collect()
}

fn move_now(srv: &TestServer, id: &str, who: &Login) {
    let v = version(srv, id);
    let mv = srv
        .get(&format!("/v1/games/{id}/legal-moves"), None)
        .expect(200)["moves"][0]["text"]
        .clone();
    play(srv, who, id, mv, v).expect(201);
}

fn feed_follows_the_game(backend: Backend) {
    let clock = clock();
    let srv = TestServer::start_with_clock(backend, &FAST, clock.clone());
    let (id, p) = game(&srv, "feed");
    // Everyone is told the game started; Red, to move, is told it is its turn.
    // (Items of one write share their time; their order is then by id.)
    let mut red = kinds(&feed(&srv, &p[0]));
    red.sort();
    assert_eq!(red, ["game_started", "your_turn"]);
    for who in &p[1..] {
        assert_eq!(kinds(&feed(&srv, who)), ["game_started"]);
    }
    let red = feed(&srv, &p[0]);
    let turn = red.iter().find(|i| i["kind"] == "your_turn").unwrap();
    assert_eq!(turn["game_id"], id.as_str());
    assert_eq!(turn["payload"]["seat"], "R");
    assert_eq!(turn["payload"]["deadline"], summary(&srv, &id)["deadline"]);

    clock.advance(TimeDelta::minutes(1));
    move_now(&srv, &id, &p[0]);
    assert_eq!(kinds(&feed(&srv, &p[1]))[0], "your_turn");
    assert_eq!(
        kinds(&feed(&srv, &p[0])).len(),
        2,
        "no notice of one's own move"
    );

    // Blue offers a draw: the others are asked.
    clock.advance(TimeDelta::minutes(1));
    srv.post(
        &format!("/v1/games/{id}/draw-offer"),
        Some(&p[1].access),
        &json!({"action": "offer"}),
    )
    .expect(200);
    for who in [&p[0], &p[2], &p[3]] {
        let f = feed(&srv, who);
        assert_eq!(f[0]["kind"], "draw_offered");
        assert_eq!(f[0]["payload"]["seat"], "B");
    }

    // Blue lets its deadline pass: everyone hears of the timeout, Blue of its
    // elimination, Yellow that it is its turn.
    clock.advance(TimeDelta::days(1) + TimeDelta::seconds(1));
    // An access token lasts 15 minutes of the server's clock: the players refresh.
    let p = srv.refresh_all(&p);
    let until = Instant::now() + Duration::from_secs(20);
    while summary(&srv, &id)["to_move"] != "Y" {
        assert!(Instant::now() < until, "no timeout");
        std::thread::sleep(Duration::from_millis(10));
    }
    let blue = kinds(&feed(&srv, &p[1]));
    assert!(blue.contains(&"timeout".into()) && blue.contains(&"seat_eliminated".into()));
    let yellow = feed(&srv, &p[2]);
    assert_eq!(kinds(&yellow[..2]).iter().collect::<HashSet<_>>().len(), 2);
    assert!(kinds(&yellow[..2]).contains(&"your_turn".into()));
    assert!(kinds(&yellow[..2]).contains(&"timeout".into()));

    // Ids are unique and stable; marking read.
    let red = feed(&srv, &p[0]);
    let ids: HashSet<&str> = red.iter().map(|i| i["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), red.len());
    assert_eq!(feed(&srv, &p[0])[0]["id"], red[0]["id"]);
    let r = srv
        .post(
            "/v1/me/notifications/read",
            Some(&p[0].access),
            &json!({"ids": [red[1]["id"]]}),
        )
        .expect(200)
        .clone();
    assert_eq!(r["marked"], 1);
    assert_eq!(r["unread_count"], red.len() as i64 - 1);
    let unread = srv
        .get("/v1/me/notifications?unread=true", Some(&p[0].access))
        .expect(200)
        .clone();
    assert_eq!(unread["items"].as_array().unwrap().len(), red.len() - 1);
    let r = srv
        .post(
            "/v1/me/notifications/read",
            Some(&p[0].access),
            &json!({"up_to": red[0]["id"]}),
        )
        .expect(200)
        .clone();
    assert_eq!(r["unread_count"], 0);
    // Nothing named, nothing marked; strings that are no ids of mine mark nothing.
    for nothing in [
        json!({}),
        json!({"ids": ["x\u{0}y", "nope"], "up_to": "\u{0}"}),
    ] {
        let r = srv
            .post("/v1/me/notifications/read", Some(&p[0].access), &nothing)
            .expect(200)
            .clone();
        assert_eq!(r["marked"], 0, "{nothing}");
    }
    let too_many: Vec<String> = (0..501).map(|i| format!("id-{i}")).collect();
    srv.post(
        "/v1/me/notifications/read",
        Some(&p[0].access),
        &json!({ "ids": too_many }),
    )
    .problem(400, "validation");
    srv.get("/v1/me/notifications", None)
        .problem(401, "unauthorized");
}

/// Reads a Server-Sent Events stream on a thread: (id, event, data) per event.
fn subscribe(
    srv: &TestServer,
    who: &Login,
    last: Option<&str>,
) -> mpsc::Receiver<(String, String, Value)> {
    let mut rb = srv
        .request(Method::GET, "/v1/me/notifications/stream")
        .bearer_auth(&who.access);
    if let Some(l) = last {
        rb = rb.header("Last-Event-ID", l);
    }
    let res = rb.send().expect("stream");
    assert_eq!(res.status().as_u16(), 200);
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
    rx
}

fn next_event(rx: &mpsc::Receiver<(String, String, Value)>) -> (String, String, Value) {
    rx.recv_timeout(Duration::from_secs(20))
        .expect("an event on the stream")
}

fn the_stream_delivers_and_resumes(backend: Backend) {
    let clock = clock();
    let srv = TestServer::start_with_clock(backend, &FAST, clock.clone());
    let (id, p) = game(&srv, "sse");
    let blue = subscribe(&srv, &p[1], None);
    std::thread::sleep(Duration::from_millis(100));
    clock.advance(TimeDelta::minutes(1));
    move_now(&srv, &id, &p[0]);
    let (eid, kind, data) = next_event(&blue);
    assert_eq!(kind, "your_turn");
    assert_eq!(data["id"], eid.as_str());
    assert_eq!(data["game_id"], id.as_str());
    assert_eq!(feed(&srv, &p[1])[0]["id"], eid.as_str());

    // While Blue is away, Red offers a draw and Blue then moves; resuming from the last
    // event seen gives the draw offer only, once.
    drop(blue);
    clock.advance(TimeDelta::minutes(1));
    srv.post(
        &format!("/v1/games/{id}/draw-offer"),
        Some(&p[0].access),
        &json!({"action": "offer"}),
    )
    .expect(200);
    let resumed = subscribe(&srv, &p[1], Some(&eid));
    let (_, kind, data) = next_event(&resumed);
    assert_eq!(kind, "draw_offered");
    assert_eq!(data["payload"]["seat"], "R");
    assert!(
        resumed.recv_timeout(Duration::from_millis(300)).is_err(),
        "nothing else"
    );
    clock.advance(TimeDelta::minutes(1));
    move_now(&srv, &id, &p[1]);
    // Blue's own move notifies Yellow, not Blue; Yellow's stream from the start has it.
    let yellow = subscribe(&srv, &p[2], Some("00000000-0000-0000-0000-000000000000"));
    let mut seen = Vec::new();
    while let Ok((_, kind, _)) = yellow.recv_timeout(Duration::from_millis(500)) {
        seen.push(kind);
    }
    assert_eq!(seen, ["game_started", "draw_offered", "your_turn"]);
}

/// A `Last-Event-ID` that is not a notification's id is refused as on the game stream,
/// not taken for "from now on" (which would silently lose what the client missed).
fn a_malformed_last_event_id_is_refused(backend: Backend) {
    let srv = TestServer::start(backend);
    let alice = srv.user("alice");
    let long = "x".repeat(300);
    for bad in ["garbage!", "-1", long.as_str(), "", "12", "0192f5e4-7a3c"] {
        let r = srv.send(
            srv.request(Method::GET, "/v1/me/notifications/stream")
                .bearer_auth(&alice.access)
                .header("Last-Event-ID", bad),
        );
        r.problem(400, "validation");
        assert_eq!(r.error_fields(), vec!["Last-Event-ID"], "{bad:?}");
    }
    // The game stream answers the same to the same header.
    let game = srv
        .post(
            "/v1/games",
            Some(&alice.access),
            &json!({"seats": 4, "seat": "R"}),
        )
        .expect(201)
        .clone();
    let r = srv.send(
        srv.request(
            Method::GET,
            &format!("/v1/games/{}/stream", game["id"].as_str().unwrap()),
        )
        .header("Last-Event-ID", "garbage!"),
    );
    r.problem(400, "validation");
}

/// A seat that is not to move resigning changes neither the turn nor its deadline: the
/// seat to move is not told again. The seat to move resigning does pass the turn on.
fn your_turn_only_when_the_turn_changes(backend: Backend) {
    let clock = clock();
    let srv = TestServer::start_with_clock(backend, &FAST, clock.clone());
    let (id, p) = game(&srv, "again");
    clock.advance(TimeDelta::minutes(1));
    move_now(&srv, &id, &p[0]);
    let turns = |who: &Login| {
        feed(&srv, who)
            .into_iter()
            .filter(|i| i["kind"] == "your_turn")
            .collect::<Vec<_>>()
    };
    assert_eq!(turns(&p[1]).len(), 1);
    let deadline = summary(&srv, &id)["deadline"].clone();
    clock.advance(TimeDelta::minutes(1));
    srv.post(
        &format!("/v1/games/{id}/resignation"),
        Some(&p[3].access),
        &json!({}),
    )
    .expect(201);
    assert_eq!(summary(&srv, &id)["to_move"], "B");
    assert_eq!(summary(&srv, &id)["deadline"], deadline);
    assert_eq!(
        turns(&p[1]).len(),
        1,
        "no second your_turn for the same turn"
    );
    // Blue, to move, resigns: Yellow's turn starts now.
    clock.advance(TimeDelta::minutes(1));
    srv.post(
        &format!("/v1/games/{id}/resignation"),
        Some(&p[1].access),
        &json!({}),
    )
    .expect(201);
    let yellow = turns(&p[2]);
    assert_eq!(yellow.len(), 1);
    assert_eq!(
        yellow[0]["payload"]["deadline"],
        summary(&srv, &id)["deadline"]
    );
}

backend_tests!(
    your_turn_only_when_the_turn_changes,
    feed_follows_the_game,
    the_stream_delivers_and_resumes,
    a_malformed_last_event_id_is_refused,
);

/// A stream on one instance gets what a write on another instance caused.
#[test]
fn a_stream_on_one_instance_sees_writes_on_another() {
    let db = FreshDatabase::new(Backend::Postgres);
    let clock = clock();
    let a = TestServer::start_on_with(&db, &FAST, Some(clock.clone() as Arc<dyn Clock>));
    let b = TestServer::start_on_with(&db, &FAST, Some(clock.clone() as Arc<dyn Clock>));
    let (id, p) = game(&a, "two");
    let blue = subscribe(&b, &p[1], None);
    std::thread::sleep(Duration::from_millis(100));
    clock.advance(TimeDelta::minutes(1));
    move_now(&a, &id, &p[0]);
    let (eid, kind, _) = next_event(&blue);
    assert_eq!(kind, "your_turn");
    assert!(
        blue.recv_timeout(Duration::from_millis(300)).is_err(),
        "each item once"
    );
    assert_eq!(feed(&a, &p[1])[0]["id"], eid.as_str());
    drop((a, b));
}
