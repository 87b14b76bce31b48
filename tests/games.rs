//! Games over the API, end to end on PostgreSQL and SQLite: whole random games, three
//! players with a hostage, resignations, agreed draws, invite-only games, the lobby and
//! "my games", idempotent retries, stale versions and every bad input.

#[path = "support/games.rs"]
mod games;

use djambi_e2e::{Backend, Login, TestServer, backend_tests, json};
use games::*;
use reqwest::Method;

backend_tests!(
    idempotency_keys_expire,
    a_whole_random_game_replays_at_every_version,
    three_players_with_a_hostage,
    resignations_end_the_game,
    an_agreed_draw_needs_every_active_seat,
    invite_only_games,
    lobby_and_my_games,
    seats_can_be_left_before_the_start,
    idempotent_retries_write_nothing,
    stale_versions_are_refused,
    bad_input_changes_nothing,
    reading_needs_no_token,
    the_documented_bounds_are_the_enforced_ones,
);

/// Plies after which a random game is finished by resignations.
const MAX_PLIES: usize = 400;

/// Plays random legal moves (taken from `legal-moves`) until the game ends or `max`
/// plies; alternates text and JSON forms, `expected_version` and `If-Match`.
fn play_random(srv: &TestServer, id: &str, players: &[Login], rng: &mut Rng, max: usize) -> usize {
    let mut plies = 0;
    while plies < max {
        let s = summary(srv, id);
        if s["status"] != "active" {
            break;
        }
        let version = s["version"].as_i64().unwrap();
        let uid = s["to_move_user_id"].as_str().unwrap();
        let who = players.iter().find(|p| p.user_id == uid).unwrap();
        let lm = srv
            .get(&format!("/v1/games/{id}/legal-moves?limit=2000"), None)
            .expect(200)
            .clone();
        assert_eq!(lm["seat"], s["to_move"]);
        assert_eq!(lm["version"], version);
        let moves = lm["moves"].as_array().unwrap();
        assert!(!moves.is_empty(), "the seat to move always has a move");
        let pick = &moves[rng.below(moves.len())];
        let r = match plies % 3 {
            0 => play(srv, who, id, pick["text"].clone(), version),
            1 => play(srv, who, id, pick["move"].clone(), version),
            _ => srv.send(
                srv.request(Method::POST, &format!("/v1/games/{id}/moves"))
                    .bearer_auth(&who.access)
                    .header("If-Match", format!("\"{version}\""))
                    .json(&json!({"move": pick["text"]})),
            ),
        };
        let b = r.expect(201);
        assert_eq!(
            r.header("etag"),
            Some(format!("\"{}\"", b["version"]).as_str())
        );
        assert_eq!(b["move"]["text"], pick["text"]);
        assert!(b["version"].as_i64().unwrap() > version);
        assert!(b["effects"].as_array().is_some_and(|e| !e.is_empty()));
        plies += 1;
    }
    plies
}

/// Resigns seats (in seat order) until the game is over.
fn resign_until_over(srv: &TestServer, id: &str, players: &[Login]) {
    for p in players {
        if summary(srv, id)["status"] != "active" {
            return;
        }
        let r = srv.post(
            &format!("/v1/games/{id}/resignation"),
            Some(&p.access),
            &json!({}),
        );
        // A seat already eliminated cannot resign.
        assert!(r.status == 201 || r.status == 409, "{}", r.text);
    }
}

fn a_whole_random_game_replays_at_every_version(backend: Backend) {
    let srv = TestServer::start(backend);
    let (id, players) = four_player_game(&srv, "rnd");
    let s = summary(&srv, &id);
    assert_eq!(s["status"], "active");
    assert_eq!(s["to_move"], "R");
    assert_eq!(s["version"], 6, "created, 4 seats, started");
    let mut rng = Rng::new(0x5eed_0001);
    let plies = play_random(&srv, &id, &players, &mut rng, MAX_PLIES);
    if summary(&srv, &id)["status"] == "active" {
        eprintln!("random game still going after {plies} plies: finishing it by resignations");
        resign_until_over(&srv, &id, &players);
    }
    let s = summary(&srv, &id);
    assert_eq!(s["status"], "finished", "{s}");
    assert!(s["result"]["ranking"].is_array());
    let n = check_log_replays(&srv, &id);
    eprintln!("{backend:?}: {plies} plies, {n} events, every version replayed");

    // The game is over: no more actions.
    let v = s["version"].as_i64().unwrap();
    play(&srv, &players[0], &id, json!("C8-D7"), v).problem(409, "game-over");
    srv.post(
        &format!("/v1/games/{id}/resignation"),
        Some(&players[1].access),
        &json!({}),
    )
    .problem(409, "game-over");
    let lm = srv
        .get(&format!("/v1/games/{id}/legal-moves"), None)
        .expect(200)
        .clone();
    assert_eq!(lm["total"], 0);
    assert!(lm["seat"].is_null());

    // The record reads back to the same game.
    let r = srv.get(&format!("/v1/games/{id}/record"), None);
    assert_eq!(r.status, 200);
    assert!(
        r.content_type().starts_with("text/plain"),
        "{}",
        r.content_type()
    );
    assert!(r.text.contains("[Red \"rnd_r\"]"), "{}", r.text);
    let record = domain::read_record(&r.text).expect("the record reads back");
    let (_, actions) = actions_of(&all_events(&srv, &id));
    assert_eq!(record.actions, actions);
}

fn three_players_with_a_hostage(backend: Backend) {
    let srv = TestServer::start(backend);
    let r = srv.user("tri_r");
    let y = srv.user("tri_y");
    let g = srv.user("tri_g");
    let game = create(
        &srv,
        &y,
        json!({"seats": 3, "empty_seat": "B", "seat": "Y"}),
    );
    let id = game["id"].as_str().unwrap().to_string();
    assert_eq!(game["seats_in_play"], json!(["R", "Y", "G"]));
    assert_eq!(game["hostage_seat"], "B");
    assert_eq!(game["open_seats"], json!(["R", "G"]));
    // The empty seat cannot be taken.
    take_seat(&srv, &r, &id, "B").problem(409, "conflict");
    take_seat(&srv, &r, &id, "R").expect(200);
    let s = take_seat(&srv, &g, &id, "G").expect(200).clone();
    assert_eq!(s["status"], "active");
    assert_eq!(s["to_move"], "R");
    let st = srv
        .get(&format!("/v1/games/{id}/state"), None)
        .expect(200)
        .clone();
    assert_eq!(st["controls"]["B"], "hostage");
    assert_eq!(st["active_seats"], json!(["R", "Y", "G"]));
    assert!(
        st["dfen"].as_str().unwrap().ends_with(" R RhYG 0"),
        "{}",
        st["dfen"]
    );
    let players = vec![r, y, g];
    let mut rng = Rng::new(3);
    play_random(&srv, &id, &players, &mut rng, 30);
    resign_until_over(&srv, &id, &players);
    check_log_replays(&srv, &id);
}

fn resignations_end_the_game(backend: Backend) {
    let srv = TestServer::start(backend);
    let (id, p) = four_player_game(&srv, "res");
    // Yellow resigns out of turn: its party is hostage, Red is still to move.
    let r = srv.post(
        &format!("/v1/games/{id}/resignation"),
        Some(&p[2].access),
        &json!({}),
    );
    let b = r.expect(201).clone();
    assert_eq!(b["eliminated"], json!(["Y"]));
    assert_eq!(b["turn"]["seat"], "R");
    assert_eq!(b["status"], "active");
    assert!(
        b["effects"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["type"] == "control_changed")
    );
    srv.post(
        &format!("/v1/games/{id}/resignation"),
        Some(&p[2].access),
        &json!({}),
    )
    .problem(409, "conflict");
    // An eliminated seat is never to move.
    let v = b["version"].as_i64().unwrap();
    play(&srv, &p[2], &id, json!("G2-F3"), v).problem(409, "not-your-turn");
    // Red resigns on its turn: the turn passes to Blue.
    let b = srv
        .post(
            &format!("/v1/games/{id}/resignation"),
            Some(&p[0].access),
            &json!({"expected_version": v}),
        )
        .expect(201)
        .clone();
    assert_eq!(b["turn"]["seat"], "B");
    // Blue resigns: Green wins.
    let b = srv
        .post(
            &format!("/v1/games/{id}/resignation"),
            Some(&p[1].access),
            &json!({}),
        )
        .expect(201)
        .clone();
    assert_eq!(b["status"], "finished");
    assert_eq!(b["result"]["kind"], "win");
    assert_eq!(b["result"]["seats"], json!(["G"]));
    assert_eq!(b["result"]["reason"], "resignation");
    assert_eq!(b["result"]["ranking"], json!([["G"], ["B"], ["R"], ["Y"]]));
    assert_eq!(b["events"].as_array().unwrap().len(), 2, "resigned + ended");
    srv.post(
        &format!("/v1/games/{id}/resignation"),
        Some(&p[3].access),
        &json!({}),
    )
    .problem(409, "game-over");
    check_log_replays(&srv, &id);
}

fn draw(srv: &TestServer, who: &Login, id: &str, action: &str) -> djambi_e2e::Resp {
    srv.post(
        &format!("/v1/games/{id}/draw-offer"),
        Some(&who.access),
        &json!({"action": action}),
    )
}

fn an_agreed_draw_needs_every_active_seat(backend: Backend) {
    let srv = TestServer::start(backend);
    let (id, p) = four_player_game(&srv, "drw");
    draw(&srv, &p[0], &id, "accept").problem(409, "conflict");
    draw(&srv, &p[0], &id, "bogus").problem(400, "validation");
    let b = draw(&srv, &p[1], &id, "offer").expect(200).clone();
    assert_eq!(b["draw_offer"]["by"], "B");
    assert_eq!(b["draw_offer"]["waiting_for"], json!(["R", "Y", "G"]));
    draw(&srv, &p[2], &id, "offer").problem(409, "conflict");
    draw(&srv, &p[1], &id, "accept").problem(409, "conflict");
    draw(&srv, &p[0], &id, "accept").expect(200);
    // A move cancels the offer.
    let v = version(&srv, &id);
    let b = play(&srv, &p[0], &id, json!("C8-D7"), v)
        .expect(201)
        .clone();
    assert!(b["draw_offer"].is_null());
    draw(&srv, &p[2], &id, "accept").problem(409, "conflict");
    // A declined offer is gone.
    draw(&srv, &p[2], &id, "offer").expect(200);
    draw(&srv, &p[3], &id, "decline").expect(200);
    draw(&srv, &p[0], &id, "accept").problem(409, "conflict");
    // Yellow resigns: only the three active seats need to agree.
    srv.post(
        &format!("/v1/games/{id}/resignation"),
        Some(&p[2].access),
        &json!({}),
    )
    .expect(201);
    draw(&srv, &p[2], &id, "offer").problem(409, "conflict");
    draw(&srv, &p[3], &id, "offer").expect(200);
    draw(&srv, &p[0], &id, "accept").expect(200);
    let b = draw(&srv, &p[1], &id, "accept").expect(200).clone();
    assert_eq!(b["status"], "finished");
    assert_eq!(b["result"]["kind"], "draw");
    assert_eq!(b["result"]["reason"], "draw_agreed");
    assert_eq!(b["result"]["seats"], json!(["R", "B", "G"]));
    assert_eq!(b["result"]["ranking"], json!([["R", "B", "G"], ["Y"]]));
    let kinds: Vec<String> = all_events(&srv, &id)
        .iter()
        .map(|e| e["kind"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(kinds[kinds.len() - 2..], ["draw_accepted", "ended"]);
    draw(&srv, &p[0], &id, "offer").problem(409, "game-over");
    check_log_replays(&srv, &id);
}

fn invite_only_games(backend: Backend) {
    let srv = TestServer::start(backend);
    let host = srv.user("inv_host");
    let guest = srv.user("inv_guest");
    let stranger = srv.user("inv_stranger");
    let g = create(&srv, &host, json!({"visibility": "invite", "seat": "R"}));
    let id = g["id"].as_str().unwrap().to_string();
    let code = g["invite_code"]
        .as_str()
        .expect("the creator sees the code")
        .to_string();
    assert_eq!(g["visibility"], "invite");
    // Not listed; readable by id; the code is shown only to the creator and players.
    let lobby = srv.get("/v1/games", None).expect(200).clone();
    assert!(
        lobby["items"]
            .as_array()
            .unwrap()
            .iter()
            .all(|x| x["id"] != id)
    );
    assert!(summary(&srv, &id).get("invite_code").is_none());
    let seen = srv
        .get(&format!("/v1/games/{id}"), Some(&stranger.access))
        .expect(200)
        .clone();
    assert!(seen.get("invite_code").is_none());
    // The events never show it.
    let events = all_events(&srv, &id);
    assert!(events[0]["payload"].get("invite_code").is_none());
    take_seat(&srv, &stranger, &id, "B").problem(403, "forbidden");
    srv.post(
        &format!("/v1/games/{id}/seats/B"),
        Some(&stranger.access),
        &json!({"invite_code": "wrong"}),
    )
    .problem(403, "forbidden");
    let s = srv
        .post(
            &format!("/v1/games/{id}/seats/B"),
            Some(&guest.access),
            &json!({"invite_code": code}),
        )
        .expect(200)
        .clone();
    assert_eq!(s["invite_code"], code.as_str());
    assert_eq!(s["open_seats"], json!(["Y", "G"]));
}

fn lobby_and_my_games(backend: Backend) {
    let srv = TestServer::start(backend);
    let a = srv.user("lob_a");
    let mut ids = Vec::new();
    for _ in 0..3 {
        ids.push(
            create(&srv, &a, json!({"seat": "R"}))["id"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    // Newest first, one per page, following `next`.
    let mut seen = Vec::new();
    let mut path = "/v1/games?limit=1".to_string();
    loop {
        let page = srv.get(&path, None).expect(200).clone();
        for item in page["items"].as_array().unwrap() {
            assert_eq!(item["status"], "open");
            seen.push(item["id"].as_str().unwrap().to_string());
        }
        match page["next"].as_str() {
            Some(n) => path = n.to_string(),
            None => break,
        }
    }
    ids.reverse();
    assert_eq!(seen, ids);
    srv.get("/v1/games?status=bogus", None)
        .problem(400, "validation");
    srv.get("/v1/games?after=garbage", None)
        .problem(400, "validation");
    assert_eq!(
        srv.get("/v1/games?status=active", None).expect(200)["items"],
        json!([])
    );

    let (gid, p) = four_player_game(&srv, "mine");
    let active = srv.get("/v1/games?status=active", None).expect(200).clone();
    assert_eq!(active["items"][0]["id"], gid.as_str());
    // Red is to move: the game waits on Red only.
    let red = srv
        .get("/v1/me/games?turn=mine", Some(&p[0].access))
        .expect(200)
        .clone();
    assert_eq!(red["items"].as_array().unwrap().len(), 1);
    assert_eq!(red["items"][0]["id"], gid.as_str());
    let blue = srv
        .get("/v1/me/games?turn=mine", Some(&p[1].access))
        .expect(200)
        .clone();
    assert_eq!(blue["items"], json!([]));
    let all = srv
        .get("/v1/me/games", Some(&p[1].access))
        .expect(200)
        .clone();
    assert_eq!(all["items"].as_array().unwrap().len(), 1);
    play(&srv, &p[0], &gid, json!("C8-D7"), 6).expect(201);
    let blue = srv
        .get("/v1/me/games?turn=mine", Some(&p[1].access))
        .expect(200)
        .clone();
    assert_eq!(blue["items"][0]["id"], gid.as_str());
    assert_eq!(blue["items"][0]["to_move"], "B");
    // A's three open games (A holds R in each) are A's games, not waiting on A.
    let mine = srv
        .get("/v1/me/games?status=open&limit=2", Some(&a.access))
        .expect(200)
        .clone();
    assert_eq!(mine["items"].as_array().unwrap().len(), 2);
    assert!(mine["next"].as_str().unwrap().contains("status=open"));
    srv.get("/v1/me/games", None).problem(401, "unauthorized");
    srv.get("/v1/me/games?turn=yours", Some(&a.access))
        .problem(400, "validation");
}

fn seats_can_be_left_before_the_start(backend: Backend) {
    let srv = TestServer::start(backend);
    let a = srv.user("seat_a");
    let b = srv.user("seat_b");
    let g = create(&srv, &a, json!({"seats": 3}));
    let id = g["id"].as_str().unwrap().to_string();
    assert_eq!(
        g["seats"][0]["user_id"],
        json!(null),
        "the creator did not sit"
    );
    take_seat(&srv, &a, &id, "R").expect(200);
    take_seat(&srv, &b, &id, "R").problem(409, "seat-taken");
    take_seat(&srv, &a, &id, "B").problem(409, "conflict");
    take_seat(&srv, &a, &id, "G").problem(409, "conflict");
    take_seat(&srv, &a, &id, "X").problem(400, "validation");
    srv.delete(&format!("/v1/games/{id}/seats/R"), Some(&b.access))
        .problem(403, "forbidden");
    srv.delete(&format!("/v1/games/{id}/seats/B"), Some(&b.access))
        .problem(409, "conflict");
    let s = srv
        .delete(&format!("/v1/games/{id}/seats/R"), Some(&a.access))
        .expect(200)
        .clone();
    assert_eq!(s["open_seats"], json!(["R", "B", "Y"]));
    take_seat(&srv, &b, &id, "R").expect(200);
    let kinds: Vec<String> = all_events(&srv, &id)
        .iter()
        .map(|e| e["kind"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(kinds, ["created", "seat_taken", "seat_left", "seat_taken"]);
}

/// Answers stored under an `Idempotency-Key` are forgotten after the retention: the key
/// is then new again.
fn idempotency_keys_expire(backend: Backend) {
    let srv = TestServer::start_with(backend, &[("DJAMBI_IDEMPOTENCY_RETENTION", "1s")]);
    let (id, p) = four_player_game(&srv, "expire");
    let send = |body: serde_json::Value| {
        srv.send(
            srv.request(Method::POST, &format!("/v1/games/{id}/moves"))
                .bearer_auth(&p[0].access)
                .header("Idempotency-Key", "k")
                .json(&body),
        )
    };
    send(json!({"move": "C8-D7", "expected_version": 6})).expect(201);
    let other = json!({"move": "C9-D9", "expected_version": 7});
    send(other.clone()).problem(422, "idempotency-key-reused");
    let started = std::time::Instant::now();
    loop {
        let r = send(other.clone());
        if r.status.as_u16() != 422 {
            // Forgotten: the request runs, and Red is not to move.
            r.problem(409, "not-your-turn");
            break;
        }
        assert!(
            started.elapsed().as_secs() < 10,
            "the key was never forgotten"
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
}

fn idempotent_retries_write_nothing(backend: Backend) {
    let srv = TestServer::start(backend);
    let (id, p) = four_player_game(&srv, "idem");
    let send = |key: &str, body: serde_json::Value| {
        srv.send(
            srv.request(Method::POST, &format!("/v1/games/{id}/moves"))
                .bearer_auth(&p[0].access)
                .header("Idempotency-Key", key)
                .json(&body),
        )
    };
    let body = json!({"move": "C8-D7", "expected_version": 6});
    let first = send("move-1", body.clone());
    first.expect(201);
    let again = send("move-1", body.clone());
    assert_eq!(again.status, 201);
    assert_eq!(again.json, first.json);
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    assert_eq!(version(&srv, &id), 7, "the retry wrote nothing");
    send("move-1", json!({"move": "C8-C7", "expected_version": 6}))
        .problem(422, "idempotency-key-reused");
    send("", body.clone()).problem(400, "validation");
    // Keys are per user: Blue may use the same key for its own move.
    let r = srv.send(
        srv.request(Method::POST, &format!("/v1/games/{id}/moves"))
            .bearer_auth(&p[1].access)
            .header("Idempotency-Key", "move-1")
            .json(&json!({"move": "G8-F7", "expected_version": 7})),
    );
    r.expect(201);
    // Creating a game.
    let create_req = || {
        srv.send(
            srv.request(Method::POST, "/v1/games")
                .bearer_auth(&p[0].access)
                .header("Idempotency-Key", "new-game")
                .json(&json!({"seats": 4})),
        )
    };
    let c1 = create_req();
    let c2 = create_req();
    c1.expect(201);
    assert_eq!(c2.status, 201);
    assert_eq!(c1.json["id"], c2.json["id"]);
    assert_eq!(c1.header("location"), c2.header("location"));
    check_log_replays(&srv, &id);
}

fn stale_versions_are_refused(backend: Backend) {
    let srv = TestServer::start(backend);
    let (id, p) = four_player_game(&srv, "stale");
    let r = srv.get(&format!("/v1/games/{id}"), None);
    assert_eq!(r.header("etag"), Some("\"6\""));
    let nm = srv.send(
        srv.request(Method::GET, &format!("/v1/games/{id}"))
            .header("If-None-Match", "\"6\""),
    );
    assert_eq!(nm.status, 304);
    play(&srv, &p[0], &id, json!("C8-D7"), 6).expect(201);
    // Blue answers with the old version.
    let pr = play(&srv, &p[1], &id, json!("G8-F7"), 6)
        .problem(412, "version-conflict")
        .clone();
    assert_eq!(pr["current_version"], 7);
    let pr = srv
        .send(
            srv.request(Method::POST, &format!("/v1/games/{id}/moves"))
                .bearer_auth(&p[1].access)
                .header("If-Match", "\"5\"")
                .json(&json!({"move": "G8-F7"})),
        )
        .problem(412, "version-conflict")
        .clone();
    assert_eq!(pr["current_version"], 7);
    // Both given and different: they cannot both hold, even when one is current.
    let pr = srv
        .send(
            srv.request(Method::POST, &format!("/v1/games/{id}/moves"))
                .bearer_auth(&p[1].access)
                .header("If-Match", "\"7\"")
                .json(&json!({"move": "G8-F7", "expected_version": 6})),
        )
        .problem(412, "version-conflict")
        .clone();
    assert_eq!(pr["current_version"], 7);
    // `If-Match` is digits, quoted or not, as documented.
    for bad in ["\"+7\"", "\"7", "W/\"7\"", "1234567890123456789"] {
        srv.send(
            srv.request(Method::POST, &format!("/v1/games/{id}/moves"))
                .bearer_auth(&p[1].access)
                .header("If-Match", bad)
                .json(&json!({"move": "G8-F7"})),
        )
        .problem(400, "validation");
    }
    // Draw offers and resignations honour a version when given.
    srv.post(
        &format!("/v1/games/{id}/draw-offer"),
        Some(&p[1].access),
        &json!({"action": "offer", "expected_version": 3}),
    )
    .problem(412, "version-conflict");
    assert_eq!(version(&srv, &id), 7);
    play(&srv, &p[1], &id, json!("G8-F7"), 7).expect(201);
}

fn bad_input_changes_nothing(backend: Backend) {
    let srv = TestServer::start(backend);
    let (id, p) = four_player_game(&srv, "bad");
    let moves = format!("/v1/games/{id}/moves");
    let before = all_events(&srv, &id).len();

    // Unknown game.
    for path in ["state", "legal-moves", "events", "record"] {
        srv.get(&format!("/v1/games/nope/{path}"), None)
            .problem(404, "not-found");
    }
    srv.get("/v1/games/00000000-0000-0000-0000-000000000000", None)
        .problem(404, "not-found");
    play(
        &srv,
        &p[0],
        "00000000-0000-0000-0000-000000000000",
        json!("C8-D7"),
        6,
    )
    .problem(404, "not-found");
    take_seat(&srv, &p[0], "nope", "R").problem(404, "not-found");
    // No token, a bad token, a token without the play scope.
    srv.post(
        &moves,
        None,
        &json!({"move": "C8-D7", "expected_version": 6}),
    )
    .problem(401, "unauthorized");
    srv.post(
        &moves,
        Some("garbage"),
        &json!({"move": "C8-D7", "expected_version": 6}),
    )
    .problem(401, "unauthorized");
    let (_, read_only) = srv.pat(&p[0], &["read"]);
    srv.post(
        &moves,
        Some(&read_only),
        &json!({"move": "C8-D7", "expected_version": 6}),
    )
    .problem(403, "forbidden");
    srv.post("/v1/games", Some(&read_only), &json!({}))
        .problem(403, "forbidden");
    // Read-only tokens still read.
    srv.get(&format!("/v1/games/{id}"), Some(&read_only))
        .expect(200);
    // Malformed moves and bodies.
    for bad in [
        json!({"move": "C8-Z9", "expected_version": 6}),
        json!({"move": "hello", "expected_version": 6}),
        json!({"move": {"from": "C8"}, "expected_version": 6}),
        json!({"move": {"from": "C8", "to": "D7", "bogus": 1}, "expected_version": 6}),
        json!({"move": 42, "expected_version": 6}),
        json!({"move": "C8-D7", "expected_version": "six"}),
        json!({"expected_version": 6}),
        json!({"move": "C8-D7", "expected_version": 6, "extra": true}),
    ] {
        srv.post(&moves, Some(&p[0].access), &bad)
            .problem(400, "validation");
    }
    // No version at all: the move must be conditional.
    srv.post(&moves, Some(&p[0].access), &json!({"move": "C8-D7"}))
        .problem(428, "precondition-required");
    let r = srv.send(
        srv.request(Method::POST, &moves)
            .bearer_auth(&p[0].access)
            .header("content-type", "application/json")
            .body("{not json"),
    );
    r.problem(400, "validation");
    let r = srv.send(
        srv.request(Method::POST, &moves)
            .bearer_auth(&p[0].access)
            .header("content-type", "text/plain")
            .body("C8-D7"),
    );
    r.problem(415, "unsupported-media-type");
    // Illegal moves, with the reason and where to find the legal ones.
    let pr = play(&srv, &p[0], &id, json!("C8-D6"), 6)
        .problem(422, "illegal-move")
        .clone();
    assert!(pr["reason"].is_string(), "{pr}");
    assert_eq!(pr["legal_moves_url"], format!("/v1/games/{id}/legal-moves"));
    let pr = play(&srv, &p[0], &id, json!("E5-E6"), 6)
        .problem(422, "illegal-move")
        .clone();
    assert_eq!(pr["reason"], "empty-square");
    let pr = play(&srv, &p[0], &id, json!({"from": "G8", "to": "F7"}), 6)
        .problem(422, "illegal-move")
        .clone();
    assert_eq!(pr["reason"], "not-your-piece");
    // Not your turn; not a player.
    play(&srv, &p[1], &id, json!("G8-F7"), 6).problem(409, "not-your-turn");
    let outsider = srv.user("bad_outsider");
    play(&srv, &outsider, &id, json!("C8-D7"), 6).problem(403, "forbidden");
    srv.post(
        &format!("/v1/games/{id}/resignation"),
        Some(&outsider.access),
        &json!({}),
    )
    .problem(403, "forbidden");
    // Seats of a started game.
    take_seat(&srv, &outsider, &id, "R").problem(409, "seat-taken");
    srv.delete(&format!("/v1/games/{id}/seats/R"), Some(&p[0].access))
        .problem(409, "conflict");
    // Creating: bad settings.
    for bad in [
        json!({"seats": 5}),
        json!({"seats": 4, "empty_seat": "G"}),
        json!({"seats": 3, "empty_seat": "G", "seat": "G"}),
        json!({"seat": "X"}),
        json!({"visibility": "secret"}),
    ] {
        srv.post("/v1/games", Some(&p[0].access), &bad)
            .problem(400, "validation");
    }
    // Reads with bad parameters.
    srv.get(&format!("/v1/games/{id}/state?at=0"), None)
        .problem(400, "validation");
    // A version the game has not reached is not there (yet).
    srv.get(&format!("/v1/games/{id}/state?at=99"), None)
        .problem(404, "not-found");
    srv.get(&format!("/v1/games/{id}/board.svg?at=99"), None)
        .problem(404, "not-found");
    srv.get(&format!("/v1/games/{id}/events?after=x"), None)
        .problem(400, "validation");
    srv.get(&format!("/v1/games/{id}/legal-moves?limit=0"), None)
        .problem(400, "validation");
    for cursor in ["18446744073709551615", "-1", "x"] {
        srv.get(&format!("/v1/games/{id}/legal-moves?after={cursor}"), None)
            .problem(400, "validation");
    }
    // Before the start.
    let lone = create(&srv, &p[0], json!({"seat": "R"}));
    let lone_id = lone["id"].as_str().unwrap();
    play(&srv, &p[0], lone_id, json!("C8-D7"), 2).problem(409, "game-not-started");
    srv.post(
        &format!("/v1/games/{lone_id}/draw-offer"),
        Some(&p[0].access),
        &json!({"action": "offer"}),
    )
    .problem(409, "game-not-started");

    assert_eq!(all_events(&srv, &id).len(), before, "nothing was written");
    assert_eq!(version(&srv, &id), 6);
    play(&srv, &p[0], &id, json!("c8-d7"), 6).expect(201);
}

fn reading_needs_no_token(backend: Backend) {
    let srv = TestServer::start(backend);
    let (id, p) = four_player_game(&srv, "read");
    play(&srv, &p[0], &id, json!({"from": "C8", "to": "D7"}), 6).expect(201);
    for path in [
        "",
        "/state",
        "/legal-moves",
        "/events",
        "/record",
        "/state?at=3",
    ] {
        let r = srv.get(&format!("/v1/games/{id}{path}"), None);
        assert_eq!(r.status, 200, "{path}: {}", r.text);
    }
    let st = srv
        .get(&format!("/v1/games/{id}/state"), None)
        .expect(200)
        .clone();
    assert_eq!(st["turn"], json!({"seat": "B", "bonus_after": null}));
    assert_eq!(st["pieces"].as_array().unwrap().len(), 36);
    let lm = srv
        .get(&format!("/v1/games/{id}/legal-moves?limit=5"), None)
        .expect(200)
        .clone();
    assert_eq!(lm["moves"].as_array().unwrap().len(), 5);
    let next = lm["next"].as_str().unwrap().to_string();
    let lm2 = srv.get(&next, None).expect(200).clone();
    assert_ne!(lm2["moves"][0], lm["moves"][0]);
    assert_eq!(lm2["total"], lm["total"]);
    // The pages together are the engine's listing, sorted like `djambi moves`.
    let position: domain::Position = st["dfen"].as_str().unwrap().parse().unwrap();
    let mut texts = Vec::new();
    let mut page = lm.clone();
    loop {
        texts.extend(
            page["moves"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["text"].as_str().unwrap().to_string()),
        );
        match page["next"].as_str() {
            Some(next) => page = srv.get(next, None).expect(200).clone(),
            None => break,
        }
    }
    assert_eq!(texts, position.legal_move_texts());
    // A token that is sent must be valid, even for reads.
    srv.get(&format!("/v1/games/{id}"), Some("garbage"))
        .problem(401, "unauthorized");
}

/// What `openapi/openapi.json` states about bodies and parameters is what the server
/// does: a JSON `null` is not an (optional) body, list limits are 1 to 100, move text
/// is taken as given.
fn the_documented_bounds_are_the_enforced_ones(backend: Backend) {
    let srv = TestServer::start(backend);
    let a = srv.user("bounds_a");
    let lobby =
        |srv: &TestServer| srv.get("/v1/games?status=open", None).expect(200)["items"].clone();
    // A `null` body creates nothing; an empty one is the default game.
    let r = srv.send(
        srv.request(Method::POST, "/v1/games")
            .bearer_auth(&a.access)
            .header("content-type", "application/json")
            .body("null"),
    );
    r.problem(400, "validation");
    assert_eq!(lobby(&srv), json!([]), "nothing was created");
    let r = srv.send(
        srv.request(Method::POST, "/v1/games")
            .bearer_auth(&a.access),
    );
    r.expect(201);
    assert_eq!(lobby(&srv).as_array().unwrap().len(), 1);
    // Limits: 1 to 100.
    for ok in ["1", "100"] {
        srv.get(&format!("/v1/games?limit={ok}"), None).expect(200);
        srv.get(&format!("/v1/me/notifications?limit={ok}"), Some(&a.access))
            .expect(200);
    }
    for bad in ["0", "101", "-1", "x"] {
        srv.get(&format!("/v1/games?limit={bad}"), None)
            .problem(400, "validation");
        srv.get(
            &format!("/v1/me/notifications?limit={bad}"),
            Some(&a.access),
        )
        .problem(400, "validation");
    }
    // Cursors have the documented shapes: a keyset one for the lobby, a version for events.
    srv.get("/v1/games?after=1700000000000000_abc-1", None)
        .expect(200);
    srv.get("/v1/games?after=1700000000000000_a_b", None)
        .problem(400, "validation");
    let (id, p) = four_player_game(&srv, "bounds");
    srv.get(&format!("/v1/games/{id}/events?after=3"), None)
        .expect(200);
    // Move text as documented: no surrounding spaces.
    play(&srv, &p[0], &id, json!(" C8-D7"), 6).problem(400, "validation");
    play(&srv, &p[0], &id, json!("C8-D7"), 6).expect(201);
}
