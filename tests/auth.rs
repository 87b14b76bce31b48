//! The `Authenticated` extractor: every kind of bad bearer token is a 401 problem.

use std::sync::Arc;
use std::time::Duration;

use chrono::{TimeDelta, Utc};
use djambi_api::auth::jwt::{Claims, ISSUER, JwtKeys, LEEWAY_SECS};
use djambi_e2e::{Backend, Clock, ManualClock, TEST_JWT_SECRET, TestServer, backend_tests, json};

fn keys(secret: &str) -> JwtKeys {
    JwtKeys::new(secret.as_bytes(), Duration::from_secs(900)).unwrap()
}

/// Claims expiring `exp_offset` seconds after the server's `clock` says now.
fn claims(clock: &dyn Clock, user_id: &str, session_id: &str, exp_offset: i64) -> Claims {
    let now = clock.now().and_utc().timestamp();
    Claims {
        sub: user_id.into(),
        sid: session_id.into(),
        scope: "read play".into(),
        iss: ISSUER.into(),
        iat: now - 10,
        exp: now + exp_offset,
    }
}

fn missing_and_malformed_headers(backend: Backend) {
    let s = TestServer::start(backend);
    let r = s.get("/v1/me", None);
    r.problem(401, "unauthorized");
    assert_eq!(
        r.header("www-authenticate"),
        Some("Bearer realm=\"djambi\"")
    );
    for value in [
        "Basic YWxpY2U6cGFzc3dvcmQ=",
        "Bearer",
        "Bearer ",
        "Token abc",
        "bearer not-a-jwt",
        "Bearer a.b.c",
        "Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.",
    ] {
        let r = s.send(
            s.request(reqwest::Method::GET, "/v1/me")
                .header("authorization", value),
        );
        r.problem(401, "unauthorized");
        assert!(
            r.header("www-authenticate")
                .unwrap()
                .contains("invalid_token"),
            "{value}"
        );
    }
    let huge = format!("Bearer {}", "a".repeat(5000));
    s.send(
        s.request(reqwest::Method::GET, "/v1/me")
            .header("authorization", huge),
    )
    .problem(401, "unauthorized");
}

fn expired_tampered_and_foreign_jwts(backend: Backend) {
    let clock = Arc::new(ManualClock::new(Utc::now().naive_utc()));
    let s = TestServer::start_with_clock(backend, &[], clock.clone());
    let claims = |user_id: &str, session_id: &str, exp_offset: i64| {
        claims(&*clock, user_id, session_id, exp_offset)
    };
    let alice = s.user("alice");
    let bob = s.user("bob");
    let ours = keys(TEST_JWT_SECRET);

    // A token we signed ourselves with a live session works: the crafting is right.
    let good = ours
        .encode(&claims(&alice.user_id, &alice.session_id, 600))
        .unwrap();
    s.get("/v1/me", Some(&good)).expect(200);

    let expired = ours
        .encode(&claims(&alice.user_id, &alice.session_id, -3600))
        .unwrap();
    let r = s.get("/v1/me", Some(&expired));
    r.problem(401, "unauthorized");
    assert!(
        r.json["detail"].as_str().unwrap().contains("expired"),
        "{}",
        r.text
    );

    // Alice's signature on Bob's claims.
    let parts: Vec<&str> = alice.access.split('.').collect();
    let bob_parts: Vec<&str> = bob.access.split('.').collect();
    let tampered = format!("{}.{}.{}", parts[0], bob_parts[1], parts[2]);
    s.get("/v1/me", Some(&tampered))
        .problem(401, "unauthorized");

    // A flipped signature byte.
    let mut sig: Vec<char> = parts[2].chars().collect();
    sig[5] = if sig[5] == 'A' { 'B' } else { 'A' };
    let flipped = format!(
        "{}.{}.{}",
        parts[0],
        parts[1],
        sig.iter().collect::<String>()
    );
    s.get("/v1/me", Some(&flipped)).problem(401, "unauthorized");

    // Signed with another secret.
    let foreign = keys("some-other-secret-some-other-secret-123")
        .encode(&claims(&alice.user_id, &alice.session_id, 600))
        .unwrap();
    s.get("/v1/me", Some(&foreign)).problem(401, "unauthorized");

    // Valid signature, but a session that does not exist or is not the subject's.
    let no_session = ours
        .encode(&claims(&alice.user_id, "no-such-session", 600))
        .unwrap();
    s.get("/v1/me", Some(&no_session))
        .problem(401, "unauthorized");
    let crossed = ours
        .encode(&claims(&bob.user_id, &alice.session_id, 600))
        .unwrap();
    s.get("/v1/me", Some(&crossed)).problem(401, "unauthorized");

    s.get("/v1/me", Some(&alice.access)).expect(200);
}

fn revoked_and_unknown_personal_tokens(backend: Backend) {
    let s = TestServer::start(backend);
    let alice = s.user("alice");
    let (id, pat) = s.pat(&alice, &["read"]);
    s.get("/v1/me", Some(&pat)).expect(200);
    assert_eq!(
        s.delete(&format!("/v1/me/tokens/{id}"), Some(&alice.access))
            .status
            .as_u16(),
        204
    );
    let r = s.get("/v1/me", Some(&pat));
    r.problem(401, "unauthorized");
    assert!(r.json["detail"].as_str().unwrap().contains("revoked"));
    s.get(
        "/v1/me",
        Some("djp_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"),
    )
    .problem(401, "unauthorized");
}

/// An access token's `exp` is the server's clock's, not the machine's: advancing a
/// `ManualClock` past the token's lifetime (15 minutes, and the leeway) expires it, for the
/// extractor and for the games' write path alike; a refresh then hands out a token that
/// works at the server's time.
fn access_tokens_expire_by_the_servers_clock(backend: Backend) {
    let clock = Arc::new(ManualClock::new(Utc::now().naive_utc()));
    let s = TestServer::start_with_clock(backend, &[], clock.clone());
    let alice = s.user("alice");

    clock.advance(TimeDelta::minutes(15) + TimeDelta::seconds(LEEWAY_SECS as i64));
    s.get("/v1/me", Some(&alice.access)).expect(200);
    s.post("/v1/games", Some(&alice.access), &json!({}))
        .expect(201);

    clock.advance(TimeDelta::seconds(1));
    let r = s.get("/v1/me", Some(&alice.access));
    assert_eq!(
        r.problem(401, "unauthorized")["detail"],
        "the access token has expired"
    );
    let r = s.post("/v1/games", Some(&alice.access), &json!({}));
    assert_eq!(
        r.problem(401, "unauthorized")["detail"],
        "the access token has expired"
    );

    let refreshed = s.post(
        "/v1/sessions/refresh",
        None,
        &json!({"refresh_token": alice.refresh}),
    );
    let access = refreshed.expect(200)["access_token"]
        .as_str()
        .unwrap()
        .to_string();
    s.get("/v1/me", Some(&access)).expect(200);
    s.post("/v1/games", Some(&access), &json!({})).expect(201);
}

backend_tests!(
    access_tokens_expire_by_the_servers_clock,
    missing_and_malformed_headers,
    expired_tampered_and_foreign_jwts,
    revoked_and_unknown_personal_tokens,
);
