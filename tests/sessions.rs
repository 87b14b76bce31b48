//! Log in, refresh (rotation and reuse detection), log out, and login rate limiting.

use djambi_e2e::{Backend, PASSWORD, Resp, TestServer, backend_tests, json};

/// A login attempt as if from `client`, through a trusted proxy (the test servers that use
/// this trust 127.0.0.1).
fn login_from(s: &TestServer, client: &str, username: &str, password: &str) -> Resp {
    s.send(
        s.request(reqwest::Method::POST, "/v1/sessions")
            .header("x-forwarded-for", client)
            .json(&json!({"username": username, "password": password})),
    )
}

fn retry_after(r: &Resp) -> u64 {
    r.header("retry-after")
        .expect("Retry-After")
        .parse()
        .expect("Retry-After in seconds")
}

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
    // Any unusable refresh token is a 401, whatever its length.
    for token in [String::new(), "x".repeat(500), "djr_".repeat(1000)] {
        let r = s.post(
            "/v1/sessions/refresh",
            None,
            &json!({ "refresh_token": token }),
        );
        r.problem(401, "unauthorized");
        assert!(r.header("www-authenticate").is_some());
    }
    // A body that is not a refresh request is malformed.
    s.post("/v1/sessions/refresh", None, &json!({"token": "djr_x"}))
        .problem(400, "validation");
    let r = s.post("/v1/sessions/refresh", None, &json!({"refresh_token": 5}));
    r.problem(400, "validation");
    assert_eq!(r.error_fields(), vec!["refresh_token"]);
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

/// Five failures from one address cost nothing; then that address backs off
/// exponentially, whatever the password, while the owner elsewhere logs in at once.
fn failures_back_off_per_account_and_address(backend: Backend) {
    let s = TestServer::start_with(backend, &[("DJAMBI_TRUSTED_PROXIES", "127.0.0.1")]);
    s.register("alice");
    let stranger = "198.51.100.7";
    for _ in 0..5 {
        login_from(&s, stranger, "alice", "wrong password").problem(401, "unauthorized");
    }
    // Over the budget even the right password waits, for any spelling of the name.
    for name in ["alice", "ALICE"] {
        let r = login_from(&s, stranger, name, PASSWORD);
        let b = r.problem(429, "rate-limited");
        assert_eq!(retry_after(&r), 1);
        assert_eq!(b["retry_after"], 1);
    }
    // The owner, from another address, is not locked out.
    login_from(&s, "203.0.113.5", "alice", PASSWORD).expect(201);
    // After the wait one more guess is allowed, and the next wait doubles.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    login_from(&s, stranger, "alice", "wrong again").problem(401, "unauthorized");
    let r = login_from(&s, stranger, "alice", PASSWORD);
    r.problem(429, "rate-limited");
    assert_eq!(retry_after(&r), 2);
    // Another account is not affected, and successes never count against it.
    s.register("bob");
    for _ in 0..7 {
        login_from(&s, stranger, "bob", PASSWORD).expect(201);
    }
    // A success from an address clears its count.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    login_from(&s, stranger, "alice", PASSWORD).expect(201);
    for _ in 0..5 {
        login_from(&s, stranger, "alice", "wrong password").problem(401, "unauthorized");
    }
}

/// Past the account-wide ceiling, addresses that never logged into the account back off
/// too; the owner's own addresses do not.
fn account_wide_ceiling_spares_known_addresses(backend: Backend) {
    let s = TestServer::start_with(
        backend,
        &[
            ("DJAMBI_TRUSTED_PROXIES", "127.0.0.1"),
            ("DJAMBI_LOGIN_LIMIT_ACCOUNT_WIDE", "4/1h"),
        ],
    );
    s.register("alice");
    let home = "203.0.113.5";
    login_from(&s, home, "alice", PASSWORD).expect(201);
    // Four strangers, one guess each: under every per-address budget.
    for i in 1..=4 {
        login_from(&s, &format!("198.51.100.{i}"), "alice", "wrong password")
            .problem(401, "unauthorized");
    }
    let r = login_from(&s, "198.51.100.99", "alice", PASSWORD);
    r.problem(429, "rate-limited");
    assert!(retry_after(&r) >= 1);
    login_from(&s, home, "alice", PASSWORD).expect(201);
    // Unknown names have no account-wide count: the answers do not tell names apart.
    for i in 1..=6 {
        login_from(&s, &format!("198.51.100.{i}"), "nobody", "wrong password")
            .problem(401, "unauthorized");
    }
}

/// Correct logins sent at once all succeed: attempts in flight wait for each other instead
/// of using up the failure budget.
fn parallel_correct_logins_all_succeed(backend: Backend) {
    let s = TestServer::start(backend);
    s.register("alice");
    let barrier = std::sync::Barrier::new(10);
    let statuses: Vec<u16> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..10)
            .map(|_| {
                let (s, barrier) = (&s, &barrier);
                scope.spawn(move || {
                    barrier.wait();
                    s.post(
                        "/v1/sessions",
                        None,
                        &json!({"username": "alice", "password": PASSWORD}),
                    )
                    .status
                    .as_u16()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(statuses.iter().all(|s| *s == 201), "{statuses:?}");
}

/// Answers carrying tokens are never stored by caches.
fn token_answers_are_not_stored(backend: Backend) {
    let s = TestServer::start(backend);
    s.register("alice");
    let r = s.post(
        "/v1/sessions",
        None,
        &json!({"username": "alice", "password": PASSWORD}),
    );
    assert_eq!(r.header("cache-control"), Some("no-store"));
    let refresh = r.json["refresh_token"].as_str().unwrap().to_string();
    let access = r.json["access_token"].as_str().unwrap().to_string();
    let r = s.post(
        "/v1/sessions/refresh",
        None,
        &json!({ "refresh_token": refresh }),
    );
    r.expect(200);
    assert_eq!(r.header("cache-control"), Some("no-store"));
    let r = s.post(
        "/v1/me/tokens",
        Some(&access),
        &json!({"name": "bot", "scopes": ["read"]}),
    );
    r.expect(201);
    assert_eq!(r.header("cache-control"), Some("no-store"));
    for path in ["/v1/me", "/v1/me/tokens"] {
        let r = s.get(path, Some(&access));
        assert_eq!(r.header("cache-control"), Some("no-store"), "{path}");
    }
    // Errors of these resources too.
    let r = s.post(
        "/v1/sessions",
        None,
        &json!({"username": "alice", "password": "nope nope"}),
    );
    assert_eq!(r.header("cache-control"), Some("no-store"));
}

/// Password hashes run a bounded number at once; past a short queue the answer is 503 with
/// `Retry-After`, never a pile-up.
fn password_hashing_is_bounded(backend: Backend) {
    let s = TestServer::start_with(
        backend,
        &[
            ("DJAMBI_HASH_CONCURRENCY", "1"),
            ("DJAMBI_HASH_QUEUE", "1"),
            ("DJAMBI_ARGON2_MEMORY_KIB", "4096"),
            ("DJAMBI_ARGON2_ITERATIONS", "8"),
            ("DJAMBI_LOGIN_LIMIT_PER_IP", "100000/1m"),
        ],
    );
    let barrier = std::sync::Barrier::new(12);
    let answers: Vec<(u16, Option<String>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..12)
            .map(|i| {
                let (s, barrier) = (&s, &barrier);
                scope.spawn(move || {
                    barrier.wait();
                    let r = s.post(
                        "/v1/sessions",
                        None,
                        &json!({"username": format!("nobody{i}"), "password": "wrong password"}),
                    );
                    if r.status.as_u16() == 503 {
                        r.problem(503, "unavailable");
                    }
                    (r.status.as_u16(), r.header("retry-after").map(String::from))
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let refused = answers.iter().filter(|(s, _)| *s == 401).count();
    let busy: Vec<_> = answers.iter().filter(|(s, _)| *s == 503).collect();
    assert_eq!(refused + busy.len(), 12, "{answers:?}");
    assert!(
        refused >= 2,
        "one running and one queued go through: {answers:?}"
    );
    assert!(!busy.is_empty(), "{answers:?}");
    assert!(busy.iter().all(|(_, retry)| retry.is_some()), "{answers:?}");
}

/// A burst the hashing drains well within the allowed wait is served whole: 30
/// simultaneous logins on two hashing turns all get their answer, none a 503 (admission
/// is by the expected wait, not by the queue's length).
fn a_burst_that_drains_in_time_is_served(backend: Backend) {
    let s = TestServer::start_with(
        backend,
        &[
            ("DJAMBI_HASH_CONCURRENCY", "2"),
            ("DJAMBI_ARGON2_MEMORY_KIB", "4096"),
            ("DJAMBI_ARGON2_ITERATIONS", "4"),
            ("DJAMBI_LOGIN_LIMIT_PER_IP", "100000/1m"),
        ],
    );
    let barrier = std::sync::Barrier::new(30);
    let started = std::time::Instant::now();
    let answers: Vec<u16> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..30)
            .map(|i| {
                let (s, barrier) = (&s, &barrier);
                scope.spawn(move || {
                    barrier.wait();
                    s.post(
                        "/v1/sessions",
                        None,
                        &json!({"username": format!("nobody{i}"), "password": "wrong password"}),
                    )
                    .status
                    .as_u16()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(answers.iter().all(|s| *s == 401), "{answers:?}");
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
}

/// `X-Forwarded-For` is believed only from the proxies named in `DJAMBI_TRUSTED_PROXIES`.
fn forwarded_for_only_from_trusted_proxies(backend: Backend) {
    let untrusting = TestServer::start_with(backend, &[("DJAMBI_LOGIN_LIMIT_PER_IP", "2/1m")]);
    for client in ["198.51.100.1", "198.51.100.2"] {
        login_from(&untrusting, client, "nobody", "wrong password").problem(401, "unauthorized");
    }
    login_from(&untrusting, "198.51.100.3", "nobody", "wrong password")
        .problem(429, "rate-limited");
    drop(untrusting);
    let trusting = TestServer::start_with(
        backend,
        &[
            ("DJAMBI_LOGIN_LIMIT_PER_IP", "2/1m"),
            ("DJAMBI_TRUSTED_PROXIES", "127.0.0.0/8"),
        ],
    );
    for client in ["198.51.100.1", "198.51.100.2", "198.51.100.3"] {
        login_from(&trusting, client, "nobody", "wrong password").problem(401, "unauthorized");
    }
    login_from(&trusting, "198.51.100.1", "nobody", "wrong password").problem(401, "unauthorized");
    login_from(&trusting, "198.51.100.1", "nobody", "wrong password").problem(429, "rate-limited");
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
    failures_back_off_per_account_and_address,
    account_wide_ceiling_spares_known_addresses,
    parallel_correct_logins_all_succeed,
    token_answers_are_not_stored,
    password_hashing_is_bounded,
    a_burst_that_drains_in_time_is_served,
    forwarded_for_only_from_trusted_proxies,
    login_is_rate_limited_per_client_address,
    login_limit_holds_for_parallel_attempts,
);
