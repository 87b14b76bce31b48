//! OAuth 2.0 with a real client library: the server on PostgreSQL, a game under way, then
//! `tests/browser/oauth_test.py` drives Authlib (PyPI, pinned in the venv of
//! `scripts/oauth-test-venv.sh`) and the consent page in headless Chromium (installed by
//! `scripts/ensure-chromium.sh` when missing; if it cannot be, this test FAILS): signed
//! out, the login page, the consent page (axe-clean), the code back on a loopback redirect
//! URI, the token, a move played with it; a replayed code refused and its token revoked;
//! a second token revoked by the app (RFC 7009).

#[path = "support/games.rs"]
mod games;

use std::process::Command;

use djambi_e2e::{Backend, PASSWORD, TestServer, repo_root};

/// The output of a command that must succeed.
fn output_of(command: &mut Command, what: &str) -> String {
    let out = command
        .output()
        .unwrap_or_else(|e| panic!("run {what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).to_string()
}

#[test]
fn an_app_signs_in_with_authlib_through_the_consent_page_and_plays() {
    let root = repo_root();
    let srv = TestServer::start(Backend::Postgres);
    let (game, players) = games::four_player_game(&srv, "authlib");
    let red = &players[0];
    let before = games::version(&srv, &game);

    let chromium = output_of(
        Command::new("bash")
            .arg(root.join("scripts/ensure-chromium.sh"))
            .current_dir(&root),
        "scripts/ensure-chromium.sh",
    );
    let python = output_of(
        Command::new("sh")
            .arg(root.join("scripts/oauth-test-venv.sh"))
            .current_dir(&root),
        "scripts/oauth-test-venv.sh",
    );
    let outdir = root.join("target/test-artifacts/oauth");
    let stdout = output_of(
        Command::new(python.trim())
            .arg(root.join("tests/browser/oauth_test.py"))
            .args([&srv.base, &red.username, PASSWORD, &game])
            .arg(&outdir)
            .args(["--chromium", chromium.trim(), "--timeout", "30"])
            .current_dir(&root),
        "tests/browser/oauth_test.py",
    );
    assert!(stdout.contains("ok: "), "{stdout}");
    assert!(outdir.join("oauth-consent.png").is_file());
    // The move the app played is in the game.
    assert_eq!(games::version(&srv, &game), before + 1);
    let events = games::all_events(&srv, &game);
    assert!(
        events.iter().any(|e| e["kind"] == "move_played"),
        "no move in {events:?}"
    );
}
