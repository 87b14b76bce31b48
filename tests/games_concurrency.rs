//! Many clients writing to the same games at once, on PostgreSQL (real concurrency: each
//! request is its own transaction on its own connection).
//!
//! - In lock-step rounds, several clients submit a move to the same game at the same
//!   expected version: exactly one is accepted (201), every other gets 412
//!   `version-conflict` with the new version.
//! - A request retried while its first attempt is in flight gets the first answer.
//! - Free-running, clients race to play whole games: afterwards the accepted moves are
//!   exactly the log's `move_played` events, each game's events are numbered 1..=version
//!   without gap or double, and every game replays to its state and projection.

#[path = "support/games.rs"]
mod games;

use std::collections::HashMap;
use std::sync::{Barrier, Mutex};

use djambi_e2e::{Backend, TestServer};
use games::*;

const OVERRIDES: &[(&str, &str)] = &[("DJAMBI_WORKERS", "4"), ("DJAMBI_DB_POOL_SIZE", "12")];

#[test]
fn racing_moves_at_one_version_exactly_one_wins() {
    let srv = TestServer::start_with(Backend::Postgres, OVERRIDES);
    const GAMES: usize = 3;
    const CLIENTS: usize = 6;
    const ROUNDS: usize = 12;
    let tables: Vec<(String, Vec<djambi_e2e::Login>)> = (0..GAMES)
        .map(|g| four_player_game(&srv, &format!("race{g}")))
        .collect();
    let mut rng = Rng::new(77);
    for round in 0..ROUNDS {
        // Each client of each game gets a (random, legal) move and the current version.
        let mut jobs = Vec::new();
        for (id, players) in &tables {
            let s = summary(&srv, id);
            if s["status"] != "active" {
                continue;
            }
            let version = s["version"].as_i64().unwrap();
            let who = player_to_move(&srv, id, players).unwrap().clone();
            let lm = srv
                .get(&format!("/v1/games/{id}/legal-moves?limit=2000"), None)
                .expect(200)
                .clone();
            let moves = lm["moves"].as_array().unwrap().clone();
            for _ in 0..CLIENTS {
                let mv = moves[rng.below(moves.len())]["text"].clone();
                jobs.push((id.clone(), who.clone(), mv, version));
            }
        }
        if jobs.is_empty() {
            break;
        }
        let barrier = Barrier::new(jobs.len());
        let results: Mutex<Vec<(String, i64, u16, i64)>> = Mutex::new(Vec::new());
        std::thread::scope(|scope| {
            for (id, who, mv, version) in &jobs {
                let (barrier, results, srv) = (&barrier, &results, &srv);
                scope.spawn(move || {
                    barrier.wait();
                    let r = play(srv, who, id, mv.clone(), *version);
                    let status = r.status.as_u16();
                    let reported = match status {
                        201 => r.json["version"].as_i64().unwrap(),
                        412 => {
                            r.problem(412, "version-conflict");
                            r.json["current_version"].as_i64().unwrap()
                        }
                        _ => panic!("unexpected answer {status}: {}", r.text),
                    };
                    results
                        .lock()
                        .unwrap()
                        .push((id.clone(), *version, status, reported));
                });
            }
        });
        let results = results.into_inner().unwrap();
        let mut per_game: HashMap<&str, (usize, usize)> = HashMap::new();
        for (id, _, status, _) in &results {
            let e = per_game.entry(id.as_str()).or_default();
            if *status == 201 { e.0 += 1 } else { e.1 += 1 }
        }
        for (id, (won, lost)) in per_game {
            assert_eq!(won, 1, "round {round}, game {id}: exactly one move wins");
            assert_eq!(lost, CLIENTS - 1, "round {round}, game {id}");
            // Losers were told the winner's version.
            let v = version(&srv, id);
            for (gid, _, status, reported) in &results {
                if gid == id && *status == 412 {
                    assert!(*reported <= v && *reported > 0);
                }
            }
        }
    }
    for (id, _) in &tables {
        check_log_replays(&srv, id);
        let moves = all_events(&srv, id)
            .iter()
            .filter(|e| e["kind"] == "move_played")
            .count();
        assert_eq!(moves, summary(&srv, id)["ply"].as_u64().unwrap() as usize);
    }
}

#[test]
fn free_running_clients_lose_and_double_nothing() {
    let srv = TestServer::start_with(Backend::Postgres, OVERRIDES);
    const GAMES: usize = 2;
    const CLIENTS_PER_GAME: usize = 4;
    const MOVES_PER_CLIENT: usize = 25;
    let tables: Vec<(String, Vec<djambi_e2e::Login>)> = (0..GAMES)
        .map(|g| four_player_game(&srv, &format!("free{g}")))
        .collect();
    let accepted: Mutex<HashMap<String, Vec<(i64, String)>>> = Mutex::new(HashMap::new());
    let conflicts = Mutex::new(0usize);
    std::thread::scope(|scope| {
        for (gi, (id, players)) in tables.iter().enumerate() {
            for c in 0..CLIENTS_PER_GAME {
                let (srv, accepted, conflicts) = (&srv, &accepted, &conflicts);
                scope.spawn(move || {
                    let mut rng = Rng::new((gi * 100 + c + 1) as u64);
                    let mut done = 0;
                    let mut attempts = 0;
                    while done < MOVES_PER_CLIENT && attempts < 20 * MOVES_PER_CLIENT {
                        attempts += 1;
                        let lm = srv
                            .get(&format!("/v1/games/{id}/legal-moves?limit=2000"), None)
                            .expect(200)
                            .clone();
                        if lm["status"] != "active" {
                            break;
                        }
                        let version = lm["version"].as_i64().unwrap();
                        let seat = lm["seat"].as_str().unwrap();
                        let who = &players[SEATS.iter().position(|s| *s == seat).unwrap()];
                        let moves = lm["moves"].as_array().unwrap();
                        let mv = &moves[rng.below(moves.len())];
                        let r = play(srv, who, id, mv["text"].clone(), version);
                        match r.status.as_u16() {
                            201 => {
                                done += 1;
                                let v = r.json["version"].as_i64().unwrap();
                                let text = r.json["move"]["text"].as_str().unwrap().to_string();
                                accepted
                                    .lock()
                                    .unwrap()
                                    .entry(id.clone())
                                    .or_default()
                                    .push((v, text));
                            }
                            412 => *conflicts.lock().unwrap() += 1,
                            // The game ended under us.
                            409 if r.json["type"] == "/problems/game-over" => break,
                            // The turn passed to another seat between our read and write:
                            // the version check comes first, so this cannot happen.
                            other => panic!("unexpected {other}: {}", r.text),
                        }
                    }
                });
            }
        }
    });
    let accepted = accepted.into_inner().unwrap();
    let conflicts = conflicts.into_inner().unwrap();
    eprintln!(
        "accepted {} moves, {conflicts} version conflicts",
        accepted.values().map(Vec::len).sum::<usize>()
    );
    for (id, _) in &tables {
        check_log_replays(&srv, id);
        let events = all_events(&srv, id);
        let mut logged: Vec<(i64, String)> = events
            .iter()
            .filter(|e| e["kind"] == "move_played")
            .map(|e| {
                (
                    e["seq"].as_i64().unwrap(),
                    e["payload"]["text"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        let mut mine = accepted.get(id).cloned().unwrap_or_default();
        mine.sort();
        // An accepted move that ended the game reports the version after `ended`.
        for (v, _) in mine.iter_mut() {
            if events
                .get(*v as usize - 1)
                .is_some_and(|e| e["kind"] == "ended")
            {
                *v -= 1;
            }
        }
        logged.sort();
        assert_eq!(
            mine, logged,
            "every accepted move is in the log exactly once"
        );
    }
}

/// A request retried while its first attempt is still in flight (same `Idempotency-Key`,
/// same body, sent at once from several clients): every copy gets the first answer, and
/// the move is written once.
#[test]
fn retries_racing_their_first_attempt_all_get_its_answer() {
    let srv = TestServer::start_with(Backend::Postgres, OVERRIDES);
    const COPIES: usize = 6;
    const ROUNDS: usize = 10;
    let (id, players) = four_player_game(&srv, "retry");
    let mut rng = Rng::new(5);
    for round in 0..ROUNDS {
        let s = summary(&srv, &id);
        if s["status"] != "active" {
            break;
        }
        let version = s["version"].as_i64().unwrap();
        let who = player_to_move(&srv, &id, &players).unwrap().clone();
        let lm = srv
            .get(&format!("/v1/games/{id}/legal-moves?limit=2000"), None)
            .expect(200)
            .clone();
        let moves = lm["moves"].as_array().unwrap();
        let mv = moves[rng.below(moves.len())]["text"].clone();
        let body = serde_json::json!({"move": mv, "expected_version": version});
        let key = format!("retry-{round}");
        let barrier = Barrier::new(COPIES);
        let answers: Mutex<Vec<(u16, serde_json::Value)>> = Mutex::new(Vec::new());
        std::thread::scope(|scope| {
            for _ in 0..COPIES {
                let (barrier, answers, srv, who, body, key, id) =
                    (&barrier, &answers, &srv, &who, &body, &key, &id);
                scope.spawn(move || {
                    barrier.wait();
                    let r = srv.send(
                        srv.request(reqwest::Method::POST, &format!("/v1/games/{id}/moves"))
                            .bearer_auth(&who.access)
                            .header("Idempotency-Key", key.as_str())
                            .json(body),
                    );
                    answers.lock().unwrap().push((r.status.as_u16(), r.json));
                });
            }
        });
        let answers = answers.into_inner().unwrap();
        for (status, json) in &answers {
            assert_eq!(*status, 201, "round {round}: a copy got {status}: {json}");
            assert_eq!(
                json, &answers[0].1,
                "round {round}: every copy gets the first answer"
            );
        }
        let after = summary(&srv, &id)["version"].as_i64().unwrap();
        assert!(after > version, "round {round}: the move was written");
        let written = all_events(&srv, &id)
            .iter()
            .filter(|e| e["kind"] == "move_played" && e["seq"].as_i64().unwrap() > version)
            .count();
        assert_eq!(written, 1, "round {round}: written once");
    }
    check_log_replays(&srv, &id);
}
