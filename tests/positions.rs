//! The analysis board (`GET /v1/positions/legal-moves`, `POST /v1/positions/play`) over
//! HTTP on PostgreSQL and SQLite: every worked example of the rules and of the variants
//! (the copies in `cli/tests/data/`, as `shared/` has them) gives through the API what the
//! example says; random walks agree move for move with the rules crate, page by page; bad
//! input is refused naming the field; the limit per address answers 429.

use std::collections::BTreeSet;

use djambi_e2e::{Backend, Rng, TestServer, Value, backend_tests, json, repo_root};
use domain::{Position, Ruleset};

backend_tests!(
    worked_examples_give_what_they_say,
    random_walks_agree_with_the_rules_crate,
    bad_input_names_what_is_wrong,
    the_board_is_limited_per_address,
    any_position_is_drawn,
);

fn examples(file: &str) -> Vec<Value> {
    let path = repo_root().join("cli/tests/data").join(file);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn enc(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

/// `GET /v1/positions/board.svg` draws the position of a DFEN, with the move given as
/// `last` highlighted, in the reader's language; a bad DFEN or move is a 400 naming it.
fn any_position_is_drawn(backend: Backend) {
    let srv = TestServer::start(backend);
    let start = "RCRARM3BMBABC/RRRDRM3BMBDBR/RMRMRN3BNBMBM/9/9/9/GMGMGN3YNYMYM/GRGDGM3YMYDYR/GCGAGM3YMYAYC R RBYG 0";
    let title = |r: &djambi_e2e::Resp| {
        assert_eq!(r.status, 200, "{}", r.text);
        assert!(r.content_type().starts_with("image/svg+xml"), "{}", r.text);
        let from = r.text.find("<title id=\"board-title\">").expect("a title") + 24;
        r.text[from..from + r.text[from..].find("</title>").unwrap()].to_string()
    };
    let r = srv.get(
        &format!("/v1/positions/board.svg?dfen={}", enc(start)),
        None,
    );
    assert!(title(&r).contains("Red to move"), "{}", title(&r));
    assert!(!r.text.contains("last move: "), "no last move at the start");
    let played = srv
        .post(
            "/v1/positions/play",
            None,
            &json!({"dfen": start, "move": "C7-C6"}),
        )
        .expect(200)
        .clone();
    let after = played["dfen"].as_str().unwrap();
    let r = srv.get(
        &format!("/v1/positions/board.svg?dfen={}&last=C7-C6", enc(after)),
        None,
    );
    assert!(title(&r).contains("Blue to move"), "{}", title(&r));
    assert!(
        r.text.contains("last move: "),
        "the last move is highlighted"
    );
    let r = srv.send(
        srv.request(
            reqwest::Method::GET,
            &format!("/v1/positions/board.svg?dfen={}", enc(after)),
        )
        .header("accept-language", "fr"),
    );
    assert!(title(&r).contains("Bleu"), "{}", title(&r));
    for (query, field) in [
        ("dfen=9%2F9%20R%20RBYG%200".to_string(), "dfen"),
        (format!("dfen={}&last=Z9-C6", enc(after)), "last"),
        (
            format!("dfen={}&ruleset=nonsense%3Dyes", enc(after)),
            "ruleset",
        ),
    ] {
        let r = srv.get(&format!("/v1/positions/board.svg?{query}"), None);
        let problem = r.problem(400, "validation");
        assert!(problem.to_string().contains(field), "{query}: {problem}");
    }
}

/// Every legal move's text, following `next_cursor` through pages of `limit`.
fn all_moves(srv: &TestServer, dfen: &str, ruleset: &str, limit: usize) -> Vec<String> {
    let mut texts = Vec::new();
    let mut after = String::new();
    loop {
        let r = srv.get(
            &format!(
                "/v1/positions/legal-moves?dfen={}&ruleset={}&limit={limit}{after}",
                enc(dfen),
                enc(ruleset)
            ),
            None,
        );
        let page = r.expect(200);
        let moves = page["moves"].as_array().unwrap();
        assert!(moves.len() <= limit);
        texts.extend(
            moves
                .iter()
                .map(|m| m["text"].as_str().unwrap().to_string()),
        );
        match page["next_cursor"].as_str() {
            Some(c) => after = format!("&after={c}"),
            None => {
                assert_eq!(page["total"].as_u64().unwrap() as usize, texts.len());
                return texts;
            }
        }
    }
}

/// A ruleset of the examples (an object of options, or absent) as its text form.
fn ruleset_text(example: &Value) -> String {
    match example.get("ruleset").and_then(Value::as_object) {
        None => String::new(),
        Some(options) => options
            .iter()
            .map(|(k, v)| format!("{k}={}", v.as_str().unwrap()))
            .collect::<Vec<_>>()
            .join(","),
    }
}

fn worked_examples_give_what_they_say(backend: Backend) {
    let srv = TestServer::start_with(backend, &[("DJAMBI_POSITIONS_LIMIT_PER_IP", "100000/1m")]);
    let mut checked = 0;
    for example in examples("rules-examples.jsonl")
        .into_iter()
        .chain(examples("variants-examples.jsonl"))
    {
        let name = example["name"].as_str().unwrap();
        let dfen = example["dfen"].as_str().unwrap();
        let rules = ruleset_text(&example);
        match example["op"].as_str().unwrap() {
            "moves" => {
                let mut got = all_moves(&srv, dfen, &rules, 2000);
                got.sort();
                let mut want: Vec<String> = example["expect_moves"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|m| m.as_str().unwrap().to_string())
                    .collect();
                want.sort();
                assert_eq!(got, want, "{name}");
            }
            "play" => {
                let moves = example["moves"].as_array().unwrap();
                let mut at = dfen.to_string();
                for (i, mv) in moves.iter().enumerate() {
                    // The ruleset as the JSON object of the example (the text form is
                    // what the GET takes).
                    let r = srv.post(
                        "/v1/positions/play",
                        None,
                        &json!({"dfen": at, "ruleset": example.get("ruleset"), "move": mv}),
                    );
                    let last = i + 1 == moves.len();
                    if last && example["expect_error"] == true {
                        r.problem(400, "validation");
                        assert_eq!(r.error_fields(), ["move"], "{name}: {}", r.text);
                        break;
                    }
                    at = r.expect(200)["dfen"].as_str().unwrap().to_string();
                }
                if let Some(want) = example["expect_dfen"].as_str() {
                    assert_eq!(at, want, "{name}");
                }
            }
            op => panic!("{name}: unknown op {op}"),
        }
        checked += 1;
    }
    assert!(checked > 250, "only {checked} examples");
}

fn random_walks_agree_with_the_rules_crate(backend: Backend) {
    let srv = TestServer::start_with(backend, &[("DJAMBI_POSITIONS_LIMIT_PER_IP", "100000/1m")]);
    let mut rng = Rng::new(0x0b0a);
    for walk in 0..3 {
        let rules = if walk == 1 {
            "master_moves=on,reporter=forced"
        } else {
            ""
        };
        let ruleset: Ruleset = rules.parse().unwrap();
        let mut position = Position::start_with(domain::SeatSet::ALL, ruleset).unwrap();
        for _ in 0..40 {
            let dfen = position.to_string();
            let want: BTreeSet<String> = position.legal_move_texts().into_iter().collect();
            // Small pages, so that the cursor is exercised.
            let got = all_moves(&srv, &dfen, rules, 7);
            assert_eq!(got.len(), want.len(), "duplicates or gaps in pages");
            assert_eq!(got.iter().cloned().collect::<BTreeSet<_>>(), want);
            if want.is_empty() {
                break;
            }
            // The moves of one piece are those of the whole list that start there.
            let pick = got[rng.below(got.len())].clone();
            let from = &pick[..2];
            let of_piece = srv.get(
                &format!(
                    "/v1/positions/legal-moves?dfen={}&ruleset={}&from={}",
                    enc(&dfen),
                    enc(rules),
                    from.to_ascii_lowercase()
                ),
                None,
            );
            let of_piece: BTreeSet<String> = of_piece.expect(200)["moves"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["text"].as_str().unwrap().to_string())
                .collect();
            let expected: BTreeSet<String> = got
                .iter()
                .filter(|t| t.starts_with(from))
                .cloned()
                .collect();
            assert_eq!(of_piece, expected);

            let r = srv.post(
                "/v1/positions/play",
                None,
                &json!({"dfen": dfen, "ruleset": rules, "move": pick}),
            );
            let played = r.expect(200);
            position = position.play(&pick.parse().unwrap()).unwrap();
            assert_eq!(played["dfen"], position.to_string());
            assert_eq!(played["played"]["text"], pick);
            assert_eq!(played["over"], position.is_over());
            assert_eq!(played["effects"][0]["type"], "moved", "{}", r.text);
            match position.to_move() {
                Some(seat) => assert_eq!(played["turn"]["seat"], seat.to_string()),
                None => assert!(played["turn"].is_null()),
            }
            if position.is_over() {
                break;
            }
        }
    }
}

fn bad_input_names_what_is_wrong(backend: Backend) {
    let srv = TestServer::start(backend);
    let start = Position::default().to_string();
    let get = |query: &str| srv.get(&format!("/v1/positions/legal-moves?{query}"), None);
    for (query, field, says) in [
        (format!("dfen={}", enc("RC8/9 R RBYG 0")), "dfen", "ranks"),
        (
            format!("dfen={}", enc(&start.replace(" R ", " Q "))),
            "dfen",
            "not a seat",
        ),
        // A position the rules forbid: a living militant on the maze.
        (
            format!("dfen={}", enc(&start.replace("/9/9/9/", "/9/4RM4/9/"))),
            "dfen",
            "maze",
        ),
        (format!("dfen={}", "9/".repeat(150)), "dfen", "at most"),
        (
            format!("dfen={}&ruleset=reporter%3Dsometimes", enc(&start)),
            "ruleset.reporter",
            "",
        ),
        (format!("dfen={}&from=Z9", enc(&start)), "from", "square"),
        (format!("dfen={}&limit=0", enc(&start)), "limit", "1 to"),
        (format!("dfen={}&after=x", enc(&start)), "after", "cursor"),
    ] {
        let r = get(&query);
        r.problem(400, "validation");
        assert_eq!(r.error_fields(), [field], "{query}: {}", r.text);
        assert!(r.text.contains(says), "{query}: {}", r.text);
    }
    let post = |body: Value| srv.post("/v1/positions/play", None, &body);
    for (body, field, says) in [
        (
            json!({"dfen": start, "move": "C8-D6"}),
            "move",
            "cannot reach",
        ),
        (
            json!({"dfen": start, "move": "E5-E6"}),
            "move",
            "E5 is empty",
        ),
        (
            json!({"dfen": start, "move": "C8-"}),
            "move",
            "malformed move",
        ),
        (json!({"dfen": start, "move": 7}), "move", "move text"),
        (
            json!({"dfen": "RC8 R", "move": "C8-D7"}),
            "dfen",
            "4 fields",
        ),
        (
            json!({"dfen": start, "move": "C8-D7", "ruleset": "nope=on"}),
            "ruleset.nope",
            "",
        ),
    ] {
        let r = post(body.clone());
        r.problem(400, "validation");
        assert_eq!(r.error_fields(), [field], "{body}: {}", r.text);
        assert!(r.text.contains(says), "{body}: {}", r.text);
    }
    let r = post(json!({"dfen": start, "move": "C8-D7", "extra": 1}));
    r.problem(400, "validation");
    // A position that is over has no moves and takes none.
    let over = "RC8/9/9/9/9/9/9/9/9 - Rooo 9";
    let r = get(&format!("dfen={}", enc(over)));
    let page = r.expect(200);
    assert_eq!(
        (page["total"].as_u64(), page["turn"].is_null()),
        (Some(0), true)
    );
    let r = post(json!({"dfen": over, "move": "A9-A8"}));
    r.problem(400, "validation");
    assert!(r.text.contains("over"), "{}", r.text);
}

fn the_board_is_limited_per_address(backend: Backend) {
    let srv = TestServer::start_with(backend, &[("DJAMBI_POSITIONS_LIMIT_PER_IP", "3/1m")]);
    let start = Position::default().to_string();
    let path = format!("/v1/positions/legal-moves?dfen={}", enc(&start));
    for _ in 0..2 {
        srv.get(&path, None).expect(200);
    }
    srv.post(
        "/v1/positions/play",
        None,
        &json!({"dfen": start, "move": "C8-D7"}),
    )
    .expect(200);
    let r = srv.get(&path, None);
    r.problem(429, "rate-limited");
    let wait: u64 = r.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=60).contains(&wait), "{wait}");
    // Other endpoints are not counted against it.
    srv.get("/healthz", None).expect(200);
}
