//! The table-talk panel of the game page in a real browser: the server on PostgreSQL,
//! then headless Chromium (`tests/browser/talk_test.py`, see `tests/browser/README.md`)
//! with two isolated sessions that talk at the table and privately, by keyboard and
//! mouse, each page showing the other's messages by itself, with unread counts; the page
//! is checked with axe-core on a desktop and on a phone. Chromium is installed by
//! `scripts/ensure-chromium.sh` when missing; if it cannot be, this test FAILS.

use djambi_e2e::{Backend, TestServer, run_browser_driver};

#[test]
fn two_players_talk_in_the_panel_in_chromium() {
    let root = djambi_e2e::repo_root();
    let srv = TestServer::start(Backend::Postgres);
    let outdir = root.join("target/test-artifacts/talk");
    let stdout = run_browser_driver("talk_test.py", &[&srv.base, &outdir.to_string_lossy()]);
    for shot in ["talk.png", "talk-phone.png"] {
        assert!(outdir.join(shot).is_file(), "{shot}");
    }
    eprintln!("{stdout}");
}
