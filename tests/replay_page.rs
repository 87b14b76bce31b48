//! The replay page in a real browser: the server on PostgreSQL, a random game played to
//! its end through the API, then headless Chromium steps through the page
//! (`tests/browser/replay_test.py`, see `tests/browser/README.md`). Chromium is installed
//! by `scripts/ensure-chromium.sh` when missing; if it cannot be, this test FAILS.

#[path = "support/history.rs"]
mod history;

use djambi_e2e::{Backend, Rng, TestServer, run_browser_driver};
use history::*;

#[test]
fn the_replay_page_steps_through_a_real_game_in_chromium() {
    let root = djambi_e2e::repo_root();
    let srv = TestServer::start(Backend::Postgres);

    // About 40 actions: random moves with a resignation on the way, then resignations.
    let mut g = seated_game(&srv, "browser", "RBYG");
    let mut rng = Rng::new(0xb40_5e71);
    play_random(&srv, &mut g, &mut rng, 34, &[20]);
    resign_until_over(&srv, &mut g);

    let outdir = root.join("target/test-artifacts/replay");
    let outdir_text = outdir.to_string_lossy();
    let stdout = run_browser_driver("replay_test.py", &[&srv.base, &g.id, &outdir_text]);
    assert!(outdir.join("replay.png").is_file());
    eprintln!("{}", stdout.lines().last().unwrap_or_default());
}
