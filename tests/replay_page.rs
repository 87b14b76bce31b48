//! The replay page in a real browser: the server on PostgreSQL, a random game played to
//! its end through the API, then headless Chromium steps through the page
//! (`tests/browser/replay_test.py`, see `tests/browser/README.md`), runs axe-core on it
//! and checks the console, and opens the page of a game still waiting for players.
//! Chromium is installed by `scripts/ensure-chromium.sh` when missing; if it cannot be,
//! this test FAILS. Also, without a browser: what `board.svg` says before the start.

#[path = "support/history.rs"]
mod history;

use djambi_e2e::{Backend, Rng, TestServer, run_browser_driver};
use history::*;
use serde_json::json;

/// A four-seat game with Red's seat taken, the others free; returns its id.
fn waiting_game(srv: &TestServer, username: &str) -> String {
    let red = srv.user(username);
    let created = srv.post(
        "/v1/games",
        Some(&red.access),
        &json!({"seats": 4, "seat": "R"}),
    );
    created.expect(201)["id"]
        .as_str()
        .expect("an id")
        .to_string()
}

/// The `<title>` of a board picture.
fn picture_title(srv: &TestServer, path: &str) -> String {
    let r = srv.get(path, None);
    assert_eq!(r.status, 200, "{path}: {}", r.text);
    assert!(r.content_type().starts_with("image/svg+xml"), "{path}");
    let start = r.text.find("<title id=\"board-title\">").expect("a title") + 24;
    let end = start + r.text[start..].find("</title>").expect("the title's end");
    r.text[start..end].to_string()
}

#[test]
fn the_replay_page_steps_through_a_real_game_in_chromium() {
    let root = djambi_e2e::repo_root();
    let srv = TestServer::start(Backend::Postgres);

    // About 40 actions: random moves with a resignation on the way, then resignations.
    let mut g = seated_game(&srv, "browser", "RBYG");
    let mut rng = Rng::new(0xb40_5e71);
    play_random(&srv, &mut g, &mut rng, 34, &[20]);
    resign_until_over(&srv, &mut g);
    let waiting = waiting_game(&srv, "browser_waits");
    // The engine's analysis of the game, shown on the page (issue 37).
    let asker = &g.players[0].1;
    let asked = srv.post(
        &format!("/v1/games/{}/analysis", g.id),
        Some(&asker.access),
        &json!({}),
    );
    assert_eq!(asked.status, 202, "{}", asked.text);
    let started = std::time::Instant::now();
    let analysis = loop {
        let r = srv.get(&format!("/v1/games/{}/analysis", g.id), None);
        if r.status == 200 {
            break r.json;
        }
        assert!(started.elapsed().as_secs() < 180, "no analysis: {}", r.text);
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    let judged = analysis["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .filter(|m| m["judgement"].is_string())
        .count();

    let outdir = root.join("target/test-artifacts/replay");
    let outdir_text = outdir.to_string_lossy();
    let stdout = run_browser_driver(
        "replay_test.py",
        &[&srv.base, &g.id, &outdir_text, "--waiting", &waiting],
    );
    assert!(outdir.join("replay.png").is_file());
    assert!(stdout.contains("explore: "), "{stdout}");
    assert!(
        stdout.contains("waiting game: The game has not started"),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!(
            "analysis: curve True, {judged} judged moves marked"
        )),
        "{stdout}"
    );
    eprintln!("{}", stdout.lines().last().unwrap_or_default());
}

#[test]
fn board_svg_before_the_start_says_the_game_waits_for_players() {
    let srv = TestServer::start(Backend::Postgres);
    let id = waiting_game(&srv, "svg_waits");
    for path in [
        format!("/v1/games/{id}/board.svg"),
        format!("/v1/games/{id}/board.svg?at=1"),
    ] {
        let title = picture_title(&srv, &path);
        assert!(!title.contains("to move"), "{path}: {title}");
        assert!(title.contains("Waiting for players"), "{path}: {title}");
    }

    // A game under way: its version 1 (created, nobody seated yet) is before the start;
    // from the start on, the picture says whose turn it is.
    let mut g = seated_game(&srv, "svg_plays", "RBYG");
    let mut rng = Rng::new(7);
    play_random(&srv, &mut g, &mut rng, 2, &[]);
    let before = picture_title(&srv, &format!("/v1/games/{}/board.svg?at=1", g.id));
    assert!(!before.contains("to move"), "{before}");
    assert!(
        before.contains("Waiting for players: the position before the start"),
        "{before}"
    );
    let now = picture_title(&srv, &format!("/v1/games/{}/board.svg", g.id));
    let seat = g.game.position().to_move().expect("a seat to move");
    assert!(now.contains(&format!("{} to move", seat.name())), "{now}");
    let started = picture_title(
        &srv,
        &format!("/v1/games/{}/board.svg?at={}", g.id, g.moves[0].0 - 1),
    );
    assert!(started.contains("Red to move"), "{started}");
}
