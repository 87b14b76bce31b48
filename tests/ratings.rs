//! Ratings (issue 22): rated games change their players' ratings once, in the
//! transaction that ends them; `recompute-ratings` reproduces the stored figures bit for
//! bit; two games of one player ending at once both count; rating ranges refuse a
//! player outside them; the reads (`/v1/players/{username}`, `/v1/leaderboard`).

#[path = "support/games.rs"]
mod games;

use std::sync::{Arc, Barrier};

use djambi_api::ratings::model::{Skill, rate};
use djambi_e2e::{Backend, FreshDatabase, Login, TestServer, Value, backend_tests, json};
use games::*;

backend_tests!(
    a_known_sequence_of_games_gives_known_ratings,
    a_rating_range_refuses_players_outside_it,
    rated_games_need_a_time_control_and_people,
    invite_only_games_keep_their_ids_off_player_pages,
);

/// The openskill 6.2.0 figure for the winner of four new players:
/// `PlackettLuce().rate([[r], [r], [r], [r]], ranks=[0, 1, 2, 3])[0][0].mu`.
const OPENSKILL_FIRST_OF_FOUR_MU: f64 = 27.795252672501135;

fn rated(seats: u8) -> Value {
    json!({"seats": seats, "seat": "R", "rated": true,
        "time_control": {"per_move_secs": 86400}})
}

/// A new game of `body` with `players` seated in order (R first, the creator).
fn seated(srv: &TestServer, players: &[&Login], body: Value) -> String {
    let game = create(srv, players[0], body);
    let id = game["id"].as_str().unwrap().to_string();
    let seats: Vec<String> = game["seats_in_play"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect();
    for (who, seat) in players.iter().zip(&seats).skip(1) {
        take_seat(srv, who, &id, seat).expect(200);
    }
    id
}

fn resign(srv: &TestServer, who: &Login, id: &str) -> Value {
    srv.post(
        &format!("/v1/games/{id}/resignation"),
        Some(&who.access),
        &json!({}),
    )
    .expect(201)
    .clone()
}

fn player(srv: &TestServer, name: &str) -> Value {
    srv.get(&format!("/v1/players/{name}"), None)
        .expect(200)
        .clone()
}

fn skill_of(v: &Value) -> Skill {
    Skill {
        mu: v["rating"]["mu"].as_f64().unwrap(),
        sigma: v["rating"]["sigma"].as_f64().unwrap(),
    }
}

/// The places (0 best) of `ids` in a finished game's summary ranking.
fn ranks_of(summary: &Value, users: &[&Login]) -> Vec<usize> {
    let seat_of = |u: &Login| {
        summary["seats"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["user_id"] == u.user_id.as_str())
            .map(|s| s["seat"].clone())
            .unwrap()
    };
    let ranking = summary["result"]["ranking"].as_array().unwrap();
    users
        .iter()
        .map(|u| {
            let seat = seat_of(u);
            ranking
                .iter()
                .position(|g| g.as_array().unwrap().contains(&seat))
                .unwrap()
        })
        .collect()
}

fn recompute(url: &str) -> (usize, String) {
    let config = djambi_api::config::Config::from_lookup(|name| match name {
        "DATABASE_URL" => Some(url.to_string()),
        "DJAMBI_JWT_SECRET" => Some(djambi_e2e::TEST_JWT_SECRET.into()),
        _ => None,
    })
    .unwrap();
    let mut out = Vec::new();
    let bad = djambi_api::maintenance::recompute_ratings(&config, &mut out).unwrap();
    (bad, String::from_utf8(out).unwrap())
}

fn a_known_sequence_of_games_gives_known_ratings(backend: Backend) {
    let srv = TestServer::start(backend);
    let p: Vec<Login> = ["ann", "bob", "cat", "dan"]
        .iter()
        .map(|n| srv.user(n))
        .collect();
    let all: Vec<&Login> = p.iter().collect();
    // Before any game: the prior, provisional, shown as 0.
    let fresh = player(&srv, "Ann");
    assert_eq!(fresh["rating"]["rating"], json!(0.0));
    assert_eq!(fresh["rating"]["provisional"], json!(true));
    assert_eq!(fresh["games"], json!(0));
    srv.get("/v1/players/nobody", None)
        .problem(404, "not-found");

    // Game 1, four seats: Yellow, Red, Blue resign; Green (dan) wins.
    let g1 = seated(&srv, &all, rated(4));
    assert_eq!(summary(&srv, &g1)["rated"], json!(true));
    resign(&srv, &p[2], &g1);
    resign(&srv, &p[0], &g1);
    let end = resign(&srv, &p[1], &g1);
    assert_eq!(end["status"], "finished");
    let s1 = summary(&srv, &g1);
    let r1 = ranks_of(&s1, &all);
    assert_eq!(r1[3], 0, "dan won: {s1}");
    let mut expected: Vec<Skill> = rate(&[Skill::default(); 4], &r1);
    assert!((expected[3].mu - OPENSKILL_FIRST_OF_FOUR_MU).abs() < 1e-12);

    // A casual game changes nothing.
    let casual = seated(&srv, &all, json!({"seats": 4, "seat": "R"}));
    for who in [&p[1], &p[2], &p[3]] {
        resign(&srv, who, &casual);
    }

    // Game 2, three seats (ann, bob, cat): Yellow then Red resign; Blue (bob) wins.
    let three: Vec<&Login> = p.iter().take(3).collect();
    let g2 = seated(&srv, &three, rated(3));
    resign(&srv, &p[2], &g2);
    resign(&srv, &p[0], &g2);
    let r2 = ranks_of(&summary(&srv, &g2), &three);
    assert_eq!(r2[1], 0);
    let before: Vec<Skill> = expected[..3].to_vec();
    let after = rate(&before, &r2);
    expected[..3].copy_from_slice(&after);

    for (i, who) in p.iter().enumerate() {
        let page = player(&srv, &who.username);
        let got = skill_of(&page);
        // The server sums in the ranking's order, this test in its own: the last bit
        // may differ (recompute below checks the stored figures bit for bit).
        let near = |a: f64, b: f64| (a - b).abs() < 1e-12;
        assert!(near(got.mu, expected[i].mu), "{}: {page}", who.username);
        assert!(near(got.sigma, expected[i].sigma));
        assert!(near(
            page["rating"]["rating"].as_f64().unwrap(),
            expected[i].display()
        ));
        let games = if i == 3 { 1 } else { 2 };
        assert_eq!(page["games"], json!(games));
        assert_eq!(page["recent_games"].as_array().unwrap().len(), games);
        assert_eq!(page["rating_history"].as_array().unwrap().len(), games);
        let last = page["rating_history"]
            .as_array()
            .unwrap()
            .last()
            .unwrap()
            .clone();
        assert!(near(
            last["rating"].as_f64().unwrap(),
            expected[i].display()
        ));
    }
    let bob = player(&srv, "bob");
    assert_eq!(bob["wins"], json!(1));
    assert_eq!(bob["recent_games"][0]["game_id"], json!(g2));
    assert_eq!(bob["recent_games"][0]["place"], json!(1));
    assert_eq!(bob["recent_games"][0]["players"], json!(3));
    let dan = player(&srv, "dan");
    assert_eq!(dan["places"], json!([{"place": 1, "games": 1}]));

    // The leaderboard, two a page, best first, every player once.
    let mut order: Vec<(f64, String)> = p
        .iter()
        .enumerate()
        .map(|(i, w)| (expected[i].display(), w.username.clone()))
        .collect();
    order.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut seen = Vec::new();
    let mut path = "/v1/leaderboard?limit=2&active_days=30".to_string();
    loop {
        let page = srv.get(&path, None).expect(200).clone();
        for e in page["items"].as_array().unwrap() {
            seen.push(e["username"].as_str().unwrap().to_string());
        }
        match page["next"].as_str() {
            Some(next) => path = next.to_string(),
            None => break,
        }
    }
    assert_eq!(seen, order.iter().map(|o| o.1.clone()).collect::<Vec<_>>());
    srv.get("/v1/leaderboard?after=nonsense", None)
        .problem(400, "validation");
    srv.get("/v1/leaderboard?active_days=0", None)
        .problem(400, "validation");

    // Ratings in the summary and the lobby.
    let s2 = summary(&srv, &g2);
    let bob_seat = s2["seats"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["username"] == "bob")
        .unwrap()
        .clone();
    assert!((bob_seat["rating"].as_f64().unwrap() - expected[1].display()).abs() < 1e-12);
    let record = srv.get(&format!("/v1/games/{g2}/record"), None);
    assert_eq!(record.status, 200);
    assert!(record.text.contains("[Rated \"yes\"]"), "{}", record.text);
    assert!(record.text.contains("[BlueRating \""), "{}", record.text);
    let lobby = srv
        .get("/v1/games?status=finished", None)
        .expect(200)
        .clone();
    let listed = lobby["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["id"] == g2.as_str())
        .cloned()
        .unwrap_or_else(|| panic!("{lobby}"));
    assert_eq!(listed["rated"], json!(true));

    // The pages: server-rendered, the chart an SVG polyline, no inline script.
    let page = srv.get("/players/ann", None);
    assert_eq!(page.status, 200);
    assert!(page.header("content-security-policy").is_some());
    assert!(
        page.text.contains("<svg") && page.text.contains("<polyline"),
        "{}",
        page.text
    );
    assert!(!page.text.contains("<script>"));
    assert!(page.text.contains(&format!("href=\"/games/{g2}\"")));
    let board = srv.get("/leaderboard?active_days=30", None);
    assert_eq!(board.status, 200);
    let at = |name: &str| board.text.find(&format!(">{name}</a>")).unwrap();
    let names: Vec<&str> = order.iter().map(|o| o.1.as_str()).collect();
    assert!(
        names.windows(2).all(|w| at(w[0]) < at(w[1])),
        "{}",
        board.text
    );
    assert_eq!(srv.get("/players/nobody", None).status, 404);
    assert_eq!(
        srv.get("/leaderboard?active_days=abc&after=x", None).status,
        200
    );

    // A finished game's record keeps the ratings its players had before its result,
    // however they play on: g1's four were new, and g2 ended after it.
    let rec1 = srv.get(&format!("/v1/games/{g1}/record"), None).text;
    for seat in ["Red", "Blue", "Yellow", "Green"] {
        assert!(rec1.contains(&format!("[{seat}Rating \"0.00\"]")), "{rec1}");
    }
    let after_g1 = rate(&[Skill::default(); 4], &r1);
    let rec2 = srv.get(&format!("/v1/games/{g2}/record"), None).text;
    for seat in s2["seats"].as_array().unwrap() {
        let i = p
            .iter()
            .position(|w| seat["username"] == w.username.as_str())
            .unwrap();
        let name = match seat["seat"].as_str().unwrap() {
            "R" => "Red",
            "B" => "Blue",
            "Y" => "Yellow",
            _ => "Green",
        };
        let want = format!("[{name}Rating \"{:.2}\"]", after_g1[i].display());
        assert!(rec2.contains(&want), "{want}: {rec2}");
    }

    // A closed account leaves the leaderboard (its row stays for recompute).
    srv.send(
        srv.request(reqwest::Method::DELETE, "/v1/me")
            .bearer_auth(&p[3].access)
            .json(&json!({"current_password": djambi_e2e::PASSWORD})),
    )
    .expect(200);
    let listed = |srv: &TestServer| -> Vec<String> {
        srv.get("/v1/leaderboard?limit=100", None).expect(200)["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["username"].as_str().unwrap().to_string())
            .collect()
    };
    let without_dan: Vec<String> = order
        .iter()
        .map(|o| o.1.clone())
        .filter(|n| n != "dan")
        .collect();
    assert_eq!(listed(&srv), without_dan);
    assert!(
        !srv.get("/leaderboard", None).text.contains("[deleted]"),
        "the page lists a closed account"
    );

    // Recompute: the same figures, bit for bit.
    let (bad, report) = recompute(&srv.database_url);
    assert_eq!(bad, 0, "{report}");
    assert!(
        report.contains("2 rated games replayed, 4 players"),
        "{report}"
    );
    assert_eq!(listed(&srv), without_dan, "after recompute-ratings");
    if backend == Backend::Postgres {
        use diesel::{Connection, RunQueryDsl};
        let mut c = diesel::PgConnection::establish(&srv.database_url).unwrap();
        diesel::sql_query("UPDATE player_ratings SET mu = mu + 1e-9 WHERE user_id = $1")
            .bind::<diesel::sql_types::Text, _>(&p[3].user_id)
            .execute(&mut c)
            .unwrap();
        let (bad, report) = recompute(&srv.database_url);
        assert_eq!(bad, 1, "{report}");
        assert!(report.contains(&p[3].user_id), "{report}");
    }
}

fn a_rating_range_refuses_players_outside_it(backend: Backend) {
    let srv = TestServer::start(backend);
    let a = srv.user("host");
    let b = srv.user("guest");
    let mut body = rated(4);
    body["rating_range"] = json!({"min": 5});
    let game = create(&srv, &a, body);
    let id = game["id"].as_str().unwrap();
    assert_eq!(game["rating_range"], json!({"min": 5, "max": null}));
    let p = take_seat(&srv, &b, id, "B")
        .problem(403, "forbidden")
        .clone();
    let detail = p["detail"].as_str().unwrap();
    assert!(
        detail.contains("at least 5") && detail.contains("yours is 0.0"),
        "{detail}"
    );
    assert_eq!(summary(&srv, id)["open_seats"], json!(["B", "Y", "G"]));
    // A range that holds 0 admits a new player.
    let game = create(
        &srv,
        &a,
        json!({"seats": 4, "seat": "R", "rating_range": {"min": -5, "max": 5}}),
    );
    take_seat(&srv, &b, game["id"].as_str().unwrap(), "B").expect(200);
    let game = create(&srv, &a, json!({"seats": 4, "rating_range": {"max": -1}}));
    take_seat(&srv, &b, game["id"].as_str().unwrap(), "B").problem(403, "forbidden");
}

fn rated_games_need_a_time_control_and_people(backend: Backend) {
    let srv = TestServer::start(backend);
    let a = srv.user("maker");
    let bad = |body: Value, field: &str| {
        let r = srv.post("/v1/games", Some(&a.access), &body);
        r.problem(400, "validation");
        assert_eq!(r.error_fields(), vec![field.to_string()], "{}", r.text);
    };
    bad(json!({"rated": true}), "rated");
    bad(
        json!({"rated": true, "time_control": {"per_move_secs": 86400},
            "bots": [{"seat": "B", "level": 1}]}),
        "rated",
    );
    bad(
        json!({"rating_range": {"min": 10, "max": 5}}),
        "rating_range",
    );
    bad(json!({"rating_range": {"min": 1000}}), "rating_range");
    let game = create(&srv, &a, rated(4));
    srv.post(
        &format!("/v1/games/{}/seats/B/bot", game["id"].as_str().unwrap()),
        Some(&a.access),
        &json!({"level": 1}),
    )
    .problem(409, "conflict");
}

/// How many games a closed group of `size` new players, who only play one another and
/// take turns at each place, play until every one's rating stops being provisional.
fn games_until_settled(size: usize) -> usize {
    use djambi_api::ratings::model::PROVISIONAL_SIGMA;
    let mut skills = vec![Skill::default(); size];
    for game in 1..10_000 {
        let ranks: Vec<usize> = (0..size).map(|i| (i + game) % size).collect();
        skills = rate(&skills, &ranks);
        if skills.iter().all(|s| s.sigma <= PROVISIONAL_SIGMA) {
            return game;
        }
    }
    panic!("sigma never settles");
}

/// The README's figure of how long a rating stays provisional is the model's.
#[test]
fn the_readme_says_how_long_a_rating_stays_provisional() {
    let (four, three) = (games_until_settled(4), games_until_settled(3));
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).unwrap();
    let flat = readme.split_whitespace().collect::<Vec<_>>().join(" ");
    let want = format!(
        "four players who only play one another get under it after {four} games, three after {three}"
    );
    assert!(flat.contains(&want), "the README should say: {want}");
}

/// The `ended_at` of a player page's entries, in the page's order.
fn ended_times(list: &Value) -> Vec<chrono::DateTime<chrono::FixedOffset>> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|e| chrono::DateTime::parse_from_rfc3339(e["ended_at"].as_str().unwrap()).unwrap())
        .collect()
}

/// Two rated games of one player ending at the same moment, through two servers on one
/// database: both count, once each, recompute reproduces the result, and the games are
/// listed in the order they ended (`ended_at` is read after the rating rows are locked).
#[test]
fn two_games_of_one_player_ending_at_once_both_count_once() {
    const ROUNDS: usize = 12;
    let db = FreshDatabase::new(Backend::Postgres);
    let servers = [TestServer::start_on(&db), TestServer::start_on(&db)];
    let srv = &servers[0];
    let hub = srv.user("hub");
    let others: Vec<Login> = (0..6).map(|i| srv.user(&format!("side{i}"))).collect();
    for round in 0..ROUNDS {
        // hub is Red in both games; in each, Yellow and Blue resign, then Green's
        // resignation (sent to both games at once) ends them.
        let g1 = seated(srv, &[&hub, &others[0], &others[1], &others[2]], rated(4));
        let g2 = seated(srv, &[&hub, &others[3], &others[4], &others[5]], rated(4));
        for (g, o) in [(&g1, &others[..3]), (&g2, &others[3..])] {
            resign(srv, &o[1], g);
            resign(srv, &o[0], g);
        }
        let barrier = Arc::new(Barrier::new(2));
        std::thread::scope(|scope| {
            for (i, (g, who)) in [(&g1, &others[2]), (&g2, &others[5])]
                .into_iter()
                .enumerate()
            {
                let barrier = barrier.clone();
                let server = &servers[i];
                scope.spawn(move || {
                    barrier.wait();
                    let b = resign(server, who, g);
                    assert_eq!(b["status"], "finished");
                });
            }
        });
        let page = player(srv, "hub");
        assert_eq!(page["games"], json!(2 * (round + 1)), "{page}");
        let recent = ended_times(&page["recent_games"]);
        assert!(
            recent.windows(2).all(|w| w[0] >= w[1]),
            "round {round}: recent games not newest first: {}",
            page["recent_games"]
        );
        let history = ended_times(&page["rating_history"]);
        assert!(
            history.windows(2).all(|w| w[0] <= w[1]),
            "round {round}: rating history not oldest first: {}",
            page["rating_history"]
        );
        assert_eq!(page["wins"], json!(2 * (round + 1)));
        for o in &others {
            assert_eq!(player(srv, &o.username)["games"], json!(round + 1));
        }
    }
    let (bad, report) = recompute(&db.url);
    assert_eq!(bad, 0, "{report}");
    assert!(
        report.contains(&format!("{} rated games replayed, 7 players", 2 * ROUNDS)),
        "{report}"
    );
    drop(servers);
}

/// Issue 32: an invite-only game's id opens it, so a rated one is listed on its players'
/// pages without its id (`game_id: null`, no link) to everyone but its players; a
/// public game keeps its id.
fn invite_only_games_keep_their_ids_off_player_pages(backend: Backend) {
    let srv = TestServer::start(backend);
    let [ann, bob, cat, dan, sam] =
        ["ann", "bob", "cat", "dan", "sam"].map(|n| srv.user(&format!("unl_{n}")));
    let mut body = rated(4);
    body["visibility"] = json!("invite");
    let g = create(&srv, &ann, body);
    let hidden = g["id"].as_str().unwrap().to_string();
    let code = g["invite_code"].as_str().unwrap().to_string();
    for (who, seat) in [(&bob, "B"), (&cat, "Y"), (&dan, "G")] {
        srv.post(
            &format!("/v1/games/{hidden}/seats/{seat}"),
            Some(&who.access),
            &json!({"invite_code": code}),
        )
        .expect(200);
    }
    for who in [&ann, &bob, &cat] {
        resign(&srv, who, &hidden);
    }
    let public = seated(&srv, &[&ann, &bob, &cat, &dan], rated(4));
    for who in [&ann, &bob, &cat] {
        resign(&srv, who, &public);
    }
    let ids = |v: &Value, field: &str| -> Vec<Value> {
        v[field]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["game_id"].clone())
            .collect()
    };
    let page = |token: Option<&str>| srv.get("/v1/players/unl_ann", token);

    // Nobody signed in, and a stranger: the game is there, its id is not.
    for token in [None, Some(sam.access.as_str())] {
        let r = page(token);
        let v = r.expect(200);
        assert_eq!(v["games"], json!(2));
        assert_eq!(ids(v, "recent_games"), [json!(public), Value::Null]);
        assert_eq!(ids(v, "rating_history"), [Value::Null, json!(public)]);
        assert!(!r.text.contains(&hidden), "{}", r.text);
        // Neither the other players' pages.
        let other = srv.get("/v1/players/unl_dan", token);
        assert!(!other.text.contains(&hidden), "{}", other.text);
    }
    // Its players see it whole.
    for who in [&ann, &dan] {
        let v = page(Some(&who.access)).expect(200).clone();
        assert_eq!(ids(&v, "recent_games"), [json!(public), json!(hidden)]);
    }
    // The page a browser gets: the public game linked, the other neither named nor linked.
    let html = srv.get("/players/unl_ann", None);
    assert_eq!(html.status.as_u16(), 200);
    assert!(
        html.text.contains(&format!("/games/{public}")),
        "{}",
        html.text
    );
    assert!(!html.text.contains(&hidden), "{}", html.text);
    assert!(html.text.contains("(invite-only)"), "{}", html.text);
}
