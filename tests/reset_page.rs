//! The password reset pages in a real browser: the server on PostgreSQL, a reset mail
//! through the SMTP sink, then headless Chromium (`tests/browser/reset_test.py`): the
//! login page's "Forgot your password?", the page of the mailed link, by keyboard only,
//! axe-core (WCAG 2.1 A and AA) on every state. Chromium is installed by
//! `scripts/ensure-chromium.sh` when missing; if it cannot be, this test FAILS.

#[path = "support/smtp_sink.rs"]
mod smtp_sink;

use djambi_e2e::{Backend, PASSWORD, TestServer, json, run_browser_driver};
use smtp_sink::SmtpSink;

#[test]
fn the_reset_pages_work_by_keyboard_and_pass_axe_in_chromium() {
    let root = djambi_e2e::repo_root();
    let sink = SmtpSink::start();
    let srv = TestServer::start_with(Backend::Postgres, &sink.server_settings(&[]));
    let p = smtp_sink::verified_players(&srv, &sink, "rst");
    sink.clear();
    srv.post(
        "/v1/password-resets",
        None,
        &json!({"username": p[0].username}),
    )
    .expect(202);
    let m = sink.wait_for_subject(20, &smtp_sink::address_of(&p[0]), "Reset your password", 1);
    let token = smtp_sink::token_after(&m.body, "/reset-password/");
    let outdir = root.join("target/test-artifacts/reset");
    run_browser_driver(
        "reset_test.py",
        &[
            &srv.base,
            &format!("/reset-password/{token}"),
            &outdir.to_string_lossy(),
        ],
    );
    // The page set the password.
    srv.login(&p[0].username, "a long enough passphrase");
    assert_eq!(
        srv.post(
            "/v1/sessions",
            None,
            &json!({"username": p[0].username, "password": PASSWORD}),
        )
        .status
        .as_u16(),
        401
    );
}
