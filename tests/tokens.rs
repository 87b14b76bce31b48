//! Personal access tokens: shown once, stored hashed, scoped, listed, revoked.

use std::sync::Arc;

use chrono::{TimeDelta, Utc};
use djambi_e2e::{Backend, ManualClock, TestServer, backend_tests, json};

fn create_use_list_and_revoke(backend: Backend) {
    let s = TestServer::start(backend);
    let alice = s.user("alice");
    let r = s.post(
        "/v1/me/tokens",
        Some(&alice.access),
        &json!({"name": "my bot", "scopes": ["play", "read", "read"], "expires_in_days": 30}),
    );
    let b = r.expect(201).clone();
    let id = b["id"].as_str().unwrap().to_string();
    let token = b["token"].as_str().unwrap().to_string();
    assert!(token.starts_with("djp_"));
    assert_eq!(b["scopes"], json!(["read", "play"]));
    assert_eq!(b["name"], "my bot");
    assert!(b["expires_at"].is_string());
    assert!(token.starts_with(b["token_hint"].as_str().unwrap().trim_end_matches('…')));
    assert_eq!(
        r.header("location"),
        Some(format!("/v1/me/tokens/{id}").as_str())
    );

    assert_eq!(
        s.get("/v1/me", Some(&token)).expect(200)["username"],
        "alice"
    );

    // The list never shows the secret again.
    let list = s.get("/v1/me/tokens", Some(&alice.access));
    let items = list.expect(200)["items"].as_array().unwrap().clone();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["id"], id.as_str());
    assert!(items[0].get("token").is_none());
    assert!(!list.text.contains(&token[4..]));
    assert!(
        items[0]["last_used_at"].is_string(),
        "use is recorded: {}",
        list.text
    );

    assert_eq!(
        s.delete(&format!("/v1/me/tokens/{id}"), Some(&alice.access))
            .status
            .as_u16(),
        204
    );
    s.get("/v1/me", Some(&token)).problem(401, "unauthorized");
    let list = s.get("/v1/me/tokens", Some(&alice.access));
    assert_eq!(list.expect(200)["items"], json!([]));
    // Revoking again is fine; an unknown id is not found.
    assert_eq!(
        s.delete(&format!("/v1/me/tokens/{id}"), Some(&alice.access))
            .status
            .as_u16(),
        204
    );
    s.delete("/v1/me/tokens/nope", Some(&alice.access))
        .problem(404, "not-found");
}

fn scopes_are_enforced(backend: Backend) {
    let s = TestServer::start(backend);
    let alice = s.user("alice");
    let (_, read) = s.pat(&alice, &["read"]);
    let (_, play) = s.pat(&alice, &["play"]);
    s.get("/v1/me", Some(&read)).expect(200);
    let r = s.get("/v1/me", Some(&play));
    r.problem(403, "forbidden");
    assert!(r.json["detail"].as_str().unwrap().contains("read"));
    // Tokens cannot manage tokens.
    s.post(
        "/v1/me/tokens",
        Some(&read),
        &json!({"name": "x", "scopes": ["read"]}),
    )
    .problem(403, "forbidden");
    s.get("/v1/me/tokens", Some(&read))
        .problem(403, "forbidden");
}

fn tokens_belong_to_their_owner(backend: Backend) {
    let s = TestServer::start(backend);
    let alice = s.user("alice");
    let bob = s.user("bob");
    let (id, token) = s.pat(&alice, &["read"]);
    s.delete(&format!("/v1/me/tokens/{id}"), Some(&bob.access))
        .problem(404, "not-found");
    assert_eq!(
        s.get("/v1/me/tokens", Some(&bob.access)).expect(200)["items"],
        json!([])
    );
    assert_eq!(
        s.get("/v1/me", Some(&token)).expect(200)["username"],
        "alice"
    );
}

fn bad_token_requests(backend: Backend) {
    let s = TestServer::start(backend);
    let alice = s.user("alice");
    let cases = [
        (json!({"name": "x", "scopes": []}), "scopes"),
        (json!({"name": "x", "scopes": ["admin"]}), "scopes[0]"),
        (json!({"name": "", "scopes": ["read"]}), "name"),
        (json!({"name": "n".repeat(65), "scopes": ["read"]}), "name"),
        (json!({"name": "a\u{0007}b", "scopes": ["read"]}), "name"),
        (
            json!({"name": "x", "scopes": ["read"], "expires_in_days": 0}),
            "expires_in_days",
        ),
        (
            json!({"name": "x", "scopes": ["read"], "expires_in_days": 100000}),
            "expires_in_days",
        ),
        (
            json!({"name": "x", "scopes": ["read"], "expires_in_days": -1}),
            "expires_in_days",
        ),
        (json!({"scopes": ["read"]}), "body"),
    ];
    for (body, field) in cases {
        let r = s.post("/v1/me/tokens", Some(&alice.access), &body);
        r.problem(400, "validation");
        assert_eq!(r.error_fields(), vec![field], "{body}: {}", r.text);
    }
    assert_eq!(
        s.get("/v1/me/tokens", Some(&alice.access)).expect(200)["items"],
        json!([])
    );
    s.post(
        "/v1/me/tokens",
        None,
        &json!({"name": "x", "scopes": ["read"]}),
    )
    .problem(401, "unauthorized");
}

fn token_list_is_paginated(backend: Backend) {
    let s = TestServer::start(backend);
    let alice = s.user("alice");
    let ids: Vec<String> = (0..3).map(|_| s.pat(&alice, &["read"]).0).collect();
    let first = s.get("/v1/me/tokens?limit=2", Some(&alice.access));
    let b = first.expect(200).clone();
    let page1: Vec<&str> = b["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    assert_eq!(page1, vec![ids[0].as_str(), ids[1].as_str()]);
    assert_eq!(b["next_cursor"], ids[1].as_str());
    let next = b["next"].as_str().unwrap();
    let second = s.get(next, Some(&alice.access));
    let b2 = second.expect(200);
    assert_eq!(b2["items"].as_array().unwrap().len(), 1);
    assert_eq!(b2["items"][0]["id"], ids[2].as_str());
    assert!(b2["next"].is_null() && b2["next_cursor"].is_null());

    s.get("/v1/me/tokens?limit=0", Some(&alice.access))
        .problem(400, "validation");
    s.get("/v1/me/tokens?limit=101", Some(&alice.access))
        .problem(400, "validation");
    let r = s.get("/v1/me/tokens?limit=abc", Some(&alice.access));
    r.problem(400, "validation");
    assert_eq!(r.error_fields(), vec!["query"]);
}

/// The cap of 100 live tokens holds when creations race: the account's row is locked
/// (PostgreSQL) or the write transaction is exclusive (SQLite) while counting.
fn token_cap_holds_under_concurrency(backend: Backend) {
    let s = TestServer::start(backend);
    let alice = s.user("alice");
    for _ in 0..95 {
        s.pat(&alice, &["read"]);
    }
    let barrier = std::sync::Barrier::new(16);
    let statuses: Vec<u16> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..16)
            .map(|i| {
                let (s, barrier, alice) = (&s, &barrier, &alice);
                scope.spawn(move || {
                    barrier.wait();
                    s.post(
                        "/v1/me/tokens",
                        Some(&alice.access),
                        &json!({"name": format!("racer {i}"), "scopes": ["read"]}),
                    )
                    .status
                    .as_u16()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let created = statuses.iter().filter(|s| **s == 201).count();
    let refused = statuses.iter().filter(|s| **s == 409).count();
    assert_eq!((created, refused), (5, 11), "{statuses:?}");
    let mut live = 0;
    let mut path = "/v1/me/tokens?limit=100".to_string();
    loop {
        let page = s.get(&path, Some(&alice.access)).expect(200).clone();
        live += page["items"].as_array().unwrap().len();
        match page["next"].as_str() {
            Some(next) => path = next.to_string(),
            None => break,
        }
    }
    assert_eq!(live, 100);
}

/// Personal access tokens and refresh tokens age with the server's clock, not the
/// machine's: advancing a `ManualClock` expires them.
fn tokens_age_with_the_servers_clock(backend: Backend) {
    let clock = Arc::new(ManualClock::new(Utc::now().naive_utc()));
    let s = TestServer::start_with_clock(backend, &[], clock.clone());
    let alice = s.user("alice");
    let created = s.post(
        "/v1/me/tokens",
        Some(&alice.access),
        &json!({"name": "a day", "scopes": ["read"], "expires_in_days": 1}),
    );
    let token = created.expect(201)["token"].as_str().unwrap().to_string();
    s.get("/v1/me", Some(&token)).expect(200);

    clock.advance(TimeDelta::days(1) + TimeDelta::seconds(1));
    let expired = s.get("/v1/me", Some(&token));
    assert_eq!(
        expired.problem(401, "unauthorized")["detail"],
        "this personal access token has expired"
    );
    // The refresh token (30 days) still works, and its successor expires 30 days later.
    let refreshed = s.post(
        "/v1/sessions/refresh",
        None,
        &json!({"refresh_token": alice.refresh}),
    );
    let next = refreshed.expect(200)["refresh_token"]
        .as_str()
        .unwrap()
        .to_string();
    clock.advance(TimeDelta::days(30) + TimeDelta::seconds(1));
    let late = s.post(
        "/v1/sessions/refresh",
        None,
        &json!({"refresh_token": next}),
    );
    assert_eq!(
        late.problem(401, "unauthorized")["detail"],
        "this refresh token has expired"
    );
}

backend_tests!(
    tokens_age_with_the_servers_clock,
    token_cap_holds_under_concurrency,
    create_use_list_and_revoke,
    scopes_are_enforced,
    tokens_belong_to_their_owner,
    bad_token_requests,
    token_list_is_paginated,
);
