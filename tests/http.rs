//! HTTP details: HEAD on GET resources, OPTIONS, CORS from a setting, type errors that name
//! their field, and request/response types whose Debug never shows a secret.

use djambi_e2e::{Backend, PASSWORD, TestServer, Value, backend_tests, json};
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
    assert_eq!(r.header("allow"), Some("GET, HEAD, PATCH, DELETE, OPTIONS"));
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
            app: None,
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
    arrays_are_never_objects,
    wrong_types_name_the_field,
    nosniff_and_large_heads,
);

/// The places in a request schema where the document expects a JSON object, as the
/// paths serde_path_to_error names (`time_control`, `bots[0]`; `""` for the body).
fn object_positions(doc: &Value, schema: &Value, at: &str, out: &mut Vec<String>, depth: usize) {
    if depth > 6 {
        return;
    }
    let schema = resolve(doc, schema);
    for key in ["oneOf", "anyOf", "allOf"] {
        for branch in schema[key].as_array().into_iter().flatten() {
            object_positions(doc, branch, at, out, depth + 1);
        }
    }
    let types: Vec<&str> = match &schema["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    };
    if types.contains(&"object") || schema["properties"].is_object() {
        if !out.iter().any(|p| p == at) {
            out.push(at.to_string());
        }
        for (name, prop) in schema["properties"].as_object().into_iter().flatten() {
            let below = if at.is_empty() {
                name.clone()
            } else {
                format!("{at}.{name}")
            };
            object_positions(doc, prop, &below, out, depth + 1);
        }
    }
    if types.contains(&"array") {
        object_positions(doc, &schema["items"], &format!("{at}[0]"), out, depth + 1);
    }
}

fn resolve<'a>(doc: &'a Value, mut schema: &'a Value) -> &'a Value {
    while let Some(r) = schema["$ref"].as_str() {
        let name = r.rsplit('/').next().unwrap_or_default();
        schema = &doc["components"]["schemas"][name];
    }
    schema
}

/// Puts `value` at `path` (`a.b[0]`) in `body`, making the containers on the way.
fn put_at(body: &mut Value, path: &str, value: Value) {
    if path.is_empty() {
        *body = value;
        return;
    }
    let mut here = body;
    let parts: Vec<&str> = path.split('.').collect();
    for (i, part) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        let (name, index) = match part.strip_suffix("[0]") {
            Some(n) => (n, true),
            None => (*part, false),
        };
        if !here.is_object() {
            *here = json!({});
        }
        let slot = &mut here[name];
        if index {
            if slot.as_array().is_none_or(|a| a.is_empty()) {
                *slot = json!([{}]);
            }
            here = &mut slot[0];
        } else {
            here = slot;
        }
        if last {
            *here = value;
            return;
        }
    }
}

fn scalar() -> impl proptest::strategy::Strategy<Value = Value> {
    use proptest::prelude::*;
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (0u32..100_000).prop_map(Value::from),
        "[a-z0-9]{0,8}".prop_map(Value::from),
    ]
}

/// Property: wherever a request schema in the committed document expects an object, a
/// JSON array there (serde's sequence form of a struct) is refused with 400 naming the
/// place, and nothing is written, in every body of every operation.
fn arrays_are_never_objects(backend: Backend) {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};

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
    let id = game["id"].as_str().unwrap().to_string();
    let doc: Value = serde_json::from_str(
        &std::fs::read_to_string(djambi_e2e::repo_root().join("openapi/openapi.json")).unwrap(),
    )
    .unwrap();
    let mut cases = Vec::new();
    for (path, ops) in doc["paths"].as_object().unwrap() {
        for (method, op) in ops.as_object().unwrap() {
            let Some(content) = op["requestBody"]["content"]["application/json"].as_object() else {
                continue;
            };
            let schema = &content["schema"];
            let example = resolve(&doc, schema)["example"].clone();
            let mut positions = Vec::new();
            object_positions(&doc, schema, "", &mut positions, 0);
            for at in positions {
                let url = path.replace("{id}", &id).replace("{seat}", "G");
                cases.push((method.to_uppercase(), url, example.clone(), at));
            }
        }
    }
    let named: Vec<&str> = cases.iter().map(|c| c.3.as_str()).collect();
    for expected in ["", "time_control", "bots[0]", "move", "kinds"] {
        assert!(
            named.contains(&expected),
            "no case for `{expected}`: {named:?}"
        );
    }
    let before = s
        .get(&format!("/v1/games/{id}"), Some(&alice.access))
        .expect(200)
        .clone();
    let mut runner = TestRunner::new(Config {
        cases: 8,
        ..Config::default()
    });
    runner
        .run(&proptest::collection::vec(scalar(), 0..4), |items| {
            for (method, url, example, at) in &cases {
                let mut body = if example.is_object() {
                    example.clone()
                } else {
                    json!({})
                };
                put_at(&mut body, at, Value::Array(items.clone()));
                let method = Method::from_bytes(method.as_bytes()).unwrap();
                let r = s.send(
                    s.request(method.clone(), url)
                        .bearer_auth(&alice.access)
                        .json(&body),
                );
                let field = if at.is_empty() { "body" } else { at.as_str() };
                prop_assert_eq!(
                    r.status.as_u16(),
                    400,
                    "{} {} {}: {}",
                    method,
                    url,
                    body,
                    r.text
                );
                prop_assert_eq!(
                    r.error_fields(),
                    vec![field.to_string()],
                    "{} {} {}: {}",
                    method,
                    url,
                    body,
                    r.text
                );
            }
            Ok(())
        })
        .unwrap();
    let after = s
        .get(&format!("/v1/games/{id}"), Some(&alice.access))
        .expect(200)
        .clone();
    assert_eq!(before["version"], after["version"]);
    // The report's own example: a time control as [60] was read as 60 s a move.
    let r = s.post(
        "/v1/games",
        Some(&alice.access),
        &json!({"seats": 4, "seat": "R", "time_control": [60]}),
    );
    r.problem(400, "validation");
    assert_eq!(r.error_fields(), vec!["time_control"]);
}

/// The JSON types a schema admits (`integer` admits only integers; `number` both).
fn admitted_types(doc: &Value, schema: &Value, out: &mut Vec<String>, depth: usize) {
    let schema = resolve(doc, schema);
    if depth > 6 || schema.as_object().is_some_and(|o| o.is_empty()) {
        out.push("any".into());
        return;
    }
    for key in ["oneOf", "anyOf", "allOf"] {
        for branch in schema[key].as_array().into_iter().flatten() {
            admitted_types(doc, branch, out, depth + 1);
        }
    }
    match &schema["type"] {
        Value::String(t) => out.push(t.clone()),
        Value::Array(ts) => out.extend(ts.iter().filter_map(Value::as_str).map(String::from)),
        _ if schema["properties"].is_object() => out.push("object".into()),
        _ => {}
    }
    if schema.get("enum").is_some() && out.is_empty() {
        out.push("any".into());
    }
}

/// Property: a top-level field of a JSON type its schema does not admit is refused with
/// 400 naming that field (not `body`), in every body of every operation.
fn wrong_types_name_the_field(backend: Backend) {
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
    let id = game["id"].as_str().unwrap().to_string();
    let doc: Value = serde_json::from_str(
        &std::fs::read_to_string(djambi_e2e::repo_root().join("openapi/openapi.json")).unwrap(),
    )
    .unwrap();
    let mut tried = 0;
    for (path, ops) in doc["paths"].as_object().unwrap() {
        for (method, op) in ops.as_object().unwrap() {
            let Some(content) = op["requestBody"]["content"]["application/json"].as_object() else {
                continue;
            };
            let schema = resolve(&doc, &content["schema"]);
            let example = schema["example"].clone();
            let url = path.replace("{id}", &id).replace("{seat}", "G");
            for (name, prop) in schema["properties"].as_object().into_iter().flatten() {
                let mut types = Vec::new();
                admitted_types(&doc, prop, &mut types, 0);
                if types.iter().any(|t| t == "any") {
                    continue;
                }
                let wrong = [
                    ("boolean", json!(true)),
                    ("object", json!({"x": 1})),
                    ("number", json!(1.5)),
                    ("string", json!("x")),
                    ("array", json!([1])),
                ]
                .into_iter()
                .find(|(t, _)| !types.iter().any(|a| a == t));
                let Some((_, wrong)) = wrong else { continue };
                let mut body = if example.is_object() {
                    example.clone()
                } else {
                    json!({})
                };
                body[name] = wrong;
                let m = Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
                let r = s.send(s.request(m, &url).bearer_auth(&alice.access).json(&body));
                assert_eq!(r.status.as_u16(), 400, "{method} {url} {body}: {}", r.text);
                assert_eq!(
                    r.error_fields(),
                    vec![name.clone()],
                    "{method} {url} {body}: {}",
                    r.text
                );
                tried += 1;
            }
        }
    }
    assert!(tried >= 30, "only {tried} fields tried");
}

/// Every answer says `X-Content-Type-Options: nosniff`; a head over the documented
/// limits is a 431 problem, not a bare status.
fn nosniff_and_large_heads(backend: Backend) {
    let s = TestServer::start(backend);
    let alice = s.user("alice");
    for r in [
        s.get("/v1/me", Some(&alice.access)),
        s.get("/v1/games/no-such-game", None),
        s.post("/v1/games", Some(&alice.access), &json!({"seats": "x"})),
        s.get("/healthz", None),
        s.send(s.request(Method::OPTIONS, "/v1/games")),
    ] {
        assert_eq!(
            r.header("x-content-type-options"),
            Some("nosniff"),
            "{}",
            r.text
        );
    }
    let mut rb = s.request(Method::GET, "/v1/me").bearer_auth(&alice.access);
    for i in 0..70 {
        rb = rb.header(format!("x-extra-{i}"), "1");
    }
    let r = s.send(rb);
    r.problem(431, "headers-too-large");
    assert_eq!(r.header("x-content-type-options"), Some("nosniff"));
    let r = s.send(
        s.request(Method::GET, "/v1/me")
            .header("x-big", "a".repeat(40 * 1024)),
    );
    r.problem(431, "headers-too-large");
    // Within the limits, a large head is fine.
    let r = s.send(
        s.request(Method::GET, "/v1/me")
            .bearer_auth(&alice.access)
            .header("x-big", "a".repeat(16 * 1024)),
    );
    r.expect(200);
}
