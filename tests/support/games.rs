//! Helpers for the game tests: seating players, playing moves, reading the whole log, and
//! checking that every served state equals a fresh replay of the log through the rules.
//! Included by the game test files with `#[path = "support/games.rs"] mod games;`.

#![allow(dead_code)]

use djambi_e2e::{Login, Resp, TestServer, Value, json};
use domain::{Action, Game, GameSettings, Move, Ruleset, SeatSet};
use reqwest::Method;

pub const SEATS: [&str; 4] = ["R", "B", "Y", "G"];

#[allow(unused_imports)]
pub use djambi_e2e::Rng;

/// Creates a game as `creator` with `body`; returns the summary.
#[track_caller]
pub fn create(srv: &TestServer, creator: &Login, body: Value) -> Value {
    srv.post("/v1/games", Some(&creator.access), &body)
        .expect(201)
        .clone()
}

#[track_caller]
pub fn take_seat(srv: &TestServer, who: &Login, id: &str, seat: &str) -> Resp {
    srv.send(
        srv.request(Method::POST, &format!("/v1/games/{id}/seats/{seat}"))
            .bearer_auth(&who.access),
    )
}

/// Registers four players and seats them R, B, Y, G in a new public game (R creates it).
/// Returns the game id and the players in seat order.
pub fn four_player_game(srv: &TestServer, prefix: &str) -> (String, Vec<Login>) {
    let players: Vec<Login> = SEATS
        .iter()
        .map(|s| srv.user(&format!("{prefix}_{}", s.to_lowercase())))
        .collect();
    (seat_all(srv, &players), players)
}

/// A new public four-player game of `players` in seat order (the first creates it as
/// Red): started, Red to move. Returns its id.
#[track_caller]
pub fn seat_all(srv: &TestServer, players: &[Login]) -> String {
    let game = create(srv, &players[0], json!({"seats": 4, "seat": "R"}));
    let id = game["id"].as_str().unwrap_or_default().to_string();
    for (i, seat) in SEATS.iter().enumerate().skip(1) {
        take_seat(srv, &players[i], &id, seat).expect(200);
    }
    id
}

/// The text of the first legal move of the game.
#[track_caller]
pub fn first_legal(srv: &TestServer, id: &str) -> String {
    srv.get(&format!("/v1/games/{id}/legal-moves"), None)
        .expect(200)["moves"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

pub fn summary(srv: &TestServer, id: &str) -> Value {
    srv.get(&format!("/v1/games/{id}"), None)
        .expect(200)
        .clone()
}

pub fn version(srv: &TestServer, id: &str) -> i64 {
    summary(srv, id)["version"].as_i64().unwrap_or(-1)
}

/// Posts a move with `expected_version` in the body.
#[track_caller]
pub fn play(srv: &TestServer, who: &Login, id: &str, mv: Value, version: i64) -> Resp {
    srv.post(
        &format!("/v1/games/{id}/moves"),
        Some(&who.access),
        &json!({"move": mv, "expected_version": version}),
    )
}

/// The player to move, by the summary's `to_move_user_id`.
pub fn player_to_move<'a>(srv: &TestServer, id: &str, players: &'a [Login]) -> Option<&'a Login> {
    let s = summary(srv, id);
    let uid = s["to_move_user_id"].as_str()?;
    players.iter().find(|p| p.user_id == uid)
}

/// Every event of the log, following the `next` links.
pub fn all_events(srv: &TestServer, id: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let mut path = format!("/v1/games/{id}/events?limit=100");
    loop {
        let r = srv.get(&path, None);
        let page = r.expect(200);
        out.extend(page["items"].as_array().cloned().unwrap_or_default());
        match page["next"].as_str() {
            Some(next) => path = next.to_string(),
            None => break,
        }
    }
    out
}

/// The settings and the domain actions of a log (the client's own replay).
pub fn actions_of(events: &[Value]) -> (GameSettings, Vec<Action>) {
    let created = &events[0];
    assert_eq!(created["kind"], "created");
    let seats = SeatSet::from_letters(created["payload"]["seats"].as_str().unwrap()).unwrap();
    let ruleset = Ruleset::from_id(created["payload"]["ruleset"].as_str().unwrap()).unwrap();
    let settings = GameSettings { seats, ruleset };
    let mut actions = Vec::new();
    for e in events {
        match e["kind"].as_str().unwrap() {
            "move_played" => {
                let mv: Move = serde_json::from_value(e["payload"]["move"].clone()).unwrap();
                actions.push(Action::Move(mv));
            }
            "resigned" => {
                let seat = serde_json::from_value(e["payload"]["seat"].clone()).unwrap();
                actions.push(Action::Resign(seat));
            }
            "timed_out" => {
                let seat = serde_json::from_value(e["payload"]["seat"].clone()).unwrap();
                actions.push(Action::Timeout(seat));
            }
            "ended" if e["payload"]["result"]["reason"] == "draw_agreed" => {
                actions.push(Action::AgreedDraw);
            }
            _ => {}
        }
    }
    (settings, actions)
}

/// Checks the log and everything derived from it:
/// - events are numbered 1..=version with no gap or double;
/// - for every version N, `/state?at=N` equals the client's replay of the first N events
///   (DFEN, turn, ruler, status);
/// - `/state` (the cached current state) and the summary (the projection) equal the
///   replay of the whole log.
///
/// Returns the number of versions checked.
pub fn check_log_replays(srv: &TestServer, id: &str) -> usize {
    let events = all_events(srv, id);
    let sum = summary(srv, id);
    let version = sum["version"].as_i64().unwrap();
    let seqs: Vec<i64> = events.iter().map(|e| e["seq"].as_i64().unwrap()).collect();
    assert_eq!(
        seqs,
        (1..=version).collect::<Vec<_>>(),
        "event numbering of {id}"
    );
    for n in 1..=events.len() {
        let (settings, actions) = actions_of(&events[..n]);
        let (game, _) = Game::replay(settings, &actions).expect("the log replays");
        let state = srv
            .get(&format!("/v1/games/{id}/state?at={n}"), None)
            .expect(200)
            .clone();
        assert_eq!(state["version"], n as i64);
        assert_eq!(
            state["dfen"],
            game.position().to_string(),
            "state of {id} at version {n}"
        );
        assert_eq!(state["ply"], game.position().ply());
        assert_eq!(
            state["ruler"],
            json!(game.position().ruler().map(|s| s.to_string()))
        );
    }
    let (settings, actions) = actions_of(&events);
    let (game, _) = Game::replay(settings, &actions).expect("the log replays");
    let current = srv
        .get(&format!("/v1/games/{id}/state"), None)
        .expect(200)
        .clone();
    assert_eq!(current["dfen"], game.position().to_string());
    assert_eq!(current["version"], version);
    // The projection.
    assert_eq!(sum["ply"], game.position().ply());
    assert_eq!(
        sum["ruler"],
        json!(game.position().ruler().map(|s| s.to_string()))
    );
    let over = game.is_over();
    let status = sum["status"].as_str().unwrap();
    if over {
        assert_eq!(status, "finished");
        assert!(sum["to_move"].is_null());
        let result = &sum["result"];
        match game.outcome().unwrap() {
            domain::Outcome::Win(seat) => {
                assert_eq!(result["kind"], "win");
                assert_eq!(result["seats"], json!([seat.to_string()]));
            }
            domain::Outcome::Draw(seats) => {
                assert_eq!(result["kind"], "draw");
                let s: Vec<String> = seats.iter().map(|s| s.to_string()).collect();
                assert_eq!(result["seats"], json!(s));
            }
        }
        assert_eq!(current["result"], *result);
    } else if status == "active" {
        assert_eq!(
            sum["to_move"],
            json!(game.position().to_move().map(|s| s.to_string()))
        );
        let seat = sum["to_move"].as_str().unwrap();
        let holder = sum["seats"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["seat"] == seat)
            .unwrap();
        assert_eq!(sum["to_move_user_id"], holder["user_id"]);
    }
    events.len()
}
