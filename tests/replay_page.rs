//! The replay page in a real browser: the server on PostgreSQL, a random game played to
//! its end through the API, then headless Chromium steps through the page
//! (`tests/browser/replay_test.py`, see `tests/browser/README.md`). Chromium is installed
//! by `scripts/ensure-chromium.sh` when missing; if it cannot be, this test FAILS.

#[path = "support/history.rs"]
mod history;

use std::path::PathBuf;
use std::process::Command;

use djambi_e2e::{Backend, Rng, TestServer};
use history::*;

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace root")
        .to_path_buf()
}

#[test]
fn the_replay_page_steps_through_a_real_game_in_chromium() {
    let root = repo_root();
    let srv = TestServer::start(Backend::Postgres);

    // About 40 actions: random moves with a resignation on the way, then resignations.
    let mut g = seated_game(&srv, "browser", "RBYG");
    let mut rng = Rng::new(0xb40_5e71);
    play_random(&srv, &mut g, &mut rng, 34, &[20]);
    resign_until_over(&srv, &mut g);

    let ensure = Command::new("bash")
        .arg(root.join("scripts/ensure-chromium.sh"))
        .current_dir(&root)
        .output()
        .expect("run scripts/ensure-chromium.sh");
    assert!(
        ensure.status.success(),
        "Chromium is required by this test and could not be installed by \
         scripts/ensure-chromium.sh ({}):\n{}",
        ensure.status,
        String::from_utf8_lossy(&ensure.stderr)
    );
    let chromium = String::from_utf8_lossy(&ensure.stdout).trim().to_string();
    assert!(!chromium.is_empty(), "ensure-chromium.sh printed no path");

    let outdir = root.join("target/test-artifacts/replay");
    let run = Command::new("python3")
        .arg(root.join("tests/browser/replay_test.py"))
        .arg(&srv.base)
        .arg(&g.id)
        .arg(&outdir)
        .args(["--chromium", &chromium, "--timeout", "30"])
        .current_dir(&root)
        .output()
        .expect("run python3 tests/browser/replay_test.py");
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        run.status.success(),
        "the browser test failed ({}):\n{stdout}\n{stderr}",
        run.status
    );
    assert!(stdout.contains("ok: "), "{stdout}");
    assert!(outdir.join("replay.png").is_file());
    eprintln!("{}", stdout.lines().last().unwrap_or_default());
}
