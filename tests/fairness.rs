//! The due-work worker is fair: while busy games of bots alone play (level 5, the
//! slowest search), a person's game with computer players gets each bot reply within
//! `DJAMBI_BOT_DELAY` + 1 s, and the bot-only games go on at their rate limit.

#[path = "support/games.rs"]
mod games;

use std::time::{Duration, Instant};

use djambi_e2e::{Backend, TestServer, backend_tests, json};
use games::*;

fn fairness(backend: Backend) {
    let srv = TestServer::start_with(
        backend,
        &[
            ("DJAMBI_BOT_DELAY", "300ms"),
            ("DJAMBI_DUE_INTERVAL", "1s"),
            ("DJAMBI_BOT_ONLY_PLIES_PER_SEC", "4"),
            ("DJAMBI_BOT_THREADS", "2"),
            ("DJAMBI_BOT_DRAW_PLIES", "100000"),
        ],
    );
    let ann = srv.user("ann");
    let busy: Vec<String> = (0..3)
        .map(|_| {
            let g = create(
                &srv,
                &ann,
                json!({"seats": 4, "bots": [
                    {"seat": "R", "level": 5}, {"seat": "B", "level": 5},
                    {"seat": "Y", "level": 5}, {"seat": "G", "level": 5}]}),
            );
            g["id"].as_str().unwrap().to_string()
        })
        .collect();
    let g = create(
        &srv,
        &ann,
        json!({"seats": 4, "seat": "R", "bots": [
            {"seat": "B", "level": 1}, {"seat": "Y", "level": 1}, {"seat": "G", "level": 1}]}),
    );
    let id = g["id"].as_str().unwrap().to_string();
    let busy_start: Vec<i64> = busy.iter().map(|b| version(&srv, b)).collect();
    let started = Instant::now();
    let limit = Duration::from_millis(300) + Duration::from_secs(1);
    let mut replies = Vec::new();
    for _ in 0..4 {
        // Ann's turn: she moves, then each of the three bots replies in turn.
        let mut v = version(&srv, &id);
        let mv = srv
            .get(&format!("/v1/games/{id}/legal-moves"), None)
            .expect(200)["moves"][0]["text"]
            .clone();
        play(&srv, &ann, &id, mv, v).expect(201);
        v += 1;
        let mut since = Instant::now();
        for _ in 0..3 {
            loop {
                let now = version(&srv, &id);
                if now > v {
                    replies.push(since.elapsed());
                    v = now;
                    since = Instant::now();
                    break;
                }
                assert!(since.elapsed() < Duration::from_secs(10), "no bot reply");
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        if summary(&srv, &id)["status"] != "active" {
            break;
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        while summary(&srv, &id)["to_move_user_id"] != ann.user_id.as_str() {
            assert!(Instant::now() < deadline, "Ann's turn again");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    let worst = replies.iter().max().unwrap();
    assert!(
        *worst <= limit,
        "every bot reply within the delay + 1 s: {replies:?}"
    );
    // The busy games go on, none starved, within their rate limit.
    for (b, start) in busy.iter().zip(&busy_start) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while version(&srv, b) == *start {
            assert!(Instant::now() < deadline, "the bot-only game {b} moved");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
    for (b, start) in busy.iter().zip(busy_start) {
        let plies = version(&srv, b) - start;
        assert!(
            (plies as f64) <= 4.0 * elapsed + 2.0,
            "{plies} plies in {elapsed:.1} s: over the rate limit"
        );
    }
}

backend_tests!(fairness);
