//! Computer players in games: seated at creation or in an open seat, played by the server
//! as due work (the system actor, through the one write path), shown in views and
//! records; a game with three bots and a scripted person finishes over the API; bot-only
//! games are played out (ending as a win, or as the bots' agreed draw), on two instances
//! without a doubled move; every bot move replays as legal.

#[path = "support/games.rs"]
mod games;

use std::time::{Duration, Instant};

use djambi_e2e::{Backend, FreshDatabase, Login, Rng, TestServer, Value, backend_tests, json};
use games::*;
use reqwest::Method;

/// Bots move at once, the worker passes often.
/// Whole games quickly: bot-only games unthrottled (the fairness test keeps the limit).
const FAST: [(&str, &str); 3] = [
    ("DJAMBI_DUE_INTERVAL", "10ms"),
    ("DJAMBI_BOT_DELAY", "0"),
    ("DJAMBI_BOT_ONLY_PLIES_PER_SEC", "1000"),
];

backend_tests!(
    bots_answer_after_their_delay_not_the_interval,
    bots_answer_a_draw_offer,
    three_bots_and_a_scripted_person_finish_the_game,
    seating_bots_and_its_refusals,
    bot_only_games_are_played_out_and_replay,
);

fn fast_server(backend: Backend, draw_plies: &str) -> TestServer {
    TestServer::start_with(
        backend,
        &[
            FAST[0],
            FAST[1],
            FAST[2],
            ("DJAMBI_BOT_DRAW_PLIES", draw_plies),
        ],
    )
}

/// Waits up to `secs` for `f` to give something.
#[track_caller]
fn wait_for<T>(what: &str, secs: u64, mut f: impl FnMut() -> Option<T>) -> T {
    let until = Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(Instant::now() < until, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn seat_view<'a>(summary: &'a Value, seat: &str) -> &'a Value {
    summary["seats"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["seat"] == seat)
        .unwrap()
}

fn seat_bot(srv: &TestServer, who: &Login, id: &str, seat: &str, body: Value) -> djambi_e2e::Resp {
    srv.post(
        &format!("/v1/games/{id}/seats/{seat}/bot"),
        Some(&who.access),
        &body,
    )
}

/// Checks that every move in the log is a bot's (actor `null`) exactly when its seat is
/// a bot's, and returns how many bot moves there were.
fn check_actors(events: &[Value], bots: &[&str], person: Option<&Login>) -> usize {
    let mut bot_moves = 0;
    for e in events.iter().filter(|e| e["kind"] == "move_played") {
        let seat = e["payload"]["seat"].as_str().unwrap();
        if bots.contains(&seat) {
            assert!(e["actor_id"].is_null(), "a bot's move has no actor: {e}");
            bot_moves += 1;
        } else {
            let person = person.expect("a person's seat");
            assert_eq!(e["actor_id"], person.user_id.as_str(), "{e}");
        }
    }
    bot_moves
}

/// Red is a person playing random legal moves from `/legal-moves`; Blue, Yellow and Green
/// are bots of levels 1, 2, 1. The game finishes; the log replays; views and the record
/// show the bots.
fn three_bots_and_a_scripted_person_finish_the_game(backend: Backend) {
    let srv = fast_server(backend, "300");
    let ann = srv.user("ann");
    let game = create(
        &srv,
        &ann,
        json!({"seats": 4, "seat": "R", "bots": [
            {"seat": "B", "level": 1}, {"seat": "Y", "level": 2}, {"seat": "G", "level": 1}
        ]}),
    );
    let id = game["id"].as_str().unwrap().to_string();
    assert_eq!(game["status"], "active", "bots fill the seats: {game}");
    assert_eq!(game["open_seats"], json!([]));
    assert_eq!(seat_view(&game, "R")["bot"], Value::Null);
    assert_eq!(seat_view(&game, "R")["username"], "ann");
    assert_eq!(seat_view(&game, "Y")["bot"], json!({"level": 2}));
    assert_eq!(seat_view(&game, "Y")["user_id"], Value::Null);
    assert_eq!(game["to_move"], "R");
    assert_eq!(game["to_move_user_id"], ann.user_id.as_str());
    let state = srv
        .get(&format!("/v1/games/{id}/state"), None)
        .expect(200)
        .clone();
    assert_eq!(state["bots"], json!({"B": 1, "Y": 2, "G": 1}));

    let mut rng = Rng::new(2026);
    let mut my_moves = 0;
    let started = Instant::now();
    loop {
        let s = wait_for("Red's turn or the end", 60, || {
            let s = summary(&srv, &id);
            (s["status"] == "finished" || s["to_move_user_id"] == ann.user_id.as_str()).then_some(s)
        });
        if s["status"] == "finished" {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the game goes on"
        );
        let legal = srv
            .get(&format!("/v1/games/{id}/legal-moves?limit=500"), None)
            .expect(200)
            .clone();
        let moves = legal["moves"].as_array().unwrap();
        let mv = moves[rng.below(moves.len())]["text"].clone();
        let version = s["version"].as_i64().unwrap();
        play(&srv, &ann, &id, mv, version).expect(201);
        my_moves += 1;
    }
    assert!(my_moves > 0);
    let events = all_events(&srv, &id);
    let bot_moves = check_actors(&events, &["B", "Y", "G"], Some(&ann));
    assert!(
        bot_moves >= my_moves,
        "{bot_moves} bot moves, {my_moves} of Red's"
    );
    check_log_replays(&srv, &id);
    let seated: Vec<&Value> = events
        .iter()
        .filter(|e| e["kind"] == "bot_seated")
        .collect();
    assert_eq!(seated.len(), 3);
    assert_eq!(seated[1]["payload"], json!({"seat": "Y", "level": 2}));

    let record = srv.get(&format!("/v1/games/{id}/record"), None);
    assert_eq!(record.status, 200);
    for line in [
        "[Red \"ann\"]",
        "[Blue \"Bot (level 1)\"]",
        "[BlueType \"bot\"]",
        "[Yellow \"Bot (level 2)\"]",
        "[YellowType \"bot\"]",
        "[GreenType \"bot\"]",
    ] {
        assert!(record.text.contains(line), "{line} in\n{}", record.text);
    }
    assert!(!record.text.contains("RedType"), "{}", record.text);
    // The record reads back (an import checks every action and the result).
    let imported = srv
        .send(
            srv.request(Method::POST, "/v1/games/import")
                .bearer_auth(&ann.access)
                .header("content-type", "text/plain; charset=utf-8")
                .body(record.text.clone()),
        )
        .expect(201)
        .clone();
    assert_eq!(imported["status"], "finished");
    assert_eq!(imported["result"], summary(&srv, &id)["result"]);
}

/// Three bots in a row answer after their delay each, however long the worker's interval:
/// the pass that a bot's own write wakes may run before that game's lease is released and
/// pass it over, so the release wakes the worker again. (Without it each bot after the
/// first waited for `DJAMBI_DUE_INTERVAL`, here 30 s: 5 s with the default.)
fn bots_answer_after_their_delay_not_the_interval(backend: Backend) {
    let srv = TestServer::start_with(
        backend,
        &[
            ("DJAMBI_DUE_INTERVAL", "30s"),
            ("DJAMBI_BOT_DELAY", "200ms"),
        ],
    );
    let ann = srv.user("ann");
    let game = create(
        &srv,
        &ann,
        json!({"seats": 4, "seat": "R", "bots": [
            {"seat": "B", "level": 1}, {"seat": "Y", "level": 1}, {"seat": "G", "level": 1}
        ]}),
    );
    let id = game["id"].as_str().unwrap().to_string();
    for round in 0..3 {
        let s = wait_for("Red's turn", 20, || {
            let s = summary(&srv, &id);
            (s["to_move_user_id"] == ann.user_id.as_str() || s["status"] != "active").then_some(s)
        });
        if s["status"] != "active" {
            break;
        }
        let version = s["version"].as_i64().unwrap();
        let mv = first_legal(&srv, &id);
        play(&srv, &ann, &id, json!(mv), version).expect(201);
        let played = Instant::now();
        wait_for("the three bots' answers", 20, || {
            let s = summary(&srv, &id);
            (s["to_move_user_id"] == ann.user_id.as_str() || s["status"] != "active").then_some(())
        });
        assert!(
            played.elapsed() < Duration::from_secs(5),
            "round {round}: three bots of 200 ms took {:?}",
            played.elapsed()
        );
    }
}

/// Who may seat a bot, where and when; the refusals write nothing.
fn seating_bots_and_its_refusals(backend: Backend) {
    let srv = TestServer::start_with(backend, &FAST);
    let ann = srv.user("ann");
    let bob = srv.user("bob");
    let eve = srv.user("eve");

    // Creation: the bots are checked.
    for (bots, why) in [
        (json!([{"seat": "R", "level": 1}]), "the creator's seat"),
        (
            json!([{"seat": "B", "level": 1}, {"seat": "B", "level": 2}]),
            "twice",
        ),
        (json!([{"seat": "B", "level": 0}]), "level 0"),
        (json!([{"seat": "B", "level": 6}]), "level 6"),
    ] {
        let r = srv.post(
            "/v1/games",
            Some(&ann.access),
            &json!({"seats": 4, "seat": "R", "bots": bots}),
        );
        r.problem(400, "validation");
        assert_eq!(r.error_fields(), ["bots"], "{why}");
    }
    let r = srv.post(
        "/v1/games",
        Some(&ann.access),
        &json!({"seats": 3, "empty_seat": "G", "seat": "R", "bots": [{"seat": "G", "level": 1}]}),
    );
    r.problem(400, "validation");
    let r = srv.post(
        "/v1/games",
        Some(&ann.access),
        &json!({"seat": "R", "bots": [{"seat": "B", "level": 1, "style": "mean"}]}),
    );
    assert_eq!(r.status, 400, "{}", r.text);

    // A four-seat game: Ann at Red, a bot at Blue.
    let game = create(
        &srv,
        &ann,
        json!({"seats": 4, "seat": "R", "bots": [{"seat": "B", "level": 3}]}),
    );
    let id = game["id"].as_str().unwrap().to_string();
    assert_eq!(game["status"], "open");
    assert_eq!(game["open_seats"], json!(["Y", "G"]));
    assert_eq!(seat_view(&game, "B")["bot"], json!({"level": 3}));
    let lobby = srv.get("/v1/games", None).expect(200).clone();
    let listed = lobby["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["id"] == id.as_str())
        .expect("the open game is in the lobby")
        .clone();
    assert_eq!(listed["open_seats"], json!(["Y", "G"]));
    let version = game["version"].as_i64().unwrap();

    // Nobody takes, leaves or re-seats a bot's seat.
    take_seat(&srv, &bob, &id, "B").problem(409, "seat-taken");
    seat_bot(&srv, &ann, &id, "B", json!({"level": 1})).problem(409, "seat-taken");
    srv.delete(&format!("/v1/games/{id}/seats/B"), Some(&ann.access))
        .problem(409, "conflict");
    // A seat a person holds is taken too.
    seat_bot(&srv, &ann, &id, "R", json!({"level": 1})).problem(409, "seat-taken");
    // Only the creator or a seated player may seat a bot.
    seat_bot(&srv, &eve, &id, "Y", json!({"level": 1})).problem(403, "forbidden");
    // The body: a level 1 to 5, nothing else.
    for body in [
        json!({}),
        json!({"level": 0}),
        json!({"level": 9}),
        json!({"level": "3"}),
    ] {
        let r = seat_bot(&srv, &ann, &id, "Y", body.clone());
        assert_eq!(r.status, 400, "{body}: {}", r.text);
    }
    let r = srv.send(
        srv.request(Method::POST, &format!("/v1/games/{id}/seats/Y/bot"))
            .bearer_auth(&ann.access),
    );
    r.problem(400, "validation");
    seat_bot(&srv, &ann, &id, "X", json!({"level": 1})).problem(400, "validation");
    seat_bot(&srv, &ann, "no-such-game", "Y", json!({"level": 1})).problem(404, "not-found");
    // A personal access token with only `read` cannot.
    let (_, pat) = srv.pat(&ann, &["read"]);
    let r = srv.post(
        &format!("/v1/games/{id}/seats/Y/bot"),
        Some(&pat),
        &json!({"level": 1}),
    );
    assert_eq!(r.status, 403, "{}", r.text);
    // A stale expected version.
    seat_bot(
        &srv,
        &ann,
        &id,
        "Y",
        json!({"level": 1, "expected_version": 1}),
    )
    .problem(412, "version-conflict");
    assert_eq!(
        summary(&srv, &id)["version"],
        version,
        "refusals write nothing"
    );

    // Bob sits at Yellow; as a seated player he seats a bot at Green, with a key: the
    // game starts, and a retry replays the answer.
    take_seat(&srv, &bob, &id, "Y").expect(200);
    let seat_green = || {
        srv.send(
            srv.request(Method::POST, &format!("/v1/games/{id}/seats/G/bot"))
                .bearer_auth(&bob.access)
                .header("Idempotency-Key", "green-bot")
                .json(&json!({"level": 2})),
        )
    };
    let first = seat_green();
    let started = first.expect(200).clone();
    assert_eq!(started["status"], "active");
    assert_eq!(started["open_seats"], json!([]));
    assert_eq!(
        first.header("etag"),
        Some(format!("\"{}\"", started["version"]).as_str())
    );
    let again = seat_green();
    assert_eq!(again.expect(200), &started);
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    let events = all_events(&srv, &id);
    let kinds: Vec<&str> = events.iter().map(|e| e["kind"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "created",
            "seat_taken",
            "bot_seated",
            "seat_taken",
            "bot_seated",
            "started"
        ]
    );
    assert_eq!(events[4]["actor_id"], bob.user_id.as_str());
    // Too late now.
    seat_bot(&srv, &ann, &id, "G", json!({"level": 1})).problem(409, "seat-taken");

    // Red (a person) is to move: no bot moves. After Red's move, Blue's bot answers, and
    // Yellow (Bob) is to move with no deadline shown for a bot in between.
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(summary(&srv, &id)["version"], started["version"]);
    let mv = srv
        .get(&format!("/v1/games/{id}/legal-moves"), None)
        .expect(200)["moves"][0]["text"]
        .clone();
    let v = started["version"].as_i64().unwrap();
    play(&srv, &ann, &id, mv, v).expect(201);
    let s = wait_for("Blue's bot to move", 20, || {
        let s = summary(&srv, &id);
        (s["to_move"] == "Y").then_some(s)
    });
    assert_eq!(s["version"], v + 2);
    assert_eq!(s["to_move_user_id"], bob.user_id.as_str());
    let events = all_events(&srv, &id);
    let last = events.last().unwrap();
    assert_eq!(last["kind"], "move_played");
    assert_eq!(last["payload"]["seat"], "B");
    assert!(last["actor_id"].is_null());
    check_log_replays(&srv, &id);
}

/// Bot-only games (four seats, and three with a hostage party) are played out by the
/// server; from `DJAMBI_BOT_DRAW_PLIES` on the bots agree a draw. Every bot move replays
/// as legal, the projection equals the log.
fn bot_only_games_are_played_out_and_replay(backend: Backend) {
    let srv = fast_server(backend, "40");
    let ann = srv.user("ann");
    let mut ids = Vec::new();
    for (seats, bots) in [
        (
            4,
            json!([{"seat": "R", "level": 1}, {"seat": "B", "level": 2}, {"seat": "Y", "level": 1}, {"seat": "G", "level": 3}]),
        ),
        (
            3,
            json!([{"seat": "R", "level": 2}, {"seat": "B", "level": 1}, {"seat": "Y", "level": 1}]),
        ),
        (
            4,
            json!([{"seat": "R", "level": 1}, {"seat": "B", "level": 1}, {"seat": "Y", "level": 1}, {"seat": "G", "level": 1}]),
        ),
    ] {
        let game = create(&srv, &ann, json!({"seats": seats, "bots": bots}));
        assert_eq!(game["status"], "active");
        assert_eq!(game["to_move_user_id"], Value::Null);
        assert_eq!(game["deadline"], Value::Null);
        ids.push(game["id"].as_str().unwrap().to_string());
    }
    for id in &ids {
        let s = wait_for("a bot-only game to end", 60, || {
            let s = summary(&srv, id);
            (s["status"] == "finished").then_some(s)
        });
        let events = all_events(&srv, id);
        let bot_moves = check_actors(&events, &["R", "B", "Y", "G"], None);
        let result = &s["result"];
        match result["reason"].as_str().unwrap() {
            "draw_agreed" => {
                assert!(s["ply"].as_i64().unwrap() >= 40, "{s}");
                // After the last move: the bot to move offers, the others accept, ended.
                let last_move = events
                    .iter()
                    .rposition(|e| e["kind"] == "move_played")
                    .unwrap();
                let tail = &events[last_move + 1..];
                let kinds: Vec<&str> = tail.iter().map(|e| e["kind"].as_str().unwrap()).collect();
                let active = result["seats"].as_array().unwrap().len();
                assert_eq!(kinds.len(), active + 1, "{kinds:?}");
                assert_eq!(kinds[0], "draw_offered");
                assert!(kinds[1..active].iter().all(|k| *k == "draw_accepted"));
                assert_eq!(kinds[active], "ended");
                assert!(tail.iter().all(|e| e["actor_id"].is_null()));
            }
            _ => assert!(s["ply"].as_i64().unwrap() <= 40, "{s}"),
        }
        assert_eq!(bot_moves as i64, s["ply"].as_i64().unwrap());
        check_log_replays(&srv, id);
    }
}

/// Two instances on one PostgreSQL database play a bot-only game to the end: each version
/// is written once (no doubled move), every move by the server, and the projection check
/// finds nothing to report.
#[test]
fn two_instances_never_double_a_bot_move() {
    let db = FreshDatabase::new(Backend::Postgres);
    let settings = [
        ("DJAMBI_DUE_INTERVAL", "2ms"),
        ("DJAMBI_BOT_DELAY", "0"),
        ("DJAMBI_BOT_DRAW_PLIES", "250"),
        ("DJAMBI_BOT_ONLY_PLIES_PER_SEC", "1000"),
    ];
    let servers: Vec<TestServer> = (0..2)
        .map(|_| TestServer::start_on_with(&db, &settings, None))
        .collect();
    let ann = servers[0].user("ann");
    let mut ids = Vec::new();
    for levels in [[1, 2, 1, 2], [2, 1, 1, 1]] {
        let bots: Vec<Value> = SEATS
            .iter()
            .zip(levels)
            .map(|(seat, level)| json!({"seat": seat, "level": level}))
            .collect();
        let game = create(&servers[0], &ann, json!({"bots": bots}));
        ids.push(game["id"].as_str().unwrap().to_string());
    }
    for id in &ids {
        wait_for("the bot-only game to end", 90, || {
            (summary(&servers[1], id)["status"] == "finished").then_some(())
        });
        let events = all_events(&servers[1], id);
        let seqs: Vec<i64> = events.iter().map(|e| e["seq"].as_i64().unwrap()).collect();
        assert_eq!(seqs, (1..=events.len() as i64).collect::<Vec<_>>());
        let moves = check_actors(&events, &["R", "B", "Y", "G"], None);
        assert!(moves > 0);
        check_log_replays(&servers[0], id);
        check_log_replays(&servers[1], id);
    }
    std::thread::sleep(Duration::from_millis(100));
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
    assert!(report.contains("2 games checked"), "{report}");
    drop(servers);
}

/// A person offers a draw in a game with three bots: the bots answer it (by their
/// evaluation: at the start nobody stands better, so they accept) within a due pass, as
/// the server (actor `null`), and the game ends as an agreed draw. The summary's deadline
/// meanwhile is the log's.
fn bots_answer_a_draw_offer(backend: Backend) {
    let srv = TestServer::start_with(
        backend,
        &[
            ("DJAMBI_DUE_INTERVAL", "10ms"),
            ("DJAMBI_BOT_DELAY", "200ms"),
        ],
    );
    let ann = srv.user("ann_draw");
    let game = create(
        &srv,
        &ann,
        json!({"seats": 4, "seat": "R", "time_control": {"per_move_secs": 86400}, "bots": [
            {"seat": "B", "level": 1}, {"seat": "Y", "level": 1}, {"seat": "G", "level": 1}
        ]}),
    );
    let id = game["id"].as_str().unwrap().to_string();
    let deadline = game["deadline"].clone();
    assert!(deadline.is_string(), "{game}");
    srv.post(
        &format!("/v1/games/{id}/draw-offer"),
        Some(&ann.access),
        &json!({"action": "offer"}),
    )
    .expect(200);
    // Before the bots' delay the summary still shows Red's deadline, not the worker's time.
    let s = summary(&srv, &id);
    if s["status"] == "active" {
        assert_eq!(s["deadline"], deadline, "{s}");
    }
    let s = wait_for("the bots' answers", 20, || {
        let s = summary(&srv, &id);
        (s["status"] == "finished").then_some(s)
    });
    assert_eq!(s["result"]["reason"], "draw_agreed", "{s}");
    let events = all_events(&srv, &id);
    let tail: Vec<(&str, &Value)> = events
        .iter()
        .skip_while(|e| e["kind"] != "draw_offered")
        .map(|e| (e["kind"].as_str().unwrap(), &e["actor_id"]))
        .collect();
    assert_eq!(tail[0], ("draw_offered", &json!(ann.user_id)));
    let accepted: Vec<&Value> = events
        .iter()
        .filter(|e| e["kind"] == "draw_accepted")
        .map(|e| &e["payload"]["seat"])
        .collect();
    assert_eq!(accepted, [&json!("B"), &json!("Y"), &json!("G")]);
    assert!(
        tail[1..].iter().all(|(_, actor)| actor.is_null()),
        "{tail:?}"
    );
    assert_eq!(tail.last().unwrap().0, "ended");
    check_log_replays(&srv, &id);
}
