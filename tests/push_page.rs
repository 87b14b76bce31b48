//! Web Push in the web client and the installable web app, in a real browser: the server
//! on PostgreSQL with a VAPID key, then headless Chromium (`tests/browser/push_test.py`,
//! see `tests/browser/README.md`): the manifest and its icons, the service worker's
//! registration from the settings page's button (nothing asked at load), the
//! subscription sent to the account, the worker showing a push and opening the game.
//! Chromium is installed by `scripts/ensure-chromium.sh` when missing; if it cannot be,
//! this test FAILS.

use djambi_e2e::{Backend, TestServer, run_browser_driver};

/// A P-256 private key (the application server's of RFC 8291, appendix A).
const VAPID_KEY: &str = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw";

#[test]
fn the_settings_page_enables_push_and_the_app_installs_in_chromium() {
    let root = djambi_e2e::repo_root();
    let srv = TestServer::start_with(
        Backend::Postgres,
        &[
            ("DJAMBI_VAPID_PRIVATE_KEY", VAPID_KEY),
            ("DJAMBI_VAPID_SUBJECT", "mailto:ops@example.org"),
        ],
    );
    let outdir = root.join("target/test-artifacts/push");
    let stdout = run_browser_driver("push_test.py", &[&srv.base, &outdir.to_string_lossy()]);
    for line in [
        "manifest valid",
        "service worker registered",
        "subscription sent and listed",
        "the service worker shows a push",
        "notificationclick focuses",
        "turned off: the subscription deleted",
    ] {
        assert!(stdout.contains(line), "{line}:\n{stdout}");
    }
    assert!(outdir.join("push.png").is_file());
    eprintln!("{stdout}");
}
