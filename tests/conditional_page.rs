//! The game page's conditional moves (issue 36) in a real browser: the server on
//! PostgreSQL, then headless Chromium (`tests/browser/conditional_test.py`, see
//! `tests/browser/README.md`). Red, waiting for Blue, enters lines of the rivals' moves
//! and an answer on the board (by keyboard, by mouse and in the text box), saves them
//! (the API's tree is exactly those lines), is told in plain words why a conflicting
//! line is refused (the 400 naming the line and the move), prunes a line and a branch
//! (the API agrees after each save), sees the panel in French (a tree stored through the
//! API shown, then deleted by "Delete all"), and is told when the game
//! moved on before saving (the 412). The page passes axe-core (on a phone too, where the
//! panel fits the screen) and logs no error but the refusals provoked. Chromium is installed by `scripts/ensure-chromium.sh` when missing;
//! if it cannot be, this test FAILS.

use djambi_e2e::{Backend, TestServer, run_browser_driver};

#[test]
fn a_player_enters_saves_and_prunes_conditional_moves_in_chromium() {
    let root = djambi_e2e::repo_root();
    let srv = TestServer::start(Backend::Postgres);
    let outdir = root.join("target/test-artifacts/conditional");
    let stdout = run_browser_driver(
        "conditional_test.py",
        &[&srv.base, &outdir.to_string_lossy()],
    );
    for shot in [
        "conditional-entering.png",
        "conditional.png",
        "conditional-phone.png",
        "conditional-fr.png",
    ] {
        assert!(outdir.join(shot).is_file(), "{shot}");
    }
    eprintln!("{stdout}");
}
