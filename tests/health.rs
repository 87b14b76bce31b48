//! `/healthz`, `/readyz`, `/openapi.json`, `/docs`, and the problem+json answers for unknown
//! routes and methods.

use djambi_e2e::{Backend, FreshDatabase, PASSWORD, TestServer, Value, backend_tests};

fn healthz_and_readyz(backend: Backend) {
    let s = TestServer::start(backend);
    assert_eq!(s.get("/healthz", None).expect(200)["status"], "ok");
    assert_eq!(s.get("/readyz", None).expect(200)["status"], "ready");
}

fn unknown_route_is_a_problem(backend: Backend) {
    let s = TestServer::start(backend);
    let r = s.get("/nope", None);
    r.problem(404, "not-found");
    assert!(r.json["detail"].as_str().unwrap().contains("/nope"));
    s.get("/v1/nothing/here", None).problem(404, "not-found");
    // A known path with a method it does not have: 405 and the methods it has.
    let r = s.send(s.request(reqwest::Method::PUT, "/v1/accounts"));
    r.problem(405, "method-not-allowed");
    assert_eq!(r.header("allow"), Some("POST"));
    let r = s.send(s.request(reqwest::Method::PATCH, "/v1/games/some-id/seats/R"));
    r.problem(405, "method-not-allowed");
    assert_eq!(r.header("allow"), Some("POST, DELETE"));
    let r = s.send(s.request(reqwest::Method::PUT, "/v1/me"));
    assert_eq!(r.header("allow"), Some("GET, PATCH, DELETE"));
    // Swagger UI's own misses are problems too.
    s.get("/docs/no-such-file.js", None)
        .problem(404, "not-found");
}

fn openapi_is_served(backend: Backend) {
    let s = TestServer::start(backend);
    let r = s.get("/openapi.json", None);
    let doc = r.expect(200);
    assert!(r.content_type().starts_with("application/json"));
    assert_eq!(r.text, djambi_api::openapi::document_json());
    assert_eq!(doc["openapi"], "3.1.0");
    assert_eq!(doc["info"]["title"], "Djambi correspondence server");
}

fn docs_page_works_offline(backend: Backend) {
    let s = TestServer::start(backend);
    let r = s.get("/docs", None);
    assert_eq!(r.status.as_u16(), 308);
    assert_eq!(r.header("location"), Some("/docs/"));
    let page = s.get("/docs/", None);
    page.expect(200);
    assert!(page.content_type().starts_with("text/html"));
    assert!(page.text.contains("swagger"), "{}", page.text);
    // Every script and stylesheet the page loads is served by us, not a CDN.
    for attr in ["src=\"", "href=\""] {
        for piece in page.text.split(attr).skip(1) {
            let target = piece.split('"').next().unwrap_or_default();
            assert!(
                !target.starts_with("http://")
                    && !target.starts_with("https://")
                    && !target.starts_with("//"),
                "the docs page loads {target} from the network"
            );
            if target.ends_with(".js") || target.ends_with(".css") {
                let asset = s.get(&format!("/docs/{}", target.trim_start_matches("./")), None);
                assert_eq!(asset.status.as_u16(), 200, "asset {target}");
            }
        }
    }
    let init = s.get("/docs/swagger-initializer.js", None);
    init.expect(200);
    assert!(init.text.contains("/openapi.json"), "{}", init.text);
}

backend_tests!(
    healthz_and_readyz,
    unknown_route_is_a_problem,
    openapi_is_served,
    docs_page_works_offline,
    no_bad_input_causes_a_server_error,
);

/// With the database gone, `/readyz` says 503 (a problem), `/healthz` still 200.
#[test]
fn readyz_fails_without_the_database_pg() {
    let s = TestServer::start_with(Backend::Postgres, &[("DJAMBI_DB_TIMEOUT", "1s")]);
    s.get("/readyz", None).expect(200);
    s.break_database();
    let r = s.get("/readyz", None);
    r.problem(503, "unavailable");
    assert!(r.header("retry-after").is_some());
    s.get("/healthz", None).expect(200);
}

/// Several instances starting at once on one PostgreSQL database migrate it once (under the
/// advisory lock) and then share it.
#[test]
fn concurrent_starts_share_one_database_pg() {
    let db = FreshDatabase::new(Backend::Postgres);
    let servers: Vec<TestServer> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..3)
            .map(|_| scope.spawn(|| TestServer::start_on(&db)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a server failed to start"))
            .collect()
    });
    servers[0].register("alice");
    servers[1].register("bob");
    servers[2].login("alice", PASSWORD);
    servers[0].login("bob", PASSWORD);
    drop(servers);
}

/// Garbage of every kind at every endpoint: never a 5xx, every error is problem+json.
fn no_bad_input_causes_a_server_error(backend: Backend) {
    let s = TestServer::start(backend);
    let alice = s.user("alice");
    let nested = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
    let bodies: Vec<String> = vec![
        "".into(),
        "null".into(),
        "{}".into(),
        "[]".into(),
        "\"text\"".into(),
        "{\"username\": null, \"password\": null, \"email\": null}".into(),
        "{\"username\": \"\\u0000\", \"password\": \"\\ud800\", \"email\": \"@\"}".into(),
        "{\"username\": 1e999, \"scopes\": \"read\", \"expires_in_days\": 99999999999999999999}"
            .into(),
        "{\"refresh_token\": [1, 2], \"name\": {}, \"new_password\": true}".into(),
        nested,
        "\u{feff}{}".into(),
        // NUL cannot be stored in PostgreSQL text: it must be refused before the database.
        "{\"username\": \"nul\\u0000\", \"password\": \"whatever1\"}".into(),
        "{\"username\": \"nul\\u0000\", \"email\": \"a@b.cd\", \"password\": \"whatever12\"}"
            .into(),
        "{\"email\": \"a\\u0000@b.cd\"}".into(),
        "{\"name\": \"n\\u0000\", \"scopes\": [\"read\"]}".into(),
        "{\"refresh_token\": \"djr_\\u0000\"}".into(),
        String::from_utf8_lossy(&[0xff, 0xfe, 0x00, 0x7b]).into_owned(),
    ];
    let routes = [
        (reqwest::Method::POST, "/v1/accounts"),
        (reqwest::Method::POST, "/v1/sessions"),
        (reqwest::Method::POST, "/v1/sessions/refresh"),
        (reqwest::Method::DELETE, "/v1/sessions/current"),
        (reqwest::Method::GET, "/v1/me"),
        (reqwest::Method::PATCH, "/v1/me"),
        (reqwest::Method::POST, "/v1/me/tokens"),
        (reqwest::Method::GET, "/v1/me/tokens?limit=-1&after="),
        (reqwest::Method::DELETE, "/v1/me/tokens/%00%ff"),
        (reqwest::Method::DELETE, "/v1/me/tokens/a%00b"),
        (reqwest::Method::GET, "/v1/me/tokens/..%2f..%2f"),
    ];
    let tokens = [None, Some("garbage"), Some(alice.access.as_str())];
    for (method, path) in &routes {
        for token in tokens {
            if *path == "/v1/sessions/current" && token == Some(alice.access.as_str()) {
                continue; // that would log her out, which is fine but ends the sweep
            }
            for body in &bodies {
                let mut rb = s
                    .request(method.clone(), path)
                    .header("content-type", "application/json")
                    .body(body.clone());
                if let Some(t) = token {
                    rb = rb.bearer_auth(t);
                }
                let r = s.send(rb);
                assert!(
                    r.status.as_u16() < 500,
                    "{method} {path} with {body:.40}: {} {}",
                    r.status,
                    r.text
                );
                if r.status.as_u16() >= 400 {
                    assert!(
                        r.content_type().starts_with("application/problem+json"),
                        "{method} {path}: {} {:?}",
                        r.status,
                        r.content_type()
                    );
                    assert!(matches!(r.json, Value::Object(_)));
                }
            }
        }
    }
    // Alice's session survived all that.
    s.get("/v1/me", Some(&alice.access)).expect(200);
}
