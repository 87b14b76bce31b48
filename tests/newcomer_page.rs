//! A newcomer's pages: the welcome page of a visitor at `/`, the rules (`/rules`), the
//! lessons (`/learn`), "play now" (`/signup?play=1`). Without a browser on both
//! databases: what each page and picture serves, in three languages. In headless Chromium
//! on PostgreSQL (`tests/browser/newcomer_test.py`): a newcomer signed out at `/` watches a
//! live public game follow a move, reads the rules, does every lesson (wrong and right
//! answers), signs up to play against the computer and plays a first move; axe-core on
//! every page. Chromium is installed by `scripts/ensure-chromium.sh` when missing; if it
//! cannot be, the browser test FAILS. The password reset from the mail is
//! `tests/reset_page.rs`.

#[path = "support/history.rs"]
mod history;

use djambi_api::learn::{LESSONS, RULE_SECTIONS};
use djambi_e2e::{Backend, Resp, TestServer, backend_tests, json, run_browser_driver, send};
use history::seated_game;

fn page(srv: &TestServer, path: &str, lang: &str) -> Resp {
    let r = send(
        reqwest::blocking::Client::new()
            .get(srv.url(path))
            .header("accept-language", lang),
    );
    assert_eq!(r.status, 200, "{path}: {}", r.text);
    r
}

fn the_newcomer_pages_need_no_account(backend: Backend) {
    let srv = TestServer::start(backend);

    // A visitor's `/`: what Djambi is, the two buttons, games to watch, the login form.
    let home = page(&srv, "/", "en");
    assert!(home.content_type().starts_with("text/html"));
    for needle in [
        "data-page=\"welcome\"",
        "Machiavelli",
        "href=\"/rules\"",
        "href=\"/signup?play=1\"",
        "id=\"live-games\"",
        "id=\"top-players\"",
        "id=\"login-form\"",
        "href=\"/reset-password\"",
        "/rules/pictures/board.svg?lang=en",
        "/assets/web/newcomer.js?v=",
    ] {
        assert!(home.text.contains(needle), "/: {needle}");
    }
    let fr = page(&srv, "/", "fr");
    assert!(fr.text.contains("Apprendre les règles"), "{}", fr.text);

    // The rules: every section with its picture, in each language.
    for (lang, title) in [
        ("en", "The rules of Djambi"),
        ("fr", "Les règles du Djambi"),
        ("es", "Las reglas del Djambi"),
    ] {
        let rules = page(&srv, "/rules", lang);
        assert!(rules.text.contains(title), "{lang}");
        assert_eq!(rules.header("content-language"), Some(lang));
        for s in RULE_SECTIONS {
            assert!(
                rules.text.contains(&format!("id=\"rule-{}\"", s.id)),
                "{lang}: {}",
                s.id
            );
            assert!(
                rules
                    .text
                    .contains(&format!("/rules/pictures/{}.svg?lang={lang}", s.id)),
                "{lang}: {}",
                s.id
            );
        }
        assert!(!rules.text.contains("{{"), "{lang}: a placeholder left");
        assert!(
            !rules.text.contains(">rules-board-text"),
            "{lang}: an id for a text"
        );
    }
    for s in RULE_SECTIONS {
        let svg = page(&srv, &format!("/rules/pictures/{}.svg?lang=es", s.id), "en");
        assert!(svg.content_type().starts_with("image/svg+xml"), "{}", s.id);
        assert!(svg.text.starts_with("<svg"), "{}", s.id);
        assert_eq!(svg.header("content-language"), Some("es"));
        if let Some(mv) = s.shown {
            // The move's squares are highlighted: its first square is named in the picture.
            assert!(svg.text.contains(&mv[..2]), "{}: {mv}", s.id);
        }
    }

    // The lessons: each with its position, its answer's shape, its task and hint.
    let learn = page(&srv, "/learn", "en");
    for l in LESSONS {
        assert!(
            learn.text.contains(&format!("data-lesson=\"{}\"", l.id)),
            "{}",
            l.id
        );
        assert!(learn.text.contains(&format!("id=\"lesson-{}-hint\"", l.id)));
        let svg = page(&srv, &format!("/learn/pictures/{}.svg", l.id), "fr");
        assert!(svg.text.starts_with("<svg"), "{}", l.id);
    }
    assert!(
        learn
            .text
            .contains("Kill the Blue militant with your militant")
    );
    // The engine the page asks (the analysis board) agrees with the lessons' data: each
    // right answer and each wrong try is legal there, in its canonical text; a move of
    // another seat is refused with the reason.
    for l in LESSONS {
        for text in [l.example, l.wrong] {
            let r = srv.post(
                "/v1/positions/play",
                None,
                &json!({"dfen": l.dfen, "move": text}),
            );
            assert_eq!(r.expect(200)["played"]["text"], text, "{}", l.id);
        }
    }
    let refused = srv.post(
        "/v1/positions/play",
        None,
        &json!({"dfen": LESSONS[0].dfen, "move": "A1-A2"}),
    );
    assert_eq!(refused.status, 400, "{}", refused.text);
    assert!(refused.text.contains("move"), "{}", refused.text);
    let es = page(&srv, "/learn", "es");
    assert!(es.text.contains("Lecciones"));

    // Unknown pictures are the HTML 404.
    for path in [
        "/rules/pictures/nothing.svg",
        "/learn/pictures/militant",
        "/learn/pictures/%00.svg",
    ] {
        let r = srv.get(path, None);
        assert_eq!(r.status, 404, "{path}");
        assert!(r.content_type().starts_with("text/html"), "{path}");
    }

    // The reset pages under the names of the API's list lead to the pages the mail links.
    let asked = srv.get("/password-reset", None);
    assert_eq!(asked.status, 308);
    assert_eq!(asked.header("location"), Some("/reset-password"));
    let form = srv.get("/reset-password", None);
    assert!(form.text.contains("id=\"reset-who\""), "{}", form.text);
    let raw = reqwest::blocking::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let moved = send(raw.get(srv.url("/password-reset/djx_abc")));
    assert_eq!(moved.status, 308);
    assert_eq!(moved.header("location"), Some("/reset-password/djx_abc"));

    // "Play now": the sign-up form asks for the computer players' level.
    let play = page(&srv, "/signup?play=1", "en");
    assert!(play.text.contains("id=\"playnow-level\""));
    let plain = page(&srv, "/signup", "en");
    assert!(!plain.text.contains("playnow-level"));
    // What the button does for a new account: a game against three computer players,
    // under way at once.
    let me = srv.user("newcomer");
    let bots: Vec<_> = ["B", "Y", "G"]
        .iter()
        .map(|s| json!({"seat": s, "level": 1}))
        .collect();
    let created = srv.post(
        "/v1/games",
        Some(&me.access),
        &json!({"seats": 4, "seat": "R", "bots": bots}),
    );
    let id = created.expect(201)["id"].as_str().unwrap().to_string();
    let summary = srv.get(&format!("/v1/games/{id}"), Some(&me.access));
    assert_eq!(summary.expect(200)["status"], "active");

    // A signed-in player keeps "my games" at `/`, with "play now" on it.
    let mine = send(
        reqwest::blocking::Client::new()
            .get(srv.url("/"))
            .header("cookie", web_cookie(&srv, &me.username)),
    );
    assert!(mine.text.contains("data-page=\"home\""), "{}", mine.text);
    assert!(mine.text.contains("id=\"playnow-start\""));
}

/// The session cookie of a web login.
fn web_cookie(srv: &TestServer, username: &str) -> String {
    let r = srv.post(
        "/web/session",
        None,
        &json!({"username": username, "password": djambi_e2e::PASSWORD}),
    );
    assert_eq!(r.status, 201, "{}", r.text);
    let set = r.header("set-cookie").expect("a cookie").to_string();
    set.split(';').next().unwrap().to_string()
}

backend_tests!(the_newcomer_pages_need_no_account);

#[test]
fn a_newcomer_learns_and_plays_in_chromium() {
    let root = djambi_e2e::repo_root();
    let srv = TestServer::start(Backend::Postgres);
    // A public game under way, and the move its first seat will play while the
    // newcomer watches.
    let g = seated_game(&srv, "watched", "RBYG");
    let mover = g.game.position().to_move().expect("a seat to move");
    let token = g.player(mover).access.clone();
    let position = g.game.position();
    let first = position.legal_moves()[0];
    let text = position.move_text(&first).to_string();
    let lessons: Vec<_> = LESSONS
        .iter()
        .map(|l| json!({"id": l.id, "example": l.example, "wrong": l.wrong}))
        .collect();
    let lessons = serde_json::to_string(&lessons).unwrap();
    let outdir = root.join("target/test-artifacts/newcomer");
    let stdout = run_browser_driver(
        "newcomer_test.py",
        &[
            &srv.base,
            &outdir.to_string_lossy(),
            "--game",
            &g.id,
            "--token",
            &token,
            "--move",
            &text,
            "--lessons",
            &lessons,
        ],
    );
    assert!(outdir.join("learn.png").is_file());
    eprintln!("{}", stdout.lines().last().unwrap_or_default());
}
