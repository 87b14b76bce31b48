//! `GET /v1/me` and `PATCH /v1/me`: profile, email change, password change.

use djambi_e2e::{Backend, PASSWORD, TestServer, backend_tests, json};

fn get_me_returns_the_profile(backend: Backend) {
    let s = TestServer::start(backend);
    let alice = s.user("alice");
    let b = s.get("/v1/me", Some(&alice.access)).expect(200).clone();
    assert_eq!(b["id"], alice.user_id.as_str());
    assert_eq!(b["username"], "alice");
    assert_eq!(b["email"], "alice@example.org");
    assert!(b.get("password_hash").is_none());
}

fn change_email(backend: Backend) {
    let s = TestServer::start(backend);
    let alice = s.user("alice");
    // The current password is required, and must be right.
    let r = s.patch(
        "/v1/me",
        Some(&alice.access),
        &json!({"email": "new@example.org"}),
    );
    r.problem(400, "validation");
    assert_eq!(r.error_fields(), vec!["current_password"]);
    let r = s.patch(
        "/v1/me",
        Some(&alice.access),
        &json!({"email": "new@example.org", "current_password": "not my password"}),
    );
    r.problem(400, "validation");
    assert_eq!(r.error_fields(), vec!["current_password"]);
    assert_eq!(
        s.get("/v1/me", Some(&alice.access)).expect(200)["email"],
        "alice@example.org"
    );
    let r = s.patch(
        "/v1/me",
        Some(&alice.access),
        &json!({"email": "new@example.org", "current_password": PASSWORD}),
    );
    assert_eq!(r.expect(200)["email"], "new@example.org");
    assert!(r.json.get("password_changed").is_none());
    assert_eq!(
        s.get("/v1/me", Some(&alice.access)).expect(200)["email"],
        "new@example.org"
    );
    let r = s.patch(
        "/v1/me",
        Some(&alice.access),
        &json!({"email": "nope", "current_password": PASSWORD}),
    );
    r.problem(400, "validation");
    assert_eq!(r.error_fields(), vec!["email"]);
    let r = s.patch(
        "/v1/me",
        Some(&alice.access),
        &json!({"email": format!("{}@x.org", "a".repeat(300)), "current_password": PASSWORD}),
    );
    r.problem(400, "validation");
    assert_eq!(
        s.get("/v1/me", Some(&alice.access)).expect(200)["email"],
        "new@example.org"
    );
}

fn change_password(backend: Backend) {
    let s = TestServer::start(backend);
    let alice = s.user("alice");
    let elsewhere = s.login("alice", PASSWORD);
    let new = "a brand new passphrase";

    let r = s.patch("/v1/me", Some(&alice.access), &json!({"new_password": new}));
    r.problem(400, "validation");
    assert_eq!(r.error_fields(), vec!["current_password"]);
    let r = s.patch(
        "/v1/me",
        Some(&alice.access),
        &json!({"current_password": "wrong password", "new_password": new}),
    );
    r.problem(400, "validation");
    assert_eq!(r.error_fields(), vec!["current_password"]);
    for weak in ["short", "password1", "alice2024", "12345678"] {
        let r = s.patch(
            "/v1/me",
            Some(&alice.access),
            &json!({"current_password": PASSWORD, "new_password": weak}),
        );
        assert_eq!(r.error_fields(), vec!["new_password"], "{weak}: {}", r.text);
    }
    // Nothing changed so far.
    s.login("alice", PASSWORD);
    let (_, bot) = s.pat(&alice, &["read", "play"]);
    s.get("/v1/me", Some(&bot)).expect(200);

    let r = s.patch(
        "/v1/me",
        Some(&alice.access),
        &json!({"current_password": PASSWORD, "new_password": new}),
    );
    // The answer says what the change ended: the two other logins (`elsewhere`, and the
    // check that nothing had changed) and the personal access token.
    assert_eq!(
        r.expect(200)["password_changed"],
        json!({"sessions_ended": 2, "personal_access_tokens_revoked": 1})
    );
    s.post(
        "/v1/sessions",
        None,
        &json!({"username": "alice", "password": PASSWORD}),
    )
    .problem(401, "unauthorized");
    s.login("alice", new);
    // The session that changed it lives on; the others end.
    s.get("/v1/me", Some(&alice.access)).expect(200);
    s.get("/v1/me", Some(&elsewhere.access))
        .problem(401, "unauthorized");
    s.post(
        "/v1/sessions/refresh",
        None,
        &json!({"refresh_token": elsewhere.refresh}),
    )
    .problem(401, "unauthorized");
    // Every personal access token is revoked too.
    let r = s.get("/v1/me", Some(&bot));
    r.problem(401, "unauthorized");
    assert!(r.json["detail"].as_str().unwrap().contains("revoked"));
    assert_eq!(
        s.get("/v1/me/tokens", Some(&alice.access)).expect(200)["items"],
        json!([])
    );
}

/// Guessing the current password (with a stolen access token, say) counts against the
/// account's login limits: after five wrong guesses even the right one waits, and so do
/// logins from the same address.
fn guessing_the_current_password_is_limited(backend: Backend) {
    let s = TestServer::start(backend);
    let alice = s.user("alice");
    let change = |current: &str| {
        s.patch(
            "/v1/me",
            Some(&alice.access),
            &json!({"current_password": current, "new_password": "a brand new passphrase"}),
        )
    };
    for _ in 0..5 {
        change("wrong password").problem(400, "validation");
    }
    let r = change(PASSWORD);
    r.problem(429, "rate-limited");
    assert!(r.header("retry-after").is_some());
    s.post(
        "/v1/sessions",
        None,
        &json!({"username": "alice", "password": PASSWORD}),
    )
    .problem(429, "rate-limited");
}

fn patch_rejects_bad_requests(backend: Backend) {
    let s = TestServer::start(backend);
    let alice = s.user("alice");
    let r = s.patch("/v1/me", Some(&alice.access), &json!({}));
    r.problem(400, "validation");
    s.patch(
        "/v1/me",
        Some(&alice.access),
        &json!({"username": "mallory"}),
    )
    .problem(400, "validation");
    s.patch("/v1/me", Some(&alice.access), &json!({"email": 42}))
        .problem(400, "validation");
    s.patch("/v1/me", None, &json!({"email": "x@example.org"}))
        .problem(401, "unauthorized");
    // Account changes need a login, not a personal access token.
    let (_, pat) = s.pat(&alice, &["read", "play"]);
    s.patch("/v1/me", Some(&pat), &json!({"email": "x@example.org"}))
        .problem(403, "forbidden");
}

backend_tests!(
    get_me_returns_the_profile,
    change_email,
    change_password,
    patch_rejects_bad_requests,
    guessing_the_current_password_is_limited,
);
