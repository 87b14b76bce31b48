//! Log in, refresh (rotation and reuse detection), log out, and login rate limiting.

use djambi_e2e::{Backend, PASSWORD, TestServer, backend_tests, json};

fn login_returns_tokens(backend: Backend) {
    let s = TestServer::start(backend);
    s.register("alice");
    let r = s.post(
        "/v1/sessions",
        None,
        &json!({"username": "ALICE", "password": PASSWORD}),
    );
    let b = r.expect(201);
    assert_eq!(b["token_type"], "Bearer");
    assert_eq!(b["expires_in"], 900);
    assert_eq!(b["access_token"].as_str().unwrap().split('.').count(), 3);
    assert!(b["refresh_token"].as_str().unwrap().starts_with("djr_"));
    assert!(b["refresh_token_expires_at"].is_string());
    assert_eq!(b["user"]["username"], "alice");
    let token = b["access_token"].as_str().unwrap();
    assert_eq!(
        s.get("/v1/me", Some(token)).expect(200)["username"],
        "alice"
    );
}

fn wrong_password_and_unknown_user_look_the_same(backend: Backend) {
    let s = TestServer::start(backend);
    s.register("alice");
    let wrong = s.post(
        "/v1/sessions",
        None,
        &json!({"username": "alice", "password": "not the password"}),
    );
    let unknown = s.post(
        "/v1/sessions",
        None,
        &json!({"username": "nobody", "password": "not the password"}),
    );
    wrong.problem(401, "unauthorized");
    unknown.problem(401, "unauthorized");
    // Identical but for each request's own `request_id`.
    let same = |r: &djambi_e2e::Resp| {
        let mut v = r.json.clone();
        assert!(v["request_id"].is_string(), "{v}");
        v.as_object_mut().unwrap().remove("request_id");
        v
    };
    assert_eq!(same(&wrong), same(&unknown));
    assert_eq!(
        wrong.header("www-authenticate"),
        unknown.header("www-authenticate")
    );
    assert!(
        wrong
            .header("www-authenticate")
            .unwrap()
            .starts_with("Bearer")
    );
    // Missing or oversized fields are a validation problem, not a login attempt.
    s.post("/v1/sessions", None, &json!({"username": "alice"}))
        .problem(400, "validation");
    let r = s.post(
        "/v1/sessions",
        None,
        &json!({"username": "alice", "password": "p".repeat(200)}),
    );
    r.problem(400, "validation");
    assert_eq!(r.error_fields(), vec!["password"]);
}

fn refresh_rotates_and_reuse_revokes_the_family(backend: Backend) {
    let s = TestServer::start(backend);
    let first = s.user("alice");
    let r = s.post(
        "/v1/sessions/refresh",
        None,
        &json!({"refresh_token": first.refresh}),
    );
    let b = r.expect(200).clone();
    let second_refresh = b["refresh_token"].as_str().unwrap().to_string();
    let second_access = b["access_token"].as_str().unwrap().to_string();
    assert_ne!(second_refresh, first.refresh);
    assert_eq!(b["session_id"], first.session_id.as_str());
    s.get("/v1/me", Some(&second_access)).expect(200);

    // A second login is another family, unaffected by what follows.
    let other = s.login("alice", PASSWORD);

    // Replaying the used token: rejected, and the whole family is revoked.
    let r = s.post(
        "/v1/sessions/refresh",
        None,
        &json!({"refresh_token": first.refresh}),
    );
    r.problem(401, "unauthorized");
    assert!(r.json["detail"].as_str().unwrap().contains("already used"));
    s.post(
        "/v1/sessions/refresh",
        None,
        &json!({"refresh_token": second_refresh}),
    )
    .problem(401, "unauthorized");
    s.get("/v1/me", Some(&second_access))
        .problem(401, "unauthorized");
    s.get("/v1/me", Some(&first.access))
        .problem(401, "unauthorized");

    s.get("/v1/me", Some(&other.access)).expect(200);
    s.post(
        "/v1/sessions/refresh",
        None,
        &json!({"refresh_token": other.refresh}),
    )
    .expect(200);
}

fn bad_refresh_tokens_are_rejected(backend: Backend) {
    let s = TestServer::start(backend);
    s.post(
        "/v1/sessions/refresh",
        None,
        &json!({"refresh_token": "djr_nonsense"}),
    )
    .problem(401, "unauthorized");
    s.post("/v1/sessions/refresh", None, &json!({"refresh_token": ""}))
        .problem(400, "validation");
    s.post(
        "/v1/sessions/refresh",
        None,
        &json!({"refresh_token": "x".repeat(500)}),
    )
    .problem(400, "validation");
    s.post("/v1/sessions/refresh", None, &json!({"token": "djr_x"}))
        .problem(400, "validation");
}

fn expired_refresh_token_is_rejected(backend: Backend) {
    let s = TestServer::start_with(backend, &[("DJAMBI_REFRESH_TOKEN_TTL", "1s")]);
    let login = s.user("alice");
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let r = s.post(
        "/v1/sessions/refresh",
        None,
        &json!({"refresh_token": login.refresh}),
    );
    r.problem(401, "unauthorized");
    assert!(
        r.json["detail"].as_str().unwrap().contains("expired"),
        "{}",
        r.text
    );
}

fn logout_revokes_the_session(backend: Backend) {
    let s = TestServer::start(backend);
    let login = s.user("alice");
    let other = s.login("alice", PASSWORD);
    let r = s.delete("/v1/sessions/current", Some(&login.access));
    assert_eq!(r.status.as_u16(), 204, "{}", r.text);
    s.get("/v1/me", Some(&login.access))
        .problem(401, "unauthorized");
    s.post(
        "/v1/sessions/refresh",
        None,
        &json!({"refresh_token": login.refresh}),
    )
    .problem(401, "unauthorized");
    s.delete("/v1/sessions/current", Some(&login.access))
        .problem(401, "unauthorized");
    s.delete("/v1/sessions/current", None)
        .problem(401, "unauthorized");
    // Other sessions live on.
    s.get("/v1/me", Some(&other.access)).expect(200);
    // A personal access token has no session to end.
    let (_, pat) = s.pat(&other, &["read"]);
    s.delete("/v1/sessions/current", Some(&pat))
        .problem(403, "forbidden");
}

fn login_is_rate_limited_per_account(backend: Backend) {
    let s = TestServer::start(backend);
    s.register("alice");
    s.register("bob");
    for _ in 0..5 {
        s.post(
            "/v1/sessions",
            None,
            &json!({"username": "alice", "password": "wrong password"}),
        )
        .problem(401, "unauthorized");
    }
    // Over the limit even the right password is refused, for any spelling of the name.
    for name in ["alice", "ALICE"] {
        let r = s.post(
            "/v1/sessions",
            None,
            &json!({"username": name, "password": PASSWORD}),
        );
        let b = r.problem(429, "rate-limited");
        let retry: u64 = r
            .header("retry-after")
            .expect("Retry-After")
            .parse()
            .unwrap();
        assert!((1..=60).contains(&retry), "Retry-After {retry}");
        assert_eq!(b["retry_after"], retry);
    }
    // Another account is not affected, and successes do not count against it.
    for _ in 0..7 {
        s.login("bob", PASSWORD);
    }
}

/// Guesses sent all at once cannot slip past the per-account limit before the first
/// failure is counted.
fn login_limit_holds_for_parallel_attempts(backend: Backend) {
    let s = TestServer::start(backend);
    s.register("alice");
    let barrier = std::sync::Barrier::new(20);
    let statuses: Vec<u16> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..20)
            .map(|_| {
                let (s, barrier) = (&s, &barrier);
                scope.spawn(move || {
                    barrier.wait();
                    s.post(
                        "/v1/sessions",
                        None,
                        &json!({"username": "alice", "password": "wrong password"}),
                    )
                    .status
                    .as_u16()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let refused = statuses.iter().filter(|s| **s == 401).count();
    let limited = statuses.iter().filter(|s| **s == 429).count();
    assert_eq!((refused, limited), (5, 15), "{statuses:?}");
}

fn login_is_rate_limited_per_client_address(backend: Backend) {
    let s = TestServer::start_with(backend, &[("DJAMBI_LOGIN_LIMIT_PER_IP", "3/1m")]);
    s.register("alice");
    for name in ["u1", "u2", "u3"] {
        s.post(
            "/v1/sessions",
            None,
            &json!({"username": name, "password": "whatever1"}),
        )
        .problem(401, "unauthorized");
    }
    let r = s.post(
        "/v1/sessions",
        None,
        &json!({"username": "alice", "password": PASSWORD}),
    );
    r.problem(429, "rate-limited");
    let retry: u64 = r.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=20).contains(&retry), "Retry-After {retry}");
}

backend_tests!(
    login_returns_tokens,
    wrong_password_and_unknown_user_look_the_same,
    refresh_rotates_and_reuse_revokes_the_family,
    bad_refresh_tokens_are_rejected,
    expired_refresh_token_is_rejected,
    logout_revokes_the_session,
    login_is_rate_limited_per_account,
    login_is_rate_limited_per_client_address,
    login_limit_holds_for_parallel_attempts,
);
