//! HTTP details: HEAD on GET resources, OPTIONS, CORS from a setting, type errors that name
//! their field, and request/response types whose Debug never shows a secret.

use djambi_e2e::{Backend, PASSWORD, TestServer, backend_tests, json};
use reqwest::Method;

fn head_answers_every_get_resource(backend: Backend) {
    let s = TestServer::start(backend);
    let alice = s.user("alice");
    let game = s
        .post(
            "/v1/games",
            Some(&alice.access),
            &json!({"seats": 4, "seat": "R"}),
        )
        .expect(201)
        .clone();
    let id = game["id"].as_str().unwrap();
    for path in [
        "/healthz".to_string(),
        "/readyz".to_string(),
        "/openapi.json".to_string(),
        "/v1/me".to_string(),
        "/v1/me/tokens".to_string(),
        "/v1/games".to_string(),
        format!("/v1/games/{id}"),
        format!("/v1/games/{id}/events"),
    ] {
        let get = s.send(s.request(Method::GET, &path).bearer_auth(&alice.access));
        let head = s.send(s.request(Method::HEAD, &path).bearer_auth(&alice.access));
        assert_eq!(head.status, get.status, "HEAD {path}: {}", head.text);
        assert_eq!(head.status.as_u16(), 200, "HEAD {path}");
        assert!(head.text.is_empty(), "HEAD {path} sent a body");
        assert_eq!(head.content_type(), get.content_type(), "HEAD {path}");
    }
    // HEAD of a missing resource is the GET's 404, without a body.
    let head = s.send(s.request(Method::HEAD, "/v1/games/no-such-game"));
    assert_eq!(head.status.as_u16(), 404);
    assert!(head.text.is_empty());
}

fn options_lists_the_methods(backend: Backend) {
    let s = TestServer::start(backend);
    let r = s.send(s.request(Method::OPTIONS, "/v1/me"));
    assert_eq!(r.status.as_u16(), 204, "{}", r.text);
    assert_eq!(r.header("allow"), Some("GET, HEAD, PATCH, OPTIONS"));
    let r = s.send(s.request(Method::OPTIONS, "/v1/sessions"));
    assert_eq!(r.header("allow"), Some("POST, OPTIONS"));
    // A static path is its own route, not also an `{id}` of its neighbour.
    let r = s.send(s.request(Method::OPTIONS, "/v1/games/import"));
    assert_eq!(r.header("allow"), Some("POST, OPTIONS"));
    let r = s.send(s.request(Method::OPTIONS, "/v1/games/some-id"));
    assert_eq!(r.header("allow"), Some("GET, HEAD, OPTIONS"));
    // Without configured origins, a preflight gets no CORS permission.
    let r = s.send(
        s.request(Method::OPTIONS, "/v1/me")
            .header("origin", "https://evil.example")
            .header("access-control-request-method", "GET"),
    );
    assert!(r.header("access-control-allow-origin").is_none());
    let r = s.send(s.request(Method::OPTIONS, "/nowhere"));
    r.problem(404, "not-found");
}

fn cors_allows_configured_origins_only(backend: Backend) {
    let s = TestServer::start_with(
        backend,
        &[("DJAMBI_CORS_ORIGINS", "https://app.example.org")],
    );
    let alice = s.user("alice");
    let preflight = |origin: &str| {
        s.send(
            s.request(Method::OPTIONS, "/v1/me")
                .header("origin", origin)
                .header("access-control-request-method", "PATCH")
                .header(
                    "access-control-request-headers",
                    "authorization, content-type",
                ),
        )
    };
    let r = preflight("https://app.example.org");
    assert!(r.status.is_success(), "{}: {}", r.status, r.text);
    assert_eq!(
        r.header("access-control-allow-origin"),
        Some("https://app.example.org")
    );
    let methods = r.header("access-control-allow-methods").unwrap_or_default();
    assert!(methods.contains("PATCH"), "{methods}");
    let r = preflight("https://evil.example");
    assert!(r.header("access-control-allow-origin").is_none());
    // Simple requests: the allowed origin may read the answer, others get no permission
    // (but are not refused: same-origin and server clients send Origin too).
    let r = s.send(
        s.request(Method::GET, "/v1/me")
            .bearer_auth(&alice.access)
            .header("origin", "https://app.example.org"),
    );
    r.expect(200);
    assert_eq!(
        r.header("access-control-allow-origin"),
        Some("https://app.example.org")
    );
    let r = s.send(
        s.request(Method::GET, "/v1/me")
            .bearer_auth(&alice.access)
            .header("origin", "https://evil.example"),
    );
    r.expect(200);
    assert!(r.header("access-control-allow-origin").is_none());
}

fn type_errors_name_the_field(backend: Backend) {
    let s = TestServer::start(backend);
    let r = s.post(
        "/v1/sessions",
        None,
        &json!({"username": 5, "password": PASSWORD}),
    );
    r.problem(400, "validation");
    assert_eq!(r.error_fields(), vec!["username"]);
    let alice = s.user("alice");
    let r = s.post(
        "/v1/me/tokens",
        Some(&alice.access),
        &json!({"name": "x", "scopes": "read"}),
    );
    r.problem(400, "validation");
    assert_eq!(r.error_fields(), vec!["scopes"]);
    // JSON has one kind of number: 30.0 is the integer 30 (as JSON Schema says), 30.5 is not.
    let r = s.post(
        "/v1/me/tokens",
        Some(&alice.access),
        &json!({"name": "x", "scopes": ["read"], "expires_in_days": 30.0}),
    );
    r.expect(201);
    let r = s.post(
        "/v1/me/tokens",
        Some(&alice.access),
        &json!({"name": "x", "scopes": ["read"], "expires_in_days": 30.5}),
    );
    r.problem(400, "validation");
    assert_eq!(r.error_fields(), vec!["expires_in_days"]);
    let r = s.patch(
        "/v1/me",
        Some(&alice.access),
        &json!({"new_password": 12345678, "current_password": PASSWORD}),
    );
    assert_eq!(r.error_fields(), vec!["new_password"]);
}

/// Request and response types never print a password or a token in `Debug` (logs,
/// panics).
#[test]
fn debug_never_prints_a_secret() {
    use djambi_api::routes::{accounts, me, sessions, tokens};
    let secret = "hunter2 correct horse";
    let register: accounts::RegisterRequest = serde_json::from_value(
        json!({"username": "alice", "email": "a@example.org", "password": secret}),
    )
    .unwrap();
    let login: sessions::LoginRequest =
        serde_json::from_value(json!({"username": "alice", "password": secret})).unwrap();
    let refresh: sessions::RefreshRequest =
        serde_json::from_value(json!({ "refresh_token": secret })).unwrap();
    let patch: me::UpdateMeRequest = serde_json::from_value(
        json!({"current_password": secret, "new_password": secret, "email": "b@example.org"}),
    )
    .unwrap();
    let created = tokens::CreatedToken {
        info: tokens::TokenInfo {
            id: "t".into(),
            name: "bot".into(),
            scopes: vec![],
            token_hint: "djp_…".into(),
            created_at: chrono::Utc::now(),
            expires_at: None,
            last_used_at: None,
        },
        token: secret.to_string().into(),
    };
    for shown in [
        format!("{register:?}"),
        format!("{login:?}"),
        format!("{refresh:?}"),
        format!("{patch:?}"),
        format!("{created:?}"),
    ] {
        assert!(!shown.contains("hunter2"), "{shown}");
        assert!(shown.contains("redacted"), "{shown}");
    }
    // The JSON still carries the secret where it must.
    assert!(serde_json::to_string(&created).unwrap().contains(secret));
}

backend_tests!(
    head_answers_every_get_resource,
    options_lists_the_methods,
    cors_allows_configured_origins_only,
    type_errors_name_the_field,
);
