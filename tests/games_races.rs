//! Every write path raced against every other, on PostgreSQL, through two server
//! instances on one database (so one of them writes without the other's cached state):
//! moves at one version with and without `Idempotency-Key`, through `If-Match` or the
//! body; seats taken, resignations and draw offers sent without a precondition, all at
//! the same time. Over hundreds of rounds:
//!
//! - no answer is a 5xx;
//! - of the moves sent at one version, exactly one is written;
//! - a write without a precondition never gets `412`: it is applied to the game as it is
//!   (or refused for what the game is, e.g. `409 seat-taken`);
//! - every log is contiguous and replays to the projection (checked with the server's own
//!   `check-projections` and with a client-side replay).

#[path = "support/games.rs"]
mod games;

use std::sync::{Barrier, Mutex};

use djambi_e2e::{Backend, FreshDatabase, Login, Resp, TestServer, Value, json};
use games::*;
use reqwest::Method;

/// One request of a round, and what may answer it.
struct Job {
    server: usize,
    who: Login,
    method: Method,
    path: String,
    body: Option<Value>,
    headers: Vec<(&'static str, String)>,
    kind: Kind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A move at an expected version (one of its copies wins).
    Move,
    /// A write without a precondition: never 412.
    Unconditional,
}

fn send(servers: &[TestServer], job: &Job) -> Resp {
    let srv = &servers[job.server];
    let mut rb = srv
        .request(job.method.clone(), &job.path)
        .bearer_auth(&job.who.access);
    for (k, v) in &job.headers {
        rb = rb.header(*k, v);
    }
    if let Some(b) = &job.body {
        rb = rb.json(b);
    }
    srv.send(rb)
}

/// Runs the jobs at once (released together by a barrier); returns their answers in order.
fn race(servers: &[TestServer], jobs: &[Job]) -> Vec<Resp> {
    let barrier = Barrier::new(jobs.len());
    let answers: Mutex<Vec<Option<Resp>>> = Mutex::new(jobs.iter().map(|_| None).collect());
    std::thread::scope(|scope| {
        for (i, job) in jobs.iter().enumerate() {
            let (barrier, answers) = (&barrier, &answers);
            scope.spawn(move || {
                barrier.wait();
                let r = send(servers, job);
                answers.lock().unwrap()[i] = Some(r);
            });
        }
    });
    answers
        .into_inner()
        .unwrap()
        .into_iter()
        .map(|r| r.expect("every job answered"))
        .collect()
}

fn check_no_5xx_and_no_412_without_precondition(jobs: &[Job], answers: &[Resp]) {
    for (job, r) in jobs.iter().zip(answers) {
        assert!(
            r.status.as_u16() < 500,
            "{} {} answered {}: {}",
            job.method,
            job.path,
            r.status,
            r.text
        );
        if job.kind == Kind::Unconditional {
            assert_ne!(
                r.status.as_u16(),
                412,
                "{} {} sent no precondition but got 412: {}",
                job.method,
                job.path,
                r.text
            );
        }
    }
}

/// Seats: four players race for one seat, then two for the last two seats.
fn seat_round(servers: &[TestServer], players: &[Login], round: usize) -> String {
    let creator = &players[0];
    let game = create(&servers[0], creator, json!({"seats": 4, "seat": "R"}));
    let id = game["id"].as_str().unwrap().to_string();
    let path = format!("/v1/games/{id}/seats/B");
    let jobs: Vec<Job> = players[1..5]
        .iter()
        .enumerate()
        .map(|(i, who)| Job {
            server: (i + round) % 2,
            who: who.clone(),
            method: Method::POST,
            path: path.clone(),
            body: None,
            headers: if i % 2 == 0 {
                vec![("Idempotency-Key", format!("seat-{round}-{i}"))]
            } else {
                vec![]
            },
            kind: Kind::Unconditional,
        })
        .collect();
    let answers = race(servers, &jobs);
    check_no_5xx_and_no_412_without_precondition(&jobs, &answers);
    let seated = answers.iter().filter(|r| r.status.as_u16() == 200).count();
    assert_eq!(seated, 1, "one player gets seat B");
    for r in answers.iter().filter(|r| r.status.as_u16() != 200) {
        r.problem(409, "seat-taken");
    }
    let b_holder = answers
        .iter()
        .position(|r| r.status.as_u16() == 200)
        .unwrap()
        + 1;
    // The last two seats at once, by two players not seated yet.
    let others: Vec<&Login> = players[1..6]
        .iter()
        .enumerate()
        .filter(|(i, _)| i + 1 != b_holder)
        .map(|(_, p)| p)
        .take(2)
        .collect();
    let jobs: Vec<Job> = ["Y", "G"]
        .iter()
        .zip(others)
        .enumerate()
        .map(|(i, (seat, who))| Job {
            server: i % 2,
            who: who.clone(),
            method: Method::POST,
            path: format!("/v1/games/{id}/seats/{seat}"),
            body: None,
            headers: vec![],
            kind: Kind::Unconditional,
        })
        .collect();
    let answers = race(servers, &jobs);
    check_no_5xx_and_no_412_without_precondition(&jobs, &answers);
    for r in &answers {
        r.expect(200);
    }
    assert_eq!(summary(&servers[round % 2], &id)["status"], "active");
    id
}

/// A move round on an active game: the mover's move sent four times at one version
/// (through both servers, keyed and not, in the body and as If-Match), raced with draw
/// offers and answers of the other seats, and now and then a resignation.
fn action_round(
    servers: &[TestServer],
    id: &str,
    players: &[Login],
    rng: &mut Rng,
    round: usize,
) -> bool {
    let s = summary(&servers[0], id);
    if s["status"] != "active" {
        return false;
    }
    let version = s["version"].as_i64().unwrap();
    let mover_id = s["to_move_user_id"].as_str().unwrap().to_string();
    let mover = players
        .iter()
        .find(|p| p.user_id == mover_id)
        .unwrap()
        .clone();
    let lm = servers[1]
        .get(&format!("/v1/games/{id}/legal-moves?limit=2000"), None)
        .expect(200)
        .clone();
    let moves = lm["moves"].as_array().unwrap();
    let mv = moves[rng.below(moves.len())]["text"].clone();
    let mut jobs = Vec::new();
    for copy in 0..4 {
        let (body, mut headers) = if copy % 2 == 0 {
            (json!({"move": mv, "expected_version": version}), vec![])
        } else {
            (
                json!({"move": mv}),
                vec![("If-Match", format!("\"{version}\""))],
            )
        };
        if copy >= 2 {
            headers.push(("Idempotency-Key", format!("move-{round}-{copy}")));
        }
        jobs.push(Job {
            server: copy % 2,
            who: mover.clone(),
            method: Method::POST,
            path: format!("/v1/games/{id}/moves"),
            body: Some(body),
            headers,
            kind: Kind::Move,
        });
    }
    let seated: Vec<&Login> = players
        .iter()
        .filter(|p| {
            s["seats"]
                .as_array()
                .unwrap()
                .iter()
                .any(|x| x["user_id"] == p.user_id.as_str())
        })
        .collect();
    for (i, who) in seated.iter().enumerate() {
        if who.user_id == mover_id {
            continue;
        }
        let action = ["offer", "accept", "decline"][rng.below(3)];
        jobs.push(Job {
            server: i % 2,
            who: (*who).clone(),
            method: Method::POST,
            path: format!("/v1/games/{id}/draw-offer"),
            body: Some(json!({"action": action})),
            headers: vec![],
            kind: Kind::Unconditional,
        });
    }
    if rng.below(12) == 0 {
        let who = seated[rng.below(seated.len())];
        jobs.push(Job {
            server: rng.below(2),
            who: who.clone(),
            method: Method::POST,
            path: format!("/v1/games/{id}/resignation"),
            body: None,
            headers: vec![("Idempotency-Key", format!("resign-{round}"))],
            kind: Kind::Unconditional,
        });
    }
    let answers = race(servers, &jobs);
    check_no_5xx_and_no_412_without_precondition(&jobs, &answers);
    let written: Vec<&Resp> = jobs
        .iter()
        .zip(&answers)
        .filter(|(j, r)| j.kind == Kind::Move && r.status.as_u16() == 201)
        .map(|(_, r)| r)
        .collect();
    let others_written = jobs
        .iter()
        .zip(&answers)
        .any(|(j, r)| j.kind == Kind::Unconditional && r.status.is_success());
    // At most one copy of the move is written; none only if another write (a draw
    // offer, an answer, a resignation) got there first.
    assert!(
        written.len() <= 1,
        "{} copies of one move were written",
        written.len()
    );
    assert!(
        written.len() == 1 || others_written,
        "no write at all in a round: {:?}",
        answers
            .iter()
            .map(|r| r.status.as_u16())
            .collect::<Vec<_>>()
    );
    for (job, r) in jobs.iter().zip(&answers) {
        if job.kind == Kind::Move && r.status.as_u16() == 412 {
            let current = r.problem(412, "version-conflict")["current_version"]
                .as_i64()
                .unwrap();
            assert!(current > version);
        }
    }
    true
}

#[test]
fn every_write_path_races_every_other_on_two_instances() {
    let db = FreshDatabase::new(Backend::Postgres);
    let servers = [TestServer::start_on(&db), TestServer::start_on(&db)];
    let players: Vec<Login> = (0..6)
        .map(|i| servers[0].user(&format!("racer{i}")))
        .collect();
    let mut rng = Rng::new(2026);
    let mut games = Vec::new();
    let mut rounds = 0;
    let mut game = None;
    while rounds < 300 {
        let id = match &game {
            Some(id) => id,
            None => {
                let id = seat_round(&servers, &players, rounds);
                games.push(id.clone());
                rounds += 1;
                game = Some(id);
                game.as_ref().unwrap()
            }
        };
        // The seats hold players[0] (R) and three of players[1..6].
        if !action_round(&servers, id, &players, &mut rng, rounds) {
            game = None;
        }
        rounds += 1;
    }
    assert!(games.len() >= 2, "several games were played");
    for id in &games {
        check_log_replays(&servers[rounds % 2], id);
    }
    let config = djambi_api::config::Config::from_lookup(|name| match name {
        "DATABASE_URL" => Some(db.url.clone()),
        "DJAMBI_JWT_SECRET" => Some(djambi_e2e::TEST_JWT_SECRET.into()),
        _ => None,
    })
    .unwrap();
    let mut report = Vec::new();
    let bad = djambi_api::maintenance::check_projections(&config, &mut report).unwrap();
    let report = String::from_utf8(report).unwrap();
    assert_eq!(bad, 0, "{report}");
    assert!(
        report.contains(&format!("{} games checked", games.len())),
        "{report}"
    );
    drop(servers);
}

/// Bad input on the write path: refused with 400, nothing written.
#[test]
fn bodies_must_be_objects_and_cursors_checked() {
    for backend in [Backend::Postgres, Backend::Sqlite] {
        let srv = TestServer::start(backend);
        let (id, p) = four_player_game(&srv, "shape");
        let v = version(&srv, &id);
        for body in [json!(["A3-A4", v]), json!(null), json!("C8-D7"), json!(12)] {
            srv.post(&format!("/v1/games/{id}/moves"), Some(&p[0].access), &body)
                .problem(400, "validation");
        }
        srv.post("/v1/games", Some(&p[0].access), &json!([4, "R"]))
            .problem(400, "validation");
        srv.post("/v1/games", Some(&p[0].access), &json!(null))
            .problem(400, "validation");
        srv.post(
            "/v1/accounts",
            None,
            &json!(["arrayname", "x@example.org", "password123"]),
        )
        .problem(400, "validation");
        srv.post(
            "/v1/sessions",
            None,
            &json!(["shape_r", djambi_e2e::PASSWORD]),
        )
        .problem(400, "validation");
        // A wrong type names its field.
        let r = srv.post(
            &format!("/v1/games/{id}/moves"),
            Some(&p[0].access),
            &json!({"move": "C8-D7", "expected_version": "six"}),
        );
        r.problem(400, "validation");
        assert_eq!(r.error_fields(), vec!["expected_version"], "{}", r.text);
        assert_eq!(version(&srv, &id), v, "nothing was written");
        // NUL and other control bytes in cursors.
        srv.get("/v1/games?after=1_%00", None)
            .problem(400, "validation");
        srv.get("/v1/me/games?after=1_%00", Some(&p[0].access))
            .problem(400, "validation");
        srv.get("/v1/me/tokens?after=%00", Some(&p[0].access))
            .problem(400, "validation");
        srv.get("/v1/games?after=1_a%27b", None)
            .problem(400, "validation");
        // Only active games wait on a move: turn=mine with another status lists none.
        let none = srv
            .get("/v1/me/games?turn=mine&status=finished", Some(&p[0].access))
            .expect(200)
            .clone();
        assert_eq!(none["items"], json!([]));
        let mine = srv
            .get("/v1/me/games?turn=mine&status=active", Some(&p[0].access))
            .expect(200)
            .clone();
        assert_eq!(mine["items"].as_array().unwrap().len(), 1);
    }
}

/// A legal-moves cursor names its version: after a move, the next page is refused.
#[test]
fn legal_move_pages_do_not_mix_positions() {
    for backend in [Backend::Postgres, Backend::Sqlite] {
        let srv = TestServer::start(backend);
        let (id, p) = four_player_game(&srv, "pages");
        let first = srv
            .get(&format!("/v1/games/{id}/legal-moves?limit=5"), None)
            .expect(200)
            .clone();
        let v = first["version"].as_i64().unwrap();
        let next = first["next"].as_str().unwrap().to_string();
        assert!(
            first["next_cursor"]
                .as_str()
                .unwrap()
                .starts_with(&format!("{v}."))
        );
        let second = srv.get(&next, None).expect(200).clone();
        assert_ne!(second["moves"][0], first["moves"][0]);
        let mv = first["moves"][0]["text"].clone();
        play(&srv, &p[0], &id, mv, v).expect(201);
        let stale = srv.get(&next, None);
        stale.problem(412, "version-conflict");
        assert_eq!(stale.json["current_version"], v + 1);
    }
}

/// The session of an access token is checked inside the write itself: after a logout the
/// very next move is refused (401) and nothing is written, on the one-statement path
/// (state cached at the expected version) and on the transactional one (a keyed write).
#[test]
fn a_logout_stops_the_next_move() {
    for backend in [Backend::Postgres, Backend::Sqlite] {
        let srv = TestServer::start(backend);
        let (id, p) = four_player_game(&srv, "logout");
        // A first move fills the server's cache at the next version.
        let v = version(&srv, &id);
        let lm = srv
            .get(&format!("/v1/games/{id}/legal-moves"), None)
            .expect(200)
            .clone();
        play(&srv, &p[0], &id, lm["moves"][0]["text"].clone(), v).expect(201);
        let v = v + 1;
        let lm = srv
            .get(&format!("/v1/games/{id}/legal-moves"), None)
            .expect(200)
            .clone();
        let mv = lm["moves"][0]["text"].clone();
        srv.delete("/v1/sessions/current", Some(&p[1].access))
            .expect(204);
        play(&srv, &p[1], &id, mv.clone(), v).problem(401, "unauthorized");
        let keyed = srv.send(
            srv.request(Method::POST, &format!("/v1/games/{id}/moves"))
                .bearer_auth(&p[1].access)
                .header("Idempotency-Key", "after-logout")
                .json(&json!({"move": mv, "expected_version": v})),
        );
        keyed.problem(401, "unauthorized");
        srv.post(
            &format!("/v1/games/{id}/draw-offer"),
            Some(&p[1].access),
            &json!({"action": "offer"}),
        )
        .problem(401, "unauthorized");
        assert_eq!(version(&srv, &id), v, "nothing was written");
        // A fresh login plays on.
        let again = srv.login(&p[1].username, djambi_e2e::PASSWORD);
        play(&srv, &again, &id, mv, v).expect(201);
    }
}
