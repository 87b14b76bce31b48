//! The engine's analysis of games (issue 37), end to end on both databases: asking for
//! it, its progress, its result (checked against the rules crate's analysis run here, and
//! against the rules), idempotency, the quotas, a change of engine version, a server
//! restarted while an analysis runs, privacy, and the record with the analysis as
//! comments read back by the import.

#[path = "support/games.rs"]
mod games;

use std::time::{Duration, Instant};

use djambi_e2e::{Backend, FreshDatabase, Login, Resp, TestServer, Value, backend_tests, json};
use domain::search::analysis::{analyse_game, move_positions};
use domain::search::random_move;
use domain::{Action, Game, GameSettings, Level};
use games::*;
use reqwest::Method;

/// A random game of `plies` moves (seeded), as a record with `[Seats "RBYG"]`.
fn random_record(seed: u64, plies: usize) -> (String, GameSettings, Vec<Action>) {
    let settings = GameSettings::four_players();
    let mut game = Game::new(settings).unwrap();
    let mut actions = Vec::new();
    let mut n = 0u64;
    while actions.len() < plies && !game.is_over() {
        n += 1;
        let Some(mv) = random_move(game.position(), seed.wrapping_mul(1000).wrapping_add(n)) else {
            break;
        };
        game.apply(&Action::Move(mv)).unwrap();
        actions.push(Action::Move(mv));
    }
    let text = domain::write_record(settings, &actions, &[("Event", "analysis test")]).unwrap();
    (text, settings, actions)
}

fn import(srv: &TestServer, who: &Login, record: &str, visibility: &str) -> String {
    srv.send(
        srv.request(Method::POST, "/v1/games/import")
            .bearer_auth(&who.access)
            .json(&json!({"record": record, "visibility": visibility})),
    )
    .expect(201)["id"]
        .as_str()
        .unwrap()
        .to_string()
}

fn ask(srv: &TestServer, who: Option<&Login>, id: &str) -> Resp {
    srv.post(
        &format!("/v1/games/{id}/analysis"),
        who.map(|w| w.access.as_str()),
        &json!({}),
    )
}

fn read(srv: &TestServer, who: Option<&Login>, id: &str) -> Resp {
    srv.get(
        &format!("/v1/games/{id}/analysis"),
        who.map(|w| w.access.as_str()),
    )
}

/// Polls the analysis until it is done (200); returns it.
#[track_caller]
fn wait_done(srv: &TestServer, who: Option<&Login>, id: &str, within: Duration) -> Value {
    let start = Instant::now();
    loop {
        let r = read(srv, who, id);
        match r.status.as_u16() {
            200 => {
                assert_eq!(r.json["status"], "done", "{}", r.text);
                return r.json.clone();
            }
            202 => {
                assert_eq!(
                    r.header("location"),
                    Some(format!("/v1/games/{id}/analysis").as_str())
                );
                let (done, plies) = (r.json["plies_done"].as_i64(), r.json["plies"].as_i64());
                assert!(done <= plies, "{}", r.text);
                // (Read in two statements: a move may be stored in between.)
                let shown = r.json["moves"].as_array().map_or(0, |m| m.len() as i64);
                assert!(Some(shown) >= done, "{}", r.text);
            }
            _ => panic!("reading the analysis: {} {}", r.status, r.text),
        }
        assert!(
            start.elapsed() < within,
            "the analysis of {id} is not done after {within:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The served analysis equals the rules crate's analysis of the same game at `level`
/// (the service adds only texts), and each preferred move is legal.
fn assert_matches_engine(served: &Value, settings: GameSettings, actions: &[Action], level: u8) {
    let budget = Level::new(level).unwrap().budget();
    let expected = analyse_game(settings, actions, budget).unwrap();
    let (positions, _) = move_positions(settings, actions).unwrap();
    let moves = served["moves"].as_array().unwrap();
    assert_eq!(moves.len(), expected.moves.len());
    for (i, ((m, e), (position, _))) in moves
        .iter()
        .zip(&expected.moves)
        .zip(&positions)
        .enumerate()
    {
        assert_eq!(m["ply"], i as u64 + 1);
        assert_eq!(m["seat"], e.seat.letter().to_string());
        assert_eq!(m["move"], position.move_text(&e.played).to_string());
        assert_eq!(m["best"], position.move_text(&e.best).to_string());
        assert_eq!(m["best_score"], e.best_score);
        assert_eq!(m["played_score"], e.played_score);
        assert_eq!(m["loss"], e.loss);
        assert_eq!(
            m["judgement"].as_str(),
            e.judgement.map(|j| j.as_str()),
            "move {}",
            i + 1
        );
        let best: domain::Move = m["best"].as_str().unwrap().parse().unwrap();
        assert!(position.play(&best).is_ok(), "the preferred move is legal");
        let loss = m["loss"].as_i64().unwrap();
        assert!(loss >= 0);
        assert_eq!(
            loss,
            m["best_score"].as_i64().unwrap() - m["played_score"].as_i64().unwrap()
        );
    }
    for (k, seat) in ["R", "B", "Y", "G"].iter().enumerate() {
        assert_eq!(
            served["last"][seat].as_i64(),
            expected.last[k].map(i64::from)
        );
    }
}

fn request_progress_result_idempotency_and_record(backend: Backend) {
    let srv = TestServer::start_with(
        backend,
        &[
            ("DJAMBI_ANALYSIS_LEVEL", "1"),
            ("DJAMBI_DUE_INTERVAL", "200ms"),
        ],
    );
    let ann = srv.user("ann");
    let (record, settings, actions) = random_record(1, 24);
    let id = import(&srv, &ann, &record, "public");

    // Nothing asked for yet; asking needs a login.
    read(&srv, None, &id).problem(404, "not-found");
    ask(&srv, None, &id).problem(401, "unauthorized");
    ask(&srv, Some(&ann), "00000000-0000-4000-8000-000000000000").problem(404, "not-found");

    let first = ask(&srv, Some(&ann), &id);
    assert_eq!(first.status.as_u16(), 202, "{}", first.text);
    assert_eq!(
        first.header("location"),
        Some(format!("/v1/games/{id}/analysis").as_str())
    );
    assert!(matches!(
        first.json["status"].as_str(),
        Some("queued" | "running")
    ));
    assert_eq!(first.json["plies"], 24);
    let engine = first.json["engine_version"].as_str().unwrap().to_string();
    assert!(engine.ends_with("/level-1"), "{engine}");
    // Asking again while it waits or runs answers the same analysis.
    let again = ask(&srv, Some(&ann), &id);
    assert!(matches!(again.status.as_u16(), 200 | 202), "{}", again.text);
    assert_eq!(again.json["requested_at"], first.json["requested_at"]);

    // Anyone may read a public game's analysis.
    let done = wait_done(&srv, None, &id, Duration::from_secs(120));
    assert_eq!(done["plies_done"], 24);
    assert_eq!(done["engine_version"], engine.as_str());
    assert!(done["finished_at"].is_string());
    assert_matches_engine(&done, settings, &actions, 1);
    // The replay page draws the curve and lists the judged moves, in each language.
    let judged: Vec<&Value> = done["moves"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["judgement"].is_string())
        .collect();
    for (lang, best_was) in [
        ("en", "best was"),
        ("fr", "le meilleur coup était"),
        ("es", "la mejor era"),
    ] {
        let page = srv.send(
            srv.request(Method::GET, &format!("/games/{id}"))
                .header("Accept-Language", lang),
        );
        assert_eq!(page.status.as_u16(), 200);
        let html = &page.text;
        assert!(html.contains("class=\"analysis\""), "{html}");
        assert!(
            html.contains("<svg") && html.contains("analysis-curve"),
            "{html}"
        );
        assert!(html.matches("<polyline").count() >= 1, "{html}");
        assert!(html.contains("▲") && html.contains("◆"), "{html}");
        for m in &judged {
            let best = m["best"].as_str().unwrap().replace('>', "&gt;");
            let text = format!("{best_was} {best}");
            assert!(html.contains(&text), "{lang}: {text} not in the page");
        }
    }
    let plain_page = srv.get(
        &format!("/games/{}", import(&srv, &ann, &record, "public")),
        None,
    );
    assert!(!plain_page.text.contains("class=\"analysis\""));

    // Asking once done: 200, the same analysis, nothing queued again.
    let after = ask(&srv, Some(&ann), &id);
    assert_eq!(
        after.expect(200)["requested_at"],
        first.json["requested_at"]
    );
    assert_eq!(after.json["moves"], done["moves"]);

    // The record with the analysis as comments, read back by the import.
    let r = srv.get(&format!("/v1/games/{id}/record?analysis=true"), None);
    assert_eq!(r.status.as_u16(), 200, "{}", r.text);
    let annotated = r.text.clone();
    assert_eq!(annotated.matches("{eval ").count(), 24, "{annotated}");
    assert!(annotated.contains(&engine), "{annotated}");
    let copy = import(&srv, &ann, &annotated, "public");
    let plain = |g: &str| {
        let t = srv.get(&format!("/v1/games/{g}/record"), None).text;
        t.lines()
            .filter(|l| {
                l.split_once(". ")
                    .is_some_and(|(n, _)| n.parse::<u32>().is_ok())
            })
            .map(String::from)
            .collect::<Vec<_>>()
    };
    assert_eq!(plain(&copy), plain(&id));
    assert_eq!(plain(&id).len(), 24);
    // A judgement in the record names the preferred move.
    for m in done["moves"].as_array().unwrap() {
        if let Some(j) = m["judgement"].as_str() {
            let text = format!("{j}, best was {}", m["best"].as_str().unwrap());
            assert!(annotated.contains(&text), "{text} not in {annotated}");
        }
    }
    srv.get(&format!("/v1/games/{copy}/record?analysis=true"), None)
        .problem(404, "not-found");
    srv.get(
        &format!("/v1/games/{id}/record?analysis=true&messages=true"),
        None,
    )
    .problem(400, "validation");

    // A game being played is not analysed; once over it is.
    let (game, players) = four_player_game(&srv, "live");
    ask(&srv, Some(&players[0]), &game).problem(409, "conflict");
    for p in &players[1..] {
        srv.post(
            &format!("/v1/games/{game}/resignation"),
            Some(&p.access),
            &json!({}),
        )
        .expect(201);
    }
    assert_eq!(summary(&srv, &game)["status"], "finished");
    assert_eq!(ask(&srv, Some(&players[0]), &game).status.as_u16(), 202);
    let done = wait_done(&srv, Some(&players[0]), &game, Duration::from_secs(60));
    assert_eq!(done["plies"], 0);
    assert_eq!(done["moves"], json!([]));
    assert_eq!(done["last"]["R"], 10000);
}

fn quotas(backend: Backend) {
    // Level 5 on one thread: the analyses stay queued or running during the test.
    let srv = TestServer::start_with(
        backend,
        &[
            ("DJAMBI_ANALYSIS_LEVEL", "5"),
            ("DJAMBI_ANALYSIS_CONCURRENCY", "1"),
            ("DJAMBI_BOT_THREADS", "1"),
            ("DJAMBI_ANALYSIS_PER_ACCOUNT_PER_DAY", "2"),
            ("DJAMBI_ANALYSIS_QUEUE_MAX", "3"),
        ],
    );
    let (ann, bob, cat) = (srv.user("ann"), srv.user("bob"), srv.user("cat"));
    let ids: Vec<String> = (0..5)
        .map(|i| import(&srv, &ann, &random_record(100 + i, 60).0, "public"))
        .collect();
    assert_eq!(ask(&srv, Some(&ann), &ids[0]).status.as_u16(), 202);
    assert_eq!(ask(&srv, Some(&ann), &ids[1]).status.as_u16(), 202);
    // The account's quota: a third is refused, asking again for one it has is not.
    let refused = ask(&srv, Some(&ann), &ids[2]);
    let p = refused.problem(429, "rate-limited");
    assert_eq!(p["quota"], "analyses_per_day");
    assert_eq!(p["limit"], 2);
    assert!(refused.header("retry-after").is_some());
    assert_eq!(ask(&srv, Some(&ann), &ids[0]).status.as_u16(), 202);
    // Another account may; and someone asking for an analysis there is charges nothing.
    assert_eq!(ask(&srv, Some(&bob), &ids[2]).status.as_u16(), 202);
    assert_eq!(ask(&srv, Some(&cat), &ids[0]).status.as_u16(), 202);
    // The site's quota: three wait or run.
    let full = ask(&srv, Some(&cat), &ids[3]);
    assert_eq!(
        full.problem(409, "quota-exceeded")["quota"],
        "analyses_pending"
    );
    read(&srv, None, &ids[3]).problem(404, "not-found");
}

fn engine_version_change_and_restart(backend: Backend) {
    let db = FreshDatabase::new(backend);
    let fast = [
        ("DJAMBI_ANALYSIS_LEVEL", "1"),
        ("DJAMBI_DUE_INTERVAL", "200ms"),
        ("DJAMBI_DUE_LEASE", "1s"),
    ];
    let (record, settings, actions) = random_record(7, 20);
    let (id, ann) = {
        let srv = TestServer::start_on_with(&db, &fast, None);
        let ann = srv.user("ann");
        let id = import(&srv, &ann, &record, "public");
        assert_eq!(ask(&srv, Some(&ann), &id).status.as_u16(), 202);
        let done = wait_done(&srv, None, &id, Duration::from_secs(120));
        assert!(
            done["engine_version"]
                .as_str()
                .unwrap()
                .ends_with("/level-1")
        );
        (id, ann)
    };
    // A new engine (here: another level) analyses the game again by itself.
    let level2 = [
        ("DJAMBI_ANALYSIS_LEVEL", "2"),
        ("DJAMBI_DUE_INTERVAL", "200ms"),
        ("DJAMBI_DUE_LEASE", "1s"),
    ];
    {
        let srv = TestServer::start_on_with(&db, &level2, None);
        let done = wait_done(&srv, None, &id, Duration::from_secs(120));
        assert!(
            done["engine_version"]
                .as_str()
                .unwrap()
                .ends_with("/level-2"),
            "{done}"
        );
        assert_matches_engine(&done, settings, &actions, 2);
    }

    // A server stopped while an analysis runs: the next one goes on and gets the same
    // result as an analysis without a stop.
    let (long, long_settings, long_actions) = random_record(8, 80);
    let long_plies = long_actions.len() as i64;
    assert!(long_plies >= 30, "a game of {long_plies} moves");
    let long_id = {
        let srv = TestServer::start_on_with(&db, &level2, None);
        let ann = srv.login(&ann.username, djambi_e2e::PASSWORD);
        let long_id = import(&srv, &ann, &long, "public");
        assert_eq!(ask(&srv, Some(&ann), &long_id).status.as_u16(), 202);
        let start = Instant::now();
        loop {
            let r = read(&srv, None, &long_id);
            let done = r.json["plies_done"].as_i64().unwrap_or(0);
            if r.status.as_u16() == 202 && done >= 1 {
                assert_eq!(r.json["status"], "running");
                assert!(done < long_plies, "{}", r.text);
                break;
            }
            assert_eq!(
                r.status.as_u16(),
                202,
                "finished before the stop: {}",
                r.text
            );
            assert!(start.elapsed() < Duration::from_secs(60));
            std::thread::sleep(Duration::from_millis(20));
        }
        long_id
    };
    let srv = TestServer::start_on_with(&db, &level2, None);
    let done = wait_done(&srv, None, &long_id, Duration::from_secs(180));
    assert_eq!(done["plies_done"], long_plies);
    assert_matches_engine(&done, long_settings, &long_actions, 2);
}

fn privacy(backend: Backend) {
    let srv = TestServer::start_with(
        backend,
        &[
            ("DJAMBI_ANALYSIS_LEVEL", "1"),
            ("DJAMBI_DUE_INTERVAL", "200ms"),
        ],
    );
    let (ann, bob) = (srv.user("ann"), srv.user("bob"));
    let (record, _, _) = random_record(3, 12);
    let id = import(&srv, &ann, &record, "invite");
    // Only its creator (or players) may ask for, or read, a game that is not public.
    ask(&srv, Some(&bob), &id).problem(404, "not-found");
    assert_eq!(ask(&srv, Some(&ann), &id).status.as_u16(), 202);
    read(&srv, None, &id).problem(404, "not-found");
    read(&srv, Some(&bob), &id).problem(404, "not-found");
    let done = wait_done(&srv, Some(&ann), &id, Duration::from_secs(120));
    assert_eq!(done["plies_done"], 12);
    read(&srv, Some(&bob), &id).problem(404, "not-found");
    read(&srv, None, &id).problem(404, "not-found");
    srv.get(
        &format!("/v1/games/{id}/record?analysis=true"),
        Some(&bob.access),
    )
    .problem(404, "not-found");
    let r = srv.get(
        &format!("/v1/games/{id}/record?analysis=true"),
        Some(&ann.access),
    );
    assert_eq!(r.status.as_u16(), 200, "{}", r.text);
    assert_eq!(r.text.matches("{eval ").count(), 12);
    // The players of an invite-only game played on the server may, others not.
    let (_, players) = four_player_game(&srv, "inv");
    let created = create(
        &srv,
        &players[0],
        json!({"seats": 4, "seat": "R", "visibility": "invite"}),
    );
    let g = created["id"].as_str().unwrap().to_string();
    let code = created["invite_code"].as_str().unwrap().to_string();
    for (p, seat) in players[1..].iter().zip(["B", "Y", "G"]) {
        let r = srv.post(
            &format!("/v1/games/{g}/seats/{seat}"),
            Some(&p.access),
            &json!({"invite_code": code}),
        );
        assert!(r.status.is_success(), "{}", r.text);
    }
    for p in &players[1..] {
        srv.post(
            &format!("/v1/games/{g}/resignation"),
            Some(&p.access),
            &json!({}),
        )
        .expect(201);
    }
    assert_eq!(summary(&srv, &g)["status"], "finished");
    ask(&srv, Some(&bob), &g).problem(404, "not-found");
    assert_eq!(ask(&srv, Some(&players[2]), &g).status.as_u16(), 202);
    wait_done(&srv, Some(&players[0]), &g, Duration::from_secs(60));
    read(&srv, Some(&bob), &g).problem(404, "not-found");
}

backend_tests!(
    request_progress_result_idempotency_and_record,
    quotas,
    engine_version_change_and_restart,
    privacy,
);
