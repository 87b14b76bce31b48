//! `POST /v1/accounts`: registration, field rules and every kind of bad body.

#[path = "support/games.rs"]
mod games;

use base64::Engine;
use djambi_e2e::{Backend, PASSWORD, TestServer, backend_tests, json};

fn register_creates_an_account(backend: Backend) {
    let s = TestServer::start(backend);
    let r = s.post(
        "/v1/accounts",
        None,
        &json!({"username": "Alice", "email": " alice@example.org ", "password": PASSWORD}),
    );
    let b = r.expect(201);
    assert_eq!(r.header("location"), Some("/v1/me"));
    assert_eq!(b["username"], "Alice");
    assert_eq!(b["email"], "alice@example.org");
    assert_eq!(b["id"].as_str().unwrap().len(), 36);
    assert!(b["created_at"].as_str().unwrap().ends_with('Z'));
    assert!(
        !r.text.contains("argon2") && !r.text.contains("password"),
        "{}",
        r.text
    );
    // The new account can log in, with any case of its name.
    let login = s.login("alice", PASSWORD);
    assert_eq!(login.username, "Alice");
}

fn usernames_are_unique_regardless_of_case(backend: Backend) {
    let s = TestServer::start(backend);
    s.register("bob");
    let r = s.post(
        "/v1/accounts",
        None,
        &json!({"username": "BOB", "email": "other@example.org", "password": PASSWORD}),
    );
    r.problem(409, "conflict");
    assert!(r.json["detail"].as_str().unwrap().contains("taken"));
}

fn field_rules_are_enforced(backend: Backend) {
    let s = TestServer::start(backend);
    let long_user = "u".repeat(33);
    let long_email = format!("{}@example.org", "e".repeat(243));
    assert_eq!(long_email.len(), 255);
    let long_password = "p".repeat(129);
    let cases: Vec<(serde_json::Value, Vec<&str>)> = vec![
        (
            json!({"username": "ab", "email": "a@example.org", "password": PASSWORD}),
            vec!["username"],
        ),
        (
            json!({"username": long_user, "email": "a@example.org", "password": PASSWORD}),
            vec!["username"],
        ),
        (
            json!({"username": "has space", "email": "a@example.org", "password": PASSWORD}),
            vec!["username"],
        ),
        (
            json!({"username": "émile", "email": "a@example.org", "password": PASSWORD}),
            vec!["username"],
        ),
        (
            json!({"username": "\u{212A}elvin", "email": "a@example.org", "password": PASSWORD}),
            vec!["username"],
        ),
        (
            json!({"username": "carol_", "email": "a@example.org", "password": PASSWORD}),
            vec!["username"],
        ),
        (
            json!({"username": "car--ol", "email": "a@example.org", "password": PASSWORD}),
            vec!["username"],
        ),
        (
            json!({"username": "carol", "email": "not-an-email", "password": PASSWORD}),
            vec!["email"],
        ),
        (
            json!({"username": "carol", "email": long_email, "password": PASSWORD}),
            vec!["email"],
        ),
        (
            json!({"username": "carol", "email": "a@example.org", "password": "short"}),
            vec!["password"],
        ),
        (
            json!({"username": "carol", "email": "a@example.org", "password": long_password}),
            vec!["password"],
        ),
        (
            json!({"username": "x", "email": "y", "password": "z"}),
            vec!["username", "email", "password"],
        ),
    ];
    for (body, fields) in cases {
        let r = s.post("/v1/accounts", None, &body);
        r.problem(400, "validation");
        assert_eq!(r.error_fields(), fields, "{body}: {}", r.text);
    }
    // Nothing was created: the name is still free.
    s.register("carol");
}

fn malformed_bodies_are_problems(backend: Backend) {
    let s = TestServer::start(backend);
    let post_raw = |body: &'static str, content_type: &str| {
        s.send(
            s.request(reqwest::Method::POST, "/v1/accounts")
                .header("content-type", content_type)
                .body(body),
        )
    };
    // Broken JSON, wrong types, missing and unknown fields, empty body: a wrong type or
    // an unknown field is named; the rest is about the body as a whole.
    for (body, field) in [
        ("{\"username\": \"dave\",", "body"),
        ("not json at all", "body"),
        (
            "{\"username\": 5, \"email\": \"d@example.org\", \"password\": \"correct horse\"}",
            "username",
        ),
        (
            "{\"username\": \"dave\", \"email\": \"d@example.org\"}",
            "body",
        ),
        (
            "{\"username\": \"dave\", \"email\": \"d@example.org\", \"password\": \"correct horse\", \"admin\": true}",
            "admin",
        ),
        ("[]", "body"),
        ("[\"dave\", \"d@example.org\", \"correct horse\"]", "body"),
        ("", "body"),
    ] {
        let r = post_raw(body, "application/json");
        r.problem(400, "validation");
        assert_eq!(r.error_fields(), vec![field], "{body}: {}", r.text);
    }
    // A wrong type, or an unknown field, is reported under the field's name.
    for (body, field) in [
        (
            "{\"username\": \"dave\", \"email\": \"d@example.org\", \"password\": \"correct horse\", \"admin\": true}",
            "admin",
        ),
        (
            "{\"username\": 5, \"email\": \"d@example.org\", \"password\": \"correct horse\"}",
            "username",
        ),
        (
            "{\"username\": \"dave\", \"email\": [], \"password\": \"correct horse\"}",
            "email",
        ),
        (
            "{\"username\": \"dave\", \"email\": \"d@example.org\", \"password\": null}",
            "password",
        ),
    ] {
        let r = post_raw(body, "application/json");
        r.problem(400, "validation");
        assert_eq!(r.error_fields(), vec![field], "{body}: {}", r.text);
    }
    // Not JSON at all by media type.
    post_raw("username=dave", "application/x-www-form-urlencoded")
        .problem(415, "unsupported-media-type");
    // A body without a content type is refused the same way.
    let r = s.send(
        s.request(reqwest::Method::POST, "/v1/accounts")
            .body(format!("{{\"username\": \"dave\", \"email\": \"d@example.org\", \"password\": \"{PASSWORD}\"}}")),
    );
    r.problem(415, "unsupported-media-type");
    // `application/<x>+json` is JSON.
    let r = s.send(
        s.request(reqwest::Method::POST, "/v1/accounts")
            .header("content-type", "application/vnd.djambi+json; charset=utf-8")
            .body(format!("{{\"username\": \"dave\", \"email\": \"d@example.org\", \"password\": \"{PASSWORD}\"}}")),
    );
    r.expect(201);
}

fn oversize_body_is_413(backend: Backend) {
    let s = TestServer::start_with(backend, &[("DJAMBI_MAX_BODY_BYTES", "4096")]);
    let big = "x".repeat(10_000);
    let r = s.post(
        "/v1/accounts",
        None,
        &json!({"username": "erin", "email": "e@example.org", "password": big}),
    );
    let b = r.problem(413, "payload-too-large");
    assert_eq!(b["limit_bytes"], 4096);
    // Chunked (no Content-Length) is caught too.
    let body = reqwest::blocking::Body::new(std::io::Cursor::new(vec![b' '; 10_000]));
    let r = s.send(
        s.request(reqwest::Method::POST, "/v1/accounts")
            .header("content-type", "application/json")
            .body(body),
    );
    r.problem(413, "payload-too-large");
}

fn registrations_are_limited_per_client_address(backend: Backend) {
    let s = TestServer::start_with(backend, &[("DJAMBI_REGISTER_LIMIT_PER_IP", "2/1h")]);
    s.register("alice");
    // A refused body costs no token.
    s.post("/v1/accounts", None, &json!({"username": "x"}))
        .problem(400, "validation");
    s.register("bob");
    let r = s.post(
        "/v1/accounts",
        None,
        &json!({"username": "carol", "email": "carol@example.org", "password": PASSWORD}),
    );
    r.problem(429, "rate-limited");
    let retry: u64 = r.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=1800).contains(&retry), "Retry-After {retry}");
    // Nothing was written: carol can log in nowhere.
    s.post(
        "/v1/sessions",
        None,
        &json!({"username": "carol", "password": PASSWORD}),
    )
    .problem(401, "unauthorized");
}

/// No two accounts look alike, and a look-alike never logs in.
fn look_alike_names_are_refused_and_never_log_in(backend: Backend) {
    let s = TestServer::start(backend);
    s.register("Ivan");
    s.register("kelvin");
    for taken in ["lvan", "IVAN", "1van", "ivan"] {
        let r = s.post(
            "/v1/accounts",
            None,
            &json!({"username": taken, "email": "x@example.org", "password": PASSWORD}),
        );
        r.problem(409, "conflict");
    }
    s.register("bob_smith");
    s.post(
        "/v1/accounts",
        None,
        &json!({"username": "bob-smith", "email": "x@example.org", "password": PASSWORD}),
    )
    .problem(409, "conflict");
    s.register("modern");
    s.post(
        "/v1/accounts",
        None,
        &json!({"username": "rnodern", "email": "x@example.org", "password": PASSWORD}),
    )
    .problem(409, "conflict");
    // Logins: the name itself in any case, never a look-alike or a Unicode cousin.
    s.login("IVAN", PASSWORD);
    s.login("KELVIN", PASSWORD);
    for alike in [
        "lvan",
        "\u{212A}elvin",
        "ｋelvin",
        "kelvin\u{200B}",
        "bob-smith",
    ] {
        s.post(
            "/v1/sessions",
            None,
            &json!({"username": alike, "password": PASSWORD}),
        )
        .problem(401, "unauthorized");
    }
}

/// Weak and common passwords are refused with a message that says why.
fn weak_passwords_are_refused(backend: Backend) {
    let s = TestServer::start(backend);
    for weak in [
        "password",
        "12345678",
        "qwertyuiop",
        "carol1234",
        "carol_smith1",
        "aaaaaaaaaaaa",
    ] {
        let r = s.post(
            "/v1/accounts",
            None,
            &json!({"username": "carol_smith", "email": "carol@example.org", "password": weak}),
        );
        r.problem(400, "validation");
        assert_eq!(r.error_fields(), vec!["password"], "{weak}");
        let message = r.json["errors"][0]["message"].as_str().unwrap();
        assert!(
            message.starts_with("is too easy to guess"),
            "{weak}: {message}"
        );
    }
    s.register("carol_smith");
}

/// Passwords are compared in NFC (RFC 8265 OpaqueString): the same password typed with
/// composed or decomposed accents is the same.
fn passwords_are_normalised(backend: Backend) {
    let s = TestServer::start(backend);
    let nfd = "cre\u{300}me bru\u{302}le\u{301}e au cafe\u{301}";
    let nfc = "cr\u{e8}me br\u{fb}l\u{e9}e au caf\u{e9}";
    s.post(
        "/v1/accounts",
        None,
        &json!({"username": "dora", "email": "dora@example.org", "password": nfd}),
    )
    .expect(201);
    s.login("dora", nfc);
    s.login("dora", nfd);
    s.post(
        "/v1/sessions",
        None,
        &json!({"username": "dora", "password": "creme brulee au cafe"}),
    )
    .problem(401, "unauthorized");
    // Control characters are not allowed in a new password.
    let r = s.post(
        "/v1/accounts",
        None,
        &json!({"username": "erin", "email": "erin@example.org", "password": "bell\u{7} and whistle stop"}),
    );
    assert_eq!(r.error_fields(), vec!["password"]);
}

backend_tests!(
    look_alike_names_are_refused_and_never_log_in,
    weak_passwords_are_refused,
    passwords_are_normalised,
    registrations_are_limited_per_client_address,
    register_creates_an_account,
    usernames_are_unique_regardless_of_case,
    field_rules_are_enforced,
    malformed_bodies_are_problems,
    oversize_body_is_413,
    the_export_holds_what_the_account_wrote_and_set,
    the_export_holds_trees_studies_analyses_and_tournaments,
);

/// The export holds what the account wrote and set beyond its games: its table-talk
/// messages (its private ones too, but never what others wrote it), its mutes, its
/// reports and its push subscriptions (without the `auth` secret).
fn the_export_holds_what_the_account_wrote_and_set(backend: Backend) {
    let b64 = |bytes: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
    // P-256's generator: a valid public key (of the private key 1).
    let generator = hex_bytes(concat!(
        "04",
        "6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296",
        "4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5"
    ));
    let vapid = b64(&[1u8; 32]);
    let srv = TestServer::start_with(
        backend,
        &[
            ("DJAMBI_VAPID_PRIVATE_KEY", vapid.as_str()),
            ("DJAMBI_VAPID_SUBJECT", "mailto:ops@example.org"),
        ],
    );
    let (id, p) = games::four_player_game(&srv, "exq");
    let say = |who: usize, text: &str, to: Option<&[&str]>| -> String {
        let mut body = json!({ "text": text });
        if let Some(to) = to {
            body["to"] = json!(to);
        }
        srv.post(
            &format!("/v1/games/{id}/messages"),
            Some(&p[who].access),
            &body,
        )
        .expect(201)["id"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let table = say(0, "Red to the table", None);
    let private = say(0, "Red to Blue alone", Some(&["B"]));
    let to_red = say(1, "Blue to Red alone", Some(&["R"]));
    say(2, "Yellow to Blue alone", Some(&["B"]));
    srv.send(
        srv.request(reqwest::Method::PUT, "/v1/me/mutes/exq_y")
            .bearer_auth(&p[0].access),
    )
    .expect(204);
    srv.post(
        &format!("/v1/games/{id}/messages/{to_red}/report"),
        Some(&p[0].access),
        &json!({"reason": "rude"}),
    )
    .expect(201);
    let auth_secret = b64(b"sixteen byte key");
    srv.post(
        "/v1/me/push-subscriptions",
        Some(&p[0].access),
        &json!({"endpoint": "https://fcm.googleapis.com/fcm/send/exq-red",
                "keys": {"p256dh": b64(&generator), "auth": auth_secret}}),
    )
    .expect(201);

    let doc = srv
        .get("/v1/me/export", Some(&p[0].access))
        .expect(200)
        .clone();
    let messages = doc["messages"].as_array().unwrap();
    let ids: Vec<&str> = messages.iter().map(|m| m["id"].as_str().unwrap()).collect();
    assert_eq!(ids, [table.as_str(), private.as_str()], "{doc}");
    assert_eq!(messages[1]["text"], "Red to Blue alone");
    assert_eq!(messages[1]["to"], json!(["B"]));
    assert_eq!(messages[1]["game_id"], id.as_str());
    assert_eq!(messages[0]["to"], json!(null));
    let text = doc.to_string();
    for other in ["Blue to Red alone", "Yellow to Blue alone"] {
        assert!(
            !text.contains(other),
            "the export holds another's message: {other}"
        );
    }
    // The feed's `message` item says which message came, not its (another's) text.
    let came = doc["notifications"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["kind"] == "message" && n["payload"]["message_id"] == to_red.as_str())
        .unwrap_or_else(|| panic!("no message notification: {doc}"));
    assert!(came["payload"].get("text").is_none(), "{came}");
    assert_eq!(doc["mutes"][0]["username"], "exq_y", "{doc}");
    assert_eq!(doc["mutes"].as_array().unwrap().len(), 1);
    assert_eq!(doc["message_reports"][0]["message_id"], to_red.as_str());
    assert_eq!(doc["message_reports"][0]["reason"], "rude");
    let subs = doc["push_subscriptions"].as_array().unwrap();
    assert_eq!(subs.len(), 1, "{doc}");
    assert_eq!(
        subs[0]["endpoint"],
        "https://fcm.googleapis.com/fcm/send/exq-red"
    );
    assert!(
        !text.contains(&auth_secret),
        "the export holds the push secret"
    );
    // Another player's export holds only their own.
    let blue = srv
        .get("/v1/me/export", Some(&p[1].access))
        .expect(200)
        .clone();
    assert_eq!(blue["messages"].as_array().unwrap().len(), 1, "{blue}");
    assert_eq!(blue["messages"][0]["text"], "Blue to Red alone");
    assert_eq!(blue["mutes"], json!([]));
    assert_eq!(blue["push_subscriptions"], json!([]));
}

/// The export holds what the account made with the later capabilities: its language and
/// time zone, its trees of conditional moves, the study games it imported, the analyses
/// it asked for, its tournaments (organised or entered) and its rating (none before a
/// rated game); its parts are exactly `PARTS`, the README's list.
fn the_export_holds_trees_studies_analyses_and_tournaments(backend: Backend) {
    use domain::{Action, Game, GameSettings};
    let srv = TestServer::start(backend);
    let (id, p) = games::four_player_game(&srv, "ext");
    let (red, blue) = (&p[0], &p[1]);
    srv.send(
        srv.request(reqwest::Method::PATCH, "/v1/me")
            .bearer_auth(&blue.access)
            .json(&json!({"language": "fr", "time_zone": "Europe/Paris"})),
    )
    .expect(200);

    // Blue's tree: if Red plays its first legal move, Blue answers with its own first.
    let (settings, actions) = games::actions_of(&games::all_events(&srv, &id));
    let (mut game, _) = Game::replay(settings, &actions).unwrap();
    let mut words = Vec::new();
    for _ in 0..2 {
        let seat = game.position().to_move().unwrap();
        let mv = game.position().legal_moves()[0];
        words.push(format!("{seat} {}", game.position().move_text(&mv)));
        game.apply(&Action::Move(mv)).unwrap();
    }
    let line = words.join(" ");
    let v = games::version(&srv, &id);
    srv.send(
        srv.request(
            reqwest::Method::PUT,
            &format!("/v1/games/{id}/seats/B/conditional-moves"),
        )
        .bearer_auth(&blue.access)
        .header("If-Match", format!("\"{v}\""))
        .json(&json!({ "lines": [line] })),
    )
    .expect(200);

    // A study game of one move, and its analysis.
    let mut study = Game::new(GameSettings::four_players()).unwrap();
    let first = study.position().legal_moves()[0];
    study.apply(&Action::Move(first)).unwrap();
    let record = domain::write_record(
        GameSettings::four_players(),
        &[Action::Move(first)],
        &[("Event", "export test")],
    )
    .unwrap();
    let study_id = srv
        .post(
            "/v1/games/import",
            Some(&blue.access),
            &json!({"record": record, "visibility": "public"}),
        )
        .expect(201)["id"]
        .as_str()
        .unwrap()
        .to_string();
    let asked = srv.post(
        &format!("/v1/games/{study_id}/analysis"),
        Some(&blue.access),
        &json!({}),
    );
    assert_eq!(asked.status.as_u16(), 202, "{}", asked.text);

    // A tournament Red organises and Blue enters.
    let tournament = srv
        .post(
            "/v1/tournaments",
            Some(&red.access),
            &json!({"name": "Export Cup", "format": "round_robin", "capacity": 8,
                    "time_control": {"per_move_secs": 259200}}),
        )
        .expect(201)["id"]
        .as_str()
        .unwrap()
        .to_string();
    srv.send(
        srv.request(
            reqwest::Method::PUT,
            &format!("/v1/tournaments/{tournament}/players/me"),
        )
        .bearer_auth(&blue.access),
    )
    .expect(200);

    let doc = srv
        .get("/v1/me/export", Some(&blue.access))
        .expect(200)
        .clone();
    let keys: Vec<&str> = doc
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let mut parts = djambi_api::accounts::export::PARTS.to_vec();
    parts.sort_unstable();
    let mut sorted = keys.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, parts, "the export's parts are PARTS");
    assert_eq!(doc["account"]["language"], "fr", "{doc}");
    assert_eq!(doc["account"]["time_zone"], "Europe/Paris");
    let trees = doc["conditional_moves"].as_array().unwrap();
    assert_eq!(trees.len(), 1, "{doc}");
    assert_eq!(trees[0]["game_id"], id.as_str());
    assert_eq!(trees[0]["seat"], "B");
    assert_eq!(trees[0]["lines"], json!([line]));
    let studies = doc["study_games"].as_array().unwrap();
    assert_eq!(studies.len(), 1, "{doc}");
    assert_eq!(studies[0]["id"], study_id.as_str());
    assert!(
        studies[0]["record"]
            .as_str()
            .unwrap()
            .contains("[Event \"export test\"]"),
        "{doc}"
    );
    let analyses = doc["analyses"].as_array().unwrap();
    assert_eq!(analyses.len(), 1, "{doc}");
    assert_eq!(analyses[0]["game_id"], study_id.as_str());
    assert_eq!(doc["tournaments"][0]["id"], tournament.as_str(), "{doc}");
    assert_eq!(doc["tournaments"][0]["entered"], true);
    assert_eq!(doc["tournaments"][0]["organiser"], false);
    assert_eq!(doc["rating"], json!(null), "no rated game yet");
    // Red's export: the tournament it organises; no tree, study or analysis of Blue's.
    let red_doc = srv
        .get("/v1/me/export", Some(&red.access))
        .expect(200)
        .clone();
    assert_eq!(red_doc["tournaments"][0]["organiser"], true, "{red_doc}");
    assert_eq!(red_doc["tournaments"][0]["entered"], false);
    for part in ["conditional_moves", "study_games", "analyses"] {
        assert_eq!(red_doc[part], json!([]), "{part}: {red_doc}");
    }
}

/// The README's description of the export names every part of it.
#[test]
fn the_readme_lists_every_part_of_the_export() {
    let readme = std::fs::read_to_string(djambi_e2e::repo_root().join("README.md")).unwrap();
    let start = readme
        .find("*Export.*")
        .expect("the README describes the export");
    let end = start + readme[start..].find("*The mails*").unwrap();
    let text = &readme[start..end];
    for part in djambi_api::accounts::export::PARTS {
        assert!(
            text.contains(&format!("`{part}`")),
            "the README's export does not name `{part}`"
        );
    }
}

fn hex_bytes(hex: &str) -> Vec<u8> {
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect()
}
