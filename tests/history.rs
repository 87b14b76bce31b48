//! History end to end, on PostgreSQL and SQLite: what each event did, records out and back
//! in (study games), refused imports, the board as SVG at every version, and the replay
//! page with its assets.

#[path = "support/games.rs"]
mod games;
#[path = "support/history.rs"]
mod history;

use djambi_e2e::{Backend, TestServer, Value, backend_tests, json};
use domain::{Action, Game, SvgOptions};
use games::{Rng, actions_of, all_events, check_log_replays, summary};
use history::*;

backend_tests!(
    each_move_event_says_what_it_did,
    records_round_trip_through_import,
    bad_records_are_refused_and_change_nothing,
    study_games_take_no_seats_and_no_actions,
    every_position_renders_as_svg,
    board_svg_headers_and_caching,
    the_replay_page_and_its_assets,
);

/// The events' `step.effects` of every move equal the `effects` of the move's answer.
fn each_move_event_says_what_it_did(backend: Backend) {
    let srv = TestServer::start(backend);
    let mut g = seated_game(&srv, "steps", "RBYG");
    let mut rng = Rng::new(0x57e9_0001);
    play_random(&srv, &mut g, &mut rng, 60, &[45]);
    let events = all_events(&srv, &g.id);
    let mut checked = 0;
    for (seq, effects) in &g.moves {
        let event = &events[(*seq - 1) as usize];
        assert_eq!(event["seq"], *seq);
        assert_eq!(event["kind"], "move_played");
        assert_eq!(event["step"]["effects"], *effects, "event {seq}");
        assert!(event["step"]["eliminated"].is_array());
        assert!(event["step"].get("turn").is_some());
        checked += 1;
    }
    assert!(checked > 10);
    for e in &events {
        let changes = matches!(e["kind"].as_str(), Some("move_played" | "resigned"));
        assert_eq!(e.get("step").is_some(), changes, "{e}");
    }
    // Paged reads fold from the page's start: the same steps.
    let page = srv
        .get(&format!("/v1/games/{}/events?after=20&limit=5", g.id), None)
        .expect(200)
        .clone();
    for e in page["items"].as_array().unwrap() {
        let seq = e["seq"].as_i64().unwrap();
        assert_eq!(e["step"], events[(seq - 1) as usize]["step"], "event {seq}");
    }
}

/// Plays `g` to its end or leaves it going, exports it, imports the record and checks
/// that both games have the same position after every action.
fn round_trip(srv: &TestServer, g: &Played, as_text: bool) -> String {
    let record = record_of(srv, &g.id);
    let parsed = domain::read_record(&record).expect("the export reads back");
    assert_eq!(parsed.settings, g.game.settings());
    for (seat, who) in &g.players {
        assert_eq!(
            parsed.player(*seat),
            Some(who.username.as_str()),
            "{record}"
        );
    }
    assert!(record.contains("[Started \""), "{record}");
    assert_eq!(g.game.is_over(), record.contains("[Ended \""), "{record}");
    if g.game.settings().seats.len() == 3 {
        assert!(record.contains("[Hostage \""), "{record}");
    }

    let importer = &g.players[0].1;
    let r = if as_text {
        import_text(srv, importer, &record)
    } else {
        import_json(srv, importer, &json!({"record": record}))
    };
    let imported = r.expect(201).clone();
    let new_id = imported["id"].as_str().unwrap().to_string();
    assert_eq!(
        r.header("location"),
        Some(format!("/v1/games/{new_id}").as_str())
    );
    assert_eq!(imported["kind"], "study");
    assert_eq!(imported["open_seats"], json!([]));
    assert_eq!(imported["visibility"], "invite");
    let original = summary(srv, &g.id);
    for key in [
        "status",
        "result",
        "ply",
        "ruler",
        "to_move",
        "seats_in_play",
    ] {
        assert_eq!(imported[key], original[key], "{key}");
    }
    assert_eq!(original["kind"], "play");

    // Position for position, action for action.
    let a = all_events(srv, &g.id);
    let b = all_events(srv, &new_id);
    assert_eq!(b[0]["kind"], "created");
    assert_eq!(b[0]["payload"]["kind"], "study");
    assert!(b[0]["payload"]["record_headers"].is_array());
    assert!(b[0]["payload"].get("kind").is_some());
    assert!(
        a[0]["payload"].get("kind").is_none(),
        "played games keep their payload"
    );
    let (sa, sb) = (action_seqs(&a), action_seqs(&b));
    assert_eq!(sa.len(), sb.len(), "as many actions");
    assert_eq!(actions_of(&a).1, actions_of(&b).1);
    let state = |id: &str, at: i64| -> Value {
        srv.get(&format!("/v1/games/{id}/state?at={at}"), None)
            .expect(200)
            .clone()
    };
    let pairs =
        std::iter::once((sa[0] - 1, sb[0] - 1)).chain(sa.iter().copied().zip(sb.iter().copied()));
    for (va, vb) in pairs {
        let (x, y) = (state(&g.id, va), state(&new_id, vb));
        for key in ["dfen", "ply", "turn", "ruler", "active_seats", "controls"] {
            assert_eq!(x[key], y[key], "{key} at versions {va} / {vb}");
        }
    }
    let last = b.last().unwrap();
    assert_eq!(last["kind"] == "ended", g.game.is_over());
    check_log_replays(srv, &new_id);

    // The study game's record says the same.
    let again = record_of(srv, &new_id);
    let body = |t: &str| t.split_once("\n\n").map(|(_, b)| b.to_string());
    assert_eq!(body(&again), body(&record));
    let reread = domain::read_record(&again).unwrap();
    assert_eq!(reread.actions, parsed.actions);
    assert_eq!(reread.headers, parsed.headers);
    new_id
}

fn records_round_trip_through_import(backend: Backend) {
    let srv = TestServer::start(backend);
    let mut rng = Rng::new(0x4ec0_4d01);

    // Four seats, a resignation in the middle, finished by resignations.
    let mut g = seated_game(&srv, "four", "RBYG");
    play_random(&srv, &mut g, &mut rng, 50, &[30]);
    resign_until_over(&srv, &mut g);
    round_trip(&srv, &g, false);

    // Three seats (Yellow's party hostage), still going, imported as text.
    let mut g = seated_game(&srv, "three", "RBG");
    play_random(&srv, &mut g, &mut rng, 40, &[]);
    assert!(!g.game.is_over());
    let id = round_trip(&srv, &g, true);
    assert_eq!(summary(&srv, &id)["hostage_seat"], "Y");
    assert_eq!(summary(&srv, &id)["status"], "active");

    // Three seats played to the end, with a resignation on the way.
    let mut g = seated_game(&srv, "end", "RBY");
    play_random(&srv, &mut g, &mut rng, 400, &[12]);
    resign_until_over(&srv, &mut g);
    round_trip(&srv, &g, false);

    // Timeouts and an agreed draw come in from records (the server writes them as
    // `timed_out` and `ended` with `draw_agreed`).
    let me = &g.players[0].1;
    let text = "[Event \"by hand\"]\n[Red \"ann\"]\n[Blue \"bo\"]\n[Yellow \"cy\"]\n\
                [Green \"di\"]\n\n1. R C8-D7\n-- G timed out\n2. B G8-F7\n-- draw agreed\n";
    let r = import_text(&srv, me, text);
    let s = r.expect(201).clone();
    assert_eq!(s["status"], "finished");
    assert_eq!(s["result"]["kind"], "draw");
    assert_eq!(s["result"]["reason"], "draw_agreed");
    let id = s["id"].as_str().unwrap();
    let events = all_events(&srv, id);
    let kinds: Vec<&str> = events.iter().map(|e| e["kind"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "created",
            "move_played",
            "timed_out",
            "move_played",
            "ended"
        ]
    );
    assert_eq!(events[2]["payload"], json!({"seat": "G"}));
    assert!(events[2]["step"]["effects"].is_array());
    assert!(
        events[4]["step"].is_object(),
        "the agreed draw is an action"
    );
    assert!(record_of(&srv, id).contains("-- G timed out\n"));
    check_log_replays(&srv, id);

    // A timeout that leaves one seat wins by timeout.
    let text = "[Seats \"RBY\"]\n\n1. R C8-D7\n-- Y timed out\n-- B timed out\n";
    let s = import_text(&srv, me, text).expect(201).clone();
    assert_eq!(s["result"]["kind"], "win");
    assert_eq!(s["result"]["seats"], json!(["R"]));
    assert_eq!(s["result"]["reason"], "timeout");

    // An Idempotency-Key makes a retried import write nothing more.
    let send = || {
        srv.send(
            srv.request(reqwest::Method::POST, "/v1/games/import")
                .bearer_auth(&me.access)
                .header("Idempotency-Key", "import-1")
                .json(&json!({"record": "1. R C8-D7\n", "visibility": "public"})),
        )
    };
    let (first, second) = (send(), send());
    assert_eq!(first.expect(201)["id"], second.expect(201)["id"]);
    assert_eq!(second.header("idempotent-replayed"), Some("true"));
    assert_eq!(first.json["visibility"], "public");
}

/// The number of public games listed in the lobby as active and as finished.
fn lobby_counts(srv: &TestServer) -> (usize, usize) {
    let count = |status: &str| {
        srv.get(&format!("/v1/games?status={status}&limit=100"), None)
            .expect(200)["items"]
            .as_array()
            .unwrap()
            .len()
    };
    (count("active"), count("finished"))
}

fn bad_records_are_refused_and_change_nothing(backend: Backend) {
    let srv = TestServer::start(backend);
    let mut g = seated_game(&srv, "bad", "RBYG");
    let mut rng = Rng::new(0xbad0_0001);
    play_random(&srv, &mut g, &mut rng, 12, &[]);
    let me = g.players[0].1.clone();
    let record = record_of(&srv, &g.id);
    let before = lobby_counts(&srv);

    // The 7th move played by the wrong seat: refused on its line.
    let lines: Vec<&str> = record.lines().collect();
    let (at, line) = lines
        .iter()
        .enumerate()
        .find(|(_, l)| l.starts_with("7. "))
        .unwrap();
    let words: Vec<&str> = line.split_whitespace().collect();
    let wrong = if words[1] == "R" { "B" } else { "R" };
    let mut bad = lines.clone();
    let replaced = format!("7. {wrong} {}", words[2]);
    bad[at] = &replaced;
    let bad = bad.join("\n");
    let r = import_json(&srv, &me, &json!({"record": bad, "visibility": "public"}));
    let p = r.problem(422, "invalid-record");
    assert_eq!(p["line"], at + 1, "{}", r.text);
    assert_eq!(p["reason"], "illegal-action");
    assert!(
        p["detail"]
            .as_str()
            .unwrap()
            .starts_with(&format!("line {}: ", at + 1)),
        "{}",
        r.text
    );

    // A move the rules refuse, as text.
    let r = import_text(&srv, &me, "[Event \"x\"]\n\n1. R C8-D6\n");
    let p = r.problem(422, "invalid-record");
    assert_eq!(p["line"], 3);
    assert_eq!(p["reason"], "illegal-action");
    // A Result header the actions contradict.
    let r = import_text(&srv, &me, "[Result \"R\"]\n1. R C8-D7\n");
    let p = r.problem(422, "invalid-record");
    assert_eq!(p["line"], 1);
    assert_eq!(p["reason"], "result-mismatch");
    // Syntax and unusable headers: 400, naming the line.
    for (text, line) in [
        ("[Event \"x\"]\nhello\n", 2),
        ("1. R C8-D7\n3. B G8-F7\n", 2),
        ("[Seats \"RB\"]\n", 1),
        ("1. R C8-D7 {open\n", 1),
    ] {
        let r = import_text(&srv, &me, text);
        r.problem(400, "validation");
        assert_eq!(r.error_fields(), ["record"], "{}", r.text);
        assert!(
            r.json["detail"]
                .as_str()
                .unwrap()
                .contains(&format!("line {line}: ")),
            "{text:?}: {}",
            r.text
        );
    }
    // Bodies.
    import_json(&srv, &me, &json!({})).problem(400, "validation");
    import_json(&srv, &me, &json!({"record": "1. R C8-D7\n", "x": 1})).problem(400, "validation");
    import_text(&srv, &me, "  \n").problem(400, "validation");
    // An empty record is refused the same way as JSON and as text.
    for empty in ["", "  \n\t"] {
        let r = import_json(&srv, &me, &json!({ "record": empty }));
        r.problem(400, "validation");
        assert_eq!(r.error_fields(), vec!["record"], "{empty:?}");
        let r = import_text(&srv, &me, empty);
        r.problem(400, "validation");
        assert_eq!(r.error_fields(), vec!["record"], "{empty:?}");
    }
    srv.send(
        srv.request(reqwest::Method::POST, "/v1/games/import")
            .bearer_auth(&me.access)
            .header("content-type", "application/xml")
            .body("<record/>"),
    )
    .problem(415, "unsupported-media-type");
    let huge = "; padding padding padding padding padding padding padding padding\n".repeat(5000);
    import_text(&srv, &me, &huge).problem(413, "payload-too-large");
    // Who may import.
    srv.post("/v1/games/import", None, &json!({"record": "1. R C8-D7\n"}))
        .problem(401, "unauthorized");
    let (_, read_only) = srv.pat(&me, &["read"]);
    srv.post(
        "/v1/games/import",
        Some(&read_only),
        &json!({"record": "1. R C8-D7\n"}),
    )
    .problem(403, "forbidden");
    // Another method on the path.
    let r = srv.get("/v1/games/import", None);
    assert_ne!(r.status, 200);

    assert_eq!(lobby_counts(&srv), before, "nothing was written");
}

fn study_games_take_no_seats_and_no_actions(backend: Backend) {
    let srv = TestServer::start(backend);
    let me = srv.user("student");
    let other = srv.user("visitor");
    let s = import_text(&srv, &me, "[Red \"ann\"]\n\n1. R C8-D7\n")
        .expect(201)
        .clone();
    let id = s["id"].as_str().unwrap();
    assert_eq!(s["status"], "active");
    assert_eq!(s["to_move"], "B");
    assert!(s["to_move_user_id"].is_null());
    assert_eq!(s["version"], 2);
    for who in [&me, &other] {
        let r = srv.send(
            srv.request(reqwest::Method::POST, &format!("/v1/games/{id}/seats/B"))
                .bearer_auth(&who.access),
        );
        r.problem(409, "conflict");
    }
    srv.post(
        &format!("/v1/games/{id}/moves"),
        Some(&me.access),
        &json!({"move": "G8-F7", "expected_version": 2}),
    )
    .problem(409, "conflict");
    srv.post(
        &format!("/v1/games/{id}/resignation"),
        Some(&me.access),
        &json!({}),
    )
    .problem(409, "conflict");
    assert_eq!(summary(&srv, id)["version"], 2, "nothing was written");
    // Not in anyone's games; invite-only by default, so not in the lobby.
    let mine = srv
        .get("/v1/me/games", Some(&me.access))
        .expect(200)
        .clone();
    assert_eq!(mine["items"], json!([]));
    let lobby = srv.get("/v1/games?status=active", None).expect(200).clone();
    assert_eq!(lobby["items"], json!([]));
}

/// The client's own picture of version `n` of a log (before a played game's `started`
/// event: the picture of a game waiting for players).
fn expected_svg(events: &[Value], n: usize) -> String {
    let (settings, actions) = actions_of(&events[..n]);
    let (game, _) = Game::replay(settings, &actions).unwrap();
    let study = events[0]["payload"]["kind"] == "study";
    if !study && !events[..n].iter().any(|e| e["kind"] == "started") {
        return domain::board_svg_before_start(game.position(), &SvgOptions::default());
    }
    let last = actions.iter().rev().find_map(|a| match a {
        Action::Move(mv) => Some(*mv),
        _ => None,
    });
    domain::board_svg(game.position(), last.as_ref(), &SvgOptions::default())
}

fn every_position_renders_as_svg(backend: Backend) {
    let srv = TestServer::start(backend);
    let mut rng = Rng::new(0x5e60_0001);
    let mut ids = Vec::new();
    let mut g = seated_game(&srv, "pic4", "RBYG");
    play_random(&srv, &mut g, &mut rng, 30, &[20]);
    resign_until_over(&srv, &mut g);
    ids.push(g.id.clone());
    let mut g = seated_game(&srv, "pic3", "RBY");
    play_random(&srv, &mut g, &mut rng, 25, &[]);
    ids.push(g.id.clone());
    let me = &g.players[0].1;
    let study = import_text(&srv, me, "[Seats \"BYG\"]\n1. B G8-F7\n-- Y timed out\n").expect(201)
        ["id"]
        .as_str()
        .unwrap()
        .to_string();
    ids.push(study);
    let mut pictures = 0;
    for id in &ids {
        let events = all_events(&srv, id);
        for n in 1..=events.len() {
            let r = srv.get(&format!("/v1/games/{id}/board.svg?at={n}"), None);
            assert_eq!(r.status, 200, "{}", r.text);
            assert_eq!(r.content_type(), "image/svg+xml");
            let doc = roxmltree::Document::parse(&r.text)
                .unwrap_or_else(|e| panic!("{id} at {n}: not well-formed: {e}\n{}", r.text));
            let root = doc.root_element();
            assert_eq!(root.tag_name().name(), "svg");
            assert_eq!(
                root.tag_name().namespace(),
                Some("http://www.w3.org/2000/svg")
            );
            assert!(root.descendants().any(|d| d.has_tag_name("title")));
            assert_eq!(r.text, expected_svg(&events, n), "{id} at {n}");
            pictures += 1;
        }
    }
    assert!(pictures > 60, "{pictures}");
}

fn board_svg_headers_and_caching(backend: Backend) {
    let srv = TestServer::start(backend);
    let mut g = seated_game(&srv, "svg", "RBYG");
    let mut rng = Rng::new(0x5e60_0002);
    play_random(&srv, &mut g, &mut rng, 3, &[]);
    let (id, v) = (g.id.clone(), g.version);
    let path = format!("/v1/games/{id}/board.svg");

    let now = srv.get(&path, None);
    assert_eq!(now.status, 200);
    assert_eq!(now.content_type(), "image/svg+xml");
    assert_eq!(now.header("etag"), Some(format!("\"{v}-en\"").as_str()));
    let short = now.header("cache-control").unwrap();
    assert!(
        short.contains("max-age=") && !short.contains("immutable"),
        "{short}"
    );
    assert_eq!(now.header("x-content-type-options"), Some("nosniff"));
    let at_v = srv.get(&format!("{path}?at={v}"), None);
    assert_eq!(at_v.text, now.text);
    assert_eq!(at_v.header("cache-control"), Some(short));

    let past = srv.get(&format!("{path}?at=6"), None);
    assert_eq!(past.status, 200);
    assert_eq!(past.header("etag"), Some("\"6-en\""));
    assert_eq!(
        past.header("cache-control"),
        Some("public, max-age=31536000, immutable")
    );
    assert_ne!(past.text, now.text);
    // The start has no last move; after a move, its arrow is drawn.
    assert!(
        !past.text.contains("id=\"last-move\""),
        "no last move at the start"
    );
    assert!(
        now.text.contains("id=\"last-move\""),
        "the last move is shown"
    );

    // Revalidation.
    let r = srv.send(
        srv.request(reqwest::Method::GET, &format!("{path}?at=6"))
            .header("If-None-Match", "\"6-en\""),
    );
    assert_eq!(r.status, 304);
    assert!(r.text.is_empty());
    // The English tag does not stand for the French picture.
    let fr = srv.send(
        srv.request(reqwest::Method::GET, &format!("{path}?at=6"))
            .header("If-None-Match", "\"6-en\"")
            .header("Accept-Language", "fr"),
    );
    assert_eq!(fr.status, 200);
    assert_eq!(fr.header("etag"), Some("\"6-fr\""));
    assert_eq!(fr.header("content-language"), Some("fr"));

    // Bad `at`, a version not reached yet, unknown games.
    for bad in ["0", "-1", "x", "1.5"] {
        srv.get(&format!("{path}?at={bad}"), None)
            .problem(400, "validation");
    }
    srv.get(&format!("{path}?at={}", v + 1), None)
        .problem(404, "not-found");
    srv.get(
        "/v1/games/00000000-0000-0000-0000-000000000000/board.svg",
        None,
    )
    .problem(404, "not-found");
    srv.get("/v1/games/not%20an%20id/board.svg", None)
        .problem(404, "not-found");

    // Documented as a picture.
    let doc: Value = serde_json::from_str(djambi_api::openapi::document_json()).unwrap();
    let ok = &doc["paths"]["/v1/games/{id}/board.svg"]["get"]["responses"]["200"];
    assert!(ok["content"]["image/svg+xml"].is_object(), "{ok}");
    assert!(doc["paths"]["/v1/games/import"]["post"].is_object());
    assert!(
        doc["paths"].get("/games/{id}").is_none(),
        "pages stay out of the API"
    );
}

fn the_replay_page_and_its_assets(backend: Backend) {
    let srv = TestServer::start(backend);
    let mut g = seated_game(&srv, "page", "RBYG");
    let mut rng = Rng::new(0x9a9e_0001);
    play_random(&srv, &mut g, &mut rng, 4, &[]);
    let csp = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; \
               object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

    let r = srv.get(&format!("/games/{}", g.id), None);
    assert_eq!(r.status, 200, "{}", r.text);
    assert!(
        r.content_type().starts_with("text/html"),
        "{}",
        r.content_type()
    );
    assert_eq!(r.header("content-security-policy"), Some(csp));
    assert!(r.text.contains(&format!("data-game-id=\"{}\"", g.id)));
    assert!(r.text.contains(&format!("/v1/games/{}/board.svg", g.id)));
    assert!(
        r.text.contains("page_r, page_b, page_y, page_g"),
        "{}",
        r.text
    );
    assert!(!r.text.contains("{{"), "every placeholder is filled");

    // The assets, linked with their version: cached for good under it.
    for (asset, media) in [("replay.js", "text/javascript"), ("replay.css", "text/css")] {
        let start = r.text.find(&format!("/assets/{asset}?v=")).expect(asset);
        let link: String = r.text[start..].chars().take_while(|c| *c != '"').collect();
        let a = srv.get(&link, None);
        assert_eq!(a.status, 200);
        assert!(a.content_type().starts_with(media), "{}", a.content_type());
        assert_eq!(
            a.header("cache-control"),
            Some("public, max-age=31536000, immutable")
        );
        let etag = a.header("etag").unwrap().to_string();
        let plain = srv.get(&format!("/assets/{asset}"), None);
        assert_eq!(plain.text, a.text);
        assert_eq!(plain.header("cache-control"), Some("no-cache"));
        let again = srv.send(
            srv.request(reqwest::Method::GET, &format!("/assets/{asset}"))
                .header("If-None-Match", etag),
        );
        assert_eq!(again.status, 304);
    }

    // Names from a record are text: escaped.
    let me = &g.players[0].1;
    let s = import_text(
        &srv,
        me,
        "[Red \"<script>alert('x')</script> & co\"]\n1. R C8-D7\n",
    )
    .expect(201)
    .clone();
    let r = srv.get(&format!("/games/{}", s["id"].as_str().unwrap()), None);
    assert_eq!(r.status, 200);
    assert!(!r.text.contains("<script>alert"), "{}", r.text);
    assert!(
        r.text
            .contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; co")
    );

    // Unknown games: an HTML page, not a problem document.
    for path in [
        "/games/00000000-0000-0000-0000-000000000000",
        "/games/%3Cscript%3E",
    ] {
        let r = srv.get(path, None);
        assert_eq!(r.status, 404, "{path}");
        assert!(
            r.content_type().starts_with("text/html"),
            "{}",
            r.content_type()
        );
        assert_eq!(r.header("content-security-policy"), Some(csp));
        assert!(!r.text.contains("<script"), "{}", r.text);
    }
    // The JSON API still answers problems.
    srv.get("/v1/games/00000000-0000-0000-0000-000000000000", None)
        .problem(404, "not-found");
}
